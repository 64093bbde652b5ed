//! The checks of a codec's output: its sizes always, and with
//! `-memzip_verify` every stored block decoded back (an approximated one
//! compared only where its stored form says it approximates). More methods
//! of [`MemoryController`].

use super::{describe_mismatch, McError, MemoryController};
use crate::codec::CompressedBlock;

impl MemoryController {
    /// The sizes a codec reports must agree, or burst accounting is wrong.
    pub(super) fn check_output(&self, c: &CompressedBlock) -> Result<(), String> {
        let g = self.geometry;
        if c.encoding as usize >= self.encoding_names.len() {
            return Err(format!(
                "encoding id {} but the codec names {} encodings",
                c.encoding,
                self.encoding_names.len()
            ));
        }
        if c.compressed_bits > g.block_bits() {
            return Err(format!("{} bits is larger than the {}-bit block", c.compressed_bits, g.block_bits()));
        }
        if c.burst_count != g.burst_count(c.compressed_bits) || c.mag_bytes != g.mag_rounded_bytes(c.compressed_bits) {
            return Err(format!(
                "{} bits reported as {} bursts / {} bytes, expected {} / {}",
                c.compressed_bits,
                c.burst_count,
                c.mag_bytes,
                g.burst_count(c.compressed_bits),
                g.mag_rounded_bytes(c.compressed_bits)
            ));
        }
        Ok(())
    }

    /// An approximated block may differ from the block written only in the
    /// bytes its stored form approximates (the codec names them): the rest
    /// of the program's data must stay exact.
    pub(super) fn verify_approximated_bytes(
        &mut self,
        addr: u64,
        written: &[u8],
        approximated: &[u8],
        compressed: &CompressedBlock,
    ) -> Result<(), McError> {
        let mut may_change = std::mem::take(&mut self.may_change);
        may_change.resize(self.geometry.block_bytes(), false);
        let stray = self.codec.approximated_bytes(compressed, &mut may_change).map(|()| {
            written
                .iter()
                .zip(approximated)
                .zip(&may_change)
                .position(|((w, a), &approximable)| w != a && !approximable)
        });
        self.may_change = may_change;
        let why = match stray {
            Ok(None) => return Ok(()),
            Ok(Some(i)) => format!(
                "approximated byte {i} is {:#04x}, written {:#04x}, but the stored form does not approximate it",
                approximated[i], written[i]
            ),
            Err(e) => format!("the approximated bytes cannot be read from the stored form: {e}"),
        };
        self.stats.verify.checked += 1;
        self.stats.verify.failures += 1;
        Err(McError::VerifyFailed { codec: self.codec.name().to_string(), addr, why })
    }

    pub(super) fn verify(&mut self, addr: u64, original: &[u8], compressed: &CompressedBlock) -> Result<(), McError> {
        self.stats.verify.checked += 1;
        self.decoded.resize(self.geometry.block_bytes(), 0);
        let why = match self.codec.decompress_into(compressed, &mut self.decoded) {
            Ok(()) if self.decoded == original => return Ok(()),
            Ok(()) => describe_mismatch(original, &self.decoded),
            Err(e) => format!("decoding failed: {e}"),
        };
        self.stats.verify.failures += 1;
        let encoding = self.encoding_name(compressed.encoding).to_string();
        Err(McError::VerifyFailed {
            codec: self.codec.name().to_string(),
            addr,
            why: format!("encoding '{encoding}': {why}"),
        })
    }
}
