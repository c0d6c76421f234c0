// Synchronous-sum lab, part three: where the ~10 us of a synchronous 2^20-float sum go, and what
// can leave the critical path (design measurements; a standalone harness, not built by Maven).
//
// 1. The finish. Production (D) publishes each block's partial, then takes an acq_rel ticket; the
//    block with the last ticket reads every partial: after the slowest partial exists, a release,
//    the atomic's round trip and the partials' round trip. The poll finish (E) takes the ticket at
//    the start, while the loads are in flight; the block with the last ticket (every other block
//    has started, so waiting on them cannot deadlock) publishes its partial and spins on all slots,
//    each {value, epoch} in one 16-byte store, so one load finds it fresh and brings the value.
//    E2 polls with warp 0 alone. P bounds both: the data phase, block 0 reporting. A is the floor.
// 2. The launch. The CPU time of one launch (<<<>>>, cuLaunchKernel with kernelParams or with an
//    extra buffer, a fixed executable graph, a graph whose node's arguments are set per launch),
//    the floor and the sum through each, and launch rates back to back.
//    Grids that alternate from launch to launch: one graph updated, or a graph per grid.
// 3. The graph's semantics: 100,000 launches through one graph, each with its own arguments, some
//    behind slow ones; every slot must hold the last stamp issued for it.
//
// The Java side of the same call is SyncLatencyLab.java. Build (cuLaunchKernel comes from the
// runtime's driver entry points, so no libcuda is needed at link time):
//   nvcc -std=c++17 -O3 -arch=sm_90 -I primer-core/src/main/cuda -I bench/lab -o .lab/sync_poll_lab bench/lab/sync_poll_lab.cu
#include "device/reduce_kernels.cuh"
#include "lab_common.cuh"
#include <cuda.h>
#include <chrono>
#include <atomic>
#include <cmath>
using namespace primer;

template <int BT, int VPT>
__device__ __forceinline__ double fold_tile(const float4* in, long long n4) {
    const long long base = (long long)blockIdx.x * BT * VPT;
    float4 v[VPT];
#pragma unroll
    for (int u = 0; u < VPT; ++u) {
        const long long j = base + u * BT + threadIdx.x;
        v[u] = j < n4 ? __ldg(in + j) : make_float4(0, 0, 0, 0);
    }
    double acc = 0;
#pragma unroll
    for (int u = 0; u < VPT; ++u) acc += ((double)v[u].x + v[u].y) + ((double)v[u].z + v[u].w);
    return acc;
}

__device__ __forceinline__ void store_slot(ulonglong2* p, double value, unsigned epoch) {
    asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(__double_as_longlong(value)),
                 "l"((unsigned long long)epoch) : "memory");
}
__device__ __forceinline__ ulonglong2 load_slot(const ulonglong2* p) {
    ulonglong2 s;
    asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];" : "=l"(s.x), "=l"(s.y) : "l"(p) : "memory");
    return s;
}

// E: the ticket at the start, the last-started block polls epoch-tagged slots.
template <int BT, int VPT>
__global__ void __launch_bounds__(BT) k_poll(const float4* in, long long n4, double* result, ulonglong2* slots,
                                             unsigned* counter, unsigned epoch) {
    __shared__ bool poller;
    if (threadIdx.x == 0) {
        const unsigned ticket = atomicAdd(counter, 1u);
        poller = ticket == gridDim.x - 1;
        if (poller) *counter = 0;  // every block has its ticket
    }
    const double total = block_reduce<BT>(fold_tile<BT, VPT>(in, n4), Sum<double>());  // its barrier shows `poller`
    if (threadIdx.x == 0) store_slot(slots + blockIdx.x, total, epoch);
    if (!poller) return;
    double acc = 0;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += BT) {
        ulonglong2 s;
        do s = load_slot(slots + b); while (s.y != epoch);
        acc += __longlong_as_double(s.x);
    }
    acc = block_reduce<BT>(acc, Sum<double>());
    if (threadIdx.x == 0) *result = acc;
}

// E2: as E, but warp 0 alone polls and folds the slots (no barriers after the poll).
template <int BT, int VPT>
__global__ void __launch_bounds__(BT) k_poll_warp(const float4* in, long long n4, double* result, ulonglong2* slots,
                                                  unsigned* counter, unsigned epoch) {
    __shared__ bool poller;
    if (threadIdx.x == 0) {
        const unsigned ticket = atomicAdd(counter, 1u);
        poller = ticket == gridDim.x - 1;
        if (poller) *counter = 0;
    }
    const double total = block_reduce<BT>(fold_tile<BT, VPT>(in, n4), Sum<double>());
    if (threadIdx.x == 0) store_slot(slots + blockIdx.x, total, epoch);
    if (!poller || threadIdx.x >= 32) return;
    double acc = 0;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += 32) {
        ulonglong2 s;
        do s = load_slot(slots + b); while (s.y != epoch);
        acc += __longlong_as_double(s.x);
    }
    acc = warp_reduce(acc, Sum<double>());
    if (threadIdx.x == 0) *result = acc;
}

// P: the data phase only (block 0 reports its own partial): what no finish can beat.
template <int BT, int VPT>
__global__ void __launch_bounds__(BT) k_data_only(const float4* in, long long n4, double* result) {
    const double total = block_reduce<BT>(fold_tile<BT, VPT>(in, n4), Sum<double>());
    if (blockIdx.x == 0 && threadIdx.x == 0) *result = total;
}

// The graph's parameter check: each launch stamps its number into a slot; a launch that ran with a
// later call's parameters would leave a wrong stamp. Spins first, so launches queue up behind it.
__global__ void k_stamp(unsigned long long* out, int slot, unsigned long long value, int spin) {
    const long long start = clock64();
    while (clock64() - start < spin) {}
    if (threadIdx.x == 0) out[slot] = value;
}

// A: the floor: one block writes the host result.
__global__ void k_floor(double* result) { if (threadIdx.x == 0) *result = 1.0; }

static double now_us() { return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
template <typename F> static void measure(const char* name, F call, int reps = 4000) {
    for (int i = 0; i < 2000; ++i) call();
    std::vector<double> t(reps);
    for (int i = 0; i < reps; ++i) { double a = now_us(); call(); t[i] = now_us() - a; }
    std::sort(t.begin(), t.end());
    printf("%-52s median %6.2f us  p10 %6.2f  p90 %6.2f\n", name, t[reps / 2], t[reps / 10], t[reps * 9 / 10]); fflush(stdout);
}
/** CPU time of one launch while the stream's queue has room: the median over 400 launches after a synchronize. */
template <typename F> static void measure_submit(const char* name, F launch) {
    std::vector<double> t;
    for (int round = 0; round < 20; ++round) {
        CK(cudaDeviceSynchronize());
        for (int i = 0; i < 400; ++i) { double a = now_us(); launch(); t.push_back(now_us() - a); }
    }
    CK(cudaDeviceSynchronize());
    std::sort(t.begin(), t.end());
    printf("%-52s median %6.2f us  p10 %6.2f  p90 %6.2f\n", name, t[t.size() / 2], t[t.size() / 10], t[t.size() * 9 / 10]); fflush(stdout);
}

int main() {
    CK(cudaFree(0));
    cudaStream_t st; CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    const long long n = 1 << 20, n4 = n / 4; const int buffers = 53;
    std::vector<float4*> in(buffers);
    std::vector<float> h(n); std::mt19937 rng(3); std::uniform_real_distribution<float> u(-1, 1); for (auto& v : h) v = u(rng);
    for (auto& p : in) { CK(cudaMalloc(&p, n * 4)); CK(cudaMemcpy(p, h.data(), n * 4, cudaMemcpyHostToDevice)); }
    double expected = 0; for (float v : h) expected += v;
    unsigned char* scratch; CK(cudaMalloc(&scratch, 1 << 20)); CK(cudaMemset(scratch, 0, 1 << 20));
    ulonglong2* slots; CK(cudaMalloc(&slots, 1 << 16)); CK(cudaMemset(slots, 0, 1 << 16));
    unsigned* counter; CK(cudaMalloc(&counter, 64)); CK(cudaMemset(counter, 0, 64));
    double* device_result; CK(cudaMalloc(&device_result, 64));
    volatile double* hr; CK(cudaHostAlloc((void**)&hr, 1 << 16, cudaHostAllocMapped));
    const unsigned long long POISON = 0x7ff4dead5eed1234ull;
    auto poison = [&]() { memcpy((void*)hr, &POISON, 8); std::atomic_thread_fence(std::memory_order_seq_cst); };
    auto wait = [&]() { unsigned long long b; do { b = *(volatile unsigned long long*)hr; } while (b == POISON); };
    int b = 0;
    unsigned epoch = 0;
    constexpr int PBT = ReducePolicyConstants::BLOCK_THREADS;
    const int prod_grid = (int)(n4 / (PBT * ReducePolicyConstants::VECS_PER_THREAD));
    auto production = [&](double* out) {
        reduce_kernel<float, double, double, Sum<double>><<<prod_grid, PBT, 0, st>>>((const float*)in[b++ % buffers], n, out, scratch);
    };
    auto poll = [&](auto kernel, int bt, int vpt, double* out) {
        kernel<<<(int)(n4 / (bt * vpt)), bt, 0, st>>>(in[b++ % buffers], n4, out, slots, counter, ++epoch);
    };
    auto check = [&](const char* what) {
        CK(cudaStreamSynchronize(st));
        const double got = hr[0];
        printf("  %s: %.9g (host %.9g, rel err %.1e)\n", what, got, expected, std::fabs(got - expected) / std::fabs(expected));
    };
    printf("grid of production %d blocks of %d\n", prod_grid, PBT);
    for (int pass = 0; pass < 2; ++pass) {
        measure("A floor: 1-block kernel writes host", [&]() { poison(); k_floor<<<1, 32, 0, st>>>((double*)hr); wait(); });
        measure("P data only 256x4 (block 0 reports)", [&]() { poison(); k_data_only<256, 4><<<256, 256, 0, st>>>(in[b++ % buffers], n4, (double*)hr); wait(); });
        measure("D production: acq_rel ticket, last block reads", [&]() { poison(); production((double*)hr); wait(); });
        check("D");
        measure("E poll 256x4 (grid 256)", [&]() { poison(); poll(k_poll<256, 4>, 256, 4, (double*)hr); wait(); });
        check("E 256x4");
        measure("E2 poll by warp 0, 256x4 (grid 256)", [&]() { poison(); poll(k_poll_warp<256, 4>, 256, 4, (double*)hr); wait(); });
        check("E2 256x4");
        measure("E poll 256x2 (grid 512)", [&]() { poison(); poll(k_poll<256, 2>, 256, 2, (double*)hr); wait(); });
        check("E 256x2");
        measure("E poll 512x2 (grid 256)", [&]() { poison(); poll(k_poll<512, 2>, 512, 2, (double*)hr); wait(); });
        check("E 512x2");
        measure("E poll 128x4 (grid 512)", [&]() { poison(); poll(k_poll<128, 4>, 128, 4, (double*)hr); wait(); });
        check("E 128x4");
        measure("E poll 512x4 (grid 128)", [&]() { poison(); poll(k_poll<512, 4>, 512, 4, (double*)hr); wait(); });
        check("E 512x4");
    }
    // The CPU side of a launch, four ways, each submitting the floor kernel.
    CUfunction floor_function; CK(cudaGetFuncBySymbol(&floor_function, (const void*)k_floor));
    CUstream driver_stream = (CUstream)st;
    void* floor_params[] = {&device_result};
    size_t param_bytes = sizeof(device_result);
    void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &device_result, CU_LAUNCH_PARAM_BUFFER_SIZE, &param_bytes, CU_LAUNCH_PARAM_END};
    using LaunchFn = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                  CUstream, void**, void**);
    LaunchFn cu_launch = nullptr; cudaDriverEntryPointQueryResult found;
    CK(cudaGetDriverEntryPointByVersion("cuLaunchKernel", (void**)&cu_launch, 12000, cudaEnableDefault, &found));
    auto driver_launch = [&](void** params, void** ex) {
        if (cu_launch(floor_function, 1, 1, 1, 32, 1, 1, 0, driver_stream, params, ex) != CUDA_SUCCESS) { printf("cuLaunchKernel failed\n"); exit(2); }
    };
    cudaGraph_t graph; CK(cudaGraphCreate(&graph, 0));
    cudaKernelNodeParams node{};
    node.func = (void*)k_floor; node.gridDim = dim3(1); node.blockDim = dim3(32); node.kernelParams = floor_params;
    cudaGraphNode_t graph_node; CK(cudaGraphAddKernelNode(&graph_node, graph, nullptr, 0, &node));
    cudaGraphExec_t exec; CK(cudaGraphInstantiate(&exec, graph, 0));
    double* host_result = (double*)hr;
    void* host_params[] = {&host_result};
    cudaKernelNodeParams host_node = node; host_node.kernelParams = host_params;
    for (int pass = 0; pass < 2; ++pass) {
        measure_submit("submit: production reduce <<<>>> (CPU side)", [&]() { production(device_result); });
        measure_submit("submit: floor <<<>>>", [&]() { k_floor<<<1, 32, 0, st>>>(device_result); });
        measure_submit("submit: floor cuLaunchKernel(kernelParams)", [&]() { driver_launch(floor_params, nullptr); });
        measure_submit("submit: floor cuLaunchKernel(extra buffer)", [&]() { driver_launch(nullptr, extra); });
        measure_submit("submit: floor cudaGraphLaunch (fixed graph)", [&]() { CK(cudaGraphLaunch(exec, st)); });
        measure_submit("submit: floor set node params + cudaGraphLaunch", [&]() {
            CK(cudaGraphExecKernelNodeSetParams(exec, graph_node, &node)); CK(cudaGraphLaunch(exec, st)); });
    }
    CK(cudaGraphExecKernelNodeSetParams(exec, graph_node, &host_node));
    measure("A floor by cuLaunchKernel", [&]() { poison(); void* p[] = {&host_result}; driver_launch(p, nullptr); wait(); });
    measure("A floor by cudaGraphLaunch", [&]() { poison(); CK(cudaGraphLaunch(exec, st)); wait(); });
    measure("A floor by <<<>>>", [&]() { poison(); k_floor<<<1, 32, 0, st>>>((double*)hr); wait(); });

    // Every launch through the one graph: its node's function, grid and arguments set per call.
    auto graph_launch = [&](const void* func, int grid, int block, void** params) {
        cudaKernelNodeParams p{};
        p.func = (void*)func; p.gridDim = dim3(grid); p.blockDim = dim3(block); p.kernelParams = params;
        CK(cudaGraphExecKernelNodeSetParams(exec, graph_node, &p));
        CK(cudaGraphLaunch(exec, st));
    };
    const void* production_kernel = (const void*)reduce_kernel<float, double, double, Sum<double>>;
    const void* poll_kernel = (const void*)k_poll<256, 4>;
    long long n_arg = n, n4_arg = n4;
    for (int pass = 0; pass < 2; ++pass) {
        measure("D production via the graph", [&]() {
            poison(); const float* p_in = (const float*)in[b++ % buffers];
            void* a[] = {&p_in, &n_arg, &host_result, &scratch};
            graph_launch(production_kernel, prod_grid, PBT, a); wait(); });
        check("D via graph");
        measure("E poll 256x4 via the graph", [&]() {
            poison(); const float4* p_in = in[b++ % buffers]; ++epoch;
            void* a[] = {&p_in, &n4_arg, &host_result, &slots, &counter, &epoch};
            graph_launch(poll_kernel, (int)(n4 / 1024), 256, a); wait(); });
        check("E via graph");
        measure("D production <<<>>>", [&]() { poison(); production((double*)hr); wait(); });
        measure("A floor via the graph (params set per call)", [&]() {
            poison(); void* a[] = {&host_result}; graph_launch((const void*)k_floor, 1, 32, a); wait(); });
    }
    int flip = 0;
    measure_submit("submit: graph, alternating production / floor", [&]() {
        if (flip++ & 1) { void* a[] = {&device_result}; graph_launch((const void*)k_floor, 1, 32, a); }
        else { const float* p_in = (const float*)in[0]; void* a[] = {&p_in, &n_arg, &device_result, &scratch};
               graph_launch(production_kernel, prod_grid, PBT, a); } });
    measure_submit("submit: <<<>>>, alternating production / floor", [&]() {
        if (flip++ & 1) k_floor<<<1, 32, 0, st>>>(device_result); else production(device_result); });
    // One graph per kernel: a second executable graph for the production kernel.
    cudaGraph_t graph2; CK(cudaGraphCreate(&graph2, 0));
    cudaKernelNodeParams node2{};
    {
        const float* p_in = (const float*)in[0];
        void* a[] = {&p_in, &n_arg, &device_result, &scratch};
        node2.func = (void*)production_kernel; node2.gridDim = dim3(prod_grid); node2.blockDim = dim3(PBT); node2.kernelParams = a;
        cudaGraphNode_t n2; CK(cudaGraphAddKernelNode(&n2, graph2, nullptr, 0, &node2));
        cudaGraphExec_t exec2; CK(cudaGraphInstantiate(&exec2, graph2, 0));
        auto launch2 = [&, n2, exec2](const float* p_in2, int grid) {
            void* a2[] = {&p_in2, &n_arg, &device_result, &scratch};
            cudaKernelNodeParams p = node2; p.kernelParams = a2; p.gridDim = dim3(grid);
            CK(cudaGraphExecKernelNodeSetParams(exec2, n2, &p));
            CK(cudaGraphLaunch(exec2, st));
        };
        measure_submit("submit: two graphs, alternating production / floor", [&]() {
            if (flip++ & 1) { void* f[] = {&device_result}; graph_launch((const void*)k_floor, 1, 32, f); }
            else launch2((const float*)in[flip % buffers], prod_grid); });
        measure_submit("submit: production graph, input rotated", [&]() { launch2((const float*)in[flip++ % buffers], prod_grid); });
        measure_submit("submit: production graph, grid 256 / 128", [&]() { launch2((const float*)in[0], (flip++ & 1) ? 128 : 256); });
        for (int pass = 0; pass < 2; ++pass) {
            auto rate = [&](const char* name, auto launch) {
                for (int i = 0; i < 1000; ++i) launch(i);
                CK(cudaStreamSynchronize(st));
                const double t0 = now_us();
                for (int i = 0; i < 10000; ++i) launch(i);
                CK(cudaStreamSynchronize(st));
                printf("%-52s %6.2f us per launch\n", name, (now_us() - t0) / 10000); fflush(stdout);
            };
            rate("throughput: production <<<>>>, input rotated", [&](int i) {
                reduce_kernel<float, double, double, Sum<double>><<<prod_grid, PBT, 0, st>>>((const float*)in[i % buffers], n, device_result, scratch); });
            rate("throughput: production graph, input rotated", [&](int i) { launch2((const float*)in[i % buffers], prod_grid); });
            rate("throughput: production graph, grid 256 / 128", [&](int i) { launch2((const float*)in[i % buffers], (i & 1) ? 128 : 256); });
        }
        double got = 0; CK(cudaMemcpy(&got, device_result, 8, cudaMemcpyDeviceToHost));
        printf("  last production result %.9g (grid 128 or 256 over buffer 52: host %.9g)\n", got, expected);
    }
    {
        // Grids that change from launch to launch (the ladders' host loops): 1000 launches of a tiny
        // kernel alternating 264 blocks and 1, timed by events and by the host's wall clock.
        cudaGraph_t ga, gb; CK(cudaGraphCreate(&ga, 0)); CK(cudaGraphCreate(&gb, 0));
        void* fa[] = {&device_result};
        cudaKernelNodeParams pa{}; pa.func = (void*)k_floor; pa.gridDim = dim3(264); pa.blockDim = dim3(32); pa.kernelParams = fa;
        cudaKernelNodeParams pb = pa; pb.gridDim = dim3(1);
        cudaGraphNode_t na, nb; CK(cudaGraphAddKernelNode(&na, ga, nullptr, 0, &pa)); CK(cudaGraphAddKernelNode(&nb, gb, nullptr, 0, &pb));
        cudaGraphExec_t ea, eb; CK(cudaGraphInstantiate(&ea, ga, 0)); CK(cudaGraphInstantiate(&eb, gb, 0));
        cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
        auto alternate = [&](const char* name, auto launch) {
            for (int rep = 0; rep < 3; ++rep) {
                CK(cudaStreamSynchronize(st));
                const double t0 = now_us();
                CK(cudaEventRecord(e0, st));
                for (int i = 0; i < 1000; ++i) launch(i & 1);
                CK(cudaEventRecord(e1, st));
                CK(cudaEventSynchronize(e1));
                float ms; CK(cudaEventElapsedTime(&ms, e0, e1));
                printf("%-52s events %6.2f us, wall %6.2f us per launch\n", name, ms * 1e3f / 1000, (now_us() - t0) / 1000); fflush(stdout);
            }
        };
        alternate("grids 264/1: <<<>>>", [&](int odd) { k_floor<<<odd ? 1 : 264, 32, 0, st>>>(device_result); });
        alternate("grids 264/1: one graph, node updated", [&](int odd) {
            CK(cudaGraphExecKernelNodeSetParams(ea, na, odd ? &pb : &pa)); CK(cudaGraphLaunch(ea, st)); });
        CK(cudaGraphExecKernelNodeSetParams(ea, na, &pa));
        alternate("grids 264/1: a graph per grid, arguments set", [&](int odd) {
            CK(cudaGraphExecKernelNodeSetParams(odd ? eb : ea, odd ? nb : na, odd ? &pb : &pa)); CK(cudaGraphLaunch(odd ? eb : ea, st)); });
        alternate("grid 264 always: <<<>>>", [&](int) { k_floor<<<264, 32, 0, st>>>(device_result); });
        alternate("grid 264 always: one graph, arguments set", [&](int) {
            CK(cudaGraphExecKernelNodeSetParams(ea, na, &pa)); CK(cudaGraphLaunch(ea, st)); });
    }
    {
        constexpr int SLOTS = 4096, LAUNCHES = 100000;
        unsigned long long* stamps; CK(cudaMalloc(&stamps, SLOTS * 8)); CK(cudaMemset(stamps, 0xff, SLOTS * 8));
        cudaGraph_t g3; CK(cudaGraphCreate(&g3, 0));
        int slot = 0, spin = 0; unsigned long long value = 0;
        void* a[] = {&stamps, &slot, &value, &spin};
        cudaKernelNodeParams p{}; p.func = (void*)k_stamp; p.gridDim = dim3(1); p.blockDim = dim3(32); p.kernelParams = a;
        cudaGraphNode_t n3; CK(cudaGraphAddKernelNode(&n3, g3, nullptr, 0, &p));
        cudaGraphExec_t e3; CK(cudaGraphInstantiate(&e3, g3, 0));
        CK(cudaStreamSynchronize(st));
        for (int i = 0; i < LAUNCHES; ++i) {
            slot = i % SLOTS; value = i; spin = i % 7 == 0 ? 20000 : 0;
            CK(cudaGraphExecKernelNodeSetParams(e3, n3, &p));
            CK(cudaGraphLaunch(e3, st));
        }
        CK(cudaStreamSynchronize(st));
        std::vector<unsigned long long> got(SLOTS); CK(cudaMemcpy(got.data(), stamps, SLOTS * 8, cudaMemcpyDeviceToHost));
        int wrong = 0;
        for (int s2 = 0; s2 < SLOTS; ++s2) {
            const unsigned long long want = (unsigned long long)((LAUNCHES - 1 - s2) / SLOTS * SLOTS + s2);
            wrong += got[s2] != want;
        }
        printf("stamps: %d launches through one graph, arguments set per launch: %d of %d slots wrong\n", LAUNCHES, wrong, SLOTS);
    }
    for (int pass = 0; pass < 2; ++pass) {
        auto throughput = [&](const char* name, auto launch) {
            for (int i = 0; i < 1000; ++i) launch();
            CK(cudaStreamSynchronize(st));
            const double t0 = now_us();
            for (int i = 0; i < 10000; ++i) launch();
            CK(cudaStreamSynchronize(st));
            printf("%-52s %6.2f us per launch\n", name, (now_us() - t0) / 10000); fflush(stdout);
        };
        throughput("throughput: floor <<<>>> x 10000", [&]() { k_floor<<<1, 32, 0, st>>>(device_result); });
        throughput("throughput: floor via the graph x 10000", [&]() { void* a[] = {&device_result}; graph_launch((const void*)k_floor, 1, 32, a); });
        throughput("throughput: fixed graph x 10000", [&]() { CK(cudaGraphLaunch(exec, st)); });
    }
    return 0;
}
