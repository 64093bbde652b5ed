//! The metadata cache (MDC): a small set-associative cache in the memory
//! controller that holds each block's encoding bits, so a read knows how many
//! bursts to fetch without first reading the metadata from DRAM.
//!
//! What the papers fix, and what we chose where they do not:
//! - Size and associativity: MAG-aware BDI (the MAG-aware paper, §IV-F) uses 16 KB,
//!   4-way per memory controller (E2MC, the E2MC paper §IV-D, used 8 KB, 4-way);
//!   both are [`MdcConfig`] knobs, default 16 KB / 4-way.
//! - Line size and coverage: the MAG-aware paper §IV-F: "a 128-byte cache block can
//!   store the metadata of 512 blocks", so "a 16KB metadata cache ... can store
//!   the metadata of 64K blocks". A line holds the packed metadata of
//!   `line_bits / metadata_bits` *consecutive* blocks (default 128-byte line,
//!   2 bits -> 512 blocks). When `metadata_bits` does not divide the line
//!   (e.g. 3 bits), the fields are packed and the leftover bits unused:
//!   `floor(1024 / 3) = 341` blocks per line. Capacity in blocks is then
//!   `lines * blocks_per_line`, which equals `mdc_bytes * 8 / metadata_bits`
//!   whenever the bits divide the line.
//! - Replacement: LRU (the papers cache "the most recently used metadata").
//! - Indexing: line number = block index / blocks per line; set = line
//!   number mod sets (the low bits when sets is a power of two).
//! - Miss cost: the E2MC paper §IV-D: a miss "requires two accesses to DRAM", and
//!   the MAG-aware paper §V: "the additional latency of accessing the off-chip memory in
//!   case of a miss". We fetch the whole missing line: one extra DRAM access
//!   of `line_bytes` (reported by [`MetadataCache::line_bytes`]; set
//!   `line_bytes` equal to the MAG for a one-atom fill).
//! - Writes: write-allocate. A write-back must update its block's bits, and
//!   the line also holds 511 other blocks' bits, so a write miss fetches the
//!   line like a read miss and marks it dirty; evicting a dirty line writes it
//!   back (one access of `line_bytes`). The papers do not discuss write
//!   misses; this is the conservative hardware behaviour.
//!
//! The cache only models tags, LRU order and dirty bits: the metadata values
//! themselves live in the controller's backing store, which is always
//! up to date, so hits and misses never change what is decoded.

use serde::Serialize;

use crate::error::ConfigError;

/// Most lines a metadata cache may have (far above the papers' 128; bounds
/// the memory a mistyped size can claim).
pub const MAX_LINES: usize = 1 << 22;

/// Geometry of the metadata cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MdcConfig {
    /// Total data capacity in bytes (`-memzip_mdc_bytes`).
    pub capacity_bytes: usize,
    /// Ways per set (`-memzip_mdc_assoc`).
    pub assoc: usize,
    /// Bytes per cache line; one line is filled or written back per access.
    pub line_bytes: usize,
}

impl Default for MdcConfig {
    /// The MAG-aware paper §IV-F: 16 KB, 4-way, 128-byte lines.
    fn default() -> Self {
        MdcConfig { capacity_bytes: 16 * 1024, assoc: 4, line_bytes: 128 }
    }
}

/// Whether an access reads a block's metadata (DRAM read) or updates it
/// (DRAM write-back).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MdcAccess {
    Read,
    Write,
}

/// The result of one lookup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MdcLookup {
    /// The block's metadata line was resident.
    pub hit: bool,
    /// A miss evicted a dirty line, which must be written back to DRAM.
    pub dirty_eviction: bool,
}

/// Counters of the metadata cache; they sum across controllers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct MdcStats {
    pub read_hits: u64,
    pub read_misses: u64,
    pub write_hits: u64,
    pub write_misses: u64,
    /// Valid lines replaced (clean or dirty).
    pub evictions: u64,
    /// Replaced lines that had been written and so went back to DRAM.
    pub dirty_evictions: u64,
}

impl MdcStats {
    pub fn hits(&self) -> u64 {
        self.read_hits + self.write_hits
    }

    pub fn misses(&self) -> u64 {
        self.read_misses + self.write_misses
    }

    /// Hits over lookups; `None` before the first lookup.
    pub fn hit_rate(&self) -> Option<f64> {
        let lookups = self.hits() + self.misses();
        (lookups > 0).then(|| self.hits() as f64 / lookups as f64)
    }

    pub fn merge(&mut self, other: &MdcStats) {
        self.read_hits += other.read_hits;
        self.read_misses += other.read_misses;
        self.write_hits += other.write_hits;
        self.write_misses += other.write_misses;
        self.evictions += other.evictions;
        self.dirty_evictions += other.dirty_evictions;
    }
}

/// One resident line: which line of metadata it holds, and whether it was
/// modified since it was filled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Way {
    line: u64,
    dirty: bool,
}

/// A set-associative, LRU, write-allocate cache of per-block metadata.
#[derive(Debug, Clone)]
pub struct MetadataCache {
    config: MdcConfig,
    metadata_bits: u32,
    blocks_per_line: u64,
    /// Each set's resident lines, most recently used first.
    sets: Vec<Vec<Way>>,
    stats: MdcStats,
}

impl MetadataCache {
    /// A cold cache for blocks of `metadata_bits` bits of metadata each.
    pub fn new(config: MdcConfig, metadata_bits: u32) -> Result<Self, ConfigError> {
        let MdcConfig { capacity_bytes, assoc, line_bytes } = config;
        if line_bytes == 0 {
            return Err(ConfigError::new("mdc_line_bytes", "0", "a positive number of bytes"));
        }
        if assoc == 0 {
            return Err(ConfigError::new("mdc_assoc", "0", "at least 1 way"));
        }
        // Checked arithmetic: these come straight from user flags.
        let line_bits = line_bytes.checked_mul(8).ok_or_else(|| {
            ConfigError::new("mdc_line_bytes", line_bytes.to_string(), "a line size that fits in memory")
        })?;
        let set_bytes = line_bytes.saturating_mul(assoc);
        if capacity_bytes == 0 || capacity_bytes % line_bytes != 0 || capacity_bytes < set_bytes {
            return Err(ConfigError::new(
                "mdc_bytes",
                capacity_bytes.to_string(),
                format!("a positive multiple of line bytes x ways ({line_bytes} x {assoc} = {set_bytes})"),
            ));
        }
        let lines = capacity_bytes / line_bytes;
        if lines > MAX_LINES {
            return Err(ConfigError::new(
                "mdc_bytes",
                capacity_bytes.to_string(),
                format!("at most {MAX_LINES} lines of {line_bytes} bytes"),
            ));
        }
        if lines % assoc != 0 {
            return Err(ConfigError::new(
                "mdc_assoc",
                assoc.to_string(),
                format!("a divisor of the {lines} lines ({capacity_bytes} bytes / {line_bytes}-byte lines)"),
            ));
        }
        if metadata_bits == 0 || metadata_bits as usize > line_bits {
            return Err(ConfigError::new(
                "metadata_bits",
                metadata_bits.to_string(),
                format!("1..={line_bits} (one cache line)"),
            ));
        }
        let num_sets = lines / assoc;
        Ok(MetadataCache {
            config,
            metadata_bits,
            blocks_per_line: (line_bits / metadata_bits as usize) as u64,
            sets: vec![Vec::with_capacity(assoc); num_sets],
            stats: MdcStats::default(),
        })
    }

    pub fn config(&self) -> MdcConfig {
        self.config
    }

    pub fn metadata_bits(&self) -> u32 {
        self.metadata_bits
    }

    /// Bytes moved by one fill or write-back.
    pub fn line_bytes(&self) -> usize {
        self.config.line_bytes
    }

    /// Consecutive blocks whose metadata one line holds.
    pub fn blocks_per_line(&self) -> u64 {
        self.blocks_per_line
    }

    pub fn num_sets(&self) -> usize {
        self.sets.len()
    }

    pub fn num_lines(&self) -> usize {
        self.sets.len() * self.config.assoc
    }

    /// Blocks whose metadata fits in the cache at once.
    pub fn capacity_blocks(&self) -> u64 {
        self.num_lines() as u64 * self.blocks_per_line
    }

    /// The metadata line holding block number `block_index`.
    pub fn line_of(&self, block_index: u64) -> u64 {
        block_index / self.blocks_per_line
    }

    /// The set that line `line_of(block_index)` maps to.
    pub fn set_of(&self, block_index: u64) -> usize {
        (self.line_of(block_index) % self.sets.len() as u64) as usize
    }

    /// Whether the block's metadata is resident, without touching LRU order
    /// or counters.
    pub fn contains(&self, block_index: u64) -> bool {
        let line = self.line_of(block_index);
        self.sets[self.set_of(block_index)].iter().any(|w| w.line == line)
    }

    /// Looks up block number `block_index`: a hit moves its line to MRU; a
    /// miss fills the line, evicting the set's LRU line if the set is full.
    /// A write marks the line dirty.
    pub fn access(&mut self, block_index: u64, kind: MdcAccess) -> MdcLookup {
        let line = self.line_of(block_index);
        let set_index = self.set_of(block_index);
        let assoc = self.config.assoc;
        let set = &mut self.sets[set_index];
        let dirty = kind == MdcAccess::Write;
        let lookup = match set.iter().position(|w| w.line == line) {
            Some(pos) => {
                let mut way = set.remove(pos);
                way.dirty |= dirty;
                set.insert(0, way);
                MdcLookup { hit: true, dirty_eviction: false }
            }
            None => {
                let victim = (set.len() == assoc).then(|| set.pop()).flatten();
                set.insert(0, Way { line, dirty });
                if victim.is_some() {
                    self.stats.evictions += 1;
                }
                let dirty_eviction = victim.is_some_and(|v| v.dirty);
                if dirty_eviction {
                    self.stats.dirty_evictions += 1;
                }
                MdcLookup { hit: false, dirty_eviction }
            }
        };
        let counter = match (kind, lookup.hit) {
            (MdcAccess::Read, true) => &mut self.stats.read_hits,
            (MdcAccess::Read, false) => &mut self.stats.read_misses,
            (MdcAccess::Write, true) => &mut self.stats.write_hits,
            (MdcAccess::Write, false) => &mut self.stats.write_misses,
        };
        *counter += 1;
        lookup
    }

    pub fn stats(&self) -> MdcStats {
        self.stats
    }

    pub fn reset_stats(&mut self) {
        self.stats = MdcStats::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cache(capacity_bytes: usize, assoc: usize, line_bytes: usize, bits: u32) -> MetadataCache {
        MetadataCache::new(MdcConfig { capacity_bytes, assoc, line_bytes }, bits).unwrap()
    }

    #[test]
    fn default_geometry_matches_paper_002() {
        let mdc = MetadataCache::new(MdcConfig::default(), 2).unwrap();
        assert_eq!(mdc.blocks_per_line(), 512, "a 128-byte line holds 512 blocks' 2-bit metadata");
        assert_eq!(mdc.num_lines(), 128);
        assert_eq!(mdc.num_sets(), 32);
        assert_eq!(mdc.capacity_blocks(), 64 * 1024, "16 KB covers 64K blocks");
        assert_eq!(mdc.capacity_blocks(), (16 * 1024 * 8 / 2) as u64);
        // 64K blocks of 128 bytes = 8 MB of DRAM per controller.
        assert_eq!(mdc.capacity_blocks() * 128, 8 << 20);
        assert_eq!(mdc.line_bytes(), 128);
    }

    #[test]
    fn capacity_for_other_metadata_widths() {
        let mdc = MetadataCache::new(MdcConfig::default(), 4).unwrap();
        assert_eq!((mdc.blocks_per_line(), mdc.capacity_blocks()), (256, 32 * 1024));
        // 3 bits do not divide 1024: 341 fields per line, 1 bit unused.
        let mdc = MetadataCache::new(MdcConfig::default(), 3).unwrap();
        assert_eq!((mdc.blocks_per_line(), mdc.capacity_blocks()), (341, 341 * 128));
        // The E2MC paper's 8 KB, 4-way cache.
        let mdc = cache(8 * 1024, 4, 128, 2);
        assert_eq!((mdc.num_sets(), mdc.capacity_blocks()), (16, 32 * 1024));
    }

    #[test]
    fn rejects_bad_geometry() {
        let bad = |c: MdcConfig, bits| MetadataCache::new(c, bits).unwrap_err().knob;
        let d = MdcConfig::default();
        assert_eq!(bad(MdcConfig { capacity_bytes: 1000, ..d }, 2), "mdc_bytes");
        assert_eq!(bad(MdcConfig { capacity_bytes: 0, ..d }, 2), "mdc_bytes");
        assert_eq!(bad(MdcConfig { assoc: 0, ..d }, 2), "mdc_assoc");
        assert_eq!(bad(MdcConfig { assoc: 3, ..d }, 2), "mdc_assoc", "3 ways do not divide 128 lines");
        let err = MetadataCache::new(MdcConfig { assoc: 3, ..d }, 2).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid mdc_assoc '3': expected a divisor of the 128 lines (16384 bytes / 128-byte lines)"
        );
        assert_eq!(bad(MdcConfig { line_bytes: 0, ..d }, 2), "mdc_line_bytes");
        assert_eq!(bad(d, 0), "metadata_bits");
        assert_eq!(bad(d, 1025), "metadata_bits");
        let err = MetadataCache::new(MdcConfig { capacity_bytes: 1000, ..d }, 2).unwrap_err();
        assert!(err.to_string().contains("512"), "{err}");
    }

    #[test]
    fn huge_sizes_are_errors_not_overflows() {
        let max = usize::MAX;
        for (capacity_bytes, assoc, line_bytes, knob) in [
            (max, max, 2, "mdc_bytes"),
            (max - 1, max, 2, "mdc_bytes"),
            (max - 1, (max - 1) / 2, 2, "mdc_bytes"),
            (16 * 1024, max, 32, "mdc_bytes"),
            (1 << 40, 4, 128, "mdc_bytes"),
            (1024, 4, max, "mdc_line_bytes"),
            (max / 8 + 1, 1, max / 8 + 1, "mdc_line_bytes"),
        ] {
            let config = MdcConfig { capacity_bytes, assoc, line_bytes };
            let err = MetadataCache::new(config, 2).unwrap_err();
            assert_eq!(err.knob, knob, "{config:?}: {err}");
        }
        let widest = cache(MAX_LINES * 16, MAX_LINES, 16, 2);
        assert_eq!((widest.num_sets(), widest.num_lines()), (1, MAX_LINES));
    }

    #[test]
    fn set_indexing_follows_consecutive_lines() {
        let mdc = MetadataCache::new(MdcConfig::default(), 2).unwrap();
        assert_eq!((mdc.line_of(0), mdc.set_of(0)), (0, 0));
        assert_eq!((mdc.line_of(511), mdc.set_of(511)), (0, 0));
        assert_eq!((mdc.line_of(512), mdc.set_of(512)), (1, 1));
        assert_eq!((mdc.line_of(31 * 512), mdc.set_of(31 * 512)), (31, 31));
        assert_eq!((mdc.line_of(32 * 512), mdc.set_of(32 * 512)), (32, 0), "wraps after 32 sets");
        assert_eq!(mdc.set_of(u64::MAX), ((u64::MAX / 512) % 32) as usize);
        // Non-power-of-two set count: 12 KB / (4 x 128) = 24 sets.
        let odd = cache(12 * 1024, 4, 128, 2);
        assert_eq!(odd.num_sets(), 24);
        assert_eq!(odd.set_of(25 * 512), 1);
    }

    #[test]
    fn blocks_sharing_a_line_hit_after_one_miss() {
        let mut mdc = MetadataCache::new(MdcConfig::default(), 2).unwrap();
        assert!(!mdc.access(0, MdcAccess::Read).hit);
        for block in 1..512 {
            assert!(mdc.access(block, MdcAccess::Read).hit, "block {block}");
        }
        assert!(!mdc.access(512, MdcAccess::Read).hit);
        let s = mdc.stats();
        assert_eq!((s.read_hits, s.read_misses, s.evictions), (511, 2, 0));
        assert_eq!(s.hit_rate(), Some(511.0 / 513.0));
    }

    /// Lines mapping to set 0 of a 2-set, 2-way cache with 8 blocks per line
    /// (line 8 bytes, 8 bits per block): line n covers blocks 8n..8n+8 and
    /// maps to set n % 2, so lines 0, 2, 4, 6 share set 0.
    fn tiny() -> MetadataCache {
        cache(32, 2, 8, 8)
    }

    fn block_of_line(line: u64) -> u64 {
        line * 8
    }

    #[test]
    fn lru_evicts_least_recently_used() {
        let mut mdc = tiny();
        assert_eq!((mdc.num_sets(), mdc.blocks_per_line()), (2, 8));
        let mut hits = Vec::new();
        // A B A C: C evicts B (A was used more recently) -> then A hits, B misses.
        for line in [0, 2, 0, 4, 0, 2] {
            hits.push(mdc.access(block_of_line(line), MdcAccess::Read).hit);
        }
        assert_eq!(hits, [false, false, true, false, true, false]);
        let s = mdc.stats();
        assert_eq!((s.read_hits, s.read_misses, s.evictions, s.dirty_evictions), (2, 4, 2, 0));
        // The last miss (line 2) evicted line 4, the LRU after A was touched.
        assert!(mdc.contains(block_of_line(0)) && mdc.contains(block_of_line(2)));
        assert!(!mdc.contains(block_of_line(4)));
    }

    #[test]
    fn sets_do_not_interfere() {
        let mut mdc = tiny();
        for line in [0, 2, 1, 3, 5] {
            mdc.access(block_of_line(line), MdcAccess::Read);
        }
        // Set 1 had lines 1, 3, 5: line 1 was evicted; set 0 keeps 0 and 2.
        assert!(mdc.contains(0) && mdc.contains(block_of_line(2)));
        assert!(!mdc.contains(block_of_line(1)));
        assert_eq!(mdc.stats().evictions, 1);
    }

    #[test]
    fn cyclic_sweep_larger_than_the_set_always_misses() {
        let mut mdc = tiny();
        for _ in 0..3 {
            for line in [0, 2, 4] {
                mdc.access(block_of_line(line), MdcAccess::Read);
            }
        }
        let s = mdc.stats();
        assert_eq!((s.read_hits, s.read_misses, s.evictions), (0, 9, 7));
    }

    #[test]
    fn writes_allocate_and_dirty_lines_are_written_back() {
        let mut mdc = tiny();
        let w = mdc.access(block_of_line(0), MdcAccess::Write);
        assert_eq!(w, MdcLookup { hit: false, dirty_eviction: false });
        assert!(mdc.access(block_of_line(0) + 3, MdcAccess::Read).hit, "write-allocate filled the line");
        assert!(!mdc.access(block_of_line(2), MdcAccess::Read).hit);
        // Line 4 evicts line 0 (LRU), which is dirty.
        assert_eq!(mdc.access(block_of_line(4), MdcAccess::Read), MdcLookup { hit: false, dirty_eviction: true });
        // Line 6 evicts line 2, clean.
        assert_eq!(mdc.access(block_of_line(6), MdcAccess::Read), MdcLookup { hit: false, dirty_eviction: false });
        // A write hit dirties a clean line: line 4 then gets evicted dirty.
        assert!(mdc.access(block_of_line(4), MdcAccess::Write).hit);
        assert!(!mdc.access(block_of_line(0), MdcAccess::Read).hit); // evicts 6 (clean)
        assert!(mdc.access(block_of_line(2), MdcAccess::Read).dirty_eviction); // evicts 4
        let s = mdc.stats();
        assert_eq!((s.write_hits, s.write_misses, s.read_hits, s.read_misses), (1, 1, 1, 5));
        assert_eq!((s.evictions, s.dirty_evictions), (4, 2));
        assert_eq!((s.hits(), s.misses()), (2, 6));
    }

    #[test]
    fn same_sequence_same_result() {
        let run = || {
            let mut mdc = MetadataCache::new(MdcConfig::default(), 2).unwrap();
            let mut x = 12345u64;
            let mut hits = 0;
            for _ in 0..10_000 {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let kind = if x >> 63 == 0 { MdcAccess::Read } else { MdcAccess::Write };
                hits += mdc.access((x >> 20) % (1 << 20), kind).hit as u32;
            }
            (hits, mdc.stats())
        };
        assert_eq!(run(), run());
    }

    #[test]
    fn stats_merge_and_reset() {
        let mut mdc = tiny();
        mdc.access(0, MdcAccess::Read);
        mdc.access(0, MdcAccess::Write);
        let mut total = mdc.stats();
        total.merge(&mdc.stats());
        assert_eq!((total.read_misses, total.write_hits), (2, 2));
        mdc.reset_stats();
        assert_eq!(mdc.stats(), MdcStats::default());
        assert_eq!(MdcStats::default().hit_rate(), None);
    }
}
