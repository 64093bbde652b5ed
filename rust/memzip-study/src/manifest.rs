//! The repository around a command, and its benchmark manifests
//! (`benchmarks/<suite>/<name>.env`, described in benchmarks/README.md): the
//! one place a benchmark's name is resolved to its manifest. The manifest's
//! shell parts (how to fetch, build, make the input, run and check) are run
//! by `scripts/bench.sh`; this reads its plain values.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::gpu::{Gpu, GPUS};

/// A benchmark's manifest: where it is and the plain values memzip needs
/// before any shell runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manifest {
    pub path: PathBuf,
    /// `suite/name`, as run ids and labels name it.
    pub suite: String,
    pub name: String,
    /// `PRESETS`: the input sizes it has.
    pub presets: Vec<String>,
    /// `STATUS`: `runs`, or why it does not run here.
    pub status: String,
    /// `RUNNER`: `mgpu` for a multi-GPU benchmark (scripts/mgpu-run.sh runs
    /// it on MGPUSim); empty for gpgpu-sim.
    pub runner: String,
    /// The first word of `BOUND` (`memory`, `latency` or `compute`): what
    /// its `none` run at `study` on gpgpu-sim dev's GTX580 measured, `memory`
    /// when the DRAM data bus was busy in at least 0.40 of DRAM cycles; and of
    /// `BOUND_QV100` / `BOUND_RTX3070`, the same measure on that GPU against
    /// its own line ([`crate::bounds::memory_bound_line`]). Each GPU's one set
    /// of memory-bound programs (`memzip report`); a GPU whose key the
    /// manifest lacks is not in the map.
    bounds: BTreeMap<Gpu, String>,
}

impl Manifest {
    /// The manifest of `name`: `suite/name`, or a `name` only one suite has.
    pub fn find(repo: &Path, name: &str) -> Result<Self, String> {
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
        match manifests.as_slice() {
            [] => Err(format!("unknown benchmark '{name}' (see memzip bench list)")),
            [one] => Self::read(one),
            _ => {
                Err(format!("benchmark '{name}' is in several suites: name it as suite/{name} (see memzip bench list)"))
            }
        }
    }

    fn read(path: &Path) -> Result<Self, String> {
        let text = fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let value = |key: &str| -> String {
            text.lines()
                .find_map(|line| line.trim().strip_prefix(key)?.strip_prefix('='))
                .map(|value| value.trim().trim_matches(['"', '\'']).to_string())
                .unwrap_or_default()
        };
        let suite = path.parent().and_then(Path::file_name).map(|s| s.to_string_lossy().into_owned());
        let name = path.file_stem().map(|s| s.to_string_lossy().into_owned());
        Ok(Manifest {
            path: path.to_path_buf(),
            suite: suite.unwrap_or_default(),
            name: name.unwrap_or_default(),
            presets: value("PRESETS").split_whitespace().map(String::from).collect(),
            status: value("STATUS"),
            runner: value("RUNNER"),
            bounds: GPUS
                .into_iter()
                .filter_map(|gpu| {
                    let word = value(&bound_key(gpu)).split_whitespace().next().unwrap_or_default().to_string();
                    (!word.is_empty()).then_some((gpu, word))
                })
                .collect(),
        })
    }

    /// How its `none` run at `study` on `gpu` is bound (`memory`, `latency`,
    /// `compute`), when the manifest says.
    pub fn bound_on(&self, gpu: Gpu) -> Option<&str> {
        self.bounds.get(&gpu).map(String::as_str)
    }

    /// An error unless the benchmark runs here and has `preset`.
    pub fn check_runs_at(&self, preset: &str) -> Result<(), String> {
        if self.status != "runs" {
            return Err(format!("{} does not run here: {}", self.name, self.status));
        }
        if !self.presets.iter().any(|p| p == preset) {
            return Err(format!("--preset {preset}: {} has presets: {}", self.name, self.presets.join(" ")));
        }
        Ok(())
    }
}

/// The manifest key of the bound class on `gpu`: `BOUND` on the GTX580 (the
/// papers' config, measured first), `BOUND_QV100`, `BOUND_RTX3070`.
fn bound_key(gpu: Gpu) -> String {
    if gpu.is_default() {
        "BOUND".to_string()
    } else {
        format!("BOUND_{}", gpu.name().to_uppercase())
    }
}

/// Every benchmark (`suite/name`, sorted) whose manifest says it is
/// memory-bound on `gpu` (`BOUND=memory` on the GTX580).
pub fn memory_bound_benchmarks(repo: &Path, gpu: Gpu) -> Vec<String> {
    let mut found = Vec::new();
    for suite in fs::read_dir(repo.join("benchmarks")).into_iter().flatten().flatten() {
        for file in fs::read_dir(suite.path()).into_iter().flatten().flatten() {
            let path = file.path();
            if path.extension().is_some_and(|e| e == "env") {
                if let Ok(manifest) = Manifest::read(&path) {
                    if manifest.bound_on(gpu) == Some("memory") {
                        found.push(format!("{}/{}", manifest.suite, manifest.name));
                    }
                }
            }
        }
    }
    found.sort();
    found
}

/// The presets of a benchmark: `suite/name`, or a `name` only one suite has.
pub fn benchmark_presets(repo: &Path, name: &str) -> Result<Vec<String>, String> {
    Manifest::find(repo, name).map(|manifest| manifest.presets)
}

/// The repository root: the nearest ancestor of `start` holding `scripts/sim-run.sh`.
pub fn find_repo(start: &Path) -> Option<PathBuf> {
    start.ancestors().find(|d| d.join("scripts/sim-run.sh").is_file()).map(Path::to_path_buf)
}

/// The checkout a command works in: `MEMZIP_ROOT` when set (the scripts
/// export it), else the one around the current directory.
pub fn repo_root() -> Result<PathBuf, String> {
    if let Some(root) = std::env::var_os("MEMZIP_ROOT").filter(|r| !r.is_empty()) {
        let root = PathBuf::from(root);
        return match find_repo(&root).filter(|found| *found == root) {
            Some(found) => Ok(found),
            None => Err(format!("MEMZIP_ROOT={}: not a memzip checkout (no scripts/sim-run.sh)", root.display())),
        };
    }
    let cwd = std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
    find_repo(&cwd).ok_or_else(|| {
        "run it inside a memzip checkout (no scripts/sim-run.sh above the current directory), or set MEMZIP_ROOT"
            .to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
    }

    #[test]
    fn finds_a_manifest_by_suite_and_name_or_by_a_unique_name() {
        let bfs = Manifest::find(&repo(), "rodinia/bfs").unwrap();
        assert_eq!((bfs.suite.as_str(), bfs.name.as_str(), bfs.status.as_str()), ("rodinia", "bfs", "runs"));
        assert!(bfs.presets.iter().any(|p| p == "tiny"), "{:?}", bfs.presets);
        assert_eq!(Manifest::find(&repo(), "backprop").unwrap().suite, "rodinia");
        let err = Manifest::find(&repo(), "bfs").unwrap_err();
        assert!(err.starts_with("benchmark 'bfs' is in several suites: name it as suite/bfs"), "{err}");
        let err = Manifest::find(&repo(), "nosuch").unwrap_err();
        assert!(err.starts_with("unknown benchmark 'nosuch'"), "{err}");
        assert_eq!(
            bfs.check_runs_at("huge").unwrap_err(),
            format!("--preset huge: bfs has presets: {}", bfs.presets.join(" "))
        );
    }

    #[test]
    fn each_gpu_has_its_own_bound_class() {
        let dir = std::env::temp_dir().join(format!("memzip-manifest-bounds-{}", std::process::id()));
        fs::create_dir_all(dir.join("benchmarks/s")).unwrap();
        let write = |name: &str, text: &str| fs::write(dir.join(format!("benchmarks/s/{name}.env")), text).unwrap();
        write("both", "BOUND=\"memory 0.61\"\nBOUND_QV100=\"latency 0.12\"\n");
        write("volta", "BOUND=\"latency 0.30\"\nBOUND_QV100='memory 0.52'\n");
        write("fermi", "BOUND=\"memory 0.45\"\n");
        let both = Manifest::find(&dir, "s/both").unwrap();
        assert_eq!((both.bound_on(Gpu::Gtx580), both.bound_on(Gpu::Qv100)), (Some("memory"), Some("latency")));
        assert_eq!(both.bound_on(Gpu::Rtx3070), None, "not measured there");
        assert_eq!(memory_bound_benchmarks(&dir, Gpu::Gtx580), ["s/both", "s/fermi"]);
        assert_eq!(memory_bound_benchmarks(&dir, Gpu::Qv100), ["s/volta"]);
        assert!(memory_bound_benchmarks(&dir, Gpu::Rtx3070).is_empty());
        fs::remove_dir_all(&dir).unwrap();
    }
}
