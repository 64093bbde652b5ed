//! `memzip_block_info`: what the C ABI reports of one compressed block. Its
//! own module: the handle fills it and the statistics sum it.

/// What one compressed block costs and weighs (`memzip_block_info`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct memzip_block_info {
    pub encoding: u32,
    pub compressed_bits: u32,
    pub granule_bytes: u32,
    pub burst_count: u32,
    pub compress_cycles: u32,
    pub decompress_cycles: u32,
    pub compress_pj: f64,
    pub decompress_pj: f64,
}
