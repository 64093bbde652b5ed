//! `memzip analyze` against the library called directly on the same blocks.

mod common;

use std::collections::BTreeMap;
use std::process::Command;

use memzip::codec::e2mc::{shannon_bound, Sampler};
use memzip::codec::registry::{build, build_str, codec_names};
use memzip::codec::spec::CodecSpec;
use memzip::Geometry;
use memzip_study::analyze::{analyze, AnalyzeError, AnalyzeOptions, CodecResult, OfflineTable};
use memzip_study::profile::{profile, ProfileOptions};
use memzip_study::shannon::ShannonResult;
use serde_json::Value;

const RECORDS: u64 = 600;
/// Write + memcpy records among the first 600 (3 of every 5).
const ANALYSED: u64 = 360;

/// What the library says when each codec sees `blocks` in order and ends
/// sampling before block `sample_blocks`.
fn direct(name: &str, blocks: &[Vec<u8>], geometry: Geometry, sample_blocks: usize) -> CodecResult {
    let mut codec = build_str(name, geometry).unwrap();
    let names = codec.encoding_names();
    let mut result = CodecResult {
        codec: name.to_string(),
        blocks: 0,
        compressed_blocks: 0,
        compressed_fraction: None,
        uncompressed_bits: 0,
        compressed_bits: 0,
        mag_bytes: 0,
        raw_compression_ratio: None,
        effective_compression_ratio: None,
        mag_size_histogram: (1..=geometry.block_bursts()).map(|b| (b * geometry.mag_bytes(), 0)).collect(),
        encodings: BTreeMap::new(),
        table2_patterns: None,
        sampling_ended_after_blocks: None,
        offline_table: false,
        verified_blocks: 0,
    };
    for (i, block) in blocks.iter().enumerate() {
        if i == sample_blocks {
            codec.end_sampling().unwrap();
            result.sampling_ended_after_blocks = Some(i as u64);
        }
        let c = codec.compress(block).unwrap();
        result.blocks += 1;
        result.compressed_blocks += c.is_compressed() as u64;
        result.uncompressed_bits += geometry.block_bits() as u64;
        result.compressed_bits += c.compressed_bits as u64;
        result.mag_bytes += c.mag_bytes as u64;
        *result.mag_size_histogram.entry(c.mag_bytes).or_insert(0) += 1;
        *result.encodings.entry(names[c.encoding as usize].clone()).or_insert(0) += 1;
    }
    result.compressed_fraction = Some(result.compressed_blocks as f64 / result.blocks as f64);
    result.raw_compression_ratio = Some(result.uncompressed_bits as f64 / result.compressed_bits as f64);
    result.effective_compression_ratio = Some((result.uncompressed_bits / 8) as f64 / result.mag_bytes as f64);
    result
}

#[test]
fn analyze_matches_the_library_on_the_same_blocks() {
    let dir = common::temp_dir("analyze-lib");
    for (block_bytes, mag_bytes) in [(128, 32), (64, 16), (32, 32)] {
        let path = dir.join(format!("synthetic-{block_bytes}.mzt"));
        let blocks = common::write_trace(&path, RECORDS, block_bytes, true);
        assert_eq!(blocks.len() as u64, ANALYSED);
        let names: Vec<String> = codec_names().into_iter().map(String::from).collect();
        let mut options = AnalyzeOptions::new(names.clone());
        options.mag_bytes = mag_bytes;
        // Small chunks and a sampling end inside a chunk exercise the boundaries.
        options.chunk_blocks = 7;
        options.sample_blocks = 50;
        options.verify = true;
        let analyses = analyze(&[&path], &options).unwrap();
        let analysis = &analyses[0];
        assert_eq!((analysis.block_bytes, analysis.mag_bytes, analysis.blocks), (block_bytes, mag_bytes, ANALYSED));
        assert_eq!((analysis.records.read, analysis.records.write, analysis.records.memcpy), (240, 240, 120));
        let geometry = Geometry::new(block_bytes, mag_bytes).unwrap();
        for (name, got) in names.iter().zip(&analysis.codecs) {
            let mut expected = direct(name, &blocks, geometry, 50);
            expected.verified_blocks = ANALYSED;
            assert_eq!(got, &expected, "{name} at {block_bytes}/{mag_bytes}");
        }
        // The Shannon bound is the library's over the same blocks.
        for got in &analysis.shannon {
            let bound = shannon_bound(blocks.iter().map(Vec::as_slice), got.bound.symbol_bits).unwrap();
            assert_eq!(
                (got.blocks, got.complete, got.bound.symbols, got.bound.distinct),
                (ANALYSED, true, bound.symbols, bound.distinct)
            );
            assert_eq!(
                (got.bound.entropy_bits, got.bound.positional_entropy_bits),
                (bound.entropy_bits, bound.positional_entropy_bits)
            );
        }
        let bits: Vec<u32> = analysis.shannon.iter().map(|b: &ShannonResult| b.bound.symbol_bits).collect();
        assert_eq!(bits, [4, 8, 16, 32]);
        // `none` stores everything raw; the real codecs compress part of the
        // mix, except at 32/32 where one burst cannot shrink (worth-it rule).
        let none = &analysis.codecs[0];
        assert_eq!((none.compressed_blocks, none.mag_bytes), (0, ANALYSED * block_bytes as u64));
        let compressing = analysis.codecs.iter().skip(1).filter(|c| c.compressed_blocks > 0).count();
        assert_eq!(compressing, if geometry.block_bursts() > 1 { names.len() - 1 } else { 0 });
    }
}

#[test]
fn reads_are_analysed_only_when_asked() {
    let dir = common::temp_dir("analyze-reads");
    let path = dir.join("t.mzt");
    common::write_trace(&path, 100, 128, false);
    let mut options = AnalyzeOptions::new(vec!["bdi".into()]);
    options.include_reads = true;
    let with_reads = analyze(&[&path], &options).unwrap();
    assert_eq!(with_reads[0].blocks, 100);
    assert_eq!(with_reads[0].analysed_kinds, vec!["read", "write", "memcpy"]);
    options.include_reads = false;
    assert_eq!(analyze(&[path], &options).unwrap()[0].blocks, 60);
}

fn memzip(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_memzip")).args(args).output().expect("run memzip")
}

#[test]
fn cli_prints_a_table_and_writes_the_same_json() {
    let dir = common::temp_dir("analyze-cli");
    let trace = dir.join("t.mzt");
    let json = dir.join("out.json");
    common::write_trace(&trace, RECORDS, 128, false);
    let out = memzip(&[
        "analyze",
        trace.to_str().unwrap(),
        "--codecs",
        "none,bdi",
        "--codecs",
        "adaptive:lambda=6,candidates=fpc/bdi",
        "--json",
        json.to_str().unwrap(),
        "--e2mc-sample-blocks",
        "100",
        "-j",
        "1",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["sample_blocks"], 100);
    let t = &report["traces"][0];
    assert_eq!(t["blocks"], ANALYSED);
    let codecs: Vec<&str> = t["codecs"].as_array().unwrap().iter().map(|c| c["codec"].as_str().unwrap()).collect();
    assert_eq!(codecs, ["none", "bdi", "adaptive:lambda=6,candidates=fpc/bdi"]);

    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines[0].starts_with(&format!("trace {}: 128-byte blocks, MAG 32 B; 600 records", trace.display())),
        "{stdout}"
    );
    assert!(lines[0].ends_with("360 write+memcpy blocks analysed"), "{stdout}");
    let header: Vec<&str> = lines[1].split_whitespace().collect();
    assert_eq!(header, ["codec", "blocks", "compressed", "raw", "CR", "eff", "CR", "32B", "64B", "96B", "128B"]);
    assert_eq!(
        lines[2].split_whitespace().collect::<Vec<_>>(),
        ["none", "360", "0.0%", "1.000", "1.000", "0.0%", "0.0%", "0.0%", "100.0%"]
    );
    // Every number in the bdi row is the JSON's, formatted.
    let bdi = &t["codecs"][1];
    let row: Vec<&str> = lines[3].split_whitespace().collect();
    assert_eq!(row[2], format!("{:.1}%", 100.0 * bdi["compressed_fraction"].as_f64().unwrap()));
    assert_eq!(row[3], format!("{:.3}", bdi["raw_compression_ratio"].as_f64().unwrap()));
    assert_eq!(row[4], format!("{:.3}", bdi["effective_compression_ratio"].as_f64().unwrap()));
    let share = |size: &str| format!("{:.1}%", 100.0 * bdi["mag_size_histogram"][size].as_f64().unwrap() / 360.0);
    assert_eq!(row[5..], [share("32"), share("64"), share("96"), share("128")]);
}

#[test]
fn json_dash_goes_to_stdout_alone() {
    let dir = common::temp_dir("analyze-json-stdout");
    let trace = dir.join("t.mzt");
    common::write_trace(&trace, 50, 64, false);
    let out =
        memzip(&["analyze", trace.to_str().unwrap(), "--codecs", "mag_bdi", "--json", "-", "--shannon-bits", "16"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).expect("stdout is only JSON");
    let t = &report["traces"][0];
    assert_eq!((t["block_bytes"].as_u64(), t["blocks"].as_u64()), (Some(64), Some(30)));
    assert_eq!(t["codecs"][0]["codec"], "mag_bdi");
    assert_eq!(t["shannon"][0]["symbol_bits"], 16);
    assert_eq!(report["shannon_bits"], serde_json::json!([16]));
}

#[test]
fn truncated_trace_is_an_error_naming_the_file() {
    let dir = common::temp_dir("analyze-truncated");
    let trace = dir.join("cut.mzt");
    // Several zstd blocks, so the cut falls after whole records were read.
    common::write_trace(&trace, 3000, 128, false);
    let bytes = std::fs::read(&trace).unwrap();
    std::fs::write(&trace, &bytes[..bytes.len() * 2 / 3]).unwrap();
    let out = memzip(&["analyze", trace.to_str().unwrap(), "--codecs", "bdi", "--chunk-blocks", "16"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty(), "no partial table: {}", String::from_utf8_lossy(&out.stdout));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let prefix = format!("memzip: error: {}: trace truncated in record ", trace.display());
    assert!(stderr.starts_with(&prefix), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");

    let missing = dir.join("absent.mzt");
    let out = memzip(&["analyze", missing.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(&format!("{}: cannot open trace", missing.display())), "{stderr}");
}

#[test]
fn analysis_errors_say_what_kind_they_are() {
    let dir = common::temp_dir("analyze-error-kinds");
    let trace = dir.join("cut.mzt");
    common::write_trace(&trace, 3000, 128, false);
    let bytes = std::fs::read(&trace).unwrap();
    std::fs::write(&trace, &bytes[..bytes.len() * 2 / 3]).unwrap();
    let mut options = AnalyzeOptions::new(vec!["bdi".into()]);
    options.shannon_bits.clear();
    options.chunk_blocks = 16;
    let cut = analyze(&[&trace], &options).unwrap_err();
    assert!(matches!(cut, AnalyzeError::Trace { .. }), "{cut:?}");
    let missing = analyze(&[dir.join("absent.mzt")], &options).unwrap_err();
    assert!(
        matches!(&missing, AnalyzeError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound),
        "{missing:?}"
    );
    let whole = dir.join("whole.mzt");
    common::write_trace(&whole, 100, 128, false);
    let bad_codec = analyze(&[&whole], &AnalyzeOptions::new(vec!["zip".into()])).unwrap_err();
    assert!(matches!(bad_codec, AnalyzeError::Config { .. }), "{bad_codec:?}");
    assert!(bad_codec.to_string().starts_with("invalid codec 'zip'"), "{bad_codec}");
    let mut nothing = AnalyzeOptions::new(Vec::new());
    nothing.shannon_bits.clear();
    assert!(matches!(analyze(&[&whole], &nothing), Err(AnalyzeError::Nothing { .. })));
}

#[test]
fn bad_codec_and_geometry_are_errors() {
    let dir = common::temp_dir("analyze-bad");
    let trace = dir.join("t.mzt");
    common::write_trace(&trace, 10, 32, false);
    let out = memzip(&["analyze", trace.to_str().unwrap(), "--codecs", "zip"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("invalid codec 'zip'") && stderr.contains("mag_bdi"), "{stderr}");
    let out = memzip(&["analyze", trace.to_str().unwrap(), "--mag-bytes", "64"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("32-byte blocks at MAG 64"), "{stderr}");
}

#[test]
fn e2mc_profile_table_drives_the_offline_codec() {
    let dir = common::temp_dir("analyze-profile");
    let trace = dir.join("t.mzt");
    let blocks = common::write_trace(&trace, RECORDS, 128, true);
    let mut options = ProfileOptions::new(16);
    options.mfv = 64;
    options.chunk_blocks = 5;
    let profiled = profile(&[&trace], &options).unwrap();
    assert_eq!(profiled.blocks, ANALYSED);
    // The same table as the library's sampler fed the same blocks.
    let mut sampler = Sampler::new(16).unwrap();
    blocks.iter().for_each(|b| sampler.feed(b));
    let expected = sampler.build_table(64).unwrap();
    assert_eq!(profiled.table, expected);
    assert_eq!(profiled.table.mfv.len(), 64);

    // analyze with the table: e2mc16 codes from block 0, matching the
    // library codec built with that table; e2mc8 still samples online.
    let mut options = AnalyzeOptions::new(vec!["e2mc16".into(), "e2mc8".into()]);
    options.e2mc_table = Some(OfflineTable::parse(expected.to_json()).unwrap());
    options.shannon_bits = vec![];
    options.sample_blocks = 30;
    let analysis = &analyze(&[&trace], &options).unwrap()[0];
    let mut spec = CodecSpec::parse("e2mc16:sampling=offline", Geometry::default()).unwrap();
    spec.table = Some(std::sync::Arc::new(expected.clone()));
    let mut codec = build(&spec).unwrap();
    let (mut bits, mut compressed) = (0u64, 0u64);
    for block in &blocks {
        let c = codec.compress(block).unwrap();
        bits += c.compressed_bits as u64;
        compressed += c.is_compressed() as u64;
    }
    let e2mc16 = &analysis.codecs[0];
    assert!(e2mc16.offline_table && e2mc16.sampling_ended_after_blocks.is_none());
    assert_eq!((e2mc16.compressed_bits, e2mc16.compressed_blocks), (bits, compressed));
    assert!(compressed > 0);
    let e2mc8 = &analysis.codecs[1];
    assert!(!e2mc8.offline_table);
    assert_eq!(e2mc8.sampling_ended_after_blocks, Some(30));
    assert_eq!(analysis.shannon, vec![]);

    // A table for a symbol length no analysed codec has is an error.
    let mut options = AnalyzeOptions::new(vec!["bdi".into()]);
    options.e2mc_table = Some(OfflineTable::parse(expected.to_json()).unwrap());
    let err = analyze(&[&trace], &options).unwrap_err();
    assert!(matches!(err, AnalyzeError::Config { .. }), "{err:?}");
    assert!(err.to_string().contains("no e2mc16 codec is analysed"), "{err}");
}

#[test]
fn e2mc_offline_profiles_each_symbol_length_from_the_trace_itself() {
    let dir = common::temp_dir("analyze-self-profile");
    let trace = dir.join("t.mzt");
    common::write_trace(&trace, RECORDS, 128, true);
    // What an explicit table of each length, profiled from the same trace, gives.
    let with_table = |bits: u32| {
        let table = profile(&[&trace], &ProfileOptions::new(bits)).unwrap().table;
        let mut options = AnalyzeOptions::new(vec![format!("e2mc{bits}")]);
        options.e2mc_table = Some(OfflineTable::parse(table.to_json()).unwrap());
        options.shannon_bits = vec![];
        analyze(&[&trace], &options).unwrap()[0].codecs[0].clone()
    };
    let mut options = AnalyzeOptions::new(vec!["e2mc16".into(), "e2mc8".into(), "bdi".into()]);
    options.e2mc_self_profile = true;
    options.shannon_bits = vec![];
    let analysis = &analyze(&[&trace], &options).unwrap()[0];
    for (index, bits) in [(0, 16), (1, 8)] {
        let result = &analysis.codecs[index];
        assert!(result.offline_table && result.sampling_ended_after_blocks.is_none(), "e2mc{bits}");
        assert!(result.compressed_blocks > 0, "e2mc{bits} compresses the trace it was profiled on");
        assert_eq!(result, &with_table(bits), "e2mc{bits}");
    }
    assert!(!analysis.codecs[2].offline_table);
}

#[test]
fn cli_profiles_then_analyzes_offline() {
    let dir = common::temp_dir("analyze-profile-cli");
    let trace = dir.join("t.mzt");
    let table = dir.join("table8.json");
    common::write_trace(&trace, RECORDS, 128, false);
    let out = memzip(&["e2mc-profile", trace.to_str().unwrap(), "-o", table.to_str().unwrap(), "--symbol-bits", "8"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.starts_with("e2mc8 table (4 per-position codes) from 360 blocks of 1 trace(s)"), "{stdout}");
    let parsed: Value = serde_json::from_str(&std::fs::read_to_string(&table).unwrap()).unwrap();
    assert_eq!(parsed["symbol_bits"], 8);

    let out = memzip(&[
        "analyze",
        trace.to_str().unwrap(),
        "--codecs",
        "e2mc8,e2mc4",
        "--e2mc-table",
        table.to_str().unwrap(),
        "--e2mc-sample-blocks",
        "10",
        "--shannon-bits",
        "8",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        stdout.contains("E2MC code tables: e2mc8: offline table; e2mc4: sampled the first 10 blocks online"),
        "{stdout}"
    );
    assert!(stdout.contains("\n8-bit "), "{stdout}");
    assert!(!stdout.contains("\n16-bit "), "{stdout}");

    std::fs::write(&table, "{\"symbol_bits\": 8}").unwrap();
    let out =
        memzip(&["analyze", trace.to_str().unwrap(), "--codecs", "e2mc8", "--e2mc-table", table.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.starts_with(&format!("memzip: error: {}: ", table.display())), "{stderr}");
}

#[test]
fn arguments_that_would_measure_nothing_are_errors() {
    let dir = common::temp_dir("analyze-args");
    let trace = dir.join("t.mzt");
    common::write_trace(&trace, 50, 128, false);
    let t = trace.to_str().unwrap();
    for (args, expected) in [
        (vec!["--codecs", ""], "memzip: error: --codecs: no codec given (names: none, "),
        (vec!["--e2mc-sample-blocks", "0"], "memzip: error: --e2mc-sample-blocks: invalid value '0'"),
        (vec!["--shannon-max-distinct", "0"], "memzip: error: --shannon-max-distinct: invalid value '0'"),
    ] {
        let out = memzip(&[&["analyze", t][..], &args].concat());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(stderr.starts_with(expected) && stderr.lines().count() == 1, "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}: no table");
    }
}

#[test]
fn jobs_are_capped() {
    let dir = common::temp_dir("analyze-jobs");
    let trace = dir.join("t.mzt");
    common::write_trace(&trace, 50, 128, false);
    let start = std::time::Instant::now();
    let out = memzip(&["analyze", trace.to_str().unwrap(), "--codecs", "bdi,fpc", "--no-shannon", "--jobs", "100000"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let cores = std::thread::available_parallelism().unwrap().get();
    let note =
        format!("memzip analyze: note: --jobs 100000 capped at {} (2 codecs and bounds x {cores} cores)", 2 * cores);
    assert_eq!(stderr.trim_end(), note);
    // Uncapped, 100000 threads took over two minutes to start.
    assert!(start.elapsed().as_secs() < 30, "took {:?}", start.elapsed());
}

#[test]
fn profile_and_analyze_share_one_block_size_rule() {
    let dir = common::temp_dir("analyze-block-size");
    let trace = dir.join("t100.mzt");
    common::write_trace(&trace, 20, 100, false);
    let t = trace.to_str().unwrap();
    let table = dir.join("table.json");
    let expected =
        format!("memzip: error: {t}: trace of 100-byte blocks: memzip's codecs take blocks of [32, 64, 128] bytes");
    for args in [vec!["analyze", t], vec!["e2mc-profile", t, "-o", table.to_str().unwrap()]] {
        let out = memzip(&args);
        assert_eq!(String::from_utf8_lossy(&out.stderr).trim_end(), expected, "{args:?}");
        assert_eq!(out.status.code(), Some(1));
    }
    assert!(!table.exists(), "no table from blocks no codec takes");
}
