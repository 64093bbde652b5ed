//! Which programs are memory-bound: one set for every report. A benchmark's
//! manifest says it (`BOUND`, measured once from its `none` run at `study` on
//! gpgpu-sim dev: the DRAM data bus busy in at least 0.40 of DRAM cycles), so
//! no codec result and no report's own runs move a program in or out, and a
//! report of another simulator, input or knob classes the same programs as the
//! study's (issue 52: the write-ups used other sets). A program without such a
//! manifest (a command line's, a test's) is classed by its own `none` run by
//! the same measure. The report shows this report's own measurement beside
//! each, and how many of the memory-bound benchmarks it has.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use super::{axes, geomean_table, program_of, ReportOptions};
use crate::bounds;
use crate::gpu::Gpu;
use crate::manifest::{memory_bound_benchmarks, Manifest};
use crate::table::Row;

/// How a program is classed, and what this report's `none` run measured of
/// it (shown in brackets).
struct BoundClass {
    memory: bool,
    measured: String,
}

/// The class of each program of `rows` that has one (a manifest's `BOUND`,
/// or its `none` run's utilisation against the report's threshold).
pub(super) struct Classes(BTreeMap<String, BoundClass>);

impl Classes {
    pub(super) fn of(rows: &[Row], options: &ReportOptions) -> Self {
        let (programs, _) = axes(rows);
        let classes =
            programs.into_iter().filter_map(|p| class_of(rows, &p, options).map(|class| (p, class))).collect();
        Classes(classes)
    }

    /// The runs of the programs classed memory-bound (`memory`) or not;
    /// unclassed programs in neither.
    pub(super) fn rows(&self, rows: &[Row], memory: bool) -> Vec<Row> {
        rows.iter().filter(|r| self.0.get(program_of(r)).is_some_and(|c| c.memory == memory)).cloned().collect()
    }
}

/// How a program's (`suite/name preset[ @simulator]`) benchmark manifest says
/// it is bound on `gpu` (`memory`, `latency`, `compute`), when it names one
/// that says.
fn manifest_bound(repo: Option<&Path>, program: &str, gpu: Gpu) -> Option<String> {
    let benchmark = program.split_whitespace().next().filter(|b| b.contains('/'))?;
    Manifest::find(repo?, benchmark).ok()?.bound_on(gpu).map(str::to_string)
}

/// The GPU a program's runs simulated (one per program: its label names
/// any GPU but the GTX580).
fn gpu_of(rows: &[Row], program: &str) -> Gpu {
    rows.iter().find(|r| program_of(r) == program).map(|r| r.run.gpu).unwrap_or_default()
}

/// The memory-bound line for a program without a manifest's class: the
/// report's (`--memory-bound-util`, a GTX580 utilisation) scaled to `gpu`'s
/// bus ([`bounds::memory_bound_line`]); the report's as given on a GPU
/// whose ceiling is not measured.
fn line_on(gpu: Gpu, options: &ReportOptions) -> f64 {
    bounds::memory_bound_line(gpu, options.memory_bound_utilization).unwrap_or(options.memory_bound_utilization)
}

/// The program's `none` run on `gpu`.
fn none_run<'a>(rows: &'a [Row], program: &str, gpu: Gpu) -> Option<&'a Row> {
    rows.iter().find(|r| r.run.is_baseline() && r.run.gpu == gpu && program_of(r) == program)
}

/// The reports' one rule: the manifest's `BOUND` or `BOUND_<GPU>` when the
/// program's benchmark has one, else its `none` run on `gpu` against the
/// line scaled to that GPU's bus; `None` when neither says.
fn is_memory_bound(rows: &[Row], program: &str, gpu: Gpu, options: &ReportOptions) -> Option<bool> {
    if let Some(bound) = manifest_bound(options.repo.as_deref(), program, gpu) {
        return Some(bound == "memory");
    }
    Some(none_run(rows, program, gpu)?.run.dram_utilization? >= line_on(gpu, options))
}

fn class_of(rows: &[Row], program: &str, options: &ReportOptions) -> Option<BoundClass> {
    let gpu = gpu_of(rows, program);
    let none = none_run(rows, program, gpu);
    let measured = match (none.and_then(|n| n.run.dram_utilization), none.and_then(|n| n.run.saturated_share())) {
        (Some(average), Some(share)) => format!("{average:.2}, saturated {share:.2}"),
        (Some(average), None) => format!("{average:.2}"),
        (None, _) => "-".to_string(),
    };
    Some(BoundClass { memory: is_memory_bound(rows, program, gpu, options)?, measured })
}

/// Whether each row's program is memory-bound on the row's GPU by the
/// reports' rule ([`is_memory_bound`], at the GTX580's 0.40 scaled to that
/// GPU's bus); `None` when neither the manifest nor a `none` run says. What
/// `memzip.load_runs` gives as `memory_bound`, so that a script's geometric
/// means use the reports' one set.
pub fn memory_bound_rows(rows: &[Row], repo: Option<&Path>) -> Vec<Option<bool>> {
    let options = ReportOptions { repo: repo.map(Path::to_path_buf), ..ReportOptions::default() };
    rows.iter().map(|row| is_memory_bound(rows, program_of(row), row.run.gpu, &options)).collect()
}

/// The section: the rule, the classes with this report's measurements, the
/// memory-bound benchmarks the report lacks, and the geometric means of the
/// memory-bound programs and of the others apart.
pub(super) fn section(rows: &[Row], classes: &Classes, options: &ReportOptions) -> String {
    let (programs, _) = axes(rows);
    let (mut memory, mut other, mut unclassed) = (Vec::new(), Vec::new(), Vec::new());
    for program in &programs {
        match classes.0.get(program) {
            Some(class) if class.memory => memory.push(format!("{program} ({})", class.measured)),
            Some(class) => other.push(format!("{program} ({})", class.measured)),
            None => unclassed.push(program.clone()),
        }
    }
    let list = |names: &[String]| if names.is_empty() { "none".to_string() } else { names.join(", ") };
    let mut out = format!(
        "\n## Memory-bound programs and the others\n\nA program is memory-bound when its benchmark's manifest says \
         so (`BOUND` in `benchmarks/<suite>/<name>.env`: its `none` run at the `study` preset on gpgpu-sim dev keeps \
         the DRAM data bus busy in at least 0.40 of DRAM cycles), one set for every report whatever its simulator, \
         input or options; on another GPU, when the manifest's `BOUND_<GPU>` says so (the same measure on that \
         GPU against 0.40 scaled by its stream ceiling); a program without such a manifest, when its own `none` \
         run keeps the bus busy in at least {:.2} of DRAM cycles (so scaled on another GPU). In brackets: this report's `none` run's DRAM bandwidth utilisation and, with a \
         per-kernel record, the share of its DRAM cycles in kernels that saturate the bus. Memory-bound: {}. Not \
         memory-bound: {}. Not classed: {}.\n",
        options.memory_bound_utilization,
        list(&memory),
        list(&other),
        list(&unclassed)
    );
    out.push_str(&missing_benchmarks(rows, &programs, options));
    for (title, want_memory) in [("Memory-bound", true), ("Not memory-bound", false)] {
        let subset = classes.rows(rows, want_memory);
        if !subset.is_empty() {
            let _ = write!(out, "\n### {title}\n\n{}", geomean_table(&subset));
        }
    }
    out
}

/// Which memory-bound benchmarks (by their manifests) the report has no run
/// of, on each GPU it has runs of: its memory-bound means are over a subset
/// of the set.
fn missing_benchmarks(rows: &[Row], programs: &[String], options: &ReportOptions) -> String {
    let Some(repo) = options.repo.as_deref() else {
        return String::new();
    };
    // Each program's benchmark and GPU, looked up once.
    let benchmark_gpus: Vec<(Option<&str>, Gpu)> =
        programs.iter().map(|p| (p.split_whitespace().next(), gpu_of(rows, p))).collect();
    let mut gpus: Vec<Gpu> = benchmark_gpus.iter().map(|&(_, gpu)| gpu).collect();
    gpus.sort();
    gpus.dedup();
    let mut out = String::new();
    for gpu in gpus {
        let all = memory_bound_benchmarks(repo, gpu);
        let has = |b: &str| benchmark_gpus.contains(&(Some(b), gpu));
        let missing: Vec<&str> = all.iter().map(String::as_str).filter(|b| !has(b)).collect();
        if missing.is_empty() || missing.len() == all.len() {
            continue;
        }
        let on = if gpu.is_default() { String::new() } else { format!(" on the {gpu}") };
        let _ = write!(
            out,
            "\nThis report has runs of {} of the {} memory-bound benchmarks{on}; its memory-bound means are over \
             those (without {}).\n",
            all.len() - missing.len(),
            all.len(),
            missing.join(", ")
        );
    }
    out
}
