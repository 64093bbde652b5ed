//! The memory-controller model around a codec: the metadata cache, burst
//! sizing of DRAM reads and writes, (de)compression latency, verification and
//! statistics. The simulator's C++ hooks stay thin: they forward each DRAM
//! access here and apply the numbers that come back.
//!
//! - [`metadata_cache`]: the set-associative cache of per-block encoding bits.
//! - [`controller`]: [`MemoryController`], one per simulated memory controller.
//! - [`stats`]: [`McStats`], mergeable across controllers, JSON via serde.
//! - [`energy`]: the energy constants and their sources.
//! - [`energy_model`]: what each event costs.
//! - [`approx`]: the program's safe-to-approximate allocations (lossy codecs).
//! - [`partial_request`]: requests for part of a block (sector reads, partial
//!   write-backs); their model is in `controller/partial.rs`.

pub mod approx;
pub mod controller;
pub mod energy;
pub mod energy_model;
pub mod metadata_cache;
pub mod partial_request;
pub mod stats;

pub use approx::ApproximableMemory;
pub use controller::{McError, McOptions, MemoryController, ReadOutcome, SamplingWindow, StoredBlock, WriteOutcome};
pub use energy::{CodecEnergy, EnergyParams, EnergyStats, PowerLatency};
pub use energy_model::EnergyModel;
pub use metadata_cache::{MdcAccess, MdcConfig, MdcLookup, MdcStats, MetadataCache};
pub use partial_request::{PartialReads, PartialRequest, PartialWrites};
pub use stats::{
    ApproximationStats, CompressionStats, DramDeviceStats, McStats, MetadataStats, PartialStats, TrafficStats,
    VerifyStats,
};
