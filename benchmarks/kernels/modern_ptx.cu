// memzip test program: PTX that CUDA 9+ programs use and older simulators
// (gpgpu-sim v3.2.1) lack, so a simulator port can be checked on it:
// ld.global.nc (__ldg), bar.warp.sync (__syncwarp), vote.sync (ballot, any,
// all), shfl.sync (idx, up, bfly, and a down-shuffle reduction), and the
// bit-field opcodes bfe, bfi, bfind, brev, prmt; and shuffles whose
// destination is their source (a loop's variable) or whose warp is partly
// inactive; and rem after an add.s32 that carries past bit 31, and of negative
// numbers. Every result is compared with the host's.
//
//   modern_ptx [n]    n threads, a positive multiple of 32 (default 4096)
//
// Exit status: 0 and "PASS" when every value is right, 1 otherwise.
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void warp_ops(const int *__restrict__ in, int *sums, unsigned *ballots,
                         int *any_all, int *rotated, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? __ldg(&in[i]) : 0;
    int lane = threadIdx.x & 31;
    __syncwarp();
    unsigned odd = __ballot_sync(0xffffffffu, v & 1);
    int any_big = __any_sync(0xffffffffu, v > 1000);
    int all_pos = __all_sync(0xffffffffu, v >= 0);
    int rot = __shfl_sync(0xffffffffu, v, (lane + 1) & 31);
    int up = __shfl_up_sync(0xffffffffu, v, 1);
    int x = __shfl_xor_sync(0xffffffffu, v, 16);
    int sum = v;
    for (int d = 16; d > 0; d >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, d);
    if (i < n) rotated[i] = rot + 3 * (lane >= 1 ? up : v) + 7 * x;
    if (lane == 0) {
        int w = i / 32;
        sums[w] = sum;
        ballots[w] = odd;
        any_all[w] = any_big * 2 + all_pos;
    }
}

// Shuffles a simulator gets wrong when one lane writes before another reads
// (the loop's shfl has the same register as destination and source) or when
// it numbers lanes by how many ran (lanes inactive). -7: the lane took no part.
__global__ void lane_moves(const int *in, int *out, int turns) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i], lane = threadIdx.x & 31, r[3] = {-7, -7, -7};
    int rot = v;
#pragma unroll 1
    for (int t = 0; t < turns; t++) rot = __shfl_sync(0xffffffffu, rot, (lane + 1) & 31);
    r[0] = rot;
    if (lane < 16) r[1] = __shfl_xor_sync(0x0000ffffu, v, 8, 16);
    if (lane != 0) r[2] = __shfl_down_sync(0xfffffffeu, v, 1);
    for (int k = 0; k < 3; k++) out[3 * i + k] = r[k];
}

static int check_lane_moves(const std::vector<int> &in, const int *d_in) {
    int n = (int)in.size(), turns = 5;
    std::vector<int> out(3 * n);
    int *d_out = nullptr;
    cudaMalloc(&d_out, 3 * n * 4);
    lane_moves<<<(n + 127) / 128, 128>>>(d_in, d_out, turns);
    cudaMemcpy(out.data(), d_out, 3 * n * 4, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int i = 0; i < n; i++) {
        int w = i / 32 * 32, l = i % 32;
        int want[3] = {in[w + ((l + turns) & 31)], l < 16 ? in[w + (l ^ 8)] : -7,
                       l == 0 ? -7 : in[w + (l < 31 ? l + 1 : l)]};
        for (int k = 0; k < 3; k++) {
            if (out[3 * i + k] != want[k]) {
                if (bad < 5) printf("lane_moves[%d] op %d: got %d want %d\n", i, k, out[3 * i + k], want[k]);
                bad++;
            }
        }
    }
    return bad;
}

// Bit-field opcodes through inline PTX, so each one is surely emitted.
__global__ void bit_ops(const unsigned *in, unsigned *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned v = in[i], w = in[(i + 1) % n], r[6];
    unsigned pos = v & 31, len = (v >> 5) & 31;
    asm("bfe.u32 %0, %1, %2, %3;" : "=r"(r[0]) : "r"(w), "r"(pos), "r"(len));
    asm("bfe.s32 %0, %1, %2, %3;" : "=r"(r[1]) : "r"(w), "r"(pos), "r"(len));
    asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(r[2]) : "r"(v), "r"(w), "r"(pos), "r"(len));
    asm("bfind.s32 %0, %1;" : "=r"(r[3]) : "r"(w));
    asm("brev.b32 %0, %1;" : "=r"(r[4]) : "r"(w));
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r[5]) : "r"(v), "r"(w), "r"(v >> 10));
    for (int k = 0; k < 6; k++) out[6 * i + k] = r[k];
}

// The PTX ISA's pseudocode of the same opcodes, bit by bit, on the host.
static unsigned host_bfe(unsigned a, unsigned pos, unsigned len, bool is_signed) {
    unsigned sign_pos = pos + len - 1 < 31 ? pos + len - 1 : 31;
    unsigned sbit = is_signed && len > 0 ? (a >> sign_pos) & 1 : 0, d = 0;
    for (unsigned i = 0; i <= 31; i++) {
        unsigned bit = (i < len && pos + i <= 31) ? (a >> (pos + i)) & 1 : sbit;
        d |= bit << i;
    }
    return d;
}
static unsigned host_bfi(unsigned a, unsigned b, unsigned pos, unsigned len) {
    unsigned f = b;
    for (unsigned i = 0; i < len && pos + i <= 31; i++)
        f = (f & ~(1u << (pos + i))) | (((a >> i) & 1) << (pos + i));
    return f;
}
static unsigned host_bfind_s32(unsigned a) {
    if (a >> 31) a = ~a;
    for (int k = 31; k >= 0; k--) if ((a >> k) & 1) return k;
    return 0xffffffffu;
}
static unsigned host_brev(unsigned a) {
    unsigned r = 0;
    for (int k = 0; k < 32; k++) if ((a >> k) & 1) r |= 1u << (31 - k);
    return r;
}
static unsigned host_prmt(unsigned a, unsigned b, unsigned c) {
    unsigned long long bytes = ((unsigned long long)b << 32) | a;
    unsigned r = 0;
    for (int k = 0; k < 4; k++) {
        unsigned sel = (c >> (4 * k)) & 0xf, byte = (bytes >> (8 * (sel & 7))) & 0xff;
        if (sel & 8) byte = (byte & 0x80) ? 0xff : 0;
        r |= byte << (8 * k);
    }
    return r;
}

static int check_bit_ops(int n) {
    std::vector<unsigned> in(n), out(6 * n);
    unsigned x = 12345;
    for (int i = 0; i < n; i++) { x = x * 1103515245u + 12345u; in[i] = x ^ (x >> 13); }
    in[0] = 0; in[1] = 0xffffffffu;  // bfind's "no bit" and all-ones cases
    unsigned *d_in = nullptr, *d_out = nullptr;
    cudaMalloc(&d_in, n * 4); cudaMalloc(&d_out, 6 * n * 4);
    cudaMemcpy(d_in, in.data(), n * 4, cudaMemcpyHostToDevice);
    bit_ops<<<(n + 127) / 128, 128>>>(d_in, d_out, n);
    cudaMemcpy(out.data(), d_out, 6 * n * 4, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int i = 0; i < n; i++) {
        unsigned v = in[i], w = in[(i + 1) % n], pos = v & 31, len = (v >> 5) & 31;
        unsigned want[6] = {host_bfe(w, pos, len, false), host_bfe(w, pos, len, true),
                            host_bfi(v, w, pos, len), host_bfind_s32(w), host_brev(w),
                            host_prmt(v, w, v >> 10)};
        for (int k = 0; k < 6; k++) {
            if (out[6 * i + k] != want[k]) {
                if (bad < 5) printf("bit_ops[%d] op %d: got %08x want %08x\n", i, k, out[6 * i + k], want[k]);
                bad++;
            }
        }
    }
    return bad;
}

// rem.u32 of add.s32's result with -1, the grid-stride bound LonestarGPU mst
// computes: v3.2.1 took the remainder of the registers' whole 64 bits, and the
// add carries into bit 32 (0005 patch, after dev). rem.s32 of values of either
// sign by odd divisors of either sign.
// Item i's divisors, on the device and the host alike: m in 1..65536 for
// rem.u32, d odd and of either sign for rem.s32.
__host__ __device__ static void rem_divisors(const unsigned *in, int i, int n, unsigned *m, int *d) {
    *m = (in[(i + 1) % n] & 0xffff) + 1;
    *d = (int)(*m | 1) * ((in[i] & 2) ? -1 : 1);
}

__global__ void rem_ops(const unsigned *in, unsigned *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned a = in[i], m, r[2];
    int d;
    rem_divisors(in, i, n, &m, &d);
    asm("{\n\t.reg .u32 t;\n\tadd.s32 t, %1, -1;\n\trem.u32 %0, t, %2;\n\t}" : "=r"(r[0]) : "r"(a), "r"(m));
    asm("rem.s32 %0, %1, %2;" : "=r"(r[1]) : "r"(a), "r"(d));
    out[2 * i] = r[0];
    out[2 * i + 1] = r[1];
}

static int check_rem_ops(int n) {
    std::vector<unsigned> in(n), out(2 * n);
    unsigned x = 777;
    for (int i = 0; i < n; i++) { x = x * 1664525u + 1013904223u; in[i] = x; }
    unsigned *d_in = nullptr, *d_out = nullptr;
    cudaMalloc(&d_in, n * 4); cudaMalloc(&d_out, 2 * n * 4);
    cudaMemcpy(d_in, in.data(), n * 4, cudaMemcpyHostToDevice);
    rem_ops<<<(n + 127) / 128, 128>>>(d_in, d_out, n);
    cudaMemcpy(out.data(), d_out, 2 * n * 4, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int i = 0; i < n; i++) {
        unsigned a = in[i], m;
        int d;
        rem_divisors(in.data(), i, n, &m, &d);
        unsigned want[2] = {(a - 1u) % m, (unsigned)((int)a % d)};
        for (int k = 0; k < 2; k++) {
            if (out[2 * i + k] != want[k]) {
                if (bad < 5) printf("rem_ops[%d] op %d: got %u want %u\n", i, k, out[2 * i + k], want[k]);
                bad++;
            }
        }
    }
    return bad;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 4096;
    if (n <= 0 || n % 32) { fprintf(stderr, "n must be a positive multiple of 32\n"); return 2; }
    int warps = n / 32;
    std::vector<int> in(n);
    for (int i = 0; i < n; i++) in[i] = (i * 2654435761u >> 7) % 1500;
    int *d_in = nullptr, *d_sums = nullptr, *d_any_all = nullptr, *d_rot = nullptr;
    unsigned *d_ballots = nullptr;
    cudaMalloc(&d_in, n * 4); cudaMalloc(&d_rot, n * 4);
    cudaMalloc(&d_sums, warps * 4); cudaMalloc(&d_ballots, warps * 4); cudaMalloc(&d_any_all, warps * 4);
    cudaMemcpy(d_in, in.data(), n * 4, cudaMemcpyHostToDevice);
    warp_ops<<<(n + 127) / 128, 128>>>(d_in, d_sums, d_ballots, d_any_all, d_rot, n);
    std::vector<int> sums(warps), any_all(warps), rot(n); std::vector<unsigned> ballots(warps);
    cudaMemcpy(sums.data(), d_sums, warps * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(ballots.data(), d_ballots, warps * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(any_all.data(), d_any_all, warps * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(rot.data(), d_rot, n * 4, cudaMemcpyDeviceToHost);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) { printf("FAIL CUDA error: %s\n", cudaGetErrorString(err)); return 1; }
    int bad = 0;
    for (int w = 0; w < warps; w++) {
        int s = 0, big = 0; unsigned b = 0;
        for (int l = 0; l < 32; l++) { int v = in[w * 32 + l]; s += v; b |= (unsigned)(v & 1) << l; big |= v > 1000; }
        bad += sums[w] != s; bad += ballots[w] != b; bad += any_all[w] != big * 2 + 1;
        for (int l = 0; l < 32; l++) {
            int v = in[w * 32 + l];
            int want = in[w * 32 + ((l + 1) & 31)] + 3 * (l >= 1 ? in[w * 32 + l - 1] : v) + 7 * in[w * 32 + (l ^ 16)];
            bad += rot[w * 32 + l] != want;
        }
    }
    if (bad) { printf("FAIL warp_ops: %d mismatches\n", bad); return 1; }
    int moves_bad = check_lane_moves(in, d_in);
    if (moves_bad) { printf("FAIL lane_moves: %d mismatches\n", moves_bad); return 1; }
    int bit_bad = check_bit_ops(n);
    err = cudaGetLastError();
    if (err != cudaSuccess) { printf("FAIL CUDA error: %s\n", cudaGetErrorString(err)); return 1; }
    if (bit_bad) { printf("FAIL bit_ops: %d mismatches\n", bit_bad); return 1; }
    int rem_bad = check_rem_ops(n);
    err = cudaGetLastError();
    if (err != cudaSuccess) { printf("FAIL CUDA error: %s\n", cudaGetErrorString(err)); return 1; }
    if (rem_bad) { printf("FAIL rem_ops: %d mismatches\n", rem_bad); return 1; }
    printf("PASS warp_ops, lane_moves, bit_ops and rem_ops n=%d\n", n);
    return 0;
}
