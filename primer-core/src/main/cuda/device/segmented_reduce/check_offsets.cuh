// The offsets' check, a launch of its own queued before every kernel that reads CSR offsets: its
// flags shut the gate those kernels load as they start, so a segmented reduce refuses bad offsets
// before it writes a byte of out, as the CPU backend does. (Before step 56 the kernels checked as
// they reduced, and after an exception out held whatever the good segments had written.) The cost
// is one more launch and one more read of the offsets, which weighs most where segments are
// shortest: 2^26 float32 values in 12.8M power-law segments (offsets 28% of the bytes) 0.355-0.357
// -> 0.375-0.390 ms, int64 on the merge path 0.366-0.368 -> 0.375-0.377 ms, 2^16 values 29-32 ->
// 31-35 us (A/B on one H200, bench/results/2026-11-24-nvidia-h200-step56-check-ab.md).
//
// Since step 57 it also measures how unevenly the classic kernels would share the segments among
// their lanes and hands that, with the end offsets and the first decrease, to the host as a verdict
// in pinned memory: the host then launches the classic kernels or the merge path
// (GpuSegmentedReduce.launchRouted), or nothing for bad offsets. Since step 58 the one launch
// (one_launch.cuh) runs the same pair check in its first phase, without the idle steps, its grid
// barrier in place of the ticket.
//
// Since step 62 it also writes the merge path's splits (SPLITS below), which a kernel of their own
// found before by binary search: for 2^26 float32 values in 12.8M power-law segments that launch
// took 16 us, a chain of some 24 dependent loads per tile boundary.
#pragma once
#include "policy.cuh"
#include "recipe.cuh"
#include "segment_scratch.cuh"

namespace primer {
namespace segmented {

/**
 * Raises BAD_BOUNDS unless 0 <= offsets[0] <= offsets[nseg] <= in_length, and hands back both ends.
 * One thread of the grid calls it.
 */
__device__ __forceinline__ void check_offset_ends(const long long* __restrict__ offsets, long long nseg,
                                                  long long in_length, unsigned char* __restrict__ scratch,
                                                  long long& begin, long long& end) {
    begin = offsets[0];
    end = offsets[nseg];
    if (begin < 0 || end < begin || end > in_length) {
        atomicOr(malformed_flags(scratch), Constants::BAD_BOUNDS);
        __threadfence();  // bad offsets only: before whatever tells the other blocks
    }
}

/**
 * SPLITS. Where the check writes the merge path's splits (segmented_reduce_merge_path.cuh): the A
 * count at each tile boundary d = t * tile_items, t in [0, tiles], for tiles of tile_items steps.
 * In the merge of segment ends and values, segment k closes at step key(k) = end(k) + k + 1
 * (offsets relative to offsets[0]), so the boundaries in [key(k - 1), key(k)) close exactly k
 * segments, and splits[t] = k there: no search, and no read beyond the pairs the check reads
 * anyway. A warp's 32 consecutive pairs cover the steps [key(first - 1), key(last)) without gap, so
 * the warp walks the boundaries in that stretch (with short segments, none or one), a ballot
 * finding the lane whose pair holds each. One division per warp and round: a division per pair
 * (in doubles) took the check from 33 to 82 us over 12.8M segments. A warp that holds a decrease or
 * an offset outside [offsets[0], offsets[nseg]] writes nothing (the host throws for those
 * offsets); one whose stretch holds more than SPLITS_PER_WARP boundaries (a segment of some
 * 750,000 values or more) writes none of them and raises the SPLITS_MISSING word, and the host
 * then runs the partition (merge_path_partition) as before. So the check stays bounded whatever the
 * offsets.
 */
struct SplitsTarget {
    long long* splits;      // null: no splits wanted (classic-only recipes, tests of the verdict)
    long long tile_items;   // merge steps per tile
    long long tiles;        // entries [0, tiles] exist
    double per_tile;        // 1 / tile_items
    long long base, end;    // offsets[0] and offsets[nseg]
};

__device__ __forceinline__ unsigned long long* splits_missing(unsigned char* scratch) {
    return reinterpret_cast<unsigned long long*>(scratch + Constants::SPLITS_MISSING_OFFSET);
}

/**
 * The splits of the tile boundaries a warp's pairs (this lane's: k, here, next; k - lane the
 * warp's first) close (SPLITS). Called by whole warps, after they found no decrease among them.
 */
__device__ __forceinline__ void write_warp_splits(const SplitsTarget& target, long long nseg, long long k,
                                                  long long here, long long next, unsigned char* __restrict__ scratch) {
    constexpr unsigned FULL = 0xffffffffu;
    const int lane = threadIdx.x & 31;
    const long long first = k - lane;
    if (first >= nseg) return;  // the same in every lane
    const int last_lane = nseg - first < 32 ? (int)(nseg - first) - 1 : 31;
    const bool valid = lane <= last_lane;
    if (__any_sync(FULL, valid && (here < target.base || next > target.end))) return;  // the host throws
    const long long lo = (here - target.base) + k, hi = (next - target.base) + k + 1;
    const long long from = __shfl_sync(FULL, lo, 0), to = __shfl_sync(FULL, hi, last_lane);
    const long long tile = target.tile_items;
    // The first boundary at or past `from`: a double product within one of from / tile (an integer
    // division took more registers than the pair loop has to spare), corrected.
    long long t = (long long)((double)from * target.per_tile);
    t += t * tile < from ? 1 : 0;
    t -= t > 0 && (t - 1) * tile >= from ? 1 : 0;
    if (to - t * tile > Constants::SPLITS_PER_WARP * tile) {  // more than that many boundaries in [from, to)
        if (lane == 0) {
            atomicOr(splits_missing(scratch), 1ull);
            __threadfence();  // rare: before this block's ticket, as the flags above
        }
        return;
    }
    for (long long d = t * tile; d < to && t <= target.tiles; d += tile, ++t) {
        const unsigned holder = __ballot_sync(FULL, valid && lo <= d && d < hi);  // one lane: the stretches chain
        if (lane == __ffs(holder) - 1) target.splits[t] = k;
    }
    // The boundary at the last step, or past it (to = every step): every segment closed there.
    if (first + last_lane == nseg - 1 && lane == 0 && t <= target.tiles) target.splits[t] = nseg;
}

/**
 * Strided over k in [0, nseg) from `first` (this thread's index among the threads that check; a
 * multiple of 32 at lane 0) by `stride` (how many check): offsets[k] > offsets[k + 1] raises
 * DECREASING and keeps the smallest such k (first_decrease), in the scratch header, for the gate and
 * the host. A pass over the offsets alone is bound by bandwidth: each thread keeps ROUNDS pairs of
 * loads in flight (the second of a pair mostly hits the line of the first). Called by whole warps.
 *
 * With COUNT_IDLE it also measures what the classic kernels would waste on these segments, and
 * returns it (the warp's, in every lane): a warp of segments_small folds its short segments (<=
 * SHORT_SEGMENT) a lane each, for as many steps as the longest of them, so the warp's lanes idle for
 * 32 * (longest short) - (sum of short lengths) steps. A warp's 32 lanes here read the same 32
 * consecutive segments as one warp there. Heavy-tailed lengths idle most (power law: 2.6 idle steps
 * per value; uniform 1-8 or 1-32 lengths 0.8-0.9; all alike 0), and that is where the merge path,
 * which gives every thread the same number of steps, wins (GpuSegmentedReduce routes by it).
 *
 * With a target (SPLITS), each pair also writes the merge path's splits it knows.
 */
template <bool COUNT_IDLE>
__device__ __forceinline__ unsigned long long check_offset_pairs(const long long* __restrict__ offsets, long long nseg,
                                                                 unsigned char* __restrict__ scratch, long long first,
                                                                 long long stride, const SplitsTarget& target = {}) {
    constexpr int ROUNDS = 4;
    constexpr unsigned FULL = 0xffffffffu;
    const int lane = threadIdx.x & 31;
    bool decreased = false;
    unsigned long long idle = 0;
    // k0 - lane is the warp's first segment: the loop is the same for the whole warp (the lanes
    // reduce together below), and that segment is a multiple of 32, as in segments_small.
    for (long long k0 = first; k0 - lane < nseg; k0 += ROUNDS * stride) {
        long long here[ROUNDS], next[ROUNDS];
#pragma unroll
        for (int r = 0; r < ROUNDS; ++r) {
            const long long k = k0 + r * stride;
            here[r] = k < nseg ? __ldg(offsets + k) : 0;
            next[r] = k < nseg ? __ldg(offsets + k + 1) : 0;
        }
#pragma unroll
        for (int r = 0; r < ROUNDS; ++r) {
            const bool decreases = here[r] > next[r];
            if (decreases && !decreased) {  // in k order: the first found is this thread's smallest
                decreased = true;
                atomicOr(malformed_flags(scratch), Constants::DECREASING);
                mark_overflow(first_decrease(scratch), k0 + r * stride);  // keeps the smallest, as the overflow flag
                __threadfence();
            }
            if (target.splits != nullptr && !__any_sync(FULL, decreases))
                write_warp_splits(target, nseg, k0 + r * stride, here[r], next[r], scratch);
            if constexpr (COUNT_IDLE) {
                const long long length = next[r] - here[r];
                const unsigned short_length =
                    length >= 0 && length <= Constants::SHORT_SEGMENT ? (unsigned)length : 0u;
                const unsigned longest = __reduce_max_sync(FULL, short_length);
                const unsigned folded = __reduce_add_sync(FULL, short_length);
                idle += 32ull * longest - folded;
            }
        }
    }
    return idle;
}

/**
 * The check: the end offsets (the grid's first thread) and every pair (check_offset_pairs, counting
 * idle steps). The idle steps go to the idle counter of the header, one atomic per block; the last
 * block through (a ticket) takes them and puts counter and ticket back to zero, so they are zero
 * between calls, and when `verdict` (pinned host memory the host polls; null for none) is given
 * writes verdict[0..4] = offsets[0], offsets[nseg], the first-decrease word (0 for none, else
 * 2^63 - k), the idle steps and whether splits are missing (SPLITS; it puts that word back to zero
 * too). With tile_items > 0 it writes the merge path's splits for tiles of that many steps, entries
 * [0, tiles] of scratch's splits (the host sizes scratch for them).
 */
__device__ __forceinline__ void check_offsets(const long long* __restrict__ offsets, long long nseg,
                                              long long in_length, unsigned char* __restrict__ scratch,
                                              unsigned long long* verdict, long long tile_items, long long tiles) {
    __shared__ unsigned long long warp_idle[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    long long begin = 0, end = 0;  // thread 0's: the last block's goes to the verdict
    if (threadIdx.x == 0) {
        if (blockIdx.x == 0) check_offset_ends(offsets, nseg, in_length, scratch, begin, end);
        else begin = offsets[0], end = offsets[nseg];
    }
    SplitsTarget target{};
    if (tile_items > 0) {
        target = {merge_path_splits(scratch), tile_items, tiles, 1.0 / (double)tile_items, __ldg(offsets),
                  __ldg(offsets + nseg)};
    }
    const unsigned long long idle = check_offset_pairs<true>(offsets, nseg, scratch,
                                                             (long long)blockIdx.x * blockDim.x + threadIdx.x,
                                                             (long long)gridDim.x * blockDim.x, target);
    if (lane == 0) warp_idle[warp] = idle;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long block_idle = 0;
        for (int w = 0; w < (int)(blockDim.x >> 5); ++w) block_idle += warp_idle[w];
        if (block_idle != 0) atomicAdd(idle_counter(scratch), block_idle);
        // Release: this block's flags and idle steps are in before its ticket; acquire: the last
        // block sees every block's (as reduce_kernels.cuh's finish).
        unsigned long long ticket;
        asm volatile("atom.acq_rel.gpu.global.add.u64 %0, [%1], 1;" : "=l"(ticket) : "l"(check_ticket(scratch)) : "memory");
        if (ticket == gridDim.x - 1) {
            const unsigned long long total_idle = atomicExch(idle_counter(scratch), 0ull);
            const unsigned long long missing = atomicExch(splits_missing(scratch), 0ull);
            *check_ticket(scratch) = 0;
            if (verdict != nullptr) {
                verdict[0] = (unsigned long long)begin;
                verdict[1] = (unsigned long long)end;
                verdict[2] = atomicAdd(first_decrease(scratch), 0ull);
                verdict[3] = total_idle;
                verdict[4] = missing;
            }
        }
    }
}

/**
 * The gate: whether the check refused the offsets. A kernel behind it loads this beside its first
 * offsets (one round trip, not two) and, if it is set, reads and writes nothing.
 */
__device__ __forceinline__ bool offsets_refused(const unsigned char* scratch) {
    return *reinterpret_cast<const unsigned*>(scratch + Constants::MALFORMED_OFFSET) != 0u;
}

}  // namespace segmented
}  // namespace primer
