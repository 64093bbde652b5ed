/* memzip.h: the C ABI of memzip's lossless memory-compression codecs
 * (rust/memzip-capi; API, ownership and linking in its README.md).
 *
 * Every function that can fail returns a status code (or NULL) and, when
 * `err` is not NULL, fills it: code and a one-line, NUL-terminated message
 * naming the value at fault. Null pointers and short buffers are errors, not
 * undefined behaviour; a panic inside memzip is caught and reported as
 * MEMZIP_ERR_PANIC. A handle (codec or trace) is used by one thread at a
 * time; the library keeps no pointer to caller memory after a call returns.
 * Link: -lmemzip_capi -lpthread -ldl -lm (see the README).
 */
#ifndef MEMZIP_H
#define MEMZIP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
  MEMZIP_OK = 0,
  MEMZIP_ERR_ARGUMENT = 1, /* null pointer, wrong length, buffer too small */
  MEMZIP_ERR_SPEC = 2,     /* bad codec spec, knob, cost profile or geometry */
  MEMZIP_ERR_CORRUPT = 3,  /* the decoder rejected its input */
  MEMZIP_ERR_MISMATCH = 4, /* memzip_verify: the decoded block differs */
  MEMZIP_ERR_IO = 5,       /* a file could not be read or written */
  MEMZIP_ERR_PANIC = 6     /* a bug inside memzip, caught; free the handle */
};

/* `costs` of memzip_codec_new. */
enum {
  MEMZIP_COSTS_DEFAULT = 0, /* each codec's own latencies (FPC 6/10, BDI 1/1, C-Pack+Z 16/9 cycles, ...) */
  MEMZIP_COSTS_PAPER004 = 1 /* Table III of "Exploiting Adaptive Data Compression to Improve Performance and
                               Energy-Efficiency of Compute Workloads in Multi-GPU Systems" (IPDPS 2019):
                               FPC 3/5, BDI 2/1, C-Pack+Z 16/9 cycles wherever the spec sets none, also for
                               adaptive's candidates, and fpc:variant=paper004 unless the spec names a variant */
};

typedef struct memzip_error {
  int32_t code;
  char message[256]; /* NUL-terminated, one line, printable as is; "" on success */
} memzip_error;

typedef struct memzip_codec memzip_codec;

/* Every codec name memzip knows, comma-separated ("none,bdi,mag_bdi,fpc,..."); static. */
const char *memzip_codec_names(void);

/* Creates a codec. spec: a memzip codec spec ("fpc", "bdi", "cpack_z", "adaptive:lambda=6", "none", ...);
   every codec but adaptive takes comp_latency=N,decomp_latency=N (cycles), e.g.
   "adaptive:candidates=fpc:comp_latency=3/bdi". block_bytes: 32, 64 or 128. granule_bytes: the unit compressed
   sizes are rounded to, a power of two up to block_bytes (1 for a byte-granular link, the MAG for DRAM); a block
   is stored compressed only when that saves at least one granule. costs: MEMZIP_COSTS_*. e2mc_table_path: NULL, or
   an offline E2MC table (JSON, as `memzip e2mc-profile` writes), used by the e2mc codec of its symbol length (and
   by slc, for a 16-bit table).
   Returns NULL on failure. */
memzip_codec *memzip_codec_new(const char *spec, uint32_t block_bytes, uint32_t granule_bytes, int32_t costs,
                               const char *e2mc_table_path, memzip_error *err);
void memzip_codec_free(memzip_codec *codec); /* NULL is fine */

/* The resolved spec, every knob written out (profile latencies, adaptive's lambda and candidates);
   valid until memzip_codec_free. */
const char *memzip_codec_spec(const memzip_codec *codec);
uint32_t memzip_codec_encoding_count(const memzip_codec *codec);
const char *memzip_codec_encoding_name(const memzip_codec *codec, uint32_t encoding); /* NULL if out of range */
uint32_t memzip_codec_metadata_bits(const memzip_codec *codec); /* bits that name every encoding */

typedef struct memzip_block_info {
  uint32_t encoding;          /* 0 = stored raw */
  uint32_t compressed_bits;   /* exact stored size; the payload is (compressed_bits + 7) / 8 bytes */
  uint32_t granule_bytes;     /* compressed_bits rounded up to the granule, in bytes */
  uint32_t burst_count;       /* granules */
  uint32_t compress_cycles;   /* what the compressor spent on this block (adaptive: sampling costs the slowest
                                 candidate, bypass costs 0) */
  uint32_t decompress_cycles; /* what decoding this block will cost (0 for a raw block) */
  double compress_pj;         /* energy of the compressors that examined this block (memzip's energy model) */
  double decompress_pj;       /* energy to decompress it (0 for raw) */
} memzip_block_info;

/* Compresses one block (block_len == block_bytes). payload receives the bitstream, (compressed_bits + 7) / 8
   bytes; payload_cap must be at least block_len (a raw block), checked before the codec runs, so a short buffer
   changes no state. Allocation-free after the first call. */
int32_t memzip_compress(memzip_codec *codec, const uint8_t *block, size_t block_len, uint8_t *payload,
                        size_t payload_cap, memzip_block_info *info, memzip_error *err);
/* Decompresses a payload (encoding and compressed_bits as memzip_compress reported them; payload may be NULL when
   payload_len is 0) into block (block_len == block_bytes). A corrupt payload gives MEMZIP_ERR_CORRUPT. */
int32_t memzip_decompress(const memzip_codec *codec, const uint8_t *payload, size_t payload_len, uint32_t encoding,
                          uint32_t compressed_bits, uint8_t *block, size_t block_len, memzip_error *err);
/* Decompresses and compares with `original`; MEMZIP_ERR_MISMATCH names the first differing byte. */
int32_t memzip_verify(const memzip_codec *codec, const uint8_t *payload, size_t payload_len, uint32_t encoding,
                      uint32_t compressed_bits, const uint8_t *original, size_t block_len, memzip_error *err);
/* Ends an online E2MC sampling phase: the code table is built from the blocks compressed so far, later blocks are
   coded with it (without a table file an e2mc codec stores blocks raw until then). A no-op for other codecs. */
int32_t memzip_codec_end_sampling(memzip_codec *codec, memzip_error *err);

/* Statistics of every memzip_compress on this handle, as JSON (schema in the README). Returns the JSON's length
   without the NUL; writes at most cap bytes, snprintf-style (cut to cap - 1 bytes and NUL-terminated whenever
   cap > 0). Call with cap 0 to size the buffer (length + 1). */
size_t memzip_codec_stats_json(const memzip_codec *codec, char *buf, size_t cap);

/* memzip's block trace format (rust/memzip/src/trace.rs), so `memzip analyze` reads what a simulator wrote. */
typedef struct memzip_trace memzip_trace;
/* Creates (truncates) path. Returns NULL on failure. */
memzip_trace *memzip_trace_create(const char *path, uint32_t block_bytes, memzip_error *err);
/* kind: 0 read (e.g. an inter-GPU data-ready payload), 1 write, 2 host-to-device copy; source: who sent it
   (memory controller, GPU, ...), stored as the trace's controller field. block_len == block_bytes. */
int32_t memzip_trace_append(memzip_trace *trace, uint8_t kind, uint32_t source, uint64_t cycle, uint64_t address,
                            const uint8_t *block, size_t block_len, memzip_error *err);
/* Finishes the file and frees the handle, also when finishing fails; NULL is fine. A trace never closed is
   unreadable (its zstd frame is incomplete). */
int32_t memzip_trace_close(memzip_trace *trace, memzip_error *err);

#ifdef __cplusplus
}
#endif

#endif /* MEMZIP_H */
