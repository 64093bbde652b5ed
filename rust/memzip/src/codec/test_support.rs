//! Shared test machinery: block generators for property tests and the
//! assertions every codec must pass (round trip, consistent sizes, corrupt and
//! truncated payloads rejected without panicking).

use super::{Codec, CompressedBlock};
use crate::error::CodecError;
use crate::geometry::{Geometry, BLOCK_SIZES, MAG_SIZES};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

/// Link granules the property tests run every codec at beside the DRAM
/// MAGs: byte-granular (a multi-GPU fabric) and one small power of two.
pub const LINK_GRANULES: [usize; 2] = [1, 4];

/// Every block size with every DRAM MAG it allows and every link granule.
pub fn geometries() -> Vec<Geometry> {
    BLOCK_SIZES
        .iter()
        .flat_map(|&block| {
            let dram = MAG_SIZES.iter().filter_map(move |&mag| Geometry::new(block, mag).ok());
            dram.chain(LINK_GRANULES.iter().map(move |&granule| Geometry::with_granule(block, granule).unwrap()))
        })
        .collect()
}

/// A codec's spec with its defaults made valid at `geometry`: SLC's lossy
/// threshold (16 bytes by default) may not exceed the granule.
pub fn spec_at(name: &str, geometry: Geometry) -> String {
    match name {
        "slc" if geometry.mag_bytes() < 16 => format!("slc:threshold={}", geometry.mag_bytes()),
        _ => name.to_string(),
    }
}

fn le_words(values: &[u64], width_bytes: usize, block_bytes: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(block_bytes);
    for v in values.iter().cycle() {
        if out.len() >= block_bytes {
            break;
        }
        out.extend_from_slice(&v.to_le_bytes()[..width_bytes]);
    }
    out.truncate(block_bytes);
    out
}

/// Random bytes: should compress (almost) never.
pub fn random_block(block_bytes: usize) -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(any::<u8>(), block_bytes)
}

/// Blocks with the structure real GPU data has and codecs exploit: zeros,
/// repeated values, small integers, pointers with a common base, floats of
/// one magnitude, narrow deltas right at each width's limit, and mixtures.
pub fn structured_block(block_bytes: usize) -> BoxedStrategy<Vec<u8>> {
    let zeros = Just(vec![0u8; block_bytes]).boxed();
    let repeated = (any::<u64>(), prop::sample::select(vec![1usize, 2, 4, 8]))
        .prop_map(move |(v, w)| le_words(&[v], w, block_bytes))
        .boxed();
    let small_ints = (prop::sample::select(vec![1usize, 2, 4, 8]), 1u32..=16)
        .prop_flat_map(move |(w, bits)| {
            let n = block_bytes / w;
            prop::collection::vec(-(1i64 << (bits - 1))..(1i64 << (bits - 1)), n)
                .prop_map(move |vals| le_words(&vals.iter().map(|&v| v as u64).collect::<Vec<_>>(), w, block_bytes))
        })
        .boxed();
    let pointers = (any::<u64>(), prop::collection::vec(0u64..4096, block_bytes / 8))
        .prop_map(move |(base, offs)| {
            let base = base & 0x0000_7fff_ffff_f000;
            le_words(&offs.iter().map(|o| base + o * 8).collect::<Vec<_>>(), 8, block_bytes)
        })
        .boxed();
    let floats = (-1.0e3f32..1.0e3, prop::collection::vec(0.9f32..1.1, block_bytes / 4))
        .prop_map(move |(scale, factors)| {
            let vals: Vec<u64> = factors.iter().map(|f| (scale * f).to_bits() as u64).collect();
            le_words(&vals, 4, block_bytes)
        })
        .boxed();
    let narrow_deltas = (
        prop::sample::select(vec![1usize, 2, 4, 8]),
        1u32..=40,
        any::<u64>(),
        prop::collection::vec((any::<bool>(), any::<bool>(), any::<u64>()), block_bytes),
    )
        .prop_map(move |(w, bits, base, picks)| {
            let n = block_bytes / w;
            let word_bits = (w * 8) as u32;
            let bits = bits.min(word_bits);
            let lo = -(1i128 << (bits - 1));
            let hi = (1i128 << (bits - 1)) - 1;
            let vals: Vec<u64> = picks[..n]
                .iter()
                .map(|&(at_limit, low_side, r)| {
                    let delta = if at_limit {
                        if low_side {
                            lo
                        } else {
                            hi
                        }
                    } else {
                        lo + (r as i128).rem_euclid(hi - lo + 1)
                    };
                    (base as i128 + delta) as u64
                })
                .collect();
            le_words(&vals, w, block_bytes)
        })
        .boxed();
    let half_zero = random_block(block_bytes)
        .prop_map(move |mut b| {
            for chunk in b.chunks_mut(8).step_by(2) {
                chunk.fill(0);
            }
            b
        })
        .boxed();
    prop_oneof![
        zeros,
        repeated,
        small_ints,
        pointers,
        floats,
        narrow_deltas,
        half_zero,
        random_block(block_bytes).boxed()
    ]
    .boxed()
}

/// Compresses, checks the sizes agree with each other, decompresses and
/// compares; then checks truncation and bit flips do not panic the decoder.
pub fn assert_round_trips(codec: &mut dyn Codec, block: &[u8]) -> Result<CompressedBlock, TestCaseError> {
    let geometry = codec.geometry();
    let compressed = codec.compress(block).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert!(compressed.payload.len() * 8 >= compressed.compressed_bits);
    prop_assert!(compressed.payload.len() <= compressed.compressed_bits.div_ceil(8));
    prop_assert_eq!(compressed.mag_bytes, geometry.mag_rounded_bytes(compressed.compressed_bits));
    prop_assert_eq!(compressed.burst_count, geometry.burst_count(compressed.compressed_bits));
    prop_assert!(compressed.mag_bytes <= geometry.block_bytes());
    if compressed.is_compressed() {
        prop_assert!(geometry.worth_compressing(compressed.compressed_bits));
    }
    let names = codec.encoding_names();
    prop_assert!((compressed.encoding as usize) < names.len(), "encoding id {} out of range", compressed.encoding);
    let decoded = codec.decompress(&compressed).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(&decoded[..], block);
    assert_truncation_rejected(codec, &compressed)?;
    assert_corruption_survived(codec, &compressed);
    Ok(compressed)
}

/// Losing the last bit, or the last payload byte, must be an error.
pub fn assert_truncation_rejected(codec: &dyn Codec, compressed: &CompressedBlock) -> Result<(), TestCaseError> {
    let mut short_bits = compressed.clone();
    short_bits.compressed_bits -= 1;
    prop_assert!(codec.decompress(&short_bits).is_err(), "one bit short was accepted");
    let mut short_payload = compressed.clone();
    short_payload.payload.pop();
    prop_assert!(codec.decompress(&short_payload).is_err(), "a byte short was accepted");
    Ok(())
}

/// Flipping any single bit, or naming any encoding id, may decode to other
/// data (hardware has no checksum) but must never panic and never return a
/// block of the wrong size.
pub fn assert_corruption_survived(codec: &dyn Codec, compressed: &CompressedBlock) {
    let block_bytes = codec.geometry().block_bytes();
    let check = |c: &CompressedBlock| match codec.decompress(c) {
        Ok(out) => assert_eq!(out.len(), block_bytes, "decoder returned a block of the wrong size"),
        Err(CodecError::Corrupt { .. } | CodecError::Truncated { .. } | CodecError::UnknownEncoding(_)) => {}
        Err(other) => panic!("unexpected error kind: {other}"),
    };
    for bit in (0..compressed.compressed_bits).step_by(3) {
        let mut flipped = compressed.clone();
        flipped.payload[bit / 8] ^= 0x80 >> (bit % 8);
        check(&flipped);
    }
    for id in 0..=u8::MAX {
        let mut renamed = compressed.clone();
        renamed.encoding = id;
        check(&renamed);
    }
}

/// A block of `words` little-endian 32-bit words: `head`, then zero words.
pub fn words_block(head: &[u32], words: usize) -> Vec<u8> {
    head.iter().chain(std::iter::repeat(&0)).take(words).flat_map(|w| w.to_le_bytes()).collect()
}

/// The meaningful bits of a payload as a '0'/'1' string.
pub fn bit_string(c: &CompressedBlock) -> String {
    (0..c.compressed_bits).map(|i| if c.payload[i / 8] & (0x80 >> (i % 8)) != 0 { '1' } else { '0' }).collect()
}

/// Expected bit strings are written with spaces between fields; drop them.
pub fn spaced(bits: &str) -> String {
    bits.chars().filter(|c| !c.is_whitespace()).collect()
}
