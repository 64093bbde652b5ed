//! The Shannon bound of a sample (Section V-A: "upper bound on CR using
//! Shannon's source coding theorem", 2.61x on average for 16-bit symbols).
//!
//! The bound is the order-0 entropy of the symbol values: no code that maps
//! each symbol independently to a codeword can average fewer bits. The
//! implied ideal compression ratio is `symbol_bits / entropy`; it ignores the
//! MAG, the worth-it rule and parallel-decoding pointers. For 16/32-bit
//! symbols it covers every distinct value, not just the MFVs. For 4/8-bit
//! symbols E2MC codes each position in a word separately, so the bound it
//! can approach is the mean per-position entropy, reported alongside.

use super::table::{Sampler, SYMBOL_BITS};
use crate::error::ConfigError;

/// Entropy and the ideal compression ratio it implies (an infinite ratio,
/// constant data, serialises as JSON `null`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct ShannonBound {
    pub symbol_bits: u32,
    /// Symbols in the sample.
    pub symbols: u64,
    /// Distinct symbol values in the sample.
    pub distinct: u64,
    /// Order-0 entropy over all values, bits per symbol.
    pub entropy_bits: f64,
    /// `symbol_bits / entropy_bits`: infinite for a constant sample, 1 for an
    /// empty one.
    pub ideal_ratio: f64,
    /// Mean over word positions of each position's entropy (4/8-bit); equal
    /// to `entropy_bits` for 16/32-bit symbols, which have one code.
    pub positional_entropy_bits: f64,
    pub positional_ideal_ratio: f64,
}

/// Shannon entropy in bits per symbol of a histogram (zero counts ignored).
/// The counts are summed in ascending order, so the result does not depend
/// on the order they come in (a hash map's, a sorted table's) to the last bit.
pub fn entropy_bits(counts: &[u64]) -> f64 {
    let mut counts: Vec<u64> = counts.iter().copied().filter(|&c| c > 0).collect();
    counts.sort_unstable();
    let total: f64 = counts.iter().map(|&c| c as f64).sum();
    if total == 0.0 {
        return 0.0;
    }
    let sum: f64 = counts.iter().map(|&c| c as f64 * (c as f64).log2()).sum();
    // H = log2(N) - sum(c log2 c) / N, clamped against rounding below zero.
    (total.log2() - sum / total).max(0.0)
}

fn ideal_ratio(symbol_bits: u32, symbols: u64, entropy: f64) -> f64 {
    if symbols == 0 {
        1.0
    } else if entropy == 0.0 {
        f64::INFINITY
    } else {
        symbol_bits as f64 / entropy
    }
}

impl ShannonBound {
    /// The bound of everything a sampler has seen.
    pub fn of_sampler(sampler: &Sampler) -> Self {
        let bits = sampler.symbol_bits();
        let values = sampler.value_counts();
        let entropy = entropy_bits(&values);
        let positional = match sampler.position_counts() {
            Some(tables) if !tables.is_empty() => {
                tables.iter().map(|t| entropy_bits(t)).sum::<f64>() / tables.len() as f64
            }
            _ => entropy,
        };
        let symbols = sampler.symbols();
        ShannonBound {
            symbol_bits: bits,
            symbols,
            distinct: values.len() as u64,
            entropy_bits: entropy,
            ideal_ratio: ideal_ratio(bits, symbols, entropy),
            positional_entropy_bits: positional,
            positional_ideal_ratio: ideal_ratio(bits, symbols, positional),
        }
    }
}

/// The Shannon bound of `blocks` at a symbol length of 4, 8, 16 or 32 bits.
pub fn shannon_bound<'a>(
    blocks: impl IntoIterator<Item = &'a [u8]>,
    symbol_bits: u32,
) -> Result<ShannonBound, ConfigError> {
    if !SYMBOL_BITS.contains(&symbol_bits) {
        return Err(ConfigError::new("e2mc symbol_bits", symbol_bits.to_string(), "4, 8, 16 or 32"));
    }
    let mut sampler = Sampler::new(symbol_bits)?;
    for block in blocks {
        sampler.feed(block);
    }
    Ok(ShannonBound::of_sampler(&sampler))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn entropy_of_known_histograms() {
        assert!(close(entropy_bits(&[1, 1]), 1.0));
        assert!(close(entropy_bits(&[2, 1, 1]), 1.5));
        assert!(close(entropy_bits(&[5]), 0.0));
        assert!(close(entropy_bits(&[]), 0.0));
        assert!(close(entropy_bits(&[1; 256]), 8.0));
    }

    #[test]
    fn bound_at_every_symbol_length() {
        // 32 words: half 0x00000000, half 0xFFFF0001.
        let mut block = Vec::new();
        for i in 0..32u32 {
            let w: u32 = if i % 2 == 0 { 0 } else { 0xFFFF_0001 };
            block.extend_from_slice(&w.to_le_bytes());
        }
        let b32 = shannon_bound([&block[..]], 32).unwrap();
        assert_eq!((b32.symbols, b32.distinct), (32, 2));
        assert!(close(b32.entropy_bits, 1.0) && close(b32.ideal_ratio, 32.0));
        // 16-bit halves: 0x0000 x32, 0x0001 x16, 0xFFFF x16.
        let b16 = shannon_bound([&block[..]], 16).unwrap();
        assert_eq!((b16.symbols, b16.distinct), (64, 3));
        assert!(close(b16.entropy_bits, 1.5) && close(b16.ideal_ratio, 16.0 / 1.5));
        // 8-bit: each word is bytes 00 00 00 00 or 01 00 FF FF.
        let b8 = shannon_bound([&block[..]], 8).unwrap();
        assert_eq!((b8.symbols, b8.distinct), (128, 3));
        // 0x00: 4*16 + 16 = 80, 0x01: 16, 0xFF: 32 -> H over 128 symbols.
        assert!(close(b8.entropy_bits, entropy_bits(&[80, 16, 32])));
        // Per position: position 1 is always 0x00 (H=0), the others 1 bit.
        assert!(close(b8.positional_entropy_bits, 0.75));
        assert!(close(b8.positional_ideal_ratio, 8.0 / 0.75));
        let b4 = shannon_bound([&block[..]], 4).unwrap();
        assert_eq!((b4.symbols, b4.distinct), (256, 3));
        // Nibbles 0 or 1 at position 0, always 0 at 1..=3, 0 or F at 4..=7.
        assert!(close(b4.positional_entropy_bits, 5.0 / 8.0));
        assert!(shannon_bound([&block[..]], 12).is_err());
    }

    #[test]
    fn degenerate_samples() {
        let zeros = shannon_bound([&[0u8; 64][..]], 16).unwrap();
        assert_eq!(zeros.ideal_ratio, f64::INFINITY);
        let empty = shannon_bound(std::iter::empty(), 16).unwrap();
        assert_eq!((empty.symbols, empty.ideal_ratio), (0, 1.0));
    }
}
