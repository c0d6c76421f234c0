// CSR segmented reduce by merge path: the lab's builds of the tile kernel beside production's
// (lab code for segments_flat_lab.cu, not built by Maven). The partition search by a thread per
// boundary (merge_path_partition, which production runs in the check's searcher blocks), the fixup,
// the scratch layout and build 5 (merge_path_walk: the open segment's end in a register, 16-bit
// bounds, cp.async staging) are production's, device/segmented_reduce_merge_path.cuh, whose header
// comment explains the method. Production's tile, merge_path_tile, now folds runs of values between
// marked segment ends (segmented_reduce/marked_tile.cuh) and keeps build 5 for ArgMin/ArgMax. Here:
//
//   segments_flat_partition  a warp per tile boundary finds its A count by a 33-way search of the
//                            offsets (five rounds of 32 loads for 10^7 segments): build 1's.
//   segments_flat            builds 1-2: offsets and values staged by plain loads, a merge test per
//                            step; results through shared memory (coalesced) or, DIRECT, straight
//                            to out.
//   segments_flat2           build 3-4: a walk without branches, cp.async staging of raw offsets.
//   segments_flat4           build 6: build 5 with the walk by segment (a second binary search, the
//                            values of each closed segment folded in a tight loop).
//
// Measured on the H200 on 2026-11-22 (lab file): build 5 beat the classic kernels 1.3-2.2x on
// power-law lengths and lost up to 1.5x on uniform short ones; Nsight Compute showed the kernels
// bound by instruction issue. Build 5 became production for the 128-bit sums over many short
// segments (since replaced by the marked tile but for ArgMin/ArgMax); the rest stays here for the
// next attempt.
#pragma once
// From production: slots, FlatRange, the partition, a tile's span and end, the fixup, the tile (marked_tile.cuh).
#include "device/segmented_reduce/marked_tile.cuh"

namespace primer {
namespace segmented {

/**
 * A warp per tile boundary t in [0, tiles]: splits[t] = the number of segments closed within the
 * first min(t * tile_items, nseg + values) merge steps. Raises BAD_BOUNDS for bad end offsets.
 */
template <int BLOCK>
__device__ __forceinline__ void segments_flat_partition(const long long* __restrict__ offsets, long long nseg,
                                                        long long in_length, long long tile_items, long long tiles,
                                                        unsigned char* __restrict__ scratch) {
    constexpr unsigned FULL = 0xffffffffu;
    const long long t = (long long)blockIdx.x * (BLOCK / 32) + (threadIdx.x >> 5);
    const int lane = threadIdx.x & 31;
    if (t > tiles) return;
    FlatRange range;
    if (!read_flat_range(offsets, nseg, in_length, range)) {
        if (t == 0 && lane == 0) atomicOr(malformed_flags(scratch), Constants::BAD_BOUNDS);
        return;
    }
    const long long values = range.values(), steps = nseg + values;
    const long long d = t * tile_items < steps ? t * tile_items : steps;
    // The answer lies in [lo, hi]: at most d A items, at least d - values.
    long long lo = d - values > 0 ? d - values : 0, hi = d < nseg ? d : nseg;
    while (lo < hi) {
        const long long probe = lo + (hi - lo) * (lane + 1) / 33;  // < hi, non-decreasing in lane
        const bool closed = range.clamp(__ldg(offsets + probe + 1)) + probe + 1 <= d;
        const int count = __popc(__ballot_sync(FULL, closed));  // lanes 0..count-1 (sorted offsets)
        const long long below = __shfl_sync(FULL, probe, count > 0 ? count - 1 : 0);
        const long long above = __shfl_sync(FULL, probe, count < 32 ? count : 31);
        if (count > 0) lo = below + 1;
        if (count < 32) hi = above;
    }
    if (lane == 0) merge_path_splits(scratch)[t] = lo;
}

/** Shared memory of segments_flat. */
template <class Rc, int BLOCK, int ITEMS, bool DIRECT>
struct FlatStorage {
    static constexpr int TILE = BLOCK * ITEMS;
    int bounds[TILE + 1];  // offsets[i0 + k] relative to the tile's first value, clamped into [0, nb]
    typename Rc::T values[TILE];
    typename Rc::Out results[DIRECT ? 1 : TILE];
    BlockScanStorage<Segmented<typename Rc::A>, BLOCK> scan;
    long long first_start;  // offsets[i0] relative to the first value of all (clamped)
};

/**
 * A block per tile of BLOCK * ITEMS merge steps; see the header comment. DIRECT: results go
 * straight to out instead of through shared memory.
 */
template <class Rc, int BLOCK, int ITEMS, bool DIRECT = false>
__device__ __forceinline__ void segments_flat(const typename Rc::T* __restrict__ in,
                                              const long long* __restrict__ offsets, long long nseg,
                                              long long in_length, long long tiles,
                                              typename Rc::Out* __restrict__ out, unsigned char* __restrict__ scratch) {
    using T = typename Rc::T;
    using A = typename Rc::A;
    using Out = typename Rc::Out;
    using Op = typename Rc::Op;
    constexpr int TILE = BLOCK * ITEMS;
    __shared__ FlatStorage<Rc, BLOCK, ITEMS, DIRECT> smem;
    Op op;
    const long long t = blockIdx.x;
    const int tid = threadIdx.x;
    FlatRange range;
    MergePathSpan span;
    if (!merge_path_span(offsets, nseg, in_length, TILE, t, scratch, range, span)) return;
    const long long i0 = span.i0, j0 = span.j0;
    const int na = span.na, nb = span.nb;

    // Stage the tile's offsets (checking its pairs) and values.
    for (int k = tid; k <= na; k += BLOCK) {
        const long long offset = __ldg(offsets + i0 + k);
        if (k < na && offset > __ldg(offsets + i0 + k + 1)) {
            atomicOr(malformed_flags(scratch), Constants::DECREASING);
            mark_overflow(first_decrease(scratch), i0 + k);  // keeps the smallest s
        }
        const long long rel = range.clamp(offset);
        if (k == 0) smem.first_start = rel;
        const long long local = rel - j0;
        smem.bounds[k] = (int)(local < 0 ? 0 : local > nb ? nb : local);
    }
    const T* tile_values = in + range.base + j0;
    for (int k = tid; k < nb; k += BLOCK) smem.values[k] = tile_values[k];
    __syncthreads();

    // This thread's steps [k_begin, k_end): where it enters the merge (binary search), then the walk.
    const int k_begin = tid * ITEMS < na + nb ? tid * ITEMS : na + nb;
    const int k_end = k_begin + ITEMS < na + nb ? k_begin + ITEMS : na + nb;
    int lo = k_begin - nb > 0 ? k_begin - nb : 0, hi = k_begin < na ? k_begin : na;
    while (lo < hi) {  // the number of segments closed within the tile's first k_begin steps
        const int mid = (lo + hi) >> 1;
        if (smem.bounds[mid + 1] + mid + 1 <= k_begin) lo = mid + 1;
        else hi = mid;
    }
    int ia = lo, jb = k_begin - lo;
    const int first_closed = ia;  // the segment this thread closes first, if it closes any
    bool closed = false;
    A first_partial = Op::identity();  // what this thread folded of that segment
    A acc = Op::identity();
    unsigned long long* flag = overflow_flag(scratch);
#pragma unroll
    for (int step = 0; step < ITEMS; ++step) {
        if (ia + jb < k_end) {
            if (ia < na && (jb >= nb || smem.bounds[ia + 1] <= jb)) {  // close segment i0 + ia
                if (closed) {
                    const Out r = Finish<A, Out>::apply(acc, i0 + ia, flag);
                    if (DIRECT) out[i0 + ia] = r;
                    else smem.results[ia] = r;
                }
                else first_partial = acc;
                closed = true;
                acc = Op::identity();
                ++ia;
            } else if (jb < nb) {
                const long long start = ia == 0 ? smem.first_start : j0 + smem.bounds[ia];
                acc = op(acc, Lift<T, A>::apply(smem.values[jb], j0 + jb - start));
                ++jb;
            }
        }
    }

    merge_path_tile_end<Rc, BLOCK>(acc, closed, first_partial, first_closed, smem.first_start, j0, i0, smem.scan,
                                   merge_path_first_slot<A>(scratch, tiles, t), merge_path_open_slot<A>(scratch, tiles, t),
                                   scratch, DIRECT ? out + i0 : smem.results);
    const bool first_continues = smem.first_start < j0;  // then its result is in the tile's first slot
    if (DIRECT) return;
    __syncthreads();
    for (int k = tid; k < na; k += BLOCK) {
        if (k != 0 || !first_continues) out[i0 + k] = smem.results[k];
    }
}

template <class Rc, int BLOCK, int ITEMS>
struct Flat2Storage {
    static constexpr int TILE = BLOCK * ITEMS;
    long long raw[TILE + 1];  // offsets[i0 + k] as loaded
    int bounds[TILE + 1];  // offsets[i0 + k] - (first value of the tile), clamped into [0, nb]
    typename Rc::T values[TILE];
    BlockScanStorage<Segmented<typename Rc::A>, BLOCK> scan;
    long long first_start;  // offsets[i0] relative to the first value of all (clamped)
};

/**
 * segments_flat with fewer instructions per step: offsets checked against their neighbour by a
 * shuffle, bounds in one 64-bit subtraction and a clamp, a walk without branches (every step loads
 * its candidate value and bound, selects, and stores a closed segment's result under a predicate),
 * results straight to out. ITEMS should be odd: a thread's values then lie an odd stride from its
 * neighbour's, free of shared-memory bank conflicts.
 */
template <class Rc, int BLOCK, int ITEMS>
__device__ __forceinline__ void segments_flat2(const typename Rc::T* __restrict__ in,
                                               const long long* __restrict__ offsets, long long nseg,
                                               long long in_length, long long tiles,
                                               typename Rc::Out* __restrict__ out, unsigned char* __restrict__ scratch) {
    using T = typename Rc::T;
    using A = typename Rc::A;
    using Out = typename Rc::Out;
    using Op = typename Rc::Op;
    constexpr int TILE = BLOCK * ITEMS;
    __shared__ Flat2Storage<Rc, BLOCK, ITEMS> smem;
    Op op;
    const long long t = blockIdx.x;
    const int tid = threadIdx.x;
    FlatRange range;
    MergePathSpan span;
    if (!merge_path_span(offsets, nseg, in_length, TILE, t, scratch, range, span)) return;
    const long long i0 = span.i0, j0 = span.j0;
    const int na = span.na, nb = span.nb;

    // Every load of the tile is issued before any is used (cp.async: no registers held), then one
    // wait: one round trip to memory per tile. The offsets arrive raw; a second pass checks and
    // clamps them.
    const long long first_value = range.base + j0;  // absolute index of the tile's first value
    const T* tile_values = in + first_value;
    for (int k = tid; k < nb; k += BLOCK) copy_async(&smem.values[k], tile_values + k);
    for (int k = tid; k <= na; k += BLOCK) copy_async(&smem.raw[k], offsets + i0 + k);
    asm volatile("cp.async.commit_group;\ncp.async.wait_all;" ::: "memory");
    __syncthreads();
    for (int k = tid; k <= na; k += BLOCK) {
        const long long offset = smem.raw[k];
        if (k < na && offset > smem.raw[k + 1]) {
            atomicOr(malformed_flags(scratch), Constants::DECREASING);
            mark_overflow(first_decrease(scratch), i0 + k);
        }
        const long long local = offset - first_value;  // clamping here also clamps into the range
        smem.bounds[k] = (int)(local < 0 ? 0 : local > nb ? nb : local);
        if (k == 0) smem.first_start = range.clamp(offset);
    }
    __syncthreads();

    const int k_begin = tid * ITEMS < na + nb ? tid * ITEMS : na + nb;
    const int count = (k_begin + ITEMS < na + nb ? k_begin + ITEMS : na + nb) - k_begin;
    int lo = k_begin - nb > 0 ? k_begin - nb : 0, hi = k_begin < na ? k_begin : na;
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if (smem.bounds[mid + 1] + mid + 1 <= k_begin) lo = mid + 1;
        else hi = mid;
    }
    int ia = lo, jb = k_begin - lo;
    const int first_closed = ia;
    bool closed = false;
    A first_partial = Op::identity();
    A acc = Op::identity();
    unsigned long long* flag = overflow_flag(scratch);
    Out* tile_out = out + i0;
#pragma unroll
    for (int step = 0; step < ITEMS; ++step) {
        const bool valid = step < count;
        const int end = smem.bounds[ia < na ? ia + 1 : na];
        const bool close = valid && ia < na && (jb >= nb || end <= jb);
        const bool take = valid && !close;
        const T x = smem.values[jb < nb ? jb : (nb > 0 ? nb - 1 : 0)];
        long long index = 0;
        if constexpr (CarriesIndex<A>::value) {
            const long long start = ia == 0 ? smem.first_start : j0 + smem.bounds[ia];
            index = j0 + jb - start;
        }
        const A folded = op(acc, Lift<T, A>::apply(x, index));
        if (close && closed) tile_out[ia] = Finish<A, Out>::apply(acc, i0 + ia, flag);
        if (close && !closed) first_partial = acc;
        closed = closed || close;
        acc = close ? Op::identity() : take ? folded : acc;
        ia += close ? 1 : 0;
        jb += take ? 1 : 0;
    }

    merge_path_tile_end<Rc, BLOCK>(acc, closed, first_partial, first_closed, smem.first_start, j0, i0, smem.scan,
                                   merge_path_first_slot<A>(scratch, tiles, t), merge_path_open_slot<A>(scratch, tiles, t),
                                   scratch, tile_out);
}


/**
 * Build 5 (merge_path_walk) with the walk by segment: each thread finds where the next one starts (a second
 * binary search), then folds the values of each segment it closes in a tight loop, and the open
 * tail after them: no merge test per value.
 */
template <class Rc, int BLOCK, int ITEMS>
__device__ __forceinline__ void segments_flat4(const typename Rc::T* __restrict__ in,
                                               const long long* __restrict__ offsets, long long nseg,
                                               long long in_length, long long tiles,
                                               typename Rc::Out* __restrict__ out, unsigned char* __restrict__ scratch) {
    using T = typename Rc::T;
    using A = typename Rc::A;
    using Out = typename Rc::Out;
    using Op = typename Rc::Op;
    constexpr int TILE = BLOCK * ITEMS;
    constexpr unsigned FULL = 0xffffffffu;
    __shared__ MergePathStorage<Rc, BLOCK, ITEMS> smem;
    Op op;
    const long long t = blockIdx.x;
    const int tid = threadIdx.x, lane = tid & 31;
    FlatRange range;
    MergePathSpan span;
    if (!merge_path_span(offsets, nseg, in_length, TILE, t, scratch, range, span)) return;
    const long long i0 = span.i0, j0 = span.j0;
    const int na = span.na, nb = span.nb;

    const long long first_value = range.base + j0;
    const T* tile_values = in + first_value;
    for (int k = tid; k < nb; k += BLOCK) {
        if constexpr (sizeof(T) >= 4) copy_async(&smem.values[k], tile_values + k);
        else smem.values[k] = tile_values[k];
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
    constexpr int ROUNDS = 4;  // offsets in flight per thread
    for (int k0 = 0; k0 <= na; k0 += ROUNDS * BLOCK) {  // uniform: the shuffles need whole warps
        long long offset[ROUNDS], next[ROUNDS];
#pragma unroll
        for (int r = 0; r < ROUNDS; ++r) {
            const int k = k0 + r * BLOCK + tid;
            offset[r] = k <= na ? __ldg(offsets + i0 + k) : 0;
            next[r] = lane == 31 && k < na ? __ldg(offsets + i0 + k + 1) : 0;
        }
#pragma unroll
        for (int r = 0; r < ROUNDS; ++r) {
            const int k = k0 + r * BLOCK + tid;
            const long long right = __shfl_down_sync(FULL, offset[r], 1);
            if (lane != 31) next[r] = right;
            if (k < na && offset[r] > next[r]) {
                atomicOr(malformed_flags(scratch), Constants::DECREASING);
                mark_overflow(first_decrease(scratch), i0 + k);
            }
            if (k <= na) {
                const long long local = offset[r] - first_value;
                smem.bounds[k] = (unsigned short)(local < 0 ? 0 : local > nb ? nb : local);
                if (k == 0) smem.first_start = range.clamp(offset[r]);
            }
        }
    }
    asm volatile("cp.async.wait_all;" ::: "memory");
    __syncthreads();

    const int k_begin = tid * ITEMS < na + nb ? tid * ITEMS : na + nb;
    const int count = (k_begin + ITEMS < na + nb ? k_begin + ITEMS : na + nb) - k_begin;
    int lo = k_begin - nb > 0 ? k_begin - nb : 0, hi = k_begin < na ? k_begin : na;
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if ((int)smem.bounds[mid + 1] + mid + 1 <= k_begin) lo = mid + 1;
        else hi = mid;
    }
    int ia = lo, jb = k_begin - lo;
    // Where the next thread starts: this thread closes segments [ia, ia_end) and folds values [jb, jb_end).
    const int k_last = k_begin + count;
    int lo2 = k_last - nb > 0 ? k_last - nb : 0, hi2 = k_last < na ? k_last : na;
    while (lo2 < hi2) {
        const int mid = (lo2 + hi2) >> 1;
        if ((int)smem.bounds[mid + 1] + mid + 1 <= k_last) lo2 = mid + 1;
        else hi2 = mid;
    }
    const int ia_end = lo2, jb_end = k_last - lo2;
    const int first_closed = ia;
    long long start = 0;  // the open segment's start, relative to the tile (ArgMin/ArgMax only)
    if constexpr (CarriesIndex<A>::value) start = ia == 0 ? smem.first_start - j0 : (long long)smem.bounds[ia];
    A first_partial = Op::identity();
    A acc = Op::identity();
    unsigned long long* flag = overflow_flag(scratch);
    Out* tile_out = out + i0;
    int j = jb;
    for (int s = ia; s < ia_end; ++s) {  // segments closing here: fold up to each one's end
        const int end = smem.bounds[s + 1];
#pragma unroll 4
        for (; j < end; ++j) acc = op(acc, Lift<T, A>::apply(smem.values[j], j - start));
        if (s == ia) first_partial = acc;
        else tile_out[s] = Finish<A, Out>::apply(acc, i0 + s, flag);
        acc = Op::identity();
        if constexpr (CarriesIndex<A>::value) start = end;
    }
#pragma unroll 4
    for (; j < jb_end; ++j) acc = op(acc, Lift<T, A>::apply(smem.values[j], j - start));
    const bool closed = ia_end > ia;

    merge_path_tile_end<Rc, BLOCK>(acc, closed, first_partial, first_closed, smem.first_start, j0, i0, smem.scan,
                                   merge_path_first_slot<A>(scratch, tiles, t), merge_path_open_slot<A>(scratch, tiles, t),
                                   scratch, tile_out);
}

}  // namespace segmented
}  // namespace primer
