//! The `memzip` command's logic, as a library so tests can call it directly.
//!
//! - [`analyze`]: offline codec evaluation of `-memzip_trace` files.
//! - [`profile`]: E2MC code tables from traces (offline mode).
//! - [`power`]: whole-GPU energy from the simulator's power model report.
//! - [`shannon`]: the Shannon bound per symbol length, streaming.
//! - [`table`]: the comparison table of simulator run directories.
//! - [`sweep`]: a grid of simulator runs, local and resumable.
//! - [`report`]: tables and SVG figures of a results directory.

#![forbid(unsafe_code)]

pub mod analyze;
pub mod power;
pub mod profile;
pub mod report;
pub mod shannon;
pub mod slurm;
pub mod sweep;
pub mod table;
pub mod text;
