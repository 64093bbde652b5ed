//! Pins every codec's output: for a fixed set of blocks, the digest of each
//! block's (encoding, compressed_bits, mag_bytes, burst_count, payload) per
//! codec and geometry must equal the one recorded in `golden/bitstreams.txt`,
//! which was written by the codecs as they were before the speed work
//! (issue 12). Any change to a size, an encoding choice or a single payload
//! bit fails here: speed work must leave the formats alone.
//!
//! The codecs are every registered codec at its defaults plus the knob
//! variants of `common::KNOB_VARIANTS`, so a newly registered codec is
//! checked at once: the test fails until its digests are written, and says
//! how. Bless (write the file anew from the codecs as they are: for a new
//! codec, or a deliberate format change, never for speed work; the commit
//! says which lines changed and why):
//!
//!     MEMZIP_BLESS=1 cargo test -p memzip --test golden_bitstreams

mod common;

use std::fmt::Write as _;
use std::path::PathBuf;

use common::mix::block_mix;
use common::{codec, codecs, label};
use memzip::{Codec, CompressedBlock, Geometry};

/// Blocks per geometry in the synthetic mix.
const MIX_BLOCKS: usize = 2048;

const GEOMETRIES: [(usize, usize); 5] = [(128, 32), (128, 16), (128, 64), (64, 16), (32, 16)];

/// 64-bit FNV-1a, enough to tell bitstreams apart.
struct Fnv(u64);

impl Fnv {
    fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn bytes(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    fn number(&mut self, n: u64) {
        self.bytes(&n.to_le_bytes());
    }

    fn block(&mut self, c: &CompressedBlock) {
        self.number(c.encoding as u64);
        self.number(c.compressed_bits as u64);
        self.number(c.mag_bytes as u64);
        self.number(c.burst_count as u64);
        self.number(c.payload.len() as u64);
        self.bytes(&c.payload);
    }
}

/// Two passes over `blocks`: the first as the codec meets them (E2MC samples
/// online and stores them raw), then `end_sampling`, then the second (E2MC
/// codes with the table it built). Every block of both passes is digested
/// and must decode back to itself. Two twins of the codec run in lockstep:
/// one through the allocation-free `compress_into` / `decompress_into`
/// (reusing one output block), one through the size-only `compressed_size`;
/// both must agree with `compress` on every block. Returns
/// " pass1=digest/total_bits pass2=digest/total_bits".
fn digest_line(codecs: [&mut dyn Codec; 3], blocks: &[Vec<u8>]) -> String {
    let [codec, into_twin, size_twin] = codecs;
    let mut reused = CompressedBlock::default();
    let mut decoded_into = vec![0xa5; codec.geometry().block_bytes()];
    let mut line = String::new();
    for pass in 0..2 {
        if pass == 1 {
            for c in [&mut *codec, &mut *into_twin, &mut *size_twin] {
                c.end_sampling().expect("end sampling");
            }
        }
        let mut fnv = Fnv::new();
        let mut total_bits = 0u64;
        for (i, block) in blocks.iter().enumerate() {
            let name = codec.name().to_string();
            let c = codec.compress(block).unwrap_or_else(|e| panic!("{name} block {i}: {e}"));
            let decoded = codec.decompress(&c).unwrap_or_else(|e| panic!("{name} block {i}: {e}"));
            assert_eq!(&decoded, block, "{name} block {i} does not round-trip");
            into_twin.compress_into(block, &mut reused).unwrap_or_else(|e| panic!("{name} block {i}: {e}"));
            assert_eq!(reused, c, "{name} block {i}: compress_into differs from compress");
            into_twin.decompress_into(&reused, &mut decoded_into).unwrap_or_else(|e| panic!("{name} block {i}: {e}"));
            assert_eq!(&decoded_into, block, "{name} block {i}: decompress_into");
            let size = size_twin.compressed_size(block).unwrap_or_else(|e| panic!("{name} block {i}: {e}"));
            assert_eq!(size, c.size(), "{name} block {i}: compressed_size differs from compress");
            fnv.block(&c);
            total_bits += c.compressed_bits as u64;
        }
        write!(line, " pass{}={:016x}/{total_bits}", pass + 1, fnv.0).unwrap();
    }
    line
}

/// One line per (set of blocks, geometry, codec).
fn digests(set: &str, blocks_for: impl Fn(Geometry) -> Vec<Vec<u8>>) -> String {
    let mut out = String::new();
    for (block_bytes, mag_bytes) in GEOMETRIES {
        let geometry = Geometry::new(block_bytes, mag_bytes).unwrap();
        let blocks = blocks_for(geometry);
        for (name, knobs) in codecs() {
            let mut twins = [codec(name, knobs, geometry), codec(name, knobs, geometry), codec(name, knobs, geometry)];
            let [a, b, c] = &mut twins;
            let line = digest_line([&mut **a, &mut **b, &mut **c], &blocks);
            writeln!(out, "{set} {block_bytes}/{mag_bytes} {}{line}", label(name, knobs)).unwrap();
        }
    }
    out
}

fn golden_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/bitstreams.txt")
}

/// How to rewrite the golden file, for failure messages.
const BLESS: &str = "MEMZIP_BLESS=1 cargo test -p memzip --test golden_bitstreams";

/// A golden line's key: set, geometry and codec label (everything before
/// the digests).
fn key(line: &str) -> &str {
    line.find(" pass1=").map_or(line, |end| &line[..end])
}

/// Compares `computed` (lines of one set) with the golden file's lines of
/// that set, codec by codec; with `MEMZIP_BLESS` set, replaces them instead.
fn check_set(set: &str, computed: &str) {
    let path = golden_path();
    let golden = std::fs::read_to_string(&path).unwrap_or_default();
    let prefix = format!("{set} ");
    if std::env::var_os("MEMZIP_BLESS").is_some() {
        let mut kept: String = golden.lines().filter(|l| !l.starts_with(&prefix)).map(|l| format!("{l}\n")).collect();
        kept.push_str(computed);
        std::fs::write(&path, kept).expect("write golden file");
        return;
    }
    let want: Vec<&str> = golden.lines().filter(|l| l.starts_with(&prefix)).collect();
    for got in computed.lines() {
        match want.iter().find(|w| key(w) == key(got)) {
            Some(want) => assert_eq!(*want, got, "bitstream digest changed (a deliberate format change: {BLESS})"),
            None => panic!("{} has no digest for '{}': a new codec? write it with {BLESS}", path.display(), key(got)),
        }
    }
    for want in &want {
        assert!(
            computed.lines().any(|got| key(got) == key(want)),
            "'{}' is pinned but no longer computed (codec removed or renamed?): {BLESS}",
            key(want)
        );
    }
}

#[test]
fn synthetic_mix_bitstreams_are_unchanged() {
    check_set("mix", &digests("mix", |g| block_mix(g.block_bytes(), MIX_BLOCKS, 12)));
}
