//! Length-limited Huffman code lengths (package-merge) and canonical codes
//! with table-driven decoding.
//!
//! E2MC caps code lengths (8/16/20/20 bits for 4/8/16/32-bit symbols,
//! Section III-B2c) so the hardware decoder compares at most `maxCL` bits.
//! The paper reaches the cap by raising rare symbols' frequencies; we compute
//! the *optimal* lengths under the cap with Larmore and Hirschberg's
//! package-merge, which never does worse than that heuristic. Codes are then
//! assigned canonically (Section III-B2c): sorted by length, then by symbol
//! index, codes of one length are consecutive integers, and the decoder only
//! needs the first code and the count of each length (Section III-F).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Longest code [`CanonicalCode`] accepts; E2MC's longest cap is 20 bits.
pub const MAX_CODE_LEN: u8 = 24;

/// Codes up to this long decode with a single table lookup; longer ones fall
/// back to comparing against the per-length limits (still no tree walk).
const FAST_BITS: u8 = 10;

/// Why code lengths cannot make a code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodeError {
    /// More coded symbols than codes of at most `max_len` bits can name.
    TooManySymbolsForLength { symbols: usize, max_len: u8 },
    /// 2^24 symbols or more.
    TooManySymbols(usize),
    /// A length beyond [`MAX_CODE_LEN`].
    LengthTooLong(u8),
    /// No symbol has a code.
    NoCode,
    /// The lengths violate Kraft's inequality: no prefix code has them.
    NotAPrefixCode,
}

impl std::fmt::Display for CodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CodeError::TooManySymbolsForLength { symbols, max_len } => {
                write!(f, "{symbols} symbols cannot all get codes of at most {max_len} bits")
            }
            CodeError::TooManySymbols(n) => write!(f, "{n} symbols is too many"),
            CodeError::LengthTooLong(len) => write!(f, "code length {len} exceeds {MAX_CODE_LEN}"),
            CodeError::NoCode => write!(f, "no symbol has a code"),
            CodeError::NotAPrefixCode => {
                write!(f, "code lengths violate Kraft's inequality (sum of 2^-length exceeds 1)")
            }
        }
    }
}

impl std::error::Error for CodeError {}

/// Optimal code lengths with no code longer than `max_len`.
///
/// Symbols with frequency 0 get length 0 (no code). A lone symbol gets a
/// 1-bit code, so every code has at least one bit. With two or more coded
/// symbols the code is complete (Kraft sum exactly 1). Errors if more
/// symbols have a non-zero frequency than `2^max_len` codes can name.
pub fn limited_lengths(freqs: &[u64], max_len: u8) -> Result<Vec<u8>, CodeError> {
    let mut lengths = vec![0u8; freqs.len()];
    // Leaves sorted by (weight, symbol) so ties break deterministically.
    let mut leaves: Vec<(u128, usize)> =
        freqs.iter().enumerate().filter(|&(_, &f)| f > 0).map(|(s, &f)| (f as u128, s)).collect();
    leaves.sort_unstable();
    let n = leaves.len();
    if n == 0 {
        return Ok(lengths);
    }
    if max_len == 0 || max_len > MAX_CODE_LEN || (n as u128) > (1u128 << max_len) {
        return Err(CodeError::TooManySymbolsForLength { symbols: n, max_len });
    }
    if n == 1 {
        lengths[leaves[0].1] = 1;
        return Ok(lengths);
    }

    // Package-merge as the coin collector's problem: list 0 holds the coins
    // of denomination 2^-max_len (the leaves); list `d` is the leaves merged
    // with the packages (consecutive pairs) of list `d - 1`. A list is kept
    // only as its sequence of kinds (leaf or package): leaves keep their
    // sorted order in every list, and package `j` holds items 2j and 2j+1 of
    // the list below, so kinds alone reconstruct the solution. Memory is
    // max_len * 2n bytes plus one list of weights.
    let leaf_weights: Vec<u128> = leaves.iter().map(|&(w, _)| w).collect();
    let mut is_package: Vec<Vec<bool>> = Vec::with_capacity(max_len as usize);
    is_package.push(vec![false; n]);
    let mut weights = leaf_weights.clone();
    for _ in 1..max_len {
        let packages: Vec<u128> = weights.chunks_exact(2).map(|pair| pair[0] + pair[1]).collect();
        let (merged, kinds) = merge_by_weight(&leaf_weights, &packages);
        weights = merged;
        is_package.push(kinds);
    }

    // The optimal solution takes the 2n-2 lightest items of the top list.
    // Selected items of every list form a prefix (lists are sorted and a
    // package's children are consecutive), so each level only needs the
    // number of selected packages to know the prefix one level down. The
    // leaves in a prefix are the lightest ones, and every occurrence of a
    // leaf adds one bit to its symbol's code length.
    let mut selected = 2 * n - 2;
    for kinds in is_package.iter().rev() {
        let prefix = &kinds[..selected.min(kinds.len())];
        let packages = prefix.iter().filter(|&&p| p).count();
        for &(_, symbol) in &leaves[..prefix.len() - packages] {
            lengths[symbol] += 1;
        }
        selected = 2 * packages;
    }
    Ok(lengths)
}

/// Merges two weight-sorted lists (leaves first on equal weight); returns
/// the merged weights and, per item, whether it is a package.
fn merge_by_weight(leaves: &[u128], packages: &[u128]) -> (Vec<u128>, Vec<bool>) {
    let total = leaves.len() + packages.len();
    let (mut weights, mut kinds) = (Vec::with_capacity(total), Vec::with_capacity(total));
    let (mut l, mut p) = (0, 0);
    while l < leaves.len() || p < packages.len() {
        let take_leaf = p == packages.len() || (l < leaves.len() && leaves[l] <= packages[p]);
        if take_leaf {
            weights.push(leaves[l]);
            l += 1;
        } else {
            weights.push(packages[p]);
            p += 1;
        }
        kinds.push(!take_leaf);
    }
    (weights, kinds)
}

/// Unlimited Huffman lengths (min-heap construction, as the paper's [20]):
/// the reference package-merge must match when the cap does not bind.
pub fn huffman_lengths(freqs: &[u64]) -> Vec<u8> {
    let mut lengths = vec![0u8; freqs.len()];
    // Each heap entry is a subtree: (weight, id); members[id] lists its symbols.
    let mut members: Vec<Vec<usize>> = Vec::new();
    let mut heap = BinaryHeap::new();
    for (symbol, &f) in freqs.iter().enumerate().filter(|&(_, &f)| f > 0) {
        heap.push(Reverse((f as u128, members.len())));
        members.push(vec![symbol]);
    }
    if heap.len() == 1 {
        lengths[members[0][0]] = 1;
        return lengths;
    }
    while let (Some(Reverse((wa, a))), Some(Reverse((wb, b)))) = (heap.pop(), heap.pop()) {
        let mut merged = std::mem::take(&mut members[a]);
        merged.append(&mut members[b]);
        for &s in &merged {
            lengths[s] += 1;
        }
        heap.push(Reverse((wa + wb, members.len())));
        members.push(merged);
    }
    lengths
}

/// Kraft sum of `lengths` (ignoring length 0 = no code) scaled by `2^MAX_CODE_LEN`.
pub fn kraft_scaled(lengths: &[u8]) -> u64 {
    lengths.iter().filter(|&&l| l > 0).map(|&l| 1u64 << (MAX_CODE_LEN - l.min(MAX_CODE_LEN))).sum()
}

/// A canonical prefix code over symbols `0..lengths.len()` with its encoding
/// table (code per symbol) and decoding tables (first code and symbol offset
/// per length, plus a direct lookup table for short codes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CanonicalCode {
    lengths: Vec<u8>,
    codes: Vec<u32>,
    /// Longest code length present: the decoder's window width.
    max_len: u8,
    /// Per length `l`: first canonical code of length `l`.
    first: [u32; MAX_CODE_LEN as usize + 1],
    /// Per length `l`: `(first[l] + count[l]) << (max_len - l)`, the
    /// exclusive upper end of the window values whose code has length `l`.
    limit: [u32; MAX_CODE_LEN as usize + 1],
    /// Per length `l`: index in `sorted` of the symbol with code `first[l]`.
    base: [u32; MAX_CODE_LEN as usize + 1],
    /// Symbols in canonical order (by length, then symbol).
    sorted: Vec<u32>,
    /// Indexed by the first `fast_bits` window bits: `len << 24 | symbol` for
    /// codes of at most `fast_bits` bits, 0 when the code is longer or invalid.
    fast: Vec<u32>,
    fast_bits: u8,
}

impl CanonicalCode {
    /// Builds the canonical code for per-symbol lengths (0 = symbol has no
    /// code). Errors if no symbol has a code, a length exceeds
    /// [`MAX_CODE_LEN`], there are 2^24 or more symbols, or the lengths
    /// violate Kraft's inequality (no prefix code has them).
    pub fn new(lengths: &[u8]) -> Result<Self, CodeError> {
        if lengths.len() >= 1 << 24 {
            return Err(CodeError::TooManySymbols(lengths.len()));
        }
        if let Some(&bad) = lengths.iter().find(|&&l| l > MAX_CODE_LEN) {
            return Err(CodeError::LengthTooLong(bad));
        }
        let max_len = lengths.iter().copied().max().unwrap_or(0);
        if max_len == 0 {
            return Err(CodeError::NoCode);
        }
        if kraft_scaled(lengths) > 1u64 << MAX_CODE_LEN {
            return Err(CodeError::NotAPrefixCode);
        }
        let mut count = [0u32; MAX_CODE_LEN as usize + 1];
        for &l in lengths.iter().filter(|&&l| l > 0) {
            count[l as usize] += 1;
        }
        // Paper's procedure (and DEFLATE's): the first code of each length is
        // the previous length's last code plus one, shifted left.
        let mut first = [0u32; MAX_CODE_LEN as usize + 1];
        let mut base = [0u32; MAX_CODE_LEN as usize + 1];
        let mut limit = [0u32; MAX_CODE_LEN as usize + 1];
        let (mut code, mut index) = (0u32, 0u32);
        for l in 1..=max_len as usize {
            code = (code + count[l - 1]) << 1;
            first[l] = code;
            base[l] = index;
            index += count[l];
            limit[l] = (code + count[l]) << (max_len as usize - l);
        }
        let mut sorted: Vec<u32> = (0..lengths.len() as u32).filter(|&s| lengths[s as usize] > 0).collect();
        sorted.sort_by_key(|&s| (lengths[s as usize], s));
        let mut codes = vec![0u32; lengths.len()];
        for (rank, &s) in sorted.iter().enumerate() {
            let l = lengths[s as usize] as usize;
            codes[s as usize] = first[l] + (rank as u32 - base[l]);
        }
        let fast_bits = max_len.min(FAST_BITS);
        let mut fast = vec![0u32; 1 << fast_bits];
        for &s in &sorted {
            let l = lengths[s as usize];
            if l <= fast_bits {
                let shift = fast_bits - l;
                let start = (codes[s as usize] << shift) as usize;
                fast[start..start + (1 << shift)].fill((l as u32) << 24 | s);
            }
        }
        Ok(CanonicalCode { lengths: lengths.to_vec(), codes, max_len, first, limit, base, sorted, fast, fast_bits })
    }

    /// Code length per symbol (0 = no code).
    pub fn lengths(&self) -> &[u8] {
        &self.lengths
    }

    /// The canonical code of `symbol` and its length (length 0 = no code).
    #[inline]
    pub fn code(&self, symbol: usize) -> (u32, u8) {
        (self.codes[symbol], self.lengths[symbol])
    }

    /// Every `(symbol, code, length)` in canonical order (shortest first).
    pub fn by_length(&self) -> impl Iterator<Item = (u32, u32, u8)> + '_ {
        self.sorted.iter().map(|&s| (s, self.codes[s as usize], self.lengths[s as usize]))
    }

    /// Bits the decoder looks at: the longest code length.
    pub fn max_len(&self) -> u8 {
        self.max_len
    }

    /// Decodes the symbol whose code starts `window` (the next `max_len`
    /// bits, MSB first, zero-padded past the end of the stream). Returns the
    /// symbol and its code length, or `None` if no code is a prefix of the
    /// window (possible only when the Kraft sum is below 1).
    #[inline]
    pub fn decode(&self, window: u32) -> Option<(u32, u8)> {
        let entry = self.fast[(window >> (self.max_len - self.fast_bits)) as usize];
        if entry != 0 {
            return Some((entry & 0x00ff_ffff, (entry >> 24) as u8));
        }
        // Codes of length l occupy window values [limit[l-1], limit[l]).
        for l in self.fast_bits + 1..=self.max_len {
            let l_us = l as usize;
            if window < self.limit[l_us] {
                let code = window >> (self.max_len - l);
                let rank = self.base[l_us] + (code - self.first[l_us]);
                return self.sorted.get(rank as usize).map(|&s| (s, l));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn cost(freqs: &[u64], lengths: &[u8]) -> u128 {
        freqs.iter().zip(lengths).map(|(&f, &l)| f as u128 * l as u128).sum()
    }

    fn fibonacci(n: usize) -> Vec<u64> {
        let mut f = vec![1u64, 1];
        while f.len() < n {
            f.push(f[f.len() - 1] + f[f.len() - 2]);
        }
        f
    }

    #[test]
    fn paper_example_is_canonical() {
        // Section III-B2c: B=(0), A=(10), C=(110) after canonicalisation,
        // symbols A=0, B=1, C=2 with classic lengths 2, 1, 3.
        let code = CanonicalCode::new(&[2, 1, 3]).unwrap();
        assert_eq!(code.code(1), (0b0, 1));
        assert_eq!(code.code(0), (0b10, 2));
        assert_eq!(code.code(2), (0b110, 3));
        // Section III-F: De-LUT offsets are code - index: 0, (10)-(01), (110)-(010).
        assert_eq!(code.decode(0b000), Some((1, 1)));
        assert_eq!(code.decode(0b101), Some((0, 2)));
        assert_eq!(code.decode(0b110), Some((2, 3)));
        assert_eq!(code.decode(0b111), None, "Kraft sum 7/8 leaves 111 unused");
    }

    #[test]
    fn canonical_codes_are_consecutive_and_ordered() {
        let lengths = [3u8, 2, 3, 3, 2, 4, 0, 5, 5];
        let code = CanonicalCode::new(&lengths).unwrap();
        assert_eq!(kraft_scaled(&lengths), 1 << MAX_CODE_LEN);
        let mut by_rank: Vec<usize> = (0..lengths.len()).filter(|&s| lengths[s] > 0).collect();
        by_rank.sort_by_key(|&s| (lengths[s], s));
        for pair in by_rank.windows(2) {
            let (ca, la) = code.code(pair[0]);
            let (cb, lb) = code.code(pair[1]);
            if la == lb {
                assert_eq!(cb, ca + 1, "same-length codes are consecutive");
            } else {
                assert_eq!((ca + 1) << (lb - la), cb, "a longer code follows the shorter ones");
            }
        }
        let expected =
            [(0b100, 3), (0b00, 2), (0b101, 3), (0b110, 3), (0b01, 2), (0b1110, 4), (0, 0), (0b11110, 5), (0b11111, 5)];
        for (s, &want) in expected.iter().enumerate() {
            assert_eq!(code.code(s), want, "symbol {s}");
        }
    }

    #[test]
    fn lone_symbol_gets_one_bit() {
        assert_eq!(limited_lengths(&[0, 5, 0], 8).unwrap(), vec![0, 1, 0]);
        assert_eq!(limited_lengths(&[0, 0], 8).unwrap(), vec![0, 0]);
        assert_eq!(huffman_lengths(&[0, 5]), vec![0, 1]);
    }

    #[test]
    fn too_many_symbols_for_the_cap_is_an_error() {
        assert_eq!(limited_lengths(&[1; 9], 3), Err(CodeError::TooManySymbolsForLength { symbols: 9, max_len: 3 }));
        assert_eq!(limited_lengths(&[1; 8], 3).unwrap(), vec![3; 8]);
    }

    #[test]
    fn cap_binds_on_fibonacci_frequencies() {
        let freqs = fibonacci(30);
        let plain = huffman_lengths(&freqs);
        assert_eq!(*plain.iter().max().unwrap(), 29, "plain Huffman degenerates into a chain");
        for cap in [8u8, 16, 20] {
            let lengths = limited_lengths(&freqs, cap).unwrap();
            assert_eq!(*lengths.iter().max().unwrap(), cap);
            assert_eq!(kraft_scaled(&lengths), 1 << MAX_CODE_LEN);
            assert!(cost(&freqs, &lengths) >= cost(&freqs, &plain));
        }
        // Small case checked exhaustively: 8 Fibonacci weights under a 4-bit
        // cap (plain Huffman needs 7 bits) against every length vector.
        let small = fibonacci(8);
        let best = brute_force_optimum(&small, 4);
        assert_eq!(cost(&small, &limited_lengths(&small, 4).unwrap()), best);
    }

    /// Minimum cost over all length assignments in 1..=cap with Kraft <= 1.
    fn brute_force_optimum(freqs: &[u64], cap: u8) -> u128 {
        fn go(freqs: &[u64], cap: u8, i: usize, kraft: u64, acc: u128, best: &mut u128) {
            if kraft > 1 << cap || acc >= *best {
                return;
            }
            if i == freqs.len() {
                *best = acc;
                return;
            }
            for l in 1..=cap {
                go(freqs, cap, i + 1, kraft + (1 << (cap - l)), acc + freqs[i] as u128 * l as u128, best);
            }
        }
        let mut best = u128::MAX;
        go(freqs, cap, 0, 0, 0, &mut best);
        best
    }

    #[test]
    fn decodes_long_codes_past_the_fast_table() {
        let freqs = fibonacci(20);
        let lengths = limited_lengths(&freqs, 16).unwrap();
        let code = CanonicalCode::new(&lengths).unwrap();
        assert!(code.max_len() > FAST_BITS);
        for s in 0..freqs.len() {
            let (c, l) = code.code(s);
            let window = c << (code.max_len() - l);
            assert_eq!(code.decode(window), Some((s as u32, l)));
        }
    }

    #[test]
    fn rejects_impossible_lengths() {
        assert_eq!(CanonicalCode::new(&[1, 1, 1]).err(), Some(CodeError::NotAPrefixCode));
        assert_eq!(CanonicalCode::new(&[0, 0]).err(), Some(CodeError::NoCode));
        assert_eq!(CanonicalCode::new(&[25]).err(), Some(CodeError::LengthTooLong(25)));
    }

    proptest! {
        #[test]
        fn package_merge_is_optimal_and_complete(freqs in prop::collection::vec(0u64..1000, 1..80), cap in 7u8..=20) {
            let lengths = limited_lengths(&freqs, cap).unwrap();
            let coded = freqs.iter().filter(|&&f| f > 0).count();
            prop_assert!(lengths.iter().all(|&l| l <= cap));
            for (f, l) in freqs.iter().zip(&lengths) {
                prop_assert_eq!(*f == 0, *l == 0);
            }
            if coded > 1 {
                prop_assert_eq!(kraft_scaled(&lengths), 1u64 << MAX_CODE_LEN);
            }
            let plain = huffman_lengths(&freqs);
            if plain.iter().all(|&l| l <= cap) {
                // The cap does not bind: package-merge must be as good as Huffman.
                prop_assert_eq!(cost(&freqs, &lengths), cost(&freqs, &plain));
            } else {
                prop_assert!(cost(&freqs, &lengths) > cost(&freqs, &plain));
            }
        }

        #[test]
        fn package_merge_matches_brute_force(freqs in prop::collection::vec(1u64..50, 2..7), cap in 3u8..=4) {
            prop_assert_eq!(cost(&freqs, &limited_lengths(&freqs, cap).unwrap()), brute_force_optimum(&freqs, cap));
        }

        #[test]
        fn every_code_decodes_to_its_symbol(freqs in prop::collection::vec(0u64..10_000, 2..300), cap in 9u8..=20, tail in any::<u32>()) {
            prop_assume!(freqs.iter().filter(|&&f| f > 0).count() >= 1);
            let lengths = limited_lengths(&freqs, cap).unwrap();
            let code = CanonicalCode::new(&lengths).unwrap();
            for s in (0..freqs.len()).filter(|&s| lengths[s] > 0) {
                let (c, l) = code.code(s);
                let pad = code.max_len() - l;
                let window = (c << pad) | (tail & ((1u32 << pad) - 1));
                prop_assert_eq!(code.decode(window), Some((s as u32, l)));
            }
        }
    }
}
