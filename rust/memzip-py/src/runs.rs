//! `memzip.load_runs`: simulator run directories (`stats.json`, `sim.log`,
//! `run.json`) as the rows of `memzip table` (memzip_study::table), with the
//! directories found as `memzip report` finds them (memzip_study::report).

use std::path::PathBuf;

use memzip_study::manifest::{find_repo, repo_root};
use memzip_study::run::RunError;
use memzip_study::{report, table};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{guard, os_error, value_error};

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(load_run_rows, m)?)?;
    Ok(())
}

/// A run directory that cannot be read: an `OSError` when the operating
/// system could not read a file, else a `ValueError`.
fn run_failure(error: RunError) -> PyErr {
    match &error {
        RunError::Io { source, .. } => os_error(source, error.to_string()),
        _ => value_error(error),
    }
}

/// The run directories a path stands for: itself when it holds
/// `stats.json`, else the run directories directly inside it.
fn run_dirs(path: PathBuf) -> PyResult<Vec<PathBuf>> {
    if path.join("stats.json").is_file() {
        return Ok(vec![path]);
    }
    std::fs::read_dir(&path).map_err(|e| os_error(&e, format!("{}: {e}", path.display())))?;
    report::run_dirs(&path).map_err(value_error)
}

/// One dict per run: the columns of ``memzip table --csv`` plus
/// ``stats_codec``, ``memory_bound``, ``saturated_share``, ``simulator``, ``gpu``, ``model_change``, the
/// partial-request counters (None in stats without them) and ``stored_sizes``; speedup, its bounds and DRAM traffic relative to the
/// ``none`` run of the same program on the same GPU.
#[pyfunction]
fn load_run_rows<'py>(py: Python<'py>, paths: Vec<PathBuf>) -> PyResult<Vec<Bound<'py, PyDict>>> {
    guard(|| {
        let mut dirs = Vec::new();
        for path in paths {
            dirs.extend(run_dirs(path)?);
        }
        let rows = table::load_rows(&dirs).map_err(run_failure)?;
        // The checkout whose manifests class the benchmarks: the one the
        // results are in (a committed results directory), else MEMZIP_ROOT's.
        let repo = dirs.first().and_then(|d| find_repo(&std::path::absolute(d).unwrap_or_default()));
        let repo = repo.or_else(|| repo_root().ok());
        let memory_bound = report::memory_bound::memory_bound_rows(&rows, repo.as_deref());
        rows.iter()
            .zip(memory_bound)
            .map(|(row, memory_bound)| {
                let run = &row.run;
                let dict = PyDict::new(py);
                dict.set_item("program", &run.program)?;
                dict.set_item("run", &run.label)?;
                dict.set_item("dir", &run.dir)?;
                dict.set_item("stats_codec", &run.stats_codec)?;
                dict.set_item("cycles", run.cycles)?;
                dict.set_item("speedup", row.speedup)?;
                dict.set_item("bus_estimate", row.bus_estimate)?;
                dict.set_item("activation_bound", row.activation_bound)?;
                dict.set_item("estimate", row.estimate())?;
                dict.set_item("gain_share", row.gain_share)?;
                dict.set_item("kernel_launches", run.kernel_launches)?;
                dict.set_item("kernel_launches_differ", row.kernel_launches_differ)?;
                dict.set_item("fetch_latency_cycles", run.memory_wait.fetch_latency_cycles)?;
                dict.set_item("dram_full_stalls", run.memory_wait.dram_full_stalls)?;
                dict.set_item("reply_latency_cycles", run.memory_wait.reply_latency_cycles)?;
                dict.set_item("reply_stalls", run.memory_wait.reply_stalls)?;
                dict.set_item("saturated_share", run.saturated_share())?;
                dict.set_item("memory_bound", memory_bound)?;
                dict.set_item("dram_bytes", run.dram_bytes)?;
                dict.set_item("medium", run.medium.name())?;
                dict.set_item("dram_percent_of_none", row.dram_percent_of_none)?;
                dict.set_item("raw_cr", run.raw_cr)?;
                dict.set_item("effective_cr", run.effective_cr)?;
                dict.set_item("mdc_hit_rate", run.mdc_hit_rate)?;
                dict.set_item("dram_utilization", run.dram_utilization)?;
                dict.set_item("verify_checked", run.verify_checked)?;
                dict.set_item("verify_failures", run.verify_failures)?;
                dict.set_item("output_ok", run.output_ok)?;
                dict.set_item("wall_seconds", run.wall_seconds)?;
                dict.set_item("timing_model", run.timing_model)?;
                dict.set_item("simulator", run.simulator.as_deref())?;
                dict.set_item("gpu", run.gpu.name())?;
                let partial = run.partial.as_ref();
                for (column, counter) in table::PARTIAL_COLUMNS {
                    dict.set_item(column, partial.map(counter))?;
                }
                dict.set_item("simulator_sources", run.simulator_sources.as_deref())?;
                dict.set_item("model_change", run.model_change)?;
                dict.set_item("energy_pj", run.energy.map(|e| e.total_pj))?;
                dict.set_item("dram_energy_pj", run.energy.map(|e| e.dram_pj))?;
                dict.set_item("codec_energy_pj", run.energy.map(|e| e.codec_pj))?;
                dict.set_item("metadata_energy_pj", run.energy.map(|e| e.metadata_pj))?;
                dict.set_item("energy_percent_of_none", row.energy_percent_of_none)?;
                dict.set_item("edp_js", run.edp_js())?;
                dict.set_item("edp_percent_of_none", row.edp_percent_of_none)?;
                dict.set_item("gpu_energy_pj", run.gpu_power.as_ref().map(|g| g.gpu_pj))?;
                dict.set_item("gpu_dram_energy_pj", run.gpu_power.as_ref().map(|g| g.dram_pj))?;
                dict.set_item("gpu_total_energy_pj", run.gpu_total_pj())?;
                dict.set_item("gpu_total_energy_percent_of_none", row.gpu_energy_percent_of_none)?;
                dict.set_item("gpu_edp_js", run.gpu_edp_js())?;
                dict.set_item("gpu_edp_percent_of_none", row.gpu_edp_percent_of_none)?;
                dict.set_item("stored_sizes", &run.stored_sizes)?;
                Ok(dict)
            })
            .collect()
    })
}
