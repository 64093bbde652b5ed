//! DRAM block traces (`-memzip_trace FILE`): every block the memory
//! controllers read or write, with its contents, for offline codec studies.
//!
//! # Format (version 1)
//! One zstd stream (with content checksums) whose decompressed bytes are:
//!
//! | field | encoding |
//! | --- | --- |
//! | magic | the 8 bytes `MZTRACE\0` |
//! | version | u16 little-endian, `1` |
//! | block_bytes | u32 little-endian, 1..=[`MAX_BLOCK_BYTES`] |
//!
//! then records, back to back, until the stream ends:
//!
//! | field | encoding |
//! | --- | --- |
//! | kind | u8: 0 read, 1 write-back, 2 host-to-device copy |
//! | controller | LEB128 varint (memory controller id) |
//! | cycle | zigzag LEB128 varint of the wrapping difference from the previous record's cycle (first: from 0) |
//! | address | zigzag LEB128 varint of the wrapping difference from the previous record's address (first: from 0) |
//! | data | `block_bytes` raw bytes |
//!
//! Deltas keep the usual record (same controller, a few cycles later, a
//! nearby block) at ~4 bytes of header before zstd; wrapping arithmetic makes
//! any u64 sequence round-trip exactly. Writer and reader stream: memory is
//! bounded by zstd's window and one record. A corrupt or truncated trace is a
//! [`TraceError`] naming the record and field, never a panic.

use std::fmt;
use std::io::{self, BufRead, Read, Write};

/// The first bytes of every decompressed trace.
pub const MAGIC: [u8; 8] = *b"MZTRACE\0";
/// The format version this module writes and reads.
pub const VERSION: u16 = 1;
/// Largest block a trace may declare, so a corrupt header cannot make the
/// reader allocate without bound.
pub const MAX_BLOCK_BYTES: u32 = 4096;
/// zstd level used by [`TraceWriter::new`]: fast enough to run inside the
/// simulator, and block data compresses well at it.
pub const DEFAULT_LEVEL: i32 = 3;

/// What a DRAM block access was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AccessKind {
    Read = 0,
    Write = 1,
    /// A host-to-device copy (initial contents, not kernel traffic).
    Memcpy = 2,
}

impl AccessKind {
    fn from_byte(byte: u8) -> Option<Self> {
        match byte {
            0 => Some(AccessKind::Read),
            1 => Some(AccessKind::Write),
            2 => Some(AccessKind::Memcpy),
            _ => None,
        }
    }
}

/// One block access.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub cycle: u64,
    pub kind: AccessKind,
    /// Memory controller that served the access.
    pub controller: u32,
    pub address: u64,
    /// The block's bytes (`block_bytes` of them).
    pub data: Vec<u8>,
}

/// Why a trace could not be written or read.
#[derive(Debug)]
pub enum TraceError {
    /// The underlying reader/writer failed, or the zstd stream is invalid.
    Io {
        context: String,
        source: io::Error,
    },
    /// The decompressed stream does not start with [`MAGIC`].
    BadMagic {
        found: Vec<u8>,
    },
    UnsupportedVersion {
        found: u16,
    },
    BadBlockSize {
        found: u64,
    },
    /// The stream ended inside the header or a record.
    Truncated {
        record: Option<u64>,
        field: &'static str,
    },
    /// The file holds compressed bytes but ends before zstd could decode any
    /// of them: it was cut off inside the first zstd block (the header is not
    /// what is wrong).
    CutInFirstBlock {
        compressed_bytes: u64,
    },
    /// A field holds a value the format does not allow.
    Corrupt {
        record: u64,
        why: String,
    },
    /// A record handed to the writer has the wrong number of bytes.
    WrongDataSize {
        expected: usize,
        got: usize,
    },
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TraceError::Io { context, source } => write!(f, "trace {context}: {source}"),
            TraceError::BadMagic { found } => {
                write!(f, "not a memzip trace: magic is {found:02x?}, expected {MAGIC:02x?} (\"MZTRACE\\0\")")
            }
            TraceError::UnsupportedVersion { found } => {
                write!(f, "unsupported trace version {found} (this build reads version {VERSION})")
            }
            TraceError::BadBlockSize { found } => {
                write!(f, "trace declares {found}-byte blocks, expected 1..={MAX_BLOCK_BYTES}")
            }
            TraceError::Truncated { record: None, field } => write!(f, "trace truncated in the header ({field})"),
            TraceError::CutInFirstBlock { compressed_bytes } => write!(
                f,
                "trace truncated: the file ends after {compressed_bytes} bytes, inside the first zstd block, \
                 so no record can be decoded (was it cut off while being written or copied?)"
            ),
            TraceError::Truncated { record: Some(n), field } => write!(f, "trace truncated in record {n} ({field})"),
            TraceError::Corrupt { record, why } => write!(f, "corrupt trace record {record}: {why}"),
            TraceError::WrongDataSize { expected, got } => {
                write!(f, "trace record has {got} data bytes, the trace holds {expected}-byte blocks")
            }
        }
    }
}

impl std::error::Error for TraceError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TraceError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

fn zigzag(delta: u64) -> u64 {
    let d = delta as i64;
    ((d << 1) ^ (d >> 63)) as u64
}

fn unzigzag(z: u64) -> u64 {
    (z >> 1) ^ (z & 1).wrapping_neg()
}

fn push_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Writes a trace into `W` through a zstd encoder. Call [`finish`](Self::finish)
/// at the end: without it the zstd frame is incomplete and readers report
/// the trace as truncated.
pub struct TraceWriter<W: Write> {
    encoder: zstd::Encoder<'static, W>,
    block_bytes: usize,
    prev_cycle: u64,
    prev_address: u64,
    records: u64,
    /// One encoded record, reused so each record is one write into zstd.
    scratch: Vec<u8>,
}

impl<W: Write> TraceWriter<W> {
    /// Starts a trace of `block_bytes`-byte blocks at [`DEFAULT_LEVEL`].
    pub fn new(writer: W, block_bytes: usize) -> Result<Self, TraceError> {
        Self::with_level(writer, block_bytes, DEFAULT_LEVEL)
    }

    pub fn with_level(writer: W, block_bytes: usize, level: i32) -> Result<Self, TraceError> {
        if block_bytes == 0 || block_bytes > MAX_BLOCK_BYTES as usize {
            return Err(TraceError::BadBlockSize { found: block_bytes as u64 });
        }
        let io_err = |context: &str| {
            let context = context.to_string();
            move |source| TraceError::Io { context, source }
        };
        let mut encoder = zstd::Encoder::new(writer, level).map_err(io_err("zstd encoder setup"))?;
        encoder.include_checksum(true).map_err(io_err("zstd encoder setup"))?;
        let mut header = Vec::with_capacity(14);
        header.extend_from_slice(&MAGIC);
        header.extend_from_slice(&VERSION.to_le_bytes());
        header.extend_from_slice(&(block_bytes as u32).to_le_bytes());
        encoder.write_all(&header).map_err(io_err("header write"))?;
        Ok(TraceWriter {
            encoder,
            block_bytes,
            prev_cycle: 0,
            prev_address: 0,
            records: 0,
            scratch: Vec::with_capacity(block_bytes + 32),
        })
    }

    pub fn block_bytes(&self) -> usize {
        self.block_bytes
    }

    /// Records written so far.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// Appends one access; `data` must hold `block_bytes` bytes.
    pub fn write_access(
        &mut self,
        cycle: u64,
        kind: AccessKind,
        controller: u32,
        address: u64,
        data: &[u8],
    ) -> Result<(), TraceError> {
        if data.len() != self.block_bytes {
            return Err(TraceError::WrongDataSize { expected: self.block_bytes, got: data.len() });
        }
        let buf = &mut self.scratch;
        buf.clear();
        buf.push(kind as u8);
        push_varint(buf, controller as u64);
        push_varint(buf, zigzag(cycle.wrapping_sub(self.prev_cycle)));
        push_varint(buf, zigzag(address.wrapping_sub(self.prev_address)));
        buf.extend_from_slice(data);
        self.encoder
            .write_all(buf)
            .map_err(|source| TraceError::Io { context: format!("write of record {}", self.records), source })?;
        self.prev_cycle = cycle;
        self.prev_address = address;
        self.records += 1;
        Ok(())
    }

    pub fn write(&mut self, record: &Record) -> Result<(), TraceError> {
        self.write_access(record.cycle, record.kind, record.controller, record.address, &record.data)
    }

    /// Ends the zstd frame, flushes, and hands back the writer.
    pub fn finish(self) -> Result<W, TraceError> {
        let mut writer = self.encoder.finish().map_err(|source| TraceError::Io { context: "finish".into(), source })?;
        writer.flush().map_err(|source| TraceError::Io { context: "flush".into(), source })?;
        Ok(writer)
    }
}

/// Reads a trace record by record; an iterator of `Result<Record>` that
/// stops after the first error.
/// Counts the bytes read from the file, to tell a cut-off zstd stream from
/// a short header.
struct Counting<R> {
    inner: R,
    bytes: u64,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }
}

/// Largest zstd frame header (magic 4 + descriptor 1 + window 1 + dictionary
/// id 4 + content size 8 bytes): a file no longer than this holds no block yet.
const ZSTD_FRAME_HEADER_MAX: u64 = 18;

/// Decompressed bytes buffered between zstd and the record fields: a record
/// is read a few bytes at a time (kind, varints, data), and each unbuffered
/// read would be a call into the zstd stream decoder (issue 12's profile).
const DECODED_BUFFER_BYTES: usize = 64 * 1024;

pub struct TraceReader<R: Read> {
    decoder: io::BufReader<zstd::Decoder<'static, io::BufReader<Counting<R>>>>,
    block_bytes: usize,
    prev_cycle: u64,
    prev_address: u64,
    /// Index of the next record.
    record: u64,
    done: bool,
}

impl<R: Read> TraceReader<R> {
    /// Opens a trace and checks its header.
    pub fn new(reader: R) -> Result<Self, TraceError> {
        let decoder = zstd::Decoder::new(Counting { inner: reader, bytes: 0 })
            .map_err(|source| TraceError::Io { context: "zstd decoder setup".into(), source })?;
        let decoder = io::BufReader::with_capacity(DECODED_BUFFER_BYTES, decoder);
        let mut trace = TraceReader { decoder, block_bytes: 0, prev_cycle: 0, prev_address: 0, record: 0, done: false };
        let mut magic = [0u8; 8];
        trace.read_field(&mut magic, None, "magic").map_err(|e| match e {
            // Nothing decoded although the file has bytes beyond a zstd frame header.
            TraceError::Truncated { .. } if trace.compressed_bytes() > ZSTD_FRAME_HEADER_MAX => {
                TraceError::CutInFirstBlock { compressed_bytes: trace.compressed_bytes() }
            }
            other => other,
        })?;
        if magic != MAGIC {
            return Err(TraceError::BadMagic { found: magic.to_vec() });
        }
        let mut version = [0u8; 2];
        trace.read_field(&mut version, None, "version")?;
        let version = u16::from_le_bytes(version);
        if version != VERSION {
            return Err(TraceError::UnsupportedVersion { found: version });
        }
        let mut block_bytes = [0u8; 4];
        trace.read_field(&mut block_bytes, None, "block_bytes")?;
        let block_bytes = u32::from_le_bytes(block_bytes);
        if block_bytes == 0 || block_bytes > MAX_BLOCK_BYTES {
            return Err(TraceError::BadBlockSize { found: block_bytes as u64 });
        }
        trace.block_bytes = block_bytes as usize;
        Ok(trace)
    }

    pub fn block_bytes(&self) -> usize {
        self.block_bytes
    }

    /// Bytes read from the underlying file so far (read ahead in buffers).
    fn compressed_bytes(&self) -> u64 {
        self.decoder.get_ref().get_ref().get_ref().bytes
    }

    /// Fills `buf` or reports which field the stream ended in.
    fn read_field(&mut self, buf: &mut [u8], record: Option<u64>, field: &'static str) -> Result<(), TraceError> {
        self.decoder.read_exact(buf).map_err(|source| match source.kind() {
            io::ErrorKind::UnexpectedEof => TraceError::Truncated { record, field },
            _ => TraceError::Io {
                context: match record {
                    None => format!("header ({field})"),
                    Some(n) => format!("record {n} ({field})"),
                },
                source,
            },
        })
    }

    /// The first byte of a record, or `None` at a clean end of stream.
    fn read_kind(&mut self) -> Result<Option<u8>, TraceError> {
        let mut byte = [0u8; 1];
        loop {
            match self.decoder.read(&mut byte) {
                Ok(0) => return Ok(None),
                Ok(_) => return Ok(Some(byte[0])),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
                    return Err(TraceError::Truncated { record: Some(self.record), field: "kind" })
                }
                Err(source) => {
                    return Err(TraceError::Io { context: format!("record {} (kind)", self.record), source })
                }
            }
        }
    }

    fn read_varint(&mut self, field: &'static str) -> Result<u64, TraceError> {
        let mut value = 0u64;
        for i in 0..10 {
            let mut byte = [0u8; 1];
            self.read_field(&mut byte, Some(self.record), field)?;
            let bits = (byte[0] & 0x7f) as u64;
            if i == 9 && bits > 1 {
                return Err(TraceError::Corrupt {
                    record: self.record,
                    why: format!("{field} varint overflows 64 bits"),
                });
            }
            value |= bits << (7 * i);
            if byte[0] & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(TraceError::Corrupt { record: self.record, why: format!("{field} varint longer than 10 bytes") })
    }

    fn read_record(&mut self) -> Result<Option<Record>, TraceError> {
        let mut record =
            Record { cycle: 0, kind: AccessKind::Read, controller: 0, address: 0, data: vec![0; self.block_bytes] };
        Ok(self.read_next(&mut record)?.then_some(record))
    }

    /// Reads the next record into `record`, reusing its data buffer (no
    /// allocation per record, for callers that stream many): `Ok(false)` at
    /// a clean end of the trace. After an error, or the end, the reader
    /// must not be read again; the iterator stops there by itself.
    pub fn read_next(&mut self, record: &mut Record) -> Result<bool, TraceError> {
        if self.read_buffered(record) {
            return Ok(true);
        }
        self.read_field_by_field(record)
    }

    /// [`TraceReader::read_next`] without the buffered fast path: the
    /// reference reader, which also names every error.
    fn read_field_by_field(&mut self, record: &mut Record) -> Result<bool, TraceError> {
        let Some(kind_byte) = self.read_kind()? else {
            return Ok(false);
        };
        let kind = AccessKind::from_byte(kind_byte).ok_or_else(|| TraceError::Corrupt {
            record: self.record,
            why: format!("unknown access kind {kind_byte} (expected 0 read, 1 write, 2 memcpy)"),
        })?;
        let controller = self.read_varint("controller")?;
        let controller = u32::try_from(controller).map_err(|_| TraceError::Corrupt {
            record: self.record,
            why: format!("controller id {controller} does not fit 32 bits"),
        })?;
        let cycle = self.prev_cycle.wrapping_add(unzigzag(self.read_varint("cycle")?));
        let address = self.prev_address.wrapping_add(unzigzag(self.read_varint("address")?));
        record.data.resize(self.block_bytes, 0);
        self.read_field(&mut record.data, Some(self.record), "data")?;
        self.prev_cycle = cycle;
        self.prev_address = address;
        self.record += 1;
        (record.cycle, record.kind, record.controller, record.address) = (cycle, kind, controller, address);
        Ok(true)
    }
}

impl<R: Read> TraceReader<R> {
    /// Parses the next record straight out of the decoded buffer when the
    /// buffer holds all of it and nothing in it is unusual (issue 12: the
    /// field-by-field path copied one byte per call for every varint).
    /// Returns false, consuming nothing, otherwise: the field-by-field path
    /// in [`TraceReader::read_next`] then reads the record and names any
    /// error. Both give the same records (property-tested below).
    fn read_buffered(&mut self, record: &mut Record) -> bool {
        let block_bytes = self.block_bytes;
        let buffer = self.decoder.buffer();
        let Some(kind) = buffer.first().and_then(|&b| AccessKind::from_byte(b)) else {
            return false;
        };
        let mut at = 1;
        let fields = (|| {
            let controller = u32::try_from(varint_in(buffer, &mut at)?).ok()?;
            let cycle = varint_in(buffer, &mut at)?;
            let address = varint_in(buffer, &mut at)?;
            Some((controller, cycle, address))
        })();
        let Some((controller, cycle_delta, address_delta)) = fields else {
            return false;
        };
        let Some(data) = buffer.get(at..at + block_bytes) else {
            return false;
        };
        record.data.clear();
        record.data.extend_from_slice(data);
        self.decoder.consume(at + block_bytes);
        let cycle = self.prev_cycle.wrapping_add(unzigzag(cycle_delta));
        let address = self.prev_address.wrapping_add(unzigzag(address_delta));
        self.prev_cycle = cycle;
        self.prev_address = address;
        self.record += 1;
        (record.cycle, record.kind, record.controller, record.address) = (cycle, kind, controller, address);
        true
    }
}

/// The varint at `bytes[*at..]`, moving `at` past it; `None` if it runs past
/// the end of `bytes` or takes 10 bytes (values of 63 bits and more are left
/// to the field-by-field reader, which checks them for overflow).
#[inline]
fn varint_in(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut value = 0u64;
    for i in 0..9 {
        let byte = *bytes.get(*at + i)?;
        value |= ((byte & 0x7f) as u64) << (7 * i);
        if byte & 0x80 == 0 {
            *at += i + 1;
            return Some(value);
        }
    }
    None
}

impl<R: Read> Iterator for TraceReader<R> {
    type Item = Result<Record, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let result = self.read_record().transpose();
        if !matches!(result, Some(Ok(_))) {
            self.done = true;
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn block(seed: u8, len: usize) -> Vec<u8> {
        (0..len).map(|i| (i as u8).wrapping_mul(seed)).collect()
    }

    fn sample_records() -> Vec<Record> {
        vec![
            Record { cycle: 10, kind: AccessKind::Memcpy, controller: 0, address: 0x1000, data: block(0, 128) },
            Record { cycle: 12, kind: AccessKind::Read, controller: 5, address: 0x1080, data: block(3, 128) },
            Record { cycle: 11, kind: AccessKind::Write, controller: 1, address: 0x80, data: block(7, 128) },
            Record {
                cycle: u64::MAX,
                kind: AccessKind::Read,
                controller: u32::MAX,
                address: u64::MAX,
                data: block(9, 128),
            },
            Record { cycle: 0, kind: AccessKind::Write, controller: 2, address: 0, data: block(1, 128) },
        ]
    }

    fn encode(records: &[Record], block_bytes: usize) -> Vec<u8> {
        let mut w = TraceWriter::new(Vec::new(), block_bytes).unwrap();
        for r in records {
            w.write(r).unwrap();
        }
        assert_eq!(w.records(), records.len() as u64);
        w.finish().unwrap()
    }

    fn decode(bytes: &[u8]) -> Result<Vec<Record>, TraceError> {
        TraceReader::new(bytes)?.collect()
    }

    /// A complete zstd stream around arbitrary decompressed bytes.
    fn zstd_of(raw: &[u8]) -> Vec<u8> {
        zstd::encode_all(raw, 3).unwrap()
    }

    fn header(block_bytes: u32) -> Vec<u8> {
        let mut h = MAGIC.to_vec();
        h.extend_from_slice(&VERSION.to_le_bytes());
        h.extend_from_slice(&block_bytes.to_le_bytes());
        h
    }

    #[test]
    fn round_trips() {
        let records = sample_records();
        let bytes = encode(&records, 128);
        let reader = TraceReader::new(&bytes[..]).unwrap();
        assert_eq!(reader.block_bytes(), 128);
        assert_eq!(decode(&bytes).unwrap(), records);
    }

    #[test]
    fn read_next_reuses_one_record() {
        let records = sample_records();
        let bytes = encode(&records, 128);
        let mut reader = TraceReader::new(&bytes[..]).unwrap();
        let mut record = Record { cycle: 1, kind: AccessKind::Write, controller: 9, address: 9, data: vec![0xaa; 7] };
        for expected in &records {
            assert!(reader.read_next(&mut record).unwrap());
            assert_eq!(&record, expected);
        }
        assert!(!reader.read_next(&mut record).unwrap());
    }

    #[test]
    fn empty_trace_has_no_records() {
        let bytes = encode(&[], 32);
        assert_eq!(decode(&bytes).unwrap(), vec![]);
        assert_eq!(TraceReader::new(&bytes[..]).unwrap().block_bytes(), 32);
    }

    #[test]
    fn deltas_and_zstd_keep_traces_compact() {
        let records: Vec<Record> = (0..1000u64)
            .map(|i| Record {
                cycle: 100 + 3 * i,
                kind: AccessKind::Read,
                controller: 1,
                address: 0x10000 + 128 * i,
                data: vec![0; 128],
            })
            .collect();
        let bytes = encode(&records, 128);
        assert!(bytes.len() < 2000, "1000 zero-block records took {} bytes", bytes.len());
        assert_eq!(decode(&bytes).unwrap(), records);
        // Before zstd: 1 kind + 1 controller + 1 cycle + 2 address bytes per
        // record; the first record's deltas from 0 take 2 + 3 bytes instead.
        let mut raw = Vec::new();
        zstd::stream::copy_decode(&bytes[..], &mut raw).unwrap();
        assert_eq!(raw.len(), 14 + 1000 * (5 + 128) + 2);
    }

    #[test]
    fn varints_and_zigzag_cover_the_extremes() {
        for v in [0u64, 1, 2, 63, 64, u64::MAX, u64::MAX - 1, 1 << 63, i64::MAX as u64] {
            assert_eq!(unzigzag(zigzag(v)), v);
        }
        assert_eq!((zigzag(0), zigzag(1), zigzag(u64::MAX), zigzag(2)), (0, 2, 1, 4));
        let mut out = Vec::new();
        push_varint(&mut out, u64::MAX);
        assert_eq!(out.len(), 10);
        assert_eq!(out[9], 1);
    }

    #[test]
    fn truncated_stream_is_an_error() {
        let bytes = encode(&sample_records(), 128);
        for cut in [bytes.len() - 1, bytes.len() / 2, 20, 5, 0] {
            let result = TraceReader::new(&bytes[..cut]).and_then(|r| r.collect::<Result<Vec<_>, _>>());
            let err = result.expect_err(&format!("cut at {cut} of {} accepted", bytes.len()));
            let cut_off = matches!(
                err,
                TraceError::Truncated { .. } | TraceError::Io { .. } | TraceError::CutInFirstBlock { .. }
            );
            assert!(cut_off, "cut {cut}: {err}");
        }
        // An empty file has no header at all.
        let err = TraceReader::new(&[][..]).err().unwrap();
        assert_eq!(err.to_string(), "trace truncated in the header (magic)");
        // A stream cut inside its first zstd block decodes nothing: say so,
        // not that the header is short.
        let mut state = 0x1234_5678_u32;
        let mut noise = |len: usize| -> Vec<u8> {
            (0..len)
                .map(|_| {
                    state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                    (state >> 24) as u8
                })
                .collect()
        };
        let long: Vec<Record> = (0..64u64)
            .map(|i| Record { cycle: i, kind: AccessKind::Write, controller: 0, address: i * 128, data: noise(128) })
            .collect();
        let bytes = encode(&long, 128);
        assert!(bytes.len() > 2000, "{} bytes", bytes.len());
        for cut in [100, 500, 1000] {
            let err = TraceReader::new(&bytes[..cut]).err().expect("a cut stream is an error");
            assert!(
                matches!(err, TraceError::CutInFirstBlock { compressed_bytes } if compressed_bytes == cut as u64),
                "{err}"
            );
            assert!(err.to_string().starts_with(&format!(
                "trace truncated: the file ends after {cut} bytes, inside the first zstd block"
            )));
        }
        // A writer that was never finished leaves an incomplete frame.
        let mut w = TraceWriter::new(Vec::new(), 128).unwrap();
        w.write(&sample_records()[0]).unwrap();
        w.encoder.flush().unwrap();
        let unfinished = w.encoder.get_ref().clone();
        let err = decode(&unfinished).unwrap_err();
        assert!(matches!(err, TraceError::Truncated { record: Some(1), field: "kind" }), "{err}");
    }

    #[test]
    fn truncated_content_names_record_and_field() {
        let mut raw = header(128);
        raw.extend_from_slice(&[1, 0, 2, 0]);
        raw.extend_from_slice(&[0xab; 128]);
        raw.extend_from_slice(&[0, 3, 2]); // record 1 stops after the cycle
        let err = decode(&zstd_of(&raw)).unwrap_err();
        assert!(matches!(err, TraceError::Truncated { record: Some(1), field: "address" }), "{err}");
        assert_eq!(err.to_string(), "trace truncated in record 1 (address)");
        let compressed = zstd_of(&raw);
        let mut reader = TraceReader::new(&compressed[..]).unwrap();
        assert_eq!(reader.next().unwrap().unwrap().cycle, 1);
        assert!(reader.next().unwrap().is_err());
        assert!(reader.next().is_none(), "the iterator stops after an error");

        let mut raw = header(128);
        raw.extend_from_slice(&[0, 0, 0, 0, 1, 2, 3]);
        let err = decode(&zstd_of(&raw)).unwrap_err();
        assert_eq!(err.to_string(), "trace truncated in record 0 (data)");
        let err = decode(&zstd_of(&header(128)[..12])).unwrap_err();
        assert_eq!(err.to_string(), "trace truncated in the header (block_bytes)");
    }

    #[test]
    fn bad_magic_is_an_error() {
        let mut raw = header(128);
        raw[..8].copy_from_slice(b"GARBAGE!");
        let err = decode(&zstd_of(&raw)).unwrap_err();
        assert!(matches!(&err, TraceError::BadMagic { found } if found == b"GARBAGE!"), "{err}");
        assert!(err.to_string().starts_with("not a memzip trace"), "{err}");
        // Not zstd at all.
        let err = decode(b"MZTRACE\0 plain bytes, no zstd frame").unwrap_err();
        assert!(matches!(err, TraceError::Io { .. }), "{err}");
        assert!(err.to_string().contains("header (magic)"), "{err}");
    }

    #[test]
    fn bad_header_values_are_errors() {
        let mut raw = header(128);
        raw[8] = 9;
        assert!(matches!(decode(&zstd_of(&raw)).unwrap_err(), TraceError::UnsupportedVersion { found: 9 }));
        for size in [0, MAX_BLOCK_BYTES + 1, u32::MAX] {
            let err = decode(&zstd_of(&header(size))).unwrap_err();
            assert!(matches!(err, TraceError::BadBlockSize { found } if found == size as u64), "{err}");
        }
        assert!(matches!(TraceWriter::new(Vec::new(), 0).err().unwrap(), TraceError::BadBlockSize { found: 0 }));
    }

    #[test]
    fn corrupt_fields_are_errors() {
        let mut raw = header(32);
        raw.push(7);
        let err = decode(&zstd_of(&raw)).unwrap_err();
        assert!(err.to_string().contains("record 0: unknown access kind 7"), "{err}");

        let mut raw = header(32);
        raw.push(0);
        raw.extend_from_slice(&[0xff; 11]);
        let err = decode(&zstd_of(&raw)).unwrap_err();
        assert!(err.to_string().contains("controller varint overflows"), "{err}");

        let mut raw = header(32);
        raw.push(0);
        push_varint(&mut raw, u32::MAX as u64 + 1);
        let err = decode(&zstd_of(&raw)).unwrap_err();
        assert!(err.to_string().contains("does not fit 32 bits"), "{err}");
    }

    #[test]
    fn corrupt_compressed_bytes_are_detected() {
        let records = sample_records();
        let bytes = encode(&records, 128);
        let mut undetected = Vec::new();
        for i in 0..bytes.len() {
            let mut flipped = bytes.clone();
            flipped[i] ^= 0x10;
            match decode(&flipped) {
                Err(_) => {}
                Ok(decoded) if decoded == records => {} // a bit zstd ignores (e.g. unused header flag)
                Ok(_) => undetected.push(i),
            }
        }
        // zstd's content checksum turns every flip that changes the content
        // into an error.
        assert_eq!(undetected, Vec::<usize>::new());
    }

    #[test]
    fn writer_rejects_wrong_block_size() {
        let mut w = TraceWriter::new(Vec::new(), 64).unwrap();
        let err = w.write_access(0, AccessKind::Read, 0, 0, &[0; 128]).unwrap_err();
        assert!(matches!(err, TraceError::WrongDataSize { expected: 64, got: 128 }));
        assert_eq!(w.records(), 0);
    }

    fn any_record(block_bytes: usize) -> impl Strategy<Value = Record> {
        (any::<u64>(), 0u8..3, any::<u32>(), any::<u64>(), prop::collection::vec(any::<u8>(), block_bytes)).prop_map(
            |(cycle, kind, controller, address, data)| Record {
                cycle,
                kind: AccessKind::from_byte(kind).unwrap_or(AccessKind::Read),
                controller,
                address,
                data,
            },
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn any_records_round_trip(records in prop::collection::vec(any_record(32), 0..20)) {
            prop_assert_eq!(decode(&encode(&records, 32)).unwrap(), records);
        }

        /// The buffered parse equals the field-by-field reader record by
        /// record, across decoded-buffer boundaries (records of 1000 B, so
        /// some straddle the 64 KiB buffer), with short and 10-byte varints,
        /// and on a stream cut anywhere.
        #[test]
        fn buffered_records_equal_field_by_field(
            records in prop::collection::vec(
                prop_oneof![any_record(1000), (any::<u8>(), 0u8..3).prop_map(|(seed, kind)| Record {
                    cycle: seed as u64, kind: AccessKind::from_byte(kind).unwrap_or(AccessKind::Read),
                    controller: seed as u32 % 6, address: seed as u64 * 128, data: block(seed, 1000) })],
                0..150),
            cut in 0usize..200_000,
        ) {
            let mut raw = Vec::new();
            zstd::stream::copy_decode(&encode(&records, 1000)[..], &mut raw).unwrap();
            raw.truncate(raw.len().min(cut.max(header(1000).len())));
            let stream = zstd_of(&raw);
            let (mut fast, mut reference) = (TraceReader::new(&stream[..]).unwrap(), TraceReader::new(&stream[..]).unwrap());
            let blank = || Record { cycle: 0, kind: AccessKind::Read, controller: 0, address: 0, data: Vec::new() };
            let (mut fast_record, mut reference_record) = (blank(), blank());
            loop {
                let got = fast.read_next(&mut fast_record);
                let expected = reference.read_field_by_field(&mut reference_record);
                prop_assert_eq!(got.as_ref().map_err(|e| e.to_string()), expected.as_ref().map_err(|e| e.to_string()));
                if !matches!(got, Ok(true)) {
                    break;
                }
                prop_assert_eq!(&fast_record, &reference_record);
            }
        }
    }
}
