//! Block size and memory access granularity (MAG): the two numbers that turn a
//! compressed size in bits into DRAM bursts, or, on a link, into the granules
//! a message is sized in.

use crate::error::ConfigError;

/// Block sizes the codecs support, in bytes.
pub const BLOCK_SIZES: [usize; 3] = [32, 64, 128];
/// Memory access granularities the DRAM model supports, in bytes.
pub const MAG_SIZES: [usize; 3] = [16, 32, 64];

/// The shape of memory traffic a codec works on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Geometry {
    block_bytes: usize,
    mag_bytes: usize,
}

impl Default for Geometry {
    /// The papers' configuration: 128-byte blocks, 32-byte MAG (GDDR5, 32-bit bus, burst 8).
    fn default() -> Self {
        Geometry { block_bytes: 128, mag_bytes: 32 }
    }
}

impl Geometry {
    pub fn new(block_bytes: usize, mag_bytes: usize) -> Result<Self, ConfigError> {
        if !BLOCK_SIZES.contains(&block_bytes) {
            return Err(ConfigError::new("block_bytes", block_bytes.to_string(), "one of 32, 64, 128"));
        }
        if !MAG_SIZES.contains(&mag_bytes) || mag_bytes > block_bytes {
            return Err(ConfigError::new(
                "mag_bytes",
                mag_bytes.to_string(),
                format!("one of 16, 32, 64 and at most block_bytes ({block_bytes})"),
            ));
        }
        Ok(Geometry { block_bytes, mag_bytes })
    }

    /// A geometry for a link or any other transport whose messages are sized
    /// in `granule_bytes` units: any power of two up to `block_bytes`, 1 for
    /// a byte-granular link. The granule takes the MAG's place everywhere
    /// (rounding, the "worth it" rule), so with a granule of 1 a block is
    /// sent compressed exactly when `ceil(compressed_bits / 8) < block_bytes`,
    /// the rule of "Exploiting Adaptive Data Compression to Improve
    /// Performance and Energy-Efficiency of Compute Workloads in Multi-GPU
    /// Systems" (IPDPS 2019), Section III: "If space is not saved after
    /// applying a compression algorithm, the data is transmitted in its
    /// uncompressed form".
    pub fn with_granule(block_bytes: usize, granule_bytes: usize) -> Result<Self, ConfigError> {
        if !BLOCK_SIZES.contains(&block_bytes) {
            return Err(ConfigError::new("block_bytes", block_bytes.to_string(), "one of 32, 64, 128"));
        }
        if !granule_bytes.is_power_of_two() || granule_bytes > block_bytes {
            return Err(ConfigError::new(
                "granule_bytes",
                granule_bytes.to_string(),
                format!("a power of two from 1 to block_bytes ({block_bytes})"),
            ));
        }
        Ok(Geometry { block_bytes, mag_bytes: granule_bytes })
    }

    pub fn block_bytes(&self) -> usize {
        self.block_bytes
    }

    pub fn block_bits(&self) -> usize {
        self.block_bytes * 8
    }

    pub fn mag_bytes(&self) -> usize {
        self.mag_bytes
    }

    /// Bursts needed to move an uncompressed block.
    #[inline]
    pub fn block_bursts(&self) -> usize {
        self.block_bytes / self.mag_bytes
    }

    /// Bytes actually transferred for `compressed_bits`: rounded up to whole MAGs.
    #[inline]
    pub fn mag_rounded_bytes(&self, compressed_bits: usize) -> usize {
        self.burst_count(compressed_bits) * self.mag_bytes
    }

    /// DRAM bursts (MAG-sized transfers) needed for `compressed_bits`; at least one.
    ///
    /// MAGs and granules are powers of two, so this is a shift, not a
    /// division: every codec and `analyze` call it once per block.
    #[inline]
    pub fn burst_count(&self, compressed_bits: usize) -> usize {
        let mag_bits = self.mag_bytes * 8;
        debug_assert!(mag_bits.is_power_of_two());
        let whole = compressed_bits >> mag_bits.trailing_zeros();
        (whole + (compressed_bits & (mag_bits - 1) != 0) as usize).max(1)
    }

    /// The papers store a block compressed only when that saves at least one
    /// burst: otherwise the decompression latency buys nothing. For 128-byte
    /// blocks and a 32-byte MAG this is E2MC's "worth it" size of 96 bytes.
    #[inline]
    pub fn worth_compressing(&self, compressed_bits: usize) -> bool {
        self.burst_count(compressed_bits) < self.block_bursts()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_to_mag() {
        let g = Geometry::default();
        assert_eq!(g.burst_count(1), 1);
        assert_eq!(g.burst_count(256), 1);
        assert_eq!(g.burst_count(257), 2);
        assert_eq!(g.burst_count(0), 1);
        for g in [Geometry::new(32, 16).unwrap(), Geometry::new(128, 64).unwrap(), g] {
            for bits in 0..2000 {
                assert_eq!(g.burst_count(bits), bits.div_ceil(g.mag_bytes() * 8).max(1), "{g:?} {bits}");
            }
        }
        assert_eq!(g.burst_count(usize::MAX), usize::MAX / 256 + 1);
        assert_eq!(g.mag_rounded_bytes(36 * 8), 64);
        assert_eq!(g.block_bursts(), 4);
        assert!(g.worth_compressing(96 * 8));
        assert!(!g.worth_compressing(96 * 8 + 1));
    }

    #[test]
    fn byte_granular_links_save_whole_bytes() {
        let link = Geometry::with_granule(64, 1).unwrap();
        assert_eq!((link.mag_bytes(), link.block_bursts()), (1, 64));
        assert_eq!(link.burst_count(0), 1);
        assert_eq!(link.burst_count(9), 2);
        assert_eq!(link.mag_rounded_bytes(63 * 8), 63);
        assert!(link.worth_compressing(63 * 8), "one byte saved is worth it");
        assert!(!link.worth_compressing(63 * 8 + 1), "a partial byte is not");
        assert!(!link.worth_compressing(64 * 8));
        for block in BLOCK_SIZES {
            for granule in (0..8).map(|shift| 1usize << shift).filter(|&g| g <= block) {
                let g = Geometry::with_granule(block, granule).unwrap();
                for bits in 0..block * 8 + 20 {
                    assert_eq!(g.burst_count(bits), bits.div_ceil(granule * 8).max(1), "{g:?} {bits}");
                    assert_eq!(g.worth_compressing(bits), bits.div_ceil(granule * 8).max(1) < block / granule);
                }
            }
        }
        assert_eq!(Geometry::with_granule(128, 32).unwrap(), Geometry::default(), "a DRAM MAG is a granule too");
        assert_eq!(Geometry::with_granule(64, 3).unwrap_err().knob, "granule_bytes");
        assert_eq!(Geometry::with_granule(64, 0).unwrap_err().knob, "granule_bytes");
        assert_eq!(
            Geometry::with_granule(32, 64).unwrap_err().to_string(),
            "invalid granule_bytes '64': expected a power of two from 1 to block_bytes (32)"
        );
        assert_eq!(Geometry::with_granule(48, 1).unwrap_err().knob, "block_bytes");
        assert_eq!(Geometry::new(64, 1).unwrap_err().knob, "mag_bytes", "the DRAM model keeps its MAGs");
    }

    #[test]
    fn rejects_bad_sizes() {
        assert_eq!(Geometry::new(100, 32).unwrap_err().knob, "block_bytes");
        assert_eq!(Geometry::new(32, 64).unwrap_err().knob, "mag_bytes");
        assert!(Geometry::new(32, 32).is_ok());
    }
}
