// CSR segmented reduce by merge path: every thread takes the same number of steps, whatever the
// segment lengths (Merrill & Garland's merge-based SpMV, ModernGPU's segreduce). The classic
// kernels (segmented_reduce_kernels.cuh) wait on the longest short segment of each warp of 32; the
// merge path does not, so it is taken where the offsets' check counts many idle lane steps
// (heavy-tailed lengths), and for int64 SUM (exact in 128 bits, whose classic kernels run at two
// blocks per SM) over many short segments.
//
//   The work is the merge of two sorted lists: the segment ends (offsets[1..nseg], "A") and the
//   value indices (0..n-1, "B"). Walking it, a thread either folds the next value into the open
//   segment or closes that segment: segment i closes before value j when end(i) <= j. So among the
//   first d steps, the A items are the segments with key(i) = end(i) + i + 1 <= d: a binary search.
//
//   merge_path_partition  a thread per tile boundary d = t * TILE: its A count, by binary search of
//                         the offsets, in blocks of the offsets' check launch (merge_path_searchers
//                         of them, ahead of the check's; the one launch: a warp each,
//                         merge_path_search_warp).
//   merge_path_walk       a block per tile of BLOCK * ITEMS steps (merge_path_stage first): the
//                         tile's values (cp.async) and offsets (clamped on the way) go to shared
//                         memory; each thread finds its first step by a binary search there and walks
//                         ITEMS steps, the open segment's end in a register; a block-wide segmented
//                         scan of the threads' open partials (a closed segment starts anew) gives
//                         each thread what precedes the first segment it closes. The tile's open
//                         partial goes to scratch, and so does its first segment's part when that
//                         segment began in an earlier tile. The standalone kernel walks this way only
//                         for ArgMin/ArgMax; integer sums and xor of up to 4 bytes take the same tiles'
//                         prefix differences (segmented_reduce/prefix_tile.cuh), the other recipes fold
//                         them by runs of values (marked_tile.cuh; merge_path_tile.cuh picks).
//   merge_path_fixup      a warp per such tile: folds the open partials of the tiles the segment
//                         spans, in tile order (each lane a contiguous run, eight loads in flight,
//                         then in lane order), then the tile's part, and writes the result; the
//                         whole block folds a segment spanning more than 256 tiles.
//   (Measured on an H200, 2^26 int64 values, bench/lab/segments_flat_lab.cu, 2026-11-22: power-law
//   lengths 0.695 -> 0.347 ms, a quarter of them empty 0.829 -> 0.373, all of one element 1.554 ->
//   0.946, uniform 1-8 0.394 -> 0.371, 100 or 3000 alike 1.01-1.09x, uniform 1-32 0.262 -> 0.279.
//   For the float recipes it lost up to 1.5x on uniform short segments and won 1.3-2.0x on power
//   laws: since step 57 the check's idle lane steps choose (GpuSegmentedReduce). int32 SUM in 128
//   bits keeps the classic kernels: a merge step costs what it costs for int64 while the classic
//   kernels read half the bytes; they were 1.29-1.91x faster on uniform 1-8, 1-32, all 100 and one
//   giant segment after short ones, 1.20-1.45x slower on the power laws and all-ones.)
//
// For inputs whose tiles fit one wave of resident blocks, one cooperative kernel does the check, the
// partition, the tiles and the fixup instead (segmented_reduce/one_launch.cuh), a tile per block.
//
// Every combination keeps the earlier operand on the left and which thread folds what depends only
// on the offsets, so results are bitwise reproducible (and the 128-bit sums exact anyway).
//
// Malformed offsets: the check (segmented_reduce/check_offsets.cuh) runs first, and the tile and
// fixup kernels do nothing when it refused them, nor when it routed the call to the classic kernels
// (the host may queue the tiles behind the check before it knows the route). (Before step 56 each
// tile checked the offsets it closed, and decreasing ones could leave tiles unchained, which sent
// the host back to the classic kernels for the message.) Every offset is still clamped into
// [offsets[0], offsets[nseg]] and every count into the tile, and a tile whose splits do not chain
// does nothing, so that even offsets changed after the check never make a kernel touch memory
// outside its buffers.
//
// Scratch (after the 256-byte header of segmented_reduce/scratch.cuh): tiles + 1 splits (int64, the
// A count at each boundary), padded to 16 bytes, then a 16-byte slot per tile for its open partial,
// then one per tile for its first segment's part.
#pragma once
#include "segmented_reduce_kernels.cuh"
#include "../block/block_reduce.cuh"
#include "../block/block_scan.cuh"
#include "../thread/copy_async.cuh"

namespace primer {
namespace segmented {

__device__ __forceinline__ long long* merge_path_splits(unsigned char* scratch) {
    return reinterpret_cast<long long*>(scratch + Constants::HEADER_BYTES);
}
template <typename A>
__device__ __forceinline__ A* merge_path_open_slot(unsigned char* scratch, long long tiles, long long t) {
    const long long splits_bytes = (8 * (tiles + 1) + 15) / 16 * 16;
    return reinterpret_cast<A*>(scratch + Constants::HEADER_BYTES + splits_bytes + t * Constants::SLOT_BYTES);
}
template <typename A>
__device__ __forceinline__ A* merge_path_first_slot(unsigned char* scratch, long long tiles, long long t) {
    return merge_path_open_slot<A>(scratch, tiles, tiles + t);
}

/** The flat range [base, end) the segments cover. */
struct FlatRange {
    long long base, end;
    __device__ __forceinline__ long long values() const { return end - base; }
    /** An offset clamped into the range, relative to its start. */
    __device__ __forceinline__ long long clamp(long long offset) const {
        return (offset < base ? base : offset > end ? end : offset) - base;
    }
};
/** Reads offsets[0] and offsets[nseg]; false (nothing may be read) for bad end offsets. */
__device__ __forceinline__ bool read_flat_range(const long long* offsets, long long nseg, long long in_length,
                                                FlatRange& r) {
    r.base = __ldg(offsets);
    r.end = __ldg(offsets + nseg);
    return r.base >= 0 && r.end >= r.base && r.end <= in_length;
}

/**
 * Tile boundary t in [0, tiles] (a thread each): splits[t] = the number of segments closed within
 * the first d = min(t * tile_items, nseg + values) merge steps (segment c closes there when
 * end(c) + c + 1 <= d), by binary search. Nothing for bad end offsets (the check refuses them).
 */
__device__ __forceinline__ void merge_path_partition(const long long* __restrict__ offsets, long long nseg,
                                                     long long in_length, long long tile_items, long long t,
                                                     unsigned char* __restrict__ scratch) {
    FlatRange range;
    if (!read_flat_range(offsets, nseg, in_length, range)) return;
    const long long values = range.values(), steps = nseg + values;
    const long long d = t * tile_items < steps ? t * tile_items : steps;
    long long lo = d - values > 0 ? d - values : 0, hi = d < nseg ? d : nseg;  // the count lies in [lo, hi]
    while (lo < hi) {
        const long long mid = lo + (hi - lo) / 2;
        if (range.clamp(__ldg(offsets + mid + 1)) + mid + 1 <= d) lo = mid + 1;
        else hi = mid;
    }
    merge_path_splits(scratch)[t] = lo;
}

/** Blocks of 256 threads that search the splits of `tiles` tiles (0 where tile_items is 0: none wanted). */
__host__ __device__ constexpr long long merge_path_searchers(long long tile_items, long long tiles) {
    return tile_items > 0 ? (tiles + 1 + Constants::BLOCK_THREADS - 1) / Constants::BLOCK_THREADS : 0;
}

/**
 * The same count by a whole warp (every lane gets it), for the one launch
 * (segmented_reduce/one_launch.cuh), where the search's dependent loads are most of its cost: a
 * 32-ary search, each round the lanes probe 32 evenly spaced counts at once and a ballot keeps the
 * stretch where closing stops, so 11,000 segments take 3 rounds of loads where the binary search
 * waits for 14 loads one after another (2^16 values: 2.9 -> 1.5 us above an empty kernel's time).
 * The merge path's own partition keeps the binary search: over 13,000 tiles the probes would read
 * some 30 times the lines.
 */
__device__ __forceinline__ long long merge_path_search_warp(const long long* __restrict__ offsets, long long nseg,
                                                            const FlatRange& range, long long tile_items, long long t) {
    const int lane = threadIdx.x & 31;
    const long long values = range.values(), steps = nseg + values;
    const long long d = t * tile_items < steps ? t * tile_items : steps;
    long long lo = d - values > 0 ? d - values : 0, hi = d < nseg ? d : nseg;  // the count lies in [lo, hi]
    while (lo < hi) {
        const long long step = (hi - lo + 31) / 32, probe = lo + lane * step;
        const bool closes = probe < hi && range.clamp(__ldg(offsets + probe + 1)) + probe + 1 <= d;
        const int k = __popc(__ballot_sync(0xffffffffu, closes));  // probes 0 .. k - 1 close (the ends are sorted)
        if (k == 0) {
            hi = lo;
        } else {  // the count lies past probe k - 1, up to probe k
            const long long next_hi = lo + k * step < hi ? lo + k * step : hi;
            lo += (k - 1) * step + 1;
            hi = next_hi;
        }
    }
    return lo;
}

/** Merge steps per thread for values of type T: as many as shared memory and registers allow. */
template <typename T>
__host__ __device__ constexpr int merge_path_items() {
    return sizeof(T) <= 4 ? Constants::MERGE_PATH_ITEMS_NARROW : Constants::MERGE_PATH_ITEMS;
}

/** Whether the accumulator carries an index (ArgMin/ArgMax): only then does the walk compute one. */
template <typename A> struct CarriesIndex { static constexpr bool value = false; };
template <typename T> struct CarriesIndex<KeyIndex<T>> { static constexpr bool value = true; };

/** merge_path_tile_end's partials as they are: the walk's ArgMin/ArgMax indices already count from the segment's start. */
struct SameFrame {
    template <typename A> __device__ __forceinline__ A closed(A a, int) const { return a; }
    template <typename A> __device__ __forceinline__ A open(A a) const { return a; }
};

template <class Rc, int BLOCK, int ITEMS>
struct MergePathStorage {
    static constexpr int TILE = BLOCK * ITEMS;
    static_assert(TILE < 65536, "bounds are 16-bit");
    unsigned short bounds[TILE + 1];  // offsets[i0 + k] - (the tile's first value), clamped into [0, nb]
    typename Rc::T values[TILE];
    BlockScanStorage<Segmented<typename Rc::A>, BLOCK> scan;
    long long first_start;  // offsets[i0] relative to the first value of all (clamped)
};

/** Tile t's share of the merge: segments [i0, i0 + na) close in it, values [j0, j0 + nb) fold in it. */
struct MergePathSpan {
    long long i0, j0;
    int na, nb;  // na + nb <= TILE
};

/**
 * Tile t's span, given the splits at its two boundaries (i0, i1) and tiles of tile_items steps;
 * false (the block does nothing) for a tile past the end (the host sizes the grid from an upper
 * bound) and for splits that do not chain.
 */
__device__ __forceinline__ bool merge_path_span_of(const FlatRange& range, long long nseg, long long tile_items,
                                                   long long t, long long i0, long long i1, MergePathSpan& span) {
    const long long steps = nseg + range.values();
    const long long d0 = t * tile_items < steps ? t * tile_items : steps;
    const long long d1 = d0 + tile_items < steps ? d0 + tile_items : steps;
    if (d0 >= d1) return false;
    const long long j0 = d0 - i0, j1 = d1 - i1;  // segments [i0, i1) close in this tile, values [j0, j1) fold in it
    if (i0 < 0 || i1 < i0 || i1 > nseg || j0 < 0 || j1 < j0 || j1 > range.values()) return false;
    span = {i0, j0, (int)(i1 - i0), (int)(j1 - j0)};
    return true;
}

/**
 * Tile t's span, from the partition's splits in scratch; false also where the merge path's gate is
 * shut (offsets the check refused, or a call it routed to the classic kernels: loaded beside the end
 * offsets) and for bad end offsets.
 */
__device__ __forceinline__ bool merge_path_span(const long long* offsets, long long nseg, long long in_length,
                                                long long tile_items, long long t, unsigned char* scratch,
                                                FlatRange& range, MergePathSpan& span) {
    const bool shut = merge_path_shut(scratch);
    if (!read_flat_range(offsets, nseg, in_length, range) || shut) return false;
    const long long* splits = merge_path_splits(scratch);
    return merge_path_span_of(range, nseg, tile_items, t, splits[t], splits[t + 1], span);
}

/**
 * Asks L2 for the values and offsets of tile t + MERGE_PATH_PREFETCH_AHEAD, whose block starts soon after this
 * one's, so that its staging and offsets meet L2 rather than DRAM (sm_90). One thread calls, after its own loads.
 */
template <typename T>
__device__ __forceinline__ void merge_path_prefetch_ahead(const T* in, const long long* offsets, const FlatRange& range,
                                                          long long nseg, long long tile_items, long long tiles, long long t,
                                                          unsigned char* scratch) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    const long long ahead = t + Constants::MERGE_PATH_PREFETCH_AHEAD;
    if (ahead >= tiles) return;
    const long long* splits = merge_path_splits(scratch);
    MergePathSpan span;
    if (!merge_path_span_of(range, nseg, tile_items, ahead, splits[ahead], splits[ahead + 1], span)) return;
    prefetch_l2(in + range.base + span.j0, (long long)span.nb * (long long)sizeof(T));
    prefetch_l2(offsets + span.i0, 8ll * (span.na + 1));
#endif
}

/**
 * A tile's end, once each thread has walked its steps: a block-wide segmented scan of the threads'
 * open partials (a thread that closed a segment starts anew) gives each thread what precedes its
 * first closed segment. That segment's result goes to results[first_closed] (segment i0 +
 * first_closed), or to *first_part when it is segment i0 and began in an earlier tile (first_start,
 * in shared memory, before the tile's first value j0): a fixup finishes it. Thread 0 leaves the
 * tile's open partial in *open_part (null: not wanted). `frame` turns a partial of segment i0 + k
 * into what leaves the tile (SameFrame: as it is; the marked tile's ArgMin/ArgMax: its index counted
 * from the segment's start).
 */
template <class Rc, int BLOCK, class Frame = SameFrame>
__device__ __forceinline__ void merge_path_tile_end(typename Rc::A acc, bool closed, typename Rc::A first_partial,
                                                    int first_closed, const long long& first_start, long long j0,
                                                    long long i0, BlockScanStorage<Segmented<typename Rc::A>, BLOCK>& scan,
                                                    typename Rc::A* first_part, typename Rc::A* open_part,
                                                    unsigned char* scratch, typename Rc::Out* results,
                                                    const Frame& frame = Frame{}) {
    using A = typename Rc::A;
    using Op = typename Rc::Op;
    Op op;
    const Segmented<A> mine[1] = {{acc, closed ? 1 : 0}};
    Segmented<A> before[1];
    NoBlockPrefix no_prefix;
    const Segmented<A> tile_open = block_scan_chunk_prefixes<BLOCK, 1>(mine, before, SegmentedOp<Op, A>{op}, scan,
                                                                      no_prefix);
    if (closed) {
        const A value = threadIdx.x == 0 ? first_partial : op(before[0].value, first_partial);
        const bool first_continues = first_start < j0;  // read after the scan: no register held across it
        if (first_closed == 0 && first_continues) *first_part = frame.closed(value, 0);
        else results[first_closed] = finish<Rc>(frame.closed(value, first_closed), i0 + first_closed, overflow_flag(scratch));
    }
    if (threadIdx.x == 0 && open_part != nullptr) *open_part = frame.open(tile_open.value);
}

/** An offset relative to the tile's first value, clamped into [0, nb]; garbage offsets wrap (no overflow) and clamp all the same. */
__device__ __forceinline__ int merge_path_local(long long offset, long long first_value, int nb) {
    const long long local = (long long)((unsigned long long)offset - (unsigned long long)first_value);
    return (int)(local < 0 ? 0 : local > nb ? nb : local);
}

/** Starts copying a tile's nb values to shared memory (cp.async, committed; 1-byte values by plain loads). */
template <typename T, int BLOCK>
__device__ __forceinline__ void merge_path_stage_values(const T* __restrict__ tile_values, int nb, T* values) {
    for (int k = threadIdx.x; k < nb; k += BLOCK) {
        if constexpr (sizeof(T) >= 4) copy_async(&values[k], tile_values + k);
        else values[k] = tile_values[k];
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
}

/**
 * Stages a tile: its values (cp.async; no registers held across the round trip) and its offsets,
 * each clamped into the tile, go to shared memory; ends with a barrier.
 */
template <class Rc, int BLOCK, int ITEMS>
__device__ __forceinline__ void merge_path_stage(const typename Rc::T* __restrict__ in,
                                                 const long long* __restrict__ offsets, const FlatRange& range,
                                                 const MergePathSpan& span, MergePathStorage<Rc, BLOCK, ITEMS>& smem) {
    const int tid = threadIdx.x;
    const long long i0 = span.i0;
    const int na = span.na, nb = span.nb;
    const long long first_value = range.base + span.j0;
    merge_path_stage_values<typename Rc::T, BLOCK>(in + first_value, nb, smem.values);
    constexpr int ROUNDS = 4;  // offsets in flight per thread
    for (int k0 = 0; k0 <= na; k0 += ROUNDS * BLOCK) {
        long long offset[ROUNDS];
#pragma unroll
        for (int r = 0; r < ROUNDS; ++r) {
            const int k = k0 + r * BLOCK + tid;
            offset[r] = k <= na ? __ldg(offsets + i0 + k) : 0;
        }
#pragma unroll
        for (int r = 0; r < ROUNDS; ++r) {
            const int k = k0 + r * BLOCK + tid;
            if (k <= na) {
                smem.bounds[k] = (unsigned short)merge_path_local(offset[r], first_value, nb);
                if (k == 0) smem.first_start = range.clamp(offset[r]);
            }
        }
    }
    asm volatile("cp.async.wait_all;" ::: "memory");
    __syncthreads();
}

/**
 * Walks a staged tile, `items` (<= ITEMS) merge steps per thread: each thread finds its first step
 * by a binary search in shared memory and walks its steps, the open segment's end in a register,
 * writing the segments it closes; then merge_path_tile_end.
 */
template <class Rc, int BLOCK, int ITEMS>
__device__ __forceinline__ void merge_path_walk(int items, const MergePathSpan& span,
                                                MergePathStorage<Rc, BLOCK, ITEMS>& smem,
                                                typename Rc::A* first_part, typename Rc::A* open_part,
                                                typename Rc::Out* __restrict__ out, unsigned char* __restrict__ scratch) {
    using T = typename Rc::T;
    using A = typename Rc::A;
    using Out = typename Rc::Out;
    using Op = typename Rc::Op;
    Op op;
    const long long i0 = span.i0, j0 = span.j0;
    const int na = span.na, nb = span.nb;
    // This thread's steps [k_begin, k_begin + count): where it enters the merge, then the walk.
    const int k_begin = threadIdx.x * items < na + nb ? threadIdx.x * items : na + nb;
    const int count = (k_begin + items < na + nb ? k_begin + items : na + nb) - k_begin;
    int lo = k_begin - nb > 0 ? k_begin - nb : 0, hi = k_begin < na ? k_begin : na;
    while (lo < hi) {  // the segments closed within the tile's first k_begin steps
        const int mid = (lo + hi) >> 1;
        if ((int)smem.bounds[mid + 1] + mid + 1 <= k_begin) lo = mid + 1;
        else hi = mid;
    }
    int ia = lo, jb = k_begin - lo;
    const int first_closed = ia;                                  // the first segment this thread may close
    int end = ia < na ? (int)smem.bounds[ia + 1] : nb + 1;        // the open segment's end; past nb: none
    long long start = 0;  // the open segment's start, relative to the tile (ArgMin/ArgMax only)
    if constexpr (CarriesIndex<A>::value) start = ia == 0 ? smem.first_start - j0 : (long long)smem.bounds[ia];
    bool closed = false;
    A first_partial = Op::identity();  // what this thread folded of its first closed segment
    A acc = Op::identity();
    unsigned long long* flag = overflow_flag(scratch);
    Out* tile_out = out + i0;
#pragma unroll
    for (int step = 0; step < ITEMS; ++step) {
        if (step < count) {
            if (end <= jb) {  // close segment i0 + ia
                if (closed) tile_out[ia] = finish<Rc>(acc, i0 + ia, flag);
                else first_partial = acc;
                closed = true;
                acc = Op::identity();
                if constexpr (CarriesIndex<A>::value) start = end;
                ++ia;
                end = ia < na ? (int)smem.bounds[ia + 1] : nb + 1;
            } else {
                acc = op(acc, Lift<T, A>::apply(smem.values[jb < nb ? jb : 0], jb - start));
                ++jb;
            }
        }
    }

    merge_path_tile_end<Rc, BLOCK>(acc, closed, first_partial, first_closed, smem.first_start, j0, i0, smem.scan,
                                   first_part, open_part, scratch, tile_out);
}

/** Open partials a fixup thread keeps in flight: a fold is a few rounds of loads, not one load per tile. */
constexpr int FIXUP_LOADS = 8;

/** The open partials of tiles [first, last), folded in tile order, FIXUP_LOADS loads at a time. */
template <typename A, typename Op>
__device__ __forceinline__ A fold_open_partials(unsigned char* scratch, long long tiles, long long first,
                                                long long last, Op op) {
    A acc = Op::identity();
    for (long long u = first; u < last; u += FIXUP_LOADS) {
        A part[FIXUP_LOADS];
#pragma unroll
        for (int k = 0; k < FIXUP_LOADS; ++k)
            part[k] = u + k < last ? *merge_path_open_slot<A>(scratch, tiles, u + k) : Op::identity();
#pragma unroll
        for (int k = 0; k < FIXUP_LOADS; ++k) acc = op(acc, part[k]);
    }
    return acc;
}

/**
 * Whether tile t closes a segment that began in an earlier tile; if so, that segment s and the first
 * tile `from` whose open partial belongs to it (the partials of tiles from .. t - 1 do).
 */
__device__ __forceinline__ bool merge_path_continues(const long long* offsets, const FlatRange& range, long long nseg,
                                                     long long tile_items, long long tiles, long long t,
                                                     unsigned char* scratch, long long& s, long long& from) {
    if (t == 0 || t >= tiles) return false;
    const long long d = t * tile_items;
    if (d >= nseg + range.values()) return false;
    const long long* splits = merge_path_splits(scratch);
    s = splits[t];
    if (splits[t + 1] <= s) return false;  // the tile closes no segment
    const long long start = range.clamp(__ldg(offsets + s));
    if (start >= d - s) return false;  // segment s begins in this tile
    // Segment s - 1 closed at step start + s - 1 (its end is s's start), in tile `from`.
    from = s == 0 ? 0 : (start + s - 1) / tile_items;
    return true;
}

/**
 * A warp per tile t, the block's tiles from first_tile on: if the tile closes a segment that began
 * in an earlier tile, folds the open partials of the tiles from the one where it began up to t - 1
 * (each lane a contiguous run, then in lane order), then the tile's own part, and writes the
 * result. A segment spanning more than WARP_SPAN tiles (one long segment among many short ones:
 * thousands of tiles) is folded by the whole block after its warps' own work, so that no single
 * warp's loads trail the launch. A block that fixes up more tiles after these must __syncthreads
 * first (the shared memory is reused).
 */
template <class Rc, int BLOCK>
__device__ __forceinline__ void merge_path_fixup(const long long* __restrict__ offsets, long long nseg,
                                                 long long in_length, long long tile_items, long long tiles,
                                                 long long first_tile, typename Rc::Out* __restrict__ out,
                                                 unsigned char* __restrict__ scratch) {
    using A = typename Rc::A;
    using Op = typename Rc::Op;
    using Out = typename Rc::Out;
    constexpr int WARPS = BLOCK / 32;
    constexpr long long WARP_SPAN = 32LL * FIXUP_LOADS;  // one round of loads per lane
    __shared__ long long long_from[WARPS], long_segment[WARPS];
    Op op;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    // Both block-uniform: no thread returns alone before the barrier below.
    if (merge_path_shut(scratch)) return;  // the host throws, or launches the classic kernels
    FlatRange range;
    if (!read_flat_range(offsets, nseg, in_length, range)) return;

    const long long t = first_tile + warp;
    long long s = 0, from = 0;
    const bool continues = merge_path_continues(offsets, range, nseg, tile_items, tiles, t, scratch, s, from);
    const bool long_span = continues && t - from > WARP_SPAN;
    if (continues && !long_span) {
        const long long per_lane = (t - from + 31) / 32;
        const long long first = from + lane * per_lane;
        A acc = fold_open_partials<A>(scratch, tiles, first, first + per_lane < t ? first + per_lane : t, op);
        acc = warp_reduce_ordered(acc, op);
        if (lane == 0) {
            acc = op(acc, *merge_path_first_slot<A>(scratch, tiles, t));
            out[s] = finish<Rc>(acc, s, overflow_flag(scratch));
        }
    }
    if (lane == 0) {
        long_from[warp] = long_span ? from : -1;
        long_segment[warp] = s;
    }
    __syncthreads();
    for (int w = 0; w < WARPS; ++w) {
        const long long from_w = long_from[w];
        if (from_w < 0) continue;  // the same for every thread
        const long long t_w = first_tile + w, per_thread = (t_w - from_w + BLOCK - 1) / BLOCK;
        const long long first = from_w + threadIdx.x * per_thread;
        A acc = first < t_w ? fold_open_partials<A>(scratch, tiles, first,
                                                    first + per_thread < t_w ? first + per_thread : t_w, op)
                            : Op::identity();
        acc = block_reduce_ordered<BLOCK>(acc, op);
        if (threadIdx.x == 0) {
            acc = op(acc, *merge_path_first_slot<A>(scratch, tiles, t_w));
            out[long_segment[w]] = finish<Rc>(acc, long_segment[w], overflow_flag(scratch));
        }
    }
}

}  // namespace segmented
}  // namespace primer
