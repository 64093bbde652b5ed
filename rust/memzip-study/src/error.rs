//! Why a study step failed: an analysis of traces ([`AnalyzeError`]:
//! `memzip analyze`, `e2mc-profile`, the Shannon bound) or the reading of run
//! directories ([`RunError`]: `memzip table`, `report`, `power`). Each is a
//! variant a caller can act on, and the one line a person reads (`Display`,
//! the text the command prints).

use std::fmt;
use std::io;
use std::path::Path;

use memzip::trace::TraceError;

#[derive(Debug)]
pub enum AnalyzeError {
    /// The operating system could not open or read a trace.
    Io { message: String, source: io::Error },
    /// A file that is not a valid trace: its header, a record, or the
    /// stream cut off.
    Trace { message: String },
    /// A codec spec, geometry, E2MC table or option memzip cannot use.
    Config { message: String },
    /// What was asked has nothing to work on: no codec and no bound, no
    /// blocks to profile.
    Nothing { message: String },
    /// A codec failed on an analysed block, or a block did not decompress
    /// to its bytes (`verify`): a bug in a codec, not in the input.
    Codec { message: String },
}

impl AnalyzeError {
    pub fn config(message: impl fmt::Display) -> Self {
        AnalyzeError::Config { message: message.to_string() }
    }

    pub fn codec(message: impl fmt::Display) -> Self {
        AnalyzeError::Codec { message: message.to_string() }
    }

    pub fn nothing(message: impl fmt::Display) -> Self {
        AnalyzeError::Nothing { message: message.to_string() }
    }

    /// A trace reader's error on `path`: the operating system's (a file that
    /// cannot be read) or the content's.
    pub fn of_trace(path: &Path, error: TraceError) -> Self {
        let message = format!("{}: {error}", path.display());
        match error {
            TraceError::Io { source, .. } if source.raw_os_error().is_some() => AnalyzeError::Io { message, source },
            _ => AnalyzeError::Trace { message },
        }
    }

    /// The same error, its message prefixed with `prefix: ` (the file it is about).
    pub fn within(self, prefix: impl fmt::Display) -> Self {
        let add = |message: String| format!("{prefix}: {message}");
        match self {
            AnalyzeError::Io { message, source } => AnalyzeError::Io { message: add(message), source },
            AnalyzeError::Trace { message } => AnalyzeError::Trace { message: add(message) },
            AnalyzeError::Config { message } => AnalyzeError::Config { message: add(message) },
            AnalyzeError::Nothing { message } => AnalyzeError::Nothing { message: add(message) },
            AnalyzeError::Codec { message } => AnalyzeError::Codec { message: add(message) },
        }
    }

    fn message(&self) -> &str {
        match self {
            AnalyzeError::Io { message, .. }
            | AnalyzeError::Trace { message }
            | AnalyzeError::Config { message }
            | AnalyzeError::Nothing { message }
            | AnalyzeError::Codec { message } => message,
        }
    }
}

impl fmt::Display for AnalyzeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for AnalyzeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            AnalyzeError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// The commands print errors as one line of text.
impl From<AnalyzeError> for String {
    fn from(error: AnalyzeError) -> String {
        error.to_string()
    }
}

/// Why a run directory could not be read or compared.
#[derive(Debug)]
pub enum RunError {
    /// The path is not a directory.
    NotARun { message: String },
    /// The operating system could not read or list a file of the run.
    Io { message: String, source: io::Error },
    /// A file of the run that is not what memzip or the simulator writes:
    /// not JSON, a field of the wrong type, a line of `sim.log` or of the
    /// power report that does not parse, counters that go back.
    Malformed { message: String },
    /// What the run does not record: a field, the simulator's cycle count,
    /// the codec, the core clock, a power report.
    Missing { message: String },
    /// Files or runs that disagree: a power report's kernels and `sim.log`'s,
    /// two power reports in one run, two `none` runs of one program.
    Inconsistent { message: String },
}

impl RunError {
    pub fn io(message: impl fmt::Display, source: io::Error) -> Self {
        RunError::Io { message: message.to_string(), source }
    }

    pub fn malformed(message: impl fmt::Display) -> Self {
        RunError::Malformed { message: message.to_string() }
    }

    pub fn missing(message: impl fmt::Display) -> Self {
        RunError::Missing { message: message.to_string() }
    }

    pub fn inconsistent(message: impl fmt::Display) -> Self {
        RunError::Inconsistent { message: message.to_string() }
    }

    fn message(&self) -> &str {
        match self {
            RunError::Io { message, .. }
            | RunError::NotARun { message }
            | RunError::Malformed { message }
            | RunError::Missing { message }
            | RunError::Inconsistent { message } => message,
        }
    }
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for RunError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RunError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// The commands print errors as one line of text.
impl From<RunError> for String {
    fn from(error: RunError) -> String {
        error.to_string()
    }
}
