//! A deterministic synthetic mix of memory blocks, shared by the golden
//! bitstream test and the codec benchmark: the kinds of data GPU memory
//! holds (zeros, small and negative ints, index arrays, pointers, floats,
//! doubles, repeated words, sparse blocks, noise) plus values right at the
//! codecs' width limits, so every encoding of every codec is exercised.

/// splitmix64: a fixed stream, so every run sees the same bytes.
pub fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Kinds of block in the mix; block `i` is of kind `i % KINDS`.
pub const KINDS: usize = 16;

fn words32(block_bytes: usize, mut word: impl FnMut(usize) -> u32) -> Vec<u8> {
    (0..block_bytes / 4).flat_map(|j| word(j).to_le_bytes()).collect()
}

fn words64(block_bytes: usize, mut word: impl FnMut(usize) -> u64) -> Vec<u8> {
    (0..block_bytes / 8).flat_map(|j| word(j).to_le_bytes()).collect()
}

/// One block of kind `kind`, drawing randomness from `s`.
pub fn block_of_kind(kind: usize, block_bytes: usize, s: &mut u64) -> Vec<u8> {
    let base = next(s);
    match kind % KINDS {
        0 => vec![0; block_bytes],
        1 => words32(block_bytes, |_| (next(s) % 200) as u32),
        // Index / 4-byte pointer arrays: a base plus a stride.
        2 => words32(block_bytes, |j| (base as u32 & 0xffff_f000).wrapping_add(j as u32 * 8)),
        // 8-byte pointers into one region.
        3 => words64(block_bytes, |_| (base & 0x0000_7fff_ffff_f000) + (next(s) % 4096) * 8),
        4 => words32(block_bytes, |_| (100.0f32 + (next(s) % 1000) as f32 / 8.0).to_bits()),
        5 => (0..block_bytes).map(|_| next(s) as u8).collect(),
        6 => words64(block_bytes, |_| base),
        7 => words32(block_bytes, |_| base as u32),
        // Sparse: mostly zero words, a few arbitrary ones.
        8 => words32(block_bytes, |_| if next(s) % 8 == 0 { next(s) as u32 } else { 0 }),
        // Packed 16-bit values.
        9 => (0..block_bytes / 2).flat_map(|_| ((next(s) % 3000) as u16).to_le_bytes()).collect(),
        10 => words32(block_bytes, |_| (-((next(s) % 100) as i32)) as u32),
        11 => words64(block_bytes, |_| (1.5f64 + (next(s) % 10_000) as f64 * 1e-3).to_bits()),
        // Half zeros, half floats.
        12 => words32(block_bytes, |j| if j % 2 == 0 { 0 } else { (next(s) as f32 / 1e9).to_bits() }),
        // Repeated-byte words and words with a zero low halfword.
        13 => words32(block_bytes, |_| match next(s) % 3 {
            0 => (next(s) as u32 & 0xff).wrapping_mul(0x0101_0101),
            1 => (next(s) as u32) << 16,
            _ => (next(s) as u32 & 0xff) | (((next(s) as u32 & 0xff) ^ 0xff80) << 16),
        }),
        // A 4-byte base with deltas of a random width (1..=24 bits).
        14 => {
            let bits = 1 + (base % 24) as u32;
            words32(block_bytes, |_| {
                let delta = (next(s) % (1u64 << bits)) as i64 - (1i64 << (bits - 1));
                (base as u32).wrapping_add(delta as u32)
            })
        }
        // An 8-byte base with deltas of a random width (1..=40 bits).
        _ => {
            let bits = 1 + (base % 40) as u32;
            words64(block_bytes, |_| {
                let delta = (next(s) % (1u64 << bits)) as i64 - (1i64 << (bits - 1));
                (base >> 8).wrapping_add(delta as u64)
            })
        }
    }
}

/// `count` blocks of `block_bytes`, cycling through the kinds.
pub fn block_mix(block_bytes: usize, count: usize, seed: u64) -> Vec<Vec<u8>> {
    let mut state = seed;
    (0..count).map(|i| block_of_kind(i, block_bytes, &mut state)).collect()
}
