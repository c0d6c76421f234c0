// Short-rows lab: float32 row sums of 1 GiB matrices with 4 to 128 columns (rows_group's shapes),
// rows_group beside variants: more rows in flight per group (R), a grid capped to a few waves, more
// blocks per SM, and a group reduce that halves the rows held at each of its first steps (a lane
// sends half its partials, keeps the other half: R - 1 + log2(G / R) shuffles per lane instead of
// R * log2(G)). Every output poisoned first and checked against a host float64 sum; rows that differ
// from the first row's bits are counted. `prod` rows run the headers it is built against: step 93's
// results (bench/results/2026-11-26-nvidia-h200-step93-ab.md) built it against 71631ad, before
// rows_group took the halving reduce. Build with -I primer-core/src/main/cuda (README.md here);
// argv[1] filters row names.
#include "device/segmented_reduce_kernels.cuh"
#include "lab_rows.cuh"
namespace seg = primer::segmented;
using Rc = seg::Recipe<float, double, float, primer::Sum<double>>;
constexpr int BLOCK = 256;

template <int R, int MINB>
__global__ void __launch_bounds__(BLOCK, MINB) k_prod(const float* in, long long rows, long long cols, int log2_lanes, float* out) {
    seg::rows_group<Rc, true, R, BLOCK>(in, rows, cols, log2_lanes, out, nullptr);
}

/**
 * Group of G = 2^log2_lanes lanes, R = 2^LOG2_R rows (R <= G): lane values v[0..R) for rows 0..R-1.
 * At offset G/2, G/4, ... a lane whose bit is set keeps the upper half of its rows, the other the
 * lower half; each sends the half it drops. After LOG2_R steps a lane holds one row, the row given
 * by those bits; the remaining offsets reduce it as usual. Returns that row's total; *which = its row.
 */
template <int LOG2_R, typename A, typename Op>
__device__ __forceinline__ A halving_reduce(A (&v)[1 << LOG2_R], int log2_lanes, int lane_in_group, Op op, int* which) {
    int row = 0;
    int offset = 1 << (log2_lanes - 1);
#pragma unroll
    for (int step = 0; step < LOG2_R; ++step, offset >>= 1) {
        const int half = (1 << LOG2_R) >> (step + 1);
        const bool upper = (lane_in_group & offset) != 0;
#pragma unroll
        for (int i = 0; i < half; ++i) {
            const A keep = upper ? v[i + half] : v[i];
            const A send = upper ? v[i] : v[i + half];
            const A got = __shfl_xor_sync(0xffffffffu, send, offset);
            v[i] = upper ? op(got, keep) : op(keep, got);  // the lower lane's partial first
        }
        row += upper ? half : 0;
    }
    A x = v[0];
    for (; offset >= 1; offset >>= 1) {
        const A got = __shfl_xor_sync(0xffffffffu, x, offset);
        x = (lane_in_group & offset) ? op(got, x) : op(x, got);
    }
    *which = row;
    return x;
}

/** rows_group with the halving reduce, one vector per lane per row (the host's G); cols % 4 == 0, aligned. */
template <int LOG2_R, int MINB>
__global__ void __launch_bounds__(BLOCK, MINB) k_halving(const float* in, long long rows, long long cols, int log2_lanes, float* out) {
    constexpr int R = 1 << LOG2_R;
    using V = primer::Vec16<float>;
    typename Rc::Op op;
    const int lanes = 1 << log2_lanes;
    const int groups_per_warp = 32 >> log2_lanes;
    const long long step_rows = (long long)groups_per_warp * R;
    const int lane = threadIdx.x & 31, group = lane >> log2_lanes, lane_in_group = lane & (lanes - 1);
    const int vectors = (int)(cols / 4);
    const long long warps = (long long)gridDim.x * (BLOCK / 32);
    for (long long first = ((long long)blockIdx.x * (BLOCK / 32) + (threadIdx.x >> 5)) * step_rows; first < rows;
         first += warps * step_rows) {
        V items[R];
        double acc[R];
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const long long row = first + (long long)r * groups_per_warp + group;
            if (row < rows && lane_in_group < vectors) items[r] = primer::load_vector(reinterpret_cast<const V*>(in + row * cols) + lane_in_group);
        }
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const long long row = first + (long long)r * groups_per_warp + group;
            acc[r] = row < rows && lane_in_group < vectors ? seg::fold_vector<Rc>(items[r], 4LL * lane_in_group) : 0.0;
        }
        int which;
        const double total = halving_reduce<LOG2_R>(acc, log2_lanes, lane_in_group, op, &which);
        const long long row = first + (long long)which * groups_per_warp + group;
        if ((lane_in_group & ((lanes >> LOG2_R) - 1)) == 0 && row < rows) out[row] = seg::finish<Rc>(total, row, nullptr);
    }
}

static int sms;
static const char* only;
static float* dout;

template <typename K>
static void run(const RowsInput& in, RowsShape& s, const char* name, K kernel, int R, int waves) {
    if (!selected(only, name)) return;
    int log2_lanes = 0;
    while ((1LL << log2_lanes) * 4 < s.cols) ++log2_lanes;
    int occ;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kernel, BLOCK, 0));
    const long long rows_per_block = (long long)(BLOCK / 32) * (32 >> log2_lanes) * R;
    long long grid = (s.rows + rows_per_block - 1) / rows_per_block;
    if (waves > 0) grid = std::min(grid, (long long)waves * occ * sms);
    CK(cudaMemset(dout, 0xff, s.rows * 4));  // NaN: a row left unwritten fails the check
    const double ms = time_ms([&]() { kernel<<<(unsigned)grid, BLOCK>>>(in.device, s.rows, s.cols, log2_lanes, dout); }, 3, 20);
    s.check(dout, name, occ, grid, ms);
}

int main(int argc, char** argv) {
    only = argc > 1 ? argv[1] : nullptr;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const RowsInput in(1LL << 28);  // 1 GiB of float32: well past L2
    CK(cudaMalloc(&dout, in.n / 4 * 4));
    if (selected(only, "read")) in.time_read(sms);
    for (long long cols : {64LL, 16LL, 128LL, 32LL, 4LL}) {
        RowsShape s(in, cols);
        run(in, s, "prod_R2", k_prod<2, 2>, 2, 0);  // production (first: the bits the others are compared with)
        run(in, s, "prod_R2_waves4", k_prod<2, 2>, 2, 4);
        run(in, s, "prod_R4", k_prod<4, 2>, 4, 0);
        run(in, s, "prod_R4_waves4", k_prod<4, 2>, 4, 4);
        run(in, s, "prod_R8", k_prod<8, 2>, 8, 0);
        run(in, s, "prod_R2_minB6", k_prod<2, 6>, 2, 0);
        run(in, s, "prod_R4_minB4", k_prod<4, 4>, 4, 0);
        if (cols >= 8) {
            run(in, s, "halving_R2", k_halving<1, 2>, 2, 0);
            run(in, s, "halving_R2_waves4", k_halving<1, 2>, 2, 4);
            run(in, s, "halving_R2_minB6", k_halving<1, 6>, 2, 0);
        }
        if (cols >= 16) {
            run(in, s, "halving_R4", k_halving<2, 2>, 4, 0);
            run(in, s, "halving_R4_waves4", k_halving<2, 2>, 4, 4);
            run(in, s, "halving_R4_minB4", k_halving<2, 4>, 4, 0);
        }
        if (cols >= 32) {
            run(in, s, "halving_R8", k_halving<3, 2>, 8, 0);
            run(in, s, "halving_R8_minB3", k_halving<3, 3>, 8, 0);
        }
        run(in, s, "prod_R2", k_prod<2, 2>, 2, 0);  // again: the lease's drift
    }
    return 0;
}
