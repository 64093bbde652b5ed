//! Requests that are not one whole block: the sector reads of a sectored L2
//! (gpgpu-sim's QV100 config asks DRAM for 32-byte sectors of 128-byte
//! lines), the write-back of a line with only some sectors dirty, and the
//! partial writes an unsectored L2 sends past itself (gpgpu-sim v3.2.1).
//! The Fermi-era papers size only whole-line transfers; this is the one
//! treatment memzip gives everything else, whatever the simulator.
//!
//! A request names its block, the bytes an uncompressed memory would move
//! for it (`request_bytes`, what the simulator sizes it to) and, for a
//! write, the MAG units of the block it writes whole ([`PartialRequest`]).
//! Its cost depends on how the block is stored:
//!
//! - **Read, block stored raw** (or never written): only the bursts asked
//!   for, no decompression: the same bursts as without compression.
//! - **Read, block stored compressed**: the compressed block is one stream,
//!   so the whole stored block is fetched (its `burst_count` bursts) and
//!   decompressed; the bursts beyond those asked for are counted as
//!   over-fetch. The L2 keeps only the sectors it asked for (gpgpu-sim fills
//!   the requested sector), so a second sector read of the same line fetches
//!   the block again: the cost a sectored cache puts on compression. Such a
//!   fetch of a block already fetched whole since it was last written is
//!   counted as a refetch (`refetches`, `refetch_bursts`): what an L2 that
//!   took every decompressed sector could at most save (less the lines it
//!   would have evicted in between). `-memzip_partial_reads fill`
//!   ([`PartialReads`]) models that L2: the reply carries the decompressed
//!   block and the L2 fills each sector of the line it does not hold yet
//!   (`filled_sectors`); a refetch then means the L2 evicted the line. The
//!   bytes are on the DRAM bus already, so the fill costs no bursts; what it
//!   can cost is L2 capacity, sectors filled that are never read. A warp
//!   reading a whole line misses on its four sectors at once, before any
//!   reply: under `fill` a sector read of a line whose whole fetch is still
//!   in flight is matched to that fetch (`merged_reads`: no burst, no
//!   metadata lookup, no decompression of its own) and its reply leaves
//!   with the fetch's.
//! - **Write** (`-memzip_partial_writes`, [`PartialWrites`]):
//!   - `rmw` (default): a compressed block is read back (its stored
//!     bursts), decompressed, merged with the write, recompressed whole and
//!     written. A raw or never-written block takes the write's bursts as
//!     they are (no read) and stays raw until a whole-block write-back
//!     compresses it: the question a partial write-back asks is what
//!     becomes of a *compressed* line (issue 50), and an L2 that compresses
//!     only complete lines writes a partly dirty raw line in place.
//!   - `raw`: never recompress on a partial write. A raw block takes the
//!     write's bursts as they are (no read); a compressed block is read,
//!     decompressed and written back whole and raw, and its metadata marks
//!     it raw (a raw fallback) until a whole-block write-back compresses it.
//!   - `rmw_all`: as `rmw`, and a raw or never-written block is rebuilt
//!     too, to compress it: the units the write does not cover whole are
//!     read first, then the whole block is compressed and written; if it
//!     stays raw, only the bursts of the write go out (the rest is already
//!     in place), so the read was spent for nothing.
//!
//! The read of a read-modify-write is modelled as extra bursts of the same
//! DRAM request (as metadata fills are): the block lies in one DRAM row in
//! every address mapping memzip runs (bits 0-6 of an address are column
//! bits), so the read and the write hit the same open row. Its latency
//! (decompression of the old block, then compression) delays the write.
//!
//! A codec that keeps no metadata (`none`) cannot store a block compressed:
//! every request moves exactly its bytes, so under `none` memzip's bursts
//! equal the simulator's column commands.

use super::{McError, MemoryController, MetadataOutcome, ReadOutcome, StoredBlock, WriteOutcome};
use crate::codec::{CompressedBlock, EncodingId, UNCOMPRESSED};
use crate::mc::metadata_cache::MdcAccess;
use crate::mc::partial_request::{PartialReads, PartialRequest, PartialWrites};

/// How a partial write is carried out, decided from the stored block.
struct WritePlan {
    /// Bursts read back first (0: no read).
    read_bursts: usize,
    /// The encoding of the compressed block read back, if it was compressed.
    old_encoding: Option<EncodingId>,
    /// Its decompression before the rebuild (0 without one).
    decompress_cycles: u32,
    /// Compress the rebuilt block; else it is stored raw.
    recompress: bool,
}

impl MemoryController {
    /// Bursts an uncompressed memory moves for `request_bytes` (at least
    /// one, at most the block's).
    fn request_bursts(&self, request_bytes: usize) -> usize {
        let g = self.geometry;
        request_bytes.div_ceil(g.mag_bytes()).clamp(1, g.block_bursts())
    }

    /// The block's stored form when it is compressed.
    fn stored_compressed(&self, addr: u64) -> Option<StoredBlock> {
        self.stored(addr).filter(|b| b.encoding != UNCOMPRESSED)
    }

    /// A DRAM read of part of the block at `addr` (see the module doc).
    pub fn read_partial(&mut self, addr: u64, request: PartialRequest) -> ReadOutcome {
        let addr = self.block_addr(addr);
        let asked = self.request_bursts(request.request_bytes);
        if request.fetch_in_flight && self.options.partial_reads == PartialReads::Fill {
            if let Some(stored) = self.stored_compressed(addr) {
                return self.merged_read(stored, asked);
            }
        }
        let metadata = self.metadata_access(addr, MdcAccess::Read);
        let stored = self.stored(addr);
        let (encoding, bursts) = match stored {
            Some(b) if b.encoding != UNCOMPRESSED => (b.encoding, b.burst_count as usize),
            _ => (UNCOMPRESSED, asked),
        };
        let mut outcome = self.finish_read(stored, encoding, bursts, asked, metadata);
        let compressed = encoding != UNCOMPRESSED;
        outcome.fills_line = compressed && self.options.partial_reads == PartialReads::Fill;
        let index = self.block_index(addr);
        let refetch = compressed && !self.fetched_whole.insert(index);
        let stats = &mut self.stats.partial;
        stats.reads += 1;
        stats.compressed_reads += compressed as u64;
        stats.overfetch_bursts += outcome.overfetch_bursts as u64;
        stats.refetches += refetch as u64;
        stats.refetch_bursts += if refetch { bursts as u64 } else { 0 };
        outcome
    }

    /// A sector read of a compressed block whose whole fetch is in flight
    /// (`-memzip_partial_reads fill`): the controller matches it to that
    /// fetch, so it needs no metadata lookup, no DRAM burst and no
    /// decompression of its own. Counted as a read access of 0 bursts, so
    /// the traffic's uncompressed bursts still hold what it asked for.
    fn merged_read(&mut self, stored: StoredBlock, asked: usize) -> ReadOutcome {
        self.stats.dram_reads.record(0, asked, self.geometry.mag_bytes());
        let stats = &mut self.stats.partial;
        stats.reads += 1;
        stats.compressed_reads += 1;
        stats.merged_reads += 1;
        ReadOutcome {
            encoding: stored.encoding,
            burst_count: 0,
            dram_bytes: 0,
            decompress_cycles: 0,
            metadata_cycles: 0,
            metadata_miss: false,
            metadata_fetch_bytes: 0,
            metadata_writeback_bytes: 0,
            was_written: true,
            overfetch_bursts: 0,
            fills_line: false,
            merged: true,
        }
    }

    /// The simulator's L2 filled `sectors` more sectors of a line from a
    /// block a sector read fetched whole (`-memzip_partial_reads fill`).
    pub fn note_filled_sectors(&mut self, sectors: u64) {
        self.stats.partial.filled_sectors += sectors;
    }

    /// A DRAM write of part of the block at `addr`; `bytes` is the whole
    /// block as it is after the write (the simulator's functional memory).
    /// With `approximated`, the block is approximable data
    /// ([`write_approximable_block`](Self::write_approximable_block)).
    pub fn write_partial(
        &mut self,
        addr: u64,
        request: PartialRequest,
        bytes: &[u8],
        approximated: Option<&mut [u8]>,
    ) -> Result<WriteOutcome, McError> {
        let addr = self.block_addr(addr);
        let asked = self.request_bursts(request.request_bytes);
        if self.mdc.is_none() {
            // Nothing is ever stored compressed: the write goes out as it is.
            return Ok(self.write_raw_part(asked, asked, MetadataOutcome::default(), WritePlan::none()));
        }
        let plan = self.plan_partial_write(addr, request);
        let kind = if plan.recompress || plan.raw_fallback() { MdcAccess::Write } else { MdcAccess::Read };
        let metadata = self.metadata_access(addr, kind);
        self.charge_rmw_read(&plan);
        if !plan.recompress {
            let bursts = if plan.raw_fallback() { self.geometry.block_bursts() } else { asked };
            if plan.raw_fallback() {
                self.store(addr, &CompressedBlock::uncompressed(bytes, self.geometry));
            }
            return Ok(self.write_raw_part(bursts, asked, metadata, plan));
        }
        self.recompress_part(addr, asked, bytes, approximated, metadata, plan)
    }

    fn plan_partial_write(&self, addr: u64, request: PartialRequest) -> WritePlan {
        let g = self.geometry;
        match (self.stored_compressed(addr), self.options.partial_writes) {
            (Some(old), policy) => WritePlan {
                read_bursts: old.burst_count as usize,
                old_encoding: Some(old.encoding),
                decompress_cycles: self.decompress_cycles(old.encoding),
                recompress: policy != PartialWrites::StoreRaw,
            },
            (None, PartialWrites::ReadModifyWriteAll) => {
                let whole = (0..g.block_bursts()).filter(|i| request.whole_units >> i & 1 == 1).count();
                WritePlan { read_bursts: g.block_bursts() - whole, recompress: true, ..WritePlan::none() }
            }
            (None, PartialWrites::ReadModifyWrite | PartialWrites::StoreRaw) => WritePlan::none(),
        }
    }

    /// Counts the read of a read-modify-write (bursts, decompression, energy).
    fn charge_rmw_read(&mut self, plan: &WritePlan) {
        if plan.read_bursts == 0 {
            return;
        }
        let decompressor = plan.old_encoding.map(|encoding| self.decompressor_of(encoding));
        let decompress_pj = self.energy.decompress_pj(decompressor.as_deref());
        let read_pj = self.energy.read_bursts_pj(plan.read_bursts);
        let stats = &mut self.stats;
        stats.partial.rmw_reads += 1;
        stats.partial.rmw_read_bursts += plan.read_bursts as u64;
        stats.partial.rmw_read_bytes += (plan.read_bursts * self.geometry.mag_bytes()) as u64;
        stats.partial.raw_fallbacks += plan.raw_fallback() as u64;
        stats.decompress_cycles += plan.decompress_cycles as u64;
        stats.energy.decompress_pj += decompress_pj;
        stats.energy.dram_read_pj += read_pj;
    }

    /// A partial write stored raw: `bursts` written (`asked` of them the
    /// write's own), nothing compressed.
    fn write_raw_part(
        &mut self,
        bursts: usize,
        asked: usize,
        metadata: MetadataOutcome,
        plan: WritePlan,
    ) -> WriteOutcome {
        let g = self.geometry;
        self.stats.partial.writes += 1;
        self.stats.dram_writes.record(bursts, asked, g.mag_bytes());
        self.stats.energy.dram_write_pj += self.energy.write_bursts_pj(bursts);
        WriteOutcome {
            encoding: UNCOMPRESSED,
            compressed_bits: bursts * g.mag_bytes() * 8,
            burst_count: bursts,
            dram_bytes: bursts * g.mag_bytes(),
            compress_cycles: 0,
            metadata_miss: metadata.miss,
            metadata_fetch_bytes: metadata.fetch_bytes,
            metadata_writeback_bytes: metadata.writeback_bytes,
            approximated: false,
            rmw_read_bursts: plan.read_bursts,
            rmw_decompress_cycles: plan.decompress_cycles,
        }
    }

    /// The rebuilt block compressed whole and written: its stored bursts, or
    /// when it stays raw and was raw, only the bursts of the write.
    fn recompress_part(
        &mut self,
        addr: u64,
        asked: usize,
        bytes: &[u8],
        approximated: Option<&mut [u8]>,
        metadata: MetadataOutcome,
        plan: WritePlan,
    ) -> Result<WriteOutcome, McError> {
        let g = self.geometry;
        let was_compressed = plan.old_encoding.is_some();
        let sampled = self.sampling_open;
        let (compressed, lossy) = self.compress_checked(addr, bytes, approximated)?;
        let compress_pj = self.compress_energy(sampled, &compressed);
        self.store(addr, &compressed);
        self.count_sampled(&compressed)?;
        let bursts = match compressed.is_compressed() || was_compressed {
            true => compressed.burst_count,
            false => asked,
        };
        let name = self.encoding_name(compressed.encoding).to_string();
        let compress_cycles = self.compress_cycles(&compressed);
        let stats = &mut self.stats;
        stats.writes.record(&compressed, &name, g.block_bytes());
        stats.partial.writes += 1;
        stats.partial.raw_fallbacks += (was_compressed && !compressed.is_compressed()) as u64;
        stats.dram_writes.record(bursts, asked, g.mag_bytes());
        stats.compress_cycles += compress_cycles as u64;
        stats.energy.compress_pj += compress_pj;
        stats.energy.dram_write_pj += self.energy.write_bursts_pj(bursts);
        let mut outcome = self.write_outcome(&compressed, metadata, compress_cycles, lossy);
        outcome.burst_count = bursts;
        outcome.dram_bytes = bursts * g.mag_bytes();
        outcome.rmw_read_bursts = plan.read_bursts;
        outcome.rmw_decompress_cycles = plan.decompress_cycles;
        self.scratch = compressed;
        Ok(outcome)
    }
}

impl WritePlan {
    /// Nothing read, nothing compressed.
    fn none() -> Self {
        WritePlan { read_bursts: 0, old_encoding: None, decompress_cycles: 0, recompress: false }
    }

    /// A compressed block read back and stored raw (`-memzip_partial_writes raw`).
    fn raw_fallback(&self) -> bool {
        self.old_encoding.is_some() && !self.recompress
    }
}
