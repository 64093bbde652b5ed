//! One memory controller with a compressor: what a DRAM write-back, a DRAM
//! read and a host-to-device copy cost once blocks are compressed.
//!
//! The simulator's C++ hook only forwards events here and applies the numbers
//! it gets back (burst counts, extra metadata accesses, latencies); every
//! decision is made in this file.
//!
//! Modelling choices (the papers' where they say, ours where they do not):
//! - Write-back (the E2MC paper §III-A, the MAG-aware paper §IV-F): compress, update the block's
//!   metadata in the metadata cache (write-allocate, see
//!   [`metadata_cache`](super::metadata_cache)) and the backing store, write
//!   `burst_count` bursts, add the compression latency.
//! - Read: metadata-cache lookup first (1 cycle, the MAG-aware paper §V; a miss adds a
//!   DRAM access of one metadata line), then `burst_count` bursts of the
//!   stored encoding, then the decompression latency when the block is
//!   stored compressed (an uncompressed block bypasses the decompressor).
//! - Host-to-device copy (the E2MC paper §III-A: "E2MC requires compression when
//!   the data is transferred from CPU to GPU to initialize the MDC"): compress
//!   and initialise the block's metadata in the backing store. The copy's
//!   traffic is counted apart from kernel traffic, and the metadata cache is
//!   not touched (a kernel starts with a cold cache; copies are not timed).
//! - A block never written nor copied is read as uncompressed (full bursts,
//!   no decompression). The simulator's functional memory reads such memory
//!   as zeros, but DRAM never received a compressed copy of it, and the
//!   metadata store is initialised to "uncompressed"; compressing those zeros
//!   would invent savings the unpatched run cannot have.
//! - Addresses are aligned down to the block. The metadata cache indexes
//!   lines by block number, so pass the address *as this controller sees it*
//!   (gpgpu-sim's partition-local address) to make one line cover consecutive
//!   blocks of this controller, as in hardware; a global address also works
//!   but, with channel interleaving, leaves most of each line unused.
//! - A codec that keeps no metadata (`none`, `metadata_bits() == 0`) has no
//!   metadata cache: no lookups, no latency, no extra accesses, so `none`
//!   leaves every simulator statistic unchanged.
//! - Energy ([`energy`](super::energy), what is charged is listed there):
//!   each event adds its compressor, decompressor, metadata-cache and DRAM
//!   burst energy; row activations come from the simulator's DRAM model
//!   (`McStats::dram_device`, priced by [`McStats::energy`]).

use std::collections::{HashMap, HashSet};
use std::fmt;

use super::energy::{EnergyParams, EnergyStats};
use super::energy_model::EnergyModel;
use super::metadata_cache::{MdcAccess, MdcConfig, MetadataCache};
use super::stats::McStats;
use crate::codec::registry;
use crate::codec::spec::CodecSpec;
use crate::codec::{Codec, CompressedBlock, EncodingId, Latency, UNCOMPRESSED};
use crate::error::{CodecError, ConfigError};
use crate::geometry::Geometry;

mod partial; // requests for part of a block: more methods of `MemoryController`
mod verify; // the checks of a codec's output (`-memzip_verify`): more methods
use super::partial_request::{PartialReads, PartialWrites};

/// When the codec's online sampling phase ends (E2MC learns its symbol
/// probabilities from the first part of a run, the E2MC paper §III-B2, storing the
/// blocks of that phase raw).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SamplingWindow {
    /// Nothing samples online.
    #[default]
    None,
    /// The caller ends it with [`MemoryController::end_sampling`] (the
    /// simulator does after `online:<instructions>` simulated instructions,
    /// the E2MC paper's window).
    External,
    /// The controller ends it itself once it has stored this many blocks
    /// (write-backs and host-to-device copies): `online:blocks=N`, a window
    /// that covers the same traffic whatever the instruction count.
    Blocks(u64),
}

/// Controller options beyond the codec itself (the `-memzip_*` flags).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct McOptions {
    /// Overrides the codec's compression latency (`-memzip_comp_latency`).
    pub compress_latency: Option<u32>,
    /// Overrides the codec's decompression latency (`-memzip_decomp_latency`).
    pub decompress_latency: Option<u32>,
    /// Metadata-cache lookup latency on reads (the MAG-aware paper §V: 1 cycle).
    pub mdc_latency: u32,
    /// Decompress every compressed block and compare (`-memzip_verify`).
    pub verify: bool,
    pub mdc: MdcConfig,
    /// The codec's online sampling phase, if it has one.
    pub sampling: SamplingWindow,
    /// A partial write of a compressed block (`-memzip_partial_writes`).
    pub partial_writes: PartialWrites,
    /// What the L2 keeps of a compressed block a sector read fetched whole
    /// (`-memzip_partial_reads`).
    pub partial_reads: PartialReads,
}

impl Default for McOptions {
    fn default() -> Self {
        McOptions {
            compress_latency: None,
            decompress_latency: None,
            mdc_latency: 1,
            verify: false,
            mdc: MdcConfig::default(),
            sampling: SamplingWindow::None,
            partial_writes: PartialWrites::default(),
            partial_reads: PartialReads::default(),
        }
    }
}

/// What the controller remembers about a block in DRAM: its metadata
/// (encoding) and the sizes derived from it. 4 bytes, so a large footprint
/// stays affordable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoredBlock {
    pub encoding: EncodingId,
    pub compressed_bits: u16,
    pub burst_count: u8,
}

/// What a write-back (or a copy) costs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteOutcome {
    pub encoding: EncodingId,
    pub compressed_bits: usize,
    /// Size the DRAM write to this many MAG bursts.
    pub burst_count: usize,
    /// `burst_count * mag_bytes`.
    pub dram_bytes: usize,
    /// Compression latency to add before the write.
    pub compress_cycles: u32,
    /// The block's metadata line was not in the metadata cache.
    pub metadata_miss: bool,
    /// Extra DRAM read to issue for the metadata line fill (0 on a hit).
    pub metadata_fetch_bytes: usize,
    /// Extra DRAM write to issue for a dirty metadata line evicted (else 0).
    pub metadata_writeback_bytes: usize,
    /// The block is stored approximated (a lossy codec, approximable data):
    /// it reads back as the approximation, not as the bytes written.
    pub approximated: bool,
    /// A partial write's read-modify-write: bursts read back first, and
    /// their decompression before the write (0, 0 without one).
    pub rmw_read_bursts: usize,
    pub rmw_decompress_cycles: u32,
}

/// What a DRAM read costs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOutcome {
    /// The stored encoding (uncompressed for never-written blocks).
    pub encoding: EncodingId,
    /// Size the DRAM read to this many MAG bursts.
    pub burst_count: usize,
    /// `burst_count * mag_bytes`.
    pub dram_bytes: usize,
    /// Latency on the return path before the L2 fill (0 if uncompressed).
    pub decompress_cycles: u32,
    /// Metadata-cache lookup latency before the read is issued.
    pub metadata_cycles: u32,
    pub metadata_miss: bool,
    /// Extra DRAM read to issue for the metadata line fill (0 on a hit).
    pub metadata_fetch_bytes: usize,
    /// Extra DRAM write to issue for a dirty metadata line evicted (else 0).
    pub metadata_writeback_bytes: usize,
    /// False when the block was never written nor copied.
    pub was_written: bool,
    /// Bursts fetched beyond those asked for (a partial read of a compressed block).
    pub overfetch_bursts: usize,
    /// The L2 fills every sector of the line from this read's decompressed
    /// block (`-memzip_partial_reads fill` and a block stored compressed).
    pub fills_line: bool,
    /// The read waits for the whole fetch of its block already in flight
    /// (`-memzip_partial_reads fill`): no DRAM access of its own.
    pub merged: bool,
}

/// Why a controller operation failed. Each names the codec and the block
/// address, so the simulator can stop with one useful line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McError {
    /// The codec refused the block (e.g. wrong block size).
    Codec { codec: String, addr: u64, source: CodecError },
    /// The codec returned sizes that do not agree with each other or the
    /// geometry: a codec bug.
    InvalidOutput { codec: String, addr: u64, why: String },
    /// `-memzip_verify`: the block did not decode to the original.
    VerifyFailed { codec: String, addr: u64, why: String },
    /// Ending the sampling phase failed (E2MC could not build its table).
    EndSampling { codec: String, source: CodecError },
}

impl fmt::Display for McError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            McError::Codec { codec, addr, source } => {
                write!(f, "memzip codec '{codec}' failed on block {addr:#x}: {source}")
            }
            McError::InvalidOutput { codec, addr, why } => {
                write!(f, "memzip codec '{codec}' produced an inconsistent block at {addr:#x}: {why}")
            }
            McError::VerifyFailed { codec, addr, why } => {
                write!(f, "memzip verify failed: codec '{codec}', block {addr:#x}: {why}")
            }
            McError::EndSampling { codec, source } => {
                write!(f, "memzip codec '{codec}' could not end its sampling phase: {source}")
            }
        }
    }
}

impl std::error::Error for McError {}

/// Metadata-cache consequences of one access.
#[derive(Debug, Clone, Copy, Default)]
struct MetadataOutcome {
    cycles: u32,
    miss: bool,
    fetch_bytes: usize,
    writeback_bytes: usize,
}

/// A memory controller: codec, metadata cache, backing store of block
/// metadata, and statistics. Deterministic: the same calls give the same
/// outcomes and stats.
pub struct MemoryController {
    codec: Box<dyn Codec>,
    geometry: Geometry,
    encoding_names: Vec<String>,
    latency: Latency,
    options: McOptions,
    /// `None` when the codec keeps no metadata.
    mdc: Option<MetadataCache>,
    /// Metadata of every block written or copied, by block number.
    blocks: HashMap<u64, StoredBlock>,
    /// Compressed blocks a partial read fetched whole since they were last
    /// written, by block number (`partial.refetches`).
    fetched_whole: HashSet<u64>,
    energy: EnergyModel,
    stats: McStats,
    /// The online sampling phase has not ended yet.
    sampling_open: bool,
    /// The last compressed block, reused so a write does not allocate.
    scratch: CompressedBlock,
    /// Decoded bytes for `verify`, reused.
    decoded: Vec<u8>,
    /// The bytes an approximated block may change, for `verify`, reused.
    may_change: Vec<bool>,
}

impl fmt::Debug for MemoryController {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryController")
            .field("codec", &self.codec.name())
            .field("geometry", &self.geometry)
            .field("latency", &self.latency)
            .field("options", &self.options)
            .field("stored_blocks", &self.blocks.len())
            .finish()
    }
}

impl MemoryController {
    /// Builds the codec a spec names (see [`registry`]) and a controller
    /// around it.
    pub fn new(spec: &CodecSpec, options: McOptions) -> Result<Self, ConfigError> {
        Self::with_codec(registry::build(spec)?, options)
    }

    /// A controller around an already built codec.
    pub fn with_codec(codec: Box<dyn Codec>, options: McOptions) -> Result<Self, ConfigError> {
        let geometry = codec.geometry();
        let metadata_bits = codec.metadata_bits();
        let mdc = match metadata_bits {
            0 => None,
            bits => Some(MetadataCache::new(options.mdc, bits)?),
        };
        let defaults = codec.latency();
        let latency = Latency::new(
            options.compress_latency.unwrap_or(defaults.compress_cycles),
            options.decompress_latency.unwrap_or(defaults.decompress_cycles),
        );
        let stats = McStats {
            codec: codec.name().to_string(),
            controllers: 1,
            block_bytes: geometry.block_bytes(),
            mag_bytes: geometry.mag_bytes(),
            metadata: super::stats::MetadataStats { enabled: mdc.is_some(), ..Default::default() },
            energy: EnergyStats {
                activation_pj_each: EnergyParams::default().dram_activation_pj,
                ..Default::default()
            },
            ..Default::default()
        };
        Ok(MemoryController {
            encoding_names: codec.encoding_names(),
            codec,
            geometry,
            latency,
            options,
            mdc,
            blocks: HashMap::new(),
            fetched_whole: HashSet::new(),
            energy: EnergyModel::new(EnergyParams::default(), geometry.block_bytes(), geometry.mag_bytes()),
            stats,
            sampling_open: options.sampling != SamplingWindow::None,
            scratch: CompressedBlock::default(),
            decoded: Vec::new(),
            may_change: Vec::new(),
        })
    }

    pub fn codec_name(&self) -> &str {
        self.codec.name()
    }

    /// Replaces the energy constants (the `-memzip_energy_*` flags); energy
    /// already counted stays as it was.
    pub fn set_energy_params(&mut self, params: EnergyParams) {
        self.energy = EnergyModel::new(params, self.geometry.block_bytes(), self.geometry.mag_bytes());
        self.stats.energy.activation_pj_each = params.dram_activation_pj;
    }

    pub fn energy_params(&self) -> EnergyParams {
        self.energy.params()
    }

    pub fn geometry(&self) -> Geometry {
        self.geometry
    }

    /// Latencies in effect (codec defaults with the options' overrides).
    pub fn latency(&self) -> Latency {
        self.latency
    }

    pub fn options(&self) -> McOptions {
        self.options
    }

    /// The encoding's name, e.g. for printing a histogram.
    pub fn encoding_name(&self, encoding: EncodingId) -> &str {
        self.encoding_names.get(encoding as usize).map_or("unknown", String::as_str)
    }

    pub fn metadata_cache(&self) -> Option<&MetadataCache> {
        self.mdc.as_ref()
    }

    /// The block's stored metadata, if it was written or copied.
    pub fn stored(&self, addr: u64) -> Option<StoredBlock> {
        self.blocks.get(&self.block_index(addr)).copied()
    }

    /// Block-aligned address of the block holding `addr`.
    pub fn block_addr(&self, addr: u64) -> u64 {
        self.block_index(addr) * self.geometry.block_bytes() as u64
    }

    fn block_index(&self, addr: u64) -> u64 {
        addr / self.geometry.block_bytes() as u64
    }

    /// A DRAM write-back of the block at `addr` holding `bytes` (read by the
    /// caller from the functional memory).
    pub fn write_block(&mut self, addr: u64, bytes: &[u8]) -> Result<WriteOutcome, McError> {
        self.write_back(addr, bytes, None)
    }

    /// A DRAM write-back of a block the program allows to be approximated
    /// ([`approx`](super::approx)): a lossy codec (SLC) may store an
    /// approximation. `approximated` (one block) receives the block as it
    /// will read back, `bytes` itself when it is stored exactly; the caller
    /// puts it where later reads see it (the simulator's functional memory).
    pub fn write_approximable_block(
        &mut self,
        addr: u64,
        bytes: &[u8],
        approximated: &mut [u8],
    ) -> Result<WriteOutcome, McError> {
        self.write_back(addr, bytes, Some(approximated))
    }

    fn write_back(
        &mut self,
        addr: u64,
        bytes: &[u8],
        approximated: Option<&mut [u8]>,
    ) -> Result<WriteOutcome, McError> {
        let addr = self.block_addr(addr);
        let sampled = self.sampling_open;
        let (compressed, lossy) = self.compress_checked(addr, bytes, approximated)?;
        let compress_pj = self.compress_energy(sampled, &compressed);
        let metadata = self.metadata_access(addr, MdcAccess::Write);
        self.store(addr, &compressed);
        self.count_sampled(&compressed)?;
        let name = self.encoding_name(compressed.encoding).to_string();
        let stats = &mut self.stats;
        stats.writes.record(&compressed, &name, self.geometry.block_bytes());
        stats.dram_writes.record(compressed.burst_count, self.geometry.block_bursts(), self.geometry.mag_bytes());
        let compress_cycles = self.compress_cycles(&compressed);
        self.stats.compress_cycles += compress_cycles as u64;
        self.stats.energy.compress_pj += compress_pj;
        self.stats.energy.dram_write_pj += self.energy.write_bursts_pj(compressed.burst_count);
        let outcome = self.write_outcome(&compressed, metadata, compress_cycles, lossy);
        self.scratch = compressed;
        Ok(outcome)
    }

    /// Counts one DRAM request by the simulator's access type (`kind`) and
    /// size, whatever memzip does with it (`McStats::requests`).
    pub fn count_request(&mut self, kind: &str, bytes: usize) {
        self.stats.count_request(kind, bytes);
    }

    /// A DRAM read of the block at `addr`.
    pub fn read_block(&mut self, addr: u64) -> ReadOutcome {
        let addr = self.block_addr(addr);
        let metadata = self.metadata_access(addr, MdcAccess::Read);
        let stored = self.blocks.get(&self.block_index(addr)).copied();
        let (encoding, burst_count) = match stored {
            Some(block) => (block.encoding, block.burst_count as usize),
            None => (UNCOMPRESSED, self.geometry.block_bursts()),
        };
        self.finish_read(stored, encoding, burst_count, self.geometry.block_bursts(), metadata)
    }

    /// Counts a read (whole or partial) of `bursts` bursts of a block stored as
    /// `encoding`, `asked` of them the request's own; what it costs.
    fn finish_read(
        &mut self,
        stored: Option<StoredBlock>,
        encoding: EncodingId,
        bursts: usize,
        asked: usize,
        metadata: MetadataOutcome,
    ) -> ReadOutcome {
        let decompress_cycles = self.decompress_cycles(encoding);
        let name = self.encoding_name(encoding).to_string();
        let decompressor = (encoding != UNCOMPRESSED).then(|| self.decompressor_of(encoding));
        let decompress_pj = self.energy.decompress_pj(decompressor.as_deref());
        let read_pj = self.energy.read_bursts_pj(bursts);
        let stats = &mut self.stats;
        *stats.reads_by_encoding.entry(name).or_insert(0) += 1;
        stats.unwritten_reads += stored.is_none() as u64;
        stats.dram_reads.record(bursts, asked, self.geometry.mag_bytes());
        stats.decompress_cycles += decompress_cycles as u64;
        stats.energy.decompress_pj += decompress_pj;
        stats.energy.dram_read_pj += read_pj;
        ReadOutcome {
            encoding,
            burst_count: bursts,
            dram_bytes: bursts * self.geometry.mag_bytes(),
            decompress_cycles,
            metadata_cycles: metadata.cycles,
            metadata_miss: metadata.miss,
            metadata_fetch_bytes: metadata.fetch_bytes,
            metadata_writeback_bytes: metadata.writeback_bytes,
            was_written: stored.is_some(),
            overfetch_bursts: bursts.saturating_sub(asked),
            fills_line: false,
            merged: false,
        }
    }

    /// A host-to-device copy of one block: compressed and its metadata
    /// initialised, counted as copy traffic (not kernel traffic); the
    /// metadata cache is not touched.
    pub fn memcpy_block(&mut self, addr: u64, bytes: &[u8]) -> Result<WriteOutcome, McError> {
        self.copy_in(addr, bytes, None)
    }

    /// A host-to-device copy of a block the program allows to be
    /// approximated: as [`write_approximable_block`](Self::write_approximable_block)
    /// (the copy is the first time the data is stored compressed, the E2MC paper
    /// Sec. III-A, so an approximation starts there).
    pub fn memcpy_approximable_block(
        &mut self,
        addr: u64,
        bytes: &[u8],
        approximated: &mut [u8],
    ) -> Result<WriteOutcome, McError> {
        self.copy_in(addr, bytes, Some(approximated))
    }

    fn copy_in(&mut self, addr: u64, bytes: &[u8], approximated: Option<&mut [u8]>) -> Result<WriteOutcome, McError> {
        let addr = self.block_addr(addr);
        let sampled = self.sampling_open;
        let (compressed, lossy) = self.compress_checked(addr, bytes, approximated)?;
        let compress_pj = self.compress_energy(sampled, &compressed);
        self.store(addr, &compressed);
        self.count_sampled(&compressed)?;
        let name = self.encoding_name(compressed.encoding).to_string();
        let stats = &mut self.stats;
        stats.memcpy.record(&compressed, &name, self.geometry.block_bytes());
        stats.memcpy_traffic.record(compressed.burst_count, self.geometry.block_bursts(), self.geometry.mag_bytes());
        let compress_cycles = self.compress_cycles(&compressed);
        self.stats.energy.copy_compress_pj += compress_pj;
        let outcome = self.write_outcome(&compressed, MetadataOutcome::default(), compress_cycles, lossy);
        self.scratch = compressed;
        Ok(outcome)
    }

    /// Ends the codec's online sampling phase (E2MC builds its code table).
    pub fn end_sampling(&mut self) -> Result<(), McError> {
        self.codec
            .end_sampling()
            .map_err(|source| McError::EndSampling { codec: self.codec.name().to_string(), source })?;
        self.stats.sampling_ends += 1;
        self.sampling_open = false;
        Ok(())
    }

    /// Whether the online sampling phase is still running.
    pub fn is_sampling(&self) -> bool {
        self.sampling_open
    }

    /// Counts a block stored during the sampling phase and ends a block
    /// window once it is full (the block that fills it is still sampled).
    fn count_sampled(&mut self, stored: &CompressedBlock) -> Result<(), McError> {
        if !self.sampling_open {
            return Ok(());
        }
        self.stats.sampling_blocks += 1;
        self.stats.sampling_raw_blocks += !stored.is_compressed() as u64;
        match self.options.sampling {
            SamplingWindow::Blocks(window) if self.stats.sampling_blocks >= window => self.end_sampling(),
            _ => Ok(()),
        }
    }

    /// Statistics so far.
    pub fn stats(&self) -> McStats {
        let mut stats = self.stats.clone();
        if let Some(mdc) = &self.mdc {
            stats.metadata.cache = mdc.stats();
        }
        stats
    }

    /// [`stats`](Self::stats) as pretty JSON.
    pub fn stats_json(&self) -> String {
        self.stats().to_json()
    }

    /// Zeroes the counters (not the stored metadata nor the cache contents).
    pub fn reset_stats(&mut self) {
        let fresh = McStats {
            codec: self.stats.codec.clone(),
            controllers: 1,
            block_bytes: self.stats.block_bytes,
            mag_bytes: self.stats.mag_bytes,
            metadata: super::stats::MetadataStats { enabled: self.mdc.is_some(), ..Default::default() },
            energy: EnergyStats { activation_pj_each: self.energy.params().dram_activation_pj, ..Default::default() },
            ..Default::default()
        };
        self.stats = fresh;
        if let Some(mdc) = &mut self.mdc {
            mdc.reset_stats();
        }
    }

    /// Compresses into the reused scratch block (callers hand it back to
    /// `self.scratch` when done), so a write allocates nothing; with
    /// `approximated`, as approximable data. Returns the block and whether
    /// it is stored approximated.
    fn compress_checked(
        &mut self,
        addr: u64,
        bytes: &[u8],
        mut approximated: Option<&mut [u8]>,
    ) -> Result<(CompressedBlock, bool), McError> {
        let mut compressed = std::mem::take(&mut self.scratch);
        let lossy = match approximated {
            None => self.codec.compress_into(bytes, &mut compressed).map(|()| false),
            Some(ref mut out) => self.codec.compress_approximable_into(bytes, &mut compressed, out),
        }
        .map_err(|source| McError::Codec { codec: self.codec.name().to_string(), addr, source })?;
        self.check_output(&compressed).map_err(|why| McError::InvalidOutput {
            codec: self.codec.name().to_string(),
            addr,
            why,
        })?;
        let expected = approximated.as_deref().unwrap_or(bytes);
        if approximated.is_some() {
            let stats = &mut self.stats.approximation;
            stats.approximable_blocks += 1;
            stats.approximated_blocks += lossy as u64;
            stats.changed_bytes += bytes.iter().zip(expected).filter(|(a, b)| a != b).count() as u64;
        }
        if self.options.verify {
            // A block stored exactly must read back as written; an
            // approximated one as the approximation the codec announced.
            if !lossy && expected != bytes {
                self.stats.verify.checked += 1;
                self.stats.verify.failures += 1;
                return Err(McError::VerifyFailed {
                    codec: self.codec.name().to_string(),
                    addr,
                    why: format!("stored exactly, but announced as {}", describe_mismatch(bytes, expected)),
                });
            }
            if lossy {
                self.verify_approximated_bytes(addr, bytes, expected, &compressed)?;
            }
            self.verify(addr, expected, &compressed)?;
        }
        Ok((compressed, lossy))
    }

    fn store(&mut self, addr: u64, c: &CompressedBlock) {
        // Both fit: sizes were checked against the block (at most 1024 bits,
        // at most block_bytes / 16 = 8 bursts).
        let block = StoredBlock {
            encoding: c.encoding,
            compressed_bits: c.compressed_bits as u16,
            burst_count: c.burst_count as u8,
        };
        let index = self.block_index(addr);
        self.blocks.insert(index, block);
        self.fetched_whole.remove(&index);
    }

    fn metadata_access(&mut self, addr: u64, kind: MdcAccess) -> MetadataOutcome {
        let block_index = self.block_index(addr);
        let Some(mdc) = &mut self.mdc else {
            return MetadataOutcome::default();
        };
        let lookup = mdc.access(block_index, kind);
        // One line per access; DRAM moves it in whole MAG bursts.
        let line_bursts = self.geometry.burst_count(mdc.line_bytes() * 8);
        let line_dram_bytes = line_bursts * self.geometry.mag_bytes();
        self.charge_metadata_energy(kind, lookup.hit, line_bursts, lookup.dirty_eviction);
        let metadata = &mut self.stats.metadata;
        let mut outcome = MetadataOutcome {
            cycles: if kind == MdcAccess::Read { self.options.mdc_latency } else { 0 },
            miss: !lookup.hit,
            ..Default::default()
        };
        if !lookup.hit {
            outcome.fetch_bytes = line_dram_bytes;
            metadata.fetch_bytes += line_dram_bytes as u64;
            metadata.fetch_bursts += line_bursts as u64;
        }
        if lookup.dirty_eviction {
            outcome.writeback_bytes = line_dram_bytes;
            metadata.writeback_bytes += line_dram_bytes as u64;
            metadata.writeback_bursts += line_bursts as u64;
        }
        outcome
    }

    /// Compression energy of the block just compressed. A block stored raw
    /// during an online sampling phase was only counted into E2MC's value
    /// frequency table (the E2MC paper §III-B2), not encoded: no compressor ran.
    fn compress_energy(&mut self, sampled: bool, compressed: &CompressedBlock) -> f64 {
        if sampled && !compressed.is_compressed() {
            return 0.0;
        }
        self.energy.compress_pj(self.codec.compressors_used())
    }

    /// One lookup reads (read-back) or updates (write-back) the metadata
    /// cache; a miss also fills the line from DRAM and may write a dirty
    /// line back.
    fn charge_metadata_energy(&mut self, kind: MdcAccess, hit: bool, line_bursts: usize, dirty_eviction: bool) {
        let params = self.energy.params();
        let energy = &mut self.stats.energy;
        let (reads, writes) = match kind {
            MdcAccess::Read => (1, !hit as u64),
            MdcAccess::Write => (0, 1 + !hit as u64),
        };
        energy.mdc_reads += reads;
        energy.mdc_writes += writes;
        energy.mdc_read_pj += reads as f64 * params.mdc_read_pj;
        energy.mdc_write_pj += writes as f64 * params.mdc_write_pj;
        if !hit {
            energy.dram_read_pj += self.energy.read_bursts_pj(line_bursts);
        }
        if dirty_eviction {
            energy.dram_write_pj += self.energy.write_bursts_pj(line_bursts);
        }
    }

    /// The codec whose decompressor decodes `encoding`: the adaptive
    /// selector names its encodings `<candidate>/<encoding>`.
    fn decompressor_of(&self, encoding: EncodingId) -> String {
        let name = self.encoding_name(encoding);
        match name.split_once('/') {
            Some((candidate, _)) if registry::codec_names().contains(&candidate) => candidate.to_string(),
            _ => self.codec.name().to_string(),
        }
    }

    /// The override if one is set, else what the codec says this block cost
    /// (the adaptive selector's cost depends on its phase).
    fn compress_cycles(&self, compressed: &CompressedBlock) -> u32 {
        self.options.compress_latency.unwrap_or_else(|| self.codec.compress_cycles(compressed))
    }

    /// Raw blocks bypass the decompressor whatever the override says.
    fn decompress_cycles(&self, encoding: EncodingId) -> u32 {
        match (encoding, self.options.decompress_latency) {
            (UNCOMPRESSED, _) => 0,
            (_, Some(cycles)) => cycles,
            (_, None) => self.codec.decompress_cycles(encoding),
        }
    }

    fn write_outcome(
        &self,
        c: &CompressedBlock,
        metadata: MetadataOutcome,
        compress_cycles: u32,
        approximated: bool,
    ) -> WriteOutcome {
        WriteOutcome {
            approximated,
            encoding: c.encoding,
            compressed_bits: c.compressed_bits,
            burst_count: c.burst_count,
            dram_bytes: c.mag_bytes,
            compress_cycles,
            metadata_miss: metadata.miss,
            metadata_fetch_bytes: metadata.fetch_bytes,
            metadata_writeback_bytes: metadata.writeback_bytes,
            rmw_read_bursts: 0,
            rmw_decompress_cycles: 0,
        }
    }
}

/// Where a decoded block first differs from the original.
fn describe_mismatch(original: &[u8], decoded: &[u8]) -> String {
    if decoded.len() != original.len() {
        return format!("decoded {} bytes, expected {}", decoded.len(), original.len());
    }
    match original.iter().zip(decoded).position(|(a, b)| a != b) {
        Some(i) => format!("decoded byte {i} is {:#04x}, original {:#04x}", decoded[i], original[i]),
        None => "decoded block differs".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bits::BitWriter;
    use crate::codec::{check_block_size, decode_uncompressed_into};
    use crate::error::Corruption;
    use crate::mc::partial_request::{PartialReads, PartialRequest, PartialWrites};
    use crate::mc::stats::McStats;

    const ZEROS: EncodingId = 1;
    const LOW_HALF: EncodingId = 2;

    /// A test codec: an all-zero block is stored in 0 bits (1 burst), a
    /// block whose upper half is zero stores its lower half (2 bursts at a
    /// 32-byte MAG for 128-byte blocks), anything else raw. `lie` makes the
    /// decoder return ones for zero blocks; `fail_decode` makes it error.
    /// Approximable blocks lose their upper half (stored as `low_half`);
    /// `hide_approximation` announces that as exact, `narrow_approximation`
    /// names only the last quarter as approximated.
    struct ZeroCodec {
        geometry: Geometry,
        lie: bool,
        fail_decode: bool,
        bad_sizes: bool,
        sampling_ended: bool,
        hide_approximation: bool,
        narrow_approximation: bool,
    }

    impl ZeroCodec {
        fn new() -> Self {
            ZeroCodec {
                geometry: Geometry::default(),
                lie: false,
                fail_decode: false,
                bad_sizes: false,
                sampling_ended: false,
                hide_approximation: false,
                narrow_approximation: false,
            }
        }
    }

    impl Codec for ZeroCodec {
        fn name(&self) -> &str {
            "zero_test"
        }

        fn geometry(&self) -> Geometry {
            self.geometry
        }

        fn compress_into(&mut self, block: &[u8], out: &mut CompressedBlock) -> Result<(), CodecError> {
            check_block_size(block, self.geometry)?;
            let half = block.len() / 2;
            let mut c = if block.iter().all(|&b| b == 0) {
                CompressedBlock::from_bits(ZEROS, BitWriter::new(), self.geometry)
            } else if block[half..].iter().all(|&b| b == 0) {
                let mut w = BitWriter::new();
                w.write_bytes(&block[..half]);
                CompressedBlock::or_uncompressed(LOW_HALF, w, block, self.geometry)
            } else {
                CompressedBlock::uncompressed(block, self.geometry)
            };
            if self.bad_sizes {
                c.burst_count += 1;
            }
            *out = c;
            Ok(())
        }

        fn compress_approximable_into(
            &mut self,
            block: &[u8],
            out: &mut CompressedBlock,
            approximated: &mut [u8],
        ) -> Result<bool, CodecError> {
            let half = block.len() / 2;
            approximated.copy_from_slice(block);
            approximated[half..].fill(0);
            self.compress_into(approximated, out)?;
            Ok(!self.hide_approximation && approximated != block)
        }

        fn approximated_bytes(&self, c: &CompressedBlock, may_change: &mut [bool]) -> Result<(), CodecError> {
            may_change.fill(false);
            if c.encoding == LOW_HALF {
                let from = if self.narrow_approximation { 3 * may_change.len() / 4 } else { may_change.len() / 2 };
                may_change[from..].fill(true);
            }
            Ok(())
        }

        fn decompress_into(&self, c: &CompressedBlock, out: &mut [u8]) -> Result<(), CodecError> {
            check_block_size(out, self.geometry)?;
            if self.fail_decode {
                return Err(CodecError::corrupt(Corruption::Inconsistent, "test decoder always fails"));
            }
            let half = out.len() / 2;
            match c.encoding {
                UNCOMPRESSED => decode_uncompressed_into(c, self.geometry, out),
                ZEROS => {
                    out.fill(self.lie as u8);
                    Ok(())
                }
                LOW_HALF => {
                    out[..half].copy_from_slice(&c.payload[..half]);
                    out[half..].fill(0);
                    Ok(())
                }
                other => Err(CodecError::UnknownEncoding(other)),
            }
        }

        fn latency(&self) -> Latency {
            Latency::new(3, 5)
        }

        fn encoding_names(&self) -> Vec<String> {
            vec!["uncompressed".into(), "zeros".into(), "low_half".into()]
        }

        fn end_sampling(&mut self) -> Result<(), CodecError> {
            if self.sampling_ended {
                return Err(CodecError::corrupt(Corruption::Inconsistent, "sampling already ended"));
            }
            self.sampling_ended = true;
            Ok(())
        }
    }

    fn controller_with(codec: ZeroCodec, options: McOptions) -> MemoryController {
        MemoryController::with_codec(Box::new(codec), options).unwrap()
    }

    fn zero_mc() -> MemoryController {
        controller_with(ZeroCodec::new(), McOptions::default())
    }

    fn zeros() -> Vec<u8> {
        vec![0; 128]
    }

    fn low_half() -> Vec<u8> {
        let mut b = vec![0u8; 128];
        b[..64].iter_mut().enumerate().for_each(|(i, x)| *x = i as u8 + 1);
        b
    }

    fn random() -> Vec<u8> {
        (0..128u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8 | 1).collect()
    }

    #[test]
    fn none_codec_moves_full_blocks_without_metadata() {
        let spec = CodecSpec::new("none", Geometry::default());
        let mut mc = MemoryController::new(&spec, McOptions::default()).unwrap();
        assert!(mc.metadata_cache().is_none(), "none keeps no metadata");
        let w = mc.write_block(0x1000, &random()).unwrap();
        assert_eq!(
            w,
            WriteOutcome {
                encoding: UNCOMPRESSED,
                compressed_bits: 1024,
                burst_count: 4,
                dram_bytes: 128,
                compress_cycles: 0,
                metadata_miss: false,
                metadata_fetch_bytes: 0,
                metadata_writeback_bytes: 0,
                approximated: false,
                rmw_read_bursts: 0,
                rmw_decompress_cycles: 0,
            }
        );
        let r = mc.read_block(0x1000);
        assert_eq!((r.burst_count, r.dram_bytes, r.decompress_cycles, r.metadata_cycles), (4, 128, 0, 0));
        assert!(!r.metadata_miss && r.was_written);
        let unwritten = mc.read_block(0x9000);
        assert_eq!((unwritten.burst_count, unwritten.was_written), (4, false));
        let s = mc.stats();
        assert_eq!(s.codec, "none");
        assert_eq!((s.blocks_written(), s.blocks_read(), s.unwritten_reads), (1, 2, 1));
        assert_eq!(s.dram_bytes(), s.uncompressed_dram_bytes());
        assert_eq!(s.dram_bytes(), 3 * 128);
        assert_eq!(s.dram_reduction_ratio(), Some(1.0));
        assert_eq!(s.raw_compression_ratio(), Some(1.0));
        assert_eq!((s.metadata.cache.hits(), s.metadata.cache.misses(), s.metadata.enabled), (0, 0, false));
        assert_eq!((s.compress_cycles, s.decompress_cycles), (0, 0));
    }

    #[test]
    fn registry_errors_surface() {
        let spec = CodecSpec::new("nope", Geometry::default());
        assert_eq!(MemoryController::new(&spec, McOptions::default()).unwrap_err().knob, "codec");
        let bad_mdc =
            McOptions { mdc: MdcConfig { capacity_bytes: 1000, ..MdcConfig::default() }, ..Default::default() };
        let err = MemoryController::with_codec(Box::new(ZeroCodec::new()), bad_mdc).unwrap_err();
        assert_eq!(err.knob, "mdc_bytes");
    }

    #[test]
    fn bursts_follow_the_stored_encoding() {
        let mut mc = zero_mc();
        let w0 = mc.write_block(0, &zeros()).unwrap();
        let w1 = mc.write_block(128, &low_half()).unwrap();
        let w2 = mc.write_block(256, &random()).unwrap();
        assert_eq!((w0.encoding, w0.compressed_bits, w0.burst_count, w0.dram_bytes), (ZEROS, 0, 1, 32));
        assert_eq!((w1.encoding, w1.compressed_bits, w1.burst_count, w1.dram_bytes), (LOW_HALF, 512, 2, 64));
        assert_eq!((w2.encoding, w2.compressed_bits, w2.burst_count, w2.dram_bytes), (UNCOMPRESSED, 1024, 4, 128));
        assert!(w0.metadata_miss && !w1.metadata_miss && !w2.metadata_miss, "blocks 0..3 share one line");
        assert_eq!(w0.metadata_fetch_bytes, 128, "a miss fetches the 128-byte metadata line");
        assert_eq!([w0.compress_cycles, w1.compress_cycles, w2.compress_cycles], [3, 3, 3]);

        let reads: Vec<ReadOutcome> = [0, 128, 256, 384].iter().map(|&a| mc.read_block(a)).collect();
        let summary: Vec<_> =
            reads.iter().map(|r| (r.encoding, r.burst_count, r.decompress_cycles, r.was_written)).collect();
        assert_eq!(
            summary,
            [(ZEROS, 1, 5, true), (LOW_HALF, 2, 5, true), (UNCOMPRESSED, 4, 0, true), (UNCOMPRESSED, 4, 0, false)]
        );
        assert!(reads.iter().all(|r| !r.metadata_miss && r.metadata_cycles == 1));

        let s = mc.stats();
        assert_eq!(s.dram_writes.bursts, 7);
        assert_eq!(s.dram_writes.bytes, 224);
        assert_eq!((s.dram_writes.uncompressed_bursts, s.dram_writes.uncompressed_bytes), (12, 384));
        assert_eq!((s.dram_reads.bursts, s.dram_reads.bytes), (11, 352));
        assert_eq!((s.dram_reads.uncompressed_bursts, s.dram_reads.uncompressed_bytes), (16, 512));
        assert_eq!((s.metadata.fetch_bytes, s.metadata.fetch_bursts), (128, 4));
        assert_eq!(s.dram_bytes(), 352 + 224 + 128);
        assert_eq!(s.uncompressed_dram_bytes(), 896);
        assert_eq!(s.dram_bursts(), 11 + 7 + 4);
        assert_eq!(s.dram_reduction_ratio(), Some(896.0 / 704.0));
        let mdc = s.metadata.cache;
        assert_eq!((mdc.write_misses, mdc.write_hits, mdc.read_hits, mdc.read_misses), (1, 2, 4, 0));
        assert_eq!((s.compress_cycles, s.decompress_cycles), (9, 10));
    }

    #[test]
    fn histograms_and_compression_ratios() {
        let mut mc = zero_mc();
        for (i, block) in [zeros(), zeros(), low_half(), random()].iter().enumerate() {
            mc.write_block(i as u64 * 128, block).unwrap();
        }
        let s = mc.stats();
        let names: Vec<_> = s.writes.encodings.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        assert_eq!(names, [("low_half", 1), ("uncompressed", 1), ("zeros", 2)]);
        let sizes: Vec<_> = s.writes.mag_sizes.iter().map(|(k, v)| (*k, *v)).collect();
        assert_eq!(sizes, [(32, 2), (64, 1), (128, 1)]);
        assert_eq!((s.writes.blocks, s.writes.compressed_blocks), (4, 3));
        assert_eq!((s.writes.uncompressed_bits, s.writes.compressed_bits, s.writes.mag_bytes), (4096, 1536, 256));
        assert_eq!(s.raw_compression_ratio(), Some(4096.0 / 1536.0));
        assert_eq!(s.effective_compression_ratio(), Some(512.0 / 256.0));

        let mut only_zeros = zero_mc();
        only_zeros.write_block(0, &zeros()).unwrap();
        let s = only_zeros.stats();
        assert_eq!(s.raw_compression_ratio(), None, "0 compressed bits has no finite ratio");
        assert_eq!(s.effective_compression_ratio(), Some(4.0));
        assert_eq!(zero_mc().stats().raw_compression_ratio(), None, "no blocks yet");
    }

    #[test]
    fn unaligned_addresses_map_to_their_block_and_overwrites_replace() {
        let mut mc = zero_mc();
        mc.write_block(0x100 + 17, &zeros()).unwrap();
        assert_eq!(mc.stored(0x100).map(|b| b.encoding), Some(ZEROS));
        assert_eq!(mc.read_block(0x17f).burst_count, 1);
        mc.write_block(0x100, &random()).unwrap();
        assert_eq!(
            mc.stored(0x120),
            Some(StoredBlock { encoding: UNCOMPRESSED, compressed_bits: 1024, burst_count: 4 })
        );
        assert_eq!(mc.read_block(0x100).burst_count, 4);
        assert_eq!(mc.block_addr(0x17f), 0x100);
    }

    #[test]
    fn memcpy_initialises_metadata_outside_kernel_traffic() {
        let mut mc = zero_mc();
        let w = mc.memcpy_block(0, &zeros()).unwrap();
        assert_eq!((w.burst_count, w.metadata_miss, w.metadata_fetch_bytes), (1, false, 0));
        mc.memcpy_block(128, &random()).unwrap();
        let s = mc.stats();
        assert_eq!((s.blocks_written(), s.memcpy.blocks), (0, 2));
        assert_eq!((s.memcpy_traffic.bytes, s.memcpy_traffic.uncompressed_bytes), (160, 256));
        assert_eq!(s.dram_bytes(), 0, "copies are not kernel traffic");
        assert_eq!(s.metadata.cache.hits() + s.metadata.cache.misses(), 0, "copies do not touch the cache");
        assert_eq!(s.compress_cycles, 0);
        assert_eq!(s.raw_compression_ratio(), Some(2048.0 / 1024.0), "copied blocks count as stored data");
        // The kernel's first read finds the copied block compressed, after a cold miss.
        let r = mc.read_block(0);
        assert_eq!((r.encoding, r.burst_count, r.metadata_miss, r.was_written), (ZEROS, 1, true, true));
        assert_eq!(mc.stats().unwritten_reads, 0);
    }

    #[test]
    fn metadata_misses_and_dirty_write_backs_cost_dram_accesses() {
        // 2 sets x 1 way of 32-byte lines, 2-bit metadata (the codec names 3
        // encodings): 128 blocks per line; lines alternate between sets.
        let options =
            McOptions { mdc: MdcConfig { capacity_bytes: 64, assoc: 1, line_bytes: 32 }, ..Default::default() };
        let mut mc = controller_with(ZeroCodec::new(), options);
        let mdc = mc.metadata_cache().unwrap();
        assert_eq!((mdc.metadata_bits(), mdc.blocks_per_line(), mdc.num_sets()), (2, 128, 2));
        let line = |n: u64| n * 128 * 128; // address of the first block of metadata line n
        let w = mc.write_block(line(0), &zeros()).unwrap();
        assert_eq!((w.metadata_miss, w.metadata_fetch_bytes, w.metadata_writeback_bytes), (true, 32, 0));
        let r = mc.read_block(line(0) + 127 * 128);
        assert!(!r.metadata_miss, "last block of line 0");
        let r = mc.read_block(line(1));
        assert_eq!((r.metadata_miss, r.metadata_writeback_bytes), (true, 0), "line 1 goes to the other set");
        let r = mc.read_block(line(2));
        assert_eq!(
            (r.metadata_miss, r.metadata_fetch_bytes, r.metadata_writeback_bytes),
            (true, 32, 32),
            "evicts dirty line 0"
        );
        let r = mc.read_block(line(0));
        assert_eq!((r.metadata_miss, r.metadata_writeback_bytes), (true, 0), "line 2 was clean");
        assert_eq!(r.encoding, ZEROS, "metadata survives eviction in the backing store");
        let s = mc.stats();
        assert_eq!((s.metadata.cache.misses(), s.metadata.cache.hits()), (4, 1));
        assert_eq!((s.metadata.fetch_bytes, s.metadata.fetch_bursts), (128, 4));
        assert_eq!((s.metadata.writeback_bytes, s.metadata.writeback_bursts), (32, 1));
        assert_eq!(s.dram_bytes(), s.dram_reads.bytes + s.dram_writes.bytes + 160);
    }

    #[test]
    fn latency_overrides_apply() {
        let options = McOptions {
            compress_latency: Some(40),
            decompress_latency: Some(70),
            mdc_latency: 2,
            ..Default::default()
        };
        let mut mc = controller_with(ZeroCodec::new(), options);
        assert_eq!(mc.latency(), Latency::new(40, 70));
        assert_eq!(mc.write_block(0, &zeros()).unwrap().compress_cycles, 40);
        let r = mc.read_block(0);
        assert_eq!((r.decompress_cycles, r.metadata_cycles), (70, 2));
    }

    #[test]
    fn verify_counts_checks_and_passes_good_codecs() {
        let mut mc = controller_with(ZeroCodec::new(), McOptions { verify: true, ..Default::default() });
        for (i, block) in [zeros(), low_half(), random()].iter().enumerate() {
            mc.write_block(i as u64 * 128, block).unwrap();
        }
        mc.memcpy_block(0x1000, &zeros()).unwrap();
        assert_eq!(mc.stats().verify, crate::mc::stats::VerifyStats { checked: 4, failures: 0 });
        let unverified = zero_mc();
        assert_eq!(unverified.stats().verify.checked, 0);
    }

    #[test]
    fn verify_failure_names_address_and_codec() {
        let liar = ZeroCodec { lie: true, ..ZeroCodec::new() };
        let mut mc = controller_with(liar, McOptions { verify: true, ..Default::default() });
        mc.write_block(0x2000, &random()).unwrap();
        let err = mc.write_block(0x2a80, &zeros()).unwrap_err();
        assert!(matches!(&err, McError::VerifyFailed { addr: 0x2a80, codec, .. } if codec == "zero_test"));
        let text = err.to_string();
        assert!(text.contains("0x2a80") && text.contains("zero_test") && text.contains("zeros"), "{text}");
        assert!(text.contains("byte 0 is 0x01, original 0x00"), "{text}");
        let s = mc.stats();
        assert_eq!((s.verify.checked, s.verify.failures), (2, 1));
        assert_eq!(s.blocks_written(), 1, "the failed block is not stored");
        assert_eq!(mc.stored(0x2a80), None);

        // Without -memzip_verify the same codec is trusted.
        let mut trusting = controller_with(ZeroCodec { lie: true, ..ZeroCodec::new() }, McOptions::default());
        assert!(trusting.write_block(0x2a80, &zeros()).is_ok());

        let broken = ZeroCodec { fail_decode: true, ..ZeroCodec::new() };
        let mut mc = controller_with(broken, McOptions { verify: true, ..Default::default() });
        let err = mc.memcpy_block(0x40, &zeros()).unwrap_err().to_string();
        assert!(err.contains("block 0x0") && err.contains("decoding failed") && err.contains("always fails"), "{err}");
    }

    #[test]
    fn approximable_blocks_read_back_approximated_and_are_verified() {
        let mut mc = controller_with(ZeroCodec::new(), McOptions { verify: true, ..Default::default() });
        let mut approximated = zeros();
        // Exact unless marked approximable.
        let exact = mc.write_block(0, &random()).unwrap();
        assert_eq!((exact.burst_count, exact.approximated), (4, false));
        let w = mc.write_approximable_block(128, &random(), &mut approximated).unwrap();
        assert_eq!((w.encoding, w.burst_count, w.approximated), (LOW_HALF, 2, true));
        let mut expected = random();
        expected[64..].fill(0);
        assert_eq!(approximated, expected);
        // An approximation that changes nothing is an exact store.
        let c = mc.memcpy_approximable_block(256, &low_half(), &mut approximated).unwrap();
        assert!(!c.approximated);
        assert_eq!(approximated, low_half());
        let s = mc.stats();
        let changed = random()[64..].iter().filter(|&&b| b != 0).count() as u64;
        assert_eq!(
            s.approximation,
            crate::mc::stats::ApproximationStats {
                approximable_blocks: 2,
                approximated_blocks: 1,
                changed_bytes: changed
            }
        );
        assert_eq!((s.verify.checked, s.verify.failures), (3, 0));
        assert!(s.to_text("t").contains("t_approximated_blocks = 1\n"));
        let json: serde_json::Value = serde_json::from_str(&s.to_json()).unwrap();
        assert_eq!(json["approximation"]["approximable_blocks"], 2);

        // Verify: a codec that changes a block it says it stored exactly.
        let hider = ZeroCodec { hide_approximation: true, ..ZeroCodec::new() };
        let mut mc = controller_with(hider, McOptions { verify: true, ..Default::default() });
        let err = mc.write_approximable_block(0x180, &random(), &mut approximated).unwrap_err().to_string();
        assert!(err.contains("stored exactly, but announced as decoded byte 64"), "{err}");
        // ... and one whose approximation does not decode as announced.
        let liar = ZeroCodec { lie: true, ..ZeroCodec::new() };
        let mut mc = controller_with(liar, McOptions { verify: true, ..Default::default() });
        let mut ones_then_zeros = zeros();
        ones_then_zeros[100] = 1;
        let err = mc.write_approximable_block(0x200, &ones_then_zeros, &mut approximated).unwrap_err();
        assert!(matches!(err, McError::VerifyFailed { addr: 0x200, .. }), "{err}");
        // ... and one whose approximation changes bytes its stored form keeps.
        let narrow = ZeroCodec { narrow_approximation: true, ..ZeroCodec::new() };
        let mut mc = controller_with(narrow, McOptions { verify: true, ..Default::default() });
        let mut block = zeros();
        block[70] = 7;
        let err = mc.write_approximable_block(0x280, &block, &mut approximated).unwrap_err().to_string();
        assert!(err.contains("approximated byte 70 is 0x00, written 0x07, but the stored form does not"), "{err}");
        assert_eq!((mc.stats().verify.checked, mc.stats().verify.failures), (1, 1));
        // Unverified, the same codec is not checked.
        let narrow = ZeroCodec { narrow_approximation: true, ..ZeroCodec::new() };
        let mut mc = controller_with(narrow, McOptions::default());
        assert!(mc.write_approximable_block(0x280, &block, &mut approximated).unwrap().approximated);
    }

    #[test]
    fn codec_errors_and_bad_outputs_are_reported() {
        let mut mc = zero_mc();
        let err = mc.write_block(0x80, &[0u8; 64]).unwrap_err();
        assert!(matches!(
            err,
            McError::Codec { addr: 0x80, source: CodecError::WrongBlockSize { expected: 128, got: 64 }, .. }
        ));
        assert!(err.to_string().contains("'zero_test' failed on block 0x80"), "{err}");
        let mut bad = controller_with(ZeroCodec { bad_sizes: true, ..ZeroCodec::new() }, McOptions::default());
        let err = bad.write_block(0, &zeros()).unwrap_err();
        assert!(matches!(err, McError::InvalidOutput { addr: 0, .. }), "{err}");
        assert_eq!(bad.stats().blocks_written(), 0);
    }

    #[test]
    fn end_sampling_passes_through() {
        let mut mc = zero_mc();
        mc.end_sampling().unwrap();
        assert_eq!(mc.stats().sampling_ends, 1);
        let err = mc.end_sampling().unwrap_err();
        assert!(err.to_string().contains("zero_test") && err.to_string().contains("already ended"), "{err}");
        let mut none =
            MemoryController::new(&CodecSpec::new("none", Geometry::default()), McOptions::default()).unwrap();
        assert!(none.end_sampling().is_ok(), "codecs that do not sample ignore it");
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
    }

    /// Round numbers: a 32-byte read burst costs 128 pJ, a write burst 64 pJ,
    /// an activation 1000 pJ; the metadata cache and codecs keep the papers'.
    fn round_energy() -> EnergyParams {
        EnergyParams {
            dram_read_pj_per_bit: 0.5,
            dram_write_pj_per_bit: 0.25,
            dram_activation_pj: 1000.0,
            ..EnergyParams::default()
        }
    }

    fn real_mc(codec: &str) -> MemoryController {
        let mut mc =
            MemoryController::new(&CodecSpec::parse(codec, Geometry::default()).unwrap(), McOptions::default())
                .unwrap();
        mc.set_energy_params(round_energy());
        mc
    }

    #[test]
    fn energy_of_a_bdi_access_sequence() {
        // BDI per 128-byte block: 2 x 1.3 pJ split 0.6 mW x 2 : 0.2 mW x 1.
        let (bdi_c, bdi_d) = (2.6 * 1.2 / 1.4, 2.6 * 0.2 / 1.4);
        let mut mc = real_mc("bdi");
        let w0 = mc.write_block(0, &zeros()).unwrap(); // 1 burst; MDC write miss: line fill (4 bursts) + 2 MDC writes
        let w1 = mc.write_block(128, &random()).unwrap(); // raw, 4 bursts, compressor still ran; 1 MDC write
        assert_eq!((w0.burst_count, w0.metadata_miss, w0.metadata_fetch_bytes), (1, true, 128));
        assert_eq!((w1.encoding, w1.burst_count, w1.metadata_miss), (UNCOMPRESSED, 4, false));
        let r0 = mc.read_block(0); // 1 burst, decompressed; 1 MDC read
        let r1 = mc.read_block(128); // raw: 4 bursts, decompressor bypassed; 1 MDC read
        assert_eq!((r0.burst_count, r1.burst_count, r1.decompress_cycles), (1, 4, 0));
        let e = mc.stats().energy;
        assert!(close(e.compress_pj, 2.0 * bdi_c), "{e:?}");
        assert!(close(e.decompress_pj, bdi_d), "{e:?}");
        assert_eq!((e.mdc_reads, e.mdc_writes), (2, 3));
        assert!(close(e.metadata_pj(), 2.0 * 1.4 + 3.0 * 0.97));
        assert!(close(e.dram_write_pj, 5.0 * 64.0), "{e:?}");
        assert!(close(e.dram_read_pj, (4.0 + 1.0 + 4.0) * 128.0), "{e:?}");
        assert_eq!(e.dram_activation_pj, 0.0, "activations come from the simulator");
        let mut stats = mc.stats();
        stats.dram_device.activations = 5; // the simulator's cumulative count
        let e = stats.energy();
        assert!(close(e.dram_activation_pj, 5000.0));
        let total = 2.0 * bdi_c + bdi_d + 2.0 * 1.4 + 3.0 * 0.97 + 5.0 * 64.0 + 9.0 * 128.0 + 5000.0;
        assert!(close(e.total_pj(), total), "{} vs {total}", e.total_pj());
    }

    #[test]
    fn none_spends_only_dram_energy_and_copies_are_apart() {
        let mut mc = real_mc("none");
        mc.memcpy_block(0, &zeros()).unwrap();
        mc.write_block(128, &zeros()).unwrap();
        mc.read_block(0);
        let e = mc.stats().energy;
        assert_eq!((e.compress_pj, e.decompress_pj, e.metadata_pj(), e.copy_compress_pj), (0.0, 0.0, 0.0, 0.0));
        assert!(close(e.total_pj(), 4.0 * 64.0 + 4.0 * 128.0));

        // The same sequence under FPC: fewer bursts, but codec and metadata energy.
        let mut fpc = real_mc("fpc");
        fpc.memcpy_block(0, &zeros()).unwrap();
        let copy = fpc.stats().energy;
        assert!(close(copy.copy_compress_pj, 2.0 * 36.9 * 3.0 / 8.0), "{copy:?}");
        assert_eq!(copy.total_pj(), 0.0, "copies are not kernel energy");
    }

    #[test]
    fn random_data_costs_more_with_a_compressor_than_without() {
        let run = |codec: &str| {
            let mut mc = real_mc(codec);
            for i in 0..64u64 {
                mc.write_block(i * 128, &random()).unwrap();
                mc.read_block(i * 128);
            }
            mc.stats().energy
        };
        let (none, fpc, zeros_fpc) = (run("none"), run("fpc"), {
            let mut mc = real_mc("fpc");
            for i in 0..64u64 {
                mc.write_block(i * 128, &zeros()).unwrap();
                mc.read_block(i * 128);
            }
            mc.stats().energy
        });
        // 64 blocks share one 128-byte metadata line: one fill of 4 read bursts.
        assert!(close(fpc.dram_pj() - none.dram_pj(), 4.0 * 128.0), "{fpc:?} {none:?}");
        assert_eq!((fpc.mdc_reads, fpc.mdc_writes), (64, 65));
        assert!(close(fpc.compress_pj, 64.0 * 2.0 * 36.9 * 3.0 / 8.0) && fpc.decompress_pj == 0.0, "{fpc:?}");
        assert!(fpc.total_pj() > none.total_pj());
        assert!(zeros_fpc.total_pj() < none.total_pj(), "compressible data saves bursts");
    }

    #[test]
    fn adaptive_charges_every_candidate_while_sampling_and_the_block_decoder_on_reads() {
        let p = round_energy();
        let cost = |name: &str| crate::codec::registry::energy(name, &p, 1024).unwrap();
        let all = cost("fpc").compress_pj + cost("cpack_z").compress_pj + cost("bdi").compress_pj;
        let mut mc = real_mc("adaptive");
        for i in 0..7u64 {
            mc.write_block(i * 128, &low_half()).unwrap();
        }
        let e = mc.stats().energy;
        assert!(close(e.compress_pj, 7.0 * all), "{e:?}");
        let r = mc.read_block(0);
        assert_ne!(r.encoding, UNCOMPRESSED);
        let candidate = mc.encoding_name(r.encoding).split('/').next().unwrap().to_string();
        assert!(["fpc", "cpack_z", "bdi"].contains(&candidate.as_str()), "{candidate}");
        assert!(close(mc.stats().energy.decompress_pj, cost(&candidate).decompress_pj));
    }

    /// Small integers: what E2MC16 compresses once it has a table.
    fn small_ints(seed: u32) -> Vec<u8> {
        (0..32u32).flat_map(|i| ((i * 7 + seed) % 50).to_le_bytes()).collect()
    }

    #[test]
    fn a_block_window_ends_sampling_after_that_many_stored_blocks() {
        let spec = CodecSpec::new("e2mc16", Geometry::default());
        let options = McOptions { sampling: SamplingWindow::Blocks(4), ..Default::default() };
        let mut mc = MemoryController::new(&spec, options).unwrap();
        assert!(mc.is_sampling());
        // Copies and write-backs both fill the window; each sampled block is raw.
        mc.memcpy_block(0, &small_ints(0)).unwrap();
        for i in 1..4u32 {
            let w = mc.write_block(128 * i as u64, &small_ints(i)).unwrap();
            assert_eq!(w.encoding, UNCOMPRESSED, "block {i} is sampled, stored raw");
        }
        assert!(!mc.is_sampling(), "the 4th block closed the window");
        let stats = mc.stats();
        assert_eq!((stats.sampling_ends, stats.sampling_blocks, stats.sampling_raw_blocks), (1, 4, 4));
        assert_eq!(
            (stats.energy.compress_pj, stats.energy.copy_compress_pj),
            (0.0, 0.0),
            "sampling runs no compressor"
        );
        let after = mc.write_block(128 * 4, &small_ints(9)).unwrap();
        assert_ne!(after.encoding, UNCOMPRESSED, "after the window E2MC compresses with its table");
        let stats = mc.stats();
        assert_eq!(stats.sampling_blocks, 4, "blocks after the window are not counted");
        let e2mc16 = crate::codec::registry::energy("e2mc16", &EnergyParams::default(), 1024).unwrap();
        assert!(close(stats.energy.compress_pj, e2mc16.compress_pj), "the first encoded block costs 64 symbols");
        assert_eq!(stats.sampling_raw_share(), Some(4.0 / 5.0));
        let json: serde_json::Value = serde_json::from_str(&stats.to_json()).unwrap();
        assert_eq!(json["sampling_raw_blocks"], 4);
    }

    #[test]
    fn an_external_window_counts_until_the_caller_ends_it() {
        let spec = CodecSpec::new("e2mc16", Geometry::default());
        let options = McOptions { sampling: SamplingWindow::External, ..Default::default() };
        let mut mc = MemoryController::new(&spec, options).unwrap();
        for i in 0..10u32 {
            mc.write_block(128 * i as u64, &small_ints(i)).unwrap();
        }
        assert!(mc.is_sampling(), "only the caller ends an external window");
        mc.end_sampling().unwrap();
        mc.write_block(0, &small_ints(3)).unwrap();
        let stats = mc.stats();
        assert_eq!((stats.sampling_blocks, stats.sampling_raw_blocks, stats.writes.blocks), (10, 10, 11));
        // Without a window nothing is counted.
        let mut plain =
            MemoryController::new(&CodecSpec::new("mag_bdi", Geometry::default()), McOptions::default()).unwrap();
        plain.write_block(0, &small_ints(1)).unwrap();
        assert_eq!(plain.stats().sampling_blocks, 0);
        assert!(!plain.is_sampling());
    }

    fn workload(mc: &mut MemoryController, seed: u64) {
        let blocks = [zeros(), low_half(), random()];
        let mut x = seed;
        for _ in 0..2000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let addr = (x >> 33) % (1 << 26);
            if x & 1 == 0 {
                mc.write_block(addr, &blocks[(x >> 8) as usize % 3]).unwrap();
            } else {
                mc.read_block(addr);
            }
        }
    }

    #[test]
    fn same_sequence_same_stats() {
        let run = || {
            let mut mc = zero_mc();
            workload(&mut mc, 7);
            mc.stats_json()
        };
        assert_eq!(run(), run());
    }

    #[test]
    fn stats_merge_sums_controllers() {
        let mut a = zero_mc();
        let mut b = zero_mc();
        workload(&mut a, 1);
        workload(&mut b, 2);
        b.memcpy_block(0, &zeros()).unwrap();
        let (sa, sb) = (a.stats(), b.stats());
        let total = McStats::total([&sa, &sb]);
        assert_eq!((total.controllers, total.codec.as_str()), (2, "zero_test"));
        assert_eq!(total.blocks_written(), sa.blocks_written() + sb.blocks_written());
        assert_eq!(total.blocks_read(), sa.blocks_read() + sb.blocks_read());
        assert_eq!(total.dram_bytes(), sa.dram_bytes() + sb.dram_bytes());
        assert_eq!(total.memcpy.blocks, 1);
        assert_eq!(total.metadata.cache.misses(), sa.metadata.cache.misses() + sb.metadata.cache.misses());
        for name in ["zeros", "low_half", "uncompressed"] {
            let count = |s: &McStats| s.writes.encodings.get(name).copied().unwrap_or(0);
            assert_eq!(count(&total), count(&sa) + count(&sb), "{name}");
        }
        let all = total.all_compressed();
        assert_eq!(total.raw_compression_ratio(), Some(all.uncompressed_bits as f64 / all.compressed_bits as f64));
        assert_eq!(total.block_bytes, 128);

        let mut mixed = sa.clone();
        mixed.merge(&McStats { codec: "none".into(), controllers: 1, ..Default::default() });
        mixed.merge(&McStats { codec: "none".into(), controllers: 1, ..Default::default() });
        assert_eq!(mixed.codec, "zero_test,none");
    }

    #[test]
    fn stats_json_has_the_reported_fields() {
        let mut mc = controller_with(ZeroCodec::new(), McOptions { verify: true, ..Default::default() });
        mc.write_block(0, &zeros()).unwrap();
        mc.write_block(128, &random()).unwrap();
        mc.read_block(0);
        let json: serde_json::Value = serde_json::from_str(&mc.stats_json()).unwrap();
        assert_eq!(json["codec"], "zero_test");
        assert_eq!(json["blocks_written"], 2);
        assert_eq!(json["blocks_read"], 1);
        assert_eq!(json["raw_compression_ratio"], 2048.0 / 1024.0);
        assert_eq!(json["effective_compression_ratio"], 256.0 / 160.0);
        assert_eq!(json["writes"]["encodings"]["zeros"], 1);
        assert_eq!(json["writes"]["mag_sizes"]["32"], 1);
        assert_eq!(json["writes"]["mag_sizes"]["128"], 1);
        // Writes 32 + 128, read 32, one metadata line fill of 128.
        assert_eq!(json["dram_bytes"], 32 + 128 + 32 + 128);
        assert_eq!(json["uncompressed_dram_bytes"], 384);
        assert_eq!(json["dram_writes"]["bursts"], 5);
        assert_eq!(json["metadata_cache"]["hits"], 2);
        assert_eq!(json["metadata_cache"]["misses"], 1);
        assert_eq!(json["metadata_cache"]["cache"]["write_misses"], 1);
        assert_eq!(json["verify"]["checked"], 2);
        assert_eq!(json["verify"]["failures"], 0);
        assert_eq!(json["memcpy"]["raw_compression_ratio"], serde_json::Value::Null);

        mc.reset_stats();
        let fresh = mc.stats();
        assert_eq!((fresh.blocks_written(), fresh.metadata.cache.hits(), fresh.codec.as_str()), (0, 0, "zero_test"));
        assert_eq!(mc.read_block(0).encoding, ZEROS, "reset keeps the stored metadata");
    }

    fn sector(request_bytes: usize, whole_units: u64) -> PartialRequest {
        PartialRequest { request_bytes, whole_units, fetch_in_flight: false }
    }

    fn with_partial_writes(policy: PartialWrites) -> MemoryController {
        controller_with(ZeroCodec::new(), McOptions { partial_writes: policy, ..Default::default() })
    }

    #[test]
    fn none_moves_exactly_the_bytes_of_a_partial_request() {
        let spec = CodecSpec::new("none", Geometry::default());
        let mut mc = MemoryController::new(&spec, McOptions::default()).unwrap();
        mc.write_block(0, &random()).unwrap();
        let r = mc.read_partial(32, sector(32, 0b0010));
        assert_eq!((r.burst_count, r.overfetch_bursts, r.decompress_cycles, r.metadata_cycles), (1, 0, 0, 0));
        let w = mc.write_partial(0, sector(64, 0b0101), &random(), None).unwrap();
        assert_eq!((w.burst_count, w.rmw_read_bursts, w.compress_cycles, w.metadata_miss), (2, 0, 0, false));
        let odd = mc.write_partial(4096, sector(4, 0), &random(), None).unwrap();
        assert_eq!(odd.burst_count, 1, "a 4-byte write still moves one burst, as the simulator's DRAM does");
        let s = mc.stats();
        assert_eq!((s.dram_reads.bursts, s.dram_writes.bursts), (1, 4 + 2 + 1));
        assert_eq!(s.dram_bursts(), s.uncompressed_dram_bursts(), "none: bursts are the uncompressed bursts");
        assert_eq!((s.partial.reads, s.partial.writes, s.partial.rmw_read_bursts), (1, 2, 0));
    }

    #[test]
    fn a_sector_read_of_a_compressed_block_fetches_the_whole_stored_block() {
        let mut mc = zero_mc();
        mc.write_block(0, &zeros()).unwrap(); // 1 burst
        mc.write_block(128, &low_half()).unwrap(); // 2 bursts
        mc.write_block(256, &random()).unwrap(); // raw
        let reads = [
            mc.read_partial(32, sector(32, 0)),
            mc.read_partial(128 + 96, sector(32, 0)),
            mc.read_partial(256 + 64, sector(64, 0)),
        ];
        let summary: Vec<_> =
            reads.iter().map(|r| (r.encoding, r.burst_count, r.overfetch_bursts, r.decompress_cycles)).collect();
        assert_eq!(summary, [(ZEROS, 1, 0, 5), (LOW_HALF, 2, 1, 5), (UNCOMPRESSED, 2, 0, 0)]);
        let unwritten = mc.read_partial(4096, sector(32, 0));
        assert_eq!((unwritten.burst_count, unwritten.was_written), (1, false));
        let s = mc.stats();
        assert_eq!((s.partial.reads, s.partial.compressed_reads, s.partial.overfetch_bursts), (4, 2, 1));
        assert_eq!((s.dram_reads.bursts, s.dram_reads.uncompressed_bursts), (1 + 2 + 2 + 1, 1 + 1 + 2 + 1));
        assert_eq!((s.partial.refetches, s.partial.refetch_bursts), (0, 0), "each block fetched once");
    }

    #[test]
    fn a_compressed_block_fetched_whole_again_before_a_write_is_a_refetch() {
        let mut mc = zero_mc();
        mc.write_block(128, &low_half()).unwrap(); // 2 bursts
        mc.write_block(256, &random()).unwrap(); // raw
        mc.read_partial(128, sector(32, 0)); // fetched whole
        mc.read_partial(128 + 32, sector(32, 0)); // the next sector: fetched whole again
        mc.read_partial(128 + 32, sector(32, 0)); // and again
        mc.read_partial(256, sector(32, 0)); // raw blocks move only what they are asked for
        mc.read_partial(256 + 32, sector(32, 0));
        let s = mc.stats().partial;
        assert_eq!((s.compressed_reads, s.refetches, s.refetch_bursts), (3, 2, 4));
        // A write-back stores the block anew: its next fetch is its first.
        mc.write_block(128, &low_half()).unwrap();
        mc.read_partial(128 + 64, sector(32, 0));
        assert_eq!(mc.stats().partial.refetches, 2);
        mc.read_partial(128 + 96, sector(32, 0));
        assert_eq!(mc.stats().partial.refetches, 3);
    }

    #[test]
    fn fill_hands_the_l2_every_sector_of_a_compressed_block_only() {
        let policy = |partial_reads| McOptions { partial_reads, ..Default::default() };
        let mut sectors_only = controller_with(ZeroCodec::new(), policy(PartialReads::Sector));
        let mut fill = controller_with(ZeroCodec::new(), policy(PartialReads::Fill));
        for mc in [&mut sectors_only, &mut fill] {
            mc.write_block(0, &low_half()).unwrap(); // 2 bursts
            mc.write_block(128, &random()).unwrap(); // raw
        }
        let fills = |mc: &mut MemoryController| {
            [mc.read_partial(32, sector(32, 0)), mc.read_partial(128 + 32, sector(32, 0)), mc.read_block(0)]
                .map(|r| r.fills_line)
        };
        assert_eq!(fills(&mut sectors_only), [false; 3], "sector: the L2 keeps what it asked for");
        assert_eq!(fills(&mut fill), [true, false, false], "fill: only a compressed block fetched for a sector");
        fill.note_filled_sectors(3);
        assert_eq!((fill.stats().partial.filled_sectors, sectors_only.stats().partial.filled_sectors), (3, 0));
        assert_eq!(fill.stats().dram_reads, sectors_only.stats().dram_reads, "the fill moves no extra burst");
    }

    #[test]
    fn fill_matches_a_sector_read_to_the_whole_fetch_in_flight() {
        let policy = |partial_reads| McOptions { partial_reads, ..Default::default() };
        let mut sectors_only = controller_with(ZeroCodec::new(), policy(PartialReads::Sector));
        let mut fill = controller_with(ZeroCodec::new(), policy(PartialReads::Fill));
        let in_flight = PartialRequest { fetch_in_flight: true, ..sector(32, 0) };
        for mc in [&mut sectors_only, &mut fill] {
            mc.write_block(0, &low_half()).unwrap(); // 2 bursts
            mc.write_block(128, &random()).unwrap(); // raw
        }
        let lookups = |mc: &MemoryController| mc.stats().metadata.cache.hits() + mc.stats().metadata.cache.misses();
        let written = lookups(&fill);
        let merged = fill.read_partial(32, in_flight);
        assert_eq!(lookups(&fill), written, "a merged read looks nothing up");
        assert_eq!(
            (merged.merged, merged.burst_count, merged.decompress_cycles, merged.metadata_cycles),
            (true, 0, 0, 0)
        );
        assert_eq!(merged.encoding, LOW_HALF);
        let raw = fill.read_partial(128 + 32, in_flight);
        assert_eq!((raw.merged, raw.burst_count), (false, 1), "a raw block's sectors are fetched on their own");
        let unmerged = sectors_only.read_partial(32, in_flight);
        assert_eq!((unmerged.merged, unmerged.burst_count), (false, 2), "sector: every read fetches the line");
        let s = fill.stats();
        assert_eq!((s.partial.reads, s.partial.merged_reads, s.partial.compressed_reads), (2, 1, 1));
        assert_eq!((s.dram_reads.accesses, s.dram_reads.bursts, s.dram_reads.uncompressed_bursts), (2, 1, 2));
    }

    #[test]
    fn read_modify_write_recompresses_compressed_blocks_and_writes_raw_ones_in_place() {
        let mut mc = with_partial_writes(PartialWrites::ReadModifyWrite);
        mc.write_block(0, &low_half()).unwrap();
        mc.write_block(256, &low_half()).unwrap();
        // A compressed block, one sector written: read back, merged, recompressed.
        let w = mc.write_partial(256, sector(32, 0b0001), &zeros(), None).unwrap();
        assert_eq!((w.rmw_read_bursts, w.rmw_decompress_cycles, w.compress_cycles), (2, 5, 3));
        assert_eq!((w.encoding, w.burst_count), (ZEROS, 1));
        // One that no longer compresses goes back to its home sectors whole and raw.
        let raw = mc.write_partial(0, sector(32, 0b1000), &random(), None).unwrap();
        assert_eq!((raw.rmw_read_bursts, raw.encoding, raw.burst_count), (2, UNCOMPRESSED, 4));
        // A raw block and a never-written one take the write as it is, and stay raw.
        let again = mc.write_partial(0, sector(32, 0b0001), &zeros(), None).unwrap();
        assert_eq!(
            (again.rmw_read_bursts, again.compress_cycles, again.encoding, again.burst_count),
            (0, 0, UNCOMPRESSED, 1)
        );
        let fresh = mc.write_partial(512, sector(64, 0b0011), &zeros(), None).unwrap();
        assert_eq!((fresh.rmw_read_bursts, fresh.encoding, fresh.burst_count), (0, UNCOMPRESSED, 2));
        let s = mc.stats();
        assert_eq!((s.partial.writes, s.partial.rmw_reads, s.partial.rmw_read_bursts), (4, 2, 4));
        assert_eq!(s.partial.raw_fallbacks, 1);
        assert_eq!(s.writes.blocks, 2 + 2, "the two compressed blocks rebuilt are compressed");
        assert_eq!(mc.read_partial(0, sector(32, 0)).encoding, UNCOMPRESSED, "raw until a whole-block write");
        mc.write_block(0, &zeros()).unwrap();
        assert_eq!(mc.read_partial(0, sector(32, 0)).encoding, ZEROS);
    }

    #[test]
    fn read_modify_write_all_also_rebuilds_raw_blocks() {
        let mut mc = with_partial_writes(PartialWrites::ReadModifyWriteAll);
        mc.write_block(0, &low_half()).unwrap();
        // One sector written: the block no longer compresses.
        let w = mc.write_partial(0, sector(32, 0b1000), &random(), None).unwrap();
        assert_eq!((w.rmw_read_bursts, w.rmw_decompress_cycles, w.compress_cycles), (2, 5, 3));
        assert_eq!((w.encoding, w.burst_count), (UNCOMPRESSED, 4), "the raw block goes back to its home sectors whole");
        // A raw block: the units not written whole are read, the rebuilt block compresses.
        let z = mc.write_partial(0, sector(32, 0b0001), &zeros(), None).unwrap();
        assert_eq!((z.rmw_read_bursts, z.rmw_decompress_cycles, z.encoding, z.burst_count), (3, 0, ZEROS, 1));
        // Raw stays raw: the read was spent, only the write's bursts go out.
        let r = mc.write_partial(512, sector(64, 0b0011), &random(), None).unwrap();
        assert_eq!((r.rmw_read_bursts, r.encoding, r.burst_count), (2, UNCOMPRESSED, 2));
        let s = mc.stats();
        assert_eq!((s.partial.writes, s.partial.rmw_reads, s.partial.rmw_read_bursts), (3, 3, 7));
        assert_eq!(s.partial.raw_fallbacks, 1);
        assert_eq!(s.writes.blocks, 1 + 3, "every rebuilt block is compressed");
        assert_eq!(s.dram_bursts(), s.dram_reads.bursts + s.dram_writes.bursts + s.metadata.fetch_bursts + 7);
        assert_eq!(mc.read_partial(0, sector(32, 0)).encoding, ZEROS);
    }

    #[test]
    fn store_raw_never_recompresses_a_partial_write() {
        let mut mc = with_partial_writes(PartialWrites::StoreRaw);
        mc.write_block(0, &low_half()).unwrap();
        let w = mc.write_partial(0, sector(32, 0b0001), &zeros(), None).unwrap();
        assert_eq!((w.rmw_read_bursts, w.rmw_decompress_cycles, w.compress_cycles), (2, 5, 0));
        assert_eq!((w.encoding, w.burst_count), (UNCOMPRESSED, 4), "compressed zeros would take 1 burst; raw takes 4");
        assert_eq!(mc.stored(0).unwrap().encoding, UNCOMPRESSED, "the metadata marks the block raw");
        let again = mc.write_partial(0, sector(32, 0b0001), &zeros(), None).unwrap();
        assert_eq!((again.rmw_read_bursts, again.burst_count), (0, 1), "a raw block takes the write as it is");
        let s = mc.stats();
        assert_eq!((s.partial.raw_fallbacks, s.partial.rmw_reads, s.partial.rmw_read_bursts), (1, 1, 2));
        assert_eq!(s.writes.blocks, 1, "nothing recompressed");
        assert_eq!(mc.read_partial(0, sector(32, 0)).burst_count, 1);
    }

    #[test]
    fn partial_writes_are_verified_like_whole_ones() {
        let mut codec = ZeroCodec::new();
        codec.lie = true;
        // rmw_all compresses a never-written block on its first partial write.
        let options =
            McOptions { verify: true, partial_writes: PartialWrites::ReadModifyWriteAll, ..Default::default() };
        let mut mc = controller_with(codec, options);
        let err = mc.write_partial(0, sector(32, 0b0001), &zeros(), None).unwrap_err();
        assert!(matches!(err, McError::VerifyFailed { .. }), "{err}");
        assert_eq!(mc.stats().verify.failures, 1);
    }
}
