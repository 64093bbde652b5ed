//! memzip-capi: the C ABI of memzip's codecs (`include/memzip.h`), for
//! simulators written in C, C++ or Go (cgo). The README beside this crate
//! documents the API, ownership, errors and linking.
//!
//! Every `extern "C"` function checks its pointers and lengths, runs its body
//! under `catch_unwind`, and reports failures as a status code plus a
//! one-line message in the caller's `memzip_error`: nothing unwinds into the
//! caller, and null pointers or short buffers are errors, not undefined
//! behaviour. The safe logic lives in [`handle`], [`stats`] and [`trace`].

#![allow(non_camel_case_types)]
#![deny(unsafe_op_in_unsafe_fn)]

pub mod error;
pub mod handle;
pub mod info;
pub mod stats;
pub mod trace;

use std::ffi::{c_char, CStr, CString};
use std::ptr;
use std::sync::OnceLock;

use memzip::codec::registry;

pub use error::{
    memzip_error, Failure, MEMZIP_ERR_ARGUMENT, MEMZIP_ERR_CORRUPT, MEMZIP_ERR_IO, MEMZIP_ERR_MISMATCH,
    MEMZIP_ERR_PANIC, MEMZIP_ERR_SPEC, MEMZIP_OK,
};
pub use handle::{CodecHandle, MEMZIP_COSTS_DEFAULT, MEMZIP_COSTS_PAPER004};
pub use info::memzip_block_info;
pub use trace::TraceHandle;

use error::{guard, quiet, status};

/// The opaque `memzip_codec` of memzip.h.
pub type memzip_codec = CodecHandle;
/// The opaque `memzip_trace` of memzip.h.
pub type memzip_trace = TraceHandle;

/// A C string argument as UTF-8; `what` names it in the error.
///
/// # Safety
/// `text` is null or points to a NUL-terminated string.
unsafe fn c_str<'a>(text: *const c_char, what: &str) -> Result<&'a str, Failure> {
    if text.is_null() {
        return Err(Failure::argument(format!("{what} is NULL")));
    }
    // SAFETY: non-null, NUL-terminated by the caller's contract.
    unsafe { CStr::from_ptr(text) }.to_str().map_err(|_| Failure::argument(format!("{what} is not valid UTF-8")))
}

/// A read-only buffer argument. Null is an error unless `len` is 0.
///
/// # Safety
/// `data` is null or points to `len` readable bytes that stay valid and
/// unchanged for the returned lifetime (the call).
unsafe fn bytes<'a>(data: *const u8, len: usize, what: &str) -> Result<&'a [u8], Failure> {
    match (data.is_null(), len) {
        (true, 0) => Ok(&[]),
        (true, _) => Err(Failure::argument(format!("{what} is NULL"))),
        // SAFETY: non-null, `len` readable bytes by the caller's contract.
        (false, _) => Ok(unsafe { std::slice::from_raw_parts(data, len) }),
    }
}

/// A writable buffer argument; null is an error.
///
/// # Safety
/// `data` is null or points to `len` writable bytes, not aliased by any
/// other argument, valid for the call.
unsafe fn bytes_mut<'a>(data: *mut u8, len: usize, what: &str) -> Result<&'a mut [u8], Failure> {
    if data.is_null() {
        return Err(Failure::argument(format!("{what} is NULL")));
    }
    // SAFETY: non-null, `len` writable bytes by the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts_mut(data, len) })
}

/// # Safety
/// `handle` is null or a live handle this library returned.
unsafe fn handle_ref<'a, T>(handle: *const T, what: &str) -> Result<&'a T, Failure> {
    // SAFETY: null or live by the caller's contract.
    unsafe { handle.as_ref() }.ok_or_else(|| Failure::argument(format!("{what} is NULL")))
}

/// # Safety
/// `handle` is null or a live handle this library returned, used by no
/// other thread during the call.
unsafe fn handle_mut<'a, T>(handle: *mut T, what: &str) -> Result<&'a mut T, Failure> {
    // SAFETY: null or live and unshared by the caller's contract.
    unsafe { handle.as_mut() }.ok_or_else(|| Failure::argument(format!("{what} is NULL")))
}

/// Every codec name the registry knows, comma-separated (`none,bdi,...`);
/// static, never freed.
#[no_mangle]
pub extern "C" fn memzip_codec_names() -> *const c_char {
    static NAMES: OnceLock<CString> = OnceLock::new();
    quiet(ptr::null(), || {
        NAMES.get_or_init(|| CString::new(registry::codec_names().join(",")).unwrap_or_default()).as_ptr()
    })
}

/// The caller's error record, if it passed one.
///
/// # Safety
/// `err` is null or points to a `memzip_error` the caller owns for the call.
unsafe fn record<'a>(err: *mut memzip_error) -> Option<&'a mut memzip_error> {
    // SAFETY: null or valid by the caller's contract.
    unsafe { err.as_mut() }
}

/// Creates a codec; NULL on failure (`err` says why).
///
/// # Safety
/// `spec` is a NUL-terminated string; `e2mc_table_path` is null or one;
/// `err` is null or points to a `memzip_error`.
#[no_mangle]
pub unsafe extern "C" fn memzip_codec_new(
    spec: *const c_char,
    block_bytes: u32,
    granule_bytes: u32,
    costs: i32,
    e2mc_table_path: *const c_char,
    err: *mut memzip_error,
) -> *mut memzip_codec {
    guard("memzip_codec_new", unsafe { record(err) }, || {
        // SAFETY: the caller's contract above.
        let spec = unsafe { c_str(spec, "spec") }?;
        let table = match e2mc_table_path.is_null() {
            true => None,
            false => {
                // SAFETY: non-null, NUL-terminated by the caller's contract.
                let path = unsafe { c_str(e2mc_table_path, "e2mc_table_path") }?;
                Some((path, handle::read_table(path)?))
            }
        };
        let codec = CodecHandle::new(spec, block_bytes, granule_bytes, costs, table)?;
        Ok(Box::into_raw(Box::new(codec)))
    })
    .unwrap_or(ptr::null_mut())
}

/// Frees a codec; NULL is fine.
///
/// # Safety
/// `codec` is null or a live handle, not used again afterwards.
#[no_mangle]
pub unsafe extern "C" fn memzip_codec_free(codec: *mut memzip_codec) {
    if !codec.is_null() {
        // SAFETY: a live handle from Box::into_raw, given up by the caller.
        quiet((), || drop(unsafe { Box::from_raw(codec) }));
    }
}

/// The resolved spec, knobs included; valid until the codec is freed.
///
/// # Safety
/// `codec` is null or a live handle.
#[no_mangle]
pub unsafe extern "C" fn memzip_codec_spec(codec: *const memzip_codec) -> *const c_char {
    // SAFETY: null or live by the caller's contract.
    quiet(ptr::null(), || unsafe { codec.as_ref() }.map_or(ptr::null(), |c| c.spec().as_ptr()))
}

/// Number of encodings (ids 0..count); 0 for NULL.
///
/// # Safety
/// `codec` is null or a live handle.
#[no_mangle]
pub unsafe extern "C" fn memzip_codec_encoding_count(codec: *const memzip_codec) -> u32 {
    // SAFETY: null or live by the caller's contract.
    quiet(0, || unsafe { codec.as_ref() }.map_or(0, |c| c.encoding_names().len() as u32))
}

/// An encoding's name, valid until the codec is freed; NULL if out of range.
///
/// # Safety
/// `codec` is null or a live handle.
#[no_mangle]
pub unsafe extern "C" fn memzip_codec_encoding_name(codec: *const memzip_codec, encoding: u32) -> *const c_char {
    quiet(ptr::null(), || {
        // SAFETY: null or live by the caller's contract.
        let names = unsafe { codec.as_ref() }.map(|c| c.encoding_names());
        names.and_then(|names| names.get(encoding as usize)).map_or(ptr::null(), |name| name.as_ptr())
    })
}

/// Bits that name every encoding; 0 for NULL.
///
/// # Safety
/// `codec` is null or a live handle.
#[no_mangle]
pub unsafe extern "C" fn memzip_codec_metadata_bits(codec: *const memzip_codec) -> u32 {
    // SAFETY: null or live by the caller's contract.
    quiet(0, || unsafe { codec.as_ref() }.map_or(0, |c| c.metadata_bits()))
}

/// Compresses one block into `payload` and describes it in `info`.
///
/// # Safety
/// Pointers are null or valid for their lengths; `info` and `err` are null
/// or point to their structs; no other thread uses `codec` during the call.
#[no_mangle]
pub unsafe extern "C" fn memzip_compress(
    codec: *mut memzip_codec,
    block: *const u8,
    block_len: usize,
    payload: *mut u8,
    payload_cap: usize,
    info: *mut memzip_block_info,
    err: *mut memzip_error,
) -> i32 {
    status("memzip_compress", unsafe { record(err) }, || {
        // SAFETY: the caller's contract above.
        let codec = unsafe { handle_mut(codec, "codec") }?;
        let block = unsafe { bytes(block, block_len, "block") }?;
        let payload = unsafe { bytes_mut(payload, payload_cap, "payload") }?;
        let info = unsafe { info.as_mut() }.ok_or_else(|| Failure::argument("info is NULL"))?;
        *info = codec.compress(block, payload)?;
        Ok(())
    })
}

/// Decompresses one payload into `block` (`block_len` = the block size).
///
/// # Safety
/// As `memzip_compress`; `payload` may be null when `payload_len` is 0.
#[no_mangle]
pub unsafe extern "C" fn memzip_decompress(
    codec: *const memzip_codec,
    payload: *const u8,
    payload_len: usize,
    encoding: u32,
    compressed_bits: u32,
    block: *mut u8,
    block_len: usize,
    err: *mut memzip_error,
) -> i32 {
    status("memzip_decompress", unsafe { record(err) }, || {
        // SAFETY: the caller's contract above.
        let codec = unsafe { handle_ref(codec, "codec") }?;
        let payload = unsafe { bytes(payload, payload_len, "payload") }?;
        let block = unsafe { bytes_mut(block, block_len, "block") }?;
        codec.decompress(payload, encoding, compressed_bits, block)
    })
}

/// Decompresses and compares with `original`.
///
/// # Safety
/// As `memzip_decompress`.
#[no_mangle]
pub unsafe extern "C" fn memzip_verify(
    codec: *const memzip_codec,
    payload: *const u8,
    payload_len: usize,
    encoding: u32,
    compressed_bits: u32,
    original: *const u8,
    block_len: usize,
    err: *mut memzip_error,
) -> i32 {
    status("memzip_verify", unsafe { record(err) }, || {
        // SAFETY: the caller's contract above.
        let codec = unsafe { handle_ref(codec, "codec") }?;
        let payload = unsafe { bytes(payload, payload_len, "payload") }?;
        let original = unsafe { bytes(original, block_len, "original") }?;
        codec.verify(payload, encoding, compressed_bits, original)
    })
}

/// Ends an online E2MC sampling phase: the code table is built from the
/// blocks compressed so far, and later blocks are coded with it. A no-op
/// for codecs that do not sample.
///
/// # Safety
/// As `memzip_compress`.
#[no_mangle]
pub unsafe extern "C" fn memzip_codec_end_sampling(codec: *mut memzip_codec, err: *mut memzip_error) -> i32 {
    status("memzip_codec_end_sampling", unsafe { record(err) }, || {
        // SAFETY: the caller's contract above.
        unsafe { handle_mut(codec, "codec") }?.end_sampling()
    })
}

/// The handle's statistics as JSON. Returns the JSON's length (without the
/// NUL); writes at most `cap` bytes, snprintf-style: the text cut to
/// `cap - 1` bytes and a NUL whenever `cap > 0`. 0 for a NULL codec.
///
/// # Safety
/// `codec` is null or a live handle; `buf` is null or holds `cap` bytes.
#[no_mangle]
pub unsafe extern "C" fn memzip_codec_stats_json(codec: *const memzip_codec, buf: *mut c_char, cap: usize) -> usize {
    quiet(0, || {
        // SAFETY: null or live by the caller's contract.
        let Some(codec) = (unsafe { codec.as_ref() }) else { return 0 };
        let json = codec.stats_json();
        if !buf.is_null() && cap > 0 {
            let copied = json.len().min(cap - 1);
            // SAFETY: `buf` holds `cap` bytes; `copied + 1 <= cap`.
            unsafe {
                ptr::copy_nonoverlapping(json.as_ptr(), buf.cast::<u8>(), copied);
                *buf.add(copied) = 0;
            }
        }
        json.len()
    })
}

/// Creates (truncates) a trace file of `block_bytes`-byte blocks; NULL on
/// failure.
///
/// # Safety
/// `path` is a NUL-terminated string; `err` is null or a `memzip_error`.
#[no_mangle]
pub unsafe extern "C" fn memzip_trace_create(
    path: *const c_char,
    block_bytes: u32,
    err: *mut memzip_error,
) -> *mut memzip_trace {
    guard("memzip_trace_create", unsafe { record(err) }, || {
        // SAFETY: the caller's contract above.
        let path = unsafe { c_str(path, "path") }?;
        Ok(Box::into_raw(Box::new(TraceHandle::create(path, block_bytes)?)))
    })
    .unwrap_or(ptr::null_mut())
}

/// Appends one record; `kind`: 0 read, 1 write, 2 host-to-device copy.
///
/// # Safety
/// `trace` is null or a live trace used by no other thread; `block` holds
/// `block_len` bytes; `err` is null or a `memzip_error`.
#[no_mangle]
pub unsafe extern "C" fn memzip_trace_append(
    trace: *mut memzip_trace,
    kind: u8,
    source: u32,
    cycle: u64,
    address: u64,
    block: *const u8,
    block_len: usize,
    err: *mut memzip_error,
) -> i32 {
    status("memzip_trace_append", unsafe { record(err) }, || {
        // SAFETY: the caller's contract above.
        let trace = unsafe { handle_mut(trace, "trace") }?;
        let block = unsafe { bytes(block, block_len, "block") }?;
        trace.append(kind, source, cycle, address, block)
    })
}

/// Finishes the trace file and frees the handle (also when finishing
/// fails); NULL is fine.
///
/// # Safety
/// `trace` is null or a live trace, not used again afterwards.
#[no_mangle]
pub unsafe extern "C" fn memzip_trace_close(trace: *mut memzip_trace, err: *mut memzip_error) -> i32 {
    status("memzip_trace_close", unsafe { record(err) }, || {
        if trace.is_null() {
            return Ok(());
        }
        // SAFETY: a live trace from Box::into_raw, given up by the caller.
        unsafe { Box::from_raw(trace) }.close()
    })
}
