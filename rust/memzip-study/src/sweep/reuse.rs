//! Runs that stand in for others: `--reuse` copies a finished run of the
//! same configuration instead of simulating it again, and `--adopt` records
//! the configuration of runs made before sweeps wrote `sweep.json`.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::run::{damaged_file, is_finished_run, RunRecord};
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
                match predates_current_model(&run, &record) {
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

/// Why the finished run `run` simulated another model than this memzip's
/// although its record's timing model is current, or `None` when it did not.
/// Three changes left the timing model's number as it was and changed what a
/// run simulates, and each left a mark in the run's files:
/// - on gpgpu-sim, every DRAM request meets memzip since `stats.json` counts
///   them (`total.requests`); before, requests other than one whole block
///   bypassed it (v3.2.1's unaligned line fills, the QV100's sector reads).
///   On dev's GTX580 none did (DRAM column commands equalled memzip's bursts
///   in all 23 study programs' none runs before the change): its runs stand;
/// - on gpgpu-sim dev, each block has its own metadata entry since the
///   channel-key fix, which came with the partial-read counters
///   (`total.partial.filled_sectors`); before, the blocks of the two L2
///   slices of a channel shared entries in pairs, so a codec run's reads were
///   sized by a neighbour's write (a `none` run reads no metadata: it stands);
/// - on MGPUSim, one compressor and one decompressor per GPU (the
///   adaptive-compression paper's) since `run.json` records the `platform`;
///   before, every message was compressed as if by a compressor of its own.
///
/// A run without the file (a test's fake run) has no mark to read.
fn predates_current_model(run: &Path, record: &RunRecord) -> Option<&'static str> {
    let marks: &[(&str, &str, &'static str)] = if record.simulator == "mgpusim" {
        &[("run.json", "/platform", "made with unlimited compressors (run.json has no platform)")]
    } else {
        let requests = (
            "stats.json",
            "/total/requests",
            "made before every DRAM request met memzip (stats.json counts no requests)",
        );
        let channel_key = (
            "stats.json",
            "/total/partial/filled_sectors",
            "made before each block had its own metadata entry (the channel-key fix; stats.json has no partial.filled_sectors)",
        );
        match (record.simulator == "dev", record.gpu.is_default(), record.codec == "none") {
            (true, true, true) => &[],
            (true, true, false) => &[channel_key],
            (true, false, false) => &[requests, channel_key],
            _ => &[requests],
        }
    };
    marks.iter().find_map(|&(file, pointer, reason)| lacks(run, file, pointer).then_some(reason))
}

/// Whether the JSON file `file` of `run` parses and has nothing at `pointer`
/// (false when the file is missing or does not parse: no mark to read).
fn lacks(run: &Path, file: &str, pointer: &str) -> bool {
    let Ok(text) = fs::read_to_string(run.join(file)) else { return false };
    serde_json::from_str::<serde_json::Value>(&text).is_ok_and(|json| json.pointer(pointer).is_none())
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
