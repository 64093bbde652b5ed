//! Compress and decompress throughput (MB/s of uncompressed block data) of
//! every registered codec on one fixed, deterministic mix of blocks.
//!
//!     cargo bench -p memzip --bench codecs

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use memzip::codec::registry::{build_str, codec_names};
use memzip::Geometry;

const BLOCKS: usize = 1024;

/// splitmix64: a fixed stream, so every run benchmarks the same bytes.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A mix of what GPU memory holds: zeros, small ints, pointers, floats, noise.
fn block_mix(block_bytes: usize) -> Vec<Vec<u8>> {
    let mut state = 42;
    (0..BLOCKS)
        .map(|i| {
            let base = next(&mut state);
            let words = block_bytes / 4;
            let word = |j: usize, s: &mut u64| -> u32 {
                match i % 5 {
                    0 => 0,
                    1 => (next(s) % 200) as u32,
                    2 => (base as u32 & 0xffff_f000).wrapping_add(j as u32 * 8),
                    3 => (100.0f32 + (next(s) % 1000) as f32 / 8.0).to_bits(),
                    _ => next(s) as u32,
                }
            };
            (0..words).flat_map(|j| word(j, &mut state).to_le_bytes()).collect()
        })
        .collect()
}

fn bench_codecs(c: &mut Criterion) {
    let geometry = Geometry::default();
    let blocks = block_mix(geometry.block_bytes());
    let total_bytes = (blocks.len() * geometry.block_bytes()) as u64;
    for name in codec_names() {
        let mut codec = build_str(name, geometry).expect("registered codec builds");
        // Codecs that learn (E2MC) see the blocks once, then build their tables.
        for block in &blocks {
            codec.compress(block).expect("compress");
        }
        codec.end_sampling().expect("end sampling");
        let compressed: Vec<_> = blocks.iter().map(|b| codec.compress(b).expect("compress")).collect();

        let mut group = c.benchmark_group(name);
        group.throughput(Throughput::Bytes(total_bytes));
        group.bench_function("compress", |b| {
            b.iter(|| {
                for block in &blocks {
                    black_box(codec.compress(black_box(block)).expect("compress"));
                }
            })
        });
        let codec = &*codec;
        group.bench_function("decompress", |b| {
            b.iter(|| {
                for block in &compressed {
                    black_box(codec.decompress(black_box(block)).expect("decompress"));
                }
            })
        });
        group.finish();
    }
}

criterion_group!(benches, bench_codecs);
criterion_main!(benches);
