//! The baseline: every block is stored uncompressed.

use super::{check_block_size, decode_uncompressed, Codec, CompressedBlock, Latency, UNCOMPRESSED};
use crate::error::CodecError;
use crate::geometry::Geometry;

#[derive(Debug, Clone)]
pub struct NoCompression {
    geometry: Geometry,
}

impl NoCompression {
    pub fn new(geometry: Geometry) -> Self {
        NoCompression { geometry }
    }
}

impl Codec for NoCompression {
    fn name(&self) -> &str {
        "none"
    }

    fn geometry(&self) -> Geometry {
        self.geometry
    }

    fn compress(&mut self, block: &[u8]) -> Result<CompressedBlock, CodecError> {
        check_block_size(block, self.geometry)?;
        Ok(CompressedBlock::uncompressed(block, self.geometry))
    }

    fn decompress(&self, compressed: &CompressedBlock) -> Result<Vec<u8>, CodecError> {
        match compressed.encoding {
            UNCOMPRESSED => decode_uncompressed(compressed, self.geometry),
            other => Err(CodecError::UnknownEncoding(other)),
        }
    }

    fn latency(&self) -> Latency {
        Latency::new(0, 0)
    }

    fn encoding_names(&self) -> Vec<String> {
        vec!["uncompressed".into()]
    }

    /// The baseline keeps no metadata.
    fn metadata_bits(&self) -> u32 {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::test_support::{assert_round_trips, structured_block};
    use proptest::prelude::*;

    #[test]
    fn stores_raw() {
        let mut codec = NoCompression::new(Geometry::default());
        let block = vec![7u8; 128];
        let c = codec.compress(&block).unwrap();
        assert_eq!((c.compressed_bits, c.mag_bytes, c.burst_count), (1024, 128, 4));
        assert_eq!(codec.decompress(&c).unwrap(), block);
        assert!(codec.compress(&block[..64]).is_err());
    }

    proptest! {
        #[test]
        fn round_trips(block in structured_block(128)) {
            assert_round_trips(&mut NoCompression::new(Geometry::default()), &block)?;
        }
    }
}
