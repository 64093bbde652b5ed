//! Rust errors as Python exceptions, with the CLI's messages: a bad codec
//! spec or option is a `ValueError`, a file that cannot be opened an
//! `OSError` (its subclass for the cause), a corrupt trace a
//! `memzip.TraceError` (a `ValueError`), and a Rust panic a `RuntimeError`.

use std::any::Any;
use std::io;
use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::exceptions::{
    PyFileNotFoundError, PyIsADirectoryError, PyOSError, PyPermissionError, PyRuntimeError, PyValueError,
};
use pyo3::PyErr;
use pyo3::PyResult;

pyo3::create_exception!(
    memzip,
    TraceError,
    PyValueError,
    "A memzip trace that is corrupt, truncated or not a trace at all."
);

/// An `OSError` of the subclass matching `error` (e.g. `FileNotFoundError`),
/// carrying `message` as the CLI words it.
pub fn os_error(error: &io::Error, message: String) -> PyErr {
    match error.kind() {
        io::ErrorKind::NotFound => PyFileNotFoundError::new_err(message),
        io::ErrorKind::PermissionDenied => PyPermissionError::new_err(message),
        io::ErrorKind::IsADirectory => PyIsADirectoryError::new_err(message),
        _ => PyOSError::new_err(message),
    }
}

pub fn value_error(message: impl ToString) -> PyErr {
    PyValueError::new_err(message.to_string())
}

pub fn trace_error(message: impl ToString) -> PyErr {
    TraceError::new_err(message.to_string())
}

fn panic_text(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic payload".to_string())
}

/// Runs `body`, turning a Rust panic into a `RuntimeError` (PyO3 would raise
/// its `PanicException`, a `BaseException` that `except Exception` misses).
pub fn guard<T>(body: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|payload| {
        Err(PyRuntimeError::new_err(format!("memzip internal error (Rust panic): {}", panic_text(&*payload))))
    })
}

/// A trace that cannot be read, named by `path` with the CLI's message: an
/// operating-system failure (e.g. a directory) is an `OSError`, anything
/// about the content a `TraceError`.
pub fn trace_failure(path: &std::path::Path, error: memzip::trace::TraceError) -> PyErr {
    let message = format!("{}: {error}", path.display());
    match &error {
        memzip::trace::TraceError::Io { source, .. } if source.raw_os_error().is_some() => os_error(source, message),
        _ => trace_error(message),
    }
}
