//! E2MC: entropy-encoding memory compression for GPUs (paper 000, Lal et al.).
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

pub mod entropy;
pub mod huffman;
pub mod table;

use std::ops::Range;

pub use entropy::{shannon_bound, ShannonBound};
pub use table::{CodeTable, MfvEntry, Sampler};

use self::huffman::CanonicalCode;
use self::table::{symbols_of, uses_mfv, WordMap, DEFAULT_MFV, MAX_MFV, SYMBOL_BITS};
use super::registry::CodecSpec;
use super::{
    bits_to_name, check_block_size, decode_uncompressed, Codec, CompressedBlock, EncodingId, Latency, UNCOMPRESSED,
};
use crate::bits::BitWriter;
use crate::error::{CodecError, ConfigError};
use crate::geometry::Geometry;

/// Encoding id of an E2MC-coded block.
pub const E2MC_ENCODING: EncodingId = 1;
/// Parallel decoding ways the paper evaluates (Figure 10, 12).
pub const PDW_CHOICES: [usize; 4] = [1, 2, 4, 8];
/// The paper proposes 4 PDWs (Section V-D).
pub const DEFAULT_PDW: usize = 4;

/// Table VI latencies (DRAM cycles, 128 B block) with one decoding way.
pub fn table_vi_latency(symbol_bits: u32) -> Latency {
    match symbol_bits {
        4 => Latency::new(154, 233),
        8 => Latency::new(84, 143),
        16 => Latency::new(46, 82),
        _ => Latency::new(24, 42),
    }
}

/// Rounds a bit count up to whole bytes.
fn pad8(bits: usize) -> usize {
    bits.div_ceil(8) * 8
}

/// Where the parts of a compressed block go.
#[derive(Debug, Clone, Copy)]
struct Layout {
    pdw: usize,
    /// Symbols per way.
    per_way: usize,
    /// Bits per way pointer: log2(block_bytes).
    pointer_bits: u32,
    /// `(pdw - 1) * pointer_bits`: where the data (way 0) starts.
    header_bits: usize,
}

impl Layout {
    fn new(geometry: Geometry, symbol_bits: u32, pdw: usize) -> Self {
        let pointer_bits = geometry.block_bytes().trailing_zeros();
        Layout {
            pdw,
            per_way: geometry.block_bits() / symbol_bits as usize / pdw,
            pointer_bits,
            header_bits: (pdw - 1) * pointer_bits as usize,
        }
    }

    fn way_symbols(&self, way: usize) -> Range<usize> {
        way * self.per_way..(way + 1) * self.per_way
    }
}

/// The next `width` (1..=32) bits at bit `pos`, MSB first; bits past the end
/// of `bytes` read as zero (the caller checks the stream bounds).
#[inline]
fn peek(bytes: &[u8], pos: usize, width: u32) -> u32 {
    let start = pos / 8;
    let mut buf = [0u8; 8];
    if let Some(rest) = bytes.get(start..) {
        let n = rest.len().min(5);
        buf[..n].copy_from_slice(&rest[..n]);
    }
    // 5 bytes hold the up to 7 skipped bits plus 32 wanted ones.
    ((u64::from_be_bytes(buf) << (pos % 8)) >> (64 - width)) as u32
}

/// Moves past a field of `len` bits, which must end by `end`.
#[inline]
fn advance(pos: usize, len: usize, end: usize) -> Result<usize, CodecError> {
    if pos + len > end {
        Err(CodecError::Truncated { needed_bits: pos + len, available_bits: end })
    } else {
        Ok(pos + len)
    }
}

/// Writes symbol `index` (stream order) into the output block.
#[inline]
fn store_symbol(out: &mut [u8], index: usize, value: u32, symbol_bits: u32) {
    match symbol_bits {
        4 => out[index / 2] |= (value as u8 & 0x0f) << (4 * (index % 2)),
        8 => out[index] = value as u8,
        16 => out[2 * index..2 * index + 2].copy_from_slice(&(value as u16).to_le_bytes()),
        _ => out[4 * index..4 * index + 4].copy_from_slice(&value.to_le_bytes()),
    }
}

/// MFV value -> canonical symbol index.
#[derive(Debug, Clone)]
enum MfvIndex {
    /// 16-bit symbols: a direct table, `NOT_MFV` for other values.
    Dense(Vec<u32>),
    Sparse(WordMap<u32>),
}

const NOT_MFV: u32 = u32::MAX;

#[derive(Debug, Clone)]
struct MfvCoder {
    /// MFV values by canonical symbol index.
    values: Vec<u32>,
    /// Symbol index of the escape codeword (`values.len()`).
    escape: u32,
    index: MfvIndex,
}

impl MfvCoder {
    fn new(table: &CodeTable) -> Self {
        let values: Vec<u32> = table.mfv.iter().map(|e| e.value).collect();
        let index = if table.symbol_bits == 16 {
            let mut dense = vec![NOT_MFV; 1 << 16];
            for (rank, &v) in values.iter().enumerate() {
                dense[v as usize] = rank as u32;
            }
            MfvIndex::Dense(dense)
        } else {
            MfvIndex::Sparse(values.iter().enumerate().map(|(rank, &v)| (v, rank as u32)).collect())
        };
        MfvCoder { escape: values.len() as u32, values, index }
    }

    #[inline]
    fn rank(&self, value: u32) -> Option<u32> {
        match &self.index {
            MfvIndex::Dense(table) => table.get(value as usize).copied().filter(|&r| r != NOT_MFV),
            MfvIndex::Sparse(map) => map.get(&value).copied(),
        }
    }
}

/// The encoder and decoder tables built from a [`CodeTable`].
#[derive(Debug, Clone)]
struct Coder {
    table: CodeTable,
    symbol_bits: u32,
    /// One canonical code per position (4/8-bit) or the single MFV code.
    codes: Vec<CanonicalCode>,
    mfv: Option<MfvCoder>,
}

impl Coder {
    fn new(table: CodeTable) -> Result<Self, ConfigError> {
        table.validate()?;
        let codes = (0..table.code_count())
            .map(|p| {
                CanonicalCode::new(&table.code_lengths(p))
                    .map_err(|e| ConfigError::new("e2mc code table", e, "lengths of a prefix code"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mfv = uses_mfv(table.symbol_bits).then(|| MfvCoder::new(&table));
        Ok(Coder { symbol_bits: table.symbol_bits, table, codes, mfv })
    }

    /// The bits for symbol `value` at word position `position`, and their count.
    #[inline]
    fn encode(&self, position: usize, value: u32) -> (u64, u32) {
        match &self.mfv {
            None => {
                let (code, len) = self.codes[position].code(value as usize);
                (code as u64, len as u32)
            }
            Some(mfv) => match mfv.rank(value) {
                Some(rank) => {
                    let (code, len) = self.codes[0].code(rank as usize);
                    (code as u64, len as u32)
                }
                None => {
                    // Escape codeword, then the raw symbol (Section III-B2c).
                    let (code, len) = self.codes[0].code(mfv.escape as usize);
                    (((code as u64) << self.symbol_bits) | value as u64, len as u32 + self.symbol_bits)
                }
            },
        }
    }

    /// Decodes `symbols` from bits `[pos, end)` of `payload` into `out`;
    /// returns the bit position after the last codeword.
    fn decode_way(
        &self,
        payload: &[u8],
        mut pos: usize,
        end: usize,
        symbols: Range<usize>,
        out: &mut [u8],
    ) -> Result<usize, CodecError> {
        let positions = self.codes.len();
        for s in symbols {
            let code = &self.codes[s % positions];
            let window = peek(payload, pos, code.max_len() as u32);
            let (symbol, len) = code
                .decode(window)
                .ok_or_else(|| CodecError::Corrupt(format!("no codeword matches the bits at {pos}")))?;
            pos = advance(pos, len as usize, end)?;
            let value = match &self.mfv {
                None => symbol,
                Some(mfv) if symbol == mfv.escape => {
                    let raw = peek(payload, pos, self.symbol_bits);
                    pos = advance(pos, self.symbol_bits as usize, end)?;
                    raw
                }
                Some(mfv) => *mfv
                    .values
                    .get(symbol as usize)
                    .ok_or_else(|| CodecError::Corrupt(format!("MFV index {symbol} out of range")))?,
            };
            store_symbol(out, s, value, self.symbol_bits);
        }
        Ok(pos)
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
    /// Per-symbol (bits, length) of the block being compressed, reused.
    scratch: Vec<(u64, u32)>,
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
    /// table JSON in `spec.table_json`) and, for 16/32-bit, `mfv` (default
    /// 1024; only used when sampling online: an offline table fixes its MFVs).
    pub fn from_spec(spec: &CodecSpec, symbol_bits: u32) -> Result<Self, ConfigError> {
        let name = format!("e2mc{symbol_bits}");
        let pdw = spec.knob("pdw", DEFAULT_PDW, "1, 2, 4 or 8")?;
        match spec.raw("sampling").unwrap_or("online") {
            "online" => {
                let mfv = spec.knob("mfv", DEFAULT_MFV, &format!("an integer in 1..={MAX_MFV}"))?;
                E2mc::new(symbol_bits, spec.geometry, pdw, mfv)
            }
            "offline" => {
                let json = spec.table_json.as_deref().ok_or_else(|| {
                    ConfigError::new(
                        format!("{name}.table_json"),
                        "missing",
                        "the JSON text of an E2MC code table (sampling=offline needs one)",
                    )
                })?;
                let table = CodeTable::from_json(json)?;
                if table.symbol_bits != symbol_bits {
                    return Err(ConfigError::new(
                        format!("{name}.table_json symbol_bits"),
                        table.symbol_bits.to_string(),
                        format!("{symbol_bits} (the symbol length of {name})"),
                    ));
                }
                E2mc::with_table(table, spec.geometry, pdw)
            }
            other => Err(ConfigError::new(format!("{name}.sampling"), other, "online or offline")),
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

    fn encode_block(&mut self, block: &[u8]) -> CompressedBlock {
        let State::Coding(coder) = &self.state else {
            return CompressedBlock::uncompressed(block, self.geometry);
        };
        let layout = self.layout;
        let positions = coder.codes.len();
        let mut way_bits = [0usize; 8];
        self.scratch.clear();
        for (i, value) in symbols_of(block, self.symbol_bits).enumerate() {
            let (bits, len) = coder.encode(i % positions, value);
            way_bits[i / layout.per_way] += len as usize;
            self.scratch.push((bits, len));
        }
        let ways = &way_bits[..layout.pdw];
        let data_bits: usize = ways[..layout.pdw - 1].iter().map(|&b| pad8(b)).sum::<usize>() + ways[layout.pdw - 1];
        let total = layout.header_bits + data_bits;
        if !self.geometry.worth_compressing(total) {
            return CompressedBlock::uncompressed(block, self.geometry);
        }
        let mut writer = BitWriter::with_capacity_bits(total);
        let mut offset_bits = 0;
        for &bits in &ways[..layout.pdw - 1] {
            offset_bits += pad8(bits);
            // total < block_bits, so every offset fits log2(block_bytes) bits.
            debug_assert!(offset_bits / 8 < 1 << layout.pointer_bits);
            writer.write((offset_bits / 8) as u64, layout.pointer_bits);
        }
        for (way, run) in self.scratch.chunks(layout.per_way).enumerate() {
            for &(bits, len) in run {
                writer.write(bits, len);
            }
            if way + 1 < layout.pdw {
                writer.write(0, (pad8(ways[way]) - ways[way]) as u32);
            }
        }
        CompressedBlock::or_uncompressed(E2MC_ENCODING, writer, block, self.geometry)
    }

    fn decode_block(&self, coder: &Coder, compressed: &CompressedBlock) -> Result<Vec<u8>, CodecError> {
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
                return Err(CodecError::Corrupt(format!(
                    "way {w} pointer (byte {}) out of range: previous way at byte {}, data is {data_bits} bits",
                    starts[w] / 8,
                    starts[w - 1] / 8
                )));
            }
        }
        let payload = &compressed.payload;
        let mut out = vec![0u8; self.geometry.block_bytes()];
        for w in 0..layout.pdw {
            let last = w + 1 == layout.pdw;
            let end = if last { data_bits } else { starts[w + 1] };
            let pos = coder.decode_way(payload, header + starts[w], header + end, layout.way_symbols(w), &mut out)?;
            let used = pos - header;
            if last {
                if used != data_bits {
                    return Err(CodecError::Corrupt(format!("{} unread bits after the last way", data_bits - used)));
                }
            } else {
                let padding = pad8(used - starts[w]) - (used - starts[w]);
                if starts[w] + pad8(used - starts[w]) != end {
                    return Err(CodecError::Corrupt(format!(
                        "way {w} ends at data bit {used} but way {} starts at {end}",
                        w + 1
                    )));
                }
                if padding > 0 && peek(payload, pos, padding as u32) != 0 {
                    return Err(CodecError::Corrupt(format!("non-zero padding after way {w}")));
                }
            }
        }
        Ok(out)
    }
}

impl Codec for E2mc {
    fn name(&self) -> &str {
        &self.name
    }

    fn geometry(&self) -> Geometry {
        self.geometry
    }

    fn compress(&mut self, block: &[u8]) -> Result<CompressedBlock, CodecError> {
        check_block_size(block, self.geometry)?;
        if let State::Sampling(sampler) = &mut self.state {
            // Section III-B2b: no compression during the sampling phase.
            sampler.feed(block);
            return Ok(CompressedBlock::uncompressed(block, self.geometry));
        }
        Ok(self.encode_block(block))
    }

    fn decompress(&self, compressed: &CompressedBlock) -> Result<Vec<u8>, CodecError> {
        match (compressed.encoding, &self.state) {
            (UNCOMPRESSED, _) => decode_uncompressed(compressed, self.geometry),
            (E2MC_ENCODING, State::Coding(coder)) => self.decode_block(coder, compressed),
            (E2MC_ENCODING, State::Sampling(_)) => {
                Err(CodecError::Corrupt("E2MC-coded block but the code table is not built yet (sampling)".into()))
            }
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
            let coder = sampler
                .build_table(self.mfv)
                .and_then(Coder::new)
                .map_err(|e| CodecError::Corrupt(format!("cannot build the E2MC code table: {e}")))?;
            self.state = State::Coding(Box::new(coder));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
