//! The `memzip` command's logic, as a library so tests can call it directly.
//!
//! - [`analyze`]: offline codec evaluation of `-memzip_trace` files.
//! - [`table`]: the comparison table of simulator run directories.

#![forbid(unsafe_code)]

pub mod analyze;
pub mod table;
pub mod text;
