// memzip `ml` suite: attention of one decode step, one query token against a
// bf16 KV cache per head (scores q.k / sqrt(d), softmax, weighted sum of the
// values), fp32 arithmetic, fp32 output. Every cached key and value is read
// once per token: like the weights, the KV cache streams from DRAM.
//
//   llm_attention_decode INPUT_DIR OUTPUT_FILE
//
// INPUT_DIR (benchmarks/inputs/ml_tensors.py): dims.txt ("heads H",
// "tokens T", "dim D"; D = 16, T <= 6144), q.bin (H x D bf16), k.bin and
// v.bin (H x T x D bf16, head-major: each head's cache is contiguous).
// OUTPUT_FILE: H x D fp32.
#include "ml_common.cuh"

static const int kDim = 16;           // the digits transformer's head size
static const int kMaxTokens = 6144;   // scores kept in shared memory (24 KB)
static const int kThreads = 256;

// Loads one token's 16 bf16 (32 bytes, two 16-byte loads) as floats.
__device__ __forceinline__ void load_row(const uint4* row, float* out) {
    uint4 a = row[0], b = row[1];
    uint32_t words[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
    for (int j = 0; j < 8; j++) {
        out[2 * j] = bf16_to_float(words[j] & 0xFFFFu);
        out[2 * j + 1] = bf16_to_float(words[j] >> 16);
    }
}

// Block-wide max or sum of one value per thread, through shared memory.
__device__ float block_reduce(float value, float* scratch, bool is_max) {
    scratch[threadIdx.x] = value;
    __syncthreads();
    for (int half = kThreads / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) {
            float other = scratch[threadIdx.x + half];
            scratch[threadIdx.x] = is_max ? fmaxf(scratch[threadIdx.x], other) : scratch[threadIdx.x] + other;
        }
        __syncthreads();
    }
    float result = scratch[0];
    __syncthreads();
    return result;
}

// One block per head; thread i handles tokens i, i + 256, ...
__global__ void attention_decode(const uint16_t* q, const uint4* k, const uint4* v, float* out, int tokens) {
    __shared__ float scores[kMaxTokens];
    __shared__ float scratch[kThreads];
    __shared__ float partial[kDim][kThreads + 1];
    int head = blockIdx.x;
    const uint4* k_head = k + (size_t)head * tokens * 2;
    const uint4* v_head = v + (size_t)head * tokens * 2;
    float query[kDim], row[kDim];
    for (int d = 0; d < kDim; d++) query[d] = bf16_to_float(q[head * kDim + d]);
    const float scale = 0.25f;  // 1 / sqrt(16), exact

    float local_max = -INFINITY;
    for (int t = threadIdx.x; t < tokens; t += kThreads) {
        load_row(k_head + 2 * t, row);
        float dot = 0.0f;
        for (int d = 0; d < kDim; d++) dot = dot + query[d] * row[d];
        scores[t] = dot * scale;
        local_max = fmaxf(local_max, scores[t]);
    }
    float max_score = block_reduce(local_max, scratch, true);

    float local_sum = 0.0f;
    for (int t = threadIdx.x; t < tokens; t += kThreads) {
        scores[t] = expf(scores[t] - max_score);
        local_sum = local_sum + scores[t];
    }
    float sum = block_reduce(local_sum, scratch, false);

    float acc[kDim] = {};
    for (int t = threadIdx.x; t < tokens; t += kThreads) {
        load_row(v_head + 2 * t, row);
        for (int d = 0; d < kDim; d++) acc[d] = acc[d] + scores[t] * row[d];
    }
    for (int d = 0; d < kDim; d++) partial[d][threadIdx.x] = acc[d];
    __syncthreads();
    if (threadIdx.x < kDim) {
        float total = 0.0f;
        for (int i = 0; i < kThreads; i++) total = total + partial[threadIdx.x][i];
        out[head * kDim + threadIdx.x] = total / sum;
    }
}

int main(int argc, char** argv) {
    usage_if(argc, argv[0]);
    std::string dir = argv[1];
    long heads = read_dim(dir, "heads"), tokens = read_dim(dir, "tokens"), dim = read_dim(dir, "dim");
    if (dim != kDim || tokens < 1 || tokens > kMaxTokens) {
        fprintf(stderr, "ml: dims.txt: dim %ld (needs %d), tokens %ld (needs 1..%d)\n", dim, kDim, tokens, kMaxTokens);
        return 1;
    }
    size_t cache = (size_t)heads * tokens * kDim;
    uint16_t* d_q = to_device(read_array<uint16_t>(dir, "q.bin", heads * kDim));
    uint16_t* d_k = to_device(read_array<uint16_t>(dir, "k.bin", cache));
    uint16_t* d_v = to_device(read_array<uint16_t>(dir, "v.bin", cache));
    float* d_out = nullptr;
    cuda_ok(cudaMalloc(&d_out, heads * kDim * sizeof(float)), "cudaMalloc out");
    attention_decode<<<(int)heads, kThreads>>>(d_q, (const uint4*)d_k, (const uint4*)d_v, d_out, (int)tokens);
    cuda_ok(cudaGetLastError(), "attention_decode launch");
    cuda_ok(cudaDeviceSynchronize(), "attention_decode");
    write_array(argv[2], from_device(d_out, heads * kDim));
    printf("llm_attention_decode: %ld heads x %ld tokens, %ld outputs written\n", heads, tokens, heads * kDim);
    return 0;
}
