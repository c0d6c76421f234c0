// K1 - interleaved addressing with a divergent branch.
//
// Each block copies blockDim elements into shared memory and halves them in a tree: at step s the
// threads whose index is a multiple of 2s add the element s slots to their right.
// What it costs: `tid % (2*s)` is a slow integer modulo, and the working threads are scattered over
// every warp, so from the second step on each warp runs the branch with most of its lanes idle.
// Fixed from the lecture: a block past the end of the input loads 0 instead of reading out of bounds.
// Requires a power-of-two blockDim (the tree pairs slot tid with tid + s).
#pragma once
#include "reduce_ladder_common.cuh"

namespace primer {
namespace ladder {

template <typename T>
__device__ __forceinline__ void reduce_k1_interleaved_divergent(const T* in, T* out, long long n) {
    T* sdata = dynamic_shared<T>();
    const unsigned tid = threadIdx.x;
    const long long i = (long long)blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : T(0);
    __syncthreads();

    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0) {  // divergent: active lanes 0, 2s, 4s, ... in every warp
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

}  // namespace ladder
}  // namespace primer
