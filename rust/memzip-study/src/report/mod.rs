//! `memzip report`: tables and figures from a directory of simulator runs
//! (a `memzip sweep` result or any run directories `memzip run` wrote).
//!
//! Writes `summary.md`, `summary.csv` and SVG bar charts, the figures the
//! papers draw: raw and effective compression ratio per program and codec
//! with geometric means (the E2MC paper Fig. 9, the MAG-aware paper Fig. 13), speedup over
//! `none` (the MAG-aware paper Fig. 14), DRAM traffic relative to `none`, the
//! metadata-cache hit rate, the distribution of stored sizes at MAG
//! granularity (the MAG-aware paper Fig. 12), every codec's compression ratio on the
//! `none` runs' stored blocks (their `analyze.json`), and energy and energy-delay product
//! relative to `none` (the E2MC paper Fig. 13, the adaptive-compression paper Fig. 7) with each run's
//! energy by component; for lossy runs, the error they cost on the program's
//! output (the MAG-aware paper Fig. 15). Beside each speedup, what the DRAM
//! model lets it gain (an estimate and a bound, [`crate::bounds`]) and, where runs keep a per-kernel
//! record, its split between the kernels that saturate the bus and the others;
//! on a sectored L2, what partial requests cost each codec run ([`partial`]).

mod analyses;
mod chart;
mod estimates;
mod fabric;
mod gpus;
mod kernels;
mod mean;
pub mod memory_bound;
mod outdated;
mod partial;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

pub use chart::{BarChart, Series};
pub use mean::geomean;

use crate::run::{is_finished_run, RunRecord, TIMING_MODEL};
use crate::table::{self, Row};

/// Run directories directly under `results` (skipping `.tmp-*` and `*.failed`).
pub fn run_dirs(results: &Path) -> Result<Vec<PathBuf>, String> {
    let mut dirs: Vec<PathBuf> = fs::read_dir(results)
        .map_err(|e| format!("{}: {e}", results.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| is_finished_run(p) && p.join("stats.json").is_file())
        .collect();
    dirs.sort();
    if dirs.is_empty() {
        return Err(format!("{}: no run directories (with stats.json) inside", results.display()));
    }
    Ok(dirs)
}

/// One per-program figure of the report.
struct Figure {
    file: &'static str,
    title: &'static str,
    y_label: &'static str,
    metric: fn(&Row) -> Option<f64>,
    reference: Option<f64>,
}

/// The report's per-program figures, in the order summary.md shows them.
const FIGURES: [Figure; 7] = [
    Figure {
        file: "effective_cr.svg",
        title: "Effective compression ratio (at MAG)",
        y_label: "effective CR (x)",
        metric: |r| r.run.effective_cr,
        reference: Some(1.0),
    },
    Figure {
        file: "raw_cr.svg",
        title: "Raw compression ratio",
        y_label: "raw CR (x)",
        metric: |r| r.run.raw_cr,
        reference: Some(1.0),
    },
    Figure {
        file: "speedup.svg",
        title: "Speedup over no compression",
        y_label: "speedup (x, simulated cycles)",
        metric: |r| r.speedup,
        reference: Some(1.0),
    },
    Figure {
        file: "dram_traffic.svg",
        title: "DRAM traffic relative to no compression",
        y_label: "DRAM bytes (% of none)",
        metric: |r| r.dram_percent_of_none,
        reference: Some(100.0),
    },
    Figure {
        file: "energy.svg",
        title: "Energy relative to no compression (DRAM + codec + metadata cache)",
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
    Figure {
        file: "mdc_hit_rate.svg",
        title: "Metadata-cache hit rate",
        y_label: "hits (% of lookups)",
        metric: |r| r.run.mdc_hit_rate.map(|h| 100.0 * h),
        reference: None,
    },
];

/// The figures the papers draw for memory-bound programs only (the MAG-aware paper §V-C), drawn again
/// over those alone.
const MEMORY_BOUND_FIGURES: [&str; 2] = ["effective_cr.svg", "speedup.svg"];

/// Programs (first-appearance order) and codecs (first-appearance order).
fn axes(rows: &[Row]) -> (Vec<String>, Vec<String>) {
    let mut programs: Vec<String> = Vec::new();
    let mut codecs: Vec<String> = Vec::new();
    for row in rows {
        let program = row.run.program.clone().unwrap_or_else(|| "(unnamed)".into());
        if !programs.contains(&program) {
            programs.push(program);
        }
        if !codecs.contains(&row.run.label) {
            codecs.push(row.run.label.clone());
        }
    }
    // The baseline first, so colours and table rows start from it.
    codecs.sort_by_key(|c| c != "none");
    (programs, codecs)
}

fn program_of(row: &Row) -> &str {
    row.run.program.as_deref().unwrap_or("(unnamed)")
}

/// The run of `codec` on `program`, if any (the first: one per pair).
fn run_of<'a>(rows: &'a [Row], codec: &str, program: &str) -> Option<&'a Row> {
    rows.iter().find(|r| r.run.label == codec && program_of(r) == program)
}

/// The programs (in axis order) that have a run of every codec in `rows`.
/// Geometric means compare codecs only over these: while a grid is
/// incomplete, a codec's mean over the programs it alone has run would
/// compare different workloads.
fn common_programs(rows: &[Row]) -> Vec<String> {
    let (programs, codecs) = axes(rows);
    programs.into_iter().filter(|p| codecs.iter().all(|c| run_of(rows, c, p).is_some())).collect()
}

/// "1 program", "2 programs".
fn programs_text(count: usize) -> String {
    format!("{count} program{}", if count == 1 { "" } else { "s" })
}

/// The runs of the programs that have a run other than the baseline: a
/// program run only under `none` (a study's input-selection runs) has no
/// speedup or ratio to show, so the figures leave it out while the tables
/// keep it; every run when no program has one.
fn compared_rows(rows: &[Row]) -> Vec<Row> {
    let compared: Vec<&str> = rows.iter().filter(|r| !r.run.is_baseline()).map(program_of).collect();
    if compared.is_empty() {
        return rows.to_vec();
    }
    rows.iter().filter(|r| compared.contains(&program_of(r))).cloned().collect()
}

/// Per codec, one value per program and the geometric mean as the last group:
/// over the programs every codec has run, or, when there is none, over each
/// codec's own (the group's label says which).
fn per_program(rows: &[Row], metric: impl Fn(&Row) -> Option<f64>) -> (Vec<String>, Vec<Series>) {
    let (programs, codecs) = axes(rows);
    let common = common_programs(rows);
    let series = codecs
        .iter()
        .map(|codec| {
            let mut values: Vec<Option<f64>> =
                programs.iter().map(|p| run_of(rows, codec, p).and_then(&metric)).collect();
            let in_mean = |(p, v): (&String, &Option<f64>)| (common.is_empty() || common.contains(p)).then_some(*v);
            values.push(geomean(programs.iter().zip(&values).filter_map(in_mean).flatten()));
            (codec.clone(), values)
        })
        .collect();
    let complete = common.len() == programs.len();
    let mut groups = programs;
    groups.push(if complete {
        "geomean".into()
    } else if common.is_empty() {
        "geomean (each codec's programs)".into()
    } else {
        format!("geomean (the {} all ran)", programs_text(common.len()))
    });
    (groups, series)
}

/// Each run's energy by component (memzip's model, `memzip::mc::energy`).
fn energy_section(rows: &[Row]) -> String {
    let with_energy: Vec<&Row> = rows.iter().filter(|r| r.run.energy.is_some()).collect();
    if with_energy.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "\n## Energy\n\nmemzip's energy model: DRAM bursts and row activations, compressor and \
         decompressor, metadata cache (constants and sources: `-memzip_energy_*`). EDP = energy x \
         simulated time.\n\n| program | codec | DRAM uJ | codec uJ | metadata uJ | total uJ | energy % of none \
         | EDP % of none |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n",
    );
    let micro = |pj: f64| format!("{:.3}", pj / 1e6);
    let percent = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.1}"));
    for row in with_energy {
        let Some(e) = row.run.energy else { continue };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            row.run.program.as_deref().unwrap_or("-"),
            row.run.label,
            micro(e.dram_pj),
            micro(e.codec_pj),
            micro(e.metadata_pj),
            micro(e.total_pj),
            percent(row.energy_percent_of_none),
            percent(row.edp_percent_of_none)
        );
    }
    out
}

/// Each run's whole-GPU energy, when it ran with the simulator's power model
/// (`crate::power`): the model's energy, its DRAM part, plus memzip's codec
/// and metadata-cache energy, as the E2MC paper Fig. 13 reports energy and EDP.
fn gpu_energy_section(rows: &[Row]) -> String {
    let with_power: Vec<&Row> = rows.iter().filter(|r| r.run.gpu_power.is_some()).collect();
    if with_power.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "\n## Whole-GPU energy\n\nThe simulator's power model (GPUWattch on v3.2.1, AccelWattch on dev; \
         GTX480 XML patched for the GTX580, see README) plus memzip's codec and metadata-cache energy. \
         EDP = energy x simulated time.\n\n| program | codec | model | GPU uJ | GPU DRAM uJ | total uJ \
         | energy % of none | EDP % of none |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n",
    );
    let micro = |pj: Option<f64>| pj.map_or("-".to_string(), |pj| format!("{:.3}", pj / 1e6));
    let percent = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.1}"));
    for row in with_power {
        let Some(g) = row.run.gpu_power.as_ref() else { continue };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            row.run.program.as_deref().unwrap_or("-"),
            row.run.label,
            g.model.name(),
            micro(Some(g.gpu_pj)),
            micro(Some(g.dram_pj)),
            micro(row.run.gpu_total_pj()),
            percent(row.gpu_energy_percent_of_none),
            percent(row.gpu_edp_percent_of_none)
        );
    }
    out
}

/// The error each lossy run cost on its program's output (`run.json`'s
/// `output_error`, [`crate::output_error`]), as the MAG-aware paper Fig. 15
/// shows SLC's: per program and codec, then per codec the geometric mean
/// over its runs whose error is above zero (a zero has no logarithm; the
/// exact runs are counted beside it), and, as a geometric mean hides a bad
/// program, the arithmetic mean, the worst program's error and the largest
/// error of any one value, each with its program.
fn output_error_section(rows: &[Row]) -> String {
    let with_error: Vec<Row> = rows.iter().filter(|r| r.run.output_error.is_some()).cloned().collect();
    if with_error.is_empty() {
        return String::new();
    }
    let (programs, codecs) = axes(&with_error);
    let mut out = String::from(
        "\n## Output error\n\nThe mean relative error of each run's output values against an exact run's \
         (`run.json`'s `output_error`): what a lossy codec cost the program. FAIL: the program's own output \
         check failed.\n\n",
    );
    out.push_str(&program_table_header(&[], &codecs));
    let percent = |error: f64| format!("{:.3}%", 100.0 * error);
    for program in &programs {
        let _ = write!(out, "| {program} |");
        for codec in &codecs {
            let cell = run_of(&with_error, codec, program)
                .and_then(|r| r.run.output_error.map(|e| (e.mean_relative_error, r.run.output_ok)))
                .map_or("-".to_string(), |(error, ok)| percent(error) + if ok == Some(false) { " FAIL" } else { "" });
            let _ = write!(out, " {cell} |");
        }
        out.push('\n');
    }
    out.push_str("| geomean of errors > 0 |");
    for codec in &codecs {
        let errors: Vec<f64> = with_error
            .iter()
            .filter(|r| &r.run.label == codec)
            .filter_map(|r| r.run.output_error.map(|e| e.mean_relative_error))
            .collect();
        let exact = errors.iter().filter(|&&e| e == 0.0).count();
        let mean = geomean(errors.iter().copied()).map_or("-".to_string(), percent);
        let exact = if exact > 0 { format!(" ({exact} exact)") } else { String::new() };
        let _ = write!(out, " {mean}{exact} |");
    }
    out.push('\n');
    out.push_str(&error_summary_rows(&with_error, &codecs));
    out
}

/// Per codec: the arithmetic mean of its runs' output errors, the worst
/// run's error and the largest error of a single value, with the program.
fn error_summary_rows(with_error: &[Row], codecs: &[String]) -> String {
    let percent = |error: f64| format!("{:.3}%", 100.0 * error);
    let mut rows = [
        String::from("| arithmetic mean of errors |"),
        String::from("| worst program |"),
        String::from("| largest error of one value |"),
    ];
    for codec in codecs {
        let runs: Vec<(&str, crate::output_error::OutputError)> = with_error
            .iter()
            .filter(|r| &r.run.label == codec)
            .filter_map(|r| r.run.output_error.map(|e| (program_of(r), e)))
            .collect();
        let largest = |of: fn(&crate::output_error::OutputError) -> f64| {
            runs.iter().max_by(|a, b| of(&a.1).total_cmp(&of(&b.1))).map_or("-".to_string(), |(program, e)| {
                match of(e) {
                    0.0 => format!("{} (every run)", percent(0.0)),
                    error => format!("{} ({program})", percent(error)),
                }
            })
        };
        let mean = (!runs.is_empty())
            .then(|| runs.iter().map(|(_, e)| e.mean_relative_error).sum::<f64>() / runs.len() as f64);
        let _ = write!(rows[0], " {} |", mean.map_or("-".to_string(), percent));
        let _ = write!(rows[1], " {} |", largest(|e| e.mean_relative_error));
        let _ = write!(rows[2], " {} |", largest(|e| e.max_relative_error));
    }
    rows.iter().map(|row| format!("{row}\n")).collect()
}

/// A row's value of one metric (None when the run lacks it).
type Metric = fn(&Row) -> Option<f64>;

/// The summary's metrics: header and value per row, in the order of its columns.
const SUMMARY_METRICS: [(&str, Metric); 6] = [
    ("geomean effective CR", |r| r.run.effective_cr),
    ("geomean raw CR", |r| r.run.raw_cr),
    ("geomean speedup", |r| r.speedup),
    ("geomean DRAM % of none", |r| r.dram_percent_of_none),
    ("geomean energy % of none", |r| r.energy_percent_of_none),
    ("geomean EDP % of none", |r| r.edp_percent_of_none),
];

/// Per codec, the geometric mean of each summary metric over the programs
/// every codec has run; while the grid is incomplete, also each codec's own
/// means (with its number of programs), which do not compare across codecs.
fn geomean_table(rows: &[Row]) -> String {
    let (programs, _) = axes(rows);
    let common = common_programs(rows);
    let mut out = String::new();
    if common.len() == programs.len() {
        let _ = writeln!(out, "Geometric means over {}, each run by every codec.\n", programs_text(common.len()));
        out.push_str(&metric_table(rows, &common, false));
        return out;
    }
    if common.is_empty() {
        out.push_str("No program has a run of every codec.\n\n");
    } else {
        let _ = writeln!(
            out,
            "Geometric means over the {} every codec has run ({}).\n",
            programs_text(common.len()),
            common.join(", ")
        );
        out.push_str(&metric_table(rows, &common, false));
        out.push_str(
            "\nEach codec over every program it has run (different programs: these do not compare across codecs).\n\n",
        );
    }
    out.push_str(&metric_table(rows, &programs, true));
    out
}

/// One row per codec: the geometric mean of each summary metric over the
/// runs of `programs` (with the codec's number of programs when `counts`).
fn metric_table(rows: &[Row], programs: &[String], counts: bool) -> String {
    let subset: Vec<Row> = rows.iter().filter(|r| programs.iter().any(|p| p == program_of(r))).cloned().collect();
    let mut out = String::from("| codec |");
    if counts {
        out.push_str(" programs |");
    }
    let medium = if fabric::is_fabric_report(rows) { "fabric" } else { "DRAM" };
    for (header, _) in SUMMARY_METRICS {
        let _ = write!(out, " {} |", header.replace("DRAM", medium));
    }
    out.push_str("\n| --- |");
    out.push_str(&" --- |".repeat(SUMMARY_METRICS.len() + usize::from(counts)));
    out.push('\n');
    let (_, codecs) = axes(&subset);
    for codec in &codecs {
        let _ = write!(out, "| {codec} |");
        let runs: Vec<&Row> = programs.iter().filter_map(|p| run_of(&subset, codec, p)).collect();
        if counts {
            let _ = write!(out, " {} |", runs.len());
        }
        for (_, metric) in SUMMARY_METRICS {
            let mean = geomean(runs.iter().copied().filter_map(metric));
            let _ = write!(out, " {} |", mean.map_or("-".to_string(), |v| format!("{v:.3}")));
        }
        out.push('\n');
    }
    out
}

/// The header of a markdown table with one row per program: a `program`
/// column, the `columns` after it, then one column per codec.
fn program_table_header(columns: &[&str], codecs: &[impl AsRef<str>]) -> String {
    let mut out = String::from("| program |");
    for column in columns.iter().copied().chain(codecs.iter().map(AsRef::as_ref)) {
        let _ = write!(out, " {column} |");
    }
    out.push_str("\n| --- |");
    out.push_str(&" --- |".repeat(columns.len() + codecs.len()));
    out.push('\n');
    out
}

/// The codec runs left out because an older timing model made them
/// (`run::TIMING_MODEL`): their cycles do not compare with current runs'.
fn superseded_section(dirs: &[PathBuf]) -> String {
    if dirs.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "Left out: {} codec run(s) made with an older timing model than this memzip's ({}), so their \
         cycles do not compare with the others'; `memzip sweep` reruns them (it does not reuse them):\n\n",
        dirs.len(),
        TIMING_MODEL
    );
    for dir in dirs {
        let _ = writeln!(out, "- `{}`", dir.file_name().unwrap_or_default().to_string_lossy());
    }
    out.push('\n');
    out
}

/// A warning when the runs come from more than one simulator build (their
/// `simulator_sources` differ): a patch or codec change between them can move
/// cycles by more than a codec does. Empty when they agree or none recorded it.
fn builds_section(rows: &[Row]) -> String {
    let mut runs_per_build: BTreeMap<&str, usize> = BTreeMap::new();
    for sources in rows.iter().filter_map(|row| row.run.simulator_sources.as_deref()) {
        *runs_per_build.entry(sources).or_default() += 1;
    }
    if runs_per_build.len() < 2 {
        return String::new();
    }
    let builds: Vec<String> =
        runs_per_build.iter().map(|(sources, runs)| format!("`{sources}` {runs} run(s)")).collect();
    let unrecorded = rows.iter().filter(|row| row.run.simulator_sources.is_none()).count();
    let mut out = format!(
        "**Runs from {} simulator builds** (run.json's `simulator_sources`: the patches, cpp_shim/ and \
         codec sources each simulator was built from): {}",
        runs_per_build.len(),
        builds.join(", ")
    );
    if unrecorded > 0 {
        let _ = write!(out, ", and {unrecorded} run(s) that predate the record");
    }
    out.push_str(". Compare runs of one build.\n\n");
    out
}

/// What a report covers and how it classes programs.
#[derive(Clone, Debug)]
pub struct ReportOptions {
    /// A program without a benchmark manifest that says how it is bound
    /// (`memory_bound`) counts as memory-bound when its `none` run keeps the
    /// DRAM data bus busy at least this share of DRAM cycles; the summary
    /// gives the geometric means of the memory-bound programs and of the rest
    /// apart (a compressor can only speed up the former).
    pub memory_bound_utilization: f64,
    /// Only these programs, each a benchmark (`rodinia/backprop`) or a program
    /// with its preset (`rodinia/backprop study`); empty: every program. A
    /// paper's benchmark list gives its averages (the MAG-aware paper Table V).
    pub programs: Vec<String>,
    /// The checkout whose benchmark manifests class the benchmarks
    /// memory-bound or not (`memory_bound`); without it every program is
    /// classed by its own `none` run.
    pub repo: Option<PathBuf>,
}

impl Default for ReportOptions {
    fn default() -> Self {
        Self { memory_bound_utilization: 0.4, programs: Vec::new(), repo: None }
    }
}

impl ReportOptions {
    /// Whether `program` (`<benchmark> <preset>`) is one the report covers.
    fn covers(&self, program: &str) -> bool {
        self.programs.is_empty() || self.programs.iter().any(|wanted| names(wanted, program))
    }
}

/// Whether `wanted` names `program`: all of it, or its benchmark (the part
/// before the preset).
fn names(wanted: &str, program: &str) -> bool {
    program == wanted || program.strip_prefix(wanted).is_some_and(|preset| preset.starts_with(' '))
}

/// The program a run record names: `<benchmark> <preset>` as run.json has it,
/// or a command-line run's program.
fn record_program(record: &RunRecord) -> Option<String> {
    match (&record.benchmark, &record.preset) {
        (Some(benchmark), Some(preset)) => Some(format!("{benchmark} {preset}")),
        _ => record.program.clone(),
    }
}

/// What [`write_report`] did.
#[derive(Debug)]
pub struct Written {
    /// The report's files.
    pub files: Vec<PathBuf>,
    /// The run directories left out because they did not load, one line
    /// each (also listed in `summary.md`).
    pub damaged: Vec<String>,
}

/// Writes the report files into `out`: every run that loads, and a list of
/// those that did not (a damaged run directory hides none of the others).
pub fn write_report(results: &Path, out: &Path, options: &ReportOptions) -> Result<Written, String> {
    write_report_of(&[results.to_path_buf()], out, options)
}

/// [`write_report`] of the runs of several results directories together, e.g.
/// one study on two GPUs (each GPU's runs compared with its own `none` runs).
pub fn write_report_of(results: &[PathBuf], out: &Path, options: &ReportOptions) -> Result<Written, String> {
    let ReportRows { rows, superseded, damaged } = load_report_rows(results, options)?;
    fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let mut written = Vec::new();
    let mut write = |name: &str, text: String| -> Result<(), String> {
        let path = out.join(name);
        fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
        written.push(path);
        Ok(())
    };

    let classes = memory_bound::Classes::of(&rows, options);
    let fabric = fabric::is_fabric_report(&rows);
    let mut summary = String::from("# memzip report\n\n");
    let _ = writeln!(summary, "{} runs from {}.\n", rows.len(), listed(results, "`"));
    summary.push_str(&superseded_section(&superseded));
    summary.push_str(&damaged_section(&damaged, results));
    summary.push_str(&builds_section(&rows));
    summary.push_str(&outdated::section(&rows));
    summary.push_str(&gpus::section(&rows));
    summary.push_str(&geomean_table(&rows));
    if fabric {
        summary.push_str(&fabric::sections(&rows)?);
    } else {
        summary.push_str(&memory_bound::section(&rows, &classes, options));
        summary.push_str(&estimates::section(&rows));
        summary.push_str(&partial::section(&rows));
        summary.push_str(&kernels::section(&rows));
        summary.push_str(&analyses::sections(&rows)?);
        summary.push_str(&energy_section(&rows));
        summary.push_str(&gpu_energy_section(&rows));
    }
    summary.push_str(&output_error_section(&rows));
    summary.push_str("\n## Runs\n\n```\n");
    summary.push_str(&table::render_text(&rows));
    summary.push_str("```\n\n## Figures\n\n");
    let figures: &[Figure] = if fabric { &fabric::FIGURES } else { &FIGURES };
    let figure_rows = compared_rows(&rows);
    for figure in figures {
        let (groups, series) = per_program(&figure_rows, figure.metric);
        let chart =
            BarChart { title: figure.title, y_label: figure.y_label, groups, series, reference: figure.reference };
        write(figure.file, chart.to_svg())?;
        let _ = writeln!(summary, "![{}]({})\n", figure.title, figure.file);
    }
    if !fabric {
        // The papers' speedup figures show memory-bound programs (the MAG-aware paper §V-C): the
        // effective CR and speedup of those alone, where the results have any.
        let memory_rows = classes.rows(&rows, true);
        for figure in FIGURES.iter().filter(|f| !memory_rows.is_empty() && MEMORY_BOUND_FIGURES.contains(&f.file)) {
            let (groups, series) = per_program(&compared_rows(&memory_rows), figure.metric);
            let title = format!("{} (memory-bound programs)", figure.title);
            let file = figure.file.replace(".svg", "-memory-bound.svg");
            let chart =
                BarChart { title: &title, y_label: figure.y_label, groups, series, reference: figure.reference };
            write(&file, chart.to_svg())?;
            let _ = writeln!(summary, "![{title}]({file})\n");
        }
        write("size_distribution.svg", size_distribution_chart(&rows).to_svg())?;
        let _ = writeln!(summary, "![Stored block sizes at MAG granularity](size_distribution.svg)");
    }
    write("summary.csv", table::render_csv(&rows))?;
    write("summary.md", summary)?;
    Ok(Written { files: written, damaged })
}

/// The results directories, each between `quote`s, comma-separated.
fn listed(results: &[PathBuf], quote: &str) -> String {
    results.iter().map(|dir| format!("{quote}{}{quote}", dir.display())).collect::<Vec<_>>().join(", ")
}

/// The run directories left out because they did not load: each with its
/// one-line error, the results directory taken off its paths.
fn damaged_section(damaged: &[String], results: &[PathBuf]) -> String {
    if damaged.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "Left out: {} run director{} that did not load (a file cut short or not a run); `memzip sweep` \
         runs a damaged run again:\n\n",
        damaged.len(),
        if damaged.len() == 1 { "y" } else { "ies" }
    );
    // With one results directory its name goes; with several each run keeps it.
    let prefix = match results {
        [only] => Some(format!("{}/", only.display())),
        _ => None,
    };
    for error in damaged {
        let line = prefix.as_deref().map_or_else(|| error.clone(), |prefix| error.replace(prefix, ""));
        let _ = writeln!(out, "- {line}");
    }
    out.push('\n');
    out
}

/// The rows a report covers, and the run directories it leaves out.
struct ReportRows {
    /// The runs of the programs the report covers (`--program`).
    rows: Vec<Row>,
    /// Codec runs an older timing model made.
    superseded: Vec<PathBuf>,
    /// Why each run directory that did not load did not, one line each.
    damaged: Vec<String>,
}

fn load_report_rows(results: &[PathBuf], options: &ReportOptions) -> Result<ReportRows, String> {
    let mut dirs = Vec::new();
    let mut superseded = Vec::new();
    let mut damaged = Vec::new();
    for dir in results.iter().map(|results| run_dirs(results)).collect::<Result<Vec<_>, _>>()?.concat() {
        match RunRecord::read(&dir) {
            Ok(Some(record)) if record.is_superseded() => {
                if record_program(&record).is_none_or(|p| options.covers(&p)) {
                    superseded.push(dir);
                }
            }
            Ok(_) => dirs.push(dir),
            Err(error) => damaged.push(error.to_string()),
        }
    }
    if dirs.is_empty() {
        return Err(match damaged.first() {
            Some(error) => error.clone(),
            None => format!("{}: every run was made with an older timing model; rerun them", listed(results, "")),
        });
    }
    let (mut rows, unloaded) = table::load_sound_rows(&dirs)?;
    damaged.extend(unloaded.iter().map(ToString::to_string));
    gpus::name_programs(&mut rows);
    rows.retain(|row| options.covers(program_of(row)));
    for program in &options.programs {
        if !rows.iter().any(|row| names(program, program_of(row))) {
            return Err(format!("--program '{program}': no run of it in {}", listed(results, "")));
        }
    }
    Ok(ReportRows { rows, superseded, damaged })
}

/// Stored-size distribution over every program: one group per codec, one bar per stored size
/// (% of that codec's stored blocks).
fn size_distribution_chart(rows: &[Row]) -> BarChart<'static> {
    let mut by_codec: BTreeMap<&str, BTreeMap<u64, u64>> = BTreeMap::new();
    for row in rows {
        let entry = by_codec.entry(row.run.label.as_str()).or_default();
        for (&size, &count) in &row.run.stored_sizes {
            *entry.entry(size).or_insert(0) += count;
        }
    }
    let mut all_sizes: Vec<u64> = by_codec.values().flat_map(|m| m.keys().copied()).collect();
    all_sizes.sort_unstable();
    all_sizes.dedup();
    let (_, codecs) = axes(rows);
    let size_series = all_sizes
        .iter()
        .map(|size| {
            let values = codecs
                .iter()
                .map(|codec| {
                    let map = by_codec.get(codec.as_str())?;
                    let total: u64 = map.values().sum();
                    (total > 0).then(|| 100.0 * *map.get(size).unwrap_or(&0) as f64 / total as f64)
                })
                .collect();
            (format!("{size} B"), values)
        })
        .collect();
    BarChart {
        title: "Stored block sizes at MAG granularity",
        y_label: "blocks (%)",
        groups: codecs,
        series: size_series,
        reference: None,
    }
}
