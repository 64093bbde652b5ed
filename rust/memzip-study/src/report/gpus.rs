//! Runs of more than one GPU in one report: a program on a GPU other than
//! the GTX580 is another program of the report (its cycles, traffic and
//! bounds are another machine's), named with the GPU as a v3.2.1 benchmark
//! run is named with its version (`rodinia/bfs study @qv100`). A report of
//! GTX580 runs alone is as it was.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::gpu::Gpu;
use crate::table::Row;

/// Appends ` @<gpu>` to the program of each run on another GPU than the
/// GTX580, so every per-program table and figure keeps the GPUs apart.
pub(super) fn name_programs(rows: &mut [Row]) {
    for row in rows.iter_mut().filter(|row| !row.run.gpu.is_default()) {
        let program = row.run.program.as_deref().unwrap_or("(unnamed)");
        row.run.program = Some(format!("{program} @{}", row.run.gpu));
    }
}

/// The GPUs the runs simulated, when one is not the GTX580; else empty.
pub(super) fn section(rows: &[Row]) -> String {
    let mut runs_per_gpu: BTreeMap<Gpu, usize> = BTreeMap::new();
    for row in rows {
        *runs_per_gpu.entry(row.run.gpu).or_default() += 1;
    }
    if runs_per_gpu.keys().all(Gpu::is_default) {
        return String::new();
    }
    let gpus: Vec<String> = runs_per_gpu.iter().map(|(gpu, runs)| format!("{gpu} {runs} run(s)")).collect();
    let mut out = format!("GPUs: {}. ", gpus.join(", "));
    let _ = writeln!(
        out,
        "A program on another GPU than the GTX580 is named with it (`<program> @<gpu>`), its runs compared \
         with its `none` run on that GPU.\n"
    );
    out
}
