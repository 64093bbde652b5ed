//! What compression costs on a sectored L2 (issue 50, "the sector
//! questions"): a GPU whose L2 asks DRAM for 32-byte sectors of a 128-byte
//! line makes a compressed line pay twice where the Fermi-era papers' whole-line
//! requests never did: a read of some sectors fetches the whole compressed
//! line (over-fetched bursts), and a write-back with only some sectors dirty
//! reads the rest before it recompresses (read-modify-write) or stores the
//! line raw (raw fallbacks). Either can make a codec slower than `none`;
//! the section names every run that is. Empty when no run paid anything (a
//! GTX580 report is as it was).

use std::fmt::Write as _;
use std::path::Path;

use super::{axes, program_table_header, run_of};
use crate::run::PartialCounters;
use crate::table::{with_partial_costs, Row};

/// The section: per program and codec the three costs, then the runs slower
/// than their `none` run with theirs beside them.
pub(super) fn section(rows: &[Row]) -> String {
    if !with_partial_costs(rows) {
        return String::new();
    }
    let (programs, codecs) = axes(rows);
    let mut out = String::from(
        "\n## Partial requests (sectored L2)\n\nEach cell: bursts over-fetched by partial reads of compressed \
         lines / read-modify-write read bursts of partial write-backs / lines stored raw instead (`total.partial` \
         of stats.json; `-`: stats without them).\n\n",
    );
    out.push_str(&program_table_header(&[], &codecs));
    for program in &programs {
        let _ = write!(out, "| {program} |");
        for codec in &codecs {
            let cell = run_of(rows, codec, program).and_then(|row| row.run.partial).map_or("-".to_string(), costs_cell);
            let _ = write!(out, " {cell} |");
        }
        out.push('\n');
    }
    out.push_str(&slower_than_none(rows));
    out
}

/// `7 / 9 / 1`: over-fetched bursts, RMW read bursts, raw fallbacks.
fn costs_cell(partial: PartialCounters) -> String {
    format!("{} / {} / {}", partial.overfetch_bursts, partial.rmw_read_bursts, partial.raw_fallbacks)
}

/// One line per codec run slower than its `none` run (speedup < 1), naming
/// its run directory, with its partial-request costs beside it.
fn slower_than_none(rows: &[Row]) -> String {
    let slower: Vec<&Row> = rows.iter().filter(|row| row.speedup.is_some_and(|s| s < 1.0)).collect();
    if slower.is_empty() {
        return "\nNo codec run is slower than its `none` run.\n".to_string();
    }
    let mut out = String::from("\nSlower than `none` (speedup < 1):\n\n");
    for row in slower {
        let run = &row.run;
        let name = Path::new(&run.dir).file_name().map_or(run.dir.clone(), |n| n.to_string_lossy().into_owned());
        let costs = run.partial.map_or("no partial-request counters".to_string(), |p| {
            let refetched = match p.refetch_bursts {
                0 => String::new(),
                bursts => format!(" ({bursts} bursts fetched again, {} whole-line refetches)", p.refetches),
            };
            let filled = match (p.merged_reads, p.filled_sectors) {
                (0, 0) => String::new(),
                (merged, filled) => format!(
                    "; the L2 took whole lines (fill): {merged} sector reads matched to a fetch in flight, {filled} \
                     sectors filled"
                ),
            };
            format!(
                "{} over-fetched bursts{refetched}, {} read-modify-write read bursts ({} reads), {} raw \
                 fallbacks{filled}",
                p.overfetch_bursts, p.rmw_read_bursts, p.rmw_reads, p.raw_fallbacks
            )
        });
        let _ = writeln!(
            out,
            "- `{name}` ({} {}): {:.3}x; {costs}",
            run.program.as_deref().unwrap_or("(unnamed)"),
            run.label,
            row.speedup.unwrap_or_default()
        );
    }
    out
}
