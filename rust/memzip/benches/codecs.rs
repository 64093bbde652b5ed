//! Throughput (MB/s of uncompressed block data, decimal) of every registered
//! codec: compress, decompress, and both in turn on every block (the figure
//! issue 12's targets are stated in), on the deterministic synthetic mix of
//! `tests/common/mix.rs` at 128 B blocks and a 32 B MAG, then on the written
//! blocks of the real DRAM traces in `benchmarks/traces/` when there are any.
//!
//!     cargo bench -p memzip --bench codecs
//!
//! E2MC codecs first see the blocks once (online sampling), then build their
//! table and are timed coding with it.

#[path = "../tests/common/mix.rs"]
mod mix;

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use memzip::codec::registry::{build_str, codec_names};
use memzip::trace::{AccessKind, TraceReader};
use memzip::{CompressedBlock, Geometry};
use std::path::Path;
use std::time::Duration;

const BLOCKS: usize = 2048;

/// Times every registered codec on `blocks` (128 B, 32 B MAG): the
/// allocation-free calls the memory controller, the FFI and `analyze` make.
fn bench_blocks(c: &mut Criterion, set: &str, blocks: &[Vec<u8>]) {
    let geometry = Geometry::default();
    let total_bytes = (blocks.len() * geometry.block_bytes()) as u64;
    for name in codec_names() {
        let mut codec = build_str(name, geometry).expect("registered codec builds");
        // Codecs that learn (E2MC) see the blocks once, then build their tables.
        for block in blocks {
            codec.compress(block).expect("compress");
        }
        codec.end_sampling().expect("end sampling");
        let compressed: Vec<_> = blocks.iter().map(|b| codec.compress(b).expect("compress")).collect();
        let mut out = CompressedBlock::default();
        let mut decoded = vec![0u8; geometry.block_bytes()];

        let mut group = c.benchmark_group(format!("{set}/{name}"));
        group.throughput(Throughput::BytesDecimal(total_bytes));
        group.bench_function("compress+decompress", |b| {
            b.iter(|| {
                for block in blocks {
                    codec.compress_into(black_box(block), &mut out).expect("compress");
                    codec.decompress_into(&out, &mut decoded).expect("decompress");
                    black_box(&decoded);
                }
            })
        });
        group.bench_function("compress", |b| {
            b.iter(|| {
                for block in blocks {
                    codec.compress_into(black_box(block), &mut out).expect("compress");
                    black_box(&out);
                }
            })
        });
        group.bench_function("size_only", |b| {
            b.iter(|| {
                for block in blocks {
                    black_box(codec.compressed_size(black_box(block)).expect("size"));
                }
            })
        });
        let codec = &*codec;
        group.bench_function("decompress", |b| {
            b.iter(|| {
                for block in &compressed {
                    codec.decompress_into(black_box(block), &mut decoded).expect("decompress");
                    black_box(&decoded);
                }
            })
        });
        group.finish();
    }
}

/// The written and copied 128 B blocks of every trace committed under
/// `benchmarks/traces/` (real DRAM blocks), if any.
fn trace_blocks() -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../benchmarks/traces");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    paths.retain(|p| p.extension().is_some_and(|e| e == "mzt" || e == "zst"));
    paths.sort();
    let mut blocks = Vec::new();
    for path in paths {
        let file = std::fs::File::open(&path).expect("open trace");
        let reader = TraceReader::new(file).expect("trace header");
        if reader.block_bytes() != Geometry::default().block_bytes() {
            continue;
        }
        for record in reader {
            let record = record.expect("trace record");
            if record.kind != AccessKind::Read {
                blocks.push(record.data);
            }
        }
    }
    blocks
}

fn bench_codecs(c: &mut Criterion) {
    let blocks = mix::block_mix(Geometry::default().block_bytes(), BLOCKS, 42);
    bench_blocks(c, "mix", &blocks);
    let real = trace_blocks();
    if real.is_empty() {
        println!("SKIP real-trace benchmark: no 128 B trace (.mzt, .zst) in benchmarks/traces/");
    } else {
        bench_blocks(c, "trace", &real);
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    targets = bench_codecs
}
criterion_main!(benches);
