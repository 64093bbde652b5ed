//! The report's "Speedups against what the DRAM allows": each speedup beside
//! the bus estimate and the activation bound ([`crate::bounds`]), every run
//! above its bus estimate marked and listed with what the runs measure of
//! why. The bus estimate is Amdahl's law on the bus busy time, not a bound:
//! committed runs exceed it (issue 52), so the report says where.

use std::fmt::Write as _;

use super::{axes, outdated, program_table_header, run_of};
use crate::bounds::{self, DramCounters};
use crate::table::Row;

/// The section; empty when no run has the DRAM counters.
pub(super) fn section(rows: &[Row]) -> String {
    if !rows.iter().any(|r| r.estimate().is_some()) {
        return String::new();
    }
    let (programs, codecs) = axes(rows);
    let codecs: Vec<&String> = codecs.iter().filter(|c| c.as_str() != "none").collect();
    let mut out = String::from(
        "\n## Speedups against what the DRAM allows\n\nEach cell: the speedup, then in brackets an estimate of \
         the most the DRAM model lets it gain and the share of that gain the run took ((speedup - 1) / (estimate - \
         1)). The estimate is the smaller of the **bus estimate** (`b`: 1 / (1 - u x (1 - busy / busy of none)), u \
         the `none` run's data-bus utilisation: the run shortened by the bus cycles it saved and nothing else; \
         Amdahl's law on the bus time, not a bound: a run whose DRAM also idles fewer cycles than under `none` \
         exceeds it) and the **activation bound** (`a`: the `none` run's DRAM cycles over the run's row \
         activations x tRRD: compression sends fewer bursts but opens the same rows; a bound, as a channel opens \
         at most one row per tRRD). `^`: the speedup is above its bus estimate (listed below the table). `!`: the \
         run launched another number of kernels than its `none` run (different work; its speedup is not the \
         codec's).",
    );
    if rows.iter().any(|row| row.run.model_change.is_some()) {
        out.push_str(" `†`: the run was made before a model change (above).");
    }
    out.push_str("\n\n");
    out.push_str(&program_table_header(&["none: util / act x tRRD"], &codecs));
    let mut flagged = Vec::new();
    let mut above = Vec::new();
    for program in &programs {
        let none = run_of(rows, "none", program);
        let _ = write!(out, "| {program} | {} |", none_cell(none));
        for codec in &codecs {
            let cell = run_of(rows, codec, program).map_or("-".to_string(), |row| {
                if row.kernel_launches_differ == Some(true) {
                    flagged.push(format!(
                        "{program} {codec} ({} kernels, none {})",
                        row.run.kernel_launches.unwrap_or_default(),
                        none.and_then(|n| n.run.kernel_launches).unwrap_or_default()
                    ));
                }
                if row.above_bus_estimate() {
                    above.push(format!("{program} {codec}: {}", why_above(row, none)));
                }
                estimate_cell(row)
            });
            let _ = write!(out, " {cell} |");
        }
        out.push('\n');
    }
    if !flagged.is_empty() {
        let _ = writeln!(out, "\nOther kernel counts than the `none` run: {}.", flagged.join(", "));
    }
    out.push_str(&above_list(rows, &above));
    out
}

/// `0.81 / 0.66`: the `none` run's bus utilisation and the share of its DRAM
/// cycles its row activations take at one per tRRD.
fn none_cell(none: Option<&Row>) -> String {
    let activation_share = none.and_then(|n| {
        let dram = n.run.dram?;
        let rrd = n.run.rrd_cycles.unwrap_or(bounds::GTX580_MAG32_RRD_CYCLES);
        (dram.cycles > 0).then(|| (dram.activations * rrd) as f64 / dram.cycles as f64)
    });
    match (none.and_then(|n| n.run.dram_utilization), activation_share) {
        (Some(u), Some(a)) => format!("{u:.2} / {a:.2}"),
        _ => "-".to_string(),
    }
}

/// `1.442 (1.538a, 82%)`: speedup, estimate and which, share of the gain
/// taken; `^` after the speedup when it is above its bus estimate, `!` when
/// the kernel counts differ, `†` when the run was made before a model change.
fn estimate_cell(row: &Row) -> String {
    let Some(speedup) = row.speedup else {
        return "-".to_string();
    };
    let above = if row.above_bus_estimate() { "^" } else { "" };
    let kernels = if row.kernel_launches_differ == Some(true) { "!" } else { "" };
    let flag = format!("{kernels}{}", outdated::mark(row));
    let Some(estimate) = row.estimate() else {
        return format!("{speedup:.3}{above}{flag}");
    };
    let which = if row.activation_bound == Some(estimate) { "a" } else { "b" };
    let share = row.gain_share.map_or("-".to_string(), |share| format!("{:.0}%", 100.0 * share));
    format!("{speedup:.3}{above}{flag} ({estimate:.3}{which}, {share})")
}

/// The runs above their bus estimate, counted and listed; and how many
/// exceed their activation bound, which none should.
fn above_list(rows: &[Row], above: &[String]) -> String {
    let estimated = rows.iter().filter(|r| !r.run.is_baseline() && r.bus_estimate.is_some()).count();
    let beyond_bound =
        rows.iter().filter(|r| matches!((r.speedup, r.activation_bound), (Some(s), Some(a)) if s > a)).count();
    let mut out = format!(
        "\nAbove the bus estimate (`^`): {} of {estimated} codec runs with one; above the activation bound: \
         {beyond_bound}.",
        above.len()
    );
    if above.is_empty() {
        out.push('\n');
        return out;
    }
    out.push_str(
        " Each run above its bus estimate, with what the runs measure of why: its bus busy cycles and its \
         DRAM's idle cycles against the `none` run's (the estimate holds the idle ones fixed; a run above it \
         idled fewer), and the mean fetch latency where the runs kept it. An estimate under 1.01 leaves no bus \
         time to gain: such a run's gain is noise or timing, e.g. a compressor's write delay letting reads go \
         first.\n\n",
    );
    for line in above {
        let _ = writeln!(out, "- {line}");
    }
    out
}

/// What the runs measure of why `row` is above its bus estimate.
fn why_above(row: &Row, none: Option<&Row>) -> String {
    let speedup = row.speedup.unwrap_or_default();
    let estimate = row.bus_estimate.unwrap_or_default();
    let mut why = format!("{speedup:.4}x against {estimate:.4}");
    if row.kernel_launches_differ == Some(true) {
        let none_kernels = none.and_then(|n| n.run.kernel_launches).unwrap_or_default();
        let _ =
            write!(why, "; other work ({} kernels, none {none_kernels})", row.run.kernel_launches.unwrap_or_default());
    }
    if let (Some(none_dram), Some(dram)) = (none.and_then(|n| n.run.dram), row.run.dram) {
        let change = |of: fn(&DramCounters) -> u64| {
            let (before, after) = (of(&none_dram) as f64, of(&dram) as f64);
            if before > 0.0 {
                format!("{:+.1}%", 100.0 * (after / before - 1.0))
            } else {
                "-".to_string()
            }
        };
        let _ = write!(
            why,
            "; bus busy {}, DRAM idle {}",
            change(|d| d.busy_cycles),
            change(|d| d.cycles.saturating_sub(d.busy_cycles))
        );
    }
    let latency = |r: &Row| r.run.memory_wait.fetch_latency_cycles;
    if let (Some(before), Some(after)) = (none.and_then(latency), latency(row)) {
        let _ = write!(why, "; fetch latency {before} -> {after} cycles");
    }
    if estimate < 1.0 + bounds::MIN_BOUND_GAIN {
        why.push_str("; no bus time to gain");
    }
    why
}
