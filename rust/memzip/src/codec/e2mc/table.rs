//! The E2MC code table (what the compressor's c-LUT and the decompressor's
//! FCW/offset/De-LUT tables are built from) and the value frequency sampler
//! that produces it.
//!
//! A table stores code *lengths* only: the canonical assignment (by length,
//! then symbol) rebuilds the exact codes, as in the paper where the code
//! generator writes the lengths-derived tables into the (de)compressor.
//!
//! * 4- and 8-bit symbols (Section III-E): one code per symbol *position* in a
//!   32-bit word (8 positions for 4-bit, 4 for 8-bit), each over all
//!   `2^symbol_bits` values. Position `k` is bits `[k*SL, (k+1)*SL)` of the
//!   little-endian 32-bit word, so for 8-bit symbols position `k` is byte `k`.
//! * 16- and 32-bit symbols (Section III-B2b/c): the K most frequent values
//!   (MFVs) plus one escape codeword; a value outside the MFVs is stored as
//!   the escape code followed by the raw symbol. The MFV list is sorted by
//!   value; its canonical symbol index is its rank, and the escape is the last
//!   symbol index (it follows every MFV of its length in canonical order).
//!
//! JSON shapes (serde): `{"symbol_bits":8,"position_lengths":[[...256 lengths],
//! ... 4 lists]}` and `{"symbol_bits":16,"mfv":[{"value":0,"length":1}, ...],
//! "escape_length":3}`. Unknown fields are rejected.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use serde::{Deserialize, Serialize};

use super::huffman::{kraft_scaled, limited_lengths, CodeError, MAX_CODE_LEN};
use super::word_counts::WordCounts;
use crate::error::ConfigError;

/// Symbol lengths E2MC evaluates (Section III-B1).
pub const SYMBOL_BITS: [u32; 4] = [4, 8, 16, 32];
/// The paper's word size for per-position codes (Section III-E).
pub const WORD_BITS: u32 = 32;
/// The paper's choice of MFV count (Section III-B2b, Figure 4a).
pub const DEFAULT_MFV: usize = 1024;
/// Largest MFV count accepted (every 16-bit value).
pub const MAX_MFV: usize = 1 << 16;

/// Longest codeword for a symbol length (Section III-B2c): 8, 16, 20, 20.
pub fn max_code_length(symbol_bits: u32) -> u8 {
    match symbol_bits {
        4 => 8,
        8 => 16,
        _ => 20,
    }
}

/// Separate codes per symbol position for 4/8-bit symbols; one code otherwise.
pub fn positions_per_word(symbol_bits: u32) -> usize {
    if uses_mfv(symbol_bits) {
        1
    } else {
        (WORD_BITS / symbol_bits) as usize
    }
}

/// 16- and 32-bit symbols are coded through an MFV table plus escape.
pub fn uses_mfv(symbol_bits: u32) -> bool {
    symbol_bits >= 16
}

fn check_symbol_bits(knob: &str, symbol_bits: u32) -> Result<(), ConfigError> {
    if SYMBOL_BITS.contains(&symbol_bits) {
        Ok(())
    } else {
        Err(ConfigError::new(knob, symbol_bits.to_string(), "4, 8, 16 or 32"))
    }
}

/// The symbols of a block in stream order: 32-bit little-endian words in
/// address order, and within a word positions 0, 1, ... (least significant
/// first). Symbol `i` has position `i % positions_per_word`. Trailing bytes
/// that do not fill a word are ignored (blocks are 32, 64 or 128 bytes).
pub fn symbols_of(block: &[u8], symbol_bits: u32) -> impl Iterator<Item = u32> + '_ {
    let per_word = (WORD_BITS / symbol_bits) as usize;
    let mask = if symbol_bits == 32 { u32::MAX } else { (1u32 << symbol_bits) - 1 };
    block.chunks_exact(4).flat_map(move |chunk| {
        let word = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        (0..per_word).map(move |k| (word >> (k as u32 * symbol_bits)) & mask)
    })
}

/// Calls `count(value, run)` for each run of equal 32-bit little-endian
/// words of `block`, in order. Counting a run with one map update instead
/// of one per word (zero runs, fills and repeated values are common in
/// DRAM blocks) gives the same counts, and new values reach the map in the
/// same order, so a hash map's layout and iteration order are unchanged too.
#[inline]
pub fn for_each_word_run(block: &[u8], mut count: impl FnMut(u32, u64)) {
    let mut words = block.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]));
    let Some(first) = words.next() else {
        return;
    };
    let (mut value, mut run) = (first, 1u64);
    for word in words {
        if word == value {
            run += 1;
        } else {
            count(value, run);
            (value, run) = (word, 1);
        }
    }
    count(value, run);
}

/// One most-frequent value and its code length.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MfvEntry {
    pub value: u32,
    pub length: u8,
}

/// Code lengths from which the canonical E2MC code is rebuilt exactly.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CodeTable {
    /// 4, 8, 16 or 32.
    pub symbol_bits: u32,
    /// 4/8-bit: per position, the code length of every symbol value.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub position_lengths: Vec<Vec<u8>>,
    /// 16/32-bit: the MFVs, sorted by value, with their code lengths.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mfv: Vec<MfvEntry>,
    /// 16/32-bit: length of the escape codeword that prefixes raw symbols.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub escape_length: Option<u8>,
}

impl CodeTable {
    /// A 4/8-bit table from per-position lengths (validated).
    pub fn per_position(symbol_bits: u32, position_lengths: Vec<Vec<u8>>) -> Result<Self, ConfigError> {
        let table = CodeTable { symbol_bits, position_lengths, mfv: Vec::new(), escape_length: None };
        table.validate()?;
        Ok(table)
    }

    /// A 16/32-bit table from MFVs (any order; stored sorted) and the escape length.
    pub fn with_mfv(symbol_bits: u32, mut mfv: Vec<MfvEntry>, escape_length: u8) -> Result<Self, ConfigError> {
        mfv.sort_by_key(|e| e.value);
        let table = CodeTable { symbol_bits, position_lengths: Vec::new(), mfv, escape_length: Some(escape_length) };
        table.validate()?;
        Ok(table)
    }

    /// Parses and validates a table; errors name the field that is wrong.
    pub fn from_json(text: &str) -> Result<Self, ConfigError> {
        let table: CodeTable = serde_json::from_str(text).map_err(|e| {
            ConfigError::new(
                "e2mc code table JSON",
                e.to_string(),
                "{\"symbol_bits\":4|8, \"position_lengths\":[[...]]} or \
                 {\"symbol_bits\":16|32, \"mfv\":[{\"value\":..,\"length\":..}], \"escape_length\":..}",
            )
        })?;
        table.validate()?;
        Ok(table)
    }

    pub fn to_json(&self) -> String {
        // Serialising plain integers and vectors cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Number of separate codes (positions); 1 for MFV tables.
    pub fn code_count(&self) -> usize {
        positions_per_word(self.symbol_bits)
    }

    /// Lengths over the canonical symbol indices of code `position`: symbol
    /// values for 4/8-bit; MFV ranks then the escape for 16/32-bit.
    pub fn code_lengths(&self, position: usize) -> Vec<u8> {
        if uses_mfv(self.symbol_bits) {
            self.mfv.iter().map(|e| e.length).chain(self.escape_length).collect()
        } else {
            self.position_lengths.get(position).cloned().unwrap_or_default()
        }
    }

    /// Checks the table describes a valid E2MC code: right shape, every
    /// symbol codable, lengths within the paper's cap, Kraft sum <= 1.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let bits = self.symbol_bits;
        check_symbol_bits("e2mc table symbol_bits", bits)?;
        if uses_mfv(bits) {
            self.validate_mfv()
        } else {
            self.validate_positions()
        }
    }

    /// The MFV form (16- and 32-bit symbols): sorted values that fit the symbol, an escape code,
    /// and lengths that make a prefix code.
    fn validate_mfv(&self) -> Result<(), ConfigError> {
        let bits = self.symbol_bits;
        let (length_ok, expected_len) = length_rule(bits);
        if !self.position_lengths.is_empty() {
            return Err(ConfigError::new(
                "e2mc table position_lengths",
                "present",
                format!("absent for {bits}-bit symbols (they use mfv + escape_length)"),
            ));
        }
        let escape = self.escape_length.ok_or_else(|| {
            ConfigError::new("e2mc table escape_length", "missing", format!("{expected_len} for {bits}-bit symbols"))
        })?;
        if !length_ok(escape) {
            return Err(ConfigError::new("e2mc table escape_length", escape.to_string(), expected_len));
        }
        for (i, e) in self.mfv.iter().enumerate() {
            if bits < 32 && e.value >> bits != 0 {
                return Err(ConfigError::new(
                    format!("e2mc table mfv[{i}].value"),
                    e.value.to_string(),
                    format!("a {bits}-bit value"),
                ));
            }
            if !length_ok(e.length) {
                return Err(ConfigError::new(
                    format!("e2mc table mfv[{i}].length"),
                    e.length.to_string(),
                    expected_len,
                ));
            }
            if i > 0 && self.mfv[i - 1].value >= e.value {
                return Err(ConfigError::new(
                    format!("e2mc table mfv[{i}].value"),
                    e.value.to_string(),
                    "values sorted ascending without duplicates",
                ));
            }
        }
        check_kraft("e2mc table mfv + escape_length", &self.code_lengths(0))
    }

    /// The per-position form (4- and 8-bit symbols): one complete prefix code per position.
    fn validate_positions(&self) -> Result<(), ConfigError> {
        let bits = self.symbol_bits;
        let (length_ok, expected_len) = length_rule(bits);
        if !self.mfv.is_empty() || self.escape_length.is_some() {
            return Err(ConfigError::new(
                "e2mc table mfv/escape_length",
                "present",
                format!("absent for {bits}-bit symbols (they use position_lengths)"),
            ));
        }
        let positions = positions_per_word(bits);
        if self.position_lengths.len() != positions {
            return Err(ConfigError::new(
                "e2mc table position_lengths",
                format!("{} lists", self.position_lengths.len()),
                format!("{positions} lists (one per {bits}-bit position in a 32-bit word)"),
            ));
        }
        for (p, lengths) in self.position_lengths.iter().enumerate() {
            if lengths.len() != 1 << bits {
                return Err(ConfigError::new(
                    format!("e2mc table position_lengths[{p}]"),
                    format!("{} lengths", lengths.len()),
                    format!("{} lengths (one per {bits}-bit value)", 1u32 << bits),
                ));
            }
            if let Some(v) = lengths.iter().position(|&l| !length_ok(l)) {
                return Err(ConfigError::new(
                    format!("e2mc table position_lengths[{p}][{v}]"),
                    lengths[v].to_string(),
                    expected_len,
                ));
            }
            check_kraft(&format!("e2mc table position_lengths[{p}]"), lengths)?;
        }
        Ok(())
    }
}

/// Which code lengths a table may hold for `bits`-bit symbols, and the rule in words for errors.
fn length_rule(bits: u32) -> (impl Fn(u8) -> bool, String) {
    let cap = max_code_length(bits);
    (move |l: u8| (1..=cap).contains(&l), format!("a code length in 1..={cap} (every symbol needs a code)"))
}

fn check_kraft(knob: &str, lengths: &[u8]) -> Result<(), ConfigError> {
    let scaled = kraft_scaled(lengths);
    if scaled <= 1 << MAX_CODE_LEN {
        Ok(())
    } else {
        Err(ConfigError::new(
            knob,
            format!("Kraft sum {:.4}", scaled as f64 / (1u64 << MAX_CODE_LEN) as f64),
            "lengths with sum of 2^-length at most 1 (a prefix code)",
        ))
    }
}

/// A fast hasher for 32-bit symbol values (SipHash would dominate sampling
/// and 32-bit encoding time). Not DoS-resistant, which is fine for traces.
#[derive(Debug, Default, Clone, Copy)]
pub struct WordHasher(u64);

impl Hasher for WordHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u32(&mut self, value: u32) {
        self.0 = (self.0 ^ value as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }

    fn finish(&self) -> u64 {
        // Fold the well-mixed high half into the low bits the table indexes by.
        self.0 ^ (self.0 >> 32)
    }
}

/// A map keyed by 32-bit symbol values.
pub type WordMap<V> = HashMap<u32, V, BuildHasherDefault<WordHasher>>;

#[derive(Debug, Clone)]
enum Counts {
    /// 4/8-bit: count per position per value.
    PerPosition(Vec<Vec<u64>>),
    /// 16-bit: count per value.
    Dense(Vec<u64>),
    /// 32-bit: count per value seen.
    Sparse(WordCounts),
}

/// The value frequency table of the sampling phase (Section III-B2b): feed
/// it blocks, then build a code table.
///
/// For 4/8-bit symbols it counts every value per position, as the paper's
/// VFT does. For 16/32-bit symbols the hardware VFT keeps only the MFVs;
/// this software sampler counts every distinct value exactly (memory grows
/// with the number of distinct values) so the MFVs it picks are the true top
/// K and the Shannon bound can cover all values.
#[derive(Debug, Clone)]
pub struct Sampler {
    symbol_bits: u32,
    symbols: u64,
    counts: Counts,
}

impl Sampler {
    pub fn new(symbol_bits: u32) -> Result<Self, ConfigError> {
        check_symbol_bits("e2mc symbol_bits", symbol_bits)?;
        let counts = match symbol_bits {
            4 | 8 => Counts::PerPosition(vec![vec![0; 1 << symbol_bits]; positions_per_word(symbol_bits)]),
            16 => Counts::Dense(vec![0; 1 << 16]),
            _ => Counts::Sparse(WordCounts::default()),
        };
        Ok(Sampler { symbol_bits, symbols: 0, counts })
    }

    pub fn symbol_bits(&self) -> u32 {
        self.symbol_bits
    }

    /// Symbols counted so far.
    pub fn symbols(&self) -> u64 {
        self.symbols
    }

    /// Records the symbols of one block (any whole number of 32-bit words).
    pub fn feed(&mut self, block: &[u8]) {
        let bits = self.symbol_bits;
        let per_word = (WORD_BITS / bits) as usize;
        self.symbols += (block.len() / 4 * per_word) as u64;
        match &mut self.counts {
            Counts::PerPosition(tables) => {
                // Word by word, position by position: no division per symbol.
                let mask = (1u32 << bits) - 1;
                for chunk in block.chunks_exact(4) {
                    let word = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
                    for (k, table) in tables.iter_mut().enumerate() {
                        table[((word >> (k as u32 * bits)) & mask) as usize] += 1;
                    }
                }
            }
            Counts::Dense(counts) => {
                for chunk in block.chunks_exact(2) {
                    counts[u16::from_le_bytes([chunk[0], chunk[1]]) as usize] += 1;
                }
            }
            Counts::Sparse(counts) => counts.add_words(block),
        }
    }

    /// Counts of every value seen (positions merged), in no set order.
    pub fn value_counts(&self) -> Vec<u64> {
        match &self.counts {
            Counts::PerPosition(tables) => {
                let mut merged = vec![0u64; 1 << self.symbol_bits];
                for table in tables {
                    merged.iter_mut().zip(table).for_each(|(m, c)| *m += c);
                }
                merged.retain(|&c| c > 0);
                merged
            }
            Counts::Dense(counts) => counts.iter().copied().filter(|&c| c > 0).collect(),
            Counts::Sparse(counts) => counts.pairs().into_iter().map(|(_, c)| c).collect(),
        }
    }

    /// Per-position value counts for 4/8-bit symbols; `None` for 16/32-bit.
    pub fn position_counts(&self) -> Option<&[Vec<u64>]> {
        match &self.counts {
            Counts::PerPosition(tables) => Some(tables),
            _ => None,
        }
    }

    /// Distinct (value) pairs seen with their counts, for 16/32-bit symbols.
    fn value_count_pairs(&self) -> Vec<(u32, u64)> {
        match &self.counts {
            Counts::PerPosition(_) => Vec::new(),
            Counts::Dense(counts) => {
                counts.iter().enumerate().filter(|&(_, &c)| c > 0).map(|(v, &c)| (v as u32, c)).collect()
            }
            Counts::Sparse(counts) => counts.pairs(),
        }
    }

    /// Builds the code table (Section III-B2c) with length-limited lengths.
    ///
    /// 4/8-bit: every value gets frequency `count + 1` (add-one smoothing) so
    /// values never seen while sampling still have a (long) code.
    /// 16/32-bit: the `mfv` most frequent values (ties: smaller value first)
    /// get codes; the escape gets the combined count of all other values,
    /// at least 1 so unseen values are always encodable.
    pub fn build_table(&self, mfv: usize) -> Result<CodeTable, ConfigError> {
        let bits = self.symbol_bits;
        let cap = max_code_length(bits);
        let internal = |e: CodeError| ConfigError::new("e2mc code generation", e.to_string(), "a sample the code fits");
        if !uses_mfv(bits) {
            let Counts::PerPosition(tables) = &self.counts else {
                return Err(ConfigError::new(
                    "e2mc code generation",
                    "sampler shape does not match symbol length",
                    "a sample the code fits",
                ));
            };
            let lengths = tables
                .iter()
                .map(|counts| {
                    let smoothed: Vec<u64> = counts.iter().map(|&c| c.saturating_add(1)).collect();
                    limited_lengths(&smoothed, cap).map_err(internal)
                })
                .collect::<Result<Vec<_>, _>>()?;
            return CodeTable::per_position(bits, lengths);
        }
        if !(1..=MAX_MFV).contains(&mfv) {
            return Err(ConfigError::new("e2mc mfv", mfv.to_string(), format!("an integer in 1..={MAX_MFV}")));
        }
        let mut pairs = self.value_count_pairs();
        let by_frequency = |a: &(u32, u64), b: &(u32, u64)| b.1.cmp(&a.1).then(a.0.cmp(&b.0));
        if pairs.len() > mfv {
            pairs.select_nth_unstable_by(mfv - 1, by_frequency);
            pairs.truncate(mfv);
        }
        pairs.sort_unstable_by_key(|&(v, _)| v);
        let covered: u64 = pairs.iter().map(|&(_, c)| c).sum();
        let escape = self.symbols.saturating_sub(covered).max(1);
        let freqs: Vec<u64> = pairs.iter().map(|&(_, c)| c).chain([escape]).collect();
        let lengths = limited_lengths(&freqs, cap).map_err(internal)?;
        let entries = pairs.iter().zip(&lengths).map(|(&(value, _), &length)| MfvEntry { value, length }).collect();
        CodeTable::with_mfv(bits, entries, lengths[lengths.len() - 1])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbols_follow_little_endian_positions() {
        let block = [0x21u8, 0x43, 0x65, 0x87];
        assert_eq!(symbols_of(&block, 4).collect::<Vec<_>>(), vec![1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(symbols_of(&block, 8).collect::<Vec<_>>(), vec![0x21, 0x43, 0x65, 0x87]);
        assert_eq!(symbols_of(&block, 16).collect::<Vec<_>>(), vec![0x4321, 0x8765]);
        assert_eq!(symbols_of(&block, 32).collect::<Vec<_>>(), vec![0x8765_4321]);
    }

    #[test]
    fn word_runs_cover_every_word_in_order() {
        let words = [0u32, 0, 0, 5, 5, 0, 7, 7, 7, 7];
        let block: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let mut runs = Vec::new();
        for_each_word_run(&block, |value, run| runs.push((value, run)));
        assert_eq!(runs, vec![(0, 3), (5, 2), (0, 1), (7, 4)]);
        for_each_word_run(&[], |_, _| panic!("no words"));
    }

    #[test]
    fn json_round_trips_and_has_the_documented_shape() {
        let table =
            CodeTable::with_mfv(16, vec![MfvEntry { value: 0xffff, length: 2 }, MfvEntry { value: 0, length: 1 }], 2)
                .unwrap();
        let json = table.to_json();
        assert_eq!(
            json,
            r#"{"symbol_bits":16,"mfv":[{"value":0,"length":1},{"value":65535,"length":2}],"escape_length":2}"#
        );
        assert_eq!(CodeTable::from_json(&json).unwrap(), table);
        let four = CodeTable::per_position(4, vec![vec![4; 16]; 8]).unwrap();
        assert!(four.to_json().starts_with(r#"{"symbol_bits":4,"position_lengths":[[4,4,"#));
        assert_eq!(CodeTable::from_json(&four.to_json()).unwrap(), four);
    }

    #[test]
    fn malformed_tables_name_the_problem() {
        let err = |json: &str| CodeTable::from_json(json).unwrap_err();
        assert_eq!(err("{").knob, "e2mc code table JSON");
        assert!(err(r#"{"symbol_bits":16,"mfv":[],"escape_length":1,"extra":1}"#).value.contains("extra"));
        assert_eq!(err(r#"{"symbol_bits":12}"#).knob, "e2mc table symbol_bits");
        assert_eq!(err(r#"{"symbol_bits":16,"mfv":[]}"#).knob, "e2mc table escape_length");
        assert_eq!(err(r#"{"symbol_bits":16,"escape_length":21}"#).value, "21");
        assert_eq!(
            err(r#"{"symbol_bits":16,"mfv":[{"value":70000,"length":1}],"escape_length":1}"#).knob,
            "e2mc table mfv[0].value"
        );
        assert_eq!(
            err(r#"{"symbol_bits":32,"mfv":[{"value":5,"length":1},{"value":5,"length":2}],"escape_length":2}"#).knob,
            "e2mc table mfv[1].value"
        );
        assert!(err(r#"{"symbol_bits":32,"mfv":[{"value":5,"length":1}],"escape_length":1,"x":0}"#)
            .value
            .contains("unknown field"));
        let kraft =
            err(r#"{"symbol_bits":32,"mfv":[{"value":5,"length":1},{"value":6,"length":1}],"escape_length":1}"#);
        assert!(kraft.value.starts_with("Kraft sum 1.5"), "{kraft}");
        assert_eq!(err(r#"{"symbol_bits":8,"position_lengths":[]}"#).value, "0 lists");
        let mut zero = vec![vec![8u8; 256]; 4];
        zero[2][7] = 0;
        let json = serde_json::to_string(&CodeTable {
            symbol_bits: 8,
            position_lengths: zero,
            mfv: vec![],
            escape_length: None,
        })
        .unwrap();
        assert_eq!(err(&json).knob, "e2mc table position_lengths[2][7]");
        assert_eq!(err(r#"{"symbol_bits":4,"escape_length":3}"#).knob, "e2mc table mfv/escape_length");
    }

    #[test]
    fn smoothing_gives_unseen_values_codes() {
        let mut sampler = Sampler::new(8).unwrap();
        for _ in 0..40 {
            sampler.feed(&[0u8; 128]);
        }
        let table = sampler.build_table(DEFAULT_MFV).unwrap();
        for lengths in &table.position_lengths {
            // 1281 of 1536 smoothed counts: the sampled value gets 1 bit.
            assert_eq!(lengths[0], 1);
            assert!(lengths.iter().all(|&l| (1..=16).contains(&l)));
            assert_eq!(kraft_scaled(lengths), 1 << MAX_CODE_LEN);
        }
    }

    #[test]
    fn mfv_table_keeps_the_most_frequent_values() {
        let mut sampler = Sampler::new(32).unwrap();
        let mut block = Vec::new();
        for v in [7u32, 7, 7, 7, 9, 9, 9, 1, 1, 2, 3, 4, 5, 6, 8, 10] {
            block.extend_from_slice(&v.to_le_bytes());
        }
        sampler.feed(&block);
        assert_eq!(sampler.symbols(), 16);
        let table = sampler.build_table(3).unwrap();
        // Top 3 by count: 7 (4), 9 (3), 1 (2); the other 7 values escape.
        assert_eq!(table.mfv.iter().map(|e| e.value).collect::<Vec<_>>(), vec![1, 7, 9]);
        // Frequencies 2, 4, 3 and escape 7: Huffman merges 2+3=5, 4+5=9,
        // 7+9=16, so the escape gets 1 bit, value 7 2 bits, values 1 and 9 3.
        assert_eq!(table.mfv.iter().map(|e| e.length).collect::<Vec<_>>(), vec![3, 2, 3]);
        assert_eq!(table.escape_length, Some(1));
        assert!(sampler.build_table(0).is_err());
    }

    #[test]
    fn empty_sample_still_builds_usable_tables() {
        for bits in SYMBOL_BITS {
            let table = Sampler::new(bits).unwrap().build_table(DEFAULT_MFV).unwrap();
            table.validate().unwrap();
            if uses_mfv(bits) {
                assert!(table.mfv.is_empty());
                assert_eq!(table.escape_length, Some(1));
            } else {
                assert!(table.position_lengths.iter().flatten().all(|&l| l as u32 == bits));
            }
        }
    }
}
