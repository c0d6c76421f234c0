// Reduce tail lab: can a float32 sum of 2^28 end sooner than production's static shares?
// Production gives each block one contiguous, equal share; blocks end up to ~60 us apart
// (reduce_lab.cu), and the last microseconds run with too few loads in flight.
//
//   production       device_reduce as built (static shares, acq_rel ticket, last block folds)
//   dyn_nd_C         chunks of C tiles (16 KB each) claimed from a counter, the claim one chunk
//                    ahead; each thread keeps one double across chunks: NOT deterministic (the
//                    bound of what balancing can save)
//   dyn_det_C        the same claims, a block reduction per chunk and a partial per chunk; the last
//                    block folds the chunk partials in chunk order: deterministic
//   bulk_SxR_P       static shares streamed by TMA bulk copies into a ring of R stages of S KB, at
//                    most P blocks per SM
//   bulkdyn_SxR_P    the same ring, each stage's chunk claimed from the counter one refill ahead:
//                    NOT deterministic
//
// Each variant at 2^28 and 2^29 floats: the median of 60 single launches between two events (the
// bench's method), and 20 launches back to back between two events (the GPU's own time per call).
// Every result is checked against a long-double host sum. Design measurements; not built by Maven.
#include "device/reduce_kernels.cuh"
#include "lab_common.cuh"
#include "lab_bulk.cuh"
#include <cmath>

using namespace primer;
using SumD = Sum<double>;
constexpr int B = 256, U = 4;
constexpr long long TILE_VECS = (long long)B * U;  // 16 KB of float4

__global__ void __launch_bounds__(B) k_production(const float* in, long long n, double* result, unsigned char* scratch) {
    device_reduce<B, U, float, double, double>(in, n, result, scratch, SumD());
}

/** One chunk's tiles folded into `s` (whole tiles; the last chunk may be short). */
__device__ __forceinline__ void fold_chunk(const float4* body, long long begin, long long end, double& s) {
    for (long long v = begin; v < end; v += TILE_VECS) {
        float4 x[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const long long j = v + u * B + threadIdx.x;
            x[u] = j < end ? __ldg(body + j) : make_float4(0, 0, 0, 0);
        }
#pragma unroll
        for (int u = 0; u < U; ++u) s += ((double)x[u].x + (double)x[u].y) + ((double)x[u].z + (double)x[u].w);
    }
}

/**
 * Chunks claimed one ahead from the counter at scratch + 4 (thread 0 asks for the next while the
 * block streams the current one). n is a multiple of 4 and the input 16-byte aligned here.
 */
template <int C, bool DET>
__global__ void __launch_bounds__(B) k_dynamic(const float* in, long long n, double* result, unsigned char* scratch,
                                               double* chunk_partials) {
    const float4* body = reinterpret_cast<const float4*>(in);
    const long long vecs = n / 4;
    constexpr long long CHUNK = TILE_VECS * C;
    const unsigned long long chunks = (unsigned long long)((vecs + CHUNK - 1) / CHUNK);
    unsigned* claim = reinterpret_cast<unsigned*>(scratch + 4);
    __shared__ unsigned next[2];
    if (threadIdx.x == 0) next[0] = atomicAdd(claim, 1u);
    __syncthreads();
    double s = 0;
    for (int p = 0;; p ^= 1) {
        const unsigned c = next[p];
        if (c >= chunks) break;
        if (threadIdx.x == 0) next[p ^ 1] = atomicAdd(claim, 1u);
        const long long begin = (long long)c * CHUNK;
        const long long end = min(begin + CHUNK, vecs);
        if (DET) {
            double t = 0;
            fold_chunk(body, begin, end, t);
            t = block_reduce<B>(t, SumD());
            if (threadIdx.x == 0) __stcg(chunk_partials + c, t);
        } else {
            fold_chunk(body, begin, end, s);
        }
        __syncthreads();  // next[p ^ 1] visible; every thread read next[p] before it is reused
    }
    double total;
    if (DET) {
        total = 0;
    } else {
        total = block_reduce<B>(s, SumD());
    }
    if (!last_block_to_arrive(scratch, total)) return;
    if (threadIdx.x == 0) *claim = 0;  // every block has taken its last claim before its ticket
    double acc = 0;
    if (DET) {
        for (unsigned long long c = threadIdx.x; c < chunks; c += B) acc += __ldcg(chunk_partials + c);
    } else {
        const unsigned char* slots = scratch + ReducePolicyConstants::SCRATCH_HEADER_BYTES;
        for (unsigned b = threadIdx.x; b < gridDim.x; b += B) acc += load_partial<double>(slots, b);
    }
    acc = block_reduce<B>(acc, SumD());
    if (threadIdx.x == 0) *result = acc;
}

/** Static contiguous shares (whole stages; n a multiple of the stage here), streamed through a ring. */
template <int STAGE_KB, int R>
__global__ void __launch_bounds__(B) k_bulk(const float* in, long long n, double* result, unsigned char* scratch) {
    constexpr int STAGE_BYTES = STAGE_KB * 1024;
    constexpr int STAGE_VECS = STAGE_BYTES / 16;
    extern __shared__ __align__(128) unsigned char ring[];
    __shared__ unsigned long long bars[R];
    const long long stages = n * 4 / STAGE_BYTES;
    const long long share = (stages + gridDim.x - 1) / gridDim.x;
    const long long first = min((long long)blockIdx.x * share, stages), last = min(first + share, stages);
    if (threadIdx.x == 0) {
        for (int r = 0; r < R; ++r) bar_init(&bars[r]);
        for (int r = 0; r < R && first + r < last; ++r)
            bulk_load(ring + r * STAGE_BYTES, in + (first + r) * (STAGE_BYTES / 4), STAGE_BYTES, &bars[r]);
    }
    __syncthreads();
    double s = 0;
    for (long long st = first; st < last; ++st) {
        const int r = (int)((st - first) % R);
        const unsigned parity = (unsigned)(((st - first) / R) & 1);
        bar_wait(&bars[r], parity);
        const float4* v = reinterpret_cast<const float4*>(ring + r * STAGE_BYTES);
#pragma unroll 4
        for (int k = threadIdx.x; k < STAGE_VECS; k += B) {
            const float4 x = v[k];
            s += ((double)x.x + (double)x.y) + ((double)x.z + (double)x.w);
        }
        __syncthreads();  // every thread is done with stage r
        if (threadIdx.x == 0 && st + R < last)
            bulk_load(ring + r * STAGE_BYTES, in + (st + R) * (STAGE_BYTES / 4), STAGE_BYTES, &bars[r]);
    }
    const double total = block_reduce<B>(s, SumD());
    if (!last_block_to_arrive(scratch, total)) return;
    const unsigned char* slots = scratch + ReducePolicyConstants::SCRATCH_HEADER_BYTES;
    double acc = 0;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += B) acc += load_partial<double>(slots, b);
    acc = block_reduce<B>(acc, SumD());
    if (threadIdx.x == 0) *result = acc;
}

/**
 * TMA bulk stages claimed from the counter at scratch + 4 (a chunk = one stage): thread 0 claims a
 * stage's next chunk one refill ahead, records it beside the stage, and completes the stage's phase
 * without bytes when the chunks have run out. Each thread keeps one double: NOT deterministic.
 */
template <int STAGE_KB, int R>
__global__ void __launch_bounds__(B) k_bulk_dynamic(const float* in, long long n, double* result, unsigned char* scratch) {
    constexpr int STAGE_BYTES = STAGE_KB * 1024;
    constexpr int STAGE_VECS = STAGE_BYTES / 16;
    constexpr unsigned NONE = 0xffffffffu;
    extern __shared__ __align__(128) unsigned char ring[];
    __shared__ unsigned long long bars[R];
    __shared__ unsigned stage_chunk[R];
    const unsigned chunks = (unsigned)(n * 4 / STAGE_BYTES);
    unsigned* claim = reinterpret_cast<unsigned*>(scratch + 4);
    unsigned ahead = 0;  // thread 0: the chunk claimed for the next refill
    auto refill = [&](int r, unsigned c) {  // thread 0 only
        if (c < chunks) {
            stage_chunk[r] = c;
            bulk_load(ring + r * STAGE_BYTES, in + (long long)c * (STAGE_BYTES / 4), STAGE_BYTES, &bars[r]);
        } else {
            stage_chunk[r] = NONE;
            asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_addr(&bars[r])) : "memory");
        }
    };
    if (threadIdx.x == 0) {
        for (int r = 0; r < R; ++r) bar_init(&bars[r]);
        for (int r = 0; r < R; ++r) refill(r, atomicAdd(claim, 1u));
        ahead = atomicAdd(claim, 1u);
    }
    __syncthreads();
    double s = 0;
    for (long long k = 0;; ++k) {
        const int r = (int)(k % R);
        bar_wait(&bars[r], (unsigned)((k / R) & 1));
        if (stage_chunk[r] == NONE) break;
        const float4* v = reinterpret_cast<const float4*>(ring + r * STAGE_BYTES);
#pragma unroll 4
        for (int i = threadIdx.x; i < STAGE_VECS; i += B) {
            const float4 x = v[i];
            s += ((double)x.x + (double)x.y) + ((double)x.z + (double)x.w);
        }
        __syncthreads();  // every thread is done with stage r (and has read stage_chunk[r])
        if (threadIdx.x == 0) {
            refill(r, ahead);
            ahead = ahead < chunks ? atomicAdd(claim, 1u) : NONE;
        }
    }
    const double total = block_reduce<B>(s, SumD());
    if (!last_block_to_arrive(scratch, total)) return;
    if (threadIdx.x == 0) *claim = 0;
    const unsigned char* slots = scratch + ReducePolicyConstants::SCRATCH_HEADER_BYTES;
    double acc = 0;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += B) acc += load_partial<double>(slots, b);
    acc = block_reduce<B>(acc, SumD());
    if (threadIdx.x == 0) *result = acc;
}

static int sms;
static float* din;
static double* dres;
static unsigned char* scratch;
static double* dchunks;
static std::vector<long double> prefix;  // prefix[k]: sum of the first k * 2^20 floats

template <typename K>
static int blocks_per_sm(K kernel, size_t smem) {
    int occ;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kernel, B, smem));
    return occ;
}

/** Single launches between events (bench method) and 20 back to back; checks the last result. */
template <typename F>
static void measure(const char* name, int grid, long long n, F launch, double* first_bits = nullptr) {
    CK(cudaMemset(dres, 0xff, 8));
    const double single = time_ms(launch, 20, 60);
    static cudaEvent_t e0 = nullptr, e1 = nullptr;
    if (!e0) { CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1)); }
    std::vector<float> runs;
    for (int r = 0; r < 7; ++r) {
        CK(cudaEventRecord(e0));
        for (int i = 0; i < 20; ++i) launch();
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        runs.push_back(ms / 20);
    }
    CK(cudaGetLastError());
    std::sort(runs.begin(), runs.end());
    double got;
    CK(cudaMemcpy(&got, dres, 8, cudaMemcpyDeviceToHost));
    const double want = (double)prefix[n >> 20];
    const double rel = std::fabs(got - want) / std::max(1.0, std::fabs(want));
    printf("%-16s grid %5d n 2^%d: single %.4f ms %7.1f GB/s | back to back %.4f ms %7.1f GB/s | %s rel %.1e bits %016llx\n",
           name, grid, (int)std::log2((double)n), single, 4.0 * n / single / 1e6, runs[3], 4.0 * n / runs[3] / 1e6,
           rel < 1e-9 ? "ok" : "WRONG", rel, *(unsigned long long*)&got);
    fflush(stdout);
}

template <int C, bool DET>
static void dynamic(const char* name, long long n) {
    auto k = k_dynamic<C, DET>;
    const int grid = sms * blocks_per_sm(k, 0);
    measure(name, grid, n, [&]() { k<<<grid, B>>>(din, n, dres, scratch, dchunks); });
}

/** A ring kernel (k_bulk or k_bulk_dynamic) with R stages of STAGE_KB, at most per_sm_cap blocks per SM. */
template <int STAGE_KB, int R, typename K>
static void ring(const char* name, long long n, int per_sm_cap, K k) {
    const size_t smem = (size_t)STAGE_KB * 1024 * R;
    CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    const int per_sm = std::min(per_sm_cap, blocks_per_sm(k, smem));
    const int grid = sms * per_sm;
    measure(name, grid, n, [&]() { k<<<grid, B, smem>>>(din, n, dres, scratch); });
}

int main(int argc, char** argv) {
    const char* only = argc > 1 ? argv[1] : nullptr;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const long long N = 1LL << 29;
    std::vector<float> h(N);
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> u(-1, 1);
    for (auto& v : h) v = u(rng);
    prefix.assign((N >> 20) + 1, 0.0L);
    long double acc = 0;
    for (long long i = 0; i < N; ++i) {
        acc += h[i];
        if (((i + 1) & ((1 << 20) - 1)) == 0) prefix[(i + 1) >> 20] = acc;
    }
    CK(cudaMalloc(&din, N * 4));
    CK(cudaMemcpy(din, h.data(), N * 4, cudaMemcpyHostToDevice));
    CK(cudaMalloc(&dres, 8));
    CK(cudaMalloc(&scratch, 16 + 16 * 8192));
    CK(cudaMemset(scratch, 0, 16 + 16 * 8192));
    CK(cudaMalloc(&dchunks, 8 * (N / 4 / TILE_VECS + 1)));
    printf("%d SMs; production %d blocks per SM\n", sms, blocks_per_sm(k_production, 0));

    for (int pass = 0; pass < 2; ++pass) {
        for (long long n : {1LL << 28, 1LL << 29}) {
            const int grid = sms * blocks_per_sm(k_production, 0);
            if (selected(only, "production")) measure("production", grid, n, [&]() { k_production<<<grid, B>>>(din, n, dres, scratch); });
            if (selected(only, "dyn_nd_1")) dynamic<1, false>("dyn_nd_1", n);
            if (selected(only, "dyn_nd_2")) dynamic<2, false>("dyn_nd_2", n);
            if (selected(only, "dyn_nd_4")) dynamic<4, false>("dyn_nd_4", n);
            if (selected(only, "dyn_nd_8")) dynamic<8, false>("dyn_nd_8", n);
            if (selected(only, "dyn_det_1")) dynamic<1, true>("dyn_det_1", n);
            if (selected(only, "dyn_det_4")) dynamic<4, true>("dyn_det_4", n);
            if (selected(only, "dyn_det_16")) dynamic<16, true>("dyn_det_16", n);
#define BULK(S, R, P) if (selected(only, "bulk_" #S "x" #R "_" #P)) ring<S, R>("bulk_" #S "x" #R "_" #P, n, P, k_bulk<S, R>);
#define BULKD(S, R, P) if (selected(only, "bulkdyn_" #S "x" #R "_" #P)) ring<S, R>("bulkdyn_" #S "x" #R "_" #P, n, P, k_bulk_dynamic<S, R>);
            BULK(16, 4, 3) BULK(32, 3, 2) BULK(32, 2, 3) BULK(16, 6, 2) BULK(8, 12, 2) BULK(16, 12, 1) BULK(32, 6, 1) BULK(64, 3, 1)
            BULKD(16, 4, 3) BULKD(32, 3, 2) BULKD(32, 2, 3) BULKD(16, 6, 2) BULKD(8, 12, 2) BULKD(16, 12, 1) BULKD(32, 6, 1) BULKD(8, 8, 3)
        }
    }
    return 0;
}
