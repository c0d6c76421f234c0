// CSR segmented reduce by merge path (lab code for segments_flat_lab.cu, not built by Maven; it needs
// the headers with segments_flat.patch applied). Four builds of the tile kernel: segments_flat,
// segments_flat2 (no branches in the walk, cp.async staging), segments_flat3 (the open segment's
// end in a register, 16-bit bounds, more steps per thread) and segments_flat4 (the walk by
// segment). Measured on the H200 on 2026-11-22 (lab file): flat3 beat the classic kernels 1.3-2.2x
// on power-law lengths and lost up to 1.5x on uniform short ones; Nsight Compute showed the kernels
// bound by instruction issue. flat3 became device/segmented_reduce_merge_path.cuh for the 128-bit
// sums; the rest stays here for the next attempt.
//
// The classic kernels (segmented_reduce_kernels.cuh) give a lane, a warp or a block to each
// segment; with millions of segments of a few elements (power-law lengths) a warp spends most of
// its instructions on bookkeeping for little data. Here every thread does the same amount of work
// whatever the lengths, as in Merrill & Garland's merge-based SpMV and ModernGPU's segreduce:
//
//   The work is the merge of two sorted lists: the segment ends (offsets[1..nseg], "A") and the
//   value indices (0..n-1, "B"); walking it, a thread either folds the next value into the open
//   segment or closes that segment. Segment i closes before value j when end(i) <= j, i.e. when
//   key(i) = end(i) + i + 1 <= (the diagonal i + j + 1): the number of A items among the first d
//   steps is the number of keys <= d, an upper bound found by search.
//
//   segments_flat_partition  a warp per tile boundary d = t * TILE finds its A count by a 33-way
//                            search of the offsets (five rounds of 32 loads for 10^7 segments).
//   segments_flat            a block per tile of TILE = BLOCK * ITEMS steps: it stages the tile's
//                            offsets and values in shared memory (coalesced), each thread finds its
//                            ITEMS steps by a binary search there, walks them, and a block-wide
//                            segmented scan of the threads' open partials (a closed segment is a
//                            head) gives each thread what precedes its first closed segment.
//                            Results leave through shared memory, coalesced. The tile's open
//                            partial goes to scratch; so does its first segment's partial when that
//                            segment began in an earlier tile.
//   segments_flat_fixup      a warp per tile whose first segment began earlier: it folds the open
//                            partials of the tiles the segment spans, in tile order, then the
//                            tile's own part, and writes the result.
//
// Every combination keeps the earlier operand on the left, and which thread folds what depends only
// on the offsets: non-commutative operators work and results are bitwise reproducible.
//
// Malformed offsets (checked as the classic path checks them; flags in the same scratch header):
// bad end offsets raise BAD_BOUNDS and nothing is read; each tile checks the pairs
// offsets[s] > offsets[s+1] of its A items (DECREASING, keeping the first such s). With decreasing
// offsets the searches may give tiles that do not chain (a tile's split below its predecessor's):
// such a tile raises UNSORTED and does nothing, and the host reruns the classic kernels for the
// exact message. Every offset is clamped into [offsets[0], offsets[nseg]] and every count into the
// tile, so no kernel touches memory outside its buffers whatever the offsets.
//
// Scratch (after the 256-byte header): tiles + 1 splits (int64, the A count at each boundary),
// padded to 16 bytes, then a 16-byte slot per tile for its open partial, then one per tile for its
// first segment's partial.
#pragma once
#include "device/segmented_reduce_kernels.cuh"
#include "block/block_scan.cuh"

namespace primer {
namespace segmented {

/** Malformed-offsets flag of the flat path: the tiles' splits did not chain (only for decreasing offsets). */
constexpr unsigned UNSORTED = 8;

__device__ __forceinline__ long long* flat_splits(unsigned char* scratch) {
    return reinterpret_cast<long long*>(scratch + Constants::HEADER_BYTES);
}
template <typename A>
__device__ __forceinline__ A* flat_open_slot(unsigned char* scratch, long long tiles, long long t) {
    const long long splits_bytes = (8 * (tiles + 1) + 15) / 16 * 16;
    return reinterpret_cast<A*>(scratch + Constants::HEADER_BYTES + splits_bytes + t * Constants::SLOT_BYTES);
}
template <typename A>
__device__ __forceinline__ A* flat_first_slot(unsigned char* scratch, long long tiles, long long t) {
    return flat_open_slot<A>(scratch, tiles, tiles + t);
}

/** The flat range [base, end) of the segments, or false (nothing may be read) for bad end offsets. */
struct FlatRange {
    long long base, end;
    __device__ __forceinline__ long long values() const { return end - base; }
    __device__ __forceinline__ long long clamp(long long offset) const {
        return (offset < base ? base : offset > end ? end : offset) - base;  // relative to base
    }
};
__device__ __forceinline__ bool read_flat_range(const long long* offsets, long long nseg, long long in_length,
                                                FlatRange& r) {
    r.base = __ldg(offsets);
    r.end = __ldg(offsets + nseg);
    return r.base >= 0 && r.end >= r.base && r.end <= in_length;
}

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
    if (lane == 0) flat_splits(scratch)[t] = lo;
}

/** The same with a thread per boundary and a binary search: fewer loads, more rounds. */
template <int BLOCK>
__device__ __forceinline__ void segments_flat_partition_thread(const long long* __restrict__ offsets, long long nseg,
                                                               long long in_length, long long tile_items, long long tiles,
                                                               unsigned char* __restrict__ scratch) {
    const long long t = (long long)blockIdx.x * BLOCK + threadIdx.x;
    if (t > tiles) return;
    FlatRange range;
    if (!read_flat_range(offsets, nseg, in_length, range)) {
        if (t == 0) atomicOr(malformed_flags(scratch), Constants::BAD_BOUNDS);
        return;
    }
    const long long values = range.values(), steps = nseg + values;
    const long long d = t * tile_items < steps ? t * tile_items : steps;
    long long lo = d - values > 0 ? d - values : 0, hi = d < nseg ? d : nseg;
    while (lo < hi) {
        const long long mid = lo + (hi - lo) / 2;
        if (range.clamp(__ldg(offsets + mid + 1)) + mid + 1 <= d) lo = mid + 1;
        else hi = mid;
    }
    flat_splits(scratch)[t] = lo;
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
    if (!read_flat_range(offsets, nseg, in_length, range)) return;  // the partition raised BAD_BOUNDS
    const long long steps = nseg + range.values();
    const long long d0 = t * TILE < steps ? t * TILE : steps;
    const long long d1 = d0 + TILE < steps ? d0 + TILE : steps;
    if (d0 >= d1) return;  // past the end: the host sizes the grid from an upper bound
    const long long* splits = flat_splits(scratch);
    const long long i0 = splits[t], i1 = splits[t + 1];
    const long long j0 = d0 - i0, j1 = d1 - i1;
    if (i0 < 0 || i1 < i0 || i1 > nseg || j0 < 0 || j1 < j0 || j1 > range.values()) {
        if (tid == 0) atomicOr(malformed_flags(scratch), UNSORTED);
        return;
    }
    const int na = (int)(i1 - i0), nb = (int)(j1 - j0);  // na + nb = d1 - d0 <= TILE

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

    // What precedes each thread's first closed segment within the tile: a segmented scan of the
    // threads' open partials, a thread that closed a segment starting anew.
    const Segmented<A> mine[1] = {{acc, closed ? 1 : 0}};
    Segmented<A> before[1];
    NoBlockPrefix no_prefix;
    const Segmented<A> tile_open = block_scan_chunk_prefixes<BLOCK, 1>(mine, before, SegmentedOp<Op, A>{op},
                                                                      smem.scan, no_prefix);
    // The tile's first segment began in an earlier tile: segments_flat_fixup finishes it.
    const bool first_continues = smem.first_start < j0;
    if (closed) {
        const A value = tid == 0 ? first_partial : op(before[0].value, first_partial);
        if (first_closed == 0 && first_continues) *flat_first_slot<A>(scratch, tiles, t) = value;
        else if (DIRECT) out[i0 + first_closed] = Finish<A, Out>::apply(value, i0 + first_closed, flag);
        else smem.results[first_closed] = Finish<A, Out>::apply(value, i0 + first_closed, flag);
    }
    if (tid == 0) *flat_open_slot<A>(scratch, tiles, t) = tile_open.value;
    if (DIRECT) return;
    __syncthreads();
    for (int k = tid; k < na; k += BLOCK) {
        if (k != 0 || !first_continues) out[i0 + k] = smem.results[k];
    }
}

/**
 * A warp per tile t: if the tile closes a segment that began in an earlier tile, folds the open
 * partials of the tiles from the one where it began up to t - 1 (each lane a contiguous run, then
 * in lane order), then the tile's own part, and writes the result.
 */
template <class Rc, int BLOCK>
__device__ __forceinline__ void segments_flat_fixup(const long long* __restrict__ offsets, long long nseg,
                                                    long long in_length, long long tile_items, long long tiles,
                                                    typename Rc::Out* __restrict__ out,
                                                    unsigned char* __restrict__ scratch) {
    using A = typename Rc::A;
    using Op = typename Rc::Op;
    Op op;
    const long long t = (long long)blockIdx.x * (BLOCK / 32) + (threadIdx.x >> 5);
    const int lane = threadIdx.x & 31;
    if (t == 0 || t >= tiles) return;
    if (*malformed_flags(scratch) != 0) return;  // the host throws or reruns the classic kernels
    FlatRange range;
    if (!read_flat_range(offsets, nseg, in_length, range)) return;
    const long long steps = nseg + range.values();
    const long long d = t * tile_items;
    if (d >= steps) return;
    const long long* splits = flat_splits(scratch);
    const long long s = splits[t];
    if (splits[t + 1] <= s) return;  // the tile closes no segment
    const long long start = range.clamp(__ldg(offsets + s));
    if (start >= d - s) return;  // segment s begins in this tile
    // Segment s-1 closed at step start + s - 1 (its end is s's start), in tile `from`; from then on
    // every tile's open partial belongs to s.
    const long long from = s == 0 ? 0 : (start + s - 1) / tile_items;
    const long long count = t - from;
    const long long per_lane = (count + 31) / 32;
    const long long first = from + lane * per_lane;
    const long long last = first + per_lane < t ? first + per_lane : t;
    A acc = Op::identity();
    for (long long u = first; u < last; ++u) acc = op(acc, *flat_open_slot<A>(scratch, tiles, u));
    acc = warp_reduce_ordered(acc, op);
    if (lane == 0) {
        acc = op(acc, *flat_first_slot<A>(scratch, tiles, t));
        out[s] = Finish<A, typename Rc::Out>::apply(acc, s, overflow_flag(scratch));
    }
}

/** An asynchronous 4- or 8-byte copy from global to shared memory (cp.async, sm_80 and later). */
template <typename T>
__device__ __forceinline__ void copy_async(T* shared, const T* global) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "cp.async copies 4, 8 or 16 bytes");
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"((unsigned)__cvta_generic_to_shared(shared)),
                 "l"(global), "n"((int)sizeof(T)) : "memory");
}

/** Whether the accumulator carries an index (ArgMin/ArgMax): only then does the walk compute one. */
template <typename A> struct CarriesIndex { static constexpr bool value = false; };
template <typename T> struct CarriesIndex<KeyIndex<T>> { static constexpr bool value = true; };

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
    if (!read_flat_range(offsets, nseg, in_length, range)) return;
    const long long steps = nseg + range.values();
    const long long d0 = t * TILE < steps ? t * TILE : steps;
    const long long d1 = d0 + TILE < steps ? d0 + TILE : steps;
    if (d0 >= d1) return;
    const long long* splits = flat_splits(scratch);
    const long long i0 = splits[t], i1 = splits[t + 1];
    const long long j0 = d0 - i0, j1 = d1 - i1;
    if (i0 < 0 || i1 < i0 || i1 > nseg || j0 < 0 || j1 < j0 || j1 > range.values()) {
        if (tid == 0) atomicOr(malformed_flags(scratch), UNSORTED);
        return;
    }
    const int na = (int)(i1 - i0), nb = (int)(j1 - j0);

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

    const Segmented<A> mine[1] = {{acc, closed ? 1 : 0}};
    Segmented<A> before[1];
    NoBlockPrefix no_prefix;
    const Segmented<A> tile_open = block_scan_chunk_prefixes<BLOCK, 1>(mine, before, SegmentedOp<Op, A>{op},
                                                                      smem.scan, no_prefix);
    const bool first_continues = smem.first_start < j0;
    if (closed) {
        const A value = tid == 0 ? first_partial : op(before[0].value, first_partial);
        if (first_closed == 0 && first_continues) *flat_first_slot<A>(scratch, tiles, t) = value;
        else tile_out[first_closed] = Finish<A, Out>::apply(value, i0 + first_closed, flag);
    }
    if (tid == 0) *flat_open_slot<A>(scratch, tiles, t) = tile_open.value;
}

template <class Rc, int BLOCK, int ITEMS>
struct Flat3Storage {
    static constexpr int TILE = BLOCK * ITEMS;
    static_assert(TILE < 65536, "bounds are 16-bit");
    unsigned short bounds[TILE + 1];  // offsets[i0 + k] - (first value of the tile), clamped into [0, nb]
    typename Rc::T values[TILE];
    BlockScanStorage<Segmented<typename Rc::A>, BLOCK> scan;
    long long first_start;  // offsets[i0] relative to the first value of all (clamped)
};

/**
 * segments_flat2 with a cheaper walk and more steps per thread: the end of the open segment stays
 * in a register (one shared load per closed segment, not per step), 16-bit bounds and values staged
 * by cp.async leave room for 20-odd steps, and the offsets come through registers four rounds at a
 * time, checked against their neighbour by a shuffle.
 */
template <class Rc, int BLOCK, int ITEMS>
__device__ __forceinline__ void segments_flat3(const typename Rc::T* __restrict__ in,
                                               const long long* __restrict__ offsets, long long nseg,
                                               long long in_length, long long tiles,
                                               typename Rc::Out* __restrict__ out, unsigned char* __restrict__ scratch) {
    using T = typename Rc::T;
    using A = typename Rc::A;
    using Out = typename Rc::Out;
    using Op = typename Rc::Op;
    constexpr int TILE = BLOCK * ITEMS;
    constexpr unsigned FULL = 0xffffffffu;
    __shared__ Flat3Storage<Rc, BLOCK, ITEMS> smem;
    Op op;
    const long long t = blockIdx.x;
    const int tid = threadIdx.x, lane = tid & 31;
    FlatRange range;
    if (!read_flat_range(offsets, nseg, in_length, range)) return;
    const long long steps = nseg + range.values();
    const long long d0 = t * TILE < steps ? t * TILE : steps;
    const long long d1 = d0 + TILE < steps ? d0 + TILE : steps;
    if (d0 >= d1) return;
    const long long* splits = flat_splits(scratch);
    const long long i0 = splits[t], i1 = splits[t + 1];
    const long long j0 = d0 - i0, j1 = d1 - i1;
    if (i0 < 0 || i1 < i0 || i1 > nseg || j0 < 0 || j1 < j0 || j1 > range.values()) {
        if (tid == 0) atomicOr(malformed_flags(scratch), UNSORTED);
        return;
    }
    const int na = (int)(i1 - i0), nb = (int)(j1 - j0);

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
    const int first_closed = ia;
    int end = ia < na ? (int)smem.bounds[ia + 1] : nb + 1;  // the open segment's end; past nb: none
    long long start = 0;  // the open segment's start, relative to the tile (ArgMin/ArgMax only)
    if constexpr (CarriesIndex<A>::value) start = ia == 0 ? smem.first_start - j0 : (long long)smem.bounds[ia];
    bool closed = false;
    A first_partial = Op::identity();
    A acc = Op::identity();
    unsigned long long* flag = overflow_flag(scratch);
    Out* tile_out = out + i0;
#pragma unroll
    for (int step = 0; step < ITEMS; ++step) {
        if (step < count) {
            if (end <= jb) {  // close segment i0 + ia
                if (closed) tile_out[ia] = Finish<A, Out>::apply(acc, i0 + ia, flag);
                else first_partial = acc;
                closed = true;
                acc = Op::identity();
                if constexpr (CarriesIndex<A>::value) start = end;
                ++ia;
                end = ia < na ? (int)smem.bounds[ia + 1] : nb + 1;
            } else {
                const T x = smem.values[jb < nb ? jb : 0];
                acc = op(acc, Lift<T, A>::apply(x, jb - start));
                ++jb;
            }
        }
    }

    const Segmented<A> mine[1] = {{acc, closed ? 1 : 0}};
    Segmented<A> before[1];
    NoBlockPrefix no_prefix;
    const Segmented<A> tile_open = block_scan_chunk_prefixes<BLOCK, 1>(mine, before, SegmentedOp<Op, A>{op},
                                                                      smem.scan, no_prefix);
    const bool first_continues = smem.first_start < j0;
    if (closed) {
        const A value = tid == 0 ? first_partial : op(before[0].value, first_partial);
        if (first_closed == 0 && first_continues) *flat_first_slot<A>(scratch, tiles, t) = value;
        else tile_out[first_closed] = Finish<A, Out>::apply(value, i0 + first_closed, flag);
    }
    if (tid == 0) *flat_open_slot<A>(scratch, tiles, t) = tile_open.value;
}

/**
 * segments_flat3 with the walk by segment: each thread finds where the next one starts (a second
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
    __shared__ Flat3Storage<Rc, BLOCK, ITEMS> smem;
    Op op;
    const long long t = blockIdx.x;
    const int tid = threadIdx.x, lane = tid & 31;
    FlatRange range;
    if (!read_flat_range(offsets, nseg, in_length, range)) return;
    const long long steps = nseg + range.values();
    const long long d0 = t * TILE < steps ? t * TILE : steps;
    const long long d1 = d0 + TILE < steps ? d0 + TILE : steps;
    if (d0 >= d1) return;
    const long long* splits = flat_splits(scratch);
    const long long i0 = splits[t], i1 = splits[t + 1];
    const long long j0 = d0 - i0, j1 = d1 - i1;
    if (i0 < 0 || i1 < i0 || i1 > nseg || j0 < 0 || j1 < j0 || j1 > range.values()) {
        if (tid == 0) atomicOr(malformed_flags(scratch), UNSORTED);
        return;
    }
    const int na = (int)(i1 - i0), nb = (int)(j1 - j0);

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

    const Segmented<A> mine[1] = {{acc, closed ? 1 : 0}};
    Segmented<A> before[1];
    NoBlockPrefix no_prefix;
    const Segmented<A> tile_open = block_scan_chunk_prefixes<BLOCK, 1>(mine, before, SegmentedOp<Op, A>{op},
                                                                      smem.scan, no_prefix);
    const bool first_continues = smem.first_start < j0;
    if (closed) {
        const A value = tid == 0 ? first_partial : op(before[0].value, first_partial);
        if (first_closed == 0 && first_continues) *flat_first_slot<A>(scratch, tiles, t) = value;
        else tile_out[first_closed] = Finish<A, Out>::apply(value, i0 + first_closed, flag);
    }
    if (tid == 0) *flat_open_slot<A>(scratch, tiles, t) = tile_open.value;
}

}  // namespace segmented
}  // namespace primer
