// Synchronous-reduce latency lab: ways for the host to wait for a 2^20-float sum (design
// measurements; a standalone harness, not built by Maven; see README.md here).
#include "device/reduce_kernels.cuh"
#include <cuda.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>
#include <chrono>
#include <atomic>
#include <random>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); exit(2);} } while (0)
#define CU(x) do { CUresult e = (x); if (e != CUDA_SUCCESS) { printf("CU error %d at %s:%d\n", (int)e, __FILE__, __LINE__); exit(2);} } while (0)
typedef CUresult (*WriteValue32)(CUstream, CUdeviceptr, cuuint32_t, unsigned);
using namespace primer;
constexpr int BT = ReducePolicyConstants::BLOCK_THREADS, VPT = ReducePolicyConstants::VECS_PER_THREAD;

extern "C" __global__ void __launch_bounds__(BT) k_sum(const float* __restrict__ in, long long n, double* __restrict__ result, unsigned char* __restrict__ scratch) {
    device_reduce<BT, VPT, float, double, double>(in, n, result, scratch, Sum<double>());
}
__global__ void k_empty() {}

static double now_us() { return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

template <typename F>
static void measure(const char* name, F call, int reps = 3000) {
    for (int i = 0; i < 300; ++i) call();
    std::vector<double> t(reps);
    for (int i = 0; i < reps; ++i) { double a = now_us(); call(); t[i] = now_us() - a; }
    std::sort(t.begin(), t.end());
    printf("%-60s median %6.2f us  p10 %6.2f  p90 %6.2f\n", name, t[reps / 2], t[reps / 10], t[reps * 9 / 10]);
    fflush(stdout);
}

int main(int argc, char** argv) {
    unsigned flags = argc > 1 ? atoi(argv[1]) : 0;  // 0 auto, 1 spin, 2 yield, 4 blocking sync
    if (flags) CK(cudaSetDeviceFlags(flags));
    CK(cudaFree(0));
    int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    printf("device flags %u, %d SMs\n", flags, sms);
    cudaStream_t st; CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    const long long n = 1 << 20;
    const int buffers = 53;  // rotate > L2
    std::vector<float*> in(buffers);
    std::vector<float> h(n); std::mt19937 rng(3); std::uniform_real_distribution<float> u(-1, 1); for (auto& v : h) v = u(rng);
    for (auto& p : in) { CK(cudaMalloc(&p, n * 4)); CK(cudaMemcpy(p, h.data(), n * 4, cudaMemcpyHostToDevice)); }
    unsigned char* scratch; CK(cudaMalloc(&scratch, 1 << 20)); CK(cudaMemset(scratch, 0, 1 << 20));
    volatile double* host_result; CK(cudaHostAlloc((void**)&host_result, 64, cudaHostAllocMapped));
    volatile unsigned* host_flag; CK(cudaHostAlloc((void**)&host_flag, 64, cudaHostAllocMapped));
    double* dev_result; CK(cudaMalloc(&dev_result, 64));
    int occ; CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k_sum, BT, 0));
    const long long tile = BT * VPT * 4;
    int b = 0;
    auto grid_for = [&](int cap) { long long tiles = (n + tile - 1) / tile; return (int)std::max(1LL, std::min(tiles, (long long)cap)); };
    printf("occupancy %d blocks/SM; tiles %lld\n", occ, (n + tile - 1) / tile);

    measure("empty launch + cudaStreamSynchronize", [&]() { k_empty<<<1, 32, 0, st>>>(); CK(cudaStreamSynchronize(st)); });
    measure("empty launch only (async throughput)", [&]() { k_empty<<<1, 32, 0, st>>>(); });
    CK(cudaStreamSynchronize(st));
    for (int cap : {sms * occ, sms * 4, sms * 2, sms, 64}) {
        char name[128];
        snprintf(name, sizeof name, "sum 2^20 grid %d -> pinned, streamSync", grid_for(cap));
        measure(name, [&]() { k_sum<<<grid_for(cap), BT, 0, st>>>(in[b++ % buffers], n, (double*)host_result, scratch); CK(cudaStreamSynchronize(st)); });
        snprintf(name, sizeof name, "sum 2^20 grid %d -> pinned, spin on poisoned result", grid_for(cap));
        measure(name, [&]() {
            const unsigned long long poison = 0x7ff4dead5eed1234ull;
            memcpy((void*)host_result, &poison, 8);
            std::atomic_thread_fence(std::memory_order_seq_cst);
            k_sum<<<grid_for(cap), BT, 0, st>>>(in[b++ % buffers], n, (double*)host_result, scratch);
            unsigned long long bits;
            do { bits = *(volatile unsigned long long*)host_result; } while (bits == poison);
        });
        CK(cudaStreamSynchronize(st));
        snprintf(name, sizeof name, "sum 2^20 grid %d -> pinned, cuStreamWriteValue32 + spin", grid_for(cap));
        unsigned seq = 0;
        void* flag_dev_p; CK(cudaHostGetDevicePointer(&flag_dev_p, (void*)host_flag, 0));
        CUdeviceptr flag_dev = (CUdeviceptr)flag_dev_p;
        WriteValue32 write_value = nullptr; cudaDriverEntryPointQueryResult q;
        CK(cudaGetDriverEntryPointByVersion("cuStreamWriteValue32", (void**)&write_value, 12000, cudaEnableDefault, &q));
        if (!write_value) { printf("no cuStreamWriteValue32\n"); continue; }
        measure(name, [&]() {
            k_sum<<<grid_for(cap), BT, 0, st>>>(in[b++ % buffers], n, (double*)host_result, scratch);
            ++seq;
            CU(write_value((CUstream)st, flag_dev, seq, 0));
            while (*host_flag != seq) {}
        });
        CK(cudaStreamSynchronize(st));
        snprintf(name, sizeof name, "sum 2^20 grid %d -> device, memcpyAsync D2H, streamSync", grid_for(cap));
        measure(name, [&]() { k_sum<<<grid_for(cap), BT, 0, st>>>(in[b++ % buffers], n, dev_result, scratch); CK(cudaMemcpyAsync((void*)host_result, dev_result, 8, cudaMemcpyDeviceToHost, st)); CK(cudaStreamSynchronize(st)); });
        // kernel-only time with events
        cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
        std::vector<float> ms;
        for (int i = 0; i < 500; ++i) { CK(cudaEventRecord(e0, st)); k_sum<<<grid_for(cap), BT, 0, st>>>(in[b++ % buffers], n, dev_result, scratch); CK(cudaEventRecord(e1, st)); CK(cudaEventSynchronize(e1)); float m; CK(cudaEventElapsedTime(&m, e0, e1)); ms.push_back(m); }
        std::sort(ms.begin(), ms.end());
        printf("  kernel (events) grid %d: median %.2f us\n", grid_for(cap), ms[ms.size() / 2] * 1000);
    }
    double expect = 0; for (float v : h) expect += v;
    printf("last result %.9g expected %.9g\n", *host_result, expect);
    return 0;
}
