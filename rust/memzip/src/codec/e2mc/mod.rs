//! E2MC: "E²MC: Entropy Encoding Based Memory Compression for GPUs" (Lal,
//! Lucas, Juurlink, IPDPS 2017), "the E2MC paper" in memzip's comments.
//!
//! Canonical Huffman coding of 4-, 8-, 16- or 32-bit symbols (`e2mc4` ..
//! `e2mc32`), following the paper's design:
//!
//! * **Codes** (Section III-B2c, III-E): 4/8-bit symbols have one code per
//!   symbol position in a 32-bit word (8 resp. 4 codes); 16/32-bit symbols
//!   have one code over the K most frequent values (knob `mfv`, default 1K)
//!   plus an escape codeword that prefixes a raw symbol. Code lengths are
//!   capped at 8/16/20/20 bits with package-merge ([`huffman`]); codes are
//!   canonical; tables are serialisable ([`table::CodeTable`]).
//! * **Probabilities** (Section III-B2): online, the codec stores blocks
//!   uncompressed and samples them until [`Codec::end_sampling`] builds the
//!   table; offline, it starts from a given table.
//! * **Worth it** (Section III-E): a block is stored compressed only if that
//!   saves a MAG burst (<= 96 B for 128 B blocks and a 32 B MAG).
//! * **Parallel decoding ways** (Section III-F1, Figure 8): the block's
//!   symbols are split into PDW equal runs, one per decoder. The payload is
//!   `PDW-1` pointers of `log2(block_bytes)` bits (7 for 128 B) followed by
//!   the data; pointer `i` is the byte offset of way `i`'s first codeword
//!   from the start of the data, so every way starts byte-aligned within the
//!   data (ways 0..PDW-2 end with zero padding to the byte) and the header
//!   costs exactly 21 bits for 4 ways, as the paper counts. The first way
//!   starts right after the pointers. Default PDW is 4, the paper's proposal
//!   (Section V-C/D).
//! * **Latency** (Table VI, 128 B blocks): compression 154/84/46/24 cycles,
//!   decompression 233/143/82/42 divided by PDW (rounded up), since "for each
//!   PDW the decompressor latency is decreased by the same factor"
//!   (Section IV-A). The Table VI values are used unscaled for 32/64 B blocks.
//! * **Metadata** (Section III-D): the paper keeps 2 bits per block, the
//!   burst count, with the all-bursts value meaning "uncompressed"; in
//!   general that is enough bits to name `1..=block_bursts` bursts.
//!
//! Encoding ids: 0 uncompressed, 1 E2MC.
//!
//! Symbol order: 32-bit little-endian words in address order, within a word
//! least significant symbol first (see [`table::symbols_of`]).

mod coder;
pub mod entropy;
pub mod huffman;
mod pairs;
pub mod table;
mod word_counts;

pub use entropy::{shannon_bound, ShannonBound};
pub use table::{CodeTable, MfvEntry, Sampler};

use self::coder::{code_ways, pad8, peek, size_ways, Coder, Layout};
use self::table::{uses_mfv, DEFAULT_MFV, MAX_MFV, SYMBOL_BITS};
use super::declaration::{Declaration, DefaultLatency, EnergyFigure, Knob};
use super::spec::CodecSpec;
use super::{
    bits_to_name, check_block_size, decode_uncompressed_into, BlockSize, Codec, CompressedBlock, EncodingId, Latency,
    UNCOMPRESSED,
};
use crate::bits::{load_be, BitWriter};
use crate::error::{CodecError, ConfigError, Corruption};
use crate::geometry::Geometry;
use crate::mc::energy::{CodecEnergy, EnergyParams};

/// Knob `pdw`: parallel decoding ways.
pub(crate) const PDW_ACCEPTS: &str = "1, 2, 4 (default) or 8";
/// Knob `sampling`: where the code table comes from.
pub(crate) const SAMPLING_ACCEPTS: &str = "online (default) or offline (with a code table)";
/// Knob `mfv` (16/32-bit symbols, online sampling): most frequent values coded.
pub(crate) const MFV_ACCEPTS: &str = "an integer in 1..=65536 (default 1024)";

const KNOBS: &[Knob] =
    &[Knob { name: "pdw", accepts: PDW_ACCEPTS }, Knob { name: "sampling", accepts: SAMPLING_ACCEPTS }];
const KNOBS_WITH_MFV: &[Knob] = &[
    Knob { name: "pdw", accepts: PDW_ACCEPTS },
    Knob { name: "mfv", accepts: MFV_ACCEPTS },
    Knob { name: "sampling", accepts: SAMPLING_ACCEPTS },
];

/// The E2MC paper's Table III (32 nm): symbol length, then one unit's
/// compressor GHz and mW and decompressor GHz and mW.
const TABLE3: [(u32, f64, f64, f64, f64); 4] = [
    (4, 1.67, 1.43, 1.11, 5.12),
    (8, 1.54, 4.01, 0.91, 11.91),
    (16, 1.43, 5.47, 0.80, 11.89),
    (32, 1.43, 9.34, 0.80, 14.30),
];

/// Energy per block of `e2mc<symbol_bits>`: a unit handles one symbol per
/// cycle (the E2MC paper §IV-A), so a symbol costs power / frequency (SL 16:
/// compressor 5.47 mW / 1.43 GHz = 3.83 pJ, decompressor 11.89 mW / 0.80 GHz
/// = 14.86 pJ; the `-memzip_energy_e2mc_*_pj_per_symbol` flags replace
/// them) and a block `block_bits / symbol_bits` symbols (a 128-byte block at
/// SL 16: 64 symbols, 245 pJ to compress, 951 pJ to decompress). Parallel
/// decoding ways split a block's symbols over several decompressors (§III-G:
/// "does not add up to the total number of required units"), so the energy
/// does not depend on the PDW.
pub fn energy(symbol_bits: u32, params: &EnergyParams, block_bits: usize) -> CodecEnergy {
    let (_, comp_ghz, comp_mw, decomp_ghz, decomp_mw) =
        TABLE3.into_iter().find(|row| row.0 == symbol_bits).expect("a symbol length of the E2MC paper's Table III");
    let symbols = (block_bits / symbol_bits as usize) as f64;
    CodecEnergy {
        compress_pj: symbols * params.e2mc_compress_pj_per_symbol.unwrap_or(comp_mw / comp_ghz),
        decompress_pj: symbols * params.e2mc_decompress_pj_per_symbol.unwrap_or(decomp_mw / decomp_ghz),
    }
}

const TABLE3_SOURCE: &str = "the E2MC paper, Table III: one unit's power / frequency per symbol, \
                             block_bits / symbol_bits symbols per block";

/// Table VI's latencies with the default 4 decoding ways.
const fn default_latency(symbol_bits: u32) -> DefaultLatency {
    let one_way = table_vi_latency(symbol_bits);
    DefaultLatency::Cycles(Latency::new(
        one_way.compress_cycles,
        one_way.decompress_cycles.div_ceil(DEFAULT_PDW as u32),
    ))
}

/// `e2mc<SL>`'s declaration; `name` and `knobs` are SL's.
const fn declaration<const SL: u32>(name: &'static str, summary: &'static str, knobs: &'static [Knob]) -> Declaration {
    Declaration {
        name,
        summary,
        knobs,
        lossy: false,
        energy: EnergyFigure::PerBlock { per_block: |p, bits| energy(SL, p, bits), source: TABLE3_SOURCE },
        latency: default_latency(SL),
        build: |spec, _| Ok(Box::new(E2mc::from_spec(spec, SL)?)),
    }
}

pub const DECLARATIONS: &[Declaration] = &[
    declaration::<4>("e2mc4", "E2MC: canonical Huffman over 4-bit symbols (the E2MC paper)", KNOBS),
    declaration::<8>("e2mc8", "E2MC: canonical Huffman over 8-bit symbols (the E2MC paper)", KNOBS),
    declaration::<16>(
        "e2mc16",
        "E2MC: canonical Huffman over 16-bit symbols, MFV table with escape (the E2MC paper)",
        KNOBS_WITH_MFV,
    ),
    declaration::<32>(
        "e2mc32",
        "E2MC: canonical Huffman over 32-bit symbols, MFV table with escape (the E2MC paper)",
        KNOBS_WITH_MFV,
    ),
];

/// Encoding id of an E2MC-coded block.
pub const E2MC_ENCODING: EncodingId = 1;
/// Parallel decoding ways the paper evaluates (Figure 10, 12).
pub const PDW_CHOICES: [usize; 4] = [1, 2, 4, 8];
/// The paper proposes 4 PDWs (Section V-D).
pub const DEFAULT_PDW: usize = 4;

/// Table VI latencies (DRAM cycles, 128 B block) with one decoding way.
pub const fn table_vi_latency(symbol_bits: u32) -> Latency {
    match symbol_bits {
        4 => Latency::new(154, 233),
        8 => Latency::new(84, 143),
        16 => Latency::new(46, 82),
        _ => Latency::new(24, 42),
    }
}

#[derive(Debug, Clone)]
enum State {
    /// Online sampling: blocks are stored uncompressed and counted.
    Sampling(Sampler),
    Coding(Box<Coder>),
}

/// The E2MC codec for one symbol length.
#[derive(Debug, Clone)]
pub struct E2mc {
    name: String,
    symbol_bits: u32,
    geometry: Geometry,
    layout: Layout,
    mfv: usize,
    state: State,
    /// The ways' bitstream of the block being compressed, reused.
    scratch: Vec<u8>,
}

impl E2mc {
    /// An E2MC codec in its online sampling phase: it stores blocks
    /// uncompressed until [`Codec::end_sampling`] builds the code table from
    /// them (keeping the `mfv` most frequent values for 16/32-bit symbols).
    pub fn new(symbol_bits: u32, geometry: Geometry, pdw: usize, mfv: usize) -> Result<Self, ConfigError> {
        let name = Self::check(symbol_bits, pdw)?;
        if !(1..=MAX_MFV).contains(&mfv) {
            return Err(ConfigError::new(
                format!("{name}.mfv"),
                mfv.to_string(),
                format!("an integer in 1..={MAX_MFV}"),
            ));
        }
        Ok(E2mc {
            layout: Layout::new(geometry, symbol_bits, pdw),
            name,
            symbol_bits,
            geometry,
            mfv,
            state: State::Sampling(Sampler::new(symbol_bits)?),
            scratch: Vec::new(),
        })
    }

    /// An E2MC codec coding with `table` from the start (offline probabilities).
    pub fn with_table(table: CodeTable, geometry: Geometry, pdw: usize) -> Result<Self, ConfigError> {
        let symbol_bits = table.symbol_bits;
        let name = Self::check(symbol_bits, pdw)?;
        Ok(E2mc {
            layout: Layout::new(geometry, symbol_bits, pdw),
            name,
            symbol_bits,
            geometry,
            mfv: table.mfv.len().max(1),
            state: State::Coding(Box::new(Coder::new(table)?)),
            scratch: Vec::new(),
        })
    }

    /// Builds `e2mc<symbol_bits>` from registry knobs: `pdw` (1, 2, 4, 8;
    /// default 4), `sampling` (`online`, the default, or `offline` with the
    /// code table in `spec.table`) and, for 16/32-bit, `mfv` (default
    /// 1024; only used when sampling online: an offline table fixes its MFVs).
    pub fn from_spec(spec: &CodecSpec, symbol_bits: u32) -> Result<Self, ConfigError> {
        let name = format!("e2mc{symbol_bits}");
        let pdw = spec.knob("pdw", DEFAULT_PDW, PDW_ACCEPTS)?;
        match spec.raw("sampling").unwrap_or("online") {
            "online" => {
                let mfv = spec.knob("mfv", DEFAULT_MFV, MFV_ACCEPTS)?;
                E2mc::new(symbol_bits, spec.geometry, pdw, mfv)
            }
            "offline" => {
                let table = spec.table.as_deref().ok_or_else(|| {
                    ConfigError::new(
                        format!("{name}.table_json"),
                        "missing",
                        "the JSON text of an E2MC code table (sampling=offline needs one)",
                    )
                })?;
                if table.symbol_bits != symbol_bits {
                    return Err(ConfigError::new(
                        format!("{name}.table_json symbol_bits"),
                        table.symbol_bits.to_string(),
                        format!("{symbol_bits} (the symbol length of {name})"),
                    ));
                }
                E2mc::with_table(table.clone(), spec.geometry, pdw)
            }
            other => Err(ConfigError::new(format!("{name}.sampling"), other, SAMPLING_ACCEPTS)),
        }
    }

    fn check(symbol_bits: u32, pdw: usize) -> Result<String, ConfigError> {
        if !SYMBOL_BITS.contains(&symbol_bits) {
            return Err(ConfigError::new("e2mc symbol_bits", symbol_bits.to_string(), "4, 8, 16 or 32"));
        }
        let name = format!("e2mc{symbol_bits}");
        if !PDW_CHOICES.contains(&pdw) {
            return Err(ConfigError::new(format!("{name}.pdw"), pdw.to_string(), "1, 2, 4 or 8"));
        }
        Ok(name)
    }

    pub fn symbol_bits(&self) -> u32 {
        self.symbol_bits
    }

    pub fn pdw(&self) -> usize {
        self.layout.pdw
    }

    /// True until the code table exists (blocks are stored uncompressed).
    pub fn is_sampling(&self) -> bool {
        matches!(self.state, State::Sampling(_))
    }

    /// The sampler while sampling (e.g. for [`ShannonBound::of_sampler`]).
    pub fn sampler(&self) -> Option<&Sampler> {
        match &self.state {
            State::Sampling(s) => Some(s),
            State::Coding(_) => None,
        }
    }

    /// The code table in use, once there is one (save it with `to_json` to
    /// reuse as an offline table).
    pub fn table(&self) -> Option<&CodeTable> {
        match &self.state {
            State::Sampling(_) => None,
            State::Coding(coder) => Some(&coder.table),
        }
    }

    /// Bits of one way pointer in the payload header: log2(block_bytes).
    pub(crate) fn pointer_bits(&self) -> u32 {
        self.layout.pointer_bits
    }

    /// The codeword (bits, length) of one 16- or 32-bit symbol, escape and
    /// raw symbol included; `None` while sampling. For SLC
    /// ([`crate::codec::slc`]), which codes E2MC16 symbols one at a time so
    /// that it can leave some out.
    pub(crate) fn symbol_codeword(&self, value: u32) -> Option<(u64, u32)> {
        match &self.state {
            State::Coding(coder) if uses_mfv(self.symbol_bits) => Some(coder.encode(0, value)),
            _ => None,
        }
    }

    /// Decodes the 16-bit symbol whose codeword starts at bit `pos` (and
    /// must end by `end`) into symbol slot `s` of `out`; returns the
    /// position after it. For SLC, like [`E2mc::symbol_codeword`].
    pub(crate) fn decode_symbol16(
        &self,
        payload: &[u8],
        pos: usize,
        end: usize,
        s: usize,
        out: &mut [u8],
    ) -> Result<usize, CodecError> {
        match &self.state {
            State::Coding(coder) if self.symbol_bits == 16 => coder.decode_symbol::<16>(payload, pos, end, s, out),
            State::Coding(_) => Err(CodecError::corrupt(
                Corruption::Inconsistent,
                format!("e2mc{} codes no 16-bit symbols", self.symbol_bits),
            )),
            State::Sampling(_) => Err(CodecError::corrupt(
                Corruption::NoCodeTable,
                "E2MC-coded block but the code table is not built yet (sampling)",
            )),
        }
    }

    /// The encoding and size `compress` stores a block with whose ways hold
    /// `way_bits` codeword bits each.
    fn size_from_ways(&self, way_bits: &[usize; 8]) -> BlockSize {
        let layout = self.layout;
        let ways = &way_bits[..layout.pdw];
        let data_bits: usize = ways[..layout.pdw - 1].iter().map(|&b| pad8(b)).sum::<usize>() + ways[layout.pdw - 1];
        let total = layout.header_bits + data_bits;
        if self.geometry.worth_compressing(total) {
            BlockSize { encoding: E2MC_ENCODING, compressed_bits: total }
        } else {
            BlockSize { encoding: UNCOMPRESSED, compressed_bits: self.geometry.block_bits() }
        }
    }

    /// Codes `block` into `out`. The ways are written to a scratch stream
    /// while they are sized; once the sizes are known (Section III-E's "worth
    /// it" needs the total, the header the way offsets) the pointers are
    /// written and the ways' bits appended after them.
    fn encode_into(&mut self, block: &[u8], out: &mut CompressedBlock) {
        let State::Coding(coder) = &self.state else {
            out.set_uncompressed(block, self.geometry);
            return;
        };
        let layout = self.layout;
        let mut data = BitWriter::reusing(std::mem::take(&mut self.scratch));
        let way_bits = code_ways(coder, block, layout.pdw, |code, len| data.write(code, len));
        let (data_bytes, data_bits) = data.finish();
        let size = self.size_from_ways(&way_bits);
        debug_assert!(!size.is_compressed() || size.compressed_bits == layout.header_bits + data_bits);
        if !size.is_compressed() {
            out.set_uncompressed(block, self.geometry);
            self.scratch = data_bytes;
            return;
        }
        let mut writer = out.take_writer();
        let mut offset_bits = 0;
        for &bits in &way_bits[..layout.pdw - 1] {
            offset_bits += pad8(bits);
            // total < block_bits, so every offset fits log2(block_bytes) bits.
            debug_assert!(offset_bits / 8 < 1 << layout.pointer_bits);
            writer.write((offset_bits / 8) as u64, layout.pointer_bits);
        }
        let mut left = data_bits;
        for chunk in data_bytes.chunks(8) {
            let take = left.min(64) as u32;
            writer.write(load_be(chunk, 0) >> (64 - take), take);
            left -= take as usize;
        }
        out.set_bits(E2MC_ENCODING, writer, self.geometry);
        self.scratch = data_bytes;
    }

    fn decode_into(&self, coder: &Coder, compressed: &CompressedBlock, out: &mut [u8]) -> Result<(), CodecError> {
        let layout = self.layout;
        let mut reader = compressed.reader()?;
        // starts[w]: bit offset of way w from the start of the data.
        let mut starts = [0usize; 8];
        for start in starts.iter_mut().take(layout.pdw).skip(1) {
            *start = reader.read(layout.pointer_bits)? as usize * 8;
        }
        let header = reader.position();
        let data_bits = compressed.compressed_bits - header;
        for w in 1..layout.pdw {
            // Every way holds at least one codeword, so starts strictly rise.
            if starts[w] <= starts[w - 1] || starts[w] >= data_bits {
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
        // A zero-padded copy, so every peek near the end is an in-bounds load.
        let mut padded = [0u8; 136];
        let payload: &[u8] = match padded.get_mut(..compressed.payload.len()) {
            Some(copy) => {
                copy.copy_from_slice(&compressed.payload);
                &padded
            }
            None => &compressed.payload,
        };
        // 4-bit symbols are OR-ed into their byte.
        out.fill(0);
        let (mut first, mut ends) = ([0usize; 8], [0usize; 8]);
        for w in 0..layout.pdw {
            first[w] = header + starts[w];
            ends[w] = header + if w + 1 == layout.pdw { data_bits } else { starts[w + 1] };
        }
        // A way's end check, as soon as the way is decoded.
        let check_way = |w: usize, pos: usize| -> Result<(), CodecError> {
            let end = ends[w] - header;
            let used = pos - header;
            if w + 1 == layout.pdw {
                if used != data_bits {
                    return Err(CodecError::corrupt(
                        Corruption::TrailingBits,
                        format!("{} unread bits after the last way", data_bits - used),
                    ));
                }
            } else {
                let padding = pad8(used - starts[w]) - (used - starts[w]);
                if starts[w] + pad8(used - starts[w]) != end {
                    return Err(CodecError::corrupt(
                        Corruption::Inconsistent,
                        format!("way {w} ends at data bit {used} but way {} starts at {end}", w + 1),
                    ));
                }
                if padding > 0 && peek(payload, pos, padding as u32) != 0 {
                    return Err(CodecError::corrupt(
                        Corruption::TrailingBits,
                        format!("non-zero padding after way {w}"),
                    ));
                }
            }
            Ok(())
        };
        match coder.decode_ways(payload, first, ends, layout, out) {
            Ok(positions) => (0..layout.pdw).try_for_each(|w| check_way(w, positions[w])),
            // A corrupt payload: decode way by way, checking each way's end
            // before the next, so the error named is the first in stream
            // order (the lockstep decoder may trip over a later way first).
            Err(_) => {
                for w in 0..layout.pdw {
                    let pos = coder.decode_one_way(payload, first[w], ends[w], w, layout.per_way, out)?;
                    check_way(w, pos)?;
                }
                Err(CodecError::corrupt(Corruption::Inconsistent, "E2MC ways decode one by one but not in lockstep"))
            }
        }
    }
}

impl Codec for E2mc {
    fn name(&self) -> &str {
        &self.name
    }

    fn geometry(&self) -> Geometry {
        self.geometry
    }

    fn compress_into(&mut self, block: &[u8], out: &mut CompressedBlock) -> Result<(), CodecError> {
        check_block_size(block, self.geometry)?;
        if let State::Sampling(sampler) = &mut self.state {
            // Section III-B2b: no compression during the sampling phase.
            sampler.feed(block);
            out.set_uncompressed(block, self.geometry);
            return Ok(());
        }
        self.encode_into(block, out);
        Ok(())
    }

    fn compressed_size(&mut self, block: &[u8]) -> Result<BlockSize, CodecError> {
        check_block_size(block, self.geometry)?;
        if let State::Sampling(sampler) = &mut self.state {
            sampler.feed(block);
            return Ok(BlockSize { encoding: UNCOMPRESSED, compressed_bits: self.geometry.block_bits() });
        }
        match &self.state {
            State::Coding(coder) => Ok(self.size_from_ways(&size_ways(coder, block, self.layout.pdw))),
            State::Sampling(_) => Ok(BlockSize { encoding: UNCOMPRESSED, compressed_bits: self.geometry.block_bits() }),
        }
    }

    fn decompress_into(&self, compressed: &CompressedBlock, out: &mut [u8]) -> Result<(), CodecError> {
        check_block_size(out, self.geometry)?;
        match (compressed.encoding, &self.state) {
            (UNCOMPRESSED, _) => decode_uncompressed_into(compressed, self.geometry, out),
            (E2MC_ENCODING, State::Coding(coder)) => self.decode_into(coder, compressed, out),
            (E2MC_ENCODING, State::Sampling(_)) => Err(CodecError::corrupt(
                Corruption::NoCodeTable,
                "E2MC-coded block but the code table is not built yet (sampling)",
            )),
            (other, _) => Err(CodecError::UnknownEncoding(other)),
        }
    }

    fn latency(&self) -> Latency {
        let base = table_vi_latency(self.symbol_bits);
        Latency::new(base.compress_cycles, base.decompress_cycles.div_ceil(self.layout.pdw as u32))
    }

    fn encoding_names(&self) -> Vec<String> {
        vec!["uncompressed".into(), self.name.clone()]
    }

    /// Section III-D: the metadata is the burst count (2 bits for 128 B
    /// blocks and a 32 B MAG), the largest count meaning "uncompressed".
    fn metadata_bits(&self) -> u32 {
        bits_to_name(self.geometry.block_bursts())
    }

    /// Builds the code table from the sample (Section III-B2c); afterwards
    /// blocks are compressed. A no-op once a table exists.
    fn end_sampling(&mut self) -> Result<(), CodecError> {
        if let State::Sampling(sampler) = &self.state {
            let coder = sampler.build_table(self.mfv).and_then(Coder::new).map_err(|e| {
                CodecError::corrupt(Corruption::NoCodeTable, format!("cannot build the E2MC code table: {e}"))
            })?;
            self.state = State::Coding(Box::new(coder));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
