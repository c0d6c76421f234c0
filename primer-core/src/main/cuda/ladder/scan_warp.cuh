// Scan ladder helper: inclusive scan of one warp's 32 values with __shfl_up_sync.
//
// Five steps (offsets 1, 2, 4, 8, 16), Hillis-Steele shape, but in registers: no shared memory and
// no barrier. Since Volta the lanes of a warp are not guaranteed to run in lockstep; the _sync
// shuffle with the full mask makes all 32 lanes meet at every step, so every lane of the warp must
// call it (the ladder's blocks are whole warps and no lane returns early).
#pragma once
#include "ops.cuh"

namespace primer {
namespace ladder {

constexpr unsigned SCAN_FULL_WARP = 0xffffffffu;

template <typename T, typename Op>
__device__ __forceinline__ T scan_warp_inclusive(T x, Op op) {
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int offset = 1; offset < 32; offset <<= 1) {
        const T left = __shfl_up_sync(SCAN_FULL_WARP, x, offset);
        if (lane >= offset) x = op(left, x);  // lanes below `offset` have nothing to their left
    }
    return x;
}

/** Sum of all 32 lanes' values, the same in every lane (butterfly: a fixed order, so deterministic). */
template <typename T, typename Op>
__device__ __forceinline__ T scan_warp_total(T x, Op op) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
        x = op(x, __shfl_xor_sync(SCAN_FULL_WARP, x, offset));
    }
    return x;
}

}  // namespace ladder
}  // namespace primer
