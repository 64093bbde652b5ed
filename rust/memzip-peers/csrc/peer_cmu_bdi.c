/* Our wrapper around CMU-SAFARI/BDICompression's compression.c (not in this
 * repository: build.rs extracts it into OUT_DIR from MEMZIP_PEER_BDI_REPO).
 * That file was written for a Valgrind tool and calls VG_(malloc),
 * VG_(free) and VG_(exit); they map to libc here, the file itself is
 * compiled unchanged. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#define VG_(name) peer_vg_##name
static void *peer_vg_malloc(const char *cost_centre, size_t bytes) {
    (void)cost_centre;
    return malloc(bytes);
}
static void peer_vg_free(void *pointer) { free(pointer); }
static void peer_vg_exit(int code) { exit(code); }

#include "compression.c"

/* Bytes BDICompress gives a block (size only, no bitstream). */
size_t peer_cmu_bdi_size(const uint8_t *block, size_t bytes) {
    return BDICompress((char *)block, (unsigned)bytes);
}

/* Bytes FPCCompress gives a block (size only); it takes a count of 32-bit words. */
size_t peer_cmu_fpc_size(const uint8_t *block, size_t bytes) {
    return FPCCompress((char *)block, (unsigned)(bytes / 4));
}
