//! The report's sections from `memzip analyze` files of the `none` runs:
//! `analyze.json` (every codec on the run's stored blocks) and the
//! sensitivity analyses `analyze-<name>.json`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use serde_json::Value;

use super::program_table_header;
use crate::report::mean::geomean;
use crate::table::Row;

/// One codec's results in an analyze JSON.
struct CodecResult {
    codec: String,
    raw_cr: Option<f64>,
    effective_cr: Option<f64>,
    /// Blocks per stored size at the MAG (bytes), `mag_size_histogram`.
    mag_sizes: BTreeMap<u64, u64>,
}

impl CodecResult {
    fn from_json(json: &Value) -> Result<Self, String> {
        let mut mag_sizes = BTreeMap::new();
        if let Some(histogram) = json["mag_size_histogram"].as_object() {
            for (size, count) in histogram {
                let size = size.parse().map_err(|_| format!("bad mag_size_histogram size '{size}'"))?;
                mag_sizes.insert(size, count.as_u64().ok_or_else(|| format!("bad block count at size {size}"))?);
            }
        }
        Ok(Self {
            codec: json["codec"].as_str().unwrap_or("?").to_string(),
            raw_cr: json["raw_compression_ratio"].as_f64(),
            effective_cr: json["effective_compression_ratio"].as_f64(),
            mag_sizes,
        })
    }

    /// Per stored size, its share of the blocks in percent (None: no blocks).
    fn size_shares(&self) -> Option<BTreeMap<u64, f64>> {
        let total: u64 = self.mag_sizes.values().sum();
        (total > 0).then(|| self.mag_sizes.iter().map(|(&size, &n)| (size, 100.0 * n as f64 / total as f64)).collect())
    }
}

/// One program's `memzip analyze` results (from `analyze.json` in its `none`
/// run), one per codec.
type AnalyzedProgram = (String, Vec<CodecResult>);

/// One `analyze*.json` file name's results over the `none` runs: per program,
/// and how the blocks were analysed (MAG, where E2MC's table came from).
struct Analyses {
    programs: Vec<AnalyzedProgram>,
    setting: String,
}

/// The `file` (an `analyze*.json` that `memzip bench run` writes for a `none` run with a
/// trace) of each program's `none` run, in program order.
fn analyzed_programs(rows: &[Row], file: &str) -> Result<Analyses, String> {
    let mut programs = Vec::new();
    let mut setting = String::new();
    for row in rows.iter().filter(|r| r.run.is_baseline()) {
        let path = Path::new(&row.run.dir).join(file);
        if !path.is_file() {
            continue;
        }
        let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let json: Value = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let trace = &json["traces"][0];
        let codecs = trace["codecs"]
            .as_array()
            .ok_or_else(|| format!("{}: no traces[0].codecs", path.display()))?
            .iter()
            .map(CodecResult::from_json)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("{}: {e}", path.display()))?;
        if setting.is_empty() {
            setting = analysis_setting(&json, &codecs);
        }
        programs.push((row.run.program.clone().unwrap_or_else(|| "(unnamed)".into()), codecs));
    }
    Ok(Analyses { programs, setting })
}

/// How an analyze JSON analysed its blocks, in words: the MAG and, when it
/// has E2MC codecs, where their code tables came from.
fn analysis_setting(json: &Value, codecs: &[CodecResult]) -> String {
    let mut setting = match json["traces"][0]["mag_bytes"].as_u64() {
        Some(mag) => format!("MAG {mag} B"),
        None => "MAG unknown".to_string(),
    };
    if codecs.iter().any(|c| c.codec.starts_with("e2mc")) {
        if json["e2mc_offline"].as_bool() == Some(true) {
            setting.push_str("; E2MC tables profiled from the same blocks (offline)");
        } else if let Some(blocks) = json["sample_blocks"].as_u64() {
            let _ = write!(setting, "; E2MC samples the first {blocks} blocks online (stored raw), then codes");
        }
    }
    setting
}

/// The `analyze-<name>.json` file names of the `none` runs (the sensitivity analyses of
/// benchmarks/sweeps/analyses/sensitivity.json: the compression side of the
/// sensitivity sweeps), sorted.
fn sensitivity_files(rows: &[Row]) -> Vec<String> {
    let mut names: Vec<String> = rows
        .iter()
        .filter(|r| r.run.is_baseline())
        .filter_map(|r| fs::read_dir(&r.run.dir).ok())
        .flat_map(|dir| dir.flatten())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("analyze-") && name.ends_with(".json"))
        .collect();
    names.sort();
    names.dedup();
    names
}

/// A table of one compression ratio (raw or effective) of every codec of
/// `programs` per program, with geometric means.
fn ratio_table(programs: &[AnalyzedProgram], raw: bool) -> String {
    let Some((_, first)) = programs.first() else { return String::new() };
    let codecs: Vec<&str> = first.iter().map(|c| c.codec.as_str()).collect();
    let mut out = program_table_header(&[], &codecs);
    let value = |results: &[CodecResult], codec: &str| {
        results.iter().find(|c| c.codec == codec).and_then(|c| if raw { c.raw_cr } else { c.effective_cr })
    };
    let cell = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.3}"));
    for (program, results) in programs {
        let _ = write!(out, "| {program} |");
        for codec in &codecs {
            let _ = write!(out, " {} |", cell(value(results, codec)));
        }
        out.push('\n');
    }
    out.push_str("| geomean |");
    for codec in &codecs {
        let mean = geomean(programs.iter().filter_map(|(_, results)| value(results, codec)));
        let _ = write!(out, " {} |", cell(mean));
    }
    out.push('\n');
    out
}

/// Per program and codec, the share of the blocks stored at each size at the
/// MAG, with the mean share over the programs: the MAG-aware paper Fig. 12 (whose
/// "average" is over benchmarks, so each program weighs the same).
fn size_share_table(programs: &[AnalyzedProgram]) -> String {
    let Some((_, first)) = programs.first() else { return String::new() };
    let codecs: Vec<&str> = first.iter().map(|c| c.codec.as_str()).collect();
    let mut sizes: Vec<u64> =
        programs.iter().flat_map(|(_, results)| results.iter().flat_map(|c| c.mag_sizes.keys().copied())).collect();
    sizes.sort_unstable();
    sizes.dedup();
    if sizes.is_empty() {
        return String::new();
    }
    let sizes_text: Vec<String> = sizes.iter().map(u64::to_string).collect();
    let mut out = format!("Blocks stored at {} B, % of each codec's blocks:\n\n", sizes_text.join(" / "));
    out.push_str(&program_table_header(&[], &codecs));
    let shares = |results: &[CodecResult], codec: &str| results.iter().find(|c| c.codec == codec)?.size_shares();
    let cell = |shares: Option<Vec<f64>>| match shares {
        Some(values) => values.iter().map(|v| format!("{v:.1}")).collect::<Vec<_>>().join(" / "),
        None => "-".to_string(),
    };
    let at_sizes = |map: &BTreeMap<u64, f64>| sizes.iter().map(|s| map.get(s).copied().unwrap_or(0.0)).collect();
    for (program, results) in programs {
        let _ = write!(out, "| {program} |");
        for codec in &codecs {
            let _ = write!(out, " {} |", cell(shares(results, codec).as_ref().map(at_sizes)));
        }
        out.push('\n');
    }
    out.push_str("| mean |");
    for codec in &codecs {
        let per_program: Vec<Vec<f64>> =
            programs.iter().filter_map(|(_, results)| shares(results, codec).as_ref().map(at_sizes)).collect();
        let mean = (!per_program.is_empty()).then(|| {
            (0..sizes.len()).map(|i| per_program.iter().map(|v| v[i]).sum::<f64>() / per_program.len() as f64).collect()
        });
        let _ = write!(out, " {} |", cell(mean));
    }
    out.push('\n');
    out
}

/// Raw and effective compression ratio of every codec `memzip analyze`
/// measured on each program's stored blocks, with geometric means, and the
/// distribution of their stored sizes.
fn analyze_section(analyses: &Analyses) -> String {
    if analyses.programs.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "\n## Every codec on the stored blocks (`memzip analyze` of the `none` runs' traces)\n\n\
         Write-backs and host-to-device copies of each `none` run, every codec offline on the same blocks; \
         E2MC starts from a table profiled from the same trace (offline probabilities, paper 000 Fig. 9a).\n",
    );
    for (title, raw) in [("Effective compression ratio (at MAG)", false), ("Raw compression ratio", true)] {
        let _ = write!(out, "\n### {title}\n\n{}", ratio_table(&analyses.programs, raw));
    }
    let sizes = size_share_table(&analyses.programs);
    if !sizes.is_empty() {
        let _ = write!(out, "\n### Stored sizes at MAG (paper 002 Fig. 12)\n\n{sizes}");
    }
    out
}

/// The compression side of the sensitivity sweeps: one effective- and one
/// raw-CR table per `analyze-<name>.json` (MAG 16 / 64 B, E2MC's PDWs and
/// MFV table sizes, MAG-aware BDI's bases: benchmarks/sweeps/analyses/sensitivity.json).
fn sensitivity_section(rows: &[Row]) -> Result<String, String> {
    let files = sensitivity_files(rows);
    if files.is_empty() {
        return Ok(String::new());
    }
    let mut out = String::from(
        "\n## Sensitivity of the compression ratio (`memzip analyze` of the same blocks)\n\n\
         The `none` runs' stored blocks again, under the knobs of the sensitivity sweeps \
         (`analyze-<name>.json`, benchmarks/sweeps/analyses/sensitivity.json); their timing is the `sens-*` sweeps'.\n",
    );
    for file in files {
        let analyses = analyzed_programs(rows, &file)?;
        let name = file.trim_start_matches("analyze-").trim_end_matches(".json");
        let _ = write!(out, "\n### {name}: {}\n", analyses.setting);
        for (title, raw) in [("Effective compression ratio", false), ("Raw compression ratio", true)] {
            let _ = write!(out, "\n{title}:\n\n{}", ratio_table(&analyses.programs, raw));
        }
    }
    Ok(out)
}

/// Both: every codec on the stored blocks (`analyze.json`), then the
/// sensitivity analyses; empty where the `none` runs have no such files.
pub(super) fn sections(rows: &[Row]) -> Result<String, String> {
    Ok(analyze_section(&analyzed_programs(rows, "analyze.json")?) + &sensitivity_section(rows)?)
}
