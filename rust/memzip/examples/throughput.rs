//! Quick best-of-N throughput of every registered codec (MB/s of block data,
//! one thread) on the synthetic mix of `tests/common/mix.rs`: compress +
//! decompress, compress, decompress and the size-only path. The blocks are
//! timed in segments of `SEGMENT_BLOCKS`; each segment's time is its best of
//! `ROUNDS` passes, and a figure is all blocks over the sum of those bests.
//! On a shared machine a whole pass is rarely left alone for its full
//! length, and a longer pass (compress + decompress takes about the sum of
//! the other two) less often than a short one: timing whole passes made the
//! combined figure look far below what compress and decompress alone
//! implied. Segments of ~10 us are mostly not preempted, so every pass's
//! quiet segments count. The criterion benchmark (`benches/codecs.rs`) is
//! the reference; this is for iterating.
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

/// Blocks per timed segment (128 B blocks: 8 KiB, about 10 us of work).
const SEGMENT_BLOCKS: usize = 64;

/// MB/s of `count` blocks of `block_bytes`: `segment(range)` processes the
/// blocks of `range`; each segment's best time over `rounds` passes is summed.
fn best_of(rounds: usize, count: usize, block_bytes: usize, mut segment: impl FnMut(std::ops::Range<usize>)) -> f64 {
    let starts: Vec<usize> = (0..count).step_by(SEGMENT_BLOCKS).collect();
    let mut best = vec![f64::INFINITY; starts.len()];
    for _ in 0..rounds {
        for (k, &start) in starts.iter().enumerate() {
            let started = Instant::now();
            segment(start..(start + SEGMENT_BLOCKS).min(count));
            best[k] = best[k].min(started.elapsed().as_secs_f64());
        }
    }
    (count * block_bytes) as f64 / best.iter().sum::<f64>() / 1e6
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
    let (count, block_bytes) = (blocks.len(), geometry.block_bytes());
    println!(
        "{:<10} {:>10} {:>10} {:>10} {:>10}   (MB/s, best of {rounds})",
        "codec", "comp+dec", "compress", "decomp", "size"
    );
    for name in codec_names().into_iter().filter(|n| wanted.is_empty() || wanted.iter().any(|w| w == n)) {
        let mut codec = build_str(name, geometry).expect("codec");
        for block in &blocks {
            codec.compress(block).expect("compress");
        }
        codec.end_sampling().expect("end sampling");
        let compressed: Vec<_> = blocks.iter().map(|b| codec.compress(b).expect("compress")).collect();
        let mut out = CompressedBlock::default();
        let mut decoded = vec![0u8; geometry.block_bytes()];
        let both = best_of(rounds, count, block_bytes, |range| {
            for block in &blocks[range] {
                codec.compress_into(block, &mut out).expect("compress");
                codec.decompress_into(&out, &mut decoded).expect("decompress");
                black_box(&decoded);
            }
        });
        let compress = best_of(rounds, count, block_bytes, |range| {
            for block in &blocks[range] {
                codec.compress_into(block, &mut out).expect("compress");
                black_box(&out);
            }
        });
        let decompress = best_of(rounds, count, block_bytes, |range| {
            for c in &compressed[range] {
                codec.decompress_into(c, &mut decoded).expect("decompress");
                black_box(&decoded);
            }
        });
        let size = best_of(rounds, count, block_bytes, |range| {
            for block in &blocks[range] {
                black_box(codec.compressed_size(block).expect("size"));
            }
        });
        println!("{name:<10} {both:>10.0} {compress:>10.0} {decompress:>10.0} {size:>10.0}");
    }
}
