//! memzip: lossless memory-compression codecs for GPU memory controllers.
//!
//! Every codec implements [`codec::Codec`]: it turns one memory block into a
//! [`codec::CompressedBlock`] (encoding id, payload bitstream, `compressed_bits`,
//! `mag_bytes`, `burst_count`) and decodes it back bit-exact. The [`mc`] module
//! models the memory controller around a codec (metadata cache, bursts,
//! latency). The library does no I/O and holds no global state.
//!
//! Comments cite the papers memzip implements by short name, with section,
//! table or figure:
//! - "the E2MC paper": S. Lal, J. Lucas, B. Juurlink, "E²MC: Entropy Encoding
//!   Based Memory Compression for GPUs", IPDPS 2017;
//! - "the MAG-aware paper": S. Lal, M. Renz, J. Hartmer, B. Juurlink, "Memory
//!   Access Granularity Aware Lossless Compression for GPUs";
//! - "the adaptive-compression paper": M. Khavari Tavana, Y. Sun, N. Bohm
//!   Agostini, D. Kaeli, "Exploiting Adaptive Data Compression to Improve
//!   Performance and Energy-Efficiency of Compute Workloads in Multi-GPU
//!   Systems", IPDPS 2019.

#![forbid(unsafe_code)]

pub mod bits;
pub mod codec;
pub mod error;
pub mod geometry;
pub mod mc;
pub mod trace;

pub use codec::{BlockSize, Codec, CompressedBlock, EncodingId, Latency};
pub use error::{CodecError, ConfigError, Corruption};
pub use geometry::Geometry;
