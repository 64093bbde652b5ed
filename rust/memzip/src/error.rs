//! Error types. Decoders never panic on bad input: they return [`CodecError`].
//! Configuration mistakes return [`ConfigError`], which names the knob and the
//! values it accepts.

use std::fmt;

/// Why a compressed block could not be decoded (or a block not encoded).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CodecError {
    /// The payload ended before the decoder had read everything it needed.
    Truncated { needed_bits: usize, available_bits: usize },
    /// The payload is not a valid encoding: `kind` says what is wrong (for
    /// a caller to match), `detail` where and how (for a person).
    Corrupt { kind: Corruption, detail: String },
    /// The encoding id is not one this codec produces.
    UnknownEncoding(EncodingIdValue),
    /// The input block does not have the configured block size.
    WrongBlockSize { expected: usize, got: usize },
}

/// What is wrong with a corrupt payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Corruption {
    /// A prefix, token or codeword that names nothing in the codec's code.
    UnknownCode,
    /// An index or pointer (a table entry, a way's start, a bit position)
    /// outside what it indexes.
    OutOfRange,
    /// Bits left over, or padding that is not zero, after the last field.
    TrailingBits,
    /// Fields that do not fit together (a run longer than the block, ways
    /// that overlap or leave gaps, a zero block whose payload is not zero, a
    /// size that disagrees with the encoding).
    Inconsistent,
    /// A block coded with a table the codec does not have (E2MC before its
    /// online sampling phase built one).
    NoCodeTable,
}

impl CodecError {
    /// A corrupt payload: what is wrong and, for the message, where.
    pub fn corrupt(kind: Corruption, detail: impl Into<String>) -> Self {
        CodecError::Corrupt { kind, detail: detail.into() }
    }
}

/// Encoding ids as stored in error messages (kept separate to avoid a cycle with `codec`).
pub type EncodingIdValue = u8;

impl fmt::Display for CodecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CodecError::Truncated { needed_bits, available_bits } => {
                write!(f, "compressed payload truncated: needed {needed_bits} bits, only {available_bits} available")
            }
            CodecError::Corrupt { detail, .. } => write!(f, "corrupt compressed payload: {detail}"),
            CodecError::UnknownEncoding(id) => write!(f, "unknown encoding id {id}"),
            CodecError::WrongBlockSize { expected, got } => {
                write!(f, "block has {got} bytes, codec is configured for {expected}-byte blocks")
            }
        }
    }
}

impl std::error::Error for CodecError {}

/// A configuration value that memzip cannot use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The knob or flag, e.g. `codec`, `block_bytes`, `e2mc.pdw`.
    pub knob: String,
    /// The value that was given.
    pub value: String,
    /// What would have been accepted (a list of names or a range).
    pub expected: String,
}

impl ConfigError {
    pub fn new(knob: impl Into<String>, value: impl Into<String>, expected: impl Into<String>) -> Self {
        ConfigError { knob: knob.into(), value: value.into(), expected: expected.into() }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid {} '{}': expected {}", self.knob, self.value, self.expected)
    }
}

impl std::error::Error for ConfigError {}
