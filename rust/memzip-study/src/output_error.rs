//! The error a lossy codec costs on a program's output: the mean relative
//! error of a run's output values against those of an exact run of the same
//! program and input. It is the metric "Memory Access Granularity Aware
//! Lossless Compression for GPUs" (Fig. 15) reports for SLC, whose text
//! defines it no further; memzip's definition:
//!
//! - The values: numbers separated by white space, as a benchmark writes
//!   them (one per line to `$MEMZIP_VALUES`, or a manifest's `VALUES`
//!   command), compared position by position. Both runs must have as many.
//! - Per value: |approximate - exact| / |exact|, capped at 1, so that a
//!   value 100% off or more counts as 100% and one exact value near zero
//!   cannot outweigh all the others. An exact 0 counts 0 when the run has 0
//!   too, else 1; a NaN or an infinity that the exact run does not have
//!   counts 1.
//! - The error is the mean over all values; the largest one and how many
//!   values differ at all are kept beside it.

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The field of `run.json` that holds a run's output error.
pub const FIELD: &str = "output_error";

/// How far a run's output is from the exact output.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct OutputError {
    /// Values compared.
    pub values: u64,
    /// Values that are not exactly the exact run's.
    pub differing: u64,
    /// The mean of the per-value relative errors (capped at 1 each).
    pub mean_relative_error: f64,
    /// The largest per-value relative error.
    pub max_relative_error: f64,
}

/// The numbers of a values text; an error names the first token that is not one.
pub fn parse_values(text: &str) -> Result<Vec<f64>, String> {
    text.split_ascii_whitespace()
        .enumerate()
        .map(|(i, token)| token.parse::<f64>().map_err(|_| format!("value {} is '{token}', not a number", i + 1)))
        .collect()
}

/// One value's relative error against its exact value, capped at 1.
pub fn relative_error(exact: f64, approximate: f64) -> f64 {
    if exact == approximate || (exact.is_nan() && approximate.is_nan()) {
        return 0.0;
    }
    if exact == 0.0 || !approximate.is_finite() || !exact.is_finite() {
        return 1.0;
    }
    ((approximate - exact) / exact).abs().min(1.0)
}

/// The error of `approximate` against `exact`, value by value.
pub fn compare(exact: &[f64], approximate: &[f64]) -> Result<OutputError, String> {
    if exact.len() != approximate.len() {
        return Err(format!("{} output values, the exact run has {}", approximate.len(), exact.len()));
    }
    if exact.is_empty() {
        return Err("no output values".into());
    }
    let (mut sum, mut max, mut differing) = (0.0, 0.0f64, 0u64);
    for (&e, &a) in exact.iter().zip(approximate) {
        let error = relative_error(e, a);
        sum += error;
        max = max.max(error);
        differing += (e.to_bits() != a.to_bits()) as u64;
    }
    Ok(OutputError {
        values: exact.len() as u64,
        differing,
        mean_relative_error: sum / exact.len() as f64,
        max_relative_error: max,
    })
}

/// The output error `run.json` records, if any; a malformed one is an error
/// naming the file.
pub fn read(run_json: &Value, path: &Path) -> Result<Option<OutputError>, String> {
    match run_json.get(FIELD) {
        None | Some(Value::Null) => Ok(None),
        Some(value) => serde_json::from_value(value.clone())
            .map(Some)
            .map_err(|e| format!("{}: field `{FIELD}`: {e}", path.display())),
    }
}

/// The text of a values file; one named `*.zst` is zstd-compressed (a
/// collected run's `values.txt.zst`, scripts/collect-runs.sh).
fn read_values_text(path: &Path) -> Result<String, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let bytes = if path.extension().is_some_and(|ext| ext == "zst") {
        zstd::decode_all(bytes.as_slice()).map_err(|e| format!("{}: not a zstd file: {e}", path.display()))?
    } else {
        bytes
    };
    String::from_utf8(bytes).map_err(|e| format!("{}: not text: {e}", path.display()))
}

/// [`compare`] of two values files (plain or `*.zst`); errors name the file.
pub fn compare_files(exact: &Path, approximate: &Path) -> Result<OutputError, String> {
    let read = |path: &Path| -> Result<Vec<f64>, String> {
        let text = read_values_text(path)?;
        parse_values(&text).map_err(|e| format!("{}: {e}", path.display()))
    };
    compare(&read(exact)?, &read(approximate)?)
        .map_err(|e| format!("{} against {}: {e}", approximate.display(), exact.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_value_errors_are_relative_and_capped() {
        assert_eq!(relative_error(2.0, 2.0), 0.0);
        assert_eq!(relative_error(2.0, 2.5), 0.25);
        assert_eq!(relative_error(-4.0, -3.0), 0.25);
        assert_eq!(relative_error(1.0, 5.0), 1.0, "capped");
        assert_eq!(relative_error(0.0, 0.0), 0.0);
        assert_eq!(relative_error(0.0, 1e-30), 1.0);
        assert_eq!(relative_error(1.0, f64::NAN), 1.0);
        assert_eq!(relative_error(1.0, f64::INFINITY), 1.0);
        assert_eq!(relative_error(f64::NAN, f64::NAN), 0.0);
    }

    #[test]
    fn values_files_may_be_zstd_compressed() {
        let dir = std::env::temp_dir().join(format!("memzip-values-zst-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let exact = dir.join("exact.txt.zst");
        std::fs::write(&exact, zstd::encode_all("1\n2\n4\n".as_bytes(), 3).unwrap()).unwrap();
        let run = dir.join("values.txt");
        std::fs::write(&run, "1\n2.5\n4\n").unwrap();
        let error = compare_files(&exact, &run).unwrap();
        assert_eq!((error.values, error.differing), (3, 1));
        let corrupt = dir.join("corrupt.zst");
        std::fs::write(&corrupt, b"1\n2\n4\n").unwrap();
        let message = compare_files(&corrupt, &run).unwrap_err();
        assert!(message.contains("corrupt.zst: not a zstd file"), "{message}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_mean_over_values() {
        let exact = parse_values("1 2\n4\n0\n").unwrap();
        let run = parse_values("1 2.5 3 0").unwrap();
        let error = compare(&exact, &run).unwrap();
        assert_eq!(
            error,
            OutputError { values: 4, differing: 2, mean_relative_error: (0.25 + 0.25) / 4.0, max_relative_error: 0.25 }
        );
        assert_eq!(compare(&exact, &exact).unwrap().differing, 0);
        assert_eq!(compare(&exact, &run[..3]).unwrap_err(), "3 output values, the exact run has 4");
        assert_eq!(parse_values("1\nx\n").unwrap_err(), "value 2 is 'x', not a number");
        assert!(compare(&[], &[]).is_err());
    }

    #[test]
    fn files_name_themselves_in_errors() {
        let dir = std::env::temp_dir().join(format!("memzip-output-error-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (exact, run) = (dir.join("exact.txt"), dir.join("run.txt"));
        std::fs::write(&exact, "1\n2\n").unwrap();
        std::fs::write(&run, "1\n3\n").unwrap();
        assert_eq!(compare_files(&exact, &run).unwrap().mean_relative_error, 0.25);
        std::fs::write(&run, "1\n").unwrap();
        let err = compare_files(&exact, &run).unwrap_err();
        assert!(err.contains("run.txt against") && err.contains("1 output values"), "{err}");
        let err = compare_files(&dir.join("missing.txt"), &run).unwrap_err();
        assert!(err.starts_with(&dir.join("missing.txt").display().to_string()), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn recorded_in_run_json_beside_the_other_fields() {
        let dir = std::env::temp_dir().join(format!("memzip-output-error-record-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("run.json"), "{\"codec\": \"slc\", \"gpus\": 4}").unwrap();
        let error = OutputError { values: 4, differing: 1, mean_relative_error: 0.0625, max_relative_error: 0.25 };
        crate::run::RunJson::record_output_error(&dir, &error, "the none run").unwrap();
        let path = dir.join("run.json");
        let json: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!((json["codec"].as_str(), json["gpus"].as_u64()), (Some("slc"), Some(4)), "other fields kept");
        assert_eq!(json[FIELD]["exact"], "the none run");
        assert_eq!(read(&json, &path).unwrap(), Some(error));
        assert_eq!(read(&serde_json::json!({"codec": "none"}), &path).unwrap(), None);
        let err = read(&serde_json::json!({FIELD: {"values": "x"}}), &path).unwrap_err();
        assert!(err.contains("field `output_error`"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
