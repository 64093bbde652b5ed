//! `memzip sweep`: a study grid (programs x codecs x option sets) run locally
//! in parallel, one run directory each, resumable.
//!
//! The spec is JSON:
//! ```json
//! {"runs": [{"name": "ints", "argv": ["{repo}/bin/patterns", "ints", "262144"],
//!            "codecs": ["none", "mag_bdi"],
//!            "option_sets": [["-memzip_verify 1"], ["-memzip_verify 1", "-memzip_mdc_bytes 4096"]],
//!            "expect": "^PASS"}]}
//! ```
//! Each run is handed to the runner (default `scripts/sim-run.sh`) as
//! `--codec C --out DIR [--set LINE]... [--expect RE] -- ARGV...`. A run is
//! written into `OUT/.tmp-<id>` and renamed to `OUT/<id>` only when it
//! succeeded, so a directory named after a run is always complete: a rerun
//! skips those (resume after a kill loses nothing) and retries failures,
//! which are kept in `OUT/<id>.failed/` with the runner's output.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use rayon::prelude::*;
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    pub runs: Vec<Entry>,
}

/// One program of the grid.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// Names the program in run ids: letters, digits, `_`, `-`, `.`.
    pub name: String,
    /// The command line; `{repo}` stands for the repository root.
    pub argv: Vec<String>,
    pub codecs: Vec<String>,
    /// Simulator option lines per configuration; none: one run per codec.
    #[serde(default)]
    pub option_sets: Vec<Vec<String>>,
    /// A regex the program's output must match.
    #[serde(default)]
    pub expect: Option<String>,
}

/// One simulation of the expanded grid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    /// Directory name: `<name>-<codec>[-o<k>]`.
    pub id: String,
    pub codec: String,
    pub options: Vec<String>,
    pub argv: Vec<String>,
    pub expect: Option<String>,
}

/// What a sweep did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Runs already complete before this sweep.
    pub skipped: usize,
    pub succeeded: usize,
    /// Ids of runs that failed (details in `<id>.failed/`).
    pub failed: Vec<String>,
}

pub fn load_spec(path: &Path) -> Result<Spec, String> {
    let text = fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

fn check_name(what: &str, name: &str) -> Result<(), String> {
    let ok = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c));
    if ok && !name.starts_with('.') {
        Ok(())
    } else {
        Err(format!("{what} '{name}': use letters, digits, '_', '-' and '.' (it names a directory)"))
    }
}

/// The grid in a fixed order: entries, then codecs, then option sets.
pub fn expand(spec: &Spec, repo: &Path) -> Result<Vec<Run>, String> {
    let mut runs = Vec::new();
    for entry in &spec.runs {
        check_name("run name", &entry.name)?;
        if entry.argv.is_empty() || entry.codecs.is_empty() {
            return Err(format!("run '{}': argv and codecs must not be empty", entry.name));
        }
        let argv: Vec<String> = entry.argv.iter().map(|a| a.replace("{repo}", &repo.to_string_lossy())).collect();
        let sets: Vec<Vec<String>> =
            if entry.option_sets.is_empty() { vec![Vec::new()] } else { entry.option_sets.clone() };
        for codec in &entry.codecs {
            // A codec may carry knobs (`mag_bdi:bases=8+4+2`): keep its id readable.
            let codec_id = codec.replace([':', '=', ',', '+'], "_");
            check_name("codec", &codec_id)?;
            for (k, options) in sets.iter().enumerate() {
                let suffix = if sets.len() > 1 { format!("-o{k}") } else { String::new() };
                runs.push(Run {
                    id: format!("{}-{codec_id}{suffix}", entry.name),
                    codec: codec.clone(),
                    options: options.clone(),
                    argv: argv.clone(),
                    expect: entry.expect.clone(),
                });
            }
        }
    }
    let mut ids: Vec<&str> = runs.iter().map(|r| r.id.as_str()).collect();
    ids.sort_unstable();
    if let Some(pair) = ids.windows(2).find(|w| w[0] == w[1]) {
        return Err(format!("two runs would both be named '{}': give the entries different names", pair[0]));
    }
    Ok(runs)
}

fn runner_command(runner: &[String], run: &Run, dir: &Path) -> Command {
    let mut command = Command::new(&runner[0]);
    command.args(&runner[1..]).arg("--codec").arg(&run.codec).arg("--out").arg(dir);
    for line in &run.options {
        command.arg("--set").arg(line);
    }
    if let Some(expect) = &run.expect {
        command.arg("--expect").arg(expect);
    }
    command.arg("--").args(&run.argv);
    command
}

/// Runs one simulation; Ok(false) when it failed (recorded in `<id>.failed/`).
fn run_one(runner: &[String], run: &Run, out: &Path) -> Result<bool, String> {
    let done = out.join(&run.id);
    let tmp = out.join(format!(".tmp-{}", run.id));
    let failed = out.join(format!("{}.failed", run.id));
    for stale in [&tmp, &failed] {
        if stale.exists() {
            fs::remove_dir_all(stale).map_err(|e| format!("{}: {e}", stale.display()))?;
        }
    }
    let output = runner_command(runner, run, &tmp).output();
    let (success, log, reason) = match output {
        Ok(o) => {
            let mut log = o.stdout;
            log.extend_from_slice(&o.stderr);
            (o.status.success(), log, format!("runner exited with {}", o.status))
        }
        Err(e) => (false, Vec::new(), format!("cannot start runner '{}': {e}", runner[0])),
    };
    if success && tmp.is_dir() {
        fs::rename(&tmp, &done).map_err(|e| format!("{}: {e}", done.display()))?;
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

/// Runs every incomplete run of `runs` with up to `jobs` at once.
pub fn sweep(runs: &[Run], out: &Path, runner: &[String], jobs: usize) -> Result<Outcome, String> {
    if runner.is_empty() {
        return Err("no runner command".into());
    }
    fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let todo: Vec<&Run> = runs.iter().filter(|r| !out.join(&r.id).is_dir()).collect();
    let skipped = runs.len() - todo.len();
    eprintln!("memzip sweep: {} runs, {skipped} already done, {} to run with -j {jobs}", runs.len(), todo.len());
    let pool = rayon::ThreadPoolBuilder::new().num_threads(jobs.max(1)).build().map_err(|e| e.to_string())?;
    let finished = AtomicUsize::new(0);
    let results: Vec<Result<(String, bool), String>> = pool.install(|| {
        todo.par_iter()
            .map(|run| {
                let start = Instant::now();
                let ok = run_one(runner, run, out)?;
                let k = finished.fetch_add(1, Ordering::SeqCst) + 1;
                let verdict = if ok { "ok" } else { "FAILED" };
                eprintln!("[{k}/{}] {} {verdict} ({:.1} s)", todo.len(), run.id, start.elapsed().as_secs_f64());
                Ok((run.id.clone(), ok))
            })
            .collect()
    });
    let mut outcome = Outcome { skipped, ..Outcome::default() };
    for result in results {
        match result? {
            (_, true) => outcome.succeeded += 1,
            (id, false) => outcome.failed.push(id),
        }
    }
    Ok(outcome)
}

/// The repository root: the nearest ancestor of `start` holding `scripts/sim-run.sh`.
pub fn find_repo(start: &Path) -> Option<PathBuf> {
    start.ancestors().find(|d| d.join("scripts/sim-run.sh").is_file()).map(Path::to_path_buf)
}
