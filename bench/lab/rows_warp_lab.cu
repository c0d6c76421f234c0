// Middle rows lab: float32 or float64 row sums of 1 GiB matrices with rows of 1 to 64 KiB (256 to
// 16384 float32 columns, 128 to 8192 float64: rows_warp's shapes), rows_warp (a warp per row) and
// its half-warp form beside other vectors a lane and blocks per SM, a capped grid (warps take row
// after row), several rows per warp in flight (R), groups of fewer lanes per row (G = 16 or 8,
// several vectors a lane), and, for long rows, rows_chunk's block per row. Every output poisoned first and checked
// against a host float64 sum; rows that differ from production's bits are counted. Build with
// -I primer-core/src/main/cuda (README.md here); argv[1] filters row names, argv[2] "f64" sums
// float64 (default float32).
#include "device/segmented_reduce_kernels.cuh"
#include "lab_rows.cuh"
namespace seg = primer::segmented;
template <typename T>
using RcOf = seg::Recipe<T, double, T, primer::Sum<double>>;  // production's float sums
constexpr int BLOCK = 256;

/**
 * rows_warp, LANES a row (32 or 16), U vectors a lane in flight at MINB blocks per SM; production
 * since step 95: a warp per row past 1 KiB, a half-warp up to it, U = WARP_VECS_PER_LANE (2), MINB 6
 * (5 for float64 half-warps).
 */
template <typename T, int LANES, int U, int MINB>
__global__ void __launch_bounds__(BLOCK, MINB) k_warp(const T* in, long long rows, long long cols, T* out,
                                                       unsigned char* scratch) {
    seg::rows_warp<RcOf<T>, LANES, U, BLOCK>(in, rows, cols, out, scratch);
}

template <typename T, int MINB>
__global__ void __launch_bounds__(BLOCK, MINB) k_chunk(const T* in, long long rows, long long cols, T* out,
                                                        unsigned char* scratch) {
    constexpr long long VEC = 16 / sizeof(T);
    const long long vecs = (cols + VEC - 1) / VEC;
    seg::rows_chunk<RcOf<T>, BLOCK, seg::Constants::CHUNK_VECS_PER_THREAD>(in, rows, cols, 1,
                                                                             (vecs + BLOCK - 1) / BLOCK * BLOCK, out, scratch);
}

/** G lanes per row, R rows per group in flight (group_fold), then a shuffle reduce of the R rows. */
template <typename T, int G, int LOG2_R, int U, int MINB>
__global__ void __launch_bounds__(BLOCK, MINB) k_groups(const T* in, long long rows, long long cols, T* out,
                                                         unsigned char* scratch) {
    using Rc = RcOf<T>;
    constexpr int R = 1 << LOG2_R, GROUPS = 32 / G, LOG2_G = G == 32 ? 5 : G == 16 ? 4 : G == 8 ? 3 : 2;
    typename Rc::Op op;
    const int lane = threadIdx.x & 31, group = lane / G, lane_in_group = lane % G;
    const long long warps = (long long)gridDim.x * (BLOCK / 32), step = (long long)GROUPS * R;
    for (long long first = ((long long)blockIdx.x * (BLOCK / 32) + (threadIdx.x >> 5)) * step; first < rows;
         first += warps * step) {
        const T* base[R];
        long long length[R], index_offset[R];
        double acc[R];
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const long long row = first + (long long)r * GROUPS + group;
            base[r] = in + (row < rows ? row : 0) * cols;
            length[r] = row < rows ? cols : 0;
            index_offset[r] = 0;
            acc[r] = 0;
        }
        seg::group_fold<G, U, R, long long, Rc>(base, length, index_offset, lane_in_group, acc);
        const seg::GroupRows mine = seg::group_reduce_rows<LOG2_R, false>(acc, LOG2_G, lane_in_group, op);
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const long long row = first + (long long)(mine.first + r) * GROUPS + group;
            if (r < mine.count && row < rows) out[row] = seg::finish<Rc>(acc[r], row, nullptr);
        }
    }
}

static int sms;
static const char* only;
static void* dout;
static unsigned char* scratch;

/** rows_per_block: rows one block takes per pass; per_sm: the grid's cap in blocks per SM (0: none). */
template <typename T, typename K>
static void run(const RowsInputOf<T>& in, RowsShapeOf<T>& s, const char* name, K kernel, long long rows_per_block, int per_sm) {
    if (!selected(only, name)) return;
    int occ;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kernel, BLOCK, 0));
    long long grid = (s.rows + rows_per_block - 1) / rows_per_block;
    if (per_sm > 0) grid = std::min(grid, (long long)per_sm * sms);
    CK(cudaMemset(dout, 0xff, s.rows * sizeof(T)));  // NaN: a row left unwritten fails the check
    T* out = static_cast<T*>(dout);
    const double ms = time_ms([&]() { kernel<<<(unsigned)grid, BLOCK>>>(in.device, s.rows, s.cols, out, scratch); }, 3, 20);
    s.check(out, name, occ, grid, ms);
}

/** Every variant on rows of 1 KiB to 64 KiB of T. */
template <typename T>
static void lab() {
    const RowsInputOf<T> in((1LL << 30) / sizeof(T));  // 1 GiB: well past L2
    CK(cudaMalloc(&dout, in.n / 64 * sizeof(T)));
    if (selected(only, "read")) in.time_read(sms);
    for (long long row_bytes : {1024LL, 4096LL, 2048LL, 16384LL, 65536LL}) {
        RowsShapeOf<T> s(in, row_bytes / (long long)sizeof(T));
        run(in, s, "prod", k_warp<T, 32, 2, 6>, 8, 0);  // a warp per row (first: the bits the others are compared with)
        run(in, s, "half_warp", k_warp<T, 16, 2, sizeof(T) == 8 ? 5 : 6>, 16, 0);  // production up to 1 KiB
        run(in, s, "warp_u4_b2", k_warp<T, 32, 4, 2>, 8, 0);  // production until step 94
        run(in, s, "warp_u1_b8", k_warp<T, 32, 1, 8>, 8, 0);
        run(in, s, "warp_u2_b6_cap24", k_warp<T, 32, 2, 6>, 8, 24);
        run(in, s, "warp_u3_b4", k_warp<T, 32, 3, 4>, 8, 0);
        run(in, s, "warp_u4_b3", k_warp<T, 32, 4, 3>, 8, 0);
        run(in, s, "g32_r2_u1_b5", k_groups<T, 32, 1, 1, 5>, 16, 0);
        run(in, s, "g32_r2_u2_b4", k_groups<T, 32, 1, 2, 4>, 16, 0);
        if (row_bytes <= 16384) {
            run(in, s, "g16_r1_u2_b5", k_groups<T, 16, 0, 2, 5>, 16, 0);
            run(in, s, "g16_r1_u4_b3", k_groups<T, 16, 0, 4, 3>, 16, 0);
            run(in, s, "g16_r2_u1_b5", k_groups<T, 16, 1, 1, 5>, 32, 0);
            run(in, s, "g16_r2_u2_b4", k_groups<T, 16, 1, 2, 4>, 32, 0);
        }
        if (row_bytes <= 4096) {
            run(in, s, "g8_r1_u2_b5", k_groups<T, 8, 0, 2, 5>, 32, 0);
            run(in, s, "g8_r1_u4_b3", k_groups<T, 8, 0, 4, 3>, 32, 0);
            run(in, s, "g8_r2_u2_b4", k_groups<T, 8, 1, 2, 4>, 64, 0);
        }
        if (row_bytes >= 16384) {
            run(in, s, "chunk_block", k_chunk<T, 4>, 1, 0);
            run(in, s, "chunk_block_cap8", k_chunk<T, 4>, 1, 8);
        }
        run(in, s, "prod", k_warp<T, 32, 2, 6>, 8, 0);  // again: the lease's drift
    }
    CK(cudaFree(dout));
    CK(cudaFree(in.device));
}

int main(int argc, char** argv) {
    only = argc > 1 && argv[1][0] ? argv[1] : nullptr;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    CK(cudaMalloc(&scratch, 1 << 20));
    CK(cudaMemset(scratch, 0, 1 << 20));
    if (argc > 2 && std::string(argv[2]) == "f64") lab<double>();
    else lab<float>();
    return 0;
}
