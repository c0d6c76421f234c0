// Synchronous-sum lab: how a 2^20-float sum finishes across blocks and how the host waits
// (design measurements; a standalone harness, not built by Maven; see README.md here).
#include "block/block_reduce.cuh"
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>
#include <chrono>
#include <atomic>
#include <random>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); exit(2);} } while (0)
using namespace primer;
constexpr int BT = 256;

__device__ __forceinline__ double tile_sum(const float4* in, long long n4) {
    double acc = 0;
    const long long base = (long long)blockIdx.x * BT * 4;
    float4 v[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) { long long j = base + u * BT + threadIdx.x; v[u] = j < n4 ? __ldcs(in + j) : make_float4(0, 0, 0, 0); }
#pragma unroll
    for (int u = 0; u < 4; ++u) acc += ((double)v[u].x + v[u].y) + ((double)v[u].z + v[u].w);
    return block_reduce<BT>(acc, Sum<double>());
}
// B: production-like: partial to L2, threadfence, ticket, last block combines, result to host
__global__ void __launch_bounds__(BT) k_fence(const float4* in, long long n4, double* result, double* slots, unsigned* counter) {
    double t = tile_sum(in, n4);
    __shared__ bool last;
    if (threadIdx.x == 0) { __stcg(slots + blockIdx.x, t); __threadfence(); last = atomicAdd(counter, 1u) == gridDim.x - 1; if (last) __threadfence(); }
    __syncthreads();
    if (!last) return;
    double acc = 0; for (unsigned b = threadIdx.x; b < gridDim.x; b += BT) acc += __ldcg(slots + b);
    acc = block_reduce<BT>(acc, Sum<double>());
    if (threadIdx.x == 0) { *result = acc; *counter = 0; }
}
// D: release/acquire atomics instead of full fences
__global__ void __launch_bounds__(BT) k_relacq(const float4* in, long long n4, double* result, double* slots, unsigned* counter) {
    double t = tile_sum(in, n4);
    __shared__ bool last;
    if (threadIdx.x == 0) {
        __stcg(slots + blockIdx.x, t);
        unsigned old;
        asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;" : "=r"(old) : "l"(counter) : "memory");
        last = old == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    double acc = 0; for (unsigned b = threadIdx.x; b < gridDim.x; b += BT) acc += __ldcg(slots + b);
    acc = block_reduce<BT>(acc, Sum<double>());
    if (threadIdx.x == 0) { *result = acc; *counter = 0; }
}
// C: every block writes its partial straight to pinned host memory; the host combines
__global__ void __launch_bounds__(BT) k_host(const float4* in, long long n4, double* host_slots) {
    double t = tile_sum(in, n4);
    if (threadIdx.x == 0) host_slots[blockIdx.x] = t;
}
// A: the floor: one block writes the host result
__global__ void k_floor(double* result) { if (threadIdx.x == 0) *result = 1.0; }

static double now_us() { return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
template <typename F> static void measure(const char* name, F call, int reps = 4000) {
    for (int i = 0; i < 400; ++i) call();
    std::vector<double> t(reps);
    for (int i = 0; i < reps; ++i) { double a = now_us(); call(); t[i] = now_us() - a; }
    std::sort(t.begin(), t.end());
    printf("%-58s median %6.2f us  p10 %6.2f  p90 %6.2f\n", name, t[reps / 2], t[reps / 10], t[reps * 9 / 10]); fflush(stdout);
}
int main() {
    CK(cudaFree(0));
    cudaStream_t st; CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    const long long n = 1 << 20, n4 = n / 4; const int buffers = 53;
    std::vector<float4*> in(buffers);
    std::vector<float> h(n); std::mt19937 rng(3); std::uniform_real_distribution<float> u(-1, 1); for (auto& v : h) v = u(rng);
    for (auto& p : in) { CK(cudaMalloc(&p, n * 4)); CK(cudaMemcpy(p, h.data(), n * 4, cudaMemcpyHostToDevice)); }
    double* slots; CK(cudaMalloc(&slots, 1 << 16)); unsigned* counter; CK(cudaMalloc(&counter, 64)); CK(cudaMemset(counter, 0, 64));
    volatile double* hr; CK(cudaHostAlloc((void**)&hr, 1 << 16, cudaHostAllocMapped));
    const int grid = (int)(n4 / (BT * 4));
    const unsigned long long POISON = 0x7ff4dead5eed1234ull;
    auto poison = [&](int words) { for (int i = 0; i < words; ++i) memcpy((void*)(hr + i), &POISON, 8); std::atomic_thread_fence(std::memory_order_seq_cst); };
    auto wait = [&](int words) { for (int i = 0; i < words; ++i) { unsigned long long b; do { b = *(volatile unsigned long long*)(hr + i); } while (b == POISON); } };
    int b = 0;
    measure("A floor: 1-block kernel writes host, spin", [&]() { poison(1); k_floor<<<1, 32, 0, st>>>((double*)hr); wait(1); });
    CK(cudaStreamSynchronize(st));
    measure("B fence + ticket + last block, spin", [&]() { poison(1); k_fence<<<grid, BT, 0, st>>>(in[b++ % buffers], n4, (double*)hr, slots, counter); wait(1); });
    CK(cudaStreamSynchronize(st));
    measure("D acq_rel ticket + last block, spin", [&]() { poison(1); k_relacq<<<grid, BT, 0, st>>>(in[b++ % buffers], n4, (double*)hr, slots, counter); wait(1); });
    CK(cudaStreamSynchronize(st));
    double s = 0;
    measure("C partials to host, host combines", [&]() { poison(grid); k_host<<<grid, BT, 0, st>>>(in[b++ % buffers], n4, (double*)hr); wait(grid); s = 0; for (int i = 0; i < grid; ++i) s += hr[i]; });
    CK(cudaStreamSynchronize(st));
    measure("B again", [&]() { poison(1); k_fence<<<grid, BT, 0, st>>>(in[b++ % buffers], n4, (double*)hr, slots, counter); wait(1); });
    CK(cudaStreamSynchronize(st));
    measure("A again", [&]() { poison(1); k_floor<<<1, 32, 0, st>>>((double*)hr); wait(1); });
    CK(cudaStreamSynchronize(st));
    double e = 0; for (float v : h) e += v;
    printf("host-combined %.9g, expected %.9g, grid %d\n", s, e, grid);
    return 0;
}
