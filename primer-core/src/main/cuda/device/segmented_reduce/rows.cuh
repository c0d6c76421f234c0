// Batched rows: one result per row of a row-major (rows, cols) matrix. The rows have one length,
// so the host picks one kernel per call (SegmentedReducePolicy.java): rows_group (a group of 1 to
// 32 lanes per row), rows_warp (a warp per row), rows_chunk (a block per row, or per chunk of a
// row, then rows_combine).
//
// (Measured on an H200, 2048 x 262144 float32, 2026-11-21: 256-thread blocks with 3 vectors per
// thread in flight at 4 blocks per SM read 4.59 TB/s; 256 x 4 and 128 x 4 at 8 per SM 4.49,
// 512 x 2 at 2 per SM 4.43, 256 x 2 4.14-4.31; cutting rows into 2-8 chunks with a combine
// launch was 1-7% slower. Earlier: equal flat shares per warp were within 1%; warp tiles
// streamed in one front with a last-warp combine were 10-40% slower; L1/L2 cache hints on the
// loads changed nothing. Short rows, 4M x 64 float32, step 93: rows_group 0.320 -> 0.272 ms with the
// halving group reduce, one vector a lane at 40 registers and the grid capped at 24 blocks per SM;
// rows_group_lab.cu. Middle rows, 1 GiB of float32, step 94: rows_warp at 4 vectors a lane took 80
// registers, three blocks per SM, and a row of 256 columns left a lane 2 vectors: 0.428 ms, slower
// than torch.sum(dim=1) (0.334); at 2 vectors a lane and six blocks per SM 0.259 ms, and 512 to
// 16384 columns 0-7% faster; a grid capped at a few waves was no faster here. rows_warp_lab.cu.)
#pragma once
#include "../../warp/warp_reduce.cuh"
#include "../../block/block_reduce.cuh"
#include "recipe.cuh"
#include "vector_fold.cuh"
#include "group_fold.cuh"
#include "scratch.cuh"

namespace primer {
namespace segmented {

/**
 * 2^log2_lanes lanes (G) per row, R rows per group at a time. At each of the R steps the warp's
 * 32 / G groups take consecutive rows, so a warp reads one contiguous stretch. For short rows: R
 * rows' loads are in flight together. VECTORIZED (every row 16-byte aligned: an aligned input and
 * cols a multiple of the vector) uses 16-byte loads, one vector a lane, so it needs G >= the vectors
 * of a row (the host's G: SegmentedReducePolicy.rows); otherwise lanes load scalars, still coalesced
 * (a group reads G consecutive elements), any G. Two instantiations rather than a branch: each gets
 * the registers of its own path. cols < 2^31. blockDim.x must be BLOCK; any grid.
 * ORDERED (operators that need not commute: the user-defined ones) combines a group's lanes in lane
 * order (group_reduce_rows) and needs VECTORIZED: a lane holds one vector of a row (folded in index
 * order), so each row is folded in index order; the scalar path deals a row's elements to the lanes
 * in turn. overflow: the 128-bit sums' overflow flag (overflow_flag(scratch)), null where Rc's Finish
 * never raises it.
 */
template <class Rc, bool VECTORIZED, int R, int BLOCK, bool ORDERED = false>
__device__ __forceinline__ void rows_group(const typename Rc::T* __restrict__ in, long long rows, long long cols,
                                           int log2_lanes, typename Rc::Out* __restrict__ out,
                                           unsigned long long* overflow) {
    static_assert(VECTORIZED || !ORDERED, "the scalar path does not keep index order");
    static_assert(R == 1 || R == 2 || R == 4 || R == 8, "group_reduce_rows halves R");
    constexpr int LOG2_R = R == 8 ? 3 : R == 4 ? 2 : R == 2 ? 1 : 0;
    using T = typename Rc::T;
    using A = typename Rc::A;
    using V = Vec16<T>;
    constexpr int VEC = V::ITEMS;
    typename Rc::Op op;
    const int lanes = 1 << log2_lanes;
    const int groups_per_warp = 32 >> log2_lanes;
    const long long rows_per_warp_step = (long long)groups_per_warp * R;
    const int lane = threadIdx.x & 31;
    const int group = lane >> log2_lanes;
    const int lane_in_group = lane & (lanes - 1);
    const int n = (int)cols;
    const long long warps = (long long)gridDim.x * (BLOCK / 32);

    // The loop bound is the same for the whole warp: every lane reaches the shuffles.
    for (long long first = ((long long)blockIdx.x * (BLOCK / 32) + (threadIdx.x >> 5)) * rows_per_warp_step;
         first < rows; first += warps * rows_per_warp_step) {
        A acc[R];
#pragma unroll
        for (int r = 0; r < R; ++r) acc[r] = Rc::Op::identity();
        // A row's address is made again where it is used: R 64-bit pointers kept across the loads
        // took rows_vector_sum_f32 from 40 registers to 48-54 (6 blocks per SM to 4-5).
        const auto row_of = [&](int r) { return first + (long long)r * groups_per_warp + group; };
        if constexpr (VECTORIZED) {
            const int vectors = n / VEC;
            if (const int v = lane_in_group; v < vectors) {  // G >= vectors: a lane's one vector
                V items[R];
#pragma unroll
                for (int r = 0; r < R; ++r) {
                    if (row_of(r) < rows) items[r] = load_vector(reinterpret_cast<const V*>(in + row_of(r) * cols) + v);
                }
#pragma unroll
                for (int r = 0; r < R; ++r) {
                    if (row_of(r) < rows) acc[r] = op(acc[r], fold_vector<Rc>(items[r], (long long)v * VEC));
                }
            }
        } else {
            // A lane loads SCALARS elements of each row per step: a vector's worth, but at most four
            // (sixteen int8 bytes for each of R rows, a register each, would spill).
            constexpr int SCALARS = VEC < 4 ? VEC : 4;
            bool valid[R];  // here rows made again would cost argmin and argmax spills at 3 blocks per SM
            const T* p[R];
#pragma unroll
            for (int r = 0; r < R; ++r) {
                valid[r] = row_of(r) < rows;
                p[r] = in + (valid[r] ? row_of(r) : 0) * cols;
            }
            for (int c0 = 0; c0 < n; c0 += lanes * SCALARS) {
                T items[R][SCALARS];
#pragma unroll
                for (int r = 0; r < R; ++r) {
#pragma unroll
                    for (int k = 0; k < SCALARS; ++k) {
                        const int c = c0 + lane_in_group + k * lanes;
                        if (valid[r] && c < n) items[r][k] = p[r][c];
                    }
                }
#pragma unroll
                for (int r = 0; r < R; ++r) {
#pragma unroll
                    for (int k = 0; k < SCALARS; ++k) {
                        const int c = c0 + lane_in_group + k * lanes;
                        if (valid[r] && c < n) acc[r] = op(acc[r], Lift<T, A>::apply(items[r][k], c));
                    }
                }
            }
        }
        const auto store = [&](A total, int r) {
            if (row_of(r) < rows) out[row_of(r)] = finish<Rc>(total, row_of(r), overflow);
        };
        if constexpr (VECTORIZED) {
            const GroupRows mine = group_reduce_rows<LOG2_R, ORDERED>(acc, log2_lanes, lane_in_group, op);
#pragma unroll
            for (int r = 0; r < R; ++r) {
                if (r < mine.count) store(acc[r], mine.first + r);
            }
        } else {
            // Row by row: halving would need registers that the scalar path's loads in flight hold
            // (argmin and argmax spilled at three blocks per SM).
#pragma unroll
            for (int r = 0; r < R; ++r) {
                acc[r] = group_reduce(acc[r], log2_lanes, op);
                if (lane_in_group == 0) store(acc[r], r);
            }
        }
    }
}

/**
 * A warp (LANES 32) or half-warp (16) per row, U vectors per lane in flight, grid-striding: rows of a
 * few hundred to a few thousand elements. Such a row gives a lane a few vectors, so the warps an SM
 * holds matter more than U (see the top). Half-warps serve rows of at most 1 KiB
 * (SegmentedReducePolicy.rows): they reduce a warp's two rows together in four shuffle rounds, where
 * a warp would take five for each row in turn.
 */
template <class Rc, int LANES, int U, int BLOCK>
__device__ __forceinline__ void rows_warp(const typename Rc::T* __restrict__ in, long long rows, long long cols,
                                          typename Rc::Out* __restrict__ out, unsigned char* __restrict__ scratch) {
    static_assert(LANES == 32 || LANES == 16, "a warp or a half-warp per row");
    using A = typename Rc::A;
    typename Rc::Op op;
    constexpr int ROWS_PER_WARP = 32 / LANES;
    const int lane_in_group = threadIdx.x & (LANES - 1);
    const long long warps = (long long)gridDim.x * (BLOCK / 32);
    // The loop bound is the same for the whole warp: every lane reaches the shuffles.
    for (long long first = ((long long)blockIdx.x * (BLOCK / 32) + (threadIdx.x >> 5)) * ROWS_PER_WARP; first < rows;
         first += warps * ROWS_PER_WARP) {
        const long long row = first + (threadIdx.x & 31) / LANES;
        const typename Rc::T* base[1] = {in + (row < rows ? row : first) * cols};
        const long long length[1] = {row < rows ? cols : 0};
        const long long index_offset[1] = {0};
        A acc[1] = {Rc::Op::identity()};
        group_fold<LANES, U, 1, long long, Rc>(base, length, index_offset, lane_in_group, acc);
        acc[0] = warp_reduce_lanes<LANES>(acc[0], op);
        if (lane_in_group == 0 && row < rows) out[row] = finish<Rc>(acc[0], row, overflow_flag(scratch));
    }
}

/**
 * A block per (row, chunk). A row's body vectors (after its head) are cut into chunks of
 * chunk_vecs vectors; chunk 0 also takes the head, the last chunk the tail. With one chunk per row
 * the block writes the result; otherwise its partial goes to slot row * chunks + chunk.
 */
template <class Rc, int BLOCK, int U>
__device__ __forceinline__ void rows_chunk(const typename Rc::T* __restrict__ in, long long rows, long long cols,
                                           long long chunks, long long chunk_vecs, typename Rc::Out* __restrict__ out,
                                           unsigned char* __restrict__ scratch) {
    using T = typename Rc::T;
    using A = typename Rc::A;
    constexpr int VEC = Vec16<T>::ITEMS;
    typename Rc::Op op;
    const long long work = rows * chunks;
    for (long long w = blockIdx.x; w < work; w += gridDim.x) {
        const long long row = w / chunks;
        const long long chunk = w - row * chunks;
        const long long row_begin = row * cols;
        const long long row_end = row_begin + cols;
        const unsigned misaligned = (unsigned)((reinterpret_cast<unsigned long long>(in + row_begin) & 15u) / sizeof(T));
        long long head = (long long)((VEC - misaligned) & (VEC - 1));
        if (head > cols) head = cols;
        long long begin = chunk == 0 ? row_begin : row_begin + head + chunk * chunk_vecs * VEC;
        long long end = chunk == chunks - 1 ? row_end : row_begin + head + (chunk + 1) * chunk_vecs * VEC;
        if (begin > row_end) begin = row_end;
        if (end > row_end) end = row_end;
        if (end < begin) end = begin;
        const T* base[1] = {in + begin};
        const long long length[1] = {end - begin};
        const long long index_offset[1] = {begin - row_begin};
        A acc[1] = {Rc::Op::identity()};
        group_fold<BLOCK, U, 1, long long, Rc>(base, length, index_offset, threadIdx.x, acc);
        const A total = block_reduce<BLOCK>(acc[0], op);
        if (threadIdx.x == 0) {
            if (chunks == 1) out[row] = finish<Rc>(total, row, overflow_flag(scratch));
            else *partial_slot<A>(scratch, w) = total;
        }
    }
}

/** A warp per row folds the row's chunk partials in chunk order. */
template <class Rc, int BLOCK>
__device__ __forceinline__ void rows_combine(long long rows, long long chunks, typename Rc::Out* __restrict__ out,
                                             unsigned char* __restrict__ scratch) {
    using A = typename Rc::A;
    typename Rc::Op op;
    const int lane = threadIdx.x & 31;
    const long long warps = (long long)gridDim.x * (BLOCK / 32);
    for (long long row = (long long)blockIdx.x * (BLOCK / 32) + (threadIdx.x >> 5); row < rows; row += warps) {
        A acc = Rc::Op::identity();
        for (long long c = lane; c < chunks; c += 32) acc = op(acc, *partial_slot<A>(scratch, row * chunks + c));
        acc = warp_reduce(acc, op);
        if (lane == 0) out[row] = finish<Rc>(acc, row, overflow_flag(scratch));
    }
}

}  // namespace segmented
}  // namespace primer
