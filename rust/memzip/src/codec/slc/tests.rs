//! SLC tests: a hand-computed block for each variant, the lossless paths
//! (not approximable, too far above a MAG multiple, sampling), and property
//! tests over structured data with a trained E2MC16 table.

use std::sync::OnceLock;

use super::*;
use crate::codec::e2mc::{CodeTable, MfvEntry};
use crate::codec::registry::build_str;
use crate::codec::test_support::{assert_corruption_survived, assert_truncation_rejected, structured_block};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;

fn le16(halves: &[u16]) -> Vec<u8> {
    halves.iter().flat_map(|h| h.to_le_bytes()).collect()
}

/// MFVs 0x3F80 (the high half of floats near 1.0) -> `0`, 0x0000 -> `10`;
/// escape `11` + the raw symbol (18 bits).
fn float_table() -> CodeTable {
    CodeTable::with_mfv(16, vec![MfvEntry { value: 0x3f80, length: 1 }, MfvEntry { value: 0, length: 2 }], 2).unwrap()
}

fn slc_with(table: CodeTable, variant: Variant, threshold: usize) -> Slc {
    Slc::new(E2mc::with_table(table, Geometry::default(), 4).unwrap(), variant, threshold).unwrap()
}

/// 32 floats 0x3F80_xxxx whose low halves are all escapes: per way 8 x 1 +
/// 8 x 18 = 152 bits (19 bytes, so no padding), lossless 21 + 4 x 152 =
/// 629 bits = 78.6 bytes: 14.6 bytes above 64.
fn floats_block() -> Vec<u8> {
    let halves: Vec<u16> = (0..32u16).flat_map(|i| [0x1000 + i * 0x111, 0x3f80]).collect();
    le16(&halves)
}

fn approximate(codec: &mut Slc, block: &[u8]) -> (bool, CompressedBlock, Vec<u8>) {
    let mut out = CompressedBlock::default();
    let mut approximated = vec![0u8; block.len()];
    let lossy = codec.compress_approximable_into(block, &mut out, &mut approximated).unwrap();
    (lossy, out, approximated)
}

#[test]
fn hand_block_simp_truncates_the_tightest_node() {
    let mut codec = slc_with(float_table(), Variant::Simp, 16);
    let block = floats_block();
    assert_eq!(codec.nodes().len(), 126);
    assert_eq!(codec.metadata_bits(), 3);
    // Lossless: 78.6 bytes, three bursts; the exact path is e2mc16's.
    let exact = codec.compress(&block).unwrap();
    assert_eq!((exact.encoding, exact.compressed_bits, exact.mag_bytes), (1, 629, 96));
    // To reach 512 bits with a 7-bit node id, 124 bits must go: no run of 8
    // symbols (76 bits) does, a whole way (16 symbols, 152 bits) does, and
    // the first of the four equal ways wins: 7 + 21 + 3 x 152 = 484 bits.
    let (lossy, c, approximated) = approximate(&mut codec, &block);
    assert!(lossy);
    assert_eq!((c.encoding, c.compressed_bits, c.mag_bytes, c.burst_count), (SLC_APPROX_ENCODING, 484, 64, 2));
    assert_eq!(codec.approximated_node(&c).unwrap(), Some(Node { first: 0, count: 16, stride: 1 }));
    // Node id 120 (64 leaves, 32 pairs, 16 runs of 4, 8 of 8, then the
    // first run of 16), pointers 0, 19, 38 (way 0 is empty), then way 1's
    // first symbol: escape `11` and 0x1888.
    let head: String = (0..35).map(|i| if c.payload[i / 8] & (0x80 >> (i % 8)) != 0 { '1' } else { '0' }).collect();
    assert_eq!(head, "1111000 0000000 0010011 0100110 11 00011".replace(' ', ""));
    // Truncation: the first 8 floats are zero, the rest exact.
    let mut expected = block.clone();
    expected[..32].fill(0);
    assert_eq!(approximated, expected);
    assert_eq!(codec.decompress(&c).unwrap(), expected);
    // Not approximable: exact, and bit for bit the lossless block.
    assert_eq!(codec.compress(&block).unwrap(), exact);
}

#[test]
fn hand_block_pred_predicts_from_the_next_word() {
    let mut codec = slc_with(float_table(), Variant::Pred, 16);
    let block = floats_block();
    let (lossy, c, approximated) = approximate(&mut codec, &block);
    assert!(lossy);
    assert_eq!((c.compressed_bits, c.mag_bytes), (484, 64));
    // Same node as SIMP; no kept symbol before it, so both halves of words
    // 0..8 come from word 8.
    let mut expected = block.clone();
    for word in 0..8 {
        expected.copy_within(32..36, 4 * word);
    }
    assert_eq!(approximated, expected);
    assert_eq!(codec.decompress(&c).unwrap(), expected);
}

#[test]
fn hand_block_opt_drops_only_low_halves() {
    let mut codec = slc_with(float_table(), Variant::Opt, 16);
    assert_eq!(codec.nodes().len(), 126 + 31);
    let block = floats_block();
    let (lossy, c, approximated) = approximate(&mut codec, &block);
    assert!(lossy);
    // The low halves of words 0..8 (144 bits): 8 + 21 + 8 + 3 x 152 = 493.
    assert_eq!(codec.approximated_node(&c).unwrap(), Some(Node { first: 0, count: 8, stride: 2 }));
    assert_eq!((c.compressed_bits, c.mag_bytes), (493, 64));
    let mut expected = block.clone();
    for word in 0..8 {
        expected.copy_within(32..34, 4 * word);
    }
    assert_eq!(approximated, expected);
    assert_eq!(codec.decompress(&c).unwrap(), expected);
    // Only mantissa bits changed: every float within 2^-7 of the original.
    for (a, b) in approximated.chunks(4).zip(block.chunks(4)) {
        let (a, b) = (f32::from_le_bytes(a.try_into().unwrap()), f32::from_le_bytes(b.try_into().unwrap()));
        assert!(((a - b) / b).abs() < 1.0 / 128.0, "{a} vs {b}");
    }
}

#[test]
fn blocks_above_the_threshold_or_on_a_multiple_stay_exact() {
    // 14.6 bytes above 64: exact under a 14-byte threshold and under 0.
    for threshold in [0, 14] {
        let mut codec = slc_with(float_table(), Variant::Opt, threshold);
        let block = floats_block();
        let (lossy, c, approximated) = approximate(&mut codec, &block);
        assert!(!lossy, "threshold {threshold}");
        assert_eq!(c, codec.compress(&block).unwrap());
        assert_eq!(approximated, block);
    }
    // All zeros: 21 + 4 x 16 = 85 bits, within one burst: nothing to gain.
    let mut codec = slc_with(float_table(), Variant::Opt, 16);
    let (lossy, c, _) = approximate(&mut codec, &[0u8; 128]);
    assert!(!lossy);
    assert_eq!(c.mag_bytes, 32);
}

#[test]
fn in_a_memory_controller_only_marked_blocks_are_approximated() {
    use crate::mc::{McOptions, MemoryController};
    let codec = slc_with(float_table(), Variant::Opt, 16);
    let options = McOptions { verify: true, ..McOptions::default() };
    let mut mc = MemoryController::with_codec(Box::new(codec), options).unwrap();
    let block = floats_block();
    let mut approximated = vec![0u8; 128];
    let exact = mc.write_block(0, &block).unwrap();
    assert_eq!((exact.dram_bytes, exact.approximated), (96, false));
    let lossy = mc.write_approximable_block(128, &block, &mut approximated).unwrap();
    assert_eq!((lossy.dram_bytes, lossy.approximated, lossy.encoding), (64, true, SLC_APPROX_ENCODING));
    assert_ne!(approximated, block);
    assert_eq!(mc.read_block(128).burst_count, 2);
    assert_eq!(mc.read_block(0).burst_count, 3);
    let stats = mc.stats();
    assert_eq!((stats.verify.checked, stats.verify.failures), (2, 0));
    assert_eq!((stats.approximation.approximable_blocks, stats.approximation.approximated_blocks), (1, 1));
    assert_eq!(stats.writes.encodings.get("slc_approx"), Some(&1));
}

#[test]
fn sampling_stores_raw_and_exact() {
    let mut codec = Slc::from_spec(&CodecSpec::parse("slc", Geometry::default()).unwrap()).unwrap();
    let block = floats_block();
    let (lossy, c, approximated) = approximate(&mut codec, &block);
    assert!(!lossy);
    assert!(!c.is_compressed());
    assert_eq!(approximated, block);
    for _ in 0..16 {
        approximate(&mut codec, &block);
    }
    codec.end_sampling().unwrap();
    // The table learnt 0x3F80 and the 32 low halves: now it compresses.
    assert!(codec.compress(&block).unwrap().is_compressed());
}

#[test]
fn registry_knobs() {
    let codec = build_str("slc:variant=pred,threshold=8", Geometry::default()).unwrap();
    assert_eq!((codec.name(), codec.latency()), ("slc", Latency::new(60, 20)));
    assert_eq!(codec.encoding_names(), ["uncompressed", "e2mc16", "slc_approx"]);
    let err = build_str("slc:variant=fast", Geometry::default()).err().unwrap();
    assert_eq!(err.to_string(), "invalid slc.variant 'fast': expected simp, pred or opt (default)");
    let err = build_str("slc:threshold=33", Geometry::default()).err().unwrap();
    assert_eq!(err.to_string(), "invalid slc.threshold '33': expected bytes above a MAG multiple, 0..=32 (the MAG)");
    assert!(build_str("slc:lambda=2", Geometry::default()).is_err());
    // SLC is not one of adaptive's candidates: adaptive compresses losslessly.
    assert!(build_str("adaptive:candidates=slc/bdi", Geometry::default()).is_err());
}

/// An E2MC16 table trained on structured blocks (as a run's online sampling
/// would learn it), shared by the property tests.
fn trained_table(block_bytes: usize) -> CodeTable {
    static TABLES: OnceLock<std::sync::Mutex<Vec<(usize, CodeTable)>>> = OnceLock::new();
    let mut tables = TABLES.get_or_init(Default::default).lock().unwrap();
    if let Some((_, table)) = tables.iter().find(|(b, _)| *b == block_bytes) {
        return table.clone();
    }
    let geometry = Geometry::new(block_bytes, 16.max(block_bytes / 4)).unwrap();
    let mut e2mc = E2mc::new(16, geometry, 4, 1024).unwrap();
    let mut runner = TestRunner::deterministic();
    let strategy = prop_oneof![structured_block(block_bytes), noisy_floats(block_bytes).boxed()];
    for _ in 0..2000 {
        e2mc.compress(&strategy.new_tree(&mut runner).unwrap().current()).unwrap();
    }
    e2mc.end_sampling().unwrap();
    let table = e2mc.table().unwrap().clone();
    tables.push((block_bytes, table.clone()));
    table
}

/// What the variant defines for a block that leaves out `node`, computed
/// here independently of the codec.
fn expected_approximation(block: &[u8], node: Node, variant: Variant) -> Vec<u8> {
    let symbols = block.len() / 2;
    let kept = |t: usize| !node.contains(t);
    let mut out = block.to_vec();
    for s in node.symbols() {
        let value = match variant {
            Variant::Simp => 0,
            _ => {
                let same_half = |t: &usize| t % 2 == s % 2 && kept(*t);
                let source = (0..s).rev().find(same_half).or_else(|| (s + 1..symbols).find(same_half));
                source.map_or(0, |t| u16::from_le_bytes([block[2 * t], block[2 * t + 1]]))
            }
        };
        out[2 * s..2 * s + 2].copy_from_slice(&value.to_le_bytes());
    }
    out
}

/// Floats of one magnitude with noisy mantissas: E2MC leaves their low
/// halves escaped, so many land a few bytes above a MAG multiple.
fn noisy_floats(block_bytes: usize) -> impl Strategy<Value = Vec<u8>> {
    (1.0f32..2.0, prop::collection::vec(0.0f32..0.01, block_bytes / 4))
        .prop_map(|(base, noise)| noise.iter().flat_map(|n| (base + n).to_le_bytes()).collect())
}

fn check_block(variant: Variant, threshold: usize, geometry: Geometry, block: &[u8]) -> Result<bool, TestCaseError> {
    let table = trained_table(geometry.block_bytes());
    let mut codec = Slc::new(E2mc::with_table(table.clone(), geometry, 4).unwrap(), variant, threshold).unwrap();
    let mut e2mc16 = E2mc::with_table(table, geometry, 4).unwrap();
    let (lossy, c, approximated) = approximate(&mut codec, block);
    let mag_bits = geometry.mag_bytes() * 8;
    let lengths: Vec<u32> =
        (0..block.len() / 2).map(|s| codec.e2mc.symbol_codeword(symbol_at(block, s) as u32).unwrap().1).collect();
    let lossless_bits = codec.stored_bits(&lengths, None);
    let overshoot = lossless_bits % mag_bits;
    if !lossy {
        // Exact, and bit for bit what e2mc16 stores; nothing approximated.
        prop_assert_eq!(&c, &e2mc16.compress(block).unwrap());
        let mut may_change = vec![true; block.len()];
        codec.approximated_bytes(&c, &mut may_change).unwrap();
        prop_assert!(may_change.iter().all(|&m| !m));
        prop_assert_eq!(&approximated[..], block);
        prop_assert_eq!(&codec.decompress(&c).unwrap()[..], block);
        return Ok(false);
    }
    // Approximated: from a few bytes above a multiple to exactly it.
    prop_assert!(overshoot > 0 && overshoot <= threshold * 8, "overshoot {} bits", overshoot);
    prop_assert_eq!(c.encoding, SLC_APPROX_ENCODING);
    prop_assert_eq!(c.mag_bytes * 8, lossless_bits - overshoot);
    prop_assert!(c.compressed_bits <= c.mag_bytes * 8);
    prop_assert!(c.mag_bytes < geometry.block_bytes());
    let node = codec.approximated_node(&c).unwrap().unwrap();
    prop_assert_eq!(&approximated, &expected_approximation(block, node, variant));
    prop_assert_eq!(&codec.decompress(&c).unwrap(), &approximated);
    // The bytes it names as approximated are the node's symbols, and only
    // those differ from the block written.
    let mut may_change = vec![false; block.len()];
    codec.approximated_bytes(&c, &mut may_change).unwrap();
    for (i, &approximable) in may_change.iter().enumerate() {
        prop_assert_eq!(approximable, node.contains(i / 2), "byte {}", i);
        prop_assert!(approximable || block[i] == approximated[i], "byte {} changed outside the node", i);
    }
    assert_truncation_rejected(&codec, &c)?;
    assert_corruption_survived(&codec, &c);
    Ok(true)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn approximable_blocks_land_on_a_mag_multiple_and_decode_as_defined(
        block in prop_oneof![noisy_floats(128), structured_block(128)],
        variant in prop::sample::select(vec![Variant::Simp, Variant::Pred, Variant::Opt]),
        threshold in prop::sample::select(vec![4usize, 16, 32]),
    ) {
        check_block(variant, threshold, Geometry::default(), &block)?;
    }

    #[test]
    fn other_geometries(
        block in prop_oneof![noisy_floats(64), structured_block(64)],
        variant in prop::sample::select(vec![Variant::Simp, Variant::Opt]),
        mag in prop::sample::select(vec![16usize, 32]),
    ) {
        check_block(variant, mag / 2, Geometry::new(64, mag).unwrap(), &block)?;
    }

    #[test]
    fn the_lossless_path_round_trips(block in structured_block(128)) {
        let mut codec = slc_with(trained_table(128), Variant::Opt, 16);
        let c = codec.compress(&block).unwrap();
        prop_assert_eq!(&codec.decompress(&c).unwrap(), &block);
    }
}

#[test]
fn noisy_floats_are_often_approximated() {
    // Guards the property test above against testing only the exact path.
    let mut runner = TestRunner::deterministic();
    let strategy = noisy_floats(128);
    let approximated = (0..200)
        .filter(|_| {
            check_block(Variant::Opt, 16, Geometry::default(), &strategy.new_tree(&mut runner).unwrap().current())
                .unwrap()
        })
        .count();
    assert!(approximated >= 20, "{approximated} of 200 approximated");
}
