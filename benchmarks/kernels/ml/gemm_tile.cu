// memzip `ml` suite: a shared-memory tiled GEMM, Y = X W^T, the matrix
// product of prefill and of a training step's forward pass (many tokens at
// once, so each weight is reused across the tokens of a tile): X (M x K
// activations) and W (N x K weights) in bf16, fp32 accumulation, Y (M x N)
// rounded to bf16. Compute-heavier than the decode kernels: each loaded
// element is used 16 times.
//
//   gemm_tile INPUT_DIR OUTPUT_FILE
//
// INPUT_DIR (benchmarks/inputs/ml_tensors.py): dims.txt ("m M", "n N",
// "k K", each a multiple of 16), x.bin (M x K bf16), w.bin (N x K bf16).
// OUTPUT_FILE: M x N bf16.
#include "ml_common.cuh"

static const int kTile = 16;

// A 16 x 16 block computes a 16 x 16 tile of Y; per step of 16 along K it
// stages a tile of X and one of W in shared memory (converted to fp32, each
// thread loading one element of each, consecutive threads consecutive k), and
// every thread adds its 16 products in k order: the order of the host reference.
__global__ void gemm_bf16(const uint16_t* __restrict__ x, const uint16_t* __restrict__ w, uint16_t* y, int m, int n,
                          int k) {
    __shared__ float x_tile[kTile][kTile];
    __shared__ float w_tile[kTile][kTile + 1];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * kTile + ty, col = blockIdx.x * kTile + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < k; k0 += kTile) {
        x_tile[ty][tx] = bf16_to_float(x[(size_t)row * k + k0 + tx]);
        w_tile[ty][tx] = bf16_to_float(w[(size_t)(blockIdx.x * kTile + ty) * k + k0 + tx]);
        __syncthreads();
        for (int kk = 0; kk < kTile; kk++) acc = acc + x_tile[ty][kk] * w_tile[tx][kk];
        __syncthreads();
    }
    y[(size_t)row * n + col] = (uint16_t)float_to_bf16(acc);
}

int main(int argc, char** argv) {
    usage_if(argc, argv[0]);
    std::string dir = argv[1];
    long m = read_dim(dir, "m"), n = read_dim(dir, "n"), k = read_dim(dir, "k");
    if (m % kTile || n % kTile || k % kTile) {
        fprintf(stderr, "ml: dims.txt: m %ld, n %ld, k %ld must be multiples of %d\n", m, n, k, kTile);
        return 1;
    }
    uint16_t* d_x = to_device(read_array<uint16_t>(dir, "x.bin", m * k));
    uint16_t* d_w = to_device(read_array<uint16_t>(dir, "w.bin", n * k));
    uint16_t* d_y = nullptr;
    cuda_ok(cudaMalloc(&d_y, m * n * sizeof(uint16_t)), "cudaMalloc y");
    gemm_bf16<<<dim3((unsigned)(n / kTile), (unsigned)(m / kTile)), dim3(kTile, kTile)>>>(d_x, d_w, d_y, (int)m, (int)n,
                                                                                         (int)k);
    cuda_ok(cudaGetLastError(), "gemm_bf16 launch");
    cuda_ok(cudaDeviceSynchronize(), "gemm_bf16");
    write_array(argv[2], from_device(d_y, m * n));
    printf("gemm_tile: %ld x %ld x %ld, %ld outputs written\n", m, n, k, m * n);
    return 0;
}
