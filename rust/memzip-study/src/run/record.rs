//! `sweep.json`: what a finished run of a sweep is (its benchmark, preset,
//! codec string, option lines, simulator and timing model), written into its
//! run directory. The report tells variants apart by it, and a later sweep
//! (`--reuse`) finds runs of the same configuration by it.

use std::fs;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::RunError;
use crate::gpu::Gpu;

/// What a finished run is, written as `sweep.json` into its directory: the
/// report tells variants apart by it, and a later sweep (`--reuse`) finds
/// runs of the same configuration by it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunRecord {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// A benchmark run's benchmark and preset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub benchmark: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset: Option<String>,
    /// A command-line run's id prefix (its argv holds this machine's paths).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program: Option<String>,
    pub codec: String,
    pub options: Vec<String>,
    /// The GPU simulated; records without it ran the GTX580.
    #[serde(default, skip_serializing_if = "Gpu::is_default")]
    pub gpu: Gpu,
    /// The simulator the runner used: the gpgpu-sim version
    /// (`MEMZIP_GPGPUSIM_VERSION`, default dev) or `mgpusim`.
    pub simulator: String,
    /// The revision of memzip's timing in the simulator the run was made
    /// with ([`TIMING_MODEL`]); records written before there were revisions
    /// lack the field and are revision 1.
    #[serde(default = "first_timing_model")]
    pub timing_model: u32,
    /// `<results dir>/<id>` of the run this one is a copy of (`--reuse`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reused_from: Option<String>,
}

/// memzip's timing model in the simulator (the hooks in `cpp_shim` and the
/// controller's latencies), raised whenever a change alters what a codec run
/// simulates, so that `--reuse` does not copy runs of an older model:
/// 1. a request's added cycles (compression of writes, metadata of reads)
///    were appended to gpgpu-sim's DRAM latency queue, which is popped only
///    from its front: a compressing write held up every later request;
/// 2. that queue, and the replies' decompression queue, keep ready-cycle
///    order (`memzip_latency_queue_insert`): stores and raw replies no
///    longer wait behind compressions and decompressions.
pub const TIMING_MODEL: u32 = 2;

fn first_timing_model() -> u32 {
    1
}

/// The option that only records the blocks: runs that differ in it alone
/// simulate the same.
const TRACE_OPTION: &str = "-memzip_trace ";

impl RunRecord {
    /// Whether a run of `other` simulates exactly what a run of `self` would:
    /// the same benchmark, preset, codec string, GPU, simulator and option
    /// lines in order, less `-memzip_trace`, and the same timing model, except for
    /// `none`, to which memzip adds no cycles in any revision (tests/sim:
    /// none equals the unpatched simulator). Only benchmark runs (a command
    /// line's record does not hold the command).
    pub fn same_configuration(&self, other: &RunRecord) -> bool {
        let simulated = |r: &RunRecord| -> Vec<String> {
            r.options.iter().filter(|line| !line.starts_with(TRACE_OPTION)).cloned().collect()
        };
        self.benchmark.is_some()
            && self.benchmark == other.benchmark
            && self.preset == other.preset
            && self.codec == other.codec
            && self.gpu == other.gpu
            && self.simulator == other.simulator
            && (self.timing_model == other.timing_model || !self.is_timed_by_memzip())
            && simulated(self) == simulated(other)
    }

    /// A codec run made with an older timing model than this memzip's: its
    /// cycles do not compare with current runs' (a `none` run's do).
    pub fn is_superseded(&self) -> bool {
        self.is_timed_by_memzip() && self.timing_model < TIMING_MODEL
    }

    /// Whether memzip adds cycles to this run: not to `none`, under any
    /// timing model (tests/sim: none equals the unpatched simulator).
    fn is_timed_by_memzip(&self) -> bool {
        self.codec != "none"
    }

    pub fn write(&self, dir: &Path) -> Result<(), String> {
        let path = dir.join(RECORD_FILE);
        let text = serde_json::to_string_pretty(self).map_err(|e| format!("{}: {e}", path.display()))?;
        fs::write(&path, text + "\n").map_err(|e| format!("{}: {e}", path.display()))
    }

    /// The record of the run in `dir`, if it has one.
    pub fn read(dir: &Path) -> Result<Option<Self>, RunError> {
        let path = dir.join(RECORD_FILE);
        if !path.is_file() {
            return Ok(None);
        }
        let text = fs::read_to_string(&path).map_err(|e| RunError::io(format!("{}: {e}", path.display()), e))?;
        serde_json::from_str(&text).map(Some).map_err(|e| RunError::malformed(format!("{}: {e}", path.display())))
    }
}

/// The file of a run directory that holds its [`RunRecord`].
pub const RECORD_FILE: &str = "sweep.json";
