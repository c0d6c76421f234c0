// Reduce lab: float32 sums with device_reduce at several launch shapes, grid sizes and input sizes,
// the fixed cost of a launch (time at 2^27, 2^28, 2^29 floats), and how late the last block ends
// (per-block %globaltimer). Design measurements; a standalone harness, not built by Maven (README.md).
#include "device/reduce_kernels.cuh"
#include "lab_common.cuh"
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <random>
#include <cmath>

/** This lab's timing: 20 warm-up runs, median of 40. */
template <typename F>
static double time_ms(F launch) { return time_ms(launch, 20, 40); }

using namespace primer;
using SumD = Sum<double>;

__device__ __forceinline__ unsigned long long global_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

template <int B, int U, int MINB>
__global__ void __launch_bounds__(B, MINB) k_reduce(const float* in, long long n, double* result, unsigned char* scratch) {
    device_reduce<B, U, float, double, double>(in, n, result, scratch, SumD());
}

/** The same with each block's start and end time (end: after its partial is published). */
template <int B, int U, int MINB>
__global__ void __launch_bounds__(B, MINB) k_reduce_timed(const float* in, long long n, double* result, unsigned char* scratch,
                                                          unsigned long long* times) {
    const unsigned long long start = global_ns();
    device_reduce<B, U, float, double, double>(in, n, result, scratch, SumD());
    if (threadIdx.x == 0) { times[2 * blockIdx.x] = start; times[2 * blockIdx.x + 1] = global_ns(); }
}

/** Tiles dealt round robin (grid stride) instead of contiguous shares; partials only (timing). */
template <int B, int U, int MINB>
__global__ void __launch_bounds__(B, MINB) k_gridstride(const float4* in, long long vecs, double* partials) {
    double s = 0;
    const long long tile = (long long)B * U;
    for (long long v = (long long)blockIdx.x * tile; v < vecs; v += (long long)gridDim.x * tile) {
        float4 x[U];
#pragma unroll
        for (int u = 0; u < U; ++u) { const long long j = v + u * B + threadIdx.x; if (j < vecs) x[u] = __ldg(in + j); else x[u] = make_float4(0, 0, 0, 0); }
#pragma unroll
        for (int u = 0; u < U; ++u) s += (double)x[u].x + (double)x[u].y + (double)x[u].z + (double)x[u].w;
    }
    s = block_reduce<B>(s, SumD());
    if (threadIdx.x == 0) partials[blockIdx.x] = s;
}

__global__ void k_empty() {}

static int sms;

static float* din; static double* dres; static unsigned char* scratch; static double* dparts; static unsigned long long* dtimes;
static std::vector<double> prefix_sum;  // prefix_sum[k] = sum of the first k * 2^20 floats... (exact enough in double)
static double host_sum(long long n) { return prefix_sum[n >> 20]; }  // n is a multiple of 2^20 here

/** Blocks per SM of a one-wave grid: per_sm where given (at most what fits), else all that fit. */
template <typename K>
static int one_wave_blocks_per_sm(K kernel, int block, int per_sm) {
    int occ;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kernel, block, 0));
    return per_sm > 0 ? std::min(per_sm, occ) : occ;
}

template <int B, int U, int MINB>
static void variant(const char* name, int per_sm, long long n) {
    auto k = k_reduce<B, U, MINB>;
    int occ; CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k, B, 0));
    const int blocks_per_sm = one_wave_blocks_per_sm(k, B, per_sm);
    const long long tile = (long long)B * U * 4;
    const long long grid = std::max(1LL, std::min((n + tile - 1) / tile, (long long)sms * blocks_per_sm));
    CK(cudaMemset(dres, 0xff, 8));
    const double ms = time_ms([&]() { k<<<grid, B>>>(din, n, dres, scratch); });
    double got; CK(cudaMemcpy(&got, dres, 8, cudaMemcpyDeviceToHost));
    const double want = host_sum(n);
    const double rel = std::fabs(got - want) / std::max(1.0, std::fabs(want));
    printf("%-12s B%4d U%d minB%d occ%d grid %5lld n 2^%2d: %.4f ms %7.1f GB/s  %s (rel %.1e)\n", name, B, U, MINB, occ, grid,
           (int)std::log2((double)n), ms, 4.0 * n / ms / 1e6, rel < 1e-9 ? "ok" : "WRONG", rel);
    fflush(stdout);
}

template <int B, int U, int MINB>
static void tail(int per_sm, long long n) {
    auto k = k_reduce_timed<B, U, MINB>;
    const int blocks_per_sm = one_wave_blocks_per_sm(k, B, per_sm);
    const long long grid = (long long)sms * blocks_per_sm;
    std::vector<double> spans, last_minus_median;
    for (int r = 0; r < 10; ++r) {
        k<<<grid, B>>>(din, n, dres, scratch, dtimes);
        CK(cudaDeviceSynchronize());
        std::vector<unsigned long long> t(2 * grid);
        CK(cudaMemcpy(t.data(), dtimes, 16 * grid, cudaMemcpyDeviceToHost));
        unsigned long long s0 = ~0ull, s1 = 0; std::vector<unsigned long long> ends;
        for (long long b = 0; b < grid; ++b) { s0 = std::min(s0, t[2 * b]); s1 = std::max(s1, t[2 * b]); ends.push_back(t[2 * b + 1]); }
        std::sort(ends.begin(), ends.end());
        spans.push_back((ends.back() - s0) / 1e3);
        last_minus_median.push_back((ends.back() - ends[ends.size() / 2]) / 1e3);
        if (r == 9) printf("tail B%d U%d occ%d grid %lld n 2^%d: starts spread %.2f us; ends at (us after first start) p0 %.1f p10 %.1f p50 %.1f p90 %.1f p99 %.1f max %.1f\n",
                           B, U, blocks_per_sm, grid, (int)std::log2((double)n), (s1 - s0) / 1e3, (ends.front() - s0) / 1e3,
                           (ends[ends.size() / 10] - s0) / 1e3, (ends[ends.size() / 2] - s0) / 1e3, (ends[ends.size() * 9 / 10] - s0) / 1e3,
                           (ends[ends.size() * 99 / 100] - s0) / 1e3, (ends.back() - s0) / 1e3);
    }
    std::sort(spans.begin(), spans.end()); std::sort(last_minus_median.begin(), last_minus_median.end());
    printf("tail B%d U%d occ%d: median over 10 runs: first start -> last end %.1f us, median end -> last end %.1f us\n", B, U, blocks_per_sm,
           spans[5], last_minus_median[5]);
    fflush(stdout);
}

template <int B, int U, int MINB>
static void gridstride(int per_sm, long long n) {
    auto k = k_gridstride<B, U, MINB>;
    const int blocks_per_sm = one_wave_blocks_per_sm(k, B, per_sm);
    const long long grid = (long long)sms * blocks_per_sm;
    const double ms = time_ms([&]() { k<<<grid, B>>>((const float4*)din, n / 4, dparts); });
    std::vector<double> p(grid); CK(cudaMemcpy(p.data(), dparts, 8 * grid, cudaMemcpyDeviceToHost));
    double got = 0; for (double x : p) got += x;
    const double rel = std::fabs(got - host_sum(n)) / std::max(1.0, std::fabs(host_sum(n)));
    printf("gridstride   B%4d U%d occ%d grid %5lld n 2^%2d: %.4f ms %7.1f GB/s  %s (partials only, no finish)\n", B, U, blocks_per_sm, grid,
           (int)std::log2((double)n), ms, 4.0 * n / ms / 1e6, rel < 1e-9 ? "ok" : "WRONG");
    fflush(stdout);
}

int main() {
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const long long N = 1LL << 29;
    std::vector<float> h(N); std::mt19937 rng(11); std::uniform_real_distribution<float> u(-1, 1); for (auto& v : h) v = u(rng);
    prefix_sum.assign((N >> 20) + 1, 0.0);
    { long double acc = 0; for (long long i = 0; i < N; ++i) { acc += h[i]; if (((i + 1) & ((1 << 20) - 1)) == 0) prefix_sum[(i + 1) >> 20] = (double)acc; } }
    CK(cudaMalloc(&din, N * 4)); CK(cudaMemcpy(din, h.data(), N * 4, cudaMemcpyHostToDevice));
    CK(cudaMalloc(&dres, 8)); CK(cudaMalloc(&scratch, 16 + 16 * 8192)); CK(cudaMemset(scratch, 0, 16 + 16 * 8192));
    CK(cudaMalloc(&dparts, 8 * 8192)); CK(cudaMalloc(&dtimes, 16 * 8192));
    float* cp; CK(cudaMalloc(&cp, (N / 2) * 4));
    printf("empty kernel: %.4f ms (event to event)\n", time_ms([&]() { k_empty<<<1, 32>>>(); }));
    const double cm = time_ms([&]() { CK(cudaMemcpyAsync(cp, din, (N / 2) * 4, cudaMemcpyDeviceToDevice)); });
    printf("memcpy d2d 2^28 f32: %.4f ms %.1f GB/s (read+write)\n", cm, 8.0 * (N / 2) / cm / 1e6);
    CK(cudaFree(cp));

    for (long long n : {1LL << 27, 1LL << 28, 1LL << 29}) {
        variant<256, 4, 1>("production", 0, n);
        variant<256, 3, 4>("256x3", 4, n);
        variant<256, 4, 4>("256x4 4/SM", 4, n);
        variant<256, 2, 8>("256x2", 0, n);
        variant<512, 2, 2>("512x2", 0, n);
        variant<256, 4, 1>("256x4 6/SM", 6, n);
        variant<256, 8, 1>("256x8 4/SM", 4, n);
        variant<128, 4, 1>("128x4 16/SM", 16, n);
        variant<128, 8, 1>("128x8 8/SM", 8, n);
        gridstride<256, 4, 1>(0, n);
        gridstride<256, 3, 4>(4, n);
    }
    variant<256, 4, 1>("production", 0, 1LL << 28);
    tail<256, 4, 1>(0, 1LL << 28);
    tail<256, 3, 4>(4, 1LL << 28);
    tail<256, 4, 1>(0, 1LL << 27);
    return 0;
}
