//! Statistics of a memory controller. Every counter is a plain sum, so the
//! stats of several controllers [`merge`](McStats::merge) into a total; the
//! ratios are computed from the sums when asked for (and when serialized), so
//! a merged total has the right ratios rather than an average of ratios.
//!
//! Maps are `BTreeMap`s so the JSON is the same for the same run.

use std::collections::BTreeMap;

use serde::ser::{Serialize, SerializeStruct, Serializer};

use super::energy::EnergyStats;
use super::metadata_cache::MdcStats;
use crate::codec::CompressedBlock;

/// `num / den`, or `None` when either is zero (no data, or a size of zero
/// bits, which has no finite ratio).
fn ratio(num: u64, den: u64) -> Option<f64> {
    (num > 0 && den > 0).then(|| num as f64 / den as f64)
}

fn add_maps<K: Ord + Clone>(into: &mut BTreeMap<K, u64>, from: &BTreeMap<K, u64>) {
    for (key, count) in from {
        *into.entry(key.clone()).or_insert(0) += count;
    }
}

/// What a codec did to a set of blocks: how many, which encodings, and how
/// big they came out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CompressionStats {
    /// Blocks compressed.
    pub blocks: u64,
    /// Blocks stored with an encoding other than uncompressed.
    pub compressed_blocks: u64,
    /// Sum of the blocks' original sizes.
    pub uncompressed_bits: u64,
    /// Sum of the stored sizes (exact bits, before rounding to the MAG).
    pub compressed_bits: u64,
    /// Sum of the stored sizes rounded up to whole MAGs (what DRAM moves).
    pub mag_bytes: u64,
    /// Blocks per encoding name.
    pub encodings: BTreeMap<String, u64>,
    /// Blocks per stored size in bytes at MAG granularity (32, 64, ...).
    pub mag_sizes: BTreeMap<u64, u64>,
}

impl CompressionStats {
    pub fn record(&mut self, block: &CompressedBlock, encoding_name: &str, block_bytes: usize) {
        self.blocks += 1;
        self.compressed_blocks += block.is_compressed() as u64;
        self.uncompressed_bits += block_bytes as u64 * 8;
        self.compressed_bits += block.compressed_bits as u64;
        self.mag_bytes += block.mag_bytes as u64;
        *self.encodings.entry(encoding_name.to_string()).or_insert(0) += 1;
        *self.mag_sizes.entry(block.mag_bytes as u64).or_insert(0) += 1;
    }

    /// Raw compression ratio: original bits over exact compressed bits.
    pub fn raw_ratio(&self) -> Option<f64> {
        ratio(self.uncompressed_bits, self.compressed_bits)
    }

    /// Effective compression ratio: original bytes over MAG-rounded bytes,
    /// the ratio DRAM bandwidth actually sees (the MAG-aware paper §III).
    pub fn effective_ratio(&self) -> Option<f64> {
        ratio(self.uncompressed_bits / 8, self.mag_bytes)
    }

    pub fn merge(&mut self, other: &CompressionStats) {
        self.blocks += other.blocks;
        self.compressed_blocks += other.compressed_blocks;
        self.uncompressed_bits += other.uncompressed_bits;
        self.compressed_bits += other.compressed_bits;
        self.mag_bytes += other.mag_bytes;
        add_maps(&mut self.encodings, &other.encodings);
        add_maps(&mut self.mag_sizes, &other.mag_sizes);
    }
}

impl Serialize for CompressionStats {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("CompressionStats", 9)?;
        s.serialize_field("blocks", &self.blocks)?;
        s.serialize_field("compressed_blocks", &self.compressed_blocks)?;
        s.serialize_field("uncompressed_bits", &self.uncompressed_bits)?;
        s.serialize_field("compressed_bits", &self.compressed_bits)?;
        s.serialize_field("mag_bytes", &self.mag_bytes)?;
        s.serialize_field("raw_compression_ratio", &self.raw_ratio())?;
        s.serialize_field("effective_compression_ratio", &self.effective_ratio())?;
        s.serialize_field("encodings", &self.encodings)?;
        s.serialize_field("mag_sizes", &self.mag_sizes)?;
        s.end()
    }
}

/// DRAM traffic of one kind of access, next to what it would have been with
/// every block uncompressed (the counterfactual).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TrafficStats {
    /// Block accesses (DRAM requests).
    pub accesses: u64,
    /// MAG-sized bursts actually moved.
    pub bursts: u64,
    /// Bytes actually moved (`bursts * mag_bytes`).
    pub bytes: u64,
    /// Bursts had every block been moved uncompressed.
    pub uncompressed_bursts: u64,
    /// Bytes had every block been moved uncompressed.
    pub uncompressed_bytes: u64,
}

impl TrafficStats {
    /// Counts one block access of `bursts` bursts out of `full_bursts`.
    pub fn record(&mut self, bursts: usize, full_bursts: usize, mag_bytes: usize) {
        self.accesses += 1;
        self.bursts += bursts as u64;
        self.bytes += (bursts * mag_bytes) as u64;
        self.uncompressed_bursts += full_bursts as u64;
        self.uncompressed_bytes += (full_bursts * mag_bytes) as u64;
    }

    /// Bytes that would have moved uncompressed over bytes that did.
    pub fn reduction_ratio(&self) -> Option<f64> {
        ratio(self.uncompressed_bytes, self.bytes)
    }

    pub fn merge(&mut self, other: &TrafficStats) {
        self.accesses += other.accesses;
        self.bursts += other.bursts;
        self.bytes += other.bytes;
        self.uncompressed_bursts += other.uncompressed_bursts;
        self.uncompressed_bytes += other.uncompressed_bytes;
    }
}

impl Serialize for TrafficStats {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("TrafficStats", 6)?;
        s.serialize_field("accesses", &self.accesses)?;
        s.serialize_field("bursts", &self.bursts)?;
        s.serialize_field("bytes", &self.bytes)?;
        s.serialize_field("uncompressed_bursts", &self.uncompressed_bursts)?;
        s.serialize_field("uncompressed_bytes", &self.uncompressed_bytes)?;
        s.serialize_field("reduction_ratio", &self.reduction_ratio())?;
        s.end()
    }
}

/// Metadata-cache lookups and the DRAM traffic its misses cost.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MetadataStats {
    /// False when the codec keeps no metadata (`none`): no lookups happen.
    pub enabled: bool,
    pub cache: MdcStats,
    /// Line fills after misses: real extra DRAM reads.
    pub fetch_bytes: u64,
    pub fetch_bursts: u64,
    /// Dirty lines written back on eviction: real extra DRAM writes.
    pub writeback_bytes: u64,
    pub writeback_bursts: u64,
}

impl MetadataStats {
    pub fn merge(&mut self, other: &MetadataStats) {
        self.enabled |= other.enabled;
        self.cache.merge(&other.cache);
        self.fetch_bytes += other.fetch_bytes;
        self.fetch_bursts += other.fetch_bursts;
        self.writeback_bytes += other.writeback_bytes;
        self.writeback_bursts += other.writeback_bursts;
    }

    pub fn dram_bytes(&self) -> u64 {
        self.fetch_bytes + self.writeback_bytes
    }
}

impl Serialize for MetadataStats {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("MetadataStats", 10)?;
        s.serialize_field("enabled", &self.enabled)?;
        s.serialize_field("hits", &self.cache.hits())?;
        s.serialize_field("misses", &self.cache.misses())?;
        s.serialize_field("hit_rate", &self.cache.hit_rate())?;
        s.serialize_field("cache", &self.cache)?;
        s.serialize_field("fetch_bytes", &self.fetch_bytes)?;
        s.serialize_field("fetch_bursts", &self.fetch_bursts)?;
        s.serialize_field("writeback_bytes", &self.writeback_bytes)?;
        s.serialize_field("writeback_bursts", &self.writeback_bursts)?;
        s.end()
    }
}

/// The simulator's own DRAM counters for one channel (or the sum over
/// channels), read at kernel end: gpgpu-sim's `dram_t` `n_cmd` (DRAM command
/// clock cycles elapsed), `bwutil` (cycles the data bus was busy with bursts),
/// `n_act` (row activations) and its read/write column commands. memzip's
/// model does not produce them; they are here so a run's DRAM bandwidth
/// utilisation sits next to its compression statistics. With them, read at
/// the same moment, the column commands the DRAM still owes for requests
/// memzip has charged (`unissued_bursts`): memzip counts a request's bursts
/// when it leaves the L2, the DRAM a command when it issues it, and a kernel
/// ends without waiting for the requests in between. So under `none`
/// `read_commands + write_commands + unissued_bursts` equals memzip's
/// `dram_bursts` exactly (checked by `tests/sim/`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DramDeviceStats {
    /// DRAM command-clock cycles simulated (`n_cmd`).
    pub cycles: u64,
    /// Cycles the data bus moved bursts (`bwutil`).
    pub busy_cycles: u64,
    /// Row activations (`n_act`).
    pub activations: u64,
    /// Read and write column commands (one atom each).
    pub read_commands: u64,
    pub write_commands: u64,
    /// Column commands not issued yet for requests memzip has charged: those
    /// in the partition's DRAM latency queue, the DRAM's request and
    /// scheduler queues, and the rest of the requests in service in the banks.
    pub unissued_bursts: u64,
}

impl DramDeviceStats {
    /// Data-bus busy cycles over DRAM cycles. For a sum over channels (which
    /// all run the same number of cycles) this is the channels' average.
    pub fn bandwidth_utilization(&self) -> Option<f64> {
        (self.cycles > 0).then(|| self.busy_cycles as f64 / self.cycles as f64)
    }

    pub fn merge(&mut self, other: &DramDeviceStats) {
        self.cycles += other.cycles;
        self.busy_cycles += other.busy_cycles;
        self.activations += other.activations;
        self.read_commands += other.read_commands;
        self.write_commands += other.write_commands;
        self.unissued_bursts += other.unissued_bursts;
    }
}

impl Serialize for DramDeviceStats {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("DramDeviceStats", 7)?;
        s.serialize_field("cycles", &self.cycles)?;
        s.serialize_field("busy_cycles", &self.busy_cycles)?;
        s.serialize_field("activations", &self.activations)?;
        s.serialize_field("read_commands", &self.read_commands)?;
        s.serialize_field("write_commands", &self.write_commands)?;
        s.serialize_field("unissued_bursts", &self.unissued_bursts)?;
        s.serialize_field("bandwidth_utilization", &self.bandwidth_utilization())?;
        s.end()
    }
}

/// `-memzip_verify` results.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct VerifyStats {
    /// Blocks decompressed and compared.
    pub checked: u64,
    /// Blocks that did not decode to the original (each also stops the
    /// operation with an error).
    pub failures: u64,
}

impl VerifyStats {
    pub fn merge(&mut self, other: &VerifyStats) {
        self.checked += other.checked;
        self.failures += other.failures;
    }
}

/// Approximable data (a lossy codec's input, [`super::approx`]): what was
/// offered and what was stored approximated.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct ApproximationStats {
    /// Blocks stored (written back or copied) that the program marks
    /// approximable.
    pub approximable_blocks: u64,
    /// Of those, the blocks stored approximated.
    pub approximated_blocks: u64,
    /// Bytes whose value the approximation changed.
    pub changed_bytes: u64,
}

impl ApproximationStats {
    pub fn merge(&mut self, other: &ApproximationStats) {
        self.approximable_blocks += other.approximable_blocks;
        self.approximated_blocks += other.approximated_blocks;
        self.changed_bytes += other.changed_bytes;
    }
}

/// Requests that are not one whole block (a sectored L2's sector reads, the
/// write-back of a line with only some sectors dirty, a partial write): what
/// they cost on top of moving the bytes asked for
/// ([`partial`](super::controller::partial)). Their bursts are also in
/// `dram_reads` / `dram_writes`; the read-modify-write reads only here.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct PartialStats {
    /// Reads of part of a block.
    pub reads: u64,
    /// Of those, reads of a block stored compressed: the whole stored block
    /// is fetched and decompressed.
    pub compressed_reads: u64,
    /// Bursts those reads fetched beyond the bursts they asked for.
    pub overfetch_bursts: u64,
    /// Of the compressed reads, those of a block an earlier partial read had
    /// already fetched whole since it was last written (the L2 kept only the
    /// sectors it asked for), and their bursts: at most what an L2 filling
    /// every decompressed sector would save.
    pub refetches: u64,
    pub refetch_bursts: u64,
    /// Sectors the L2 filled from such whole fetches beyond those it asked
    /// for (`-memzip_partial_reads fill`; 0 under `sector`).
    pub filled_sectors: u64,
    /// Compressed reads matched to a whole fetch of their block already in
    /// flight (`-memzip_partial_reads fill`): no DRAM access of their own.
    pub merged_reads: u64,
    /// Writes of part of a block.
    pub writes: u64,
    /// Of those, the writes that first read the block back
    /// (read-modify-write), and the bursts and bytes they read.
    pub rmw_reads: u64,
    pub rmw_read_bursts: u64,
    pub rmw_read_bytes: u64,
    /// Blocks stored compressed that a partial write left stored raw.
    pub raw_fallbacks: u64,
}

impl PartialStats {
    /// Whether the requests cost anything beyond their bytes.
    pub fn any_cost(&self) -> bool {
        self.overfetch_bursts > 0 || self.rmw_read_bursts > 0 || self.raw_fallbacks > 0
    }

    pub fn merge(&mut self, other: &PartialStats) {
        self.reads += other.reads;
        self.compressed_reads += other.compressed_reads;
        self.overfetch_bursts += other.overfetch_bursts;
        self.refetches += other.refetches;
        self.refetch_bursts += other.refetch_bursts;
        self.filled_sectors += other.filled_sectors;
        self.merged_reads += other.merged_reads;
        self.writes += other.writes;
        self.rmw_reads += other.rmw_reads;
        self.rmw_read_bursts += other.rmw_read_bursts;
        self.rmw_read_bytes += other.rmw_read_bytes;
        self.raw_fallbacks += other.raw_fallbacks;
    }
}

/// Everything one memory controller counts, or the sum over several.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct McStats {
    /// Codec name (`a,b` if controllers with different codecs were merged).
    pub codec: String,
    /// Controllers summed into these stats.
    pub controllers: u64,
    pub block_bytes: usize,
    pub mag_bytes: usize,
    /// Blocks written back to DRAM by kernels.
    pub writes: CompressionStats,
    /// Blocks compressed during host-to-device copies (not kernel traffic).
    pub memcpy: CompressionStats,
    /// Blocks read from DRAM, per stored encoding name.
    pub reads_by_encoding: BTreeMap<String, u64>,
    /// Reads of blocks never written or copied (stored uncompressed).
    pub unwritten_reads: u64,
    /// Kernel DRAM traffic: block reads and write-backs.
    pub dram_reads: TrafficStats,
    pub dram_writes: TrafficStats,
    /// Host-to-device copy traffic, kept apart from kernel traffic.
    pub memcpy_traffic: TrafficStats,
    pub metadata: MetadataStats,
    /// Requests of part of a block and what they cost beyond their bytes.
    pub partial: PartialStats,
    /// Every DRAM request by the simulator's access type and size in bytes
    /// (`"GLOBAL_ACC_R/32"`), whether memzip sized it or not: what reaches
    /// DRAM, measured.
    pub requests: BTreeMap<String, u64>,
    pub verify: VerifyStats,
    /// Approximable blocks and approximations (lossy codecs).
    pub approximation: ApproximationStats,
    /// Sum of compression latencies added to write-backs.
    pub compress_cycles: u64,
    /// Sum of decompression latencies added to reads.
    pub decompress_cycles: u64,
    /// Times an online sampling phase was ended (E2MC), per controller.
    pub sampling_ends: u64,
    /// Blocks stored (written back or copied) while sampling online.
    pub sampling_blocks: u64,
    /// Of those, the blocks stored raw (E2MC stores all of them raw).
    pub sampling_raw_blocks: u64,
    /// The simulator's DRAM counters (set by the simulator hook at kernel end;
    /// zero when the model runs without a simulator).
    pub dram_device: DramDeviceStats,
    /// Energy by component (`mc::energy`).
    pub energy: EnergyStats,
}

impl McStats {
    pub fn blocks_written(&self) -> u64 {
        self.writes.blocks
    }

    pub fn blocks_read(&self) -> u64 {
        self.dram_reads.accesses
    }

    /// Every block this controller compressed: kernel write-backs and copies.
    pub fn all_compressed(&self) -> CompressionStats {
        let mut all = self.writes.clone();
        all.merge(&self.memcpy);
        all
    }

    /// Raw compression ratio over every block written to DRAM (kernel
    /// write-backs and host-to-device copies): the data as stored.
    pub fn raw_compression_ratio(&self) -> Option<f64> {
        self.all_compressed().raw_ratio()
    }

    /// Effective (MAG-rounded) compression ratio over the same blocks.
    pub fn effective_compression_ratio(&self) -> Option<f64> {
        self.all_compressed().effective_ratio()
    }

    /// Counts one DRAM request under `"<kind>/<bytes>"` ([`requests`](Self::requests)).
    /// Called for every request the simulator sends: the key is built on the
    /// stack, and a `String` is allocated only the first time a key is seen.
    pub fn count_request(&mut self, kind: &str, bytes: usize) {
        use std::io::Write as _;
        let mut buf = [0u8; 96];
        let mut cursor = std::io::Cursor::new(&mut buf[..]);
        let written = write!(cursor, "{kind}/{bytes}").map(|()| cursor.position() as usize);
        // A kind longer than the buffer: allocate below.
        let key = written.ok().and_then(|len| std::str::from_utf8(&buf[..len]).ok());
        match key.and_then(|k| self.requests.get_mut(k)) {
            Some(count) => *count += 1,
            None => *self.requests.entry(format!("{kind}/{bytes}")).or_insert(0) += 1,
        }
    }

    /// Kernel DRAM bytes actually moved: block reads, write-backs,
    /// metadata fills/write-backs and the reads of read-modify-writes.
    pub fn dram_bytes(&self) -> u64 {
        self.dram_reads.bytes + self.dram_writes.bytes + self.metadata.dram_bytes() + self.partial.rmw_read_bytes
    }

    /// Kernel DRAM bursts actually moved, metadata and read-modify-write reads included.
    pub fn dram_bursts(&self) -> u64 {
        self.dram_reads.bursts
            + self.dram_writes.bursts
            + self.metadata.fetch_bursts
            + self.metadata.writeback_bursts
            + self.partial.rmw_read_bursts
    }

    /// Kernel DRAM bytes had nothing been compressed (and no metadata kept).
    pub fn uncompressed_dram_bytes(&self) -> u64 {
        self.dram_reads.uncompressed_bytes + self.dram_writes.uncompressed_bytes
    }

    pub fn uncompressed_dram_bursts(&self) -> u64 {
        self.dram_reads.uncompressed_bursts + self.dram_writes.uncompressed_bursts
    }

    /// Share of every stored block (write-backs and copies) that was stored
    /// raw because the online sampling phase was still running.
    pub fn sampling_raw_share(&self) -> Option<f64> {
        let stored = self.writes.blocks + self.memcpy.blocks;
        (stored > 0).then(|| self.sampling_raw_blocks as f64 / stored as f64)
    }

    /// Uncompressed over actual kernel DRAM bytes, metadata traffic included.
    pub fn dram_reduction_ratio(&self) -> Option<f64> {
        ratio(self.uncompressed_dram_bytes(), self.dram_bytes())
    }

    /// Adds another controller's stats (or another total) into these.
    pub fn merge(&mut self, other: &McStats) {
        for name in other.codec.split(',').filter(|n| !n.is_empty()) {
            if !self.codec.split(',').any(|c| c == name) {
                if !self.codec.is_empty() {
                    self.codec.push(',');
                }
                self.codec.push_str(name);
            }
        }
        if self.controllers == 0 {
            self.block_bytes = other.block_bytes;
            self.mag_bytes = other.mag_bytes;
        }
        self.controllers += other.controllers;
        self.writes.merge(&other.writes);
        self.memcpy.merge(&other.memcpy);
        add_maps(&mut self.reads_by_encoding, &other.reads_by_encoding);
        self.unwritten_reads += other.unwritten_reads;
        self.dram_reads.merge(&other.dram_reads);
        self.dram_writes.merge(&other.dram_writes);
        self.memcpy_traffic.merge(&other.memcpy_traffic);
        self.metadata.merge(&other.metadata);
        self.partial.merge(&other.partial);
        add_maps(&mut self.requests, &other.requests);
        self.verify.merge(&other.verify);
        self.approximation.merge(&other.approximation);
        self.compress_cycles += other.compress_cycles;
        self.decompress_cycles += other.decompress_cycles;
        self.sampling_ends += other.sampling_ends;
        self.sampling_blocks += other.sampling_blocks;
        self.sampling_raw_blocks += other.sampling_raw_blocks;
        self.dram_device.merge(&other.dram_device);
        self.energy.merge(&other.energy);
    }

    /// Energy by component, the row activations the simulator counted
    /// (`dram_device`) included.
    pub fn energy(&self) -> EnergyStats {
        self.energy.with_activations(self.dram_device.activations)
    }

    /// The run's simulated time so far (core cycles at `core_hz`), for the
    /// energy-delay product.
    pub fn set_simulated_time(&mut self, cycles: u64, core_hz: f64) {
        self.energy.simulated_cycles = cycles;
        self.energy.core_hz = core_hz;
    }

    /// The sum of several controllers' stats.
    pub fn total<'a>(all: impl IntoIterator<Item = &'a McStats>) -> McStats {
        let mut total = McStats::default();
        for stats in all {
            total.merge(stats);
        }
        total
    }

    /// A block of `key = value` lines for the simulator log, each starting
    /// with `prefix` (e.g. `memzip_total` or `memzip_mc[3]`), in the
    /// `name = value` style gpgpu-sim prints its own statistics in.
    pub fn to_text(&self, prefix: &str) -> String {
        let fmt_ratio = |r: Option<f64>| r.map_or("n/a".to_string(), |r| format!("{r:.4}"));
        let fmt_map =
            |m: &BTreeMap<String, u64>| m.iter().map(|(k, v)| format!("{k}:{v}")).collect::<Vec<_>>().join(" ");
        let sizes =
            self.all_compressed().mag_sizes.iter().map(|(k, v)| format!("{k}B:{v}")).collect::<Vec<_>>().join(" ");
        let energy = self.energy();
        let lines = [
            ("codec", self.codec.clone()),
            ("controllers", self.controllers.to_string()),
            ("blocks_written", self.writes.blocks.to_string()),
            ("blocks_read", self.dram_reads.accesses.to_string()),
            ("blocks_copied", self.memcpy.blocks.to_string()),
            ("raw_compression_ratio", fmt_ratio(self.raw_compression_ratio())),
            ("effective_compression_ratio", fmt_ratio(self.effective_compression_ratio())),
            ("dram_bytes", self.dram_bytes().to_string()),
            ("dram_bytes_uncompressed", self.uncompressed_dram_bytes().to_string()),
            ("dram_bursts", self.dram_bursts().to_string()),
            ("dram_bursts_uncompressed", self.uncompressed_dram_bursts().to_string()),
            ("dram_reduction_ratio", fmt_ratio(self.dram_reduction_ratio())),
            ("write_encodings", fmt_map(&self.writes.encodings)),
            ("read_encodings", fmt_map(&self.reads_by_encoding)),
            ("stored_sizes_at_mag", sizes),
            ("metadata_cache_hits", self.metadata.cache.hits().to_string()),
            ("metadata_cache_misses", self.metadata.cache.misses().to_string()),
            ("metadata_dram_bytes", self.metadata.dram_bytes().to_string()),
            ("partial_reads", self.partial.reads.to_string()),
            ("partial_overfetch_bursts", self.partial.overfetch_bursts.to_string()),
            ("partial_writes", self.partial.writes.to_string()),
            ("partial_rmw_read_bursts", self.partial.rmw_read_bursts.to_string()),
            ("partial_raw_fallbacks", self.partial.raw_fallbacks.to_string()),
            ("requests", fmt_map(&self.requests)),
            ("verify_checked", self.verify.checked.to_string()),
            ("verify_failures", self.verify.failures.to_string()),
            ("approximable_blocks", self.approximation.approximable_blocks.to_string()),
            ("approximated_blocks", self.approximation.approximated_blocks.to_string()),
            ("approximated_changed_bytes", self.approximation.changed_bytes.to_string()),
            ("sampling_phases_ended", self.sampling_ends.to_string()),
            ("sampling_blocks", self.sampling_blocks.to_string()),
            ("sampling_raw_share", fmt_ratio(self.sampling_raw_share())),
            ("dram_bandwidth_utilization", fmt_ratio(self.dram_device.bandwidth_utilization())),
            ("energy_total_nj", format!("{:.3}", energy.total_pj() / 1e3)),
            ("energy_dram_nj", format!("{:.3}", energy.dram_pj() / 1e3)),
            ("energy_dram_activations", energy.dram_activations.to_string()),
            ("energy_codec_nj", format!("{:.3}", energy.codec_pj() / 1e3)),
            ("energy_metadata_nj", format!("{:.3}", energy.metadata_pj() / 1e3)),
            ("energy_copy_compress_nj", format!("{:.3}", energy.copy_compress_pj / 1e3)),
            ("energy_delay_product_js", energy.edp_js().map_or("n/a".to_string(), |e| format!("{e:.6e}"))),
        ];
        lines.iter().map(|(key, value)| format!("{prefix}_{key} = {value}\n")).collect()
    }

    /// Pretty JSON, the format of `-memzip_stats_json`.
    pub fn to_json(&self) -> String {
        // Serializing plain counters and string-keyed maps cannot fail; the
        // fallback only keeps this function total.
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }
}

impl Serialize for McStats {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("McStats", 35)?;
        s.serialize_field("codec", &self.codec)?;
        s.serialize_field("controllers", &self.controllers)?;
        s.serialize_field("block_bytes", &self.block_bytes)?;
        s.serialize_field("mag_bytes", &self.mag_bytes)?;
        s.serialize_field("blocks_written", &self.blocks_written())?;
        s.serialize_field("blocks_read", &self.blocks_read())?;
        s.serialize_field("memcpy_blocks", &self.memcpy.blocks)?;
        s.serialize_field("raw_compression_ratio", &self.raw_compression_ratio())?;
        s.serialize_field("effective_compression_ratio", &self.effective_compression_ratio())?;
        s.serialize_field("dram_bytes", &self.dram_bytes())?;
        s.serialize_field("dram_bursts", &self.dram_bursts())?;
        s.serialize_field("uncompressed_dram_bytes", &self.uncompressed_dram_bytes())?;
        s.serialize_field("uncompressed_dram_bursts", &self.uncompressed_dram_bursts())?;
        s.serialize_field("dram_reduction_ratio", &self.dram_reduction_ratio())?;
        s.serialize_field("writes", &self.writes)?;
        s.serialize_field("memcpy", &self.memcpy)?;
        s.serialize_field("reads_by_encoding", &self.reads_by_encoding)?;
        s.serialize_field("unwritten_reads", &self.unwritten_reads)?;
        s.serialize_field("dram_reads", &self.dram_reads)?;
        s.serialize_field("dram_writes", &self.dram_writes)?;
        s.serialize_field("memcpy_traffic", &self.memcpy_traffic)?;
        s.serialize_field("metadata_cache", &self.metadata)?;
        s.serialize_field("partial", &self.partial)?;
        s.serialize_field("requests", &self.requests)?;
        s.serialize_field("verify", &self.verify)?;
        s.serialize_field("approximation", &self.approximation)?;
        s.serialize_field("compress_cycles", &self.compress_cycles)?;
        s.serialize_field("decompress_cycles", &self.decompress_cycles)?;
        s.serialize_field("sampling_ends", &self.sampling_ends)?;
        s.serialize_field("sampling_blocks", &self.sampling_blocks)?;
        s.serialize_field("sampling_raw_blocks", &self.sampling_raw_blocks)?;
        s.serialize_field("sampling_raw_share", &self.sampling_raw_share())?;
        s.serialize_field("dram_bandwidth_utilization", &self.dram_device.bandwidth_utilization())?;
        s.serialize_field("dram_device", &self.dram_device)?;
        s.serialize_field("energy", &self.energy())?;
        s.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn channel(cycles: u64, busy_cycles: u64) -> McStats {
        McStats {
            controllers: 1,
            dram_device: DramDeviceStats {
                cycles,
                busy_cycles,
                activations: 3,
                read_commands: 5,
                write_commands: 7,
                unissued_bursts: 2,
            },
            ..McStats::default()
        }
    }

    #[test]
    fn dram_utilization_of_a_total_is_the_channels_average() {
        // Two channels over the same 1000 cycles, busy 600 and 200: 0.4 on
        // average, which is what busy over cycles of the sum gives.
        let total = McStats::total([&channel(1000, 600), &channel(1000, 200)]);
        assert_eq!(total.dram_device.cycles, 2000);
        assert_eq!(total.dram_device.activations, 6);
        assert_eq!(total.dram_device.bandwidth_utilization(), Some(0.4));
        let json: serde_json::Value = serde_json::from_str(&total.to_json()).unwrap();
        assert_eq!(json["dram_bandwidth_utilization"], 0.4);
        assert_eq!(json["dram_device"]["busy_cycles"], 800);
        assert_eq!(json["dram_device"]["unissued_bursts"], 4);
        assert!(total.to_text("t").contains("t_dram_bandwidth_utilization = 0.4000\n"));
    }

    #[test]
    fn requests_are_counted_by_kind_and_size() {
        let mut stats = McStats::default();
        let long = "K".repeat(200);
        for (kind, bytes) in [("GLOBAL_ACC_R", 32), ("GLOBAL_ACC_R", 32), ("L2_WRBK_ACC", 128), (long.as_str(), 32)] {
            stats.count_request(kind, bytes);
        }
        stats.count_request(&long, 32);
        let counts: Vec<(&str, u64)> = stats.requests.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        assert_eq!(counts[..2], [("GLOBAL_ACC_R/32", 2), (format!("{long}/32").as_str(), 2)]);
        assert_eq!(counts[2], ("L2_WRBK_ACC/128", 1));
    }

    #[test]
    fn no_dram_cycles_means_no_utilization() {
        let none = McStats::default();
        assert_eq!(none.dram_device.bandwidth_utilization(), None);
        assert!(none.to_text("t").contains("t_dram_bandwidth_utilization = n/a\n"));
    }
}
