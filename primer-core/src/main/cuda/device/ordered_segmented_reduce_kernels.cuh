// Batched and segmented reduce that keeps operand order, for operators that are associative but
// need not be commutative (user-defined ones, GpuCustomSegmentedReduce):
//     out[s] = in[start_s] op in[start_s + 1] op ... op in[end_s - 1]   (the identity when empty)
// with an association fixed by the shape, the offsets and the input address alone, so float
// results are the same bits every run.
//
// The frame is segmented_reduce_kernels.cuh's: a warp per 32 consecutive segments, long segments
// queued as work items for persistent blocks (a segment of one item finished there, one of several
// by a combine); the same scratch layout, the same offsets check first (GpuSegmentedReduce launches
// it from the built-in module) and the same gate and clamping, so malformed offsets are refused
// with nothing written and never make a kernel touch memory outside its buffers. Rows are the segments starting at s * cols (RowStarts). What changes is that every fold
// keeps index order (the built-in kernels fold elements a lane apart and combine by butterflies):
//   short  (<= SHORT_SEGMENT)  its own lane, left to right (lane_fold, shared);
//   medium (<= C)              the whole warp, one segment at a time: lanes take consecutive
//                              vectors, the warp combines its lanes in lane order per tile
//                              (warp_fold_range_ordered);
//   long   (> C)               a block per work item, a contiguous run per warp, warps in order
//                              (block_fold_range_ordered); the combine gives each thread a
//                              contiguous run of the item partials, then threads in order.
// Where the check's verdict finds every segment short, the shared segments_short
// (segmented_reduce/segments.cuh), whose lanes fold in order too, runs alone: a lane per segment at
// six to eight blocks per SM where the small kernel's ordered medium and long paths hold it to
// three. Short rows whose every row is 16-byte aligned take the shared rows_group with ORDERED
// (segmented_reduce/rows.cuh): a group of lanes per row, a vector each, combined in lane order.
// Rows, being of one length, have three kernels besides that need no queue: rows_warp, a warp per row
// (the small kernel would give a warp 32 medium rows in turn), rows_half_warp for rows of at most
// 1 KiB, and rows_block, a block per row (long rows, enough of them to fill the GPU);
// GpuCustomSegmentedReduce picks one per call.
//
// Values combine in the operator's type (OpValue<Op>, ordered_reduce_kernels.cuh), results are
// stored as T.
//
// Self-contained (headers only), for NVRTC: GpuCustomSegmentedReduce instantiates the entry points.
#pragma once
#include "ordered_reduce_kernels.cuh"
#include "segmented_reduce_kernels.cuh"

namespace primer {
namespace segmented {

/** 16-byte vectors per lane per tile (two tiles in flight). */
struct OrderedConstants {
    static constexpr int MEDIUM_VECS_PER_LANE = 2;  // medium segments: many are a tile or two long
    static constexpr int ROW_VECS_PER_LANE = 2;     // rows_warp: at 4, 72-80 registers and three blocks per SM
    static constexpr int HALF_WARP_VECS_PER_LANE = 4;  // rows_half_warp: a row of 1 KiB in one tile, none in flight behind
    static constexpr int LONG_VECS_PER_LANE = 4;    // work items of long segments, rows_block
    /**
     * The vectors per lane for elements of type T: half for int8, whose vectors hold 16 elements
     * each, shifted out one by one (at 4, a wrapping int8 sum's segments_long spilled at 80 registers).
     */
    template <typename T>
    __host__ __device__ static constexpr int vecs(int per_lane) { return sizeof(T) == 1 ? per_lane / 2 : per_lane; }
    /**
     * rows_half_warp's blocks per SM: 64 registers for 8-byte elements, 48 for narrower ones. (nvcc,
     * sm_90, the nine test operators: given the other kernels' 80 they took 63-80 registers; at 48
     * the float64 forward fill spilled 88 bytes; at 64 none spills.)
     */
    __host__ __device__ static constexpr int half_warp_blocks(int element_bytes) { return element_bytes == 8 ? 4 : 5; }
};

/**
 * A warp per 32 consecutive segments, starts(s) the first element of segment s (OffsetStarts or
 * RowStarts); the gate and clamps as segments_small. in_length: the elements of in.
 */
template <typename T, typename Op, int BLOCK, class Starts>
__device__ __forceinline__ void ordered_segments_small(const T* __restrict__ in, Starts starts, long long nseg,
                                                       long long in_length, T* __restrict__ out,
                                                       unsigned char* __restrict__ scratch) {
    constexpr unsigned FULL = 0xffffffffu;
    using A = OpValue<Op>;
    Op op;
    const int lane = threadIdx.x & 31;
    const long long first_segment = ((long long)blockIdx.x * (BLOCK / 32) + (threadIdx.x >> 5)) * 32;
    if (first_segment >= nseg) return;  // the whole warp
    WarpSegments w;
    if (!read_warp_segments(starts, first_segment, nseg, in_length, offsets_refused(scratch), w)) return;
    const long long length = w.end - w.start;

    if (w.valid && length <= Constants::SHORT_SEGMENT) {
        out[first_segment + lane] = (T)lane_fold<Recipe<T, A, T, Op>>(in, w.start, (int)length);
    }
    unsigned medium = __ballot_sync(FULL, w.valid && length > Constants::SHORT_SEGMENT && length <= w.chunk_length);
    while (medium) {
        const int a = __ffs(medium) - 1;
        medium &= medium - 1;
        const long long start = __shfl_sync(FULL, w.start, a);
        const long long end = __shfl_sync(FULL, w.end, a);
        const A total = warp_fold_range_ordered<OrderedConstants::vecs<T>(OrderedConstants::MEDIUM_VECS_PER_LANE)>(in + start, end - start, op);
        if (lane == 0) out[first_segment + a] = (T)total;
    }
    queue_long_segments(__ballot_sync(FULL, w.valid && length > w.chunk_length), w, first_segment, scratch);
}

/**
 * Persistent blocks: a block per queued work item folds it in order, its partial into the item's
 * slot, or, for an item that is its whole segment (slot -1 - s), the result into out[s].
 */
template <typename T, typename Op, int BLOCK>
__device__ __forceinline__ void ordered_segments_long(const T* __restrict__ in, T* __restrict__ out,
                                                      unsigned char* __restrict__ scratch) {
    Op op;
    if (offsets_refused(scratch)) return;  // the host throws
    const long long items = clamp_count(*item_count(scratch), Constants::ITEM_CAPACITY);
    const LongWork* work = work_items(scratch);
    for (long long i = blockIdx.x; i < items; i += gridDim.x) {
        const LongWork item = work[i];
        const long long length = item.end > item.begin ? item.end - item.begin : 0;
        const OpValue<Op> total = block_fold_range_ordered<BLOCK, OrderedConstants::vecs<T>(OrderedConstants::LONG_VECS_PER_LANE)>(in + item.begin, length, op);
        if (threadIdx.x == 0) {
            if (item.slot >= 0) *partial_slot<OpValue<Op>>(scratch, item.slot) = total;
            else out[-1 - item.slot] = (T)total;
        }
    }
}

/** A warp per row, grid-striding: rows of a medium length (more than SHORT_SEGMENT, at most C). */
template <typename T, typename Op, int BLOCK>
__device__ __forceinline__ void ordered_rows_warp(const T* __restrict__ in, long long rows, long long cols,
                                                  T* __restrict__ out) {
    Op op;
    const long long warps = (long long)gridDim.x * (BLOCK / 32);
    for (long long row = (long long)blockIdx.x * (BLOCK / 32) + (threadIdx.x >> 5); row < rows; row += warps) {
        const OpValue<Op> total = warp_fold_range_ordered<OrderedConstants::vecs<T>(OrderedConstants::ROW_VECS_PER_LANE)>(in + row * cols, cols, op);
        if ((threadIdx.x & 31) == 0) out[row] = (T)total;
    }
}

/**
 * A half-warp per row, grid-striding: rows of more than SHORT_SEGMENT elements and at most 1 KiB
 * (SegmentedReducePolicy.HALF_WARP_MAX_ROW_BYTES). A warp's two rows reduce together in four ordered
 * shuffle rounds (warp_reduce_lanes_ordered<16>), where rows_warp takes five for each row in turn.
 * A lane takes VECS consecutive vectors of each tile of 16 x VECS (a 1 KiB row is one tile but for
 * int8), folded left to right; the head joins lane 0's span in front and the tail lane 15's behind,
 * element by element, so the halves, whose rows may differ in alignment, run the same shuffles.
 */
template <typename T, typename Op, int BLOCK>
__device__ __forceinline__ void ordered_rows_half_warp(const T* __restrict__ in, long long rows, long long cols,
                                                       T* __restrict__ out) {
    using A = OpValue<Op>;
    using V = Vec16<T>;
    constexpr int LANES = 16;
    constexpr int VEC = V::ITEMS;
    constexpr int VECS = OrderedConstants::vecs<T>(OrderedConstants::HALF_WARP_VECS_PER_LANE);
    constexpr int TILE = LANES * VECS;
    Op op;
    const int lane = threadIdx.x & (LANES - 1);
    // The same for both halves (the loop holds shuffles): an aligned row has the most vectors.
    const int tiles = max(1, (int)((cols / VEC + TILE - 1) / TILE));
    const long long warps = (long long)gridDim.x * (BLOCK / 32);
    for (long long first = ((long long)blockIdx.x * (BLOCK / 32) + (threadIdx.x >> 5)) * 2; first < rows;
         first += warps * 2) {
        const long long row = first + ((threadIdx.x & 31) >> 4);
        const int length = row < rows ? (int)cols : 0;  // cols <= 1024
        const T* base = in + (row < rows ? row : first) * cols;
        const int misaligned = (int)((reinterpret_cast<unsigned long long>(base) & 15u) / sizeof(T));
        const int head = min((VEC - misaligned) & (VEC - 1), length);
        const int vectors = (length - head) / VEC;
        const int tail_begin = head + vectors * VEC;
        const V* body = reinterpret_cast<const V*>(base + head);
        A total = Op::identity();
#pragma unroll 1
        for (int t = 0; t < tiles; ++t) {
            const int mine = t * TILE + lane * VECS;
            V items[VECS];
#pragma unroll
            for (int u = 0; u < VECS; ++u) {
                if (mine + u < vectors) items[u] = load_vector(body + mine + u);
            }
            A lane_total = Op::identity();
            if (t == 0 && lane == 0) {
                for (int e = 0; e < head; ++e) lane_total = op(lane_total, (A)base[e]);
            }
#pragma unroll
            for (int u = 0; u < VECS; ++u) {
                if (mine + u < vectors) {
#pragma unroll
                    for (int k = 0; k < VEC; ++k) lane_total = op(lane_total, vector_item<A>(items[u], k));
                }
            }
            if (t == tiles - 1 && lane == LANES - 1) {
                for (int e = tail_begin; e < length; ++e) lane_total = op(lane_total, (A)base[e]);
            }
            total = op(total, warp_reduce_lanes_ordered<LANES>(lane_total, op));
        }
        if (lane == 0 && row < rows) out[row] = (T)total;
    }
}

/**
 * A block per row (grid = rows): long rows, enough of them to fill the GPU without splitting one.
 * Not grid-striding: the loop cost the float64 forward fill 16 bytes of spills at 80 registers.
 */
template <typename T, typename Op, int BLOCK>
__device__ __forceinline__ void ordered_rows_block(const T* __restrict__ in, long long cols, T* __restrict__ out) {
    const long long row = blockIdx.x;
    const OpValue<Op> total = block_fold_range_ordered<BLOCK, OrderedConstants::vecs<T>(OrderedConstants::LONG_VECS_PER_LANE)>(in + row * cols, cols, Op());
    if (threadIdx.x == 0) out[row] = (T)total;
}

}  // namespace segmented
}  // namespace primer
