//! The analysed blocks of a `-memzip_trace` file, streamed: the one reader
//! `analyze`, `e2mc-profile` and the Shannon bound share.
//!
//! One reader thread decodes the trace into chunks of `chunk_blocks` blocks
//! and hands them over a channel that holds two chunks, so memory stays at a
//! few chunks whatever the trace size. Which blocks are analysed: write-backs
//! and host-to-device copies (what DRAM stores), and reads only when asked
//! (see [`crate::analyze`]).

use std::fs::File;
use std::path::Path;
use std::sync::mpsc::{sync_channel, SyncSender};
use std::thread;

use memzip::trace::{AccessKind, Record, TraceReader};
use serde::Serialize;

use crate::error::AnalyzeError;

/// Blocks per chunk handed from the reader to the codecs (4 MiB of 128 B
/// blocks). The codecs wait for each other at the end of every chunk, and
/// the reader skips a trace's reads between analysed blocks: 4096-block
/// chunks made Rodinia kmeans' analysis (9 reads per stored block) 16%
/// slower in wall-clock time (0.162 against 0.136 s, best of 3, 2 cores).
pub const DEFAULT_CHUNK_BLOCKS: usize = 32768;

/// Chunks in flight between the reader and the codecs.
const CHANNEL_CHUNKS: usize = 2;

/// Records of each kind in a trace.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct KindCounts {
    pub read: u64,
    pub write: u64,
    pub memcpy: u64,
}

impl KindCounts {
    pub(crate) fn count(&mut self, kind: AccessKind) {
        match kind {
            AccessKind::Read => self.read += 1,
            AccessKind::Write => self.write += 1,
            AccessKind::Memcpy => self.memcpy += 1,
        }
    }

    pub fn total(&self) -> u64 {
        self.read + self.write + self.memcpy
    }
}

/// Consecutive analysed blocks, `block_bytes` each, back to back.
pub(crate) struct Chunk {
    /// Index (among analysed blocks) of the first block.
    first: u64,
    data: Vec<u8>,
    block_bytes: usize,
}

impl Chunk {
    pub(crate) fn blocks(&self) -> impl Iterator<Item = (u64, &[u8])> + '_ {
        (self.first..).zip(self.data.chunks_exact(self.block_bytes))
    }
}

/// Opens a trace of a block size memzip's codecs take (the one rule of
/// `analyze` and `e2mc-profile`: a table profiled from blocks no codec can
/// be configured for would be of no use).
pub(crate) fn open_trace(path: &Path) -> Result<TraceReader<File>, AnalyzeError> {
    let file = File::open(path)
        .map_err(|e| AnalyzeError::Io { message: format!("{}: cannot open trace: {e}", path.display()), source: e })?;
    let reader = TraceReader::new(file).map_err(|e| AnalyzeError::of_trace(path, e))?;
    let block_bytes = reader.block_bytes();
    if !memzip::geometry::BLOCK_SIZES.contains(&block_bytes) {
        return Err(AnalyzeError::config(format!(
            "{}: trace of {block_bytes}-byte blocks: memzip's codecs take blocks of {:?} bytes",
            path.display(),
            memzip::geometry::BLOCK_SIZES
        )));
    }
    Ok(reader)
}

/// Reads the analysed blocks of a trace into chunks and sends them; stops
/// early (without error) when the receiver has gone.
fn read_chunks(
    path: &Path,
    mut reader: TraceReader<File>,
    include_reads: bool,
    chunk_blocks: usize,
    sender: SyncSender<Chunk>,
) -> Result<KindCounts, AnalyzeError> {
    let block_bytes = reader.block_bytes();
    let chunk_bytes = chunk_blocks.max(1) * block_bytes;
    let mut counts = KindCounts::default();
    let mut analysed = 0u64;
    let mut data = Vec::with_capacity(chunk_bytes);
    let mut first = 0u64;
    // One record buffer for the whole trace (no allocation per record).
    let mut record = Record { cycle: 0, kind: AccessKind::Read, controller: 0, address: 0, data: Vec::new() };
    while reader.read_next(&mut record).map_err(|e| AnalyzeError::of_trace(path, e))? {
        counts.count(record.kind);
        if record.kind == AccessKind::Read && !include_reads {
            continue;
        }
        data.extend_from_slice(&record.data);
        analysed += 1;
        if data.len() >= chunk_bytes {
            let full = std::mem::replace(&mut data, Vec::with_capacity(chunk_bytes));
            if sender.send(Chunk { first, data: full, block_bytes }).is_err() {
                return Ok(counts);
            }
            first = analysed;
        }
    }
    if !data.is_empty() {
        let _ = sender.send(Chunk { first, data, block_bytes });
    }
    Ok(counts)
}

/// Streams the analysed blocks of an opened trace to `consume`, chunk by
/// chunk in trace order, while a second thread reads ahead (at most
/// [`CHANNEL_CHUNKS`] chunks). Returns the records per kind and the number of
/// analysed blocks; errors (the trace's or `consume`'s) name the file.
pub(crate) fn stream_blocks(
    path: &Path,
    reader: TraceReader<File>,
    include_reads: bool,
    chunk_blocks: usize,
    mut consume: impl FnMut(&Chunk) -> Result<(), AnalyzeError>,
) -> Result<(KindCounts, u64), AnalyzeError> {
    let block_bytes = reader.block_bytes();
    thread::scope(|scope| {
        let (sender, receiver) = sync_channel(CHANNEL_CHUNKS);
        let reading = scope.spawn(move || read_chunks(path, reader, include_reads, chunk_blocks, sender));
        let mut blocks = 0u64;
        let mut consume_error = None;
        for chunk in receiver.iter() {
            if let Err(e) = consume(&chunk) {
                consume_error = Some(e.within(path.display()));
                break;
            }
            blocks += (chunk.data.len() / block_bytes) as u64;
        }
        // Dropping the receiver lets a reader blocked on a full channel stop.
        drop(receiver);
        let counts = reading
            .join()
            .map_err(|_| AnalyzeError::codec(format!("{}: trace reader thread panicked", path.display())))?;
        match consume_error {
            Some(e) => Err(e),
            None => Ok((counts?, blocks)),
        }
    })
}
