//! A benchmark run's output values and the error a lossy codec cost on
//! them (benchmarks/README.md "Output values"; the metric:
//! [`crate::output_error`]).
//!
//! The program writes its values to the file `$MEMZIP_VALUES` names
//! (`values.txt` in the run folder), or the manifest's `VALUES` command
//! prints them. A run that approximated nothing and whose output check
//! passed is exact: it leaves a copy of its values in the cache, keyed by
//! benchmark, preset and simulator version, the reference of later runs of
//! the same input. A run whose manifest marks approximable data gets its
//! error against that reference in `run.json`, an exact run included (0).

use std::path::Path;

use memzip::codec::registry;
use memzip::codec::spec::CodecSpec;
use memzip::Geometry;
use serde_json::Value;

use crate::files::write_atomically;
use crate::output_error::compare_files;
use crate::run::RunJson;

/// The simulator flag naming the approximable allocations.
pub const APPROX_FLAG: &str = "-memzip_approx_allocs";
/// The environment variable naming the file a program writes its values to.
pub const VALUES_ENV: &str = "MEMZIP_VALUES";
/// That file, in the run folder.
pub const VALUES_FILE: &str = "values.txt";

/// The codec spec names a lossy codec (SLC), which approximates the data
/// a manifest's `APPROX_ALLOCS` marks.
pub fn may_approximate(codec: &str) -> bool {
    CodecSpec::parse(codec, Geometry::default()).is_ok_and(|spec| registry::is_lossy(&spec.name))
}

/// What a run's controllers did with approximable data (`stats.json`'s
/// `total.approximation`; zero without stats).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Approximation {
    pub approximable_blocks: u64,
    pub approximated_blocks: u64,
}

impl Approximation {
    pub fn of_run(out: &Path) -> Self {
        let stats: Option<Value> =
            std::fs::read_to_string(out.join("stats.json")).ok().and_then(|text| serde_json::from_str(&text).ok());
        let count =
            |key: &str| stats.as_ref().and_then(|s| s["total"]["approximation"][key].as_u64()).unwrap_or_default();
        Approximation {
            approximable_blocks: count("approximable_blocks"),
            approximated_blocks: count("approximated_blocks"),
        }
    }

    /// Some block was stored approximated: the output may be wrong.
    pub fn approximated(&self) -> bool {
        self.approximated_blocks > 0
    }
}

/// Where one run's values and its exact reference are.
#[derive(Debug)]
pub struct ValuesRun<'a> {
    /// The run folder.
    pub out: &'a Path,
    /// The benchmark, preset and simulator version: the reference's name.
    pub exact_key: &'a str,
    /// The cache folder of references.
    pub exact_dir: &'a Path,
    /// What `run.json` says the reference is.
    pub exact_label: &'a str,
}

/// Writes what the manifest's `VALUES` printed as the run's values; a
/// failed command is a note (the error cannot be measured), not a failure.
pub fn write_values(out: &Path, printed: Result<String, String>) -> Result<(), String> {
    match printed {
        Ok(text) => write_atomically(&out.join(VALUES_FILE), text.as_bytes()),
        Err(why) => {
            eprintln!("    output values: none ({why})");
            Ok(())
        }
    }
}

/// Keeps an exact run's values as the reference, and records the run's
/// output error against the reference when there is one.
pub fn measure(run: &ValuesRun, approximation: Approximation, check_ok: bool) -> Result<(), String> {
    let values = run.out.join(VALUES_FILE);
    if !values.exists() {
        eprintln!("    output values: the program wrote none ({}), so no output error", values.display());
        return Ok(());
    }
    let exact = run.exact_dir.join(format!("{}.values", run.exact_key));
    if check_ok && !approximation.approximated() {
        std::fs::create_dir_all(run.exact_dir).map_err(|e| format!("{}: {e}", run.exact_dir.display()))?;
        let text = std::fs::read(&values).map_err(|e| format!("{}: {e}", values.display()))?;
        write_atomically(&exact, &text)?;
    }
    if !exact.exists() {
        eprintln!(
            "    output error: no exact output of {} yet: run it once without approximation (codec none) first",
            run.exact_key
        );
        return Ok(());
    }
    let error = compare_files(&exact, &values)?;
    RunJson::record_output_error(run.out, &error, run.exact_label)?;
    eprintln!(
        "    output error: mean relative error {:.4}% over {} values ({} differ, largest {:.2}%)",
        100.0 * error.mean_relative_error,
        error.values,
        error.differing,
        100.0 * error.max_relative_error
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output_error::read;

    fn folder(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("memzip-output-values-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn stats(dir: &Path, approximable: u64, approximated: u64) {
        let json = format!(
            "{{\"total\": {{\"approximation\": {{\"approximable_blocks\": {approximable}, \
             \"approximated_blocks\": {approximated}, \"changed_bytes\": 0}}}}}}"
        );
        std::fs::write(dir.join("stats.json"), json).unwrap();
        std::fs::write(dir.join("run.json"), "{\"codec\": \"x\"}").unwrap();
    }

    fn error_of(dir: &Path) -> Option<f64> {
        let path = dir.join("run.json");
        let json: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        read(&json, &path).unwrap().map(|e| e.mean_relative_error)
    }

    #[test]
    fn an_exact_run_is_the_reference_of_a_lossy_one() {
        let root = folder("flow");
        let cache = root.join("exact");
        let (exact_run, lossy_run, early_run) = (root.join("none"), root.join("slc"), root.join("early"));
        for dir in [&exact_run, &lossy_run, &early_run] {
            std::fs::create_dir_all(dir).unwrap();
        }
        let at = |out| ValuesRun { out, exact_key: "suite-b-study", exact_dir: &cache, exact_label: "b study" };
        // Before any exact run: no reference, nothing recorded.
        stats(&early_run, 10, 3);
        std::fs::write(early_run.join(VALUES_FILE), "1\n2\n").unwrap();
        measure(&at(&early_run), Approximation::of_run(&early_run), false).unwrap();
        assert_eq!(error_of(&early_run), None);
        // The exact run: its values become the reference; its error is 0.
        stats(&exact_run, 0, 0);
        write_values(&exact_run, Ok("1\n2\n4\n".into())).unwrap();
        measure(&at(&exact_run), Approximation::of_run(&exact_run), true).unwrap();
        assert_eq!(std::fs::read_to_string(cache.join("suite-b-study.values")).unwrap(), "1\n2\n4\n");
        assert_eq!(error_of(&exact_run), Some(0.0));
        // A lossy run whose check failed: measured, not the reference.
        stats(&lossy_run, 10, 3);
        assert!(Approximation::of_run(&lossy_run).approximated());
        std::fs::write(lossy_run.join(VALUES_FILE), "1\n2\n5\n").unwrap();
        measure(&at(&lossy_run), Approximation::of_run(&lossy_run), false).unwrap();
        assert_eq!(error_of(&lossy_run), Some(0.25 / 3.0));
        assert_eq!(std::fs::read_to_string(cache.join("suite-b-study.values")).unwrap(), "1\n2\n4\n");
        // A failed VALUES command leaves no values: a note, not an error.
        write_values(&early_run, Err("no VALUES".into())).unwrap();
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn no_stats_means_nothing_approximated() {
        let dir = folder("no-stats");
        assert_eq!(Approximation::of_run(&dir), Approximation::default());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn only_lossy_codecs_get_the_approximable_data() {
        assert!(may_approximate("slc"));
        assert!(may_approximate("slc:variant=pred,threshold=8"));
        for lossless in ["none", "e2mc16", "mag_bdi:bases=8+4+2", "adaptive:candidates=fpc/bdi", "nonsense"] {
            assert!(!may_approximate(lossless), "{lossless}");
        }
    }
}
