//! The two types that describe requests for part of a block (a sectored L2's
//! sector reads, partial write-backs): what one asks for, and what a partial
//! read or write does with a compressed block. The model itself is
//! [`MemoryController::read_partial`](super::MemoryController::read_partial) and
//! [`write_partial`](super::MemoryController::write_partial)
//! (`mc/controller/partial.rs`).

/// What a write of part of a block does (`-memzip_partial_writes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PartialWrites {
    /// A compressed block is read back, merged, recompressed whole and
    /// written (`rmw`); a raw or never-written block takes the write as it
    /// is and stays raw until a whole-block write compresses it, as an L2
    /// that compresses only complete lines leaves a partly written one.
    #[default]
    ReadModifyWrite,
    /// Store the block raw: a raw block takes the write as it is, a
    /// compressed one is read and rewritten whole and raw (`raw`).
    StoreRaw,
    /// Rebuild every partly written block to compress it (`rmw_all`): a
    /// compressed block as under `rmw`, and of a raw or never-written block
    /// the units the write does not cover whole are read first.
    ReadModifyWriteAll,
}

impl PartialWrites {
    /// Every policy, in the order of the flag's values.
    pub const ALL: [Self; 3] = [Self::ReadModifyWrite, Self::StoreRaw, Self::ReadModifyWriteAll];
    /// The flag's values, in the order of [`PartialWrites::ALL`].
    pub const NAMES: [&'static str; 3] = [Self::ALL[0].name(), Self::ALL[1].name(), Self::ALL[2].name()];

    pub const fn name(self) -> &'static str {
        match self {
            PartialWrites::ReadModifyWrite => "rmw",
            PartialWrites::StoreRaw => "raw",
            PartialWrites::ReadModifyWriteAll => "rmw_all",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|policy| policy.name() == name)
    }
}

/// What the L2 receives when a sector read fetches a block stored
/// compressed whole (`-memzip_partial_reads`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PartialReads {
    /// The L2 fills only the sectors it asked for; the rest of the
    /// decompressed block is dropped (`sector`: gpgpu-sim's sectored L2
    /// as it is). A later read of another sector fetches the block again.
    #[default]
    Sector,
    /// The L2 takes the compressed line as a unit (`fill`): the reply of a
    /// sector read that fetched it whole fills every sector of the line the
    /// L2 does not hold yet (sectors valid, dirty or awaiting their own
    /// reply are left as they are), and a sector read of a line whose whole
    /// fetch is still in flight waits for that fetch's decompressed block
    /// instead of fetching the line again (the memory controller matches it
    /// to the pending fetch, as an MSHR does).
    Fill,
}

impl PartialReads {
    /// Every policy, in the order of the flag's values.
    pub const ALL: [Self; 2] = [Self::Sector, Self::Fill];
    /// The flag's values, in the order of [`PartialReads::ALL`].
    pub const NAMES: [&'static str; 2] = [Self::ALL[0].name(), Self::ALL[1].name()];

    pub const fn name(self) -> &'static str {
        match self {
            PartialReads::Sector => "sector",
            PartialReads::Fill => "fill",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|policy| policy.name() == name)
    }
}

/// A DRAM request for part of one block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartialRequest {
    /// The bytes it moves uncompressed: the simulator's transfer size.
    pub request_bytes: usize,
    /// Bit `i`: the request covers MAG unit `i` of the block (bytes
    /// `i * mag .. (i + 1) * mag`) whole; for a write, every byte of it is
    /// written. Only writes use it (what a raw block lacks for a rebuild).
    pub whole_units: u64,
    /// A read that fetched this block whole for the line is still on its way
    /// to the L2 (the simulator knows its replies). Only reads use it: under
    /// [`PartialReads::Fill`] the read waits for that fetch instead of its own.
    pub fetch_in_flight: bool,
}
