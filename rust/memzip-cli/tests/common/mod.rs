//! Synthetic traces for the tests and the throughput benchmark.
#![allow(dead_code)]

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use memzip::trace::{AccessKind, TraceWriter};

/// splitmix64: a fixed stream, so every run writes the same bytes.
pub fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Block `i` of a mix of what GPU memory holds: zeros, small ints,
/// pointers, floats, repeated words, half-zero blocks and noise.
pub fn block(i: u64, block_bytes: usize, state: &mut u64) -> Vec<u8> {
    let base = next(state);
    let words = block_bytes / 4;
    let mut word = |j: usize| -> u32 {
        match i % 7 {
            0 => 0,
            1 => (next(state) % 200) as u32,
            2 => (base as u32 & 0xffff_f000).wrapping_add(j as u32 * 8),
            3 => (100.0f32 + (next(state) % 1000) as f32 / 8.0).to_bits(),
            4 => base as u32,
            5 if j.is_multiple_of(2) => 0,
            _ => next(state) as u32,
        }
    };
    (0..words).flat_map(|j| word(j).to_le_bytes()).collect()
}

/// Kind of record `i`: mostly write-backs and reads, some copies.
pub fn kind(i: u64) -> AccessKind {
    match i % 5 {
        0 | 3 => AccessKind::Write,
        1 => AccessKind::Memcpy,
        _ => AccessKind::Read,
    }
}

/// Writes `records` records to `path`; returns the analysed (write and
/// memcpy) blocks in order when `keep` is set.
pub fn write_trace(path: &Path, records: u64, block_bytes: usize, keep: bool) -> Vec<Vec<u8>> {
    write_trace_of(path, records, block_bytes, keep, kind)
}

/// [`write_trace`] with the record kinds chosen by `kind_of`.
pub fn write_trace_of(
    path: &Path,
    records: u64,
    block_bytes: usize,
    keep: bool,
    kind_of: impl Fn(u64) -> AccessKind,
) -> Vec<Vec<u8>> {
    let file = BufWriter::new(File::create(path).expect("create trace"));
    let mut writer = TraceWriter::new(file, block_bytes).expect("trace writer");
    let mut state = 7;
    let mut kept = Vec::new();
    for i in 0..records {
        let data = block(i, block_bytes, &mut state);
        let kind = kind_of(i);
        writer.write_access(10 * i, kind, (i % 6) as u32, 0x1000_0000 + 128 * i, &data).expect("write record");
        if keep && kind != AccessKind::Read {
            kept.push(data);
        }
    }
    writer.finish().expect("finish trace");
    kept
}

/// A fresh directory under the target's temp dir.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("memzip-cli-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

/// `serde_json::to_string_pretty`'s two-space indent halved, as the golden
/// files are written (a JSON string holds no raw newline, so every line's
/// leading spaces are indentation).
pub fn one_space_indent(pretty: &str) -> String {
    pretty
        .lines()
        .map(|line| {
            let body = line.trim_start_matches(' ');
            format!("{}{body}", " ".repeat((line.len() - body.len()) / 2))
        })
        .collect::<Vec<_>>()
        .join("\n")
}
