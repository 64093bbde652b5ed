// memzip test program: streams a buffer with a known data pattern through the
// GPU so that its DRAM reads and write-backs carry that pattern, then checks
// every output word on the host.
//
//   patterns <zeros|ints|floats|random|floats256> [words] [seed] [values-file]
//
// Each pattern keeps its character through the kernel (out = f(in)), so the
// DRAM traffic of both the input reads and the output write-backs is what the
// pattern says: all zeros, small integers with a low dynamic range, floats of
// one magnitude, or incompressible random bytes; floats256 holds floats of
// 256 values 1/64 apart, which E2MC16 stores a few bytes above a 32-byte MAG
// multiple, where the lossy SLC approximates (tests/sim/slc.sh). Buffers
// should exceed the L2 (768 KB in the GTX580 config) so that write-backs
// reach DRAM.
// With a values file, the output words are also written there, one value per
// line (floats as floats, the other patterns as unsigned integers): what a
// lossy codec's output error is measured on (the input and output buffers are
// the program's device allocations 1 and 2, for -memzip_approx_allocs).
// Exit status: 0 and "PASS" when every word is right, 1 otherwise.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>
#include "cuda_check.h"

enum Pattern { ZEROS, INTS, FLOATS, RANDOM, FLOATS256 };

// The same transform on host and device: the host recomputes the answer.
__host__ __device__ inline uint32_t transform(Pattern p, uint32_t x) {
    switch (p) {
    case ZEROS: return x;
    case INTS: return x + 3u;  // stays within a small range
    case FLOATS:
    case FLOATS256: {
        union { uint32_t u; float f; } v;
        v.u = x;
        v.f = v.f * 0.5f + 1.0f;  // same magnitude, exactly computable
        return v.u;
    }
    default: return x ^ 0x9e3779b9u;  // random stays random
    }
}

__global__ void stream(Pattern p, const uint32_t* in, uint32_t* out, size_t words) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < words; i += stride)
        out[i] = transform(p, in[i]);
}

static uint32_t next_random(uint64_t* state) {  // splitmix64: deterministic from the seed
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (uint32_t)((z ^ (z >> 31)) >> 32);
}

static uint32_t make_word(Pattern p, size_t i, uint64_t* state) {
    switch (p) {
    case ZEROS: return 0;
    case INTS: return 1000u + (uint32_t)(i % 64) + (next_random(state) % 16);  // range < 100
    case FLOATS:
    case FLOATS256: {
        // FLOATS256: 256 values 1/64 apart: E2MC16 stores a block in ~43
        // bytes, a few above a 32-byte MAG multiple, where SLC approximates.
        uint32_t steps = p == FLOATS ? 1000 : 256;
        float f = 100.0f + (float)(next_random(state) % steps) / 64.0f;
        uint32_t u;
        memcpy(&u, &f, sizeof u);
        return u;
    }
    default: return next_random(state);
    }
}

static bool parse_pattern(const char* name, Pattern* p) {
    const char* names[] = {"zeros", "ints", "floats", "random", "floats256"};
    for (int k = 0; k < 5; ++k)
        if (strcmp(name, names[k]) == 0) { *p = (Pattern)k; return true; }
    return false;
}

int main(int argc, char** argv) {
    Pattern pattern;
    if (argc < 2 || !parse_pattern(argv[1], &pattern)) {
        fprintf(stderr, "usage: %s <zeros|ints|floats|random|floats256> [words] [seed] [values-file]\n", argv[0]);
        return 2;
    }
    size_t words = argc > 2 ? strtoull(argv[2], nullptr, 10) : (size_t)1 << 19;
    uint64_t state = argc > 3 ? strtoull(argv[3], nullptr, 10) : 1;
    if (words == 0) {
        fprintf(stderr, "words must be positive\n");
        return 2;
    }

    std::vector<uint32_t> host_in(words), host_out(words);
    for (size_t i = 0; i < words; ++i) host_in[i] = make_word(pattern, i, &state);

    uint32_t *dev_in = nullptr, *dev_out = nullptr;
    CHECK(cudaMalloc(&dev_in, words * sizeof(uint32_t)));
    CHECK(cudaMalloc(&dev_out, words * sizeof(uint32_t)));
    CHECK(cudaMemcpy(dev_in, host_in.data(), words * sizeof(uint32_t), cudaMemcpyHostToDevice));
    stream<<<64, 256>>>(pattern, dev_in, dev_out, words);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(host_out.data(), dev_out, words * sizeof(uint32_t), cudaMemcpyDeviceToHost));

    if (argc > 4) {
        FILE* values = fopen(argv[4], "w");
        if (!values) {
            fprintf(stderr, "cannot write %s\n", argv[4]);
            return 2;
        }
        for (size_t i = 0; i < words; ++i) {
            float f;
            memcpy(&f, &host_out[i], sizeof f);
            if (pattern == FLOATS || pattern == FLOATS256)
                fprintf(values, "%.9g\n", f);
            else
                fprintf(values, "%u\n", host_out[i]);
        }
        fclose(values);
    }

    size_t wrong = 0;
    for (size_t i = 0; i < words; ++i)
        if (host_out[i] != transform(pattern, host_in[i]) && wrong++ < 5)
            fprintf(stderr, "word %zu: got %08x want %08x\n", i, host_out[i], transform(pattern, host_in[i]));
    cudaFree(dev_in);
    cudaFree(dev_out);
    if (wrong) {
        printf("FAIL %s: %zu of %zu words wrong\n", argv[1], wrong, words);
        return 1;
    }
    printf("PASS %s: %zu words\n", argv[1], words);
    return 0;
}
