// BATCHED_V2 - one value per row, one block per row, warp shuffles instead of the shared-memory tree.
//
// What it fixes: V1's barrier per halving. Each warp reduces its threads' row sums with
// __shfl_down_sync, one partial per warp goes to shared memory, one __syncthreads(), and warp 0
// shuffles the partials (WARP_PARTIALS' block reduce). What it costs: a second barrier per row, so
// that the next row does not overwrite partials warp 0 is still reading. Requires a power-of-two blockDim.
#pragma once
#include "reduce_ladder_common.cuh"
#include "reduce_warp_partials.cuh"

namespace primer {
namespace ladder {

template <typename T>
__device__ __forceinline__ void reduce_batched_v2(const T* in, T* out, long long rows, long long cols) {
    T* warp_sums = dynamic_shared<T>();
    for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
        const T* r = in + row * cols;
        T v = T(0);
        for (long long c = threadIdx.x; c < cols; c += blockDim.x) v += r[c];
        v = block_reduce_warp_partials(v, warp_sums);
        if (threadIdx.x == 0) out[row] = v;
        __syncthreads();  // warp_sums is reused by the next row
    }
}

}  // namespace ladder
}  // namespace primer
