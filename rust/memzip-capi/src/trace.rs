//! The trace behind a `memzip_trace *`: memzip's block trace format
//! (`memzip::trace`) written to a file, so `memzip analyze` reads what a
//! simulator recorded.

use std::fs::File;
use std::io::BufWriter;

use memzip::trace::{AccessKind, TraceWriter};

use crate::error::Failure;

pub struct TraceHandle {
    path: String,
    writer: TraceWriter<BufWriter<File>>,
}

impl TraceHandle {
    /// Creates (or truncates) `path` and writes the trace header.
    pub fn create(path: &str, block_bytes: u32) -> Result<Self, Failure> {
        let file = File::create(path)
            .map_err(|e| Failure::new(crate::error::MEMZIP_ERR_IO, format!("cannot create trace '{path}': {e}")))?;
        let writer =
            TraceWriter::new(BufWriter::new(file), block_bytes as usize).map_err(|e| Failure::trace(path, &e))?;
        Ok(TraceHandle { path: path.to_string(), writer })
    }

    /// Appends one record. `kind`: 0 read, 1 write, 2 host-to-device copy;
    /// `source` is the trace's controller field (who sent the block).
    pub fn append(&mut self, kind: u8, source: u32, cycle: u64, address: u64, block: &[u8]) -> Result<(), Failure> {
        let kind = match kind {
            0 => AccessKind::Read,
            1 => AccessKind::Write,
            2 => AccessKind::Memcpy,
            other => {
                return Err(Failure::argument(format!(
                    "invalid trace record kind '{other}': expected 0 (read), 1 (write) or 2 (host-to-device copy)"
                )))
            }
        };
        self.writer.write_access(cycle, kind, source, address, block).map_err(|e| Failure::trace(&self.path, &e))
    }

    /// Ends the zstd frame and flushes the file.
    pub fn close(self) -> Result<(), Failure> {
        let buffered = self.writer.finish().map_err(|e| Failure::trace(&self.path, &e))?;
        buffered.into_inner().map_err(|e| {
            Failure::new(crate::error::MEMZIP_ERR_IO, format!("{}: trace flush: {}", self.path, e.error()))
        })?;
        Ok(())
    }
}
