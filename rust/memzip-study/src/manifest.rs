//! The repository around a command, and its benchmark manifests
//! (`benchmarks/<suite>/<name>.env`, described in benchmarks/README.md).

use std::fs;
use std::path::{Path, PathBuf};

/// The presets of a benchmark: `suite/name`, or a `name` only one suite has.
pub fn benchmark_presets(repo: &Path, name: &str) -> Result<Vec<String>, String> {
    let benchmarks = repo.join("benchmarks");
    let manifests: Vec<PathBuf> = if name.contains('/') {
        let path = benchmarks.join(format!("{name}.env"));
        if path.is_file() {
            vec![path]
        } else {
            Vec::new()
        }
    } else {
        let mut found: Vec<PathBuf> = fs::read_dir(&benchmarks)
            .map(|suites| {
                suites.flatten().map(|s| s.path().join(format!("{name}.env"))).filter(|p| p.is_file()).collect()
            })
            .unwrap_or_default();
        found.sort();
        found
    };
    let manifest = match manifests.as_slice() {
        [] => return Err(format!("unknown benchmark '{name}' (see scripts/bench.sh list)")),
        [one] => one,
        _ => return Err(format!("benchmark '{name}' is in several suites: name it as suite/{name}")),
    };
    let text = fs::read_to_string(manifest).map_err(|e| format!("{}: {e}", manifest.display()))?;
    let presets = text
        .lines()
        .find_map(|line| line.trim().strip_prefix("PRESETS="))
        .map(|value| value.trim_matches(['"', '\'']).split_whitespace().map(String::from).collect())
        .unwrap_or_default();
    Ok(presets)
}

/// The repository root: the nearest ancestor of `start` holding `scripts/sim-run.sh`.
pub fn find_repo(start: &Path) -> Option<PathBuf> {
    start.ancestors().find(|d| d.join("scripts/sim-run.sh").is_file()).map(Path::to_path_buf)
}
