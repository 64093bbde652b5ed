//! The analyses of a `none` run's DRAM block trace, written next to the run
//! (small files `memzip report` tabulates; the trace itself is large):
//! `analyze.json` and `analyze.txt`, every codec on the run's stored blocks
//! with E2MC's tables profiled from the same trace ("E2MC: Entropy Encoding
//! Based Memory Compression for GPUs", Fig. 9a: offline probabilities of the
//! same run), and one `analyze-<name>.json` per entry of the sensitivity spec
//! `benchmarks/sweeps/analyses/sensitivity.json`.

use std::fs;
use std::path::Path;

use memzip::codec::registry::codec_names;
use serde::Deserialize;

use crate::analyze::{analyze, render_all, AnalyzeOptions, AnalyzeReport, TraceAnalysis};
use crate::error::AnalyzeError;
use crate::files::write_atomically;

/// The sensitivity spec, relative to the repository.
pub const SPEC: &str = "benchmarks/sweeps/analyses/sensitivity.json";

/// The spec: what each sensitivity analysis varies, and which paper figure it is.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    /// What the file is (for its reader).
    #[serde(default)]
    pub about: String,
    pub analyses: Vec<Analysis>,
}

/// One analysis: `memzip analyze` of the trace with these settings, no
/// Shannon bound, into `analyze-<name>.json`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Analysis {
    pub name: String,
    /// The paper figure or section it stands for.
    pub figure: String,
    pub codecs: Vec<String>,
    /// The memory access granularity (default: 32 bytes).
    #[serde(default)]
    pub mag_bytes: Option<usize>,
    /// E2MC codecs start from tables profiled from the same blocks.
    #[serde(default)]
    pub e2mc_offline: bool,
    /// Blocks after which online sampling ends.
    #[serde(default)]
    pub e2mc_sample_blocks: Option<u64>,
}

impl Analysis {
    fn options(&self) -> AnalyzeOptions {
        let mut options = AnalyzeOptions::new(self.codecs.clone());
        if let Some(mag_bytes) = self.mag_bytes {
            options.mag_bytes = mag_bytes;
        }
        if let Some(blocks) = self.e2mc_sample_blocks {
            options.sample_blocks = blocks;
        }
        options.e2mc_self_profile = self.e2mc_offline;
        options.shannon_bits = Vec::new();
        options
    }
}

/// Reads the sensitivity spec of the repository.
pub fn load_spec(repo: &Path) -> Result<Spec, String> {
    let path = repo.join(SPEC);
    let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let spec: Spec = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    for analysis in &spec.analyses {
        let ok =
            !analysis.name.is_empty() && analysis.name.chars().all(|c| c.is_ascii_alphanumeric() || "_-".contains(c));
        if !ok {
            return Err(format!(
                "{}: analysis name '{}': use letters, digits, '_' and '-'",
                path.display(),
                analysis.name
            ));
        }
    }
    Ok(spec)
}

/// `memzip analyze` of `trace` with `options`, each analysis naming the
/// trace as the files should keep it.
fn analyze_as(trace: &Path, shown: &str, options: &AnalyzeOptions) -> Result<Vec<TraceAnalysis>, AnalyzeError> {
    let mut analyses = analyze(&[trace], options)?;
    for analysis in &mut analyses {
        analysis.trace = shown.to_string();
    }
    Ok(analyses)
}

/// Writes the JSON of `analyses` (and the text report, when `text` names a
/// file) into `out`.
fn write_analysis(
    analyses: &[TraceAnalysis],
    options: &AnalyzeOptions,
    out: &Path,
    json: &str,
    text: Option<&str>,
) -> Result<(), String> {
    let report = AnalyzeReport::new(options, None, analyses).to_json()?;
    write_atomically(&out.join(json), report.as_bytes())?;
    if let Some(text) = text {
        write_atomically(&out.join(text), render_all(analyses).as_bytes())?;
    }
    Ok(())
}

/// Every analysis of the trace of the `none` run in `out`: `analyze.json`,
/// `analyze.txt` and the sensitivity spec's files. A trace inside the run
/// directory is named by its file name alone (the files are committed: no
/// path of this machine in them). Nothing without the trace, and nothing
/// from a trace of no stored block (a program whose data never leave the L2
/// writes nothing back: the run stands, LIB on the QV100).
pub fn analyze_run(repo: &Path, out: &Path, trace: &Path) -> Result<(), String> {
    if !trace.is_file() {
        return Ok(());
    }
    let spec = load_spec(repo)?;
    eprintln!("==> memzip analyze of this run's trace");
    let shown = match (trace.parent(), trace.file_name()) {
        (Some(dir), Some(name)) if dir == out => name.to_string_lossy().into_owned(),
        _ => trace.display().to_string(),
    };
    let mut every_codec = AnalyzeOptions::new(codec_names().into_iter().map(String::from).collect());
    every_codec.e2mc_self_profile = true;
    let analyses = match analyze_as(trace, &shown, &every_codec) {
        Ok(analyses) => analyses,
        Err(AnalyzeError::Nothing { message }) => {
            eprintln!("==> no analysis of this run's trace: {message}");
            return Ok(());
        }
        Err(e) => return Err(format!("memzip analyze of {}: {e}", trace.display())),
    };
    write_analysis(&analyses, &every_codec, out, "analyze.json", Some("analyze.txt"))?;
    for analysis in &spec.analyses {
        let json = format!("analyze-{}.json", analysis.name);
        let options = analysis.options();
        analyze_as(trace, &shown, &options)
            .map_err(String::from)
            .and_then(|analyses| write_analysis(&analyses, &options, out, &json, None))
            .map_err(|e| format!("memzip analyze ({}) of {}: {e}", analysis.name, trace.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trace_of_no_stored_block_is_analysed_to_nothing_and_fails_nothing() {
        use memzip::trace::{AccessKind, TraceWriter};
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let out = std::env::temp_dir().join(format!("memzip-analyses-reads-{}", std::process::id()));
        fs::create_dir_all(&out).unwrap();
        // A program whose data stay in the L2: DRAM only reads (LIB on the QV100).
        let trace = out.join("trace.zst");
        let mut writer = TraceWriter::new(fs::File::create(&trace).unwrap(), 128).unwrap();
        writer.write_access(10, AccessKind::Read, 0, 0x1000, &[7u8; 128]).unwrap();
        writer.finish().unwrap();
        assert_eq!(analyze_run(&repo, &out, &trace), Ok(()), "the none run stands");
        assert!(!out.join("analyze.json").exists(), "no analysis of nothing");
        fs::remove_dir_all(&out).unwrap();
    }

    #[test]
    fn the_repositorys_spec_reads_and_names_its_figures() {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let spec = load_spec(&repo).unwrap();
        let names: Vec<&str> = spec.analyses.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["mag16", "mag64", "e2mc16-pdw", "e2mc16-mfv", "bases", "deltas"]);
        assert!(spec.analyses.iter().all(|a| !a.figure.is_empty() && !a.codecs.is_empty()));
        let mfv = spec.analyses[3].options();
        assert_eq!((mfv.sample_blocks, mfv.mag_bytes, mfv.e2mc_self_profile), (12288, 32, false));
        assert!(mfv.shannon_bits.is_empty(), "no Shannon bound");
        assert_eq!(spec.analyses[0].options().mag_bytes, 16);
        assert!(spec.analyses[2].options().e2mc_self_profile);
    }
}
