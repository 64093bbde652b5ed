/* The C ABI of memzip's codecs (rust/memzip-capi/include/memzip.h) driven
 * from plain C11. Run by tests/capi/run.sh, which then checks what this
 * program wrote into OUT_DIR against `memzip analyze` and a JSON parser:
 *   OUT_DIR/blocks.trace   the test blocks, written through memzip_trace_*
 *   OUT_DIR/sizes.tsv      per codec: blocks, compressed blocks, compressed bits
 *                          (64-byte blocks, 32-byte MAG, e2mc sampling ended
 *                          after SAMPLE_BLOCKS blocks, as `memzip analyze
 *                          --e2mc-sample-blocks` does)
 *   OUT_DIR/stats-*.json   memzip_codec_stats_json of some handles
 * Usage: capi_test OUT_DIR
 */
#include "memzip.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK_BYTES 64
#define BLOCKS 48
#define SAMPLE_BLOCKS 16

static int failures = 0;

#define CHECK(cond, ...)                                                  \
  do {                                                                    \
    if (!(cond)) {                                                        \
      fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);     \
      fprintf(stderr, __VA_ARGS__);                                       \
      fprintf(stderr, "\n");                                              \
      failures++;                                                         \
    }                                                                     \
  } while (0)

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t next_random(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

static void put32(uint8_t *block, int word, uint32_t v) {
  for (int b = 0; b < 4; b++) block[word * 4 + b] = (uint8_t)(v >> (8 * b));
}
static void put64(uint8_t *block, int word, uint64_t v) {
  for (int b = 0; b < 8; b++) block[word * 8 + b] = (uint8_t)(v >> (8 * b));
}

/* Block i: the patterns GPU data has (zeros, small ints, pointers, floats of
   one magnitude, repeated words) and random bytes, varied by i. */
static void make_block(int i, uint8_t *block) {
  memset(block, 0, BLOCK_BYTES);
  switch (i % 6) {
    case 0: /* zeros */
      break;
    case 1: /* small 32-bit ints, some negative */
      for (int w = 0; w < BLOCK_BYTES / 4; w++) put32(block, w, (uint32_t)((int32_t)(w * (i + 1) % 23) - 7));
      break;
    case 2: /* pointers into one array of 8-byte elements */
      for (int w = 0; w < BLOCK_BYTES / 8; w++) put64(block, w, 0x00007f3a12340000ull + 8ull * (uint64_t)(w + i));
      break;
    case 3: /* floats near 100 */
      for (int w = 0; w < BLOCK_BYTES / 4; w++) {
        float f = 100.0f + (float)(w * i % 7) * 0.25f;
        uint32_t bits;
        memcpy(&bits, &f, 4);
        put32(block, w, bits);
      }
      break;
    case 4: /* one repeated 64-bit word */
      for (int w = 0; w < BLOCK_BYTES / 8; w++) put64(block, w, 0x0102030405060708ull * (uint64_t)(i + 1));
      break;
    default: /* random */
      for (int w = 0; w < BLOCK_BYTES / 8; w++) put64(block, w, next_random());
  }
}

static uint8_t blocks[BLOCKS][BLOCK_BYTES];

/* Every block through compress / decompress / verify; returns the summed
   compressed bits, or -1 after a failure. */
static void write_stats(memzip_codec *codec, const char *out_dir, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/stats-%s.json", out_dir, name);
  size_t need = memzip_codec_stats_json(codec, NULL, 0);
  char *json = malloc(need + 1);
  CHECK(json && memzip_codec_stats_json(codec, json, need + 1) == need && strlen(json) == need, "stats length");
  FILE *out = fopen(path, "w");
  CHECK(out != NULL, "cannot write %s", path);
  if (out && json) {
    fputs(json, out);
    fclose(out);
  }
  free(json);
}

static long long round_trip_all(const char *spec, uint32_t granule, FILE *sizes, const char *out_dir) {
  memzip_error err;
  memzip_codec *codec = memzip_codec_new(spec, BLOCK_BYTES, granule, MEMZIP_COSTS_DEFAULT, NULL, &err);
  CHECK(codec != NULL, "%s: memzip_codec_new: %s", spec, err.message);
  if (!codec) return -1;
  long long bits = 0, compressed_blocks = 0;
  uint8_t payload[BLOCK_BYTES + 8], decoded[BLOCK_BYTES];
  for (int i = 0; i < BLOCKS; i++) {
    /* Every codec, as `memzip analyze` does: E2MC and SLC build their tables, others ignore it. */
    if (i == SAMPLE_BLOCKS) {
      CHECK(memzip_codec_end_sampling(codec, &err) == MEMZIP_OK, "%s: end_sampling: %s", spec, err.message);
    }
    memzip_block_info info;
    int32_t rc = memzip_compress(codec, blocks[i], BLOCK_BYTES, payload, sizeof payload, &info, &err);
    CHECK(rc == MEMZIP_OK && err.code == MEMZIP_OK, "%s block %d: compress %d: %s", spec, i, rc, err.message);
    if (rc != MEMZIP_OK) break;
    CHECK(info.encoding < memzip_codec_encoding_count(codec), "%s: encoding %u", spec, info.encoding);
    CHECK(info.burst_count == (info.compressed_bits + 8 * granule - 1) / (8 * granule) || info.compressed_bits == 0,
          "%s: %u bursts for %u bits", spec, info.burst_count, info.compressed_bits);
    CHECK(info.granule_bytes == info.burst_count * granule, "%s: granule bytes", spec);
    if (info.encoding == 0) {
      CHECK(info.compressed_bits == 8 * BLOCK_BYTES && info.decompress_cycles == 0 && info.decompress_pj == 0.0,
            "%s: a raw block costs nothing to decode", spec);
    } else {
      CHECK(info.granule_bytes < BLOCK_BYTES, "%s: compressed without saving a granule", spec);
      compressed_blocks++;
    }
    bits += info.compressed_bits;
    size_t payload_len = (info.compressed_bits + 7) / 8;
    memset(decoded, 0xAA, sizeof decoded);
    rc = memzip_decompress(codec, payload, payload_len, info.encoding, info.compressed_bits, decoded, BLOCK_BYTES,
                           &err);
    CHECK(rc == MEMZIP_OK, "%s block %d: decompress: %s", spec, i, err.message);
    CHECK(memcmp(decoded, blocks[i], BLOCK_BYTES) == 0, "%s block %d: decoded block differs", spec, i);
    rc = memzip_verify(codec, payload, payload_len, info.encoding, info.compressed_bits, blocks[i], BLOCK_BYTES,
                       &err);
    CHECK(rc == MEMZIP_OK, "%s block %d: verify: %s", spec, i, err.message);
  }
  if (sizes) {
    fprintf(sizes, "%s\t%d\t%lld\t%lld\n", spec, BLOCKS, compressed_blocks, bits);
    write_stats(codec, out_dir, spec);
  }
  memzip_codec_free(codec);
  return bits;
}

static void check_every_codec(const char *out_dir) {
  char path[4096];
  snprintf(path, sizeof path, "%s/sizes.tsv", out_dir);
  FILE *sizes = fopen(path, "w");
  CHECK(sizes != NULL, "cannot write %s", path);
  if (!sizes) return;
  char names[1024];
  snprintf(names, sizeof names, "%s", memzip_codec_names());
  int codecs = 0;
  for (char *name = strtok(names, ","); name; name = strtok(NULL, ","), codecs++) {
    /* A byte-granular link, as the multi-GPU fabric sizes messages; SLC's lossy
       threshold (16 bytes by default) may not exceed the granule. */
    long long link_bits = round_trip_all(strcmp(name, "slc") == 0 ? "slc:threshold=1" : name, 1, NULL, out_dir);
    /* A DRAM geometry, compared with `memzip analyze` by run.sh. */
    long long dram_bits = round_trip_all(name, 32, sizes, out_dir);
    CHECK(link_bits >= 0 && dram_bits >= 0, "%s failed", name);
    if (strcmp(name, "none") == 0) {
      CHECK(link_bits == BLOCKS * BLOCK_BYTES * 8, "none stores every block raw");
    } else if (strcmp(name, "bdi") == 0 || strcmp(name, "fpc") == 0 || strcmp(name, "cpack_z") == 0) {
      /* A finer granule keeps every block whose size a 32-byte MAG rounded away. */
      CHECK(link_bits <= dram_bits && link_bits < BLOCKS * BLOCK_BYTES * 8, "%s: link %lld bits, DRAM %lld bits",
            name, link_bits, dram_bits);
    }
  }
  CHECK(codecs >= 12, "memzip_codec_names lists %d codecs: %s", codecs, memzip_codec_names());
  fclose(sizes);
}

static int one_line(const char *message) {
  return message[0] != '\0' && strchr(message, '\n') == NULL && strlen(message) < 256;
}

static void check_errors(void) {
  memzip_error err;
  /* Bad specs, knobs, geometries and profiles: MEMZIP_ERR_SPEC naming the value. */
  const char *bad_specs[][2] = {{"zip", "'zip'"},
                                {"fpc:variant=bogus", "'bogus'"},
                                {"bdi:comp_latency=-3", "'-3'"},
                                {"adaptive:candidates=fpc/zip", "zip"},
                                {"adaptive:comp_latency=3", "comp_latency"}};
  for (size_t i = 0; i < sizeof bad_specs / sizeof bad_specs[0]; i++) {
    memzip_codec *codec = memzip_codec_new(bad_specs[i][0], 64, 1, MEMZIP_COSTS_DEFAULT, NULL, &err);
    CHECK(codec == NULL && err.code == MEMZIP_ERR_SPEC, "%s: code %d", bad_specs[i][0], err.code);
    CHECK(one_line(err.message) && strstr(err.message, bad_specs[i][1]), "%s: message '%s'", bad_specs[i][0],
          err.message);
    memzip_codec_free(codec);
  }
  CHECK(memzip_codec_new("fpc", 64, 3, MEMZIP_COSTS_DEFAULT, NULL, &err) == NULL && err.code == MEMZIP_ERR_SPEC &&
            strstr(err.message, "granule_bytes '3'"),
        "granule 3: %s", err.message);
  CHECK(memzip_codec_new("slc", 64, 1, MEMZIP_COSTS_DEFAULT, NULL, &err) == NULL && err.code == MEMZIP_ERR_SPEC &&
            strstr(err.message, "slc.threshold '16'"),
        "SLC's default threshold at granule 1: %s", err.message);
  CHECK(memzip_codec_new("fpc", 48, 1, MEMZIP_COSTS_DEFAULT, NULL, &err) == NULL && err.code == MEMZIP_ERR_SPEC &&
            strstr(err.message, "'48'"),
        "block 48: %s", err.message);
  CHECK(memzip_codec_new("fpc", 64, 1, 7, NULL, &err) == NULL && err.code == MEMZIP_ERR_SPEC &&
            strstr(err.message, "'7'"),
        "costs 7: %s", err.message);
  CHECK(memzip_codec_new("e2mc16", 64, 1, 0, "/nonexistent/table.json", &err) == NULL &&
            err.code == MEMZIP_ERR_IO && strstr(err.message, "/nonexistent/table.json"),
        "missing table: %s", err.message);
  CHECK(memzip_codec_new(NULL, 64, 1, 0, NULL, &err) == NULL && err.code == MEMZIP_ERR_ARGUMENT, "NULL spec");
  CHECK(memzip_codec_new("zip", 64, 1, 0, NULL, NULL) == NULL, "a NULL error record is fine");

  memzip_codec *codec = memzip_codec_new("fpc", 64, 1, MEMZIP_COSTS_DEFAULT, NULL, &err);
  CHECK(codec != NULL, "fpc: %s", err.message);
  if (!codec) return;
  uint8_t payload[BLOCK_BYTES], decoded[BLOCK_BYTES];
  memzip_block_info info;
  /* Short buffers, wrong lengths, null pointers: MEMZIP_ERR_ARGUMENT, and the handle is untouched. */
  CHECK(memzip_compress(codec, blocks[1], BLOCK_BYTES, payload, 10, &info, &err) == MEMZIP_ERR_ARGUMENT &&
            strstr(err.message, "10 bytes"),
        "short payload: %s", err.message);
  CHECK(memzip_compress(codec, blocks[1], 63, payload, sizeof payload, &info, &err) == MEMZIP_ERR_ARGUMENT &&
            strstr(err.message, "63"),
        "short block: %s", err.message);
  CHECK(memzip_compress(codec, NULL, BLOCK_BYTES, payload, sizeof payload, &info, &err) == MEMZIP_ERR_ARGUMENT &&
            strstr(err.message, "block is NULL"),
        "NULL block: %s", err.message);
  CHECK(memzip_compress(NULL, blocks[1], BLOCK_BYTES, payload, sizeof payload, &info, &err) == MEMZIP_ERR_ARGUMENT,
        "NULL codec");
  CHECK(memzip_compress(codec, blocks[1], BLOCK_BYTES, payload, sizeof payload, NULL, &err) == MEMZIP_ERR_ARGUMENT,
        "NULL info");
  CHECK(memzip_decompress(codec, payload, 8, 1, 64, decoded, 32, &err) == MEMZIP_ERR_ARGUMENT, "short output");
  char json[64];
  memzip_codec_stats_json(codec, json, sizeof json);
  CHECK(strstr(json, "\"blocks\":0") != NULL, "failed calls compress nothing: %s", json);

  /* Corrupt payloads: MEMZIP_ERR_CORRUPT. */
  CHECK(memzip_compress(codec, blocks[1], BLOCK_BYTES, payload, sizeof payload, &info, &err) == MEMZIP_OK &&
            info.encoding != 0,
        "small ints compress: %s", err.message);
  size_t len = (info.compressed_bits + 7) / 8;
  CHECK(memzip_decompress(codec, payload, len, info.encoding, info.compressed_bits - 1, decoded, BLOCK_BYTES,
                          &err) == MEMZIP_ERR_CORRUPT && one_line(err.message),
        "one bit short: %d %s", err.code, err.message);
  CHECK(memzip_decompress(codec, payload, len - 1, info.encoding, info.compressed_bits, decoded, BLOCK_BYTES, &err) ==
            MEMZIP_ERR_CORRUPT,
        "one byte short: %s", err.message);
  CHECK(memzip_decompress(codec, payload, len, 200, info.compressed_bits, decoded, BLOCK_BYTES, &err) ==
                MEMZIP_ERR_CORRUPT &&
            strstr(err.message, "200"),
        "unknown encoding: %s", err.message);
  CHECK(memzip_decompress(codec, payload, len, 1000, info.compressed_bits, decoded, BLOCK_BYTES, &err) ==
            MEMZIP_ERR_CORRUPT,
        "encoding beyond a byte: %s", err.message);
  CHECK(memzip_decompress(codec, NULL, 0, info.encoding, info.compressed_bits, decoded, BLOCK_BYTES, &err) ==
            MEMZIP_ERR_CORRUPT,
        "empty payload: %s", err.message);
  /* Random data is stored raw: a flipped byte decodes to other data, which verify names. */
  CHECK(memzip_compress(codec, blocks[5], BLOCK_BYTES, payload, sizeof payload, &info, &err) == MEMZIP_OK &&
            info.encoding == 0,
        "random is raw");
  payload[17] ^= 0x40;
  CHECK(memzip_verify(codec, payload, BLOCK_BYTES, info.encoding, info.compressed_bits, blocks[5], BLOCK_BYTES,
                      &err) == MEMZIP_ERR_MISMATCH &&
            strstr(err.message, "at byte 17") && one_line(err.message),
        "mismatch: %s", err.message);
  memzip_codec_free(codec);
}

/* The adaptive-compression paper's costs: Table III latencies and FPC's prefix table, also inside adaptive. */
static void check_paper004_costs(const char *out_dir) {
  memzip_error err;
  memzip_codec *fpc = memzip_codec_new("fpc", 64, 1, MEMZIP_COSTS_PAPER004, NULL, &err);
  CHECK(fpc != NULL, "%s", err.message);
  if (!fpc) return;
  CHECK(strcmp(memzip_codec_spec(fpc), "fpc:comp_latency=3,decomp_latency=5,variant=paper004") == 0, "spec %s",
        memzip_codec_spec(fpc));
  uint8_t payload[BLOCK_BYTES];
  memzip_block_info info;
  CHECK(memzip_compress(fpc, blocks[0], BLOCK_BYTES, payload, sizeof payload, &info, &err) == MEMZIP_OK, "zeros");
  CHECK(info.encoding != 0 && info.compressed_bits == 3 && info.granule_bytes == 1, "paper004 zero block: %u bits",
        info.compressed_bits);
  CHECK(info.compress_cycles == 3 && info.decompress_cycles == 5, "cycles %u/%u", info.compress_cycles,
        info.decompress_cycles);
  /* Energy (memzip's model, the adaptive-compression paper's Table III): FPC's 36.9 pJ per 512 bits split 3:5 by power x latency. */
  CHECK(info.compress_pj > 13.0 && info.compress_pj < 15.0 && info.decompress_pj > 22.0 && info.decompress_pj < 24.0,
        "energy %f/%f", info.compress_pj, info.decompress_pj);
  memzip_codec_free(fpc);

  memzip_codec *adaptive = memzip_codec_new("adaptive", 64, 1, MEMZIP_COSTS_PAPER004, NULL, &err);
  CHECK(adaptive != NULL, "%s", err.message);
  if (!adaptive) return;
  const char *spec = memzip_codec_spec(adaptive);
  CHECK(strstr(spec, "lambda=6") && strstr(spec, "fpc:comp_latency=3,decomp_latency=5,variant=paper004") &&
            strstr(spec, "bdi:comp_latency=2,decomp_latency=1") &&
            strstr(spec, "cpack_z:comp_latency=16,decomp_latency=9"),
        "adaptive spec %s", spec);
  CHECK(memzip_codec_encoding_name(adaptive, 0) && strcmp(memzip_codec_encoding_name(adaptive, 0), "uncompressed") == 0,
        "encoding 0");
  CHECK(memzip_codec_encoding_name(adaptive, memzip_codec_encoding_count(adaptive)) == NULL, "out of range");
  CHECK(memzip_codec_metadata_bits(adaptive) >= 4, "metadata bits %u", memzip_codec_metadata_bits(adaptive));
  /* A sample runs every candidate: the slowest compressor's cycles, every compressor's energy. */
  CHECK(memzip_compress(adaptive, blocks[1], BLOCK_BYTES, payload, sizeof payload, &info, &err) == MEMZIP_OK, "c");
  CHECK(info.compress_cycles == 16, "sampling costs C-Pack+Z's 16 cycles, got %u", info.compress_cycles);
  for (int i = 2; i < 2 * 300; i++) {
    CHECK(memzip_compress(adaptive, blocks[i % BLOCKS], BLOCK_BYTES, payload, sizeof payload, &info, &err) ==
              MEMZIP_OK,
          "%s", err.message);
  }
  size_t need = memzip_codec_stats_json(adaptive, NULL, 0);
  char cut[16];
  CHECK(memzip_codec_stats_json(adaptive, cut, sizeof cut) == need && strlen(cut) == sizeof cut - 1,
        "stats cut to the buffer, NUL-terminated");
  write_stats(adaptive, out_dir, "adaptive-paper004");
  memzip_codec_free(adaptive);
}

static void write_trace(const char *out_dir) {
  char path[4096];
  snprintf(path, sizeof path, "%s/blocks.trace", out_dir);
  memzip_error err;
  memzip_trace *trace = memzip_trace_create(path, BLOCK_BYTES, &err);
  CHECK(trace != NULL, "trace: %s", err.message);
  if (!trace) return;
  for (int i = 0; i < BLOCKS; i++) {
    int32_t rc = memzip_trace_append(trace, 1, (uint32_t)(i % 4), 1000u + 7u * (uint64_t)i,
                                     0x100000u + 64u * (uint64_t)i, blocks[i], BLOCK_BYTES, &err);
    CHECK(rc == MEMZIP_OK, "append %d: %s", i, err.message);
  }
  /* Three reads, counted apart by `memzip analyze`. */
  for (int i = 0; i < 3; i++) {
    CHECK(memzip_trace_append(trace, 0, 9, 5000, 64u * (uint64_t)i, blocks[i], BLOCK_BYTES, &err) == MEMZIP_OK,
          "read %d", i);
  }
  CHECK(memzip_trace_append(trace, 7, 0, 0, 0, blocks[0], BLOCK_BYTES, &err) == MEMZIP_ERR_ARGUMENT &&
            strstr(err.message, "'7'"),
        "bad kind: %s", err.message);
  CHECK(memzip_trace_append(trace, 1, 0, 0, 0, blocks[0], 32, &err) == MEMZIP_ERR_ARGUMENT, "short record: %s",
        err.message);
  CHECK(memzip_trace_close(trace, &err) == MEMZIP_OK, "close: %s", err.message);
  CHECK(memzip_trace_close(NULL, &err) == MEMZIP_OK, "closing NULL is fine");
  CHECK(memzip_trace_create("/nonexistent-dir/x.trace", 64, &err) == NULL && err.code == MEMZIP_ERR_IO &&
            strstr(err.message, "/nonexistent-dir/x.trace"),
        "unwritable trace: %s", err.message);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
    return 2;
  }
  for (int i = 0; i < BLOCKS; i++) make_block(i, blocks[i]);
  check_every_codec(argv[1]);
  check_errors();
  check_paper004_costs(argv[1]);
  write_trace(argv[1]);
  memzip_codec_free(NULL);
  if (failures) {
    fprintf(stderr, "capi_test: %d failures\n", failures);
    return 1;
  }
  printf("capi_test: every codec round-trips %d blocks; errors, costs, stats and trace checked\n", BLOCKS);
  return 0;
}
