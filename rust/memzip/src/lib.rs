//! memzip: lossless memory-compression codecs for GPU memory controllers.
//!
//! Every codec implements [`codec::Codec`]: it turns one memory block into a
//! [`codec::CompressedBlock`] (encoding id, payload bitstream, `compressed_bits`,
//! `mag_bytes`, `burst_count`) and decodes it back bit-exact. The [`mc`] module
//! models the memory controller around a codec (metadata cache, bursts,
//! latency). The library does no I/O and holds no global state.

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
