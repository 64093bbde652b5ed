//! Adaptive selection between codecs (the adaptive-compression paper, Section IV): a sampling
//! phase compresses a few blocks with every candidate, a vote picks the codec
//! used for the running phase that follows.
//!
//! Each period of `period_blocks` (300) blocks starts with `sample_blocks` (7)
//! samples. Per sample the winner is the option with the lowest penalty
//! `P = compressed_bits + λ·(Lc + Ld)` (Eq. 1), where "none" (store raw, no
//! latency) is always an option. The option winning the most samples, if at
//! least `votes_needed` (3), runs the rest of the period; otherwise the option
//! with the lowest total penalty over the samples does.
//!
//! Modelling choices the paper leaves open:
//! - a sample block is stored with its own winner: the hardware has computed
//!   every candidate's output for it anyway;
//! - a sampled block costs the slowest candidate's compression latency (the
//!   candidates run in parallel); a block in a "none" running phase bypasses
//!   the compressor and costs nothing;
//! - the block's encoding names the candidate and that candidate's own
//!   encoding, so decoding never depends on the selector's state.

use super::declaration::{Declaration, DefaultLatency, EnergyFigure, Knob, Registry};
use super::spec::{CodecSpec, CANDIDATE_SEPARATOR};
use std::cell::RefCell;

use super::{
    check_block_size, decode_uncompressed_into, BlockSize, Codec, CompressedBlock, CompressorsUsed, EncodingId,
    Latency, UNCOMPRESSED,
};
use crate::error::{CodecError, ConfigError};
use crate::geometry::Geometry;

/// Candidates used when none are configured (kept with the spec syntax,
/// which resolves them).
pub use super::spec::DEFAULT_CANDIDATES;
/// λ of Eq. 1; the paper finds 6 balances bandwidth and latency best.
pub const DEFAULT_LAMBDA: u32 = 6;
pub const DEFAULT_SAMPLE_BLOCKS: usize = 7;
pub const DEFAULT_PERIOD_BLOCKS: usize = 300;
pub const DEFAULT_VOTES_NEEDED: usize = 3;

/// Knob `lambda`: λ of Eq. 1.
const LAMBDA_ACCEPTS: &str = "a non-negative integer (default 6)";
/// Knob `candidates`: the codecs the selector picks among.
const CANDIDATES_ACCEPTS: &str = "'/'-separated codec specs with knobs of their own, the spec's last knob \
                                  (default fpc/cpack_z/bdi)";

pub const DECLARATIONS: &[Declaration] = &[Declaration {
    name: "adaptive",
    summary: "the adaptive-compression paper's selector: samples its candidates, runs the one with the least penalty",
    knobs: &[
        Knob { name: "lambda", accepts: LAMBDA_ACCEPTS },
        Knob { name: "candidates", accepts: CANDIDATES_ACCEPTS },
    ],
    lossy: false,
    energy: EnergyFigure::OfCandidates,
    latency: DefaultLatency::OfCandidates,
    build,
}];

/// Builds the selector and its candidates: `candidates` is a `/`-separated
/// list of codec specs, each with its own knobs, e.g.
/// `adaptive:lambda=6,candidates=fpc:variant=paper004/mag_bdi:bases=8+4+2`;
/// it is adaptive's last knob (see [`CodecSpec::parse`]). A candidate is any
/// registered codec with a compressor of its own that stores every block
/// exactly: not `none` (storing raw is always an option), not a selector,
/// not a lossy codec (SLC is lossy only for data marked approximable, which
/// the selector's size-only choice does not know about).
fn build(spec: &CodecSpec, registry: &Registry) -> Result<Box<dyn Codec>, ConfigError> {
    let lambda = spec.knob("lambda", DEFAULT_LAMBDA, LAMBDA_ACCEPTS)?;
    let selectable: Vec<&str> = (registry.declarations)()
        .into_iter()
        .filter(|d| d.name != "none" && d.latency != DefaultLatency::OfCandidates && !d.lossy)
        .map(|d| d.name)
        .collect();
    let candidates = spec
        .candidate_specs()?
        .iter()
        .map(|candidate| {
            if !selectable.contains(&candidate.name.as_str()) {
                return Err(ConfigError::new(
                    "adaptive.candidates",
                    candidate.to_string(),
                    format!("'{CANDIDATE_SEPARATOR}'-separated names from {}", selectable.join(", ")),
                ));
            }
            (registry.build)(candidate)
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Box::new(Adaptive::new(candidates, lambda)?))
}

/// What a running phase uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// Store blocks raw.
    Uncompressed,
    /// Index into the candidates.
    Candidate(usize),
}

pub struct Adaptive {
    geometry: Geometry,
    candidates: Vec<Box<dyn Codec>>,
    /// First global encoding id of each candidate's compressed encodings.
    encoding_offsets: Vec<usize>,
    /// Each candidate's number of encodings, uncompressed included (its
    /// `encoding_names().len()`, which builds strings: not for every block).
    encoding_counts: Vec<usize>,
    lambda: u32,
    sample_blocks: usize,
    period_blocks: usize,
    votes_needed: usize,
    /// Blocks seen in the current period.
    position: usize,
    /// Penalties of each option (index 0 = uncompressed) per sample so far,
    /// one row of `candidates.len() + 1` per sample; cleared, not freed, so
    /// sampling allocates nothing once the first period has run.
    sample_penalties: Vec<u64>,
    /// Votes and total penalty per option, `decide`'s reused scratch.
    votes: Vec<usize>,
    totals: Vec<u64>,
    choice: Choice,
    last_compress_cycles: u32,
    /// Running phases decided so far per option (index 0 = uncompressed).
    phase_choices: Vec<u64>,
    /// A candidate's output while sampling, reused.
    trial: CompressedBlock,
    /// A block with the candidate's own encoding id, reused by `decompress_into`.
    untagged: RefCell<CompressedBlock>,
}

impl Adaptive {
    pub fn new(candidates: Vec<Box<dyn Codec>>, lambda: u32) -> Result<Self, ConfigError> {
        let geometry = candidates
            .first()
            .map(|c| c.geometry())
            .ok_or_else(|| ConfigError::new("adaptive.candidates", "", "at least one codec"))?;
        if let Some(other) = candidates.iter().find(|c| c.geometry() != geometry) {
            return Err(ConfigError::new("adaptive.candidates", other.name(), "codecs of one geometry"));
        }
        let encoding_counts: Vec<usize> = candidates.iter().map(|c| c.encoding_names().len()).collect();
        let mut encoding_offsets = Vec::with_capacity(candidates.len());
        let mut next = 1;
        for count in &encoding_counts {
            encoding_offsets.push(next);
            next += count - 1;
        }
        if next > EncodingId::MAX as usize + 1 {
            return Err(ConfigError::new("adaptive.candidates", next.to_string(), "at most 256 encodings in all"));
        }
        let options = candidates.len() + 1;
        Ok(Adaptive {
            geometry,
            candidates,
            encoding_offsets,
            encoding_counts,
            lambda,
            sample_blocks: DEFAULT_SAMPLE_BLOCKS,
            period_blocks: DEFAULT_PERIOD_BLOCKS,
            votes_needed: DEFAULT_VOTES_NEEDED,
            position: 0,
            sample_penalties: Vec::with_capacity(DEFAULT_SAMPLE_BLOCKS * options),
            votes: Vec::with_capacity(options),
            totals: Vec::with_capacity(options),
            choice: Choice::Uncompressed,
            last_compress_cycles: 0,
            phase_choices: vec![0; options],
            // Room for a raw block and a bit writer's last 8-byte store, so
            // the buffers `sample_into` swaps with the caller's never grow.
            trial: CompressedBlock { payload: Vec::with_capacity(geometry.block_bytes() + 8), ..Default::default() },
            untagged: RefCell::new(CompressedBlock {
                payload: Vec::with_capacity(geometry.block_bytes() + 8),
                ..Default::default()
            }),
        })
    }

    /// Changes the sampling schedule (for studies and tests).
    pub fn with_schedule(
        mut self,
        sample_blocks: usize,
        period_blocks: usize,
        votes_needed: usize,
    ) -> Result<Self, ConfigError> {
        if sample_blocks == 0 || period_blocks < sample_blocks {
            return Err(ConfigError::new(
                "adaptive schedule",
                format!("{sample_blocks} samples per {period_blocks} blocks"),
                "at least one sample and a period no shorter than the samples",
            ));
        }
        if votes_needed == 0 || votes_needed > sample_blocks {
            return Err(ConfigError::new("adaptive.votes", votes_needed.to_string(), format!("1..={sample_blocks}")));
        }
        self.sample_blocks = sample_blocks;
        self.period_blocks = period_blocks;
        self.votes_needed = votes_needed;
        Ok(self)
    }

    /// What the current running phase uses.
    pub fn choice(&self) -> Choice {
        self.choice
    }

    /// How many running phases each option was chosen for, "uncompressed" first,
    /// then the candidates in order.
    pub fn phase_choices(&self) -> &[u64] {
        &self.phase_choices
    }

    fn penalty(&self, compressed_bits: usize, latency_cycles: u32) -> u64 {
        compressed_bits as u64 + self.lambda as u64 * latency_cycles as u64
    }

    /// The penalty of storing a block with a candidate's result.
    fn candidate_penalty(&self, index: usize, size: BlockSize) -> u64 {
        let latency = self.candidates[index].latency();
        if size.is_compressed() {
            self.penalty(size.compressed_bits, latency.compress_cycles + latency.decompress_cycles)
        } else {
            // Stored raw: the compression was spent, decompression is bypassed.
            self.penalty(size.compressed_bits, latency.compress_cycles)
        }
    }

    /// Compresses a sample with every candidate, records the penalties and
    /// stores the block in `out` with the sample's winner (untagged; the
    /// winner's index is returned, `None` for raw).
    fn sample_into(&mut self, block: &[u8], out: &mut CompressedBlock) -> Result<Option<usize>, CodecError> {
        let raw_penalty = self.penalty(self.geometry.block_bits(), 0);
        self.sample_penalties.push(raw_penalty);
        let mut best = (raw_penalty, None);
        let mut slowest = 0;
        let mut trial = std::mem::take(&mut self.trial);
        for index in 0..self.candidates.len() {
            self.candidates[index].compress_into(block, &mut trial)?;
            slowest = slowest.max(self.candidates[index].compress_cycles(&trial));
            let penalty = self.candidate_penalty(index, trial.size());
            self.sample_penalties.push(penalty);
            if penalty < best.0 {
                best = (penalty, Some(index));
                // Keep the winner so far in `out`, its buffer goes back to `trial`.
                std::mem::swap(out, &mut trial);
            }
        }
        self.trial = trial;
        if best.1.is_none() {
            out.set_uncompressed(block, self.geometry);
        }
        self.last_compress_cycles = slowest;
        Ok(best.1)
    }

    /// [`Adaptive::sample_into`] with sizes only: the same penalties, votes
    /// and cycles; returns the winner's tagged size.
    /// Candidate `index`'s compression cycles for a block of `size`
    /// (compress_cycles looks at the result's encoding and sizes only).
    fn candidate_cycles(&self, index: usize, size: BlockSize) -> u32 {
        let sized = CompressedBlock {
            encoding: size.encoding,
            payload: Vec::new(),
            compressed_bits: size.compressed_bits,
            mag_bytes: self.geometry.mag_rounded_bytes(size.compressed_bits),
            burst_count: self.geometry.burst_count(size.compressed_bits),
        };
        self.candidates[index].compress_cycles(&sized)
    }

    fn sample_size(&mut self, block: &[u8]) -> Result<BlockSize, CodecError> {
        let raw = BlockSize { encoding: UNCOMPRESSED, compressed_bits: self.geometry.block_bits() };
        let raw_penalty = self.penalty(raw.compressed_bits, 0);
        self.sample_penalties.push(raw_penalty);
        let mut best = (raw_penalty, raw, None);
        let mut slowest = 0;
        for index in 0..self.candidates.len() {
            let size = self.candidates[index].compressed_size(block)?;
            slowest = slowest.max(self.candidate_cycles(index, size));
            let penalty = self.candidate_penalty(index, size);
            self.sample_penalties.push(penalty);
            if penalty < best.0 {
                best = (penalty, size, Some(index));
            }
        }
        self.last_compress_cycles = slowest;
        Ok(self.tag_size(best.1, best.2))
    }

    /// Picks the running-phase option from the samples (vote, else lowest total).
    fn decide(&mut self) {
        let options = self.candidates.len() + 1;
        let (votes, totals) = (&mut self.votes, &mut self.totals);
        votes.clear();
        votes.resize(options, 0);
        totals.clear();
        totals.resize(options, 0);
        for penalties in self.sample_penalties.chunks_exact(options) {
            let winner = (0..options).min_by_key(|&o| (penalties[o], o)).unwrap_or(0);
            votes[winner] += 1;
            for (total, &p) in totals.iter_mut().zip(penalties) {
                *total = total.saturating_add(p);
            }
        }
        // With 7 samples two options can both reach 3 votes: the most votes
        // win, then the lower total penalty, then the lower index (so
        // "uncompressed" wins when nothing saves space).
        let most_votes = votes.iter().copied().max().unwrap_or(0);
        let eligible = |o: &usize| most_votes < self.votes_needed || votes[*o] == most_votes;
        let option = (0..options).filter(eligible).min_by_key(|&o| (totals[o], o)).unwrap_or(0);
        self.phase_choices[option] += 1;
        self.choice = if option == 0 { Choice::Uncompressed } else { Choice::Candidate(option - 1) };
        self.sample_penalties.clear();
    }

    /// Maps a candidate's encoding to the global encoding id.
    fn tag_size(&self, size: BlockSize, candidate: Option<usize>) -> BlockSize {
        let encoding = match candidate {
            Some(index) if size.is_compressed() => {
                (self.encoding_offsets[index] + size.encoding as usize - 1) as EncodingId
            }
            _ => UNCOMPRESSED,
        };
        BlockSize { encoding, ..size }
    }

    /// Counts a block of the period and runs the vote after the last sample.
    fn advance(&mut self) {
        self.position += 1;
        if self.position == self.sample_blocks {
            self.decide();
        }
        if self.position == self.period_blocks {
            self.position = 0;
        }
    }

    /// The candidate and its own encoding id for a global encoding id.
    fn untag(&self, encoding: EncodingId) -> Option<(usize, EncodingId)> {
        let encoding = encoding as usize;
        self.encoding_offsets.iter().enumerate().rev().find(|&(_, &offset)| encoding >= offset).and_then(
            |(index, &offset)| {
                let local = encoding - offset + 1;
                (local < self.encoding_counts[index]).then_some((index, local as EncodingId))
            },
        )
    }
}

impl Codec for Adaptive {
    fn name(&self) -> &str {
        "adaptive"
    }

    fn geometry(&self) -> Geometry {
        self.geometry
    }

    fn compress_into(&mut self, block: &[u8], out: &mut CompressedBlock) -> Result<(), CodecError> {
        check_block_size(block, self.geometry)?;
        let candidate = if self.position < self.sample_blocks {
            self.sample_into(block, out)?
        } else {
            match self.choice {
                Choice::Uncompressed => {
                    self.last_compress_cycles = 0;
                    out.set_uncompressed(block, self.geometry);
                    None
                }
                Choice::Candidate(index) => {
                    self.candidates[index].compress_into(block, out)?;
                    self.last_compress_cycles = self.candidates[index].compress_cycles(out);
                    Some(index)
                }
            }
        };
        out.encoding = self.tag_size(out.size(), candidate).encoding;
        self.advance();
        Ok(())
    }

    fn compressed_size(&mut self, block: &[u8]) -> Result<BlockSize, CodecError> {
        check_block_size(block, self.geometry)?;
        let size = if self.position < self.sample_blocks {
            self.sample_size(block)?
        } else {
            match self.choice {
                Choice::Uncompressed => {
                    self.last_compress_cycles = 0;
                    BlockSize { encoding: UNCOMPRESSED, compressed_bits: self.geometry.block_bits() }
                }
                Choice::Candidate(index) => {
                    let size = self.candidates[index].compressed_size(block)?;
                    self.last_compress_cycles = self.candidate_cycles(index, size);
                    self.tag_size(size, Some(index))
                }
            }
        };
        self.advance();
        Ok(size)
    }

    fn decompress_into(&self, compressed: &CompressedBlock, out: &mut [u8]) -> Result<(), CodecError> {
        if compressed.encoding == UNCOMPRESSED {
            return decode_uncompressed_into(compressed, self.geometry, out);
        }
        let (index, local) = self.untag(compressed.encoding).ok_or(CodecError::UnknownEncoding(compressed.encoding))?;
        // The candidate reads its own encoding id: hand it a copy with that
        // id, in a reused buffer so decoding does not allocate.
        match self.untagged.try_borrow_mut() {
            Ok(mut inner) => {
                inner.payload.clear();
                inner.payload.extend_from_slice(&compressed.payload);
                inner.encoding = local;
                inner.compressed_bits = compressed.compressed_bits;
                inner.mag_bytes = compressed.mag_bytes;
                inner.burst_count = compressed.burst_count;
                self.candidates[index].decompress_into(&inner, out)
            }
            Err(_) => {
                let mut inner = compressed.clone();
                inner.encoding = local;
                self.candidates[index].decompress_into(&inner, out)
            }
        }
    }

    /// The slowest candidate: the bound a sampling phase costs.
    fn latency(&self) -> Latency {
        self.candidates.iter().map(|c| c.latency()).fold(Latency::default(), |acc, l| {
            Latency::new(acc.compress_cycles.max(l.compress_cycles), acc.decompress_cycles.max(l.decompress_cycles))
        })
    }

    fn compress_cycles(&self, _compressed: &CompressedBlock) -> u32 {
        self.last_compress_cycles
    }

    fn compressor_names(&self) -> Vec<&str> {
        self.candidates.iter().map(|c| c.name()).collect()
    }

    /// A sample ran every candidate; a running phase runs its candidate, or
    /// none when it bypasses compression.
    fn last_compressors(&self) -> CompressorsUsed {
        // `position` has moved past the block just compressed.
        let last = (self.position + self.period_blocks - 1) % self.period_blocks;
        if last < self.sample_blocks {
            return CompressorsUsed::All;
        }
        match self.choice {
            Choice::Uncompressed => CompressorsUsed::Nothing,
            Choice::Candidate(index) => CompressorsUsed::One(index),
        }
    }

    fn decompress_cycles(&self, encoding: EncodingId) -> u32 {
        match self.untag(encoding) {
            Some((index, local)) if encoding != UNCOMPRESSED => self.candidates[index].decompress_cycles(local),
            _ => 0,
        }
    }

    fn encoding_names(&self) -> Vec<String> {
        let mut names = vec!["uncompressed".to_string()];
        for candidate in &self.candidates {
            for local in candidate.encoding_names().iter().skip(1) {
                names.push(format!("{}/{local}", candidate.name()));
            }
        }
        names
    }

    fn end_sampling(&mut self) -> Result<(), CodecError> {
        self.candidates.iter_mut().try_for_each(|c| c.end_sampling())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bits::BitWriter;
    use crate::codec::none::NoCompression;
    use crate::codec::test_support::{assert_round_trips, structured_block};
    use proptest::prelude::*;

    /// A test codec that stores all-equal-byte blocks as that one byte, with
    /// a chosen latency, so votes and penalties can be steered exactly.
    struct Fill {
        name: &'static str,
        latency: Latency,
        geometry: Geometry,
    }

    impl Codec for Fill {
        fn name(&self) -> &str {
            self.name
        }
        fn geometry(&self) -> Geometry {
            self.geometry
        }
        fn compress_into(&mut self, block: &[u8], out: &mut CompressedBlock) -> Result<(), CodecError> {
            *out = if block.iter().all(|&b| b == block[0]) {
                let mut w = BitWriter::new();
                w.write(block[0] as u64, 8);
                CompressedBlock::from_bits(1, w, self.geometry)
            } else {
                CompressedBlock::uncompressed(block, self.geometry)
            };
            Ok(())
        }
        fn decompress_into(&self, c: &CompressedBlock, out: &mut [u8]) -> Result<(), CodecError> {
            check_block_size(out, self.geometry)?;
            match c.encoding {
                0 => decode_uncompressed_into(c, self.geometry, out),
                1 => {
                    let mut r = c.reader()?;
                    let byte = r.read(8)? as u8;
                    r.expect_end()?;
                    out.fill(byte);
                    Ok(())
                }
                e => Err(CodecError::UnknownEncoding(e)),
            }
        }
        fn latency(&self) -> Latency {
            self.latency
        }
        fn encoding_names(&self) -> Vec<String> {
            vec!["uncompressed".into(), "fill".into()]
        }
    }

    fn fill(name: &'static str, c: u32, d: u32) -> Box<dyn Codec> {
        Box::new(Fill { name, latency: Latency::new(c, d), geometry: Geometry::default() })
    }

    fn random_block(seed: u8) -> Vec<u8> {
        (0..128u32).map(|i| (i.wrapping_mul(97) as u8) ^ seed.wrapping_mul(31)).collect()
    }

    #[test]
    fn votes_for_the_lower_penalty() {
        // Both compress fill blocks to 8 bits; "fast" has the lower latency.
        let mut a = Adaptive::new(vec![fill("slow", 10, 10), fill("fast", 1, 1)], 6).unwrap();
        for _ in 0..7 {
            let c = a.compress(&[5u8; 128]).unwrap();
            assert_eq!(c.encoding, 2, "sample stored with its winner (fast/fill)");
            assert_eq!(a.compress_cycles(&c), 10, "sampling costs the slowest candidate");
            assert_eq!(a.compressors_used(), ["slow", "fast"], "and runs every candidate");
            assert_eq!(a.last_compressors(), CompressorsUsed::All);
        }
        assert_eq!(a.choice(), Choice::Candidate(1));
        let c = a.compress(&[9u8; 128]).unwrap();
        assert_eq!((c.encoding, c.compressed_bits), (2, 8));
        assert_eq!(a.compress_cycles(&c), 1);
        assert_eq!(a.compressors_used(), ["fast"]);
        assert_eq!(a.last_compressors(), CompressorsUsed::One(1));
        assert_eq!(a.compressor_names(), ["slow", "fast"]);
        assert_eq!(a.decompress_cycles(c.encoding), 1);
        assert_eq!(a.decompress(&c).unwrap(), vec![9u8; 128]);
    }

    #[test]
    fn large_lambda_prefers_not_compressing_over_slow_codecs() {
        // 8 + λ·(500+500) > 1024 once λ ≥ 2: storing raw is cheaper.
        let mut a = Adaptive::new(vec![fill("slow", 500, 500)], 2).unwrap();
        for _ in 0..7 {
            assert!(!a.compress(&[1u8; 128]).unwrap().is_compressed());
        }
        assert_eq!(a.choice(), Choice::Uncompressed);
        let c = a.compress(&[1u8; 128]).unwrap();
        assert!(!c.is_compressed());
        assert_eq!(a.compress_cycles(&c), 0, "a raw running phase bypasses the compressor");
        assert!(a.compressors_used().is_empty(), "and spends no compression energy");
        assert_eq!(a.last_compressors(), CompressorsUsed::Nothing);
    }

    #[test]
    fn uncompressible_samples_choose_none() {
        let mut a = Adaptive::new(vec![fill("f", 1, 1)], 6).unwrap();
        for s in 0..7 {
            a.compress(&random_block(s)).unwrap();
        }
        assert_eq!(a.choice(), Choice::Uncompressed);
    }

    #[test]
    fn three_of_seven_votes_win_else_lowest_total() {
        // 3 fill samples (winner: codec), 4 random (winner: none) -> none has 4 votes.
        let mut a = Adaptive::new(vec![fill("f", 1, 1)], 6).unwrap();
        for s in 0..7u8 {
            let block = if s < 3 { vec![s; 128] } else { random_block(s) };
            a.compress(&block).unwrap();
        }
        assert_eq!(a.choice(), Choice::Uncompressed);
        // Needing 5 votes with a 3:4 split, the lowest total penalty decides:
        // f = 3·(8 + 6·2) + 4·(1024 + 6·1) = 4180 < none = 7·1024 = 7168.
        let mut b = Adaptive::new(vec![fill("f", 1, 1)], 6).unwrap().with_schedule(7, 300, 5).unwrap();
        for s in 0..7u8 {
            let block = if s < 3 { vec![s; 128] } else { random_block(s) };
            b.compress(&block).unwrap();
        }
        assert_eq!(b.choice(), Choice::Candidate(0));
        // 4 votes for f beat 3 for none although both reach the 3-vote bar.
        let mut c = Adaptive::new(vec![fill("f", 1, 1)], 6).unwrap();
        for s in 0..7u8 {
            let block = if s < 4 { vec![s; 128] } else { random_block(s) };
            c.compress(&block).unwrap();
        }
        assert_eq!(c.choice(), Choice::Candidate(0));
    }

    #[test]
    fn resamples_every_period() {
        let mut a = Adaptive::new(vec![fill("f", 1, 1)], 6).unwrap().with_schedule(2, 5, 1).unwrap();
        let compressible = [3u8; 128];
        for _ in 0..5 {
            a.compress(&compressible).unwrap();
        }
        assert_eq!(a.choice(), Choice::Candidate(0));
        a.compress(&random_block(1)).unwrap();
        a.compress(&random_block(2)).unwrap();
        assert_eq!(a.choice(), Choice::Uncompressed);
        assert_eq!(a.phase_choices(), &[1, 1]);
        // Running phase of "none": even a compressible block is stored raw.
        assert!(!a.compress(&compressible).unwrap().is_compressed());
    }

    #[test]
    fn encodings_name_candidate_and_inner_encoding() {
        let a =
            Adaptive::new(vec![fill("a", 1, 1), Box::new(NoCompression::new(Geometry::default())), fill("b", 1, 1)], 6)
                .unwrap();
        assert_eq!(a.encoding_names(), vec!["uncompressed", "a/fill", "b/fill"]);
        assert_eq!(a.metadata_bits(), 2);
        assert_eq!(a.untag(1), Some((0, 1)));
        assert_eq!(a.untag(2), Some((2, 1)));
        assert_eq!(a.untag(3), None);
    }

    #[test]
    fn rejects_bad_configuration() {
        assert!(Adaptive::new(vec![], 6).is_err());
        let other = Box::new(NoCompression::new(Geometry::new(64, 32).unwrap()));
        assert!(Adaptive::new(vec![fill("f", 1, 1), other], 6).is_err());
        assert!(Adaptive::new(vec![fill("f", 1, 1)], 6).unwrap().with_schedule(0, 300, 1).is_err());
        assert!(Adaptive::new(vec![fill("f", 1, 1)], 6).unwrap().with_schedule(7, 300, 8).is_err());
    }

    proptest! {
        #[test]
        fn papers_candidates_round_trip(blocks in prop::collection::vec(structured_block(128), 1..24)) {
            let mut a = crate::codec::registry::build_str("adaptive", Geometry::default()).unwrap();
            for block in &blocks {
                assert_round_trips(a.as_mut(), block)?;
            }
        }

        #[test]
        fn round_trips_through_phases(blocks in prop::collection::vec(structured_block(128), 1..40)) {
            let mut a = Adaptive::new(vec![fill("f", 1, 1)], 6).unwrap().with_schedule(3, 10, 2).unwrap();
            for block in &blocks {
                assert_round_trips(&mut a, block)?;
            }
        }
    }
}
