//! `memzip analyze`: every codec evaluated offline on the same blocks of a
//! `-memzip_trace` file, in one streaming pass.
//!
//! # Which blocks
//! DRAM stores what is written to it: kernel write-backs and host-to-device
//! copies. Those are the blocks the memory controller compresses, so they are
//! the ones analysed by default. A read re-reads a block that was written
//! (or never written: zeros), so counting reads would weigh each stored block
//! by how often it is read; `include_reads` does that when asked (a view of
//! read traffic rather than of stored data).
//!
//! # Streaming and parallelism
//! One reader thread decodes the trace into chunks of `chunk_blocks` blocks
//! and hands them over a channel that holds two chunks, so memory stays at a
//! few chunks whatever the trace size. Codecs are stateful (the adaptive
//! selector samples, E2MC learns its code online), so every codec instance
//! must see the blocks in trace order: each chunk is fed to all codecs in
//! parallel (rayon, one task per codec), and within a codec block by block.
//!
//! # Online sampling
//! After `sample_blocks` analysed blocks every codec's
//! [`Codec::end_sampling`] is called once (codecs that do not sample ignore
//! it; E2MC builds its code table from the blocks seen so far, as its online
//! mode does in the simulator). A trace with fewer blocks never ends
//! sampling, which the result records. With an offline table
//! (`e2mc_table`) sampling is not ended at all.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use memzip::codec::cost_profile::CostProfile;
use memzip::codec::e2mc::CodeTable;
use memzip::codec::registry::build;
use memzip::codec::spec::CodecSpec;
use memzip::codec::Table2Patterns;
use memzip::{BlockSize, Codec, CompressedBlock, Geometry};
use rayon::prelude::*;
use serde::Serialize;

use crate::blocks::{open_trace, stream_blocks, Chunk};
pub use crate::blocks::{KindCounts, DEFAULT_CHUNK_BLOCKS};
pub use crate::error::AnalyzeError;
use crate::float_bounds::{self, ElementFormat, FloatBounds, FloatBoundsRun};
use crate::profile::{profile, ProfileOptions};
use crate::shannon::{ShannonResult, ShannonRun, DEFAULT_MAX_DISTINCT, SYMBOL_BITS};
use crate::text::{fmt_opt, Align, Table};

/// Analysed blocks after which online sampling ends.
pub const DEFAULT_SAMPLE_BLOCKS: u64 = 100_000;

/// What to analyse and how.
#[derive(Debug, Clone)]
pub struct AnalyzeOptions {
    /// Codec specs (`name[:key=value,...]`), evaluated side by side.
    pub codecs: Vec<String>,
    /// The unit sizes are rounded to: the MAG for DRAM (16, 32, 64), any
    /// power of two down to 1 for a link (the fabric between GPUs sends
    /// whole bytes).
    pub mag_bytes: usize,
    /// Latencies where a spec sets none (they steer the adaptive selector's
    /// choices): each codec's own, or the multi-GPU paper's Table III.
    pub costs: CostProfile,
    /// Analyse reads too (default: write-backs and copies only).
    pub include_reads: bool,
    pub chunk_blocks: usize,
    /// Analysed blocks after which `end_sampling` is called.
    pub sample_blocks: u64,
    /// An E2MC code table (offline probabilities) for the `e2mc<bits>`
    /// codecs of its symbol length.
    pub e2mc_table: Option<OfflineTable>,
    /// Every other `e2mc<bits>` codec starts from a table profiled from the
    /// trace it analyses (the E2MC paper Section V-A, Fig. 9a: offline
    /// probabilities of the same run), one extra pass per symbol length.
    pub e2mc_self_profile: bool,
    /// Decompress every block and compare it with the original.
    pub verify: bool,
    /// Symbol lengths to compute the Shannon bound at.
    pub shannon_bits: Vec<u32>,
    /// Cap on distinct 32-bit values counted for the 32-bit bound.
    pub shannon_max_distinct: usize,
    /// What the blocks hold, for the tensor bounds (`float_bounds`);
    /// `None`: not computed.
    pub element_format: Option<ElementFormat>,
}

/// An E2MC code table (offline probabilities), shared by every codec of its
/// symbol length.
#[derive(Debug, Clone)]
pub struct OfflineTable {
    pub symbol_bits: u32,
    pub table: Arc<CodeTable>,
}

impl OfflineTable {
    /// Parses and checks a table file's text (the library validates its codes).
    pub fn parse(json: String) -> Result<Self, AnalyzeError> {
        CodeTable::from_json(&json).map(Self::from).map_err(AnalyzeError::config)
    }

    /// The codec this table is for.
    pub fn codec_name(&self) -> String {
        format!("e2mc{}", self.symbol_bits)
    }
}

impl From<CodeTable> for OfflineTable {
    fn from(table: CodeTable) -> Self {
        OfflineTable { symbol_bits: table.symbol_bits, table: Arc::new(table) }
    }
}

impl AnalyzeOptions {
    pub fn new(codecs: Vec<String>) -> Self {
        AnalyzeOptions {
            codecs,
            mag_bytes: Geometry::default().mag_bytes(),
            costs: CostProfile::CodecDefaults,
            include_reads: false,
            chunk_blocks: DEFAULT_CHUNK_BLOCKS,
            sample_blocks: DEFAULT_SAMPLE_BLOCKS,
            e2mc_table: None,
            e2mc_self_profile: false,
            verify: false,
            shannon_bits: SYMBOL_BITS.to_vec(),
            shannon_max_distinct: DEFAULT_MAX_DISTINCT,
            element_format: None,
        }
    }

    fn analysed_kinds(&self) -> Vec<&'static str> {
        let mut kinds = vec!["write", "memcpy"];
        if self.include_reads {
            kinds.insert(0, "read");
        }
        kinds
    }
}

/// Splits a `--codecs` list. Knob lists use commas too
/// (`adaptive:lambda=6,candidates=fpc/bdi`), so a piece that starts with
/// `key=` continues the previous spec instead of naming a codec.
pub fn split_codec_list(list: &str) -> Vec<String> {
    let mut specs: Vec<String> = Vec::new();
    for piece in list.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let continues_knobs = piece
            .split_once('=')
            .is_some_and(|(key, _)| !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
        match specs.last_mut() {
            Some(last) if continues_knobs => {
                last.push(',');
                last.push_str(piece);
            }
            _ => specs.push(piece.to_string()),
        }
    }
    specs
}

/// One codec's results on one trace.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CodecResult {
    /// The spec as given (`name[:knobs]`).
    pub codec: String,
    pub blocks: u64,
    /// Blocks stored with an encoding other than uncompressed.
    pub compressed_blocks: u64,
    pub compressed_fraction: Option<f64>,
    pub uncompressed_bits: u64,
    /// Sum of exact compressed sizes.
    pub compressed_bits: u64,
    /// Sum of sizes rounded up to the MAG (what DRAM moves).
    pub mag_bytes: u64,
    /// `uncompressed_bits / compressed_bits`.
    pub raw_compression_ratio: Option<f64>,
    /// Block bytes over MAG-rounded bytes (the MAG-aware paper Section III).
    pub effective_compression_ratio: Option<f64>,
    /// Blocks per stored size in bytes at the MAG, every multiple of the MAG
    /// up to the block size listed (zeros included).
    pub mag_size_histogram: BTreeMap<usize, u64>,
    /// Blocks per encoding name.
    pub encodings: BTreeMap<String, u64>,
    /// Words per pattern number of the adaptive-compression paper's Table II
    /// (its Table VI), for the codecs that table lists, under `--costs
    /// paper004` only (the paper's analysis).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table2_patterns: Option<BTreeMap<usize, u64>>,
    /// Analysed blocks seen before `end_sampling` was called; `None` when it
    /// was not (offline table, or a trace shorter than the sampling phase).
    pub sampling_ended_after_blocks: Option<u64>,
    /// The codec started from the offline E2MC table (`e2mc_table`).
    pub offline_table: bool,
    /// Blocks decompressed and compared (`verify`).
    pub verified_blocks: u64,
}

/// Everything `analyze` found in one trace.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TraceAnalysis {
    pub trace: String,
    pub block_bytes: usize,
    pub mag_bytes: usize,
    /// Every record in the trace, by kind.
    pub records: KindCounts,
    pub analysed_kinds: Vec<&'static str>,
    /// Blocks fed to each codec.
    pub blocks: u64,
    pub codecs: Vec<CodecResult>,
    /// The Shannon bound of the analysed blocks per symbol length.
    pub shannon: Vec<ShannonResult>,
    /// The tensor bounds, with `element_format`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub float_bounds: Option<FloatBounds>,
}

/// Sums over the blocks one codec stored.
#[derive(Debug, Default)]
struct Tally {
    blocks: u64,
    compressed_blocks: u64,
    compressed_bits: u64,
    mag_bytes: u64,
    /// Blocks per encoding id.
    by_encoding: Vec<u64>,
    /// Blocks per burst count (index = bursts).
    by_bursts: Vec<u64>,
    verified: u64,
}

impl Tally {
    fn record(&mut self, block: BlockSize, geometry: Geometry) {
        self.blocks += 1;
        self.compressed_blocks += block.is_compressed() as u64;
        self.compressed_bits += block.compressed_bits as u64;
        self.mag_bytes += geometry.mag_rounded_bytes(block.compressed_bits) as u64;
        bump(&mut self.by_encoding, block.encoding as usize);
        bump(&mut self.by_bursts, geometry.burst_count(block.compressed_bits));
    }
}

fn bump(counts: &mut Vec<u64>, index: usize) {
    if counts.len() <= index {
        counts.resize(index + 1, 0);
    }
    counts[index] += 1;
}

fn ratio(num: u64, den: u64) -> Option<f64> {
    (num > 0 && den > 0).then(|| num as f64 / den as f64)
}

/// One codec instance working through a trace in order.
struct CodecRun {
    spec: String,
    codec: Box<dyn Codec>,
    /// Index of the analysed block before which sampling ends.
    end_sampling_at: Option<u64>,
    sampling_ended_after: Option<u64>,
    offline_table: bool,
    verify: bool,
    tally: Tally,
    geometry: Geometry,
    /// The last block compressed with `verify`, reused (no allocation per block).
    compressed: CompressedBlock,
    /// Its decoded bytes, reused.
    decoded: Vec<u8>,
    /// Words per Table II pattern (`Codec::count_table2_patterns`), while
    /// the codec counts them.
    table2: Option<Table2Patterns>,
}

impl CodecRun {
    /// `tables`: offline E2MC tables, each for the codec of its symbol length.
    fn new(
        spec_text: &str,
        geometry: Geometry,
        options: &AnalyzeOptions,
        tables: &[OfflineTable],
    ) -> Result<Self, AnalyzeError> {
        let mut spec = resolved_spec(spec_text, geometry, options.costs)?;
        // An offline table replaces online sampling for the codec of its
        // symbol length, unless the spec chose a sampling mode itself.
        let offline_table = match tables.iter().find(|t| spec.name == t.codec_name()) {
            Some(table) if !spec.has("sampling") => {
                spec.set("sampling", "offline").map_err(AnalyzeError::config)?;
                spec.table = Some(Arc::clone(&table.table));
                true
            }
            _ => false,
        };
        let codec = build(&spec).map_err(AnalyzeError::config)?;
        Ok(CodecRun {
            spec: spec_text.to_string(),
            codec,
            end_sampling_at: (!offline_table).then_some(options.sample_blocks),
            sampling_ended_after: None,
            offline_table,
            verify: options.verify,
            tally: Tally::default(),
            geometry,
            compressed: CompressedBlock::default(),
            decoded: Vec::new(),
            table2: (options.costs == CostProfile::Paper004).then_some([0; 9]),
        })
    }

    fn feed(&mut self, chunk: &Chunk) -> Result<(), AnalyzeError> {
        for (index, block) in chunk.blocks() {
            if self.end_sampling_at == Some(index) {
                self.codec.end_sampling().map_err(|e| {
                    AnalyzeError::codec(format!(
                        "codec {}: end of sampling after {index} blocks failed: {e}",
                        self.spec
                    ))
                })?;
                self.sampling_ended_after = Some(index);
            }
            let failed = |e| AnalyzeError::codec(format!("codec {} failed on analysed block {index}: {e}", self.spec));
            // Without --verify only sizes are needed: the size-only path
            // (equal to compress() on every block, tests/size_only.rs).
            let size = if self.verify {
                self.codec.compress_into(block, &mut self.compressed).map_err(failed)?;
                self.check_round_trip(index, block)?;
                self.compressed.size()
            } else {
                self.codec.compressed_size(block).map_err(failed)?
            };
            self.tally.record(size, self.geometry);
            if let Some(words) = self.table2.as_mut() {
                let counted = self.codec.count_table2_patterns(block, words);
                if !counted.map_err(|e| {
                    AnalyzeError::codec(format!("codec {} failed on analysed block {index}: {e}", self.spec))
                })? {
                    self.table2 = None;
                }
            }
        }
        Ok(())
    }

    /// Decodes the block just compressed into `self.compressed` and compares.
    fn check_round_trip(&mut self, index: u64, block: &[u8]) -> Result<(), AnalyzeError> {
        self.decoded.resize(block.len(), 0);
        self.codec.decompress_into(&self.compressed, &mut self.decoded).map_err(|e| {
            AnalyzeError::codec(format!("codec {}: analysed block {index} does not decompress: {e}", self.spec))
        })?;
        if self.decoded != block {
            return Err(AnalyzeError::codec(format!(
                "codec {}: analysed block {index} decompresses to different bytes",
                self.spec
            )));
        }
        self.tally.verified += 1;
        Ok(())
    }

    fn finish(self) -> CodecResult {
        let geometry = self.codec.geometry();
        let names = self.codec.encoding_names();
        let t = self.tally;
        let uncompressed_bits = t.blocks * geometry.block_bits() as u64;
        let mut histogram: BTreeMap<usize, u64> =
            (1..=geometry.block_bursts()).map(|bursts| (bursts * geometry.mag_bytes(), 0)).collect();
        for (bursts, &count) in t.by_bursts.iter().enumerate().filter(|&(_, &c)| c > 0) {
            *histogram.entry(bursts * geometry.mag_bytes()).or_insert(0) += count;
        }
        let encodings = t
            .by_encoding
            .iter()
            .enumerate()
            .filter(|&(_, &count)| count > 0)
            .map(|(id, &count)| (names.get(id).cloned().unwrap_or_else(|| format!("encoding {id}")), count))
            .collect();
        CodecResult {
            codec: self.spec,
            blocks: t.blocks,
            compressed_blocks: t.compressed_blocks,
            compressed_fraction: (t.blocks > 0).then(|| t.compressed_blocks as f64 / t.blocks as f64),
            uncompressed_bits,
            compressed_bits: t.compressed_bits,
            mag_bytes: t.mag_bytes,
            raw_compression_ratio: ratio(uncompressed_bits, t.compressed_bits),
            effective_compression_ratio: ratio(uncompressed_bits / 8, t.mag_bytes),
            mag_size_histogram: histogram,
            encodings,
            table2_patterns: self
                .table2
                .map(|words| words.iter().enumerate().filter(|&(_, &n)| n > 0).map(|(i, &n)| (i + 1, n)).collect()),
            sampling_ended_after_blocks: self.sampling_ended_after,
            offline_table: self.offline_table,
            verified_blocks: t.verified,
        }
    }
}

/// One unit of parallel work: every task sees every chunk, in order.
enum Task {
    Codec(Box<CodecRun>),
    Shannon(Box<ShannonRun>),
    Float(Box<FloatBoundsRun>),
}

impl Task {
    fn feed(&mut self, chunk: &Chunk) -> Result<(), AnalyzeError> {
        match self {
            Task::Codec(run) => run.feed(chunk),
            Task::Shannon(run) => {
                chunk.blocks().for_each(|(_, block)| run.feed(block));
                Ok(())
            }
            Task::Float(run) => {
                chunk.blocks().for_each(|(_, block)| run.feed(block));
                Ok(())
            }
        }
    }
}

/// The offline E2MC tables for the codecs of one trace: the given table, and
/// with `e2mc_self_profile` one profiled from the trace for every other
/// symbol length an `e2mc<bits>` codec uses.
fn offline_tables(path: &Path, options: &AnalyzeOptions) -> Result<Vec<OfflineTable>, AnalyzeError> {
    let mut tables: Vec<OfflineTable> = options.e2mc_table.iter().cloned().collect();
    if !options.e2mc_self_profile {
        return Ok(tables);
    }
    for spec in &options.codecs {
        let name = spec.split(':').next().unwrap_or_default();
        let Some(bits) = name.strip_prefix("e2mc").and_then(|b| b.parse::<u32>().ok()) else { continue };
        if tables.iter().any(|t| t.symbol_bits == bits) {
            continue;
        }
        let mut profile_options = ProfileOptions::new(bits);
        profile_options.include_reads = options.include_reads;
        profile_options.chunk_blocks = options.chunk_blocks;
        let profile = profile(&[path], &profile_options)
            .map_err(|e| e.within(format!("{}: e2mc{bits} profile", path.display())))?;
        tables.push(OfflineTable::from(profile.table));
    }
    Ok(tables)
}

/// Analyses one trace with fresh codec instances.
/// The geometry a trace of `block_bytes` blocks is analysed at, or the error
/// naming the trace and the granule.
pub fn trace_geometry(path: &Path, block_bytes: usize, mag_bytes: usize) -> Result<Geometry, AnalyzeError> {
    Geometry::with_granule(block_bytes, mag_bytes).map_err(|e| {
        AnalyzeError::config(format!("{}: trace of {block_bytes}-byte blocks at MAG {mag_bytes}: {e}", path.display()))
    })
}

/// The spec a codec of the analysis runs: `text` with the cost profile's
/// latencies wherever it sets none.
pub fn resolved_spec(text: &str, geometry: Geometry, costs: CostProfile) -> Result<CodecSpec, AnalyzeError> {
    let parsed = CodecSpec::parse(text, geometry).map_err(AnalyzeError::config)?;
    costs.apply(&parsed).map_err(AnalyzeError::config)
}

pub fn analyze_trace(path: &Path, options: &AnalyzeOptions) -> Result<TraceAnalysis, AnalyzeError> {
    let reader = open_trace(path)?;
    let block_bytes = reader.block_bytes();
    let geometry = trace_geometry(path, block_bytes, options.mag_bytes)?;
    let tables = offline_tables(path, options)?;
    let mut tasks = Vec::new();
    for spec in &options.codecs {
        tasks.push(Task::Codec(Box::new(CodecRun::new(spec, geometry, options, &tables)?)));
    }
    for &bits in &options.shannon_bits {
        tasks.push(Task::Shannon(Box::new(ShannonRun::new(bits, options.shannon_max_distinct)?)));
    }
    if let Some(format) = options.element_format {
        tasks.push(Task::Float(Box::new(FloatBoundsRun::new(format, geometry, options.shannon_max_distinct)?)));
    }
    let (counts, blocks) = stream_blocks(path, reader, options.include_reads, options.chunk_blocks, |chunk| {
        tasks.par_iter_mut().try_for_each(|task| task.feed(chunk))
    })?;

    let mut codecs = Vec::new();
    let mut shannon = Vec::new();
    let mut float_bounds = None;
    for task in tasks {
        match task {
            Task::Codec(run) => codecs.push(run.finish()),
            Task::Shannon(run) => shannon.push(run.finish()),
            Task::Float(run) => float_bounds = Some(run.finish()),
        }
    }
    Ok(TraceAnalysis {
        trace: path.display().to_string(),
        block_bytes,
        mag_bytes: options.mag_bytes,
        records: counts,
        analysed_kinds: options.analysed_kinds(),
        blocks,
        codecs,
        shannon,
        float_bounds,
    })
}

/// Analyses each trace in turn (each with fresh codecs: one trace is one run).
pub fn analyze<P: AsRef<Path>>(paths: &[P], options: &AnalyzeOptions) -> Result<Vec<TraceAnalysis>, AnalyzeError> {
    if options.codecs.is_empty() && options.shannon_bits.is_empty() && options.element_format.is_none() {
        return Err(AnalyzeError::nothing("nothing to analyse: no codecs and no Shannon bound"));
    }
    if let Some(table) = &options.e2mc_table {
        let name = table.codec_name();
        if !options.codecs.iter().any(|spec| spec.split(':').next() == Some(name.as_str())) {
            return Err(AnalyzeError::config(format!(
                "the E2MC table codes {}-bit symbols but no {name} codec is analysed (add it to --codecs)",
                table.symbol_bits
            )));
        }
    }
    for &bits in &options.shannon_bits {
        ShannonRun::new(bits, options.shannon_max_distinct)?;
    }
    paths.iter().map(|path| analyze_trace(path.as_ref(), options)).collect()
}

/// The text report of one trace: a header line and one row per codec.
pub fn render_text(analysis: &TraceAnalysis) -> String {
    let r = &analysis.records;
    let mut out = format!(
        "trace {}: {}-byte blocks, MAG {} B; {} records (read {}, write {}, memcpy {}); {} {} blocks analysed\n",
        analysis.trace,
        analysis.block_bytes,
        analysis.mag_bytes,
        r.total(),
        r.read,
        r.write,
        r.memcpy,
        analysis.blocks,
        analysis.analysed_kinds.join("+"),
    );
    let sizes: Vec<usize> =
        analysis.codecs.first().map(|c| c.mag_size_histogram.keys().copied().collect()).unwrap_or_default();
    let size_names: Vec<String> = sizes.iter().map(|s| format!("{s}B")).collect();
    let mut columns = vec![
        ("codec", Align::Left),
        ("blocks", Align::Right),
        ("compressed", Align::Right),
        ("raw CR", Align::Right),
        ("eff CR", Align::Right),
    ];
    columns.extend(size_names.iter().map(|name| (name.as_str(), Align::Right)));
    let mut table = Table::new(&columns);
    for c in &analysis.codecs {
        let share = |count: u64| percent(count, c.blocks);
        let mut row = vec![
            c.codec.clone(),
            c.blocks.to_string(),
            share(c.compressed_blocks),
            fmt_opt(c.raw_compression_ratio, 3),
            fmt_opt(c.effective_compression_ratio, 3),
        ];
        row.extend(sizes.iter().map(|size| share(c.mag_size_histogram.get(size).copied().unwrap_or(0))));
        table.push(row);
    }
    out.push_str(&table.render());
    out.push_str(&sampling_note(&analysis.codecs));
    out.push_str(&shannon_text(&analysis.shannon));
    if let Some(bounds) = &analysis.float_bounds {
        out.push_str(&float_bounds::render(bounds));
    }
    out
}

/// How each E2MC codec got its code table, one line (empty without E2MC).
fn sampling_note(codecs: &[CodecResult]) -> String {
    let mut groups: Vec<(String, Vec<&str>)> = Vec::new();
    for c in codecs.iter().filter(|c| c.codec.contains("e2mc")) {
        let how = match (c.offline_table, c.sampling_ended_after_blocks) {
            (true, _) => "offline table".to_string(),
            (false, Some(n)) => format!("sampled the first {n} blocks online (stored uncompressed), then coded"),
            (false, None) => {
                "never left online sampling (trace shorter than --e2mc-sample-blocks): all uncompressed".to_string()
            }
        };
        match groups.iter_mut().find(|(h, _)| *h == how) {
            Some((_, names)) => names.push(&c.codec),
            None => groups.push((how, vec![&c.codec])),
        }
    }
    if groups.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = groups.iter().map(|(how, names)| format!("{}: {how}", names.join(" "))).collect();
    format!("E2MC code tables: {}\n", parts.join("; "))
}

/// The Shannon bound table (empty when none was computed).
fn shannon_text(bounds: &[ShannonResult]) -> String {
    if bounds.is_empty() {
        return String::new();
    }
    let mut table = Table::new(&[
        ("symbol", Align::Left),
        ("entropy bits/symbol", Align::Right),
        ("ideal CR", Align::Right),
        ("per-position ideal CR", Align::Right),
        ("distinct values", Align::Right),
        ("blocks", Align::Right),
    ]);
    for b in bounds {
        table.push(vec![
            format!("{}-bit", b.bound.symbol_bits),
            format!("{:.4}", b.bound.entropy_bits),
            fmt_opt(Some(b.bound.ideal_ratio), 3),
            fmt_opt(Some(b.bound.positional_ideal_ratio), 3),
            b.bound.distinct.to_string(),
            if b.complete { b.blocks.to_string() } else { format!("{} (first; distinct-value cap)", b.blocks) },
        ]);
    }
    format!("Shannon bound (order-0 entropy of the analysed blocks, paper 000 Section V-A):\n{}", table.render())
}

/// `count` as a percentage of `total` with one decimal, `-` when `total` is 0.
fn percent(count: u64, total: u64) -> String {
    if total == 0 {
        "-".to_string()
    } else {
        format!("{:.1}%", 100.0 * count as f64 / total as f64)
    }
}

/// The JSON document `--json` writes.
#[derive(Debug, Serialize)]
pub struct AnalyzeReport<'a> {
    pub codecs: &'a [String],
    pub include_reads: bool,
    /// Analysed blocks after which `end_sampling` is called (online sampling;
    /// not for the codec that uses the offline table).
    pub sample_blocks: u64,
    /// The offline E2MC table file.
    pub e2mc_table: Option<String>,
    /// The other e2mc codecs started from tables profiled from their trace.
    pub e2mc_offline: bool,
    pub shannon_bits: &'a [u32],
    pub traces: &'a [TraceAnalysis],
}

impl<'a> AnalyzeReport<'a> {
    /// The document of `traces` analysed with `options`; `e2mc_table`: the
    /// offline table file as the user named it.
    pub fn new(options: &'a AnalyzeOptions, e2mc_table: Option<String>, traces: &'a [TraceAnalysis]) -> Self {
        AnalyzeReport {
            codecs: &options.codecs,
            include_reads: options.include_reads,
            sample_blocks: options.sample_blocks,
            e2mc_table,
            e2mc_offline: options.e2mc_self_profile,
            shannon_bits: &options.shannon_bits,
            traces,
        }
    }

    /// The JSON text, as `--json` writes it.
    pub fn to_json(&self) -> Result<String, String> {
        serde_json::to_string_pretty(self).map(|json| json + "\n").map_err(|e| format!("cannot serialize results: {e}"))
    }
}

/// The text report of every trace, as `memzip analyze` prints it.
pub fn render_all(analyses: &[TraceAnalysis]) -> String {
    analyses.iter().map(render_text).collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codec_lists_keep_knob_commas() {
        assert_eq!(split_codec_list("none,bdi, fpc"), vec!["none", "bdi", "fpc"]);
        assert_eq!(
            split_codec_list("bdi,adaptive:lambda=6,candidates=e2mc16:pdw=2,mfv=64/fpc:variant=paper004,cpack"),
            vec!["bdi", "adaptive:lambda=6,candidates=e2mc16:pdw=2,mfv=64/fpc:variant=paper004", "cpack"]
        );
        assert_eq!(split_codec_list("e2mc16:pdw=4,mfv=512"), vec!["e2mc16:pdw=4,mfv=512"]);
        assert_eq!(split_codec_list(""), Vec::<String>::new());
    }
}
