//! The codec behind a `memzip_codec *`: spec resolution (cost profile, E2MC
//! table), compress / decompress / verify on caller memory, and the handle's
//! statistics. Safe Rust; `lib.rs` turns C pointers into the slices used here.

use std::cell::RefCell;
use std::ffi::CString;
use std::sync::Arc;

use memzip::codec::adaptive::DEFAULT_LAMBDA;
use memzip::codec::cost_profile::CostProfile;
use memzip::codec::e2mc::CodeTable;
use memzip::codec::registry;
use memzip::codec::spec::CodecSpec;
use memzip::codec::{CompressorsUsed, UNCOMPRESSED};
use memzip::mc::EnergyParams;
use memzip::{Codec, CompressedBlock, ConfigError, Geometry};

use crate::error::{Failure, MEMZIP_ERR_CORRUPT, MEMZIP_ERR_IO, MEMZIP_ERR_MISMATCH, MEMZIP_ERR_SPEC};
use crate::info::memzip_block_info;
use crate::stats::Stats;

/// `costs` of `memzip_codec_new`: each codec's own latencies.
pub const MEMZIP_COSTS_DEFAULT: i32 = 0;
/// `costs` of `memzip_codec_new`: [`CostProfile::Paper004`].
pub const MEMZIP_COSTS_PAPER004: i32 = 1;

/// Largest block any codec takes (`memzip::geometry::BLOCK_SIZES`).
const MAX_BLOCK_BYTES: usize = 128;

/// The energy model's figures for one handle, looked up per block without
/// allocating (`memzip::mc::energy` holds the figures and their sources).
struct Energy {
    /// Compression energy per compressor, in `Codec::compressor_names` order.
    compress_pj: Vec<f64>,
    /// Decompression energy per encoding id (0 for raw blocks).
    decompress_pj: Vec<f64>,
}

impl Energy {
    fn new(codec: &dyn Codec, encoding_names: &[String]) -> Self {
        let params = EnergyParams::default();
        let block_bits = codec.geometry().block_bits();
        let of = |name: &str| registry::energy(name, &params, block_bits).unwrap_or_default();
        let compress_pj = codec.compressor_names().iter().map(|name| of(name).compress_pj).collect();
        // As the memory controller does: the adaptive selector names its
        // encodings `<candidate>/<encoding>`, decoded by that candidate.
        let known = registry::codec_names();
        let decompress_pj = encoding_names
            .iter()
            .enumerate()
            .map(|(id, name)| match name.split_once('/') {
                _ if id == UNCOMPRESSED as usize => 0.0,
                Some((candidate, _)) if known.contains(&candidate) => of(candidate).decompress_pj,
                _ => of(codec.name()).decompress_pj,
            })
            .collect();
        Energy { compress_pj, decompress_pj }
    }

    fn compress(&self, used: CompressorsUsed) -> f64 {
        match used {
            CompressorsUsed::All => self.compress_pj.iter().sum(),
            CompressorsUsed::One(index) => self.compress_pj.get(index).copied().unwrap_or(0.0),
            CompressorsUsed::Nothing => 0.0,
        }
    }
}

/// One codec instance and everything the C ABI hands out about it.
pub struct CodecHandle {
    codec: Box<dyn Codec>,
    geometry: Geometry,
    spec: CString,
    encoding_names: Vec<CString>,
    metadata_bits: u32,
    energy: Energy,
    /// An online E2MC phase runs: a raw block was only counted, no
    /// compressor ran (as the memory controller charges it).
    sampling_open: bool,
    /// The last block compressed, its payload buffer reused.
    compressed: CompressedBlock,
    /// A payload handed to `decompress`, its buffer reused (`&self`: the
    /// handle is used by one thread at a time, so the cell is never contended).
    decode: RefCell<CompressedBlock>,
    stats: Stats,
}

impl CodecHandle {
    /// Builds the codec `spec_text` names for `block_bytes`-byte blocks sized
    /// in `granule_bytes` units, with the cost profile `costs` and, when
    /// given, the JSON text of an offline E2MC table.
    pub fn new(
        spec_text: &str,
        block_bytes: u32,
        granule_bytes: u32,
        costs: i32,
        e2mc_table: Option<(&str, String)>,
    ) -> Result<Self, Failure> {
        let geometry =
            Geometry::with_granule(block_bytes as usize, granule_bytes as usize).map_err(|e| Failure::spec(&e))?;
        let profile = match costs {
            MEMZIP_COSTS_DEFAULT => CostProfile::CodecDefaults,
            MEMZIP_COSTS_PAPER004 => CostProfile::Paper004,
            other => {
                return Err(Failure::new(
                    MEMZIP_ERR_SPEC,
                    format!(
                        "invalid costs '{other}': expected MEMZIP_COSTS_DEFAULT ({MEMZIP_COSTS_DEFAULT}) \
                         or MEMZIP_COSTS_PAPER004 ({MEMZIP_COSTS_PAPER004})"
                    ),
                ))
            }
        };
        let table = match e2mc_table {
            None => None,
            Some((path, json)) => {
                let table = CodeTable::from_json(&json)
                    .map_err(|e| Failure::new(MEMZIP_ERR_SPEC, format!("E2MC table '{path}': {e}")))?;
                Some(Arc::new(table))
            }
        };
        let spec = resolve(spec_text, geometry, profile, table).map_err(|e| Failure::spec(&e))?;
        let codec = registry::build(&spec).map_err(|e| Failure::spec(&e))?;
        let names = codec.encoding_names();
        let energy = Energy::new(codec.as_ref(), &names);
        let to_c =
            |text: String| CString::new(text).map_err(|e| Failure::new(MEMZIP_ERR_SPEC, format!("NUL byte in '{e}'")));
        let adaptive_candidates = match spec.name.as_str() {
            "adaptive" => Some(spec.candidate_specs().map_err(|e| Failure::spec(&e))?),
            _ => None,
        };
        Ok(CodecHandle {
            geometry,
            spec: to_c(spec.to_string())?,
            metadata_bits: codec.metadata_bits(),
            sampling_open: samples_online(&spec),
            stats: Stats::new(&spec, geometry, &names, adaptive_candidates.as_deref()),
            encoding_names: names.into_iter().map(to_c).collect::<Result<_, _>>()?,
            energy,
            compressed: CompressedBlock {
                payload: Vec::with_capacity(block_bytes as usize + 8),
                ..CompressedBlock::default()
            },
            decode: RefCell::new(CompressedBlock {
                payload: Vec::with_capacity(block_bytes as usize + 8),
                ..CompressedBlock::default()
            }),
            codec,
        })
    }

    pub fn spec(&self) -> &CString {
        &self.spec
    }

    pub fn encoding_names(&self) -> &[CString] {
        &self.encoding_names
    }

    pub fn metadata_bits(&self) -> u32 {
        self.metadata_bits
    }

    pub fn block_bytes(&self) -> usize {
        self.geometry.block_bytes()
    }

    pub fn stats_json(&self) -> String {
        self.stats.to_json()
    }

    fn check_block_len(&self, what: &str, len: usize) -> Result<(), Failure> {
        if len == self.block_bytes() {
            Ok(())
        } else {
            Err(Failure::argument(format!(
                "{what} has {len} bytes, the codec takes {}-byte blocks",
                self.block_bytes()
            )))
        }
    }

    /// Compresses `block` and copies its bitstream to the front of
    /// `payload` (at least one block long, so a block stored raw fits too;
    /// checked before the codec runs, so a short buffer changes nothing).
    pub fn compress(&mut self, block: &[u8], payload: &mut [u8]) -> Result<memzip_block_info, Failure> {
        self.check_block_len("block", block.len())?;
        if payload.len() < self.block_bytes() {
            return Err(Failure::argument(format!(
                "payload buffer has {} bytes, needs at least the block size ({})",
                payload.len(),
                self.block_bytes()
            )));
        }
        self.codec.compress_into(block, &mut self.compressed).map_err(|e| Failure::codec("compress", &e))?;
        let compressed = &self.compressed;
        let payload_bytes = compressed.compressed_bits.div_ceil(8);
        let bitstream = compressed.payload.get(..payload_bytes).ok_or_else(|| {
            Failure::new(MEMZIP_ERR_CORRUPT, "compress: the codec returned a payload shorter than its size")
        })?;
        let stored = payload.get_mut(..payload_bytes).ok_or_else(|| {
            Failure::new(MEMZIP_ERR_CORRUPT, "compress: the codec returned a payload longer than a block")
        })?;
        stored.copy_from_slice(bitstream);
        let used = self.codec.last_compressors();
        let raw_while_sampling = self.sampling_open && !compressed.is_compressed();
        let info = memzip_block_info {
            encoding: compressed.encoding as u32,
            compressed_bits: compressed.compressed_bits as u32,
            granule_bytes: compressed.mag_bytes as u32,
            burst_count: compressed.burst_count as u32,
            compress_cycles: self.codec.compress_cycles(compressed),
            decompress_cycles: self.codec.decompress_cycles(compressed.encoding),
            compress_pj: if raw_while_sampling { 0.0 } else { self.energy.compress(used) },
            decompress_pj: self.energy.decompress_pj.get(compressed.encoding as usize).copied().unwrap_or(0.0),
        };
        self.stats.record(&info, used);
        Ok(info)
    }

    /// Decodes a payload into `block` (one block long).
    pub fn decompress(
        &self,
        payload: &[u8],
        encoding: u32,
        compressed_bits: u32,
        block: &mut [u8],
    ) -> Result<(), Failure> {
        self.check_block_len("output block", block.len())?;
        let encoding = u8::try_from(encoding)
            .map_err(|_| Failure::new(MEMZIP_ERR_CORRUPT, format!("decompress: unknown encoding id {encoding}")))?;
        // Only the meaningful bytes: a caller may pass its whole buffer.
        let meaningful = &payload[..payload.len().min((compressed_bits as usize).div_ceil(8))];
        let mut decode = |compressed: &mut CompressedBlock| {
            compressed.payload.clear();
            compressed.payload.extend_from_slice(meaningful);
            compressed.encoding = encoding;
            compressed.compressed_bits = compressed_bits as usize;
            compressed.mag_bytes = self.geometry.mag_rounded_bytes(compressed_bits as usize);
            compressed.burst_count = self.geometry.burst_count(compressed_bits as usize);
            self.codec.decompress_into(compressed, block)
        };
        let result = match self.decode.try_borrow_mut() {
            Ok(mut reused) => decode(&mut reused),
            Err(_) => decode(&mut CompressedBlock::default()),
        };
        result.map_err(|e| Failure::codec("decompress", &e))
    }

    /// Decodes a payload and compares it with `original`.
    pub fn verify(&self, payload: &[u8], encoding: u32, compressed_bits: u32, original: &[u8]) -> Result<(), Failure> {
        self.check_block_len("original block", original.len())?;
        let mut decoded = [0u8; MAX_BLOCK_BYTES];
        let decoded = &mut decoded[..original.len()];
        self.decompress(payload, encoding, compressed_bits, decoded)?;
        match decoded.iter().zip(original).position(|(d, o)| d != o) {
            None => Ok(()),
            Some(at) => Err(Failure::new(
                MEMZIP_ERR_MISMATCH,
                format!(
                    "verify: decoded block differs from the original at byte {at} (0x{:02x}, expected 0x{:02x}; \
                     encoding {}, {compressed_bits} bits)",
                    decoded[at],
                    original[at],
                    self.encoding_name(encoding),
                ),
            )),
        }
    }

    fn encoding_name(&self, encoding: u32) -> String {
        self.encoding_names
            .get(encoding as usize)
            .map_or_else(|| format!("id {encoding}"), |name| name.to_string_lossy().into_owned())
    }

    /// Ends an online sampling phase (E2MC builds its code table); blocks
    /// compressed afterwards are coded.
    pub fn end_sampling(&mut self) -> Result<(), Failure> {
        self.codec.end_sampling().map_err(|e| Failure::codec("end sampling", &e))?;
        self.sampling_open = false;
        Ok(())
    }
}

/// The spec the handle runs: the text parsed for the geometry, the cost
/// profile applied, the E2MC table handed to the e2mc codec of its symbol
/// length (`sampling=offline` unless the spec says otherwise), and the
/// adaptive selector's defaults written out, so the spec names every knob.
fn resolve(
    text: &str,
    geometry: Geometry,
    profile: CostProfile,
    table: Option<Arc<CodeTable>>,
) -> Result<CodecSpec, ConfigError> {
    let mut spec = CodecSpec::parse(text, geometry)?;
    let table_bits = table.as_ref().map(|table| table.symbol_bits);
    spec.table = table;
    let mut spec = profile.apply(&spec)?;
    if spec.name == "adaptive" {
        if !spec.has("lambda") {
            spec.set("lambda", &DEFAULT_LAMBDA.to_string())?;
        }
        let candidates = spec
            .candidate_specs()?
            .into_iter()
            .map(|candidate| offline_if_coded(candidate, table_bits))
            .collect::<Result<Vec<_>, _>>()?;
        spec.set_candidates(candidates);
        Ok(spec)
    } else {
        offline_if_coded(spec, table_bits)
    }
}

fn offline_if_coded(mut spec: CodecSpec, table_bits: Option<u32>) -> Result<CodecSpec, ConfigError> {
    if table_bits.is_some_and(|bits| spec_symbol_bits(&spec) == Some(bits)) && !spec.has("sampling") {
        spec.set("sampling", "offline")?;
    }
    Ok(spec)
}

/// The symbol length of an E2MC-coded codec (`e2mcN`, and SLC on E2MC16).
fn spec_symbol_bits(spec: &CodecSpec) -> Option<u32> {
    match spec.name.as_str() {
        "slc" => Some(16),
        name => name.strip_prefix("e2mc")?.parse().ok(),
    }
}

/// Whether an E2MC-coded codec in the spec samples online.
fn samples_online(spec: &CodecSpec) -> bool {
    if spec.name == "adaptive" {
        return spec.candidate_specs().is_ok_and(|candidates| candidates.iter().any(samples_online));
    }
    spec_symbol_bits(spec).is_some() && spec.raw("sampling") != Some("offline")
}

/// Reads an E2MC table file for [`CodecHandle::new`].
pub fn read_table(path: &str) -> Result<String, Failure> {
    std::fs::read_to_string(path)
        .map_err(|e| Failure::new(MEMZIP_ERR_IO, format!("cannot read E2MC table '{path}': {e}")))
}
