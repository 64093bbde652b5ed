//! The extern "C" functions called as C calls them (through the rlib): the
//! trace reads back record for record, compressing allocates nothing after
//! the first call, and handles behave as memzip.h documents.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::ffi::{CStr, CString};
use std::ptr;

use memzip::trace::{AccessKind, Record, TraceReader};
use memzip_capi::*;

/// Counts this thread's allocations (tests run on several threads).
struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

fn empty_error() -> memzip_error {
    memzip_error { code: -1, message: [0; 256] }
}

fn message(err: &memzip_error) -> String {
    unsafe { CStr::from_ptr(err.message.as_ptr()) }.to_string_lossy().into_owned()
}

fn new_codec(spec: &str, block_bytes: u32, granule_bytes: u32, costs: i32) -> *mut memzip_codec {
    let spec = CString::new(spec).unwrap();
    let mut err = empty_error();
    let codec = unsafe { memzip_codec_new(spec.as_ptr(), block_bytes, granule_bytes, costs, ptr::null(), &mut err) };
    assert!(!codec.is_null(), "{}", message(&err));
    codec
}

/// Blocks of the kinds GPU data has: zeros, small ints, pointers, random.
fn blocks(block_bytes: usize) -> Vec<Vec<u8>> {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    (0..40)
        .map(|i| {
            (0..block_bytes / 8)
                .flat_map(|w| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    let word = match i % 4 {
                        0 => 0,
                        1 => (w as u64 * 3) | ((w as u64 + 1) << 32),
                        2 => 0x7f00_dead_0000 + 8 * (w as u64 + i as u64),
                        _ => state,
                    };
                    word.to_le_bytes()
                })
                .collect()
        })
        .collect()
}

#[test]
fn a_trace_written_through_the_abi_reads_back_record_for_record() {
    let dir = std::env::temp_dir().join(format!("memzip-capi-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("t.trace");
    let c_path = CString::new(path.to_str().unwrap()).unwrap();
    let mut err = empty_error();
    let trace = unsafe { memzip_trace_create(c_path.as_ptr(), 64, &mut err) };
    assert!(!trace.is_null(), "{}", message(&err));
    let blocks = blocks(64);
    let expected: Vec<Record> = blocks
        .iter()
        .enumerate()
        .map(|(i, data)| Record {
            cycle: 10_000 - 3 * i as u64,
            kind: if i % 3 == 0 { AccessKind::Read } else { AccessKind::Write },
            controller: (i % 4) as u32,
            address: u64::MAX - 64 * i as u64,
            data: data.clone(),
        })
        .collect();
    for r in &expected {
        let kind = r.kind as u8;
        let rc = unsafe {
            memzip_trace_append(trace, kind, r.controller, r.cycle, r.address, r.data.as_ptr(), r.data.len(), &mut err)
        };
        assert_eq!(rc, MEMZIP_OK, "{}", message(&err));
    }
    assert_eq!(unsafe { memzip_trace_close(trace, &mut err) }, MEMZIP_OK, "{}", message(&err));
    let mut reader = TraceReader::new(std::fs::File::open(&path).unwrap()).unwrap();
    assert_eq!(reader.block_bytes(), 64);
    let mut got = Vec::new();
    let mut record = Record { cycle: 0, kind: AccessKind::Read, controller: 0, address: 0, data: Vec::new() };
    while reader.read_next(&mut record).unwrap() {
        got.push(record.clone());
    }
    assert_eq!(got, expected);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn compressing_decompressing_and_verifying_allocate_nothing_after_the_first_call() {
    let blocks = blocks(64);
    let specs = [
        "none",
        "bdi",
        "mag_bdi",
        "fpc",
        "cpack",
        "cpack_z",
        "bpc",
        "e2mc16",
        "e2mc4",
        "adaptive",
        "adaptive:lambda=0",
    ];
    for spec in specs {
        for costs in [MEMZIP_COSTS_DEFAULT, MEMZIP_COSTS_PAPER004] {
            let codec = new_codec(spec, 64, 1, costs);
            let mut err = empty_error();
            let mut info = memzip_block_info::default();
            let mut payload = [0u8; 72];
            let mut decoded = [0u8; 64];
            let mut round = |block: &[u8]| unsafe {
                let rc = memzip_compress(codec, block.as_ptr(), 64, payload.as_mut_ptr(), 72, &mut info, &mut err);
                assert_eq!(rc, MEMZIP_OK, "{spec}: {}", message(&err));
                let len = (info.compressed_bits as usize).div_ceil(8);
                let (encoding, bits) = (info.encoding, info.compressed_bits);
                let rc =
                    memzip_decompress(codec, payload.as_ptr(), len, encoding, bits, decoded.as_mut_ptr(), 64, &mut err);
                assert_eq!(rc, MEMZIP_OK, "{spec}: {}", message(&err));
                assert_eq!(&decoded[..], block);
                let rc = memzip_verify(codec, payload.as_ptr(), len, encoding, bits, block.as_ptr(), 64, &mut err);
                assert_eq!(rc, MEMZIP_OK, "{spec}: {}", message(&err));
            };
            // Warm-up: every block once (buffers grow to their size); then
            // E2MC's sampling phase ends and every block is coded once.
            blocks.iter().for_each(|block| round(block));
            assert_eq!(unsafe { memzip_codec_end_sampling(codec, ptr::null_mut()) }, MEMZIP_OK);
            blocks.iter().for_each(|block| round(block));
            let before = allocations();
            // 700 blocks: the adaptive selector samples, runs and resamples.
            for block in blocks.iter().cycle().take(700) {
                round(block.as_slice());
            }
            assert_eq!(allocations() - before, 0, "{spec} (costs {costs}) allocated per block");
            unsafe { memzip_codec_free(codec) };
        }
    }
}

#[test]
fn accessors_describe_the_codec_and_tolerate_null() {
    let codec = new_codec("adaptive:lambda=2,candidates=fpc/bdi", 128, 32, MEMZIP_COSTS_DEFAULT);
    let spec = unsafe { CStr::from_ptr(memzip_codec_spec(codec)) }.to_str().unwrap();
    assert_eq!(spec, "adaptive:lambda=2,candidates=fpc/bdi");
    let count = unsafe { memzip_codec_encoding_count(codec) };
    assert!(count > 2);
    let last = unsafe { CStr::from_ptr(memzip_codec_encoding_name(codec, count - 1)) }.to_str().unwrap();
    assert!(last.starts_with("bdi/"), "{last}");
    assert!(unsafe { memzip_codec_encoding_name(codec, count) }.is_null());
    assert_eq!(unsafe { memzip_codec_metadata_bits(codec) }, memzip::codec::bits_to_name(count as usize));
    unsafe { memzip_codec_free(codec) };
    assert!(unsafe { memzip_codec_spec(ptr::null()) }.is_null());
    assert_eq!(unsafe { memzip_codec_encoding_count(ptr::null()) }, 0);
    assert_eq!(unsafe { memzip_codec_stats_json(ptr::null(), ptr::null_mut(), 0) }, 0);
    let names = unsafe { CStr::from_ptr(memzip_codec_names()) }.to_str().unwrap();
    assert_eq!(names, memzip::codec::registry::codec_names().join(","));
}

#[test]
fn stats_count_blocks_encodings_energy_and_adaptive_choices() {
    let codec = new_codec("adaptive", 64, 1, MEMZIP_COSTS_PAPER004);
    let mut err = empty_error();
    let mut info = memzip_block_info::default();
    let mut payload = [0u8; 64];
    let (mut bits, mut pj) = (0u64, 0.0);
    for block in blocks(64).iter().cycle().take(320) {
        let rc = unsafe { memzip_compress(codec, block.as_ptr(), 64, payload.as_mut_ptr(), 64, &mut info, &mut err) };
        assert_eq!(rc, MEMZIP_OK);
        bits += info.compressed_bits as u64;
        pj += info.compress_pj;
    }
    let need = unsafe { memzip_codec_stats_json(codec, ptr::null_mut(), 0) };
    let mut buf = vec![0u8; need + 1];
    assert_eq!(unsafe { memzip_codec_stats_json(codec, buf.as_mut_ptr().cast(), buf.len()) }, need);
    let stats: serde_json::Value = serde_json::from_slice(&buf[..need]).unwrap();
    assert_eq!(stats["blocks"], 320);
    assert_eq!(stats["compressed_bits"], bits);
    assert!((stats["compress_pj"].as_f64().unwrap() - pj).abs() < 1e-6);
    let choices = &stats["adaptive"];
    assert_eq!(choices["sampled_blocks"], 14, "7 samples in each of two periods");
    let runs: u64 = choices["candidates"].as_array().unwrap().iter().map(|c| c["run_blocks"].as_u64().unwrap()).sum();
    assert_eq!(runs + choices["bypassed_blocks"].as_u64().unwrap() + 14, 320);
    assert_eq!(choices["candidates"][0]["candidate"], "fpc:comp_latency=3,decomp_latency=5,variant=paper004");
    unsafe { memzip_codec_free(codec) };
    let fpc = new_codec("fpc", 64, 1, MEMZIP_COSTS_DEFAULT);
    let need = unsafe { memzip_codec_stats_json(fpc, ptr::null_mut(), 0) };
    let mut buf = vec![0u8; need + 1];
    unsafe { memzip_codec_stats_json(fpc, buf.as_mut_ptr().cast(), buf.len()) };
    let stats: serde_json::Value = serde_json::from_slice(&buf[..need]).unwrap();
    assert!(stats.get("adaptive").is_none(), "no adaptive section for other codecs");
    assert_eq!(stats["encodings"][0]["name"], "uncompressed");
    unsafe { memzip_codec_free(fpc) };
}

#[test]
fn an_e2mc_table_file_starts_the_codec_coded() {
    use memzip::codec::e2mc::Sampler;
    let blocks = blocks(64);
    let mut sampler = Sampler::new(16).unwrap();
    blocks.iter().for_each(|b| sampler.feed(b));
    let table = sampler.build_table(64).unwrap();
    let dir = std::env::temp_dir().join(format!("memzip-capi-e2mc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("table.json");
    std::fs::write(&path, table.to_json()).unwrap();
    let c_path = CString::new(path.to_str().unwrap()).unwrap();
    let mut err = empty_error();
    for (spec, resolved) in [
        ("e2mc16", "e2mc16:sampling=offline"),
        ("slc:threshold=1", "slc:sampling=offline,threshold=1"),
        // λ = 0: E2MC's latencies would otherwise make storing raw cheaper.
        ("adaptive:lambda=0,candidates=e2mc16/e2mc8", "adaptive:lambda=0,candidates=e2mc16:sampling=offline/e2mc8"),
    ] {
        let c_spec = CString::new(spec).unwrap();
        let codec = unsafe { memzip_codec_new(c_spec.as_ptr(), 64, 1, 0, c_path.as_ptr(), &mut err) };
        assert!(!codec.is_null(), "{spec}: {}", message(&err));
        assert_eq!(unsafe { CStr::from_ptr(memzip_codec_spec(codec)) }.to_str().unwrap(), resolved);
        let mut info = memzip_block_info::default();
        let mut payload = [0u8; 64];
        let rc =
            unsafe { memzip_compress(codec, blocks[1].as_ptr(), 64, payload.as_mut_ptr(), 64, &mut info, &mut err) };
        assert_eq!(rc, MEMZIP_OK);
        assert_ne!(info.encoding, 0, "{spec}: coded from the first block, no sampling phase");
        unsafe { memzip_codec_free(codec) };
    }
    std::fs::write(&path, "{not json").unwrap();
    let c_spec = CString::new("e2mc16").unwrap();
    let codec = unsafe { memzip_codec_new(c_spec.as_ptr(), 64, 1, 0, c_path.as_ptr(), &mut err) };
    assert!(codec.is_null());
    assert_eq!(err.code, MEMZIP_ERR_SPEC);
    assert!(message(&err).contains("table.json"), "{}", message(&err));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_receivers_handle_decodes_a_senders_payloads() {
    // Adaptive: the encoding names candidate and encoding, so decoding does
    // not depend on the selector's state (README, "Which handle decodes what").
    for spec in ["adaptive", "adaptive:lambda=0", "fpc", "cpack_z"] {
        let sender = new_codec(spec, 64, 1, MEMZIP_COSTS_PAPER004);
        let receiver = new_codec(spec, 64, 1, MEMZIP_COSTS_PAPER004);
        let mut err = empty_error();
        let mut info = memzip_block_info::default();
        let (mut payload, mut decoded) = ([0u8; 64], [0u8; 64]);
        for block in blocks(64).iter().cycle().take(700) {
            unsafe {
                let rc = memzip_compress(sender, block.as_ptr(), 64, payload.as_mut_ptr(), 64, &mut info, &mut err);
                assert_eq!(rc, MEMZIP_OK);
                let len = (info.compressed_bits as usize).div_ceil(8);
                let (encoding, bits) = (info.encoding, info.compressed_bits);
                let rc = memzip_decompress(
                    receiver,
                    payload.as_ptr(),
                    len,
                    encoding,
                    bits,
                    decoded.as_mut_ptr(),
                    64,
                    &mut err,
                );
                assert_eq!(rc, MEMZIP_OK, "{spec}: {}", message(&err));
            }
            assert_eq!(&decoded[..], &block[..], "{spec}");
        }
        unsafe {
            memzip_codec_free(sender);
            memzip_codec_free(receiver);
        }
    }
}
