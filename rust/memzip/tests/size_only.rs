//! The size-only path (`Codec::compressed_size`, used by `memzip analyze`
//! without `--verify`) must return exactly the encoding and size `compress`
//! does, block after block (state included: E2MC sampling, the adaptive
//! selector's phases), on arbitrary blocks: structured ones from the mix
//! with random bytes overwritten, and pure noise.

mod common;

use std::cell::RefCell;

use common::mix::{block_mix, block_of_kind, KINDS};
use common::{codec, codecs, label};
use memzip::Geometry;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

fn blocks(block_bytes: usize) -> impl Strategy<Value = Vec<u8>> {
    let structured = (0..KINDS, any::<u64>(), prop::collection::vec((0..block_bytes, any::<u8>()), 0..4)).prop_map(
        move |(kind, mut seed, edits)| {
            let mut block = block_of_kind(kind, block_bytes, &mut seed);
            for (i, b) in edits {
                block[i] = b;
            }
            block
        },
    );
    prop_oneof![4 => structured, 1 => prop::collection::vec(any::<u8>(), block_bytes)]
}

#[test]
fn compressed_size_equals_compress() {
    for (block_bytes, mag_bytes) in [(128, 32), (128, 16), (64, 32), (32, 16)] {
        let geometry = Geometry::new(block_bytes, mag_bytes).unwrap();
        for (name, knobs) in codecs() {
            let full = RefCell::new(codec(name, knobs, geometry));
            let sized = RefCell::new(codec(name, knobs, geometry));
            // Half the cases in E2MC's sampling phase, half after it.
            for (pass, block) in block_mix(block_bytes, 256, 7).iter().enumerate() {
                let c = full.borrow_mut().compress(block).unwrap();
                assert_eq!(sized.borrow_mut().compressed_size(block).unwrap(), c.size(), "{name} sampling {pass}");
            }
            full.borrow_mut().end_sampling().unwrap();
            sized.borrow_mut().end_sampling().unwrap();
            let mut runner = TestRunner::new(Config { cases: 96, failure_persistence: None, ..Config::default() });
            runner
                .run(&blocks(block_bytes), |block| {
                    let c = full.borrow_mut().compress(&block).unwrap();
                    prop_assert_eq!(sized.borrow_mut().compressed_size(&block).unwrap(), c.size());
                    Ok(())
                })
                .unwrap_or_else(|e| panic!("{} at {block_bytes}/{mag_bytes}: {e}", label(name, knobs)));
        }
    }
}
