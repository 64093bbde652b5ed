//! `memzip e2mc-profile`: an E2MC code table from the blocks of traces, for
//! E2MC's offline mode (the E2MC paper Section III-B2: profile one run, then
//! simulate with the table as fixed probabilities).
//!
//! Every analysed block (write-backs and copies; reads with
//! `include_reads`, as in `analyze`) of every trace, in order, goes into one
//! E2MC [`Sampler`]; its `build_table` makes the table the online mode would
//! have built had it sampled the whole run. 4/8/16-bit samplers have fixed
//! size tables; the 32-bit sampler keeps one counter per distinct value, so
//! its memory grows with the data's distinct words.

use std::path::Path;

use memzip::codec::e2mc::{CodeTable, Sampler, ShannonBound};

use crate::blocks::{open_trace, stream_blocks, DEFAULT_CHUNK_BLOCKS};
use crate::error::AnalyzeError;

/// What to profile.
#[derive(Debug, Clone)]
pub struct ProfileOptions {
    pub symbol_bits: u32,
    /// Most frequent values given codes (16/32-bit symbols).
    pub mfv: usize,
    pub include_reads: bool,
    pub chunk_blocks: usize,
}

impl ProfileOptions {
    pub fn new(symbol_bits: u32) -> Self {
        ProfileOptions {
            symbol_bits,
            mfv: memzip::codec::e2mc::table::DEFAULT_MFV,
            include_reads: false,
            chunk_blocks: DEFAULT_CHUNK_BLOCKS,
        }
    }
}

/// The table and what it was built from.
#[derive(Debug, Clone)]
pub struct Profile {
    pub table: CodeTable,
    /// Blocks sampled, over all traces.
    pub blocks: u64,
    /// The Shannon bound of the sample at the table's symbol length.
    pub bound: ShannonBound,
}

/// Samples every analysed block of `paths` and builds the code table.
pub fn profile<P: AsRef<Path>>(paths: &[P], options: &ProfileOptions) -> Result<Profile, AnalyzeError> {
    let mut sampler = Sampler::new(options.symbol_bits).map_err(AnalyzeError::config)?;
    let mut blocks = 0;
    for path in paths {
        let path = path.as_ref();
        let reader = open_trace(path)?;
        let (_, sampled) = stream_blocks(path, reader, options.include_reads, options.chunk_blocks, |chunk| {
            chunk.blocks().for_each(|(_, block)| sampler.feed(block));
            Ok(())
        })?;
        blocks += sampled;
    }
    if blocks == 0 {
        return Err(AnalyzeError::nothing(
            "no blocks to profile: the traces hold no write-backs or copies (try --include-reads)",
        ));
    }
    let table = sampler.build_table(options.mfv).map_err(AnalyzeError::config)?;
    Ok(Profile { table, blocks, bound: ShannonBound::of_sampler(&sampler) })
}

impl Profile {
    /// Writes the table as JSON to `path` (through a temporary file and a
    /// rename: a reader never sees half a table).
    pub fn write_table(&self, path: &Path) -> Result<(), String> {
        crate::files::write_atomically(path, (self.table.to_json() + "\n").as_bytes())
    }

    /// One line on the table written to `output` from `traces` traces.
    pub fn describe(&self, traces: usize, output: &Path) -> String {
        let b = &self.bound;
        let codes = if self.table.mfv.is_empty() {
            format!("{} per-position codes", self.table.position_lengths.len())
        } else {
            format!("{} MFVs + escape", self.table.mfv.len())
        };
        format!(
            "e2mc{} table ({codes}) from {} blocks of {traces} trace(s) written to {}; sample entropy {:.4} \
             bits/symbol (ideal CR {:.3}, per-position {:.3}); use it with `memzip analyze --e2mc-table` or \
             -memzip_e2mc_sampling offline:<file>",
            self.table.symbol_bits,
            self.blocks,
            output.display(),
            b.entropy_bits,
            b.ideal_ratio,
            b.positional_ideal_ratio,
        )
    }
}
