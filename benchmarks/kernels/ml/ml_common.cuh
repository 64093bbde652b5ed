// Shared by the `ml` suite's programs (benchmarks/ml/*.env): bf16 as the GPU
// stores it (16-bit integers converted in the kernel, as compute_75 PTX has
// no bf16 arithmetic), raw little-endian array files, and error checks.
//
// Every program reads its input arrays from the folder given as argv[1]
// (written by benchmarks/inputs/ml_tensors.py from the tensor corpus) and
// writes its output array to argv[2]; the generator's `check` compares it
// with the host reference. Programs are built with -fmad=false: the host
// reference rounds every multiply and add to fp32 in the same order, so
// outputs are compared exactly (attention's exp aside: its manifest says why).
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <cuda_runtime.h>

typedef uint16_t bf16_bits;

// bf16 -> fp32 is exact: the bf16 bits are the fp32's upper half.
__device__ __forceinline__ float bf16_to_float(uint32_t bits) { return __uint_as_float(bits << 16); }

// fp32 -> bf16, round to nearest even (the kernels' outputs are finite: no
// NaN case). The host reference rounds the same way.
__device__ __forceinline__ uint32_t float_to_bf16(float f) {
    uint32_t u = __float_as_uint(f);
    return (u + 0x7FFFu + ((u >> 16) & 1u)) >> 16;
}

static void cuda_ok(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
        fprintf(stderr, "ml: %s: %s\n", what, cudaGetErrorString(e));
        exit(1);
    }
}

// Reads the whole of DIR/NAME; exits with one line if it is missing or not
// `want` bytes (want 0: any size, a multiple of the element size).
template <typename T>
static std::vector<T> read_array(const std::string& dir, const char* name, size_t want_elems = 0) {
    std::string path = dir + "/" + name;
    FILE* f = fopen(path.c_str(), "rb");
    if (!f) {
        fprintf(stderr, "ml: cannot open input %s\n", path.c_str());
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    long bytes = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (bytes < 0 || bytes % sizeof(T) != 0 || (want_elems && (size_t)bytes != want_elems * sizeof(T))) {
        fprintf(stderr, "ml: %s holds %ld bytes, expected %zu\n", path.c_str(), bytes, want_elems * sizeof(T));
        exit(1);
    }
    std::vector<T> data(bytes / sizeof(T));
    if (!data.empty() && fread(data.data(), sizeof(T), data.size(), f) != data.size()) {
        fprintf(stderr, "ml: short read of %s\n", path.c_str());
        exit(1);
    }
    fclose(f);
    return data;
}

template <typename T>
static void write_array(const char* path, const std::vector<T>& data) {
    FILE* f = fopen(path, "wb");
    if (!f || fwrite(data.data(), sizeof(T), data.size(), f) != data.size() || fclose(f) != 0) {
        fprintf(stderr, "ml: cannot write %s\n", path);
        exit(1);
    }
}

// The sizes the generator wrote to DIR/dims.txt, "name value" a line.
static long read_dim(const std::string& dir, const char* key) {
    std::string path = dir + "/dims.txt";
    FILE* f = fopen(path.c_str(), "r");
    if (!f) {
        fprintf(stderr, "ml: cannot open %s\n", path.c_str());
        exit(1);
    }
    char name[64];
    long value;
    while (fscanf(f, "%63s %ld", name, &value) == 2) {
        if (std::string(name) == key) {
            fclose(f);
            return value;
        }
    }
    fclose(f);
    fprintf(stderr, "ml: %s has no '%s'\n", path.c_str(), key);
    exit(1);
}

template <typename T>
static T* to_device(const std::vector<T>& host) {
    T* dev = nullptr;
    cuda_ok(cudaMalloc(&dev, host.size() * sizeof(T)), "cudaMalloc");
    cuda_ok(cudaMemcpy(dev, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy to device");
    return dev;
}

template <typename T>
static std::vector<T> from_device(const T* dev, size_t elems) {
    std::vector<T> host(elems);
    cuda_ok(cudaMemcpy(host.data(), dev, elems * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy to host");
    return host;
}

static void usage_if(int argc, const char* program) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s INPUT_DIR OUTPUT_FILE\n", program);
        exit(2);
    }
}
