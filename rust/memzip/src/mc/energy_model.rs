//! What each event a memory controller meets costs in energy, from the
//! constants in effect ([`EnergyParams`], sources in [`super::energy`]) and
//! each codec's declared figure (looked up by name in the registry).
//!
//! What is charged (the controller calls [`EnergyModel`] per event):
//! - every block a compressor examines costs its compression energy, also
//!   when the block then stays raw (the compressor had to run to find out);
//!   the adaptive selector's bypass phase runs no compressor and costs
//!   nothing, its sampling phase runs every candidate;
//! - a read of a block stored compressed costs its decompressor's energy;
//!   raw blocks bypass the decompressor (nothing);
//! - host-to-device copies are counted apart (`copy_compress_pj`), not in the
//!   kernel total, as their traffic is; `-memzip_verify`'s decompressions are
//!   a simulation check, not hardware, and cost nothing.

use std::collections::BTreeMap;

use super::energy::{CodecEnergy, EnergyParams};
use crate::codec::registry;

/// The energy figures of one controller's codec and geometry, looked up per
/// event by the controller.
#[derive(Debug, Clone, PartialEq)]
pub struct EnergyModel {
    params: EnergyParams,
    block_bits: usize,
    read_burst_pj: f64,
    write_burst_pj: f64,
    /// Per compressor name seen so far (the adaptive selector's candidates).
    codecs: BTreeMap<String, CodecEnergy>,
}

impl EnergyModel {
    pub fn new(params: EnergyParams, block_bytes: usize, mag_bytes: usize) -> Self {
        let (read_burst_pj, write_burst_pj) = params.burst_pj(mag_bytes);
        EnergyModel { params, block_bits: block_bytes * 8, read_burst_pj, write_burst_pj, codecs: BTreeMap::new() }
    }

    pub fn params(&self) -> EnergyParams {
        self.params
    }

    /// A codec's per-block energy, as its declaration gives it. Every
    /// registered codec declares a figure (`codec::declaration`); only a
    /// codec built outside the registry (a test double handed to
    /// `MemoryController::with_codec`) has none and costs nothing.
    pub fn codec(&mut self, name: &str) -> CodecEnergy {
        if let Some(energy) = self.codecs.get(name) {
            return *energy;
        }
        let energy = registry::energy(name, &self.params, self.block_bits).unwrap_or_default();
        self.codecs.insert(name.to_string(), energy);
        energy
    }

    /// Compression energy of one block examined by these compressors.
    pub fn compress_pj<'a>(&mut self, compressors: impl IntoIterator<Item = &'a str>) -> f64 {
        compressors.into_iter().map(|name| self.codec(name).compress_pj).sum()
    }

    /// Decompression energy of a block read back: `decompressor` is `None`
    /// for a raw block (bypass).
    pub fn decompress_pj(&mut self, decompressor: Option<&str>) -> f64 {
        decompressor.map_or(0.0, |name| self.codec(name).decompress_pj)
    }

    pub fn read_bursts_pj(&self, bursts: usize) -> f64 {
        bursts as f64 * self.read_burst_pj
    }

    pub fn write_bursts_pj(&self, bursts: usize) -> f64 {
        bursts as f64 * self.write_burst_pj
    }
}
