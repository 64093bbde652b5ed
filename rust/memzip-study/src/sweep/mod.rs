//! `memzip sweep`: a study grid (programs or benchmarks x codecs x option
//! sets) run locally in parallel (a progress bar on a terminal, one line per
//! finished run), one run directory each, resumable; or on Slurm (`slurm`).
//!
//! The spec is JSON:
//! ```json
//! {"runs": [{"name": "ints", "argv": ["{repo}/bin/patterns", "ints", "262144"],
//!            "codecs": ["none", "mag_bdi"],
//!            "option_sets": [["-memzip_verify 1"], ["-memzip_verify 1", "-memzip_mdc_bytes 4096"]],
//!            "expect": "^PASS"},
//!           {"benchmark": "rodinia/bfs", "presets": ["tiny", "small"], "codecs": ["none", "mag_bdi"]}]}
//! ```
//! An entry runs either a command line (`argv`, named by `name`) or a
//! benchmark of `benchmarks/` at one or more presets (`name` defaults to the
//! benchmark with `/` as `-`; run ids add the preset), on the GPUs its
//! `gpus` lists (`["gtx580", "qv100"]`; default the GTX580, or `memzip sweep
//! --gpu`'s; run ids add a GPU other than the GTX580, so grids made before
//! the choice keep their names and resume). Each run is handed to
//! the runner as `--codec C --out DIR [--set LINE]... [--gpu G] [--expect RE]`
//! (`--gpu` when not the GTX580), then
//! `-- ARGV...` for a command line (default runner `memzip run`) or
//! `--benchmark NAME --preset P` for a benchmark (default runner
//! `memzip bench run`, which builds, makes the input and checks the
//! output). A run is written into `OUT/.tmp-<id>` and renamed to `OUT/<id>`
//! only when it succeeded, so a directory named after a run is always
//! complete: a rerun skips those (resume after a kill loses nothing) and
//! retries failures, which are kept in `OUT/<id>.failed/` with the runner's
//! output. A run directory whose `run.json`, `stats.json` or `sweep.json`
//! does not parse (cut short by a full disk or a copy) is not a result: the
//! sweep says so in one line and runs it again.
//!
//! A sweep owns its output directory while it runs (`OUT/.sweep.lock`, its
//! pid): a second sweep into it stops with one line instead of deleting the
//! first one's `.tmp-<id>` directories under its simulations. Each runner
//! runs under a small guard ([`GUARD`]) that kills the runner's process group
//! when the sweep goes away, even by SIGKILL: no simulation outlives it.
//! The same guard stops a run that exceeds `--timeout` (a simulation that
//! never ends, as lonestar/mst's zero-block launch on v3.2.1, would hold its
//! worker forever): the run fails with that reason and the sweep goes on.

mod estimate;
mod exec;
mod grid;
mod guard;
mod lock;
mod results;
mod reuse;
pub mod slurm;

pub use estimate::{estimate, Estimate, EstimateText, RunEstimate};
pub use exec::{run_one, run_only, sweep, sweep_reporting, Outcome, Progress, Runners, StderrLines};
pub use grid::{expand, load_spec, validate, Entry, PlannedRun, Spec, Target};
pub use guard::{parse_timeout, GUARD};
pub use lock::{lock_out, OutLock};
pub use results::{damaged, failure_cause, has_result, pending};
pub use reuse::{adopt, recorded_runs, reuse};
