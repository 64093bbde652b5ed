// memzip test program: DRAM requests for part of a 128-byte line. On a GPU
// with a sectored L2 (32-byte sectors: gpgpu-sim's QV100 and RTX3070 configs)
// the kernel reads only the first 32-byte sector of each line of `in` and
// writes only the first sector of each line of `out`, so DRAM sees sector
// reads of lines stored compressed and write-backs of lines with one dirty
// sector of four: memzip's partial requests
// (rust/memzip/src/mc/controller/partial.rs).
//
//   sectors <ints|random> [lines] [reread]
//
// With `reread`, a second kernel then reads the second sector of each line of
// `in` and writes the second sector of `out`: on a line the first kernel
// fetched whole, whether the L2 kept the rest (-memzip_partial_reads fill)
// decides whether that read reaches DRAM again.
// Both buffers start as host-to-device copies of the pattern (memzip
// compresses copies, so the lines are stored compressed when the pattern
// compresses); out's other three sectors keep their copied values. The host
// checks every word of out. Exit status: 0 and "PASS" when every word is
// right, 1 otherwise.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

static const size_t kLineWords = 32;    // 128-byte line
static const size_t kSectorWords = 8;   // 32-byte sector

// 32-bit indices with shifts and masks: thread t writes word t % 8 of line t / 8.
__global__ void first_sectors(const uint32_t* in, uint32_t* out, unsigned lines) {
    unsigned stride = gridDim.x * blockDim.x;
    for (unsigned t = blockIdx.x * blockDim.x + threadIdx.x; t < lines * 8u; t += stride) {
        unsigned i = (t >> 3) * 32u + (t & 7u);
        out[i] = in[i] + 3u;
    }
}

// The same for the second sector: thread t writes word 8 + t % 8 of line t / 8.
__global__ void second_sectors(const uint32_t* in, uint32_t* out, unsigned lines) {
    unsigned stride = gridDim.x * blockDim.x;
    for (unsigned t = blockIdx.x * blockDim.x + threadIdx.x; t < lines * 8u; t += stride) {
        unsigned i = (t >> 3) * 32u + 8u + (t & 7u);
        out[i] = in[i] + 5u;
    }
}

static uint32_t word(bool random, size_t i) {
    if (!random) return (uint32_t)(i % 64);  // small integers: compress under BDI-like codecs
    uint64_t z = (i + 1) * 0x9e3779b97f4a7c15ull;  // splitmix64 finaliser of the index
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (uint32_t)((z ^ (z >> 31)) >> 32);
}

static int check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
        fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
        exit(1);
    }
    return 0;
}

int main(int argc, char** argv) {
    if (argc < 2 || (strcmp(argv[1], "ints") && strcmp(argv[1], "random"))) {
        fprintf(stderr, "usage: sectors <ints|random> [lines] [reread]\n");
        return 2;
    }
    if (argc > 3 && strcmp(argv[3], "reread")) {
        fprintf(stderr, "sectors: third argument '%s': expected reread\n", argv[3]);
        return 2;
    }
    const bool reread = argc > 3;
    const bool random = strcmp(argv[1], "random") == 0;
    const size_t lines = argc > 2 ? strtoull(argv[2], NULL, 10) : 16384;
    const size_t words = lines * kLineWords;
    std::vector<uint32_t> in(words), out(words);
    for (size_t i = 0; i < words; ++i) {
        in[i] = word(random, i);
        out[i] = word(random, i + words);
    }
    uint32_t *d_in, *d_out;
    check(cudaMalloc(&d_in, words * 4), "cudaMalloc in");
    check(cudaMalloc(&d_out, words * 4), "cudaMalloc out");
    check(cudaMemcpy(d_in, in.data(), words * 4, cudaMemcpyHostToDevice), "copy in");
    check(cudaMemcpy(d_out, out.data(), words * 4, cudaMemcpyHostToDevice), "copy out");
    first_sectors<<<64, 256>>>(d_in, d_out, (unsigned)lines);
    check(cudaGetLastError(), "launch");
    if (reread) {
        second_sectors<<<64, 256>>>(d_in, d_out, (unsigned)lines);
        check(cudaGetLastError(), "launch reread");
    }
    std::vector<uint32_t> got(words);
    check(cudaMemcpy(got.data(), d_out, words * 4, cudaMemcpyDeviceToHost), "copy back");
    size_t wrong = 0;
    for (size_t i = 0; i < words; ++i) {
        const size_t at = i % kLineWords;
        uint32_t want = at < kSectorWords ? in[i] + 3u : out[i];
        if (reread && at >= kSectorWords && at < 2 * kSectorWords) want = in[i] + 5u;
        wrong += got[i] != want;
    }
    printf("%s: %zu lines, %zu wrong words\n", wrong ? "FAIL" : "PASS", lines, wrong);
    return wrong ? 1 : 0;
}
