//! `memzip sweep --slurm`: the runs a sweep still lacks, as one Slurm job
//! array.
//!
//! Each array task runs `memzip sweep SPEC --out DIR --only-run <id>`, the
//! same single-run path as a local sweep (`sweep::run_one`): a result is
//! written to `DIR/.tmp-<id>` and renamed when complete, a failure goes to
//! `DIR/<id>.failed/`. So the results directory looks the same whichever way
//! it was filled, and a task that Slurm kills (time limit, `scancel`) leaves
//! no run directory: the next sweep submits it again. A submission's files
//! live in `DIR/slurm/submit-<n>/`: `array.sbatch`, `runs.txt` (task index
//! -> run id, one per line) and one `task-<index>.log` per task.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::thread::sleep;
use std::time::Duration;

use crate::gpu::Gpu;
use crate::sweep::exec::Outcome;
use crate::sweep::grid::PlannedRun;
use crate::sweep::results::{has_result, tmp_dir};

/// How to submit.
#[derive(Debug, Clone, Default)]
pub struct SlurmOptions {
    pub partition: Option<String>,
    /// Per task, in any form sbatch takes (`30`, `2:00:00`).
    pub time: Option<String>,
    /// More sbatch options, given as they are (`--mem=4G`).
    pub sbatch_args: Vec<String>,
    /// Wait for the array to finish and collect its results.
    pub wait: bool,
}

/// What the array tasks execute: this `memzip`, the spec, the results
/// directory, the directory to start in and the runner override.
#[derive(Debug, Clone)]
pub struct TaskCommand {
    pub memzip: PathBuf,
    pub spec: PathBuf,
    pub out: PathBuf,
    pub chdir: PathBuf,
    pub runner: Vec<String>,
    /// The sweep's `--gpu` (each task expands the spec as the sweep did).
    pub gpu: Gpu,
}

/// One submitted array.
#[derive(Debug, Clone)]
pub struct Submission {
    pub job_id: String,
    pub dir: PathBuf,
    pub ids: Vec<String>,
}

/// `text` as one POSIX shell word.
fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// The next free `slurm/submit-<n>` folder of `out`.
fn submission_dir(out: &Path) -> Result<PathBuf, String> {
    let base = out.join("slurm");
    fs::create_dir_all(&base).map_err(|e| format!("{}: {e}", base.display()))?;
    (1..)
        .map(|n| base.join(format!("submit-{n}")))
        .find(|dir| fs::create_dir(dir).is_ok())
        .ok_or_else(|| format!("{}: cannot create a submit-<n> folder", base.display()))
}

/// The batch script of an array over `count` runs listed in `dir/runs.txt`.
pub fn batch_script(dir: &Path, count: usize, task: &TaskCommand, options: &SlurmOptions) -> String {
    let mut script = String::from("#!/bin/sh\n");
    let mut directive = |line: String| script.push_str(&format!("#SBATCH {line}\n"));
    directive("--job-name=memzip-sweep".into());
    directive(format!("--array=0-{}", count - 1));
    directive(format!("--output={}", dir.join("task-%a.log").display()));
    directive(format!("--chdir={}", task.chdir.display()));
    directive("--ntasks=1".into());
    directive("--cpus-per-task=1".into());
    if let Some(partition) = &options.partition {
        directive(format!("--partition={partition}"));
    }
    if let Some(time) = &options.time {
        directive(format!("--time={time}"));
    }
    let gpu = if task.gpu.is_default() { String::new() } else { format!(" --gpu {}", task.gpu) };
    let runner = if task.runner.is_empty() {
        String::new()
    } else {
        // Last: --runner takes every argument after it.
        let words: Vec<String> = task.runner.iter().map(|w| shell_quote(w)).collect();
        format!(" --runner {}", words.join(" "))
    };
    script.push_str(&format!(
        "# Task N runs line N+1 of runs.txt, through the same single-run path as a local sweep.\n\
         id=$(sed -n \"$((SLURM_ARRAY_TASK_ID + 1))p\" {runs})\n\
         exec {memzip} sweep {spec} --out {out} --only-run \"$id\"{gpu}{runner}\n",
        runs = shell_quote(&dir.join("runs.txt").to_string_lossy()),
        memzip = shell_quote(&task.memzip.to_string_lossy()),
        spec = shell_quote(&task.spec.to_string_lossy()),
        out = shell_quote(&task.out.to_string_lossy()),
    ));
    script
}

/// Writes the array for `todo` and submits it with `sbatch --parsable`.
pub fn submit(todo: &[&PlannedRun], task: &TaskCommand, options: &SlurmOptions) -> Result<Submission, String> {
    let dir = submission_dir(&task.out)?;
    let ids: Vec<String> = todo.iter().map(|r| r.id.clone()).collect();
    let runs_file = dir.join("runs.txt");
    fs::write(&runs_file, ids.join("\n") + "\n").map_err(|e| format!("{}: {e}", runs_file.display()))?;
    let script = dir.join("array.sbatch");
    fs::write(&script, batch_script(&dir, ids.len(), task, options))
        .map_err(|e| format!("{}: {e}", script.display()))?;
    let output = Command::new("sbatch")
        .arg("--parsable")
        .args(&options.sbatch_args)
        .arg(&script)
        .output()
        .map_err(|e| format!("cannot run sbatch (is Slurm installed and in PATH?): {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "sbatch rejected {}: {}",
            script.display(),
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    // --parsable prints "<job id>[;<cluster>]".
    let stdout = String::from_utf8_lossy(&output.stdout);
    let job_id = stdout.trim().split(';').next().unwrap_or("").to_string();
    if job_id.is_empty() || !job_id.chars().all(|c| c.is_ascii_digit()) {
        return Err(format!("sbatch printed no job id: {stdout:?}"));
    }
    Ok(Submission { job_id, dir, ids })
}

/// Tasks of the job still queued or running; Ok(0) once Slurm no longer
/// knows the job.
fn tasks_left(job_id: &str) -> Result<usize, String> {
    let output = Command::new("squeue")
        .args(["--noheader", "--array", "--format=%i", "--jobs", job_id])
        .output()
        .map_err(|e| format!("cannot run squeue: {e}"))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        // A finished job leaves squeue after MinJobAge.
        return if stderr.contains("Invalid job id") { Ok(0) } else { Err(format!("squeue: {}", stderr.trim())) };
    }
    Ok(String::from_utf8_lossy(&output.stdout).lines().filter(|l| !l.trim().is_empty()).count())
}

/// Polls squeue until the array has no task left.
pub fn wait(job_id: &str, poll: Duration) -> Result<(), String> {
    let mut last = usize::MAX;
    loop {
        let left = tasks_left(job_id)?;
        if left == 0 {
            return Ok(());
        }
        if left != last {
            eprintln!("memzip sweep: Slurm job {job_id}: {left} tasks queued or running");
            last = left;
        }
        sleep(poll);
    }
}

/// What the array left in `out`. A task that ended without a result or a
/// failure record (killed by Slurm) gets a failure record naming its log,
/// and its half-written `.tmp-<id>` goes into it.
pub fn collect(submission: &Submission, out: &Path) -> Result<Outcome, String> {
    let mut outcome = Outcome::default();
    for (index, id) in submission.ids.iter().enumerate() {
        let failed = out.join(format!("{id}.failed"));
        if has_result(out, id) {
            outcome.succeeded += 1;
            continue;
        }
        outcome.failed.push(id.clone());
        if failed.is_dir() {
            continue;
        }
        let tmp = tmp_dir(out, id);
        if tmp.is_dir() {
            fs::rename(&tmp, &failed).map_err(|e| format!("{}: {e}", failed.display()))?;
        } else {
            fs::create_dir_all(&failed).map_err(|e| format!("{}: {e}", failed.display()))?;
        }
        let log = submission.dir.join(format!("task-{index}.log"));
        let reason = format!(
            "Slurm task {}_{index} ended without a result (killed or cancelled?); its log: {}\n",
            submission.job_id,
            log.display()
        );
        fs::write(failed.join("reason.txt"), reason).map_err(|e| format!("{}: {e}", failed.display()))?;
    }
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task() -> TaskCommand {
        TaskCommand {
            memzip: "/opt/memzip".into(),
            spec: "/s/spec.json".into(),
            out: "/r/out".into(),
            chdir: "/r".into(),
            runner: vec!["bash".into(), "it's.sh".into()],
            gpu: Gpu::default(),
        }
    }

    #[test]
    fn batch_script_maps_tasks_to_runs_and_quotes_words() {
        let options = SlurmOptions { partition: Some("gpu".into()), time: Some("30".into()), ..Default::default() };
        let script = batch_script(Path::new("/r/out/slurm/submit-1"), 3, &task(), &options);
        for line in [
            "#SBATCH --array=0-2\n",
            "#SBATCH --output=/r/out/slurm/submit-1/task-%a.log\n",
            "#SBATCH --chdir=/r\n",
            "#SBATCH --partition=gpu\n",
            "#SBATCH --time=30\n",
            "id=$(sed -n \"$((SLURM_ARRAY_TASK_ID + 1))p\" '/r/out/slurm/submit-1/runs.txt')\n",
            "exec '/opt/memzip' sweep '/s/spec.json' --out '/r/out' --only-run \"$id\" --runner 'bash' 'it'\\''s.sh'\n",
        ] {
            assert!(script.contains(line), "missing {line:?} in\n{script}");
        }
        assert!(!batch_script(Path::new("/d"), 1, &task(), &SlurmOptions::default()).contains("--partition"));
        // A sweep on another GPU: each task expands the spec on it too.
        let qv100 = TaskCommand { gpu: Gpu::Qv100, ..task() };
        let script = batch_script(Path::new("/d"), 1, &qv100, &SlurmOptions::default());
        assert!(script.contains("--only-run \"$id\" --gpu qv100 --runner 'bash'"), "{script}");
    }

    #[test]
    fn shell_quote_survives_quotes() {
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
    }
}
