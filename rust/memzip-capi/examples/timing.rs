//! The codecs alone, timed as `tests/capi/timing.c` times them through the C
//! ABI (best of 300 batches of 2,000 calls, the same 64 blocks, granule 1,
//! paper-004 costs), so the two differ by what the ABI adds:
//!
//!     cargo run --release -p memzip-capi --example timing -- none bdi fpc cpack_z adaptive

use std::hint::black_box;
use std::time::Instant;

use memzip::codec::cost_profile::CostProfile;
use memzip::codec::registry::build;
use memzip::codec::spec::CodecSpec;
use memzip::{CompressedBlock, Geometry};

const BATCH: usize = 2000;
const BATCHES: usize = 300;

/// The mix of `tests/capi/timing.c`: zeros, small ints, pointers, floats, random bytes.
fn blocks() -> Vec<[u8; 64]> {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    (0..64u64)
        .map(|i| {
            let mut block = [0u8; 64];
            for (w, chunk) in block.chunks_exact_mut(8).enumerate() {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let w = w as u64;
                let word = match i % 5 {
                    0 => 0,
                    1 => (w * 3 + i) | ((w + 1) << 32),
                    2 => 0x7f3a_1234_0000 + 8 * (w + i),
                    3 => (100.0f32 + w as f32).to_bits() as u64 | (((101.5f32 + i as f32).to_bits() as u64) << 32),
                    _ => state,
                };
                chunk.copy_from_slice(&word.to_le_bytes());
            }
            block
        })
        .collect()
}

/// Best time per call over the batches, in ns.
fn best_ns(mut call: impl FnMut(usize)) -> f64 {
    (0..BATCHES)
        .map(|_| {
            let start = Instant::now();
            (0..BATCH).for_each(&mut call);
            start.elapsed().as_nanos() as f64 / BATCH as f64
        })
        .fold(f64::MAX, f64::min)
}

fn main() -> Result<(), String> {
    let blocks = blocks();
    let geometry = Geometry::with_granule(64, 1).map_err(|e| e.to_string())?;
    for spec in std::env::args().skip(1) {
        let parsed = CodecSpec::parse(&spec, geometry).map_err(|e| e.to_string())?;
        let resolved = CostProfile::Paper004.apply(&parsed).map_err(|e| e.to_string())?;
        let mut codec = build(&resolved).map_err(|e| e.to_string())?;
        let mut out = CompressedBlock::default();
        let compress = best_ns(|k| {
            codec.compress_into(black_box(&blocks[k % blocks.len()]), &mut out).expect("compress");
            black_box(&out);
        });
        let compressed: Vec<CompressedBlock> = blocks.iter().map(|b| codec.compress(b).expect("compress")).collect();
        let mut decoded = [0u8; 64];
        let decompress = best_ns(|k| {
            codec.decompress_into(black_box(&compressed[k % compressed.len()]), &mut decoded).expect("decompress");
            black_box(&decoded);
        });
        println!("{spec:10} compress_into {compress:6.1} ns   decompress_into {decompress:6.1} ns");
    }
    Ok(())
}
