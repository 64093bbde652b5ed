//! Base-Delta-Immediate compression (BDI; Pekhimenko et al., PACT 2012), as
//! described in the MAG-aware paper Section III and the adaptive-compression paper Table II.
//!
//! A block is read as little-endian values of a base size (8, 4 or 2 bytes).
//! Every value is stored as a fixed-width signed delta from one of two bases:
//! an implicit zero base (narrow values) and one explicit base, the first value
//! whose delta from zero does not fit the delta width (the MAG-aware paper Sec. III: "the
//! first value that cannot be compressed with the zero base"). A bitmask with
//! one bit per value says which base each delta belongs to. All encodings are
//! tried and the smallest wins (the MAG-aware paper Sec. III).
//!
//! Payload layouts (MSB-first, no padding between fields):
//!
//! | id | name           | payload                                   | 128 B | 64 B | 32 B  |
//! |----|----------------|-------------------------------------------|-------|------|-------|
//! | 0  | uncompressed   | the block                                 | 128   | 64   | 32    |
//! | 1  | zeros          | one zero byte                             | 1     | 1    | 1     |
//! | 2  | repeated       | the repeated 8-byte value                 | 8     | 8    | 8     |
//! | 3  | base8_delta1   | base (64 b), bitmask (n b), n x 8 b       | 26    | 17   | 12.5  |
//! | 4  | base8_delta2   | base (64 b), bitmask, n x 16 b            | 42    | 25   | 16.5  |
//! | 5  | base8_delta4   | base (64 b), bitmask, n x 32 b            | 74    | 41   | 24.5  |
//! | 6  | base4_delta1   | base (32 b), bitmask, n x 8 b             | 40    | 22   | 13    |
//! | 7  | base4_delta2   | base (32 b), bitmask, n x 16 b            | 72    | 38   | 21    |
//! | 8  | base2_delta1   | base (16 b), bitmask, n x 8 b             | 74    | 38   | 20    |
//!
//! (sizes in bytes; n = block bytes / base bytes). The ids follow the prefix
//! order of the adaptive-compression paper Table II, except that 0 is "uncompressed" as for every
//! memzip codec; 9 encodings need 4 metadata bits, as in that table.
//!
//! Decisions where the papers leave room:
//! - Sizes include the explicit base and the bitmask (the MAG-aware paper Fig. 4: "40
//!   bytes including non-zero base and 32-bit bitmask"). The bitmask is exactly
//!   one bit per value, not rounded to whole bytes: the payload is a packed
//!   bitstream, so only 32-byte blocks with an 8-byte base (a 4-bit bitmask)
//!   end in a half byte. No burst count changes either way.
//! - A zero block stores one zero byte, the size the original BDI paper gives
//!   its "Zeros" encoding. Hardware needs no payload at all (the encoding id
//!   says everything), and one byte moves the same single burst, but a
//!   non-empty payload lets the decoder reject truncation like every other
//!   encoding does.
//! - When no value needs the explicit base (every value fits the zero base),
//!   the base field is still stored, as zero: each encoding has one static
//!   size, which is what the metadata needs to size the DRAM request.
//! - Deltas from the explicit base are computed modulo 2^(8 x base bytes), as
//!   a base-width hardware subtractor does; the decoder adds modulo the same.
//! - Equal sizes (e.g. base8_delta4 and base2_delta1 at 128 B) go to the
//!   lower id.
//! - The "worth it" rule (keep a compressed form only if it saves a burst)
//!   applies as for every codec. With 128 B blocks and a 32 B MAG every BDI
//!   size is at most 74 B, so it never rejects one; with a 64 B MAG it rejects
//!   the 72 and 74 B encodings, and with a 32 B block in one 32 B burst it
//!   rejects everything.

use super::declaration::{Declaration, DefaultLatency, EnergyFigure};
use super::{
    check_block_size, decode_uncompressed_into, words, BlockSize, Codec, CompressedBlock, EncodingId, Latency,
    Table2Patterns, UNCOMPRESSED,
};
use crate::bits::{sign_extend, BitReader, BitWriter};
use crate::error::{CodecError, Corruption};
use crate::geometry::Geometry;
use crate::mc::energy::{CodecEnergy, EnergyParams, PowerLatency};

/// The MAG-aware paper §V-A: BDI compresses and decompresses in one cycle each.
const LATENCY: Latency = Latency::new(1, 1);

/// BDI's row of the adaptive-compression paper's Table III (7 nm, 1 GHz):
/// compressor 0.6 mW for 2 cycles, decompressor 0.2 mW for 1; their products,
/// 1.2 and 0.2 pJ, are how the table's total of 1.3 pJ per 512-bit block
/// arises.
pub const TABLE3: PowerLatency =
    PowerLatency { compress_mw: 0.6, compress_cycles: 2.0, decompress_mw: 0.2, decompress_cycles: 1.0 };

/// Table III's total (`-memzip_energy_bdi_pj`), split by [`TABLE3`]'s power x
/// latency and scaled to the block.
pub fn energy(params: &EnergyParams, block_bits: usize) -> CodecEnergy {
    CodecEnergy::from_table3(params.bdi_pj, TABLE3, block_bits)
}

pub const DECLARATIONS: &[Declaration] = &[Declaration {
    name: "bdi",
    summary: "Base-Delta-Immediate (Pekhimenko et al., PACT 2012; the MAG-aware paper §III)",
    knobs: &[],
    lossy: false,
    energy: EnergyFigure::PerBlock {
        per_block: energy,
        source: "the adaptive-compression paper, Table III: 1.3 pJ per 512-bit block compressed + decompressed, \
                 split 1.2 : 0.2 by power x latency, scaled to the block",
    },
    latency: DefaultLatency::Cycles(LATENCY),
    build: |spec, _| Ok(Box::new(Bdi::new(spec.geometry))),
}];

/// One two-base (implicit zero + explicit) base-delta layout: the unit both
/// BDI and MAG-aware BDI build their encodings from (the MAG-aware paper Fig. 9 is one
/// such compressor unit).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BaseDelta {
    /// Size of each value and of the explicit base.
    pub base_bytes: usize,
    /// Width of every stored delta.
    pub delta_bits: u32,
    /// Deltas are two's complement (sign-extended on decode), as in BDI;
    /// otherwise they are unsigned, so only values at or above their base fit
    /// (MAG-aware BDI's "leading zeros", the MAG-aware paper Sec. VI-C).
    pub signed: bool,
}

impl BaseDelta {
    /// `base_bytes` is 8, 4 or 2 (the BDI and MAG-aware BDI base sizes);
    /// signed deltas.
    pub const fn new(base_bytes: usize, delta_bits: u32) -> Self {
        assert!(matches!(base_bytes, 8 | 4 | 2), "BDI bases are 8, 4 or 2 bytes");
        BaseDelta { base_bytes, delta_bits, signed: true }
    }

    /// The same layout with unsigned deltas.
    pub const fn unsigned(self) -> Self {
        BaseDelta { signed: false, ..self }
    }

    /// Values (and so bitmask bits and deltas) in a block.
    pub fn value_count(&self, block_bytes: usize) -> usize {
        block_bytes / self.base_bytes
    }

    /// Explicit base plus bitmask: the MAG-aware paper Eq. 1's `header_size`, in bits.
    pub fn header_bits(&self, block_bytes: usize) -> usize {
        self.base_bytes * 8 + self.value_count(block_bytes)
    }

    /// The one static size of this encoding for a block, in bits.
    pub fn compressed_bits(&self, block_bytes: usize) -> usize {
        self.header_bits(block_bytes) + self.value_count(block_bytes) * self.delta_bits as usize
    }

    /// Runs the compressor unit's fit check: the zero-base sign-extension
    /// check first, then the first value that fails it becomes the explicit
    /// base and the remaining failures are checked against that base (paper
    /// 002 Sec. IV-E). Returns the explicit base (0 when no value needs one),
    /// or `None` if some value fits neither base. Nothing is encoded here:
    /// the codecs size every candidate first and encode only the winner.
    #[inline]
    pub fn fit(&self, block: &[u8]) -> Option<u64> {
        match self.base_bytes {
            8 => self.fit_words::<8>(block),
            4 => self.fit_words::<4>(block),
            _ => self.fit_words::<2>(block),
        }
    }

    /// `fits_signed(x, delta_bits)` for values sign-extended from `B` bytes,
    /// as one add and compare (the bounds are loop-invariant) instead of two
    /// shifts by a runtime width per value; for unsigned deltas, `0 <= x <
    /// 2^delta_bits` (a value below its base is negative here).
    #[inline(always)]
    fn delta_fits<const B: usize>(&self) -> impl Fn(i64) -> bool {
        let delta_bits = self.delta_bits;
        let wide = delta_bits >= (B * 8) as u32;
        let offset = if wide || !self.signed { 0 } else { 1u64 << (delta_bits - 1) };
        let limit = if wide { 0 } else { 1u64 << delta_bits };
        move |x: i64| wide || (x as u64).wrapping_add(offset) < limit
    }

    #[inline(always)]
    fn fit_words<const B: usize>(&self, block: &[u8]) -> Option<u64> {
        let word_bits = (B * 8) as u32;
        let fits = self.delta_fits::<B>();
        let mut base: Option<u64> = None;
        for chunk in block.chunks_exact(B) {
            let value = le_word::<B>(chunk);
            if fits(sign_extend(value, word_bits)) {
                continue;
            }
            let base_value = *base.get_or_insert(value);
            if !fits(sign_extend(value.wrapping_sub(base_value), word_bits)) {
                return None;
            }
        }
        Some(base.unwrap_or(0))
    }

    /// Writes base, bitmask and deltas for a block that [`BaseDelta::fit`]
    /// accepted with `base`: the bitmask bit is set for values that fail the
    /// zero-base check, exactly the values the fit check sent to the base.
    pub fn encode_into(&self, block: &[u8], base: u64, writer: &mut BitWriter) {
        match self.base_bytes {
            8 => self.encode_words::<8>(block, base, writer),
            4 if block.len() <= 128 && self.delta_bits < 32 => self.encode_words4(block, base as u32, writer),
            4 => self.encode_words::<4>(block, base, writer),
            _ => self.encode_words::<2>(block, base, writer),
        }
    }

    /// One pass over the block computes the bitmask and the deltas; they
    /// are then written mask first, deltas packed several per write.
    #[inline(always)]
    fn encode_words<const B: usize>(&self, block: &[u8], base: u64, writer: &mut BitWriter) {
        let word_bits = (B * 8) as u32;
        let count = block.len() / B;
        let fits = self.delta_fits::<B>();
        // Up to 64 values (128 B blocks with 2-byte bases).
        let mut deltas = [0u64; 64];
        // Bit 63 - i % 64 of masks[i / 64]: value i uses the explicit base.
        let mut masks = [0u64; 2];
        for (i, chunk) in block.chunks_exact(B).enumerate() {
            let value = le_word::<B>(chunk);
            let from_zero = sign_extend(value, word_bits);
            let uses_base = !fits(from_zero);
            masks[i / 64] |= (uses_base as u64) << (63 - i % 64);
            deltas[i] =
                if uses_base { sign_extend(value.wrapping_sub(base), word_bits) as u64 } else { from_zero as u64 };
        }
        writer.write(base, word_bits);
        let mut left = count;
        for &mask in masks.iter().take(count.div_ceil(64)) {
            let piece = left.min(64);
            writer.write(mask >> (64 - piece), piece as u32);
            left -= piece;
        }
        writer.write_fields(&deltas[..count], self.delta_bits);
    }

    /// [`BaseDelta::encode_words`] for 4-byte values, at most 32 of them,
    /// and deltas under 32 bits (MAG-aware BDI's only base; issue 12's
    /// profile): the same bits, with the mask and the deltas computed in
    /// 32-bit lanes the compiler vectorizes, into arrays of one block's size.
    /// A delta of `w` < 32 bits from a 4-byte value is the low `w` bits of
    /// the 32-bit difference, whatever its sign.
    #[inline(always)]
    fn encode_words4(&self, block: &[u8], base: u32, writer: &mut BitWriter) {
        let count = block.len() / 4;
        let delta_bits = self.delta_bits;
        let offset = if self.signed { 1u32 << (delta_bits - 1) } else { 0 };
        let limit = 1u32 << delta_bits;
        let mut values = [0u32; 32];
        for (value, chunk) in values.iter_mut().zip(block.chunks_exact(4)) {
            *value = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        }
        let (mut deltas, mut mask) = ([0u32; 32], 0u32);
        for i in 0..count {
            let uses_base = values[i].wrapping_add(offset) >= limit;
            deltas[i] = values[i].wrapping_sub(if uses_base { base } else { 0 }) & (limit - 1);
            mask |= (uses_base as u32).wrapping_neg() & VALUE_BIT[i];
        }
        writer.write(base as u64, 32);
        writer.write((mask >> (32 - count)) as u64, count as u32);
        let per_write = (64 / delta_bits) as usize;
        for group in deltas[..count].chunks(per_write) {
            let packed = group.iter().fold(0u64, |packed, &delta| (packed << delta_bits) | delta as u64);
            writer.write(packed, group.len() as u32 * delta_bits);
        }
    }

    /// The whole compressor unit: fit check, then the bitstream.
    #[cfg(test)]
    pub fn encode(&self, block: &[u8]) -> Option<BitWriter> {
        let base = self.fit(block)?;
        let mut writer = BitWriter::with_capacity_bits(self.compressed_bits(block.len()));
        self.encode_into(block, base, &mut writer);
        Some(writer)
    }

    /// Reads base, bitmask and deltas back and adds each delta to its base
    /// (the MAG-aware paper Fig. 10) into `out` (one block). Any bit pattern of the
    /// right length decodes.
    pub fn decode_into(&self, reader: &mut BitReader<'_>, out: &mut [u8]) -> Result<(), CodecError> {
        match self.base_bytes {
            8 => self.decode_words::<8>(reader, out),
            4 if out.len() <= 128 && self.delta_bits < 32 => self.decode_words4(reader, out),
            4 => self.decode_words::<4>(reader, out),
            _ => self.decode_words::<2>(reader, out),
        }
    }

    /// [`BaseDelta::decode_words`] for 4-byte values, at most 32 of them,
    /// and deltas under 32 bits: the fields are read first, then sign-extended
    /// and added to their base in 32-bit lanes the compiler vectorizes (the
    /// bitmask tested against a constant bit per value). Errors as the
    /// generic decoder's: the same reads in the same order.
    #[inline(always)]
    fn decode_words4(&self, reader: &mut BitReader<'_>, out: &mut [u8]) -> Result<(), CodecError> {
        let base = reader.read(32)? as u32;
        let count = out.len() / 4;
        let mask = (reader.read(count as u32)? as u32) << (32 - count);
        let delta_bits = self.delta_bits;
        let mut fields = [0u32; 32];
        reader.read_fields(delta_bits, count, |i, field| fields[i] = field as u32)?;
        reader.expect_end()?;
        let unused = 32 - delta_bits;
        let signed = self.signed;
        for i in 0..count {
            let delta = if signed { (((fields[i] << unused) as i32) >> unused) as u32 } else { fields[i] };
            let from_base = if mask & VALUE_BIT[i] != 0 { base } else { 0 };
            fields[i] = delta.wrapping_add(from_base);
        }
        for (chunk, value) in out.chunks_exact_mut(4).zip(&fields) {
            chunk.copy_from_slice(&value.to_le_bytes());
        }
        Ok(())
    }

    /// [`BaseDelta::decode_into`] for `B`-byte values: the value width known
    /// at compile time makes each store a fixed-size move, not a memmove call
    /// (issue 12's profile).
    #[inline(always)]
    fn decode_words<const B: usize>(&self, reader: &mut BitReader<'_>, out: &mut [u8]) -> Result<(), CodecError> {
        let base = reader.read((B * 8) as u32)?;
        let count = out.len() / B;
        // Up to 64 values: 128 B blocks with 2-byte bases; read in pieces of 64.
        let mut masks = [0u64; 2];
        let mut left = count;
        for mask in masks.iter_mut().take(count.div_ceil(64)) {
            let piece = left.min(64);
            *mask = reader.read(piece as u32)? << (64 - piece);
            left -= piece;
        }
        let delta_bits = self.delta_bits;
        let mut chunks = out.chunks_exact_mut(B);
        let signed = self.signed;
        reader.read_fields(delta_bits, count, |i, field| {
            let delta = if signed { sign_extend(field, delta_bits) as u64 } else { field };
            let uses_base = (masks[i / 64] << (i % 64)) >> 63 == 1;
            let value = if uses_base { base.wrapping_add(delta) } else { delta };
            if let Some(chunk) = chunks.next() {
                chunk.copy_from_slice(&value.to_le_bytes()[..B]);
            }
        })?;
        reader.expect_end()
    }
}

/// Bit of value `i` in a 32-value bitmask read MSB first (value 0 is the
/// top bit): a constant per lane, so the loops over values vectorize.
const VALUE_BIT: [u32; 32] = {
    let mut bits = [0u32; 32];
    let mut i = 0;
    while i < 32 {
        bits[i] = 0x8000_0000 >> i;
        i += 1;
    }
    bits
};

/// The little-endian value of a `B`-byte chunk.
#[inline(always)]
fn le_word<const B: usize>(chunk: &[u8]) -> u64 {
    let mut buf = [0u8; 8];
    buf[..B].copy_from_slice(&chunk[..B]);
    u64::from_le_bytes(buf)
}

/// Encoding id of an all-zero block.
const ZEROS: EncodingId = 1;
/// Encoding id of a block of one repeated 8-byte value.
const REPEATED: EncodingId = 2;
/// Id of the first base-delta encoding; the rest follow in table order.
const FIRST_BASE_DELTA: EncodingId = 3;
/// Bits stored for a zero block (see the module notes).
const ZERO_BLOCK_BITS: u32 = 8;
/// The repeated-value encoding stores one 8-byte value (the adaptive-compression paper Table II).
const REPEATED_WORD_BYTES: usize = 8;

/// The six base/delta pairs of BDI (the MAG-aware paper Sec. III, the adaptive-compression paper Table II),
/// in id order from [`FIRST_BASE_DELTA`].
const BASE_DELTA_ENCODINGS: [BaseDelta; 6] = [
    BaseDelta::new(8, 8),
    BaseDelta::new(8, 16),
    BaseDelta::new(8, 32),
    BaseDelta::new(4, 8),
    BaseDelta::new(4, 16),
    BaseDelta::new(2, 8),
];

/// The base-delta layout an encoding id names, if it names one.
fn base_delta_for(encoding: EncodingId) -> Option<BaseDelta> {
    let index = encoding.checked_sub(FIRST_BASE_DELTA)? as usize;
    BASE_DELTA_ENCODINGS.get(index).copied()
}

/// One BDI encoding, as the compressor sizes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Candidate {
    Zeros,
    Repeated,
    /// Index into [`BASE_DELTA_ENCODINGS`].
    BaseDelta(usize),
}

/// Base-Delta-Immediate with zero and repeated-value encodings.
#[derive(Debug, Clone)]
pub struct Bdi {
    geometry: Geometry,
    /// Every encoding with its id and static size, smallest first (lower id
    /// among equals): the first one that fits is the one BDI stores.
    by_size: Vec<(Candidate, EncodingId, usize)>,
}

impl Bdi {
    pub fn new(geometry: Geometry) -> Self {
        let block_bytes = geometry.block_bytes();
        let mut by_size = vec![
            (Candidate::Zeros, ZEROS, ZERO_BLOCK_BITS as usize),
            (Candidate::Repeated, REPEATED, REPEATED_WORD_BYTES * 8),
        ];
        for (index, (id, layout)) in (FIRST_BASE_DELTA..).zip(BASE_DELTA_ENCODINGS).enumerate() {
            by_size.push((Candidate::BaseDelta(index), id, layout.compressed_bits(block_bytes)));
        }
        by_size.sort_by_key(|&(_, id, bits)| (bits, id));
        Bdi { geometry, by_size }
    }

    /// The smallest encoding that represents `block` (sizes only: fit checks,
    /// no bitstream), with the explicit base for a base-delta encoding.
    fn smallest(&self, block: &[u8]) -> Option<(Candidate, EncodingId, usize, u64)> {
        self.by_size.iter().find_map(|&(candidate, id, bits)| {
            let base = match candidate {
                // Whole 8-byte words compared as integers: slice equality of
                // a runtime length calls `bcmp` per word (issue 12's profile).
                Candidate::Zeros => block.chunks_exact(8).all(|w| le_word::<8>(w) == 0).then_some(0)?,
                Candidate::Repeated => {
                    let first = le_word::<REPEATED_WORD_BYTES>(block);
                    block
                        .chunks_exact(REPEATED_WORD_BYTES)
                        .all(|w| le_word::<REPEATED_WORD_BYTES>(w) == first)
                        .then_some(0)?
                }
                Candidate::BaseDelta(index) => BASE_DELTA_ENCODINGS[index].fit(block)?,
            };
            Some((candidate, id, bits, base))
        })
    }

    fn decode_zeros(&self, compressed: &CompressedBlock, out: &mut [u8]) -> Result<(), CodecError> {
        let mut reader = compressed.reader()?;
        if reader.read(ZERO_BLOCK_BITS)? != 0 {
            return Err(CodecError::corrupt(Corruption::Inconsistent, "zero-block payload is not zero"));
        }
        reader.expect_end()?;
        out.fill(0);
        Ok(())
    }

    fn decode_repeated(&self, compressed: &CompressedBlock, out: &mut [u8]) -> Result<(), CodecError> {
        let mut reader = compressed.reader()?;
        let value = reader.read(64)?;
        reader.expect_end()?;
        for chunk in out.chunks_exact_mut(REPEATED_WORD_BYTES) {
            chunk.copy_from_slice(&value.to_le_bytes());
        }
        Ok(())
    }
}

impl Codec for Bdi {
    fn name(&self) -> &str {
        "bdi"
    }

    fn geometry(&self) -> Geometry {
        self.geometry
    }

    /// Sizes every encoding (the MAG-aware paper Sec. III: all are tried, the smallest
    /// wins), then writes only the winner's bitstream.
    fn compress_into(&mut self, block: &[u8], out: &mut CompressedBlock) -> Result<(), CodecError> {
        check_block_size(block, self.geometry)?;
        let Some((candidate, id, bits, base)) = self.smallest(block) else {
            out.set_uncompressed(block, self.geometry);
            return Ok(());
        };
        if !self.geometry.worth_compressing(bits) {
            out.set_uncompressed(block, self.geometry);
            return Ok(());
        }
        let mut writer = out.take_writer();
        match candidate {
            Candidate::Zeros => writer.write(0, ZERO_BLOCK_BITS),
            Candidate::Repeated => writer.write(words(block, REPEATED_WORD_BYTES).next().unwrap_or(0), 64),
            Candidate::BaseDelta(index) => BASE_DELTA_ENCODINGS[index].encode_into(block, base, &mut writer),
        }
        debug_assert_eq!(writer.bit_len(), bits);
        out.set_bits(id, writer, self.geometry);
        Ok(())
    }

    fn decompress_into(&self, compressed: &CompressedBlock, out: &mut [u8]) -> Result<(), CodecError> {
        check_block_size(out, self.geometry)?;
        match compressed.encoding {
            UNCOMPRESSED => decode_uncompressed_into(compressed, self.geometry, out),
            ZEROS => self.decode_zeros(compressed, out),
            REPEATED => self.decode_repeated(compressed, out),
            other => match base_delta_for(other) {
                Some(layout) => layout.decode_into(&mut compressed.reader()?, out),
                None => Err(CodecError::UnknownEncoding(other)),
            },
        }
    }

    fn compressed_size(&mut self, block: &[u8]) -> Result<BlockSize, CodecError> {
        check_block_size(block, self.geometry)?;
        Ok(match self.smallest(block) {
            Some((_, id, bits, _)) if self.geometry.worth_compressing(bits) => {
                BlockSize { encoding: id, compressed_bits: bits }
            }
            _ => BlockSize { encoding: UNCOMPRESSED, compressed_bits: self.geometry.block_bits() },
        })
    }

    fn latency(&self) -> Latency {
        LATENCY
    }

    fn encoding_names(&self) -> Vec<String> {
        let mut names = vec!["uncompressed".to_string(), "zeros".into(), "repeated".into()];
        names.extend(
            BASE_DELTA_ENCODINGS
                .iter()
                .map(|layout| format!("base{}_delta{}", layout.base_bytes, layout.delta_bits / 8)),
        );
        names
    }

    /// Table II's BDI patterns are its encodings in id order (1 zero block,
    /// 2 repeated words, 3-8 the base-delta layouts of
    /// [`BASE_DELTA_ENCODINGS`]); a block stored raw is pattern 9.
    fn count_table2_patterns(&mut self, block: &[u8], words: &mut Table2Patterns) -> Result<bool, CodecError> {
        let block_words = (block.len() / 4) as u64;
        let pattern = match self.compressed_size(block)?.encoding {
            UNCOMPRESSED => 9,
            encoding => encoding as usize,
        };
        words[pattern - 1] += block_words;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Table VI's counting: a block's words under its encoding's Table II pattern.
    #[test]
    fn table2_patterns_are_the_encodings() {
        let geometry = Geometry::with_granule(64, 1).unwrap();
        let mut codec = Bdi::new(geometry);
        let mut words = [0u64; 9];
        let ramp: Vec<u8> = (0..16u32).flat_map(|i| (0x4000_0000 + i).to_le_bytes()).collect();
        let noise: Vec<u8> = (0..64u32).map(|i| (i.wrapping_mul(0x9e37_79b9) >> 24) as u8).collect();
        for block in [vec![0u8; 64], vec![7u8; 64], ramp, noise] {
            assert!(codec.count_table2_patterns(&block, &mut words).unwrap());
        }
        // Zero block, repeated words, base 4 delta 1 (pattern 6), raw (9).
        assert_eq!(words, [16, 16, 0, 0, 0, 16, 0, 0, 16]);
    }
    use crate::codec::push_word;
    use crate::codec::test_support::{assert_round_trips, random_block, structured_block};
    use proptest::prelude::*;

    const B8_D1: EncodingId = 3;
    const B8_D2: EncodingId = 4;
    const B8_D4: EncodingId = 5;
    const B4_D1: EncodingId = 6;
    const B4_D2: EncodingId = 7;
    const B2_D1: EncodingId = 8;

    fn block_of(values: &[u64], width_bytes: usize) -> Vec<u8> {
        let mut out = Vec::new();
        for &v in values {
            push_word(&mut out, v, width_bytes);
        }
        out
    }

    fn geometry(block_bytes: usize, mag_bytes: usize) -> Geometry {
        Geometry::new(block_bytes, mag_bytes).unwrap()
    }

    /// Compresses with the default 128 B / 32 B geometry, checks the round
    /// trip and returns (encoding, compressed bytes).
    fn compress_128(values: &[u64], width_bytes: usize) -> (EncodingId, usize) {
        compress_in(Geometry::default(), &block_of(values, width_bytes))
    }

    fn compress_in(geometry: Geometry, block: &[u8]) -> (EncodingId, usize) {
        let mut codec = Bdi::new(geometry);
        let compressed = assert_round_trips(&mut codec, block).unwrap();
        assert_eq!(compressed.compressed_bits % 8, 0, "sizes here are whole bytes");
        (compressed.encoding, compressed.compressed_bits / 8)
    }

    const POINTER: u64 = 0x7f00_1234_5678_0000;

    #[test]
    fn static_sizes_for_128_byte_blocks() {
        let bytes: Vec<usize> = BASE_DELTA_ENCODINGS.iter().map(|l| l.compressed_bits(128) / 8).collect();
        // The MAG-aware paper Sec. IV-B: Base4-Δ1 is 40 bytes, Base4-Δ2 72 bytes, both with base and bitmask.
        assert_eq!(bytes, vec![26, 42, 74, 40, 72, 74]);
        let bytes_64: Vec<usize> = BASE_DELTA_ENCODINGS.iter().map(|l| l.compressed_bits(64) / 8).collect();
        assert_eq!(bytes_64, vec![17, 25, 41, 22, 38, 38]);
        let bits_32: Vec<usize> = BASE_DELTA_ENCODINGS.iter().map(|l| l.compressed_bits(32)).collect();
        assert_eq!(bits_32, vec![100, 132, 196, 104, 168, 160]);
    }

    #[test]
    fn zero_block_is_one_byte_and_one_burst() {
        let mut codec = Bdi::new(Geometry::default());
        let c = assert_round_trips(&mut codec, &[0u8; 128]).unwrap();
        assert_eq!((c.encoding, c.compressed_bits, c.mag_bytes, c.burst_count), (ZEROS, 8, 32, 1));
        assert_eq!(c.payload, vec![0]);
    }

    #[test]
    fn repeated_value_is_eight_bytes() {
        assert_eq!(compress_128(&[0xdead_beef_cafe_babe; 16], 8), (REPEATED, 8));
        // A small repeated value also fits base8_delta1 (26 B) but repeated is smaller.
        assert_eq!(compress_128(&[1; 16], 8), (REPEATED, 8));
        // A repeated 4-byte pattern is a repeated 8-byte value too.
        assert_eq!(compress_128(&[0x1234_5678; 32], 4), (REPEATED, 8));
    }

    #[test]
    fn base8_delta1_pointers() {
        let values: Vec<u64> = (0..16).map(|i| POINTER + i * 8).collect();
        assert_eq!(compress_128(&values, 8), (B8_D1, 26));
    }

    #[test]
    fn base8_delta2() {
        let values: Vec<u64> = (0..16).map(|i| POINTER + i * 1000).collect();
        assert_eq!(compress_128(&values, 8), (B8_D2, 42));
    }

    #[test]
    fn base8_delta4() {
        let values: Vec<u64> = (0..16).map(|i| POINTER + i * 100_000).collect();
        assert_eq!(compress_128(&values, 8), (B8_D4, 74));
    }

    #[test]
    fn base4_delta1_is_40_bytes() {
        let values: Vec<u64> = (0..32).map(|i| 0x1000_0000 + i).collect();
        assert_eq!(compress_128(&values, 4), (B4_D1, 40));
    }

    #[test]
    fn base4_delta2_is_72_bytes() {
        let values: Vec<u64> = (0..32).map(|i| 0x1000_0000 + i * 1000).collect();
        assert_eq!(compress_128(&values, 4), (B4_D2, 72));
    }

    #[test]
    fn base2_delta1() {
        let values: Vec<u64> = (0..64).map(|i| 0x1234 + i).collect();
        assert_eq!(compress_128(&values, 2), (B2_D1, 74));
    }

    #[test]
    fn wide_values_stay_uncompressed() {
        let values: Vec<u64> = (0..16).map(|i| POINTER + (i << 40)).collect();
        assert_eq!(compress_128(&values, 8), (UNCOMPRESSED, 128));
    }

    #[test]
    fn delta_limits_are_sign_extended() {
        // 4-byte values: -128 and +127 fit one byte from the zero base, +128 does not.
        let mut values = vec![0xffff_ff80u64, 127];
        values.extend(std::iter::repeat_n(0, 30));
        let block = block_of(&values, 4);
        let layout = BaseDelta::new(4, 8);
        let writer = layout.encode(&block).unwrap();
        let (payload, bits) = writer.finish();
        let mut reader = BitReader::new(&payload, bits).unwrap();
        assert_eq!(reader.read(32).unwrap(), 0, "no explicit base needed: stored as zero");
        assert_eq!(reader.read(32).unwrap(), 0, "every value uses the zero base");
        // From the base: base+127 and base-128 fit, base+128 does not.
        let base = 0x4000_0000u64;
        let fits = block_of(&[vec![base, base + 127, base - 128], vec![5; 29]].concat(), 4);
        assert!(layout.encode(&fits).is_some());
        let too_far = block_of(&[vec![base, base + 128], vec![5; 30]].concat(), 4);
        assert!(layout.encode(&too_far).is_none());
        assert_eq!(compress_128(&[vec![base, base + 128], vec![5; 30]].concat(), 4), (B4_D2, 72));
    }

    #[test]
    fn bitmask_marks_values_of_the_explicit_base() {
        // The first value that fails the zero base (0x4000_0000) becomes the base;
        // narrow values keep the zero base even after it, -3 included.
        let values = [vec![5u64, 0x4000_0000, 0x4000_0001, 0xffff_fffd, 0x3fff_ff80], vec![0; 27]].concat();
        let writer = BaseDelta::new(4, 8).encode(&block_of(&values, 4)).unwrap();
        let (payload, bits) = writer.finish();
        assert_eq!(bits, 320);
        let mut reader = BitReader::new(&payload, bits).unwrap();
        assert_eq!(reader.read(32).unwrap(), 0x4000_0000);
        assert_eq!(reader.read(5).unwrap(), 0b01101);
        assert_eq!(reader.read(27).unwrap(), 0);
        let deltas: Vec<i64> = (0..5).map(|_| sign_extend(reader.read(8).unwrap(), 8)).collect();
        assert_eq!(deltas, vec![5, 0, 1, -3, -128]);
    }

    #[test]
    fn explicit_base_wraps_at_the_base_width() {
        // 0x7fff_ffff -> 0x8000_0000 is +1 in a 32-bit subtractor.
        let values = [vec![0x7fff_ffffu64, 0x8000_0000, 0x8000_0005], vec![0; 29]].concat();
        assert_eq!(compress_128(&values, 4), (B4_D1, 40));
    }

    #[test]
    fn equal_sizes_go_to_the_lower_id() {
        // 64 B block: base4_delta2 and base2_delta1 are both 38 bytes and both fit.
        let pattern = [16u64, 0x2000, 0x1_0005];
        let values: Vec<u64> = pattern.iter().cycle().take(16).copied().collect();
        let block = block_of(&values, 4);
        assert!(BaseDelta::new(2, 8).encode(&block).is_some());
        assert!(BaseDelta::new(4, 8).encode(&block).is_none());
        assert_eq!(compress_in(geometry(64, 16), &block), (B4_D2, 38));
    }

    #[test]
    fn small_blocks() {
        // 32 B block, 16 B MAG: base8_delta1 is 8 + 4 + 0.5 = 12.5 bytes, one burst.
        let values: Vec<u64> = (0..4).map(|i| POINTER + i).collect();
        let mut codec = Bdi::new(geometry(32, 16));
        let c = assert_round_trips(&mut codec, &block_of(&values, 8)).unwrap();
        assert_eq!((c.encoding, c.compressed_bits, c.burst_count), (B8_D1, 100, 1));
        // base4_delta2 (21 B) would need both 16 B bursts: not worth it.
        let values: Vec<u64> = (0..8).map(|i| 0x1000_0000 + i * 1000).collect();
        let c = assert_round_trips(&mut codec, &block_of(&values, 4)).unwrap();
        assert_eq!((c.encoding, c.burst_count), (UNCOMPRESSED, 2));
        // 64 B block: base4_delta1 is 4 + 16 + 2 = 22 bytes.
        let values: Vec<u64> = (0..16).map(|i| 0x1000_0000 + i).collect();
        assert_eq!(compress_in(geometry(64, 32), &block_of(&values, 4)), (B4_D1, 22));
    }

    #[test]
    fn worth_it_rule() {
        // 32 B block in one 32 B burst: nothing can save a burst, not even zeros.
        assert_eq!(compress_in(geometry(32, 32), &[0; 32]), (UNCOMPRESSED, 32));
        // 128 B block, 64 B MAG: base4_delta2 (72 B) needs two bursts, as raw does.
        let values: Vec<u64> = (0..32).map(|i| 0x1000_0000 + i * 1000).collect();
        assert_eq!(compress_in(geometry(128, 64), &block_of(&values, 4)), (UNCOMPRESSED, 128));
        let values: Vec<u64> = (0..32).map(|i| 0x1000_0000 + i).collect();
        assert_eq!(compress_in(geometry(128, 64), &block_of(&values, 4)), (B4_D1, 40));
    }

    #[test]
    fn corrupt_and_unknown_payloads_are_errors() {
        let mut codec = Bdi::new(Geometry::default());
        let zero =
            CompressedBlock { encoding: ZEROS, payload: vec![1], compressed_bits: 8, mag_bytes: 32, burst_count: 1 };
        assert!(matches!(codec.decompress(&zero), Err(CodecError::Corrupt { .. })));
        let unknown = CompressedBlock { encoding: 9, ..zero.clone() };
        assert_eq!(codec.decompress(&unknown), Err(CodecError::UnknownEncoding(9)));
        // A base4_delta1 payload one byte too long has unread bits.
        let values: Vec<u64> = (0..32).map(|i| 0x1000_0000 + i).collect();
        let mut c = Bdi::new(Geometry::default()).compress(&block_of(&values, 4)).unwrap();
        c.payload.push(0);
        c.compressed_bits += 8;
        assert!(matches!(codec.decompress(&c), Err(CodecError::Corrupt { .. })));
        assert!(codec.compress(&[0; 64]).is_err());
    }

    #[test]
    fn metadata_and_latency() {
        let codec = Bdi::new(Geometry::default());
        let names = codec.encoding_names();
        assert_eq!(names.len(), 9);
        assert_eq!(names[B4_D1 as usize], "base4_delta1");
        assert_eq!(names[B2_D1 as usize], "base2_delta1");
        assert_eq!(codec.metadata_bits(), 4);
        assert_eq!(codec.latency(), Latency::new(1, 1));
    }

    fn all_geometries() -> Vec<Geometry> {
        crate::codec::test_support::geometries()
    }

    fn geometry_and_block(random: bool) -> impl Strategy<Value = (Geometry, Vec<u8>)> {
        prop::sample::select(all_geometries()).prop_flat_map(move |g| {
            let blocks = if random { random_block(g.block_bytes()).boxed() } else { structured_block(g.block_bytes()) };
            (Just(g), blocks)
        })
    }

    proptest! {
        /// The add-and-compare fit check equals `fits_signed` on values
        /// sign-extended from every base width, at every delta width.
        #[test]
        fn delta_fits_equals_fits_signed(raw in any::<u64>(), delta_bits in 1u32..=64, small in any::<bool>()) {
            use crate::bits::fits_signed;
            let raw = if small { raw % 300 } else { raw };
            for (base_bytes, fits) in [
                (8, Box::new(BaseDelta::new(8, delta_bits).delta_fits::<8>()) as Box<dyn Fn(i64) -> bool>),
                (4, Box::new(BaseDelta::new(4, delta_bits).delta_fits::<4>())),
                (2, Box::new(BaseDelta::new(2, delta_bits).delta_fits::<2>())),
            ] {
                for value in [raw, raw.wrapping_neg()] {
                    let x = sign_extend(value, base_bytes * 8);
                    prop_assert_eq!(fits(x), fits_signed(x, delta_bits), "{} bytes, x {}", base_bytes, x);
                }
            }
        }

        /// The 4-byte encoder writes the generic encoder's bits, and the
        /// 4-byte decoder gives them back, at every width and block size.
        #[test]
        fn four_byte_encoder_equals_the_generic_one(
            (_geometry, block) in prop_oneof![geometry_and_block(false), geometry_and_block(true)],
            delta_bits in 1u32..32,
            base_word in any::<u32>(),
        ) {
            let layout = BaseDelta::new(4, delta_bits);
            // Also with a far value planted, so the explicit base is used.
            let mut planted = block.clone();
            planted[4..8].copy_from_slice(&base_word.to_le_bytes());
            for block in [&block, &planted] {
                let Some(base) = layout.fit(block) else { continue };
                let (mut fast, mut generic) = (BitWriter::new(), BitWriter::new());
                layout.encode_words4(block, base as u32, &mut fast);
                layout.encode_words::<4>(block, base, &mut generic);
                let (bytes, bits) = fast.finish();
                prop_assert_eq!((bytes.clone(), bits), generic.finish());
                let mut decoded = vec![0u8; block.len()];
                layout.decode_words4(&mut BitReader::new(&bytes, bits).unwrap(), &mut decoded).unwrap();
                prop_assert_eq!(&decoded, block);
            }
        }

        /// Any stream, of the exact length or not: the 4-byte decoder gives
        /// the generic decoder's result, errors included.
        #[test]
        fn four_byte_decoder_equals_the_generic_one(
            values in prop::sample::select(vec![8usize, 16, 32]),
            delta_bits in 1u32..32,
            payload in prop::collection::vec(any::<u8>(), 0..140),
            exact in any::<bool>(),
            cut in 0usize..64,
        ) {
            let layout = BaseDelta::new(4, delta_bits);
            let needed = 32 + values * (1 + delta_bits as usize);
            let available = payload.len() * 8;
            let bits = if exact && needed <= available { needed } else { available.saturating_sub(cut) };
            let (mut fast_out, mut generic_out) = (vec![0u8; values * 4], vec![0u8; values * 4]);
            let fast = layout.decode_words4(&mut BitReader::new(&payload, bits).unwrap(), &mut fast_out);
            let generic = layout.decode_words::<4>(&mut BitReader::new(&payload, bits).unwrap(), &mut generic_out);
            prop_assert_eq!(&fast, &generic);
            if fast.is_ok() {
                prop_assert_eq!(fast_out, generic_out);
            }
        }

        #[test]
        fn round_trips_structured((geometry, block) in geometry_and_block(false)) {
            let compressed = assert_round_trips(&mut Bdi::new(geometry), &block)?;
            if let Some(layout) = base_delta_for(compressed.encoding) {
                prop_assert_eq!(compressed.compressed_bits, layout.compressed_bits(geometry.block_bytes()));
            }
        }

        #[test]
        fn round_trips_random((geometry, block) in geometry_and_block(true)) {
            assert_round_trips(&mut Bdi::new(geometry), &block)?;
        }
    }
}
