// Our wrapper around xyz123479/CAL_22-MPC_gpgpu-sim's src/gpgpu-sim/comp.cc
// (not in this repository: build.rs extracts it into OUT_DIR from
// MEMZIP_PEER_MPC_REPO and compiles it unchanged, with the simulator's
// abstract_hardware_model.h skipped by its include guard). Each function
// returns the peer's compressed size of one block in bits (size only).
#include <cstddef>
#include <cstdint>

#include "comp.h"

// comp.h declares it for MPCompressor's configuration (not timed here).
char *configPath = nullptr;

namespace {
BDICompressor bdi;
FPCompressor fpc;
CachePacker cpack;
BPCompressor bpc;
SC2Compressor sc2;
}  // namespace

extern "C" {
size_t peer_mpc_bdi_bits(const uint8_t *block, size_t bytes) { return bdi.compress(const_cast<uint8_t *>(block), (int)bytes); }
size_t peer_mpc_fpc_bits(const uint8_t *block, size_t bytes) { return fpc.compress(const_cast<uint8_t *>(block), (int)bytes); }
size_t peer_mpc_cpack_bits(const uint8_t *block, size_t bytes) { return cpack.compress(const_cast<uint8_t *>(block), (int)bytes); }
size_t peer_mpc_bpc_bits(const uint8_t *block, size_t bytes) { return bpc.compress(const_cast<uint8_t *>(block), (int)bytes); }
// SC2 counts symbols for the first `blocks` calls, builds its Huffman code on
// the next one, then codes with it.
void peer_mpc_sc2_sampling_blocks(unsigned blocks) { sc2.SetSamplingCnt(blocks); }
size_t peer_mpc_sc2_bits(const uint8_t *block, size_t bytes) { return sc2.compress(const_cast<uint8_t *>(block), (int)bytes); }
}
