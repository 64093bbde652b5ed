//! memzip's codecs next to the peers' size-only functions, on the same
//! blocks, in one process (issue 12: "each codec >= 2x the fastest peer's
//! size-only function, measured side by side in one run").
//!
//!     MEMZIP_PEER_BDI_REPO=<CMU-SAFARI/BDICompression> \
//!     MEMZIP_PEER_MPC_REPO=<xyz123479/CAL_22-MPC_gpgpu-sim> \
//!     cargo run --release -p memzip-peers -- [ROUNDS] [trace...]
//!
//! The blocks are the written and copied 128 B blocks of the given traces
//! (default: every trace in `benchmarks/traces/`). memzip's figure is
//! compress + decompress with real bitstreams; a peer's is its size-only
//! function. Every 512-block segment is timed for each contestant in turn
//! (interleaved, so load on a shared machine hits all alike), in CPU time of
//! this thread (`CLOCK_THREAD_CPUTIME_ID`: time the thread was preempted
//! does not count); a figure is all blocks over the sum of each segment's
//! best of ROUNDS.

mod peers;

use std::hint::black_box;
use std::path::{Path, PathBuf};

use memzip::codec::registry::build_str;
use memzip::trace::{AccessKind, TraceReader};
use memzip::{CompressedBlock, Geometry};

use peers::{available_peers, Family, Peer};

/// Blocks per timed segment (128 B blocks: 64 KiB). CPU time leaves out
/// time the thread was preempted, so segments can be longer than the
/// throughput example's; each reading of the thread's CPU clock is a system
/// call of a few hundred ns, which 64 blocks (about 8 us) would have felt.
const SEGMENT_BLOCKS: usize = 512;

/// memzip's codecs and the family of peers each is compared with.
const CODECS: [(&str, Family); 11] = [
    ("bdi", Family::Bdi),
    ("mag_bdi", Family::Bdi),
    ("fpc", Family::Fpc),
    ("cpack", Family::Cpack),
    ("cpack_z", Family::Cpack),
    ("bpc", Family::Bpc),
    ("e2mc4", Family::Huffman),
    ("e2mc8", Family::Huffman),
    ("e2mc16", Family::Huffman),
    ("e2mc32", Family::Huffman),
    ("adaptive", Family::None),
];

#[repr(C)]
struct Timespec {
    seconds: i64,
    nanoseconds: i64,
}

extern "C" {
    fn clock_gettime(clock: i32, time: *mut Timespec) -> i32;
}

/// Linux's id of the calling thread's CPU-time clock.
const CLOCK_THREAD_CPUTIME_ID: i32 = 3;

/// CPU seconds this thread has run.
fn thread_cpu_seconds() -> f64 {
    let mut time = Timespec { seconds: 0, nanoseconds: 0 };
    // SAFETY: `time` is a valid, writable timespec of the C layout on 64-bit Linux.
    let status = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut time) };
    assert_eq!(status, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    time.seconds as f64 + time.nanoseconds as f64 * 1e-9
}

/// What a contestant does to one segment of blocks.
type SegmentRun<'a> = Box<dyn FnMut(&[Vec<u8>]) + 'a>;

/// One timed contestant: a name and its work on a segment.
struct Contestant<'a> {
    name: String,
    run: SegmentRun<'a>,
}

/// MB/s of each contestant over `blocks`, segments interleaved.
fn race(rounds: usize, blocks: &[Vec<u8>], contestants: &mut [Contestant<'_>]) -> Vec<f64> {
    let segments: Vec<&[Vec<u8>]> = blocks.chunks(SEGMENT_BLOCKS).collect();
    let mut best = vec![vec![f64::INFINITY; segments.len()]; contestants.len()];
    for _ in 0..rounds {
        for (k, segment) in segments.iter().enumerate() {
            for (c, contestant) in contestants.iter_mut().enumerate() {
                let started = thread_cpu_seconds();
                (contestant.run)(segment);
                best[c][k] = best[c][k].min(thread_cpu_seconds() - started);
            }
        }
    }
    let bytes: usize = blocks.iter().map(Vec::len).sum();
    best.iter().map(|times| bytes as f64 / times.iter().sum::<f64>() / 1e6).collect()
}

/// memzip's compress + decompress of `name` as a contestant (E2MC codecs
/// sample the blocks once and build their table first).
fn ours<'a>(name: &str, blocks: &[Vec<u8>]) -> Contestant<'a> {
    let geometry = Geometry::default();
    let mut codec = build_str(name, geometry).unwrap_or_else(|e| panic!("codec {name}: {e}"));
    for block in blocks {
        codec.compress(block).expect("compress");
    }
    codec.end_sampling().expect("end sampling");
    let mut out = CompressedBlock::default();
    let mut decoded = vec![0u8; geometry.block_bytes()];
    Contestant {
        name: format!("memzip {name}"),
        run: Box::new(move |segment| {
            for block in segment {
                codec.compress_into(block, &mut out).expect("compress");
                codec.decompress_into(&out, &mut decoded).expect("decompress");
                black_box(&decoded);
            }
        }),
    }
}

fn peer_contestant<'a>(peer: &Peer) -> Contestant<'a> {
    let size = peer.size;
    Contestant {
        name: peer.name.to_string(),
        run: Box::new(move |segment| {
            for block in segment {
                black_box(size(block));
            }
        }),
    }
}

fn trace_paths(args: &[String]) -> Vec<PathBuf> {
    let given: Vec<PathBuf> = args.iter().map(PathBuf::from).collect();
    if !given.is_empty() {
        return given;
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../benchmarks/traces");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    paths.retain(|p| p.extension().is_some_and(|e| e == "mzt" || e == "zst"));
    paths.sort();
    paths
}

/// The written and copied 128 B blocks of the traces.
fn load_blocks(paths: &[PathBuf]) -> Result<Vec<Vec<u8>>, String> {
    let mut blocks = Vec::new();
    for path in paths {
        let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let reader = TraceReader::new(file).map_err(|e| format!("{}: {e}", path.display()))?;
        if reader.block_bytes() != Geometry::default().block_bytes() {
            return Err(format!("{}: {} B blocks, this harness takes 128 B", path.display(), reader.block_bytes()));
        }
        for record in reader {
            let record = record.map_err(|e| format!("{}: {e}", path.display()))?;
            if record.kind != AccessKind::Read {
                blocks.push(record.data);
            }
        }
    }
    Ok(blocks)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (rounds, traces) = match args.first().map(|a| a.parse::<usize>()) {
        Some(Ok(rounds)) if rounds > 0 => (rounds, &args[1..]),
        Some(Ok(_)) => {
            eprintln!("ROUNDS: must be at least 1");
            std::process::exit(2);
        }
        _ => (10, &args[..]),
    };
    let paths = trace_paths(traces);
    let blocks = match load_blocks(&paths) {
        Ok(blocks) if !blocks.is_empty() => blocks,
        Ok(_) => {
            eprintln!("no written/copied 128 B blocks in {} trace(s)", paths.len());
            std::process::exit(2);
        }
        Err(message) => {
            eprintln!("{message}");
            std::process::exit(2);
        }
    };
    let peers = available_peers(&blocks);
    println!(
        "{} written/copied blocks of {} trace(s); MB/s of block data per CPU second of this thread, best of {rounds} per {SEGMENT_BLOCKS}-block segment",
        blocks.len(),
        paths.len()
    );
    println!("{:<10} {:>10}  {:<28} {:>10} {:>8}", "codec", "memzip", "fastest peer (size only)", "peer", "ratio");
    for (name, family) in CODECS {
        let family_peers: Vec<&Peer> = peers.iter().filter(|p| p.family == family).collect();
        let mut contestants = vec![ours(name, &blocks)];
        contestants.extend(family_peers.iter().map(|p| peer_contestant(p)));
        let speeds = race(rounds, &blocks, &mut contestants);
        let fastest = (1..speeds.len()).max_by(|&a, &b| speeds[a].total_cmp(&speeds[b]));
        match fastest {
            Some(p) => println!(
                "{name:<10} {:>10.0}  {:<28} {:>10.0} {:>8.2}",
                speeds[0],
                contestants[p].name,
                speeds[p],
                speeds[0] / speeds[p]
            ),
            None => println!("{name:<10} {:>10.0}  {:<28} {:>10} {:>8}", speeds[0], "-", "-", "-"),
        }
        // The other peers of the family, below the fastest.
        for (p, (contestant, speed)) in contestants.iter().zip(&speeds).enumerate().skip(1) {
            if Some(p) != fastest {
                println!("{:<10} {:>10}  {:<28} {:>10.0}", "", "", contestant.name, speed);
            }
        }
    }
}
