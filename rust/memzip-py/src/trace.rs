//! `-memzip_trace` files as numpy arrays: `read_trace` (whole file),
//! `iter_trace` (chunks of a bounded number of records, for traces larger
//! than memory) and `write_trace` (the library's writer, e.g. for tests).

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, TryLockError};

use memzip::trace::{AccessKind, TraceReader, TraceWriter, DEFAULT_LEVEL};
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyRuntimeError, PyStopIteration};
use pyo3::prelude::*;

use crate::errors::{guard, os_error, trace_failure, value_error};

/// Records per chunk of `iter_trace` unless the caller says otherwise
/// (8 MiB of 128-byte blocks).
const DEFAULT_CHUNK_RECORDS: usize = 65536;

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<TraceChunk>()?;
    m.add_class::<TraceIter>()?;
    m.add_function(wrap_pyfunction!(read_trace, m)?)?;
    m.add_function(wrap_pyfunction!(iter_trace, m)?)?;
    m.add_function(wrap_pyfunction!(write_trace, m)?)?;
    m.add("KIND_READ", AccessKind::Read as u8)?;
    m.add("KIND_WRITE", AccessKind::Write as u8)?;
    m.add("KIND_MEMCPY", AccessKind::Memcpy as u8)?;
    Ok(())
}

/// Consecutive records of a trace as numpy arrays, one entry per record.
#[pyclass(module = "memzip", frozen)]
pub struct TraceChunk {
    /// Access kind (uint8): 0 read, 1 write-back, 2 host-to-device copy.
    #[pyo3(get)]
    kind: Py<PyArray1<u8>>,
    /// Memory controller id (uint32).
    #[pyo3(get)]
    controller: Py<PyArray1<u32>>,
    /// Simulator cycle (uint64).
    #[pyo3(get)]
    cycle: Py<PyArray1<u64>>,
    /// Block address (uint64).
    #[pyo3(get)]
    address: Py<PyArray1<u64>>,
    /// Block contents (uint8, shape ``(N, block_bytes)``).
    #[pyo3(get)]
    data: Py<PyArray2<u8>>,
    /// Index of this chunk's first record in the trace.
    #[pyo3(get)]
    first_record: u64,
    #[pyo3(get)]
    block_bytes: usize,
    records: usize,
}

#[pymethods]
impl TraceChunk {
    fn __len__(&self) -> usize {
        self.records
    }

    fn __repr__(&self) -> String {
        format!(
            "TraceChunk({} records from record {}, {}-byte blocks)",
            self.records, self.first_record, self.block_bytes
        )
    }
}

/// Records gathered in Rust before they become numpy arrays.
#[derive(Default)]
struct Columns {
    kind: Vec<u8>,
    controller: Vec<u32>,
    cycle: Vec<u64>,
    address: Vec<u64>,
    data: Vec<u8>,
}

impl Columns {
    fn len(&self) -> usize {
        self.kind.len()
    }

    fn into_chunk(self, py: Python<'_>, first_record: u64, block_bytes: usize) -> PyResult<TraceChunk> {
        let records = self.len();
        let data = Array2::from_shape_vec((records, block_bytes), self.data)
            .map_err(|e| value_error(format!("trace data does not form {records} blocks: {e}")))?;
        Ok(TraceChunk {
            kind: PyArray1::from_vec(py, self.kind).unbind(),
            controller: PyArray1::from_vec(py, self.controller).unbind(),
            cycle: PyArray1::from_vec(py, self.cycle).unbind(),
            address: PyArray1::from_vec(py, self.address).unbind(),
            data: data.into_pyarray(py).unbind(),
            first_record,
            block_bytes,
            records,
        })
    }
}

/// An open trace and the index of its next record.
struct OpenTrace {
    path: PathBuf,
    reader: TraceReader<File>,
    next_record: u64,
}

impl OpenTrace {
    /// Opens `path` and checks its header, with the CLI's messages.
    fn open(path: &Path) -> PyResult<Self> {
        let file = File::open(path).map_err(|e| os_error(&e, format!("{}: cannot open trace: {e}", path.display())))?;
        let reader = TraceReader::new(file).map_err(|e| trace_failure(path, e))?;
        Ok(OpenTrace { path: path.to_path_buf(), reader, next_record: 0 })
    }

    /// Up to `max_records` records (all when `None`).
    fn read(&mut self, max_records: Option<usize>) -> PyResult<Columns> {
        let mut columns = Columns::default();
        while max_records.is_none_or(|max| columns.len() < max) {
            let Some(record) = self.reader.next() else { break };
            let record = record.map_err(|e| trace_failure(&self.path, e))?;
            columns.kind.push(record.kind as u8);
            columns.controller.push(record.controller);
            columns.cycle.push(record.cycle);
            columns.address.push(record.address);
            columns.data.extend_from_slice(&record.data);
        }
        self.next_record += columns.len() as u64;
        Ok(columns)
    }
}

/// Reads a whole ``-memzip_trace`` file into numpy arrays (for traces that
/// fit in memory; ``iter_trace`` streams larger ones).
#[pyfunction]
fn read_trace(py: Python<'_>, path: PathBuf) -> PyResult<TraceChunk> {
    guard(|| {
        let mut trace = OpenTrace::open(&path)?;
        let block_bytes = trace.reader.block_bytes();
        let columns = py.detach(|| trace.read(None))?;
        columns.into_chunk(py, 0, block_bytes)
    })
}

/// Iterator over a trace in chunks of at most ``chunk_records`` records;
/// memory stays at one chunk whatever the trace size.
#[pyclass(module = "memzip")]
pub struct TraceIter {
    /// `None` once the trace ended or failed.
    trace: Mutex<Option<OpenTrace>>,
    chunk_records: usize,
    #[pyo3(get)]
    block_bytes: usize,
}

#[pymethods]
impl TraceIter {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<TraceChunk> {
        guard(|| {
            // Waiting for the lock while holding the GIL could deadlock with
            // a thread that holds the lock and needs the GIL for its arrays.
            let mut slot = match self.trace.try_lock() {
                Ok(slot) => slot,
                Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
                Err(TryLockError::WouldBlock) => {
                    return Err(PyRuntimeError::new_err("this trace iterator is being read by another thread"))
                }
            };
            let Some(trace) = slot.as_mut() else {
                return Err(PyStopIteration::new_err(()));
            };
            let first = trace.next_record;
            let chunk_records = self.chunk_records;
            let read = py.detach(|| trace.read(Some(chunk_records)));
            match read {
                Ok(columns) if columns.len() > 0 => columns.into_chunk(py, first, self.block_bytes),
                Ok(_) => {
                    *slot = None;
                    Err(PyStopIteration::new_err(()))
                }
                Err(error) => {
                    *slot = None;
                    Err(error)
                }
            }
        })
    }
}

/// Opens a trace for reading in chunks of ``chunk_records`` records.
#[pyfunction]
#[pyo3(signature = (path, chunk_records=DEFAULT_CHUNK_RECORDS))]
fn iter_trace(path: PathBuf, chunk_records: usize) -> PyResult<TraceIter> {
    if chunk_records == 0 {
        return Err(value_error("invalid chunk_records '0': expected at least 1"));
    }
    guard(|| {
        let trace = OpenTrace::open(&path)?;
        let block_bytes = trace.reader.block_bytes();
        Ok(TraceIter { trace: Mutex::new(Some(trace)), chunk_records, block_bytes })
    })
}

/// One column of `write_trace`: the given array, or `default(index)`.
fn column<T: numpy::Element + Copy>(
    name: &str,
    given: Option<PyReadonlyArray1<'_, T>>,
    records: usize,
    default: impl Fn(usize) -> T,
) -> PyResult<Vec<T>> {
    match given {
        None => Ok((0..records).map(default).collect()),
        Some(array) if array.len() == records => Ok(array.as_array().iter().copied().collect()),
        Some(array) => Err(value_error(format!("{name} has {} entries, data has {records} blocks", array.len()))),
    }
}

/// Writes a trace in the simulator's format (zstd, deltas; see
/// ``rust/memzip/src/trace.rs``). ``data`` is ``uint8 (N, block_bytes)``;
/// missing columns default to write-backs on controller 0 at cycle ``i``
/// and address ``i * block_bytes``. Returns the number of records written.
#[pyfunction]
#[pyo3(signature = (path, data, kind=None, controller=None, cycle=None, address=None, level=DEFAULT_LEVEL))]
#[allow(clippy::too_many_arguments)]
fn write_trace(
    py: Python<'_>,
    path: PathBuf,
    data: PyReadonlyArray2<'_, u8>,
    kind: Option<PyReadonlyArray1<'_, u8>>,
    controller: Option<PyReadonlyArray1<'_, u32>>,
    cycle: Option<PyReadonlyArray1<'_, u64>>,
    address: Option<PyReadonlyArray1<'_, u64>>,
    level: i32,
) -> PyResult<u64> {
    let (records, block_bytes) = (data.shape()[0], data.shape()[1]);
    let kind = column("kind", kind, records, |_| AccessKind::Write as u8)?;
    let kinds = kind
        .iter()
        .map(|&k| match k {
            0 => Ok(AccessKind::Read),
            1 => Ok(AccessKind::Write),
            2 => Ok(AccessKind::Memcpy),
            other => Err(value_error(format!("invalid kind '{other}': expected 0 read, 1 write, 2 memcpy"))),
        })
        .collect::<PyResult<Vec<_>>>()?;
    let controller = column("controller", controller, records, |_| 0)?;
    let cycle = column("cycle", cycle, records, |i| i as u64)?;
    let address = column("address", address, records, |i| (i * block_bytes) as u64)?;
    let view = data.as_array();
    guard(|| {
        let file =
            File::create(&path).map_err(|e| os_error(&e, format!("{}: cannot create trace: {e}", path.display())))?;
        py.detach(|| {
            let fail = |e: memzip::trace::TraceError| format!("{}: {e}", path.display());
            let mut writer = TraceWriter::with_level(BufWriter::new(file), block_bytes, level).map_err(fail)?;
            for (i, row) in view.rows().into_iter().enumerate() {
                let block = row.to_vec();
                writer.write_access(cycle[i], kinds[i], controller[i], address[i], &block).map_err(fail)?;
            }
            let written = writer.records();
            writer.finish().map_err(fail)?;
            Ok::<_, String>(written)
        })
        .map_err(value_error)
    })
}
