//! A run directory: what one simulation of one program with one codec left
//! behind, and the one place that reads it.
//!
//! A run directory holds
//! - `stats.json`, written by the simulator's `-memzip_stats_json`:
//!   `{"total": <McStats JSON>, "controllers": [...]}` (see
//!   `memzip::mc::stats`); only `total` is read;
//! - `sim.log`, the simulator's stdout; the last `gpu_tot_sim_cycle = N`
//!   line is the run's cycle count (gpgpu-sim prints the running total after
//!   every kernel), and it gives the kernels launched, each kernel's DRAM
//!   work, tRRD and the memory-wait counters
//!   ([`crate::sim_log::kernel_summary`]);
//! - optionally `run.json`, `{"codec", "program", "wall_seconds",
//!   "output_ok", ...}` ([`RunJson`], written by `memzip run`), every field optional; a run
//!   committed without its large `sim.log` keeps its cycles there; a
//!   benchmark run that marks approximable data adds `output_error`
//!   ([`crate::output_error`]);
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
//! (`memzip run --power`) the run also has whole-GPU energy: the power
//! model's energy plus memzip's codec and metadata-cache energy ("GPU
//! total").

mod fields;
mod link;
mod marks;
mod model;
mod record;
mod run_json;

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

pub use marks::missed_model_change;
pub use model::{Medium, PartialCounters, Run, RunEnergy};
pub use record::{RunRecord, RECORD_FILE, TIMING_MODEL};
pub use run_json::RunJson;

use fields::{field, not_a, not_a_count, optional, ratio_field, read_json, u64_field};

use crate::bounds::DramCounters;
pub use crate::error::RunError;
use crate::power::{self, GpuEnergy};
use crate::sim_log::{kernel_cycles, kernel_summary, last_total_cycles, rrd_of_timing_option, KernelDram, MemoryWait};

/// A value the simulator's log of a run gives: from `sim.log` when the run
/// directory has it, else `run.json`'s `key` (scripts/collect-runs.sh keeps it
/// there for a run committed without its large log); `what` names the value
/// in the error.
fn from_log_or_run_json<T>(
    dir: &Path,
    key: &str,
    what: &str,
    from_log: impl FnOnce(&Path) -> Result<T, RunError>,
    from_json: impl FnOnce(&Value) -> Option<T>,
) -> Result<T, RunError> {
    let log = dir.join("sim.log");
    let run_path = dir.join("run.json");
    if log.exists() || !run_path.exists() {
        return from_log(&log);
    }
    from_json(&read_json(&run_path)?[key]).ok_or_else(|| {
        RunError::missing(format!(
            "{}: no sim.log next to it and no \"{key}\" ({what}) in {}",
            dir.display(),
            run_path.display()
        ))
    })
}

/// `total.dram_device` of the stats, or `None` for stats written before it.
fn dram_counters(total: &Value, file: &Path) -> Result<Option<DramCounters>, RunError> {
    let Some(device) = total.get("dram_device") else {
        return Ok(None);
    };
    let count = |key: &str| -> Result<u64, RunError> {
        device.get(key).and_then(Value::as_u64).ok_or_else(|| not_a_count(&format!("total.dram_device.{key}"), file))
    };
    Ok(Some(DramCounters {
        cycles: count("cycles")?,
        busy_cycles: count("busy_cycles")?,
        activations: count("activations")?,
        commands: count("read_commands")? + count("write_commands")?,
    }))
}

/// `total.partial` of the stats, or `None` for stats written before it.
fn partial_counters(total: &Value, file: &Path) -> Result<Option<PartialCounters>, RunError> {
    let Some(partial) = total.get("partial") else {
        return Ok(None);
    };
    let count = |key: &str| -> Result<u64, RunError> {
        partial.get(key).and_then(Value::as_u64).ok_or_else(|| not_a_count(&format!("total.partial.{key}"), file))
    };
    Ok(Some(PartialCounters {
        reads: count("reads")?,
        compressed_reads: count("compressed_reads")?,
        overfetch_bursts: count("overfetch_bursts")?,
        writes: count("writes")?,
        rmw_reads: count("rmw_reads")?,
        rmw_read_bursts: count("rmw_read_bursts")?,
        rmw_read_bytes: count("rmw_read_bytes")?,
        raw_fallbacks: count("raw_fallbacks")?,
        // Counted since the QV100 grid; stats before them have none: 0, and
        // the report names refetches only where some were counted.
        refetches: partial.get("refetches").map_or(Ok(0), |_| count("refetches"))?,
        refetch_bursts: partial.get("refetch_bursts").map_or(Ok(0), |_| count("refetch_bursts"))?,
        // Counted since -memzip_partial_reads exists; before, every read was `sector`.
        filled_sectors: partial.get("filled_sectors").map_or(Ok(0), |_| count("filled_sectors"))?,
        merged_reads: partial.get("merged_reads").map_or(Ok(0), |_| count("merged_reads"))?,
    }))
}

/// Reads one run directory.
pub fn load_run(dir: &Path) -> Result<Run, RunError> {
    if !dir.is_dir() {
        return Err(RunError::NotARun { message: format!("{}: not a run directory", dir.display()) });
    }
    let stats_path = dir.join("stats.json");
    let stats = read_json(&stats_path)?;
    if link::is_link_stats(&stats) {
        let mut run = link::load(dir, &stats, &stats_path)?;
        run.model_change = RunRecord::read(dir)?.and_then(|record| missed_model_change(dir, &record));
        return Ok(run);
    }
    let total = field(&stats, "total", &stats_path)?;
    if !total.is_object() {
        return Err(not_a("total", "an object", &stats_path));
    }
    let stats_codec = field(&stats, "total.codec", &stats_path)?
        .as_str()
        .ok_or_else(|| not_a("total.codec", "a string", &stats_path))?
        .to_string();
    let dram_bytes = u64_field(&stats, "total.dram_bytes", &stats_path)?;
    let raw_cr = ratio_field(&stats, "total.raw_compression_ratio", &stats_path)?;
    let effective_cr = ratio_field(&stats, "total.effective_compression_ratio", &stats_path)?;
    let mdc_hit_rate = ratio_field(&stats, "total.metadata_cache.hit_rate", &stats_path)?;
    let dram_utilization = optional(total, "dram_bandwidth_utilization", &stats_path, Value::as_f64, "a number")?;
    let verify_checked = u64_field(&stats, "total.verify.checked", &stats_path)?;
    let verify_failures = u64_field(&stats, "total.verify.failures", &stats_path)?;
    let stored_sizes = stored_sizes(total, &stats_path)?;
    let dram = dram_counters(total, &stats_path)?;
    let partial = partial_counters(total, &stats_path)?;

    let cycles = from_log_or_run_json(dir, "cycles", "a count", last_total_cycles, Value::as_u64)?;
    let energy = run_energy(&stats, &stats_path)?;
    let gpu_power = gpu_power(dir, energy.and_then(|e| e.core_hz))?;

    let RunJson {
        program,
        codec,
        output_ok,
        wall_seconds,
        simulator,
        simulator_sources,
        gpu,
        kernel_launches,
        kernel_dram,
        dram_rrd,
        fetch_latency_cycles,
        dram_full_stalls,
        reply_latency_cycles,
        reply_stalls,
        ..
    } = RunJson::read(dir)?;
    // The log's kernels when the directory has it, else what run.json kept of them.
    let log = dir.join("sim.log");
    let (kernel_launches, kernel_dram, rrd_cycles, memory_wait) = if log.is_file() {
        // A log that names no kernel (a test's stub) says nothing of them.
        let summary = kernel_summary(&log)?;
        let kernel_dram = (!summary.kernel_dram.is_empty()).then_some(summary.kernel_dram);
        let launches = (summary.kernel_launches > 0).then_some(summary.kernel_launches);
        (launches, kernel_dram, summary.rrd_cycles, summary.memory_wait)
    } else {
        let kernel_dram = kernel_dram.map(|kernels| {
            kernels.iter().map(|&[dram_cycles, commands]| KernelDram { dram_cycles, commands }).collect()
        });
        let wait = MemoryWait { fetch_latency_cycles, dram_full_stalls, reply_latency_cycles, reply_stalls };
        (kernel_launches, kernel_dram, dram_rrd, wait)
    };
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
    let rrd_cycles = rrd_cycles.or_else(|| {
        let options = record.as_ref().map(|record| record.options.as_slice()).unwrap_or_default();
        options.iter().find_map(|line| line.strip_prefix("-gpgpu_dram_timing_opt").and_then(rrd_of_timing_option))
    });
    let model_change = record.as_ref().and_then(|record| missed_model_change(dir, record));
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
        simulator,
        gpu: gpu.unwrap_or_default(),
        energy,
        gpu_power,
        stored_sizes,
        dram,
        partial,
        kernel_launches,
        kernel_dram,
        rrd_cycles,
        memory_wait,
        output_error: output_error_of(dir)?,
        model_change,
    })
}

/// Blocks per stored size, summed over `writes` and `memcpy` of `total`.
fn stored_sizes(total: &Value, file: &Path) -> Result<BTreeMap<u64, u64>, RunError> {
    let mut sizes = BTreeMap::new();
    for part in ["writes", "memcpy"] {
        let Some(map) = total.get(part).and_then(|p| p.get("mag_sizes")).and_then(Value::as_object) else {
            continue;
        };
        for (size_key, count) in map {
            let key = || format!("total.{part}.mag_sizes.{size_key}");
            let size: u64 = size_key
                .parse()
                .map_err(|_| RunError::malformed(format!("{}: `{}` is not a size in bytes", file.display(), key())))?;
            let count = count.as_u64().ok_or_else(|| not_a_count(&key(), file))?;
            *sizes.entry(size).or_insert(0) += count;
        }
    }
    Ok(sizes)
}

/// `total.energy`, or `None` for stats written before memzip had an energy model.
fn run_energy(stats: &Value, file: &Path) -> Result<Option<RunEnergy>, RunError> {
    let Some(energy) = stats.get("total").and_then(|t| t.get("energy")) else {
        return Ok(None);
    };
    let number = |key: &str| -> Result<f64, RunError> {
        field(energy, key, file)?.as_f64().ok_or_else(|| not_a(&format!("total.energy.{key}"), "a number", file))
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
fn gpu_power(dir: &Path, core_hz: Option<f64>) -> Result<Option<GpuEnergy>, RunError> {
    let Some((model, report)) = power::find_report(dir)? else {
        return Ok(None);
    };
    let text = std::fs::read_to_string(&report)
        .map_err(|e| RunError::io(format!("{}: cannot read: {e}", report.display()), e))?;
    let kernels = power::parse_report(&text, &report)?;
    let cycles = from_log_or_run_json(dir, "kernel_cycles", "counts", kernel_cycles, |v| {
        v.as_array()?.iter().map(serde_json::Value::as_u64).collect()
    })?;
    let core_hz = core_hz.ok_or_else(|| {
        RunError::missing(format!(
            "{}: no core clock (`total.energy.core_hz` of stats.json) to turn power into energy",
            dir.display()
        ))
    })?;
    power::gpu_energy(model, report, &kernels, &cycles, core_hz).map(Some)
}

/// `memzip power`'s JSON of one run: the power model's energy by component,
/// memzip's codec and metadata-cache energy added to it, and the EDP.
pub fn power_summary(run: &Run) -> Result<serde_json::Value, RunError> {
    let gpu = run.gpu_power.as_ref().ok_or_else(|| {
        RunError::missing(format!("{}: no power report (run with memzip run --power or MEMZIP_POWER=1)", run.dir))
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

/// The JSON files of a run directory, each read when present.
const JSON_FILES: [&str; 3] = ["stats.json", run_json::RUN_JSON, RECORD_FILE];

/// Why the run directory `dir` is damaged: the first of its JSON files that
/// is there but does not parse (a write cut short by a full disk or an
/// interrupted copy), in one line; `None` when each one present parses. A
/// sweep runs such a run again; a table or report lists it and shows the rest.
pub fn damaged_file(dir: &Path) -> Option<String> {
    JSON_FILES.iter().map(|name| dir.join(name)).filter(|path| path.exists()).find_map(|path| {
        let parsed = std::fs::read(&path)
            .map_err(|e| format!("cannot read: {e}"))
            .and_then(|bytes| serde_json::from_slice::<serde::de::IgnoredAny>(&bytes).map_err(|e| e.to_string()));
        parsed.err().map(|e| format!("{}: not valid JSON: {e}", path.display()))
    })
}

/// `run.json`'s `output_error`, if the run has one.
fn output_error_of(dir: &Path) -> Result<Option<crate::output_error::OutputError>, RunError> {
    let path = dir.join(run_json::RUN_JSON);
    if !path.exists() {
        return Ok(None);
    }
    crate::output_error::read(&fields::read_json(&path)?, &path).map_err(RunError::malformed)
}
