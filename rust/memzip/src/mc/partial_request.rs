//! The two types that describe requests for part of a block (a sectored L2's
//! sector reads, partial write-backs): what one asks for, and what a partial
//! write does to a compressed block. The model itself is
//! [`MemoryController::read_partial`](super::MemoryController::read_partial) and
//! [`write_partial`](super::MemoryController::write_partial)
//! (`mc/controller/partial.rs`).

/// What a write of part of a block does to a block stored compressed
/// (`-memzip_partial_writes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PartialWrites {
    /// Read what DRAM holds of the block, merge, recompress the whole block
    /// and write it (`rmw`).
    #[default]
    ReadModifyWrite,
    /// Store the block raw: a raw block takes the write as it is, a
    /// compressed one is read and rewritten whole and raw (`raw`).
    StoreRaw,
}

impl PartialWrites {
    /// The flag's values, in the order of [`PartialWrites::name`].
    pub const NAMES: [&'static str; 2] = ["rmw", "raw"];

    pub fn name(self) -> &'static str {
        match self {
            PartialWrites::ReadModifyWrite => "rmw",
            PartialWrites::StoreRaw => "raw",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "rmw" => Some(PartialWrites::ReadModifyWrite),
            "raw" => Some(PartialWrites::StoreRaw),
            _ => None,
        }
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
}
