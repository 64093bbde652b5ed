// memzip test program: the DRAM bus's ceiling on a GPU. One kernel reads a
// buffer and writes another (out[i] = in[i] + 1, in[i] = i), coalesced, with
// as many threads as the GPU holds at once (every SM full: its multiprocessor
// count x its threads per multiprocessor), each striding over the buffers. So
// the memory system has all the requests in flight the GPU can issue, and the
// bus utilisation of its `none` run is the most a program reaches on that
// GPU (benchmarks/results/ceiling/README.md).
//
// Why not patterns.cu: its 64 blocks of 256 threads keep a 15-SM GTX580 busy,
// but on the 80-SM QV100 they leave 16 SMs idle and hold 512 warps' loads in
// flight where the HBM2 needs several times that: the QV100 measured 0.357
// with it, a ceiling of the kernel, not of the GPU.
//
//   stream [words]     (default 2^22: 16 MB in and 16 MB out)
//
// Exit status: 0 and "PASS" when every output word is right, 1 otherwise.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include "cuda_check.h"

__global__ void add_one(const uint32_t* in, uint32_t* out, size_t words) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < words; i += stride) out[i] = in[i] + 1;
}

int main(int argc, char** argv) {
    size_t words = argc > 1 ? strtoull(argv[1], nullptr, 10) : (size_t)1 << 22;
    if (words == 0) {
        fprintf(stderr, "usage: %s [words]: words must be positive\n", argv[0]);
        return 2;
    }
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    const int threads = 256;
    const int blocks = prop.multiProcessorCount * (prop.maxThreadsPerMultiProcessor / threads);

    std::vector<uint32_t> host(words);
    for (size_t i = 0; i < words; ++i) host[i] = (uint32_t)i;
    uint32_t *dev_in = nullptr, *dev_out = nullptr;
    CHECK(cudaMalloc(&dev_in, words * sizeof(uint32_t)));
    CHECK(cudaMalloc(&dev_out, words * sizeof(uint32_t)));
    CHECK(cudaMemcpy(dev_in, host.data(), words * sizeof(uint32_t), cudaMemcpyHostToDevice));
    add_one<<<blocks, threads>>>(dev_in, dev_out, words);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(host.data(), dev_out, words * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    size_t wrong = 0;
    for (size_t i = 0; i < words; ++i)
        if (host[i] != (uint32_t)i + 1 && wrong++ < 5) fprintf(stderr, "word %zu: got %u\n", i, host[i]);
    cudaFree(dev_in);
    cudaFree(dev_out);
    if (wrong) {
        printf("FAIL: %zu wrong words (%d blocks of %d threads)\n", wrong, blocks, threads);
        return 1;
    }
    printf("PASS: %zu words, %d blocks of %d threads\n", words, blocks, threads);
    return 0;
}
