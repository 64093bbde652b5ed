//! memzip's study side, as a library: everything between the simulator's
//! output and a study's tables and figures. The `memzip` command
//! (`memzip-cli`) and the Python package (`memzip-py`) are thin layers over it.
//!
//! - [`run`]: a run directory (`stats.json`, `sim.log`, `run.json`,
//!   `sweep.json`, the power model's report): the one place that reads it.
//! - [`simulate`]: one simulation and its record (`memzip run`).
//! - [`bench`]: one real benchmark: the E2MC offline tables of its input,
//!   the simulation, the analyses of a `none` run's trace (`memzip bench`).
//! - [`gpu`]: the GPU a run simulates (`--gpu`).
//! - [`manifest`]: the repository and its benchmark manifests.
//! - [`analyze`]: offline codec evaluation of `-memzip_trace` files
//!   ([`blocks`] streams their blocks; [`shannon`]: the Shannon bound).
//! - [`profile`]: E2MC code tables from traces (offline mode).
//! - [`power`]: whole-GPU energy from the simulator's power model report.
//! - [`table`]: the comparison table of run directories ([`bounds`]: what
//!   the DRAM model lets each speedup gain, an estimate and a bound).
//! - [`output_error`]: what a lossy codec costs on a program's output.
//! - [`sweep`]: a grid of simulator runs, local and resumable, or on Slurm.
//! - [`report`]: tables and SVG figures of a results directory.

#![forbid(unsafe_code)]

pub mod analyze;
pub mod bench;
pub mod blocks;
pub mod bounds;
pub mod error;
pub mod files;
pub mod float_bounds;
pub mod gpu;
pub mod manifest;
pub mod output_error;
pub mod power;
pub mod profile;
pub mod report;
pub mod run;
pub mod shannon;
pub mod sim_log;
pub mod simulate;
pub mod sweep;
pub mod table;
pub mod text;
