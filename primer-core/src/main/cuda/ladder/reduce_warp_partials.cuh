// WARP_PARTIALS - block reduce through per-warp partial sums, one __syncthreads().
//
// What it fixes: the shared-memory tree above the warp. Every warp first reduces its own 32 values
// with shuffles (no shared memory, no barrier), lane 0 of each warp stores one partial, a single
// __syncthreads() publishes them, and warp 0 shuffles the (at most 32) partials. A 1024-thread block
// needs one barrier instead of six, and shared memory holds 32 values instead of blockDim.
// What it costs: warp 0 does the final step alone (32 values: negligible). This is the shape CUB's
// BlockReduce (WARP_REDUCTIONS) takes. Loads, grid and relaunch are K7's. Requires a power-of-two blockDim.
#pragma once
#include "reduce_ladder_common.cuh"
#include "reduce_k7_multiple_elements.cuh"
#include "reduce_shfl_down.cuh"

namespace primer {
namespace ladder {

/**
 * The sum of v over the block, valid in thread 0. warp_sums needs one slot per warp. A caller that
 * calls it again with the same warp_sums must __syncthreads() in between (warp 0 may still be reading).
 */
template <typename T>
__device__ __forceinline__ T block_reduce_warp_partials(T v, T* warp_sums) {
    const unsigned tid = threadIdx.x;
    const unsigned warp = tid / 32, lane = tid % 32;
    const unsigned warps = (blockDim.x + 31) / 32;
    v = warp_reduce_shfl_down(v, warp_lanes(blockDim.x));
    if (warps == 1) return v;  // the same for every thread of the block: no divergence at the barrier
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();  // the only block-wide barrier
    if (warp == 0) v = warp_reduce_shfl_down(lane < warps ? warp_sums[lane] : T(0), 32u);
    return v;
}

template <typename T>
__device__ __forceinline__ void reduce_warp_partials(const T* in, T* out, long long n) {
    const T v = block_reduce_warp_partials(grid_stride_pair_sum(in, n, blockDim.x), dynamic_shared<T>());
    if (threadIdx.x == 0) out[blockIdx.x] = v;
}

}  // namespace ladder
}  // namespace primer
