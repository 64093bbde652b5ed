//! Frequent Pattern Compression (FPC; Alameldeen & Wood, UW-Madison TR 1500,
//! 2004, Table 1 — the adaptive-compression paper's reference [3]).
//!
//! The block is read as 32-bit little-endian words (`words(block, 4)`: a GPU
//! `int` in memory is one word, its "high halfword" is the two bytes at the
//! higher addresses). Each word, or run of zero words, becomes a 3-bit prefix
//! followed by its data field, MSB first, back to back:
//!
//! | prefix | pattern (original, the default)                   | data bits   |
//! |--------|---------------------------------------------------|-------------|
//! | 000    | zero run of 1..=8 words (field = length − 1)      | 3           |
//! | 001    | 4-bit sign-extended                               | 4           |
//! | 010    | one byte sign-extended                            | 8           |
//! | 011    | halfword sign-extended                            | 16          |
//! | 100    | halfword padded with a zero halfword (low half 0) | 16          |
//! | 101    | two halfwords, each a sign-extended byte          | 16 (hi, lo) |
//! | 110    | word of four repeated bytes                       | 8           |
//! | 111    | uncompressed word                                 | 32          |
//!
//! Runs longer than 8 zero words are split into several run tokens.
//!
//! The adaptive-compression paper's Table II lists a different FPC table; it is available as
//! `fpc:variant=paper004`:
//!
//! | prefix | pattern (the adaptive-compression paper, Table II)                  | data bits |
//! |--------|------------------------------------------------|-----------|
//! | 000    | zero block (the whole payload)                 | 0         |
//! | 001    | zero word                                      | 0         |
//! | 010    | word of four repeated bytes                    | 8         |
//! | 011    | 4-bit sign-extended                            | 4         |
//! | 100    | one byte sign-extended                         | 8         |
//! | 101    | halfword sign-extended                         | 16        |
//! | 110    | halfword padded with a zero halfword (N16 Z16) | 16        |
//! | 111    | two halfwords, each a sign-extended byte       | 16        |
//!
//! That table spends all eight prefixes on patterns, so it has no escape for
//! an incompressible word: a block with any such word is stored uncompressed
//! (Table II's pattern 9 is "uncompressed N512", a whole-block encoding).
//!
//! Each word takes the cheapest pattern it fits; among equal sizes the order
//! is sign-extended byte before repeated bytes, and sign-extended halfword,
//! zero-padded halfword, two sign-extended bytes. Encoding ids: 0 uncompressed,
//! 1 FPC. The block is kept compressed only when that saves a DRAM burst.

use super::declaration::{Declaration, DefaultLatency, EnergyFigure, Knob};
use std::str::FromStr;

use super::spec::CodecSpec;
use super::{
    check_block_size, decode_uncompressed_into, BlockSize, Codec, CompressedBlock, EncodingId, Latency, Table2Patterns,
    UNCOMPRESSED,
};
#[cfg(test)]
use crate::bits::fits_signed;
use crate::bits::{sign_extend, window_at, BitReader, BLOCK_WRITER_BYTES};
use crate::error::{CodecError, ConfigError, Corruption};
use crate::geometry::Geometry;
use crate::mc::energy::{CodecEnergy, EnergyParams, PowerLatency};

/// The MAG-aware paper §V-A: FPC compresses in 6 cycles and decompresses in 10.
const LATENCY: Latency = Latency::new(6, 10);

/// FPC's row of the adaptive-compression paper's Table III (7 nm, 1 GHz):
/// compressor and decompressor 4.6 mW each, for 3 and 5 cycles; their
/// products (13.8 + 23.0 = 36.8 pJ) are how the table's total of 36.9 pJ per
/// 512-bit block arises.
pub const TABLE3: PowerLatency =
    PowerLatency { compress_mw: 4.6, compress_cycles: 3.0, decompress_mw: 4.6, decompress_cycles: 5.0 };

/// Table III's total (`-memzip_energy_fpc_pj`), split by [`TABLE3`]'s power x
/// latency and scaled to the block; both variants use it (they differ only in
/// their prefix table).
pub fn energy(params: &EnergyParams, block_bits: usize) -> CodecEnergy {
    CodecEnergy::from_table3(params.fpc_pj, TABLE3, block_bits)
}

pub const DECLARATIONS: &[Declaration] = &[Declaration {
    name: "fpc",
    summary: "Frequent Pattern Compression; variant=paper004 is the adaptive-compression paper's Table II",
    knobs: &[Knob { name: "variant", accepts: FpcVariant::NAMES }],
    lossy: false,
    energy: EnergyFigure::PerBlock {
        per_block: energy,
        source: "the adaptive-compression paper, Table III: 36.9 pJ per 512-bit block compressed + decompressed, \
                 split 3 : 5 by power x latency, scaled to the block",
    },
    latency: DefaultLatency::Cycles(LATENCY),
    build: |spec, _| build(spec),
}];

/// The encoding id of an FPC bitstream.
pub const ENCODING_FPC: EncodingId = 1;

const WORD_BYTES: usize = 4;
const PREFIX_BITS: u32 = 3;
/// The TR's zero-run field: 3 bits, runs of up to 8 zero words.
const ZERO_RUN_BITS: u32 = 3;
const MAX_ZERO_RUN: usize = 1 << ZERO_RUN_BITS;

/// Which prefix table the codec uses (the `variant` knob).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FpcVariant {
    /// Alameldeen & Wood's TR, Table 1: zero runs and an uncompressed-word escape.
    #[default]
    Original,
    /// The adaptive-compression paper, Table II: zero block, zero word, no escape.
    Paper004,
}

impl FpcVariant {
    pub const NAMES: &'static str = "original, paper004";

    /// The pattern each 3-bit prefix names (prefix = index).
    fn prefixes(self) -> &'static [Pattern; 8] {
        use Pattern::*;
        match self {
            FpcVariant::Original => &[
                ZeroRun,
                SignExtended4,
                SignExtendedByte,
                SignExtendedHalfword,
                ZeroPaddedHalfword,
                TwoSignExtendedBytes,
                RepeatedBytes,
                Uncompressed,
            ],
            FpcVariant::Paper004 => &[
                ZeroBlock,
                ZeroWord,
                RepeatedBytes,
                SignExtended4,
                SignExtendedByte,
                SignExtendedHalfword,
                ZeroPaddedHalfword,
                TwoSignExtendedBytes,
            ],
        }
    }

    /// Patterns a non-zero word is tried against, cheapest first (the
    /// reference [`classify_nonzero`] is tested against).
    #[cfg(test)]
    fn nonzero_patterns(self) -> &'static [Pattern] {
        use Pattern::*;
        const NARROW: [Pattern; 6] = [
            SignExtended4,
            SignExtendedByte,
            RepeatedBytes,
            SignExtendedHalfword,
            ZeroPaddedHalfword,
            TwoSignExtendedBytes,
        ];
        const WITH_ESCAPE: [Pattern; 7] = [
            SignExtended4,
            SignExtendedByte,
            RepeatedBytes,
            SignExtendedHalfword,
            ZeroPaddedHalfword,
            TwoSignExtendedBytes,
            Uncompressed,
        ];
        match self {
            FpcVariant::Original => &WITH_ESCAPE,
            FpcVariant::Paper004 => &NARROW,
        }
    }

    #[cfg(test)]
    fn prefix_of(self, pattern: Pattern) -> u64 {
        // Every pattern the encoder emits for a variant is in its table.
        self.prefixes().iter().position(|&p| p == pattern).unwrap_or_default() as u64
    }
}

impl FromStr for FpcVariant {
    type Err = ();

    fn from_str(s: &str) -> Result<Self, ()> {
        match s {
            "original" => Ok(FpcVariant::Original),
            "paper004" => Ok(FpcVariant::Paper004),
            _ => Err(()),
        }
    }
}

/// What a prefix stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pattern {
    ZeroRun,
    ZeroBlock,
    ZeroWord,
    SignExtended4,
    SignExtendedByte,
    SignExtendedHalfword,
    ZeroPaddedHalfword,
    TwoSignExtendedBytes,
    RepeatedBytes,
    Uncompressed,
}

impl Pattern {
    /// Width of the data field after the prefix.
    fn data_bits(self) -> u32 {
        match self {
            Pattern::ZeroBlock | Pattern::ZeroWord => 0,
            Pattern::ZeroRun => ZERO_RUN_BITS,
            Pattern::SignExtended4 => 4,
            Pattern::SignExtendedByte | Pattern::RepeatedBytes => 8,
            Pattern::SignExtendedHalfword | Pattern::ZeroPaddedHalfword | Pattern::TwoSignExtendedBytes => 16,
            Pattern::Uncompressed => 32,
        }
    }

    /// The data field for `word` if the word has this pattern (single-word
    /// patterns only; zero runs and zero blocks are found by the encoder).
    #[cfg(test)]
    fn pack(self, word: u32) -> Option<u64> {
        let signed = word as i32 as i64;
        let (high, low) = (word >> 16, word & 0xffff);
        let fits = match self {
            Pattern::ZeroWord => word == 0,
            Pattern::SignExtended4 => fits_signed(signed, 4),
            Pattern::SignExtendedByte => fits_signed(signed, 8),
            Pattern::SignExtendedHalfword => fits_signed(signed, 16),
            Pattern::ZeroPaddedHalfword => low == 0,
            Pattern::TwoSignExtendedBytes => {
                fits_signed(high as u16 as i16 as i64, 8) && fits_signed(low as u16 as i16 as i64, 8)
            }
            Pattern::RepeatedBytes => word == (word & 0xff).wrapping_mul(0x0101_0101),
            Pattern::Uncompressed => true,
            Pattern::ZeroRun | Pattern::ZeroBlock => false,
        };
        if !fits {
            return None;
        }
        let data = match self {
            Pattern::ZeroPaddedHalfword => high,
            // The high halfword's byte first, then the low halfword's.
            Pattern::TwoSignExtendedBytes => ((high & 0xff) << 8) | (low & 0xff),
            _ => word,
        };
        let mask = (1u64 << self.data_bits()) - 1;
        Some(data as u64 & mask)
    }

    /// The word a single-word pattern's data field stands for.
    fn unpack(self, data: u64) -> u32 {
        match self {
            Pattern::SignExtended4 => sign_extend(data, 4) as u32,
            Pattern::SignExtendedByte => sign_extend(data, 8) as u32,
            Pattern::SignExtendedHalfword => sign_extend(data, 16) as u32,
            Pattern::ZeroPaddedHalfword => (data as u32) << 16,
            Pattern::TwoSignExtendedBytes => {
                let high = sign_extend(data >> 8, 8) as u32 & 0xffff;
                let low = sign_extend(data & 0xff, 8) as u32 & 0xffff;
                (high << 16) | low
            }
            Pattern::RepeatedBytes => (data as u32 & 0xff).wrapping_mul(0x0101_0101),
            Pattern::Uncompressed => data as u32,
            Pattern::ZeroRun | Pattern::ZeroBlock | Pattern::ZeroWord => 0,
        }
    }
}

/// The cheapest pattern a non-zero word fits and its data field, in the
/// order [`FpcVariant::nonzero_patterns`] lists (narrower fields first; among
/// equal widths sign-extended byte before repeated bytes, and sign-extended
/// halfword, zero-padded halfword, two sign-extended bytes). The checks are
/// the range tests of [`Pattern::pack`] written out, so no pattern list is
/// walked per word. `Uncompressed` is the last resort; a variant without the
/// escape rejects it.
#[inline(always)]
fn classify_nonzero(word: u32) -> (Pattern, u64) {
    let (high, low) = (word >> 16, word & 0xffff);
    let sign_extended_byte = |half: u32| (half as u16).wrapping_add(0x80) < 0x100;
    if word.wrapping_add(8) < 16 {
        (Pattern::SignExtended4, (word & 0xf) as u64)
    } else if word.wrapping_add(0x80) < 0x100 {
        (Pattern::SignExtendedByte, (word & 0xff) as u64)
    } else if word == (word & 0xff).wrapping_mul(0x0101_0101) {
        (Pattern::RepeatedBytes, (word & 0xff) as u64)
    } else if word.wrapping_add(0x8000) < 0x1_0000 {
        (Pattern::SignExtendedHalfword, low as u64)
    } else if low == 0 {
        (Pattern::ZeroPaddedHalfword, high as u64)
    } else if sign_extended_byte(high) && sign_extended_byte(low) {
        (Pattern::TwoSignExtendedBytes, (((high & 0xff) << 8) | (low & 0xff)) as u64)
    } else {
        (Pattern::Uncompressed, word as u64)
    }
}

/// Patterns in declaration order, for the prefix lookup table.
const PATTERN_COUNT: usize = 10;

#[derive(Debug, Clone)]
pub struct Fpc {
    geometry: Geometry,
    variant: FpcVariant,
    /// Prefix of each pattern (indexed by `Pattern as usize`).
    prefix_by_pattern: [u8; PATTERN_COUNT],
}

impl Fpc {
    pub fn new(geometry: Geometry, variant: FpcVariant) -> Self {
        let mut prefix_by_pattern = [0u8; PATTERN_COUNT];
        for (prefix, &pattern) in variant.prefixes().iter().enumerate() {
            prefix_by_pattern[pattern as usize] = prefix as u8;
        }
        Fpc { geometry, variant, prefix_by_pattern }
    }

    pub fn variant(&self) -> FpcVariant {
        self.variant
    }

    /// Calls `emit(prefix and data field as one value, its width)` for each
    /// token of `block`, or returns `None` when the variant cannot encode some
    /// word (the adaptive-compression paper's table has no escape). Shared by the encoder (which
    /// writes the tokens) and the size-only path (which adds the widths), so
    /// the two cannot disagree.
    #[inline(always)]
    fn tokens(&self, block: &[u8], mut emit: impl FnMut(u64, u32)) -> Option<()> {
        let mut token = |pattern: Pattern, data: u64| {
            let bits = pattern.data_bits();
            emit(((self.prefix_by_pattern[pattern as usize] as u64) << bits) | data, PREFIX_BITS + bits);
        };
        let mut block_words = [0u32; 32];
        let count = block.len() / WORD_BYTES;
        for (slot, chunk) in block_words.iter_mut().zip(block.chunks_exact(WORD_BYTES)) {
            *slot = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        }
        let block_words = &block_words[..count];
        match self.variant {
            FpcVariant::Original => {
                let mut i = 0;
                while i < count {
                    if block_words[i] == 0 {
                        let run = block_words[i..].iter().take(MAX_ZERO_RUN).take_while(|&&w| w == 0).count();
                        token(Pattern::ZeroRun, (run - 1) as u64);
                        i += run;
                    } else {
                        let (pattern, data) = classify_nonzero(block_words[i]);
                        token(pattern, data);
                        i += 1;
                    }
                }
            }
            FpcVariant::Paper004 => {
                if block_words.iter().all(|&w| w == 0) {
                    token(Pattern::ZeroBlock, 0);
                    return Some(());
                }
                // No escape: one incompressible word and the block is stored raw.
                if block_words.iter().any(|&w| w != 0 && classify_nonzero(w).0 == Pattern::Uncompressed) {
                    return None;
                }
                for &word in block_words {
                    if word == 0 {
                        token(Pattern::ZeroWord, 0);
                    } else {
                        let (pattern, data) = classify_nonzero(word);
                        token(pattern, data);
                    }
                }
            }
        }
        Some(())
    }

    /// The FPC bitstream's size in bits, or `None` (see [`Fpc::tokens`]).
    fn encoded_bits(&self, block: &[u8]) -> Option<usize> {
        let mut bits = 0usize;
        self.tokens(block, |_, width| bits += width as usize)?;
        Some(bits)
    }

    /// The reference encoder (every variant and block size): the tokens of
    /// [`Fpc::tokens`] through a `BitWriter`.
    fn compress_tokens(&self, block: &[u8], out: &mut CompressedBlock) {
        let mut writer = out.take_writer();
        match self.tokens(block, |value, width| writer.write(value, width)) {
            Some(()) => out.set_or_uncompressed(ENCODING_FPC, writer, block, self.geometry),
            None => {
                out.payload = writer.finish().0;
                out.set_uncompressed(block, self.geometry);
            }
        }
    }

    fn decode_into(&self, reader: &mut BitReader<'_>, out: &mut [u8]) -> Result<(), CodecError> {
        let block_words = self.geometry.block_bytes() / WORD_BYTES;
        let prefixes = self.variant.prefixes();
        let mut decoded = 0;
        while decoded < block_words {
            let pattern = prefixes[reader.read(PREFIX_BITS)? as usize];
            let data = reader.read(pattern.data_bits())?;
            let count = match pattern {
                Pattern::ZeroRun => data as usize + 1,
                Pattern::ZeroBlock if decoded == 0 => block_words,
                Pattern::ZeroBlock => {
                    return Err(CodecError::corrupt(
                        Corruption::Inconsistent,
                        format!("zero-block prefix after word {decoded}"),
                    ));
                }
                _ => 1,
            };
            if decoded + count > block_words {
                return Err(CodecError::corrupt(
                    Corruption::Inconsistent,
                    format!("zero run of {count} words at word {decoded} overruns the {block_words}-word block"),
                ));
            }
            let word = pattern.unpack(data).to_le_bytes();
            for chunk in out[decoded * WORD_BYTES..(decoded + count) * WORD_BYTES].chunks_exact_mut(WORD_BYTES) {
                chunk.copy_from_slice(&word);
            }
            decoded += count;
        }
        reader.expect_end()
    }
}

// ---------------------------------------------------------------------------
// Fast path of the original table (issue 12): the default `fpc`, on blocks of
// 8, 16 or 32 words. It writes and reads exactly the bitstream of
// `Fpc::tokens` / `Fpc::decode_into` (property tests below compare them), but
// classifies every word without branches, writes the tokens with a 64-bit
// accumulator that is flushed unconditionally, and decodes each token with
// one 8-byte load and no per-pattern branch.
// ---------------------------------------------------------------------------

/// Bits of a token (prefix + data field) of the original table, one byte
/// per prefix (little-endian): 6, 7, 11, 19, 19, 19, 11, 35. A shift of a
/// constant is shorter than a table load on the decoder's critical path.
const ORIGINAL_TOKEN_BITS: u64 = u64::from_le_bytes([6, 7, 11, 19, 19, 19, 11, 35]);

/// Bits of the original-table token at the top of `window`: its 3-bit
/// prefix times 8 is the shift to its byte of [`ORIGINAL_TOKEN_BITS`].
#[inline(always)]
fn token_bits_at(window: u64) -> u32 {
    ((ORIGINAL_TOKEN_BITS >> ((window >> 58) & 0x38)) & 0xff) as u32
}

/// One word's token under the original table as two 32-bit lanes: its low
/// 32 bits (the escape's prefix 7 sits above them, see [`escape_prefix`])
/// and its width, prefix included. A non-zero word gets
/// [`classify_nonzero`]'s pattern; a zero word gets a zero-width token (its
/// run's token is placed by [`original_tokens`]). Only shifts, compares,
/// selects and constant masks, few of them: the compiler vectorizes it over
/// the block's words (SSE2, four words per instruction).
#[inline(always)]
fn original_word_token(word: u32) -> (u32, u32) {
    let signed = word as i32;
    let sign = signed >> 31;
    // Sign-extended from k bits: bits 31..k-1 all equal the sign.
    let sign_extended_4 = (signed >> 3) == sign;
    let sign_extended_byte = (signed >> 7) == sign;
    let sign_extended_halfword = (signed >> 15) == sign;
    let zero_padded_halfword = word << 16 == 0;
    // All four bytes equal: the word is its own rotation by a byte.
    let repeated_bytes = word.rotate_left(8) == word;
    let low_half = (word << 16) as i32;
    let two_bytes = ((signed >> 23) == sign) & ((low_half >> 23) == (low_half >> 31));
    let zero = word == 0;
    // Widths nest: sign-extended 4 bits is also a byte and a halfword, and
    // every pattern but the escape fits in 16 data bits.
    let fits_16 = sign_extended_halfword | zero_padded_halfword | two_bytes | repeated_bytes;
    let fits_8 = sign_extended_byte | repeated_bytes;
    let bits = 35 - 16 * fits_16 as u32 - 8 * fits_8 as u32 - 4 * sign_extended_4 as u32 - 7 * zero as u32;
    // The cheapest pattern that fits is assigned last and wins.
    let mut token = word;
    if two_bytes {
        token = (5 << 16) | ((word >> 8) & 0xff00) | (word & 0xff);
    }
    if zero_padded_halfword {
        token = (4 << 16) | (word >> 16);
    }
    if sign_extended_halfword {
        token = (3 << 16) | (word & 0xffff);
    }
    if repeated_bytes {
        token = (6 << 8) | (word & 0xff);
    }
    if sign_extended_byte {
        token = (2 << 8) | (word & 0xff);
    }
    if sign_extended_4 {
        token = (1 << 4) | (word & 0xf);
    }
    if zero {
        token = 0;
    }
    (token, bits)
}

/// The bits of a token above its low 32: the escape's prefix 7 (the only
/// token wider than 32 bits, 35).
#[inline(always)]
fn escape_prefix(bits: u32) -> u64 {
    ((bits >> 5) as u64 * 7) << 32
}

/// Every word's token under the original table, `N` (<= 32) words, as
/// low-32-bit and width lanes: a zero word that starts a run token (the
/// first of a run, and every 8th after it) carries the run token, the rest
/// of the run a zero-width token. Returns the lanes and the total width.
#[inline(always)]
fn original_tokens<const N: usize>(block: &[u8]) -> ([u32; N], [u32; N], usize) {
    let mut words = [0u32; N];
    for (slot, chunk) in words.iter_mut().zip(block.chunks_exact(WORD_BYTES)) {
        *slot = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
    }
    let (mut tokens, mut widths) = ([0u32; N], [0u32; N]);
    for i in 0..N {
        (tokens[i], widths[i]) = original_word_token(words[i]);
    }
    let zeros = words.iter().enumerate().fold(0u64, |mask, (i, &word)| mask | (((word == 0) as u64) << i));
    let mut run_starts = run_token_starts(zeros);
    while run_starts != 0 {
        let i = run_starts.trailing_zeros();
        // Zero words from here on (the mask has no bit past word N-1).
        let run = (!(zeros >> i)).trailing_zeros().min(MAX_ZERO_RUN as u32);
        (tokens[i as usize], widths[i as usize]) = (run - 1, PREFIX_BITS + ZERO_RUN_BITS);
        run_starts &= run_starts - 1;
    }
    let total = widths.iter().map(|&w| w as usize).sum();
    (tokens, widths, total)
}

/// The words (bits of `zeros`, the mask of zero words) where a zero-run
/// token starts: the first zero of every run, and the word 8 after a start
/// when the run reaches it (runs of more than 8 are split, the TR's 3-bit
/// run field).
#[inline(always)]
fn run_token_starts(zeros: u64) -> u64 {
    // Bit i: words i-8..=i are all zero.
    let nine_zeros = (0..=MAX_ZERO_RUN).fold(zeros, |all, k| all & (zeros << k));
    let mut starts = zeros & !(zeros << 1);
    // A block has at most 32 words: a run has at most 4 tokens.
    for _ in 0..3 {
        starts |= (starts << MAX_ZERO_RUN) & nine_zeros;
    }
    starts
}

// The fast path's buffer ([`BLOCK_WRITER_BYTES`]) holds the longest token
// stream (32 escaped words, 140 bytes) and the writer's and reader's last
// 8-byte access.

/// Writes the tokens MSB first into `buffer`: the bytes `BitWriter` writes.
/// The accumulator holds fewer than 8 pending bits between tokens, so a
/// 35-bit token always fits; it is stored whole after every token and
/// advanced by the bytes completed (no branch on fullness).
#[inline(always)]
fn write_tokens<const N: usize>(tokens: &[u32; N], widths: &[u32; N], buffer: &mut [u8; BLOCK_WRITER_BYTES]) {
    let (mut acc, mut pending, mut at) = (0u64, 0u32, 0usize);
    for i in 0..N {
        let bits = widths[i];
        let token = escape_prefix(bits) | tokens[i] as u64;
        pending += bits;
        acc |= token.wrapping_shl(64 - pending);
        buffer[at..at + 8].copy_from_slice(&acc.to_be_bytes());
        at += (pending / 8) as usize;
        acc = acc.wrapping_shl(pending & !7);
        pending &= 7;
    }
    buffer[at..at + 8].copy_from_slice(&acc.to_be_bytes());
}

/// How the decoder rebuilds a word from its sign-extended field, by prefix
/// of the original table: `(field & mask) * multiplier`. Sign-extended
/// patterns (1, 2, 3) and the escape's 32-bit field take it as it is; the
/// zero-padded halfword (4) shifts it up 16 bits; repeated bytes (6) copy
/// its byte four times; a zero run (0) is zero. Two sign-extended bytes
/// (5) are rebuilt apart.
const ORIGINAL_WORD_MASK: [u32; 8] = [0, !0, !0, !0, !0, 0, 0xff, !0];
const ORIGINAL_WORD_MULTIPLIER: [u32; 8] = [0, 1, 1, 1, 1 << 16, 0, 0x0101_0101, 1];
const TWO_BYTES_PREFIX: u64 = 5;

/// The word of the original-table token at the top of `window` and the
/// words it stands for (a zero run's length, else 1): table lookups and
/// selects, not a match on the prefix (unpredictable: the compiler turns a
/// match into a jump table).
#[inline(always)]
fn unpack_original(window: u64) -> (u32, usize) {
    let prefix = window >> 61;
    let data_bits = token_bits_at(window) - PREFIX_BITS;
    let field = window << PREFIX_BITS;
    let data = (field >> (64 - data_bits)) as u32;
    let sign_extended = ((field as i64) >> (64 - data_bits)) as u32;
    let rebuilt =
        (sign_extended & ORIGINAL_WORD_MASK[prefix as usize]).wrapping_mul(ORIGINAL_WORD_MULTIPLIER[prefix as usize]);
    let two_bytes = ((data >> 8) as u8 as i8 as i16 as u16 as u32) << 16 | (data as u8 as i8 as i16 as u16 as u32);
    let word = if prefix == TWO_BYTES_PREFIX { two_bytes } else { rebuilt };
    let count = if prefix == 0 { data as usize + 1 } else { 1 };
    (word, count)
}

/// Decodes an original-table bitstream of `N` words into `out` and returns
/// true, or returns false (and leaves `out` unspecified) when the stream is
/// not one the encoder writes; the caller then runs the reference decoder
/// for its exact error.
///
/// The decoder is bound by the chain from one token's position to the
/// next's (load, shift, prefix, width). Each step takes two tokens: the
/// second token's prefix is inside the first one's 57-bit window, so both
/// widths come from one load, and the second token's own load is off the
/// chain. A zero run stores eight zero words and advances by its length,
/// any other token stores its word eight times and advances by one. A
/// second token past the block's last word is not one of the stream's: the
/// step's first token then ends the stream.
#[inline(always)]
fn decode_original<const N: usize>(payload: &[u8], bit_len: usize, out: &mut [u8]) -> bool {
    if payload.len() > 128 || bit_len > payload.len() * 8 {
        return false;
    }
    let mut buffer = [0u8; BLOCK_WRITER_BYTES];
    buffer[..payload.len()].copy_from_slice(payload);
    // A token's eight stores start at most at word 31 + 8 (a first token's
    // zero run from word 31, then the second token).
    let mut words = [0u32; 32 + 2 * MAX_ZERO_RUN];
    let (mut decoded, mut position) = (0usize, 0usize);
    let mut after_first = (0usize, 0usize);
    // At most N + 1 tokens (each at least one word): the last load starts
    // at or below bit 32 * 35, inside the buffer.
    while decoded < N {
        let window = window_at(&buffer, position);
        let first_bits = token_bits_at(window) as usize;
        let second_bits = token_bits_at(window << first_bits) as usize;
        let (word, count) = unpack_original(window);
        words[decoded..decoded + MAX_ZERO_RUN].fill(word);
        after_first = (decoded + count, position + first_bits);
        let (word, count) = unpack_original(window_at(&buffer, after_first.1));
        words[after_first.0..after_first.0 + MAX_ZERO_RUN].fill(word);
        decoded = after_first.0 + count;
        position = after_first.1 + second_bits;
    }
    if after_first.0 >= N {
        (decoded, position) = after_first;
    }
    if decoded != N || position != bit_len {
        return false;
    }
    for (chunk, word) in out.chunks_exact_mut(WORD_BYTES).zip(&words[..N]) {
        chunk.copy_from_slice(&word.to_le_bytes());
    }
    true
}

impl Fpc {
    /// Words per block when the fast path applies (original table, 8, 16 or
    /// 32 words), else `None`.
    #[inline(always)]
    fn fast_words(&self) -> Option<usize> {
        let words = self.geometry.block_bytes() / WORD_BYTES;
        (self.variant == FpcVariant::Original && matches!(words, 8 | 16 | 32)).then_some(words)
    }

    /// Fast `compress_into` for the original table with `N` words.
    #[inline(always)]
    fn compress_original<const N: usize>(&self, block: &[u8], out: &mut CompressedBlock) {
        let (tokens, widths, total) = original_tokens::<N>(block);
        if !self.geometry.worth_compressing(total) {
            out.set_uncompressed(block, self.geometry);
            return;
        }
        let mut buffer = [0u8; BLOCK_WRITER_BYTES];
        write_tokens(&tokens, &widths, &mut buffer);
        out.set_payload(ENCODING_FPC, &buffer[..total.div_ceil(8)], total, self.geometry);
    }

    /// The FPC bitstream's size in bits (fast path where it applies).
    fn bits_of(&self, block: &[u8]) -> Option<usize> {
        match self.fast_words() {
            Some(32) => Some(original_tokens::<32>(block).2),
            Some(16) => Some(original_tokens::<16>(block).2),
            Some(8) => Some(original_tokens::<8>(block).2),
            _ => self.encoded_bits(block),
        }
    }
}

/// Registry builder: `fpc` or `fpc:variant=paper004`.
pub fn build(spec: &CodecSpec) -> Result<Box<dyn Codec>, ConfigError> {
    let variant = spec.knob("variant", FpcVariant::default(), FpcVariant::NAMES)?;
    Ok(Box::new(Fpc::new(spec.geometry, variant)))
}

impl Codec for Fpc {
    fn name(&self) -> &str {
        "fpc"
    }

    fn geometry(&self) -> Geometry {
        self.geometry
    }

    /// Writes the token stream in one pass, then keeps it only if it saves
    /// a burst.
    fn compress_into(&mut self, block: &[u8], out: &mut CompressedBlock) -> Result<(), CodecError> {
        check_block_size(block, self.geometry)?;
        match self.fast_words() {
            Some(32) => self.compress_original::<32>(block, out),
            Some(16) => self.compress_original::<16>(block, out),
            Some(8) => self.compress_original::<8>(block, out),
            _ => self.compress_tokens(block, out),
        }
        Ok(())
    }

    fn decompress_into(&self, compressed: &CompressedBlock, out: &mut [u8]) -> Result<(), CodecError> {
        check_block_size(out, self.geometry)?;
        match compressed.encoding {
            UNCOMPRESSED => decode_uncompressed_into(compressed, self.geometry, out),
            ENCODING_FPC => {
                let (payload, bits) = (&compressed.payload[..], compressed.compressed_bits);
                let fast = match self.fast_words() {
                    Some(32) => decode_original::<32>(payload, bits, out),
                    Some(16) => decode_original::<16>(payload, bits, out),
                    Some(8) => decode_original::<8>(payload, bits, out),
                    _ => false,
                };
                // The reference decoder gives the exact error of a stream the
                // fast path rejects (and decodes the paper004 table).
                if fast {
                    Ok(())
                } else {
                    self.decode_into(&mut compressed.reader()?, out)
                }
            }
            other => Err(CodecError::UnknownEncoding(other)),
        }
    }

    fn compressed_size(&mut self, block: &[u8]) -> Result<BlockSize, CodecError> {
        check_block_size(block, self.geometry)?;
        Ok(match self.bits_of(block) {
            Some(bits) if self.geometry.worth_compressing(bits) => {
                BlockSize { encoding: ENCODING_FPC, compressed_bits: bits }
            }
            _ => BlockSize { encoding: UNCOMPRESSED, compressed_bits: self.geometry.block_bits() },
        })
    }

    fn latency(&self) -> Latency {
        LATENCY
    }

    fn encoding_names(&self) -> Vec<String> {
        vec!["uncompressed".into(), "fpc".into()]
    }

    /// Table II's FPC patterns: prefix p names pattern p + 1 in the paper's
    /// variant; a block stored raw is pattern 9.
    fn count_table2_patterns(&mut self, block: &[u8], words: &mut Table2Patterns) -> Result<bool, CodecError> {
        if self.variant != FpcVariant::Paper004 {
            return Ok(false);
        }
        let block_words = (block.len() / WORD_BYTES) as u64;
        if self.compressed_size(block)?.encoding == UNCOMPRESSED {
            words[8] += block_words;
            return Ok(true);
        }
        self.tokens(block, |value, width| {
            let prefix = (value >> (width - PREFIX_BITS)) as usize;
            // Prefix 000 is the zero block: all of its words.
            words[prefix] += if prefix == 0 { block_words } else { 1 };
        });
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 64-byte payload (a link's cache line) of 32-bit words.
    fn line(words: &[u32; 16]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    // Table VI's counting: every word under the Table II pattern that stores it.
    #[test]
    fn table2_patterns_of_the_paper_variant() {
        let geometry = Geometry::with_granule(64, 1).unwrap();
        let mut codec = Fpc::new(geometry, FpcVariant::Paper004);
        let mut words = [0u64; 9];
        let mut mixed = [0u32; 16];
        mixed[..6].copy_from_slice(&[0x4444_4444, 3, 0xffff_ff80, 0x1234, 0x5678_0000, 0x0012_fffe]);
        for block in [line(&[0; 16]), line(&mixed), line(&[0x1234_5678; 16])] {
            assert!(codec.count_table2_patterns(&block, &mut words).unwrap());
        }
        // Zero block 16; zero words 10; repeated, 4-bit, byte, halfword,
        // padded, two bytes 1 each; a word of no pattern stores the block raw: 16.
        assert_eq!(words, [16, 10, 1, 1, 1, 1, 1, 1, 16]);
        let mut original = Fpc::new(geometry, FpcVariant::Original);
        assert!(!original.count_table2_patterns(&line(&[0; 16]), &mut words).unwrap());
    }
    use crate::bits::BitWriter;
    use crate::codec::registry::build_str;
    use crate::codec::test_support::{
        assert_round_trips, bit_string, random_block, spaced, structured_block, words_block,
    };
    use proptest::prelude::*;

    fn compress(variant: FpcVariant, block: &[u8]) -> CompressedBlock {
        let mut codec = Fpc::new(Geometry::default(), variant);
        let c = codec.compress(block).unwrap();
        assert_eq!(codec.decompress(&c).unwrap(), block);
        c
    }

    /// Size of a block whose first word is `word` and whose other 31 words
    /// are zero (the original table's runs of 8, 8, 8, 7 cost 4 × 6 bits).
    fn bits_with_word(word: u32) -> usize {
        let c = compress(FpcVariant::Original, &words_block(&[word], 32));
        assert_eq!(c.encoding, ENCODING_FPC);
        c.compressed_bits - 24
    }

    #[test]
    fn zero_block_is_four_runs_of_eight() {
        let c = compress(FpcVariant::Original, &[0; 128]);
        assert_eq!((c.encoding, c.compressed_bits, c.mag_bytes, c.burst_count), (ENCODING_FPC, 24, 32, 1));
        assert_eq!(bit_string(&c), spaced("000 111  000 111  000 111  000 111"));
        assert_eq!(c.payload, vec![0x1c, 0x71, 0xc7]);
    }

    #[test]
    fn zero_runs_longer_than_eight_are_split() {
        // 9 zeros = run 8 + run 1; the 22 zeros after the word = 8 + 8 + 6.
        let mut head = vec![0u32; 9];
        head.push(0x1234_5678);
        let c = compress(FpcVariant::Original, &words_block(&head, 32));
        assert_eq!(c.compressed_bits, 6 + 6 + 35 + 6 * 3);
        let expected = "000 111  000 000  111 00010010001101000101011001111000  000 111  000 111  000 101";
        assert_eq!(bit_string(&c), spaced(expected));
    }

    #[test]
    fn four_bit_sign_extension_limits() {
        assert_eq!(bits_with_word(7), 7);
        assert_eq!(bits_with_word(-8i32 as u32), 7);
        assert_eq!(bits_with_word(u32::MAX), 7); // -1, also repeated bytes
        assert_eq!(bits_with_word(8), 11);
        assert_eq!(bits_with_word(-9i32 as u32), 11);
    }

    #[test]
    fn byte_sign_extension_limits() {
        assert_eq!(bits_with_word(127), 11);
        assert_eq!(bits_with_word(-128i32 as u32), 11);
        assert_eq!(bits_with_word(128), 19);
        assert_eq!(bits_with_word(-129i32 as u32), 19);
    }

    #[test]
    fn halfword_sign_extension_limits() {
        assert_eq!(bits_with_word(32767), 19);
        assert_eq!(bits_with_word(-32768i32 as u32), 19);
        // 0x8000: not sign-extended, low half non-zero, low byte not a
        // sign-extended byte: uncompressed.
        assert_eq!(bits_with_word(32768), 35);
        // -32769 = 0xffff7fff: nothing fits.
        assert_eq!(bits_with_word(-32769i32 as u32), 35);
    }

    #[test]
    fn halfword_padded_with_zero_halfword() {
        assert_eq!(bits_with_word(0x1234_0000), 19);
        assert_eq!(bits_with_word(0xffff_0000), 19);
        assert_eq!(bits_with_word(0x8000_0000), 19);
        // The zero halfword must be the low one.
        assert_eq!(bits_with_word(0x0000_1234), 19); // sign-extended halfword instead
        assert_eq!(bits_with_word(0x1234_0001), 35);
    }

    #[test]
    fn two_sign_extended_bytes() {
        assert_eq!(bits_with_word(0x007f_ff80), 19); // +127 | -128
        assert_eq!(bits_with_word(0xff80_007f), 19); // -128 | +127
        assert_eq!(bits_with_word(0x0080_0001), 35); // high half 0x0080 is not a sign-extended byte
        assert_eq!(bits_with_word(0x0001_0080), 35); // low half 0x0080 is not either
    }

    #[test]
    fn repeated_bytes() {
        assert_eq!(bits_with_word(0xabab_abab), 11);
        assert_eq!(bits_with_word(0x7f7f_7f7f), 11);
        assert_eq!(bits_with_word(0x7f7f_7f7e), 35);
    }

    #[test]
    fn every_original_pattern_bit_exact() {
        let head =
            [0, 0, 7, -8i32 as u32, 0x7f, 0xffff_ff80, 0x7fff, 0xffff_8000, 0x1234_0000, 0x007f_ff80, 0xabab_abab];
        let mut head = head.to_vec();
        head.push(0xdead_beef);
        let c = compress(FpcVariant::Original, &words_block(&head, 32));
        // 20 trailing zeros: runs 8, 8, 4.
        let expected = "000 001 \
                        001 0111  001 1000 \
                        010 01111111  010 10000000 \
                        011 0111111111111111  011 1000000000000000 \
                        100 0001001000110100 \
                        101 0111111110000000 \
                        110 10101011 \
                        111 11011110101011011011111011101111 \
                        000 111  000 111  000 011";
        assert_eq!(bit_string(&c), spaced(expected));
        assert_eq!(c.compressed_bits, 6 + 2 * 7 + 2 * 11 + 2 * 19 + 19 + 19 + 11 + 35 + 3 * 6);
        assert_eq!((c.mag_bytes, c.burst_count), (32, 1));
    }

    #[test]
    fn incompressible_block_is_stored_raw() {
        let block: Vec<u8> = (0..32u32).flat_map(|i| (0x9e37_79b9u32.wrapping_mul(i + 1)).to_le_bytes()).collect();
        let c = compress(FpcVariant::Original, &block);
        assert_eq!((c.encoding, c.compressed_bits, c.burst_count), (UNCOMPRESSED, 1024, 4));
        // 22 raw words + runs of 8 and 2 zeros = 782 bits: more than 3 bursts
        // (768 bits). 21 raw words + runs of 8 and 3 = 747 bits fit.
        let mut head = vec![0x1234_5678u32; 22];
        let c = compress(FpcVariant::Original, &words_block(&head, 32));
        assert_eq!(c.encoding, UNCOMPRESSED);
        head.pop();
        let c = compress(FpcVariant::Original, &words_block(&head, 32));
        assert_eq!((c.encoding, c.compressed_bits, c.burst_count), (ENCODING_FPC, 21 * 35 + 2 * 6, 3));
    }

    #[test]
    fn paper004_zero_block_and_zero_words() {
        let c = compress(FpcVariant::Paper004, &[0; 128]);
        assert_eq!((c.encoding, c.compressed_bits, c.burst_count), (ENCODING_FPC, 3, 1));
        assert_eq!(bit_string(&c), "000");
        let c = compress(FpcVariant::Paper004, &words_block(&[5], 32));
        assert_eq!(c.compressed_bits, 7 + 31 * 3);
        assert!(bit_string(&c).starts_with(&spaced("011 0101  001 001")));
    }

    #[test]
    fn paper004_every_pattern_bit_exact() {
        let head = [0xabab_abab, 7, -8i32 as u32, 0x7f, 0xffff_ff80, 0x7fff, 0x1234_0000, 0x007f_ff80, 0];
        let c = compress(FpcVariant::Paper004, &words_block(&head, 32));
        let expected = format!(
            "{}{}",
            spaced(
                "010 10101011  011 0111  011 1000  100 01111111  100 10000000 \
                 101 0111111111111111  110 0001001000110100  111 0111111110000000  001"
            ),
            "001".repeat(23)
        );
        assert_eq!(bit_string(&c), expected);
        assert_eq!(c.compressed_bits, 11 + 2 * 7 + 2 * 11 + 3 * 19 + 24 * 3);
    }

    #[test]
    fn paper004_has_no_escape_for_incompressible_words() {
        let c = compress(FpcVariant::Paper004, &words_block(&[0x1234_5678], 32));
        assert_eq!((c.encoding, c.compressed_bits), (UNCOMPRESSED, 1024));
        // The original table escapes it: 35 + 31 zeros (4 runs).
        assert_eq!(compress(FpcVariant::Original, &words_block(&[0x1234_5678], 32)).compressed_bits, 35 + 24);
    }

    fn handmade(bits: &str, block_bytes: usize) -> CompressedBlock {
        let geometry = Geometry::new(block_bytes, 16).unwrap();
        let mut w = BitWriter::new();
        for ch in spaced(bits).chars() {
            w.write_bool(ch == '1');
        }
        CompressedBlock::from_bits(ENCODING_FPC, w, geometry)
    }

    #[test]
    fn corrupt_streams_are_rejected() {
        let original = Fpc::new(Geometry::new(32, 16).unwrap(), FpcVariant::Original);
        let paper004 = Fpc::new(Geometry::new(32, 16).unwrap(), FpcVariant::Paper004);
        // A run of 8 then a run of 2 overruns the 8-word block.
        let overrun = handmade("000 111  000 001", 32);
        assert!(matches!(original.decompress(&overrun), Err(CodecError::Corrupt { .. })));
        assert_eq!(original.decompress(&handmade("000 111", 32)).unwrap(), vec![0; 32]);
        // Bits left after the last word.
        assert!(matches!(original.decompress(&handmade("000 111 0", 32)), Err(CodecError::Corrupt { .. })));
        // Zero block only as the first token.
        assert_eq!(paper004.decompress(&handmade("000", 32)).unwrap(), vec![0; 32]);
        assert!(matches!(paper004.decompress(&handmade("001 000", 32)), Err(CodecError::Corrupt { .. })));
        assert!(matches!(paper004.decompress(&handmade("000 001", 32)), Err(CodecError::Corrupt { .. })));
        assert!(matches!(original.decompress(&handmade("001 01", 32)), Err(CodecError::Truncated { .. })));
        let mut unknown = handmade("000 111", 32);
        unknown.encoding = 2;
        assert_eq!(original.decompress(&unknown), Err(CodecError::UnknownEncoding(2)));
    }

    #[test]
    fn interface() {
        let mut codec = Fpc::new(Geometry::default(), FpcVariant::Original);
        assert_eq!(codec.latency(), Latency::new(6, 10));
        assert_eq!(codec.encoding_names(), vec!["uncompressed", "fpc"]);
        assert_eq!(codec.metadata_bits(), 1);
        assert!(matches!(codec.compress(&[0; 64]), Err(CodecError::WrongBlockSize { .. })));
        let built = build_str("fpc", Geometry::default()).unwrap();
        assert_eq!(built.name(), "fpc");
        let mut paper = build_str("fpc:variant=paper004", Geometry::default()).unwrap();
        assert_eq!(paper.compress(&[0; 128]).unwrap().compressed_bits, 3);
        let err = build_str("fpc:variant=aw", Geometry::default()).err().unwrap();
        assert_eq!((err.knob.as_str(), err.value.as_str()), ("fpc.variant", "aw"));
    }

    fn geometries() -> Vec<Geometry> {
        crate::codec::test_support::geometries()
    }

    fn cases() -> impl Strategy<Value = (Geometry, FpcVariant, Vec<u8>)> {
        (prop::sample::select(geometries()), prop::sample::select(vec![FpcVariant::Original, FpcVariant::Paper004]))
            .prop_flat_map(|(g, v)| {
                let blocks = prop_oneof![3 => structured_block(g.block_bytes()), 1 => random_block(g.block_bytes())];
                (Just(g), Just(v), blocks)
            })
    }

    /// Blocks for the fast path: the structured mix, random bytes, and zero
    /// runs of every length (split at 8, 16 and 24) between words at every
    /// pattern's limits.
    fn fast_cases() -> impl Strategy<Value = (Geometry, Vec<u8>)> {
        let word = prop::sample::select(vec![
            1u32,
            7,
            8,
            0xffff_fff8,
            0x7f,
            0x80,
            0xffff_ff80,
            0x7fff,
            0x8000,
            0xffff_8000,
            0x1234_0000,
            0x007f_ff80,
            0x0080_0001,
            0xabab_abab,
            0xdead_beef,
        ]);
        let runs_and_words = prop::collection::vec((0usize..=33, word), 1..12);
        prop::sample::select(geometries()).prop_flat_map(move |g| {
            let n = g.block_bytes();
            let zero_heavy = runs_and_words.clone().prop_map(move |segments| {
                let words = segments.iter().flat_map(|&(zeros, word)| std::iter::repeat_n(0u32, zeros).chain([word]));
                words
                    .chain(std::iter::repeat(0))
                    .take(n / WORD_BYTES)
                    .flat_map(|w| w.to_le_bytes())
                    .collect::<Vec<u8>>()
            });
            let blocks = prop_oneof![2 => zero_heavy, 2 => structured_block(n), 1 => random_block(n)];
            (Just(g), blocks)
        })
    }

    /// The first pattern of the table that fits: what `classify_nonzero` must equal.
    fn classify_by_table(variant: FpcVariant, word: u32) -> Option<(Pattern, u64)> {
        variant.nonzero_patterns().iter().find_map(|&p| p.pack(word).map(|data| (p, data)))
    }

    #[test]
    fn classify_matches_the_pattern_table_at_the_limits() {
        let limits = [
            1u32,
            7,
            8,
            0xffff_fff8,
            0xffff_fff7,
            0x7f,
            0x80,
            0xffff_ff80,
            0xffff_ff7f,
            0x7fff,
            0x8000,
            0xffff_8000,
            0xffff_7fff,
            0x1234_0000,
            0x007f_ff80,
            0x0080_0001,
            0xff80_007f,
            0x4141_4141,
            0xffff_ffff,
            0x8080_8080,
            0x0001_0000,
            0xdead_beef,
        ];
        for word in limits {
            assert_eq!(Some(classify_nonzero(word)), classify_by_table(FpcVariant::Original, word), "{word:#x}");
            let narrow = classify_by_table(FpcVariant::Paper004, word);
            let fast = Some(classify_nonzero(word)).filter(|&(p, _)| p != Pattern::Uncompressed);
            assert_eq!(fast, narrow, "{word:#x}");
        }
    }

    proptest! {
        #[test]
        fn classify_matches_the_pattern_table(word in 1u32..) {
            prop_assert_eq!(Some(classify_nonzero(word)), classify_by_table(FpcVariant::Original, word));
            for v in [FpcVariant::Original, FpcVariant::Paper004] {
                let (pattern, data) = classify_nonzero(word);
                if pattern != Pattern::Uncompressed || v == FpcVariant::Original {
                    prop_assert_eq!(pattern.unpack(data), word);
                    prop_assert!(v.prefix_of(pattern) < 8);
                }
            }
        }

        #[test]
        fn fast_path_equals_the_reference((geometry, block) in fast_cases()) {
            let mut codec = Fpc::new(geometry, FpcVariant::Original);
            prop_assert!(codec.fast_words().is_some());
            let mut fast = CompressedBlock::default();
            codec.compress_into(&block, &mut fast).unwrap();
            let mut reference = CompressedBlock::default();
            codec.compress_tokens(&block, &mut reference);
            prop_assert_eq!(&fast, &reference);
            prop_assert_eq!(codec.compressed_size(&block).unwrap(), reference.size());
            prop_assert_eq!(codec.bits_of(&block), codec.encoded_bits(&block));
            // The fast decoder accepts the stream and gives the block back.
            let mut decoded = vec![0u8; block.len()];
            if reference.encoding == ENCODING_FPC {
                let accepted = match block.len() / WORD_BYTES {
                    32 => decode_original::<32>(&reference.payload, reference.compressed_bits, &mut decoded),
                    16 => decode_original::<16>(&reference.payload, reference.compressed_bits, &mut decoded),
                    _ => decode_original::<8>(&reference.payload, reference.compressed_bits, &mut decoded),
                };
                prop_assert!(accepted);
                prop_assert_eq!(&decoded, &block);
            }
        }

        /// Any payload: the fast decoder (with its fallback) gives exactly
        /// the reference decoder's result, the same error included.
        #[test]
        fn fast_decoder_equals_the_reference_on_any_stream(
            geometry in prop::sample::select(geometries()),
            payload in prop::collection::vec(any::<u8>(), 0..140),
            cut in 0usize..64,
        ) {
            let codec = Fpc::new(geometry, FpcVariant::Original);
            let bits = (payload.len() * 8).saturating_sub(cut);
            let stream = CompressedBlock { encoding: ENCODING_FPC, payload, compressed_bits: bits, mag_bytes: 0, burst_count: 0 };
            let mut fast = vec![0u8; geometry.block_bytes()];
            let fast_result = codec.decompress_into(&stream, &mut fast);
            let mut reference = vec![0u8; geometry.block_bytes()];
            let reference_result = codec.decode_into(&mut stream.reader().unwrap(), &mut reference);
            prop_assert_eq!(&fast_result, &reference_result);
            if fast_result.is_ok() {
                prop_assert_eq!(fast, reference);
            }
        }

        #[test]
        fn round_trips((geometry, variant, block) in cases()) {
            assert_round_trips(&mut Fpc::new(geometry, variant), &block)?;
        }
    }
}
