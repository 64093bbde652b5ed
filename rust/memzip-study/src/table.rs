//! `memzip table`: the comparison table of simulator runs ([`crate::run`]
//! reads each run directory).
//!
//! Speedup, DRAM traffic, energy and energy-delay product are relative to the
//! run of the same program on the same GPU whose stats say codec `none` (runs
//! without a program form one group); a GPU column appears when some run
//! simulated another GPU than the GTX580, the partial-request columns
//! (over-fetched bursts, read-modify-write read bursts, raw fallbacks) when
//! some run paid any. With the simulator's power model on, whole-GPU
//! energy and its EDP are also relative to the `none` run. Beside each
//! speedup: what the DRAM model lets it gain ([`crate::bounds`]: the bus
//! estimate and the activation bound, and the share of that gain the run
//! took), and the
//! kernels the run launched, flagged when they are not its `none` run's (a
//! program whose iteration count follows its timing did other work). When
//! the simulator's log said, what the cores waited on memory: the mean fetch
//! latency and the DRAM-full stalls (what a speedup short of its bus estimate
//! is left waiting on).

use std::path::PathBuf;

use crate::bounds::{activation_bound, bus_estimate, gain_share, GTX580_MAG32_RRD_CYCLES};
use crate::gpu::Gpu;
use crate::run::{load_run, Medium, PartialCounters, Run, RunError};
use crate::text::{csv_line, fmt_opt, Align, Table};

/// A run next to its program's `none` run.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub run: Run,
    /// `none` cycles over this run's cycles.
    pub speedup: Option<f64>,
    /// This run's DRAM bytes as a percentage of the `none` run's.
    pub dram_percent_of_none: Option<f64>,
    /// Total energy as a percentage of the `none` run's.
    pub energy_percent_of_none: Option<f64>,
    /// Energy-delay product as a percentage of the `none` run's.
    pub edp_percent_of_none: Option<f64>,
    /// Whole-GPU total energy as a percentage of the `none` run's.
    pub gpu_energy_percent_of_none: Option<f64>,
    /// Whole-GPU EDP as a percentage of the `none` run's.
    pub gpu_edp_percent_of_none: Option<f64>,
    /// What the run would gain from the data-bus cycles it saved if nothing
    /// else changed (an estimate, which runs exceed: [`crate::bounds`]).
    pub bus_estimate: Option<f64>,
    /// The most the run could gain with its row activations (x tRRD).
    pub activation_bound: Option<f64>,
    /// `(speedup - 1) / (estimate - 1)` for [`Row::estimate`].
    pub gain_share: Option<f64>,
    /// `Some(true)` when the run launched another number of kernels than its
    /// `none` run (its speedup compares different work); `None` when either
    /// count is unknown.
    pub kernel_launches_differ: Option<bool>,
}

impl Row {
    /// The smaller of the bus estimate and the activation bound: an
    /// estimate of the most the DRAM lets the run gain (a bound only where
    /// the activation bound is the smaller).
    pub fn estimate(&self) -> Option<f64> {
        match (self.bus_estimate, self.activation_bound) {
            (Some(bus), Some(activation)) => Some(bus.min(activation)),
            (bus, activation) => bus.or(activation),
        }
    }

    /// Whether the run went faster than its bus estimate (which assumes
    /// nothing but the bus time changed).
    pub fn above_bus_estimate(&self) -> bool {
        matches!((self.speedup, self.bus_estimate), (Some(speedup), Some(estimate)) if speedup > estimate)
    }
}

/// `100 * value / baseline`, when both exist and the baseline is positive.
fn percent_of(value: Option<f64>, baseline: Option<f64>) -> Option<f64> {
    match (value, baseline) {
        (Some(v), Some(b)) if b > 0.0 => Some(100.0 * v / b),
        _ => None,
    }
}

/// Groups runs by program and GPU (first appearance order; within a group
/// the `none` run first, then command-line order) and relates each to that
/// `none` run: a program's runs on another GPU compare with its `none` run
/// there.
pub fn compare(runs: Vec<Run>) -> Result<Vec<Row>, RunError> {
    let mut programs: Vec<(Option<String>, Gpu)> = Vec::new();
    for run in &runs {
        let key = (run.program.clone(), run.gpu);
        if !programs.contains(&key) {
            programs.push(key);
        }
    }
    let mut rows = Vec::with_capacity(runs.len());
    for (program, gpu) in &programs {
        let group: Vec<&Run> = runs.iter().filter(|r| &r.program == program && r.gpu == *gpu).collect();
        let baselines: Vec<&Run> = group.iter().copied().filter(|r| r.is_baseline()).collect();
        if let [first, second, ..] = baselines.as_slice() {
            let on_gpu = if gpu.is_default() { String::new() } else { format!(" on {gpu}") };
            return Err(RunError::inconsistent(format!(
                "{} and {} are both `none` runs of program {}{on_gpu}: give one baseline per program",
                first.dir,
                second.dir,
                program.as_deref().unwrap_or("(unnamed)")
            )));
        }
        let baseline = baselines.first();
        // The baseline leads its group, whatever the command-line order.
        let (mut ordered, others): (Vec<&Run>, Vec<&Run>) = group.into_iter().partition(|r| r.is_baseline());
        ordered.extend(others);
        for run in ordered {
            let speedup = baseline.filter(|_| run.cycles > 0).map(|b| b.cycles as f64 / run.cycles as f64);
            let dram_percent_of_none =
                baseline.filter(|b| b.dram_bytes > 0).map(|b| 100.0 * run.dram_bytes as f64 / b.dram_bytes as f64);
            let total_pj = |r: &Run| r.energy.map(|e| e.total_pj);
            let energy_percent_of_none = percent_of(total_pj(run), baseline.and_then(|b| total_pj(b)));
            let edp_percent_of_none = percent_of(run.edp_js(), baseline.and_then(|b| b.edp_js()));
            let gpu_energy_percent_of_none = percent_of(run.gpu_total_pj(), baseline.and_then(|b| b.gpu_total_pj()));
            let gpu_edp_percent_of_none = percent_of(run.gpu_edp_js(), baseline.and_then(|b| b.gpu_edp_js()));
            let none_dram = baseline.and_then(|b| b.dram);
            let bus = none_dram.zip(run.dram).and_then(|(none, this)| bus_estimate(&none, &this));
            let rrd = run.rrd_cycles.unwrap_or(GTX580_MAG32_RRD_CYCLES);
            let activation = none_dram.zip(run.dram).and_then(|(none, this)| activation_bound(&none, &this, rrd));
            let kernel_launches_differ =
                baseline.and_then(|b| b.kernel_launches).zip(run.kernel_launches).map(|(none, this)| none != this);
            let mut row = Row {
                run: run.clone(),
                speedup,
                dram_percent_of_none,
                energy_percent_of_none,
                edp_percent_of_none,
                gpu_energy_percent_of_none,
                gpu_edp_percent_of_none,
                bus_estimate: bus,
                activation_bound: activation,
                gain_share: None,
                kernel_launches_differ,
            };
            row.gain_share = gain_share(row.speedup, row.estimate());
            rows.push(row);
        }
    }
    Ok(rows)
}

/// Loads every directory and compares; the first bad directory is the error.
pub fn load_rows(dirs: &[PathBuf]) -> Result<Vec<Row>, RunError> {
    let runs = dirs.iter().map(|d| load_run(d)).collect::<Result<Vec<_>, _>>()?;
    compare(runs)
}

/// The rows of the directories that load, and the error of each that does
/// not (a damaged run, [`crate::run::damaged_file`], or not a run): one bad
/// directory of a grid hides none of the others. An error when none loads.
pub fn load_sound_rows(dirs: &[PathBuf]) -> Result<(Vec<Row>, Vec<RunError>), RunError> {
    let (loaded, failed): (Vec<_>, Vec<_>) = dirs.iter().map(|d| load_run(d)).partition(Result::is_ok);
    let mut errors: Vec<RunError> = failed.into_iter().filter_map(Result::err).collect();
    if loaded.is_empty() && !errors.is_empty() {
        return Err(errors.remove(0));
    }
    Ok((compare(loaded.into_iter().filter_map(Result::ok).collect())?, errors))
}

fn verify_cell(run: &Run) -> String {
    if run.verify_checked == 0 && run.verify_failures == 0 {
        "-".to_string()
    } else {
        format!("{}/{}", run.verify_checked, run.verify_failures)
    }
}

fn output_cell(ok: Option<bool>) -> String {
    match ok {
        Some(true) => "ok",
        Some(false) => "FAIL",
        None => "-",
    }
    .to_string()
}

fn percent_cell(value: Option<f64>) -> String {
    fmt_opt(value, 1) + if value.is_some() { "%" } else { "" }
}

/// The kernels a run launched, `!` after the count when its `none` run
/// launched another number.
fn kernels_cell(row: &Row) -> String {
    match (row.run.kernel_launches, row.kernel_launches_differ) {
        (Some(n), Some(true)) => format!("{n}!"),
        (Some(n), _) => n.to_string(),
        (None, _) => "-".to_string(),
    }
}

/// A run's output error (mean relative error, `run.json`) in percent.
fn output_error_cell(run: &Run) -> String {
    run.output_error.map_or_else(|| "-".to_string(), |e| format!("{:.3}%", 100.0 * e.mean_relative_error))
}

/// Whether some run simulated another GPU than the GTX580: the GPU column
/// appears only then (tables of GTX580 runs stay as they were).
fn with_gpu(rows: &[Row]) -> bool {
    rows.iter().any(|r| !r.run.gpu.is_default())
}

/// Whether some run paid for partial requests (over-fetched bursts,
/// read-modify-write reads, raw fallbacks: a sectored L2's, `total.partial`):
/// their columns appear only then.
pub fn with_partial_costs(rows: &[Row]) -> bool {
    rows.iter().any(|r| r.run.partial.is_some_and(|p| p.any_cost()))
}

/// A run's partial-request counter, `-` when its stats predate them.
fn partial_cell(run: &Run, counter: impl Fn(&PartialCounters) -> u64) -> String {
    run.partial.as_ref().map_or_else(|| "-".to_string(), |p| counter(p).to_string())
}

/// One counter of [`PartialCounters`].
pub type PartialCounter = fn(&PartialCounters) -> u64;

/// The partial-request counters of the CSV (and of Python's `load_runs`), by column name.
pub const PARTIAL_COLUMNS: [(&str, PartialCounter); 12] = [
    ("partial_reads", |p| p.reads),
    ("partial_compressed_reads", |p| p.compressed_reads),
    ("overfetch_bursts", |p| p.overfetch_bursts),
    ("partial_writes", |p| p.writes),
    ("rmw_reads", |p| p.rmw_reads),
    ("rmw_read_bursts", |p| p.rmw_read_bursts),
    ("rmw_read_bytes", |p| p.rmw_read_bytes),
    ("raw_fallbacks", |p| p.raw_fallbacks),
    ("refetches", |p| p.refetches),
    ("refetch_bursts", |p| p.refetch_bursts),
    ("merged_reads", |p| p.merged_reads),
    ("filled_sectors", |p| p.filled_sectors),
];

/// Whether some run has the memory-wait counters (runs committed before
/// they were recorded have none): their columns appear only then.
fn with_memory_wait(rows: &[Row]) -> bool {
    rows.iter().any(|r| {
        let wait = r.run.memory_wait;
        wait.fetch_latency_cycles.is_some() || wait.dram_full_stalls.is_some()
    })
}

/// Whether some run has the reply network's counters (recorded since issue
/// 52): their columns appear only then.
fn with_reply_network(rows: &[Row]) -> bool {
    rows.iter().any(|r| r.run.memory_wait.reply_latency_cycles.is_some() || r.run.memory_wait.reply_stalls.is_some())
}

/// A count's cell: the number, or `missing` without one.
fn count_cell(count: Option<u64>, missing: &str) -> String {
    count.map_or_else(|| missing.to_string(), |n| n.to_string())
}

/// The table's cells, shared by the text and markdown forms. The memory-wait
/// columns appear when some run has them, the whole-GPU columns when some run
/// had the simulator's power model on, the output error when some run's
/// benchmark marks approximable data.
fn cell_table(rows: &[Row]) -> Table {
    let with_gpu = with_gpu(rows);
    let with_partial = with_partial_costs(rows);
    let with_memory_wait = with_memory_wait(rows);
    let with_reply_network = with_reply_network(rows);
    let with_gpu_power = rows.iter().any(|r| r.run.gpu_power.is_some());
    let with_output_error = rows.iter().any(|r| r.run.output_error.is_some());
    let medium = medium_name(rows);
    let (bytes, vs_none, util) = (format!("{medium} bytes"), format!("{medium} vs none"), format!("{medium} util"));
    let mut columns = vec![
        ("program", Align::Left),
        ("run", Align::Left),
        ("cycles", Align::Right),
        ("speedup", Align::Right),
        ("bus estimate", Align::Right),
        ("act bound", Align::Right),
        ("of estimate", Align::Right),
        ("kernels", Align::Right),
        (bytes.as_str(), Align::Right),
        (vs_none.as_str(), Align::Right),
        (util.as_str(), Align::Right),
        ("raw CR", Align::Right),
        ("eff CR", Align::Right),
        ("MDC hit", Align::Right),
        ("energy uJ", Align::Right),
        ("energy vs none", Align::Right),
        ("EDP vs none", Align::Right),
        ("verify chk/fail", Align::Right),
        ("output", Align::Left),
        ("wall s", Align::Right),
    ];
    if with_gpu {
        columns.insert(1, ("GPU", Align::Left));
    }
    if with_partial {
        columns.extend([
            ("overfetch bursts", Align::Right),
            ("RMW read bursts", Align::Right),
            ("raw fallbacks", Align::Right),
        ]);
    }
    if with_memory_wait {
        columns.extend([("fetch cyc", Align::Right), ("DRAM-full stalls", Align::Right)]);
    }
    if with_reply_network {
        columns.extend([("reply cyc", Align::Right), ("reply stalls", Align::Right)]);
    }
    if with_gpu_power {
        columns.extend([("GPU uJ", Align::Right), ("GPU vs none", Align::Right), ("GPU EDP vs none", Align::Right)]);
    }
    if with_output_error {
        columns.push(("output error", Align::Right));
    }
    let mut table = Table::new(&columns);
    for row in rows {
        let run = &row.run;
        let mut cells = vec![
            run.program.clone().unwrap_or_else(|| "-".to_string()),
            run.label.clone(),
            run.cycles.to_string(),
            fmt_opt(row.speedup, 3),
            fmt_opt(row.bus_estimate, 3),
            fmt_opt(row.activation_bound, 3),
            percent_cell(row.gain_share.map(|share| 100.0 * share)),
            kernels_cell(row),
            run.dram_bytes.to_string(),
            fmt_opt(row.dram_percent_of_none, 1) + if row.dram_percent_of_none.is_some() { "%" } else { "" },
            fmt_opt(run.dram_utilization, 3),
            fmt_opt(run.raw_cr, 3),
            fmt_opt(run.effective_cr, 3),
            fmt_opt(run.mdc_hit_rate.map(|h| 100.0 * h), 1) + if run.mdc_hit_rate.is_some() { "%" } else { "" },
            fmt_opt(run.energy.map(|e| e.total_pj / 1e6), 3),
            percent_cell(row.energy_percent_of_none),
            percent_cell(row.edp_percent_of_none),
            verify_cell(run),
            output_cell(run.output_ok),
            fmt_opt(run.wall_seconds, 1),
        ];
        if with_gpu {
            cells.insert(1, run.gpu.name().to_string());
        }
        if with_partial {
            cells.extend([
                partial_cell(run, |p| p.overfetch_bursts),
                partial_cell(run, |p| p.rmw_read_bursts),
                partial_cell(run, |p| p.raw_fallbacks),
            ]);
        }
        let wait = run.memory_wait;
        if with_memory_wait {
            cells.extend([count_cell(wait.fetch_latency_cycles, "-"), count_cell(wait.dram_full_stalls, "-")]);
        }
        if with_reply_network {
            cells.extend([count_cell(wait.reply_latency_cycles, "-"), count_cell(wait.reply_stalls, "-")]);
        }
        if with_gpu_power {
            cells.extend([
                fmt_opt(run.gpu_total_pj().map(|pj| pj / 1e6), 3),
                percent_cell(row.gpu_energy_percent_of_none),
                percent_cell(row.gpu_edp_percent_of_none),
            ]);
        }
        if with_output_error {
            cells.push(output_error_cell(run));
        }
        table.push(cells);
    }
    table
}

/// What the traffic columns count: DRAM (gpgpu-sim runs), the fabric
/// between GPUs (multi-GPU runs), or both when the table mixes them.
fn medium_name(rows: &[Row]) -> &'static str {
    let fabric = rows.iter().filter(|r| r.run.medium == Medium::Fabric).count();
    match fabric {
        0 => Medium::Dram.name(),
        n if n == rows.len() => Medium::Fabric.name(),
        _ => "DRAM/fabric",
    }
}

/// The aligned text table.
pub fn render_text(rows: &[Row]) -> String {
    cell_table(rows).render()
}

/// The same cells as a markdown table.
pub fn render_markdown(rows: &[Row]) -> String {
    cell_table(rows).render_markdown()
}

/// The same table as CSV, numbers at full precision, missing values empty.
pub fn render_csv(rows: &[Row]) -> String {
    let number = |v: Option<f64>| v.filter(|v| v.is_finite()).map(|v| v.to_string()).unwrap_or_default();
    let header = [
        "program",
        "run",
        "dir",
        "cycles",
        "speedup",
        "bus_estimate",
        "activation_bound",
        "gain_share",
        "kernel_launches",
        "kernel_launches_differ",
        "dram_bytes",
        "dram_percent_of_none",
        "dram_utilization",
        "raw_cr",
        "effective_cr",
        "mdc_hit_rate",
        "verify_checked",
        "verify_failures",
        "output_ok",
        "wall_seconds",
        "energy_pj",
        "dram_energy_pj",
        "codec_energy_pj",
        "metadata_energy_pj",
        "energy_percent_of_none",
        "edp_js",
        "edp_percent_of_none",
        "gpu_energy_pj",
        "gpu_dram_energy_pj",
        "gpu_total_energy_pj",
        "gpu_total_energy_percent_of_none",
        "gpu_edp_js",
        "gpu_edp_percent_of_none",
        "timing_model",
    ];
    // Multi-GPU runs count fabric bytes in dram_bytes: a last column says
    // which, only when some run is one (older tables stay as they were).
    let with_medium = rows.iter().any(|r| r.run.medium != Medium::Dram);
    // The output error and the memory-wait counters likewise, when some run has them.
    let with_output_error = rows.iter().any(|r| r.run.output_error.is_some());
    let with_memory_wait = with_memory_wait(rows);
    let with_reply_network = with_reply_network(rows);
    let mut header: Vec<String> = header.map(String::from).to_vec();
    if with_medium {
        header.push("medium".to_string());
    }
    if with_memory_wait {
        header.extend(["fetch_latency_cycles", "dram_full_stalls"].map(String::from));
    }
    if with_reply_network {
        header.extend(["reply_latency_cycles", "reply_stalls"].map(String::from));
    }
    if with_output_error {
        header.extend(["output_mean_relative_error", "output_max_relative_error"].map(String::from));
    }
    let with_gpu = with_gpu(rows);
    if with_gpu {
        header.push("gpu".to_string());
    }
    let with_partial = with_partial_costs(rows);
    if with_partial {
        header.extend(PARTIAL_COLUMNS.map(|(name, _)| name.to_string()));
    }
    let mut out = csv_line(&header);
    for row in rows {
        let run = &row.run;
        let mut cells = vec![
            run.program.clone().unwrap_or_default(),
            run.label.clone(),
            run.dir.clone(),
            run.cycles.to_string(),
            number(row.speedup),
            number(row.bus_estimate),
            number(row.activation_bound),
            number(row.gain_share),
            run.kernel_launches.map(|n| n.to_string()).unwrap_or_default(),
            row.kernel_launches_differ.map(|differ| differ.to_string()).unwrap_or_default(),
            run.dram_bytes.to_string(),
            number(row.dram_percent_of_none),
            number(run.dram_utilization),
            number(run.raw_cr),
            number(run.effective_cr),
            number(run.mdc_hit_rate),
            run.verify_checked.to_string(),
            run.verify_failures.to_string(),
            run.output_ok.map(|ok| ok.to_string()).unwrap_or_default(),
            number(run.wall_seconds),
            number(run.energy.map(|e| e.total_pj)),
            number(run.energy.map(|e| e.dram_pj)),
            number(run.energy.map(|e| e.codec_pj)),
            number(run.energy.map(|e| e.metadata_pj)),
            number(row.energy_percent_of_none),
            number(run.edp_js()),
            number(row.edp_percent_of_none),
            number(run.gpu_power.as_ref().map(|g| g.gpu_pj)),
            number(run.gpu_power.as_ref().map(|g| g.dram_pj)),
            number(run.gpu_total_pj()),
            number(row.gpu_energy_percent_of_none),
            number(run.gpu_edp_js()),
            number(row.gpu_edp_percent_of_none),
            run.timing_model.map(|model| model.to_string()).unwrap_or_default(),
        ];
        if with_medium {
            cells.push(run.medium.name().to_string());
        }
        let wait = run.memory_wait;
        if with_memory_wait {
            cells.extend([count_cell(wait.fetch_latency_cycles, ""), count_cell(wait.dram_full_stalls, "")]);
        }
        if with_reply_network {
            cells.extend([count_cell(wait.reply_latency_cycles, ""), count_cell(wait.reply_stalls, "")]);
        }
        if with_output_error {
            cells.push(number(run.output_error.map(|e| e.mean_relative_error)));
            cells.push(number(run.output_error.map(|e| e.max_relative_error)));
        }
        if with_gpu {
            cells.push(run.gpu.name().to_string());
        }
        if with_partial {
            cells.extend(
                PARTIAL_COLUMNS
                    .map(|(_, counter)| run.partial.as_ref().map(|p| counter(p).to_string()).unwrap_or_default()),
            );
        }
        out.push_str(&csv_line(&cells));
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::run::RunEnergy;
    use crate::sim_log::MemoryWait;

    fn run(program: &str, codec: &str, cycles: u64, dram_bytes: u64) -> Run {
        Run {
            dir: format!("{program}/{codec}"),
            program: Some(program.to_string()),
            label: codec.to_string(),
            stats_codec: codec.to_string(),
            cycles,
            dram_bytes,
            raw_cr: None,
            effective_cr: None,
            mdc_hit_rate: None,
            dram_utilization: None,
            verify_checked: 0,
            verify_failures: 0,
            output_ok: None,
            wall_seconds: None,
            timing_model: None,
            simulator_sources: None,
            simulator: None,
            gpu: Default::default(),
            energy: None,
            gpu_power: None,
            stored_sizes: BTreeMap::new(),
            output_error: None,
            model_change: None,
            medium: Medium::Dram,
            dram: None,
            partial: None,
            kernel_launches: None,
            kernel_dram: None,
            rrd_cycles: None,
            memory_wait: Default::default(),
        }
    }

    #[test]
    fn relates_runs_to_their_programs_none_run() {
        let rows = compare(vec![
            run("a", "bdi", 800, 600),
            run("b", "none", 100, 10),
            run("a", "none", 1000, 1000),
            run("c", "fpc", 5, 5),
        ])
        .unwrap();
        let summary: Vec<(&str, Option<f64>, Option<f64>)> =
            rows.iter().map(|r| (r.run.dir.as_str(), r.speedup, r.dram_percent_of_none)).collect();
        assert_eq!(
            summary,
            vec![
                ("a/none", Some(1.0), Some(100.0)),
                ("a/bdi", Some(1.25), Some(60.0)),
                ("b/none", Some(1.0), Some(100.0)),
                ("c/fpc", None, None),
            ]
        );
    }

    #[test]
    fn energy_and_edp_relate_to_the_none_run() {
        let with_energy = |program: &str, codec: &str, cycles: u64, total_pj: f64| Run {
            energy: Some(RunEnergy {
                total_pj,
                dram_pj: total_pj,
                codec_pj: 0.0,
                metadata_pj: 0.0,
                core_hz: Some(1e9),
            }),
            ..run(program, codec, cycles, 1)
        };
        let rows = compare(vec![
            with_energy("a", "none", 1000, 2e6),
            with_energy("a", "mag_bdi", 800, 1.5e6),
            run("a", "fpc", 1000, 1),
        ])
        .unwrap();
        assert_eq!(rows[0].run.edp_js(), Some(2e6 * 1e-12 * 1e-6));
        assert_eq!((rows[0].energy_percent_of_none, rows[0].edp_percent_of_none), (Some(100.0), Some(100.0)));
        assert_eq!(rows[1].energy_percent_of_none, Some(75.0));
        assert!((rows[1].edp_percent_of_none.unwrap() - 60.0).abs() < 1e-9, "75% energy x 80% time");
        assert_eq!(
            (rows[2].energy_percent_of_none, rows[2].edp_percent_of_none),
            (None, None),
            "no energy in its stats"
        );
    }

    #[test]
    fn each_speedup_has_its_dram_bounds_and_a_kernel_count_check() {
        use crate::bounds::DramCounters;
        let with_dram = |codec: &str, cycles: u64, busy_cycles: u64, activations: u64, kernels: u64| Run {
            dram: Some(DramCounters { cycles: 10 * cycles, busy_cycles, activations, commands: busy_cycles / 2 }),
            kernel_launches: Some(kernels),
            ..run("a", codec, cycles, 1)
        };
        // none: bus busy 8000 of 10000 DRAM cycles; bdi halves the bus cycles
        // (bus estimate 1 / 0.6) and opens 500 rows (x 12 = 6000: activation
        // bound 10000 / 6000, the smaller); fpc launched one kernel more.
        let rows = compare(vec![
            with_dram("none", 1000, 8000, 600, 23),
            with_dram("bdi", 800, 4000, 500, 23),
            with_dram("fpc", 900, 8000, 600, 24),
        ])
        .unwrap();
        let bdi = &rows[1];
        assert!((bdi.bus_estimate.unwrap() - 1.0 / 0.6).abs() < 1e-12);
        assert!((bdi.activation_bound.unwrap() - 10000.0 / 6000.0).abs() < 1e-12);
        assert_eq!(bdi.estimate(), bdi.activation_bound, "the smaller of the two");
        assert!((bdi.gain_share.unwrap() - 0.25 / (10000.0 / 6000.0 - 1.0)).abs() < 1e-12);
        assert_eq!((bdi.kernel_launches_differ, rows[2].kernel_launches_differ), (Some(false), Some(true)));
        let text = render_text(&rows);
        assert!(text.contains(" 24!"), "{text}");
        // Without DRAM counters (older stats) there is no bound and no share.
        let rows = compare(vec![run("b", "none", 100, 10), run("b", "bdi", 90, 5)]).unwrap();
        assert_eq!((rows[1].estimate(), rows[1].gain_share, rows[1].kernel_launches_differ), (None, None, None));
    }

    #[test]
    fn the_output_error_column_appears_with_a_lossy_run() {
        let plain = compare(vec![run("a", "none", 1000, 1000), run("a", "bdi", 900, 800)]).unwrap();
        assert!(!render_text(&plain).contains("output error"));
        assert!(!render_csv(&plain).contains("output_mean_relative_error"));
        let error = crate::output_error::OutputError {
            values: 10,
            differing: 3,
            mean_relative_error: 0.0123,
            max_relative_error: 0.5,
        };
        let lossy = Run { output_error: Some(error), output_ok: Some(false), ..run("a", "slc", 800, 500) };
        let rows = compare(vec![run("a", "none", 1000, 1000), lossy]).unwrap();
        let text = render_text(&rows);
        assert!(text.contains("output error") && text.contains("1.230%") && text.contains("FAIL"), "{text}");
        let csv = render_csv(&rows);
        assert!(csv.lines().next().unwrap().ends_with(",output_mean_relative_error,output_max_relative_error"));
        assert!(csv.lines().nth(2).unwrap().ends_with(",0.0123,0.5"), "{csv}");
    }

    #[test]
    fn the_memory_wait_columns_appear_when_a_run_has_them() {
        let plain = compare(vec![run("a", "none", 1000, 1000), run("a", "bdi", 900, 800)]).unwrap();
        assert!(!render_text(&plain).contains("fetch cyc"));
        assert!(!render_csv(&plain).contains("fetch_latency_cycles"));
        let waited = |codec: &str, latency: u64, stalls: u64| Run {
            memory_wait: MemoryWait {
                fetch_latency_cycles: Some(latency),
                dram_full_stalls: Some(stalls),
                ..Default::default()
            },
            ..run("a", codec, 1000, 1000)
        };
        // scan on its compaction input under none and MAG-aware BDI (dev's sim.log).
        let rows = compare(vec![waited("none", 1212, 398004), waited("mag_bdi", 472, 7428), run("a", "fpc", 990, 990)])
            .unwrap();
        let text = render_text(&rows);
        let header = text.lines().next().unwrap();
        assert!(header.contains("fetch cyc") && header.contains("DRAM-full stalls"), "{text}");
        let last_two = |line: usize| -> Vec<String> {
            let cells: Vec<String> = text.lines().nth(line).unwrap().split_whitespace().map(String::from).collect();
            cells[cells.len() - 2..].to_vec()
        };
        assert_eq!(last_two(1), ["1212", "398004"], "{text}");
        assert_eq!(last_two(3), ["-", "-"], "a run without them: {text}");
        let csv = render_csv(&rows);
        assert!(csv.lines().next().unwrap().ends_with(",timing_model,fetch_latency_cycles,dram_full_stalls"), "{csv}");
        assert!(csv.lines().nth(2).unwrap().ends_with(",472,7428"), "{csv}");
        assert!(csv.lines().nth(3).unwrap().ends_with(",,"), "{csv}");
    }

    #[test]
    fn each_gpu_has_its_own_baseline_and_the_gpu_column_appears_with_another_gpu() {
        let on = |gpu: Gpu, codec: &str, cycles: u64| Run { gpu, ..run("a", codec, cycles, cycles) };
        let gtx580 = compare(vec![run("a", "none", 1000, 1000), run("a", "bdi", 800, 800)]).unwrap();
        assert!(!render_text(&gtx580).contains("GPU"), "GTX580 tables as before");
        assert!(!render_csv(&gtx580).lines().next().unwrap().ends_with(",gpu"));
        let rows = compare(vec![
            on(Gpu::Gtx580, "none", 1000),
            on(Gpu::Qv100, "bdi", 900),
            on(Gpu::Gtx580, "bdi", 800),
            on(Gpu::Qv100, "none", 450),
        ])
        .unwrap();
        let speedups: Vec<(Gpu, &str, Option<f64>)> =
            rows.iter().map(|r| (r.run.gpu, r.run.label.as_str(), r.speedup)).collect();
        assert_eq!(
            speedups,
            [
                (Gpu::Gtx580, "none", Some(1.0)),
                (Gpu::Gtx580, "bdi", Some(1.25)),
                (Gpu::Qv100, "none", Some(1.0)),
                (Gpu::Qv100, "bdi", Some(0.5)),
            ],
            "each against its own GPU's none run"
        );
        let text = render_text(&rows);
        assert!(text.lines().next().unwrap().starts_with("program  GPU     run "), "{text}");
        assert!(text.lines().nth(4).unwrap().starts_with("a        qv100   bdi "), "{text}");
        let csv = render_csv(&rows);
        assert!(csv.lines().next().unwrap().ends_with(",gpu") && csv.lines().nth(4).unwrap().ends_with(",qv100"));
        let err = compare(vec![on(Gpu::Qv100, "none", 1), on(Gpu::Qv100, "none", 2)]).unwrap_err().to_string();
        assert!(err.contains("both `none` runs of program a on qv100"), "{err}");
    }

    #[test]
    fn the_partial_request_columns_appear_when_a_run_paid_for_them() {
        let with = |codec: &str, cycles: u64, partial: PartialCounters| Run {
            partial: Some(partial),
            ..run("a", codec, cycles, cycles)
        };
        let free = PartialCounters { reads: 10, writes: 4, ..PartialCounters::default() };
        let plain = compare(vec![with("none", 1000, free), run("a", "bdi", 900, 800)]).unwrap();
        assert!(!render_text(&plain).contains("overfetch"), "counters without a cost: no columns");
        assert!(!render_csv(&plain).contains("overfetch"));
        let paid = PartialCounters {
            reads: 10,
            compressed_reads: 6,
            overfetch_bursts: 7,
            writes: 4,
            rmw_reads: 3,
            rmw_read_bursts: 9,
            rmw_read_bytes: 288,
            raw_fallbacks: 1,
            refetches: 2,
            refetch_bursts: 5,
            merged_reads: 11,
            filled_sectors: 12,
        };
        let rows = compare(vec![with("none", 1000, free), with("bdi", 1100, paid), run("a", "fpc", 900, 900)]).unwrap();
        let text = render_text(&rows);
        assert!(text.lines().next().unwrap().ends_with("overfetch bursts  RMW read bursts  raw fallbacks"), "{text}");
        let last_three = |line: usize| -> Vec<String> {
            let cells: Vec<String> = text.lines().nth(line).unwrap().split_whitespace().map(String::from).collect();
            cells[cells.len() - 3..].to_vec()
        };
        assert_eq!(
            (last_three(1), last_three(2), last_three(3)),
            (
                vec!["0".to_string(), "0".into(), "0".into()],
                vec!["7".to_string(), "9".into(), "1".into()],
                vec!["-".to_string(), "-".into(), "-".into()]
            ),
            "{text}"
        );
        let csv = render_csv(&rows);
        assert!(
            csv.lines().next().unwrap().ends_with(
                ",partial_reads,partial_compressed_reads,overfetch_bursts,partial_writes,rmw_reads,rmw_read_bursts,\
             rmw_read_bytes,raw_fallbacks,refetches,refetch_bursts,merged_reads,filled_sectors"
            ),
            "{csv}"
        );
        assert!(csv.lines().nth(2).unwrap().ends_with(",10,6,7,4,3,9,288,1,2,5,11,12"), "{csv}");
        assert!(csv.lines().nth(3).unwrap().ends_with(",,,,,,,,,,,,"), "{csv}");
    }

    #[test]
    fn the_reply_network_columns_appear_when_a_run_has_them() {
        let plain = compare(vec![run("a", "none", 1000, 1000), run("a", "bdi", 900, 800)]).unwrap();
        assert!(!render_text(&plain).contains("reply cyc"));
        let replied = |codec: &str, latency: u64, stalls: u64| Run {
            memory_wait: MemoryWait {
                reply_latency_cycles: Some(latency),
                reply_stalls: Some(stalls),
                ..Default::default()
            },
            ..run("a", codec, 1000, 1000)
        };
        // fastWalshTransform on `walsh` under none and C-Pack+Z (reproduction.md).
        let rows = compare(vec![replied("none", 11, 22_427), replied("cpack_z", 23, 87_495)]).unwrap();
        let text = render_text(&rows);
        let header = text.lines().next().unwrap();
        assert!(header.ends_with("reply cyc  reply stalls") && !header.contains("fetch cyc"), "{text}");
        assert!(text.lines().nth(2).unwrap().ends_with(" 23         87495"), "{text}");
        let csv = render_csv(&rows);
        assert!(csv.lines().next().unwrap().ends_with(",timing_model,reply_latency_cycles,reply_stalls"), "{csv}");
        assert!(csv.lines().nth(1).unwrap().ends_with(",11,22427"), "{csv}");
    }

    #[test]
    fn two_baselines_for_one_program_is_an_error() {
        let err = compare(vec![run("a", "none", 1, 1), run("a", "none", 2, 2)]).unwrap_err().to_string();
        assert!(err.contains("both `none` runs of program a"), "{err}");
    }
}
