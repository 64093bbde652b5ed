//! A sweep's results directory: which runs are done (`OUT/<id>`), where a
//! run is written until it is complete (`OUT/.tmp-<id>`), and why a failed
//! one failed (`OUT/<id>.failed/`).

use std::fs;
use std::path::{Path, PathBuf};

use crate::run::{damaged_file, missed_model_change, RunRecord, TIMING_MODEL};
use crate::sweep::grid::PlannedRun;
use crate::sweep::guard::TIMED_OUT;

/// One line on why a run failed: the timeout if it was stopped, else the
/// first error line of the runner's output, else its last line, else the
/// exit status.
pub fn failure_cause(out: &Path, id: &str) -> String {
    let failed = out.join(format!("{id}.failed"));
    let reason = fs::read_to_string(failed.join("reason.txt")).unwrap_or_default();
    if reason.starts_with(TIMED_OUT) {
        return reason.trim().to_string();
    }
    let log = fs::read_to_string(failed.join("runner.log")).unwrap_or_default();
    let lines: Vec<&str> = log.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let line = lines
        .iter()
        .find(|l| l.to_ascii_lowercase().contains("error"))
        .or(lines.last())
        .map(|l| l.to_string())
        .unwrap_or_else(|| reason.trim().to_string());
    line.chars().take(300).collect()
}

/// The runs of `runs` without a complete result in `out` yet.
pub fn pending<'a>(runs: &'a [PlannedRun], out: &Path) -> Vec<&'a PlannedRun> {
    runs.iter().filter(|r| !has_result(out, &r.id)).collect()
}

/// Whether `out` holds a current result of the run `id`: its directory,
/// whose JSON files parse ([`damaged`]), made neither by an older timing
/// model nor before a model change it lacks the mark of ([`outdated`]); a
/// damaged or outdated run is run again and replaced.
pub fn has_result(out: &Path, id: &str) -> bool {
    let dir = out.join(id);
    dir.is_dir() && damaged_file(&dir).is_none() && outdated(out, id).is_none()
}

/// Why the finished run `id` in `out` simulated an older model than this
/// memzip's: an older timing model ([`RunRecord::is_superseded`]) or a model
/// change it missed ([`missed_model_change`]); `None` when it is current,
/// not there, or has no record to say.
pub fn outdated(out: &Path, id: &str) -> Option<String> {
    let dir = out.join(id);
    let record = RunRecord::read(&dir).ok().flatten()?;
    if record.is_superseded() {
        return Some(format!(
            "made with timing model {}, older than this memzip's {TIMING_MODEL}",
            record.timing_model
        ));
    }
    missed_model_change(&dir, &record).map(str::to_string)
}

/// Why the finished run `id` in `out` is damaged (a JSON file of it does not
/// parse, [`damaged_file`]); `None` when it is sound or not there.
pub fn damaged(out: &Path, id: &str) -> Option<String> {
    let dir = out.join(id);
    dir.is_dir().then(|| damaged_file(&dir)).flatten()
}

/// Makes the complete run `tmp` the result `done`, replacing a superseded
/// result there (see [`has_result`]).
pub(crate) fn install(tmp: &Path, done: &Path) -> Result<(), String> {
    if done.is_dir() {
        fs::remove_dir_all(done).map_err(|e| format!("{}: {e}", done.display()))?;
    }
    fs::rename(tmp, done).map_err(|e| format!("{}: {e}", done.display()))
}

/// Where a run is written until it is complete (then renamed to `OUT/<id>`).
pub(crate) fn tmp_dir(out: &Path, id: &str) -> PathBuf {
    out.join(format!(".tmp-{id}"))
}
