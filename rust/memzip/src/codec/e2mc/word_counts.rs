//! Exact counts of 32-bit values: the software value frequency table of
//! E2MC32's sampling phase (the E2MC paper Sec. III-B2b).
//!
//! Sampled words are buffered and counted in batches: a radix sort orders a
//! batch, and one pass merges its runs of equal words into the sorted counts
//! so far. Every pass reads and writes memory in order. The hash map this
//! replaces probed a table of up to millions of distinct values at random:
//! one cache miss per sampled word, 60% of the sampling time of `memzip
//! analyze` on Rodinia backprop's trace (perf).

/// The smallest batch: large enough that sorting it costs little per word.
const MIN_BATCH_WORDS: usize = 1 << 20;

/// Radix digit of the batch sort: three passes of 11 bits cover 32.
const DIGIT_BITS: u32 = 11;

/// Every buffer is kept from batch to batch: a backprop trace's sample has
/// millions of distinct values, and fresh buffers of that size cost a page
/// fault per 4 KiB touched.
#[derive(Debug, Clone)]
pub(crate) struct WordCounts {
    /// Words not yet counted, in sampling order.
    batch: Vec<u32>,
    /// The radix sort's second buffer.
    scratch: Vec<u32>,
    /// Counted words: distinct values in ascending order, and their counts.
    values: Vec<u32>,
    counts: Vec<u64>,
    /// Where the next merge writes; swapped with `values` / `counts` after it.
    merged_values: Vec<u32>,
    merged_counts: Vec<u64>,
    min_batch_words: usize,
}

impl Default for WordCounts {
    fn default() -> Self {
        WordCounts::with_min_batch(MIN_BATCH_WORDS)
    }
}

impl WordCounts {
    fn with_min_batch(min_batch_words: usize) -> Self {
        WordCounts {
            batch: Vec::new(),
            scratch: Vec::new(),
            values: Vec::new(),
            counts: Vec::new(),
            merged_values: Vec::new(),
            merged_counts: Vec::new(),
            min_batch_words,
        }
    }

    /// Counts the little-endian 32-bit words of `bytes` (whole words only).
    pub(crate) fn add_words(&mut self, bytes: &[u8]) {
        self.batch.extend(bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])));
        // A batch at least as large as the counts keeps each merge's cost
        // proportional to the words it adds (amortised O(1) per word).
        if self.batch.len() >= self.min_batch_words.max(self.values.len()) {
            self.count_batch();
        }
    }

    /// Sorts the batch and merges its runs into the counts.
    fn count_batch(&mut self) {
        radix_sort(&mut self.batch, &mut self.scratch);
        merge_runs((&self.values, &self.counts), &self.batch, (&mut self.merged_values, &mut self.merged_counts));
        std::mem::swap(&mut self.values, &mut self.merged_values);
        std::mem::swap(&mut self.counts, &mut self.merged_counts);
        self.batch.clear();
    }

    /// Every value seen with its count, in ascending order of value.
    pub(crate) fn pairs(&self) -> Vec<(u32, u64)> {
        if self.batch.is_empty() {
            return self.values.iter().copied().zip(self.counts.iter().copied()).collect();
        }
        let (mut pending, mut scratch) = (self.batch.clone(), Vec::new());
        radix_sort(&mut pending, &mut scratch);
        let (mut values, mut counts) = (Vec::new(), Vec::new());
        merge_runs((&self.values, &self.counts), &pending, (&mut values, &mut counts));
        values.into_iter().zip(counts).collect()
    }
}

/// Sorts `words` ascending: least-significant-digit radix sort through
/// `scratch`, skipping digits every word shares (the high bits of small
/// integers).
fn radix_sort(words: &mut Vec<u32>, scratch: &mut Vec<u32>) {
    scratch.resize(words.len(), 0);
    let mask = (1u32 << DIGIT_BITS) - 1;
    let mut starts = [0usize; 1 << DIGIT_BITS];
    for shift in (0..32).step_by(DIGIT_BITS as usize) {
        starts.fill(0);
        for &word in words.iter() {
            starts[((word >> shift) & mask) as usize] += 1;
        }
        if starts.contains(&words.len()) {
            continue;
        }
        let mut next = 0;
        for start in starts.iter_mut() {
            (*start, next) = (next, next + *start);
        }
        for &word in words.iter() {
            let slot = &mut starts[((word >> shift) & mask) as usize];
            scratch[*slot] = word;
            *slot += 1;
        }
        std::mem::swap(words, scratch);
    }
}

/// Merges the counted `(values, counts)` (values ascending) with `sorted`,
/// ascending words each counting once, into `merged` (cleared first): one
/// pass, no intermediate (value, count) list of the batch.
fn merge_runs(counted: (&[u32], &[u64]), sorted: &[u32], merged: (&mut Vec<u32>, &mut Vec<u64>)) {
    let ((values, counts), (merged_values, merged_counts)) = (counted, merged);
    merged_values.clear();
    merged_counts.clear();
    merged_values.reserve(values.len() + sorted.len());
    merged_counts.reserve(values.len() + sorted.len());
    let (mut i, mut j) = (0, 0);
    while j < sorted.len() {
        let word = sorted[j];
        let run_start = j;
        while j < sorted.len() && sorted[j] == word {
            j += 1;
        }
        while i < values.len() && values[i] < word {
            merged_values.push(values[i]);
            merged_counts.push(counts[i]);
            i += 1;
        }
        let mut count = (j - run_start) as u64;
        if i < values.len() && values[i] == word {
            count += counts[i];
            i += 1;
        }
        merged_values.push(word);
        merged_counts.push(count);
    }
    merged_values.extend_from_slice(&values[i..]);
    merged_counts.extend_from_slice(&counts[i..]);
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
            let (mut radix, mut scratch) = (words.clone(), vec![7; 5]);
            radix_sort(&mut radix, &mut scratch);
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
