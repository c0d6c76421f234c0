// A warp's 32 consecutive CSR segments, the pieces of segments_small (segments.cuh): where
// segments start (OffsetStarts, or RowStarts for rows as segments), reading the warp's bounds
// behind the offsets' gate (WarpSegments, read_warp_segments), folding a short segment in one lane
// (lane_fold) and queuing the long ones as work items for segments_long (queue_long_segments).
#pragma once
#include "policy.cuh"
#include "../../thread/copy_async.cuh"
#include "recipe.cuh"
#include "run_fold.cuh"
#include "segment_scratch.cuh"
#include "check_offsets.cuh"

namespace primer {
namespace segmented {

/** Segment s starts at offsets[s] (CSR segments). */
struct OffsetStarts {
    const long long* offsets;
    __device__ __forceinline__ long long operator()(long long s) const { return __ldg(offsets + s); }
};

/** Segment s starts at s * cols (the rows of a row-major matrix, as segments). */
struct RowStarts {
    long long cols;
    __device__ __forceinline__ long long operator()(long long s) const { return s * cols; }
};

/** A warp's view of its 32 consecutive segments (see read_warp_segments). */
struct WarpSegments {
    long long flat_base, flat_end;  // starts(0), starts(nseg)
    long long chunk_length;         // C
    long long start, end;           // this lane's segment, clamped into [flat_base, flat_end]
    bool valid;                     // this lane has a segment (first_segment + lane < nseg)
};

/**
 * Reads segment first_segment + lane's bounds for the whole warp; false (for the whole warp: read
 * and write nothing) when the gate is shut (`shut`, the caller's gate of check_offsets.cuh, read
 * in the same expression: the host throws, or takes another route). The gate's flag is loaded
 * beside the offsets, so it costs no round trip of its own. Behind the check the bounds test and
 * the clamps into [starts(0), starts(nseg)] never bind; they stay so that no read leaves `in` even
 * for offsets changed after the check ran.
 */
template <class Starts>
__device__ __forceinline__ bool read_warp_segments(Starts starts, long long first_segment, long long nseg,
                                                   long long in_length, bool shut, WarpSegments& w) {
    const long long s = first_segment + (threadIdx.x & 31);
    w.valid = s < nseg;
    w.flat_base = starts(0);
    w.flat_end = starts(nseg);
    long long start = w.valid ? starts(s) : 0, end = w.valid ? starts(s + 1) : 0;
    if (shut || w.flat_base < 0 || w.flat_end < w.flat_base || w.flat_end > in_length) return false;
    w.chunk_length = long_chunk_length(w.flat_end - w.flat_base);
    start = start < w.flat_base ? w.flat_base : start > w.flat_end ? w.flat_end : start;
    end = end < start ? start : end > w.flat_end ? w.flat_end : end;
    w.start = w.valid ? start : 0;
    w.end = w.valid ? end : 0;
    return true;
}

/**
 * Whether lane_fold sums each batch in 32 bits and adds the batch to the accumulator once: int8 sums
 * (eight values lie within +-2^10), whose 64-bit accumulator cost a sign extension, a select and two
 * adds a value. Step 87 (ncu, H200, 2^26 int8 values in uniform 1-8 segments): segments_short 116 ->
 * 99 us, 76.9 M -> 65.2 M warp instructions, 32 -> 21 registers
 * (bench/results/2026-11-26-nvidia-h200-step87-ab.md).
 */
template <class Rc> struct SumsBatchIn32 { static constexpr bool value = false; };
template <typename A, typename Out>
struct SumsBatchIn32<Recipe<int8_t, A, Out, Sum<A>>> { static constexpr bool value = true; };

/**
 * Whether segments_short's lanes issue each batch's loads before they fold the batch before it
 * (lane_fold's AHEAD): values of up to 4 bytes, a fold state of up to 8 bytes (ArgMin/ArgMax's
 * key and place since step 90, run_fold.cuh), and not SumsBatchIn32 (int8 sums, ALU-bound, not
 * waiting on loads). A lane's segment of 1-32 values took up to four round trips of SHORT_BATCH
 * loads one after another: ncu, H200, 2^26 float32 values in uniform 1-32 segments, the kernel
 * 106.8 -> 96.0 us (46.0 M -> 40.7 M warp instructions: whole batches fold without tests); uniform
 * 1-8 unchanged, 119.6 -> 118.9 us (step 87, bench/results/2026-11-26-nvidia-h200-step87-ab.md).
 * 8-byte values spilled 20-88 bytes at segments_short's 40 registers; ArgMin/ArgMax, folded as
 * (key, 64-bit index) pairs by ArgExtreme until step 90, had spilled 4 bytes (int8) at 32. Step 90
 * (2^26 float32 values in uniform 1-8 segments, argmax, ms): 0.222 -> 0.180-0.182 by keys, 0.179-0.180
 * by keys and ahead; ncu, segments_short 182.3 -> 138.4 us, 166.6 M -> 79.7 M warp instructions
 * (bench/results/2026-11-26-nvidia-h200-step90-ab.md).
 */
template <class Rc>
constexpr bool FoldsAhead = sizeof(typename Rc::T) <= 4 && sizeof(typename RunFold<Rc>::State) <= 8 &&
                            !SumsBatchIn32<Rc>::value;

/**
 * A short segment folded by one lane, in index order, SHORT_BATCH loads in flight. AHEAD: the next
 * batch's loads are issued before this batch is folded, and whole batches fold without tests.
 */
template <class Rc, bool AHEAD = false>
__device__ __forceinline__ typename Rc::A lane_fold(const typename Rc::T* __restrict__ in, long long start, int n) {
    using T = typename Rc::T;
    using A = typename Rc::A;
    constexpr int SHORT_BATCH = 8;
    using Fold = RunFold<Rc>;  // ArgMin/ArgMax by keys, the index within the segment as the place
    typename Rc::Op op;
    typename Fold::State acc = Fold::empty();
    if constexpr (AHEAD) {
        T items[SHORT_BATCH];
#pragma unroll
        for (int k = 0; k < SHORT_BATCH; ++k) {
            if (k < n) items[k] = in[start + k];
        }
        int i0 = 0;
#pragma unroll 1
        for (; i0 + SHORT_BATCH < n; i0 += SHORT_BATCH) {  // a whole batch, and another after it
            T next[SHORT_BATCH];
#pragma unroll
            for (int k = 0; k < SHORT_BATCH; ++k) {
                if (i0 + SHORT_BATCH + k < n) next[k] = in[start + i0 + SHORT_BATCH + k];
            }
#pragma unroll
            for (int k = 0; k < SHORT_BATCH; ++k) Fold::fold(acc, items[k], i0 + k);
#pragma unroll
            for (int k = 0; k < SHORT_BATCH; ++k) items[k] = next[k];
        }
#pragma unroll
        for (int k = 0; k < SHORT_BATCH; ++k) {  // the last batch
            if (i0 + k < n) Fold::fold(acc, items[k], i0 + k);
        }
    } else {
#pragma unroll 1  // a batch a trip: most short segments are one batch (int8 sums were unrolled by two)
        for (int i0 = 0; i0 < n; i0 += SHORT_BATCH) {
            if constexpr (SumsBatchIn32<Rc>::value) {
                int batch = 0;
#pragma unroll
                for (int k = 0; k < SHORT_BATCH; ++k) batch += i0 + k < n ? (int)in[start + i0 + k] : 0;
                long long wide;  // widened in asm: the compiler would otherwise widen every value instead
                asm("cvt.s64.s32 %0, %1;" : "=l"(wide) : "r"(batch));
                acc = op(acc, (A)wide);
            } else {
                T items[SHORT_BATCH];
#pragma unroll
                for (int k = 0; k < SHORT_BATCH; ++k) {
                    if (i0 + k < n) items[k] = in[start + i0 + k];
                }
#pragma unroll
                for (int k = 0; k < SHORT_BATCH; ++k) {
                    if (i0 + k < n) Fold::fold(acc, items[k], i0 + k);
                }
            }
        }
    }
    return Fold::result(acc, 0);
}

/**
 * Queues the long segments of the warp (lanes set in long_mask): one work item per ITEM_CHUNKS
 * chunks a segment meets and, for a segment of more than one item, its id for the combine. A
 * segment of one item is marked in the item's slot (-1 - s) and written by segments_long itself.
 * One reservation per warp on each counter (a scan of the lanes' item counts), then the whole warp
 * writes the items, one segment at a time. All 32 lanes call it.
 */
__device__ __forceinline__ void queue_long_segments(unsigned long_mask, const WarpSegments& w,
                                                    long long first_segment, unsigned char* scratch) {
    constexpr unsigned FULL = 0xffffffffu;
    if (long_mask == 0) return;  // a ballot: the same for the whole warp
    const int lane = threadIdx.x & 31;
    long long first_chunk = 0, items = 0;
    if ((long_mask >> lane) & 1u) {
        first_chunk = (w.start - w.flat_base) / w.chunk_length;
        const long long last_chunk = (w.end - 1 - w.flat_base) / w.chunk_length;
        // Clamped segments always lie within the chunks, so this guard never fires; it stays so that
        // nothing can overrun scratch.
        if (first_chunk < 0 || last_chunk >= Constants::MAX_CHUNKS) {
            atomicOr(malformed_flags(scratch), Constants::QUEUE_FULL);
        } else {
            items = (last_chunk - first_chunk) / Constants::ITEM_CHUNKS + 1;
        }
    }
    long long items_before = items;  // inclusive scan over the lanes, then exclusive
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
        const long long x = __shfl_up_sync(FULL, items_before, d);
        if (lane >= d) items_before += x;
    }
    const long long total_items = __shfl_sync(FULL, items_before, 31);
    items_before -= items;
    const unsigned combined = __ballot_sync(FULL, items > 1);
    unsigned long long item_base = 0, id_base = 0;
    if (lane == 0) {
        item_base = atomicAdd(item_count(scratch), (unsigned long long)total_items);
        if (combined) id_base = atomicAdd(long_count(scratch), (unsigned long long)__popc(combined));
        // Past a capacity only for overlapping segments, which the check refuses (offsets changed
        // since it ran could still get here): nothing is written there, the host is told.
        if (item_base + (unsigned long long)total_items > (unsigned long long)Constants::ITEM_CAPACITY
            || id_base + (unsigned long long)__popc(combined) > (unsigned long long)Constants::LONG_CAPACITY) {
            atomicOr(malformed_flags(scratch), Constants::QUEUE_FULL);
        }
    }
    item_base = __shfl_sync(FULL, item_base, 0);
    id_base = __shfl_sync(FULL, id_base, 0);
    if (items > 1) {
        const unsigned long long id = id_base + (unsigned long long)__popc(combined & ((1u << lane) - 1u));
        if (id < (unsigned long long)Constants::LONG_CAPACITY) long_segments(scratch)[id] = first_segment + lane;
    }
    for (unsigned pending = long_mask; pending; pending &= pending - 1) {
        const int b = __ffs(pending) - 1;
        const long long seg_start = __shfl_sync(FULL, w.start, b);
        const long long seg_end = __shfl_sync(FULL, w.end, b);
        const long long seg_first_chunk = __shfl_sync(FULL, first_chunk, b);
        const long long seg_items = __shfl_sync(FULL, items, b);
        const unsigned long long base = item_base + (unsigned long long)__shfl_sync(FULL, items_before, b);
        for (long long t = lane; t < seg_items; t += 32) {
            const long long chunk = seg_first_chunk + t * Constants::ITEM_CHUNKS;
            const long long chunk_begin = w.flat_base + chunk * w.chunk_length;
            const long long item_end = chunk_begin + Constants::ITEM_CHUNKS * w.chunk_length;
            if (base + t >= (unsigned long long)Constants::ITEM_CAPACITY) break;
            const long long slot = seg_items == 1 ? -1 - (first_segment + b)
                                                  : long_slot(seg_start, w.flat_base, w.chunk_length, chunk);
            work_items(scratch)[base + t] = LongWork{seg_start > chunk_begin ? seg_start : chunk_begin,
                                                     seg_end < item_end ? seg_end : item_end, seg_start, slot};
        }
    }
}

}  // namespace segmented
}  // namespace primer
