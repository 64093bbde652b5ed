//! E2MC: entropy-encoding memory compression for GPUs (paper 000, Lal et al.).
//!
//! Canonical Huffman coding of 4-, 8-, 16- or 32-bit symbols (`e2mc4` ..
//! `e2mc32`), following the paper's design:
//!
//! * **Codes** (Section III-B2c, III-E): 4/8-bit symbols have one code per
//!   symbol position in a 32-bit word (8 resp. 4 codes); 16/32-bit symbols
//!   have one code over the K most frequent values (knob `mfv`, default 1K)
//!   plus an escape codeword that prefixes a raw symbol. Code lengths are
//!   capped at 8/16/20/20 bits with package-merge ([`huffman`]); codes are
//!   canonical; tables are serialisable ([`table::CodeTable`]).
//! * **Probabilities** (Section III-B2): online, the codec stores blocks
//!   uncompressed and samples them until [`Codec::end_sampling`] builds the
//!   table; offline, it starts from a given table.
//! * **Worth it** (Section III-E): a block is stored compressed only if that
//!   saves a MAG burst (<= 96 B for 128 B blocks and a 32 B MAG).
//! * **Parallel decoding ways** (Section III-F1, Figure 8): the block's
//!   symbols are split into PDW equal runs, one per decoder. The payload is
//!   `PDW-1` pointers of `log2(block_bytes)` bits (7 for 128 B) followed by
//!   the data; pointer `i` is the byte offset of way `i`'s first codeword
//!   from the start of the data, so every way starts byte-aligned within the
//!   data (ways 0..PDW-2 end with zero padding to the byte) and the header
//!   costs exactly 21 bits for 4 ways, as the paper counts. The first way
//!   starts right after the pointers. Default PDW is 4, the paper's proposal
//!   (Section V-C/D).
//! * **Latency** (Table VI, 128 B blocks): compression 154/84/46/24 cycles,
//!   decompression 233/143/82/42 divided by PDW (rounded up), since "for each
//!   PDW the decompressor latency is decreased by the same factor"
//!   (Section IV-A). The Table VI values are used unscaled for 32/64 B blocks.
//! * **Metadata** (Section III-D): the paper keeps 2 bits per block, the
//!   burst count, with the all-bursts value meaning "uncompressed"; in
//!   general that is enough bits to name `1..=block_bursts` bursts.
//!
//! Encoding ids: 0 uncompressed, 1 E2MC.
//!
//! Symbol order: 32-bit little-endian words in address order, within a word
//! least significant symbol first (see [`table::symbols_of`]).

pub mod entropy;
pub mod huffman;
mod pairs;
pub mod table;
mod word_counts;

pub use entropy::{shannon_bound, ShannonBound};
pub use table::{CodeTable, MfvEntry, Sampler};

use self::huffman::CanonicalCode;
use self::pairs::{pair_table, unpack_pair, PairEntry, PAIR_BITS};
use self::table::{uses_mfv, DEFAULT_MFV, MAX_MFV, SYMBOL_BITS};
use super::spec::CodecSpec;
use super::{
    bits_to_name, check_block_size, decode_uncompressed_into, BlockSize, Codec, CompressedBlock, EncodingId, Latency,
    UNCOMPRESSED,
};
use crate::bits::{load_be, peek_bits, BitWriter};
use crate::error::{CodecError, ConfigError};
use crate::geometry::Geometry;

/// Encoding id of an E2MC-coded block.
pub const E2MC_ENCODING: EncodingId = 1;
/// Parallel decoding ways the paper evaluates (Figure 10, 12).
pub const PDW_CHOICES: [usize; 4] = [1, 2, 4, 8];
/// The paper proposes 4 PDWs (Section V-D).
pub const DEFAULT_PDW: usize = 4;

/// Table VI latencies (DRAM cycles, 128 B block) with one decoding way.
pub fn table_vi_latency(symbol_bits: u32) -> Latency {
    match symbol_bits {
        4 => Latency::new(154, 233),
        8 => Latency::new(84, 143),
        16 => Latency::new(46, 82),
        _ => Latency::new(24, 42),
    }
}

/// Rounds a bit count up to whole bytes.
fn pad8(bits: usize) -> usize {
    bits.div_ceil(8) * 8
}

/// Where the parts of a compressed block go.
#[derive(Debug, Clone, Copy)]
struct Layout {
    pdw: usize,
    /// Symbols per way.
    per_way: usize,
    /// Bits per way pointer: log2(block_bytes).
    pointer_bits: u32,
    /// `(pdw - 1) * pointer_bits`: where the data (way 0) starts.
    header_bits: usize,
}

impl Layout {
    fn new(geometry: Geometry, symbol_bits: u32, pdw: usize) -> Self {
        let pointer_bits = geometry.block_bytes().trailing_zeros();
        Layout {
            pdw,
            per_way: geometry.block_bits() / symbol_bits as usize / pdw,
            pointer_bits,
            header_bits: (pdw - 1) * pointer_bits as usize,
        }
    }
}

/// The next `width` (1..=32) bits at bit `pos`, MSB first; bits past the end
/// of `bytes` read as zero (the caller checks the stream bounds).
#[inline(always)]
fn peek(bytes: &[u8], pos: usize, width: u32) -> u32 {
    peek_bits(bytes, pos, width) as u32
}

/// Moves past a field of `len` bits, which must end by `end`.
#[inline]
fn advance(pos: usize, len: usize, end: usize) -> Result<usize, CodecError> {
    if pos + len > end {
        Err(CodecError::Truncated { needed_bits: pos + len, available_bits: end })
    } else {
        Ok(pos + len)
    }
}

/// Writes symbol `index` (stream order) into the output block.
#[inline]
fn store_symbol(out: &mut [u8], index: usize, value: u32, symbol_bits: u32) {
    match symbol_bits {
        4 => out[index / 2] |= (value as u8 & 0x0f) << (4 * (index % 2)),
        8 => out[index] = value as u8,
        16 => out[2 * index..2 * index + 2].copy_from_slice(&(value as u16).to_le_bytes()),
        _ => out[4 * index..4 * index + 4].copy_from_slice(&value.to_le_bytes()),
    }
}

/// A codeword packed as `code << 6 | length` (lengths are at most 24 bits,
/// so 6 bits hold them and 30 bits the whole entry); 0 = no codeword.
type PackedCode = u32;

#[inline(always)]
fn pack_code(code: u32, len: u8) -> PackedCode {
    (code << 6) | len as u32
}

#[inline(always)]
fn unpack_code(packed: PackedCode) -> (u64, u32) {
    ((packed >> 6) as u64, packed & 0x3f)
}

/// Fibonacci hashing's multiplier (2^32 / golden ratio): spreads clustered
/// values (small integers, floats of one exponent) over the slots.
const SLOT_MULTIPLIER: u32 = 0x9E37_79B1;

/// The encoder's symbol -> codeword lookup, built once per code table so
/// encoding does no hashing and no search through the code (issue 12).
#[derive(Debug, Clone)]
enum EncodeTable {
    /// 4/8-bit symbols: one entry per (byte position in the word, byte
    /// value), at `position << 8 | value`. For 4-bit symbols an entry holds
    /// the byte's two codewords back to back (low nibble first, its stream
    /// order; at most 2 x 8 bits), so a block is coded byte by byte.
    PerByte(Vec<PackedCode>),
    /// 16-bit symbols: one entry per value; 0 for values that are not MFVs
    /// (they take the escape codeword). `lengths` holds every value's coded
    /// length, escape and raw symbol included, for the size-only path (a
    /// 64 KiB table instead of 256 KiB of codes).
    Dense { codes: Vec<PackedCode>, lengths: Vec<u8> },
    /// 32-bit symbols: the MFVs in an open-addressed table of `(value,
    /// code)` slots, at least sixteen times as many as MFVs (a power of
    /// two; 128 KiB for the default 1,024 MFVs), probed linearly from the
    /// slot the value's top bits after one multiply name; code 0 marks an
    /// empty slot. A lookup is about one slot read (the bucketed binary
    /// search it replaces branched on every step), with no hasher object.
    /// At twice as many slots as MFVs, half the escaped words met another
    /// MFV in their first slot and probed on: the size-only path ran at
    /// half the speed (1,700 against 3,600 MB/s in the `throughput` example
    /// on the committed traces).
    Slots { slots: Vec<(u32, PackedCode)>, shift: u32 },
}

/// The encoder and decoder tables built from a [`CodeTable`].
#[derive(Debug, Clone)]
struct Coder {
    table: CodeTable,
    symbol_bits: u32,
    /// One canonical code per position (4/8-bit) or the single MFV code.
    codes: Vec<CanonicalCode>,
    /// MFV values by canonical symbol index (16/32-bit).
    mfv_values: Vec<u32>,
    /// Symbol index of the escape codeword (`mfv_values.len()`), 16/32-bit.
    escape: u32,
    escape_code: PackedCode,
    encode_table: EncodeTable,
    /// Two-symbol decode tables ([`pairs`]), one per pair of word positions
    /// (4/8-bit) or one (16/32-bit).
    pair_tables: Vec<Vec<PairEntry>>,
}

impl Coder {
    fn new(table: CodeTable) -> Result<Self, ConfigError> {
        table.validate()?;
        let codes = (0..table.code_count())
            .map(|p| {
                CanonicalCode::new(&table.code_lengths(p))
                    .map_err(|e| ConfigError::new("e2mc code table", e, "lengths of a prefix code"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let symbol_bits = table.symbol_bits;
        let mfv_values: Vec<u32> =
            if uses_mfv(symbol_bits) { table.mfv.iter().map(|e| e.value).collect() } else { Vec::new() };
        let escape = mfv_values.len() as u32;
        let packed = |code: &CanonicalCode, symbol: usize| {
            let (bits, len) = code.code(symbol);
            pack_code(bits, len)
        };
        let (escape_code, encode_table) = match symbol_bits {
            8 => {
                let mut entries = vec![0; codes.len() << 8];
                for (position, code) in codes.iter().enumerate() {
                    for value in 0..256 {
                        entries[(position << 8) | value] = packed(code, value);
                    }
                }
                (0, EncodeTable::PerByte(entries))
            }
            4 => {
                // Byte b of the word holds nibble positions 2b (low) and 2b + 1.
                let mut entries = vec![0; 4 << 8];
                for byte_position in 0..4 {
                    let (low_code, high_code) = (&codes[2 * byte_position], &codes[2 * byte_position + 1]);
                    for value in 0..256 {
                        let (low, low_len) = low_code.code(value & 0x0f);
                        let (high, high_len) = high_code.code(value >> 4);
                        entries[(byte_position << 8) | value] = pack_code((low << high_len) | high, low_len + high_len);
                    }
                }
                (0, EncodeTable::PerByte(entries))
            }
            16 => {
                let escape_code = packed(&codes[0], escape as usize);
                let mut dense = vec![0; 1 << 16];
                let mut lengths = vec![(unpack_code(escape_code).1 + symbol_bits) as u8; 1 << 16];
                for (rank, &v) in mfv_values.iter().enumerate() {
                    dense[v as usize] = packed(&codes[0], rank);
                    lengths[v as usize] = unpack_code(dense[v as usize]).1 as u8;
                }
                (escape_code, EncodeTable::Dense { codes: dense, lengths })
            }
            _ => {
                let slot_count = (16 * mfv_values.len()).next_power_of_two().max(16);
                let shift = 32 - slot_count.trailing_zeros();
                let mut slots = vec![(0u32, 0 as PackedCode); slot_count];
                for (rank, &value) in mfv_values.iter().enumerate() {
                    let mut slot = (value.wrapping_mul(SLOT_MULTIPLIER) >> shift) as usize;
                    while slots[slot].1 != 0 {
                        slot = (slot + 1) & (slot_count - 1);
                    }
                    slots[slot] = (value, packed(&codes[0], rank));
                }
                (packed(&codes[0], escape as usize), EncodeTable::Slots { slots, shift })
            }
        };
        let pair_tables = match symbol_bits {
            4 | 8 => codes.chunks_exact(2).map(|pair| pair_table(&pair[0], &pair[1], None)).collect(),
            _ => vec![pair_table(&codes[0], &codes[0], Some(escape))],
        };
        Ok(Coder { symbol_bits, table, codes, mfv_values, escape, escape_code, encode_table, pair_tables })
    }

    /// The codeword for a 16/32-bit symbol that is not an MFV: the escape
    /// codeword, then the raw symbol (Section III-B2c).
    #[inline(always)]
    fn escaped(&self, value: u32) -> (u64, u32) {
        let (code, len) = unpack_code(self.escape_code);
        ((code << self.symbol_bits) | value as u64, len + self.symbol_bits)
    }

    /// The bits for `value` and their count: for 4/8-bit symbols `value` is
    /// the byte at byte `position` of its word (both nibbles' codewords for
    /// 4-bit), for 16/32-bit symbols one symbol.
    #[inline(always)]
    fn encode(&self, position: usize, value: u32) -> (u64, u32) {
        match &self.encode_table {
            EncodeTable::PerByte(entries) => unpack_code(entries[(position << 8) | value as usize]),
            EncodeTable::Dense { codes, .. } => match codes[value as usize] {
                0 => self.escaped(value),
                packed => unpack_code(packed),
            },
            EncodeTable::Slots { slots, shift } => {
                // At most half the slots are full, so an empty one ends every probe.
                let mut slot = (value.wrapping_mul(SLOT_MULTIPLIER) >> shift) as usize;
                loop {
                    match slots[slot] {
                        (_, 0) => return self.escaped(value),
                        (key, packed) if key == value => return unpack_code(packed),
                        _ => slot = (slot + 1) & (slots.len() - 1),
                    }
                }
            }
        }
    }

    /// Decodes the PDW ways, way `w` from bits `[pos[w], end[w])` of
    /// `payload`, into `out`; returns where each way's last codeword ends.
    /// The ways are decoded in lockstep, one symbol of each in turn, as the
    /// paper's parallel decoders do (Section III-F1): each way's bit
    /// position depends only on its own previous codeword, so the ways'
    /// dependency chains overlap instead of running one after another.
    fn decode_ways(
        &self,
        payload: &[u8],
        pos: [usize; 8],
        end: [usize; 8],
        layout: Layout,
        out: &mut [u8],
    ) -> Result<[usize; 8], CodecError> {
        match self.symbol_bits {
            4 => self.decode_ways_of::<4>(payload, pos, end, layout, out),
            8 => self.decode_ways_of::<8>(payload, pos, end, layout, out),
            16 => self.decode_ways_of::<16>(payload, pos, end, layout, out),
            _ => self.decode_ways_of::<32>(payload, pos, end, layout, out),
        }
    }

    #[inline(always)]
    fn decode_ways_of<const SYMBOL_BITS: u32>(
        &self,
        payload: &[u8],
        mut pos: [usize; 8],
        end: [usize; 8],
        layout: Layout,
        out: &mut [u8],
    ) -> Result<[usize; 8], CodecError> {
        let mut j = 0;
        if !self.pair_tables.is_empty() {
            // Two symbols per lookup where the pair table has them.
            let positions = self.codes.len();
            while j + 2 <= layout.per_way {
                for w in 0..layout.pdw {
                    let s = w * layout.per_way + j;
                    // Ways start at word position 0 and pairs at even positions.
                    debug_assert!(positions == 1 || s % 2 == 0);
                    let table = &self.pair_tables[(s & (positions - 1)) >> 1];
                    let (first, second, len) = unpack_pair(table[peek(payload, pos[w], PAIR_BITS) as usize]);
                    if len == 0 {
                        pos[w] = self.decode_symbol::<SYMBOL_BITS>(payload, pos[w], end[w], s, out)?;
                        pos[w] = self.decode_symbol::<SYMBOL_BITS>(payload, pos[w], end[w], s + 1, out)?;
                    } else {
                        pos[w] = advance(pos[w], len as usize, end[w])?;
                        self.store_pair::<SYMBOL_BITS>(out, s, first, second);
                    }
                }
                j += 2;
            }
        }
        for j in j..layout.per_way {
            for w in 0..layout.pdw {
                pos[w] = self.decode_symbol::<SYMBOL_BITS>(payload, pos[w], end[w], w * layout.per_way + j, out)?;
            }
        }
        Ok(pos)
    }

    /// Stores symbols `s` (even) and `s + 1` decoded from a pair entry with
    /// one store: the values themselves for 4/8-bit symbols (a 4-bit pair
    /// is one whole byte), MFV ranks for 16/32-bit ones (never the escape).
    #[inline(always)]
    fn store_pair<const SYMBOL_BITS: u32>(&self, out: &mut [u8], s: usize, first: u32, second: u32) {
        match SYMBOL_BITS {
            4 => out[s / 2] = (first | second << 4) as u8,
            8 => out[s..s + 2].copy_from_slice(&[first as u8, second as u8]),
            16 => {
                let (low, high) = (self.mfv_values[first as usize], self.mfv_values[second as usize]);
                out[2 * s..2 * s + 4].copy_from_slice(&(low | high << 16).to_le_bytes());
            }
            _ => {
                let (low, high) = (self.mfv_values[first as usize] as u64, self.mfv_values[second as usize] as u64);
                out[4 * s..4 * s + 8].copy_from_slice(&(low | high << 32).to_le_bytes());
            }
        }
    }

    /// Decodes way `way` alone (symbols `way * per_way ..`) from bits
    /// `[pos, end)`; returns where its last codeword ends.
    fn decode_one_way(
        &self,
        payload: &[u8],
        mut pos: usize,
        end: usize,
        way: usize,
        per_way: usize,
        out: &mut [u8],
    ) -> Result<usize, CodecError> {
        for s in way * per_way..(way + 1) * per_way {
            pos = match self.symbol_bits {
                4 => self.decode_symbol::<4>(payload, pos, end, s, out)?,
                8 => self.decode_symbol::<8>(payload, pos, end, s, out)?,
                16 => self.decode_symbol::<16>(payload, pos, end, s, out)?,
                _ => self.decode_symbol::<32>(payload, pos, end, s, out)?,
            };
        }
        Ok(pos)
    }

    /// Decodes symbol `s` (stream order) from bit `pos`, a codeword that must
    /// end by `end`; returns the position after it.
    #[inline(always)]
    fn decode_symbol<const SYMBOL_BITS: u32>(
        &self,
        payload: &[u8],
        mut pos: usize,
        end: usize,
        s: usize,
        out: &mut [u8],
    ) -> Result<usize, CodecError> {
        // Symbol s has word position s % positions; positions is 8, 4 or 1.
        let code = &self.codes[s & (self.codes.len() - 1)];
        let window = peek(payload, pos, code.max_len() as u32);
        let (symbol, len) =
            code.decode(window).ok_or_else(|| CodecError::Corrupt(format!("no codeword matches the bits at {pos}")))?;
        pos = advance(pos, len as usize, end)?;
        let value = if !uses_mfv(SYMBOL_BITS) {
            symbol
        } else if symbol == self.escape {
            let raw = peek(payload, pos, SYMBOL_BITS);
            pos = advance(pos, SYMBOL_BITS as usize, end)?;
            raw
        } else {
            *self
                .mfv_values
                .get(symbol as usize)
                .ok_or_else(|| CodecError::Corrupt(format!("MFV index {symbol} out of range")))?
        };
        store_symbol(out, s, value, SYMBOL_BITS);
        Ok(pos)
    }
}

/// Codes every symbol of `block` way by way: `emit(bits, length)` gets each
/// codeword in stream order and, after every way but the last, the zero
/// padding to the next byte (ways start byte-aligned, Section III-F1).
/// Returns each way's codeword bits (without padding). Shared by the encoder
/// (which writes what it is given) and the size-only path (which ignores
/// it), so both see the same sizes. The table lookup is chosen once per
/// block, not per symbol.
#[inline(always)]
fn code_ways(coder: &Coder, block: &[u8], pdw: usize, emit: impl FnMut(u64, u32)) -> [usize; 8] {
    match &coder.encode_table {
        // 4-bit symbols too: a byte's two codewords are one entry.
        EncodeTable::PerByte(entries) => {
            code_ways_of::<8>(block, pdw, |k, v| unpack_code(entries[(k << 8) | v as usize]), emit)
        }
        EncodeTable::Dense { codes, .. } => code_ways_of::<16>(
            block,
            pdw,
            |_, v| match codes[v as usize] {
                0 => coder.escaped(v),
                packed => unpack_code(packed),
            },
            emit,
        ),
        EncodeTable::Slots { .. } => code_ways_of::<32>(block, pdw, |_, v| coder.encode(0, v), emit),
    }
}

/// Each way's codeword bits, as [`code_ways`] returns them, from code
/// lengths alone: the size-only path.
#[inline(always)]
fn size_ways(coder: &Coder, block: &[u8], pdw: usize) -> [usize; 8] {
    let no_code = |len: u32| (0, len);
    match &coder.encode_table {
        EncodeTable::PerByte(entries) => {
            code_ways_of::<8>(block, pdw, |k, v| no_code(entries[(k << 8) | v as usize] & 0x3f), |_, _| ())
        }
        EncodeTable::Dense { lengths, .. } => {
            code_ways_of::<16>(block, pdw, |_, v| no_code(lengths[v as usize] as u32), |_, _| ())
        }
        EncodeTable::Slots { .. } => code_ways_of::<32>(block, pdw, |_, v| coder.encode(0, v), |_, _| ()),
    }
}

/// [`code_ways`] for one symbol length; `lookup(position in word, value)`.
#[inline(always)]
fn code_ways_of<const SYMBOL_BITS: u32>(
    block: &[u8],
    pdw: usize,
    lookup: impl Fn(usize, u32) -> (u64, u32),
    mut emit: impl FnMut(u64, u32),
) -> [usize; 8] {
    let per_word = (32 / SYMBOL_BITS) as usize;
    let mask = if SYMBOL_BITS == 32 { u32::MAX } else { (1u32 << SYMBOL_BITS) - 1 };
    let mut way_bits = [0usize; 8];
    // Symbols are split into PDW equal runs, so each way is a run of bytes.
    let way_bytes = block.len() / pdw;
    for (way, part) in block.chunks_exact(way_bytes).enumerate() {
        let mut bits = 0usize;
        for chunk in part.chunks_exact(4) {
            let word = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
            if per_word == 1 {
                let (code, len) = lookup(0, word);
                bits += len as usize;
                emit(code, len);
                continue;
            }
            // Two symbols of the word at a time: their codewords go out in
            // one write when they fit in 64 bits (16-bit symbols: up to 2 x
            // (20 + 16) bits with escapes, so not always).
            for k in (0..per_word).step_by(2) {
                let (first, second) =
                    ((word >> (k as u32 * SYMBOL_BITS)) & mask, (word >> ((k as u32 + 1) * SYMBOL_BITS)) & mask);
                let ((code1, len1), (code2, len2)) = (lookup(k, first), lookup(k + 1, second));
                bits += (len1 + len2) as usize;
                if len1 + len2 <= 64 {
                    emit((code1 << len2) | code2, len1 + len2);
                } else {
                    emit(code1, len1);
                    emit(code2, len2);
                }
            }
        }
        way_bits[way] = bits;
        if way + 1 < pdw {
            emit(0, (pad8(bits) - bits) as u32);
        }
    }
    way_bits
}

#[derive(Debug, Clone)]
enum State {
    /// Online sampling: blocks are stored uncompressed and counted.
    Sampling(Sampler),
    Coding(Box<Coder>),
}

/// The E2MC codec for one symbol length.
#[derive(Debug, Clone)]
pub struct E2mc {
    name: String,
    symbol_bits: u32,
    geometry: Geometry,
    layout: Layout,
    mfv: usize,
    state: State,
    /// The ways' bitstream of the block being compressed, reused.
    scratch: Vec<u8>,
}

impl E2mc {
    /// An E2MC codec in its online sampling phase: it stores blocks
    /// uncompressed until [`Codec::end_sampling`] builds the code table from
    /// them (keeping the `mfv` most frequent values for 16/32-bit symbols).
    pub fn new(symbol_bits: u32, geometry: Geometry, pdw: usize, mfv: usize) -> Result<Self, ConfigError> {
        let name = Self::check(symbol_bits, pdw)?;
        if !(1..=MAX_MFV).contains(&mfv) {
            return Err(ConfigError::new(
                format!("{name}.mfv"),
                mfv.to_string(),
                format!("an integer in 1..={MAX_MFV}"),
            ));
        }
        Ok(E2mc {
            layout: Layout::new(geometry, symbol_bits, pdw),
            name,
            symbol_bits,
            geometry,
            mfv,
            state: State::Sampling(Sampler::new(symbol_bits)?),
            scratch: Vec::new(),
        })
    }

    /// An E2MC codec coding with `table` from the start (offline probabilities).
    pub fn with_table(table: CodeTable, geometry: Geometry, pdw: usize) -> Result<Self, ConfigError> {
        let symbol_bits = table.symbol_bits;
        let name = Self::check(symbol_bits, pdw)?;
        Ok(E2mc {
            layout: Layout::new(geometry, symbol_bits, pdw),
            name,
            symbol_bits,
            geometry,
            mfv: table.mfv.len().max(1),
            state: State::Coding(Box::new(Coder::new(table)?)),
            scratch: Vec::new(),
        })
    }

    /// Builds `e2mc<symbol_bits>` from registry knobs: `pdw` (1, 2, 4, 8;
    /// default 4), `sampling` (`online`, the default, or `offline` with the
    /// code table in `spec.table`) and, for 16/32-bit, `mfv` (default
    /// 1024; only used when sampling online: an offline table fixes its MFVs).
    pub fn from_spec(spec: &CodecSpec, symbol_bits: u32) -> Result<Self, ConfigError> {
        let name = format!("e2mc{symbol_bits}");
        let pdw = spec.knob("pdw", DEFAULT_PDW, "1, 2, 4 or 8")?;
        match spec.raw("sampling").unwrap_or("online") {
            "online" => {
                let mfv = spec.knob("mfv", DEFAULT_MFV, &format!("an integer in 1..={MAX_MFV}"))?;
                E2mc::new(symbol_bits, spec.geometry, pdw, mfv)
            }
            "offline" => {
                let table = spec.table.as_deref().ok_or_else(|| {
                    ConfigError::new(
                        format!("{name}.table_json"),
                        "missing",
                        "the JSON text of an E2MC code table (sampling=offline needs one)",
                    )
                })?;
                if table.symbol_bits != symbol_bits {
                    return Err(ConfigError::new(
                        format!("{name}.table_json symbol_bits"),
                        table.symbol_bits.to_string(),
                        format!("{symbol_bits} (the symbol length of {name})"),
                    ));
                }
                E2mc::with_table(table.clone(), spec.geometry, pdw)
            }
            other => Err(ConfigError::new(format!("{name}.sampling"), other, "online or offline")),
        }
    }

    fn check(symbol_bits: u32, pdw: usize) -> Result<String, ConfigError> {
        if !SYMBOL_BITS.contains(&symbol_bits) {
            return Err(ConfigError::new("e2mc symbol_bits", symbol_bits.to_string(), "4, 8, 16 or 32"));
        }
        let name = format!("e2mc{symbol_bits}");
        if !PDW_CHOICES.contains(&pdw) {
            return Err(ConfigError::new(format!("{name}.pdw"), pdw.to_string(), "1, 2, 4 or 8"));
        }
        Ok(name)
    }

    pub fn symbol_bits(&self) -> u32 {
        self.symbol_bits
    }

    pub fn pdw(&self) -> usize {
        self.layout.pdw
    }

    /// True until the code table exists (blocks are stored uncompressed).
    pub fn is_sampling(&self) -> bool {
        matches!(self.state, State::Sampling(_))
    }

    /// The sampler while sampling (e.g. for [`ShannonBound::of_sampler`]).
    pub fn sampler(&self) -> Option<&Sampler> {
        match &self.state {
            State::Sampling(s) => Some(s),
            State::Coding(_) => None,
        }
    }

    /// The code table in use, once there is one (save it with `to_json` to
    /// reuse as an offline table).
    pub fn table(&self) -> Option<&CodeTable> {
        match &self.state {
            State::Sampling(_) => None,
            State::Coding(coder) => Some(&coder.table),
        }
    }

    /// Bits of one way pointer in the payload header: log2(block_bytes).
    pub(crate) fn pointer_bits(&self) -> u32 {
        self.layout.pointer_bits
    }

    /// The codeword (bits, length) of one 16- or 32-bit symbol, escape and
    /// raw symbol included; `None` while sampling. For SLC
    /// ([`crate::codec::slc`]), which codes E2MC16 symbols one at a time so
    /// that it can leave some out.
    pub(crate) fn symbol_codeword(&self, value: u32) -> Option<(u64, u32)> {
        match &self.state {
            State::Coding(coder) if uses_mfv(self.symbol_bits) => Some(coder.encode(0, value)),
            _ => None,
        }
    }

    /// Decodes the 16-bit symbol whose codeword starts at bit `pos` (and
    /// must end by `end`) into symbol slot `s` of `out`; returns the
    /// position after it. For SLC, like [`E2mc::symbol_codeword`].
    pub(crate) fn decode_symbol16(
        &self,
        payload: &[u8],
        pos: usize,
        end: usize,
        s: usize,
        out: &mut [u8],
    ) -> Result<usize, CodecError> {
        match &self.state {
            State::Coding(coder) if self.symbol_bits == 16 => coder.decode_symbol::<16>(payload, pos, end, s, out),
            State::Coding(_) => Err(CodecError::Corrupt(format!("e2mc{} codes no 16-bit symbols", self.symbol_bits))),
            State::Sampling(_) => {
                Err(CodecError::Corrupt("E2MC-coded block but the code table is not built yet (sampling)".into()))
            }
        }
    }

    /// The encoding and size `compress` stores a block with whose ways hold
    /// `way_bits` codeword bits each.
    fn size_from_ways(&self, way_bits: &[usize; 8]) -> BlockSize {
        let layout = self.layout;
        let ways = &way_bits[..layout.pdw];
        let data_bits: usize = ways[..layout.pdw - 1].iter().map(|&b| pad8(b)).sum::<usize>() + ways[layout.pdw - 1];
        let total = layout.header_bits + data_bits;
        if self.geometry.worth_compressing(total) {
            BlockSize { encoding: E2MC_ENCODING, compressed_bits: total }
        } else {
            BlockSize { encoding: UNCOMPRESSED, compressed_bits: self.geometry.block_bits() }
        }
    }

    /// Codes `block` into `out`. The ways are written to a scratch stream
    /// while they are sized; once the sizes are known (Section III-E's "worth
    /// it" needs the total, the header the way offsets) the pointers are
    /// written and the ways' bits appended after them.
    fn encode_into(&mut self, block: &[u8], out: &mut CompressedBlock) {
        let State::Coding(coder) = &self.state else {
            out.set_uncompressed(block, self.geometry);
            return;
        };
        let layout = self.layout;
        let mut data = BitWriter::reusing(std::mem::take(&mut self.scratch));
        let way_bits = code_ways(coder, block, layout.pdw, |code, len| data.write(code, len));
        let (data_bytes, data_bits) = data.finish();
        let size = self.size_from_ways(&way_bits);
        debug_assert!(!size.is_compressed() || size.compressed_bits == layout.header_bits + data_bits);
        if !size.is_compressed() {
            out.set_uncompressed(block, self.geometry);
            self.scratch = data_bytes;
            return;
        }
        let mut writer = out.take_writer();
        let mut offset_bits = 0;
        for &bits in &way_bits[..layout.pdw - 1] {
            offset_bits += pad8(bits);
            // total < block_bits, so every offset fits log2(block_bytes) bits.
            debug_assert!(offset_bits / 8 < 1 << layout.pointer_bits);
            writer.write((offset_bits / 8) as u64, layout.pointer_bits);
        }
        let mut left = data_bits;
        for chunk in data_bytes.chunks(8) {
            let take = left.min(64) as u32;
            writer.write(load_be(chunk, 0) >> (64 - take), take);
            left -= take as usize;
        }
        out.set_bits(E2MC_ENCODING, writer, self.geometry);
        self.scratch = data_bytes;
    }

    fn decode_into(&self, coder: &Coder, compressed: &CompressedBlock, out: &mut [u8]) -> Result<(), CodecError> {
        let layout = self.layout;
        let mut reader = compressed.reader()?;
        // starts[w]: bit offset of way w from the start of the data.
        let mut starts = [0usize; 8];
        for start in starts.iter_mut().take(layout.pdw).skip(1) {
            *start = reader.read(layout.pointer_bits)? as usize * 8;
        }
        let header = reader.position();
        let data_bits = compressed.compressed_bits - header;
        for w in 1..layout.pdw {
            // Every way holds at least one codeword, so starts strictly rise.
            if starts[w] <= starts[w - 1] || starts[w] >= data_bits {
                return Err(CodecError::Corrupt(format!(
                    "way {w} pointer (byte {}) out of range: previous way at byte {}, data is {data_bits} bits",
                    starts[w] / 8,
                    starts[w - 1] / 8
                )));
            }
        }
        // A zero-padded copy, so every peek near the end is an in-bounds load.
        let mut padded = [0u8; 136];
        let payload: &[u8] = match padded.get_mut(..compressed.payload.len()) {
            Some(copy) => {
                copy.copy_from_slice(&compressed.payload);
                &padded
            }
            None => &compressed.payload,
        };
        // 4-bit symbols are OR-ed into their byte.
        out.fill(0);
        let (mut first, mut ends) = ([0usize; 8], [0usize; 8]);
        for w in 0..layout.pdw {
            first[w] = header + starts[w];
            ends[w] = header + if w + 1 == layout.pdw { data_bits } else { starts[w + 1] };
        }
        // A way's end check, as soon as the way is decoded.
        let check_way = |w: usize, pos: usize| -> Result<(), CodecError> {
            let end = ends[w] - header;
            let used = pos - header;
            if w + 1 == layout.pdw {
                if used != data_bits {
                    return Err(CodecError::Corrupt(format!("{} unread bits after the last way", data_bits - used)));
                }
            } else {
                let padding = pad8(used - starts[w]) - (used - starts[w]);
                if starts[w] + pad8(used - starts[w]) != end {
                    return Err(CodecError::Corrupt(format!(
                        "way {w} ends at data bit {used} but way {} starts at {end}",
                        w + 1
                    )));
                }
                if padding > 0 && peek(payload, pos, padding as u32) != 0 {
                    return Err(CodecError::Corrupt(format!("non-zero padding after way {w}")));
                }
            }
            Ok(())
        };
        match coder.decode_ways(payload, first, ends, layout, out) {
            Ok(positions) => (0..layout.pdw).try_for_each(|w| check_way(w, positions[w])),
            // A corrupt payload: decode way by way, checking each way's end
            // before the next, so the error named is the first in stream
            // order (the lockstep decoder may trip over a later way first).
            Err(_) => {
                for w in 0..layout.pdw {
                    let pos = coder.decode_one_way(payload, first[w], ends[w], w, layout.per_way, out)?;
                    check_way(w, pos)?;
                }
                Err(CodecError::Corrupt("E2MC ways decode one by one but not in lockstep".into()))
            }
        }
    }
}

impl Codec for E2mc {
    fn name(&self) -> &str {
        &self.name
    }

    fn geometry(&self) -> Geometry {
        self.geometry
    }

    fn compress_into(&mut self, block: &[u8], out: &mut CompressedBlock) -> Result<(), CodecError> {
        check_block_size(block, self.geometry)?;
        if let State::Sampling(sampler) = &mut self.state {
            // Section III-B2b: no compression during the sampling phase.
            sampler.feed(block);
            out.set_uncompressed(block, self.geometry);
            return Ok(());
        }
        self.encode_into(block, out);
        Ok(())
    }

    fn compressed_size(&mut self, block: &[u8]) -> Result<BlockSize, CodecError> {
        check_block_size(block, self.geometry)?;
        if let State::Sampling(sampler) = &mut self.state {
            sampler.feed(block);
            return Ok(BlockSize { encoding: UNCOMPRESSED, compressed_bits: self.geometry.block_bits() });
        }
        match &self.state {
            State::Coding(coder) => Ok(self.size_from_ways(&size_ways(coder, block, self.layout.pdw))),
            State::Sampling(_) => Ok(BlockSize { encoding: UNCOMPRESSED, compressed_bits: self.geometry.block_bits() }),
        }
    }

    fn decompress_into(&self, compressed: &CompressedBlock, out: &mut [u8]) -> Result<(), CodecError> {
        check_block_size(out, self.geometry)?;
        match (compressed.encoding, &self.state) {
            (UNCOMPRESSED, _) => decode_uncompressed_into(compressed, self.geometry, out),
            (E2MC_ENCODING, State::Coding(coder)) => self.decode_into(coder, compressed, out),
            (E2MC_ENCODING, State::Sampling(_)) => {
                Err(CodecError::Corrupt("E2MC-coded block but the code table is not built yet (sampling)".into()))
            }
            (other, _) => Err(CodecError::UnknownEncoding(other)),
        }
    }

    fn latency(&self) -> Latency {
        let base = table_vi_latency(self.symbol_bits);
        Latency::new(base.compress_cycles, base.decompress_cycles.div_ceil(self.layout.pdw as u32))
    }

    fn encoding_names(&self) -> Vec<String> {
        vec!["uncompressed".into(), self.name.clone()]
    }

    /// Section III-D: the metadata is the burst count (2 bits for 128 B
    /// blocks and a 32 B MAG), the largest count meaning "uncompressed".
    fn metadata_bits(&self) -> u32 {
        bits_to_name(self.geometry.block_bursts())
    }

    /// Builds the code table from the sample (Section III-B2c); afterwards
    /// blocks are compressed. A no-op once a table exists.
    fn end_sampling(&mut self) -> Result<(), CodecError> {
        if let State::Sampling(sampler) = &self.state {
            let coder = sampler
                .build_table(self.mfv)
                .and_then(Coder::new)
                .map_err(|e| CodecError::Corrupt(format!("cannot build the E2MC code table: {e}")))?;
            self.state = State::Coding(Box::new(coder));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
