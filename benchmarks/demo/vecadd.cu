// memzip demo: c[i] = a[i] + b[i] on the GPU (or under gpgpu-sim), checked on the host.
// Exit status 0 only when every element is right.
//
// Build (the simulator needs a shared cudart and PTX it can load):
//   nvcc --cudart shared -gencode arch=compute_75,code=compute_75 -o vecadd vecadd.cu
// Run:  ./vecadd [n]      (default n = 4096)
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define CHECK(call)                                                       \
    do {                                                                  \
        cudaError_t err_ = (call);                                        \
        if (err_ != cudaSuccess) {                                        \
            std::fprintf(stderr, "vecadd: %s failed: %s\n", #call,        \
                         cudaGetErrorString(err_));                       \
            return 2;                                                     \
        }                                                                 \
    } while (0)

__global__ void vecadd(const int *a, const int *b, int *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

int main(int argc, char **argv) {
    int n = argc > 1 ? std::atoi(argv[1]) : 4096;
    if (n <= 0) {
        std::fprintf(stderr, "usage: vecadd [n > 0]\n");
        return 2;
    }
    std::vector<int> a(n), b(n), c(n, -1);
    for (int i = 0; i < n; ++i) {
        a[i] = i;              // low dynamic range: compressible
        b[i] = 3 * (i % 17);
    }
    size_t bytes = size_t(n) * sizeof(int);
    int *da = nullptr, *db = nullptr, *dc = nullptr;
    CHECK(cudaMalloc(&da, bytes));
    CHECK(cudaMalloc(&db, bytes));
    CHECK(cudaMalloc(&dc, bytes));
    CHECK(cudaMemcpy(da, a.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b.data(), bytes, cudaMemcpyHostToDevice));
    int threads = 128, blocks = (n + threads - 1) / threads;
    vecadd<<<blocks, threads>>>(da, db, dc, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(c.data(), dc, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(da));
    CHECK(cudaFree(db));
    CHECK(cudaFree(dc));

    int bad = 0;
    for (int i = 0; i < n; ++i) {
        if (c[i] != a[i] + b[i]) {
            if (bad < 5)
                std::fprintf(stderr, "vecadd: c[%d] = %d, want %d\n", i, c[i], a[i] + b[i]);
            ++bad;
        }
    }
    if (bad) {
        std::printf("vecadd: FAIL (%d of %d wrong)\n", bad, n);
        return 1;
    }
    std::printf("vecadd: PASS (n = %d)\n", n);
    return 0;
}
