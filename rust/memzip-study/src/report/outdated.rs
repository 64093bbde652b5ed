//! The report's note on runs made before a model change they lack the mark
//! of ([`crate::run::missed_model_change`]): kept in every table (they may be
//! the only runs of their configuration, and a report of committed runs
//! should still show them), counted here by what they missed, and marked `†`
//! beside their speedups.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::table::Row;

/// The mark beside the speedup of a run made before a model change.
pub(super) fn mark(row: &Row) -> &'static str {
    if row.run.model_change.is_some() {
        "†"
    } else {
        ""
    }
}

/// The note: per change missed, how many runs missed it, by codec; empty
/// when every run is current.
pub(super) fn section(rows: &[Row]) -> String {
    let mut by_change: BTreeMap<&str, BTreeMap<&str, usize>> = BTreeMap::new();
    for row in rows {
        if let Some(change) = row.run.model_change {
            *by_change.entry(change).or_default().entry(row.run.label.as_str()).or_default() += 1;
        }
    }
    if by_change.is_empty() {
        return String::new();
    }
    let total: usize = by_change.values().flat_map(BTreeMap::values).sum();
    let mut out = format!(
        "**Made before a model change**: {total} run(s) simulated an older model than this memzip's (a change that \
         left a mark in the files of the runs made after it). They are kept in every table and marked `†` beside \
         their speedups; their figures carry what they missed, and `memzip sweep` of their spec runs them again.\n\n"
    );
    for (change, codecs) in &by_change {
        let runs: usize = codecs.values().sum();
        let counts: Vec<String> = codecs.iter().map(|(codec, n)| format!("{codec} {n}")).collect();
        let _ = writeln!(out, "- {change}: {runs} run(s) ({})", counts.join(", "));
    }
    out.push('\n');
    out
}
