// Where the segmented reduce's one launch (device/segmented_reduce/one_launch.cuh) spends its time
// on small inputs: the production kernel timed with CUDA events, beside a copy of it that stamps
// %globaltimer (and clock64) at each phase's end in thread 0 of every block, an empty cooperative
// kernel and one of the two grid barriers alone. float32 SUM over power-law and uniform 1-8
// lengths, 2^16 to 2^20 values, a block per tile (one wave); every output checked against a host
// fold. Design measurements; a standalone harness, not built by Maven (README.md).
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -I primer-core/src/main/cuda -o .lab/one_launch_lab bench/lab/one_launch_lab.cu
#include "device/segmented_reduce/one_launch.cuh"
#include "lab_segments.cuh"

namespace {

constexpr int ITEMS = seg::merge_path_items<float>();
constexpr long long TILE = (long long)BLOCK * ITEMS;
constexpr int STAMPS = 14;  // 0-7: the phases; 8-13: inside the tile (tile_timed)

__device__ __forceinline__ unsigned long long global_now() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/** Thread 0 stamps phase k of its block, after the whole block got there. */
__device__ __forceinline__ void stamp(unsigned long long* stamps, int k) {
    __syncthreads();
    if (threadIdx.x == 0) {
        stamps[(blockIdx.x * STAMPS + k) * 2] = global_now();
        stamps[(blockIdx.x * STAMPS + k) * 2 + 1] = clock64();
    }
}


/**
 * merge_path_tile (segmented_reduce_merge_path.cuh) with stamps 8-13 between its steps; ROLLED: the
 * walk as a loop of count steps instead of ITEMS unrolled ones (less code to fetch in a one-shot kernel).
 */
template <bool ROLLED>
__device__ __forceinline__ void tile_timed(const float* __restrict__ in, const long long* __restrict__ offsets,
                                           long long nseg, long long in_length, long long tiles, long long t,
                                           float* __restrict__ out, unsigned char* __restrict__ scratch,
                                           unsigned long long* stamps) {
    using namespace primer::segmented;
    using Rc = SumF32;
    using T = float;
    using A = double;
    using Op = primer::Sum<double>;
    constexpr int TILE_I = BLOCK * ITEMS;
    __shared__ MergePathStorage<Rc, BLOCK, ITEMS> smem;
    Op op;
    const int tid = threadIdx.x;
    FlatRange range;
    MergePathSpan span;
    stamp(stamps, 8);
    const bool any = merge_path_span<TILE_I>(offsets, nseg, in_length, t, scratch, range, span);
    stamp(stamps, 9);
    if (!any) return;
    const long long i0 = span.i0, j0 = span.j0;
    const int na = span.na, nb = span.nb;
    const long long first_value = range.base + j0;
    const T* tile_values = in + first_value;
    for (int k = tid; k < nb; k += BLOCK) copy_async(&smem.values[k], tile_values + k);
    asm volatile("cp.async.commit_group;" ::: "memory");
    constexpr int ROUNDS = 4;
    for (int k0 = 0; k0 <= na; k0 += ROUNDS * BLOCK) {
        long long offset[ROUNDS];
#pragma unroll
        for (int r = 0; r < ROUNDS; ++r) {
            const int k = k0 + r * BLOCK + tid;
            offset[r] = k <= na ? __ldg(offsets + i0 + k) : 0;
        }
#pragma unroll
        for (int r = 0; r < ROUNDS; ++r) {
            const int k = k0 + r * BLOCK + tid;
            if (k <= na) {
                const long long local = (long long)((unsigned long long)offset[r] - (unsigned long long)first_value);
                smem.bounds[k] = (unsigned short)(local < 0 ? 0 : local > nb ? nb : local);
                if (k == 0) smem.first_start = range.clamp(offset[r]);
            }
        }
    }
    asm volatile("cp.async.wait_all;" ::: "memory");
    stamp(stamps, 10);
    const int k_begin = tid * ITEMS < na + nb ? tid * ITEMS : na + nb;
    const int count = (k_begin + ITEMS < na + nb ? k_begin + ITEMS : na + nb) - k_begin;
    int lo = k_begin - nb > 0 ? k_begin - nb : 0, hi = k_begin < na ? k_begin : na;
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if ((int)smem.bounds[mid + 1] + mid + 1 <= k_begin) lo = mid + 1;
        else hi = mid;
    }
    stamp(stamps, 11);
    int ia = lo, jb = k_begin - lo;
    const int first_closed = ia;
    int end = ia < na ? (int)smem.bounds[ia + 1] : nb + 1;
    bool closed = false;
    A first_partial = Op::identity();
    A acc = Op::identity();
    unsigned long long* flag = overflow_flag(scratch);
    float* tile_out = out + i0;
    auto walk = [&]() {
        if (end <= jb) {
            if (closed) tile_out[ia] = finish<Rc>(acc, i0 + ia, flag);
            else first_partial = acc;
            closed = true;
            acc = Op::identity();
            ++ia;
            end = ia < na ? (int)smem.bounds[ia + 1] : nb + 1;
        } else {
            acc = op(acc, primer::Lift<T, A>::apply(smem.values[jb < nb ? jb : 0], jb));
            ++jb;
        }
    };
    if constexpr (ROLLED) {
#pragma unroll 1
        for (int step = 0; step < count; ++step) walk();
    } else {
#pragma unroll
        for (int step = 0; step < ITEMS; ++step)
            if (step < count) walk();
    }
    stamp(stamps, 12);
    merge_path_tile_end<Rc, BLOCK>(acc, closed, first_partial, first_closed, smem.first_start, j0, i0, t, tiles,
                                   smem.scan, scratch, tile_out);
    stamp(stamps, 13);
}

__global__ void __launch_bounds__(BLOCK, 3) k_one(const float* in, const long long* offsets, long long nseg,
                                                  long long n, long long tiles, float* out, unsigned char* scratch,
                                                  unsigned long long* verdict) {
    seg::merge_path_one_launch<SumF32, BLOCK, ITEMS>(in, offsets, nseg, n, tiles, out, scratch, verdict);
}

/** merge_path_one_launch with stamps (one tile per block: grid = tiles). */
template <bool ROLLED>
__global__ void __launch_bounds__(BLOCK, 3) k_one_timed(const float* in, const long long* offsets, long long nseg,
                                                        long long n, long long tiles, float* out,
                                                        unsigned char* scratch, unsigned long long* verdict,
                                                        unsigned long long* stamps) {
    using namespace primer::segmented;
    unsigned long long* arrivals = grid_arrivals_word(scratch);
    stamp(stamps, 0);
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        long long begin, end;
        check_offset_ends(offsets, nseg, n, scratch, begin, end);
    }
    check_offset_pairs<false>(offsets, nseg, scratch);
    stamp(stamps, 1);
    constexpr int WARPS = BLOCK / 32;
    for (long long t = (long long)blockIdx.x * WARPS + (threadIdx.x >> 5); t <= tiles; t += (long long)gridDim.x * WARPS)
        merge_path_partition_warp(offsets, nseg, n, TILE, t, scratch);
    stamp(stamps, 2);
    primer::grid_barrier(arrivals, 1);
    stamp(stamps, 3);
    tile_timed<ROLLED>(in, offsets, nseg, n, tiles, blockIdx.x, out, scratch, stamps);
    stamp(stamps, 4);
    primer::grid_barrier(arrivals, 2);
    stamp(stamps, 5);
    for (long long first = (long long)blockIdx.x * WARPS; first < tiles; first += (long long)gridDim.x * WARPS) {
        if (first != (long long)blockIdx.x * WARPS) __syncthreads();
        merge_path_fixup<SumF32, BLOCK>(offsets, nseg, n, TILE, tiles, first, out, scratch);
    }
    stamp(stamps, 6);
    if (primer::grid_depart(arrivals, 2) && threadIdx.x == 0) {
        verdict[0] = (unsigned long long)offsets[0];
        verdict[1] = (unsigned long long)offsets[nseg];
        verdict[2] = *first_decrease(scratch);
        verdict[3] = *overflow_flag(scratch);
        *malformed_flags(scratch) = 0;
        *first_decrease(scratch) = 0;
        *overflow_flag(scratch) = 0;
    }
    stamp(stamps, 7);
}

template <typename K, typename... Args>
void coop(K kernel, long long grid, Args... args) {
    void* params[] = {(void*)&args...};
    CK(cudaLaunchCooperativeKernel((void*)kernel, dim3((unsigned)grid), dim3(BLOCK), params, 0, 0));
}

template <int IPT>
__global__ void __launch_bounds__(BLOCK, 3) k_one_items(const float* in, const long long* offsets, long long nseg,
                                                        long long n, long long tiles, float* out, unsigned char* scratch,
                                                        unsigned long long* verdict) {
    seg::merge_path_one_launch<SumF32, BLOCK, IPT>(in, offsets, nseg, n, tiles, out, scratch, verdict);
}

/** The production one launch with IPT merge steps per thread: smaller tiles, more of them, shorter walks. */
template <int IPT>
void items_row(const char* name, const std::vector<long long>& offsets, const std::vector<float>& host, const float* din,
               unsigned char* scratch, unsigned long long* verdict) {
    const long long nseg = (long long)offsets.size() - 1, n = offsets.back();
    const long long tiles = (n + nseg + (long long)BLOCK * IPT - 1) / ((long long)BLOCK * IPT);
    int occ, sms_here;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k_one_items<IPT>, BLOCK, 0));
    CK(cudaDeviceGetAttribute(&sms_here, cudaDevAttrMultiProcessorCount, 0));
    const long long grid = std::min<long long>(tiles, (long long)occ * sms_here);
    long long* doff;
    float* dout;
    CK(cudaMalloc(&doff, 8 * (nseg + 1)));
    CK(cudaMalloc(&dout, 4 * nseg));
    CK(cudaMemcpy(doff, offsets.data(), 8 * (nseg + 1), cudaMemcpyHostToDevice));
    CK(cudaMemset(dout, 0xff, 4 * nseg));
    const double ms = time_ms([&] { coop(k_one_items<IPT>, grid, din, (const long long*)doff, nseg, n, tiles, dout, scratch, verdict); }, 50, 400);
    std::vector<float> got(nseg);
    CK(cudaMemcpy(got.data(), dout, 4 * nseg, cudaMemcpyDeviceToHost));
    long long bad = 0;
    for (long long s = 0; s < nseg; ++s) bad += !HostRef<SumF32>::ok(host.data(), offsets[s], offsets[s + 1], got[s]);
    printf("| %s | items %d | tiles %lld | grid %lld (occ %d) | %.2f us | %s |\n", name, IPT, tiles, grid, occ, ms * 1e3, bad ? "FAILED" : "ok");
    fflush(stdout);
    CK(cudaFree(doff));
    CK(cudaFree(dout));
}

__global__ void __launch_bounds__(BLOCK, 3) k_empty(unsigned long long* verdict) {
    if (blockIdx.x == 0 && threadIdx.x == 0) verdict[0] = 1;
}

__global__ void __launch_bounds__(BLOCK, 3) k_barriers(unsigned char* scratch, unsigned long long* verdict) {
    unsigned long long* arrivals = seg::grid_arrivals_word(scratch);
    primer::grid_barrier(arrivals, 1);
    primer::grid_barrier(arrivals, 2);
    if (primer::grid_depart(arrivals, 2) && threadIdx.x == 0) verdict[0] = 1;
}

__global__ void __launch_bounds__(BLOCK, 3) k_one_barrier(unsigned char* scratch, unsigned long long* verdict) {
    unsigned long long* arrivals = seg::grid_arrivals_word(scratch);
    primer::grid_barrier(arrivals, 1);
    if (primer::grid_depart(arrivals, 1) && threadIdx.x == 0) verdict[0] = 1;
}

void print_stamps(const char* what, long long tiles, const unsigned long long* dstamps);

void row(const char* name, const std::vector<long long>& offsets, const std::vector<float>& host, const float* din,
         unsigned char* scratch, unsigned long long* verdict, unsigned long long* dstamps) {
    const long long nseg = (long long)offsets.size() - 1, n = offsets.back();
    const long long tiles = (n + nseg + TILE - 1) / TILE;
    long long* doff;
    float* dout;
    CK(cudaMalloc(&doff, 8 * (nseg + 1)));
    CK(cudaMalloc(&dout, 4 * nseg));
    CK(cudaMemcpy(doff, offsets.data(), 8 * (nseg + 1), cudaMemcpyHostToDevice));
    CK(cudaMemset(dout, 0xff, 4 * nseg));
    const double one = time_ms([&] { coop(k_one, tiles, din, (const long long*)doff, nseg, n, tiles, dout, scratch, verdict); }, 50, 400);
    std::vector<float> got(nseg);
    CK(cudaMemcpy(got.data(), dout, 4 * nseg, cudaMemcpyDeviceToHost));
    long long bad = 0;
    for (long long s = 0; s < nseg; ++s) bad += !HostRef<SumF32>::ok(host.data(), offsets[s], offsets[s + 1], got[s]);
    CK(cudaMemset(dout, 0xff, 4 * nseg));
    const double timed_rolled = time_ms([&] { coop(k_one_timed<true>, tiles, din, (const long long*)doff, nseg, n, tiles, dout, scratch, verdict, dstamps); }, 50, 400);
    CK(cudaMemcpy(got.data(), dout, 4 * nseg, cudaMemcpyDeviceToHost));
    for (long long s = 0; s < nseg; ++s) bad += !HostRef<SumF32>::ok(host.data(), offsets[s], offsets[s + 1], got[s]);
    print_stamps("rolled walk", tiles, dstamps);
    CK(cudaMemset(dout, 0xff, 4 * nseg));
    const double timed = time_ms([&] { coop(k_one_timed<false>, tiles, din, (const long long*)doff, nseg, n, tiles, dout, scratch, verdict, dstamps); }, 50, 400);
    CK(cudaMemcpy(got.data(), dout, 4 * nseg, cudaMemcpyDeviceToHost));
    for (long long s = 0; s < nseg; ++s) bad += !HostRef<SumF32>::ok(host.data(), offsets[s], offsets[s + 1], got[s]);
    const double empty = time_ms([&] { coop(k_empty, tiles, verdict); }, 50, 400);
    const double barriers = time_ms([&] { coop(k_barriers, tiles, scratch, verdict); }, 50, 400);
    const double barrier1 = time_ms([&] { coop(k_one_barrier, tiles, scratch, verdict); }, 50, 400);
    printf("| %s | %lld | %lld | %lld | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %s |\n", name, n, nseg, tiles, one * 1e3,
           timed * 1e3, timed_rolled * 1e3, empty * 1e3, barrier1 * 1e3, barriers * 1e3, bad ? "FAILED" : "ok");
    print_stamps("unrolled walk", tiles, dstamps);
    fflush(stdout);
    CK(cudaFree(doff));
    CK(cudaFree(dout));
}

/** The last timed launch's stamps: each phase's end, relative to the first block's start. */
void print_stamps(const char* what, long long tiles, const unsigned long long* dstamps) {
    std::vector<unsigned long long> s(tiles * STAMPS * 2);
    CK(cudaMemcpy(s.data(), dstamps, 8 * s.size(), cudaMemcpyDeviceToHost));
    unsigned long long t0 = ~0ull;
    for (long long b = 0; b < tiles; ++b) t0 = std::min(t0, s[(b * STAMPS) * 2]);
    printf("|   %s: stamps (us after the first block's start; min / median / max over blocks; cycles since the block's start, median) |", what);
    for (int k = 0; k < STAMPS; ++k) {
        std::vector<double> at, cyc;
        for (long long b = 0; b < tiles; ++b) {
            at.push_back((s[(b * STAMPS + k) * 2] - t0) / 1e3);
            cyc.push_back((double)(s[(b * STAMPS + k) * 2 + 1] - s[(b * STAMPS) * 2 + 1]));
        }
        std::sort(at.begin(), at.end());
        std::sort(cyc.begin(), cyc.end());
        printf(" %d: %.2f/%.2f/%.2f (%.0f) |", k, at.front(), at[at.size() / 2], at.back(), cyc[cyc.size() / 2]);
    }
    printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
    const char* only = argc > 1 ? argv[1] : nullptr;
    const long long n_max = 1LL << 20;
    std::mt19937_64 rng(11);
    std::vector<float> hf(n_max);
    for (auto& v : hf) v = (float)((double)(rng() >> 11) / 9007199254740992.0 * 2 - 1);
    float* df;
    unsigned char* scratch;
    unsigned long long *verdict, *dstamps;
    CK(cudaMalloc(&df, n_max * 4));
    CK(cudaMemcpy(df, hf.data(), n_max * 4, cudaMemcpyHostToDevice));
    CK(cudaMalloc(&scratch, 1 << 20));
    CK(cudaMemset(scratch, 0, 1 << 20));
    CK(cudaHostAlloc(&verdict, 64, cudaHostAllocMapped));
    CK(cudaMalloc(&dstamps, 8 * 2 * STAMPS * 4096));
    printf("| lengths | values | segments | tiles | one launch us | timed copy us | timed, rolled walk us | empty us | one barrier us | two barriers us | check |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int log2 : {16, 18, 20}) {
        const long long n = 1LL << log2;
        char name[64];
        snprintf(name, sizeof name, "powerlaw 2^%d", log2);
        if (selected(only, name)) row(name, powerlaw_offsets(n, 0.0, log2), hf, df, scratch, verdict, dstamps);
        snprintf(name, sizeof name, "uniform8 2^%d", log2);
        if (selected(only, name)) row(name, uniform_offsets(n, 1, 8, log2), hf, df, scratch, verdict, dstamps);
    }
    for (int log2 : {16, 17, 18, 19, 20}) {
        const long long n = 1LL << log2;
        for (int d = 0; d < 2; ++d) {
            char name[64];
            snprintf(name, sizeof name, "%s 2^%d", d ? "uniform8" : "powerlaw", log2);
            if (!selected(only, name) && !selected(only, "items")) continue;
            const std::vector<long long> off = d ? uniform_offsets(n, 1, 8, log2) : powerlaw_offsets(n, 0.0, log2);
            items_row<23>(name, off, hf, df, scratch, verdict);
            items_row<16>(name, off, hf, df, scratch, verdict);
            items_row<12>(name, off, hf, df, scratch, verdict);
            items_row<8>(name, off, hf, df, scratch, verdict);
            items_row<6>(name, off, hf, df, scratch, verdict);
            items_row<4>(name, off, hf, df, scratch, verdict);
            items_row<2>(name, off, hf, df, scratch, verdict);
            items_row<1>(name, off, hf, df, scratch, verdict);
        }
    }
    printf("done\n");
    return 0;
}
