// memzip `ml` suite: the matrix-vector products of one LLM decode step,
// y = W x for each weight matrix in turn (one launch per matrix, as a decoder
// runs its layers), W and x in bf16, fp32 accumulation, y rounded to bf16.
// At batch 1 every weight is read once per token and used once: the kernel
// is bound by DRAM bandwidth, the case weight compression speeds up.
//
//   llm_decode_gemv INPUT_DIR OUTPUT_FILE
//
// INPUT_DIR (benchmarks/inputs/ml_tensors.py): dims.txt ("layers L", then
// "rows<i> N" and "cols<i> K", K a multiple of 8), weights.bin (the layers'
// N x K row-major bf16 matrices one after another), x.bin (each layer's K
// bf16 inputs one after another). OUTPUT_FILE: each layer's N bf16 outputs.
#include "ml_common.cuh"

static const int kWarpsPerBlock = 8;

// One warp per row: lane l reads 8 consecutive weights (16 bytes) at
// k = 8 l + 256 i, so a warp reads 512 contiguous bytes per step, and keeps
// its own fp32 sum over its elements in k order; the 32 sums are then added
// by a butterfly (xor 16, 8, 4, 2, 1), the order the host reference repeats.
__global__ void gemv_bf16(const uint4* __restrict__ w, const uint4* __restrict__ x, uint16_t* y, int rows, int cols) {
    int row = blockIdx.x * kWarpsPerBlock + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) return;
    const uint4* w_row = w + (size_t)row * (cols / 8);
    float acc = 0.0f;
    for (int chunk = lane; chunk < cols / 8; chunk += 32) {
        uint4 wv = w_row[chunk];
        uint4 xv = x[chunk];
        uint32_t ws[4] = {wv.x, wv.y, wv.z, wv.w};
        uint32_t xs[4] = {xv.x, xv.y, xv.z, xv.w};
        for (int j = 0; j < 4; j++) {
            acc = acc + bf16_to_float(ws[j] & 0xFFFFu) * bf16_to_float(xs[j] & 0xFFFFu);
            acc = acc + bf16_to_float(ws[j] >> 16) * bf16_to_float(xs[j] >> 16);
        }
    }
    for (int offset = 16; offset > 0; offset /= 2) acc = acc + __shfl_xor_sync(0xFFFFFFFFu, acc, offset);
    if (lane == 0) y[row] = (uint16_t)float_to_bf16(acc);
}

int main(int argc, char** argv) {
    usage_if(argc, argv[0]);
    std::string dir = argv[1];
    int layers = (int)read_dim(dir, "layers");
    std::vector<long> rows(layers), cols(layers);
    size_t w_elems = 0, x_elems = 0, y_elems = 0;
    for (int i = 0; i < layers; i++) {
        rows[i] = read_dim(dir, ("rows" + std::to_string(i)).c_str());
        cols[i] = read_dim(dir, ("cols" + std::to_string(i)).c_str());
        if (cols[i] % 8 != 0) {
            fprintf(stderr, "ml: layer %d has %ld columns, not a multiple of 8\n", i, cols[i]);
            return 1;
        }
        w_elems += rows[i] * cols[i];
        x_elems += cols[i];
        y_elems += rows[i];
    }
    std::vector<uint16_t> w = read_array<uint16_t>(dir, "weights.bin", w_elems);
    std::vector<uint16_t> x = read_array<uint16_t>(dir, "x.bin", x_elems);
    uint16_t* d_w = to_device(w);
    uint16_t* d_x = to_device(x);
    uint16_t* d_y = nullptr;
    cuda_ok(cudaMalloc(&d_y, y_elems * sizeof(uint16_t)), "cudaMalloc y");
    size_t w_at = 0, x_at = 0, y_at = 0;
    for (int i = 0; i < layers; i++) {
        int blocks = (int)((rows[i] + kWarpsPerBlock - 1) / kWarpsPerBlock);
        gemv_bf16<<<blocks, 32 * kWarpsPerBlock>>>((const uint4*)(d_w + w_at), (const uint4*)(d_x + x_at), d_y + y_at,
                                                   (int)rows[i], (int)cols[i]);
        cuda_ok(cudaGetLastError(), "gemv_bf16 launch");
        w_at += rows[i] * cols[i];
        x_at += cols[i];
        y_at += rows[i];
    }
    cuda_ok(cudaDeviceSynchronize(), "gemv_bf16");
    write_array(argv[2], from_device(d_y, y_elems));
    printf("llm_decode_gemv: %d layers, %zu weights, %zu outputs written\n", layers, w_elems, y_elems);
    return 0;
}
