//! The 64 blocks both timings of the C ABI use (the criterion bench
//! `capi` and the example `timing`), the same mix as `tests/capi/timing.c`:
//! zeros, small integers, pointers, floats and random bytes, one kind per
//! block in turn.

pub const BLOCK_BYTES: usize = 64;

pub fn blocks() -> Vec<[u8; BLOCK_BYTES]> {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    (0..64u64)
        .map(|i| {
            let mut block = [0u8; BLOCK_BYTES];
            for (w, chunk) in block.chunks_exact_mut(8).enumerate() {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let w = w as u64;
                let word = match i % 5 {
                    0 => 0,
                    1 => (w * 3 + i) | ((w + 1) << 32),
                    2 => 0x7f3a_1234_0000 + 8 * (w + i),
                    3 => (100.0f32 + w as f32).to_bits() as u64 | (((101.5f32 + i as f32).to_bits() as u64) << 32),
                    _ => state,
                };
                chunk.copy_from_slice(&word.to_le_bytes());
            }
            block
        })
        .collect()
}
