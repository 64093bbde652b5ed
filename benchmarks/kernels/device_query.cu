// memzip test program: the device queries programs size their launches by
// (LonestarGPU's occupancy helper, Parboil spmv's grid, Rodinia mummergpu's
// batches), as a CUDA 13 program sees them. A simulator's runtime must
// answer them in the program's struct layout: gpgpu-sim v3.2.1 builds
// against CUDA 11.8's headers, whose cudaDeviceProp differs from CUDA 13's.
// Checks that cudaGetDeviceProperties agrees with cudaDeviceGetAttribute,
// that the occupancy inputs are set, and that cudaMemGetInfo answers; then
// launches a kernel on every SM it was told of, one block each.
//
//   device_query
//
// Exit status: 0 and "PASS" when every check holds, 1 otherwise.
#include <cstdio>
#include <vector>

__global__ void mark(int *marks) { marks[blockIdx.x] = blockIdx.x + 1; }

static int failures = 0;

static void expect(bool ok, const char *what, long long got, long long want) {
    if (!ok) {
        std::printf("FAIL %s: %lld (expected %lld)\n", what, got, want);
        ++failures;
    }
}

static void same_as_attribute(const char *what, int field, cudaDeviceAttr attr) {
    int value = -1;
    cudaError_t err = cudaDeviceGetAttribute(&value, attr, 0);
    if (err != cudaSuccess) {
        std::printf("FAIL cudaDeviceGetAttribute(%s): %s\n", what, cudaGetErrorString(err));
        ++failures;
        return;
    }
    expect(field == value, what, field, value);
}

int main() {
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
        std::printf("FAIL cudaGetDeviceProperties\n");
        return 1;
    }
    std::printf("device: %d SMs, %d threads/SM, %d threads/block, warp %d, compute %d.%d\n",
                prop.multiProcessorCount, prop.maxThreadsPerMultiProcessor, prop.maxThreadsPerBlock,
                prop.warpSize, prop.major, prop.minor);
    same_as_attribute("multiProcessorCount", prop.multiProcessorCount, cudaDevAttrMultiProcessorCount);
    same_as_attribute("maxThreadsPerMultiProcessor", prop.maxThreadsPerMultiProcessor,
                      cudaDevAttrMaxThreadsPerMultiProcessor);
    same_as_attribute("maxThreadsPerBlock", prop.maxThreadsPerBlock, cudaDevAttrMaxThreadsPerBlock);
    same_as_attribute("warpSize", prop.warpSize, cudaDevAttrWarpSize);
    same_as_attribute("major", prop.major, cudaDevAttrComputeCapabilityMajor);
    same_as_attribute("minor", prop.minor, cudaDevAttrComputeCapabilityMinor);
    same_as_attribute("regsPerBlock", prop.regsPerBlock, cudaDevAttrMaxRegistersPerBlock);
    expect(prop.multiProcessorCount > 0, "multiProcessorCount > 0", prop.multiProcessorCount, 1);
    expect(prop.warpSize > 0 && prop.maxThreadsPerMultiProcessor % prop.warpSize == 0 &&
               prop.maxThreadsPerMultiProcessor >= prop.maxThreadsPerBlock,
           "maxThreadsPerMultiProcessor: whole warps, at least a block", prop.maxThreadsPerMultiProcessor,
           prop.maxThreadsPerBlock);

    size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
        std::printf("FAIL cudaMemGetInfo\n");
        ++failures;
    } else {
        expect(total_bytes > 0 && free_bytes <= total_bytes, "cudaMemGetInfo: 0 < free <= total",
               (long long)free_bytes, (long long)total_bytes);
    }

    int blocks = prop.multiProcessorCount > 0 ? prop.multiProcessorCount : 1;
    int *marks = nullptr;
    cudaMalloc(&marks, blocks * sizeof(int));
    cudaMemset(marks, 0, blocks * sizeof(int));
    mark<<<blocks, 32>>>(marks);
    std::vector<int> host(blocks);
    cudaMemcpy(host.data(), marks, blocks * sizeof(int), cudaMemcpyDeviceToHost);
    for (int b = 0; b < blocks; ++b) expect(host[b] == b + 1, "block ran", host[b], b + 1);
    cudaFree(marks);

    if (failures) return 1;
    std::printf("PASS device_query\n");
    return 0;
}
