//! The codec contract, run over every registered codec at every geometry
//! the project uses ([`geometries`]: each block size with each DRAM MAG it
//! allows, and the link granules), so a codec is tested the moment it is
//! registered, without a test list to edit.
//!
//! Per codec: the declaration agrees with the codec it builds (name, default
//! latency, lossiness), its energy figure is real (finite, not negative,
//! more than 0 pJ for anything but `none`, with a source); per geometry and
//! block: the round trip with truncated and bit-flipped payloads
//! ([`assert_round_trips`]), the size-only path equal to `compress` on a twin
//! fed the same blocks, the approximable path (a lossless codec stores the
//! block exactly; a lossy one decodes to the approximation it reports), and
//! payloads of random bytes decoded without a panic.

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

use super::declaration::{DefaultLatency, EnergyFigure};
use super::latency_knobs;
use super::registry::{build_str, declarations};
use super::test_support::{assert_corruption_survived, assert_round_trips, geometries, spec_at, structured_block};
use super::{Codec, CompressedBlock};
use crate::geometry::Geometry;
use crate::mc::energy::EnergyParams;

/// Blocks per case, and cases per codec and geometry: every codec meets
/// 13 geometries, so a few cases each keep the whole run to seconds.
const BLOCKS_PER_CASE: usize = 10;
const CASES: u32 = 6;

#[test]
fn every_declaration_matches_the_codec_it_builds() {
    let mut names: Vec<&str> = Vec::new();
    for declared in declarations() {
        assert!(!names.contains(&declared.name), "{} is registered twice", declared.name);
        names.push(declared.name);
        assert!(!declared.summary.is_empty(), "{}: a summary", declared.name);
        for knob in declared.knobs {
            assert!(!knob.accepts.is_empty(), "{}.{}: what it accepts", declared.name, knob.name);
            assert!(!latency_knobs::KNOBS.contains(&knob.name), "{}: the registry adds {}", declared.name, knob.name);
        }
        let codec = build_str(declared.name, Geometry::default()).unwrap_or_else(|e| panic!("{}: {e}", declared.name));
        assert_eq!(codec.name(), declared.name);
        if let DefaultLatency::Cycles(latency) = declared.latency {
            assert_eq!(codec.latency(), latency, "{}: declared default latency", declared.name);
            let spec = format!("{}:{}=3", declared.name, latency_knobs::COMP_LATENCY);
            assert_eq!(build_str(&spec, Geometry::default()).unwrap().latency().compress_cycles, 3, "{spec}");
        }
    }
    assert_eq!(names.first(), Some(&"none"), "the baseline is listed first");
}

#[test]
fn every_codec_declares_a_real_energy_figure() {
    let params = EnergyParams::default();
    for declared in declarations() {
        let codec = build_str(declared.name, Geometry::default()).unwrap();
        match declared.energy {
            EnergyFigure::PerBlock { source, .. } => {
                assert!(!source.is_empty(), "{}: the figure's source", declared.name);
                let energy = declared.energy(&params, 1024).unwrap();
                let halves = [energy.compress_pj, energy.decompress_pj];
                assert!(halves.iter().all(|pj| pj.is_finite() && *pj >= 0.0), "{}: {energy:?}", declared.name);
                if declared.name != "none" {
                    assert!(halves.iter().all(|&pj| pj > 0.0), "{} costs 0 pJ: declare its figure", declared.name);
                }
            }
            EnergyFigure::OfCandidates => {
                // Charged to what it runs: each of those has a figure.
                for compressor in codec.compressor_names() {
                    assert!(
                        super::registry::energy(compressor, &params, 1024).is_some(),
                        "{}'s candidate {compressor} has no figure",
                        declared.name
                    );
                }
            }
        }
    }
}

/// One case: `blocks` through `codec`, with `twin` (built from the same
/// spec) fed the same blocks through the size-only path and `approximating`
/// through the approximable one; sampling ends halfway (E2MC online).
fn check_blocks(
    codecs: [&mut dyn Codec; 3],
    lossy: bool,
    blocks: &[Vec<u8>],
    noise: &[u8],
) -> Result<(), TestCaseError> {
    let [codec, twin, approximating] = codecs;
    let name = codec.name().to_string();
    let block_bytes = codec.geometry().block_bytes();
    let mut stored = CompressedBlock::default();
    let mut approximated = vec![0u8; block_bytes];
    for (index, block) in blocks.iter().enumerate() {
        if index == blocks.len() / 2 {
            for c in [&mut *codec, &mut *twin, &mut *approximating] {
                c.end_sampling().map_err(|e| TestCaseError::fail(e.to_string()))?;
            }
        }
        let compressed = assert_round_trips(codec, block)?;
        let size = twin.compressed_size(block).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(size, compressed.size(), "{}: compressed_size against compress", name);
        let approximate = approximating
            .compress_approximable_into(block, &mut stored, &mut approximated)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert!(lossy || !approximate, "{} approximated a block but is not declared lossy", name);
        let expected: &[u8] = if approximate { &approximated } else { block };
        let decoded = approximating.decompress(&stored).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(&decoded[..], expected, "{}: the approximable path decodes to what it reported", name);
        // Random bytes as a payload of this block's encoding and size.
        let mut random = compressed.clone();
        let start = index * 7 % noise.len().max(1);
        for (i, byte) in random.payload.iter_mut().enumerate() {
            *byte = noise.get((start + i) % noise.len().max(1)).copied().unwrap_or(0);
        }
        assert_corruption_survived(codec, &random);
    }
    Ok(())
}

#[test]
fn every_codec_keeps_the_contract_at_every_geometry() {
    for geometry in geometries() {
        let block_bytes = geometry.block_bytes();
        let strategy = (
            prop::collection::vec(structured_block(block_bytes), 1..=BLOCKS_PER_CASE),
            prop::collection::vec(any::<u8>(), block_bytes + 8),
        );
        for declared in declarations() {
            let spec = spec_at(declared.name, geometry);
            let build = || build_str(&spec, geometry).unwrap_or_else(|e| panic!("{spec} at {geometry:?}: {e}"));
            let mut runner = TestRunner::new(Config { cases: CASES, failure_persistence: None, ..Config::default() });
            runner
                .run(&strategy, |(blocks, noise)| {
                    let (mut codec, mut twin, mut approximating) = (build(), build(), build());
                    check_blocks(
                        [codec.as_mut(), twin.as_mut(), approximating.as_mut()],
                        declared.lossy,
                        &blocks,
                        &noise,
                    )
                })
                .unwrap_or_else(|e| panic!("{spec} at {geometry:?}: {e}"));
        }
    }
}
