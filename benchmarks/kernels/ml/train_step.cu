// memzip `ml` suite: one Adam update of mixed-precision training: fp32 master
// weights, bf16 gradients, fp32 first and second moments, all read, updated
// and written back in one streaming pass, plus the bf16 copy of the weights
// the next forward pass reads. Memory-bound: 14 bytes read and 14 written per
// parameter for a handful of flops.
//
//   train_step INPUT_DIR OUTPUT_FILE
//
// INPUT_DIR (benchmarks/inputs/ml_tensors.py): dims.txt ("params P", a
// multiple of 4), w.bin, m.bin, v.bin (P fp32 each), g.bin (P bf16),
// hyper.bin (8 fp32: lr, beta1, 1 - beta1, beta2, 1 - beta2, eps, and the
// bias corrections 1 / (1 - beta1^t), 1 / (1 - beta2^t), computed by the
// generator so host and GPU use the same bits).
// OUTPUT_FILE: w, m, v (P fp32 each) after the update, then the P bf16 weights.
#include "ml_common.cuh"

struct Adam {
    float lr, beta1, one_minus_beta1, beta2, one_minus_beta2, eps, correct1, correct2;
};

// Four parameters per thread (16-byte loads of w, m, v; 8 bytes of
// gradients), a grid-stride loop; each operation rounded to fp32 in the
// order the host reference uses.
__device__ __forceinline__ float adam(const Adam& h, float g, float& w, float& m, float& v) {
    m = h.beta1 * m + h.one_minus_beta1 * g;
    v = h.beta2 * v + h.one_minus_beta2 * (g * g);
    float step = h.lr * (m * h.correct1) / (sqrtf(v * h.correct2) + h.eps);
    w = w - step;
    return w;
}

__global__ void adam_step(float4* w, float4* m, float4* v, const uint2* __restrict__ g, uint2* w_bf16, Adam h,
                          int quads) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < quads; i += gridDim.x * blockDim.x) {
        float4 wv = w[i], mv = m[i], vv = v[i];
        uint2 gv = g[i];
        adam(h, bf16_to_float(gv.x & 0xFFFFu), wv.x, mv.x, vv.x);
        adam(h, bf16_to_float(gv.x >> 16), wv.y, mv.y, vv.y);
        adam(h, bf16_to_float(gv.y & 0xFFFFu), wv.z, mv.z, vv.z);
        adam(h, bf16_to_float(gv.y >> 16), wv.w, mv.w, vv.w);
        w[i] = wv;
        m[i] = mv;
        v[i] = vv;
        w_bf16[i] = make_uint2(float_to_bf16(wv.x) | (float_to_bf16(wv.y) << 16),
                               float_to_bf16(wv.z) | (float_to_bf16(wv.w) << 16));
    }
}

int main(int argc, char** argv) {
    usage_if(argc, argv[0]);
    std::string dir = argv[1];
    long params = read_dim(dir, "params");
    if (params % 4 != 0) {
        fprintf(stderr, "ml: dims.txt: params %ld is not a multiple of 4\n", params);
        return 1;
    }
    std::vector<float> hyper = read_array<float>(dir, "hyper.bin", 8);
    Adam h = {hyper[0], hyper[1], hyper[2], hyper[3], hyper[4], hyper[5], hyper[6], hyper[7]};
    float* d_w = to_device(read_array<float>(dir, "w.bin", params));
    float* d_m = to_device(read_array<float>(dir, "m.bin", params));
    float* d_v = to_device(read_array<float>(dir, "v.bin", params));
    uint16_t* d_g = to_device(read_array<uint16_t>(dir, "g.bin", params));
    uint16_t* d_wb = nullptr;
    cuda_ok(cudaMalloc(&d_wb, params * sizeof(uint16_t)), "cudaMalloc w_bf16");
    int quads = (int)(params / 4);
    int blocks = (quads + 255) / 256;
    if (blocks > 1024) blocks = 1024;
    adam_step<<<blocks, 256>>>((float4*)d_w, (float4*)d_m, (float4*)d_v, (const uint2*)d_g, (uint2*)d_wb, h, quads);
    cuda_ok(cudaGetLastError(), "adam_step launch");
    cuda_ok(cudaDeviceSynchronize(), "adam_step");
    std::vector<float> out = from_device(d_w, params);
    std::vector<float> mv = from_device(d_m, params), vv = from_device(d_v, params);
    out.insert(out.end(), mv.begin(), mv.end());
    out.insert(out.end(), vv.begin(), vv.end());
    std::vector<uint16_t> wb = from_device(d_wb, params);
    std::vector<float> packed(out);
    packed.resize(out.size() + params / 2);
    memcpy(packed.data() + out.size(), wb.data(), params * sizeof(uint16_t));
    write_array(argv[2], packed);
    printf("train_step: %ld parameters updated\n", params);
    return 0;
}
