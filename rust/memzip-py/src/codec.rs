//! `memzip.Codec`, `memzip.Compressed` and `memzip.Sizes`: one codec of the
//! registry, built from the same spec strings as `-memzip_codec`.

use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};

use memzip::codec::cost_profile::CostProfile;
use memzip::codec::registry;
use memzip::codec::spec::CodecSpec;
use memzip::{Codec, CompressedBlock, Geometry};
use memzip_study::analyze::OfflineTable;
use numpy::{PyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::{PyBytes, PyMemoryView};

use crate::errors::{guard, os_error, value_error};

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyCodec>()?;
    m.add_class::<PyCompressed>()?;
    m.add_class::<Sizes>()?;
    m.add_function(wrap_pyfunction!(codec_names, m)?)?;
    Ok(())
}

/// The codec names the registry knows (``none``, ``bdi``, ``mag_bdi``, ...),
/// in the order ``memzip analyze`` lists them.
#[pyfunction]
fn codec_names() -> Vec<&'static str> {
    registry::codec_names()
}

/// One block as stored in DRAM: encoding id (0 = uncompressed), the payload
/// bitstream (MSB first, ``compressed_bits`` of it meaningful), its size
/// rounded up to the memory access granularity (``mag_bytes``) and in DRAM
/// bursts, and the codec's latency in DRAM-controller cycles.
#[pyclass(module = "memzip", name = "Compressed", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct PyCompressed {
    #[pyo3(get)]
    encoding: u8,
    payload: Vec<u8>,
    #[pyo3(get)]
    compressed_bits: usize,
    #[pyo3(get)]
    mag_bytes: usize,
    #[pyo3(get)]
    burst_count: usize,
    #[pyo3(get)]
    compress_cycles: u32,
    #[pyo3(get)]
    decompress_cycles: u32,
}

#[pymethods]
impl PyCompressed {
    /// A stored block, e.g. read back from a file, to hand to
    /// ``Codec.decompress``; only ``encoding``, ``payload`` and
    /// ``compressed_bits`` matter for decoding.
    #[new]
    #[pyo3(signature = (encoding, payload, compressed_bits, mag_bytes=0, burst_count=0, compress_cycles=0, decompress_cycles=0))]
    fn new(
        encoding: u8,
        payload: Vec<u8>,
        compressed_bits: usize,
        mag_bytes: usize,
        burst_count: usize,
        compress_cycles: u32,
        decompress_cycles: u32,
    ) -> Self {
        PyCompressed { encoding, payload, compressed_bits, mag_bytes, burst_count, compress_cycles, decompress_cycles }
    }

    /// The payload bitstream.
    #[getter]
    fn payload<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.payload)
    }

    /// ``(compress_cycles, decompress_cycles)`` of this block.
    #[getter]
    fn latency(&self) -> (u32, u32) {
        (self.compress_cycles, self.decompress_cycles)
    }

    /// True when the block is stored with an encoding other than uncompressed.
    #[getter]
    fn is_compressed(&self) -> bool {
        self.encoding != memzip::codec::UNCOMPRESSED
    }

    fn __repr__(&self) -> String {
        format!(
            "Compressed(encoding={}, compressed_bits={}, mag_bytes={}, burst_count={}, latency=({}, {}))",
            self.encoding,
            self.compressed_bits,
            self.mag_bytes,
            self.burst_count,
            self.compress_cycles,
            self.decompress_cycles
        )
    }
}

impl PyCompressed {
    fn from_block(block: CompressedBlock, codec: &dyn Codec) -> Self {
        PyCompressed {
            encoding: block.encoding,
            compressed_bits: block.compressed_bits,
            mag_bytes: block.mag_bytes,
            burst_count: block.burst_count,
            compress_cycles: codec.compress_cycles(&block),
            decompress_cycles: codec.decompress_cycles(block.encoding),
            payload: block.payload,
        }
    }

    fn to_block(&self) -> CompressedBlock {
        CompressedBlock {
            encoding: self.encoding,
            payload: self.payload.clone(),
            compressed_bits: self.compressed_bits,
            mag_bytes: self.mag_bytes,
            burst_count: self.burst_count,
        }
    }
}

/// Per-block results of ``Codec.sizes``: numpy arrays, one entry per block.
#[pyclass(module = "memzip", frozen)]
pub struct Sizes {
    /// Exact stored size in bits (uint32).
    #[pyo3(get)]
    compressed_bits: Py<PyArray1<u32>>,
    /// Bytes DRAM moves: the size rounded up to the MAG (uint32).
    #[pyo3(get)]
    mag_bytes: Py<PyArray1<u32>>,
    /// MAG-sized DRAM bursts (uint32).
    #[pyo3(get)]
    burst_count: Py<PyArray1<u32>>,
    /// Encoding id per block (uint8; names in ``Codec.encoding_names``).
    #[pyo3(get)]
    encoding: Py<PyArray1<u8>>,
}

#[pymethods]
impl Sizes {
    fn __len__(&self, py: Python<'_>) -> usize {
        self.encoding.bind(py).len().unwrap_or(0)
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!("Sizes({} blocks)", self.__len__(py))
    }
}

/// The per-block sizes gathered in Rust before they become numpy arrays.
#[derive(Default)]
struct SizeColumns {
    compressed_bits: Vec<u32>,
    mag_bytes: Vec<u32>,
    burst_count: Vec<u32>,
    encoding: Vec<u8>,
}

/// A memzip codec (``none``, ``bdi``, ``mag_bdi``, ``fpc``, ``cpack``,
/// ``cpack_z``, ``bpc``, ``e2mc4`` .. ``e2mc32``, ``adaptive``) built from a spec
/// string as given to ``-memzip_codec``, e.g. ``mag_bdi:bases=8+4+2`` or
/// ``adaptive:lambda=6,candidates=fpc/cpack_z/bdi``.
///
/// Codecs that learn (E2MC's online sampling, the adaptive selector) keep
/// their state between calls, as in the simulator: feed blocks in order.
/// An E2MC codec samples online (stores blocks uncompressed) until
/// ``end_sampling()``, unless ``e2mc_table`` names a table from
/// ``memzip e2mc-profile`` for its symbol length.
#[pyclass(module = "memzip", name = "Codec")]
pub struct PyCodec {
    spec: String,
    geometry: Geometry,
    codec: Mutex<Box<dyn Codec>>,
}

impl PyCodec {
    fn lock(&self) -> MutexGuard<'_, Box<dyn Codec>> {
        // A panic inside a codec call is already an exception; the codec
        // itself is still whole, so a poisoned lock is taken over.
        self.codec.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Reads an `memzip e2mc-profile` table as the CLI does (`--e2mc-table`).
pub fn load_table(path: &PathBuf) -> PyResult<OfflineTable> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| os_error(&e, format!("{}: cannot read E2MC table: {e}", path.display())))?;
    OfflineTable::parse(text).map_err(|e| value_error(format!("{}: {e}", path.display())))
}

/// The bytes of a `bytes`, `bytearray` or any buffer (memoryview, numpy array).
fn block_bytes_of(block: &Bound<'_, PyAny>) -> PyResult<PyBackedBytes> {
    if let Ok(bytes) = block.extract::<PyBackedBytes>() {
        return Ok(bytes);
    }
    let view = PyMemoryView::from(block)?;
    view.call_method0("tobytes")?.extract::<PyBackedBytes>().map_err(Into::into)
}

#[pymethods]
impl PyCodec {
    #[new]
    #[pyo3(signature = (spec, block_bytes=128, mag_bytes=32, e2mc_table=None, costs="memzip"))]
    fn new(
        spec: &str,
        block_bytes: usize,
        mag_bytes: usize,
        e2mc_table: Option<PathBuf>,
        costs: &str,
    ) -> PyResult<Self> {
        guard(|| {
            // Any power of two up to the block: the MAG for DRAM, 1 for a link.
            let geometry = Geometry::with_granule(block_bytes, mag_bytes).map_err(value_error)?;
            let profile = costs.parse::<CostProfile>().map_err(value_error)?;
            let parsed = CodecSpec::parse(spec, geometry).map_err(value_error)?;
            let mut parsed = profile.apply(&parsed).map_err(value_error)?;
            if let Some(path) = &e2mc_table {
                let table = load_table(path)?;
                if parsed.name != table.codec_name() {
                    return Err(value_error(format!(
                        "{}: the E2MC table codes {}-bit symbols, for codec {}, not {}",
                        path.display(),
                        table.symbol_bits,
                        table.codec_name(),
                        parsed.name
                    )));
                }
                if !parsed.has("sampling") {
                    parsed.set("sampling", "offline").map_err(value_error)?;
                }
                parsed.table = Some(table.table);
            }
            let codec = registry::build(&parsed).map_err(value_error)?;
            Ok(PyCodec { spec: spec.trim().to_string(), geometry, codec: Mutex::new(codec) })
        })
    }

    /// The registry name, e.g. ``mag_bdi``.
    #[getter]
    fn name(&self) -> String {
        self.lock().name().to_string()
    }

    /// The spec string this codec was built from.
    #[getter]
    fn spec(&self) -> &str {
        &self.spec
    }

    #[getter]
    fn block_bytes(&self) -> usize {
        self.geometry.block_bytes()
    }

    /// Memory access granularity in bytes.
    #[getter]
    fn mag_bytes(&self) -> usize {
        self.geometry.mag_bytes()
    }

    /// Names of the encoding ids, indexed by id (0 is ``uncompressed``).
    #[getter]
    fn encoding_names(&self) -> Vec<String> {
        self.lock().encoding_names()
    }

    /// Metadata bits the memory controller keeps per block.
    #[getter]
    fn metadata_bits(&self) -> u32 {
        self.lock().metadata_bits()
    }

    /// Default ``(compress_cycles, decompress_cycles)`` from the papers.
    #[getter]
    fn latency(&self) -> (u32, u32) {
        let latency = self.lock().latency();
        (latency.compress_cycles, latency.decompress_cycles)
    }

    /// Compresses one block of ``block_bytes`` bytes (bytes, bytearray or
    /// any buffer such as a numpy ``uint8`` row).
    fn compress(&self, block: &Bound<'_, PyAny>) -> PyResult<PyCompressed> {
        let bytes = block_bytes_of(block)?;
        guard(|| {
            let mut codec = self.lock();
            let compressed = codec.compress(&bytes).map_err(value_error)?;
            Ok(PyCompressed::from_block(compressed, codec.as_ref()))
        })
    }

    /// Decodes a stored block back to its bytes; a corrupt or truncated
    /// payload raises ``ValueError``.
    fn decompress<'py>(&self, py: Python<'py>, compressed: &PyCompressed) -> PyResult<Bound<'py, PyBytes>> {
        let decoded = guard(|| self.lock().decompress(&compressed.to_block()).map_err(value_error))?;
        Ok(PyBytes::new(py, &decoded))
    }

    /// Ends an online sampling phase: E2MC builds its code table from the
    /// blocks compressed so far. Other codecs ignore it.
    fn end_sampling(&self) -> PyResult<()> {
        guard(|| self.lock().end_sampling().map_err(value_error))
    }

    /// Compresses every row of a numpy ``uint8`` array of shape
    /// ``(N, block_bytes)`` in order (the loop runs in Rust without the
    /// GIL) and returns the sizes and encodings per block.
    fn sizes(&self, py: Python<'_>, blocks: PyReadonlyArray2<'_, u8>) -> PyResult<Sizes> {
        let view = blocks.as_array();
        let columns = guard(|| {
            py.detach(|| {
                let mut codec = self.lock();
                let mut out = SizeColumns::default();
                for (index, row) in view.rows().into_iter().enumerate() {
                    let block: Cow<[u8]> =
                        row.as_slice().map(Cow::Borrowed).unwrap_or_else(|| Cow::Owned(row.to_vec()));
                    let c = codec
                        .compress(&block)
                        .map_err(|e| format!("codec {} failed on block {index}: {e}", self.spec))?;
                    out.compressed_bits.push(c.compressed_bits as u32);
                    out.mag_bytes.push(c.mag_bytes as u32);
                    out.burst_count.push(c.burst_count as u32);
                    out.encoding.push(c.encoding);
                }
                Ok::<_, String>(out)
            })
            .map_err(value_error)
        })?;
        Ok(Sizes {
            compressed_bits: PyArray1::from_vec(py, columns.compressed_bits).unbind(),
            mag_bytes: PyArray1::from_vec(py, columns.mag_bytes).unbind(),
            burst_count: PyArray1::from_vec(py, columns.burst_count).unbind(),
            encoding: PyArray1::from_vec(py, columns.encoding).unbind(),
        })
    }

    fn __repr__(&self) -> String {
        format!(
            "Codec({:?}, block_bytes={}, mag_bytes={})",
            self.spec,
            self.geometry.block_bytes(),
            self.geometry.mag_bytes()
        )
    }
}
