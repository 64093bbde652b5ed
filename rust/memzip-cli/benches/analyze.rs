//! Throughput of `memzip analyze`: MB/s of analysed block data on a
//! generated trace of write-backs (100 MiB of blocks by default; set
//! `MEMZIP_BENCH_MIB` to change it): every registered codec at once (with and
//! without the Shannon bound), the bound alone, then each codec alone.
//!
//!     cargo bench -p memzip-cli --bench analyze
//!
//! `MEMZIP_BENCH_KEEP=1` keeps the trace (its path is printed) for timing
//! the `memzip` binary itself. `MEMZIP_BENCH_TRACE=path` analyses that trace
//! (e.g. real DRAM blocks from `-memzip_trace`) instead of a generated one.

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::Instant;

use memzip::codec::registry::codec_names;
use memzip::trace::AccessKind;
use memzip_study::analyze::{analyze, AnalyzeOptions};

fn main() {
    let mib: u64 = std::env::var("MEMZIP_BENCH_MIB").ok().and_then(|v| v.parse().ok()).unwrap_or(100);
    let block_bytes = 128;
    let dir = common::temp_dir("bench-analyze");
    let given = std::env::var_os("MEMZIP_BENCH_TRACE").map(std::path::PathBuf::from);
    let path = given.clone().unwrap_or_else(|| dir.join("writes.mzt"));
    let records = if let Some(path) = &given {
        // The analysed (written and copied) blocks of the given trace.
        let mut count_only = AnalyzeOptions::new(vec!["none".to_string()]);
        count_only.shannon_bits.clear();
        let blocks = analyze(&[path], &count_only).expect("analyze the trace")[0].blocks;
        println!("trace: {} ({blocks} written/copied blocks)", path.display());
        blocks
    } else {
        let records = mib * 1024 * 1024 / block_bytes as u64;
        let started = Instant::now();
        common::write_trace_of(&path, records, block_bytes, false, |_| AccessKind::Write);
        let trace_bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        println!(
            "trace: {records} write-back records, {mib} MiB of blocks, {:.1} MiB zstd on disk, written in {:.1} s",
            trace_bytes as f64 / (1024.0 * 1024.0),
            started.elapsed().as_secs_f64()
        );
        records
    };
    println!("threads: {}", rayon::current_num_threads());
    let all: Vec<String> = codec_names().into_iter().map(String::from).collect();
    // (label, codecs, with the Shannon bound at 4/8/16/32 bits)
    let mut sets = vec![
        (format!("all {} codecs + Shannon", all.len()), all.clone(), true),
        (format!("all {} codecs", all.len()), all.clone(), false),
        ("Shannon only".to_string(), vec![], true),
    ];
    if std::env::var_os("MEMZIP_BENCH_ALL_ONLY").is_none() {
        sets.extend(all.iter().map(|name| (name.clone(), vec![name.clone()], false)));
    }
    for (label, codecs, shannon) in sets {
        let mut options = AnalyzeOptions::new(codecs);
        if !shannon {
            options.shannon_bits.clear();
        }
        let started = Instant::now();
        let result = analyze(&[&path], &options).expect("analyze");
        let seconds = started.elapsed().as_secs_f64();
        assert_eq!(result[0].blocks, records);
        let mb = (records * block_bytes as u64) as f64 / 1e6;
        println!("{label:<26} {seconds:7.2} s  {:8.1} MB/s of block data", mb / seconds);
    }
    // Peak resident memory (Linux): stays at a few chunks, not the trace size.
    if let Some(peak) = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmHWM:")).map(str::to_string))
    {
        println!("peak memory {}", peak.trim_start_matches("VmHWM:").trim());
    }
    if std::env::var_os("MEMZIP_BENCH_KEEP").is_some() {
        println!("kept {}", path.display());
    } else {
        let _ = std::fs::remove_dir_all(&dir);
    }
}
