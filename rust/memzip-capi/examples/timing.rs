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

#[path = "../benches/common/mod.rs"]
mod common;
use common::{blocks, BLOCK_BYTES};

const BATCH: usize = 2000;
const BATCHES: usize = 300;

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
    let geometry = Geometry::with_granule(BLOCK_BYTES, 1).map_err(|e| e.to_string())?;
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
        let mut decoded = [0u8; BLOCK_BYTES];
        let decompress = best_ns(|k| {
            codec.decompress_into(black_box(&compressed[k % compressed.len()]), &mut decoded).expect("decompress");
            black_box(&decoded);
        });
        println!("{spec:10} compress_into {compress:6.1} ns   decompress_into {decompress:6.1} ns");
    }
    Ok(())
}
