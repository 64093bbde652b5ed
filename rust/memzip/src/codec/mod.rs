//! The codec interface shared by every compressor, and the registry that
//! builds one from a config string.
//!
//! Like gem5's compressors, each codec is one small type in its own file over
//! a shared base: [`CompressedBlock`] carries the result, the helpers here
//! implement the parts every codec shares (the uncompressed fallback, the
//! "worth it" rule, block-size checks). Each codec file also declares the
//! codec ([`declaration`]: name, knobs, lossiness, energy figure, default
//! latency), and [`registry`] lists the declarations; a new codec is its file,
//! its `pub mod` line below and its line in `registry::REGISTERED`
//! (`rust/memzip/README.md`, "How to add a codec").

pub mod adaptive;
pub mod bdi;
pub mod bpc;
pub mod cost_profile;
pub mod cpack;
pub mod declaration;
pub mod e2mc;
pub mod fpc;
pub mod fpexp;
pub mod latency_knobs;
pub mod mag_bdi;
pub mod none;
pub mod registry;
pub mod slc;
pub mod spec;

#[cfg(test)]
mod contract_tests;
#[cfg(test)]
pub(crate) mod test_support;

use crate::bits::{BitReader, BitWriter};
use crate::error::{CodecError, Corruption};
use crate::geometry::Geometry;

/// Which encoding a block was stored with; this is what the metadata cache
/// keeps per block. Id 0 is "uncompressed" for every codec.
pub type EncodingId = u8;

/// The encoding id of a block stored as raw bytes.
pub const UNCOMPRESSED: EncodingId = 0;

/// Compression and decompression latency in DRAM-controller cycles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Latency {
    pub compress_cycles: u32,
    pub decompress_cycles: u32,
}

impl Latency {
    pub const fn new(compress_cycles: u32, decompress_cycles: u32) -> Self {
        Latency { compress_cycles, decompress_cycles }
    }
}

/// One block as it is stored in DRAM.
///
/// `Default` is an empty result to compress into: [`Codec::compress_into`]
/// reuses its payload buffer, so a caller that keeps one `CompressedBlock`
/// compresses block after block without allocating.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CompressedBlock {
    /// Encoding chosen (0 = uncompressed); stored as block metadata.
    pub encoding: EncodingId,
    /// The bitstream, MSB first; `compressed_bits` of it are meaningful.
    pub payload: Vec<u8>,
    /// Exact size of the stored representation.
    pub compressed_bits: usize,
    /// Bytes moved over the DRAM bus: `compressed_bits` rounded up to the MAG.
    pub mag_bytes: usize,
    /// Number of MAG-sized DRAM bursts.
    pub burst_count: usize,
}

impl CompressedBlock {
    /// Wraps a finished bitstream, sizing it for `geometry`.
    pub fn from_bits(encoding: EncodingId, writer: BitWriter, geometry: Geometry) -> Self {
        let (payload, compressed_bits) = writer.finish();
        CompressedBlock {
            encoding,
            payload,
            compressed_bits,
            mag_bytes: geometry.mag_rounded_bytes(compressed_bits),
            burst_count: geometry.burst_count(compressed_bits),
        }
    }

    /// The block stored as raw bytes.
    pub fn uncompressed(block: &[u8], geometry: Geometry) -> Self {
        CompressedBlock {
            encoding: UNCOMPRESSED,
            payload: block.to_vec(),
            compressed_bits: block.len() * 8,
            mag_bytes: geometry.mag_rounded_bytes(block.len() * 8),
            burst_count: geometry.burst_count(block.len() * 8),
        }
    }

    /// Keeps the encoded form only if it saves at least one burst, else stores
    /// the block raw (the papers' rule; see [`Geometry::worth_compressing`]).
    pub fn or_uncompressed(encoding: EncodingId, writer: BitWriter, block: &[u8], geometry: Geometry) -> Self {
        if geometry.worth_compressing(writer.bit_len()) {
            Self::from_bits(encoding, writer, geometry)
        } else {
            Self::uncompressed(block, geometry)
        }
    }

    /// A writer that appends to this block's payload buffer (cleared), so
    /// encoding into a reused block does not allocate; hand it back with
    /// [`CompressedBlock::set_bits`] or [`CompressedBlock::set_or_uncompressed`].
    pub fn take_writer(&mut self) -> BitWriter {
        BitWriter::reusing(std::mem::take(&mut self.payload))
    }

    /// In place [`CompressedBlock::from_bits`].
    pub fn set_bits(&mut self, encoding: EncodingId, writer: BitWriter, geometry: Geometry) {
        let (payload, compressed_bits) = writer.finish();
        self.payload = payload;
        self.set_sizes(encoding, compressed_bits, geometry);
    }

    /// In place [`CompressedBlock::uncompressed`], reusing the payload buffer.
    pub fn set_uncompressed(&mut self, block: &[u8], geometry: Geometry) {
        self.payload.clear();
        self.payload.extend_from_slice(block);
        self.set_sizes(UNCOMPRESSED, block.len() * 8, geometry);
    }

    /// In place [`CompressedBlock::or_uncompressed`]; the writer's buffer is
    /// kept for the next block either way.
    pub fn set_or_uncompressed(&mut self, encoding: EncodingId, writer: BitWriter, block: &[u8], geometry: Geometry) {
        if geometry.worth_compressing(writer.bit_len()) {
            self.set_bits(encoding, writer, geometry);
        } else {
            self.payload = writer.finish().0;
            self.set_uncompressed(block, geometry);
        }
    }

    /// Stores `bytes` (the first `compressed_bits.div_ceil(8)` of a
    /// finished bitstream) as the payload, reusing the buffer: for codecs
    /// that assemble their bitstream in a stack buffer.
    pub fn set_payload(&mut self, encoding: EncodingId, bytes: &[u8], compressed_bits: usize, geometry: Geometry) {
        debug_assert_eq!(bytes.len(), compressed_bits.div_ceil(8));
        self.payload.clear();
        self.payload.extend_from_slice(bytes);
        self.set_sizes(encoding, compressed_bits, geometry);
    }

    fn set_sizes(&mut self, encoding: EncodingId, compressed_bits: usize, geometry: Geometry) {
        self.encoding = encoding;
        self.compressed_bits = compressed_bits;
        self.mag_bytes = geometry.mag_rounded_bytes(compressed_bits);
        self.burst_count = geometry.burst_count(compressed_bits);
    }

    /// The encoding and size alone (what [`Codec::compressed_size`] returns).
    pub fn size(&self) -> BlockSize {
        BlockSize { encoding: self.encoding, compressed_bits: self.compressed_bits }
    }

    /// A reader over exactly the meaningful bits; errors if the payload is short.
    pub fn reader(&self) -> Result<BitReader<'_>, CodecError> {
        BitReader::new(&self.payload, self.compressed_bits)
    }

    pub fn is_compressed(&self) -> bool {
        self.encoding != UNCOMPRESSED
    }
}

/// A block's encoding and exact stored size, without its bitstream: what
/// size-only statistics (`memzip analyze` without `--verify`) need.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BlockSize {
    pub encoding: EncodingId,
    pub compressed_bits: usize,
}

impl BlockSize {
    pub fn is_compressed(&self) -> bool {
        self.encoding != UNCOMPRESSED
    }
}

/// Which compressors examined a block ([`Codec::last_compressors`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompressorsUsed {
    /// Every compressor: a plain codec's one, or all the adaptive
    /// selector's candidates while it samples.
    All,
    /// Only the compressor at this index of [`Codec::compressor_names`]
    /// (the adaptive selector's running phase).
    One(usize),
    /// None: compression was bypassed (the adaptive selector's raw phase).
    Nothing,
}

/// A lossless block codec.
///
/// `compress` takes `&mut self` because some codecs learn as they go
/// (E2MC's online sampling, the adaptive selector's sampling phases);
/// `decompress` never changes state, so decoding is exact whatever the order.
pub trait Codec: Send {
    /// The registry name, e.g. `mag_bdi`.
    fn name(&self) -> &str;

    fn geometry(&self) -> Geometry;

    /// Encodes one block of `geometry().block_bytes()` bytes into a
    /// caller-owned block whose payload buffer is reused: the allocation-free
    /// form the memory controller, the FFI and `analyze` call, and the one
    /// every codec implements.
    fn compress_into(&mut self, block: &[u8], out: &mut CompressedBlock) -> Result<(), CodecError>;

    /// Decodes a block back to exactly the original bytes into `out`, which
    /// must be exactly one block long. Corrupt or truncated input is an error,
    /// never a panic.
    fn decompress_into(&self, compressed: &CompressedBlock, out: &mut [u8]) -> Result<(), CodecError>;

    /// [`Codec::compress_into`] into a new block: same result, same state change.
    fn compress(&mut self, block: &[u8]) -> Result<CompressedBlock, CodecError> {
        // Room for a raw block and the writer's last 8-byte store: one allocation.
        let mut out = CompressedBlock { payload: Vec::with_capacity(block.len() + 8), ..CompressedBlock::default() };
        self.compress_into(block, &mut out)?;
        Ok(out)
    }

    /// [`Codec::decompress_into`] into a new buffer of one block.
    fn decompress(&self, compressed: &CompressedBlock) -> Result<Vec<u8>, CodecError> {
        let mut out = vec![0; self.geometry().block_bytes()];
        self.decompress_into(compressed, &mut out)?;
        Ok(out)
    }

    /// The encoding and size [`Codec::compress`] would return for `block`,
    /// with the same state change (sampling, phase counters), for callers
    /// that need sizes only. Codecs override it where the size is cheaper
    /// than the bitstream; it must always equal `compress(block)`'s.
    fn compressed_size(&mut self, block: &[u8]) -> Result<BlockSize, CodecError> {
        Ok(self.compress(block)?.size())
    }

    /// Compresses a block that the program allows to be approximated (its
    /// safe-to-approximate data) into `out`, and writes into `approximated`
    /// (one block long) the block as it will decompress. Returns whether the
    /// stored form is lossy. Lossless codecs store the block exactly (this
    /// default); a lossy codec (SLC) may store an approximation instead.
    fn compress_approximable_into(
        &mut self,
        block: &[u8],
        out: &mut CompressedBlock,
        approximated: &mut [u8],
    ) -> Result<bool, CodecError> {
        check_block_size(approximated, self.geometry())?;
        self.compress_into(block, out)?;
        approximated.copy_from_slice(block);
        Ok(false)
    }

    /// Marks in `may_change` (one flag per byte of the block) the bytes
    /// that `compressed`'s stored form may have approximated: what verify
    /// holds an approximated block to (every other byte must read back as
    /// written). A lossless codec changes none (this default).
    fn approximated_bytes(&self, _compressed: &CompressedBlock, may_change: &mut [bool]) -> Result<(), CodecError> {
        may_change.fill(false);
        Ok(())
    }

    /// Default latencies from the papers (overridable in the memory controller).
    fn latency(&self) -> Latency;

    /// Cycles the compressor spent on the block it just returned. Codecs whose
    /// cost varies (the adaptive selector samples every candidate, or bypasses
    /// compression) override this.
    fn compress_cycles(&self, _compressed: &CompressedBlock) -> u32 {
        self.latency().compress_cycles
    }

    /// Cycles to decode a block stored with `encoding`; raw blocks bypass the
    /// decompressor.
    fn decompress_cycles(&self, encoding: EncodingId) -> u32 {
        if encoding == UNCOMPRESSED {
            0
        } else {
            self.latency().decompress_cycles
        }
    }

    /// Registry names of the compressors this codec runs, in a fixed order:
    /// its own name, or the adaptive selector's candidates.
    /// [`Codec::last_compressors`] indexes into it.
    fn compressor_names(&self) -> Vec<&str> {
        vec![self.name()]
    }

    /// Which of [`Codec::compressor_names`] examined the block just returned
    /// by `compress`, without allocating (the C ABI charges energy per block
    /// from it). Codecs that compose others (the adaptive selector) override it.
    fn last_compressors(&self) -> CompressorsUsed {
        CompressorsUsed::All
    }

    /// Registry names of the compressors that examined the block just
    /// returned by `compress`, for the energy model (`mc::energy`).
    fn compressors_used(&self) -> Vec<&str> {
        let names = self.compressor_names();
        match self.last_compressors() {
            CompressorsUsed::All => names,
            CompressorsUsed::One(index) => names.get(index).into_iter().copied().collect(),
            CompressorsUsed::Nothing => Vec::new(),
        }
    }

    /// Human-readable names of the encoding ids this codec emits, indexed by id.
    fn encoding_names(&self) -> Vec<String>;

    /// Metadata bits the memory controller keeps per block: enough to name
    /// every encoding.
    fn metadata_bits(&self) -> u32 {
        bits_to_name(self.encoding_names().len())
    }

    /// Ends an online sampling phase (E2MC builds its code table here).
    /// Codecs that do not sample ignore it.
    fn end_sampling(&mut self) -> Result<(), CodecError> {
        Ok(())
    }

    /// Adds to `words` the words of `block` by the pattern of the
    /// adaptive-compression paper's Table II that stores them as `compress`
    /// would (index = pattern number - 1; a zero block's and a raw block's
    /// words all count under that pattern), as its Table VI reports "the most
    /// detected patterns". Returns false, counting nothing, for codecs the
    /// table does not list (only `fpc:variant=paper004`, `cpack_z` and `bdi`).
    fn count_table2_patterns(&mut self, _block: &[u8], _words: &mut Table2Patterns) -> Result<bool, CodecError> {
        Ok(false)
    }
}

/// Words per pattern of the adaptive-compression paper's Table II (index =
/// pattern number - 1): FPC and BDI number nine patterns, C-Pack+Z eight.
pub type Table2Patterns = [u64; 9];

/// Bits needed to name `count` distinct values (at least 1).
pub fn bits_to_name(count: usize) -> u32 {
    (usize::BITS - count.saturating_sub(1).leading_zeros()).max(1)
}

/// Rejects blocks of the wrong size before a codec looks at them.
pub fn check_block_size(block: &[u8], geometry: Geometry) -> Result<(), CodecError> {
    if block.len() == geometry.block_bytes() {
        Ok(())
    } else {
        Err(CodecError::WrongBlockSize { expected: geometry.block_bytes(), got: block.len() })
    }
}

/// Decodes the shared uncompressed encoding into `out` (one block long).
pub fn decode_uncompressed_into(
    compressed: &CompressedBlock,
    geometry: Geometry,
    out: &mut [u8],
) -> Result<(), CodecError> {
    check_block_size(out, geometry)?;
    let expected_bits = geometry.block_bits();
    if compressed.compressed_bits != expected_bits {
        return Err(CodecError::corrupt(
            Corruption::Inconsistent,
            format!("uncompressed block has {} bits, expected {expected_bits}", compressed.compressed_bits),
        ));
    }
    if compressed.payload.len() < geometry.block_bytes() {
        return Err(CodecError::Truncated { needed_bits: expected_bits, available_bits: compressed.payload.len() * 8 });
    }
    out.copy_from_slice(&compressed.payload[..geometry.block_bytes()]);
    Ok(())
}

/// Little-endian words of `width_bytes` (1, 2, 4 or 8) from a block: GPUs are
/// little-endian, so a 4-byte int in memory is a 4-byte LE word here.
pub fn words(block: &[u8], width_bytes: usize) -> impl Iterator<Item = u64> + '_ {
    block.chunks_exact(width_bytes).map(|chunk| {
        let mut buf = [0u8; 8];
        buf[..chunk.len()].copy_from_slice(chunk);
        u64::from_le_bytes(buf)
    })
}

/// Appends the `width_bytes` little-endian bytes of `word` to `out`.
pub fn push_word(out: &mut Vec<u8>, word: u64, width_bytes: usize) {
    out.extend_from_slice(&word.to_le_bytes()[..width_bytes]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_to_name_counts() {
        assert_eq!(bits_to_name(1), 1);
        assert_eq!(bits_to_name(2), 1);
        assert_eq!(bits_to_name(4), 2);
        assert_eq!(bits_to_name(5), 3);
        assert_eq!(bits_to_name(9), 4);
    }

    #[test]
    fn words_are_little_endian() {
        let block = [1u8, 0, 0, 0, 0xff, 0xff, 0xff, 0xff];
        assert_eq!(words(&block, 4).collect::<Vec<_>>(), vec![1, 0xffff_ffff]);
        let mut out = Vec::new();
        push_word(&mut out, 0x0102, 2);
        assert_eq!(out, vec![2, 1]);
    }
}
