//! E2MC codec tests: hand-computed tables and payloads, the PDW pointer
//! layout, sampling, registry knobs, corrupt input, and property round trips
//! with tables trained on structured data.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use super::*;
use crate::bits::BitWriter;
use crate::codec::registry::{build, build_str};
use crate::codec::test_support::{assert_round_trips, random_block, structured_block};
use crate::error::Corruption;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;

/// A DRAM MAG or a link granule.
fn geometry(block_bytes: usize, mag_bytes: usize) -> Geometry {
    Geometry::with_granule(block_bytes, mag_bytes).unwrap()
}

/// Packs a string of '0'/'1' (spaces ignored) MSB first.
fn bits(text: &str) -> (Vec<u8>, usize) {
    let mut w = BitWriter::new();
    for c in text.chars().filter(|c| !c.is_whitespace()) {
        w.write_bool(c == '1');
    }
    w.finish()
}

fn le32(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn le16(halves: &[u16]) -> Vec<u8> {
    halves.iter().flat_map(|h| h.to_le_bytes()).collect()
}

/// 8-bit table: byte 0x00 costs 1 bit at positions 0..=2, 0x3F at position
/// 3; every other value 9 bits. Canonical codes: the short value is `0`;
/// the 255 others take 9-bit codes from `1_0000_0000` in value order.
fn hand_table8() -> CodeTable {
    let mut positions = Vec::new();
    for short in [0x00usize, 0x00, 0x00, 0x3f] {
        let mut lengths = vec![9u8; 256];
        lengths[short] = 1;
        positions.push(lengths);
    }
    CodeTable::per_position(8, positions).unwrap()
}

/// 4-bit table: nibble 0 costs 1 bit (`0`), nibbles 1..=15 5 bits
/// (`10000` + value - 1). Kraft sum 31/32: `11111` is no codeword.
fn hand_table4() -> CodeTable {
    let mut lengths = vec![5u8; 16];
    lengths[0] = 1;
    CodeTable::per_position(4, vec![lengths; 8]).unwrap()
}

/// 16-bit MFV table: 0x0000 -> `0`, 0xFFFF -> `10`, escape -> `11` + raw.
fn hand_table16() -> CodeTable {
    CodeTable::with_mfv(16, vec![MfvEntry { value: 0, length: 1 }, MfvEntry { value: 0xffff, length: 2 }], 2).unwrap()
}

fn coded(table: CodeTable, g: Geometry, pdw: usize) -> E2mc {
    E2mc::with_table(table, g, pdw).unwrap()
}

#[test]
fn e2mc8_hand_vector_per_position_codes() {
    // 1.0f32 = 0x3F800000: bytes 00 00 80 3F. Per word: pos0 `0`, pos1 `0`,
    // pos2 0x80 = 9-bit code 256 + 127 = `101111111`, pos3 0x3F `0`.
    let mut codec = coded(hand_table8(), geometry(32, 16), 1);
    let block = le32(&[0x3f80_0000; 8]);
    let c = codec.compress(&block).unwrap();
    let word = "0 0 101111111 0";
    let (expected, n) = bits(&word.repeat(8));
    assert_eq!((c.encoding, c.compressed_bits, c.mag_bytes, c.burst_count), (E2MC_ENCODING, 96, 16, 1));
    assert_eq!(n, 96);
    assert_eq!(c.payload, expected);
    assert_eq!(&c.payload[..3], &[0x2f, 0xe2, 0xfe]);
    assert_eq!(codec.decompress(&c).unwrap(), block);
}

#[test]
fn e2mc8_four_ways_on_a_128_byte_block() {
    // 32 words of 12 bits: 8 words (96 bits = 12 bytes) per way, so no
    // padding; pointers 12, 24, 36 in 7 bits; 21 + 384 = 405 bits.
    let mut codec = coded(hand_table8(), Geometry::default(), 4);
    let block = le32(&[0x3f80_0000; 32]);
    let c = codec.compress(&block).unwrap();
    assert_eq!((c.compressed_bits, c.mag_bytes, c.burst_count), (405, 64, 2));
    let (expected, _) = bits(&format!("0001100 0011000 0100100 {}", "0 0 101111111 0".repeat(32)));
    assert_eq!(c.payload, expected);
    assert_eq!(codec.decompress(&c).unwrap(), block);
}

#[test]
fn e2mc4_hand_vector_and_invalid_code() {
    // Word 0x000000F0: nibble 1 is F = 5-bit code 16 + 14 = `11110`, the
    // other 7 nibbles `0`; seven zero words cost 8 bits each.
    let mut codec = coded(hand_table4(), geometry(32, 16), 1);
    let mut words = vec![0u32; 8];
    words[0] = 0xf0;
    let block = le32(&words);
    let c = codec.compress(&block).unwrap();
    let (expected, n) = bits(&format!("0 11110 000000 {}", "0".repeat(56)));
    assert_eq!((c.compressed_bits, n), (68, 68));
    assert_eq!(c.payload, expected);
    assert_eq!(codec.decompress(&c).unwrap(), block);
    // `11111` is not a codeword of this incomplete code.
    let mut bad = c.clone();
    bad.payload[0] |= 0b0111_1100;
    assert!(
        matches!(codec.decompress(&bad), Err(CodecError::Corrupt { kind: Corruption::UnknownCode, detail: m }) if m.contains("no codeword"))
    );
}

#[test]
fn pdw_pointer_layout_has_exact_bit_positions() {
    // 32 B block of 16 halves, 4 ways of 4 symbols, 5-bit pointers.
    let mut codec = coded(hand_table16(), geometry(32, 16), 4);
    let block = le16(&[0, 0, 0, 0, 0xffff, 0xffff, 0xffff, 0xffff, 0x1234, 0, 0, 0, 0, 0, 0, 0xffff]);
    let c = codec.compress(&block).unwrap();
    let header = "00001 00010 00101"; // ways 1..3 at data bytes 1, 2, 5
    let way0 = "0 0 0 0 0000"; //                 4 bits + 4 padding   data bits  0..8
    let way1 = "10 10 10 10"; //                  8 bits, aligned      data bits  8..16
    let way2 = "11 0001001000110100 0 0 0 000"; // escape + raw, 21 + 3 data bits 16..40
    let way3 = "0 0 0 10"; //                     5 bits, no padding   data bits 40..45
    let (expected, n) = bits(&[header, way0, way1, way2, way3].join(" "));
    assert_eq!((c.compressed_bits, n), (60, 60));
    assert_eq!(c.payload, expected);
    assert_eq!((c.mag_bytes, c.burst_count), (16, 1));
    // Absolute bit positions: way 1 at 15 + 8, way 2 at 15 + 16, way 3 at 15 + 40.
    let mut r = c.reader().unwrap();
    r.seek(23).unwrap();
    assert_eq!(r.read(2).unwrap(), 0b10);
    r.seek(31).unwrap();
    assert_eq!(r.read(18).unwrap(), 0b11_0001_0010_0011_0100);
    r.seek(55).unwrap();
    assert_eq!(r.read(5).unwrap(), 0b00010);
    assert_eq!(codec.decompress(&c).unwrap(), block);
}

#[test]
fn way_pointers_out_of_range_are_corrupt() {
    let mut codec = coded(hand_table16(), geometry(32, 16), 4);
    let block = le16(&[0, 0, 0, 0, 0xffff, 0xffff, 0xffff, 0xffff, 0x1234, 0, 0, 0, 0, 0, 0, 0xffff]);
    let good = codec.compress(&block).unwrap();
    let with_header = |h: &str| {
        let (head, _) = bits(h);
        let mut c = good.clone();
        c.payload[0] = head[0];
        c.payload[1] = (c.payload[1] & 0x01) | head[1];
        c
    };
    // Way 3 at byte 31: past the 45 data bits.
    let far = with_header("00001 00010 11111");
    assert!(
        matches!(codec.decompress(&far), Err(CodecError::Corrupt { kind: Corruption::OutOfRange, detail: m }) if m.contains("way 3 pointer"))
    );
    // Way 2 before way 1.
    let back = with_header("00010 00001 00101");
    assert!(
        matches!(codec.decompress(&back), Err(CodecError::Corrupt { detail: m, .. }) if m.contains("way 2 pointer"))
    );
    // Way 1 pointer one byte too late: way 0 then ends before its successor.
    let gap = with_header("00010 00011 00101");
    assert!(
        matches!(codec.decompress(&gap), Err(CodecError::Corrupt { kind: Corruption::Inconsistent, detail: m }) if m == "way 0 ends at data bit 4 but way 1 starts at 16")
    );
}

#[test]
fn leftover_and_missing_bits_are_errors() {
    let mut codec = coded(hand_table16(), geometry(32, 16), 1);
    let block = le16(&[0; 16]);
    let c = codec.compress(&block).unwrap();
    assert_eq!(c.compressed_bits, 16);
    let mut longer = c.clone();
    longer.payload.push(0);
    longer.compressed_bits += 3;
    assert!(
        matches!(codec.decompress(&longer), Err(CodecError::Corrupt { kind: Corruption::TrailingBits, detail: m }) if m.contains("3 unread bits"))
    );
    let mut shorter = c.clone();
    shorter.compressed_bits -= 1;
    assert!(matches!(codec.decompress(&shorter), Err(CodecError::Truncated { .. })));
}

#[test]
fn escape_path_round_trips_for_16_and_32_bit() {
    let mut codec16 = coded(hand_table16(), geometry(32, 16), 1);
    let block = le16(&[0x1234, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xabcd]);
    let c = codec16.compress(&block).unwrap();
    assert_eq!(c.compressed_bits, 2 * 18 + 14);
    assert_eq!(codec16.decompress(&c).unwrap(), block);

    // 32-bit: MFV {0 -> `0`, 0xDEADBEEF -> `10`}, escape `11` + 32 raw bits.
    let table =
        CodeTable::with_mfv(32, vec![MfvEntry { value: 0xdead_beef, length: 2 }, MfvEntry { value: 0, length: 1 }], 2)
            .unwrap();
    let mut codec32 = coded(table, geometry(32, 16), 2);
    let block = le32(&[0xdead_beef, 0x0bad_f00d, 0, 0, 0, 0, 0, 0]);
    let c = codec32.compress(&block).unwrap();
    // 5-bit pointer, way 0 = `10` + `11`+raw32 + `0` `0` = 38 bits padded to 40, way 1 = 4 bits.
    assert_eq!(c.compressed_bits, 5 + 40 + 4);
    let (expected, _) = bits(&format!("00101 10 11 {:032b} 0 0 000 0 0 0 0", 0x0bad_f00du32));
    assert_eq!(c.payload, expected);
    assert_eq!(codec32.decompress(&c).unwrap(), block);
}

#[test]
fn stores_compressed_only_when_worth_it() {
    // 128 B, 32 B MAG: at most 96 B = 768 bits. With the 8-bit hand table a
    // block of k costly bytes (9 bits) and 128 - k cheap ones costs 128 + 8k.
    let mut codec = coded(hand_table8(), Geometry::default(), 1);
    let block_with =
        |k: usize| -> Vec<u8> { (0..128).map(|i| if i < k { 1 } else { [0, 0, 0, 0x3f][i % 4] }).collect() };
    let fits = codec.compress(&block_with(80)).unwrap();
    assert_eq!((fits.encoding, fits.compressed_bits, fits.mag_bytes, fits.burst_count), (E2MC_ENCODING, 768, 96, 3));
    assert_eq!(codec.decompress(&fits).unwrap(), block_with(80));
    let spills = codec.compress(&block_with(81)).unwrap();
    assert_eq!((spills.encoding, spills.compressed_bits, spills.mag_bytes), (UNCOMPRESSED, 1024, 128));
    assert_eq!(codec.decompress(&spills).unwrap(), block_with(81));
}

#[test]
fn online_sampling_then_compression() {
    let mut codec = E2mc::new(16, Geometry::default(), 4, 1024).unwrap();
    assert!(codec.is_sampling() && codec.table().is_none());
    let sampled = le32(&[0x0000_0001; 32]);
    let stored = codec.compress(&sampled).unwrap();
    assert_eq!(stored.encoding, UNCOMPRESSED);
    assert_eq!(codec.sampler().unwrap().symbols(), 64);
    let mut forged = stored.clone();
    forged.encoding = E2MC_ENCODING;
    assert!(matches!(codec.decompress(&forged), Err(CodecError::Corrupt { .. })));
    codec.end_sampling().unwrap();
    assert!(!codec.is_sampling());
    let table = codec.table().unwrap().clone();
    // Values 0x0000 and 0x0001 (32 each) and an escape of weight 1: the
    // escape pairs with the first of the tied values (lengths 2, 1, 2).
    assert_eq!(table.mfv, vec![MfvEntry { value: 0, length: 2 }, MfvEntry { value: 1, length: 1 }]);
    assert_eq!(table.escape_length, Some(2));
    // 64 symbols at 1.5 bits + 21 header bits.
    let c = codec.compress(&sampled).unwrap();
    assert_eq!((c.encoding, c.compressed_bits), (E2MC_ENCODING, 21 + 4 * 24));
    assert_eq!(codec.decompress(&c).unwrap(), sampled);
    assert_eq!(codec.decompress(&stored).unwrap(), sampled, "blocks stored while sampling still decode");
    codec.end_sampling().unwrap();
    assert_eq!(codec.table(), Some(&table), "a second end_sampling changes nothing");
    // The table saved as JSON rebuilds the same code offline.
    let mut spec = CodecSpec::parse("e2mc16:sampling=offline", Geometry::default()).unwrap();
    spec.table = Some(std::sync::Arc::new(CodeTable::from_json(&table.to_json()).unwrap()));
    let mut offline = build(&spec).unwrap();
    assert_eq!(offline.compress(&sampled).unwrap(), c);
}

#[test]
fn unseen_symbols_remain_encodable() {
    for bits in SYMBOL_BITS {
        let mut codec = E2mc::new(bits, geometry(64, 32), 2, 16).unwrap();
        for _ in 0..50 {
            codec.compress(&[0u8; 64]).unwrap();
        }
        codec.end_sampling().unwrap();
        let zeros = codec.compress(&[0u8; 64]).unwrap();
        assert!(zeros.is_compressed(), "e2mc{bits}");
        let fresh: Vec<u8> = (0..64u8).map(|i| i.wrapping_mul(37).wrapping_add(11)).collect();
        let c = codec.compress(&fresh).unwrap();
        assert_eq!(codec.decompress(&c).unwrap(), fresh, "e2mc{bits}");
    }
}

#[test]
fn latencies_follow_table_vi_divided_by_pdw() {
    let cases = [("e2mc4", 154, 233), ("e2mc8", 84, 143), ("e2mc16", 46, 82), ("e2mc32", 24, 42)];
    for (name, comp, decomp) in cases {
        for pdw in PDW_CHOICES {
            let codec = build_str(&format!("{name}:pdw={pdw}"), Geometry::default()).unwrap();
            let expected = (decomp as u32).div_ceil(pdw as u32);
            assert_eq!(codec.latency(), Latency::new(comp, expected), "{name} pdw={pdw}");
        }
    }
    assert_eq!(build_str("e2mc16", Geometry::default()).unwrap().latency(), Latency::new(46, 21));
}

#[test]
fn registry_knobs_and_metadata() {
    let g = Geometry::default();
    let codec = build_str("e2mc16", g).unwrap();
    assert_eq!(codec.name(), "e2mc16");
    assert_eq!(codec.encoding_names(), vec!["uncompressed".to_string(), "e2mc16".to_string()]);
    assert_eq!(codec.metadata_bits(), 2, "Section III-D: 2 bits per block");
    assert_eq!(build_str("e2mc8", geometry(128, 16)).unwrap().metadata_bits(), 3);
    let err = |text: &str| build_str(text, g).err().unwrap();
    assert_eq!((err("e2mc16:pdw=3").knob, err("e2mc16:pdw=3").value), ("e2mc16.pdw".into(), "3".into()));
    assert_eq!(err("e2mc32:mfv=0").knob, "e2mc32.mfv");
    assert_eq!(err("e2mc32:mfv=70000").knob, "e2mc32.mfv");
    assert!(err("e2mc4:mfv=16").to_string().contains("mfv"), "4-bit symbols have no MFV table");
    assert_eq!(err("e2mc8:sampling=sometimes").expected, "online (default) or offline (with a code table)");
    assert!(
        super::MFV_ACCEPTS.contains(&format!("1..={}", super::table::MAX_MFV)),
        "the declared mfv range is MAX_MFV's"
    );
    let missing = err("e2mc16:sampling=offline");
    assert_eq!((missing.knob.as_str(), missing.value.as_str()), ("e2mc16.table_json", "missing"));
    let mut spec = CodecSpec::parse("e2mc8:sampling=offline,pdw=2", g).unwrap();
    assert_eq!(CodeTable::from_json("{\"symbol_bits\":8,").err().unwrap().knob, "e2mc code table JSON");
    spec.table = Some(std::sync::Arc::new(hand_table16()));
    let mismatch = build(&spec).err().unwrap();
    assert_eq!((mismatch.knob.as_str(), mismatch.value.as_str()), ("e2mc8.table_json symbol_bits", "16"));
    spec.table = Some(std::sync::Arc::new(hand_table8()));
    let mut offline = build(&spec).unwrap();
    assert!(offline.compress(&[0u8; 128]).unwrap().is_compressed());
}

/// A deterministic training set of structured blocks.
fn training_blocks(block_bytes: usize) -> Vec<Vec<u8>> {
    let mut runner = TestRunner::deterministic();
    let strategy = structured_block(block_bytes);
    (0..300).map(|_| strategy.new_tree(&mut runner).unwrap().current()).collect()
}

/// A sampler fed structured data, cached per symbol length and block size.
fn trained_sampler(symbol_bits: u32, block_bytes: usize) -> Sampler {
    static CACHE: OnceLock<Mutex<HashMap<(u32, usize), Sampler>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(s) = cache.lock().unwrap().get(&(symbol_bits, block_bytes)) {
        return s.clone();
    }
    let mut sampler = Sampler::new(symbol_bits).unwrap();
    for block in training_blocks(block_bytes) {
        sampler.feed(&block);
    }
    cache.lock().unwrap().insert((symbol_bits, block_bytes), sampler.clone());
    sampler
}

fn trained_table(symbol_bits: u32, block_bytes: usize) -> CodeTable {
    trained_sampler(symbol_bits, block_bytes).build_table(DEFAULT_MFV).unwrap()
}

#[test]
fn trained_tables_compress_structured_data() {
    for bits in SYMBOL_BITS {
        let table = trained_table(bits, 128);
        let cap = table::max_code_length(bits);
        for p in 0..table.code_count() {
            let lengths = table.code_lengths(p);
            assert!(lengths.iter().all(|&l| (1..=cap).contains(&l)));
            assert_eq!(huffman::kraft_scaled(&lengths), 1 << huffman::MAX_CODE_LEN, "complete code");
        }
        let mut codec = coded(table, Geometry::default(), 4);
        let blocks = training_blocks(128);
        let compressed = blocks.iter().filter(|b| codec.compress(b).unwrap().is_compressed()).count();
        eprintln!("e2mc{bits}: {compressed} of {} compressed", blocks.len());
        assert!(compressed * 10 >= blocks.len(), "e2mc{bits} compressed only {compressed} of {}", blocks.len());
    }
}

/// A block size, MAG, PDW, whether to train on the block too, and a block.
type Case = (usize, usize, usize, bool, Vec<u8>);

fn case() -> impl Strategy<Value = Case> {
    (
        prop::sample::select(vec![32usize, 64, 128]),
        prop::sample::select(PDW_CHOICES.to_vec()),
        0usize..5,
        any::<bool>(),
        0usize..4,
    )
        .prop_flat_map(|(block_bytes, pdw, mag_pick, adapt, kind)| {
            // DRAM MAGs and link granules (byte-granular, 4 bytes).
            let mags: Vec<usize> = [1usize, 4, 16, 32, 64].into_iter().filter(|&m| m <= block_bytes).collect();
            let mag = mags[mag_pick % mags.len()];
            let blocks = if kind == 0 { random_block(block_bytes).boxed() } else { structured_block(block_bytes) };
            (Just(block_bytes), Just(mag), Just(pdw), Just(adapt), blocks)
        })
}

/// Round trip under a table trained on structured data or, with `adapt`,
/// on the block itself (as an online sampling phase over data like it
/// would), which makes most blocks take the compressed path.
fn round_trip(symbol_bits: u32, (block_bytes, mag, pdw, adapt, block): Case) -> Result<bool, TestCaseError> {
    let sampler = if adapt {
        let mut own = Sampler::new(symbol_bits).unwrap();
        for _ in 0..20 {
            own.feed(&block);
        }
        own
    } else {
        trained_sampler(symbol_bits, block_bytes)
    };
    let table = sampler.build_table(DEFAULT_MFV).unwrap();
    let mut codec = coded(table, geometry(block_bytes, mag), pdw);
    let c = assert_round_trips(&mut codec, &block)?;
    if c.is_compressed() {
        // The header holds PDW-1 pointers of log2(block_bytes) bits.
        let pointer_bits = block_bytes.trailing_zeros() as usize;
        prop_assert!(c.compressed_bits > (pdw - 1) * pointer_bits);
    }
    Ok(c.is_compressed())
}

/// Runs the property for a symbol length and checks a fair share of the
/// cases exercised the compressed path (about a fifth for e2mc4, the
/// weakest, so a tenth is many standard deviations below expectation).
fn round_trips(symbol_bits: u32) {
    const CASES: u32 = 160;
    let mut runner = TestRunner::new(ProptestConfig::with_cases(CASES));
    let compressed = std::sync::atomic::AtomicUsize::new(0);
    runner
        .run(&case(), |case| {
            if round_trip(symbol_bits, case)? {
                compressed.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            Ok(())
        })
        .unwrap();
    let compressed = compressed.into_inner();
    eprintln!("e2mc{symbol_bits}: {compressed} of {CASES} cases stored compressed");
    assert!(
        compressed >= CASES as usize / 10,
        "only {compressed} of {CASES} e2mc{symbol_bits} cases were stored compressed"
    );
}

#[test]
fn e2mc4_round_trips() {
    round_trips(4);
}

#[test]
fn e2mc8_round_trips() {
    round_trips(8);
}

#[test]
fn e2mc16_round_trips() {
    round_trips(16);
}

#[test]
fn e2mc32_round_trips() {
    round_trips(32);
}

proptest! {
    #[test]
    fn garbage_never_panics(bits in prop::sample::select(SYMBOL_BITS.to_vec()), pdw in prop::sample::select(PDW_CHOICES.to_vec()),
                            payload in prop::collection::vec(any::<u8>(), 0..40), cut in 0usize..8) {
        let codec = coded(trained_table(bits, 32), geometry(32, 16), pdw);
        let compressed_bits = (payload.len() * 8).saturating_sub(cut);
        let c = CompressedBlock { encoding: E2MC_ENCODING, payload, compressed_bits, mag_bytes: 32, burst_count: 2 };
        if let Ok(out) = codec.decompress(&c) {
            prop_assert_eq!(out.len(), 32);
        }
    }
}

/// Decodes `payload` split into `pdw` equal ways with the fast decoder (lockstep,
/// two symbols per pair-table lookup) and with the single-symbol reference,
/// way by way; both must agree on success, output and end positions.
fn fast_decode_matches_reference(coder: &Coder, layout: Layout, payload: &[u8]) -> Result<(), TestCaseError> {
    let mut padded = [0u8; 136];
    padded[..payload.len()].copy_from_slice(payload);
    let data_bits = payload.len() * 8;
    let (mut first, mut ends) = ([0usize; 8], [0usize; 8]);
    for w in 0..layout.pdw {
        first[w] = w * data_bits / layout.pdw;
        ends[w] = (w + 1) * data_bits / layout.pdw;
    }
    let block_bytes = layout.per_way * layout.pdw * coder.symbol_bits as usize / 8;
    let (mut fast_out, mut reference_out) = (vec![0u8; block_bytes], vec![0u8; block_bytes]);
    let fast = coder.decode_ways(&padded, first, ends, layout, &mut fast_out);
    let reference: Result<Vec<usize>, CodecError> = (0..layout.pdw)
        .map(|w| coder.decode_one_way(&padded, first[w], ends[w], w, layout.per_way, &mut reference_out))
        .collect();
    match (fast, reference) {
        (Ok(fast_ends), Ok(reference_ends)) => {
            prop_assert_eq!(&fast_ends[..layout.pdw], &reference_ends[..]);
            prop_assert_eq!(fast_out, reference_out);
        }
        (Err(_), Err(_)) => {}
        (fast, reference) => prop_assert!(false, "fast {:?} but reference {:?}", fast, reference),
    }
    Ok(())
}

proptest! {
    /// The pair-table decoder equals the single-symbol decoder on any bits:
    /// the payloads of real compressed blocks, the same with bits flipped,
    /// and random bits, under tables trained on structured data or on the
    /// block itself.
    #[test]
    fn pair_decoding_equals_single_symbol_decoding(
        symbol_bits in prop::sample::select(vec![4u32, 8, 16, 32]),
        pdw in prop::sample::select(PDW_CHOICES.to_vec()),
        block_bytes in prop::sample::select(vec![32usize, 64, 128]),
        adapt in any::<bool>(),
        block in structured_block(128),
        noise in prop::collection::vec(any::<u8>(), 1..=128),
        flips in prop::collection::vec(any::<u16>(), 0..4),
    ) {
        let block = &block[..block_bytes];
        let sampler = if adapt {
            let mut own = Sampler::new(symbol_bits).unwrap();
            own.feed(block);
            own
        } else {
            trained_sampler(symbol_bits, block_bytes)
        };
        let coder = Coder::new(sampler.build_table(DEFAULT_MFV).unwrap()).unwrap();
        let layout = Layout::new(geometry(block_bytes, 16.min(block_bytes)), symbol_bits, pdw);
        // The block's ways as the encoder codes them (no pointers, no padding check).
        let mut data = BitWriter::new();
        code_ways(&coder, block, pdw, |code, len| data.write(code, len));
        let (mut coded_bytes, _) = data.finish();
        coded_bytes.truncate(128);
        fast_decode_matches_reference(&coder, layout, &coded_bytes)?;
        for flip in flips {
            let bit = flip as usize % (coded_bytes.len() * 8);
            coded_bytes[bit / 8] ^= 0x80 >> (bit % 8);
        }
        fast_decode_matches_reference(&coder, layout, &coded_bytes)?;
        fast_decode_matches_reference(&coder, layout, &noise)?;
    }
}
