// Where the segmented reduce's one launch (device/segmented_reduce/one_launch.cuh) spends its time
// on small inputs, float32 SUM over power-law and uniform 1-8 lengths, 2^16 to 2^21 values, every
// output checked against a host fold:
//   - the production kernel timed with CUDA events at the items per thread the host picks
//     (SegmentedReducePolicy.oneLaunchItems, mirrored here) and at others, a block per tile;
//   - a copy of it that stamps %globaltimer (and clock64) at each step's end in thread 0 of every
//     block, beside an empty cooperative kernel and a grid barrier alone.
// Step 58's kernel (phases with a barrier between each, 23 steps per thread) was measured by this
// lab as committed in cda3f9f, against that commit's headers: bench/results/2026-11-24-nvidia-h200-step59-one-launch.md.
// Design measurements; a standalone harness, not built by Maven (README.md).
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -I primer-core/src/main/cuda -o .lab/one_launch_lab bench/lab/one_launch_lab.cu
#include "device/segmented_reduce/one_launch.cuh"
#include "lab_segments.cuh"

namespace {

constexpr int ITEMS = seg::merge_path_items<float>();
constexpr int STAMPS = 8;
constexpr int MIN_ITEMS = 4;  // SegmentedReducePolicy.ONE_LAUNCH_MIN_ITEMS

__device__ __forceinline__ unsigned long long global_now() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/** Thread 0 stamps step k of its block, after the whole block got there. */
__device__ __forceinline__ void stamp(unsigned long long* stamps, int k) {
    __syncthreads();
    if (threadIdx.x == 0) {
        stamps[(blockIdx.x * STAMPS + k) * 2] = global_now();
        stamps[(blockIdx.x * STAMPS + k) * 2 + 1] = clock64();
    }
}

__global__ void __launch_bounds__(BLOCK, 3) k_one(const float* in, const long long* offsets, long long nseg,
                                                  long long n, int items, float* out, unsigned char* scratch,
                                                  unsigned long long* verdict) {
    seg::merge_path_one_launch<SumF32, BLOCK, ITEMS>(in, offsets, nseg, n, items, out, scratch, verdict);
}

/**
 * merge_path_one_launch with stamps: 0 start, 1 boundaries searched and offsets checked, 2 tile
 * staged, 3 open partial published, 4 past the barrier, 5 earlier partials folded, 6 tile walked
 * and written, 7 departed.
 */
__global__ void __launch_bounds__(BLOCK, 3) k_one_timed(const float* in, const long long* offsets, long long nseg,
                                                        long long in_length, int items, float* out,
                                                        unsigned char* scratch, unsigned long long* verdict,
                                                        unsigned long long* stamps) {
    using namespace primer::segmented;
    using Rc = SumF32;
    using A = double;
    using Op = primer::Sum<double>;
    constexpr int SEARCHERS = 2;
    __shared__ MergePathStorage<Rc, BLOCK, ITEMS> smem;
    __shared__ long long splits[SEARCHERS];
    __shared__ A earlier;
    __shared__ A first_part;
    Op op;
    const long long t = blockIdx.x, tiles = gridDim.x, tile_items = (long long)BLOCK * items;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    unsigned long long* arrivals = grid_arrivals_word(scratch);
    stamp(stamps, 0);
    FlatRange range;
    const bool ends_ok = read_flat_range(offsets, nseg, in_length, range);
    if (warp < SEARCHERS) {
        const long long split = ends_ok ? merge_path_search_warp(offsets, nseg, range, tile_items, t + warp) : 0;
        if (lane == 0) splits[warp] = split;
    } else {
        const long long checker = threadIdx.x - 32 * SEARCHERS, checkers = BLOCK - 32 * SEARCHERS;
        if (t == 0 && checker == 0) {
            long long begin, end;
            check_offset_ends(offsets, nseg, in_length, scratch, begin, end);
        }
        check_offset_pairs<false>(offsets, nseg, scratch, t * checkers + checker, tiles * checkers);
    }
    stamp(stamps, 1);
    MergePathSpan span;
    const bool has_tile = ends_ok && merge_path_span_of(range, nseg, tile_items, t, splits[0], splits[1], span);
    if (has_tile) merge_path_stage<Rc, BLOCK, ITEMS>(in, offsets, range, span, smem);
    stamp(stamps, 2);
    if (has_tile) {
        const A open = merge_path_open_fold<Rc, BLOCK, ITEMS>(span, smem);
        if (threadIdx.x == 0) *merge_path_open_slot<A>(scratch, tiles, t) = open;
    }
    stamp(stamps, 3);
    primer::grid_barrier(arrivals, 1);
    stamp(stamps, 4);
    const bool refused = offsets_refused(scratch);
    const long long s = has_tile ? span.i0 : 0, start = smem.first_start;
    const bool continues = has_tile && span.na > 0 && start < span.j0;
    if (continues && warp == 0) {
        const long long from = s == 0 ? 0 : (start + s - 1) / tile_items;
        const long long per_lane = (t - from + 31) / 32, run = from + lane * per_lane;
        A acc = fold_open_partials<A>(scratch, tiles, run < t ? run : t, run + per_lane < t ? run + per_lane : t, op);
        acc = primer::warp_reduce_ordered(acc, op);
        if (lane == 0) earlier = acc;
    }
    stamp(stamps, 5);
    if (has_tile && !refused) {
        merge_path_walk<Rc, BLOCK, ITEMS>(items, span, smem, &first_part, nullptr, out, scratch);
        if (continues) {
            __syncthreads();
            if (threadIdx.x == 0) out[s] = finish<Rc>(op(earlier, first_part), s, overflow_flag(scratch));
        }
    }
    stamp(stamps, 6);
    if (primer::grid_depart(arrivals, 1) && threadIdx.x == 0) {
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

__global__ void __launch_bounds__(BLOCK, 3) k_empty(unsigned long long* verdict) {
    if (blockIdx.x == 0 && threadIdx.x == 0) verdict[0] = 1;
}

__global__ void __launch_bounds__(BLOCK, 3) k_one_barrier(unsigned char* scratch, unsigned long long* verdict) {
    unsigned long long* arrivals = seg::grid_arrivals_word(scratch);
    primer::grid_barrier(arrivals, 1);
    if (primer::grid_depart(arrivals, 1) && threadIdx.x == 0) verdict[0] = 1;
}

template <typename K, typename... Args>
void coop(K kernel, long long grid, Args... args) {
    void* params[] = {(void*)&args...};
    CK(cudaLaunchCooperativeKernel((void*)kernel, dim3((unsigned)grid), dim3(BLOCK), params, 0, 0));
}

int sms_here, wave;

/** The host's choice (SegmentedReducePolicy.oneLaunchItems): about a tile per SM, at least MIN_ITEMS steps per thread. */
int policy_items(long long steps) {
    const long long per_sm = (steps + (long long)sms_here * BLOCK - 1) / ((long long)sms_here * BLOCK);
    return (int)std::min<long long>(ITEMS, std::max<long long>(MIN_ITEMS, per_sm));
}

struct Case {
    std::string name;
    std::vector<long long> offsets;
    long long* doff;
    float* dout;
    long long nseg() const { return (long long)offsets.size() - 1; }
    long long n() const { return offsets.back(); }
};

long long bad_segments(const Case& c, const std::vector<float>& host) {
    std::vector<float> got(c.nseg());
    CK(cudaMemcpy(got.data(), c.dout, 4 * c.nseg(), cudaMemcpyDeviceToHost));
    long long bad = 0;
    for (long long s = 0; s < c.nseg(); ++s) bad += !HostRef<SumF32>::ok(host.data(), c.offsets[s], c.offsets[s + 1], got[s]);
    return bad;
}

void print_stamps(const char* what, long long tiles, const unsigned long long* dstamps) {
    std::vector<unsigned long long> s(tiles * STAMPS * 2);
    CK(cudaMemcpy(s.data(), dstamps, 8 * s.size(), cudaMemcpyDeviceToHost));
    unsigned long long t0 = ~0ull;
    for (long long b = 0; b < tiles; ++b) t0 = std::min(t0, s[(b * STAMPS) * 2]);
    printf("| %s | stamps: us after the first block's start, min / median / max over blocks (median cycles since the block's start) |", what);
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

/** The one launch at `items` steps per thread: median us of 400 launches, and whether every segment matched. */
void items_row(const Case& c, int items, bool picked, const std::vector<float>& host, const float* din,
               unsigned char* scratch, unsigned long long* verdict) {
    const long long tiles = (c.n() + c.nseg() + (long long)BLOCK * items - 1) / ((long long)BLOCK * items);
    if (tiles > wave) return;  // one tile per block: the host takes another path
    CK(cudaMemset(c.dout, 0xff, 4 * c.nseg()));
    const double ms = time_ms([&] { coop(k_one, tiles, din, (const long long*)c.doff, c.nseg(), c.n(), items, c.dout, scratch, verdict); }, 50, 400);
    printf("| %s | %lld | %d%s | %lld | %.2f | %s |\n", c.name.c_str(), c.nseg(), items, picked ? " (host's)" : "", tiles,
           ms * 1e3, bad_segments(c, host) ? "FAILED" : "ok");
    fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
    const char* only = argc > 1 ? argv[1] : nullptr;
    const long long n_max = 1LL << 21;
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
    int occ, occ_timed;
    CK(cudaDeviceGetAttribute(&sms_here, cudaDevAttrMultiProcessorCount, 0));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k_one, BLOCK, 0));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ_timed, k_one_timed, BLOCK, 0));
    wave = occ * sms_here;
    const int wave_timed = occ_timed * sms_here;
    printf("one wave: %d blocks (%d per SM; the stamped copy %d)\n\n", wave, occ, occ_timed);
    std::vector<Case> cases;
    for (int log2 = 16; log2 <= 21; ++log2) {
        const long long n = 1LL << log2;
        cases.push_back({"powerlaw 2^" + std::to_string(log2), powerlaw_offsets(n, 0.0, log2), nullptr, nullptr});
        cases.push_back({"uniform8 2^" + std::to_string(log2), uniform_offsets(n, 1, 8, log2), nullptr, nullptr});
    }
    for (Case& c : cases) {
        CK(cudaMalloc(&c.doff, 8 * (c.nseg() + 1)));
        CK(cudaMalloc(&c.dout, 4 * c.nseg()));
        CK(cudaMemcpy(c.doff, c.offsets.data(), 8 * (c.nseg() + 1), cudaMemcpyHostToDevice));
    }
    printf("| lengths | segments | items per thread | tiles (blocks) | us (events, median of 400) | check |\n|---|---|---|---|---|---|\n");
    for (const Case& c : cases) {
        if (!selected(only, c.name.c_str())) continue;
        const int picked = policy_items(c.n() + c.nseg());
        for (int items : {1, 2, 4, 6, 8, 12, 16, 23})
            if (items >= picked || items == 1 || items == 2) items_row(c, items, items == picked, hf, df, scratch, verdict);
        if (picked != 1 && picked != 2 && picked != 4 && picked != 6 && picked != 8 && picked != 12 && picked != 16 && picked != 23)
            items_row(c, picked, true, hf, df, scratch, verdict);
    }
    printf("\n| lengths | items | tiles | one launch us | stamped copy us | empty us | one barrier us | check |\n|---|---|---|---|---|---|---|---|\n");
    for (const Case& c : cases) {
        if (!selected(only, c.name.c_str())) continue;
        const int items = policy_items(c.n() + c.nseg());
        const long long tiles = (c.n() + c.nseg() + (long long)BLOCK * items - 1) / ((long long)BLOCK * items);
        if (tiles > wave_timed) continue;
        CK(cudaMemset(c.dout, 0xff, 4 * c.nseg()));
        const double one = time_ms([&] { coop(k_one, tiles, df, (const long long*)c.doff, c.nseg(), c.n(), items, c.dout, scratch, verdict); }, 50, 400);
        long long bad = bad_segments(c, hf);
        CK(cudaMemset(c.dout, 0xff, 4 * c.nseg()));
        const double timed = time_ms([&] { coop(k_one_timed, tiles, df, (const long long*)c.doff, c.nseg(), c.n(), items, c.dout, scratch, verdict, dstamps); }, 50, 400);
        bad += bad_segments(c, hf);
        const double empty = time_ms([&] { coop(k_empty, tiles, verdict); }, 50, 400);
        const double barrier = time_ms([&] { coop(k_one_barrier, tiles, scratch, verdict); }, 50, 400);
        printf("| %s | %d | %lld | %.2f | %.2f | %.2f | %.2f | %s |\n", c.name.c_str(), items, tiles, one * 1e3, timed * 1e3,
               empty * 1e3, barrier * 1e3, bad ? "FAILED" : "ok");
        CK(cudaMemset(c.dout, 0xff, 4 * c.nseg()));
        coop(k_one_timed, tiles, df, (const long long*)c.doff, c.nseg(), c.n(), items, c.dout, scratch, verdict, dstamps);
        CK(cudaDeviceSynchronize());
        print_stamps(c.name.c_str(), tiles, dstamps);
    }
    printf("done\n");
    return 0;
}
