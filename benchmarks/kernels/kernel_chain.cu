// memzip test program: many small kernels launched one after another on the
// default stream, each adding 1 to every element. gpgpu-sim v3.2.1 returned
// from a launch once the kernel left its stream, and when the host launched
// the next kernel before the simulation thread had seen the stream empty,
// that kernel started without gpgpu_sim::init() (clock domains reset): which
// kernels did depended on host timing, so two runs gave different statistics
// (256 kernels of 1 block: 223-231 of them after an init(), three runs).
// Our 0004 patch leaves the thread's loop after every kernel, as dev does. The
// simulator tests count the per-kernel exits in the log and compare two runs.
//
//   kernel_chain [KERNELS] [ELEMENTS]     (defaults 256, 32)
//
// Exit status: 0 and "PASS" when every element equals KERNELS, 1 otherwise.
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void add_one(int *values, int count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) values[i] += 1;
}

int main(int argc, char **argv) {
    int kernels = argc > 1 ? std::atoi(argv[1]) : 256;
    int count = argc > 2 ? std::atoi(argv[2]) : 32;
    if (kernels < 1 || count < 1) {
        std::printf("FAIL usage: kernel_chain [KERNELS>=1] [ELEMENTS>=1]\n");
        return 1;
    }
    std::vector<int> host(count, 0);
    int *values = nullptr;
    if (cudaMalloc(&values, count * sizeof(int)) != cudaSuccess) {
        std::printf("FAIL cudaMalloc\n");
        return 1;
    }
    cudaMemcpy(values, host.data(), count * sizeof(int), cudaMemcpyHostToDevice);
    const int threads = 256;
    const int blocks = (count + threads - 1) / threads;
    for (int k = 0; k < kernels; ++k) add_one<<<blocks, threads>>>(values, count);
    cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
        std::printf("FAIL cudaDeviceSynchronize: %s\n", cudaGetErrorString(err));
        return 1;
    }
    cudaMemcpy(host.data(), values, count * sizeof(int), cudaMemcpyDeviceToHost);
    for (int i = 0; i < count; ++i) {
        if (host[i] != kernels) {
            std::printf("FAIL element %d is %d (expected %d)\n", i, host[i], kernels);
            return 1;
        }
    }
    std::printf("PASS kernel_chain: %d kernels of %d blocks, every element %d\n", kernels, blocks, kernels);
    cudaFree(values);
    return 0;
}
