// CSR segments, one result per segment values[offsets[s], offsets[s+1]), in three launches:
// segments_small (a warp per 32 consecutive segments; short ones by a lane, medium ones by the
// warp, long ones queued), segments_long (persistent blocks, a block per queued work item) and
// segments_combine (a block per long segment of several items folds their partials in order); or,
// where every segment is short, in one: segments_short.
//
// (Measured on an H200, 2^26 float32 values, 2026-11-21 (bench/lab/segments_lab.cu): power-law
// lengths 0.434 -> 0.339 ms from the fourth block per SM; segments of 3000 elements 0.213 ->
// 0.113 ms from the direct write and the per-warp reservation (the combine had cost a block per
// segment, the queue a serial atomic per long lane). Staging each warp's segments in shared
// memory with one round of 16-byte loads was slower at every occupancy: the small kernel waits
// on too few warps, not on the loads of each. 2026-11-22: laying a warp's short segments end to
// end, shared equally by its lanes, took 1.15-3.6x as long, and 16 or 32 loads per lane_fold
// batch gained 7% on uniform 1-32 lengths only and lost elsewhere: the kernel issues about 400
// instructions per warp of 32 power-law segments at half the issue rate, so fewer instructions
// per warp is the way on.)
#pragma once
#include "../../warp/warp_reduce.cuh"
#include "../../block/block_reduce.cuh"
#include "policy.cuh"
#include "recipe.cuh"
#include "group_fold.cuh"
#include "scratch.cuh"
#include "segment_scratch.cuh"
#include "warp_segments.cuh"

namespace primer {
namespace segmented {

/**
 * A warp per 32 consecutive segments; see ../segmented_reduce_kernels.cuh. in_length: the elements of in;
 * offsets[0] and offsets[nseg] must lie in [0, in_length], else nothing is read.
 */
template <class Rc, int BLOCK>
__device__ __forceinline__ void segments_small(const typename Rc::T* __restrict__ in,
                                               const long long* __restrict__ offsets, long long nseg,
                                               long long in_length, typename Rc::Out* __restrict__ out,
                                               unsigned char* __restrict__ scratch) {
    using T = typename Rc::T;
    using A = typename Rc::A;
    using Out = typename Rc::Out;
    constexpr unsigned FULL = 0xffffffffu;
    typename Rc::Op op;
    const int lane = threadIdx.x & 31;
    const long long first_segment = ((long long)blockIdx.x * (BLOCK / 32) + (threadIdx.x >> 5)) * 32;
    if (first_segment >= nseg) return;  // the whole warp
    WarpSegments w;
    const bool shut = offsets_refused(scratch);
    if (!read_warp_segments(OffsetStarts{offsets}, first_segment, nseg, in_length, shut, w)) return;
    const long long s = first_segment + lane;
    const long long length = w.end - w.start;
    unsigned long long* flag = overflow_flag(scratch);

    // Short: this lane alone.
    if (w.valid && length <= Constants::SHORT_SEGMENT) out[s] = finish<Rc>(lane_fold<Rc>(in, w.start, (int)length), s, flag);

    // Medium: the whole warp, two segments at a time.
    unsigned medium = __ballot_sync(FULL, w.valid && length > Constants::SHORT_SEGMENT && length <= w.chunk_length);
    while (medium) {
        const int a = __ffs(medium) - 1;
        medium &= medium - 1;
        const int b = medium ? __ffs(medium) - 1 : a;
        const bool two = medium != 0;
        if (two) medium &= medium - 1;
        const long long start_a = __shfl_sync(FULL, w.start, a);
        const long long start_b = __shfl_sync(FULL, w.start, b);
        const T* base[2] = {in + start_a, in + start_b};
        const int lengths[2] = {(int)(__shfl_sync(FULL, w.end, a) - start_a),
                                two ? (int)(__shfl_sync(FULL, w.end, b) - start_b) : 0};
        const long long index_offset[2] = {0, 0};
        A acc[2] = {Rc::Op::identity(), Rc::Op::identity()};
        group_fold<32, Constants::MEDIUM_VECS_PER_LANE, 2, int, Rc>(base, lengths, index_offset, lane, acc);
        acc[0] = warp_reduce(acc[0], op);
        acc[1] = warp_reduce(acc[1], op);
        if (lane == 0) {
            out[first_segment + a] = finish<Rc>(acc[0], first_segment + a, flag);
            if (two) out[first_segment + b] = finish<Rc>(acc[1], first_segment + b, flag);
        }
    }

    // Long: queued for segments_long.
    queue_long_segments(__ballot_sync(FULL, w.valid && length > w.chunk_length), w, first_segment, scratch);
}

/**
 * Whether segments_short's blocks ask L2 ahead (segments_short_prefetch_ahead): on sm_90, where segments
 * average at most SHORT_PREFETCH_SEGMENT_BYTES of values. 2^26 values over uniform lengths 1-8, ms
 * (step 91, bench/results/2026-11-26-nvidia-h200-step91-ab.md): int8 sums 0.141-0.145 -> 0.129 (the
 * kernel 99 -> 88 us), float32 argmax 0.179-0.183 -> 0.178-0.179, float32 sums 1-2% faster. Farther
 * than about 16 MB past the blocks running the lines were evicted before use: float32 over uniform
 * lengths 1-32 (66 bytes a segment) ran 2-3% slower with it, so it asks nothing there. Asked as each
 * block starts, 128 or 256 blocks ahead, it gained less (int8 0%, 5%).
 */
template <typename T>
__device__ __forceinline__ bool segments_short_prefetches(const WarpSegments& w, long long nseg) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    return (w.flat_end - w.flat_base) * (long long)sizeof(T) <= nseg * Constants::SHORT_PREFETCH_SEGMENT_BYTES;
#else
    return false;
#endif
}

/**
 * Asks L2 for what block b + SHORT_PREFETCH_AHEAD will read (b: this block): its values, bounded by
 * offsets that block b - SHORT_PREFETCH_AHEAD asked for (so these two loads meet L2), and the offsets
 * of block b + 2 * SHORT_PREFETCH_AHEAD. Called as the block ends, when the blocks up to about b +
 * 8 x SMs are already resident (1056 on an H200): 1536 lies some 500 blocks past them.
 */
template <typename T, int BLOCK>
__device__ __forceinline__ void segments_short_prefetch_ahead(const T* in, const long long* offsets, long long nseg,
                                                              long long in_length) {
    const long long far = ((long long)blockIdx.x + 2 * Constants::SHORT_PREFETCH_AHEAD) * BLOCK;
    if (far < nseg) prefetch_l2(offsets + far, 8 * ((nseg - far < BLOCK ? nseg - far : BLOCK) + 1));
    const long long near = ((long long)blockIdx.x + Constants::SHORT_PREFETCH_AHEAD) * BLOCK;
    if (near < nseg) {
        long long a = offsets[near], b = offsets[near + BLOCK < nseg ? near + BLOCK : nseg];
        a = a < 0 ? 0 : a > in_length ? in_length : a;  // behind the check these never bind
        b = b < a ? a : b > in_length ? in_length : b;
        prefetch_l2(in + a, (b - a) * (long long)sizeof(T));
    }
}

/**
 * segments_small for segments the offsets' check found all short (<= SHORT_SEGMENT): a lane per
 * segment and nothing else, so the kernel needs 25-40 registers instead of 55-64 (62 for the
 * user-defined operators' ordered segments_small), and an SM holds six or eight of its blocks
 * instead of two to four (three): warps in flight counted most there (see the top of this file).
 * The host takes it on the classic route when the check finds every value in a short segment, and
 * then launches no segments_long or segments_combine. Its gate opens only where the check raised
 * ROUTED_SHORT (check_offsets.cuh), so the host may queue it before it has the verdict. A segment
 * that grew past SHORT_SEGMENT since the check (offsets changed meanwhile) is still folded by its
 * lane, within the clamped bounds. Each lane folds in index order, so it serves operators that do
 * not commute (GpuCustomSegmentedReduce takes it too).
 * Measured (H200, 2^26 float32 values, A/B three rounds, bench/results/2026-11-25-nvidia-h200-
 * step75-ab.md): uniform lengths 1-8 (14.9M segments) 0.241-0.249 -> 0.172-0.179 ms, the kernel
 * 189 us at 41% achieved occupancy (segments_small, step 73's ncu) -> 119 us at 83%; uniform 1-32
 * 0.146-0.153 -> 0.130-0.134 ms. A user-defined operator (affine maps over int64, uniform 1-8,
 * step76-ab.md): 0.298-0.313 -> 0.244-0.277 ms, the kernel 223 -> 176 us at 91% of DRAM.
 * Step 86 (2026-11-26-nvidia-h200-step86-ab.md): int8 over uniform 1-8 is bound by the ALU pipe (81%
 * busy; DRAM 52%): the fold's bounds tests, clamps and predicated loads. Not kept: one wave of warps
 * taking group after group with the next group's offsets in flight (int8 1-3% slower, float32 3%
 * faster), and int8 values loaded a word at a time (24% more instructions, 19% slower). Step 87 summed
 * int8 batches in 32 bits (lane_fold, SumsBatchIn32): 116 -> 99 us; and had lanes issue each batch's
 * loads before folding the one before (FoldsAhead): float32 over uniform 1-32, 107 -> 96 us.
 */
template <class Rc, int BLOCK>
__device__ __forceinline__ void segments_short(const typename Rc::T* __restrict__ in,
                                               const long long* __restrict__ offsets, long long nseg,
                                               long long in_length, typename Rc::Out* __restrict__ out,
                                               unsigned char* __restrict__ scratch) {
    const long long first_segment = ((long long)blockIdx.x * (BLOCK / 32) + (threadIdx.x >> 5)) * 32;
    if (first_segment >= nseg) return;  // the whole warp
    WarpSegments w;
    const bool shut = short_route_shut(scratch);  // the route's own gate: it may be queued before the verdict
    if (!read_warp_segments(OffsetStarts{offsets}, first_segment, nseg, in_length, shut, w)) return;
    const bool prefetches = threadIdx.x == 0 && segments_short_prefetches<typename Rc::T>(w, nseg);
    const long long s = first_segment + (threadIdx.x & 31);
    if (w.valid) {
        const typename Rc::A acc = lane_fold<Rc, FoldsAhead<Rc>>(in, w.start, (int)(w.end - w.start));
        out[s] = finish<Rc>(acc, s, overflow_flag(scratch));
    }
    if (prefetches) segments_short_prefetch_ahead<typename Rc::T, BLOCK>(in, offsets, nseg, in_length);
}

/**
 * segments_short's blocks per SM (its launch bounds' minimum): eight for values of up to 4 bytes
 * (27-37 registers unbounded on sm_80, sm_89 and sm_90), six for 8-byte ones (37-40); at most six
 * where an SM runs 1536 threads (sm_86, sm_87, sm_89).
 */
__host__ __device__ constexpr int segments_short_blocks(int value_bytes) {
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 870 || __CUDA_ARCH__ == 890)
    return 6;
#else
    return value_bytes <= 4 ? 8 : 6;
#endif
}

/**
 * Persistent blocks: a block per queued work item, its partial into the item's slot, or, for an
 * item that is its whole segment (slot -1 - s), the result into out[s].
 */
template <class Rc, int BLOCK, int U>
__device__ __forceinline__ void segments_long(const typename Rc::T* __restrict__ in, typename Rc::Out* __restrict__ out,
                                              unsigned char* __restrict__ scratch) {
    using A = typename Rc::A;
    typename Rc::Op op;
    if (offsets_refused(scratch)) return;  // the host throws
    const long long items = clamp_count(*item_count(scratch), Constants::ITEM_CAPACITY);
    const LongWork* work = work_items(scratch);
    for (long long i = blockIdx.x; i < items; i += gridDim.x) {
        const LongWork item = work[i];
        const typename Rc::T* base[1] = {in + item.begin};
        const long long length[1] = {item.end > item.begin ? item.end - item.begin : 0};
        const long long index_offset[1] = {item.begin - item.index_base};
        A acc[1] = {Rc::Op::identity()};
        group_fold<BLOCK, U, 1, long long, Rc>(base, length, index_offset, threadIdx.x, acc);
        const A total = block_reduce<BLOCK>(acc[0], op);
        if (threadIdx.x == 0) {
            if (item.slot >= 0) {
                *partial_slot<A>(scratch, item.slot) = total;
            } else {
                const long long s = -1 - item.slot;
                out[s] = finish<Rc>(total, s, overflow_flag(scratch));
            }
        }
    }
}

/**
 * Persistent blocks: a block per long segment of several items folds their partials in order. ORDERED (for
 * operators that need not commute): each thread folds a contiguous run of the partials and the
 * threads combine in thread order; otherwise threads take every BLOCK-th partial, four loads in
 * flight, and combine by butterflies. starts: OffsetStarts or RowStarts, as for the small kernel.
 */
template <class Rc, int BLOCK, bool ORDERED = false, class Starts = OffsetStarts>
__device__ __forceinline__ void segments_combine(Starts starts, long long nseg, typename Rc::Out* __restrict__ out,
                                                 unsigned char* __restrict__ scratch) {
    using A = typename Rc::A;
    typename Rc::Op op;
    if (offsets_refused(scratch)) return;  // the host throws
    const long long longs = clamp_count(*long_count(scratch), Constants::LONG_CAPACITY);
    if (longs == 0) return;
    const long long flat_base = starts(0);
    const long long chunk_length = long_chunk_length(starts(nseg) - flat_base);
    const long long* ids = long_segments(scratch);
    for (long long i = blockIdx.x; i < longs; i += gridDim.x) {
        const long long s = ids[i];
        const long long seg_start = starts(s);
        const long long seg_end = starts(s + 1);
        const long long first_chunk = (seg_start - flat_base) / chunk_length;
        const long long items = ((seg_end - 1 - flat_base) / chunk_length - first_chunk) / Constants::ITEM_CHUNKS + 1;
        auto partial = [&](long long k) {
            return *partial_slot<A>(scratch, long_slot(seg_start, flat_base, chunk_length,
                                                        first_chunk + k * Constants::ITEM_CHUNKS));
        };
        A acc = Rc::Op::identity();
        A total;
        if constexpr (ORDERED) {
            const long long per_thread = (items + BLOCK - 1) / BLOCK;
            const long long first = threadIdx.x * per_thread;
            const long long last = first + per_thread < items ? first + per_thread : items;
            for (long long k = first; k < last; ++k) acc = op(acc, partial(k));
            total = block_reduce_ordered<BLOCK>(acc, op);
        } else {
#pragma unroll 4
            for (long long k = threadIdx.x; k < items; k += BLOCK) acc = op(acc, partial(k));
            total = block_reduce<BLOCK>(acc, op);
        }
        if (threadIdx.x == 0) out[s] = finish<Rc>(total, s, overflow_flag(scratch));
    }
}

}  // namespace segmented
}  // namespace primer
