// SHFL_DOWN - K7 with the last warp reduced by register shuffles (__shfl_down_sync tree).
//
// What it fixes: the last warp of K5-K7 still went through shared memory, a load and a store per step
// and a __syncwarp() between steps. __shfl_down_sync reads a register of the lane `offset` above
// directly: five shuffle+add steps with no shared memory and no separate barrier (the _sync intrinsic
// names the lanes it waits for, so it is correct without lockstep). Lane 0 ends with the sum.
// What it costs: the block tree above 32 still goes through shared memory with a __syncthreads() per
// halving (WARP_PARTIALS removes that). Loads, grid and relaunch are K7's. Requires a power-of-two
// blockDim; a block smaller than a warp shuffles over its own lanes only.
#pragma once
#include "reduce_ladder_common.cuh"
#include "reduce_k7_multiple_elements.cuh"

namespace primer {
namespace ladder {

/** Tree reduction over lanes 0..lanes-1 (lanes a power of two <= 32); lane 0 receives the sum. */
template <typename T>
__device__ __forceinline__ T warp_reduce_shfl_down(T v, unsigned lanes) {
    const unsigned mask = lane_mask(lanes);
#pragma unroll
    for (unsigned offset = 16; offset > 0; offset >>= 1) {
        // width = lanes keeps every source lane inside the lanes that exist
        if (offset < lanes) v += __shfl_down_sync(mask, v, offset, lanes);
    }
    return v;
}

template <typename T>
__device__ __forceinline__ void reduce_shfl_down(const T* in, T* out, long long n) {
    T* sdata = dynamic_shared<T>();
    const unsigned tid = threadIdx.x;
    T v = grid_stride_pair_sum(in, n, blockDim.x);
    sdata[tid] = v;
    __syncthreads();

    for (unsigned s = blockDim.x / 2; s >= 32; s >>= 1) {
        if (tid < s) sdata[tid] = v = v + sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) {  // warp 0 holds the last (up to) 32 values in registers
        v = warp_reduce_shfl_down(v, warp_lanes(blockDim.x));
        if (tid == 0) out[blockIdx.x] = v;
    }
}

}  // namespace ladder
}  // namespace primer
