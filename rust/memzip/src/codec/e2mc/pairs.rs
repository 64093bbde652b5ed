//! Two-symbol decode tables (issue 12: multi-symbol, table-driven decode).
//!
//! A way's symbols decode one after another: each codeword's length is
//! needed before the next one can be found, so the single-symbol decoder
//! is one dependent lookup per symbol. When two consecutive codewords
//! together fit in the next [`PAIR_BITS`] bits, one lookup in a pair table
//! gives both symbols and their total length, halving that chain. Symbol
//! pairs start at even symbol positions of a word (ways start at word
//! position 0, see [`super::Layout`]), so 4- and 8-bit symbols have one
//! table per pair of positions and 16/32-bit symbols one table. A window whose
//! two codewords do not both fit (or whose first or second is the escape
//! codeword) holds 0 and the caller decodes the two symbols singly, so the
//! decoded values, positions and errors are those of the single-symbol
//! path (property-tested in `tests.rs`).

use super::huffman::CanonicalCode;

/// Window bits a pair lookup reads: 4096 entries of 4 bytes per table.
pub(super) const PAIR_BITS: u32 = 12;

/// A pair entry: first symbol (bits 0..12), second (12..24), the two
/// codewords' total length (24..29); 0 = decode singly.
pub(super) type PairEntry = u32;

#[inline(always)]
pub(super) fn unpack_pair(entry: PairEntry) -> (u32, u32, u32) {
    (entry & 0xfff, (entry >> 12) & 0xfff, entry >> 24)
}

/// The pair table of codewords from `first` then `second`; symbols equal to
/// `exclude` (the escape codeword, followed by a raw symbol) or above the
/// 12 bits an entry holds (ranks of more than 4095 MFVs) are left out.
pub(super) fn pair_table(first: &CanonicalCode, second: &CanonicalCode, exclude: Option<u32>) -> Vec<PairEntry> {
    let mut table = vec![0; 1 << PAIR_BITS];
    let usable = |(symbol, _, _): &(u32, u32, u8)| Some(*symbol) != exclude && *symbol < 1 << 12;
    for (s1, c1, l1) in first.by_length().filter(usable) {
        let l1 = l1 as u32;
        if l1 >= PAIR_BITS {
            break;
        }
        for (s2, c2, l2) in second.by_length().filter(usable) {
            let len = l1 + l2 as u32;
            if len > PAIR_BITS {
                break;
            }
            // Prefix-free codes: the ranges of distinct pairs are disjoint.
            let shift = PAIR_BITS - len;
            let start = (((c1 << l2) | c2) << shift) as usize;
            table[start..start + (1 << shift)].fill(s1 | s2 << 12 | len << 24);
        }
    }
    table
}
