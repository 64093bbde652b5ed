//! The Shannon bound of the analysed blocks per symbol length (the E2MC paper
//! Section V-A), computed while streaming.
//!
//! 4-, 8- and 16-bit symbols are counted with E2MC's own [`Sampler`] (fixed
//! size tables: at most 64 Ki counters). 32-bit symbols need one counter per
//! distinct value, which grows with the data, so they are counted here with
//! a cap on distinct values: once a block would take the count past the cap,
//! counting stops and the bound covers the blocks before it (`complete` is
//! false). That keeps `analyze`'s memory bounded whatever the trace size.

use memzip::codec::e2mc::entropy::entropy_bits;
use memzip::codec::e2mc::table::{for_each_word_run, WordMap};
use memzip::codec::e2mc::{Sampler, ShannonBound};
use serde::Serialize;

use crate::error::AnalyzeError;

/// Symbol lengths E2MC evaluates.
pub const SYMBOL_BITS: [u32; 4] = [4, 8, 16, 32];
/// Default cap on distinct 32-bit values: a hash map of 2^20 `(u32, u64)`
/// counters peaks at about 60 MB while it grows.
pub const DEFAULT_MAX_DISTINCT: usize = 1 << 20;

/// The bound at one symbol length.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ShannonResult {
    #[serde(flatten)]
    pub bound: ShannonBound,
    /// Analysed blocks the bound covers.
    pub blocks: u64,
    /// False when the distinct-value cap stopped counting early (32-bit).
    pub complete: bool,
}

impl ShannonResult {
    fn from_bound(bound: ShannonBound, blocks: u64, complete: bool) -> Self {
        ShannonResult { bound, blocks, complete }
    }
}

enum Counter {
    Sampler(Box<Sampler>),
    /// 32-bit values with their counts, up to `max_distinct` of them.
    Words {
        counts: WordMap<u64>,
        symbols: u64,
        max_distinct: usize,
        full: bool,
    },
}

/// Counts the symbols of blocks at one symbol length.
pub struct ShannonRun {
    symbol_bits: u32,
    blocks: u64,
    counter: Counter,
}

impl ShannonRun {
    pub fn new(symbol_bits: u32, max_distinct: usize) -> Result<Self, AnalyzeError> {
        let counter = match symbol_bits {
            32 => Counter::Words { counts: WordMap::default(), symbols: 0, max_distinct, full: false },
            _ => Counter::Sampler(Box::new(Sampler::new(symbol_bits).map_err(AnalyzeError::config)?)),
        };
        Ok(ShannonRun { symbol_bits, blocks: 0, counter })
    }

    pub fn feed(&mut self, block: &[u8]) {
        match &mut self.counter {
            Counter::Sampler(sampler) => sampler.feed(block),
            Counter::Words { full: true, .. } => return,
            Counter::Words { counts, symbols, max_distinct, full } => {
                // A block adds at most one new value per word: check first
                // so the cap holds exactly and the covered blocks are whole.
                if counts.len() + block.len() / 4 > *max_distinct {
                    *full = true;
                    return;
                }
                for_each_word_run(block, |value, run| {
                    *counts.entry(value).or_insert(0) += run;
                    *symbols += run;
                });
            }
        }
        self.blocks += 1;
    }

    pub fn finish(self) -> ShannonResult {
        match self.counter {
            Counter::Sampler(sampler) => {
                ShannonResult::from_bound(ShannonBound::of_sampler(&sampler), self.blocks, true)
            }
            Counter::Words { counts, symbols, full, .. } => {
                let values: Vec<u64> = counts.values().copied().collect();
                let entropy = entropy_bits(&values);
                // As the library's bound: 1 for no data, infinite for constant data.
                let ratio = if symbols == 0 {
                    1.0
                } else if entropy == 0.0 {
                    f64::INFINITY
                } else {
                    self.symbol_bits as f64 / entropy
                };
                let bound = ShannonBound {
                    symbol_bits: self.symbol_bits,
                    symbols,
                    distinct: values.len() as u64,
                    entropy_bits: entropy,
                    ideal_ratio: ratio,
                    positional_entropy_bits: entropy,
                    positional_ideal_ratio: ratio,
                };
                ShannonResult::from_bound(bound, self.blocks, !full)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use memzip::codec::e2mc::shannon_bound;

    fn blocks() -> Vec<Vec<u8>> {
        (0..50u32).map(|i| (0..32u32).flat_map(|w| (w * (i % 7) + i / 3).to_le_bytes()).collect()).collect()
    }

    #[test]
    fn matches_the_library_bound_at_every_length() {
        let blocks = blocks();
        for bits in SYMBOL_BITS {
            let mut run = ShannonRun::new(bits, DEFAULT_MAX_DISTINCT).unwrap();
            blocks.iter().for_each(|b| run.feed(b));
            let got = run.finish();
            let expected = shannon_bound(blocks.iter().map(Vec::as_slice), bits).unwrap();
            assert_eq!(got, ShannonResult::from_bound(expected, 50, true), "{bits}-bit");
        }
    }

    #[test]
    fn the_distinct_cap_covers_whole_leading_blocks() {
        let blocks = blocks();
        let mut run = ShannonRun::new(32, 40).unwrap();
        blocks.iter().for_each(|b| run.feed(b));
        let got = run.finish();
        assert!(!got.complete);
        assert!(got.bound.distinct <= 40, "{got:?}");
        let covered = &blocks[..got.blocks as usize];
        let expected = shannon_bound(covered.iter().map(Vec::as_slice), 32).unwrap();
        assert_eq!(got, ShannonResult::from_bound(expected, got.blocks, false));
        // One more block would have crossed the cap.
        assert!(got.blocks >= 1 && got.blocks < 50);
    }
}
