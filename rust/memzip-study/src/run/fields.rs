//! Reading the JSON files of a run directory: every error names the file
//! and the field.

use std::path::Path;

use serde_json::Value;

use crate::error::RunError;

pub(super) fn read_json(path: &Path) -> Result<Value, RunError> {
    let text =
        std::fs::read_to_string(path).map_err(|e| RunError::io(format!("{}: cannot read: {e}", path.display()), e))?;
    serde_json::from_str(&text).map_err(|e| RunError::malformed(format!("{}: not valid JSON: {e}", path.display())))
}

/// The value at a `.`-separated key path, or an error naming file and key.
pub(super) fn field<'a>(value: &'a Value, key: &str, file: &Path) -> Result<&'a Value, RunError> {
    key.split('.')
        .try_fold(value, |v, part| v.get(part))
        .ok_or_else(|| RunError::missing(format!("{}: missing field `{key}`", file.display())))
}

pub(super) fn u64_field(value: &Value, key: &str, file: &Path) -> Result<u64, RunError> {
    field(value, key, file)?.as_u64().ok_or_else(|| not_a_count(key, file))
}

pub(super) fn not_a_count(key: &str, file: &Path) -> RunError {
    not_a(key, "a non-negative integer", file)
}

/// A field that holds something other than `expected`.
pub(super) fn not_a(key: &str, expected: &str, file: &Path) -> RunError {
    RunError::malformed(format!("{}: field `{key}` is not {expected}", file.display()))
}

/// A ratio the stats write as a number or `null` (no data).
pub(super) fn ratio_field(value: &Value, key: &str, file: &Path) -> Result<Option<f64>, RunError> {
    match field(value, key, file)? {
        Value::Null => Ok(None),
        v => v.as_f64().map(Some).ok_or_else(|| not_a(key, "a number or null", file)),
    }
}

pub(super) fn optional<'a, T>(
    value: &'a Value,
    key: &str,
    file: &Path,
    convert: impl Fn(&'a Value) -> Option<T>,
    expected: &str,
) -> Result<Option<T>, RunError> {
    match value.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => convert(v).map(Some).ok_or_else(|| not_a(key, expected, file)),
    }
}
