//! Runs that stand in for others: `--reuse` copies a finished run of the
//! same configuration instead of simulating it again, and `--adopt` records
//! the configuration of runs made before sweeps wrote `sweep.json`.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::run::{damaged_file, is_finished_run, missed_model_change, RunRecord};
use crate::sweep::grid::PlannedRun;
use crate::sweep::results::{install, pending, tmp_dir};

/// The finished runs with a record in each of `dirs` (results directories).
pub fn recorded_runs(dirs: &[PathBuf]) -> Result<Vec<(PathBuf, RunRecord)>, String> {
    let mut found = Vec::new();
    for dir in dirs {
        let entries = fs::read_dir(dir).map_err(|e| format!("--reuse {}: {e}", dir.display()))?;
        let mut runs: Vec<PathBuf> = entries.flatten().map(|e| e.path()).filter(|p| is_finished_run(p)).collect();
        runs.sort();
        // A damaged run (a JSON file cut short) is no source: its sweep reruns it.
        let mut older: BTreeMap<&str, usize> = BTreeMap::new();
        for run in runs.into_iter().filter(|run| damaged_file(run).is_none()) {
            if let Some(record) = RunRecord::read(&run)? {
                match missed_model_change(&run, &record) {
                    None => found.push((run, record)),
                    Some(reason) => *older.entry(reason).or_default() += 1,
                }
            }
        }
        for (reason, count) in older {
            eprintln!("memzip sweep: --reuse {}: {count} runs are no source: {reason}", dir.display());
        }
    }
    Ok(found)
}

/// Fills each run of `runs` missing in `out` for which `sources` hold a
/// finished run of the same configuration ([`RunRecord::same_configuration`])
/// with a copy of it, recorded
/// under this run's id and variant with `reused_from`: a sensitivity sweep's
/// default point is the study's run, not a second simulation of it.
/// Returns each reused run's id and source.
pub fn reuse(
    runs: &[PlannedRun],
    out: &Path,
    sources: &[(PathBuf, RunRecord)],
) -> Result<Vec<(String, PathBuf)>, String> {
    let mut reused = Vec::new();
    for run in pending(runs, out) {
        let mut record = run.record();
        let Some((source, _)) = sources.iter().find(|(_, r)| record.same_configuration(r)) else { continue };
        let tmp = tmp_dir(out, &run.id);
        if tmp.exists() {
            fs::remove_dir_all(&tmp).map_err(|e| format!("{}: {e}", tmp.display()))?;
        }
        copy_tree(source, &tmp)?;
        let results = source.parent().and_then(Path::file_name).map(|n| n.to_string_lossy().into_owned());
        let source_id = source.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        record.reused_from = Some(format!("{}/{source_id}", results.unwrap_or_default()));
        record.write(&tmp)?;
        let done = out.join(&run.id);
        install(&tmp, &done)?;
        reused.push((run.id.clone(), source.clone()));
    }
    Ok(reused)
}

/// Copies the directory `from` to `to` (new). Copies, not hard links: a later
/// write into a file of either run (`memzip bench analyze`, a new record) must
/// not change the other.
fn copy_tree(from: &Path, to: &Path) -> Result<(), String> {
    fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    for entry in fs::read_dir(from).map_err(|e| format!("{}: {e}", from.display()))?.flatten() {
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        if src.is_dir() {
            copy_tree(&src, &dst)?;
        } else {
            fs::copy(&src, &dst).map_err(|e| format!("{} -> {}: {e}", src.display(), dst.display()))?;
        }
    }
    Ok(())
}

/// Writes the record of each run of `runs` finished in `out` without one
/// (made before sweeps wrote records), from the spec it was run from; returns
/// how many it wrote.
pub fn adopt(runs: &[PlannedRun], out: &Path) -> Result<usize, String> {
    let mut written = 0;
    for run in runs {
        let dir = out.join(&run.id);
        if is_finished_run(&dir) && RunRecord::read(&dir)?.is_none() {
            run.record().write(&dir)?;
            written += 1;
        }
    }
    Ok(written)
}
