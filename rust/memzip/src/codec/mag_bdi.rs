//! MAG-aware BDI (the MAG-aware paper, Section IV, Table III, Eq. 1).
//!
//! BDI with one 4-byte explicit base (plus the implicit zero base) and delta
//! widths chosen so that base + bitmask + deltas fill an exact multiple of the
//! memory access granularity (MAG). Eq. 1 gives one width per compressed size
//! `comp_size` = k x MAG below the block size:
//!
//! `delta_bits = floor((comp_size - header_size) / deltas)`, with
//! `header_size` = explicit base + bitmask (one bit per delta), in bits.
//!
//! For the papers' 128 B block and 32 B MAG this is Table III:
//!
//! | id | name             | Δ bits | bytes | paper encoding bits |
//! |----|------------------|--------|-------|---------------------|
//! | 0  | uncompressed     | -      | 128   | 11                  |
//! | 1  | base4_delta6b    | 6      | 32    | 00                  |
//! | 2  | base4_delta14b   | 14     | 64    | 01                  |
//! | 3  | base4_delta22b   | 22     | 96    | 10                  |
//!
//! (4 + 4 + 32 x 6/8 = 32 bytes, and so on; 2 metadata bits.) A 16 B MAG gives
//! seven widths 2, 6, 10, ..., 26 (16..112 bytes, 3 metadata bits); a 64 B MAG
//! one width, 14 (64 bytes, 1 bit). With a 4-byte base the sizes are exact
//! MAG multiples for every block/MAG pair memzip supports. Payload layout
//! (MSB-first, packed): base, bitmask (1 = explicit base), deltas; see
//! [`BaseDelta`].
//!
//! Decisions where the paper leaves room:
//! - No zero-block (or repeated-value) encoding: Table III lists only the
//!   three delta encodings and "uncompressed", and Sec. IV-E says the
//!   compressor has exactly three units. An all-zero block is compressed by
//!   the smallest-width unit (all deltas zero, base field stored as zero),
//!   which moves one burst, the minimum any read costs.
//! - Ids: 0 is "uncompressed" as for every memzip codec (Table III's `11`),
//!   then one id per width, narrowest first (Table III's `00`, `01`, `10`).
//! - Eq. 1 widths of zero or less are dropped: the only such case in
//!   {32, 64, 128} x {16, 32, 64} is a 2-byte base with a 128 B block and
//!   16 B MAG (64 deltas and an 80-bit header leave 0 bits in 16 bytes). A
//!   block whose block size equals the MAG (32/32, 64/64) has no
//!   `comp_size` below the block size, so it is always stored uncompressed.
//! - `compressed_bits` is the real stored size, header + deltas x width; with
//!   8- or 2-byte bases the floor in Eq. 1 can leave it a few bits under
//!   `comp_size`, which never changes the burst count.
//! - Knob `bases` (the MAG-aware paper Fig. 17's extension): `4` (default, the paper's
//!   design) or `8+4+2`; each base size gets its own Eq.-1 widths. Ids list
//!   the 4-byte encodings first, then 8-byte, then 2-byte, so ids 1..=3 mean
//!   the same in both settings. The smallest encoding over all bases wins
//!   (within one base this is the narrowest width, as Sec. IV-E prefers);
//!   equal sizes go to the lower id.
//! - Deltas from the explicit base wrap at the base width, as a base-width
//!   subtractor does (see [`BaseDelta::encode`]).
//! - Knob `deltas`: `signed` (default) or `unsigned`. The paper's design
//!   shortens deltas by their leading zeros, so its deltas are unsigned: a
//!   value fits a base only at or above it. Using leading ones as well
//!   "sacrifice[s] 1-bit of the deltas for the sign bit" and cost the paper
//!   1.3% of CR and 2.4% of speedup (Sec. VI-C). memzip's default is the
//!   two's-complement delta of BDI, which keeps values just below a base
//!   compressible; `deltas=unsigned` is the paper's choice (benchmarks/
//!   reproduction.md, Fig. 14, compares the two on the study's traces).

use super::declaration::{Declaration, DefaultLatency, EnergyFigure, Knob};
use std::str::FromStr;

use super::bdi::BaseDelta;
use super::spec::CodecSpec;
use super::{
    check_block_size, decode_uncompressed_into, BlockSize, Codec, CompressedBlock, EncodingId, Latency, UNCOMPRESSED,
};
use crate::error::{CodecError, ConfigError};
use crate::geometry::Geometry;
use crate::mc::energy::{CodecEnergy, EnergyParams};

/// The MAG-aware paper §IV-E: one vector subtraction / addition.
const LATENCY: Latency = Latency::new(1, 1);

/// Knob `bases`: which explicit-base sizes the compressor units use.
const BASES_ACCEPTS: &str = "4 (default) or 8+4+2";
/// Knob `deltas`: signed deltas, or the §VI-C leading-zeros-only ones.
const DELTAS_ACCEPTS: &str = "signed (default) or unsigned";

/// BDI's figure with the compression half scaled by the compressor-unit
/// ratio (`-memzip_energy_mag_bdi_unit_ratio`): the MAG-aware paper §IV-E,
/// "MAG-aware BDI only requires three compressor units, BDI used six"; the
/// decompressor is BDI's.
fn energy(params: &EnergyParams, block_bits: usize) -> CodecEnergy {
    let bdi = super::bdi::energy(params, block_bits);
    CodecEnergy { compress_pj: bdi.compress_pj * params.mag_bdi_unit_ratio, ..bdi }
}

pub const DECLARATIONS: &[Declaration] = &[Declaration {
    name: "mag_bdi",
    summary: "the MAG-aware paper's BDI: deltas sized for the memory access granularity",
    knobs: &[Knob { name: "bases", accepts: BASES_ACCEPTS }, Knob { name: "deltas", accepts: DELTAS_ACCEPTS }],
    lossy: false,
    energy: EnergyFigure::PerBlock {
        per_block: energy,
        source: "BDI's (the adaptive-compression paper, Table III), compression x 3/6 compressor units \
                 (the MAG-aware paper §IV-E)",
    },
    latency: DefaultLatency::Cycles(LATENCY),
    build: |spec, _| Ok(Box::new(MagBdi::from_spec(spec)?)),
}];

/// The explicit-base sizes MAG-aware BDI uses (knob `bases`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BaseSizes {
    /// Only the 4-byte base: the paper's design (Sec. IV-C).
    #[default]
    Four,
    /// 4-, 8- and 2-byte bases: the paper's Fig. 17 extension.
    EightFourTwo,
}

impl BaseSizes {
    /// Base sizes in encoding-id order: the 4-byte base first so its ids do
    /// not depend on the setting.
    pub fn base_bytes(self) -> &'static [usize] {
        match self {
            BaseSizes::Four => &[4],
            BaseSizes::EightFourTwo => &[4, 8, 2],
        }
    }
}

impl FromStr for BaseSizes {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "4" => Ok(BaseSizes::Four),
            "8+4+2" => Ok(BaseSizes::EightFourTwo),
            other => Err(format!("unknown base sizes '{other}'")),
        }
    }
}

/// How MAG-aware BDI stores a delta (knob `deltas`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DeltaSign {
    /// Two's complement, as BDI's deltas: leading zeros and leading ones.
    #[default]
    Signed,
    /// Leading zeros only: values below their base do not fit.
    Unsigned,
}

impl FromStr for DeltaSign {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "signed" => Ok(DeltaSign::Signed),
            "unsigned" => Ok(DeltaSign::Unsigned),
            other => Err(format!("unknown delta sign '{other}'")),
        }
    }
}

/// Eq. 1: the delta widths for a base size, narrowest first, one per
/// compressed size k x MAG below the block size; widths of 0 bits are dropped.
///
/// With a link's small granule (`Geometry::with_granule`, down to 1 byte)
/// neighbouring sizes floor to the same width, which is one compressor unit,
/// listed once; and an 8-byte base on a 128-byte block reaches widths above
/// [`MAX_DELTA_BITS`], which are dropped (they save at most 6 bits of a
/// 64-bit value). Neither happens at a DRAM MAG of 16 bytes or more: a MAG
/// adds at least 2 bits per delta, and the widest width is 51 bits.
pub fn delta_widths(geometry: Geometry, base_bytes: usize) -> Vec<u32> {
    let deltas = geometry.block_bytes() / base_bytes;
    let header_bits = base_bytes * 8 + deltas;
    let mut widths: Vec<u32> = (1..geometry.block_bursts())
        .map(|bursts| bursts * geometry.mag_bytes() * 8)
        .filter_map(|comp_bits| {
            let width = comp_bits.saturating_sub(header_bits) / deltas;
            u32::try_from(width).ok().filter(|&w| w > 0 && w <= MAX_DELTA_BITS)
        })
        .collect();
    widths.dedup();
    widths
}

/// The widest delta field the bit reader decodes word-at-a-time.
pub const MAX_DELTA_BITS: u32 = 57;

/// MAG-aware BDI over a fixed geometry.
#[derive(Debug, Clone)]
pub struct MagBdi {
    geometry: Geometry,
    /// Encoding `id` is `encodings[id - 1]`.
    encodings: Vec<BaseDelta>,
    /// (id, static size in bits) of every encoding, smallest first, lower
    /// id among equals.
    by_size: Vec<(EncodingId, usize)>,
}

impl MagBdi {
    /// With signed deltas (the default).
    pub fn new(geometry: Geometry, bases: BaseSizes) -> Self {
        MagBdi::with_deltas(geometry, bases, DeltaSign::Signed)
    }

    pub fn with_deltas(geometry: Geometry, bases: BaseSizes, deltas: DeltaSign) -> Self {
        let layout = move |base: usize, width: u32| match deltas {
            DeltaSign::Signed => BaseDelta::new(base, width),
            DeltaSign::Unsigned => BaseDelta::new(base, width).unsigned(),
        };
        let encodings = bases
            .base_bytes()
            .iter()
            .flat_map(|&base| delta_widths(geometry, base).into_iter().map(move |w| layout(base, w)))
            .collect::<Vec<BaseDelta>>();
        let mut by_size: Vec<(EncodingId, usize)> = (1..=EncodingId::MAX)
            .zip(&encodings)
            .map(|(id, layout)| (id, layout.compressed_bits(geometry.block_bytes())))
            .collect();
        by_size.sort_by_key(|&(id, bits)| (bits, id));
        MagBdi { geometry, encodings, by_size }
    }

    /// Builds from a registry spec: knob `bases` = `4` (default) or `8+4+2`,
    /// knob `deltas` = `signed` (default) or `unsigned`.
    pub fn from_spec(spec: &CodecSpec) -> Result<Self, ConfigError> {
        let bases = spec.knob("bases", BaseSizes::default(), BASES_ACCEPTS)?;
        let deltas = spec.knob("deltas", DeltaSign::default(), DELTAS_ACCEPTS)?;
        Ok(MagBdi::with_deltas(spec.geometry, bases, deltas))
    }

    fn layout_for(&self, encoding: EncodingId) -> Option<BaseDelta> {
        let index = (encoding as usize).checked_sub(1)?;
        self.encodings.get(index).copied()
    }

    /// The smallest encoding that fits, with its size and explicit base;
    /// `None` if no compressor unit can compress the block. Units are tried
    /// smallest first (lower id among equals), with fit checks only, so the
    /// first that fits is the winner and only it is ever encoded.
    fn smallest_fit(&self, block: &[u8]) -> Option<(EncodingId, usize, u64)> {
        self.by_size.iter().find_map(|&(id, bits)| {
            let base = self.encodings[id as usize - 1].fit(block)?;
            Some((id, bits, base))
        })
    }
}

impl Codec for MagBdi {
    fn name(&self) -> &str {
        "mag_bdi"
    }

    fn geometry(&self) -> Geometry {
        self.geometry
    }

    fn compress_into(&mut self, block: &[u8], out: &mut CompressedBlock) -> Result<(), CodecError> {
        check_block_size(block, self.geometry)?;
        match self.smallest_fit(block) {
            Some((id, bits, base)) if self.geometry.worth_compressing(bits) => {
                let mut writer = out.take_writer();
                self.encodings[id as usize - 1].encode_into(block, base, &mut writer);
                out.set_bits(id, writer, self.geometry);
            }
            _ => out.set_uncompressed(block, self.geometry),
        }
        Ok(())
    }

    fn decompress_into(&self, compressed: &CompressedBlock, out: &mut [u8]) -> Result<(), CodecError> {
        check_block_size(out, self.geometry)?;
        if compressed.encoding == UNCOMPRESSED {
            return decode_uncompressed_into(compressed, self.geometry, out);
        }
        let layout = self.layout_for(compressed.encoding).ok_or(CodecError::UnknownEncoding(compressed.encoding))?;
        layout.decode_into(&mut compressed.reader()?, out)
    }

    fn compressed_size(&mut self, block: &[u8]) -> Result<BlockSize, CodecError> {
        check_block_size(block, self.geometry)?;
        Ok(match self.smallest_fit(block) {
            Some((id, bits, _)) if self.geometry.worth_compressing(bits) => {
                BlockSize { encoding: id, compressed_bits: bits }
            }
            _ => BlockSize { encoding: UNCOMPRESSED, compressed_bits: self.geometry.block_bits() },
        })
    }

    fn latency(&self) -> Latency {
        LATENCY
    }

    fn encoding_names(&self) -> Vec<String> {
        let mut names = vec!["uncompressed".to_string()];
        names.extend(
            self.encodings.iter().map(|layout| format!("base{}_delta{}b", layout.base_bytes, layout.delta_bits)),
        );
        names
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bits::{sign_extend, BitReader};
    use crate::codec::push_word;
    use crate::codec::registry::build_str;
    use crate::codec::test_support::{assert_round_trips, random_block, structured_block};
    use crate::geometry::{BLOCK_SIZES, MAG_SIZES};
    use proptest::prelude::*;

    /// A value far from zero, used as the explicit base.
    const BASE: u64 = 0x4000_0000;

    fn geometry(block_bytes: usize, mag_bytes: usize) -> Geometry {
        Geometry::new(block_bytes, mag_bytes).unwrap()
    }

    /// 4-byte values, padded with zeros to the block size.
    fn block_of(values: &[u64], block_bytes: usize) -> Vec<u8> {
        let mut out = Vec::new();
        for &v in values {
            push_word(&mut out, v, 4);
        }
        out.resize(block_bytes, 0);
        out
    }

    /// Compresses `values` (4-byte, zero-padded), checks the round trip, and
    /// returns (encoding, compressed bytes, bursts).
    fn compress(geometry: Geometry, bases: BaseSizes, values: &[u64]) -> (EncodingId, usize, usize) {
        let mut codec = MagBdi::new(geometry, bases);
        let c = assert_round_trips(&mut codec, &block_of(values, geometry.block_bytes())).unwrap();
        (c.encoding, c.compressed_bits.div_ceil(8), c.burst_count)
    }

    fn compress_default(values: &[u64]) -> (EncodingId, usize, usize) {
        compress(Geometry::default(), BaseSizes::Four, values)
    }

    #[test]
    fn table_iii_widths_and_sizes() {
        let g = Geometry::default();
        assert_eq!(delta_widths(g, 4), vec![6, 14, 22]);
        let codec = MagBdi::new(g, BaseSizes::Four);
        let bytes: Vec<usize> = codec.encodings.iter().map(|l| l.compressed_bits(128) / 8).collect();
        assert_eq!(bytes, vec![32, 64, 96]);
        assert_eq!(codec.encoding_names(), vec!["uncompressed", "base4_delta6b", "base4_delta14b", "base4_delta22b"]);
        assert_eq!(codec.metadata_bits(), 2);
        assert_eq!(codec.latency(), Latency::new(1, 1));
    }

    #[test]
    fn widths_for_16_and_64_byte_mags() {
        assert_eq!(delta_widths(geometry(128, 16), 4), vec![2, 6, 10, 14, 18, 22, 26]);
        assert_eq!(MagBdi::new(geometry(128, 16), BaseSizes::Four).metadata_bits(), 3);
        assert_eq!(delta_widths(geometry(128, 64), 4), vec![14]);
        assert_eq!(MagBdi::new(geometry(128, 64), BaseSizes::Four).metadata_bits(), 1);
    }

    #[test]
    fn widths_for_smaller_blocks() {
        assert_eq!(delta_widths(geometry(64, 16), 4), vec![5, 13, 21]);
        assert_eq!(delta_widths(geometry(64, 32), 4), vec![13]);
        assert_eq!(delta_widths(geometry(32, 16), 4), vec![11]);
        // Block = MAG: nothing below the block size, so nothing to compress to.
        assert!(delta_widths(geometry(32, 32), 4).is_empty());
        assert!(delta_widths(geometry(64, 64), 4).is_empty());
        // A byte-granular link: every width once, none wider than the reader takes.
        let link = Geometry::with_granule(128, 1).unwrap();
        assert_eq!(delta_widths(link, 4), (1..=29).collect::<Vec<u32>>());
        assert_eq!(delta_widths(link, 2), (1..=14).collect::<Vec<u32>>());
        assert_eq!(delta_widths(link, 8), (1..=57).collect::<Vec<u32>>());
        let codec = MagBdi::new(Geometry::with_granule(64, 1).unwrap(), BaseSizes::EightFourTwo);
        assert_eq!(codec.encoding_names().len(), 1 + 28 + 54 + 14, "uncompressed, then 4-, 8- and 2-byte bases");
        for g in crate::codec::test_support::geometries().into_iter().filter(|g| g.mag_bytes() >= 16) {
            for base in [8, 4, 2] {
                let widths = delta_widths(g, base);
                assert_eq!(
                    widths.len(),
                    (1..g.block_bursts())
                        .filter(|&k| {
                            (k * g.mag_bytes() * 8).saturating_sub(base * 8 + g.block_bytes() / base)
                                >= g.block_bytes() / base
                        })
                        .count(),
                    "DRAM MAGs keep one width per size: {g:?} base {base}"
                );
            }
        }
        assert_eq!(compress(geometry(32, 32), BaseSizes::Four, &[]), (UNCOMPRESSED, 32, 1));
    }

    #[test]
    fn widths_for_8_and_2_byte_bases() {
        let g = Geometry::default();
        assert_eq!(delta_widths(g, 8), vec![11, 27, 43]);
        assert_eq!(delta_widths(g, 2), vec![2, 6, 10]);
        // 16 B MAG, 2-byte base: 64 deltas and an 80-bit header leave 0 bits in 16 bytes: dropped.
        assert_eq!(delta_widths(geometry(128, 16), 2), vec![2, 4, 6, 8, 10, 12]);
        assert_eq!(delta_widths(geometry(32, 16), 8), vec![15]);
        assert_eq!(delta_widths(geometry(32, 16), 2), vec![6]);
    }

    #[test]
    fn four_byte_base_sizes_are_exact_mag_multiples() {
        for &b in &BLOCK_SIZES {
            for &m in MAG_SIZES.iter().filter(|&&m| m < b) {
                let g = geometry(b, m);
                let codec = MagBdi::new(g, BaseSizes::Four);
                let bits: Vec<usize> = codec.encodings.iter().map(|l| l.compressed_bits(b)).collect();
                let expected: Vec<usize> = (1..b / m).map(|k| k * m * 8).collect();
                assert_eq!(bits, expected, "block {b}, MAG {m}");
            }
        }
    }

    #[test]
    fn six_bit_limits() {
        // From the explicit base: +31 and -32 fit 6 bits: 32 bytes, one burst.
        assert_eq!(compress_default(&[BASE, BASE + 31, BASE - 32]), (1, 32, 1));
        // +32 and -33 do not: 14-bit deltas, 64 bytes.
        assert_eq!(compress_default(&[BASE, BASE + 32]), (2, 64, 2));
        assert_eq!(compress_default(&[BASE, BASE - 33]), (2, 64, 2));
    }

    #[test]
    fn fourteen_and_twenty_two_bit_limits() {
        assert_eq!(compress_default(&[BASE, BASE + 8191, BASE - 8192]), (2, 64, 2));
        assert_eq!(compress_default(&[BASE, BASE + 8192]), (3, 96, 3));
        assert_eq!(compress_default(&[BASE, BASE - 8193]), (3, 96, 3));
        assert_eq!(compress_default(&[BASE, BASE + (1 << 21) - 1, BASE - (1 << 21)]), (3, 96, 3));
        // No 24-bit fallback (Sec. IV-D): a 22-bit overflow is stored raw.
        assert_eq!(compress_default(&[BASE, BASE + (1 << 21)]), (UNCOMPRESSED, 128, 4));
        assert_eq!(compress_default(&[BASE, BASE - (1 << 21) - 1]), (UNCOMPRESSED, 128, 4));
    }

    #[test]
    fn unsigned_deltas_fit_only_at_or_above_their_base() {
        let unsigned = |values: &[u64]| {
            let mut codec = MagBdi::with_deltas(Geometry::default(), BaseSizes::Four, DeltaSign::Unsigned);
            let c = assert_round_trips(&mut codec, &block_of(values, 128)).unwrap();
            (c.encoding, c.compressed_bits.div_ceil(8), c.burst_count)
        };
        // 6 unsigned bits hold 0..=63 from the base (signed: -32..=31).
        assert_eq!(unsigned(&[BASE, BASE + 63]), (1, 32, 1));
        assert_eq!(compress_default(&[BASE, BASE + 63]), (2, 64, 2));
        assert_eq!(unsigned(&[BASE, BASE + 64]), (2, 64, 2));
        assert_eq!(unsigned(&[BASE, BASE + (1 << 22) - 1]), (3, 96, 3));
        // A value below the base fits no width (signed: 6 bits).
        assert_eq!(unsigned(&[BASE, BASE - 1]), (UNCOMPRESSED, 128, 4));
        assert_eq!(compress_default(&[BASE, BASE - 1]), (1, 32, 1));
        // The zero base holds 0..=63 in 6 bits, so -1 is the explicit base;
        // 64 takes the base in 6 bits, leaving -1 below it: 14 bits then.
        assert_eq!(unsigned(&[63, 0xffff_ffff]), (1, 32, 1));
        assert_eq!(unsigned(&[64, 0xffff_ffff]), (2, 64, 2));
    }

    #[test]
    fn zero_base_limits() {
        // 31 and -32 fit the zero base in 6 bits, so the wide value is the base.
        assert_eq!(compress_default(&[31, 0xffff_ffe0, BASE]), (1, 32, 1));
        // 32 fails the zero base and becomes the explicit base; BASE then fits neither in 6 bits.
        assert_eq!(compress_default(&[32, BASE]), (2, 64, 2));
    }

    #[test]
    fn zero_block_uses_the_six_bit_unit() {
        // Table III has no zero-block encoding: all deltas are 0 from the zero base.
        let mut codec = MagBdi::new(Geometry::default(), BaseSizes::Four);
        let c = assert_round_trips(&mut codec, &[0; 128]).unwrap();
        assert_eq!((c.encoding, c.compressed_bits, c.burst_count), (1, 256, 1));
        assert_eq!(c.payload, vec![0; 32]);
    }

    #[test]
    fn bitmask_prefers_the_zero_base() {
        // 40 fails the 6-bit zero check and becomes the base; 10 fits the zero
        // base (bit 0) though it would also fit the base; 45 uses the base; -5 zero.
        let block = block_of(&[40, 10, 45, 0xffff_fffb], 128);
        let c = MagBdi::new(Geometry::default(), BaseSizes::Four).compress(&block).unwrap();
        assert_eq!((c.encoding, c.compressed_bits), (1, 256));
        let mut reader = BitReader::new(&c.payload, c.compressed_bits).unwrap();
        assert_eq!(reader.read(32).unwrap(), 40);
        assert_eq!(reader.read(32).unwrap(), 0b1010 << 28);
        let deltas: Vec<i64> = (0..5).map(|_| sign_extend(reader.read(6).unwrap(), 6)).collect();
        assert_eq!(deltas, vec![0, 10, 5, -5, 0]);
    }

    #[test]
    fn sixteen_byte_mag_sizes() {
        let g = geometry(128, 16);
        // 2-bit deltas: -2..=1: 16 bytes, one 16-byte burst.
        assert_eq!(compress(g, BaseSizes::Four, &[BASE, BASE + 1, BASE - 2, 1]), (1, 16, 1));
        assert_eq!(compress(g, BaseSizes::Four, &[BASE, BASE + 2]), (2, 32, 2));
        assert_eq!(compress(g, BaseSizes::Four, &[BASE, BASE + (1 << 25) - 1]), (7, 112, 7));
        assert_eq!(compress(g, BaseSizes::Four, &[BASE, BASE + (1 << 25)]), (UNCOMPRESSED, 128, 8));
    }

    #[test]
    fn sixty_four_byte_mag_sizes() {
        let g = geometry(128, 64);
        assert_eq!(compress(g, BaseSizes::Four, &[]), (1, 64, 1));
        assert_eq!(compress(g, BaseSizes::Four, &[BASE, BASE + 8191]), (1, 64, 1));
        assert_eq!(compress(g, BaseSizes::Four, &[BASE, BASE + 8192]), (UNCOMPRESSED, 128, 2));
    }

    #[test]
    fn smaller_block_sizes() {
        // 64 B block, 16 B MAG: 5/13/21-bit deltas fill 16/32/48 bytes.
        let g = geometry(64, 16);
        assert_eq!(compress(g, BaseSizes::Four, &[BASE, BASE + 15]), (1, 16, 1));
        assert_eq!(compress(g, BaseSizes::Four, &[BASE, BASE + 16]), (2, 32, 2));
        // 32 B block, 16 B MAG: one 11-bit width, 16 bytes.
        let g = geometry(32, 16);
        assert_eq!(compress(g, BaseSizes::Four, &[BASE, BASE - 1024]), (1, 16, 1));
        assert_eq!(compress(g, BaseSizes::Four, &[BASE, BASE + 1024]), (UNCOMPRESSED, 32, 2));
    }

    #[test]
    fn extra_bases_extend_the_encodings() {
        let g = Geometry::default();
        let codec = MagBdi::new(g, BaseSizes::EightFourTwo);
        let names = codec.encoding_names();
        assert_eq!(names.len(), 10);
        assert_eq!(&names[1..4], ["base4_delta6b", "base4_delta14b", "base4_delta22b"]);
        assert_eq!(
            &names[4..],
            ["base8_delta11b", "base8_delta27b", "base8_delta43b", "base2_delta2b", "base2_delta6b", "base2_delta10b"]
        );
        assert_eq!(codec.metadata_bits(), 4);

        // 8-byte pointers: no 4-byte base fits, the 8-byte base with 11-bit deltas does (exactly 32 B).
        let mut pointers = Vec::new();
        for i in 0..16u64 {
            push_word(&mut pointers, 0x7f00_1234_5678_0000 + i * 8, 8);
        }
        let c = assert_round_trips(&mut MagBdi::new(g, BaseSizes::EightFourTwo), &pointers).unwrap();
        assert_eq!((c.encoding, c.compressed_bits), (4, 256));
        let c = assert_round_trips(&mut MagBdi::new(g, BaseSizes::Four), &pointers).unwrap();
        assert_eq!(c.encoding, UNCOMPRESSED);

        // A zero block: base2_delta2b (2 + 8 + 16 = 26 B) is the smallest of all.
        let c = assert_round_trips(&mut MagBdi::new(g, BaseSizes::EightFourTwo), &[0; 128]).unwrap();
        assert_eq!((c.encoding, c.compressed_bits, c.burst_count), (7, 208, 1));
    }

    #[test]
    fn built_from_the_registry() {
        let g = Geometry::default();
        let codec = build_str("mag_bdi", g).unwrap();
        assert_eq!((codec.name(), codec.encoding_names().len()), ("mag_bdi", 4));
        assert_eq!(build_str("mag_bdi:bases=8+4+2", g).unwrap().encoding_names().len(), 10);
        assert_eq!(build_str("mag_bdi:bases=4", g).unwrap().encoding_names().len(), 4);
        let err = build_str("mag_bdi:bases=16", g).err().unwrap();
        assert_eq!((err.knob.as_str(), err.value.as_str()), ("mag_bdi.bases", "16"));
        assert!(build_str("mag_bdi:delta=6", g).is_err());
        let unsigned = build_str("mag_bdi:deltas=unsigned,bases=8+4+2", g).unwrap();
        assert_eq!(unsigned.encoding_names().len(), 10);
        let err = build_str("mag_bdi:deltas=both", g).err().unwrap();
        assert_eq!((err.knob.as_str(), err.value.as_str()), ("mag_bdi.deltas", "both"));
        assert_eq!(build_str("bdi", g).unwrap().name(), "bdi");
    }

    #[test]
    fn corrupt_and_unknown_payloads_are_errors() {
        let mut codec = MagBdi::new(Geometry::default(), BaseSizes::Four);
        let mut c = codec.compress(&block_of(&[BASE, BASE + 1], 128)).unwrap();
        assert_eq!(c.encoding, 1);
        c.encoding = 4;
        assert_eq!(codec.decompress(&c), Err(CodecError::UnknownEncoding(4)));
        // A 6-bit payload presented as 14-bit deltas is too short.
        c.encoding = 2;
        assert!(matches!(codec.decompress(&c), Err(CodecError::Truncated { .. })));
        // Extra bits after the last delta are rejected.
        c.encoding = 1;
        c.payload.push(0);
        c.compressed_bits += 8;
        assert!(matches!(codec.decompress(&c), Err(CodecError::Corrupt { .. })));
        assert!(codec.compress(&[0; 32]).is_err());
    }

    fn all_geometries() -> Vec<Geometry> {
        crate::codec::test_support::geometries()
    }

    fn setup_and_block(random: bool) -> impl Strategy<Value = (Geometry, BaseSizes, DeltaSign, Vec<u8>)> {
        let bases = prop::sample::select(vec![BaseSizes::Four, BaseSizes::EightFourTwo]);
        let signs = prop::sample::select(vec![DeltaSign::Signed, DeltaSign::Unsigned]);
        (prop::sample::select(all_geometries()), bases, signs).prop_flat_map(move |(g, bases, sign)| {
            let blocks = if random { random_block(g.block_bytes()).boxed() } else { structured_block(g.block_bytes()) };
            (Just(g), Just(bases), Just(sign), blocks)
        })
    }

    proptest! {
        #[test]
        fn round_trips_structured((geometry, bases, sign, block) in setup_and_block(false)) {
            let mut codec = MagBdi::with_deltas(geometry, bases, sign);
            let compressed = assert_round_trips(&mut codec, &block)?;
            if let Some(layout) = codec.layout_for(compressed.encoding) {
                prop_assert_eq!(compressed.compressed_bits, layout.compressed_bits(geometry.block_bytes()));
                if bases == BaseSizes::Four {
                    prop_assert_eq!(compressed.compressed_bits % (geometry.mag_bytes() * 8), 0);
                }
            }
        }

        #[test]
        fn round_trips_random((geometry, bases, sign, block) in setup_and_block(true)) {
            assert_round_trips(&mut MagBdi::with_deltas(geometry, bases, sign), &block)?;
        }
    }
}
