// Warp-specialised, pipelined single-pass scan lab. A persistent block owns a ring of STAGES tiles
// in shared memory and splits its warps by role, so a tile waiting for its look-back no longer
// holds the registers and the load slots of the tiles behind it:
//   loader (warp 0):   draws a ticket (the tile number) when a stage is free, copies the tile in
//                      with cp.async, and signals `full` when the copies land;
//   look-back warps:   the tile's exclusive prefix from its predecessors' status, publishes P, and
//                      the prefix of each segment of the tile (`prefixed`);
//   reducer warps:     each segment's total and the tile's aggregate A, published as soon as the
//                      data is there (`reduced`);
//   scanner groups:    warp w of a group scans segment w of the tile from its prefix and stores it
//                      (`empty` when the whole group is done).
// Member j of a role of `count` warps serves the stages i = j, j + count, ... (see Shape). After
// the last tile the loader puts an end marker in every stage; each member stops after one marker
// per stage it serves. Measured 2.7-5x slower than production (results in
// bench/results/2026-11-21-nvidia-h200-lab.md); kept as the starting point for that design.
// The reducer's fold assumes a commutative operator (the harness runs sums).
// Status words, epochs, tickets and the deterministic (left-fold) look-back are production's
// (device/scan_kernels.cuh). Build (sm_90: fence.mbarrier_init):
//   nvcc -std=c++17 -O3 -arch=sm_90 -I primer-core/src/main/cuda -o .lab/scan_pipe_lab bench/lab/scan_pipe_lab.cu
// Design measurements; a standalone harness, not built by Maven.
#include "device/scan_kernels.cuh"
#include "lab_common.cuh"
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <random>
#include <cmath>
#include <type_traits>

using namespace primer;

namespace pipe {

__device__ __forceinline__ unsigned smem(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void bar_init(unsigned long long* bar, unsigned count) {
    asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(smem(bar)), "r"(count) : "memory");
}
__device__ __forceinline__ void bar_arrive(unsigned long long* bar) {
    asm volatile("{\n\t.reg .b64 state;\n\tmbarrier.arrive.shared.b64 state, [%0];\n\t}" ::"r"(smem(bar)) : "memory");
}
/** Arrives when this thread's earlier cp.async copies have landed (counts as one of the expected arrivals). */
__device__ __forceinline__ void bar_arrive_copies(unsigned long long* bar) {
    asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];" ::"r"(smem(bar)) : "memory");
}
__device__ __forceinline__ void bar_wait(unsigned long long* bar, unsigned parity) {
    unsigned done;
    do {
        asm volatile("{\n\t.reg .pred p;\n\tmbarrier.test_wait.parity.shared.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done) : "r"(smem(bar)), "r"(parity) : "memory");
    } while (!done);
}

/**
 * Roles: 1 loader warp; LOOKBACKS look-back warps, REDUCERS reducer warps and GROUPS groups of
 * SEGMENTS scanner warps, role member j taking the stages i = j, j + count, ... (count divides
 * STAGES), so that several tiles of a block are reduced, looked back and scanned at once.
 */
template <typename InT, typename OutT, int STAGES, int SEGMENTS, int ROWS, int LOOKBACKS = 1, int REDUCERS = 1, int GROUPS = 1>
struct Shape {
    static_assert(STAGES % LOOKBACKS == 0 && STAGES % REDUCERS == 0 && STAGES % GROUPS == 0, "role counts divide STAGES");
    static constexpr int VEC = 16 / (int)sizeof(InT);
    static constexpr int SEGMENT_ITEMS = 32 * ROWS * VEC;
    static constexpr int TILE_ITEMS = SEGMENTS * SEGMENT_ITEMS;
    static constexpr int FIRST_REDUCER = 1 + LOOKBACKS, FIRST_SCANNER = FIRST_REDUCER + REDUCERS;
    static constexpr int THREADS = 32 * (FIRST_SCANNER + GROUPS * SEGMENTS);
    static_assert(THREADS <= 1024, "at most 1024 threads a block");
};

template <typename InT, typename Acc, int STAGES, int SEGMENTS, int TILE_ITEMS, int LOOKBACKS, bool ORDERED>
struct Storage {
    alignas(16) InT stage[STAGES][TILE_ITEMS];
    Acc segment_total[STAGES][SEGMENTS];
    Acc segment_prefix[STAGES][SEGMENTS];
    Acc aggregate[STAGES];
    long long tile[STAGES];
    unsigned long long full[STAGES], reduced[STAGES], prefixed[STAGES], empty[STAGES];
    LookbackStorage<Acc, ScanPolicyConstants::LOOKBACK_WINDOWS, ORDERED> lookback[LOOKBACKS];
};

template <typename InT, typename OutT, typename Op, int STAGES, int SEGMENTS, int ROWS, int LOOKBACKS, int REDUCERS, int GROUPS>
__device__ void scan_pipelined(const InT* in, OutT* out, long long n, long long tiles, long long init_bits, int inclusive,
                               unsigned char* scratch, unsigned epoch) {
    using S = Shape<InT, OutT, STAGES, SEGMENTS, ROWS, LOOKBACKS, REDUCERS, GROUPS>;
    constexpr int VEC = S::VEC, TILE_ITEMS = S::TILE_ITEMS, SEGMENT_ITEMS = S::SEGMENT_ITEMS;
    constexpr bool ORDERED = !TreeLookback<Op>::value;
    using Acc = OutT;
    extern __shared__ __align__(16) unsigned char dynamic_smem[];
    auto& s = *reinterpret_cast<Storage<InT, Acc, STAGES, SEGMENTS, TILE_ITEMS, LOOKBACKS, ORDERED>*>(dynamic_smem);
    const Op op{};
    const int lane = (int)lane_id(), warp = (int)(threadIdx.x / 32);
    const long long shift = scan_shift(in);
    unsigned* tile_counter = reinterpret_cast<unsigned*>(scratch);
    const TileStatus<Acc> status{reinterpret_cast<TileStatusSlot*>(scratch + ScanPolicyConstants::SCRATCH_HEADER_BYTES), epoch};

    if (threadIdx.x == 0) {
        for (int k = 0; k < STAGES; ++k) {
            bar_init(&s.full[k], 64);                 // 32 lanes' copies + 32 lanes' plain stores
            bar_init(&s.reduced[k], 1);
            bar_init(&s.prefixed[k], 1);
            bar_init(&s.empty[k], 32 * SEGMENTS);
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();

    if (warp == 0) {  // loader; after the last tile, one end marker per stage (every role member meets one)
        long long ends = 0;
        for (long long i = 0; ends < STAGES; ++i) {
            const int k = (int)(i % STAGES);          // the stage of the i-th tile through this block
            const unsigned round = (unsigned)(i / STAGES);  // how often the stage was used before: the barrier parity
            bar_wait(&s.empty[k], (round & 1u) ^ 1u);
            unsigned t = 0xffffffffu;
            if (ends == 0) {
                if (lane == 0) {
                    t = atomicAdd(tile_counter, 1u);
                    if (t == tiles + gridDim.x - 1) atomicExch(tile_counter, 0u);  // every block has drawn its last
                }
                t = __shfl_sync(0xffffffffu, t, 0);
            }
            const bool done = t >= tiles;
            ends += done;
            if (lane == 0) s.tile[k] = done ? -1 : (long long)t;
            if (!done) {
                const long long tile_start = (long long)t * TILE_ITEMS - shift;
                for (int c = lane; c < TILE_ITEMS / VEC; c += 32)
                    scan_detail::stage_chunk<VEC>(in, tile_start + (long long)c * VEC, n, &s.stage[k][c * VEC]);
            }
            bar_arrive_copies(&s.full[k]);
            bar_arrive(&s.full[k]);
        }
    } else if (warp < S::FIRST_REDUCER) {  // look-back
        const int j = warp - 1;
        const OutT init = scan_detail::from_bits<OutT>((unsigned long long)init_bits);
        int ends = 0;  // a member meets one end marker per stage it serves, then stops
        for (long long i = j;; i += LOOKBACKS) {
            const int k = (int)(i % STAGES);
            const unsigned round = (unsigned)(i / STAGES);
            bar_wait(&s.reduced[k], round & 1u);
            const long long tile = s.tile[k];
            if (tile >= 0) {
                const Acc aggregate = s.aggregate[k];
                Acc prefix;
                if (tile == 0) prefix = init;
                else if constexpr (ORDERED) prefix = lookback_ordered<ScanPolicyConstants::LOOKBACK_WINDOWS>(status, tile, op, s.lookback[j]);
                else prefix = lookback_tree(status, tile, op);
                if (lane == 0) status.publish(tile, TILE_PREFIX, op(prefix, aggregate));
                // Each segment's prefix: the tile's, then the segments before it, in order.
                const Acc total = lane < SEGMENTS ? s.segment_total[k][lane] : Op::identity();
                const Acc inclusive_totals = warp_inclusive_scan(total, op);
                const Acc left = warp_shfl_up(inclusive_totals, 1);
                if (lane < SEGMENTS) s.segment_prefix[k][lane] = lane == 0 ? prefix : op(prefix, left);
            }
            __syncwarp();
            if (lane == 0) bar_arrive(&s.prefixed[k]);
            if (tile < 0 && ++ends == STAGES / LOOKBACKS) return;
        }
    } else if (warp < S::FIRST_SCANNER) {  // reducer
        const int j = warp - S::FIRST_REDUCER;
        int ends = 0;
        for (long long i = j;; i += REDUCERS) {
            const int k = (int)(i % STAGES);
            const unsigned round = (unsigned)(i / STAGES);
            bar_wait(&s.full[k], round & 1u);
            const long long tile = s.tile[k];
            if (tile >= 0) {
                const long long tile_start = tile * TILE_ITEMS - shift;
                Acc aggregate = Op::identity();
                for (int g = 0; g < SEGMENTS; ++g) {
                    Acc lane_total = Op::identity();
#pragma unroll
                    for (int r = 0; r < ROWS; ++r) {
                        const int offset = g * SEGMENT_ITEMS + r * 32 * VEC + lane * VEC;
                        InT x[VEC];
                        scan_detail::read_chunk<VEC>(&s.stage[k][offset], x);
                        const unsigned valid = scan_detail::valid_mask<VEC>(tile_start + offset, n);
#pragma unroll
                        for (int e = 0; e < VEC; ++e) lane_total = op(lane_total, (valid >> e) & 1u ? (OutT)x[e] : Op::identity());
                    }
                    const Acc segment_total = warp_reduce(lane_total, op);  // commutative operators only (lab)
                    if (lane == 0) s.segment_total[k][g] = segment_total;
                    aggregate = op(aggregate, segment_total);
                }
                if (lane == 0) {
                    s.aggregate[k] = aggregate;
                    if (tile != 0) status.publish(tile, TILE_AGGREGATE, aggregate);
                }
            }
            __syncwarp();
            if (lane == 0) bar_arrive(&s.reduced[k]);
            if (tile < 0 && ++ends == STAGES / REDUCERS) return;
        }
    } else {  // scanners: warp g of group j scans segment g of the group's stages
        const int j = (warp - S::FIRST_SCANNER) / SEGMENTS, g = (warp - S::FIRST_SCANNER) % SEGMENTS;
        int ends = 0;
        for (long long i = j;; i += GROUPS) {
            const int k = (int)(i % STAGES);
            const unsigned round = (unsigned)(i / STAGES);
            bar_wait(&s.prefixed[k], round & 1u);
            const long long tile = s.tile[k];
            if (tile < 0) {
                if (++ends == STAGES / GROUPS) return;
                continue;  // the loader waits on no stage that holds an end marker
            }
            const long long segment_start = tile * TILE_ITEMS - shift + g * SEGMENT_ITEMS;
            Acc running = s.segment_prefix[k][g];
#pragma unroll
            for (int r = 0; r < ROWS; ++r) {
                const int offset = g * SEGMENT_ITEMS + r * 32 * VEC + lane * VEC;
                const long long index = segment_start + r * 32 * VEC + lane * VEC;
                InT x[VEC];
                scan_detail::read_chunk<VEC>(&s.stage[k][offset], x);
                const unsigned valid = scan_detail::valid_mask<VEC>(index, n);
                const int skip = valid ? __ffs(valid) - 1 : 0;
                Acc a[VEC];
#pragma unroll
                for (int e = 0; e < VEC; ++e) {
                    a[e] = (valid >> e) & 1u ? (OutT)x[e] : Op::identity();
                    if (e > skip) a[e] = op(a[e - 1], a[e]);
                }
                Acc row_total;
                const Acc row_inclusive = warp_inclusive_scan(a[VEC - 1], op, row_total);
                const Acc left = warp_shfl_up(row_inclusive, 1);
                const Acc chunk_prefix = lane == 0 ? running : op(running, left);
                running = op(running, row_total);
                OutT o[VEC];
#pragma unroll
                for (int e = 0; e < VEC; ++e) {
                    if (inclusive) o[e] = op(chunk_prefix, a[e]);
                    else o[e] = e <= skip ? chunk_prefix : op(chunk_prefix, a[e - 1]);
                }
                scan_detail::store_row<VEC>(out, index, n, o);
            }
            bar_arrive(&s.empty[k]);
        }
    }
}

}  // namespace pipe

template <typename InT, typename OutT, typename Op, int STAGES, int SEGMENTS, int ROWS, int MINB, int LB, int RD, int GR>
__global__ void __launch_bounds__(pipe::Shape<InT, OutT, STAGES, SEGMENTS, ROWS, LB, RD, GR>::THREADS, MINB)
k_pipe(const InT* in, OutT* out, long long n, long long tiles, long long init_bits, int inclusive, unsigned char* scratch,
       unsigned epoch) {
    pipe::scan_pipelined<InT, OutT, Op, STAGES, SEGMENTS, ROWS, LB, RD, GR>(in, out, n, tiles, init_bits, inclusive, scratch, epoch);
}

template <int BT, int ROWS, int MINB, typename InT, typename OutT, typename Op>
__global__ void __launch_bounds__(BT, MINB) k_scan(const InT* in, OutT* out, long long n, long long tiles, long long init_bits,
                                                    int inclusive, unsigned char* scratch, unsigned epoch) {
    device_scan<BT, ROWS, InT, OutT, Op>(in, out, n, tiles, init_bits, inclusive, scratch, epoch, NoHeads{});
}

static unsigned char* scratch;
static unsigned epoch_counter = 0;
static int sms;

template <typename InT, typename OutT>
static long long check(const std::vector<InT>& hin, const std::vector<OutT>& h, long long n, int inclusive) {
    long long bad = 0;
    if constexpr (std::is_integral<OutT>::value) {
        OutT acc = 0;
        for (long long i = 0; i < n; ++i) {
            const OutT before = acc;
            acc += (OutT)hin[i];
            bad += h[i] != (inclusive ? acc : before);
        }
    } else {
        double acc = 0, absacc = 0;
        for (long long i = 0; i < n; ++i) {
            const double before = acc;
            acc += (double)hin[i]; absacc += std::fabs((double)hin[i]);
            bad += !(std::fabs((double)h[i] - (inclusive ? acc : before)) <= 1e-5 * std::max(1.0, absacc));
        }
    }
    return bad;
}

template <typename InT, typename OutT>
static void report(const char* name, const char* shape, int occ, int regs, double ms, long long n, long long bad, double copy_gbs,
                   std::vector<OutT>& h, OutT* out) {
    const double bytes = (double)(sizeof(InT) + sizeof(OutT)) * n;
    printf("%-9s %-34s occ %d regs %3d  %.4f ms %7.1f GB/s %5.1f%% of memcpy  %s\n", name, shape, occ, regs, ms, bytes / ms / 1e6,
           100.0 * bytes / ms / 1e6 / copy_gbs, bad ? "WRONG" : "ok");
    fflush(stdout);
}

template <typename InT, typename OutT, int STAGES, int SEGMENTS, int ROWS, int MINB, int LB = 1, int RD = 1, int GR = 1>
static void run_pipe(const char* name, const InT* in, OutT* out, long long n, const std::vector<InT>& hin, double copy_gbs,
                     int inclusive = 1) {
    using S = pipe::Shape<InT, OutT, STAGES, SEGMENTS, ROWS, LB, RD, GR>;
    auto k = k_pipe<InT, OutT, Sum<OutT>, STAGES, SEGMENTS, ROWS, MINB, LB, RD, GR>;
    const int smem_bytes = (int)sizeof(pipe::Storage<InT, OutT, STAGES, SEGMENTS, S::TILE_ITEMS, LB, true>);
    CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes));
    int occ; CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k, S::THREADS, smem_bytes));
    cudaFuncAttributes fa; CK(cudaFuncGetAttributes(&fa, k));
    const long long tiles = (n + S::TILE_ITEMS - 1) / S::TILE_ITEMS;
    const long long grid = std::min<long long>(tiles, (long long)occ * sms);
    CK(cudaMemset(out, 0xff, n * sizeof(OutT)));
    const double ms = time_ms([&]() {
        k<<<grid, S::THREADS, smem_bytes>>>(in, out, n, tiles, 0LL, inclusive, scratch, ++epoch_counter);
    }, 5, 20);
    CK(cudaDeviceSynchronize());
    std::vector<OutT> h(n); CK(cudaMemcpy(h.data(), out, n * sizeof(OutT), cudaMemcpyDeviceToHost));
    char shape[64]; snprintf(shape, sizeof shape, "pipe %dst %dx%d lb%d rd%d gr%d %dKB%s", STAGES, SEGMENTS, ROWS, LB, RD, GR, smem_bytes / 1024, inclusive ? "" : " ex");
    report<InT, OutT>(name, shape, occ, fa.numRegs, ms, n, check(hin, h, n, inclusive), copy_gbs, h, out);
}

template <typename InT, typename OutT, int MINB>
static void run_production(const char* name, const InT* in, OutT* out, long long n, const std::vector<InT>& hin, double copy_gbs) {
    auto k = k_scan<256, 8, MINB, InT, OutT, Sum<OutT>>;
    int occ; CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k, 256, 0));
    cudaFuncAttributes fa; CK(cudaFuncGetAttributes(&fa, k));
    const long long tile = 256 * 8 * (16 / (long long)sizeof(InT)), tiles = (n + tile - 1) / tile;
    CK(cudaMemset(out, 0xff, n * sizeof(OutT)));
    const double ms = time_ms([&]() { k<<<tiles, 256>>>(in, out, n, tiles, 0LL, 1, scratch, ++epoch_counter); }, 5, 20);
    std::vector<OutT> h(n); CK(cudaMemcpy(h.data(), out, n * sizeof(OutT), cudaMemcpyDeviceToHost));
    report<InT, OutT>(name, "production 256x8", occ, fa.numRegs, ms, n, check(hin, h, n, 1), copy_gbs, h, out);
}

int main() {
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const long long n = (1LL << 28) - 3;  // the last tile partial
    CK(cudaMalloc(&scratch, 16 + 128 * (n / 1024 + 16)));
    CK(cudaMemset(scratch, 0, 16 + 128 * (n / 1024 + 16)));
    const LabInputs inputs(n);
    const long long n8 = inputs.n8;
    const auto &hi = inputs.hi; const auto &hf = inputs.hf; const auto &hl = inputs.hl; const auto &hd = inputs.hd;
    int* iin = inputs.iin; float* fin = inputs.fin; long long* lin = inputs.lin; double* din = inputs.din;
    void* out; CK(cudaMalloc(&out, n * 8));

    // Small sizes first: correctness of the pipeline's ends (one tile, partial tiles, fewer tiles than blocks).
    for (long long m : {1LL, 31LL, 33LL, 8191LL, 8193LL, 100003LL, 3000001LL}) {
        std::vector<int> sub(hi.begin(), hi.begin() + m);
        for (int inc = 0; inc <= 1; ++inc) {
            using S = pipe::Shape<int, long long, 6, 8, 8, 6, 2, 2>;
            auto k = k_pipe<int, long long, Sum<long long>, 6, 8, 8, 1, 6, 2, 2>;
            const int smem_bytes = (int)sizeof(pipe::Storage<int, long long, 6, 8, S::TILE_ITEMS, 6, true>);
            CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes));
            const long long tiles = (m + S::TILE_ITEMS - 1) / S::TILE_ITEMS;
            CK(cudaMemset(out, 0xff, (m + 64) * 8));
            k<<<std::min<long long>(tiles, sms), S::THREADS, smem_bytes>>>(iin, (long long*)out, m, tiles, 0LL, inc, scratch, ++epoch_counter);
            CK(cudaDeviceSynchronize());
            std::vector<long long> h(m + 64); CK(cudaMemcpy(h.data(), out, (m + 64) * 8, cudaMemcpyDeviceToHost));
            long long bad = check(sub, h, m, inc);
            for (long long j = m; j < m + 64; ++j) bad += h[j] != -1LL;  // nothing past the end
            printf("small i32->i64 n=%lld %s: %s\n", m, inc ? "inclusive" : "exclusive", bad ? "WRONG" : "ok");
            fflush(stdout);
        }
    }

    for (int pass = 0; pass < 2; ++pass) {
        const double copy_ms = time_ms([&]() { CK(cudaMemcpyAsync(out, fin, n * 4, cudaMemcpyDeviceToDevice)); }, 5, 20);
        const double copy_gbs = 8.0 * n / copy_ms / 1e6;
        printf("pass %d  memcpy d2d 2^28 x 4 B: %.4f ms %.1f GB/s (read+write)\n", pass, copy_ms, copy_gbs);
        run_production<int, long long, 4>("i32->i64", iin, (long long*)out, n, hi, copy_gbs);
        run_pipe<int, long long, 6, 8, 8, 1, 6, 2, 2>("i32->i64", iin, (long long*)out, n, hi, copy_gbs);
        run_pipe<int, long long, 6, 8, 8, 1, 6, 2, 2>("i32->i64", iin, (long long*)out, n, hi, copy_gbs, 0);
        run_pipe<int, long long, 6, 8, 8, 1, 6, 1, 1>("i32->i64", iin, (long long*)out, n, hi, copy_gbs);
        run_pipe<int, long long, 6, 8, 8, 1, 3, 2, 2>("i32->i64", iin, (long long*)out, n, hi, copy_gbs);
        run_pipe<int, long long, 12, 8, 4, 1, 12, 2, 2>("i32->i64", iin, (long long*)out, n, hi, copy_gbs);
        run_pipe<int, long long, 3, 8, 8, 2, 3, 1, 1>("i32->i64", iin, (long long*)out, n, hi, copy_gbs);
        run_pipe<int, long long, 6, 4, 8, 2, 6, 2, 2>("i32->i64", iin, (long long*)out, n, hi, copy_gbs);
        run_production<float, float, 6>("f32", fin, (float*)out, n, hf, copy_gbs);
        run_pipe<float, float, 6, 8, 8, 1, 6, 2, 2>("f32", fin, (float*)out, n, hf, copy_gbs);
        run_pipe<float, float, 12, 8, 4, 1, 12, 2, 2>("f32", fin, (float*)out, n, hf, copy_gbs);
        run_pipe<float, float, 6, 4, 8, 2, 6, 2, 2>("f32", fin, (float*)out, n, hf, copy_gbs);
        run_production<long long, long long, 4>("i64", lin, (long long*)out, n8, hl, copy_gbs);
        run_pipe<long long, long long, 6, 8, 8, 1, 6, 2, 2>("i64", lin, (long long*)out, n8, hl, copy_gbs);
        run_production<double, double, 4>("f64", din, (double*)out, n8, hd, copy_gbs);
        run_pipe<double, double, 6, 8, 8, 1, 6, 2, 2>("f64", din, (double*)out, n8, hd, copy_gbs);
    }
    return 0;
}
