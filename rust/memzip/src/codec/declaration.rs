//! What a codec says about itself, in its own file: its name, its knobs and
//! what each accepts, whether it may be lossy, what a block costs its
//! compressor and decompressor in energy (with the figure's source), its
//! default latency and how to build it. Each codec file exports
//! `pub const DECLARATIONS: &[Declaration]` (one entry per registry name:
//! `cpack.rs` declares `cpack` and `cpack_z`, `e2mc/` the four symbol
//! lengths); the registry ([`super::registry`]) collects them in its
//! `REGISTERED` list, whose order is the order every tool lists codecs in.
//!
//! Every field is required, so a codec cannot be registered without an energy
//! figure: the compiler rejects a declaration without one, and the registry's
//! tests reject a figure of 0 pJ for any codec but `none` (a codec that
//! "costs nothing" because nobody looked it up is what issue 50 found BPC
//! doing). Choosing an error at registration over a warning printed in the
//! statistics: a warning appears after a simulation has run for hours, next
//! to energy totals already wrong; the declaration is where the figure's
//! source is known.

use super::spec::CodecSpec;
use super::{Codec, Latency};
use crate::error::ConfigError;
use crate::mc::energy::{CodecEnergy, EnergyParams};

/// Builds the codec from a spec whose knobs the registry has checked against
/// the declared ones.
pub type Builder = fn(&CodecSpec, &Registry) -> Result<Box<dyn Codec>, ConfigError>;

/// The registry as a builder sees it. A codec that composes others (the
/// adaptive selector) builds them through it, so its file need not name the
/// registry module, which names every codec file (no module cycle).
pub struct Registry {
    /// Every declaration, in registry order.
    pub declarations: fn() -> Vec<&'static Declaration>,
    /// Builds any registered codec from its spec.
    pub build: fn(&CodecSpec) -> Result<Box<dyn Codec>, ConfigError>,
}

/// A knob a codec reads from its spec (`name:knob=value`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Knob {
    pub name: &'static str,
    /// What the knob accepts and its default, for help texts and errors,
    /// e.g. `"4 (default) or 8+4+2"`.
    pub accepts: &'static str,
}

/// Per-block energy of a codec's compressor and decompressor, from the
/// constants in effect (the `-memzip_energy_*` flags) and the block size in
/// bits.
pub type PerBlockEnergy = fn(&EnergyParams, usize) -> CodecEnergy;

/// Where a codec's energy comes from.
#[derive(Clone, Copy)]
pub enum EnergyFigure {
    /// Its own compressor and decompressor: pJ per block compressed /
    /// decompressed, with the source (a paper's table, or a derivation
    /// called an estimate).
    PerBlock { per_block: PerBlockEnergy, source: &'static str },
    /// None of its own: each block is charged to the candidates that examined
    /// or decode it (the adaptive selector).
    OfCandidates,
}

/// Where a codec's default latency comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefaultLatency {
    /// Cycles to compress and decompress a block at the codec's default
    /// knobs (`Codec::latency` of the codec built from its bare name); the
    /// registry adds the `comp_latency` / `decomp_latency` knobs that replace
    /// them.
    Cycles(Latency),
    /// Its candidates' (the adaptive selector): no latency knobs of its own.
    OfCandidates,
}

/// One registry entry, declared by the codec's own file.
#[derive(Clone, Copy)]
pub struct Declaration {
    /// The registry name: what a spec names, what `Codec::name` returns.
    pub name: &'static str,
    /// One line for listings: what the codec is, after which paper.
    pub summary: &'static str,
    /// The codec's own knobs (the registry adds the latency knobs).
    pub knobs: &'static [Knob],
    /// May store data the program marks approximable as an approximation
    /// (`Codec::compress_approximable_into`); every other codec stores every
    /// block exactly, and only those may be the adaptive selector's
    /// candidates.
    pub lossy: bool,
    pub energy: EnergyFigure,
    pub latency: DefaultLatency,
    pub build: Builder,
}

impl Declaration {
    /// The names of the declared knobs.
    pub fn knob_names(&self) -> Vec<&'static str> {
        self.knobs.iter().map(|knob| knob.name).collect()
    }

    /// The codec's per-block energy under `params` for blocks of
    /// `block_bits`; `None` for a codec charged through its candidates.
    pub fn energy(&self, params: &EnergyParams, block_bits: usize) -> Option<CodecEnergy> {
        match self.energy {
            EnergyFigure::PerBlock { per_block, .. } => Some(per_block(params, block_bits)),
            EnergyFigure::OfCandidates => None,
        }
    }
}
