//! Running the grid: each run through its runner, up to `jobs` at once.

use std::fs;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::sweep::grid::{PlannedRun, Target};
use crate::sweep::guard::{run_guarded, GUARD};
use crate::sweep::lock::lock_out;
use crate::sweep::results::{damaged, failure_cause, has_result, install, outdated, pending, tmp_dir};

/// The commands that execute runs: one for command lines, one for benchmarks,
/// and how long a run may take.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Runners {
    pub program: Vec<String>,
    pub benchmark: Vec<String>,
    /// A run still going after this long is stopped and fails (`--timeout`).
    pub timeout: Option<Duration>,
}

impl Runners {
    /// `memzip run` for command lines and `memzip bench run` for benchmarks,
    /// of the `memzip` at `exe`, in the checkout `repo`.
    pub fn of_memzip(exe: &Path, repo: &Path) -> Self {
        let command = |args: &[&str]| -> Vec<String> {
            let mut command = vec!["env".to_string(), format!("MEMZIP_ROOT={}", repo.display())];
            command.push(exe.to_string_lossy().into_owned());
            command.extend(args.iter().map(|a| a.to_string()));
            command
        };
        Runners { program: command(&["run"]), benchmark: command(&["bench", "run"]), timeout: None }
    }

    /// One command for both kinds (e.g. a test's fake runner).
    pub fn single(command: Vec<String>) -> Self {
        Runners { program: command.clone(), benchmark: command, timeout: None }
    }

    /// The same runners with a time limit per run.
    pub fn with_timeout(self, timeout: Option<Duration>) -> Self {
        Runners { timeout, ..self }
    }
}

/// What a sweep did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Runs already complete before this sweep, or completed meanwhile by
    /// another sweep into another directory and copied in (a run whose
    /// directory exists when its turn comes is not run again).
    pub skipped: usize,
    pub succeeded: usize,
    /// Ids of runs that failed (details in `<id>.failed/`).
    pub failed: Vec<String>,
}

fn runner_command(runners: &Runners, run: &PlannedRun, dir: &Path) -> Command {
    let runner = match run.target {
        Target::Program(_) => &runners.program,
        Target::Benchmark { .. } => &runners.benchmark,
    };
    let mut command = Command::new("bash");
    command.arg("-c").arg(GUARD).arg("memzip-sweep-guard");
    command.args(runner).arg("--codec").arg(&run.codec).arg("--out").arg(dir);
    for line in &run.options {
        command.arg("--set").arg(line);
    }
    // The GTX580 goes unsaid: a grid made before there was a choice runs as it did.
    if !run.gpu.is_default() {
        command.arg("--gpu").arg(run.gpu.name());
    }
    if let Some(expect) = &run.expect {
        command.arg("--expect").arg(expect);
    }
    match &run.target {
        Target::Program(argv) => command.arg("--").args(argv),
        Target::Benchmark { name, preset } => command.arg("--benchmark").arg(name).arg("--preset").arg(preset),
    };
    command
}

/// Runs one simulation; Ok(false) when it failed (recorded in `<id>.failed/`).
/// Every path to a result goes through here: local sweeps, and each task of
/// a Slurm array (`--only-run`).
pub fn run_one(runners: &Runners, run: &PlannedRun, out: &Path) -> Result<bool, String> {
    let done = out.join(&run.id);
    let tmp = tmp_dir(out, &run.id);
    let failed = out.join(format!("{}.failed", run.id));
    for stale in [&tmp, &failed] {
        if stale.exists() {
            fs::remove_dir_all(stale).map_err(|e| format!("{}: {e}", stale.display()))?;
        }
    }
    // The runner's output goes to a file beside the run (the runner empties its --out).
    let log_path = out.join(format!(".tmp-{}.log", run.id));
    let (success, reason) = run_guarded(runner_command(runners, run, &tmp), &log_path, runners.timeout)?;
    let log = fs::read(&log_path).unwrap_or_default();
    let _ = fs::remove_file(&log_path);
    if success && tmp.is_dir() {
        run.record().write(&tmp)?;
        install(&tmp, &done)?;
        return Ok(true);
    }
    if tmp.is_dir() {
        fs::rename(&tmp, &failed).map_err(|e| format!("{}: {e}", failed.display()))?;
    } else {
        fs::create_dir_all(&failed).map_err(|e| format!("{}: {e}", failed.display()))?;
    }
    let reason = if success { "runner succeeded but wrote no run directory".to_string() } else { reason };
    fs::write(failed.join("runner.log"), log).map_err(|e| format!("{}: {e}", failed.display()))?;
    fs::write(failed.join("reason.txt"), reason + "\n").map_err(|e| format!("{}: {e}", failed.display()))?;
    Ok(false)
}

/// What a sweep says as it goes: the start, a line per finished run, the end.
/// The command draws a progress bar on a terminal; [`StderrLines`] prints
/// the lines alone.
pub trait Progress: Sync {
    /// `runs` runs are about to start.
    fn start(&self, _runs: usize) {}
    /// One run finished; `line` says which and how.
    fn finished(&self, line: &str);
    /// Every run finished.
    fn end(&self) {}
}

/// One line per finished run on stderr.
pub struct StderrLines;

impl Progress for StderrLines {
    fn finished(&self, line: &str) {
        eprintln!("{line}");
    }
}

/// Runs every incomplete run of `runs` with up to `jobs` at once, a line per
/// finished run on stderr.
pub fn sweep(runs: &[PlannedRun], out: &Path, runners: &Runners, jobs: usize) -> Result<Outcome, String> {
    sweep_reporting(runs, out, runners, jobs, &StderrLines)
}

/// Runs every incomplete run of `runs` with up to `jobs` at once, telling
/// `progress` as runs finish.
pub fn sweep_reporting(
    runs: &[PlannedRun],
    out: &Path,
    runners: &Runners,
    jobs: usize,
    progress: &dyn Progress,
) -> Result<Outcome, String> {
    if runners.program.is_empty() || runners.benchmark.is_empty() {
        return Err("no runner command".into());
    }
    fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let _lock = lock_out(out)?;
    let todo = pending(runs, out);
    let skipped = runs.len() - todo.len();
    eprintln!("memzip sweep: {} runs, {skipped} already done, {} to run with -j {jobs}", runs.len(), todo.len());
    for run in &todo {
        if let Some(why) = damaged(out, &run.id) {
            eprintln!("memzip sweep: {} is damaged ({why}): running it again", run.id);
        } else if let Some(why) = outdated(out, &run.id) {
            eprintln!("memzip sweep: {} was {why}: running it again", run.id);
        }
    }
    let pool = rayon::ThreadPoolBuilder::new().num_threads(jobs.max(1)).build().map_err(|e| e.to_string())?;
    progress.start(todo.len());
    let finished = AtomicUsize::new(0);
    // par_bridge: the workers take runs in the spec's order as each becomes free
    // (a par_iter would split the list, starting its second half at once), so a
    // spec's order is the order runs start in.
    // Per run: Some(succeeded), or None when its result appeared meanwhile.
    let results: Vec<Result<(String, Option<bool>), String>> = pool.install(|| {
        todo.iter()
            .par_bridge()
            .map(|run| {
                let start = Instant::now();
                let ok = if has_result(out, &run.id) { None } else { Some(run_one(runners, run, out)?) };
                let k = finished.fetch_add(1, Ordering::SeqCst) + 1;
                let verdict = match ok {
                    Some(true) => "ok".to_string(),
                    Some(false) => format!("FAILED: {}", failure_cause(out, &run.id)),
                    None => "done meanwhile (its directory appeared): skipped".to_string(),
                };
                progress.finished(&format!(
                    "[{k}/{}] {} {verdict} ({:.1} s)",
                    todo.len(),
                    run.id,
                    start.elapsed().as_secs_f64()
                ));
                Ok((run.id.clone(), ok))
            })
            .collect()
    });
    progress.end();
    let mut outcome = Outcome { skipped, ..Outcome::default() };
    for result in results {
        match result? {
            (_, Some(true)) => outcome.succeeded += 1,
            (id, Some(false)) => outcome.failed.push(id),
            (_, None) => outcome.skipped += 1,
        }
    }
    outcome.failed.sort(); // finishing order varies; the outcome does not
    Ok(outcome)
}

/// One run of the grid, by id (`memzip sweep --only-run`: what a Slurm array
/// task executes): nothing when it is already done.
pub fn run_only(runs: &[PlannedRun], id: &str, out: &Path, runners: &Runners) -> Result<(), String> {
    let run = runs.iter().find(|r| r.id == id).ok_or_else(|| format!("--only-run {id}: no such run in the spec"))?;
    if has_result(out, id) {
        eprintln!("memzip sweep: {id} is already done");
        return Ok(());
    }
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    if run_one(runners, run, out)? {
        Ok(())
    } else {
        Err(format!("run {id} failed; see {}/{id}.failed/", out.display()))
    }
}
