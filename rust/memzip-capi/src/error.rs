//! Status codes, the caller's `memzip_error`, and the guard every entry
//! point runs in: a panic inside memzip becomes `MEMZIP_ERR_PANIC`, never an
//! unwind into C.

use std::ffi::c_char;
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};

use memzip::trace::TraceError;
use memzip::{CodecError, ConfigError};

pub const MEMZIP_OK: i32 = 0;
/// A null pointer, a wrong length, a buffer too small.
pub const MEMZIP_ERR_ARGUMENT: i32 = 1;
/// A bad codec spec, knob, cost profile or geometry.
pub const MEMZIP_ERR_SPEC: i32 = 2;
/// The decoder rejected its input.
pub const MEMZIP_ERR_CORRUPT: i32 = 3;
/// `memzip_verify`: the decoded block differs from the original.
pub const MEMZIP_ERR_MISMATCH: i32 = 4;
/// A file could not be read or written.
pub const MEMZIP_ERR_IO: i32 = 5;
/// A bug inside memzip, caught before it crossed the boundary.
pub const MEMZIP_ERR_PANIC: i32 = 6;

/// Bytes of `memzip_error::message`, its NUL included.
pub const MESSAGE_BYTES: usize = 256;

/// The caller's error record (`memzip_error` in memzip.h).
#[repr(C)]
pub struct memzip_error {
    pub code: i32,
    pub message: [c_char; MESSAGE_BYTES],
}

/// A failed call: its status code and one line saying why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub code: i32,
    pub message: String,
}

impl Failure {
    pub fn new(code: i32, message: impl Into<String>) -> Self {
        Failure { code, message: message.into() }
    }

    pub fn argument(message: impl Into<String>) -> Self {
        Failure::new(MEMZIP_ERR_ARGUMENT, message)
    }

    pub fn spec(error: &ConfigError) -> Self {
        Failure::new(MEMZIP_ERR_SPEC, error.to_string())
    }

    /// A decoder's error: a wrong block length is the caller's argument,
    /// anything else a corrupt payload.
    pub fn codec(context: &str, error: &CodecError) -> Self {
        let code = match error {
            CodecError::WrongBlockSize { .. } => MEMZIP_ERR_ARGUMENT,
            _ => MEMZIP_ERR_CORRUPT,
        };
        Failure::new(code, format!("{context}: {error}"))
    }

    pub fn trace(path: &str, error: &TraceError) -> Self {
        let code = match error {
            TraceError::WrongDataSize { .. } | TraceError::BadBlockSize { .. } => MEMZIP_ERR_ARGUMENT,
            _ => MEMZIP_ERR_IO,
        };
        Failure::new(code, format!("{path}: {error}"))
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Writes a status into the caller's record (if it passed one): the code,
/// and the message as one NUL-terminated line, cut to fit on a character
/// boundary.
pub fn report(err: Option<&mut memzip_error>, code: i32, message: &str) {
    let Some(err) = err else { return };
    let mut text = [0 as c_char; MESSAGE_BYTES];
    let mut len = 0;
    for ch in message.chars().map(|c| if c.is_control() { ' ' } else { c }) {
        let mut utf8 = [0u8; 4];
        let bytes = ch.encode_utf8(&mut utf8).as_bytes();
        if len + bytes.len() >= MESSAGE_BYTES {
            break;
        }
        for &byte in bytes {
            text[len] = byte as c_char;
            len += 1;
        }
    }
    err.code = code;
    err.message = text;
}

/// Writes success into the caller's record without touching its message
/// past the first byte (a success costs two stores).
fn report_ok(err: Option<&mut memzip_error>) {
    if let Some(err) = err {
        err.code = MEMZIP_OK;
        err.message[0] = 0;
    }
}

/// The text of a caught panic.
pub fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string())
}

/// Runs one entry point's body: reports its outcome into `err` and returns
/// the value, or the status code of the failure. A panic is caught here.
pub fn guard<T>(
    what: &str,
    err: Option<&mut memzip_error>,
    body: impl FnOnce() -> Result<T, Failure>,
) -> Result<T, i32> {
    let outcome = catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|panic| {
        Err(Failure::new(
            MEMZIP_ERR_PANIC,
            format!("{what}: internal error in memzip (a bug; please report it): {}", panic_message(&*panic)),
        ))
    });
    match outcome {
        Ok(value) => {
            report_ok(err);
            Ok(value)
        }
        Err(failure) => {
            report(err, failure.code, &failure.message);
            Err(failure.code)
        }
    }
}

/// [`guard`] for entry points that return a status code.
pub fn status(what: &str, err: Option<&mut memzip_error>, body: impl FnOnce() -> Result<(), Failure>) -> i32 {
    match guard(what, err, body) {
        Ok(()) => MEMZIP_OK,
        Err(code) => code,
    }
}

/// For entry points without an error record (accessors): a panic returns
/// `fallback`.
pub fn quiet<T>(fallback: T, body: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or(fallback)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fresh() -> memzip_error {
        memzip_error { code: -1, message: [b'x' as c_char; MESSAGE_BYTES] }
    }

    fn text(err: &memzip_error) -> String {
        let bytes: Vec<u8> = err.message.iter().take_while(|&&c| c != 0).map(|&c| c as u8).collect();
        String::from_utf8(bytes).unwrap()
    }

    #[test]
    fn messages_are_one_terminated_line_cut_on_a_character() {
        let mut err = fresh();
        report(Some(&mut err), MEMZIP_ERR_SPEC, "two\nlines");
        assert_eq!((err.code, text(&err).as_str()), (MEMZIP_ERR_SPEC, "two lines"));
        let long = "é".repeat(300);
        report(Some(&mut err), MEMZIP_ERR_IO, &long);
        let cut = text(&err);
        assert_eq!(cut.len(), 254, "127 two-byte characters, then the NUL");
        report(None, MEMZIP_ERR_IO, "no record: nothing written");
    }

    #[test]
    fn guard_catches_panics_and_reports() {
        let mut err = fresh();
        let result: Result<u8, i32> = guard("memzip_test", Some(&mut err), || panic!("boom"));
        assert_eq!(result, Err(MEMZIP_ERR_PANIC));
        assert!(text(&err).starts_with("memzip_test: internal error in memzip"), "{}", text(&err));
        assert!(text(&err).ends_with("boom"));
        assert_eq!(guard("f", Some(&mut err), || Ok(7)), Ok(7));
        assert_eq!((err.code, text(&err).as_str()), (MEMZIP_OK, ""));
        assert_eq!(status("f", Some(&mut err), || Err(Failure::argument("block is null"))), MEMZIP_ERR_ARGUMENT);
        assert_eq!(text(&err), "block is null");
        assert_eq!(quiet(0u32, || panic!("quiet")), 0);
    }
}
