//! `memzip.analyze`: the CLI's `memzip analyze` (memzip_study::analyze), its
//! JSON document handed to Python, which makes the table.
//!
//! The analysis reports every failure as one string; to raise the right
//! Python exception, the cheap checks run first here: the options (an
//! analysis of no traces), then per trace the file (`OSError`), its header
//! (`TraceError`), the geometry and every codec spec at it (`ValueError`).
//! What can still fail afterwards happens while streaming the records: a
//! corrupt trace (`TraceError`).

use std::fs::File;
use std::path::PathBuf;

use memzip::codec::cost_profile::CostProfile;
use memzip::codec::registry::build;
use memzip::trace::TraceReader;
use memzip_study::analyze::{
    self, resolved_spec, split_codec_list, trace_geometry, AnalyzeOptions, AnalyzeReport, DEFAULT_CHUNK_BLOCKS,
    DEFAULT_SAMPLE_BLOCKS,
};
use memzip_study::shannon::{ShannonRun, DEFAULT_MAX_DISTINCT};
use pyo3::prelude::*;

use crate::codec::load_table;
use crate::errors::{guard, os_error, trace_error, trace_failure, value_error};

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(analyze_json, m)?)?;
    m.add("DEFAULT_SAMPLE_BLOCKS", DEFAULT_SAMPLE_BLOCKS)?;
    Ok(())
}

/// The `ValueError`/`OSError`/`TraceError` a trace would fail with, before
/// the (single-string-error) analysis streams it.
fn check_trace(path: &PathBuf, options: &AnalyzeOptions) -> PyResult<()> {
    let file = File::open(path).map_err(|e| os_error(&e, format!("{}: cannot open trace: {e}", path.display())))?;
    let reader = TraceReader::new(file).map_err(|e| trace_failure(path, e))?;
    let block_bytes = reader.block_bytes();
    let geometry = trace_geometry(path, block_bytes, options.mag_bytes).map_err(value_error)?;
    for spec in &options.codecs {
        // Knobs and names are checked without the offline table; the table
        // itself was checked when it was loaded.
        let resolved = resolved_spec(spec, geometry, options.costs).map_err(value_error)?;
        build(&resolved).map_err(value_error)?;
    }
    Ok(())
}

/// Runs ``memzip analyze`` on ``paths`` and returns its ``--json`` document.
#[pyfunction]
#[pyo3(signature = (
    paths, codecs=None, mag_bytes=32, include_reads=false, sample_blocks=DEFAULT_SAMPLE_BLOCKS,
    e2mc_table=None, verify=false, shannon_bits=Vec::new(), shannon_max_distinct=DEFAULT_MAX_DISTINCT,
    chunk_blocks=DEFAULT_CHUNK_BLOCKS, e2mc_offline=false, costs="memzip"
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
        if let Some(path) = &e2mc_table {
            options.e2mc_table = Some(load_table(path)?);
        }
        // With no traces the analysis only checks its options.
        analyze::analyze::<PathBuf>(&[], &options).map_err(value_error)?;
        for &bits in &options.shannon_bits {
            ShannonRun::new(bits, options.shannon_max_distinct).map_err(value_error)?;
        }
        for path in &paths {
            check_trace(path, &options)?;
        }
        let traces = py.detach(|| analyze::analyze(&paths, &options)).map_err(trace_error)?;
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
