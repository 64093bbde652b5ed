//! Time of one `memzip_compress` / `memzip_decompress` call on a 64-byte
//! block per codec (byte-granular link, paper-004 costs), beside the codec's
//! own `compress_into` on the same blocks: the difference is what the C ABI
//! adds (checks, panic guard, copying the payload, statistics, energy).
//!
//!     cargo bench -p memzip-capi --bench capi
//!
//! Blocks: a fixed mix of zeros, small integers, pointers, floats and random
//! bytes (`common`), cycled one per call.

use std::ffi::CString;
use std::ptr;

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use memzip::codec::cost_profile::CostProfile;
use memzip::codec::registry::build;
use memzip::codec::spec::CodecSpec;
use memzip::{CompressedBlock, Geometry};
use memzip_capi::*;

mod common;
use common::{blocks, BLOCK_BYTES};

fn bench(c: &mut Criterion) {
    let blocks = blocks();
    for spec in ["none", "bdi", "fpc", "cpack_z", "mag_bdi", "bpc", "adaptive"] {
        let text = CString::new(spec).unwrap();
        let mut err = memzip_error { code: 0, message: [0; 256] };
        let codec = unsafe {
            memzip_codec_new(text.as_ptr(), BLOCK_BYTES as u32, 1, MEMZIP_COSTS_PAPER004, ptr::null(), &mut err)
        };
        assert!(!codec.is_null());
        let mut group = c.benchmark_group(format!("capi/{spec}"));
        let mut payload = [0u8; BLOCK_BYTES + 8];
        let mut info = memzip_block_info::default();
        let mut next = 0;
        group.bench_function("memzip_compress", |b| {
            b.iter(|| {
                next = (next + 1) % blocks.len();
                let block = black_box(&blocks[next]);
                let rc = unsafe {
                    memzip_compress(
                        codec,
                        block.as_ptr(),
                        BLOCK_BYTES,
                        payload.as_mut_ptr(),
                        payload.len(),
                        &mut info,
                        &mut err,
                    )
                };
                black_box((rc, &info));
            })
        });
        // Each block's payload, to time decoding on its own.
        let compressed: Vec<(Vec<u8>, memzip_block_info)> = blocks
            .iter()
            .map(|block| {
                unsafe {
                    memzip_compress(
                        codec,
                        block.as_ptr(),
                        BLOCK_BYTES,
                        payload.as_mut_ptr(),
                        payload.len(),
                        &mut info,
                        &mut err,
                    )
                };
                (payload[..(info.compressed_bits as usize).div_ceil(8)].to_vec(), info)
            })
            .collect();
        let mut decoded = [0u8; BLOCK_BYTES];
        group.bench_function("memzip_decompress", |b| {
            b.iter(|| {
                next = (next + 1) % compressed.len();
                let (payload, info) = black_box(&compressed[next]);
                let rc = unsafe {
                    memzip_decompress(
                        codec,
                        payload.as_ptr(),
                        payload.len(),
                        info.encoding,
                        info.compressed_bits,
                        decoded.as_mut_ptr(),
                        BLOCK_BYTES,
                        &mut err,
                    )
                };
                black_box((rc, &decoded));
            })
        });
        unsafe { memzip_codec_free(codec) };

        // The same codec called directly, for the C ABI's own share.
        let geometry = Geometry::with_granule(BLOCK_BYTES, 1).unwrap();
        let resolved = CostProfile::Paper004.apply(&CodecSpec::parse(spec, geometry).unwrap()).unwrap();
        let mut direct = build(&resolved).unwrap();
        let mut out = CompressedBlock::default();
        group.bench_function("rust_compress_into", |b| {
            b.iter(|| {
                next = (next + 1) % blocks.len();
                direct.compress_into(black_box(&blocks[next]), &mut out).unwrap();
                black_box(&out);
            })
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
