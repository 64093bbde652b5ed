//! Where a speedup comes from: each codec's speedup on the kernels that
//! saturate the DRAM data bus under `none` and on the others apart. A
//! program's speedup mixes the two; compression shortens mostly the first
//! (a kernel that waits on shared memory or on latency gains little), so the
//! split tells a codec that misses its bus estimate from a program with little
//! bus-bound time ([`crate::bounds::kernels_speedup`]).

use std::fmt::Write as _;

use super::{axes, program_table_header, run_of};
use crate::bounds::{self, kernels_speedup};
use crate::table::Row;

/// The section, one row per program whose `none` run has a per-kernel DRAM
/// record on a known simulator; empty when no program has one.
pub(super) fn section(rows: &[Row]) -> String {
    let (programs, codecs) = axes(rows);
    let codecs: Vec<&String> = codecs.iter().filter(|c| c.as_str() != "none").collect();
    let mut table = String::new();
    for program in &programs {
        let Some(none) = run_of(rows, "none", program) else {
            continue;
        };
        let (Some(saturated), Some(none_kernels)) = (none.run.saturated_kernels(), none.run.kernel_dram.as_deref())
        else {
            continue;
        };
        let rest: Vec<bool> = saturated.iter().map(|s| !s).collect();
        let share = none.run.saturated_share().unwrap_or_default();
        let count = saturated.iter().filter(|&&s| s).count();
        let _ = write!(table, "| {program} | {count} of {} ({share:.2}) |", saturated.len());
        for codec in &codecs {
            let cell = run_of(rows, codec, program).and_then(|row| row.run.kernel_dram.as_deref()).map_or(
                "-".to_string(),
                |codec_kernels| {
                    let speedup = |chosen: &[bool]| {
                        kernels_speedup(none_kernels, codec_kernels, chosen)
                            .map_or("-".to_string(), |s| format!("{s:.3}"))
                    };
                    format!("{} / {}", speedup(&saturated), speedup(&rest))
                },
            );
            let _ = write!(table, " {cell} |");
        }
        table.push('\n');
    }
    if table.is_empty() {
        return table;
    }
    let mut out = format!(
        "\n## Speedups on the saturated kernels and on the others\n\nWhere each speedup comes from. A kernel is \
         saturated when its `none` run keeps the DRAM data bus busy in at least {:.0}% of the utilisation a pure \
         stream reaches on its simulator (as above); in the second column, how many of the program's kernels are \
         and their share of its `none` run's DRAM cycles. Each cell: the codec's speedup on the saturated kernels \
         / on the others, from the kernels' DRAM cycles (they count every cycle a kernel ran, on every channel). \
         `-`: no such kernel, or the run launched another number of kernels than its `none` run.\n\n",
        100.0 * bounds::SATURATED_OF_CEILING
    );
    out.push_str(&program_table_header(&["saturated kernels"], &codecs));
    out.push_str(&table);
    out
}
