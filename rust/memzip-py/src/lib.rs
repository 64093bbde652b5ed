//! `memzip` for Python: the codecs, DRAM block traces, the offline analysis
//! and the run tables of the Rust crates, as a PyO3 extension module
//! (`memzip._memzip`; the `memzip` package in `python/` wraps it).
//!
//! Nothing here implements a codec or an analysis: every function converts
//! Python values, calls `memzip` (codecs, traces) or `memzip-study` (analysis,
//! run tables), and converts the result back. Long loops run with the GIL
//! released, and every entry point turns a Rust panic into a Python
//! `RuntimeError` (see [`errors::guard`]).

mod analyze;
mod codec;
mod errors;
mod runs;
mod trace;

use pyo3::prelude::*;

/// The extension module; `python/memzip/__init__.py` re-exports it.
#[pymodule]
fn _memzip(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("TraceError", m.py().get_type::<errors::TraceError>())?;
    codec::register(m)?;
    trace::register(m)?;
    analyze::register(m)?;
    runs::register(m)?;
    m.add_function(wrap_pyfunction!(_panic_for_tests, m)?)?;
    Ok(())
}

/// Panics inside [`errors::guard`], so the tests can check that a Rust
/// panic arrives as a `RuntimeError` and the interpreter lives on.
#[pyfunction]
fn _panic_for_tests(message: &str) -> PyResult<()> {
    errors::guard(|| panic!("{message}"))
}
