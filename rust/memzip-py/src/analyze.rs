//! `memzip.analyze`: the CLI's `memzip analyze` (memzip_study::analyze), its
//! JSON document handed to Python, which makes the table. The analysis's
//! error says what kind it is ([`AnalyzeError`]), which picks the Python
//! exception: a file that cannot be read an `OSError`, a corrupt trace a
//! `TraceError`, a bad spec or option a `ValueError`.

use std::path::PathBuf;

use memzip::codec::cost_profile::CostProfile;
use memzip_study::analyze::{
    self, split_codec_list, AnalyzeError, AnalyzeOptions, AnalyzeReport, DEFAULT_CHUNK_BLOCKS, DEFAULT_SAMPLE_BLOCKS,
};
use memzip_study::float_bounds::ElementFormat;
use memzip_study::shannon::DEFAULT_MAX_DISTINCT;
use pyo3::prelude::*;

use crate::codec::load_table;
use crate::errors::{guard, os_error, trace_error, value_error};

/// The Python exception of an analysis's error, with its message. A codec
/// failing on a block (`verify`) stays a `TraceError`, as it was.
fn analyze_failure(error: AnalyzeError) -> PyErr {
    let message = error.to_string();
    match error {
        AnalyzeError::Io { source, .. } => os_error(&source, message),
        AnalyzeError::Trace { .. } | AnalyzeError::Codec { .. } => trace_error(message),
        AnalyzeError::Config { .. } | AnalyzeError::Nothing { .. } => value_error(message),
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(analyze_json, m)?)?;
    m.add("DEFAULT_SAMPLE_BLOCKS", DEFAULT_SAMPLE_BLOCKS)?;
    Ok(())
}

/// Runs ``memzip analyze`` on ``paths`` and returns its ``--json`` document.
#[pyfunction]
#[pyo3(signature = (
    paths, codecs=None, mag_bytes=32, include_reads=false, sample_blocks=DEFAULT_SAMPLE_BLOCKS,
    e2mc_table=None, verify=false, shannon_bits=Vec::new(), shannon_max_distinct=DEFAULT_MAX_DISTINCT,
    chunk_blocks=DEFAULT_CHUNK_BLOCKS, e2mc_offline=false, costs="memzip", element_format=None
))]
#[allow(clippy::too_many_arguments)]
fn analyze_json(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    codecs: Option<Vec<String>>,
    mag_bytes: usize,
    include_reads: bool,
    sample_blocks: u64,
    e2mc_table: Option<PathBuf>,
    verify: bool,
    shannon_bits: Vec<u32>,
    shannon_max_distinct: usize,
    chunk_blocks: usize,
    e2mc_offline: bool,
    costs: &str,
    element_format: Option<&str>,
) -> PyResult<String> {
    guard(|| {
        // As the CLI: no list means every codec; a list entry may hold
        // several comma-separated specs.
        let codecs: Vec<String> = match codecs {
            None => memzip::codec::registry::codec_names().into_iter().map(String::from).collect(),
            Some(lists) => lists.iter().flat_map(|list| split_codec_list(list)).collect(),
        };
        let mut options = AnalyzeOptions::new(codecs);
        options.mag_bytes = mag_bytes;
        options.costs = costs.parse::<CostProfile>().map_err(value_error)?;
        options.include_reads = include_reads;
        options.sample_blocks = sample_blocks;
        options.verify = verify;
        options.shannon_bits = shannon_bits;
        options.shannon_max_distinct = shannon_max_distinct;
        options.chunk_blocks = chunk_blocks.max(1);
        options.e2mc_self_profile = e2mc_offline;
        options.element_format = element_format.map(str::parse::<ElementFormat>).transpose().map_err(value_error)?;
        if let Some(path) = &e2mc_table {
            options.e2mc_table = Some(load_table(path)?);
        }
        let traces = py.detach(|| analyze::analyze(&paths, &options)).map_err(analyze_failure)?;
        let report = AnalyzeReport {
            codecs: &options.codecs,
            include_reads: options.include_reads,
            sample_blocks: options.sample_blocks,
            e2mc_table: e2mc_table.as_ref().map(|p| p.display().to_string()),
            e2mc_offline: options.e2mc_self_profile,
            shannon_bits: &options.shannon_bits,
            traces: &traces,
        };
        serde_json::to_string(&report).map_err(|e| value_error(format!("cannot serialize results: {e}")))
    })
}
