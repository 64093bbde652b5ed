//! Quick best-of-N throughput of every registered codec (MB/s of block data,
//! one thread) on the synthetic mix of `tests/common/mix.rs`: compress +
//! decompress, compress, decompress and the size-only path, each the best of
//! `ROUNDS` timed passes over all blocks, so a shared machine's quiet moments
//! count. The criterion benchmark (`benches/codecs.rs`) is the reference;
//! this is for iterating.
//!
//!     cargo run --release -p memzip --example throughput [ROUNDS] [codec...] [trace...]
//!
//! Arguments naming a trace file (`.mzt` or `.zst`) replace the mix with the
//! written and copied blocks of those traces (128 B blocks only).

#[path = "../tests/common/mix.rs"]
mod mix;

use std::hint::black_box;
use std::time::Instant;

use memzip::codec::registry::{build_str, codec_names};
use memzip::trace::{AccessKind, TraceReader};
use memzip::{CompressedBlock, Geometry};

fn best_of(rounds: usize, bytes: usize, mut pass: impl FnMut()) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..rounds {
        let started = Instant::now();
        pass();
        best = best.min(started.elapsed().as_secs_f64());
    }
    bytes as f64 / best / 1e6
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rounds = args.first().and_then(|a| a.parse().ok()).unwrap_or(30);
    let is_trace = |a: &String| a.ends_with(".mzt") || a.ends_with(".zst");
    let wanted: Vec<String> = args.iter().skip(1).filter(|a| !is_trace(a)).cloned().collect();
    let traces: Vec<&String> = args.iter().skip(1).filter(|a| is_trace(a)).collect();
    let geometry = Geometry::default();
    let blocks = if traces.is_empty() {
        mix::block_mix(geometry.block_bytes(), 2048, 42)
    } else {
        let mut blocks = Vec::new();
        for path in traces {
            let reader = TraceReader::new(std::fs::File::open(path).expect("open trace")).expect("trace header");
            assert_eq!(reader.block_bytes(), geometry.block_bytes(), "{path}: 128 B blocks only");
            for record in reader {
                let record = record.expect("trace record");
                if record.kind != AccessKind::Read {
                    blocks.push(record.data);
                }
            }
        }
        println!("{} written/copied blocks from the traces", blocks.len());
        blocks
    };
    let bytes = blocks.len() * geometry.block_bytes();
    println!("{:<10} {:>10} {:>10} {:>10} {:>10}   (MB/s, best of {rounds})", "codec", "comp+dec", "compress", "decomp", "size");
    for name in codec_names().into_iter().filter(|n| wanted.is_empty() || wanted.iter().any(|w| w == n)) {
        let mut codec = build_str(name, geometry).expect("codec");
        for block in &blocks {
            codec.compress(block).expect("compress");
        }
        codec.end_sampling().expect("end sampling");
        let compressed: Vec<_> = blocks.iter().map(|b| codec.compress(b).expect("compress")).collect();
        let mut out = CompressedBlock::default();
        let mut decoded = vec![0u8; geometry.block_bytes()];
        let both = best_of(rounds, bytes, || {
            for block in &blocks {
                codec.compress_into(block, &mut out).expect("compress");
                codec.decompress_into(&out, &mut decoded).expect("decompress");
                black_box(&decoded);
            }
        });
        let compress = best_of(rounds, bytes, || {
            for block in &blocks {
                codec.compress_into(block, &mut out).expect("compress");
                black_box(&out);
            }
        });
        let decompress = best_of(rounds, bytes, || {
            for c in &compressed {
                codec.decompress_into(c, &mut decoded).expect("decompress");
                black_box(&decoded);
            }
        });
        let size = best_of(rounds, bytes, || {
            for block in &blocks {
                black_box(codec.compressed_size(block).expect("size"));
            }
        });
        println!("{name:<10} {both:>10.0} {compress:>10.0} {decompress:>10.0} {size:>10.0}");
    }
}
