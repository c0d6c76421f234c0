// Middle rows lab: float32 row sums of 1 GiB matrices with 256 to 16384 columns (rows_warp's
// shapes: a warp per row), production's rows_warp beside a capped grid (warps take row after row),
// several rows per warp in flight (R), groups of fewer lanes per row (G = 16 or 8, several vectors a
// lane), and, for long rows, rows_chunk's block per row. Every output poisoned first and checked
// against a host float64 sum; rows that differ from production's bits are counted. Build with
// -I primer-core/src/main/cuda (README.md here); argv[1] filters row names.
#include "device/segmented_reduce_kernels.cuh"
#include "lab_rows.cuh"
namespace seg = primer::segmented;
using Rc = seg::Recipe<float, double, float, primer::Sum<double>>;
constexpr int BLOCK = 256;

/** rows_warp with U vectors a lane in flight; production: U = WARP_VECS_PER_LANE (4), MINB 2. */
template <int U, int MINB>
__global__ void __launch_bounds__(BLOCK, MINB) k_warp(const float* in, long long rows, long long cols, float* out,
                                                       unsigned char* scratch) {
    seg::rows_warp<Rc, U, BLOCK>(in, rows, cols, out, scratch);
}

template <int MINB>
__global__ void __launch_bounds__(BLOCK, MINB) k_chunk(const float* in, long long rows, long long cols, float* out,
                                                        unsigned char* scratch) {
    const long long vecs = (cols + 3) / 4;
    seg::rows_chunk<Rc, BLOCK, seg::Constants::CHUNK_VECS_PER_THREAD>(in, rows, cols, 1, (vecs + BLOCK - 1) / BLOCK * BLOCK,
                                                                       out, scratch);
}

/** G lanes per row, R rows per group in flight (group_fold), then a shuffle reduce of the R rows. */
template <int G, int LOG2_R, int U, int MINB>
__global__ void __launch_bounds__(BLOCK, MINB) k_groups(const float* in, long long rows, long long cols, float* out,
                                                         unsigned char* scratch) {
    constexpr int R = 1 << LOG2_R, GROUPS = 32 / G, LOG2_G = G == 32 ? 5 : G == 16 ? 4 : G == 8 ? 3 : 2;
    typename Rc::Op op;
    const int lane = threadIdx.x & 31, group = lane / G, lane_in_group = lane % G;
    const long long warps = (long long)gridDim.x * (BLOCK / 32), step = (long long)GROUPS * R;
    for (long long first = ((long long)blockIdx.x * (BLOCK / 32) + (threadIdx.x >> 5)) * step; first < rows;
         first += warps * step) {
        const float* base[R];
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
static float* dout;
static unsigned char* scratch;

/** rows_per_block: rows one block takes per pass; per_sm: the grid's cap in blocks per SM (0: none). */
template <typename K>
static void run(const RowsInput& in, RowsShape& s, const char* name, K kernel, long long rows_per_block, int per_sm) {
    if (!selected(only, name)) return;
    int occ;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kernel, BLOCK, 0));
    long long grid = (s.rows + rows_per_block - 1) / rows_per_block;
    if (per_sm > 0) grid = std::min(grid, (long long)per_sm * sms);
    CK(cudaMemset(dout, 0xff, s.rows * 4));  // NaN: a row left unwritten fails the check
    const double ms = time_ms([&]() { kernel<<<(unsigned)grid, BLOCK>>>(in.device, s.rows, s.cols, dout, scratch); }, 3, 20);
    s.check(dout, name, occ, grid, ms);
}

int main(int argc, char** argv) {
    only = argc > 1 ? argv[1] : nullptr;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const RowsInput in(1LL << 28);  // 1 GiB of float32: well past L2
    CK(cudaMalloc(&dout, in.n / 256 * 4));
    CK(cudaMalloc(&scratch, 1 << 20));
    CK(cudaMemset(scratch, 0, 1 << 20));
    if (selected(only, "read")) in.time_read(sms);
    for (long long cols : {256LL, 1024LL, 512LL, 4096LL, 16384LL}) {
        RowsShape s(in, cols);
        run(in, s, "prod", k_warp<4, 2>, 8, 0);  // production (first: the bits the others are compared with)
        run(in, s, "prod_cap16", k_warp<4, 2>, 8, 16);
        run(in, s, "warp_u4_b4", k_warp<4, 4>, 8, 0);
        run(in, s, "warp_u4_b4_cap16", k_warp<4, 4>, 8, 16);
        run(in, s, "warp_u2_b4", k_warp<2, 4>, 8, 0);
        run(in, s, "warp_u2_b6", k_warp<2, 6>, 8, 0);
        run(in, s, "warp_u2_b6_cap24", k_warp<2, 6>, 8, 24);
        run(in, s, "warp_u3_b5", k_warp<3, 5>, 8, 0);
        run(in, s, "warp_u4_b5", k_warp<4, 5>, 8, 0);
        run(in, s, "g32_r2_u2_b4", k_groups<32, 1, 2, 4>, 16, 0);
        run(in, s, "g32_r2_u2_b4_cap16", k_groups<32, 1, 2, 4>, 16, 16);
        run(in, s, "g32_r2_u4_b2", k_groups<32, 1, 4, 2>, 16, 0);
        if (cols <= 4096) {
            run(in, s, "g16_r1_u4_b4", k_groups<16, 0, 4, 4>, 16, 0);
            run(in, s, "g16_r1_u2_b6", k_groups<16, 0, 2, 6>, 16, 0);
            run(in, s, "g16_r2_u2_b4", k_groups<16, 1, 2, 4>, 32, 0);
            run(in, s, "g16_r2_u2_b4_cap16", k_groups<16, 1, 2, 4>, 32, 16);
        }
        if (cols <= 1024) {
            run(in, s, "g8_r1_u4_b4", k_groups<8, 0, 4, 4>, 32, 0);
            run(in, s, "g8_r1_u2_b6", k_groups<8, 0, 2, 6>, 32, 0);
            run(in, s, "g8_r2_u2_b4", k_groups<8, 1, 2, 4>, 64, 0);
        }
        if (cols >= 4096) {
            run(in, s, "chunk_block", k_chunk<4>, 1, 0);
            run(in, s, "chunk_block_cap8", k_chunk<4>, 1, 8);
        }
        run(in, s, "prod", k_warp<4, 2>, 8, 0);  // again: the lease's drift
    }
    return 0;
}
