//! C-Pack (Chen et al., IEEE TVLSI 2010, Table I) and C-Pack+Z (the adaptive-compression paper,
//! Table II): one type, two registry names (`cpack`, `cpack_z`).
//!
//! The block is read as 32-bit little-endian words (`words(block, 4)`); the
//! patterns name the bytes of a word from most to least significant, so
//! "zzzx" is a word whose three high-order bytes (the bytes at the higher
//! addresses) are zero. Each word becomes a code, then a 4-bit dictionary
//! index when the pattern uses the dictionary, then its unmatched low-order
//! bytes, all MSB first and back to back:
//!
//! | pattern    | meaning                  | `cpack` (Chen Table I) | `cpack_z` (the adaptive-compression paper Table II) | bits (cpack / cpack_z) |
//! |------------|--------------------------|------------------------|--------------------------------|------------------------|
//! | zzzz       | zero word                | 00                     | 01                             | 2 / 2                  |
//! | xxxx       | new word, 32-bit literal | 01                     | 10                             | 34 / 34                |
//! | mmmm       | full dictionary match    | 10 + index             | 1100 + index                   | 6 / 8                  |
//! | mmxx       | high halfword matched    | 1100 + index + 16 bits | 1101 + index + 16 bits         | 24 / 24                |
//! | zzzx       | one significant low byte | 1101 + 8 bits          | 1110 + 8 bits                  | 12 / 12                |
//! | mmmx       | high three bytes matched | 1110 + index + 8 bits  | 1111 + index + 8 bits          | 16 / 16                |
//! | zero block | whole block zero         | —                      | 00 (encoding id 2)             | — / 2                  |
//!
//! The adaptive-compression paper spends code 00 on the zero block, which moves every other code
//! along by one and makes a full match cost 8 bits instead of 6; `cpack_z`
//! follows that table exactly, `cpack` follows Chen et al. (code 1111 is
//! unused there and is rejected).
//!
//! The zero block is an encoding id (2), so the metadata alone identifies
//! it, and its payload is Table II's 2-bit code `00`: `compressed_bits` = 2,
//! the size the paper counts (a non-empty payload also keeps truncation
//! detectable). Inside an encoding-1 word stream `00` is invalid for `cpack_z`.
//!
//! Dictionary (Chen et al., Sec. III): 16 entries, empty at the start of each
//! block, rebuilt identically by the decoder. Zero-pattern words (zzzz, zzzx)
//! are checked first and never enter it; other words are matched against all
//! filled entries, taking the most matched high-order bytes (mmmm, then
//! mmmx, then mmxx; the lowest index among equals), else xxxx. Words that are
//! not fully matched (xxxx, mmxx, mmmx) are pushed; mmmm words are already
//! there. Replacement is FIFO: the n-th pushed word (counting from 0) goes
//! to entry `n mod 16`, so after 16 pushes the oldest entry is overwritten. An index
//! naming an entry not yet filled is a corrupt payload.
//!
//! Encoding ids: 0 uncompressed, 1 C-Pack word stream, 2 zero block
//! (`cpack_z` only). A block is kept compressed only when that saves a burst.

use super::declaration::{Declaration, DefaultLatency, EnergyFigure};
use super::{
    check_block_size, decode_uncompressed_into, BlockSize, Codec, CompressedBlock, EncodingId, Latency, Table2Patterns,
    UNCOMPRESSED,
};
use crate::bits::{window_at, BitReader, BlockBitWriter, BLOCK_WRITER_BYTES};
use crate::error::{CodecError, Corruption};
use crate::geometry::Geometry;
use crate::mc::energy::{CodecEnergy, EnergyParams, PowerLatency};

/// C-Pack: 12 cycles to compress, 13 to decompress (the MAG-aware paper §V-A).
const CPACK_LATENCY: Latency = Latency::new(12, 13);
/// C-Pack+Z: 16 and 9 (the adaptive-compression paper, Table III).
const CPACK_Z_LATENCY: Latency = Latency::new(16, 9);

/// C-Pack+Z's row of the adaptive-compression paper's Table III (7 nm,
/// 1 GHz): compressor 1.8 mW for 16 cycles, decompressor 1.3 mW for 9; their
/// products (28.8 + 11.7 = 40.5 pJ) are how the table's total of 40.0 pJ per
/// 512-bit block arises.
pub const TABLE3: PowerLatency =
    PowerLatency { compress_mw: 1.8, compress_cycles: 16.0, decompress_mw: 1.3, decompress_cycles: 9.0 };

/// Table III's C-Pack+Z total (`-memzip_energy_cpack_pj`), split by
/// [`TABLE3`]'s power x latency and scaled to the block. C-Pack without the
/// zero-block code has no row of its own and uses C-Pack+Z's.
fn energy(params: &EnergyParams, block_bits: usize) -> CodecEnergy {
    CodecEnergy::from_table3(params.cpack_pj, TABLE3, block_bits)
}

const TABLE3_SOURCE: &str = "the adaptive-compression paper, Table III (C-Pack+Z): 40.0 pJ per 512-bit block \
                             compressed + decompressed, split 28.8 : 11.7 by power x latency, scaled to the block";

pub const DECLARATIONS: &[Declaration] = &[
    Declaration {
        name: "cpack",
        summary: "C-Pack (Chen et al., IEEE TVLSI 2010, Table I)",
        knobs: &[],
        lossy: false,
        energy: EnergyFigure::PerBlock { per_block: energy, source: TABLE3_SOURCE },
        latency: DefaultLatency::Cycles(CPACK_LATENCY),
        build: |spec, _| Ok(Box::new(CPack::new(spec.geometry, false))),
    },
    Declaration {
        name: "cpack_z",
        summary: "C-Pack+Z: C-Pack with a 2-bit zero-block code (the adaptive-compression paper, Table II)",
        knobs: &[],
        lossy: false,
        energy: EnergyFigure::PerBlock { per_block: energy, source: TABLE3_SOURCE },
        latency: DefaultLatency::Cycles(CPACK_Z_LATENCY),
        build: |spec, _| Ok(Box::new(CPack::new(spec.geometry, true))),
    },
];

/// The encoding id of a C-Pack word stream.
pub const ENCODING_CPACK: EncodingId = 1;
/// The encoding id of C-Pack+Z's all-zero block.
pub const ENCODING_ZERO_BLOCK: EncodingId = 2;

const WORD_BYTES: usize = 4;
const DICTIONARY_ENTRIES: usize = 16;
const INDEX_BITS: u32 = 4;
/// The adaptive-compression paper Table II: the zero block is code 00, 2 bits.
const ZERO_BLOCK_CODE: u64 = 0b00;
const ZERO_BLOCK_CODE_BITS: u32 = 2;
/// A word whose three high-order bytes are zero is "zzzx".
const HIGH_THREE_BYTES: u32 = 0xffff_ff00;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pattern {
    Zzzz,
    Xxxx,
    Mmmm,
    Mmxx,
    Zzzx,
    Mmmx,
}

impl Pattern {
    /// Bits of the word taken from the dictionary entry (0: no entry used).
    fn matched_mask(self) -> u32 {
        match self {
            Pattern::Mmmm => u32::MAX,
            Pattern::Mmmx => HIGH_THREE_BYTES,
            Pattern::Mmxx => 0xffff_0000,
            Pattern::Zzzz | Pattern::Xxxx | Pattern::Zzzx => 0,
        }
    }

    fn uses_dictionary(self) -> bool {
        self.matched_mask() != 0
    }

    /// Low-order bits stored verbatim after the code (and index).
    fn literal_bits(self) -> u32 {
        match self {
            Pattern::Zzzz | Pattern::Mmmm => 0,
            Pattern::Zzzx | Pattern::Mmmx => 8,
            Pattern::Mmxx => 16,
            Pattern::Xxxx => 32,
        }
    }

    /// Words not fully matched and not zero patterns enter the dictionary.
    fn pushes(self) -> bool {
        matches!(self, Pattern::Xxxx | Pattern::Mmxx | Pattern::Mmmx)
    }
}

/// A prefix code for a pattern.
#[derive(Debug, Clone, Copy)]
struct Code {
    pattern: Pattern,
    bits: u64,
    len: u32,
}

const fn code(pattern: Pattern, bits: u64, len: u32) -> Code {
    Code { pattern, bits, len }
}

/// Chen et al., Table I.
const CHEN_CODES: [Code; 6] = [
    code(Pattern::Zzzz, 0b00, 2),
    code(Pattern::Xxxx, 0b01, 2),
    code(Pattern::Mmmm, 0b10, 2),
    code(Pattern::Mmxx, 0b1100, 4),
    code(Pattern::Zzzx, 0b1101, 4),
    code(Pattern::Mmmx, 0b1110, 4),
];

/// The adaptive-compression paper, Table II (C-Pack+Z), patterns 2-7; pattern 1 is the zero block.
const PAPER004_CODES: [Code; 6] = [
    code(Pattern::Zzzz, 0b01, 2),
    code(Pattern::Xxxx, 0b10, 2),
    code(Pattern::Mmmm, 0b1100, 4),
    code(Pattern::Mmxx, 0b1101, 4),
    code(Pattern::Zzzx, 0b1110, 4),
    code(Pattern::Mmmx, 0b1111, 4),
];

/// The 16-entry FIFO dictionary, filled as words are pushed.
#[derive(Debug, Default)]
struct Dictionary {
    entries: [u32; DICTIONARY_ENTRIES],
    pushed: usize,
}

impl Dictionary {
    fn filled(&self) -> &[u32] {
        &self.entries[..self.pushed.min(DICTIONARY_ENTRIES)]
    }

    /// FIFO replacement: the write pointer wraps onto the oldest entry.
    fn push(&mut self, word: u32) {
        self.entries[self.pushed % DICTIONARY_ENTRIES] = word;
        self.pushed += 1;
    }

    fn entry(&self, index: usize) -> Result<u32, CodecError> {
        self.filled().get(index).copied().ok_or_else(|| {
            CodecError::corrupt(
                Corruption::OutOfRange,
                format!("dictionary index {index} names an empty entry ({} filled)", self.filled().len()),
            )
        })
    }

    /// The match with the most high-order bytes, lowest index among equals:
    /// one pass over the filled entries. Every match needs the high halfword,
    /// so most entries are rejected by one test; a full match ends the pass
    /// (the first one has the lowest index).
    #[inline]
    fn best_match(&self, word: u32) -> Option<(Pattern, usize)> {
        let (mut three, mut two) = (None, None);
        for (index, &entry) in self.filled().iter().enumerate() {
            let differs = entry ^ word;
            if differs > 0xffff {
                continue;
            }
            if differs == 0 {
                return Some((Pattern::Mmmm, index));
            }
            if differs <= 0xff {
                three = three.or(Some(index));
            }
            two = two.or(Some(index));
        }
        three.map(|i| (Pattern::Mmmx, i)).or(two.map(|i| (Pattern::Mmxx, i)))
    }
}

#[derive(Debug, Clone)]
pub struct CPack {
    geometry: Geometry,
    /// C-Pack+Z: the adaptive-compression paper's code table and the zero-block encoding.
    zero_block_code: bool,
}

impl CPack {
    pub fn new(geometry: Geometry, zero_block_code: bool) -> Self {
        CPack { geometry, zero_block_code }
    }

    fn codes(&self) -> &'static [Code; 6] {
        if self.zero_block_code {
            &PAPER004_CODES
        } else {
            &CHEN_CODES
        }
    }

    #[inline]
    fn code_of(&self, pattern: Pattern) -> Code {
        // Both tables list the six patterns in `Pattern` declaration order.
        self.codes()[pattern as usize]
    }

    fn classify(word: u32, dictionary: &Dictionary) -> (Pattern, usize) {
        if word == 0 {
            (Pattern::Zzzz, 0)
        } else if word & HIGH_THREE_BYTES == 0 {
            (Pattern::Zzzx, 0)
        } else {
            dictionary.best_match(word).unwrap_or((Pattern::Xxxx, 0))
        }
    }

    /// Calls `emit(code, index and literal as one value, its width)` for
    /// each word of `block`, running the dictionary as the encoder does.
    /// Shared by the encoder (which writes) and the size-only path (which
    /// adds widths), so the two cannot disagree.
    #[inline(always)]
    fn tokens(&self, block: &[u8], mut emit: impl FnMut(u64, u32)) {
        self.patterned_tokens(block, |_, value, width| emit(value, width));
    }

    /// [`CPack::tokens`] with each word's pattern.
    #[inline(always)]
    fn patterned_tokens(&self, block: &[u8], mut emit: impl FnMut(Pattern, u64, u32)) {
        let mut dictionary = Dictionary::default();
        for chunk in block.chunks_exact(WORD_BYTES) {
            let word = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
            let (pattern, index) = Self::classify(word, &dictionary);
            let code = self.code_of(pattern);
            let literal_bits = pattern.literal_bits();
            let literal = if literal_bits == 0 { 0 } else { word as u64 & ((1u64 << literal_bits) - 1) };
            let (mut value, mut width) = (code.bits, code.len);
            if pattern.uses_dictionary() {
                value = (value << INDEX_BITS) | index as u64;
                width += INDEX_BITS;
            }
            emit(pattern, (value << literal_bits) | literal, width + literal_bits);
            if pattern.pushes() {
                dictionary.push(word);
            }
        }
    }

    /// Bits of the word stream for `block`.
    fn word_stream_bits(&self, block: &[u8]) -> usize {
        let mut bits = 0usize;
        self.tokens(block, |_, width| bits += width as usize);
        bits
    }

    /// Codes are 2 bits, or 4 bits when the first two are `11`.
    fn read_pattern(&self, reader: &mut BitReader<'_>) -> Result<Pattern, CodecError> {
        let mut bits = reader.read(2)?;
        let mut len = 2;
        if bits == 0b11 {
            bits = (bits << 2) | reader.read(2)?;
            len = 4;
        }
        self.codes().iter().find(|c| c.bits == bits && c.len == len).map(|c| c.pattern).ok_or_else(|| {
            CodecError::corrupt(
                Corruption::UnknownCode,
                format!("code {bits:0len$b} names no word pattern", len = len as usize),
            )
        })
    }

    fn decode_words(&self, reader: &mut BitReader<'_>, out: &mut [u8]) -> Result<(), CodecError> {
        let mut dictionary = Dictionary::default();
        for chunk in out.chunks_exact_mut(WORD_BYTES) {
            let pattern = self.read_pattern(reader)?;
            let matched = if pattern.uses_dictionary() {
                dictionary.entry(reader.read(INDEX_BITS)? as usize)? & pattern.matched_mask()
            } else {
                0
            };
            let word = matched | reader.read(pattern.literal_bits())? as u32;
            if pattern.pushes() {
                dictionary.push(word);
            }
            chunk.copy_from_slice(&word.to_le_bytes());
        }
        reader.expect_end()
    }

    fn decode_zero_block(&self, reader: &mut BitReader<'_>, out: &mut [u8]) -> Result<(), CodecError> {
        let code = reader.read(ZERO_BLOCK_CODE_BITS)?;
        if code != ZERO_BLOCK_CODE {
            return Err(CodecError::corrupt(
                Corruption::UnknownCode,
                format!("zero block payload {code:02b} is not the zero-block code 00"),
            ));
        }
        reader.expect_end()?;
        out.fill(0);
        Ok(())
    }
}

/// What the fast decoder needs of a word's token, looked up by the top 4
/// bits of the stream at the token (a 2-bit code is listed under its four
/// 4-bit extensions).
#[derive(Debug, Clone, Copy, Default)]
struct TokenShape {
    /// Code, index and literal bits: the whole token.
    bits: u8,
    code_bits: u8,
    index_bits: u8,
    literal_bits: u8,
    /// Bits of the word taken from the dictionary entry.
    matched_mask: u32,
    /// 1 if the word enters the dictionary.
    pushes: u8,
    /// The code names a word pattern (false: corrupt stream).
    valid: bool,
}

/// [`TokenShape`] of each 4-bit code prefix, for a code table.
const fn token_shapes(codes: &[Code; 6]) -> [TokenShape; 16] {
    let mut shapes = [TokenShape {
        bits: 0,
        code_bits: 0,
        index_bits: 0,
        literal_bits: 0,
        matched_mask: 0,
        pushes: 0,
        valid: false,
    }; 16];
    let mut top = 0;
    while top < 16 {
        let mut c = 0;
        while c < 6 {
            let code = codes[c];
            if (top as u64) >> (4 - code.len) == code.bits {
                let (matched_mask, literal_bits, pushes) = match code.pattern {
                    Pattern::Zzzz => (0, 0, 0),
                    Pattern::Xxxx => (0, 32, 1),
                    Pattern::Mmmm => (u32::MAX, 0, 0),
                    Pattern::Mmxx => (0xffff_0000, 16, 1),
                    Pattern::Zzzx => (0, 8, 0),
                    Pattern::Mmmx => (HIGH_THREE_BYTES, 8, 1),
                };
                let index_bits = if matched_mask != 0 { INDEX_BITS } else { 0 };
                shapes[top] = TokenShape {
                    bits: (code.len + index_bits + literal_bits) as u8,
                    code_bits: code.len as u8,
                    index_bits: index_bits as u8,
                    literal_bits: literal_bits as u8,
                    matched_mask,
                    pushes,
                    valid: true,
                };
            }
            c += 1;
        }
        top += 1;
    }
    shapes
}

const CHEN_SHAPES: [TokenShape; 16] = token_shapes(&CHEN_CODES);
const PAPER004_SHAPES: [TokenShape; 16] = token_shapes(&PAPER004_CODES);

// The fast decoder's buffer ([`BLOCK_WRITER_BYTES`]) holds the longest word
// stream (32 literals, 136 bytes) and the last 8-byte load.

/// The dictionary as the fast decoder runs it: every step writes the next
/// FIFO slot, with the word if it is pushed, else with what the slot holds.
#[derive(Debug, Default)]
struct FastDictionary {
    entries: [u32; DICTIONARY_ENTRIES],
    pushed: usize,
}

impl FastDictionary {
    /// The word of the token at the top of `window` (with `shape`); sets
    /// `corrupt` if its code names no pattern or its index an empty entry.
    #[inline(always)]
    fn word(&mut self, window: u64, shape: TokenShape, corrupt: &mut bool) -> u32 {
        let after_code = window << shape.code_bits;
        let index = (after_code >> 60) as usize;
        let literal = ((after_code << shape.index_bits) >> 32) >> (32 - shape.literal_bits as u32);
        let filled = self.pushed.min(DICTIONARY_ENTRIES);
        *corrupt |= !shape.valid | ((shape.index_bits != 0) & (index >= filled));
        let word = (self.entries[index] & shape.matched_mask) | literal as u32;
        let slot = self.pushed % DICTIONARY_ENTRIES;
        self.entries[slot] = if shape.pushes != 0 { word } else { self.entries[slot] };
        self.pushed += shape.pushes as usize;
        word
    }
}

/// Decodes a word stream of `N` words into `out` and returns true, or
/// returns false when the stream is not one the encoder writes (the caller
/// runs the reference decoder for its exact error). One token per word:
/// each step takes two, the second's code being inside the first one's
/// 57-bit window, so one load gives both tokens' widths and the second
/// load is off the chain from one token's position to the next.
#[inline(always)]
fn decode_words_fast<const N: usize>(
    shapes: &[TokenShape; 16],
    payload: &[u8],
    bit_len: usize,
    out: &mut [u8],
) -> bool {
    if payload.len() > 136 || bit_len > payload.len() * 8 {
        return false;
    }
    let mut buffer = [0u8; BLOCK_WRITER_BYTES];
    buffer[..payload.len()].copy_from_slice(payload);
    let mut dictionary = FastDictionary::default();
    let (mut words, mut position, mut corrupt) = ([0u32; N], 0usize, false);
    for pair in words.chunks_exact_mut(2) {
        let window = window_at(&buffer, position);
        let first = shapes[(window >> 60) as usize];
        let second_position = position + first.bits as usize;
        let second = shapes[((window << first.bits) >> 60) as usize];
        pair[0] = dictionary.word(window, first, &mut corrupt);
        pair[1] = dictionary.word(window_at(&buffer, second_position), second, &mut corrupt);
        position = second_position + second.bits as usize;
    }
    if corrupt || position != bit_len {
        return false;
    }
    for (chunk, word) in out.chunks_exact_mut(WORD_BYTES).zip(&words) {
        chunk.copy_from_slice(&word.to_le_bytes());
    }
    true
}

impl CPack {
    /// The encoding and size `compress` stores `block` with.
    fn size_of(&self, block: &[u8]) -> BlockSize {
        let (encoding, bits) = if self.zero_block_code && block.iter().all(|&b| b == 0) {
            (ENCODING_ZERO_BLOCK, ZERO_BLOCK_CODE_BITS as usize)
        } else {
            (ENCODING_CPACK, self.word_stream_bits(block))
        };
        if self.geometry.worth_compressing(bits) {
            BlockSize { encoding, compressed_bits: bits }
        } else {
            BlockSize { encoding: UNCOMPRESSED, compressed_bits: self.geometry.block_bits() }
        }
    }
}

impl Codec for CPack {
    fn name(&self) -> &str {
        if self.zero_block_code {
            "cpack_z"
        } else {
            "cpack"
        }
    }

    fn geometry(&self) -> Geometry {
        self.geometry
    }

    /// Writes the word stream while sizing it (one dictionary pass), then
    /// keeps it only if it saves a burst.
    fn compress_into(&mut self, block: &[u8], out: &mut CompressedBlock) -> Result<(), CodecError> {
        check_block_size(block, self.geometry)?;
        // A 128 B block's stream is at most 32 x 34 bits: it fits the
        // stack writer (larger geometries do not exist, see `BLOCK_SIZES`).
        let mut writer = BlockBitWriter::new();
        let encoding = if self.zero_block_code && block.iter().all(|&b| b == 0) {
            writer.write(ZERO_BLOCK_CODE, ZERO_BLOCK_CODE_BITS);
            ENCODING_ZERO_BLOCK
        } else {
            self.tokens(block, |value, width| writer.write(value, width));
            ENCODING_CPACK
        };
        let bits = writer.bit_len();
        if self.geometry.worth_compressing(bits) {
            out.set_payload(encoding, writer.bytes(), bits, self.geometry);
        } else {
            out.set_uncompressed(block, self.geometry);
        }
        Ok(())
    }

    fn decompress_into(&self, compressed: &CompressedBlock, out: &mut [u8]) -> Result<(), CodecError> {
        check_block_size(out, self.geometry)?;
        match compressed.encoding {
            UNCOMPRESSED => decode_uncompressed_into(compressed, self.geometry, out),
            ENCODING_CPACK => {
                let shapes = if self.zero_block_code { &PAPER004_SHAPES } else { &CHEN_SHAPES };
                let (payload, bits) = (&compressed.payload[..], compressed.compressed_bits);
                let fast = match out.len() / WORD_BYTES {
                    32 => decode_words_fast::<32>(shapes, payload, bits, out),
                    16 => decode_words_fast::<16>(shapes, payload, bits, out),
                    8 => decode_words_fast::<8>(shapes, payload, bits, out),
                    _ => false,
                };
                // The reference decoder gives the exact error of a stream the
                // fast path rejects.
                if fast {
                    Ok(())
                } else {
                    self.decode_words(&mut compressed.reader()?, out)
                }
            }
            ENCODING_ZERO_BLOCK if self.zero_block_code => self.decode_zero_block(&mut compressed.reader()?, out),
            other => Err(CodecError::UnknownEncoding(other)),
        }
    }

    fn compressed_size(&mut self, block: &[u8]) -> Result<BlockSize, CodecError> {
        check_block_size(block, self.geometry)?;
        Ok(self.size_of(block))
    }

    fn latency(&self) -> Latency {
        if self.zero_block_code {
            CPACK_Z_LATENCY
        } else {
            CPACK_LATENCY
        }
    }

    fn encoding_names(&self) -> Vec<String> {
        let mut names = vec!["uncompressed".to_string(), "cpack".to_string()];
        if self.zero_block_code {
            names.push("zero_block".into());
        }
        names
    }

    /// Table II's C-Pack+Z patterns: 1 zero block, 2 zzzz, 3 xxxx (new
    /// word), 4 mmmm, 5 mmxx, 6 zzzx, 7 mmmx, 8 a block stored raw.
    fn count_table2_patterns(&mut self, block: &[u8], words: &mut Table2Patterns) -> Result<bool, CodecError> {
        if !self.zero_block_code {
            return Ok(false);
        }
        let block_words = (block.len() / WORD_BYTES) as u64;
        match self.compressed_size(block)?.encoding {
            ENCODING_ZERO_BLOCK => words[0] += block_words,
            UNCOMPRESSED => words[7] += block_words,
            _ => self.patterned_tokens(block, |pattern, _, _| {
                let number = match pattern {
                    Pattern::Zzzz => 2,
                    Pattern::Xxxx => 3,
                    Pattern::Mmmm => 4,
                    Pattern::Mmxx => 5,
                    Pattern::Zzzx => 6,
                    Pattern::Mmmx => 7,
                };
                words[number - 1] += 1;
            }),
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Table VI's counting: every word under the Table II pattern that stores it.
    #[test]
    fn table2_patterns_of_cpack_z() {
        let geometry = Geometry::with_granule(64, 1).unwrap();
        let mut codec = CPack::new(geometry, true);
        let line = |words: &[u32]| -> Vec<u8> { words.iter().flat_map(|w| w.to_le_bytes()).collect() };
        let mut stream = vec![0u32; 16];
        // xxxx, mmmm, mmxx, zzzx, mmmx, then zzzz.
        stream[..5].copy_from_slice(&[0x1234_5678, 0x1234_5678, 0x1234_0000, 0x0000_0042, 0x1234_56ff]);
        let mut words = [0u64; 9];
        for block in [line(&[0; 16]), line(&stream)] {
            assert!(codec.count_table2_patterns(&block, &mut words).unwrap());
        }
        assert_eq!(words, [16, 11, 1, 1, 1, 1, 1, 0, 0]);
        // Sixteen distinct words: 16 x 34 bits is more than the 512 raw bits.
        let distinct: Vec<u32> = (0..16).map(|i| 0x1111_1111u32.wrapping_mul(i + 1) ^ 0x8000_0000).collect();
        let mut raw = [0u64; 9];
        codec.count_table2_patterns(&line(&distinct), &mut raw).unwrap();
        assert_eq!(raw, [0, 0, 0, 0, 0, 0, 0, 16, 0]);
        assert!(!CPack::new(geometry, false).count_table2_patterns(&line(&[0; 16]), &mut raw).unwrap());
    }
    use crate::bits::BitWriter;

    #[test]
    fn code_tables_list_patterns_in_declaration_order() {
        for codes in [&CHEN_CODES, &PAPER004_CODES] {
            for (i, code) in codes.iter().enumerate() {
                assert_eq!(code.pattern as usize, i, "{code:?}");
            }
        }
    }
    use crate::codec::registry::build_str;
    use crate::codec::test_support::{
        assert_round_trips, bit_string, random_block, spaced, structured_block, words_block,
    };
    use proptest::prelude::*;

    const PLAIN: bool = false;
    const WITH_Z: bool = true;

    fn bin(value: u32, width: usize) -> String {
        format!("{value:0width$b}")
    }

    fn compress(zero_block_code: bool, block: &[u8]) -> CompressedBlock {
        let mut codec = CPack::new(Geometry::default(), zero_block_code);
        let c = codec.compress(block).unwrap();
        assert_eq!(codec.decompress(&c).unwrap(), block);
        c
    }

    #[test]
    fn zero_block() {
        let c = compress(PLAIN, &[0; 128]);
        assert_eq!((c.encoding, c.compressed_bits, c.burst_count), (ENCODING_CPACK, 64, 1));
        assert_eq!(c.payload, vec![0; 8]);
        let c = compress(WITH_Z, &[0; 128]);
        assert_eq!((c.encoding, c.compressed_bits, c.mag_bytes, c.burst_count), (ENCODING_ZERO_BLOCK, 2, 32, 1));
        assert_eq!(bit_string(&c), "00");
        // One non-zero byte: a word stream, zzzx + 31 zzzz (code 01).
        let mut block = vec![0u8; 128];
        block[0] = 0xab;
        let c = compress(WITH_Z, &block);
        assert_eq!((c.encoding, c.compressed_bits), (ENCODING_CPACK, 12 + 31 * 2));
        assert_eq!(bit_string(&c), format!("{}{}", spaced("1110 10101011"), "01".repeat(31)));
    }

    /// xxxx, mmmm, mmmx, mmxx, zzzx, zzzz, mmmm of a pushed partial match.
    const EVERY_PATTERN: [u32; 7] = [0x1234_5678, 0x1234_5678, 0x1234_56ab, 0x1234_abcd, 0x0000_00ab, 0, 0x1234_abcd];

    #[test]
    fn every_pattern_bit_exact_chen_codes() {
        let c = compress(PLAIN, &words_block(&EVERY_PATTERN, 32));
        let expected = format!(
            "{}{}",
            spaced(
                "01 00010010001101000101011001111000 \
                 10 0000 \
                 1110 0000 10101011 \
                 1100 0000 1010101111001101 \
                 1101 10101011 \
                 00 \
                 10 0010"
            ),
            "00".repeat(25)
        );
        assert_eq!(bit_string(&c), expected);
        assert_eq!(c.compressed_bits, 34 + 6 + 16 + 24 + 12 + 2 + 6 + 25 * 2);
        assert_eq!((c.encoding, c.burst_count), (ENCODING_CPACK, 1));
    }

    #[test]
    fn every_pattern_bit_exact_paper004_codes() {
        let c = compress(WITH_Z, &words_block(&EVERY_PATTERN, 32));
        let expected = format!(
            "{}{}",
            spaced(
                "10 00010010001101000101011001111000 \
                 1100 0000 \
                 1111 0000 10101011 \
                 1101 0000 1010101111001101 \
                 1110 10101011 \
                 01 \
                 1100 0010"
            ),
            "01".repeat(25)
        );
        assert_eq!(bit_string(&c), expected);
        assert_eq!(c.compressed_bits, 34 + 8 + 16 + 24 + 12 + 2 + 8 + 25 * 2);
    }

    #[test]
    fn most_matched_bytes_win_and_zero_patterns_come_first() {
        // Entry 0 = 0x1234_0001 (xxxx); entry 1 = 0x1234_5601 (mmxx on entry
        // 0, pushed). 0x1234_56ff matches entry 0 on two bytes and entry 1 on
        // three: mmmx index 1. 0x0000_1234 is xxxx (pushed); 0x0000_0056 then
        // is zzzx (12 bits), not mmxx on it (24).
        let head = [0x1234_0001, 0x1234_5601, 0x1234_56ff, 0x0000_1234, 0x0000_0056];
        let c = compress(PLAIN, &words_block(&head, 32));
        let expected = format!(
            "{}{}",
            spaced(&format!(
                "01 {} 1100 0000 {} 1110 0001 11111111 01 {} 1101 01010110",
                bin(0x1234_0001, 32),
                bin(0x5601, 16),
                bin(0x1234, 32)
            )),
            "00".repeat(27)
        );
        assert_eq!(bit_string(&c), expected);
    }

    /// 17 distinct words (17 pushes: the 17th overwrites entry 0), then
    /// w16 (entry 0), w1 (entry 1), w0 (evicted: xxxx, pushed into entry 1),
    /// w1 (now evicted too: xxxx into entry 2), w0 (entry 1), 10 zeros.
    fn wrap_around_block() -> Vec<u8> {
        let w = |i: u32| ((0x40 + i) << 24) | 0x0012_3456;
        let mut head: Vec<u32> = (0..17).map(w).collect();
        head.extend([w(16), w(1), w(0), w(1), w(0)]);
        words_block(&head, 32)
    }

    #[test]
    fn dictionary_hits_after_fifo_wrap_around() {
        let w = |i: u32| bin(((0x40 + i) << 24) | 0x0012_3456, 32);
        let c = compress(PLAIN, &wrap_around_block());
        let literals: String = (0..17).map(|i| format!("01{}", w(i))).collect();
        let tail = spaced(&format!("10 0000  10 0001  01 {}  01 {}  10 0001", w(0), w(1)));
        assert_eq!(bit_string(&c), format!("{literals}{tail}{}", "00".repeat(10)));
        assert_eq!(c.compressed_bits, 17 * 34 + 6 + 6 + 34 + 34 + 6 + 10 * 2);
        assert_eq!((c.encoding, c.compressed_bits, c.burst_count), (ENCODING_CPACK, 684, 3));

        let c = compress(WITH_Z, &wrap_around_block());
        let literals: String = (0..17).map(|i| format!("10{}", w(i))).collect();
        let tail = spaced(&format!("1100 0000  1100 0001  10 {}  10 {}  1100 0001", w(0), w(1)));
        assert_eq!(bit_string(&c), format!("{literals}{tail}{}", "01".repeat(10)));
        assert_eq!((c.encoding, c.compressed_bits, c.burst_count), (ENCODING_CPACK, 690, 3));
    }

    #[test]
    fn incompressible_block_is_stored_raw() {
        let block: Vec<u8> = (0..32u32).flat_map(|i| (0x9e37_79b9u32.wrapping_mul(i + 1)).to_le_bytes()).collect();
        for z in [PLAIN, WITH_Z] {
            let c = compress(z, &block);
            assert_eq!((c.encoding, c.compressed_bits, c.burst_count), (UNCOMPRESSED, 1024, 4));
        }
    }

    /// An encoding-1 payload for an 8-word (32-byte) block.
    fn handmade(encoding: EncodingId, bits: &str) -> CompressedBlock {
        let mut w = BitWriter::new();
        for ch in spaced(bits).chars() {
            w.write_bool(ch == '1');
        }
        CompressedBlock::from_bits(encoding, w, Geometry::new(32, 16).unwrap())
    }

    fn is_corrupt(r: Result<Vec<u8>, CodecError>) -> bool {
        matches!(r, Err(CodecError::Corrupt { .. }))
    }

    #[test]
    fn unfilled_dictionary_indices_are_rejected() {
        let plain = CPack::new(Geometry::new(32, 16).unwrap(), PLAIN);
        let zeros7 = "00".repeat(7);
        // mmmm 0 with an empty dictionary.
        assert!(is_corrupt(plain.decompress(&handmade(1, &format!("10 0000 {zeros7}")))));
        // One entry filled: index 0 decodes, index 1 does not (mmmm, mmmx, mmxx).
        let one = format!("01 {}", bin(0xcafe_f00d, 32));
        let zeros6 = "00".repeat(6);
        assert_eq!(
            plain.decompress(&handmade(1, &format!("{one} 10 0000 {zeros6}"))).unwrap(),
            words_block(&[0xcafe_f00d, 0xcafe_f00d], 8)
        );
        assert!(is_corrupt(plain.decompress(&handmade(1, &format!("{one} 10 0001 {zeros6}")))));
        assert!(is_corrupt(plain.decompress(&handmade(1, &format!("{one} 1110 1111 00000000 {zeros6}")))));
        assert!(is_corrupt(plain.decompress(&handmade(1, &format!("{one} 1100 0010 {} {zeros6}", "0".repeat(16))))));
        // Unused code 1111 in Chen's table.
        assert!(is_corrupt(plain.decompress(&handmade(1, &format!("1111 {zeros7}")))));
        // Leftover bits.
        assert!(is_corrupt(plain.decompress(&handmade(1, &format!("{} 0", "00".repeat(8))))));
        assert!(matches!(plain.decompress(&handmade(1, "00 00")), Err(CodecError::Truncated { .. })));
        assert_eq!(plain.decompress(&handmade(2, "00")), Err(CodecError::UnknownEncoding(2)));
    }

    #[test]
    fn zero_block_code_checks() {
        let z = CPack::new(Geometry::new(32, 16).unwrap(), WITH_Z);
        assert_eq!(z.decompress(&handmade(2, "00")).unwrap(), vec![0; 32]);
        assert!(is_corrupt(z.decompress(&handmade(2, "01"))));
        assert!(is_corrupt(z.decompress(&handmade(2, "00 0"))));
        // 00 is the zero-block code, not a word code, in a cpack_z word stream.
        assert!(is_corrupt(z.decompress(&handmade(1, &"00".repeat(8)))));
        assert_eq!(z.decompress(&handmade(1, &"01".repeat(8))).unwrap(), vec![0; 32]);
        assert_eq!(z.decompress(&handmade(3, "00")), Err(CodecError::UnknownEncoding(3)));
    }

    #[test]
    fn interface() {
        let plain = CPack::new(Geometry::default(), PLAIN);
        let z = CPack::new(Geometry::default(), WITH_Z);
        assert_eq!((plain.name(), z.name()), ("cpack", "cpack_z"));
        assert_eq!((plain.latency(), z.latency()), (Latency::new(12, 13), Latency::new(16, 9)));
        assert_eq!(plain.encoding_names(), vec!["uncompressed", "cpack"]);
        assert_eq!(z.encoding_names(), vec!["uncompressed", "cpack", "zero_block"]);
        assert_eq!((plain.metadata_bits(), z.metadata_bits()), (1, 2));
        assert!(matches!(
            CPack::new(Geometry::default(), PLAIN).compress(&[0; 32]),
            Err(CodecError::WrongBlockSize { .. })
        ));
        for name in ["cpack", "cpack_z"] {
            assert_eq!(build_str(name, Geometry::default()).unwrap().name(), name);
        }
        assert!(build_str("cpack_z:dict=32", Geometry::default()).is_err());
    }

    fn geometries() -> Vec<Geometry> {
        crate::codec::test_support::geometries()
    }

    fn cases() -> impl Strategy<Value = (Geometry, bool, Vec<u8>)> {
        (prop::sample::select(geometries()), any::<bool>()).prop_flat_map(|(g, z)| {
            let blocks = prop_oneof![3 => structured_block(g.block_bytes()), 1 => random_block(g.block_bytes())];
            (Just(g), Just(z), blocks)
        })
    }

    /// Blocks drawn from a few words, so the dictionary fills, wraps and hits.
    fn dictionary_heavy(block_bytes: usize) -> impl Strategy<Value = Vec<u8>> {
        (
            prop::collection::vec(any::<u32>(), 1..24),
            prop::collection::vec((any::<prop::sample::Index>(), 0u8..4, any::<u16>()), block_bytes / 4),
        )
            .prop_map(|(pool, picks)| {
                picks
                    .iter()
                    .flat_map(|(index, tweak, low)| {
                        let base = *index.get(&pool);
                        let word = match tweak {
                            0 => base,
                            1 => (base & 0xffff_ff00) | (*low as u32 & 0xff),
                            2 => (base & 0xffff_0000) | *low as u32,
                            _ => *low as u32 & 0xff,
                        };
                        word.to_le_bytes()
                    })
                    .collect()
            })
    }

    proptest! {
        #[test]
        fn round_trips((geometry, zero_block_code, block) in cases()) {
            assert_round_trips(&mut CPack::new(geometry, zero_block_code), &block)?;
        }

        /// Any payload, of an encoder's or not: the fast decoder (with its
        /// fallback) gives the reference decoder's result, errors included,
        /// and accepts every stream the encoder writes.
        #[test]
        fn fast_decoder_equals_the_reference(
            geometry in prop::sample::select(geometries()),
            zero_block_code in any::<bool>(),
            block_seed in prop::collection::vec(any::<u32>(), 1..24),
            payload in prop::collection::vec(any::<u8>(), 0..150),
            cut in 0usize..64,
            flip in any::<prop::sample::Index>(),
        ) {
            let codec = CPack::new(geometry, zero_block_code);
            // A stream the encoder writes (words drawn from a small pool, so
            // the dictionary hits), then a bit-flipped copy, then random bytes.
            let words = geometry.block_bytes() / WORD_BYTES;
            let block: Vec<u8> = (0..words).flat_map(|i| block_seed[(i * 7) % block_seed.len()].to_le_bytes()).collect();
            let mut writer = BitWriter::new();
            codec.tokens(&block, |value, width| writer.write(value, width));
            let encoded = CompressedBlock::from_bits(ENCODING_CPACK, writer, geometry);
            let mut flipped = encoded.clone();
            let bit = flip.index(flipped.compressed_bits.max(1));
            if let Some(byte) = flipped.payload.get_mut(bit / 8) {
                *byte ^= 0x80 >> (bit % 8);
            }
            let bits = (payload.len() * 8).saturating_sub(cut);
            let random = CompressedBlock { encoding: ENCODING_CPACK, payload, compressed_bits: bits, mag_bytes: 0, burst_count: 0 };
            for (k, stream) in [&encoded, &flipped, &random].into_iter().enumerate() {
                let mut fast = vec![0u8; geometry.block_bytes()];
                let fast_result = codec.decompress_into(stream, &mut fast);
                let mut reference = vec![0u8; geometry.block_bytes()];
                let reference_result = codec.decode_words(&mut stream.reader().unwrap(), &mut reference);
                prop_assert_eq!(&fast_result, &reference_result);
                if fast_result.is_ok() {
                    prop_assert_eq!(&fast, &reference);
                }
                if k == 0 {
                    prop_assert_eq!(&fast, &block);
                }
            }
        }

        #[test]
        fn dictionary_round_trips(block in dictionary_heavy(128), zero_block_code in any::<bool>()) {
            assert_round_trips(&mut CPack::new(Geometry::new(128, 16).unwrap(), zero_block_code), &block)?;
        }
    }
}
