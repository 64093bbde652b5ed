// memzip `ml` suite: RMSNorm over bf16 activations (y = x / sqrt(mean(x^2) +
// eps) * g, per row), fp32 arithmetic, bf16 output: the elementwise, streaming
// kind of kernel that runs between a transformer's matrix products (each
// activation read once and written once).
//
//   rmsnorm INPUT_DIR OUTPUT_FILE
//
// INPUT_DIR (benchmarks/inputs/ml_tensors.py): dims.txt ("rows R", "width D",
// D a multiple of 64), x.bin (R x D bf16), gamma.bin (D bf16).
// OUTPUT_FILE: R x D bf16.
#include "ml_common.cuh"

static const int kWarpsPerBlock = 8;
static const float kEps = 1e-6f;

// One warp per row; lane l reads the bf16 pairs at 2 l + 64 i (a warp reads
// 128 contiguous bytes per step), sums its squares in that order, and the
// warp adds the 32 sums by a butterfly (xor 16, 8, 4, 2, 1).
__global__ void rmsnorm_bf16(const uint32_t* __restrict__ x, const uint32_t* __restrict__ gamma, uint32_t* y, int rows,
                             int width) {
    int row = blockIdx.x * kWarpsPerBlock + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) return;
    int pairs = width / 2;
    const uint32_t* x_row = x + (size_t)row * pairs;
    float squares = 0.0f;
    for (int p = lane; p < pairs; p += 32) {
        float a = bf16_to_float(x_row[p] & 0xFFFFu), b = bf16_to_float(x_row[p] >> 16);
        squares = squares + a * a;
        squares = squares + b * b;
    }
    for (int offset = 16; offset > 0; offset /= 2) squares = squares + __shfl_xor_sync(0xFFFFFFFFu, squares, offset);
    float inv_rms = 1.0f / sqrtf(squares / (float)width + kEps);
    for (int p = lane; p < pairs; p += 32) {
        uint32_t xv = x_row[p], gv = gamma[p];
        uint32_t lo = float_to_bf16(bf16_to_float(xv & 0xFFFFu) * inv_rms * bf16_to_float(gv & 0xFFFFu));
        uint32_t hi = float_to_bf16(bf16_to_float(xv >> 16) * inv_rms * bf16_to_float(gv >> 16));
        y[(size_t)row * pairs + p] = lo | (hi << 16);
    }
}

int main(int argc, char** argv) {
    usage_if(argc, argv[0]);
    std::string dir = argv[1];
    long rows = read_dim(dir, "rows"), width = read_dim(dir, "width");
    if (width % 64 != 0) {
        fprintf(stderr, "ml: dims.txt: width %ld is not a multiple of 64\n", width);
        return 1;
    }
    uint16_t* d_x = to_device(read_array<uint16_t>(dir, "x.bin", rows * width));
    uint16_t* d_gamma = to_device(read_array<uint16_t>(dir, "gamma.bin", width));
    uint16_t* d_y = nullptr;
    cuda_ok(cudaMalloc(&d_y, rows * width * sizeof(uint16_t)), "cudaMalloc y");
    int blocks = (int)((rows + kWarpsPerBlock - 1) / kWarpsPerBlock);
    rmsnorm_bf16<<<blocks, 32 * kWarpsPerBlock>>>((const uint32_t*)d_x, (const uint32_t*)d_gamma, (uint32_t*)d_y,
                                                   (int)rows, (int)width);
    cuda_ok(cudaGetLastError(), "rmsnorm_bf16 launch");
    cuda_ok(cudaDeviceSynchronize(), "rmsnorm_bf16");
    write_array(argv[2], from_device(d_y, rows * width));
    printf("rmsnorm: %ld rows x %ld, %ld outputs written\n", rows, width, rows * width);
    return 0;
}
