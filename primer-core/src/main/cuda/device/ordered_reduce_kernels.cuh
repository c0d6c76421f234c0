// Device-wide reduce that keeps operand order, for operators that are associative but need not be
// commutative (user-defined ones: affine maps composed, "the last valid value"):
//     *result = in[0] op in[1] op ... op in[n-1]
// with a fixed association, so float results are the same bits every run.
//
// device_reduce (reduce_kernels.cuh) is free to interleave: a thread folds vectors a block apart and
// threads combine by butterflies. Here every level combines neighbours in index order instead, in
// the same frame (the [head | body | tail] split, one contiguous share of the body per block, 16-byte
// loads, the partials and the last block's ticket):
//   1. a block's share is cut into one contiguous run per warp. A warp takes its run in tiles of
//      32 x VECS_PER_THREAD vectors, each lane the VECS_PER_THREAD consecutive vectors at its place
//      (so the warp's loads still cover one contiguous 2 KB), folds them left to right, and the warp
//      combines its lanes in lane order (warp_reduce_ordered) onto its running total
//      (warp_fold_vectors_ordered);
//   2. warps combine in warp order (block_reduce_ordered), blocks in block order: the last block to
//      arrive gives each thread a contiguous run of partials, then reduces its threads in order;
//   3. the head (elements before the first 128-byte boundary) goes in front, the tail behind.
// The price against device_reduce is one warp reduction per 2 KB tile of each warp (5 shuffle
// rounds per 64 bytes a lane loads) instead of one per block at the end, and a lane's loads touch
// every line twice (64 bytes a lane, not 16), which the L1 absorbs.
//
// The warp and block folds of a range (warp_fold_range_ordered, block_fold_range_ordered) also serve
// the order-preserving segmented reduce (ordered_segmented_reduce_kernels.cuh).
//
// Values combine in the operator's type, A = decltype(Op::identity()), which may be wider than the
// elements T: a user-defined int8 operator takes and returns ints holding bytes (it narrows its
// own results), as the built-in int8 scans do. The result is stored as a T.
//
// Self-contained like reduce_kernels.cuh, for NVRTC (GpuCustomReduce instantiates it).
#pragma once
#include "reduce_kernels.cuh"

namespace primer {

/** The type values combine in: the operator's (ints for a user-defined int8 operator). */
template <typename Op>
using OpValue = decltype(Op::identity());

/**
 * in[first] op ... op in[first + count - 1] in lane 0, count < 128 / sizeof(T): one element per
 * lane, and for 1- and 2-byte elements (a head of up to 127 bytes) 32 at a time. All 32 lanes call.
 */
template <typename T, typename Op>
__device__ __forceinline__ OpValue<Op> warp_fold_elements(const T* in, long long first, long long count, Op op) {
    using A = OpValue<Op>;
    const long long lane = threadIdx.x & 31;
    A total = warp_reduce_ordered(lane < count ? (A)in[first + lane] : Op::identity(), op);
    if constexpr ((int)sizeof(T) * 32 < ReducePolicyConstants::BODY_ALIGN_BYTES) {
        for (long long done = 32; done < count; done += 32) {
            total = op(total, warp_reduce_ordered(done + lane < count ? (A)in[first + done + lane] : Op::identity(), op));
        }
    }
    return total;
}

/** Element k (a constant) of a held vector, as the operator's type A; int8 from its words. */
template <typename A, typename T>
__device__ __forceinline__ A vector_item(const Vec16<T>& v, int k) { return (A)vector_element(v, k); }

/** This lane's VECS consecutive vectors of the warp tile at vector v (those before `end`). All 32 lanes call. */
template <int VECS, typename T>
__device__ __forceinline__ void load_lane_vectors(const Vec16<T>* body, long long v, long long end, Vec16<T> (&dst)[VECS]) {
    const long long mine = v + (long long)(threadIdx.x & 31) * VECS;
#pragma unroll
    for (int u = 0; u < VECS; ++u) {
        if (mine + u < end) dst[u] = load_vector(body + mine + u);
    }
}

/**
 * body[begin, end) (16-byte vectors) folded in index order, the total in lane 0 (other lanes hold
 * partial spans). The warp takes the range in tiles of 32 x VECS vectors, each lane the VECS
 * consecutive vectors at its place (so the warp's loads still cover one contiguous stretch), folds
 * them left to right, and the warp combines its lanes in lane order (warp_reduce_ordered) onto its
 * running total. Two tiles in flight: a tile's loads are issued before the previous tile is folded
 * (loading and folding one tile at a time, warps waited on their loads 79% of the time (ncu, float
 * sums) and streamed at 54% of the copy bandwidth). All 32 lanes call.
 */
template <int VECS, typename T, typename Op>
__device__ __forceinline__ OpValue<Op> warp_fold_vectors_ordered(const Vec16<T>* body, long long begin, long long end, Op op) {
    using V = Vec16<T>;
    using A = OpValue<Op>;
    constexpr int WARP_TILE_VECS = 32 * VECS;
    const int lane = threadIdx.x & 31;
    V items[VECS], next[VECS];
    if (begin < end) load_lane_vectors<VECS>(body, begin, end, items);
    A warp_total = Op::identity();
    for (long long v = begin; v < end; v += WARP_TILE_VECS) {
        const long long mine = v + (long long)lane * VECS;
        if (v + WARP_TILE_VECS < end) load_lane_vectors<VECS>(body, v + WARP_TILE_VECS, end, next);
        A lane_total = Op::identity();
#pragma unroll
        for (int u = 0; u < VECS; ++u) {
            if (mine + u < end) {
#pragma unroll
                for (int k = 0; k < V::ITEMS; ++k) lane_total = op(lane_total, vector_item<A>(items[u], k));
            }
        }
        warp_total = op(warp_total, warp_reduce_ordered(lane_total, op));
#pragma unroll
        for (int u = 0; u < VECS; ++u) items[u] = next[u];
    }
    return warp_total;
}

/**
 * base[0, length) folded in index order, the total in lane 0: the elements before the first 16-byte
 * boundary, the vectors (warp_fold_vectors_ordered), the elements after the last. base: aligned to
 * sizeof(T). All 32 lanes call. An empty head or tail (an aligned row's) is skipped, not reduced as
 * identities: each would cost a warp reduction.
 */
template <int VECS, typename T, typename Op>
__device__ __forceinline__ OpValue<Op> warp_fold_range_ordered(const T* base, long long length, Op op) {
    constexpr int VEC = Vec16<T>::ITEMS;
    const int misaligned = (int)((reinterpret_cast<unsigned long long>(base) & 15u) / sizeof(T));
    long long head = (VEC - misaligned) & (VEC - 1);
    if (head > length) head = length;
    const long long vectors = (length - head) / VEC;
    const long long tail_begin = head + vectors * VEC;
    OpValue<Op> total = warp_fold_vectors_ordered<VECS>(reinterpret_cast<const Vec16<T>*>(base + head), 0, vectors, op);
    if (head > 0) total = op(warp_fold_elements(base, 0, head, op), total);
    if (tail_begin < length) total = op(total, warp_fold_elements(base, tail_begin, length - tail_begin, op));
    return total;
}

/**
 * base[0, length) folded in index order by the whole block, the total in thread 0: a contiguous
 * run per warp (warp_fold_range_ordered), the warps' totals in warp order. Every thread calls.
 */
template <int BLOCK_THREADS, int VECS, typename T, typename Op>
__device__ __forceinline__ OpValue<Op> block_fold_range_ordered(const T* base, long long length, Op op) {
    constexpr int WARPS = BLOCK_THREADS / 32;
    constexpr long long RUN_ALIGN = 32 * Vec16<T>::ITEMS;  // whole 512-byte lines where base is aligned
    const int warp = threadIdx.x >> 5;
    long long run = (length + WARPS - 1) / WARPS;
    run = (run + RUN_ALIGN - 1) / RUN_ALIGN * RUN_ALIGN;
    const long long run_begin = warp * run < length ? warp * run : length;
    const long long run_end = run_begin + run < length ? run_begin + run : length;
    const OpValue<Op> warp_total = warp_fold_range_ordered<VECS>(base + run_begin, run_end - run_begin, op);
    return block_reduce_ordered<BLOCK_THREADS>((threadIdx.x & 31) == 0 ? warp_total : Op::identity(), op);
}

/**
 * The whole order-preserving reduce of in[0, n) into *result. The pointer must be aligned to
 * sizeof(T) (any 16-byte misalignment is fine); blockDim.x must equal BLOCK_THREADS; every thread of
 * every block must call it. scratch: as device_reduce's (unused with one block).
 */
template <int BLOCK_THREADS, int VECS_PER_THREAD, typename T, typename Op>
__device__ __forceinline__ void device_reduce_ordered(const T* __restrict__ in, long long n, T* __restrict__ result,
                                                      unsigned char* __restrict__ scratch, Op op) {
    using V = Vec16<T>;
    using A = OpValue<Op>;
    constexpr int WARPS = BLOCK_THREADS / 32;
    constexpr long long RUN_ALIGN = ReducePolicyConstants::SHARE_ALIGN_VECS;  // whole 512-byte lines
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;

    const ReduceSplit split = reduce_split(in, n);
    const V* body = reinterpret_cast<const V*>(in + split.head);

    // This warp's contiguous run of the block's share.
    long long run = (split.end - split.begin + WARPS - 1) / WARPS;
    run = (run + RUN_ALIGN - 1) / RUN_ALIGN * RUN_ALIGN;
    long long run_begin = split.begin + warp * run;
    if (run_begin > split.end) run_begin = split.end;
    long long run_end = run_begin + run;
    if (run_end > split.end) run_end = split.end;

    const A warp_total = warp_fold_vectors_ordered<VECS_PER_THREAD>(body, run_begin, run_end, op);
    A total = block_reduce_ordered<BLOCK_THREADS>(lane == 0 ? warp_total : Op::identity(), op);

    if (gridDim.x > 1) {
        if (!last_block_to_arrive(scratch, total)) return;
        const unsigned char* slots = scratch + ReducePolicyConstants::SCRATCH_HEADER_BYTES;
        const unsigned per_thread = (gridDim.x + BLOCK_THREADS - 1) / BLOCK_THREADS;
        const unsigned first = tid * per_thread;
        const unsigned last = first + per_thread < gridDim.x ? first + per_thread : gridDim.x;
        A partials = Op::identity();
        for (unsigned b = first; b < last; ++b) partials = op(partials, load_partial<A>(slots, b));
        total = block_reduce_ordered<BLOCK_THREADS>(partials, op);
    }
    if (warp == 0) {
        const A head = warp_fold_elements(in, 0, split.head, op);
        const A tail = warp_fold_elements(in, split.tail_begin, n - split.tail_begin, op);
        if (lane == 0) *result = (T)op(op(head, total), tail);
    }
}

}  // namespace primer
