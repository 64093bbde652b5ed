//! fpexp: lossless compression of floating-point blocks by their exponent
//! fields (issue 51). Sign and mantissa bits of trained tensors are close to
//! uniform, the exponent is not: a few values around the tensor's scale
//! carry most elements (the observation lossless bf16 weight coders such as
//! DFloat11 and ZipNN build on). fpexp stores sign and mantissa raw and
//! codes each exponent with a canonical Huffman code, E2MC-style (the E2MC
//! paper, Section III-B2c: canonical codes, capped length, a table fixed
//! offline from a profile), but over the exponent's *offset below the
//! block's largest exponent* rather than over the exponent itself. The
//! offset removes the tensor's scale, so one table profiled on one model
//! serves others whose weights sit at another scale (see "Design profile").
//!
//! # Element formats (knob `format`)
//! `fp32` (1/8/23: sign/exponent/mantissa bits), `bf16` (1/8/7, the
//! default), `fp16` (1/5/10), `e4m3` (1/4/3) and `e5m2` (1/5/2); elements are
//! little-endian words, as GPUs store them.
//!
//! # Symbols
//! For a block with largest exponent field `b` (over its non-zero elements)
//! every element is one of
//! * `ZERO`: all bits zero (+0.0; `-0.0` is not ZERO); nothing else stored,
//! * `NEAR(d)`: exponent `b - d` with `d < near` (`near` = 32, or every
//!   exponent when the field has at most 5 bits), then sign and mantissa,
//! * `ESCAPE`: (8-bit exponents only) the raw exponent follows the codeword.
//!
//! # Bitstream (encoding 1; 0 is the block stored raw)
//! `t` (1 bit: which of the two code tables), `b` (exponent bits), then per
//! element in address order its codeword (and after an ESCAPE its raw
//! exponent), then per non-ZERO element in address order its sign and
//! mantissa (1 + mantissa bits). Table 0 is the design profile's code;
//! table 1 is the same profile with ZERO as frequent as everything else
//! together (a 1-bit ZERO code, every other code about one bit longer), for the
//! tensors where zeros dominate (activations after ReLU, sparse gradients).
//! The compressor sizes the block under both tables and keeps the shorter.
//!
//! # MAG-aware
//! As in the MAG-aware paper (Section III) and E2MC (Section III-E) a
//! block is stored coded only if that saves a burst at the memory access
//! granularity; otherwise it is stored raw, so fpexp never moves more bytes
//! than `none`. The metadata is the burst count (as E2MC's, Section III-D).
//!
//! # Latency (memory-controller cycles, n elements per block)
//! Compression, 6 cycles for every format:
//! - cycle 1: the exponent fields are cut out and the block's largest
//!   exponent found (a compare-select tree of log2 n <= 7 levels of 8-bit
//!   comparators);
//! - cycle 2: offsets `b - e` (n subtractors), and both tables' (codeword,
//!   length) looked up in small constant ROMs (at most 34 entries);
//! - cycles 3-4: prefix sums of the code lengths under both tables and of
//!   the non-ZERO flags (Kogge-Stone: log2 n levels of <= 10-bit adders, three
//!   or four levels a cycle), giving every codeword's and mantissa's bit
//!   offset and both totals;
//! - cycle 5: the shorter table chosen, the total compared with the MAG
//!   budget (store coded or raw), every codeword shifted to its offset (one
//!   shifter per element, OR-reduced into the payload);
//! - cycle 6: the mantissa plane appended after the exponent region.
//!
//! Decompression, 3 + ceil(log2(n) / 2) cycles: 6 for bf16 and fp16 (64
//! elements) and fp32 (32) at 128-byte blocks, 7 for the fp8 formats' 128
//! elements. A sequential Huffman decoder needs n steps; E2MC splits a block
//! into parallel decoding ways for that (Section III-F1; Table VI: 143 cycles
//! for one way at 8-bit symbols). fpexp instead finds every codeword's start
//! at once:
//! - cycle 1, speculative length decode: at every bit position of the
//!   exponent region a decoder compares the next 12 bits (the longest code)
//!   with the canonical code's per-length limits (the E2MC paper's decoder,
//!   Section III-F) and yields the length of a codeword starting there (plus
//!   the exponent width after an ESCAPE) and whether it is ZERO;
//! - the next ceil(log2(n) / 2) cycles, pointer jumping: `next(p) = p +
//!   len(p)` composed with itself gives the start of every element's
//!   codeword from bit 0 (`start[i + 2^k] = next^(2^k)(start[i])`, log2 n
//!   levels of one mux per position, two levels a cycle);
//! - one cycle: symbol decode at each start (canonical base + offset,
//!   exponent `b - d`) beside the prefix count of non-ZERO elements (the
//!   mantissa offsets);
//! - one cycle: the words assembled from sign, exponent and mantissa.
//!
//! # Design profile
//! `DESIGN_COUNTS_*` are the symbol counts (offsets from the block's largest
//! exponent) of the weights of one model only, NudeNet's `320n.onnx`
//! (nudenet 3.4.2 on PyPI, 3.0 M float32 weights) cut to each format as
//! `scripts/tensor_corpus.py` does, at 128-byte blocks
//! (`memzip analyze --element-format FORMAT`, "fpexp symbols"). The results
//! in benchmarks/tensors/README.md are on the other models.

use super::declaration::{Declaration, DefaultLatency, EnergyFigure, Knob};
use super::e2mc::huffman::{limited_lengths, CanonicalCode};
use super::spec::CodecSpec;
use super::{
    bits_to_name, check_block_size, decode_uncompressed_into, BlockSize, Codec, CompressedBlock, EncodingId, Latency,
    UNCOMPRESSED,
};
use crate::bits::{peek_bits, BitWriter};
use crate::error::{CodecError, ConfigError, Corruption};
use crate::geometry::Geometry;
use crate::mc::energy::{CodecEnergy, EnergyParams};

/// The registry name.
pub const NAME: &str = "fpexp";
/// Compression latency in cycles, every format (see "Latency").
const COMPRESS_CYCLES: u32 = 6;
/// Encoding id of a coded block.
pub const CODED: EncodingId = 1;
/// Longest codeword: the window every speculative length decoder compares.
pub const MAX_CODE_BITS: u8 = 12;
/// Offsets below the block's largest exponent that have a codeword of their
/// own; larger ones escape (only 8-bit exponents have larger ones).
const NEAR_OFFSETS: u32 = 32;
/// The symbol of an all-zero element.
const ZERO: usize = 0;
/// Largest block (the fp8 formats' 128 elements at 128 bytes).
const MAX_ELEMENTS: usize = 128;

/// Knob `format`: the element format.
const FORMAT_ACCEPTS: &str = "bf16 (default), fp16, fp32, e4m3 or e5m2";

/// An estimate (no paper has fpexp's hardware): each element's exponent goes
/// through one canonical-Huffman coder as an E2MC symbol does, so a block
/// costs one E2MC8 symbol's energy (the E2MC paper, Table III: 4.01 mW /
/// 1.54 GHz = 2.60 pJ to compress, 11.91 mW / 0.91 GHz = 13.09 pJ to
/// decompress) per element of the default format, bf16 (64 at 128 bytes:
/// 167 and 838 pJ; the `-memzip_energy_e2mc_*_pj_per_symbol` flags replace
/// the per-symbol figures here too). Sign and mantissa bits only move; the
/// speculative decoder's per-position length comparators are not counted apart.
fn energy(params: &EnergyParams, block_bits: usize) -> CodecEnergy {
    let elements = block_bits / FloatFormat::Bf16.width_bits() as usize;
    super::e2mc::energy(8, params, elements * 8)
}

pub const DECLARATIONS: &[Declaration] = &[Declaration {
    name: NAME,
    summary: "floating-point blocks: exponent offsets in a canonical Huffman code, sign and mantissa raw (issue 51)",
    knobs: &[Knob { name: "format", accepts: FORMAT_ACCEPTS }],
    lossy: false,
    energy: EnergyFigure::PerBlock {
        per_block: energy,
        source: "an estimate: one E2MC8 symbol (the E2MC paper, Table III) per bf16 element; see codec/fpexp.rs",
    },
    latency: DefaultLatency::Cycles(Latency::new(COMPRESS_CYCLES, decompress_cycles(64))),
    build: |spec, _| Ok(Box::new(Fpexp::from_spec(spec)?)),
}];

/// Decompression latency in cycles for `elements` per block (see "Latency"):
/// length decode, ceil(log2(n) / 2) cycles of pointer jumping, symbol
/// decode, assembly.
const fn decompress_cycles(elements: u32) -> u32 {
    let levels = elements.next_power_of_two().trailing_zeros();
    3 + levels.div_ceil(2)
}

/// An element format: sign, exponent and mantissa field widths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FloatFormat {
    Fp32,
    Bf16,
    Fp16,
    E4m3,
    E5m2,
}

impl FloatFormat {
    pub const ALL: [FloatFormat; 5] =
        [FloatFormat::Fp32, FloatFormat::Bf16, FloatFormat::Fp16, FloatFormat::E4m3, FloatFormat::E5m2];

    pub fn name(self) -> &'static str {
        match self {
            FloatFormat::Fp32 => "fp32",
            FloatFormat::Bf16 => "bf16",
            FloatFormat::Fp16 => "fp16",
            FloatFormat::E4m3 => "e4m3",
            FloatFormat::E5m2 => "e5m2",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|f| f.name() == name)
    }

    /// Bits of one element.
    pub fn width_bits(self) -> u32 {
        match self {
            FloatFormat::Fp32 => 32,
            FloatFormat::Bf16 | FloatFormat::Fp16 => 16,
            FloatFormat::E4m3 | FloatFormat::E5m2 => 8,
        }
    }

    pub fn exponent_bits(self) -> u32 {
        match self {
            FloatFormat::Fp32 | FloatFormat::Bf16 => 8,
            FloatFormat::Fp16 | FloatFormat::E5m2 => 5,
            FloatFormat::E4m3 => 4,
        }
    }

    pub fn mantissa_bits(self) -> u32 {
        self.width_bits() - 1 - self.exponent_bits()
    }

    /// The exponent field of an element.
    pub fn exponent(self, word: u32) -> u32 {
        (word >> self.mantissa_bits()) & ((1 << self.exponent_bits()) - 1)
    }

    /// Sign and mantissa of an element, as one field (sign on top).
    fn sign_mantissa(self, word: u32) -> u32 {
        let m = self.mantissa_bits();
        ((word >> (self.width_bits() - 1)) << m) | (word & ((1 << m) - 1))
    }

    /// The element with sign and mantissa `field` and exponent `exponent`.
    fn assemble(self, field: u32, exponent: u32) -> u32 {
        let m = self.mantissa_bits();
        ((field >> m) << (self.width_bits() - 1)) | (exponent << m) | (field & ((1 << m) - 1))
    }

    /// Offsets with a codeword of their own.
    fn near(self) -> u32 {
        NEAR_OFFSETS.min(1 << self.exponent_bits())
    }

    fn has_escape(self) -> bool {
        self.near() < 1 << self.exponent_bits()
    }

    /// ZERO, the near offsets and (8-bit exponents) ESCAPE.
    pub fn symbol_count(self) -> usize {
        1 + self.near() as usize + self.has_escape() as usize
    }

    fn escape(self) -> usize {
        1 + self.near() as usize
    }

    /// The symbol of a non-zero element with exponent `exponent` in a block
    /// whose largest exponent is `base`.
    fn symbol(self, exponent: u32, base: u32) -> usize {
        let offset = base - exponent;
        if offset < self.near() {
            1 + offset as usize
        } else {
            self.escape()
        }
    }

    /// Elements of a block of `block_bytes`.
    pub fn elements(self, block_bytes: usize) -> usize {
        block_bytes * 8 / self.width_bits() as usize
    }
}

/// The `index`th little-endian element of a block.
fn element(block: &[u8], index: usize, width_bytes: usize) -> u32 {
    let mut word = [0u8; 4];
    word[..width_bytes].copy_from_slice(&block[index * width_bytes..(index + 1) * width_bytes]);
    u32::from_le_bytes(word)
}

/// A block as symbols: what sizing, coding and profiling share.
struct BlockSymbols {
    /// The largest exponent over the non-zero elements (0 if there are none).
    base: u32,
    symbols: [u8; MAX_ELEMENTS],
    elements: usize,
    non_zero: usize,
    escapes: usize,
}

fn block_symbols(format: FloatFormat, block: &[u8]) -> BlockSymbols {
    let width = format.width_bits() as usize / 8;
    let elements = block.len() / width;
    let base = (0..elements)
        .map(|i| element(block, i, width))
        .filter(|&w| w != 0)
        .map(|w| format.exponent(w))
        .max()
        .unwrap_or(0);
    let mut out = BlockSymbols { base, symbols: [0; MAX_ELEMENTS], elements, non_zero: 0, escapes: 0 };
    for i in 0..elements {
        let word = element(block, i, width);
        let symbol = if word == 0 { ZERO } else { format.symbol(format.exponent(word), base) };
        out.symbols[i] = symbol as u8;
        out.non_zero += (symbol != ZERO) as usize;
        out.escapes += (symbol == format.escape() && format.has_escape()) as usize;
    }
    out
}

/// Adds the fpexp symbols of `block` (elements of `format`) to `counts`
/// (one counter per symbol: ZERO, offsets 0.., ESCAPE): the profile the
/// design tables come from, for `memzip analyze`.
pub fn count_symbols(format: FloatFormat, block: &[u8], counts: &mut [u64]) {
    let symbols = block_symbols(format, block);
    for &s in &symbols.symbols[..symbols.elements] {
        counts[s as usize] += 1;
    }
}

/// The design profile per format (see the module doc): counts of ZERO,
/// offsets 0, 1, .. and (8-bit exponents) ESCAPE.
fn design_counts(format: FloatFormat) -> &'static [u64] {
    match format {
        FloatFormat::Fp32 => &DESIGN_COUNTS_FP32,
        FloatFormat::Bf16 => &DESIGN_COUNTS_BF16,
        FloatFormat::Fp16 => &DESIGN_COUNTS_FP16,
        FloatFormat::E4m3 => &DESIGN_COUNTS_E4M3,
        FloatFormat::E5m2 => &DESIGN_COUNTS_E5M2,
    }
}

const DESIGN_COUNTS_FP32: [u64; 34] = [
    884, 325072, 732456, 773703, 537978, 309858, 163356, 83337, 41761, 20822, 10420, 5226, 2560, 1316, 664, 327, 179,
    73, 31, 18, 6, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
];
const DESIGN_COUNTS_BF16: [u64; 34] = [
    2164, 208004, 625098, 793479, 609997, 369208, 198622, 102093, 51461, 25622, 12807, 6380, 3152, 1638, 823, 396, 212,
    95, 49, 17, 10, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
];
const DESIGN_COUNTS_FP16: [u64; 33] = [
    2164, 208073, 625062, 793259, 610152, 369232, 198623, 102121, 51457, 25608, 12841, 6591, 3675, 1889, 500, 76, 5, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
];
const DESIGN_COUNTS_E4M3: [u64; 17] = [
    6684, 130569, 518831, 783108, 670808, 426353, 234791, 121835, 61603, 30590, 15329, 7639, 3889, 2113, 1162, 434, 70,
];
const DESIGN_COUNTS_E5M2: [u64; 33] = [
    6644, 131300, 518964, 783435, 670761, 426115, 234432, 121556, 61502, 30561, 15244, 7576, 3848, 1944, 991, 465, 233,
    135, 63, 24, 10, 4, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
];

/// The two code tables of a format: the design profile's, and the same
/// with ZERO as likely as every other symbol together.
fn code_tables(format: FloatFormat) -> Result<[CanonicalCode; 2], ConfigError> {
    let invalid = |e| ConfigError::new(format!("{NAME} table for {}", format.name()), "design profile", e);
    // Every symbol needs a codeword, seen in the profile or not.
    let dense: Vec<u64> = design_counts(format).iter().map(|&c| c + 1).collect();
    let mut sparse = dense.clone();
    sparse[ZERO] = dense[1..].iter().sum();
    let build = |counts: &[u64]| {
        limited_lengths(counts, MAX_CODE_BITS)
            .and_then(|lengths| CanonicalCode::new(&lengths))
            .map_err(|e| invalid(e.to_string()))
    };
    Ok([build(&dense)?, build(&sparse)?])
}

/// The fpexp codec for one element format and geometry.
pub struct Fpexp {
    format: FloatFormat,
    geometry: Geometry,
    tables: [CanonicalCode; 2],
}

impl Fpexp {
    pub fn new(format: FloatFormat, geometry: Geometry) -> Result<Self, ConfigError> {
        if format.elements(geometry.block_bytes()) > MAX_ELEMENTS {
            return Err(ConfigError::new(
                format!("{NAME} block size"),
                geometry.block_bytes().to_string(),
                format!("at most {MAX_ELEMENTS} elements of {}", format.name()),
            ));
        }
        Ok(Fpexp { format, geometry, tables: code_tables(format)? })
    }

    /// Builds fpexp from its registry knob `format` (default `bf16`).
    pub fn from_spec(spec: &CodecSpec) -> Result<Self, ConfigError> {
        let name = spec.raw("format").unwrap_or("bf16");
        let format = FloatFormat::from_name(name).ok_or_else(|| {
            let names: Vec<&str> = FloatFormat::ALL.iter().map(|f| f.name()).collect();
            ConfigError::new(format!("{NAME}.format"), name, names.join(", "))
        })?;
        Fpexp::new(format, spec.geometry)
    }

    pub fn format(&self) -> FloatFormat {
        self.format
    }

    /// Bits of the block coded with table `t`.
    fn coded_bits(&self, symbols: &BlockSymbols, t: usize) -> usize {
        let f = self.format;
        let codes: usize =
            symbols.symbols[..symbols.elements].iter().map(|&s| self.tables[t].code(s as usize).1 as usize).sum();
        1 + f.exponent_bits() as usize
            + codes
            + symbols.escapes * f.exponent_bits() as usize
            + symbols.non_zero * (1 + f.mantissa_bits() as usize)
    }

    /// The table that codes the block shorter (table 0 on a tie) and its size.
    fn best_table(&self, symbols: &BlockSymbols) -> (usize, usize) {
        let (dense, sparse) = (self.coded_bits(symbols, 0), self.coded_bits(symbols, 1));
        if sparse < dense {
            (1, sparse)
        } else {
            (0, dense)
        }
    }

    fn encode(&self, block: &[u8], symbols: &BlockSymbols, t: usize, writer: &mut BitWriter) {
        let f = self.format;
        let width = f.width_bits() as usize / 8;
        writer.write(t as u64, 1);
        writer.write(symbols.base as u64, f.exponent_bits());
        for (i, &s) in symbols.symbols[..symbols.elements].iter().enumerate() {
            let (code, len) = self.tables[t].code(s as usize);
            writer.write(code as u64, len as u32);
            if f.has_escape() && s as usize == f.escape() {
                writer.write(f.exponent(element(block, i, width)) as u64, f.exponent_bits());
            }
        }
        for i in 0..symbols.elements {
            let word = element(block, i, width);
            if word != 0 {
                writer.write(f.sign_mantissa(word) as u64, 1 + f.mantissa_bits());
            }
        }
    }

    /// Decodes the exponent region into `exponents` (None for ZERO) and
    /// returns the bit position after it.
    fn decode_exponents(
        &self,
        compressed: &CompressedBlock,
        exponents: &mut [Option<u32>],
    ) -> Result<usize, CodecError> {
        let f = self.format;
        let mut reader = compressed.reader()?;
        let table = &self.tables[reader.read(1)? as usize];
        let base = reader.read(f.exponent_bits())? as u32;
        let mut base_seen = false;
        for slot in exponents.iter_mut() {
            let window = peek_bits(&compressed.payload, reader.position(), table.max_len() as u32) as u32;
            let (symbol, len) = table.decode(window).ok_or_else(|| {
                CodecError::corrupt(Corruption::UnknownCode, format!("no codeword at bit {}", reader.position()))
            })?;
            reader.read(len as u32)?;
            let symbol = symbol as usize;
            *slot = match symbol {
                ZERO => None,
                s if f.has_escape() && s == f.escape() => {
                    let exponent = reader.read(f.exponent_bits())? as u32;
                    if exponent > base || base - exponent < f.near() {
                        return Err(CodecError::corrupt(
                            Corruption::Inconsistent,
                            format!("escaped exponent {exponent} is not more than {} below {base}", f.near() - 1),
                        ));
                    }
                    Some(exponent)
                }
                s => {
                    let offset = s as u32 - 1;
                    if offset > base {
                        return Err(CodecError::corrupt(
                            Corruption::OutOfRange,
                            format!("exponent offset {offset} below a largest exponent of {base}"),
                        ));
                    }
                    Some(base - offset)
                }
            };
            base_seen |= *slot == Some(base);
        }
        let any = exponents.iter().any(Option::is_some);
        if base_seen != any || (!any && base != 0) {
            return Err(CodecError::corrupt(
                Corruption::Inconsistent,
                format!("largest exponent {base} is not the largest exponent of the block"),
            ));
        }
        Ok(reader.position())
    }

    fn decode(&self, compressed: &CompressedBlock, out: &mut [u8]) -> Result<(), CodecError> {
        let f = self.format;
        let width = f.width_bits() as usize / 8;
        let mut exponents = [None; MAX_ELEMENTS];
        let exponents = &mut exponents[..f.elements(out.len())];
        let end = self.decode_exponents(compressed, exponents)?;
        let mut reader = compressed.reader()?;
        reader.seek(end)?;
        for (i, exponent) in exponents.iter().enumerate() {
            let word = match *exponent {
                None => 0,
                Some(e) => {
                    let word = f.assemble(reader.read(1 + f.mantissa_bits())? as u32, e);
                    if word == 0 {
                        return Err(CodecError::corrupt(
                            Corruption::Inconsistent,
                            format!("element {i} is zero but not coded ZERO"),
                        ));
                    }
                    word
                }
            };
            out[i * width..(i + 1) * width].copy_from_slice(&word.to_le_bytes()[..width]);
        }
        reader.expect_end()
    }
}

impl Codec for Fpexp {
    fn name(&self) -> &str {
        NAME
    }

    fn geometry(&self) -> Geometry {
        self.geometry
    }

    fn compress_into(&mut self, block: &[u8], out: &mut CompressedBlock) -> Result<(), CodecError> {
        check_block_size(block, self.geometry)?;
        let symbols = block_symbols(self.format, block);
        let (t, bits) = self.best_table(&symbols);
        if !self.geometry.worth_compressing(bits) {
            out.set_uncompressed(block, self.geometry);
            return Ok(());
        }
        let mut writer = out.take_writer();
        self.encode(block, &symbols, t, &mut writer);
        debug_assert_eq!(writer.bit_len(), bits);
        out.set_bits(CODED, writer, self.geometry);
        Ok(())
    }

    fn compressed_size(&mut self, block: &[u8]) -> Result<BlockSize, CodecError> {
        check_block_size(block, self.geometry)?;
        let (_, bits) = self.best_table(&block_symbols(self.format, block));
        Ok(if self.geometry.worth_compressing(bits) {
            BlockSize { encoding: CODED, compressed_bits: bits }
        } else {
            BlockSize { encoding: UNCOMPRESSED, compressed_bits: self.geometry.block_bits() }
        })
    }

    fn decompress_into(&self, compressed: &CompressedBlock, out: &mut [u8]) -> Result<(), CodecError> {
        check_block_size(out, self.geometry)?;
        match compressed.encoding {
            UNCOMPRESSED => decode_uncompressed_into(compressed, self.geometry, out),
            CODED => self.decode(compressed, out),
            other => Err(CodecError::UnknownEncoding(other)),
        }
    }

    /// See the module doc, "Latency".
    fn latency(&self) -> Latency {
        Latency::new(COMPRESS_CYCLES, decompress_cycles(self.format.elements(self.geometry.block_bytes()) as u32))
    }

    fn encoding_names(&self) -> Vec<String> {
        vec!["uncompressed".into(), format!("{NAME}/{}", self.format.name())]
    }

    /// The burst count, as E2MC's (Section III-D).
    fn metadata_bits(&self) -> u32 {
        bits_to_name(self.geometry.block_bursts())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::test_support::{
        assert_round_trips, bit_string, geometries, random_block, spaced, structured_block,
    };
    use proptest::prelude::*;

    fn codec(format: FloatFormat) -> Fpexp {
        Fpexp::new(format, Geometry::default()).unwrap()
    }

    /// A 128-byte block of bf16 values.
    fn bf16_block(values: &[f32]) -> Vec<u8> {
        values.iter().cycle().take(64).flat_map(|v| ((v.to_bits() >> 16) as u16).to_le_bytes()).collect()
    }

    /// Bytes of `n` elements of `format` drawn like trained weights: a
    /// normal-ish value (sum of uniforms) at `scale`, some zeros.
    fn weight_like(format: FloatFormat, scale: f32, seeds: &[u32], zero_every: usize) -> Vec<u8> {
        let n = format.elements(128);
        (0..n)
            .flat_map(|i| {
                let r =
                    |k: u32| (seeds[i % seeds.len()].wrapping_mul(2654435761).wrapping_add(k * 40503) % 1000) as f32;
                let value = if zero_every > 0 && i % zero_every == 0 {
                    0.0
                } else {
                    scale * ((r(1) + r(2) + r(3)) / 1500.0 - 1.0)
                };
                let bits = value.to_bits();
                let word = match format {
                    FloatFormat::Fp32 => bits,
                    FloatFormat::Bf16 => bits >> 16,
                    // Not a real conversion: any bit pattern is a valid input.
                    FloatFormat::Fp16 => (bits >> 16) & 0x7fff,
                    FloatFormat::E4m3 | FloatFormat::E5m2 => bits >> 24,
                };
                word.to_le_bytes()[..format.width_bits() as usize / 8].to_vec()
            })
            .collect()
    }

    #[test]
    fn fields_split_and_join() {
        let f = FloatFormat::Bf16;
        let word = 0xbf80u32 | 0x15; // -1.0 with mantissa bits 0x15
        assert_eq!(f.exponent(word), 127);
        assert_eq!(f.sign_mantissa(word), 0x80 | 0x15);
        assert_eq!(f.assemble(f.sign_mantissa(word), 127), word);
        for format in FloatFormat::ALL {
            assert_eq!(1 + format.exponent_bits() + format.mantissa_bits(), format.width_bits());
            assert_eq!(FloatFormat::from_name(format.name()), Some(format));
        }
        assert_eq!(FloatFormat::E4m3.symbol_count(), 17);
        assert_eq!(FloatFormat::Bf16.symbol_count(), 34);
    }

    #[test]
    fn a_zero_block_is_tiny_and_a_random_one_raw() {
        let mut c = codec(FloatFormat::Bf16);
        let zeros = c.compress(&[0u8; 128]).unwrap();
        // t, 8-bit base, 64 one-bit ZERO codes under the sparse table.
        assert_eq!((zeros.encoding, zeros.compressed_bits, zeros.mag_bytes), (CODED, 1 + 8 + 64, 32));
        assert!(bit_string(&zeros).starts_with("100000000"), "{}", bit_string(&zeros));
        let noise: Vec<u8> = (0..128u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect();
        let raw = c.compress(&noise).unwrap();
        assert_eq!((raw.encoding, raw.mag_bytes), (UNCOMPRESSED, 128));
        assert_eq!(c.decompress(&raw).unwrap(), noise);
    }

    #[test]
    fn one_scale_codes_to_three_bursts() {
        // Weights of one tensor: exponents within a few of the largest.
        let mut c = codec(FloatFormat::Bf16);
        let block = weight_like(FloatFormat::Bf16, 0.05, &(0..64).collect::<Vec<_>>(), 0);
        let out = c.compress(&block).unwrap();
        assert_eq!(out.encoding, CODED);
        assert_eq!(out.mag_bytes, 96, "{} bits", out.compressed_bits);
        assert_eq!(c.decompress(&out).unwrap(), block);
        // The same block at another scale codes to the same size: offsets
        // from the block's largest exponent do not see the scale.
        let scaled = weight_like(FloatFormat::Bf16, 0.05 * 64.0, &(0..64).collect::<Vec<_>>(), 0);
        assert_eq!(c.compress(&scaled).unwrap().compressed_bits, out.compressed_bits);
    }

    #[test]
    fn escapes_carry_the_raw_exponent() {
        let mut c = codec(FloatFormat::Bf16);
        let block = bf16_block(&[1.0, 1e-30, -2.5, 0.0, 3.0e20, -0.0]);
        let out = c.compress(&block).unwrap();
        assert_eq!(c.decompress(&out).unwrap(), block);
        let symbols = block_symbols(FloatFormat::Bf16, &block);
        // 1.0, -2.5, 1e-30 and -0.0 (exponent 0) are over 32 binades below
        // 3e20: 11 + 11 + 11 + 10 escapes; the 11 +0.0 are ZERO.
        assert_eq!((symbols.escapes, symbols.non_zero), (43, 53));
    }

    #[test]
    fn sizes_agree_with_the_bitstream_for_every_format() {
        for format in FloatFormat::ALL {
            let mut c = codec(format);
            for zero_every in [0, 2, 5] {
                let block = weight_like(format, 0.1, &[3, 1, 4, 1, 5, 9, 2, 6], zero_every);
                let out = assert_round_trips(&mut c, &block).unwrap();
                assert_eq!(c.compressed_size(&block).unwrap(), out.size(), "{format:?}");
            }
        }
    }

    #[test]
    fn every_geometry_builds_and_latency_stays_within_eight_cycles() {
        for geometry in geometries() {
            for format in FloatFormat::ALL {
                let c = Fpexp::new(format, geometry).unwrap();
                let latency = c.latency();
                assert!(latency.compress_cycles <= 8 && latency.decompress_cycles <= 8, "{format:?} {latency:?}");
            }
        }
        assert_eq!(codec(FloatFormat::Bf16).latency(), Latency::new(6, 6));
        assert_eq!(codec(FloatFormat::E5m2).latency(), Latency::new(6, 7));
    }

    #[test]
    fn knob_names_the_format() {
        let spec = CodecSpec::parse("fpexp:format=e5m2", Geometry::default()).unwrap();
        assert_eq!(Fpexp::from_spec(&spec).unwrap().format(), FloatFormat::E5m2);
        let spec = CodecSpec::parse("fpexp:format=fp64", Geometry::default()).unwrap();
        let err = Fpexp::from_spec(&spec).err().unwrap();
        assert!(err.to_string().contains("fp64") && err.to_string().contains("bf16"), "{err}");
    }

    #[test]
    fn golden_bitstream_of_a_sparse_block() {
        // bf16 1.0 and -0.75, then 62 zeros: table 1 (ZERO = "0"), largest
        // exponent 127, offsets 0 ("11100") and 1 ("100"), the zeros, then
        // sign and mantissa of the two non-zero elements.
        let mut block = vec![0u8; 128];
        block[..4].copy_from_slice(&[0x80, 0x3f, 0x40, 0xbf]);
        let out = codec(FloatFormat::Bf16).compress(&block).unwrap();
        let zeros = "0".repeat(62);
        assert_eq!(bit_string(&out), spaced(&format!("1 01111111 11100 100 {zeros} 0 0000000 1 1000000")));
    }

    #[test]
    fn golden_bf16_code_lengths() {
        // Pins the design profile's codes (symbols ZERO, offsets 0..=31, ESCAPE).
        let [dense, sparse] = code_tables(FloatFormat::Bf16).unwrap();
        let mut want_dense = vec![11, 4, 2, 2, 2, 4, 4, 5, 6, 8, 8, 10, 10, 11];
        want_dense.extend([12; 20]);
        let mut want_sparse = vec![1, 5, 3, 3, 3, 5, 5, 6, 8, 8, 9, 11];
        want_sparse.extend([12; 22]);
        assert_eq!(dense.lengths(), &want_dense[..]);
        assert_eq!(sparse.lengths(), &want_sparse[..]);
    }

    #[test]
    fn non_canonical_streams_are_rejected() {
        let c = codec(FloatFormat::Bf16);
        // A block of one element at exponent 10 with base 11: base not seen.
        let mut writer = BitWriter::new();
        writer.write(0, 1);
        writer.write(11, 8);
        let (code, len) = c.tables[0].code(2); // offset 1
        writer.write(code as u64, len as u32);
        for _ in 1..64 {
            let (code, len) = c.tables[0].code(ZERO);
            writer.write(code as u64, len as u32);
        }
        writer.write(0x11, 8);
        let block = CompressedBlock::from_bits(CODED, writer, Geometry::default());
        let err = c.decompress(&block).unwrap_err();
        assert!(matches!(err, CodecError::Corrupt { kind: Corruption::Inconsistent, .. }), "{err}");
    }

    proptest! {
        #[test]
        fn round_trips_structured(block in structured_block(128), f in 0usize..5) {
            assert_round_trips(&mut codec(FloatFormat::ALL[f]), &block)?;
        }

        #[test]
        fn round_trips_random_at_every_geometry(seed in any::<u64>(), g in 0usize..12, f in 0usize..5) {
            let geometries = geometries();
            let geometry = geometries[g % geometries.len()];
            let mut c = Fpexp::new(FloatFormat::ALL[f], geometry).unwrap();
            let block: Vec<u8> = (0..geometry.block_bytes() as u64)
                .map(|i| (seed.wrapping_mul(i + 1).rotate_left(17) >> 40) as u8 & if seed % 3 == 0 { 0x81 } else { 0xff })
                .collect();
            assert_round_trips(&mut c, &block)?;
        }

        #[test]
        fn weight_like_blocks_round_trip(seeds in prop::collection::vec(any::<u32>(), 1..64), f in 0usize..5,
                                         zero_every in 0usize..4, scale in 1e-6f32..1e3) {
            let format = FloatFormat::ALL[f];
            assert_round_trips(&mut codec(format), &weight_like(format, scale, &seeds, zero_every))?;
        }

        #[test]
        fn decoder_survives_any_payload(payload in random_block(128), bits in 0usize..1024, f in 0usize..5) {
            let c = codec(FloatFormat::ALL[f]);
            let block = CompressedBlock { encoding: CODED, compressed_bits: bits, mag_bytes: 0, burst_count: 0,
                                          payload: payload[..bits.div_ceil(8)].to_vec() };
            match c.decompress(&block) {
                Ok(out) => prop_assert_eq!(out.len(), 128),
                Err(CodecError::Corrupt { .. } | CodecError::Truncated { .. }) => {}
                Err(other) => prop_assert!(false, "unexpected error {}", other),
            }
        }
    }
}
