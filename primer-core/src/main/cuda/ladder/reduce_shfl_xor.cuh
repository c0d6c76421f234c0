// SHFL_XOR - as SHFL_DOWN, with a butterfly (__shfl_xor_sync) for the last warp.
//
// What it shows: lane L exchanges with lane L ^ offset, so after five steps every lane, not just
// lane 0, holds the warp's sum (each lane adds the same two partial sums, in the same order, so all
// lanes agree bit for bit). That is what a kernel needs when every thread uses the total afterwards
// (softmax, normalisation); for a plain reduction it costs the same as the shuffle-down tree.
// Requires a power-of-two blockDim.
#pragma once
#include "reduce_ladder_common.cuh"
#include "reduce_k7_multiple_elements.cuh"

namespace primer {
namespace ladder {

/** Butterfly reduction over lanes 0..lanes-1 (lanes a power of two <= 32); every lane gets the sum. */
template <typename T>
__device__ __forceinline__ T warp_reduce_shfl_xor(T v, unsigned lanes) {
    const unsigned mask = lane_mask(lanes);
#pragma unroll
    for (unsigned offset = 16; offset > 0; offset >>= 1) {
        if (offset < lanes) v += __shfl_xor_sync(mask, v, offset, lanes);
    }
    return v;
}

template <typename T>
__device__ __forceinline__ void reduce_shfl_xor(const T* in, T* out, long long n) {
    T* sdata = dynamic_shared<T>();
    const unsigned tid = threadIdx.x;
    T v = grid_stride_pair_sum(in, n, blockDim.x);
    sdata[tid] = v;
    __syncthreads();

    for (unsigned s = blockDim.x / 2; s >= 32; s >>= 1) {
        if (tid < s) sdata[tid] = v = v + sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        v = warp_reduce_shfl_xor(v, warp_lanes(blockDim.x));
        if (tid == 0) out[blockIdx.x] = v;
    }
}

}  // namespace ladder
}  // namespace primer
