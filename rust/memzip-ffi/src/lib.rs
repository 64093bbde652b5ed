//! The `cxx` bridge between gpgpu-sim (C++) and memzip (Rust).
//!
//! C++ sees a handful of opaque objects: a [`Simulation`], the `-memzip_*`
//! flags resolved once per simulator run ([`flags`] declares them, [`options`]
//! resolves them); a [`Controller`] per simulated memory controller (the
//! memory-controller model the simulator hooks drive), each built from the
//! simulation; their [`Stats`]; and a [`Tracer`] that records DRAM block
//! traffic. Every entry point returns a `Result` (a C++ exception on the other
//! side) and catches panics: no Rust panic ever unwinds into C++.

mod codec_flags;
pub mod flags;
pub mod options;

use std::fs::File;
use std::io::BufWriter;
use std::panic::{catch_unwind, AssertUnwindSafe};

use memzip::mc::{self, McStats, MemoryController};
use memzip::trace::{AccessKind, TraceWriter};

use options::Resolved;

#[cxx::bridge(namespace = "memzip")]
pub mod ffi {
    /// One `-memzip_*` flag for the simulator's option parser, which
    /// registers it as text and hands the value back to [`resolve_options`].
    #[derive(Debug, Clone)]
    pub struct OptionFlag {
        pub name: String,
        pub default_value: String,
        pub help: String,
    }

    /// What the hooks need of the resolved flags.
    #[derive(Debug, Clone)]
    pub struct Settings {
        /// False for `-memzip_codec none`: every request keeps gpgpu-sim's
        /// own size and timing.
        pub compresses: bool,
        /// `-memzip_codec` as given (for messages).
        pub codec: String,
        pub block_bytes: u32,
        pub mag_bytes: u32,
        /// The clock the codecs' latencies count (MHz).
        pub latency_mhz: u32,
        /// `-memzip_trace`: a file for the DRAM block trace; empty: none.
        pub trace: String,
        /// `-memzip_stats_json`: a file for the statistics; empty: none.
        pub stats_json: String,
    }

    /// What the simulator's configuration says, for [`Simulation::check_simulator`].
    #[derive(Debug, Clone)]
    pub struct SimulatorFacts {
        pub simple_dram_model: bool,
        pub l2_disabled: bool,
        /// The L2's line: what it writes back and fills.
        pub l2_line_bytes: u32,
        /// What the L2 sends to DRAM at once (the line, or a sector).
        pub l2_atom_bytes: u32,
        pub dram_atom_bytes: u32,
        /// The address mapping puts channel (or sub-partition) bits inside a block.
        pub channel_bits_in_block: bool,
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
        /// A write of part of a block: the bytes read back first
        /// (read-modify-write), else 0.
        pub rmw_read_bytes: u32,
        /// The block is stored approximated: it reads back as the
        /// approximation the write returned, which the simulator puts into
        /// its functional memory.
        pub approximated: bool,
        /// A sector read that fetched a compressed block whole under
        /// `-memzip_partial_reads fill`: the L2 fills every sector of the
        /// line it does not hold yet, and reports them (`note_filled_sectors`).
        pub fills_line: bool,
        /// A sector read matched to that fetch in flight (`fill`): it goes
        /// to no DRAM (`burst_count` 0); its reply leaves with the fetch's.
        pub merged: bool,
    }

    extern "Rust" {
        type Simulation;
        type Controller;
        type Stats;
        type Tracer;

        /// Every `-memzip_*` flag, in the order [`resolve_options`] takes their values.
        fn option_flags() -> Vec<OptionFlag>;
        /// Reads and checks the flags' values (one per [`option_flags`] entry),
        /// once per simulator run; the error names the flag.
        fn resolve_options(values: &Vec<String>) -> Result<Box<Simulation>>;
        fn settings(self: &Simulation) -> Settings;
        /// Checks the flags against the simulator's configuration: an error
        /// that stops the run, or the notes to print.
        fn check_simulator(self: &Simulation, facts: &SimulatorFacts) -> Result<Vec<String>>;
        /// A memory controller as the flags describe (one per memory partition).
        fn new_controller(self: &mut Simulation) -> Result<Box<Controller>>;
        /// The program made its next device allocation, `bytes` at `start`
        /// (`-memzip_approx_allocs` numbers them). Returns the line to print
        /// about it, empty when no list was given.
        fn on_allocation(self: &mut Simulation, start: u64, bytes: u64) -> String;
        /// A note about listed allocations the program has not made (yet); empty if none.
        fn approximable_note(self: &Simulation) -> String;

        /// A DRAM write-back of the block at `addr` holding `data`.
        fn write_block(self: &mut Controller, addr: u64, data: &[u8]) -> Result<Access>;
        /// A DRAM read of the block at `addr`.
        fn read_block(self: &mut Controller, addr: u64) -> Result<Access>;
        /// A host-to-device copy of one block (initialises its metadata).
        fn copy_block(self: &mut Controller, addr: u64, data: &[u8]) -> Result<Access>;
        /// A DRAM read of part of the block at `addr` (a sectored L2's
        /// sector read, ...), `request_bytes` as the simulator sizes it;
        /// `fetch_in_flight`: a read whose `Access::fills_line` was set for
        /// this block has not left for the L2 yet.
        fn read_part(self: &mut Controller, addr: u64, request_bytes: u32, fetch_in_flight: bool) -> Result<Access>;
        /// A DRAM write of part of the block at `addr` (`global_addr` as in
        /// `write_block_of`): `request_bytes` as the simulator sizes it,
        /// `whole_units` the block's MAG units it writes whole (bit i),
        /// `data` the whole block after the write.
        #[allow(clippy::too_many_arguments)]
        fn write_part_of(
            self: &mut Controller,
            addr: u64,
            global_addr: u64,
            request_bytes: u32,
            whole_units: u64,
            data: &[u8],
            simulation: &Simulation,
            approximated: &mut [u8],
        ) -> Result<Access>;
        /// The L2 filled `sectors` sectors beyond those it asked for from a
        /// read whose `Access::fills_line` was set.
        fn note_filled_sectors(self: &mut Controller, sectors: u32);
        /// Counts one DRAM request by the simulator's access type and size.
        fn count_request(self: &mut Controller, kind: &str, bytes: u32);
        /// `write_block` of the block at `addr` (this controller's address)
        /// that the program sees at `global_addr`: when the simulation's
        /// `-memzip_approx_allocs` covers it, a lossy codec may store an
        /// approximation, written into `approximated` (one block) with
        /// `Access::approximated` set.
        fn write_block_of(
            self: &mut Controller,
            addr: u64,
            global_addr: u64,
            data: &[u8],
            simulation: &Simulation,
            approximated: &mut [u8],
        ) -> Result<Access>;
        /// `copy_block` as `write_block_of`.
        fn copy_block_of(
            self: &mut Controller,
            addr: u64,
            global_addr: u64,
            data: &[u8],
            simulation: &Simulation,
            approximated: &mut [u8],
        ) -> Result<Access>;
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
        /// read and write column commands; and the column commands it still
        /// owes then for requests memzip has charged.
        fn set_dram_counters(
            self: &mut Stats,
            cycles: u64,
            busy_cycles: u64,
            activations: u64,
            read_commands: u64,
            write_commands: u64,
            unissued_bursts: u64,
        );
        /// The run's simulated core cycles and core clock (Hz), for the energy-delay product.
        fn set_simulated_time(self: &mut Stats, cycles: u64, core_hz: f64);
        fn to_json(self: &Stats) -> String;
        /// `prefix_key = value` lines for the simulator log.
        fn to_text(self: &Stats, prefix: &str) -> String;

        /// Opens `path` for a zstd-compressed DRAM block trace.
        fn open_tracer(path: &str, block_bytes: u32) -> Result<Box<Tracer>>;
        /// One block access; `kind`: 0 read, 1 write-back, 2 host-to-device copy.
        fn record(self: &mut Tracer, cycle: u64, kind: u8, controller: u32, addr: u64, data: &[u8]) -> Result<()>;
        /// Flushes and closes the trace; later records are errors.
        fn finish(self: &mut Tracer) -> Result<()>;
    }
}

use ffi::{Access, OptionFlag, Settings, SimulatorFacts};

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

fn option_flags() -> Vec<OptionFlag> {
    flags::table()
        .into_iter()
        .map(|flag| OptionFlag { name: flag.name, default_value: flag.default_value, help: flag.help })
        .collect()
}

/// The `-memzip_*` flags of one simulator run, resolved once: every memory
/// partition's controller is built from it.
pub struct Simulation {
    settings: Settings,
    resolved: Resolved,
    /// The controller built to check the flags, handed to the first
    /// partition that asks (a codec is built once per partition, no more).
    checked: Option<MemoryController>,
}

// cxx hands C++'s rust::Vec over as &Vec.
#[allow(clippy::ptr_arg)]
fn resolve_options(values: &Vec<String>) -> Result<Box<Simulation>, String> {
    guard("resolve_options", || Simulation::new(&flags::read(values)?).map(Box::new))
}

impl Simulation {
    /// Resolves the flags and builds one controller from them, so that a bad
    /// value stops the run before the first cycle.
    pub fn new(options: &flags::Options) -> Result<Self, String> {
        let resolved = options::resolve(options)?;
        let checked = build_controller(&resolved)?;
        let settings = Settings {
            compresses: resolved.spec.name != "none",
            codec: options.codec.clone(),
            block_bytes: options.block_bytes,
            mag_bytes: options.mag_bytes,
            latency_mhz: options.latency_mhz,
            trace: options.trace.trim().to_string(),
            stats_json: options.stats_json.trim().to_string(),
        };
        Ok(Simulation { settings, resolved, checked: Some(checked) })
    }

    fn settings(&self) -> Settings {
        self.settings.clone()
    }

    fn check_simulator(&self, facts: &SimulatorFacts) -> Result<Vec<String>, String> {
        let s = &self.settings;
        if s.compresses && facts.simple_dram_model {
            return Err("-memzip_codec needs the detailed DRAM model (-gpgpu_simple_dram_model 0)".into());
        }
        // The L2 writes back and fills whole lines: a block of another size
        // would never be seen, and the run would compress nothing.
        if s.compresses && !facts.l2_disabled && facts.l2_line_bytes != s.block_bytes {
            return Err(format!(
                "-memzip_block_bytes {}: the L2 moves {}-byte lines to and from DRAM and memzip compresses \
                 whole lines: set it to the L2 line size",
                s.block_bytes, facts.l2_line_bytes
            ));
        }
        // Filling sectors needs sectors: an L2 that reads whole lines never
        // asks for part of one, and v3.2.1's has no hook for the fill.
        let partial_reads = self.resolved.mc_options.partial_reads;
        if partial_reads == mc::PartialReads::Fill && (facts.l2_disabled || facts.l2_atom_bytes == facts.l2_line_bytes)
        {
            return Err(format!(
                "-memzip_partial_reads fill: this L2 reads whole {}-byte lines from DRAM, it has no sectors to fill \
                 (use a sectored GPU: --gpu qv100 or rtx3070)",
                facts.l2_line_bytes
            ));
        }
        let mut notes = Vec::new();
        if facts.channel_bits_in_block {
            notes.push(format!(
                "channel bits inside a {}-byte block; controllers are keyed by global address",
                s.block_bytes
            ));
        }
        if s.compresses && (facts.l2_disabled || facts.l2_atom_bytes != s.block_bytes) {
            notes.push(format!(
                "the L2 sends DRAM requests for part of a {}-byte block (sectored or disabled L2): a read of a \
                 compressed block fetches the whole stored block (-memzip_partial_reads {}); partial writes: \
                 -memzip_partial_writes {}",
                s.block_bytes,
                partial_reads.name(),
                self.resolved.mc_options.partial_writes.name()
            ));
        }
        if s.compresses && facts.dram_atom_bytes != s.mag_bytes {
            notes.push(format!(
                "DRAM atom {} B != -memzip_mag_bytes {} B: transfers round up to whole atoms",
                facts.dram_atom_bytes, s.mag_bytes
            ));
        }
        Ok(notes)
    }

    pub fn on_allocation(&mut self, start: u64, bytes: u64) -> String {
        let memory = &mut self.resolved.approximable;
        let label = memory.on_allocation(start, bytes).map(str::to_string);
        if memory.is_empty() {
            return String::new();
        }
        let marked = label.map(|label| format!(", approximable: {label}")).unwrap_or_default();
        format!("allocation {}: {bytes} bytes at {start:#x}{marked}", memory.allocations())
    }

    fn approximable_note(&self) -> String {
        let memory = &self.resolved.approximable;
        let missing: Vec<String> = memory.not_allocated().iter().map(|m| m.ordinal.to_string()).collect();
        if missing.is_empty() {
            return String::new();
        }
        format!(
            "-memzip_approx_allocs lists allocations the program has not made (yet): {} ({} made so far)",
            missing.join(","),
            memory.allocations()
        )
    }

    /// The whole block at `global_addr` is approximable data.
    fn covers(&self, global_addr: u64, block_bytes: usize) -> bool {
        self.resolved.approximable.covers_block(global_addr, block_bytes as u64)
    }

    /// The controller of the next memory partition.
    pub fn new_controller(&mut self) -> Result<Box<Controller>, String> {
        guard("new_controller", || {
            let inner = match self.checked.take() {
                Some(checked) => checked,
                None => build_controller(&self.resolved)?,
            };
            Ok(Box::new(Controller { inner, sampling_instructions: self.resolved.sampling_instructions }))
        })
    }
}

fn build_controller(resolved: &Resolved) -> Result<MemoryController, String> {
    let mut controller =
        MemoryController::new(&resolved.spec, resolved.mc_options).map_err(|e| options::flag_error(&e))?;
    controller.set_energy_params(resolved.energy);
    Ok(controller)
}

pub struct Controller {
    inner: MemoryController,
    sampling_instructions: u64,
}

/// What a write-back tells the simulator: its compressor's cycles and the
/// metadata cache's work on top of the stored size.
fn write_access(out: &mc::WriteOutcome, mag_bytes: usize) -> Access {
    Access {
        // A read-modify-write decompresses the old block before compressing.
        latency_cycles: out.compress_cycles + out.rmw_decompress_cycles,
        rmw_read_bytes: to_u32(out.rmw_read_bursts * mag_bytes),
        metadata_miss: out.metadata_miss,
        metadata_dram_bytes: to_u32(out.metadata_fetch_bytes + out.metadata_writeback_bytes),
        ..copy_access(out)
    }
}

/// A host-to-device copy's outcome: copies are not timed.
fn copy_access(out: &mc::WriteOutcome) -> Access {
    Access {
        encoding: out.encoding,
        compressed_bits: to_u32(out.compressed_bits),
        burst_count: to_u32(out.burst_count),
        dram_bytes: to_u32(out.dram_bytes),
        latency_cycles: 0,
        metadata_cycles: 0,
        metadata_miss: false,
        metadata_dram_bytes: 0,
        rmw_read_bytes: 0,
        approximated: out.approximated,
        fills_line: false,
        merged: false,
    }
}

impl Controller {
    fn write_block(&mut self, addr: u64, data: &[u8]) -> Result<Access, String> {
        guard("write_block", || {
            let out = self.inner.write_block(addr, data).map_err(|e| e.to_string())?;
            Ok(self.write_access(&out))
        })
    }

    fn write_block_of(
        &mut self,
        addr: u64,
        global_addr: u64,
        data: &[u8],
        simulation: &Simulation,
        approximated: &mut [u8],
    ) -> Result<Access, String> {
        if !simulation.covers(global_addr, data.len()) {
            return self.write_block(addr, data);
        }
        guard("write_block_of", || {
            let out = self.inner.write_approximable_block(addr, data, approximated).map_err(|e| e.to_string())?;
            Ok(self.write_access(&out))
        })
    }

    fn copy_block_of(
        &mut self,
        addr: u64,
        global_addr: u64,
        data: &[u8],
        simulation: &Simulation,
        approximated: &mut [u8],
    ) -> Result<Access, String> {
        if !simulation.covers(global_addr, data.len()) {
            return self.copy_block(addr, data);
        }
        guard("copy_block_of", || {
            let out = self.inner.memcpy_approximable_block(addr, data, approximated).map_err(|e| e.to_string())?;
            Ok(copy_access(&out))
        })
    }

    fn read_block(&mut self, addr: u64) -> Result<Access, String> {
        guard("read_block", || {
            let out = self.inner.read_block(addr);
            Ok(self.read_access(out))
        })
    }

    fn read_part(&mut self, addr: u64, request_bytes: u32, fetch_in_flight: bool) -> Result<Access, String> {
        guard("read_part", || {
            let request = mc::PartialRequest { request_bytes: request_bytes as usize, whole_units: 0, fetch_in_flight };
            let out = self.inner.read_partial(addr, request);
            Ok(self.read_access(out))
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn write_part_of(
        &mut self,
        addr: u64,
        global_addr: u64,
        request_bytes: u32,
        whole_units: u64,
        data: &[u8],
        simulation: &Simulation,
        approximated: &mut [u8],
    ) -> Result<Access, String> {
        let request = mc::PartialRequest { request_bytes: request_bytes as usize, whole_units, fetch_in_flight: false };
        let approximable = simulation.covers(global_addr, data.len());
        guard("write_part_of", || {
            let out = match approximable {
                true => self.inner.write_partial(addr, request, data, Some(approximated)),
                false => self.inner.write_partial(addr, request, data, None),
            };
            Ok(self.write_access(&out.map_err(|e| e.to_string())?))
        })
    }

    fn note_filled_sectors(&mut self, sectors: u32) {
        self.inner.note_filled_sectors(u64::from(sectors));
    }

    fn count_request(&mut self, kind: &str, bytes: u32) {
        self.inner.count_request(kind, bytes as usize);
    }

    fn read_access(&self, out: mc::ReadOutcome) -> Access {
        Access {
            encoding: out.encoding,
            compressed_bits: to_u32(out.burst_count * self.inner.geometry().mag_bytes() * 8),
            burst_count: to_u32(out.burst_count),
            dram_bytes: to_u32(out.dram_bytes),
            latency_cycles: out.decompress_cycles,
            metadata_cycles: out.metadata_cycles,
            metadata_miss: out.metadata_miss,
            metadata_dram_bytes: to_u32(out.metadata_fetch_bytes + out.metadata_writeback_bytes),
            rmw_read_bytes: 0,
            approximated: false,
            fills_line: out.fills_line,
            merged: out.merged,
        }
    }

    /// What a write tells the simulator (see [`write_access`]).
    fn write_access(&self, out: &mc::WriteOutcome) -> Access {
        write_access(out, self.inner.geometry().mag_bytes())
    }

    fn copy_block(&mut self, addr: u64, data: &[u8]) -> Result<Access, String> {
        guard("copy_block", || {
            let out = self.inner.memcpy_block(addr, data).map_err(|e| e.to_string())?;
            Ok(copy_access(&out))
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
        unissued_bursts: u64,
    ) {
        self.0.dram_device =
            mc::DramDeviceStats { cycles, busy_cycles, activations, read_commands, write_commands, unissued_bursts };
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

    fn simulation(f: impl FnOnce(&mut flags::Options)) -> Result<Simulation, String> {
        let mut options = flags::defaults();
        f(&mut options);
        Simulation::new(&options)
    }

    fn facts() -> SimulatorFacts {
        SimulatorFacts {
            simple_dram_model: false,
            l2_disabled: false,
            l2_line_bytes: 128,
            l2_atom_bytes: 128,
            dram_atom_bytes: 32,
            channel_bits_in_block: false,
        }
    }

    /// The unit tests write E2MC table files; they leave none in the system's
    /// temp folder (`std::env::temp_dir`, `$TMPDIR`): every other unit test of
    /// this crate runs in a child process whose `$TMPDIR` is an empty folder,
    /// which must be empty afterwards.
    #[test]
    fn unit_tests_leave_nothing_in_the_temp_folder() {
        const NAME: &str = "unit_tests_leave_nothing_in_the_temp_folder";
        const CHILD: &str = "MEMZIP_FFI_TEMP_CHECK_CHILD";
        if std::env::var_os(CHILD).is_some() {
            return;
        }
        let tmp = tempfile::tempdir().unwrap();
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--quiet", "--skip", NAME])
            .env("TMPDIR", tmp.path())
            .env(CHILD, "1")
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
        let left: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert!(left.is_empty(), "the unit tests left {left:?} in the temp folder");
    }

    #[test]
    fn guard_turns_panics_into_errors() {
        let err = guard("test", || -> Result<(), String> { panic!("boom") }).unwrap_err();
        assert_eq!(err, "memzip internal error in test: boom");
        assert_eq!(guard("test", || Ok(3)), Ok(3));
    }

    #[test]
    fn the_flags_registered_are_the_flags_read() {
        let values: Vec<String> = option_flags().into_iter().map(|f| f.default_value).collect();
        let sim = resolve_options(&values).unwrap();
        let settings = sim.settings();
        assert!(!settings.compresses && settings.codec == "none");
        assert_eq!((settings.block_bytes, settings.mag_bytes, settings.latency_mhz), (128, 32, 1002));
        let mut bad = values.clone();
        bad[0] = "zip".into();
        let err = resolve_options(&bad).err().unwrap();
        assert!(err.starts_with("-memzip_codec: invalid codec 'zip': expected one of none, bdi"), "{err}");
    }

    #[test]
    fn controller_round_trip_through_the_bridge_functions() {
        let mut sim = simulation(|o| {
            o.codec = "mag_bdi".into();
            o.verify = true;
        })
        .unwrap();
        let mut controller = sim.new_controller().unwrap();
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
        total.merge(&sim.new_controller().unwrap().stats());
        assert!(total.to_json().contains("\"controllers\": 2"));
        assert!(total.to_text("memzip_total").contains("memzip_total_blocks_written = 1"));
        assert!(
            total.to_text("memzip_total").contains("memzip_total_verify_checked = 1"),
            "{}",
            total.to_text("memzip_total")
        );
    }

    #[test]
    fn every_partition_gets_a_fresh_controller() {
        let mut sim = simulation(|o| o.codec = "e2mc16".into()).unwrap();
        let mut first = sim.new_controller().unwrap();
        let block: Vec<u8> = (0..32u32).flat_map(|i| (i % 3).to_le_bytes()).collect();
        first.write_block(0, &block).unwrap();
        let second = sim.new_controller().unwrap();
        assert_eq!(second.stats().0.writes.blocks, 0, "nothing of the first controller's traffic");
        assert_eq!((first.sampling_instructions(), second.sampling_instructions()), (20_000_000, 20_000_000));
    }

    #[test]
    fn energy_flags_reach_the_controller() {
        let mut options = flags::defaults();
        options.codec = "mag_bdi".into();
        options.energy[8] = 1.0; // DRAM read: 1 pJ per bit, 256 pJ per 32-byte burst
        options.energy[10] = 100.0; // activation
        let mut controller = Simulation::new(&options).unwrap().new_controller().unwrap();
        controller.read_block(0x1000).unwrap(); // never written: 4 bursts, MDC miss fills a 32-byte line
        let mut total = new_stats();
        total.merge(&controller.stats());
        total.set_dram_counters(1000, 10, 2, 0, 0, 0);
        total.set_simulated_time(822, 822e6);
        let json = total.to_json();
        for field in ["\"dram_read_pj\": 1280.0", "\"dram_activation_pj\": 200.0", "\"simulated_seconds\": 1e-6"] {
            assert!(json.contains(field), "{field} in {json}");
        }
        options.energy[1] = f64::INFINITY;
        let err = Simulation::new(&options).err().unwrap();
        assert!(err.starts_with("-memzip_energy_bdi_pj: invalid value 'inf'"), "{err}");
    }

    #[test]
    fn bad_codec_is_one_line_naming_the_flag() {
        let err = simulation(|o| o.codec = "zip".into()).err().unwrap();
        assert!(err.starts_with("-memzip_codec: invalid codec 'zip': expected one of none, bdi"), "{err}");
        let err = simulation(|o| {
            o.codec = "mag_bdi".into();
            o.mdc_assoc = 3;
        })
        .err()
        .unwrap();
        assert!(
            err.starts_with("-memzip_mdc_assoc: invalid mdc_assoc '3': expected a divisor of the 512 lines"),
            "{err}"
        );
    }

    #[test]
    fn the_simulator_is_checked_where_a_codec_compresses() {
        let none = simulation(|_| {}).unwrap();
        let simple = SimulatorFacts { simple_dram_model: true, l2_line_bytes: 64, dram_atom_bytes: 64, ..facts() };
        assert_eq!(none.check_simulator(&simple).unwrap(), Vec::<String>::new(), "none changes nothing");
        let bdi = simulation(|o| o.codec = "bdi".into()).unwrap();
        assert!(bdi.check_simulator(&simple).unwrap_err().contains("-gpgpu_simple_dram_model 0"));
        let err = bdi.check_simulator(&SimulatorFacts { l2_line_bytes: 64, ..facts() }).unwrap_err();
        assert!(err.starts_with("-memzip_block_bytes 128: the L2 moves 64-byte lines"), "{err}");
        assert_eq!(bdi.check_simulator(&facts()).unwrap(), Vec::<String>::new());
        let notes = bdi
            .check_simulator(&SimulatorFacts {
                l2_atom_bytes: 32,
                dram_atom_bytes: 64,
                channel_bits_in_block: true,
                ..facts()
            })
            .unwrap();
        assert_eq!(notes.len(), 3, "{notes:?}");
        assert!(notes[0].starts_with("channel bits inside a 128-byte block"));
        assert!(notes[2].starts_with("DRAM atom 64 B != -memzip_mag_bytes 32 B"));
    }

    #[test]
    fn filling_sectors_needs_a_sectored_l2() {
        let fill = simulation(|o| {
            o.codec = "bdi".into();
            o.partial_reads = "fill".into();
        })
        .unwrap();
        let err = fill.check_simulator(&facts()).unwrap_err();
        assert!(err.starts_with("-memzip_partial_reads fill: this L2 reads whole 128-byte lines"), "{err}");
        let sectored = SimulatorFacts { l2_atom_bytes: 32, ..facts() };
        let notes = fill.check_simulator(&sectored).unwrap();
        assert!(notes[0].contains("(-memzip_partial_reads fill)"), "{notes:?}");
    }
}
