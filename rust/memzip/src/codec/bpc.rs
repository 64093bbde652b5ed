//! Bit-Plane Compression (BPC; Kim, Sullivan, Choukse & Erez, "Bit-Plane
//! Compression: Transforming Data for Better Compression in Many-core
//! Architectures", ISCA 2016).
//!
//! BPC first transforms the block (Sec. III, the Delta-BitPlane-XOR transform)
//! and then codes the transformed planes with run-length and frequent-pattern
//! codes (Sec. IV). For the paper's 128-byte block of 32 little-endian 32-bit
//! words `w[0..32]`:
//!
//! 1. Delta: `base = w[0]`; 31 deltas `d[j] = w[j+1] - w[j]`, each a signed
//!    33-bit value (the difference of two 32-bit words needs 33 bits).
//! 2. Bit planes (DBP): plane `k` (0..=32) holds bit `k` of every delta: bit
//!    `j` of `DBP[k]` is bit `k` of `d[j]`, so each plane is 31 bits wide.
//! 3. XOR (DBX): `DBX[32] = DBP[32]`, `DBX[k] = DBP[k] ^ DBP[k+1]`. Small
//!    deltas of either sign make the high planes all-equal, so their DBX are 0.
//!
//! The payload is the base symbol, then one symbol per DBX plane from plane 32
//! down to plane 0 (a run symbol covers several planes), MSB first, packed:
//!
//! | base symbol (first word)     | code          | bits |
//! |------------------------------|---------------|------|
//! | zero                         | `000`         | 3    |
//! | 4-bit sign-extended          | `001` + 4     | 7    |
//! | 8-bit sign-extended          | `010` + 8     | 11   |
//! | 16-bit sign-extended         | `011` + 16    | 19   |
//! | uncompressed                 | `1` + 32      | 33   |
//!
//! | DBX plane symbol                 | code                  | bits (128 B) |
//! |----------------------------------|-----------------------|--------------|
//! | run of 2..=33 zero DBX planes    | `01` + (run − 2), 5 b | 7            |
//! | one zero DBX plane               | `001`                 | 3            |
//! | all-ones DBX                     | `00000`               | 5            |
//! | DBX ≠ 0 and DBP = 0              | `00001`               | 5            |
//! | two consecutive ones             | `00010` + position    | 10           |
//! | a single one                     | `00011` + position    | 10           |
//! | anything else (uncompressed)     | `1` + the 31-bit DBX  | 32           |
//!
//! Choices and where the paper leaves room:
//! - Code table: the symbols and their sizes are the paper's (Sec. IV, the
//!   DBX/base encoding tables). The public xyz123479/CAL_22-MPC_gpgpu-sim
//!   fork's BPC size model agrees on every size (7, 3, 5, 5, 10, 10, 32; base
//!   3, 7, 11, 19, 33) but its comments assign the four 5-bit prefixes in a
//!   different order; here they follow the order the paper lists the
//!   patterns in. Sizes, and so every compression ratio, are the same either
//!   way. (That fork's base-size function tests `base = 0`, an assignment,
//!   so it charges 7 bits for every base; memzip charges the table's size.)
//! - "DBX ≠ 0 and DBP = 0" lets the decoder set the plane to zero directly.
//!   The decoder rejects it where it cannot arise (the plane above is zero,
//!   so DBX would be zero too: always the case at plane 32).
//! - Positions: a single one at delta `j` stores `j`; two consecutive ones at
//!   `j` and `j + 1` store `j` (the lower). An uncompressed plane stores the
//!   plane as a number whose bit `j` belongs to delta `j`, MSB first like
//!   every memzip field. Out-of-range positions are rejected as corrupt.
//! - Choice among codes: a zero DBX always joins a zero run (the longest run
//!   there is, never split: 33 planes fit one run). A non-zero DBX takes the
//!   cheapest code that matches; equal sizes go to the earlier row of the
//!   table (all-ones before DBX ≠ 0 & DBP = 0, two ones and one one before
//!   uncompressed).
//! - Other block sizes (32 and 64 B, `geometry.rs`): still 32-bit words and
//!   33-bit deltas, so always 33 planes and the 5-bit run field (runs 2..=33)
//!   is unchanged. Only the plane width shrinks to `words − 1` deltas (7 or
//!   15 bits): the uncompressed plane costs `1 + width` bits and a position
//!   field takes `ceil(log2(width))` bits (3 or 4; 5 for the paper's 31).
//! - Decoding checks that every reconstructed word is a 32-bit value: the
//!   33-bit deltas can describe words outside 0..2^32, which no block makes.
//! - "Worth it": the block is kept compressed only when that saves a DRAM
//!   burst, as for every memzip codec. Encoding ids: 0 uncompressed, 1 BPC.
//! - Metadata: the paper sends BPC over packet-based HMC links whose headers
//!   carry the size. A DDR/GDDR controller must instead know how many bursts
//!   to read, so, as for E2MC (its Sec. III-D), the metadata is the burst
//!   count: `ceil(log2(block_bursts))` bits (2 for 128 B / 32 B), the
//!   largest count meaning "uncompressed".
//!
//! Latency: 7 cycles to compress and 7 to decompress. The BPC paper's
//! hardware figures could not be consulted where this was written (the paper
//! is not in the project's paper set); 7 decompression cycles is what the XOR
//! Cache study (MICRO 2024) models for BPC. No public figure for compression
//! was found; the compressor mirrors the decompressor's stages (delta, plane
//! transpose + XOR, per-plane pattern match, length prefix sum and merge), so
//! it is given the same count. As for the other codecs the cycles are used as
//! DRAM-controller cycles unchanged (`-memzip_comp_latency` /
//! `-memzip_decomp_latency` override them). Check against the paper's
//! hardware section before quoting BPC latencies.
//!
//! No MAG-aware variant: MAG-aware BDI works because BDI's sizes are set by a
//! free parameter (the delta width) that can be grown until a block fills a
//! whole number of MAGs (the MAG-aware paper, Sec. IV). BPC has no such parameter: every
//! symbol is a fixed-size prefix code, the size is the sum of per-plane
//! symbols, and each symbol is already the shortest the table allows, so the
//! bits cannot be rearranged to land on a MAG boundary. Padding a stream up to
//! the boundary moves the same bursts. The MAG-aware paper's Table I (Sec. IV-A) lists
//! BPC as not MAG-adaptable for this reason ("variable codes, dynamic size").
//! Measured ceiling of any bit-saving trick (`encoded_bits` against the burst
//! boundaries, 128 B blocks, 32 B MAG, the 13 traces in benchmarks/traces/):
//! an oracle that took 16 bits off every block's stream would save a burst on
//! no block of 9 traces, on 0.07% of rodinia-bfs and 1.3% of lonestar bfs and
//! sssp (effective CR 2.623 -> 2.646), but on 23% of convolutionSeparable's
//! blocks (2.088 -> 2.378; 32 bits: 32%, 2.509), whose streams end just above
//! 64 bytes. Getting that would need shorter codes than the paper's (a new
//! format, not a snapping of BPC's), so there is no `mag_aware` knob.

use super::declaration::{Declaration, DefaultLatency, EnergyFigure};
use super::{
    bits_to_name, check_block_size, decode_uncompressed_into, BlockSize, Codec, CompressedBlock, EncodingId, Latency,
    UNCOMPRESSED,
};
use crate::bits::{fits_signed, sign_extend, BitReader, BitWriter};
use crate::error::{CodecError, Corruption};
use crate::geometry::Geometry;
use crate::mc::energy::{CodecEnergy, EnergyParams};

/// 7 cycles each way (see the module documentation: a secondary source's
/// decompression figure, the compressor given the same count).
const LATENCY: Latency = Latency::new(7, 7);

/// BPC's energy per block: an **estimate**, not a synthesis result. The BPC
/// paper's own power and area figures could not be consulted (the paper is
/// not in the project's paper set, and no public copy of its hardware
/// section was found), so the figure is built from the two figures memzip
/// has for the same kinds of logic, the adaptive-compression paper's Table
/// III (7 nm, 1 GHz, per 512-bit block):
/// - the delta stage (the BPC paper Sec. III: a block's words minus their
///   neighbours; decoding, a running sum) is a row of word subtractors /
///   adders, what BDI's compressor and decompressor units are: BDI's
///   1.3 pJ, split 1.2 : 0.2 by BDI's power x latency. The bit-plane
///   transpose is wiring and the XOR of neighbouring planes 32 x 31 gates;
///   neither is counted;
/// - the plane coding (Sec. IV: each of 33 planes matched against a few
///   fixed patterns, the variable-length symbols packed into one stream, and
///   unpacked one after another to decode) is what FPC's units do to a
///   block's words, over as many bits: FPC's 36.9 pJ, split 3 : 5.
///
/// Sum: 38.2 pJ per 512-bit block (the default of `-memzip_energy_bpc_pj`),
/// 14.95 pJ compressing and 23.25 decompressing; scaled linearly to the block
/// like the table's figures (a 128-byte block: 29.9 and 46.5 pJ). The flag
/// scales both halves.
fn energy(params: &EnergyParams, block_bits: usize) -> CodecEnergy {
    let paper = EnergyParams::default();
    let delta_stage = CodecEnergy::from_table3(paper.bdi_pj, super::bdi::TABLE3, block_bits);
    let plane_coding = CodecEnergy::from_table3(paper.fpc_pj, super::fpc::TABLE3, block_bits);
    delta_stage.plus(plane_coding).scaled(params.bpc_pj / paper.bpc_pj)
}

pub const DECLARATIONS: &[Declaration] = &[Declaration {
    name: "bpc",
    summary: "Bit-Plane Compression: the BPC paper's transform and code tables",
    knobs: &[],
    lossy: false,
    energy: EnergyFigure::PerBlock {
        per_block: energy,
        source: "an estimate: BDI's figure for the delta stage plus FPC's for the plane coding \
                 (the adaptive-compression paper, Table III), 38.2 pJ per 512-bit block; see codec/bpc.rs",
    },
    latency: DefaultLatency::Cycles(LATENCY),
    build: |spec, _| Ok(Box::new(Bpc::new(spec.geometry))),
}];

/// The encoding id of a BPC bitstream.
pub const ENCODING_BPC: EncodingId = 1;

const WORD_BYTES: usize = 4;
/// A delta of two 32-bit words needs 33 bits: 33 bit planes whatever the block size.
pub const PLANES: usize = 33;
/// The run field: runs of 2..=33 zero DBX planes, stored as run − 2.
const RUN_FIELD_BITS: u32 = 5;
const MIN_RUN: usize = 2;
/// Sec. IV's 5-bit prefixes (after the leading `00`): patterns of one plane.
const PREFIX5_BITS: u32 = 5;

/// Base-word encodings, in table order: (prefix, prefix bits, data bits).
const BASE_ZERO: (u64, u32, u32) = (0b000, 3, 0);
const BASE_SEXT: [(u64, u32, u32); 3] = [(0b001, 3, 4), (0b010, 3, 8), (0b011, 3, 16)];
const BASE_RAW: (u64, u32, u32) = (0b1, 1, 32);

/// What one DBX symbol stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PlaneSymbol {
    /// `count` consecutive zero DBX planes (1 ..= 33).
    ZeroRun(usize),
    AllOnes,
    /// DBX ≠ 0 but the plane itself (DBP) is 0.
    ZeroDbp,
    /// Ones at `position` and `position + 1`.
    TwoOnes(u32),
    SingleOne(u32),
    /// The DBX plane verbatim.
    Raw(u64),
}

/// Widths that depend on the block size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Layout {
    /// Deltas per block = bits per plane (31 for 128 B).
    plane_bits: u32,
    /// Bits of a one's position: ceil(log2(plane_bits)).
    position_bits: u32,
}

impl Layout {
    fn new(geometry: Geometry) -> Self {
        let plane_bits = (geometry.block_bytes() / WORD_BYTES - 1) as u32;
        Layout { plane_bits, position_bits: bits_to_name(plane_bits as usize) }
    }

    fn all_ones(self) -> u64 {
        (1u64 << self.plane_bits) - 1
    }

    fn symbol_bits(self, symbol: PlaneSymbol) -> u32 {
        match symbol {
            PlaneSymbol::ZeroRun(1) => 3,
            PlaneSymbol::ZeroRun(_) => 2 + RUN_FIELD_BITS,
            PlaneSymbol::AllOnes | PlaneSymbol::ZeroDbp => PREFIX5_BITS,
            PlaneSymbol::TwoOnes(_) | PlaneSymbol::SingleOne(_) => PREFIX5_BITS + self.position_bits,
            PlaneSymbol::Raw(_) => 1 + self.plane_bits,
        }
    }

    /// The cheapest symbol for a non-zero DBX plane whose DBP is `dbp`;
    /// equal sizes go to the earlier row of the paper's table.
    ///
    /// The table's rows cost 5, 5, 5 + p, 5 + p and 1 + w bits (p position
    /// bits, w plane bits), never decreasing down the table for the widths
    /// BPC has (w = 7, 15, 31: 5 + p = 8, 9, 10 <= 1 + w), so the first row
    /// that matches is the cheapest and the earliest of equals
    /// (`nonzero_symbol_is_the_cheapest_row` checks this against a search).
    #[inline]
    fn nonzero_symbol(self, dbx: u64, dbp: u64) -> PlaneSymbol {
        let low = dbx.trailing_zeros();
        if dbx == self.all_ones() {
            PlaneSymbol::AllOnes
        } else if dbp == 0 {
            PlaneSymbol::ZeroDbp
        } else if dbx >> low == 0b11 {
            PlaneSymbol::TwoOnes(low)
        } else if dbx >> low == 1 {
            PlaneSymbol::SingleOne(low)
        } else {
            PlaneSymbol::Raw(dbx)
        }
    }

    fn write_symbol(self, out: &mut BitWriter, symbol: PlaneSymbol) {
        match symbol {
            PlaneSymbol::ZeroRun(1) => out.write(0b001, 3),
            PlaneSymbol::ZeroRun(run) => {
                out.write(0b01, 2);
                out.write((run - MIN_RUN) as u64, RUN_FIELD_BITS);
            }
            PlaneSymbol::AllOnes => out.write(0b00000, PREFIX5_BITS),
            PlaneSymbol::ZeroDbp => out.write(0b00001, PREFIX5_BITS),
            PlaneSymbol::TwoOnes(position) => {
                out.write(0b00010, PREFIX5_BITS);
                out.write(position as u64, self.position_bits);
            }
            PlaneSymbol::SingleOne(position) => {
                out.write(0b00011, PREFIX5_BITS);
                out.write(position as u64, self.position_bits);
            }
            PlaneSymbol::Raw(plane) => {
                out.write(0b1, 1);
                out.write(plane, self.plane_bits);
            }
        }
    }

    fn read_symbol(self, reader: &mut BitReader<'_>) -> Result<PlaneSymbol, CodecError> {
        if reader.read_bool()? {
            return Ok(PlaneSymbol::Raw(reader.read(self.plane_bits)?));
        }
        if reader.read_bool()? {
            return Ok(PlaneSymbol::ZeroRun(reader.read(RUN_FIELD_BITS)? as usize + MIN_RUN));
        }
        if reader.read_bool()? {
            return Ok(PlaneSymbol::ZeroRun(1));
        }
        let symbol = match reader.read(2)? {
            0b00 => PlaneSymbol::AllOnes,
            0b01 => PlaneSymbol::ZeroDbp,
            0b10 => PlaneSymbol::TwoOnes(reader.read(self.position_bits)? as u32),
            _ => PlaneSymbol::SingleOne(reader.read(self.position_bits)? as u32),
        };
        let position_limit = match symbol {
            PlaneSymbol::TwoOnes(p) => Some((p, self.plane_bits - 1)),
            PlaneSymbol::SingleOne(p) => Some((p, self.plane_bits)),
            _ => None,
        };
        if let Some((position, limit)) = position_limit.filter(|&(p, limit)| p >= limit) {
            return Err(CodecError::corrupt(
                Corruption::OutOfRange,
                format!("one position {position} outside the {}-bit plane (limit {limit})", self.plane_bits),
            ));
        }
        Ok(symbol)
    }

    /// The DBX plane a single-plane symbol stands for; `dbp_above` is
    /// DBP[k+1], needed by "DBX ≠ 0 and DBP = 0".
    fn expand(self, symbol: PlaneSymbol, dbp_above: u64) -> u64 {
        match symbol {
            PlaneSymbol::ZeroRun(_) => 0,
            PlaneSymbol::AllOnes => self.all_ones(),
            // DBP = 0 means DBX = 0 ^ DBP[k+1].
            PlaneSymbol::ZeroDbp => dbp_above,
            PlaneSymbol::TwoOnes(position) => 0b11 << position,
            PlaneSymbol::SingleOne(position) => 1 << position,
            PlaneSymbol::Raw(plane) => plane,
        }
    }
}

/// A square bit-matrix transpose in place: bit `c` of row `r` becomes bit `r`
/// of row `c` (Hacker's Delight's recursive block swap, log2(bits) rounds).
/// The bit-plane transform and its inverse are both this transpose.
macro_rules! bit_transpose {
    ($(#[$doc:meta])* $name:ident, $word:ty, $bits:expr, $half_mask:expr) => {
        $(#[$doc])*
        fn $name(rows: &mut [$word; $bits]) {
            let mut width = $bits / 2;
            let mut mask: $word = $half_mask;
            while width != 0 {
                let mut k = 0;
                while k < $bits {
                    let swapped = ((rows[k] >> width) ^ rows[k + width]) & mask;
                    rows[k] ^= swapped << width;
                    rows[k + width] ^= swapped;
                    k = (k + width + 1) & !width;
                }
                width >>= 1;
                mask ^= mask << width;
            }
        }
    };
}

bit_transpose!(
    /// Transposes a 64 x 64 bit matrix in place.
    transpose64, u64, 64, 0x0000_0000_ffff_ffff
);
bit_transpose!(
    /// Transposes a 32 x 32 bit matrix in place.
    transpose32, u32, 32, 0x0000_ffff
);

/// The Delta-BitPlane transform (Sec. III): `dbp[k]` has bit `j` set when
/// bit `k` of delta `j` (two's complement, 33 bits) is set. At most 31
/// deltas: planes 0..32 are a 32 x 32 transpose of the deltas' low 32 bits,
/// plane 32 gathers their sign bits (bit 32 of a 33-bit delta).
fn delta_bit_planes(block_words: &[u32]) -> [u64; PLANES] {
    let mut low = [0u32; 32];
    let mut sign_plane = 0u64;
    for (j, pair) in block_words.windows(2).enumerate() {
        let delta = pair[1] as i64 - pair[0] as i64;
        low[j] = delta as u32;
        sign_plane |= ((delta >> 32) as u64 & 1) << j;
    }
    transpose32(&mut low);
    std::array::from_fn(|k| if k < 32 { low[k] as u64 } else { sign_plane })
}

/// The inverse: the 33-bit deltas (sign-extended) from the planes.
fn deltas_from_planes(dbp: &[u64; PLANES]) -> [i64; 64] {
    let mut rows = [0u64; 64];
    rows[..PLANES].copy_from_slice(dbp);
    transpose64(&mut rows);
    rows.map(|bits| sign_extend(bits, PLANES as u32))
}

/// DBX[k] = DBP[k] ^ DBP[k+1], with DBX[32] = DBP[32].
fn xor_planes(dbp: &[u64; PLANES]) -> [u64; PLANES] {
    std::array::from_fn(|k| if k + 1 < PLANES { dbp[k] ^ dbp[k + 1] } else { dbp[k] })
}

/// The base word's encoding: (prefix, prefix bits, data bits).
fn base_code(base: u32) -> (u64, u32, u32) {
    let signed = base as i32 as i64;
    if base == 0 {
        BASE_ZERO
    } else {
        BASE_SEXT.into_iter().find(|&(_, _, bits)| fits_signed(signed, bits)).unwrap_or(BASE_RAW)
    }
}

fn write_base(out: &mut BitWriter, base: u32) {
    let (prefix, prefix_bits, data_bits) = base_code(base);
    out.write(prefix, prefix_bits);
    out.write(base as u64, data_bits);
}

fn read_base(reader: &mut BitReader<'_>) -> Result<u32, CodecError> {
    if reader.read_bool()? {
        return Ok(reader.read(32)? as u32);
    }
    Ok(match reader.read(2)? {
        0b00 => 0,
        code => {
            let bits = BASE_SEXT[code as usize - 1].2;
            sign_extend(reader.read(bits)?, bits) as u32
        }
    })
}

#[derive(Debug, Clone)]
pub struct Bpc {
    geometry: Geometry,
    layout: Layout,
}

impl Bpc {
    pub fn new(geometry: Geometry) -> Self {
        Bpc { geometry, layout: Layout::new(geometry) }
    }

    /// Size of the BPC stream of a block before the "worth it" rule (for
    /// studies of how far blocks land from a burst boundary).
    pub fn encoded_bits(&self, block: &[u8]) -> Result<usize, CodecError> {
        check_block_size(block, self.geometry)?;
        Ok(self.stream_bits(block))
    }

    /// Writes the BPC bitstream of a block into `out`.
    fn encode_to(&self, block: &[u8], out: &mut BitWriter) {
        let mut symbols = [PlaneSymbol::ZeroRun(0); PLANES];
        let (base, count) = self.plan(block, &mut symbols);
        write_base(out, base);
        for &symbol in &symbols[..count] {
            self.layout.write_symbol(out, symbol);
        }
    }

    /// Bits of the BPC stream of a block (what `encode` writes), without
    /// writing it: the size-only path `analyze` uses.
    fn stream_bits(&self, block: &[u8]) -> usize {
        let mut symbols = [PlaneSymbol::ZeroRun(0); PLANES];
        let (base, count) = self.plan(block, &mut symbols);
        let (_, prefix_bits, data_bits) = base_code(base);
        let planes: u32 = symbols[..count].iter().map(|&s| self.layout.symbol_bits(s)).sum();
        (prefix_bits + data_bits + planes) as usize
    }

    /// The base word and the DBX plane symbols in stream order (into
    /// `symbols`; returns how many), shared by the encoder and the size-only
    /// path so the two cannot disagree. No allocation: the block's words sit
    /// in a fixed array (at most 32 of them, `geometry.rs`).
    #[inline(always)]
    fn plan(&self, block: &[u8], symbols: &mut [PlaneSymbol; PLANES]) -> (u32, usize) {
        let mut block_words = [0u32; 32];
        let count_words = block.len() / WORD_BYTES;
        for (word, chunk) in block_words.iter_mut().zip(block.chunks_exact(WORD_BYTES)) {
            *word = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        }
        let dbp = delta_bit_planes(&block_words[..count_words]);
        let dbx = xor_planes(&dbp);
        let mut count = 0;
        let mut push = |symbol| {
            symbols[count] = symbol;
            count += 1;
        };
        let mut run = 0;
        for k in (0..PLANES).rev() {
            if dbx[k] == 0 {
                run += 1;
                continue;
            }
            if run > 0 {
                push(PlaneSymbol::ZeroRun(run));
                run = 0;
            }
            push(self.layout.nonzero_symbol(dbx[k], dbp[k]));
        }
        if run > 0 {
            push(PlaneSymbol::ZeroRun(run));
        }
        (block_words[0], count)
    }

    /// Reads the plane symbols back into the DBP planes, plane 32 first.
    fn decode_planes(&self, reader: &mut BitReader<'_>) -> Result<[u64; PLANES], CodecError> {
        let mut dbp = [0u64; PLANES];
        let mut next = PLANES; // planes still to decode: the next one is `next - 1`
        let mut dbp_above = 0u64; // DBP[33] is zero: DBX[32] = DBP[32]
        while next > 0 {
            let symbol = self.layout.read_symbol(reader)?;
            let count = match symbol {
                PlaneSymbol::ZeroRun(run) => run,
                _ => 1,
            };
            if count > next {
                return Err(CodecError::corrupt(
                    Corruption::Inconsistent,
                    format!("zero run of {count} planes with {next} planes left"),
                ));
            }
            if symbol == PlaneSymbol::ZeroDbp && dbp_above == 0 {
                return Err(CodecError::corrupt(
                    Corruption::Inconsistent,
                    format!("DBX != 0 & DBP = 0 at plane {} under a zero plane", next - 1),
                ));
            }
            let dbx = self.layout.expand(symbol, dbp_above);
            for _ in 0..count {
                next -= 1;
                dbp[next] = dbx ^ dbp_above;
                dbp_above = dbp[next];
            }
        }
        Ok(dbp)
    }

    /// Decodes into `out` (one block long).
    fn decode(&self, reader: &mut BitReader<'_>, out: &mut [u8]) -> Result<(), CodecError> {
        let base = read_base(reader)?;
        let dbp = self.decode_planes(reader)?;
        reader.expect_end()?;
        let mut chunks = out.chunks_exact_mut(WORD_BYTES);
        if let Some(first) = chunks.next() {
            first.copy_from_slice(&base.to_le_bytes());
        }
        let mut word = base as i64;
        let deltas = deltas_from_planes(&dbp);
        for ((j, delta), chunk) in deltas.iter().take(self.layout.plane_bits as usize).enumerate().zip(chunks) {
            word += delta;
            if !(0..=u32::MAX as i64).contains(&word) {
                return Err(CodecError::corrupt(
                    Corruption::OutOfRange,
                    format!("delta {j} takes word {} outside 32 bits", j + 1),
                ));
            }
            chunk.copy_from_slice(&(word as u32).to_le_bytes());
        }
        Ok(())
    }
}

impl Codec for Bpc {
    fn name(&self) -> &str {
        "bpc"
    }

    fn geometry(&self) -> Geometry {
        self.geometry
    }

    fn compress_into(&mut self, block: &[u8], out: &mut CompressedBlock) -> Result<(), CodecError> {
        check_block_size(block, self.geometry)?;
        let mut writer = out.take_writer();
        self.encode_to(block, &mut writer);
        out.set_or_uncompressed(ENCODING_BPC, writer, block, self.geometry);
        Ok(())
    }

    fn decompress_into(&self, compressed: &CompressedBlock, out: &mut [u8]) -> Result<(), CodecError> {
        check_block_size(out, self.geometry)?;
        match compressed.encoding {
            UNCOMPRESSED => decode_uncompressed_into(compressed, self.geometry, out),
            ENCODING_BPC => self.decode(&mut compressed.reader()?, out),
            other => Err(CodecError::UnknownEncoding(other)),
        }
    }

    /// The stream's size without writing it (no allocation).
    fn compressed_size(&mut self, block: &[u8]) -> Result<BlockSize, CodecError> {
        check_block_size(block, self.geometry)?;
        let bits = self.stream_bits(block);
        Ok(if self.geometry.worth_compressing(bits) {
            BlockSize { encoding: ENCODING_BPC, compressed_bits: bits }
        } else {
            BlockSize { encoding: UNCOMPRESSED, compressed_bits: self.geometry.block_bits() }
        })
    }

    /// See the module header: 7/7, decompression as the XOR Cache study
    /// models BPC; to be checked against the BPC paper.
    fn latency(&self) -> Latency {
        LATENCY
    }

    fn encoding_names(&self) -> Vec<String> {
        vec!["uncompressed".into(), "bpc".into()]
    }

    /// The burst count, as for E2MC: the controller must know how many bursts
    /// to read for a variable-size block.
    fn metadata_bits(&self) -> u32 {
        bits_to_name(self.geometry.block_bursts())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::registry::build_str;
    use crate::codec::test_support::{assert_round_trips, bit_string, random_block, spaced, structured_block};
    use crate::geometry::BLOCK_SIZES;
    use proptest::prelude::*;

    fn geometry(block_bytes: usize, mag_bytes: usize) -> Geometry {
        Geometry::new(block_bytes, mag_bytes).unwrap()
    }

    /// A block of the given 32-bit words; the last one repeats to the end
    /// (so the trailing deltas are zero).
    fn block_of(head: &[u32], block_bytes: usize) -> Vec<u8> {
        let last = *head.last().unwrap_or(&0);
        head.iter().chain(std::iter::repeat(&last)).take(block_bytes / 4).flat_map(|w| w.to_le_bytes()).collect()
    }

    /// Compresses with the round-trip harness and returns the block.
    fn compress_in(g: Geometry, head: &[u32]) -> CompressedBlock {
        assert_round_trips(&mut Bpc::new(g), &block_of(head, g.block_bytes())).unwrap()
    }

    fn compress(head: &[u32]) -> CompressedBlock {
        compress_in(Geometry::default(), head)
    }

    /// Size of the stream for a block of one repeated word: base + a run of 33.
    fn base_bits(word: u32) -> usize {
        let c = compress(&[word]);
        assert_eq!(c.encoding, ENCODING_BPC);
        assert!(bit_string(&c).ends_with("0111111"), "{}", bit_string(&c));
        c.compressed_bits - 7
    }

    /// The first matching row of the table is the cheapest (the search the
    /// encoder did before, by size with ties to the earlier row).
    #[test]
    fn nonzero_symbol_is_the_cheapest_row() {
        for block_bytes in BLOCK_SIZES {
            let layout = Layout::new(geometry(block_bytes, 16));
            let planes =
                [1u64, 2, 3, 0b110, 0b101, layout.all_ones(), layout.all_ones() - 1, 1 << (layout.plane_bits - 1)];
            for &dbx in &planes {
                for dbp in [0u64, 1, dbx] {
                    let ones = dbx.count_ones();
                    let low = dbx.trailing_zeros();
                    let searched = [
                        (dbx == layout.all_ones()).then_some(PlaneSymbol::AllOnes),
                        (dbp == 0).then_some(PlaneSymbol::ZeroDbp),
                        (ones == 2 && dbx >> low == 0b11).then_some(PlaneSymbol::TwoOnes(low)),
                        (ones == 1).then_some(PlaneSymbol::SingleOne(low)),
                        Some(PlaneSymbol::Raw(dbx)),
                    ]
                    .into_iter()
                    .flatten()
                    .min_by_key(|&s| layout.symbol_bits(s));
                    assert_eq!(
                        Some(layout.nonzero_symbol(dbx, dbp)),
                        searched,
                        "{block_bytes} B, dbx {dbx:b}, dbp {dbp:b}"
                    );
                }
            }
        }
    }

    #[test]
    fn planes_are_the_transposed_deltas() {
        let block_words: Vec<u32> = (0..32u32).map(|i| i.wrapping_mul(0x9e37_79b9) ^ (i << 7)).collect();
        let dbp = delta_bit_planes(&block_words);
        for (j, pair) in block_words.windows(2).enumerate() {
            let delta = pair[1] as i64 - pair[0] as i64;
            for (k, plane) in dbp.iter().enumerate() {
                assert_eq!((plane >> j) & 1, (delta >> k) as u64 & 1, "delta {j}, plane {k}");
            }
            assert_eq!(deltas_from_planes(&dbp)[j], delta);
        }
        assert!(dbp.iter().all(|plane| plane >> 31 == 0), "only 31 deltas");
    }

    #[test]
    fn zero_block_is_a_zero_base_and_one_run_of_33() {
        let c = compress(&[0]);
        assert_eq!((c.encoding, c.compressed_bits, c.mag_bytes, c.burst_count), (ENCODING_BPC, 10, 32, 1));
        assert_eq!(bit_string(&c), spaced("000  01 11111"));
    }

    #[test]
    fn base_codes_and_their_limits() {
        assert_eq!(bit_string(&compress(&[7])), spaced("001 0111  01 11111"));
        assert_eq!(bit_string(&compress(&[-8i32 as u32])), spaced("001 1000  01 11111"));
        assert_eq!(bit_string(&compress(&[8])), spaced("010 00001000  01 11111"));
        assert_eq!(bit_string(&compress(&[-128i32 as u32])), spaced("010 10000000  01 11111"));
        assert_eq!(bit_string(&compress(&[0x7fff])), spaced("011 0111111111111111  01 11111"));
        assert_eq!(bit_string(&compress(&[0xdead_beef])), spaced("1 11011110101011011011111011101111  01 11111"));
        assert_eq!((base_bits(0), base_bits(7), base_bits(-8i32 as u32)), (3, 7, 7));
        let sizes = |words: [i32; 4]| words.map(|w| base_bits(w as u32));
        assert_eq!(sizes([8, -9, 127, -128]), [11; 4]);
        assert_eq!(sizes([128, -129, 32767, -32768]), [19; 4]);
        assert_eq!((base_bits(32768), base_bits(-32769i32 as u32), base_bits(u32::MAX >> 1)), (33, 33, 33));
        assert_eq!(base_bits(u32::MAX), 7); // -1
    }

    #[test]
    fn single_one() {
        // 0, 1, 1, ...: delta 0 is 1; DBX[0] = DBP[0] = 1 (bit 0).
        let c = compress(&[0, 1]);
        assert_eq!(bit_string(&c), spaced("000  01 11110  00011 00000"));
        assert_eq!(c.compressed_bits, 20);
        // The one at the last delta (30): ..., 0, 1.
        let mut head = vec![0u32; 31];
        head.push(1);
        assert_eq!(bit_string(&compress(&head)), spaced("000  01 11110  00011 11110"));
    }

    #[test]
    fn two_consecutive_ones() {
        // Deltas 1, 1: DBX[0] = 0b11 at position 0.
        assert_eq!(bit_string(&compress(&[0, 1, 2])), spaced("000  01 11110  00010 00000"));
        // Deltas 0, 1, 1 at the top: position 29 (the highest allowed).
        let mut head = vec![0u32; 30];
        head.extend([1, 2]);
        assert_eq!(bit_string(&compress(&head)), spaced("000  01 11110  00010 11101"));
    }

    #[test]
    fn all_ones_plane() {
        // 0, 1, ..., 31: every delta 1, DBP[0] all ones, DBX[0] too.
        let head: Vec<u32> = (0..32).collect();
        let c = compress(&head);
        assert_eq!(bit_string(&c), spaced("000  01 11110  00000"));
        // Every delta -1: all 33 planes all ones, so DBX[32] is, the rest 0.
        let head: Vec<u32> = (0..32).map(|i| 100 - i).collect();
        assert_eq!(bit_string(&compress(&head)), spaced("010 01100100  00000  01 11110"));
    }

    #[test]
    fn all_ones_wins_the_tie_with_zero_dbp() {
        // Every delta 2: DBP[1] all ones, DBP[0] = 0. DBX[1] and DBX[0] are
        // all ones; DBX[0] also has DBP = 0 (5 bits either way): all-ones.
        let head: Vec<u32> = (0..32).map(|i| 2 * i).collect();
        assert_eq!(bit_string(&compress(&head)), spaced("000  01 11101  00000  00000"));
    }

    #[test]
    fn dbx_nonzero_with_zero_dbp() {
        // Delta 0 = 2: DBP[1] = 1, DBP[0] = 0, DBX[0] = 1: a single one would
        // cost 10 bits, "DBP = 0" costs 5.
        assert_eq!(bit_string(&compress(&[0, 2])), spaced("000  01 11101  00011 00000  00001"));
    }

    #[test]
    fn single_zero_plane() {
        // Delta 0 = 3: DBP[1] = DBP[0] = 1, so DBX[0] = 0: a run of one.
        assert_eq!(bit_string(&compress(&[0, 3])), spaced("000  01 11101  00011 00000  001"));
    }

    #[test]
    fn run_of_two_and_zero_dbp() {
        // Delta 0 = 14 = 0b1110: DBX[3] = 1, DBX[2] = DBX[1] = 0, DBX[0] = DBP[1] with DBP[0] = 0.
        assert_eq!(bit_string(&compress(&[0, 14])), spaced("000  01 11011  00011 00000  01 00000  00001"));
    }

    #[test]
    fn uncompressed_plane() {
        // Deltas 1 at 0, 2 and 4: DBX[0] = 0b10101, no pattern.
        let c = compress(&[0, 1, 1, 2, 2, 3]);
        let plane = format!("{:031b}", 0b10101);
        assert_eq!(bit_string(&c), spaced(&format!("000  01 11110  1 {plane}")));
        assert_eq!(c.compressed_bits, 3 + 7 + 32);
    }

    #[test]
    fn strided_pointers_take_a_few_symbols() {
        // 0x1000_0000 + 4i: every delta 4, so DBP[2] is all ones. Planes
        // 32..=3 are a run of 30, DBX[2] and DBX[1] are all ones, DBX[0] = 0.
        let head: Vec<u32> = (0..32).map(|i| 0x1000_0000 + 4 * i).collect();
        let c = compress(&head);
        let expected = format!("1 {:032b}  01 11100  00000  00000  001", 0x1000_0000);
        assert_eq!(bit_string(&c), spaced(&expected));
        assert_eq!((c.compressed_bits, c.burst_count), (33 + 7 + 5 + 5 + 3, 1));
    }

    #[test]
    fn widest_deltas_round_trip() {
        // Deltas of +(2^32 - 1) and -(2^32 - 1): all 33 bits of each delta used.
        let head: Vec<u32> = (0..32).map(|i| if i % 2 == 0 { 0 } else { u32::MAX }).collect();
        let c = compress(&head);
        let g = Geometry::default();
        assert_eq!(Bpc::new(g).decompress(&c).unwrap(), block_of(&head, 128));
    }

    #[test]
    fn smaller_blocks_use_narrower_planes_and_positions() {
        // 32 B: 7 deltas, 3-bit positions, 8-bit uncompressed planes.
        let g32 = geometry(32, 16);
        assert_eq!(bit_string(&compress_in(g32, &[0])), spaced("000  01 11111"));
        assert_eq!(bit_string(&compress_in(g32, &[0, 1])), spaced("000  01 11110  00011 000"));
        assert_eq!(bit_string(&compress_in(g32, &[0, 0, 0, 0, 0, 0, 1, 2])), spaced("000  01 11110  00010 101"));
        assert_eq!(bit_string(&compress_in(g32, &[0, 1, 1, 2, 2, 3])), spaced("000  01 11110  1 0010101"));
        // 64 B: 15 deltas, 4-bit positions.
        let g64 = geometry(64, 16);
        let mut head = vec![0u32; 15];
        head.push(1);
        assert_eq!(bit_string(&compress_in(g64, &head)), spaced("000  01 11110  00011 1110"));
        assert_eq!(Layout::new(g64), Layout { plane_bits: 15, position_bits: 4 });
        assert_eq!(Layout::new(Geometry::default()), Layout { plane_bits: 31, position_bits: 5 });
    }

    #[test]
    fn incompressible_blocks_are_stored_raw() {
        let scrambled = |i: u32| 0x9e37_79b9u32.wrapping_mul(i + 1).rotate_left(i);
        let block: Vec<u8> = (0..32u32).flat_map(|i| scrambled(i).to_le_bytes()).collect();
        let mut codec = Bpc::new(Geometry::default());
        assert!(codec.stream_bits(&block) > 768);
        let c = assert_round_trips(&mut codec, &block).unwrap();
        assert_eq!((c.encoding, c.compressed_bits, c.burst_count), (UNCOMPRESSED, 1024, 4));
    }

    /// A hand-written stream of encoding 1.
    fn handmade(bits: &str, g: Geometry) -> CompressedBlock {
        let mut w = BitWriter::new();
        for ch in spaced(bits).chars() {
            w.write_bool(ch == '1');
        }
        CompressedBlock::from_bits(ENCODING_BPC, w, g)
    }

    fn corrupt(bits: &str) -> bool {
        let g = Geometry::default();
        matches!(Bpc::new(g).decompress(&handmade(bits, g)), Err(CodecError::Corrupt { .. }))
    }

    #[test]
    fn corrupt_streams_are_rejected() {
        let g = Geometry::default();
        let codec = Bpc::new(g);
        assert_eq!(codec.decompress(&handmade("000  01 11111", g)).unwrap(), vec![0; 128]);
        // A run of 33 after one plane overruns the 33 planes.
        assert!(corrupt("000  00011 00000  01 11111"));
        // Bits after the last plane.
        assert!(corrupt("000  01 11111  0"));
        // Positions past the plane: one at 31, two ones at 30.
        assert!(corrupt("000  01 11110  00011 11111"));
        assert!(corrupt("000  01 11110  00010 11110"));
        // "DBP = 0" under a zero plane (here plane 32, whose DBX is its DBP).
        assert!(corrupt("000  00001  01 11111"));
        assert!(corrupt("000  01 11101  00001  001"));
        // Base 0 then delta -1: word 1 would be negative.
        assert!(corrupt("000  00000  01 11110"));
        assert!(matches!(codec.decompress(&handmade("000  01 111", g)), Err(CodecError::Truncated { .. })));
        let mut unknown = handmade("000  01 11111", g);
        unknown.encoding = 2;
        assert_eq!(codec.decompress(&unknown), Err(CodecError::UnknownEncoding(2)));
    }

    #[test]
    fn interface() {
        let mut codec = Bpc::new(Geometry::default());
        assert_eq!(codec.latency(), Latency::new(7, 7));
        assert_eq!(codec.encoding_names(), vec!["uncompressed", "bpc"]);
        assert_eq!(codec.metadata_bits(), 2);
        assert_eq!(Bpc::new(geometry(128, 16)).metadata_bits(), 3);
        assert_eq!(Bpc::new(geometry(64, 64)).metadata_bits(), 1);
        assert!(matches!(codec.compress(&[0; 64]), Err(CodecError::WrongBlockSize { .. })));
        assert_eq!(build_str("bpc", Geometry::default()).unwrap().name(), "bpc");
        assert!(build_str("bpc:mag_aware=1", Geometry::default()).is_err());
        let adaptive = build_str("adaptive:candidates=bdi/bpc", Geometry::default()).unwrap();
        assert!(adaptive.encoding_names().iter().any(|n| n == "bpc/bpc"), "{:?}", adaptive.encoding_names());
    }

    fn geometries() -> Vec<Geometry> {
        crate::codec::test_support::geometries()
    }

    fn cases() -> impl Strategy<Value = (Geometry, Vec<u8>)> {
        prop::sample::select(geometries()).prop_flat_map(|g| {
            let blocks = prop_oneof![3 => structured_block(g.block_bytes()), 1 => random_block(g.block_bytes())];
            (Just(g), blocks)
        })
    }

    /// Blocks BPC is made for: 32-bit words with small deltas of either sign.
    fn small_delta_block(block_bytes: usize) -> impl Strategy<Value = Vec<u8>> {
        (any::<u32>(), 0u32..=20, prop::collection::vec(any::<i32>(), block_bytes / 4)).prop_map(
            move |(start, bits, noise)| {
                let mut word = start;
                noise
                    .iter()
                    .flat_map(|&n| {
                        word = word.wrapping_add((n >> (31 - bits.min(31))) as u32);
                        word.to_le_bytes()
                    })
                    .collect()
            },
        )
    }

    fn small_delta_cases() -> impl Strategy<Value = (Geometry, Vec<u8>)> {
        prop::sample::select(geometries()).prop_flat_map(|g| (Just(g), small_delta_block(g.block_bytes())))
    }

    proptest! {
        #[test]
        fn round_trips((g, block) in cases()) {
            let mut codec = Bpc::new(g);
            let c = assert_round_trips(&mut codec, &block)?;
            // Stored compressed exactly when the stream saves a burst.
            prop_assert_eq!(c.is_compressed(), g.worth_compressing(codec.encoded_bits(&block).unwrap()));
        }

        #[test]
        fn small_deltas_round_trip((g, block) in small_delta_cases()) {
            assert_round_trips(&mut Bpc::new(g), &block)?;
        }
    }
}
