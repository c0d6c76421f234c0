// K3 - sequential addressing.
//
// What it fixes: K2's bank conflicts. The stride starts at blockDim/2 and halves; thread tid adds slot
// tid + s into slot tid, so the lanes of a warp touch 32 consecutive words: one per bank.
// What it costs: idle threads. Half of the block does nothing from the very first step, and every
// step after halves the working threads again, each step paying a full __syncthreads().
// Fixed from the lecture: loads past the end of the input read 0. Requires a power-of-two blockDim.
#pragma once
#include "reduce_ladder_common.cuh"

namespace primer {
namespace ladder {

template <typename T>
__device__ __forceinline__ void reduce_k3_sequential(const T* in, T* out, long long n) {
    T* sdata = dynamic_shared<T>();
    const unsigned tid = threadIdx.x;
    const long long i = (long long)blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : T(0);
    __syncthreads();

    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {  // consecutive lanes, consecutive words: conflict free
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

}  // namespace ladder
}  // namespace primer
