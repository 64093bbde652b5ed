//! `memzip table`: the comparison table of simulator runs.
//!
//! A run directory holds
//! - `stats.json`, written by the simulator's `-memzip_stats_json`:
//!   `{"total": <McStats JSON>, "controllers": [...]}` (see
//!   `memzip::mc::stats`); only `total` is read;
//! - `sim.log`, the simulator's stdout; the last `gpu_tot_sim_cycle = N`
//!   line is the run's cycle count (gpgpu-sim prints the running total after
//!   every kernel);
//! - optionally `run.json`, `{"codec", "program", "wall_seconds",
//!   "output_ok"}` from the runner script, every field optional.
//!
//! Speedup, DRAM traffic, energy and energy-delay product are relative to the
//! run of the same program whose stats say codec `none` (runs without a
//! program form one group). Energy is `total.energy` (memzip's model: DRAM,
//! codec and metadata cache, `memzip::mc::energy`), absent in stats of
//! older builds; EDP is that energy times `cycles / total.energy.core_hz`.
//! With the simulator's power model on (`scripts/sim-run.sh --power`, see
//! [`crate::power`]) the run also has whole-GPU energy: the power model's
//! energy plus memzip's codec and metadata-cache energy ("GPU total"), and
//! its EDP, each also relative to the `none` run.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::power::{self, GpuEnergy};
use crate::sweep::RunRecord;
use crate::text::{csv_line, fmt_opt, Align, Table};

/// What the table shows of one run directory.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    pub dir: String,
    /// From `run.json`; `None` groups the run with the others that have none.
    pub program: Option<String>,
    /// The label shown: `run.json`'s codec, else the stats' codec, then the
    /// sweep's variant in brackets when its `sweep.json` names one
    /// (`mag_bdi [mdc4k]`: runs of one codec with other controller options).
    pub label: String,
    /// The codec the simulator reports in `stats.json`.
    pub stats_codec: String,
    pub cycles: u64,
    /// Kernel DRAM bytes, metadata traffic included.
    pub dram_bytes: u64,
    pub raw_cr: Option<f64>,
    pub effective_cr: Option<f64>,
    pub mdc_hit_rate: Option<f64>,
    /// DRAM data-bus busy cycles over DRAM cycles, averaged over channels
    /// (the simulator's own counters; absent in stats of older builds).
    pub dram_utilization: Option<f64>,
    pub verify_checked: u64,
    pub verify_failures: u64,
    pub output_ok: Option<bool>,
    pub wall_seconds: Option<f64>,
    /// The timing model the run was simulated under, from its `sweep.json`
    /// ([`crate::sweep::TIMING_MODEL`]); `None` for a run made outside a sweep.
    pub timing_model: Option<u32>,
    /// The hash of the sources its simulator was built from (`run.json`'s
    /// `simulator_sources`, scripts/lib.sh); `None` for runs before it was recorded.
    pub simulator_sources: Option<String>,
    /// Energy by component, when the stats carry it.
    pub energy: Option<RunEnergy>,
    /// Whole-GPU energy from the simulator's power model, when it was on.
    pub gpu_power: Option<GpuEnergy>,
    /// Blocks per stored size in bytes at the MAG, write-backs and copies
    /// together (`total.{writes,memcpy}.mag_sizes`); empty in stats without it.
    pub stored_sizes: BTreeMap<u64, u64>,
}

/// A run's energy (pJ) by component, from `total.energy` of `stats.json`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunEnergy {
    pub total_pj: f64,
    pub dram_pj: f64,
    pub codec_pj: f64,
    pub metadata_pj: f64,
    /// Core clock (Hz) the cycles count; `None` when unknown.
    pub core_hz: Option<f64>,
}

impl Run {
    /// Energy-delay product in joule-seconds: total energy x simulated time.
    pub fn edp_js(&self) -> Option<f64> {
        let energy = self.energy?;
        let hz = energy.core_hz.filter(|hz| *hz > 0.0)?;
        Some(energy.total_pj * 1e-12 * self.cycles as f64 / hz)
    }

    /// Whole-GPU energy (pJ): the power model's, plus memzip's codec and
    /// metadata-cache energy (not in the simulator's model; memzip's DRAM
    /// energy is, as the power model counts the simulator's DRAM bursts).
    pub fn gpu_total_pj(&self) -> Option<f64> {
        let gpu = self.gpu_power.as_ref()?;
        let memzip_pj = self.energy.map_or(0.0, |e| e.codec_pj + e.metadata_pj);
        Some(gpu.gpu_pj + memzip_pj)
    }

    /// Whole-GPU energy-delay product in joule-seconds.
    pub fn gpu_edp_js(&self) -> Option<f64> {
        let hz = self.energy?.core_hz.filter(|hz| *hz > 0.0)?;
        Some(self.gpu_total_pj()? * 1e-12 * self.cycles as f64 / hz)
    }

    pub(crate) fn is_baseline(&self) -> bool {
        self.stats_codec == "none"
    }
}

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
}

fn read_json(path: &Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: not valid JSON: {e}", path.display()))
}

/// The value at a `.`-separated key path, or an error naming file and key.
fn field<'a>(value: &'a Value, key: &str, file: &Path) -> Result<&'a Value, String> {
    key.split('.')
        .try_fold(value, |v, part| v.get(part))
        .ok_or_else(|| format!("{}: missing field `{key}`", file.display()))
}

fn u64_field(value: &Value, key: &str, file: &Path) -> Result<u64, String> {
    field(value, key, file)?.as_u64().ok_or_else(|| not_a_count(key, file))
}

fn not_a_count(key: &str, file: &Path) -> String {
    format!("{}: field `{key}` is not a non-negative integer", file.display())
}

/// A ratio the stats write as a number or `null` (no data).
fn ratio_field(value: &Value, key: &str, file: &Path) -> Result<Option<f64>, String> {
    match field(value, key, file)? {
        Value::Null => Ok(None),
        v => v.as_f64().map(Some).ok_or_else(|| format!("{}: field `{key}` is not a number or null", file.display())),
    }
}

fn optional<'a, T>(
    value: &'a Value,
    key: &str,
    file: &Path,
    convert: impl Fn(&'a Value) -> Option<T>,
    expected: &str,
) -> Result<Option<T>, String> {
    match value.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => convert(v).map(Some).ok_or_else(|| format!("{}: field `{key}` is not {expected}", file.display())),
    }
}

/// A value the simulator's log of a run gives: from `sim.log` when the run
/// directory has it, else `run.json`'s `key` (scripts/collect-runs.sh keeps it
/// there for a run committed without its large log); `what` names the value
/// in the error.
pub(crate) fn from_log_or_run_json<T>(
    dir: &Path,
    key: &str,
    what: &str,
    from_log: impl FnOnce(&Path) -> Result<T, String>,
    from_json: impl FnOnce(&Value) -> Option<T>,
) -> Result<T, String> {
    let log = dir.join("sim.log");
    let run_path = dir.join("run.json");
    if log.exists() || !run_path.exists() {
        return from_log(&log);
    }
    from_json(&read_json(&run_path)?[key]).ok_or_else(|| {
        format!("{}: no sim.log next to it and no \"{key}\" ({what}) in {}", dir.display(), run_path.display())
    })
}

/// The last `gpu_tot_sim_cycle = N` of a simulator log.
pub fn last_total_cycles(log: &Path) -> Result<u64, String> {
    let file = File::open(log).map_err(|e| format!("{}: cannot read: {e}", log.display()))?;
    let mut last = None;
    // Split on bytes: simulator logs may hold non-UTF-8 program output.
    for line in BufReader::new(file).split(b'\n') {
        let line = line.map_err(|e| format!("{}: read error: {e}", log.display()))?;
        let line = String::from_utf8_lossy(&line);
        let Some(rest) = line.trim_start().strip_prefix("gpu_tot_sim_cycle") else {
            continue;
        };
        let Some(number) = rest.trim_start().strip_prefix('=') else {
            continue;
        };
        let number = number.trim();
        last = Some(
            number
                .parse::<u64>()
                .map_err(|_| format!("{}: `gpu_tot_sim_cycle = {number}` is not a cycle count", log.display()))?,
        );
    }
    last.ok_or_else(|| format!("{}: no `gpu_tot_sim_cycle = N` line (did the simulation finish?)", log.display()))
}

/// What the runner script's `run.json` says of a run; every field is
/// optional, as is the file.
#[derive(Default)]
struct RunJson {
    program: Option<String>,
    codec: Option<String>,
    output_ok: Option<bool>,
    wall_seconds: Option<f64>,
    simulator_sources: Option<String>,
}

impl RunJson {
    fn read(dir: &Path) -> Result<Self, String> {
        let path = dir.join("run.json");
        if !path.exists() {
            return Ok(Self::default());
        }
        let run = read_json(&path)?;
        if !run.is_object() {
            return Err(format!("{}: not a JSON object", path.display()));
        }
        let text = |v: &Value| v.as_str().map(str::to_string);
        Ok(Self {
            program: optional(&run, "program", &path, text, "a string")?,
            codec: optional(&run, "codec", &path, text, "a string")?,
            output_ok: optional(&run, "output_ok", &path, Value::as_bool, "true or false")?,
            wall_seconds: optional(&run, "wall_seconds", &path, Value::as_f64, "a number")?,
            simulator_sources: optional(&run, "simulator_sources", &path, text, "a string")?,
        })
    }
}

/// Reads one run directory.
pub fn load_run(dir: &Path) -> Result<Run, String> {
    if !dir.is_dir() {
        return Err(format!("{}: not a run directory", dir.display()));
    }
    let stats_path = dir.join("stats.json");
    let stats = read_json(&stats_path)?;
    let total = field(&stats, "total", &stats_path)?;
    if !total.is_object() {
        return Err(format!("{}: field `total` is not an object", stats_path.display()));
    }
    let stats_codec = field(&stats, "total.codec", &stats_path)?
        .as_str()
        .ok_or_else(|| format!("{}: field `total.codec` is not a string", stats_path.display()))?
        .to_string();
    let dram_bytes = u64_field(&stats, "total.dram_bytes", &stats_path)?;
    let raw_cr = ratio_field(&stats, "total.raw_compression_ratio", &stats_path)?;
    let effective_cr = ratio_field(&stats, "total.effective_compression_ratio", &stats_path)?;
    let mdc_hit_rate = ratio_field(&stats, "total.metadata_cache.hit_rate", &stats_path)?;
    let dram_utilization = optional(total, "dram_bandwidth_utilization", &stats_path, Value::as_f64, "a number")?;
    let verify_checked = u64_field(&stats, "total.verify.checked", &stats_path)?;
    let verify_failures = u64_field(&stats, "total.verify.failures", &stats_path)?;
    let stored_sizes = stored_sizes(total, &stats_path)?;

    let cycles = from_log_or_run_json(dir, "cycles", "a count", last_total_cycles, Value::as_u64)?;
    let energy = run_energy(&stats, &stats_path)?;
    let gpu_power = power::load(dir, energy.and_then(|e| e.core_hz))?;

    let RunJson { program, codec, output_ok, wall_seconds, simulator_sources } = RunJson::read(dir)?;
    let mut label = codec.unwrap_or_else(|| stats_codec.clone());
    let record = RunRecord::read(dir)?;
    if let Some(variant) = record.as_ref().and_then(|record| record.variant.as_ref()) {
        label = format!("{label} [{variant}]");
    }
    // A codec run of an older timing model is not comparable with today's
    // (`memzip report` leaves it out): say so where it is shown.
    if let Some(record) = record.as_ref().filter(|record| record.is_superseded()) {
        label = format!("{label} (timing model {})", record.timing_model);
    }
    let timing_model = record.map(|record| record.timing_model);
    Ok(Run {
        dir: dir.display().to_string(),
        program,
        label,
        stats_codec,
        cycles,
        dram_bytes,
        raw_cr,
        effective_cr,
        mdc_hit_rate,
        dram_utilization,
        verify_checked,
        verify_failures,
        output_ok,
        wall_seconds,
        timing_model,
        simulator_sources,
        energy,
        gpu_power,
        stored_sizes,
    })
}

/// Blocks per stored size, summed over `writes` and `memcpy` of `total`.
fn stored_sizes(total: &Value, file: &Path) -> Result<BTreeMap<u64, u64>, String> {
    let mut sizes = BTreeMap::new();
    for part in ["writes", "memcpy"] {
        let Some(map) = total.get(part).and_then(|p| p.get("mag_sizes")).and_then(Value::as_object) else {
            continue;
        };
        for (size_key, count) in map {
            let key = || format!("total.{part}.mag_sizes.{size_key}");
            let size: u64 =
                size_key.parse().map_err(|_| format!("{}: `{}` is not a size in bytes", file.display(), key()))?;
            let count = count.as_u64().ok_or_else(|| not_a_count(&key(), file))?;
            *sizes.entry(size).or_insert(0) += count;
        }
    }
    Ok(sizes)
}

/// `total.energy`, or `None` for stats written before memzip had an energy model.
fn run_energy(stats: &Value, file: &Path) -> Result<Option<RunEnergy>, String> {
    let Some(energy) = stats.get("total").and_then(|t| t.get("energy")) else {
        return Ok(None);
    };
    let number = |key: &str| -> Result<f64, String> {
        field(energy, key, file)?
            .as_f64()
            .ok_or_else(|| format!("{}: field `total.energy.{key}` is not a number", file.display()))
    };
    Ok(Some(RunEnergy {
        total_pj: number("total_pj")?,
        dram_pj: number("dram_pj")?,
        codec_pj: number("codec_pj")?,
        metadata_pj: number("metadata_pj")?,
        core_hz: energy.get("core_hz").and_then(Value::as_f64),
    }))
}

/// `100 * value / baseline`, when both exist and the baseline is positive.
fn percent_of(value: Option<f64>, baseline: Option<f64>) -> Option<f64> {
    match (value, baseline) {
        (Some(v), Some(b)) if b > 0.0 => Some(100.0 * v / b),
        _ => None,
    }
}

/// Groups runs by program (first appearance order; within a group the `none`
/// run first, then command-line order) and relates each to that `none` run.
pub fn compare(runs: Vec<Run>) -> Result<Vec<Row>, String> {
    let mut programs: Vec<Option<String>> = Vec::new();
    for run in &runs {
        if !programs.contains(&run.program) {
            programs.push(run.program.clone());
        }
    }
    let mut rows = Vec::with_capacity(runs.len());
    for program in &programs {
        let group: Vec<&Run> = runs.iter().filter(|r| &r.program == program).collect();
        let baselines: Vec<&Run> = group.iter().copied().filter(|r| r.is_baseline()).collect();
        if let [first, second, ..] = baselines.as_slice() {
            return Err(format!(
                "{} and {} are both `none` runs of program {}: give one baseline per program",
                first.dir,
                second.dir,
                program.as_deref().unwrap_or("(unnamed)")
            ));
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
            rows.push(Row {
                run: run.clone(),
                speedup,
                dram_percent_of_none,
                energy_percent_of_none,
                edp_percent_of_none,
                gpu_energy_percent_of_none,
                gpu_edp_percent_of_none,
            });
        }
    }
    Ok(rows)
}

/// Loads every directory and compares; the first bad directory is the error.
pub fn load_rows(dirs: &[PathBuf]) -> Result<Vec<Row>, String> {
    let runs = dirs.iter().map(|d| load_run(d)).collect::<Result<Vec<_>, _>>()?;
    compare(runs)
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

/// The table's cells, shared by the text and markdown forms. The whole-GPU
/// columns appear when some run had the simulator's power model on.
fn cell_table(rows: &[Row]) -> Table {
    let with_gpu_power = rows.iter().any(|r| r.run.gpu_power.is_some());
    let mut columns = vec![
        ("program", Align::Left),
        ("run", Align::Left),
        ("cycles", Align::Right),
        ("speedup", Align::Right),
        ("DRAM bytes", Align::Right),
        ("DRAM vs none", Align::Right),
        ("DRAM util", Align::Right),
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
    if with_gpu_power {
        columns.extend([("GPU uJ", Align::Right), ("GPU vs none", Align::Right), ("GPU EDP vs none", Align::Right)]);
    }
    let mut table = Table::new(&columns);
    for row in rows {
        let run = &row.run;
        let mut cells = vec![
            run.program.clone().unwrap_or_else(|| "-".to_string()),
            run.label.clone(),
            run.cycles.to_string(),
            fmt_opt(row.speedup, 3),
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
        if with_gpu_power {
            cells.extend([
                fmt_opt(run.gpu_total_pj().map(|pj| pj / 1e6), 3),
                percent_cell(row.gpu_energy_percent_of_none),
                percent_cell(row.gpu_edp_percent_of_none),
            ]);
        }
        table.push(cells);
    }
    table
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
    let mut out = csv_line(&header.map(String::from));
    for row in rows {
        let run = &row.run;
        out.push_str(&csv_line(&[
            run.program.clone().unwrap_or_default(),
            run.label.clone(),
            run.dir.clone(),
            run.cycles.to_string(),
            number(row.speedup),
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
        ]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
            energy: None,
            gpu_power: None,
            stored_sizes: BTreeMap::new(),
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
    fn two_baselines_for_one_program_is_an_error() {
        let err = compare(vec![run("a", "none", 1, 1), run("a", "none", 2, 2)]).unwrap_err();
        assert!(err.contains("both `none` runs of program a"), "{err}");
    }
}
