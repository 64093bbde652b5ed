//! The latency knobs every codec spec takes except the adaptive selector's
//! own: `comp_latency=N` and `decomp_latency=N` replace the codec's default
//! compression and decompression latencies (cycles), e.g.
//! `fpc:comp_latency=3,decomp_latency=5`, or per candidate in
//! `adaptive:candidates=fpc:comp_latency=3/bdi:comp_latency=2`.
//!
//! Unlike the memory controller's simulator-wide override
//! (`McOptions::compress_latency`, the `-memzip_comp_latency` flag), which
//! changes only what the controller charges, these change the codec itself,
//! so the adaptive selector's penalty (Eq. 1 of "Exploiting Adaptive Data
//! Compression to Improve Performance and Energy-Efficiency of Compute
//! Workloads in Multi-GPU Systems", IPDPS 2019, Section IV) weighs its
//! candidates with the latencies they are given. The adaptive selector itself
//! takes no latency knob: its cost is its candidates' (the slowest while
//! sampling, the chosen one while running, none while bypassing).

use super::spec::CodecSpec;
use super::{BlockSize, Codec, CompressedBlock, CompressorsUsed, EncodingId, Latency, Table2Patterns, UNCOMPRESSED};
use crate::error::{CodecError, ConfigError};
use crate::geometry::Geometry;

/// Replaces the codec's compression latency, in cycles.
pub const COMP_LATENCY: &str = "comp_latency";
/// Replaces the codec's decompression latency, in cycles.
pub const DECOMP_LATENCY: &str = "decomp_latency";
/// Both knobs, as the registry lists them.
pub const KNOBS: [&str; 2] = [COMP_LATENCY, DECOMP_LATENCY];

/// A codec with one or both of its latencies replaced; everything else
/// (encodings, sizes, bitstreams, sampling) is the inner codec's.
pub struct WithLatency {
    inner: Box<dyn Codec>,
    compress_cycles: Option<u32>,
    decompress_cycles: Option<u32>,
}

/// Applies the spec's latency knobs to the codec it built: the codec as is
/// when the spec sets neither.
pub fn apply(spec: &CodecSpec, codec: Box<dyn Codec>) -> Result<Box<dyn Codec>, ConfigError> {
    let cycles = |knob: &str| -> Result<Option<u32>, ConfigError> {
        match spec.has(knob) {
            false => Ok(None),
            true => spec.knob(knob, 0u32, "a cycle count (an integer from 0 to 4294967295)").map(Some),
        }
    };
    let (compress_cycles, decompress_cycles) = (cycles(COMP_LATENCY)?, cycles(DECOMP_LATENCY)?);
    if compress_cycles.is_none() && decompress_cycles.is_none() {
        return Ok(codec);
    }
    Ok(Box::new(WithLatency { inner: codec, compress_cycles, decompress_cycles }))
}

impl Codec for WithLatency {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn geometry(&self) -> Geometry {
        self.inner.geometry()
    }

    fn compress_into(&mut self, block: &[u8], out: &mut CompressedBlock) -> Result<(), CodecError> {
        self.inner.compress_into(block, out)
    }

    fn decompress_into(&self, compressed: &CompressedBlock, out: &mut [u8]) -> Result<(), CodecError> {
        self.inner.decompress_into(compressed, out)
    }

    fn compressed_size(&mut self, block: &[u8]) -> Result<BlockSize, CodecError> {
        self.inner.compressed_size(block)
    }

    fn compress_approximable_into(
        &mut self,
        block: &[u8],
        out: &mut CompressedBlock,
        approximated: &mut [u8],
    ) -> Result<bool, CodecError> {
        self.inner.compress_approximable_into(block, out, approximated)
    }

    fn approximated_bytes(&self, compressed: &CompressedBlock, may_change: &mut [bool]) -> Result<(), CodecError> {
        self.inner.approximated_bytes(compressed, may_change)
    }

    fn latency(&self) -> Latency {
        let defaults = self.inner.latency();
        Latency::new(
            self.compress_cycles.unwrap_or(defaults.compress_cycles),
            self.decompress_cycles.unwrap_or(defaults.decompress_cycles),
        )
    }

    fn compress_cycles(&self, compressed: &CompressedBlock) -> u32 {
        self.compress_cycles.unwrap_or_else(|| self.inner.compress_cycles(compressed))
    }

    /// Raw blocks bypass the decompressor whatever the knob says.
    fn decompress_cycles(&self, encoding: EncodingId) -> u32 {
        match (encoding, self.decompress_cycles) {
            (UNCOMPRESSED, _) => 0,
            (_, Some(cycles)) => cycles,
            (_, None) => self.inner.decompress_cycles(encoding),
        }
    }

    fn compressor_names(&self) -> Vec<&str> {
        self.inner.compressor_names()
    }

    fn last_compressors(&self) -> CompressorsUsed {
        self.inner.last_compressors()
    }

    fn compressors_used(&self) -> Vec<&str> {
        self.inner.compressors_used()
    }

    fn encoding_names(&self) -> Vec<String> {
        self.inner.encoding_names()
    }

    fn metadata_bits(&self) -> u32 {
        self.inner.metadata_bits()
    }

    fn end_sampling(&mut self) -> Result<(), CodecError> {
        self.inner.end_sampling()
    }

    fn count_table2_patterns(&mut self, block: &[u8], words: &mut Table2Patterns) -> Result<bool, CodecError> {
        self.inner.count_table2_patterns(block, words)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::registry::{build_str, codec_names};
    use crate::codec::test_support::{assert_round_trips, spec_at, structured_block};
    use crate::geometry::Geometry;
    use proptest::prelude::*;

    fn geometry() -> Geometry {
        Geometry::with_granule(64, 1).unwrap()
    }

    #[test]
    fn knobs_replace_the_defaults_and_raw_blocks_still_bypass() {
        let fpc = build_str("fpc", geometry()).unwrap();
        assert_eq!(fpc.latency(), Latency::new(6, 10), "FPC's own defaults");
        let mut tuned = build_str("fpc:comp_latency=3,decomp_latency=5", geometry()).unwrap();
        assert_eq!(tuned.latency(), Latency::new(3, 5));
        let zeros = tuned.compress(&[0u8; 64]).unwrap();
        assert!(zeros.is_compressed());
        assert_eq!((tuned.compress_cycles(&zeros), tuned.decompress_cycles(zeros.encoding)), (3, 5));
        assert_eq!(tuned.decompress_cycles(UNCOMPRESSED), 0);
        let only_decomp = build_str("cpack_z:decomp_latency=0", geometry()).unwrap();
        assert_eq!(only_decomp.latency(), Latency::new(16, 0), "the other latency keeps its default");
        assert_eq!(build_str("bdi:comp_latency=0", geometry()).unwrap().latency(), Latency::new(0, 1));
    }

    #[test]
    fn every_codec_but_adaptive_takes_them() {
        for name in codec_names().into_iter().filter(|&n| n != "adaptive") {
            let spec = spec_at(name, geometry());
            let knobs = if spec.contains(':') { "," } else { ":" };
            let codec = build_str(&format!("{spec}{knobs}comp_latency=7,decomp_latency=9"), geometry())
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!((codec.name(), codec.latency()), (name, Latency::new(7, 9)));
            let plain = build_str(&spec, geometry()).unwrap();
            assert_eq!(codec.encoding_names(), plain.encoding_names(), "{name}");
            assert_eq!(codec.metadata_bits(), plain.metadata_bits(), "{name}");
            assert_eq!(codec.compressor_names(), [name]);
        }
        let err = build_str("adaptive:comp_latency=3", geometry()).err().unwrap();
        assert!(err.to_string().contains("candidates=fpc:comp_latency=3"), "{err}");
    }

    #[test]
    fn bad_values_name_codec_knob_and_value() {
        let err = build_str("fpc:comp_latency=-1", geometry()).err().unwrap();
        assert_eq!(
            err.to_string(),
            "invalid fpc.comp_latency '-1': expected a cycle count (an integer from 0 to 4294967295)"
        );
        let err = build_str("adaptive:candidates=bdi:decomp_latency=fast/fpc", geometry()).err().unwrap();
        assert_eq!((err.knob.as_str(), err.value.as_str()), ("bdi.decomp_latency", "fast"));
    }

    #[test]
    fn adaptive_weighs_candidates_with_their_knobs() {
        // Zero blocks: FPC stores 64 bytes of zeros in 3 bits (one zero-block
        // prefix, paper004 table), BDI in 4. With its default latencies
        // (FPC 6+10, BDI 1+1) BDI wins every sample at λ = 6; make BDI slow and
        // FPC wins instead.
        let zeros = [0u8; 64];
        let run = |spec: &str| {
            let mut codec = build_str(spec, geometry()).unwrap();
            for _ in 0..8 {
                codec.compress(&zeros).unwrap();
            }
            let block = codec.compress(&zeros).unwrap();
            (codec.encoding_names()[block.encoding as usize].clone(), codec.compress_cycles(&block))
        };
        let (winner, cycles) = run("adaptive:candidates=fpc:variant=paper004/bdi");
        assert!(winner.starts_with("bdi/"), "{winner}");
        assert_eq!(cycles, 1);
        let (winner, cycles) =
            run("adaptive:candidates=fpc:variant=paper004,comp_latency=3,decomp_latency=5/bdi:comp_latency=40");
        assert!(winner.starts_with("fpc/"), "{winner}");
        assert_eq!(cycles, 3, "the running phase costs the chosen candidate's overridden latency");
        let mut sampling = build_str("adaptive:candidates=fpc:comp_latency=3/bdi:comp_latency=40", geometry()).unwrap();
        let block = sampling.compress(&zeros).unwrap();
        assert_eq!(sampling.compress_cycles(&block), 40, "a sample costs the slowest candidate, as overridden");
    }

    #[test]
    fn slc_keeps_approximating_under_the_knobs() {
        // Floats near 1.0 with random low halves: E2MC16 leaves many a few
        // bytes above a MAG multiple, which SLC approximates, wrapped or not.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut floats = || -> Vec<u8> {
            (0..32)
                .flat_map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    (0x3f80_0000u32 | (state as u32 & 0xffff)).to_le_bytes()
                })
                .collect()
        };
        let mut plain = build_str("slc", Geometry::default()).unwrap();
        let mut tuned = build_str("slc:comp_latency=1", Geometry::default()).unwrap();
        for _ in 0..64 {
            let block = floats();
            plain.compress(&block).unwrap();
            tuned.compress(&block).unwrap();
        }
        plain.end_sampling().unwrap();
        tuned.end_sampling().unwrap();
        let mut lossy_blocks = 0;
        for _ in 0..50 {
            let block = floats();
            let (mut a, mut b) = (CompressedBlock::default(), CompressedBlock::default());
            let (mut approx_a, mut approx_b) = ([0u8; 128], [0u8; 128]);
            let lossy_a = plain.compress_approximable_into(&block, &mut a, &mut approx_a).unwrap();
            let lossy_b = tuned.compress_approximable_into(&block, &mut b, &mut approx_b).unwrap();
            assert_eq!((lossy_a, &a, approx_a), (lossy_b, &b, approx_b));
            lossy_blocks += lossy_a as usize;
        }
        assert!(lossy_blocks > 0, "no block was approximated: the test would not see a lost override");
    }

    proptest! {
        #[test]
        fn wrapped_codecs_round_trip_as_the_inner_one(block in structured_block(64)) {
            for name in ["fpc", "bdi", "cpack_z", "e2mc16", "mag_bdi"] {
                let mut tuned = build_str(&format!("{name}:comp_latency=1,decomp_latency=2"), geometry()).unwrap();
                let mut plain = build_str(name, geometry()).unwrap();
                let compressed = assert_round_trips(tuned.as_mut(), &block)?;
                prop_assert_eq!(&compressed, &plain.compress(&block).unwrap());
                prop_assert_eq!(tuned.compressed_size(&block).unwrap(), plain.compressed_size(&block).unwrap());
            }
        }
    }
}
