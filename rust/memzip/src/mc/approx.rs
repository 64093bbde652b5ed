//! Safe-to-approximate data: which of a program's device allocations a lossy
//! codec (SLC) may approximate. The SLC paper (Lal, Lucas, Juurlink, DATE
//! 2019) approximates only the data of loads and stores that are safe to
//! approximate, chosen per benchmark; "Memory Access Granularity Aware
//! Lossless Compression for GPUs" (Sec. VI-D) lists the benchmarks that have
//! none. memzip names the data by allocation: the n-th device allocation
//! of the run (`cudaMalloc` and friends, in the order the program makes
//! them, from 1), or a range of them, optionally with a label, e.g.
//! `2:d_output,3,10-20:buffers`. A
//! benchmark's manifest carries the list; the simulator hook reports every
//! allocation here and asks, per DRAM block, whether it is covered.
//!
//! A block is approximable only if it lies wholly inside one marked
//! allocation: the last, partly used block of an allocation is stored
//! exactly, so no byte outside the program's approximable arrays ever
//! changes.

use crate::error::ConfigError;

/// One allocation the list marks: its ordinal (from 1) and label.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarkedAllocation {
    pub ordinal: u32,
    pub label: String,
}

/// A marked allocation the program made: `[start, end)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    pub start: u64,
    pub end: u64,
    pub ordinal: u32,
    pub label: String,
}

/// The marked allocations and, once the program made them, where they are.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ApproximableMemory {
    marked: Vec<MarkedAllocation>,
    /// Allocations reported so far.
    allocations: u32,
    /// Marked allocations made, by start address (allocations never overlap).
    regions: Vec<Region>,
}

impl ApproximableMemory {
    /// Parses `n[:label]` or `first-last[:label]` items separated by `,`
    /// (empty: nothing is approximable). Ordinals count from 1 and are
    /// listed once each.
    pub fn parse(list: &str) -> Result<Self, ConfigError> {
        let mut marked: Vec<MarkedAllocation> = Vec::new();
        for item in list.split(',').map(str::trim).filter(|item| !item.is_empty()) {
            let (ordinals, label) = item.split_once(':').unwrap_or((item, ""));
            let bad = || {
                ConfigError::new(
                    "approximable allocation",
                    item,
                    "<n>[:<label>] or <first>-<last>[:<label>], n the allocation's place in the program's order, from 1",
                )
            };
            let number = |text: &str| text.trim().parse::<u32>().ok().filter(|&n| n > 0).ok_or_else(bad);
            let (first, last) = match ordinals.split_once('-') {
                Some((first, last)) => (number(first)?, number(last)?),
                None => (number(ordinals)?, number(ordinals)?),
            };
            if first > last {
                return Err(bad());
            }
            for ordinal in first..=last {
                if marked.iter().any(|m| m.ordinal == ordinal) {
                    return Err(ConfigError::new("approximable allocation", item, "each allocation once"));
                }
                let label = label.trim();
                let label = if label.is_empty() { format!("allocation {ordinal}") } else { label.to_string() };
                marked.push(MarkedAllocation { ordinal, label });
            }
        }
        Ok(ApproximableMemory { marked, ..Default::default() })
    }

    /// True when the list marks nothing.
    pub fn is_empty(&self) -> bool {
        self.marked.is_empty()
    }

    pub fn marked(&self) -> &[MarkedAllocation] {
        &self.marked
    }

    /// The marked allocations made so far.
    pub fn regions(&self) -> &[Region] {
        &self.regions
    }

    /// Allocations reported so far.
    pub fn allocations(&self) -> u32 {
        self.allocations
    }

    /// The program allocated `bytes` at `start`: the next allocation in its
    /// order. Returns the label when the list marks it.
    pub fn on_allocation(&mut self, start: u64, bytes: u64) -> Option<&str> {
        self.allocations += 1;
        let ordinal = self.allocations;
        let marked = self.marked.iter().find(|m| m.ordinal == ordinal)?;
        let region = Region { start, end: start.saturating_add(bytes), ordinal, label: marked.label.clone() };
        let at = self.regions.partition_point(|r| r.start < start);
        self.regions.insert(at, region);
        Some(&self.regions[at].label)
    }

    /// The marked region holding the whole block `[addr, addr + block_bytes)`.
    pub fn region_of_block(&self, addr: u64, block_bytes: u64) -> Option<&Region> {
        let at = self.regions.partition_point(|r| r.start <= addr);
        let region = self.regions[..at].last()?;
        (addr.saturating_add(block_bytes) <= region.end).then_some(region)
    }

    /// Whether the whole block at `addr` may be approximated.
    pub fn covers_block(&self, addr: u64, block_bytes: u64) -> bool {
        self.region_of_block(addr, block_bytes).is_some()
    }

    /// Marked allocations the program has not made (yet): at the end of a
    /// run, a list that does not fit the program.
    pub fn not_allocated(&self) -> Vec<&MarkedAllocation> {
        self.marked.iter().filter(|m| m.ordinal > self.allocations).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_ordinals_and_labels() {
        let memory = ApproximableMemory::parse(" 2:d_out, 5 ,").unwrap();
        assert_eq!(
            memory.marked(),
            [
                MarkedAllocation { ordinal: 2, label: "d_out".into() },
                MarkedAllocation { ordinal: 5, label: "allocation 5".into() }
            ]
        );
        assert!(ApproximableMemory::parse("").unwrap().is_empty());
        let range = ApproximableMemory::parse("1,3-5:work").unwrap();
        let ordinals: Vec<u32> = range.marked().iter().map(|m| m.ordinal).collect();
        assert_eq!(ordinals, [1, 3, 4, 5]);
        assert_eq!(range.marked()[3].label, "work");
        for bad in ["0", "x", "2:a,2:b", "-1", "1.5", "5-3", "0-2", "1-", "1-2,2"] {
            let err = ApproximableMemory::parse(bad).unwrap_err();
            assert_eq!(err.knob, "approximable allocation", "{bad}");
        }
        assert_eq!(ApproximableMemory::parse("3,3").unwrap_err().expected, "each allocation once");
    }

    #[test]
    fn only_whole_blocks_of_marked_allocations_are_covered() {
        let mut memory = ApproximableMemory::parse("2:b,3").unwrap();
        assert_eq!(memory.on_allocation(0x1000, 300), None);
        assert_eq!(memory.on_allocation(0x1200, 300), Some("b"));
        assert_eq!(memory.on_allocation(0x1400, 256), Some("allocation 3"));
        assert_eq!(memory.allocations(), 3);
        // Allocation 1 is not marked.
        assert!(!memory.covers_block(0x1000, 128));
        // 300 bytes at 0x1200: blocks 0x1200 and 0x1280 whole, 0x1300 partly.
        assert!(memory.covers_block(0x1200, 128));
        assert!(memory.covers_block(0x1280, 128));
        assert!(!memory.covers_block(0x1300, 128));
        assert_eq!(memory.region_of_block(0x1480, 128).map(|r| r.ordinal), Some(3));
        assert!(!memory.covers_block(0x1500, 128));
        assert!(!memory.covers_block(0x0, 128));
        assert!(memory.not_allocated().is_empty());
        let pending = ApproximableMemory::parse("1,4").unwrap();
        assert_eq!(pending.not_allocated().len(), 2);
    }
}
