//! The report of multi-GPU runs (`memzip-mgpu`, mgpusim-plugin/): the
//! codecs compress the payloads that cross the fabric between GPUs, so the
//! report speaks of the fabric, not DRAM, and shows what "Exploiting Adaptive
//! Data Compression to Improve Performance and Energy-Efficiency of Compute
//! Workloads in Multi-GPU Systems" (IPDPS 2019) shows: the payloads' counts,
//! entropy and compression ratios (its Table V), the patterns that store them
//! (Table VI), which algorithm the adaptive selector picked (Fig. 6) and the
//! fabric's and compressors' energy (Fig. 7).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use serde_json::Value;

use super::{axes, geomean, program_of, program_table_header, run_of, Figure};
use crate::run::Medium;
use crate::table::Row;

/// Whether every run of the report is a fabric run.
pub(super) fn is_fabric_report(rows: &[Row]) -> bool {
    !rows.is_empty() && rows.iter().all(|r| r.run.medium == Medium::Fabric)
}

/// The per-program figures of a fabric report (a DRAM report's, less the
/// metadata cache, which a link does not have).
pub(super) const FIGURES: [Figure; 6] = [
    Figure {
        file: "effective_cr.svg",
        title: "Compression ratio on the link (whole bytes, algorithm header included)",
        y_label: "on-the-link CR (x)",
        metric: |r| r.run.effective_cr,
        reference: Some(1.0),
    },
    Figure {
        file: "raw_cr.svg",
        title: "Raw compression ratio of the payloads",
        y_label: "raw CR (x)",
        metric: |r| r.run.raw_cr,
        reference: Some(1.0),
    },
    Figure {
        file: "speedup.svg",
        title: "Speedup over no compression (kernel time)",
        y_label: "speedup (x, simulated cycles)",
        metric: |r| r.speedup,
        reference: Some(1.0),
    },
    Figure {
        file: "fabric_traffic.svg",
        title: "Fabric traffic relative to no compression",
        y_label: "fabric bytes (% of none)",
        metric: |r| r.dram_percent_of_none,
        reference: Some(100.0),
    },
    Figure {
        file: "energy.svg",
        title: "Energy relative to no compression (fabric + compressors + decompressors)",
        y_label: "energy (% of none)",
        metric: |r| r.energy_percent_of_none,
        reference: Some(100.0),
    },
    Figure {
        file: "edp.svg",
        title: "Energy-delay product relative to no compression",
        y_label: "EDP (% of none)",
        metric: |r| r.edp_percent_of_none,
        reference: Some(100.0),
    },
];

/// The sections a fabric report has in place of a DRAM report's bounds,
/// analyses and energy.
pub(super) fn sections(rows: &[Row]) -> Result<String, String> {
    let mut out = String::from(
        "\n## The fabric\n\nTraffic is every byte that crossed the fabric (headers, payloads, copies \
         between host and GPUs); a payload is a 64-byte cache line a GPU read from or wrote to another, \
         sent compressed when that saves a byte, with its algorithm named in the header. Speedup is \
         kernel time. Energy is the fabric's (pJ per bit moved) plus each compressor's and \
         decompressor's per payload (the paper's Table III).\n",
    );
    // Each run's stats.json, read once for the sections that need more than `Row` holds.
    let stats = rows
        .iter()
        .map(|r| Ok((r.run.dir.as_str(), read_json(&Path::new(r.run.dir.as_str()).join("stats.json"))?)))
        .collect::<Result<RunStats, String>>()?;
    out.push_str(&payload_section(rows)?);
    out.push_str(&inter_gpu_section(rows, &stats));
    out.push_str(&choices_section(rows, &stats));
    out.push_str(&energy_section(rows));
    Ok(out)
}

/// Each run's `stats.json` by run directory.
type RunStats<'a> = BTreeMap<&'a str, Value>;

/// The `none` run of each program (axis order) with its directory.
fn none_runs(rows: &[Row]) -> Vec<(String, &Path)> {
    let (programs, _) = axes(rows);
    programs
        .into_iter()
        .filter_map(|p| run_of(rows, "none", &p).map(|r| (p.clone(), Path::new(r.run.dir.as_str()))))
        .collect()
}

fn read_json(path: &Path) -> Result<Value, String> {
    let text = fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// The paper's three algorithms as `memzip analyze --costs paper004` names them.
const ALGORITHMS: [(&str, &str); 3] = [("bdi", "BDI"), ("fpc", "FPC"), ("cpack_z", "C-Pack+Z")];

/// Table V and Table VI from each `none` run's `analyze.json` (the payload
/// trace analysed at a 1-byte granule with the paper's costs).
fn payload_section(rows: &[Row]) -> Result<String, String> {
    let mut analysed = Vec::new();
    for (program, dir) in none_runs(rows) {
        let path = dir.join("analyze.json");
        if path.is_file() {
            analysed.push((program, read_json(&path)?));
        }
    }
    if analysed.is_empty() {
        return Ok(String::new());
    }
    let mut table_v = String::from(
        "\n## Payloads (the paper's Table V)\n\nThe `none` runs' payloads (`-trace`, `memzip analyze \
         --include-reads --mag-bytes 1 --costs paper004`): remote reads (data-ready responses) and \
         writes, the byte entropy of the whole stream over 8 bits, and each algorithm's compression ratio \
         (raw: payload bits over compressed bits, a payload stored raw when compression saves no byte).\n\n\
         | program | reads | writes | entropy | BDI | FPC | C-Pack+Z |\n| --- | --- | --- | --- | --- | --- | --- |\n",
    );
    let mut table_vi = String::from(
        "\n## Payload patterns (the paper's Table VI)\n\nThe three patterns of the paper's Table II that \
         store the most payload words, per algorithm: (pattern number) and share of the words (a zero \
         or raw payload counts all its 16 words).\n\n| program | algorithm | 1st | 2nd | 3rd |\n\
         | --- | --- | --- | --- | --- |\n",
    );
    for (program, json) in &analysed {
        let trace = &json["traces"][0];
        let entropy = trace["shannon"]
            .as_array()
            .and_then(|bounds| bounds.iter().find(|b| b["symbol_bits"] == 8))
            .and_then(|b| b["entropy_bits"].as_f64())
            .map_or("-".to_string(), |bits| format!("{:.2}", bits / 8.0));
        let codec = |name: &str| trace["codecs"].as_array().and_then(|c| c.iter().find(|c| c["codec"] == name));
        let ratios: Vec<String> = ALGORITHMS
            .iter()
            .map(|(name, _)| {
                codec(name).and_then(|c| c["raw_compression_ratio"].as_f64()).map_or("-".into(), |r| format!("{r:.2}"))
            })
            .collect();
        let _ = writeln!(
            table_v,
            "| {program} | {} | {} | {entropy} | {} |",
            trace["records"]["read"],
            trace["records"]["write"],
            ratios.join(" | ")
        );
        for (name, title) in ALGORITHMS {
            if let Some(patterns) = codec(name).and_then(|c| c["table2_patterns"].as_object()) {
                let _ = writeln!(table_vi, "| {program} | {title} | {} |", top_patterns(patterns).join(" | "));
            }
        }
    }
    Ok(table_v + &table_vi)
}

/// The three most frequent patterns as "(number) share%", "-" where fewer.
fn top_patterns(patterns: &serde_json::Map<String, Value>) -> Vec<String> {
    let mut counts: Vec<(&str, u64)> = patterns.iter().map(|(p, n)| (p.as_str(), n.as_u64().unwrap_or(0))).collect();
    let total: u64 = counts.iter().map(|(_, n)| n).sum();
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    (0..3)
        .map(|i| match counts.get(i) {
            Some(&(pattern, n)) if total > 0 && n > 0 => format!("({pattern}) {}", share(n, total)),
            _ => "-".into(),
        })
        .collect()
}

/// A share in percent, "<1%" below one.
fn share(count: u64, total: u64) -> String {
    let percent = 100.0 * count as f64 / total as f64;
    if percent < 1.0 {
        "<1%".into()
    } else {
        format!("{percent:.0}%")
    }
}

/// Bytes that crossed the fabric from one GPU to another (`stats.json`'s
/// `fabric.pairs`): the paper's "inter-GPU traffic", without the host's copies.
fn inter_gpu_bytes(row: &Row, stats: &RunStats) -> Option<u64> {
    let pairs = stats.get(row.run.dir.as_str())?["fabric"]["pairs"].as_array()?;
    let is_gpu = |end: &Value| end.as_str().is_some_and(|name| name.starts_with("GPU"));
    Some(pairs.iter().filter(|p| is_gpu(&p["src"]) && is_gpu(&p["dst"])).filter_map(|p| p["bytes"].as_u64()).sum())
}

/// Inter-GPU bytes of every run as a share of its program's `none` run's,
/// with the geometric mean per codec: the traffic of the paper's Figs. 5 and 6.
fn inter_gpu_section(rows: &[Row], stats: &RunStats) -> String {
    let (programs, codecs) = axes(rows);
    let mut percent: BTreeMap<(String, String), f64> = BTreeMap::new();
    for program in &programs {
        let Some(none) = run_of(rows, "none", program) else { continue };
        let Some(none_bytes) = inter_gpu_bytes(none, stats).filter(|&b| b > 0) else { continue };
        for codec in &codecs {
            if let Some(bytes) = run_of(rows, codec, program).and_then(|r| inter_gpu_bytes(r, stats)) {
                percent.insert((program.clone(), codec.clone()), 100.0 * bytes as f64 / none_bytes as f64);
            }
        }
    }
    if percent.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "\n## Inter-GPU traffic (the paper's Figs. 5 and 6)\n\nBytes that crossed the fabric from one GPU \
         to another (messages, headers and payloads; not the host's copies), % of the `none` run's.\n\n",
    );
    out.push_str(&program_table_header(&[], &codecs));
    let cell = |v: Option<&f64>| v.map_or("-".to_string(), |v| format!("{v:.1}"));
    for program in &programs {
        let _ = write!(out, "| {program} |");
        for codec in &codecs {
            let _ = write!(out, " {} |", cell(percent.get(&(program.clone(), codec.clone()))));
        }
        out.push('\n');
    }
    // Over the programs every codec has a value for, so the means compare.
    let complete: Vec<&String> =
        programs.iter().filter(|p| codecs.iter().all(|c| percent.contains_key(&((*p).clone(), c.clone())))).collect();
    let _ = write!(out, "| geomean ({}) |", super::programs_text(complete.len()));
    for codec in &codecs {
        let values = complete.iter().filter_map(|p| percent.get(&((*p).clone(), codec.clone())).copied());
        let _ = write!(out, " {} |", cell(geomean(values).as_ref()));
    }
    out.push('\n');
    out
}

/// Per adaptive run, the share of payloads each algorithm carried (and raw),
/// from `stats.json`'s encodings (`<algorithm>/<encoding>`): the paper's Fig. 6.
fn choices_section(rows: &[Row], stats: &RunStats) -> String {
    let adaptive: Vec<&Row> = rows.iter().filter(|r| r.run.stats_codec.starts_with("adaptive")).collect();
    if adaptive.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "\n## Adaptive's choices (the paper's Fig. 6)\n\nThe share of payloads each run sent with each \
         algorithm, and raw (no algorithm saved a byte, or the selector bypassed compression).\n\n\
         | program | codec | BDI | FPC | C-Pack+Z | raw |\n| --- | --- | --- | --- | --- | --- |\n",
    );
    for row in adaptive {
        let run_stats = &stats[row.run.dir.as_str()];
        let mut by_algorithm: BTreeMap<String, u64> = BTreeMap::new();
        for kind in run_stats["link"]["by_kind"].as_object().into_iter().flat_map(|k| k.values()) {
            for (encoding, count) in kind["encodings"].as_object().into_iter().flatten() {
                let algorithm = encoding.split('/').next().unwrap_or(encoding);
                *by_algorithm.entry(algorithm.to_string()).or_default() += count.as_u64().unwrap_or(0);
            }
        }
        let total: u64 = by_algorithm.values().sum();
        let cell = |name: &str| by_algorithm.get(name).map_or("0%".to_string(), |&n| share(n, total));
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            program_of(row),
            row.run.label,
            cell("bdi"),
            cell("fpc"),
            cell("cpack_z"),
            cell("uncompressed")
        );
    }
    out
}

/// Each run's energy: the fabric's and the codecs' (the paper's Fig. 7).
fn energy_section(rows: &[Row]) -> String {
    let mut out = String::from(
        "\n## Energy (the paper's Fig. 7)\n\nFabric: every bit the fabric moved times its pJ per bit; \
         codec: compressions and decompressions (Table III). EDP = energy x kernel time.\n\n\
         | program | codec | fabric uJ | codec uJ | total uJ | energy % of none | EDP % of none |\n\
         | --- | --- | --- | --- | --- | --- | --- |\n",
    );
    let micro = |pj: f64| format!("{:.3}", pj / 1e6);
    let percent = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.1}"));
    for row in rows {
        let Some(e) = row.run.energy else { continue };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} |",
            program_of(row),
            row.run.label,
            micro(e.dram_pj),
            micro(e.codec_pj),
            micro(e.total_pj),
            percent(row.energy_percent_of_none),
            percent(row.edp_percent_of_none)
        );
    }
    out
}
