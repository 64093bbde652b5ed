//! `memzip sweep --estimate`: what a grid's remaining runs will cost, from
//! the `none` runs already made. A codec run simulates the same program for
//! about the same cycles as its `none` run, and memzip's share of the CPU is
//! small next to the simulator's (a QV100 `none` run sampled with `perf`: no
//! memzip function among its 40 hottest), so each pending run is estimated at the CPU
//! seconds of the `none` run of its program, input, GPU and simulator.

use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

use crate::run::{is_finished_run, RunRecord};
use crate::sweep::grid::PlannedRun;
use crate::sweep::results::pending;

/// The estimate of one pending run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunEstimate {
    pub id: String,
    pub codec: String,
    /// The CPU seconds of its `none` run and where that run is
    /// (`<results dir>/<id>`); `None` when no `none` run of it was found.
    pub basis: Option<(f64, String)>,
}

/// A grid's pending runs, each with its estimate.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    /// How many runs of the grid are done in the results directory.
    pub done: usize,
    pub runs: Vec<RunEstimate>,
}

impl Estimate {
    /// The estimated CPU seconds of the runs that have a basis.
    pub fn cpu_seconds(&self) -> f64 {
        // A fold from +0.0, not `sum()`: f64's sum of nothing is -0.0, which the
        // total line printed as "-0 CPU-s" when no run had a basis.
        self.runs
            .iter()
            .filter_map(|run| run.basis.as_ref().map(|(seconds, _)| seconds))
            .fold(0.0, |total, s| total + s)
    }

    /// The pending runs without a `none` run to estimate them by.
    pub fn unknown(&self) -> Vec<&str> {
        self.runs.iter().filter(|run| run.basis.is_none()).map(|run| run.id.as_str()).collect()
    }
}

/// A finished `none` run: its record and CPU seconds.
struct NoneRun {
    record: RunRecord,
    cpu_seconds: f64,
    location: String,
}

/// Estimates the runs of `runs` not done in `out` from the `none` runs in
/// `out` and in each of `from` (results directories), first found first.
pub fn estimate(runs: &[PlannedRun], out: &Path, from: &[PathBuf]) -> Result<Estimate, String> {
    let mut none_runs = Vec::new();
    for dir in std::iter::once(out).chain(from.iter().map(PathBuf::as_path)) {
        none_runs.extend(none_runs_in(dir)?);
    }
    let to_run = pending(runs, out);
    let estimates = to_run
        .iter()
        .map(|run| {
            let planned = run.record();
            let basis = none_runs
                .iter()
                .find(|none| same_program(&planned, &none.record))
                .map(|none| (none.cpu_seconds, none.location.clone()));
            RunEstimate { id: run.id.clone(), codec: run.codec.clone(), basis }
        })
        .collect();
    Ok(Estimate { done: runs.len() - to_run.len(), runs: estimates })
}

/// The finished `none` runs of the results directory `dir` that record
/// their configuration (`sweep.json`) and CPU time (`run.json`); a missing
/// directory has none.
fn none_runs_in(dir: &Path) -> Result<Vec<NoneRun>, String> {
    if !dir.exists() {
        return Ok(Vec::new());
    }
    let entries = fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut runs: Vec<PathBuf> = entries.flatten().map(|e| e.path()).filter(|p| is_finished_run(p)).collect();
    runs.sort();
    let results = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut found = Vec::new();
    for run in runs {
        let Ok(Some(record)) = RunRecord::read(&run) else { continue };
        if record.codec != "none" {
            continue;
        }
        if let Some(cpu_seconds) = cpu_seconds_of(&run) {
            let id = run.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            found.push(NoneRun { record, cpu_seconds, location: format!("{results}/{id}") });
        }
    }
    Ok(found)
}

/// `run.json`'s `cpu_seconds`, when the run recorded it.
fn cpu_seconds_of(run: &Path) -> Option<f64> {
    let text = fs::read_to_string(run.join("run.json")).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    json.get("cpu_seconds")?.as_f64()
}

/// Whether `none` simulates the program, input, GPU and simulator of
/// `planned` (any option lines: they change the codec's work, not the
/// program's). A command line's variant (`ints.fill`) is the same program.
fn same_program(planned: &RunRecord, none: &RunRecord) -> bool {
    let program = |record: &RunRecord| record.program.as_deref().map(|p| p.split('.').next().unwrap_or(p).to_string());
    planned.benchmark == none.benchmark
        && planned.preset == none.preset
        && program(planned) == program(none)
        && planned.gpu == none.gpu
        && planned.simulator == none.simulator
}

/// `memzip sweep --estimate`'s text: a line per pending run (id, codec,
/// estimated CPU seconds, the `none` run it comes from; tab-separated), then
/// the total and its wall time at `jobs` runs at once.
pub struct EstimateText<'a> {
    estimate: &'a Estimate,
    jobs: usize,
}

impl Estimate {
    pub fn with_jobs(&self, jobs: usize) -> EstimateText<'_> {
        EstimateText { estimate: self, jobs: jobs.max(1) }
    }
}

impl fmt::Display for EstimateText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Self { estimate, jobs } = self;
        for run in &estimate.runs {
            match &run.basis {
                Some((seconds, from)) => writeln!(f, "{}\t{}\t{seconds:.0}\t{from}", run.id, run.codec)?,
                None => writeln!(f, "{}\t{}\t?\tno none run of it", run.id, run.codec)?,
            }
        }
        let (seconds, unknown) = (estimate.cpu_seconds(), estimate.unknown().len());
        let hours = seconds / 3600.0;
        write!(
            f,
            "{} runs to go ({} done): {} estimated at {seconds:.0} CPU-s ({hours:.1} CPU-hours; {:.1} hours at -j {jobs})",
            estimate.runs.len(),
            estimate.done,
            estimate.runs.len() - unknown,
            hours / *jobs as f64,
        )?;
        match unknown {
            0 => writeln!(f),
            n => writeln!(f, "; {n} without a none run to estimate them by"),
        }
    }
}
