//! The `cxx` bridge between gpgpu-sim (C++) and memzip (Rust).
//!
//! C++ sees a handful of opaque objects: a [`Controller`] per simulated memory
//! controller (the memory-controller model the simulator hooks drive), plus
//! the parts it is made of, [`Compressor`], [`Decompressor`] and
//! [`MetadataCache`], for C++ code that wants them alone, and a [`Tracer`]
//! that records DRAM block traffic. Every entry point returns a `Result`
//! (a C++ exception on the other side) and catches panics: no Rust panic ever
//! unwinds into C++.

mod codec_flags;
mod options;

use std::fs::File;
use std::io::BufWriter;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};

use memzip::codec::registry;
use memzip::mc::{self, McStats, MemoryController};
use memzip::trace::{AccessKind, TraceWriter};
use memzip::{Codec, CompressedBlock};

pub use options::{controller_parts, energy_flags, energy_params, online_sampling_instructions};

#[cxx::bridge(namespace = "memzip")]
pub mod ffi {
    /// The `-memzip_*` options as gpgpu-sim's option parser fills them.
    /// Numbers below zero mean "the codec's default".
    #[derive(Debug, Clone)]
    pub struct Options {
        /// `-memzip_codec`: none, bdi, mag_bdi, fpc, cpack, cpack_z, bpc, e2mc4..32, adaptive.
        pub codec: String,
        pub block_bytes: u32,
        pub mag_bytes: u32,
        pub mdc_bytes: u32,
        pub mdc_assoc: u32,
        pub comp_latency: i32,
        pub decomp_latency: i32,
        pub e2mc_pdw: i32,
        pub e2mc_mfv: i32,
        /// `online:<instructions>`, `online:blocks=<N>` or `offline:<table.json>`.
        pub e2mc_sampling: String,
        pub adaptive_lambda: i32,
        /// Codec specs separated by `/` (each may carry knobs: `mag_bdi:bases=8+4+2/fpc`).
        pub adaptive_candidates: String,
        pub verify: bool,
        /// Values of the `-memzip_energy_*` flags in `energy_flags()` order;
        /// empty: every default.
        pub energy: Vec<f64>,
    }

    /// One `-memzip_energy_*` flag for the simulator's option parser.
    #[derive(Debug, Clone)]
    pub struct EnergyFlag {
        pub name: String,
        pub default_value: String,
        pub help: String,
    }

    /// What one DRAM access costs, as the timing model needs it.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct Access {
        pub encoding: u8,
        pub compressed_bits: u32,
        /// MAG bursts of the data transfer.
        pub burst_count: u32,
        /// `burst_count * mag_bytes`: size the DRAM request to this.
        pub dram_bytes: u32,
        /// Compression (writes) or decompression (reads) latency.
        pub latency_cycles: u32,
        /// Metadata-cache lookup latency (reads).
        pub metadata_cycles: u32,
        pub metadata_miss: bool,
        /// Extra DRAM bytes for metadata: line fill on a miss plus dirty write-back.
        pub metadata_dram_bytes: u32,
    }

    /// One block as stored in DRAM.
    #[derive(Debug, Clone)]
    pub struct Compressed {
        pub encoding: u8,
        pub payload: Vec<u8>,
        pub compressed_bits: u32,
        pub mag_bytes: u32,
        pub burst_count: u32,
        pub compress_cycles: u32,
    }

    extern "Rust" {
        type Controller;
        type Compressor;
        type Decompressor;
        type MetadataCache;
        type Stats;
        type Tracer;

        /// The defaults of every `-memzip_*` option (the simulator registers these).
        fn default_options() -> Options;
        /// Valid codec names, comma-separated (for the option's help text).
        fn codec_names() -> String;
        /// The `-memzip_energy_*` flags, in the order `Options::energy` holds their values.
        fn energy_flags() -> Vec<EnergyFlag>;
        /// Checks options without building anything; the error names the flag.
        fn validate_options(options: &Options) -> Result<()>;
        /// The value of a 0/1 flag such as `-memzip_verify`; anything else is
        /// an error naming the flag.
        fn parse_switch(flag: &str, value: &str) -> Result<bool>;

        fn new_controller(options: &Options) -> Result<Box<Controller>>;
        /// A DRAM write-back of the block at `addr` holding `data`.
        fn write_block(self: &mut Controller, addr: u64, data: &[u8]) -> Result<Access>;
        /// A DRAM read of the block at `addr`.
        fn read_block(self: &mut Controller, addr: u64) -> Result<Access>;
        /// A host-to-device copy of one block (initialises its metadata).
        fn copy_block(self: &mut Controller, addr: u64, data: &[u8]) -> Result<Access>;
        /// Simulated instructions after which E2MC's online sampling ends (0: never samples).
        fn sampling_instructions(self: &Controller) -> u64;
        fn end_sampling(self: &mut Controller) -> Result<()>;
        /// The online sampling phase is still running.
        fn is_sampling(self: &Controller) -> bool;
        fn block_bytes(self: &Controller) -> u32;
        fn codec_name(self: &Controller) -> String;
        fn stats(self: &Controller) -> Box<Stats>;

        fn new_stats() -> Box<Stats>;
        fn merge(self: &mut Stats, other: &Stats);
        /// The simulator's own DRAM counters of this channel at kernel end
        /// (cumulative): DRAM cycles, data-bus busy cycles, activations,
        /// read and write column commands.
        fn set_dram_counters(
            self: &mut Stats,
            cycles: u64,
            busy_cycles: u64,
            activations: u64,
            read_commands: u64,
            write_commands: u64,
        );
        /// The run's simulated core cycles and core clock (Hz), for the energy-delay product.
        fn set_simulated_time(self: &mut Stats, cycles: u64, core_hz: f64);
        fn to_json(self: &Stats) -> String;
        /// `prefix_key = value` lines for the simulator log.
        fn to_text(self: &Stats, prefix: &str) -> String;

        fn new_compressor(options: &Options) -> Result<Box<Compressor>>;
        fn compress(self: &mut Compressor, data: &[u8]) -> Result<Compressed>;
        fn end_sampling(self: &mut Compressor) -> Result<()>;
        /// A decompressor that shares this compressor's codec (and so its learnt tables).
        fn decompressor(self: &Compressor) -> Box<Decompressor>;
        fn decompress(self: &Decompressor, block: &Compressed) -> Result<Vec<u8>>;
        fn decompress_cycles(self: &Decompressor, encoding: u8) -> u32;

        fn new_metadata_cache(options: &Options) -> Result<Box<MetadataCache>>;
        /// Looks up (and on a miss fills) the metadata of block number `block_index`; true on a hit.
        fn access(self: &mut MetadataCache, block_index: u64, is_write: bool) -> bool;
        fn hits(self: &MetadataCache) -> u64;
        fn misses(self: &MetadataCache) -> u64;

        /// Opens `path` for a zstd-compressed DRAM block trace.
        fn open_tracer(path: &str, block_bytes: u32) -> Result<Box<Tracer>>;
        /// One block access; `kind`: 0 read, 1 write-back, 2 host-to-device copy.
        fn record(self: &mut Tracer, cycle: u64, kind: u8, controller: u32, addr: u64, data: &[u8]) -> Result<()>;
        /// Flushes and closes the trace; later records are errors.
        fn finish(self: &mut Tracer) -> Result<()>;
    }
}

use ffi::{Access, Compressed, Options};

/// Runs `f`, turning a panic into an error so it cannot cross into C++.
fn guard<T>(what: &str, f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(panic) => {
            let message = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            Err(format!("memzip internal error in {what}: {message}"))
        }
    }
}

fn to_u32(value: usize) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
}

fn default_options() -> Options {
    options::defaults()
}

fn codec_names() -> String {
    registry::codec_names().join(", ")
}

fn validate_options(options: &Options) -> Result<(), String> {
    new_controller(options).map(|_| ())
}

/// The simulator registers 0/1 flags as strings: its own boolean options
/// abort on any other value (an assertion in option_parser.cc).
fn parse_switch(flag: &str, value: &str) -> Result<bool, String> {
    match value.trim() {
        "0" => Ok(false),
        "1" => Ok(true),
        other => Err(format!("{flag}: invalid value '{other}': expected 0 or 1")),
    }
}

pub struct Controller {
    inner: MemoryController,
    sampling_instructions: u64,
}

fn new_controller(options: &Options) -> Result<Box<Controller>, String> {
    guard("new_controller", || {
        let (spec, mc_options, sampling_instructions) = options::resolve(options)?;
        let mut inner = MemoryController::new(&spec, mc_options).map_err(|e| options::flag_error(&e))?;
        inner.set_energy_params(energy_params(&options.energy)?);
        Ok(Box::new(Controller { inner, sampling_instructions }))
    })
}

impl Controller {
    fn write_block(&mut self, addr: u64, data: &[u8]) -> Result<Access, String> {
        guard("write_block", || {
            let out = self.inner.write_block(addr, data).map_err(|e| e.to_string())?;
            Ok(Access {
                encoding: out.encoding,
                compressed_bits: to_u32(out.compressed_bits),
                burst_count: to_u32(out.burst_count),
                dram_bytes: to_u32(out.dram_bytes),
                latency_cycles: out.compress_cycles,
                metadata_cycles: 0,
                metadata_miss: out.metadata_miss,
                metadata_dram_bytes: to_u32(out.metadata_fetch_bytes + out.metadata_writeback_bytes),
            })
        })
    }

    fn read_block(&mut self, addr: u64) -> Result<Access, String> {
        guard("read_block", || {
            let out = self.inner.read_block(addr);
            Ok(Access {
                encoding: out.encoding,
                compressed_bits: to_u32(out.burst_count * self.inner.geometry().mag_bytes() * 8),
                burst_count: to_u32(out.burst_count),
                dram_bytes: to_u32(out.dram_bytes),
                latency_cycles: out.decompress_cycles,
                metadata_cycles: out.metadata_cycles,
                metadata_miss: out.metadata_miss,
                metadata_dram_bytes: to_u32(out.metadata_fetch_bytes + out.metadata_writeback_bytes),
            })
        })
    }

    fn copy_block(&mut self, addr: u64, data: &[u8]) -> Result<Access, String> {
        guard("copy_block", || {
            let out = self.inner.memcpy_block(addr, data).map_err(|e| e.to_string())?;
            Ok(Access {
                encoding: out.encoding,
                compressed_bits: to_u32(out.compressed_bits),
                burst_count: to_u32(out.burst_count),
                dram_bytes: to_u32(out.dram_bytes),
                latency_cycles: 0,
                metadata_cycles: 0,
                metadata_miss: false,
                metadata_dram_bytes: 0,
            })
        })
    }

    fn sampling_instructions(&self) -> u64 {
        self.sampling_instructions
    }

    fn is_sampling(&self) -> bool {
        self.inner.is_sampling()
    }

    fn end_sampling(&mut self) -> Result<(), String> {
        guard("end_sampling", || {
            self.sampling_instructions = 0;
            self.inner.end_sampling().map_err(|e| e.to_string())
        })
    }

    fn block_bytes(&self) -> u32 {
        to_u32(self.inner.geometry().block_bytes())
    }

    fn codec_name(&self) -> String {
        self.inner.codec_name().to_string()
    }

    fn stats(&self) -> Box<Stats> {
        Box::new(Stats(self.inner.stats()))
    }
}

/// Statistics of one controller or, merged, of several.
pub struct Stats(McStats);

fn new_stats() -> Box<Stats> {
    Box::new(Stats(McStats::default()))
}

impl Stats {
    fn merge(&mut self, other: &Stats) {
        self.0.merge(&other.0);
    }

    fn set_dram_counters(
        &mut self,
        cycles: u64,
        busy_cycles: u64,
        activations: u64,
        read_commands: u64,
        write_commands: u64,
    ) {
        self.0.dram_device = mc::DramDeviceStats { cycles, busy_cycles, activations, read_commands, write_commands };
    }

    fn set_simulated_time(&mut self, cycles: u64, core_hz: f64) {
        self.0.set_simulated_time(cycles, core_hz);
    }

    fn to_json(&self) -> String {
        self.0.to_json()
    }

    fn to_text(&self, prefix: &str) -> String {
        self.0.to_text(prefix)
    }
}

/// A codec shared by a compressor and its decompressors: E2MC learns its
/// table while compressing, and decoding must use the same table.
type SharedCodec = Arc<Mutex<Box<dyn Codec>>>;

pub struct Compressor {
    codec: SharedCodec,
    block_bytes: usize,
    /// Reused output block: the codec compresses without allocating; only
    /// the payload handed to C++ is copied out.
    scratch: CompressedBlock,
}

pub struct Decompressor {
    codec: SharedCodec,
    /// Reused input block the C++ payload is copied into.
    scratch: Mutex<CompressedBlock>,
}

fn lock(codec: &SharedCodec) -> std::sync::MutexGuard<'_, Box<dyn Codec>> {
    // A poisoned lock only means an earlier call panicked (and was reported);
    // the codec itself holds no half-updated invariant across calls.
    codec.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn new_compressor(options: &Options) -> Result<Box<Compressor>, String> {
    guard("new_compressor", || {
        let (spec, _) = controller_parts(options)?;
        let codec = registry::build(&spec).map_err(|e| options::flag_error(&e))?;
        let block_bytes = codec.geometry().block_bytes();
        Ok(Box::new(Compressor {
            codec: Arc::new(Mutex::new(codec)),
            block_bytes,
            scratch: CompressedBlock::default(),
        }))
    })
}

impl Compressor {
    fn compress(&mut self, data: &[u8]) -> Result<Compressed, String> {
        guard("compress", || {
            if data.len() != self.block_bytes {
                return Err(format!("compress: block has {} bytes, expected {}", data.len(), self.block_bytes));
            }
            let mut codec = lock(&self.codec);
            let block = &mut self.scratch;
            codec.compress_into(data, block).map_err(|e| e.to_string())?;
            let compress_cycles = codec.compress_cycles(block);
            Ok(Compressed {
                encoding: block.encoding,
                compressed_bits: to_u32(block.compressed_bits),
                mag_bytes: to_u32(block.mag_bytes),
                burst_count: to_u32(block.burst_count),
                payload: block.payload.clone(),
                compress_cycles,
            })
        })
    }

    fn end_sampling(&mut self) -> Result<(), String> {
        guard("end_sampling", || lock(&self.codec).end_sampling().map_err(|e| e.to_string()))
    }

    fn decompressor(&self) -> Box<Decompressor> {
        Box::new(Decompressor { codec: Arc::clone(&self.codec), scratch: Mutex::new(CompressedBlock::default()) })
    }
}

impl Decompressor {
    fn decompress(&self, block: &Compressed) -> Result<Vec<u8>, String> {
        guard("decompress", || {
            let codec = lock(&self.codec);
            let geometry = codec.geometry();
            let mut compressed = self.scratch.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            compressed.encoding = block.encoding;
            compressed.payload.clear();
            compressed.payload.extend_from_slice(&block.payload);
            compressed.compressed_bits = block.compressed_bits as usize;
            compressed.mag_bytes = geometry.mag_rounded_bytes(block.compressed_bits as usize);
            compressed.burst_count = geometry.burst_count(block.compressed_bits as usize);
            let mut out = vec![0; geometry.block_bytes()];
            codec.decompress_into(&compressed, &mut out).map_err(|e| e.to_string())?;
            Ok(out)
        })
    }

    fn decompress_cycles(&self, encoding: u8) -> u32 {
        lock(&self.codec).decompress_cycles(encoding)
    }
}

pub struct MetadataCache(mc::MetadataCache);

fn new_metadata_cache(options: &Options) -> Result<Box<MetadataCache>, String> {
    guard("new_metadata_cache", || {
        let (spec, mc_options) = controller_parts(options)?;
        let codec = registry::build(&spec).map_err(|e| options::flag_error(&e))?;
        let bits = codec.metadata_bits().max(1);
        let cache = mc::MetadataCache::new(mc_options.mdc, bits).map_err(|e| options::flag_error(&e))?;
        Ok(Box::new(MetadataCache(cache)))
    })
}

impl MetadataCache {
    fn access(&mut self, block_index: u64, is_write: bool) -> bool {
        let kind = if is_write { mc::MdcAccess::Write } else { mc::MdcAccess::Read };
        self.0.access(block_index, kind).hit
    }

    fn hits(&self) -> u64 {
        self.0.stats().hits()
    }

    fn misses(&self) -> u64 {
        self.0.stats().misses()
    }
}

pub struct Tracer {
    path: String,
    writer: Option<TraceWriter<BufWriter<File>>>,
}

fn open_tracer(path: &str, block_bytes: u32) -> Result<Box<Tracer>, String> {
    guard("open_tracer", || {
        let file = File::create(path).map_err(|e| format!("-memzip_trace {path}: {e}"))?;
        let writer = TraceWriter::new(BufWriter::new(file), block_bytes as usize)
            .map_err(|e| format!("-memzip_trace {path}: {e}"))?;
        Ok(Box::new(Tracer { path: path.to_string(), writer: Some(writer) }))
    })
}

impl Tracer {
    fn record(&mut self, cycle: u64, kind: u8, controller: u32, addr: u64, data: &[u8]) -> Result<(), String> {
        guard("trace record", || {
            let kind = match kind {
                0 => AccessKind::Read,
                1 => AccessKind::Write,
                2 => AccessKind::Memcpy,
                other => return Err(format!("trace record: unknown access kind {other}")),
            };
            let writer =
                self.writer.as_mut().ok_or_else(|| format!("-memzip_trace {}: already finished", self.path))?;
            writer
                .write_access(cycle, kind, controller, addr, data)
                .map_err(|e| format!("-memzip_trace {}: {e}", self.path))
        })
    }

    fn finish(&mut self) -> Result<(), String> {
        guard("trace finish", || match self.writer.take() {
            Some(writer) => writer.finish().map(|_| ()).map_err(|e| format!("-memzip_trace {}: {e}", self.path)),
            None => Ok(()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guard_turns_panics_into_errors() {
        let err = guard("test", || -> Result<(), String> { panic!("boom") }).unwrap_err();
        assert_eq!(err, "memzip internal error in test: boom");
        assert_eq!(guard("test", || Ok(3)), Ok(3));
    }

    #[test]
    fn controller_round_trip_through_the_bridge_functions() {
        let mut options = default_options();
        options.codec = "mag_bdi".into();
        options.verify = true;
        let mut controller = new_controller(&options).unwrap();
        let zeros = vec![0u8; 128];
        let write = controller.write_block(0x1000, &zeros).unwrap();
        assert_eq!((write.burst_count, write.dram_bytes, write.latency_cycles), (1, 32, 1));
        assert!(write.metadata_miss);
        assert_eq!(write.metadata_dram_bytes, 32, "a miss fetches one atom-sized metadata line");
        let read = controller.read_block(0x1000).unwrap();
        assert_eq!((read.burst_count, read.latency_cycles, read.metadata_miss), (1, 1, false));
        assert!(controller.write_block(0x2000, &zeros[..64]).is_err(), "wrong block size is an error");
        let mut total = new_stats();
        total.merge(&controller.stats());
        total.merge(&controller.stats());
        assert!(total.to_json().contains("\"controllers\": 2"));
        assert!(total.to_text("memzip_total").contains("memzip_total_blocks_written = 2"));
    }

    #[test]
    fn energy_flags_reach_the_controller() {
        let mut options = default_options();
        options.codec = "mag_bdi".into();
        options.energy = energy_flags().iter().map(|f| f.default_value.parse().unwrap()).collect();
        options.energy[8] = 1.0; // DRAM read: 1 pJ per bit, 256 pJ per 32-byte burst
        options.energy[10] = 100.0; // activation
        let mut controller = new_controller(&options).unwrap();
        controller.read_block(0x1000).unwrap(); // never written: 4 bursts, MDC miss fills a 32-byte line
        let mut total = new_stats();
        total.merge(&controller.stats());
        total.set_dram_counters(1000, 10, 2, 0, 0);
        total.set_simulated_time(822, 822e6);
        let json = total.to_json();
        for field in ["\"dram_read_pj\": 1280.0", "\"dram_activation_pj\": 200.0", "\"simulated_seconds\": 1e-6"] {
            assert!(json.contains(field), "{field} in {json}");
        }
        options.energy[1] = f64::INFINITY;
        let err = new_controller(&options).err().unwrap();
        assert!(err.starts_with("-memzip_energy_bdi_pj: invalid value 'inf'"), "{err}");
    }

    #[test]
    fn compressor_and_decompressor_share_the_codec() {
        let mut options = default_options();
        options.codec = "bdi".into();
        let mut compressor = new_compressor(&options).unwrap();
        let decompressor = compressor.decompressor();
        let block: Vec<u8> = (0..32u32).flat_map(|i| (1000 + i).to_le_bytes()).collect();
        let compressed = compressor.compress(&block).unwrap();
        assert!(compressed.compressed_bits < 1024);
        assert_eq!(decompressor.decompress(&compressed).unwrap(), block);
        let mut corrupt = compressed.clone();
        corrupt.payload.truncate(1);
        assert!(decompressor.decompress(&corrupt).is_err());
        assert!(compressor.compress(&block[..8]).is_err());
    }

    #[test]
    fn a_switch_is_0_or_1() {
        assert_eq!(parse_switch("-memzip_verify", "1"), Ok(true));
        assert_eq!(parse_switch("-memzip_verify", " 0"), Ok(false));
        assert_eq!(
            parse_switch("-memzip_verify", "2").unwrap_err(),
            "-memzip_verify: invalid value '2': expected 0 or 1"
        );
        assert!(parse_switch("-memzip_verify", "yes").is_err());
    }

    #[test]
    fn bad_codec_is_one_line_naming_the_flag() {
        let mut options = default_options();
        options.codec = "zip".into();
        let err = new_controller(&options).err().unwrap();
        assert!(err.starts_with("-memzip_codec: invalid codec 'zip': expected one of none, bdi"), "{err}");
        assert!(validate_options(&options).is_err());
        options.codec = "mag_bdi".into();
        options.mdc_assoc = 3;
        let err = new_controller(&options).err().unwrap();
        assert!(
            err.starts_with("-memzip_mdc_assoc: invalid mdc_assoc '3': expected a divisor of the 512 lines"),
            "{err}"
        );
    }
}
