//! Helpers shared by the integration tests and benchmarks.
#![allow(dead_code)]

pub mod mix;
