// A segmented reduce in one launch: the offsets' check and the merge path (its partition, tiles and
// fixup: segmented_reduce_merge_path.cuh) in one cooperative kernel, a block per tile, one grid
// barrier (grid_barrier.cuh) between the check and the first write. Its verdict reaches the host in
// pinned memory as the kernel ends, so a call costs one launch and one wait.
//
// Why: behind the check, a call cost the check, a round trip for its verdict and three more
// launches: 25-39 us for float32 sums of 2^16 to 2^20 values. A first one launch (step 58) ran the
// same kernels as phases with a barrier between each: 21-27 us. Stamps of %globaltimer in each
// block (bench/lab/one_launch_lab.cu, H200, 2026-11-24, 2^16 values in 14 tiles of 23 steps per
// thread) showed where its 13 us of kernel time went: 5.7 us in the tiles, 3.0 of them in the
// walk, where each of a thread's 23 dependent steps cost some 260 cycles with one block per SM and
// nothing to hide them behind; 2.2 us before the first barrier let anyone through (the partition's
// searches, by two blocks, after the check); 0.8-1.0 us per barrier; 2 us for the fixup after the
// second. Hence this shape:
//
//   - tiles of `items` steps per thread, chosen by the host (SegmentedReducePolicy.oneLaunchItems)
//     so that the tiles about fill the SMs, a block each: short walks where there is room;
//   - each block searches its own tile's two boundaries (warps 0 and 1, 32-ary) while the other
//     warps check the offsets, stages its tile in shared memory and folds the part of its values
//     that belongs to the segment still open at its end (the tile's open partial), for the tiles
//     after it;
//   - one grid barrier: past it the check's flags and every open partial are in;
//   - each block walks its staged tile and writes the segments it closes; the first of them, when
//     it began in an earlier tile, takes the open partials of the tiles since (warp 0) in front.
//
// Measured the same way (events around the kernel, float32 SUM): 2^16 values 17.9-18.0 -> 13.5-13.7
// us, 2^20 20.1-20.5 -> 17.6-18.6 us. Most of it is the shorter walks: step 58's kernel at 4 steps
// per thread took 14.7-14.9 us at 2^16 (bench/results/2026-11-24-nvidia-h200-step59-one-launch.md).
//
// The barrier must precede the first write, because a call with bad offsets writes nothing. A
// tile's shared memory lives across it, so a block holds one tile: the grid is the tiles, and the
// host takes this path only when they fit one wave of resident blocks.
//
//   the last block out (grid_depart) writes verdict[0..3] = offsets[0], offsets[nseg], the
//   first-decrease word and the overflow flag, and puts those flags back to zero; the host throws
//   for bad offsets (nothing was written) or an overflow.
//
// Scratch: the header (segmented_reduce/scratch.cuh), then the open partials in the merge path's
// layout for gridDim.x tiles (the splits' room unused).
#pragma once
#include "../grid_barrier.cuh"
#include "../segmented_reduce_merge_path.cuh"
#include "check_offsets.cuh"

namespace primer {
namespace segmented {

__device__ __forceinline__ unsigned long long* grid_arrivals_word(unsigned char* scratch) {
    return reinterpret_cast<unsigned long long*>(scratch + Constants::ARRIVALS_OFFSET);
}

/**
 * The fold, in value order, of the staged tile's values that belong to the segment open at its end
 * (all of them when the tile closes none): the tile's open partial, in thread 0. Each thread folds
 * a contiguous run, then the block in thread order (block_reduce_ordered).
 */
template <class Rc, int BLOCK, int ITEMS>
__device__ __forceinline__ typename Rc::A merge_path_open_fold(const MergePathSpan& span,
                                                               const MergePathStorage<Rc, BLOCK, ITEMS>& smem) {
    using T = typename Rc::T;
    using A = typename Rc::A;
    using Op = typename Rc::Op;
    Op op;
    // The open segment's start relative to the tile: an index within the segment is j - start.
    const long long start = span.na > 0 ? (long long)smem.bounds[span.na] : smem.first_start - span.j0;
    const int first = span.na > 0 ? smem.bounds[span.na] : 0;
    const int per_thread = (span.nb - first + BLOCK - 1) / BLOCK;
    const int begin = first + threadIdx.x * per_thread;
    const int end = begin + per_thread < span.nb ? begin + per_thread : span.nb;
    A acc = Op::identity();
    for (int j = begin; j < end; ++j) acc = op(acc, Lift<T, A>::apply(smem.values[j], j - start));
    return block_reduce_ordered<BLOCK>(acc, op);
}

/** See the header comment; grid: the tiles, at most one wave of resident blocks, launched cooperatively. */
template <class Rc, int BLOCK, int ITEMS>
__device__ __forceinline__ void merge_path_one_launch(const typename Rc::T* __restrict__ in,
                                                      const long long* __restrict__ offsets, long long nseg,
                                                      long long in_length, int items,
                                                      typename Rc::Out* __restrict__ out,
                                                      unsigned char* __restrict__ scratch,
                                                      unsigned long long* verdict) {
    using A = typename Rc::A;
    using Op = typename Rc::Op;
    constexpr int SEARCHERS = 2;  // warps: one per tile boundary
    static_assert(BLOCK > 32 * SEARCHERS, "warps left to check the offsets");
    __shared__ MergePathStorage<Rc, BLOCK, ITEMS> smem;
    __shared__ long long splits[SEARCHERS];
    __shared__ A earlier;  // the open partials of earlier tiles that belong to this tile's first segment
    __shared__ A first_part;
    Op op;
    const long long t = blockIdx.x, tiles = gridDim.x, tile_items = (long long)BLOCK * items;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    unsigned long long* arrivals = grid_arrivals_word(scratch);

    // Before the barrier: the check, this tile's boundaries, its staging and its open partial.
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
        check_offset_pairs_strided<false>(offsets, nseg, scratch, t * checkers + checker, tiles * checkers);
    }
    __syncthreads();
    MergePathSpan span;
    const bool has_tile = ends_ok && merge_path_span_of(range, nseg, tile_items, t, splits[0], splits[1], span);
    if (has_tile) {  // the same in every thread
        merge_path_stage<Rc, BLOCK, ITEMS>(in, offsets, range, span, smem);
        const A open = merge_path_open_fold<Rc, BLOCK, ITEMS>(span, smem);
        if (threadIdx.x == 0) *merge_path_open_slot<A>(scratch, tiles, t) = open;
    }
    grid_barrier(arrivals, 1);

    // After it: nothing is written when the check refused the offsets (the same in every block).
    // The first segment began in an earlier tile when it starts before this tile's first value; the
    // open partials of tiles `from` (where the segment before it closed) .. t - 1 are its. They load
    // beside the check's flags, in one round trip.
    const bool refused = offsets_refused(scratch);
    const long long s = has_tile ? span.i0 : 0, start = smem.first_start;
    const bool continues = has_tile && span.na > 0 && start < span.j0;  // the same in every thread
    if (continues && warp == 0) {
        const long long from = s == 0 ? 0 : (start + s - 1) / tile_items;
        const long long per_lane = (t - from + 31) / 32, run = from + lane * per_lane;
        A acc = fold_open_partials<A>(scratch, tiles, run < t ? run : t, run + per_lane < t ? run + per_lane : t, op);
        acc = warp_reduce_ordered(acc, op);
        if (lane == 0) earlier = acc;
    }
    if (has_tile && !refused) {
        merge_path_walk<Rc, BLOCK, ITEMS>(items, span, smem, &first_part, nullptr, out, scratch);
        if (continues) {
            __syncthreads();  // first_part and earlier are in
            if (threadIdx.x == 0) out[s] = finish<Rc>(op(earlier, first_part), s, overflow_flag(scratch));
        }
    }

    if (grid_depart(arrivals, 1) && threadIdx.x == 0) {
        verdict[0] = (unsigned long long)offsets[0];
        verdict[1] = (unsigned long long)offsets[nseg];
        verdict[2] = *first_decrease(scratch);
        verdict[3] = *overflow_flag(scratch);
        *malformed_flags(scratch) = 0;
        *first_decrease(scratch) = 0;
        *overflow_flag(scratch) = 0;
    }
}

}  // namespace segmented
}  // namespace primer
