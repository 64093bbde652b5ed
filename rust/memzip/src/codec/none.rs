//! The baseline: every block is stored uncompressed.

use super::declaration::{Declaration, DefaultLatency, EnergyFigure};
use super::{check_block_size, decode_uncompressed_into, BlockSize, Codec, CompressedBlock, Latency, UNCOMPRESSED};
use crate::error::CodecError;
use crate::geometry::Geometry;
use crate::mc::energy::CodecEnergy;

/// No compressor, no decompressor: no latency.
const LATENCY: Latency = Latency::new(0, 0);

pub const DECLARATIONS: &[Declaration] = &[Declaration {
    name: "none",
    summary: "stores every block raw (the baseline)",
    knobs: &[],
    lossy: false,
    energy: EnergyFigure::PerBlock {
        per_block: |_, _| CodecEnergy::default(),
        source: "no compressor or decompressor: blocks pass through (0 pJ by construction)",
    },
    latency: DefaultLatency::Cycles(LATENCY),
    build: |spec, _| Ok(Box::new(NoCompression::new(spec.geometry))),
}];

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

    fn compress_into(&mut self, block: &[u8], out: &mut CompressedBlock) -> Result<(), CodecError> {
        check_block_size(block, self.geometry)?;
        out.set_uncompressed(block, self.geometry);
        Ok(())
    }

    fn decompress_into(&self, compressed: &CompressedBlock, out: &mut [u8]) -> Result<(), CodecError> {
        match compressed.encoding {
            UNCOMPRESSED => decode_uncompressed_into(compressed, self.geometry, out),
            other => Err(CodecError::UnknownEncoding(other)),
        }
    }

    fn compressed_size(&mut self, block: &[u8]) -> Result<BlockSize, CodecError> {
        check_block_size(block, self.geometry)?;
        Ok(BlockSize { encoding: UNCOMPRESSED, compressed_bits: self.geometry.block_bits() })
    }

    fn latency(&self) -> Latency {
        LATENCY
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
