// Scan ladder, step 4 (block level): warp shuffles, composed through per-warp sums.
//
// One element per thread, a 1024-element tile per 1024-thread block (32 warps); each block scans its
// own tile. Each warp scans its 32 values in registers with __shfl_up_sync (scan_warp.cuh); lane 31
// leaves the warp's total in shared memory; after one barrier, warp 0 scans the 32 totals the same
// way; after a second barrier, warp w adds the inclusive total of warps 0..w-1.
// What it fixes: Blelloch's 22 barriers and shared-memory tree. Two barriers per tile, 32 words of
// shared memory, and the data stays in registers. Work is 5 additions per element in the warp scan
// (not work-efficient in theory; in practice a shuffle costs about what a shared access does and
// the span is short).
// What it costs: nothing to speak of at block level; the scan is now limited by one element per
// thread and a block-sized tile. The device-level steps keep this composition and give each thread
// 32 consecutive elements to scan serially first (scan_tile.cuh).
#pragma once
#include "scan_warp.cuh"

namespace primer {
namespace ladder {

constexpr int WARP_SHUFFLE_THREADS = 1024;
constexpr int WARP_SHUFFLE_TILE = WARP_SHUFFLE_THREADS;  // one element per thread
constexpr int WARP_SHUFFLE_WARPS = WARP_SHUFFLE_THREADS / 32;
static_assert(WARP_SHUFFLE_WARPS == 32, "warp 0 scans one total per lane");

template <typename T>
__device__ __forceinline__ void scan_warp_shuffle_tile(const T* in, T* out, long long n) {
    const Sum<T> op;
    __shared__ T warp_totals[WARP_SHUFFLE_WARPS];
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const long long i = (long long)blockIdx.x * WARP_SHUFFLE_TILE + t;

    T x = i < n ? in[i] : Sum<T>::identity();
    x = scan_warp_inclusive(x, op);
    if (lane == 31) warp_totals[warp] = x;
    __syncthreads();
    if (warp == 0) {  // each lane reads and rewrites only its own slot: no hazard inside warp 0
        warp_totals[lane] = scan_warp_inclusive(warp_totals[lane], op);
    }
    __syncthreads();
    if (warp > 0) x = op(warp_totals[warp - 1], x);
    if (i < n) out[i] = x;
}

}  // namespace ladder
}  // namespace primer
