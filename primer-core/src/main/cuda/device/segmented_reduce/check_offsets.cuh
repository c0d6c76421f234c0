// The offsets' check, a launch of its own queued before every kernel that reads CSR offsets
// (GpuSegmentedReduce.withSegmentsScratch): its flags shut the gate those kernels load as they
// start, so a segmented reduce refuses bad offsets before it writes a byte of out, as the CPU
// backend does. (Before step 56 the kernels checked as they reduced, and after an exception out
// held whatever the good segments had written.) The cost is one more launch and one more read of
// the offsets, which weighs most where segments are shortest: 2^26 float32 values in 12.8M
// power-law segments (offsets 28% of the bytes) 0.355-0.357 -> 0.375-0.390 ms, int64 on the merge
// path 0.366-0.368 -> 0.375-0.377 ms, 2^16 values 29-32 -> 31-35 us (A/B on one H200,
// bench/results/2026-11-24-nvidia-h200-step56-check-ab.md).
#pragma once
#include "policy.cuh"
#include "recipe.cuh"
#include "segment_scratch.cuh"

namespace primer {
namespace segmented {

/**
 * Grid-stride over k in [0, nseg): offsets[k] > offsets[k + 1] raises DECREASING and keeps the
 * smallest such k (first_decrease); the first thread raises BAD_BOUNDS unless
 * 0 <= offsets[0] <= offsets[nseg] <= in_length. Both flags sit in the scratch header the host
 * reads back after the call. A pass over the offsets alone is bound by bandwidth: each thread
 * keeps ROUNDS pairs of loads in flight (the second of a pair mostly hits the line of the first).
 */
__device__ __forceinline__ void check_offsets(const long long* __restrict__ offsets, long long nseg,
                                              long long in_length, unsigned char* __restrict__ scratch) {
    constexpr int ROUNDS = 4;
    const long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (first == 0) {
        const long long begin = offsets[0], end = offsets[nseg];
        if (begin < 0 || end < begin || end > in_length) atomicOr(malformed_flags(scratch), Constants::BAD_BOUNDS);
    }
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long k0 = first; k0 < nseg; k0 += ROUNDS * stride) {
        long long here[ROUNDS], next[ROUNDS];
#pragma unroll
        for (int r = 0; r < ROUNDS; ++r) {
            const long long k = k0 + r * stride;
            here[r] = k < nseg ? __ldg(offsets + k) : 0;
            next[r] = k < nseg ? __ldg(offsets + k + 1) : 0;
        }
#pragma unroll
        for (int r = 0; r < ROUNDS; ++r) {
            if (here[r] > next[r]) {  // in k order: the first found is this thread's smallest
                atomicOr(malformed_flags(scratch), Constants::DECREASING);
                mark_overflow(first_decrease(scratch), k0 + r * stride);  // keeps the smallest, as the overflow flag
                return;
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
