// K4 - first add during the global load.
//
// What it fixes: K3's idle half. Each block covers 2*blockDim elements and every thread adds two of
// them while loading, so the first tree step happens in registers and half as many blocks are launched.
// What it costs: the tree is still a loop of __syncthreads() steps; in the last six steps only one warp
// works but the whole block still synchronises, and the loop's own instructions now show.
// Fixed from the lecture: it read in[i + blockDim] unguarded, past the end whenever n is not a multiple
// of 2*blockDim; both loads are guarded here. Requires a power-of-two blockDim.
#pragma once
#include "reduce_ladder_common.cuh"

namespace primer {
namespace ladder {

template <typename T>
__device__ __forceinline__ void reduce_k4_first_add_during_load(const T* in, T* out, long long n) {
    T* sdata = dynamic_shared<T>();
    const unsigned tid = threadIdx.x;
    const long long i = (long long)blockIdx.x * (blockDim.x * 2) + tid;
    T v = i < n ? in[i] : T(0);
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    sdata[tid] = v;
    __syncthreads();

    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

}  // namespace ladder
}  // namespace primer
