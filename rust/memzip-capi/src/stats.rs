//! Per-handle statistics of every block compressed, and their JSON
//! (`memzip_codec_stats_json`). Counting allocates nothing: every counter is
//! sized when the handle is built.

use memzip::codec::spec::CodecSpec;
use memzip::codec::{CompressorsUsed, UNCOMPRESSED};
use memzip::Geometry;
use serde::Serialize;

use crate::info::memzip_block_info;

/// Blocks and bits stored with one encoding.
#[derive(Debug, Clone, Serialize)]
pub struct EncodingCount {
    pub encoding: u32,
    pub name: String,
    pub blocks: u64,
    /// Sum of the exact stored sizes.
    pub bits: u64,
}

/// Blocks one adaptive candidate compressed in running phases.
#[derive(Debug, Clone, Serialize)]
pub struct CandidateRuns {
    /// The candidate's spec, knobs included.
    pub candidate: String,
    pub run_blocks: u64,
}

/// What the adaptive selector did with the blocks.
#[derive(Debug, Clone, Serialize)]
pub struct AdaptiveChoices {
    /// Blocks of sampling phases: every candidate compressed them.
    pub sampled_blocks: u64,
    /// Blocks of running phases that stored them raw without compressing.
    pub bypassed_blocks: u64,
    /// Blocks of running phases, per candidate.
    pub candidates: Vec<CandidateRuns>,
}

/// The document `memzip_codec_stats_json` returns.
#[derive(Debug, Clone, Serialize)]
pub struct Stats {
    /// The resolved spec (`memzip_codec_spec`).
    pub codec: String,
    pub block_bytes: usize,
    pub granule_bytes: usize,
    pub blocks: u64,
    /// Blocks stored with an encoding other than raw.
    pub compressed_blocks: u64,
    /// `blocks` x the block size in bits.
    pub uncompressed_bits: u64,
    /// Sum of the exact stored sizes.
    pub compressed_bits: u64,
    /// Sum of the stored sizes rounded up to the granule, in bytes.
    pub granule_rounded_bytes: u64,
    /// Every encoding the codec has, in id order, unused ones included.
    pub encodings: Vec<EncodingCount>,
    /// Cycles the compressors spent.
    pub compress_cycles: u64,
    /// Cycles decoding every block compressed will cost.
    pub decompress_cycles: u64,
    /// Energy of the compressors that examined the blocks, pJ.
    pub compress_pj: f64,
    /// Energy decoding every block compressed will cost, pJ.
    pub decompress_pj: f64,
    /// The adaptive selector's choices; absent for other codecs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub adaptive: Option<AdaptiveChoices>,
}

impl Stats {
    pub fn new(
        spec: &CodecSpec,
        geometry: Geometry,
        encoding_names: &[String],
        candidates: Option<&[CodecSpec]>,
    ) -> Self {
        Stats {
            codec: spec.to_string(),
            block_bytes: geometry.block_bytes(),
            granule_bytes: geometry.mag_bytes(),
            blocks: 0,
            compressed_blocks: 0,
            uncompressed_bits: 0,
            compressed_bits: 0,
            granule_rounded_bytes: 0,
            encodings: encoding_names
                .iter()
                .enumerate()
                .map(|(id, name)| EncodingCount { encoding: id as u32, name: name.clone(), blocks: 0, bits: 0 })
                .collect(),
            compress_cycles: 0,
            decompress_cycles: 0,
            compress_pj: 0.0,
            decompress_pj: 0.0,
            adaptive: candidates.map(|candidates| AdaptiveChoices {
                sampled_blocks: 0,
                bypassed_blocks: 0,
                candidates: candidates
                    .iter()
                    .map(|c| CandidateRuns { candidate: c.to_string(), run_blocks: 0 })
                    .collect(),
            }),
        }
    }

    /// Counts one compressed block; `used`: which compressors examined it.
    pub fn record(&mut self, info: &memzip_block_info, used: CompressorsUsed) {
        self.blocks += 1;
        self.compressed_blocks += (info.encoding != UNCOMPRESSED as u32) as u64;
        self.uncompressed_bits += self.block_bytes as u64 * 8;
        self.compressed_bits += info.compressed_bits as u64;
        self.granule_rounded_bytes += info.granule_bytes as u64;
        if let Some(count) = self.encodings.get_mut(info.encoding as usize) {
            count.blocks += 1;
            count.bits += info.compressed_bits as u64;
        }
        self.compress_cycles += info.compress_cycles as u64;
        self.decompress_cycles += info.decompress_cycles as u64;
        self.compress_pj += info.compress_pj;
        self.decompress_pj += info.decompress_pj;
        if let Some(adaptive) = &mut self.adaptive {
            match used {
                CompressorsUsed::All => adaptive.sampled_blocks += 1,
                CompressorsUsed::Nothing => adaptive.bypassed_blocks += 1,
                CompressorsUsed::One(index) => {
                    if let Some(candidate) = adaptive.candidates.get_mut(index) {
                        candidate.run_blocks += 1;
                    }
                }
            }
        }
    }

    pub fn to_json(&self) -> String {
        // Plain numbers and strings: serialisation cannot fail.
        serde_json::to_string(self).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }
}
