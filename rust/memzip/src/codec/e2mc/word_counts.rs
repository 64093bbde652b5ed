//! Exact counts of 32-bit values: the software value frequency table of
//! E2MC32's sampling phase (paper 000 Sec. III-B2b).
//!
//! Sampled words are buffered and counted in batches: a radix sort and one
//! run-length pass turn a batch into sorted (value, count) pairs, which are
//! merged into the sorted counts so far. Every pass reads and writes memory
//! in order. The hash map this replaces probed a table of up to millions of
//! distinct values at random: one cache miss per sampled word, 60% of the
//! sampling time of `memzip analyze` on Rodinia backprop's trace (perf).

/// The smallest batch: large enough that sorting it costs little per word.
const MIN_BATCH_WORDS: usize = 1 << 20;

/// Radix digit of the batch sort: three passes of 11 bits cover 32.
const DIGIT_BITS: u32 = 11;

#[derive(Debug, Clone)]
pub(crate) struct WordCounts {
    /// Words not yet counted, in sampling order.
    batch: Vec<u32>,
    /// Counted words: distinct values in ascending order, each with its count.
    counts: Vec<(u32, u64)>,
    min_batch_words: usize,
}

impl Default for WordCounts {
    fn default() -> Self {
        WordCounts::with_min_batch(MIN_BATCH_WORDS)
    }
}

impl WordCounts {
    fn with_min_batch(min_batch_words: usize) -> Self {
        WordCounts { batch: Vec::new(), counts: Vec::new(), min_batch_words }
    }

    /// Counts the little-endian 32-bit words of `bytes` (whole words only).
    pub(crate) fn add_words(&mut self, bytes: &[u8]) {
        self.batch.extend(bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])));
        // A batch at least as large as the counts keeps each merge's cost
        // proportional to the words it adds (amortised O(1) per word).
        if self.batch.len() >= self.min_batch_words.max(self.counts.len()) {
            let batch = std::mem::take(&mut self.batch);
            self.counts = merge(&self.counts, &count_runs(sorted(batch)));
        }
    }

    /// Every value seen with its count, in ascending order of value.
    pub(crate) fn pairs(&self) -> Vec<(u32, u64)> {
        if self.batch.is_empty() {
            return self.counts.clone();
        }
        merge(&self.counts, &count_runs(sorted(self.batch.clone())))
    }
}

/// `words` in ascending order: least-significant-digit radix sort, skipping
/// digits every word shares (the high bits of small integers).
fn sorted(mut words: Vec<u32>) -> Vec<u32> {
    let mut scratch = vec![0u32; words.len()];
    let mask = (1u32 << DIGIT_BITS) - 1;
    for shift in (0..32).step_by(DIGIT_BITS as usize) {
        let mut starts = vec![0usize; 1 << DIGIT_BITS];
        for &word in &words {
            starts[((word >> shift) & mask) as usize] += 1;
        }
        if starts.contains(&words.len()) {
            continue;
        }
        let mut next = 0;
        for start in starts.iter_mut() {
            (*start, next) = (next, next + *start);
        }
        for &word in &words {
            let slot = &mut starts[((word >> shift) & mask) as usize];
            scratch[*slot] = word;
            *slot += 1;
        }
        std::mem::swap(&mut words, &mut scratch);
    }
    words
}

/// Sorted words as (value, count) pairs.
fn count_runs(sorted: Vec<u32>) -> Vec<(u32, u64)> {
    let mut pairs: Vec<(u32, u64)> = Vec::new();
    for word in sorted {
        match pairs.last_mut() {
            Some((value, count)) if *value == word => *count += 1,
            _ => pairs.push((word, 1)),
        }
    }
    pairs
}

/// Two ascending (value, count) lists as one, counts of equal values added.
fn merge(a: &[(u32, u64)], b: &[(u32, u64)]) -> Vec<(u32, u64)> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        if x.0 < y.0 {
            out.push(x);
            i += 1;
        } else if y.0 < x.0 {
            out.push(y);
            j += 1;
        } else {
            out.push((x.0, x.1 + y.1));
            (i, j) = (i + 1, j + 1);
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    fn bytes_of(words: &[u32]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    proptest! {
        /// The same counts as a map, whatever the batch size (merges of
        /// several batches, and a batch still pending when read).
        #[test]
        fn counts_equal_a_map(blocks in prop::collection::vec(prop::collection::vec(prop_oneof![
            0u32..4, any::<u32>(), (0u32..64).prop_map(|v| v << 26)], 0..40), 0..20), min_batch in 1usize..200) {
            let mut counts = WordCounts::with_min_batch(min_batch);
            let mut expected: BTreeMap<u32, u64> = BTreeMap::new();
            for block in &blocks {
                counts.add_words(&bytes_of(block));
                block.iter().for_each(|&w| *expected.entry(w).or_insert(0) += 1);
            }
            prop_assert_eq!(counts.pairs(), expected.into_iter().collect::<Vec<_>>());
        }

        #[test]
        fn radix_sort_sorts(mut words in prop::collection::vec(any::<u32>(), 0..3000)) {
            let radix = sorted(words.clone());
            words.sort_unstable();
            prop_assert_eq!(radix, words);
        }
    }

    #[test]
    fn trailing_bytes_and_empty_input_count_nothing() {
        let mut counts = WordCounts::default();
        counts.add_words(&[1, 0, 0, 0, 9, 9]);
        counts.add_words(&[]);
        assert_eq!(counts.pairs(), vec![(1, 1)]);
    }
}
