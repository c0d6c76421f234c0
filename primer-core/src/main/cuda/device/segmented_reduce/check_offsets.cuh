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
// Since step 62 the merge path's partition rides in the same launch (segreduce_check_offsets in
// ../segmented_reduce.cu): a search of some two dozen dependent loads per tile boundary, latency
// that the check's pass over the offsets hides.
//
// Since step 74 the check also takes the route itself, by the host's rule (its idle steps per
// value), and raises ROUTED_CLASSIC when the classic kernels should run. The host may queue the
// merge path's tiles right behind the check, before it has the verdict (GpuSegmentedReduce.
// launchRouted): that flag, like a refusal, shuts their gate, while the classic kernels, launched
// only once the host has read the verdict, pass it. Where the merge path is taken the GPU no longer
// idles through the host's round trip: 2^26 float32 values in power-law segments 0.245 -> 0.237 ms,
// 2^24 0.079 -> 0.074 (bench/results/2026-11-25-nvidia-h200-step74-ab.md).
//
// Since step 75 the verdict also counts the values in short segments: where that is all of them,
// no segment is longer than SHORT_SEGMENT and the classic route is segments_short alone
// (segments.cuh).
//
// Since step 77 the check raises ROUTED_SHORT beside ROUTED_CLASSIC on that route, and
// segments_short's gate opens on nothing else, so the host may queue it right behind the check as
// it queues the merge path's tiles: where the check last took that route on the same offsets
// (GpuSegmentedReduce.launchRouted). A wrong guess leaves it shut, and the host launches the route
// the verdict names.
//
// Step 85 made the pass over the pairs cheaper (check_offset_pairs). It was bound by how many loads
// were in flight (DRAM 62-67% busy, 50% occupancy at 48 registers) and by the work between them:
// each row of 32 pairs now takes one warp reduction, not two (each lane sums its own short lengths),
// rows that lie inside the offsets load without bounds tests, and offsets on a 16-byte boundary (any
// allocation's start) load two to a lane, which puts twice the bytes in flight for the same
// registers. ncu, H200 (2^26 values; bench/results/2026-11-26-nvidia-h200-step85-ab.md): 12.8M
// power-law segments 35.2-36.2 -> 31.4 us (16.9 M -> 14.6 M warp instructions, DRAM 71% busy), 14.9M
// segments of 1-8 39.0-39.2 -> 35.6 us. Tried and not kept: one load per offset with the next lane's
// by a shuffle (37.8 us: the shuffles cost more than the loads they saved), the next turn's loads
// issued before this one's pairs are looked at (64 registers; 41.6 us, or 42.1 at two rounds and 48
// registers), an L2 bulk prefetch of the warp's next rows (40.1 us), four rounds of pairs (58
// registers, four blocks per SM: 34.6 us). The one launch (one_launch.cuh) keeps the strided loop:
// with the paired one, 13 of its kernels lost a block per SM on sm_90 (min and max 44-48 -> 52
// registers, argmin and argmax of 8-byte values 64 -> 70, int64 products 64 -> 72).
//
// Step 87 gave the paired pass only offsets of at least four turns a warp (PAIRED_MIN_TURNS): at
// 2^24 values (3.2M segments, two turns) it had made segmented reduces 3-4% slower than step 84's
// check (bench/results/2026-11-26-nvidia-h200-step86-ab.md). The check's grid stays at eight blocks
// per SM, of which five are resident (48 registers): the five alone took it from 33 to 42 us over
// 12.8M segments (ncu, medians), sixteen changed nothing (2026-11-26-nvidia-h200-step87-ab.md).
#pragma once
#include "../../warp/warp_scan.cuh"
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

/** What check_offset_pairs measured (COUNT_IDLE), the same in every lane of the warp. */
struct OffsetPairStats {
    unsigned long long idle;    // the warp's idle lane steps
    unsigned long long folded;  // the warp's values in short segments
};

/**
 * Segment k's pair (here, next) looked at: this thread's first decreasing pair raises DECREASING and
 * keeps k in first_decrease (the smallest over all threads, as the overflow flag: each thread looks
 * at its pairs in k order). Returns the segment's length if it is short, else 0 (a decreasing pair's
 * length, negative, fails the unsigned test).
 */
__device__ __forceinline__ unsigned check_pair(long long here, long long next, long long k, bool& decreased,
                                               unsigned char* __restrict__ scratch) {
    if (here > next && !decreased) {
        decreased = true;
        atomicOr(malformed_flags(scratch), Constants::DECREASING);
        mark_overflow(first_decrease(scratch), k);
        __threadfence();
    }
    const unsigned long long length = (unsigned long long)(next - here);
    return length <= Constants::SHORT_SEGMENT ? (unsigned)length : 0u;
}

/**
 * The warp's stats from the sum of its rows' longest short lengths (the same in every lane) and
 * each lane's own short lengths: a row idles 32 * longest - (its short lengths) steps.
 */
template <bool COUNT_IDLE>
__device__ __forceinline__ OffsetPairStats warp_pair_stats(unsigned long long longest_sum, unsigned long long folded) {
    if constexpr (COUNT_IDLE) {
#pragma unroll
        for (int d = 16; d >= 1; d >>= 1) folded += __shfl_xor_sync(0xffffffffu, folded, d);
        return {32ull * longest_sum - folded, folded};
    } else {
        return {0, 0};
    }
}

constexpr int PAIRED_ROUNDS = 3;  // 48 registers on sm_90, as the check's other paths; at 4, 58 (step 85)
constexpr long long PAIRED_TURN = 64LL * PAIRED_ROUNDS;  // segments a warp takes a turn

/**
 * check_offset_pairs for offsets on a 16-byte boundary: each lane loads two offsets at once. A warp
 * takes PAIRED_ROUNDS pieces of 64 consecutive segments a turn (lanes 0-15 hold the piece's first row
 * of 32, lanes 16-31 its second); a lane's second segment ends at the next lane's first offset (a
 * shuffle), lane 31's at lane 0's of the next piece, or at the offset after the turn (one more load,
 * by lane 0).
 */
template <bool COUNT_IDLE>
__device__ __forceinline__ OffsetPairStats check_offset_pairs_aligned(const long long* __restrict__ offsets,
                                                                      long long nseg,
                                                                      unsigned char* __restrict__ scratch,
                                                                      long long first, long long stride) {
    constexpr unsigned FULL = 0xffffffffu;
    const int lane = threadIdx.x & 31;
    bool decreased = false;
    unsigned long long longest_sum = 0, folded = 0;
    for (long long k0 = ((first - lane) >> 5) * PAIRED_TURN; k0 < nseg; k0 += (stride >> 5) * PAIRED_TURN) {
        longlong2 pair[PAIRED_ROUNDS];
        if (k0 + PAIRED_TURN <= nseg) {  // the turn's offsets and the one after it exist: no tests
            const longlong2* turn = reinterpret_cast<const longlong2*>(offsets + k0);
#pragma unroll
            for (int r = 0; r < PAIRED_ROUNDS; ++r) pair[r] = __ldg(turn + 32 * r + lane);
        } else {
#pragma unroll
            for (int r = 0; r < PAIRED_ROUNDS; ++r) {
                const long long k = k0 + 64 * r + 2 * lane;
                pair[r].x = k <= nseg ? __ldg(offsets + k) : 0;
                pair[r].y = k + 1 <= nseg ? __ldg(offsets + k + 1) : 0;
            }
        }
        const long long after = lane == 0 && k0 + PAIRED_TURN <= nseg ? __ldg(offsets + k0 + PAIRED_TURN) : 0;
        unsigned turn_longest = 0, turn_folded = 0;  // this turn's, in 32 bits
#pragma unroll
        for (int r = 0; r < PAIRED_ROUNDS; ++r) {
            const long long k = k0 + 64 * r + 2 * lane;
            const long long lane_0_gives = r + 1 < PAIRED_ROUNDS ? pair[r + 1].x : after;
            const long long third = warp_shfl(lane == 0 ? lane_0_gives : pair[r].x, (lane + 1) & 31);
            const unsigned first_short = k < nseg ? check_pair(pair[r].x, pair[r].y, k, decreased, scratch) : 0u;
            const unsigned second_short = k + 1 < nseg ? check_pair(pair[r].y, third, k + 1, decreased, scratch) : 0u;
            if constexpr (COUNT_IDLE) {
                const unsigned longer = max(first_short, second_short);
                turn_longest += __reduce_max_sync(FULL, lane < 16 ? longer : 0u);  // the piece's first row
                turn_longest += __reduce_max_sync(FULL, lane < 16 ? 0u : longer);  // its second
                turn_folded += first_short + second_short;
            }
        }
        longest_sum += turn_longest;
        folded += turn_folded;
    }
    return warp_pair_stats<COUNT_IDLE>(longest_sum, folded);
}

/**
 * Every k in [0, nseg), by the threads that check (`first`: this thread's index among them, a
 * multiple of 32 at lane 0; `stride`: how many), whole warps: offsets[k] > offsets[k + 1] raises
 * DECREASING and keeps the smallest such k (first_decrease), in the scratch header, for the gate and
 * the host (check_pair). A row of 32 segments a round, strided, each thread with ROUNDS pairs of
 * loads in flight (the second of a pair mostly hits the line of the first). Offsets on a 16-byte
 * boundary go faster two to a lane where each warp has enough of them (check_offset_pairs_aligned,
 * which check_offset_pairs picks); the one launch keeps this loop, because the paired one's registers
 * cost its kernels blocks per SM.
 *
 * With COUNT_IDLE it also measures what the classic kernels would waste on these segments (the
 * warp's, in every lane): a warp of segments_small folds its short segments (<= SHORT_SEGMENT) a
 * lane each, for as many steps as the longest of them, so the warp's lanes idle for 32 * (longest
 * short) - (sum of short lengths) steps. Each row of 32 segments here is one warp's there (rows
 * start at multiples of 32). Heavy-tailed lengths idle most (power law: 2.6 idle steps per value;
 * uniform 1-8 or 1-32 lengths 0.8-0.9; all alike 0), and that is where the merge path, which gives
 * every thread the same number of steps, wins (GpuSegmentedReduce routes by it). It also sums the
 * values those lanes fold: when they are all the values, no segment is longer than SHORT_SEGMENT
 * and the classic route needs only segments_short. (Keeping the longest length instead cost the
 * check 4.5 us of its 35 over 12.9M segments, ncu, bench/results/2026-11-25-nvidia-h200-step75-ab.md.)
 */
template <bool COUNT_IDLE>
__device__ __forceinline__ OffsetPairStats check_offset_pairs_strided(const long long* __restrict__ offsets,
                                                                      long long nseg,
                                                                      unsigned char* __restrict__ scratch,
                                                                      long long first, long long stride) {
    constexpr int ROUNDS = 4;
    constexpr unsigned FULL = 0xffffffffu;
    const int lane = threadIdx.x & 31;
    bool decreased = false;
    unsigned long long longest_sum = 0, folded = 0;
    // k0 - lane is the warp's first segment: the loop is the same for the whole warp (the lanes
    // reduce together below), and that segment is a multiple of 32, as in segments_small.
    for (long long k0 = first; k0 - lane < nseg; k0 += ROUNDS * stride) {
        long long here[ROUNDS], next[ROUNDS];
        if (k0 - lane + (ROUNDS - 1) * stride + 32 <= nseg) {  // every round's row is whole: no tests
#pragma unroll
            for (int r = 0; r < ROUNDS; ++r) {
                here[r] = __ldg(offsets + k0 + r * stride);
                next[r] = __ldg(offsets + k0 + r * stride + 1);
            }
        } else {
#pragma unroll
            for (int r = 0; r < ROUNDS; ++r) {
                const long long k = k0 + r * stride;
                here[r] = k < nseg ? __ldg(offsets + k) : 0;
                next[r] = k < nseg ? __ldg(offsets + k + 1) : 0;
            }
        }
        unsigned turn_longest = 0, turn_folded = 0;  // this turn's, in 32 bits
#pragma unroll
        for (int r = 0; r < ROUNDS; ++r) {
            const unsigned short_length = check_pair(here[r], next[r], k0 + r * stride, decreased, scratch);
            if constexpr (COUNT_IDLE) {
                turn_longest += __reduce_max_sync(FULL, short_length);
                turn_folded += short_length;
            }
        }
        longest_sum += turn_longest;
        folded += turn_folded;
    }
    return warp_pair_stats<COUNT_IDLE>(longest_sum, folded);
}

// The paired pass needs this many turns a warp: with fewer it lost (step 87, ncu, H200, float32 power
// laws, medians): 3.2M segments, two turns a warp, 14.75 us against the strided pass's 13.6; 12.8M,
// eight turns, 33.15 against 35.2. Step 88 (three launches each, heavy-tailed lengths,
// bench/results/2026-11-26-nvidia-h200-step88-ab.md): at 5M-7M segments the two passes within their
// spread of about 1 us, at 3.5M the paired one faster (14.1-14.9 against 14.8-16.1 us), which does not
// repeat step 87's 3.2M result; the rule was left as it is.
constexpr long long PAIRED_MIN_TURNS = 4;

/**
 * check_offset_pairs_aligned where the offsets allow it and give each warp at least
 * PAIRED_MIN_TURNS turns, else check_offset_pairs_strided.
 */
template <bool COUNT_IDLE>
__device__ __forceinline__ OffsetPairStats check_offset_pairs(const long long* __restrict__ offsets, long long nseg,
                                                              unsigned char* __restrict__ scratch, long long first,
                                                              long long stride) {
    const bool aligned = (reinterpret_cast<unsigned long long>(offsets) & 15) == 0;
    if (aligned && nseg >= (stride >> 5) * PAIRED_MIN_TURNS * PAIRED_TURN)
        return check_offset_pairs_aligned<COUNT_IDLE>(offsets, nseg, scratch, first, stride);
    return check_offset_pairs_strided<COUNT_IDLE>(offsets, nseg, scratch, first, stride);
}

/**
 * Whether segments over `values` elements whose classic kernels would idle `idle` lane steps take
 * the classic kernels, by the host's rule (SegmentedReducePolicy.prefersMergePath, the same double
 * arithmetic): the merge path when idle > idle_per_value * values. A negative idle_per_value: no
 * route (false).
 */
__device__ __forceinline__ bool routes_classic(unsigned long long idle, long long values, double idle_per_value) {
    if (idle_per_value < 0.0) return false;
    return !(values > 0 && (double)(long long)idle > idle_per_value * (double)values);
}

/**
 * The check, by `blocks` blocks (this one `block` of them): the end offsets (the first thread) and
 * every pair (check_offset_pairs, counting idle steps). The idle steps and the values in short
 * segments go to the header's two counters, an atomic each per block; the last block through (a
 * ticket) takes them and puts them and the ticket back to zero, so they are zero between calls,
 * raises ROUTED_CLASSIC where routes_classic says so (merge_path_idle_per_value; negative: never;
 * infinite: always), with ROUTED_SHORT where every value lies in a short segment, and when
 * `verdict` (pinned host memory the host polls; null for none) is given writes verdict[0..5] =
 * offsets[0], offsets[nseg], the first-decrease word (0 for none, else 2^63 - k), the idle steps,
 * the route (1: classic) and the values in short segments.
 */
__device__ __forceinline__ void check_offsets(const long long* __restrict__ offsets, long long nseg,
                                              long long in_length, unsigned char* __restrict__ scratch,
                                              unsigned long long* verdict, double merge_path_idle_per_value,
                                              long long block, long long blocks) {
    __shared__ unsigned long long warp_idle[32], warp_folded[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    long long begin = 0, end = 0;  // thread 0's: the last block's goes to the verdict
    if (threadIdx.x == 0) {
        if (block == 0) check_offset_ends(offsets, nseg, in_length, scratch, begin, end);
        else begin = offsets[0], end = offsets[nseg];
    }
    const OffsetPairStats stats = check_offset_pairs<true>(offsets, nseg, scratch, block * blockDim.x + threadIdx.x,
                                                           blocks * blockDim.x);
    if (lane == 0) warp_idle[warp] = stats.idle, warp_folded[warp] = stats.folded;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long block_idle = 0, block_folded = 0;
        for (int w = 0; w < (int)(blockDim.x >> 5); ++w) block_idle += warp_idle[w], block_folded += warp_folded[w];
        if (block_idle != 0) atomicAdd(idle_counter(scratch), block_idle);
        if (block_folded != 0) atomicAdd(short_values_counter(scratch), block_folded);
        // Release: this block's flags and idle steps are in before its ticket; acquire: the last
        // block sees every block's (as reduce_kernels.cuh's finish).
        unsigned long long ticket;
        asm volatile("atom.acq_rel.gpu.global.add.u64 %0, [%1], 1;" : "=l"(ticket) : "l"(check_ticket(scratch)) : "memory");
        if (ticket == (unsigned long long)blocks - 1) {
            const unsigned long long total_idle = atomicExch(idle_counter(scratch), 0ull);
            const unsigned long long short_values = atomicExch(short_values_counter(scratch), 0ull);
            *check_ticket(scratch) = 0;
            // Stream order makes it visible to every kernel behind the check: no fence needed.
            const bool classic = routes_classic(total_idle, end - begin, merge_path_idle_per_value);
            const bool all_short = short_values == (unsigned long long)(end - begin);
            if (classic) {
                atomicOr(malformed_flags(scratch),
                         Constants::ROUTED_CLASSIC | (all_short ? Constants::ROUTED_SHORT : 0u));
            }
            if (verdict != nullptr) {
                verdict[0] = (unsigned long long)begin;
                verdict[1] = (unsigned long long)end;
                verdict[2] = atomicAdd(first_decrease(scratch), 0ull);
                verdict[3] = total_idle;
                verdict[4] = classic ? 1ull : 0ull;
                verdict[5] = short_values;
            }
        }
    }
}

__device__ __forceinline__ unsigned offsets_flags(const unsigned char* scratch) {
    return *reinterpret_cast<const unsigned*>(scratch + Constants::MALFORMED_OFFSET);
}

/**
 * The gate: whether the check refused the offsets (or the queue overflowed). A kernel behind it
 * loads this beside its first offsets (one round trip, not two) and, if it is set, reads and writes
 * nothing. The check's route is no refusal: the classic kernels pass ROUTED_CLASSIC and ROUTED_SHORT.
 */
__device__ __forceinline__ bool offsets_refused(const unsigned char* scratch) {
    return (offsets_flags(scratch) & ~(Constants::ROUTED_CLASSIC | Constants::ROUTED_SHORT)) != 0u;
}

/**
 * segments_short's gate: shut unless the check routed the call to it (ROUTED_SHORT) and refused
 * nothing, so that it may be queued before the host has the verdict.
 */
__device__ __forceinline__ bool short_route_shut(const unsigned char* scratch) {
    return (offsets_flags(scratch) & ~Constants::ROUTED_CLASSIC) != Constants::ROUTED_SHORT;
}

/** The merge path's gate: shut for offsets the check refused and for a call it routed to the classic kernels. */
__device__ __forceinline__ bool merge_path_shut(const unsigned char* scratch) {
    return offsets_flags(scratch) != 0u;
}

}  // namespace segmented
}  // namespace primer
