/* Time of one memzip_compress / memzip_decompress call from C on a 64-byte
 * block (granule 1, paper-004 costs), per codec named on the command line.
 * Each figure is the best of 300 batches of 2,000 calls: on a shared machine
 * the best batch is the one no other process preempted, so the figure is the
 * call's own cost (a criterion run there measures the load too). Not part of
 * the tests; see rust/memzip-capi/README.md for how to build and run it:
 *   cargo build --release -p memzip-capi
 *   cc -O2 -std=c11 -Irust/memzip-capi/include tests/capi/timing.c \
 *      target/release/libmemzip_capi.a -lpthread -ldl -lm -o timing
 *   ./timing none bdi fpc cpack_z adaptive
 * Blocks: the mix of benches/capi.rs (zeros, small ints, pointers, floats,
 * random bytes), cycled one per call.
 */
#define _POSIX_C_SOURCE 199309L
#include "memzip.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define BLOCK_BYTES 64
#define BLOCKS 64
#define BATCH 2000
#define BATCHES 300

static uint8_t blocks[BLOCKS][BLOCK_BYTES];
static uint8_t payloads[BLOCKS][BLOCK_BYTES];
static memzip_block_info infos[BLOCKS];

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static void make_blocks(void) {
  uint64_t state = 0x9e3779b97f4a7c15ull;
  for (uint64_t i = 0; i < BLOCKS; i++) {
    for (uint64_t w = 0; w < BLOCK_BYTES / 8; w++) {
      state ^= state << 13;
      state ^= state >> 7;
      state ^= state << 17;
      uint64_t word;
      float low = 100.0f + (float)w, high = 101.5f + (float)i;
      uint32_t low_bits, high_bits;
      switch (i % 5) {
        case 0: word = 0; break;
        case 1: word = (w * 3 + i) | ((w + 1) << 32); break;
        case 2: word = 0x7f3a12340000ull + 8 * (w + i); break;
        case 3:
          memcpy(&low_bits, &low, 4);
          memcpy(&high_bits, &high, 4);
          word = low_bits | ((uint64_t)high_bits << 32);
          break;
        default: word = state;
      }
      memcpy(&blocks[i][w * 8], &word, 8);
    }
  }
}

int main(int argc, char **argv) {
  make_blocks();
  for (int arg = 1; arg < argc; arg++) {
    memzip_error err;
    memzip_codec *codec = memzip_codec_new(argv[arg], BLOCK_BYTES, 1, MEMZIP_COSTS_PAPER004, NULL, &err);
    if (!codec) {
      fprintf(stderr, "%s\n", err.message);
      return 1;
    }
    uint8_t payload[BLOCK_BYTES], decoded[BLOCK_BYTES];
    memzip_block_info info;
    unsigned sink = 0;
    double compress_ns = 1e30, decompress_ns = 1e30;
    for (int batch = 0; batch < BATCHES; batch++) {
      double start = now_ns();
      for (int k = 0; k < BATCH; k++) {
        sink += (unsigned)memzip_compress(codec, blocks[k % BLOCKS], BLOCK_BYTES, payload, sizeof payload, &info, &err);
      }
      double per_call = (now_ns() - start) / BATCH;
      compress_ns = per_call < compress_ns ? per_call : compress_ns;
    }
    for (int i = 0; i < BLOCKS; i++) {
      sink += (unsigned)memzip_compress(codec, blocks[i], BLOCK_BYTES, payloads[i], BLOCK_BYTES, &infos[i], &err);
    }
    for (int batch = 0; batch < BATCHES; batch++) {
      double start = now_ns();
      for (int k = 0; k < BATCH; k++) {
        int i = k % BLOCKS;
        sink += (unsigned)memzip_decompress(codec, payloads[i], (infos[i].compressed_bits + 7) / 8, infos[i].encoding,
                                            infos[i].compressed_bits, decoded, BLOCK_BYTES, &err);
      }
      double per_call = (now_ns() - start) / BATCH;
      decompress_ns = per_call < decompress_ns ? per_call : decompress_ns;
    }
    if (sink != 0) {
      fprintf(stderr, "%s: a call failed: %s\n", argv[arg], err.message);
      return 1;
    }
    printf("%-10s memzip_compress %6.1f ns   memzip_decompress %6.1f ns\n", argv[arg], compress_ns, decompress_ns);
    memzip_codec_free(codec);
  }
  return 0;
}
