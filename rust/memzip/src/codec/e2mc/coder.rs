//! E2MC's bit-level coder: the block layout with its parallel decoding ways'
//! pointers, the symbol -> codeword tables and the decoders ("E2MC: Entropy
//! Encoding Based Memory Compression for GPUs", Sections III-E and III-F1,
//! Figure 8). The codec around it ([`super::E2mc`]) decides when to sample,
//! when a block is worth storing coded, and what it costs.

use super::huffman::CanonicalCode;
use super::pairs::{pair_table, unpack_pair, PairEntry, PAIR_BITS};
use super::table::{uses_mfv, CodeTable};
use crate::bits::peek_bits;
use crate::error::{CodecError, ConfigError, Corruption};
use crate::geometry::Geometry;

/// Rounds a bit count up to whole bytes.
pub(super) fn pad8(bits: usize) -> usize {
    bits.div_ceil(8) * 8
}

/// Where the parts of a compressed block go.
#[derive(Debug, Clone, Copy)]
pub(super) struct Layout {
    pub(super) pdw: usize,
    /// Symbols per way.
    pub(super) per_way: usize,
    /// Bits per way pointer: log2(block_bytes).
    pub(super) pointer_bits: u32,
    /// `(pdw - 1) * pointer_bits`: where the data (way 0) starts.
    pub(super) header_bits: usize,
}

impl Layout {
    pub(super) fn new(geometry: Geometry, symbol_bits: u32, pdw: usize) -> Self {
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
pub(super) fn peek(bytes: &[u8], pos: usize, width: u32) -> u32 {
    peek_bits(bytes, pos, width) as u32
}

/// Moves past a field of `len` bits, which must end by `end`.
#[inline]
pub(super) fn advance(pos: usize, len: usize, end: usize) -> Result<usize, CodecError> {
    if pos + len > end {
        Err(CodecError::Truncated { needed_bits: pos + len, available_bits: end })
    } else {
        Ok(pos + len)
    }
}

/// Writes symbol `index` (stream order) into the output block.
#[inline]
pub(super) fn store_symbol(out: &mut [u8], index: usize, value: u32, symbol_bits: u32) {
    match symbol_bits {
        4 => out[index / 2] |= (value as u8 & 0x0f) << (4 * (index % 2)),
        8 => out[index] = value as u8,
        16 => out[2 * index..2 * index + 2].copy_from_slice(&(value as u16).to_le_bytes()),
        _ => out[4 * index..4 * index + 4].copy_from_slice(&value.to_le_bytes()),
    }
}

/// A codeword packed as `code << 6 | length` (lengths are at most 24 bits,
/// so 6 bits hold them and 30 bits the whole entry); 0 = no codeword.
pub(super) type PackedCode = u32;

#[inline(always)]
pub(super) fn pack_code(code: u32, len: u8) -> PackedCode {
    (code << 6) | len as u32
}

#[inline(always)]
pub(super) fn unpack_code(packed: PackedCode) -> (u64, u32) {
    ((packed >> 6) as u64, packed & 0x3f)
}

/// Fibonacci hashing's multiplier (2^32 / golden ratio): spreads clustered
/// values (small integers, floats of one exponent) over the slots.
pub(super) const SLOT_MULTIPLIER: u32 = 0x9E37_79B1;

/// The encoder's symbol -> codeword lookup, built once per code table so
/// encoding does no hashing and no search through the code (issue 12).
#[derive(Debug, Clone)]
pub(super) enum EncodeTable {
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
pub(super) struct Coder {
    pub(super) table: CodeTable,
    pub(super) symbol_bits: u32,
    /// One canonical code per position (4/8-bit) or the single MFV code.
    pub(super) codes: Vec<CanonicalCode>,
    /// MFV values by canonical symbol index (16/32-bit).
    pub(super) mfv_values: Vec<u32>,
    /// Symbol index of the escape codeword (`mfv_values.len()`), 16/32-bit.
    pub(super) escape: u32,
    pub(super) escape_code: PackedCode,
    pub(super) encode_table: EncodeTable,
    /// Two-symbol decode tables ([`pairs`]), one per pair of word positions
    /// (4/8-bit) or one (16/32-bit).
    pub(super) pair_tables: Vec<Vec<PairEntry>>,
}

impl Coder {
    pub(super) fn new(table: CodeTable) -> Result<Self, ConfigError> {
        table.validate()?;
        let codes = (0..table.code_count())
            .map(|p| {
                CanonicalCode::new(&table.code_lengths(p))
                    .map_err(|e| ConfigError::new("e2mc code table", e.to_string(), "lengths of a prefix code"))
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
    pub(super) fn escaped(&self, value: u32) -> (u64, u32) {
        let (code, len) = unpack_code(self.escape_code);
        ((code << self.symbol_bits) | value as u64, len + self.symbol_bits)
    }

    /// The bits for `value` and their count: for 4/8-bit symbols `value` is
    /// the byte at byte `position` of its word (both nibbles' codewords for
    /// 4-bit), for 16/32-bit symbols one symbol.
    #[inline(always)]
    pub(super) fn encode(&self, position: usize, value: u32) -> (u64, u32) {
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
    pub(super) fn decode_ways(
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
    pub(super) fn decode_ways_of<const SYMBOL_BITS: u32>(
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
    pub(super) fn store_pair<const SYMBOL_BITS: u32>(&self, out: &mut [u8], s: usize, first: u32, second: u32) {
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
    pub(super) fn decode_one_way(
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
    pub(super) fn decode_symbol<const SYMBOL_BITS: u32>(
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
        let (symbol, len) = code.decode(window).ok_or_else(|| {
            CodecError::corrupt(Corruption::UnknownCode, format!("no codeword matches the bits at {pos}"))
        })?;
        pos = advance(pos, len as usize, end)?;
        let value = if !uses_mfv(SYMBOL_BITS) {
            symbol
        } else if symbol == self.escape {
            let raw = peek(payload, pos, SYMBOL_BITS);
            pos = advance(pos, SYMBOL_BITS as usize, end)?;
            raw
        } else {
            *self.mfv_values.get(symbol as usize).ok_or_else(|| {
                CodecError::corrupt(Corruption::OutOfRange, format!("MFV index {symbol} out of range"))
            })?
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
pub(super) fn code_ways(coder: &Coder, block: &[u8], pdw: usize, emit: impl FnMut(u64, u32)) -> [usize; 8] {
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
pub(super) fn size_ways(coder: &Coder, block: &[u8], pdw: usize) -> [usize; 8] {
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
pub(super) fn code_ways_of<const SYMBOL_BITS: u32>(
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
