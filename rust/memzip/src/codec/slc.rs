//! SLC: MAG-aware selective lossy compression (Lal, Lucas, Juurlink, "SLC:
//! Memory Access Granularity Aware Selective Lossy Compression for GPUs",
//! DATE 2019), in the three variants that Lal, Renz, Hartmer, Juurlink,
//! "Memory Access Granularity Aware Lossless Compression for GPUs" compares
//! MAG-aware BDI against (its Figs. 13-15): TSLC-SIMP, TSLC-PRED and TSLC-OPT,
//! `slc:variant=simp|pred|opt,threshold=16`.
//!
//! What the two papers state, and memzip follows:
//! - SLC builds on E2MC with 16-bit symbols, 4 parallel decoding ways and
//!   online sampling (MAG-aware lossless paper, Sec. V-A). The lossless
//!   coding here *is* memzip's `e2mc16` (same table, sampling and payload):
//!   a block SLC does not approximate is stored bit for bit as `e2mc16`
//!   stores it.
//! - When lossless compression leaves a block a few bytes above a multiple
//!   of the MAG, SLC approximates those extra bytes so that the block fits
//!   the multiple below (SLC abstract). The lossy threshold (knob
//!   `threshold`, default 16 bytes at a 32-byte MAG, Sec. V-A) bounds how far
//!   above: blocks further above, exactly on a multiple, or not safe to
//!   approximate are stored losslessly.
//! - Only data the program marks safe to approximate is approximated
//!   (Sec. VI-D). The memory controller hands those blocks to
//!   [`Codec::compress_approximable_into`]; [`Codec::compress_into`] is
//!   always exact.
//! - The variants differ in how approximated symbols are rebuilt:
//!   truncation (SIMP), prediction (PRED), extra tree nodes that reduce the
//!   error (OPT); their compression is almost the same (Sec. VI).
//! - Latency: 60 cycles to compress, 20 to decompress (Sec. V-A).
//!
//! memzip's choices, where the text we could read (the SLC abstract and the
//! MAG-aware lossless paper's summary of SLC; not the SLC paper's body) says
//! nothing:
//! - **Which symbols.** A binary tree over the block's symbols in address
//!   order: the leaves are single symbols, the inner nodes aligned runs of
//!   2, 4, ... symbols, up to half the block (the whole block is no
//!   candidate: dropping it is not "a few extra bytes"). The compressor
//!   leaves out the codewords of one node's symbols. SIMP and PRED take,
//!   among the nodes whose removal brings the block to the target size (node
//!   id included), the one that removes the fewest bits (ties: fewer
//!   symbols, then the lower node id).
//! - **OPT's extra nodes** hold only the low 16-bit halves of 2, 4, ...
//!   consecutive 32-bit words, up to all of the block's words (half its
//!   symbols, as the tree's largest node), and OPT
//!   takes the fitting node with the fewest high halves first, then the
//!   tightest fit. For 32-bit data (every benchmark's floats and ints) the
//!   low half is the less significant one, so OPT drops mantissa and low
//!   bits where that is enough.
//! - **Rebuilding.** SIMP truncates: left-out symbols decode as zero. PRED
//!   and OPT predict each one from the nearest kept symbol at the same half
//!   of a 32-bit word (low from low, high from high), looking backwards
//!   first, then forwards.
//! - **Stored form** of an approximated block (encoding `slc_approx`): the
//!   node id (`ceil(log2(nodes))` bits: 7 for the 126 nodes of a 128-byte
//!   block, 8 with OPT's 31 extra ones), then E2MC's way pointers and ways
//!   with the left-out codewords missing (a way may be empty). It never
//!   exceeds the target, so it moves exactly target / MAG bursts.
//! - **Target**: the MAG multiple below the lossless size, if that saves a
//!   burst against the raw block: a block E2MC leaves uncompressed at 97 to
//!   112 bytes is approximated to 96; a block within one burst stays.
//! - **Metadata**: E2MC keeps the burst count per block; SLC also needs to
//!   know whether the block is approximated, so it names `2 x bursts - 1`
//!   states (3 bits for 4 bursts).
//!
//! Encoding ids: 0 uncompressed, 1 `e2mc16` (the lossless block), 2
//! `slc_approx`.

use super::declaration::{Declaration, DefaultLatency, EnergyFigure, Knob};
use std::str::FromStr;

use super::e2mc::E2mc;
use super::spec::CodecSpec;
use super::{bits_to_name, check_block_size, BlockSize, Codec, CompressedBlock, EncodingId, Latency};
use crate::bits::peek_bits;
use crate::error::{CodecError, ConfigError, Corruption};
use crate::geometry::Geometry;
use crate::mc::energy::{CodecEnergy, EnergyParams};

/// Knob `variant`: how approximated symbols are chosen and rebuilt.
const VARIANT_ACCEPTS: &str = "simp, pred or opt (default)";
/// Knob `threshold`: bytes above a MAG multiple the compressor may drop.
const THRESHOLD_ACCEPTS: &str = "a number of bytes from 0 to the MAG (default 16)";

/// E2MC16's energy: SLC is E2MC16 plus a node search whose cost the SLC
/// paper puts at a tiny fraction of E2MC's (the MAG-aware paper §V-B:
/// 0.0008% of the GPU's power).
fn energy(params: &EnergyParams, block_bits: usize) -> CodecEnergy {
    super::e2mc::energy(SYMBOL_BITS as u32, params, block_bits)
}

pub const DECLARATIONS: &[Declaration] = &[Declaration {
    name: "slc",
    summary: "lossy: SLC (DATE 2019), E2MC16 that drops a block's last bytes above a MAG multiple, \
              only in data marked approximable",
    knobs: &[
        Knob { name: "variant", accepts: VARIANT_ACCEPTS },
        Knob { name: "threshold", accepts: THRESHOLD_ACCEPTS },
        Knob { name: "pdw", accepts: super::e2mc::PDW_ACCEPTS },
        Knob { name: "mfv", accepts: super::e2mc::MFV_ACCEPTS },
        Knob { name: "sampling", accepts: super::e2mc::SAMPLING_ACCEPTS },
    ],
    lossy: true,
    energy: EnergyFigure::PerBlock {
        per_block: energy,
        source: "E2MC16's (the E2MC paper, Table III); the node search is ~0.0008% of the GPU's power \
                 (the MAG-aware paper §V-B)",
    },
    latency: DefaultLatency::Cycles(SLC_LATENCY),
    build: |spec, _| Ok(Box::new(Slc::from_spec(spec)?)),
}];

/// Encoding id of an approximated block.
pub const SLC_APPROX_ENCODING: EncodingId = 2;
/// The lossy threshold of both papers, in bytes above a MAG multiple.
pub const DEFAULT_THRESHOLD_BYTES: usize = 16;
/// MAG-aware lossless paper, Sec. V-A: "SLC uses 60 cycles for compression
/// and 20 cycles for decompression".
pub const SLC_LATENCY: Latency = Latency::new(60, 20);
/// SLC codes E2MC16 symbols.
const SYMBOL_BITS: usize = 16;
/// Symbols of the largest block (128 bytes).
const MAX_SYMBOLS: usize = 64;

/// How approximated symbols are chosen and rebuilt (knob `variant`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Variant {
    /// TSLC-SIMP: truncation.
    Simp,
    /// TSLC-PRED: prediction from the neighbouring symbols.
    Pred,
    /// TSLC-OPT: prediction, and extra tree nodes of low halves only.
    #[default]
    Opt,
}

impl Variant {
    pub fn name(self) -> &'static str {
        match self {
            Variant::Simp => "simp",
            Variant::Pred => "pred",
            Variant::Opt => "opt",
        }
    }
}

impl FromStr for Variant {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "simp" => Ok(Variant::Simp),
            "pred" => Ok(Variant::Pred),
            "opt" => Ok(Variant::Opt),
            other => Err(format!("unknown SLC variant '{other}'")),
        }
    }
}

/// A set of symbols the compressor may leave out: `count` symbols from
/// `first`, `stride` apart (1: a run; 2: the low halves of a run of words).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Node {
    pub first: usize,
    pub count: usize,
    pub stride: usize,
}

impl Node {
    /// The symbol indices, in order.
    pub fn symbols(self) -> impl Iterator<Item = usize> {
        (0..self.count).map(move |k| self.first + k * self.stride)
    }

    pub fn contains(self, symbol: usize) -> bool {
        symbol >= self.first
            && (symbol - self.first) % self.stride == 0
            && (symbol - self.first) / self.stride < self.count
    }

    /// Symbols that are the high half of a 32-bit word.
    fn high_halves(self) -> usize {
        self.symbols().filter(|s| s % 2 == 1).count()
    }
}

/// The candidate nodes of a block of `symbols` symbols: the tree's aligned
/// runs of 1, 2, 4, ... up to `symbols / 2`; for OPT also the low halves of
/// aligned runs of 2, 4, ... up to all `symbols / 2` words.
pub fn tree_nodes(symbols: usize, variant: Variant) -> Vec<Node> {
    let mut nodes = Vec::new();
    let mut span = 1;
    while span < symbols {
        nodes.extend((0..symbols).step_by(span).map(|first| Node { first, count: span, stride: 1 }));
        span *= 2;
    }
    if variant == Variant::Opt {
        let words = symbols / 2;
        let mut span = 2;
        while span <= words {
            nodes.extend((0..words).step_by(span).map(|word| Node { first: 2 * word, count: span, stride: 2 }));
            span *= 2;
        }
    }
    nodes
}

fn pad8(bits: usize) -> usize {
    bits.div_ceil(8) * 8
}

fn symbol_at(block: &[u8], s: usize) -> u16 {
    u16::from_le_bytes([block[2 * s], block[2 * s + 1]])
}

fn set_symbol(block: &mut [u8], s: usize, value: u16) {
    block[2 * s..2 * s + 2].copy_from_slice(&value.to_le_bytes());
}

/// The SLC codec.
#[derive(Debug, Clone)]
pub struct Slc {
    /// The E2MC16 coder: its table, sampling phase and way layout.
    e2mc: E2mc,
    variant: Variant,
    threshold_bytes: usize,
    nodes: Vec<Node>,
    node_bits: u32,
    symbols: usize,
}

impl Slc {
    /// SLC around an E2MC16 codec (online or offline; see [`E2mc`]).
    pub fn new(e2mc: E2mc, variant: Variant, threshold_bytes: usize) -> Result<Self, ConfigError> {
        if e2mc.symbol_bits() != SYMBOL_BITS as u32 {
            return Err(ConfigError::new("slc.e2mc", e2mc.name(), "e2mc16 (SLC codes 16-bit symbols)"));
        }
        let geometry = e2mc.geometry();
        if threshold_bytes > geometry.mag_bytes() {
            return Err(ConfigError::new(
                "slc.threshold",
                threshold_bytes.to_string(),
                format!("bytes above a MAG multiple, 0..={} (the MAG)", geometry.mag_bytes()),
            ));
        }
        let symbols = geometry.block_bytes() / 2;
        let nodes = tree_nodes(symbols, variant);
        Ok(Slc { node_bits: bits_to_name(nodes.len()), e2mc, variant, threshold_bytes, nodes, symbols })
    }

    /// Builds `slc` from registry knobs: `variant` (simp, pred, opt; default
    /// opt), `threshold` (bytes, default 16) and E2MC16's `pdw`, `mfv` and
    /// `sampling` (see [`E2mc::from_spec`]).
    pub fn from_spec(spec: &CodecSpec) -> Result<Self, ConfigError> {
        let variant = spec.knob("variant", Variant::default(), VARIANT_ACCEPTS)?;
        let threshold = spec.knob("threshold", DEFAULT_THRESHOLD_BYTES, THRESHOLD_ACCEPTS)?;
        Slc::new(E2mc::from_spec(spec, SYMBOL_BITS as u32)?, variant, threshold)
    }

    pub fn variant(&self) -> Variant {
        self.variant
    }

    pub fn threshold_bytes(&self) -> usize {
        self.threshold_bytes
    }

    /// The candidate nodes, indexed by node id.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// The E2MC16 codec underneath (its table, for saving or inspection).
    pub fn e2mc(&self) -> &E2mc {
        &self.e2mc
    }

    /// The node an approximated block leaves out, read from its payload;
    /// `None` for a block stored losslessly.
    pub fn approximated_node(&self, compressed: &CompressedBlock) -> Result<Option<Node>, CodecError> {
        if compressed.encoding != SLC_APPROX_ENCODING {
            return Ok(None);
        }
        let id = compressed.reader()?.read(self.node_bits)? as usize;
        self.nodes.get(id).copied().map(Some).ok_or_else(|| {
            CodecError::corrupt(
                Corruption::OutOfRange,
                format!("SLC node id {id} out of range ({} nodes)", self.nodes.len()),
            )
        })
    }

    fn per_way(&self) -> usize {
        self.symbols / self.e2mc.pdw()
    }

    /// The stored size in bits of the block whose symbols have codewords of
    /// `lengths` bits, without `left_out`'s symbols (and then with a node
    /// id), or of the lossless E2MC block when `left_out` is `None`.
    fn stored_bits(&self, lengths: &[u32], left_out: Option<Node>) -> usize {
        let (pdw, per_way) = (self.e2mc.pdw(), self.per_way());
        let mut bits = (pdw - 1) * self.e2mc.pointer_bits() as usize;
        if left_out.is_some() {
            bits += self.node_bits as usize;
        }
        for w in 0..pdw {
            let way: usize = (w * per_way..(w + 1) * per_way)
                .filter(|&s| !left_out.is_some_and(|node| node.contains(s)))
                .map(|s| lengths[s] as usize)
                .sum();
            bits += if w + 1 < pdw { pad8(way) } else { way };
        }
        bits
    }

    /// The node to leave out of `block` and the target size, or `None` when
    /// the block is stored losslessly (sampling, on or too far above a MAG
    /// multiple, nothing to gain, or no node fits).
    fn plan(&self, block: &[u8]) -> Option<(usize, usize)> {
        let mut lengths = [0u32; MAX_SYMBOLS];
        for (s, length) in lengths.iter_mut().enumerate().take(self.symbols) {
            *length = self.e2mc.symbol_codeword(symbol_at(block, s) as u32)?.1;
        }
        let lengths = &lengths[..self.symbols];
        let geometry = self.e2mc.geometry();
        let mag_bits = geometry.mag_bytes() * 8;
        let lossless = self.stored_bits(lengths, None);
        let target = lossless / mag_bits * mag_bits;
        let overshoot = lossless - target;
        if overshoot == 0 || overshoot > self.threshold_bytes * 8 || target == 0 || !geometry.worth_compressing(target)
        {
            return None;
        }
        self.nodes
            .iter()
            .enumerate()
            .filter_map(|(id, &node)| {
                let stored = self.stored_bits(lengths, Some(node));
                if stored > target {
                    return None;
                }
                let removed: usize = node.symbols().map(|s| lengths[s] as usize).sum();
                let high_halves = if self.variant == Variant::Opt { node.high_halves() } else { 0 };
                Some(((high_halves, removed, node.count, id), id))
            })
            .min()
            .map(|(_, id)| (id, target))
    }

    /// Writes the approximated block: node id, way pointers, the ways
    /// without the node's codewords.
    fn encode_approximated(&self, block: &[u8], node_id: usize, out: &mut CompressedBlock) {
        let node = self.nodes[node_id];
        let (pdw, per_way) = (self.e2mc.pdw(), self.per_way());
        let codeword = |s: usize| self.e2mc.symbol_codeword(symbol_at(block, s) as u32).unwrap_or((0, 0));
        let kept = |w: usize| (w * per_way..(w + 1) * per_way).filter(move |&s| !node.contains(s));
        let mut way_bits = [0usize; 8];
        for (w, bits) in way_bits.iter_mut().enumerate().take(pdw) {
            *bits = kept(w).map(|s| codeword(s).1 as usize).sum();
        }
        let mut writer = out.take_writer();
        writer.write(node_id as u64, self.node_bits);
        let mut offset_bits = 0;
        for &bits in &way_bits[..pdw - 1] {
            offset_bits += pad8(bits);
            writer.write((offset_bits / 8) as u64, self.e2mc.pointer_bits());
        }
        for (w, &bits) in way_bits[..pdw].iter().enumerate() {
            for s in kept(w) {
                let (code, len) = codeword(s);
                writer.write(code, len);
            }
            // Ways start byte-aligned within the data, as in E2MC.
            if w + 1 < pdw {
                writer.write(0, (pad8(bits) - bits) as u32);
            }
        }
        out.set_bits(SLC_APPROX_ENCODING, writer, self.e2mc.geometry());
    }

    /// Rebuilds the node's symbols of `block` (whose other symbols are
    /// exact) as the variant defines.
    fn rebuild(&self, node: Node, block: &mut [u8]) {
        for s in node.symbols() {
            let value = match self.variant {
                Variant::Simp => 0,
                Variant::Pred | Variant::Opt => self.predict(node, s, block),
            };
            set_symbol(block, s, value);
        }
    }

    /// The nearest kept symbol at the same half of a word as `s`, looking
    /// backwards first; zero if there is none.
    fn predict(&self, node: Node, s: usize, block: &[u8]) -> u16 {
        let kept = |t: &usize| !node.contains(*t);
        let backwards = (s % 2..s).step_by(2).rev().find(kept);
        let forwards = (s + 2..self.symbols).step_by(2).find(kept);
        backwards.or(forwards).map_or(0, |t| symbol_at(block, t))
    }

    fn decode_approximated(&self, compressed: &CompressedBlock, out: &mut [u8]) -> Result<(), CodecError> {
        let node = self.approximated_node(compressed)?.expect("an approximated block");
        let (pdw, per_way) = (self.e2mc.pdw(), self.per_way());
        let mut reader = compressed.reader()?;
        reader.read(self.node_bits)?;
        // starts[w]: bit offset of way w from the start of the data.
        let mut starts = [0usize; 9];
        for start in starts.iter_mut().take(pdw).skip(1) {
            *start = reader.read(self.e2mc.pointer_bits())? as usize * 8;
        }
        let header = reader.position();
        let data_bits = compressed.compressed_bits - header;
        starts[pdw] = data_bits;
        for w in 1..pdw {
            // Ways may be empty (all their symbols left out): starts only
            // never fall.
            if starts[w] < starts[w - 1] || starts[w] > data_bits {
                return Err(CodecError::corrupt(
                    Corruption::OutOfRange,
                    format!(
                        "way {w} pointer (byte {}) out of range: previous way at byte {}, data is {data_bits} bits",
                        starts[w] / 8,
                        starts[w - 1] / 8
                    ),
                ));
            }
        }
        let payload = &compressed.payload;
        for w in 0..pdw {
            let (first, end) = (header + starts[w], header + starts[w + 1]);
            let mut pos = first;
            for s in (w * per_way..(w + 1) * per_way).filter(|&s| !node.contains(s)) {
                pos = self.e2mc.decode_symbol16(payload, pos, end, s, out)?;
            }
            let used = pos - first;
            let padded = if w + 1 < pdw { pad8(used) } else { used };
            if first + padded != end {
                return Err(CodecError::corrupt(
                    Corruption::Inconsistent,
                    format!("way {w} ends at data bit {} but the next starts at {}", starts[w] + used, starts[w + 1]),
                ));
            }
            if padded > used && peek_bits(payload, pos, (padded - used) as u32) != 0 {
                return Err(CodecError::corrupt(Corruption::TrailingBits, format!("non-zero padding after way {w}")));
            }
        }
        self.rebuild(node, out);
        Ok(())
    }
}

impl Codec for Slc {
    fn name(&self) -> &str {
        "slc"
    }

    fn geometry(&self) -> Geometry {
        self.e2mc.geometry()
    }

    /// Exact: the block as `e2mc16` stores it.
    fn compress_into(&mut self, block: &[u8], out: &mut CompressedBlock) -> Result<(), CodecError> {
        self.e2mc.compress_into(block, out)
    }

    fn compressed_size(&mut self, block: &[u8]) -> Result<BlockSize, CodecError> {
        self.e2mc.compressed_size(block)
    }

    fn compress_approximable_into(
        &mut self,
        block: &[u8],
        out: &mut CompressedBlock,
        approximated: &mut [u8],
    ) -> Result<bool, CodecError> {
        check_block_size(block, self.geometry())?;
        check_block_size(approximated, self.geometry())?;
        approximated.copy_from_slice(block);
        match self.plan(block) {
            None => {
                self.e2mc.compress_into(block, out)?;
                Ok(false)
            }
            Some((node_id, target)) => {
                self.encode_approximated(block, node_id, out);
                debug_assert!(out.compressed_bits <= target, "{} bits above the target {target}", out.compressed_bits);
                self.rebuild(self.nodes[node_id], approximated);
                Ok(true)
            }
        }
    }

    /// The left-out node's symbols: the only bytes a rebuild writes.
    fn approximated_bytes(&self, compressed: &CompressedBlock, may_change: &mut [bool]) -> Result<(), CodecError> {
        may_change.fill(false);
        if let Some(node) = self.approximated_node(compressed)? {
            let symbol_bytes = SYMBOL_BITS / 8;
            for s in node.symbols() {
                may_change[s * symbol_bytes..(s + 1) * symbol_bytes].fill(true);
            }
        }
        Ok(())
    }

    fn decompress_into(&self, compressed: &CompressedBlock, out: &mut [u8]) -> Result<(), CodecError> {
        check_block_size(out, self.geometry())?;
        match compressed.encoding {
            SLC_APPROX_ENCODING => self.decode_approximated(compressed, out),
            _ => self.e2mc.decompress_into(compressed, out),
        }
    }

    fn latency(&self) -> Latency {
        SLC_LATENCY
    }

    fn encoding_names(&self) -> Vec<String> {
        vec!["uncompressed".into(), "e2mc16".into(), "slc_approx".into()]
    }

    /// The burst count, and for compressed sizes whether the block is
    /// approximated: `2 x bursts - 1` states.
    fn metadata_bits(&self) -> u32 {
        bits_to_name(2 * self.geometry().block_bursts() - 1)
    }

    fn end_sampling(&mut self) -> Result<(), CodecError> {
        self.e2mc.end_sampling()
    }
}

#[cfg(test)]
mod tests;
