//! MSB-first bit streams: the payload format of every codec.
//!
//! Hardware compressors emit fields back to back with no padding, so codecs
//! write fields of 1..=64 bits. The reader never panics: reading past the end
//! returns [`CodecError::Truncated`].

use crate::error::{CodecError, Corruption};

/// Appends fields of up to 64 bits, most significant bit first.
///
/// Fields collect in a 64-bit accumulator that is stored eight bytes at a
/// time (word-at-a-time, issue 12); the bytes are exactly those a bit-at-a-time
/// writer produces: `ceil(bits / 8)` of them, unused low bits of the last
/// one zero.
#[derive(Debug, Clone)]
pub struct BitWriter {
    bytes: Vec<u8>,
    /// Pending bits, left-aligned: the next field goes just below them.
    acc: u64,
    /// Free low bits of `acc` (64 = empty, never 0 between calls).
    free: u32,
}

impl Default for BitWriter {
    fn default() -> Self {
        Self::reusing(Vec::new())
    }
}

impl BitWriter {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn with_capacity_bits(bits: usize) -> Self {
        Self::reusing(Vec::with_capacity(bits.div_ceil(8) + 8))
    }

    /// A writer that appends to `buffer` after clearing it, so a caller that
    /// hands back the previous payload compresses without allocating.
    pub fn reusing(mut buffer: Vec<u8>) -> Self {
        buffer.clear();
        BitWriter { bytes: buffer, acc: 0, free: 64 }
    }

    /// Bits written so far.
    #[inline]
    pub fn bit_len(&self) -> usize {
        self.bytes.len() * 8 + (64 - self.free) as usize
    }

    /// Writes the low `width` bits of `value` (width 0..=64).
    #[inline]
    pub fn write(&mut self, value: u64, width: u32) {
        debug_assert!(width <= 64);
        if width == 0 {
            return;
        }
        let value = if width == 64 { value } else { value & ((1u64 << width) - 1) };
        if width < self.free {
            self.free -= width;
            self.acc |= value << self.free;
        } else {
            // The field fills the accumulator: its top `free` bits complete
            // the word, the remaining `spill` (< 64) bits start the next one.
            let spill = width - self.free;
            self.acc |= if spill == 0 { value } else { value >> spill };
            self.bytes.extend_from_slice(&self.acc.to_be_bytes());
            self.free = 64 - spill;
            self.acc = if spill == 0 { 0 } else { value << self.free };
        }
    }

    /// Writes the low `width` (1..=57) bits of every value, in order: equal
    /// to one [`BitWriter::write`] per value, with as many values per call
    /// as fit in 64 bits.
    #[inline]
    pub fn write_fields(&mut self, values: &[u64], width: u32) {
        debug_assert!((1..=57).contains(&width));
        let mask = (1u64 << width) - 1;
        for group in values.chunks(64 / width as usize) {
            let packed = group.iter().fold(0u64, |acc, &v| (acc << width) | (v & mask));
            self.write(packed, group.len() as u32 * width);
        }
    }

    #[inline]
    pub fn write_bool(&mut self, bit: bool) {
        self.write(bit as u64, 1);
    }

    pub fn write_bytes(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write(b as u64, 8);
        }
    }

    /// Pads with zero bits up to the next byte boundary.
    pub fn align_to_byte(&mut self) {
        let pad = (8 - self.bit_len() % 8) % 8;
        self.write(0, pad as u32);
    }

    /// The bytes and the exact number of meaningful bits.
    pub fn finish(mut self) -> (Vec<u8>, usize) {
        let bit_len = self.bit_len();
        let pending = (64 - self.free).div_ceil(8) as usize;
        self.bytes.extend_from_slice(&self.acc.to_be_bytes()[..pending]);
        (self.bytes, bit_len)
    }
}

/// Bytes of a [`BlockBitWriter`]: a 128-byte block's worst word stream
/// (32 fields of 35 bits, 140 bytes) and the last 8-byte store.
pub const BLOCK_WRITER_BYTES: usize = 160;

/// The 64 bits of a [`BLOCK_WRITER_BYTES`] buffer from bit `position` on,
/// MSB first (at least 57 of them from the buffer): how the fast decoders
/// (FPC, C-Pack) read a block's stream, one unaligned load per token, with
/// the buffer's padding in place of a bounds branch.
#[inline(always)]
pub fn window_at(buffer: &[u8; BLOCK_WRITER_BYTES], position: usize) -> u64 {
    let byte = position / 8;
    let eight: [u8; 8] = buffer[byte..byte + 8].try_into().unwrap_or_default();
    u64::from_be_bytes(eight) << (position % 8)
}

/// Writes fields of up to 56 bits into a stack buffer, MSB first: the bytes
/// [`BitWriter`] writes, for codecs that write one block's stream and copy
/// it out once it is known to be worth keeping. The accumulator keeps fewer
/// than 8 pending bits between fields; it is stored whole after every
/// field and advanced by the bytes completed, so no write branches on how
/// full it is (a branch real data mispredicts).
#[derive(Debug, Clone)]
pub struct BlockBitWriter {
    buffer: [u8; BLOCK_WRITER_BYTES],
    acc: u64,
    pending: u32,
    at: usize,
}

impl Default for BlockBitWriter {
    fn default() -> Self {
        BlockBitWriter { buffer: [0; BLOCK_WRITER_BYTES], acc: 0, pending: 0, at: 0 }
    }
}

impl BlockBitWriter {
    pub fn new() -> Self {
        Self::default()
    }

    /// Writes the low `width` (0..=56: with the 7 bits that may be pending,
    /// under 64) bits of `value`. At most
    /// `(BLOCK_WRITER_BYTES - 8) * 8` bits fit; past that it panics (a
    /// codec's bug, not bad input: callers bound their streams).
    #[inline(always)]
    pub fn write(&mut self, value: u64, width: u32) {
        debug_assert!(width <= 56);
        let field = value & ((1u64 << width) - 1);
        self.pending += width;
        // A zero-width field is 0, so the wrapped shift by 64 adds nothing.
        self.acc |= field.wrapping_shl(64 - self.pending);
        self.buffer[self.at..self.at + 8].copy_from_slice(&self.acc.to_be_bytes());
        self.at += (self.pending / 8) as usize;
        self.acc = self.acc.wrapping_shl(self.pending & !7);
        self.pending &= 7;
    }

    /// Bits written so far.
    #[inline]
    pub fn bit_len(&self) -> usize {
        self.at * 8 + self.pending as usize
    }

    /// The written bytes: `ceil(bit_len / 8)` of them, unused low bits of
    /// the last one zero.
    #[inline]
    pub fn bytes(&mut self) -> &[u8] {
        self.buffer[self.at..self.at + 8].copy_from_slice(&self.acc.to_be_bytes());
        &self.buffer[..self.bit_len().div_ceil(8)]
    }
}

/// The 64 bits of `bytes` starting at byte `index`, MSB first; bytes past
/// the end read as zero.
#[inline]
pub(crate) fn load_be(bytes: &[u8], index: usize) -> u64 {
    match bytes.get(index..index + 8) {
        Some(eight) => u64::from_be_bytes(eight.try_into().unwrap_or([0; 8])),
        None => {
            // Near the end: byte by byte (no variable-length copy).
            let mut value = 0u64;
            for k in 0..8 {
                value = (value << 8) | bytes.get(index + k).copied().unwrap_or(0) as u64;
            }
            value
        }
    }
}

/// The next `width` (0..=57) bits at bit `position` of `bytes`, MSB first;
/// bits past the end read as zero (callers check their own bounds).
#[inline]
pub(crate) fn peek_bits(bytes: &[u8], position: usize, width: u32) -> u64 {
    debug_assert!(width <= 57);
    if width == 0 {
        return 0;
    }
    (load_be(bytes, position / 8) << (position % 8)) >> (64 - width)
}

/// Bytes of a payload a [`BitReader`] keeps in its own zero-padded copy:
/// every block payload (at most 128 bytes) fits, so every 8-byte load is in
/// bounds and takes the fast path.
const PADDED_BYTES: usize = 128;

/// Reads fields back from a payload of `bit_len` meaningful bits.
#[derive(Debug, Clone)]
pub struct BitReader<'a> {
    bytes: &'a [u8],
    /// A copy of `bytes` followed by zeros, when it fits.
    padded: Option<[u8; PADDED_BYTES + 8]>,
    bit_len: usize,
    position: usize,
}

impl<'a> BitReader<'a> {
    /// `bit_len` must not exceed `bytes.len() * 8`; if it does the payload is
    /// truncated and that is an error, not a panic.
    pub fn new(bytes: &'a [u8], bit_len: usize) -> Result<Self, CodecError> {
        if bit_len > bytes.len() * 8 {
            return Err(CodecError::Truncated { needed_bits: bit_len, available_bits: bytes.len() * 8 });
        }
        let padded = (bytes.len() <= PADDED_BYTES).then(|| {
            let mut copy = [0u8; PADDED_BYTES + 8];
            copy[..bytes.len()].copy_from_slice(bytes);
            copy
        });
        Ok(BitReader { bytes, padded, bit_len, position: 0 })
    }

    /// The payload, zero-padded when it is short enough to copy.
    #[inline(always)]
    fn source(&self) -> &[u8] {
        match &self.padded {
            Some(copy) => copy,
            None => self.bytes,
        }
    }

    pub fn position(&self) -> usize {
        self.position
    }

    pub fn remaining(&self) -> usize {
        self.bit_len - self.position
    }

    /// Reads `width` bits (0..=64) as an unsigned value.
    #[inline]
    pub fn read(&mut self, width: u32) -> Result<u64, CodecError> {
        if width as usize > self.remaining() {
            return Err(CodecError::Truncated {
                needed_bits: self.position + width as usize,
                available_bits: self.bit_len,
            });
        }
        let source = self.source();
        let value = if width <= 57 {
            peek_bits(source, self.position, width)
        } else {
            let high = peek_bits(source, self.position, width - 32);
            (high << 32) | peek_bits(source, self.position + (width - 32) as usize, 32)
        };
        self.position += width as usize;
        Ok(value)
    }

    /// Reads `count` fields of `width` (1..=57) bits, handing each to
    /// `each(index, value)`: equal to `count` calls of [`BitReader::read`],
    /// but with one bounds check and as many fields per 64-bit load as fit
    /// (word-at-a-time decode, issue 12). When the fields run past the end
    /// it reads them one by one, so the error is the one `read` gives.
    #[inline]
    pub fn read_fields(
        &mut self,
        width: u32,
        count: usize,
        mut each: impl FnMut(usize, u64),
    ) -> Result<(), CodecError> {
        debug_assert!((1..=57).contains(&width));
        if width as usize * count > self.remaining() {
            for index in 0..count {
                let value = self.read(width)?;
                each(index, value);
            }
            return Ok(());
        }
        let per_load = (57 / width) as usize;
        let mask = (1u64 << width) - 1;
        let source = self.source();
        let mut position = self.position;
        let mut index = 0;
        while index < count {
            let fields = per_load.min(count - index);
            let group_bits = fields as u32 * width;
            let group = peek_bits(source, position, group_bits);
            for k in 0..fields {
                each(index + k, (group >> (group_bits - (k as u32 + 1) * width)) & mask);
            }
            position += group_bits as usize;
            index += fields;
        }
        self.position = position;
        Ok(())
    }

    #[inline]
    pub fn read_bool(&mut self) -> Result<bool, CodecError> {
        Ok(self.read(1)? == 1)
    }

    /// Moves to the next byte boundary (PDW ways start byte-aligned).
    pub fn align_to_byte(&mut self) -> Result<(), CodecError> {
        let pad = (8 - self.position % 8) % 8;
        self.read(pad as u32).map(|_| ())
    }

    /// Jumps to an absolute bit position (within the payload).
    pub fn seek(&mut self, bit_position: usize) -> Result<(), CodecError> {
        if bit_position > self.bit_len {
            return Err(CodecError::Truncated { needed_bits: bit_position, available_bits: self.bit_len });
        }
        self.position = bit_position;
        Ok(())
    }

    /// Decoders call this at the end: a payload with bits left over is not
    /// one this codec wrote, so it is rejected rather than silently accepted.
    pub fn expect_end(&self) -> Result<(), CodecError> {
        if self.remaining() == 0 {
            Ok(())
        } else {
            Err(CodecError::corrupt(
                Corruption::TrailingBits,
                format!("{} unread bits after the last field", self.remaining()),
            ))
        }
    }
}

/// Sign-extends the low `width` bits of `value` to i64.
pub fn sign_extend(value: u64, width: u32) -> i64 {
    if width == 0 {
        return 0;
    }
    let shift = 64 - width;
    ((value << shift) as i64) >> shift
}

/// True when `value` survives truncation to `width` bits and sign extension.
pub fn fits_signed(value: i64, width: u32) -> bool {
    width >= 64 || sign_extend(value as u64, width) == value
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn writes_msb_first() {
        let mut w = BitWriter::new();
        w.write(0b101, 3);
        w.write(0b11111, 5);
        w.write(0x1, 4);
        let (bytes, bits) = w.finish();
        assert_eq!(bits, 12);
        assert_eq!(bytes, vec![0b1011_1111, 0b0001_0000]);
    }

    #[test]
    fn truncated_read_is_an_error() {
        let bytes = [0xAB];
        let mut r = BitReader::new(&bytes, 6).unwrap();
        assert_eq!(r.read(4).unwrap(), 0xA);
        assert!(matches!(r.read(4), Err(CodecError::Truncated { .. })));
        assert!(BitReader::new(&bytes, 9).is_err());
    }

    #[test]
    fn sign_extension() {
        assert_eq!(sign_extend(0b111, 3), -1);
        assert_eq!(sign_extend(0b011, 3), 3);
        assert!(fits_signed(-32, 6));
        assert!(!fits_signed(32, 6));
        assert!(fits_signed(31, 6));
        assert!(!fits_signed(-33, 6));
    }

    /// The bit-at-a-time writer the word-at-a-time one replaced: the
    /// reference for the byte layout.
    fn reference_bytes(fields: &[(u64, u32)]) -> Vec<u8> {
        let mut bits = Vec::new();
        for &(v, width) in fields {
            bits.extend((0..width).rev().map(|i| (v >> i) & 1 == 1));
        }
        bits.chunks(8).map(|c| c.iter().enumerate().fold(0u8, |acc, (i, &b)| acc | ((b as u8) << (7 - i)))).collect()
    }

    proptest! {
        #[test]
        fn bytes_equal_the_bit_at_a_time_layout(fields in prop::collection::vec((any::<u64>(), 0u32..=64), 0..40)) {
            let mut w = BitWriter::reusing(vec![1, 2, 3]);
            for &(v, width) in &fields {
                w.write(v, width);
            }
            let (bytes, bits) = w.finish();
            prop_assert_eq!(bytes.len(), bits.div_ceil(8));
            prop_assert_eq!(bytes, reference_bytes(&fields));
        }

        #[test]
        fn grouped_fields_equal_single_fields(values in prop::collection::vec(any::<u64>(), 0..70), width in 1u32..=57,
                                              lead in 0u32..=64, cut in 0usize..80) {
            let mut grouped = BitWriter::new();
            let mut single = BitWriter::new();
            grouped.write(u64::MAX, lead);
            single.write(u64::MAX, lead);
            grouped.write_fields(&values, width);
            for &v in &values {
                single.write(v, width);
            }
            let (bytes, bits) = grouped.finish();
            prop_assert_eq!((&bytes, bits), (&single.finish().0, bits));
            // Read back, whole or cut short: read_fields gives what reads one
            // by one give, the same error included.
            let available = bits.saturating_sub(cut);
            let (mut fast, mut slow) = (BitReader::new(&bytes, available).unwrap(), BitReader::new(&bytes, available).unwrap());
            prop_assert_eq!(fast.read(lead).is_ok(), slow.read(lead).is_ok());
            let mut fast_values = Vec::new();
            let fast_result = fast.read_fields(width, values.len(), |i, v| fast_values.push((i, v)));
            let mut slow_values = Vec::new();
            let slow_result = (0..values.len()).try_for_each(|i| slow.read(width).map(|v| slow_values.push((i, v))));
            prop_assert_eq!(fast_result, slow_result);
            prop_assert_eq!(fast_values, slow_values);
            prop_assert_eq!(fast.position(), slow.position());
        }

        #[test]
        fn block_writer_equals_bit_writer(fields in prop::collection::vec((any::<u64>(), 0u32..=56), 0..20)) {
            let (mut block, mut reference) = (BlockBitWriter::new(), BitWriter::new());
            for &(v, width) in &fields {
                block.write(v, width);
                reference.write(v, width);
                prop_assert_eq!(block.bit_len(), reference.bit_len());
            }
            let (bytes, _) = reference.finish();
            prop_assert_eq!(block.bytes(), &bytes[..]);
        }

        #[test]
        fn fields_round_trip(fields in prop::collection::vec((any::<u64>(), 0u32..=64), 0..40)) {
            let mut w = BitWriter::new();
            for &(v, width) in &fields {
                w.write(v, width);
            }
            let (bytes, bits) = w.finish();
            prop_assert_eq!(bits, fields.iter().map(|f| f.1 as usize).sum::<usize>());
            let mut r = BitReader::new(&bytes, bits).unwrap();
            for &(v, width) in &fields {
                let mask = if width == 64 { u64::MAX } else { (1u64 << width) - 1 };
                prop_assert_eq!(r.read(width).unwrap(), v & mask);
            }
            prop_assert!(r.expect_end().is_ok());
        }
    }
}
