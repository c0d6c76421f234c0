// K2 - interleaved addressing with a strided index.
//
// What it fixes: K1's divergence. Thread tid works on slot 2*s*tid, so the working threads are the
// lowest-numbered ones and whole warps either all work or all skip; the modulo is gone too.
// What it costs: shared-memory bank conflicts. Lanes of one warp touch slots 2s apart, so already at
// s = 1 two lanes share each bank, at s = 2 four, and so on up to the warp's working lanes: accesses
// to one bank are serialised.
// Fixed from the lecture: loads past the end of the input read 0. Requires a power-of-two blockDim.
#pragma once
#include "reduce_ladder_common.cuh"

namespace primer {
namespace ladder {

template <typename T>
__device__ __forceinline__ void reduce_k2_interleaved_strided(const T* in, T* out, long long n) {
    T* sdata = dynamic_shared<T>();
    const unsigned tid = threadIdx.x;
    const long long i = (long long)blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : T(0);
    __syncthreads();

    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        const unsigned index = 2 * s * tid;  // contiguous threads, strided slots: bank conflicts
        if (index < blockDim.x) {
            sdata[index] += sdata[index + s];
        }
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

}  // namespace ladder
}  // namespace primer
