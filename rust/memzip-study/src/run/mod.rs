//! A run directory: what one simulation of one program with one codec left
//! behind, and the one place that reads it.
//!
//! A run directory holds
//! - `stats.json`, written by the simulator's `-memzip_stats_json`:
//!   `{"total": <McStats JSON>, "controllers": [...]}` (see
//!   `memzip::mc::stats`); only `total` is read;
//! - `sim.log`, the simulator's stdout; the last `gpu_tot_sim_cycle = N`
//!   line is the run's cycle count (gpgpu-sim prints the running total after
//!   every kernel);
//! - optionally `run.json`, `{"codec", "program", "wall_seconds",
//!   "output_ok", ...}` from the runner script, every field optional; a run
//!   committed without its large `sim.log` keeps its cycles there;
//! - optionally `sweep.json` ([`RunRecord`]), when a sweep made it;
//! - optionally the simulator's power model report ([`crate::power`]).
//!
//! A multi-GPU run (`memzip-mgpu`, mgpusim-plugin/) compresses the fabric
//! between GPUs instead of DRAM: its `stats.json` has `link` and `fabric`
//! in place of `total` ([`link`]), and the run's traffic is fabric bytes.
//!
//! Energy is `total.energy` (memzip's model: DRAM, codec and metadata cache,
//! `memzip::mc::energy`), absent in stats of older builds; EDP is that energy
//! times `cycles / total.energy.core_hz`. With the simulator's power model on
//! (`scripts/sim-run.sh --power`) the run also has whole-GPU energy: the power
//! model's energy plus memzip's codec and metadata-cache energy ("GPU
//! total").

mod link;
mod record;

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

pub use record::{RunRecord, RECORD_FILE, TIMING_MODEL};

use crate::power::{self, GpuEnergy};
use crate::sim_log::{kernel_cycles, last_total_cycles};

/// What a run directory holds: its stats, its run.json, its sweep record
/// and, with the power model on, whole-GPU energy.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    pub dir: String,
    /// From `run.json`; `None` groups the run with the others that have none.
    pub program: Option<String>,
    /// The label shown: `run.json`'s codec, else the stats' codec, then the
    /// sweep's variant in brackets when its `sweep.json` names one
    /// (`mag_bdi [mdc4k]`: runs of one codec with other controller options).
    pub label: String,
    /// The codec the simulator reports in `stats.json`.
    pub stats_codec: String,
    pub cycles: u64,
    /// What the codec compresses: DRAM (gpgpu-sim) or the fabric between
    /// GPUs (MGPUSim); it names what `dram_bytes` counts.
    pub medium: Medium,
    /// Kernel DRAM bytes, metadata traffic included; for a fabric run, the
    /// bytes that crossed the fabric.
    pub dram_bytes: u64,
    pub raw_cr: Option<f64>,
    pub effective_cr: Option<f64>,
    pub mdc_hit_rate: Option<f64>,
    /// DRAM data-bus busy cycles over DRAM cycles, averaged over channels
    /// (the simulator's own counters; absent in stats of older builds).
    pub dram_utilization: Option<f64>,
    pub verify_checked: u64,
    pub verify_failures: u64,
    pub output_ok: Option<bool>,
    pub wall_seconds: Option<f64>,
    /// The timing model the run was simulated under, from its `sweep.json`
    /// ([`TIMING_MODEL`]); `None` for a run made outside a sweep.
    pub timing_model: Option<u32>,
    /// The hash of the sources its simulator was built from (`run.json`'s
    /// `simulator_sources`, scripts/lib.sh); `None` for runs before it was recorded.
    pub simulator_sources: Option<String>,
    /// Energy by component, when the stats carry it.
    pub energy: Option<RunEnergy>,
    /// Whole-GPU energy from the simulator's power model, when it was on.
    pub gpu_power: Option<GpuEnergy>,
    /// Blocks per stored size in bytes at the MAG, write-backs and copies
    /// together (`total.{writes,memcpy}.mag_sizes`); empty in stats without it.
    pub stored_sizes: BTreeMap<u64, u64>,
}

/// What a run's codec compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Medium {
    #[default]
    Dram,
    /// The fabric between GPUs.
    Fabric,
}

impl Medium {
    /// The word tables use for it.
    pub fn name(self) -> &'static str {
        match self {
            Medium::Dram => "DRAM",
            Medium::Fabric => "fabric",
        }
    }
}

/// A run's energy (pJ) by component, from `total.energy` of `stats.json`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunEnergy {
    pub total_pj: f64,
    pub dram_pj: f64,
    pub codec_pj: f64,
    pub metadata_pj: f64,
    /// Core clock (Hz) the cycles count; `None` when unknown.
    pub core_hz: Option<f64>,
}

impl Run {
    /// Energy-delay product in joule-seconds: total energy x simulated time.
    pub fn edp_js(&self) -> Option<f64> {
        let energy = self.energy?;
        let hz = energy.core_hz.filter(|hz| *hz > 0.0)?;
        Some(energy.total_pj * 1e-12 * self.cycles as f64 / hz)
    }

    /// Whole-GPU energy (pJ): the power model's, plus memzip's codec and
    /// metadata-cache energy (not in the simulator's model; memzip's DRAM
    /// energy is, as the power model counts the simulator's DRAM bursts).
    pub fn gpu_total_pj(&self) -> Option<f64> {
        let gpu = self.gpu_power.as_ref()?;
        let memzip_pj = self.energy.map_or(0.0, |e| e.codec_pj + e.metadata_pj);
        Some(gpu.gpu_pj + memzip_pj)
    }

    /// Whole-GPU energy-delay product in joule-seconds.
    pub fn gpu_edp_js(&self) -> Option<f64> {
        let hz = self.energy?.core_hz.filter(|hz| *hz > 0.0)?;
        Some(self.gpu_total_pj()? * 1e-12 * self.cycles as f64 / hz)
    }

    /// Whether this is a `none` run (the baseline its program's others are
    /// compared with).
    pub fn is_baseline(&self) -> bool {
        self.stats_codec == "none"
    }
}

fn read_json(path: &Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: not valid JSON: {e}", path.display()))
}

/// The value at a `.`-separated key path, or an error naming file and key.
fn field<'a>(value: &'a Value, key: &str, file: &Path) -> Result<&'a Value, String> {
    key.split('.')
        .try_fold(value, |v, part| v.get(part))
        .ok_or_else(|| format!("{}: missing field `{key}`", file.display()))
}

fn u64_field(value: &Value, key: &str, file: &Path) -> Result<u64, String> {
    field(value, key, file)?.as_u64().ok_or_else(|| not_a_count(key, file))
}

fn not_a_count(key: &str, file: &Path) -> String {
    format!("{}: field `{key}` is not a non-negative integer", file.display())
}

/// A ratio the stats write as a number or `null` (no data).
fn ratio_field(value: &Value, key: &str, file: &Path) -> Result<Option<f64>, String> {
    match field(value, key, file)? {
        Value::Null => Ok(None),
        v => v.as_f64().map(Some).ok_or_else(|| format!("{}: field `{key}` is not a number or null", file.display())),
    }
}

fn optional<'a, T>(
    value: &'a Value,
    key: &str,
    file: &Path,
    convert: impl Fn(&'a Value) -> Option<T>,
    expected: &str,
) -> Result<Option<T>, String> {
    match value.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => convert(v).map(Some).ok_or_else(|| format!("{}: field `{key}` is not {expected}", file.display())),
    }
}

/// A value the simulator's log of a run gives: from `sim.log` when the run
/// directory has it, else `run.json`'s `key` (scripts/collect-runs.sh keeps it
/// there for a run committed without its large log); `what` names the value
/// in the error.
fn from_log_or_run_json<T>(
    dir: &Path,
    key: &str,
    what: &str,
    from_log: impl FnOnce(&Path) -> Result<T, String>,
    from_json: impl FnOnce(&Value) -> Option<T>,
) -> Result<T, String> {
    let log = dir.join("sim.log");
    let run_path = dir.join("run.json");
    if log.exists() || !run_path.exists() {
        return from_log(&log);
    }
    from_json(&read_json(&run_path)?[key]).ok_or_else(|| {
        format!("{}: no sim.log next to it and no \"{key}\" ({what}) in {}", dir.display(), run_path.display())
    })
}

/// What the runner script's `run.json` says of a run; every field is
/// optional, as is the file.
#[derive(Default)]
struct RunJson {
    program: Option<String>,
    codec: Option<String>,
    output_ok: Option<bool>,
    wall_seconds: Option<f64>,
    simulator_sources: Option<String>,
}

impl RunJson {
    fn read(dir: &Path) -> Result<Self, String> {
        let path = dir.join("run.json");
        if !path.exists() {
            return Ok(Self::default());
        }
        let run = read_json(&path)?;
        if !run.is_object() {
            return Err(format!("{}: not a JSON object", path.display()));
        }
        let text = |v: &Value| v.as_str().map(str::to_string);
        Ok(Self {
            program: optional(&run, "program", &path, text, "a string")?,
            codec: optional(&run, "codec", &path, text, "a string")?,
            output_ok: optional(&run, "output_ok", &path, Value::as_bool, "true or false")?,
            wall_seconds: optional(&run, "wall_seconds", &path, Value::as_f64, "a number")?,
            simulator_sources: optional(&run, "simulator_sources", &path, text, "a string")?,
        })
    }
}

/// Reads one run directory.
pub fn load_run(dir: &Path) -> Result<Run, String> {
    if !dir.is_dir() {
        return Err(format!("{}: not a run directory", dir.display()));
    }
    let stats_path = dir.join("stats.json");
    let stats = read_json(&stats_path)?;
    if link::is_link_stats(&stats) {
        return link::load(dir, &stats, &stats_path);
    }
    let total = field(&stats, "total", &stats_path)?;
    if !total.is_object() {
        return Err(format!("{}: field `total` is not an object", stats_path.display()));
    }
    let stats_codec = field(&stats, "total.codec", &stats_path)?
        .as_str()
        .ok_or_else(|| format!("{}: field `total.codec` is not a string", stats_path.display()))?
        .to_string();
    let dram_bytes = u64_field(&stats, "total.dram_bytes", &stats_path)?;
    let raw_cr = ratio_field(&stats, "total.raw_compression_ratio", &stats_path)?;
    let effective_cr = ratio_field(&stats, "total.effective_compression_ratio", &stats_path)?;
    let mdc_hit_rate = ratio_field(&stats, "total.metadata_cache.hit_rate", &stats_path)?;
    let dram_utilization = optional(total, "dram_bandwidth_utilization", &stats_path, Value::as_f64, "a number")?;
    let verify_checked = u64_field(&stats, "total.verify.checked", &stats_path)?;
    let verify_failures = u64_field(&stats, "total.verify.failures", &stats_path)?;
    let stored_sizes = stored_sizes(total, &stats_path)?;

    let cycles = from_log_or_run_json(dir, "cycles", "a count", last_total_cycles, Value::as_u64)?;
    let energy = run_energy(&stats, &stats_path)?;
    let gpu_power = gpu_power(dir, energy.and_then(|e| e.core_hz))?;

    let RunJson { program, codec, output_ok, wall_seconds, simulator_sources } = RunJson::read(dir)?;
    let mut label = codec.unwrap_or_else(|| stats_codec.clone());
    let record = RunRecord::read(dir)?;
    if let Some(variant) = record.as_ref().and_then(|record| record.variant.as_ref()) {
        label = format!("{label} [{variant}]");
    }
    // A codec run of an older timing model is not comparable with today's
    // (`memzip report` leaves it out): say so where it is shown.
    if let Some(record) = record.as_ref().filter(|record| record.is_superseded()) {
        label = format!("{label} (timing model {})", record.timing_model);
    }
    let timing_model = record.map(|record| record.timing_model);
    Ok(Run {
        dir: dir.display().to_string(),
        program,
        label,
        stats_codec,
        cycles,
        medium: Medium::Dram,
        dram_bytes,
        raw_cr,
        effective_cr,
        mdc_hit_rate,
        dram_utilization,
        verify_checked,
        verify_failures,
        output_ok,
        wall_seconds,
        timing_model,
        simulator_sources,
        energy,
        gpu_power,
        stored_sizes,
    })
}

/// Blocks per stored size, summed over `writes` and `memcpy` of `total`.
fn stored_sizes(total: &Value, file: &Path) -> Result<BTreeMap<u64, u64>, String> {
    let mut sizes = BTreeMap::new();
    for part in ["writes", "memcpy"] {
        let Some(map) = total.get(part).and_then(|p| p.get("mag_sizes")).and_then(Value::as_object) else {
            continue;
        };
        for (size_key, count) in map {
            let key = || format!("total.{part}.mag_sizes.{size_key}");
            let size: u64 =
                size_key.parse().map_err(|_| format!("{}: `{}` is not a size in bytes", file.display(), key()))?;
            let count = count.as_u64().ok_or_else(|| not_a_count(&key(), file))?;
            *sizes.entry(size).or_insert(0) += count;
        }
    }
    Ok(sizes)
}

/// `total.energy`, or `None` for stats written before memzip had an energy model.
fn run_energy(stats: &Value, file: &Path) -> Result<Option<RunEnergy>, String> {
    let Some(energy) = stats.get("total").and_then(|t| t.get("energy")) else {
        return Ok(None);
    };
    let number = |key: &str| -> Result<f64, String> {
        field(energy, key, file)?
            .as_f64()
            .ok_or_else(|| format!("{}: field `total.energy.{key}` is not a number", file.display()))
    };
    Ok(Some(RunEnergy {
        total_pj: number("total_pj")?,
        dram_pj: number("dram_pj")?,
        codec_pj: number("codec_pj")?,
        metadata_pj: number("metadata_pj")?,
        core_hz: energy.get("core_hz").and_then(Value::as_f64),
    }))
}

/// The run directory's whole-GPU energy, or `None` without a power report.
fn gpu_power(dir: &Path, core_hz: Option<f64>) -> Result<Option<GpuEnergy>, String> {
    let Some((model, report)) = power::find_report(dir)? else {
        return Ok(None);
    };
    let text = std::fs::read_to_string(&report).map_err(|e| format!("{}: cannot read: {e}", report.display()))?;
    let kernels = power::parse_report(&text, &report)?;
    let cycles = from_log_or_run_json(dir, "kernel_cycles", "counts", kernel_cycles, |v| {
        v.as_array()?.iter().map(serde_json::Value::as_u64).collect()
    })?;
    let core_hz = core_hz.ok_or_else(|| {
        format!("{}: no core clock (`total.energy.core_hz` of stats.json) to turn power into energy", dir.display())
    })?;
    power::gpu_energy(model, report, &kernels, &cycles, core_hz).map(Some)
}

/// `memzip power`'s JSON of one run: the power model's energy by component,
/// memzip's codec and metadata-cache energy added to it, and the EDP.
pub fn power_summary(run: &Run) -> Result<serde_json::Value, String> {
    let gpu = run.gpu_power.as_ref().ok_or_else(|| {
        format!("{}: no power report (run with scripts/sim-run.sh --power or MEMZIP_POWER=1)", run.dir)
    })?;
    let components: serde_json::Map<String, serde_json::Value> =
        gpu.components_pj.iter().map(|(label, pj)| (label.clone(), (*pj).into())).collect();
    Ok(serde_json::json!({
        "dir": run.dir,
        "program": run.program,
        "codec": run.label,
        "model": gpu.model.name(),
        "report": gpu.report.display().to_string(),
        "kernels": gpu.kernels,
        "unsampled_kernels": gpu.unsampled_kernels,
        "cycles": run.cycles,
        "core_hz": run.energy.and_then(|e| e.core_hz),
        "gpu_energy_pj": gpu.gpu_pj,
        "gpu_dram_energy_pj": gpu.dram_pj,
        "components_pj": components,
        "max_printed_total_mismatch_w": gpu.max_printed_total_mismatch_w,
        "memzip_codec_pj": run.energy.map(|e| e.codec_pj),
        "memzip_metadata_pj": run.energy.map(|e| e.metadata_pj),
        "total_energy_pj": run.gpu_total_pj(),
        "edp_js": run.gpu_edp_js(),
    }))
}

/// A run directory a sweep finished (not `.tmp-*`, not `*.failed`).
pub fn is_finished_run(path: &Path) -> bool {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    path.is_dir() && !name.starts_with('.') && !name.ends_with(".failed")
}
