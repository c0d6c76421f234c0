// BATCHED_V1 - one value per row of a row-major (rows, cols) matrix: one block per row, shared memory.
//
// Each block walks its row with a block-stride loop (consecutive threads read consecutive columns:
// coalesced), then halves the block's sums in a sequential-addressing shared-memory tree (K3's tree,
// one __syncthreads() per halving). Blocks take rows blockIdx.x, blockIdx.x + gridDim.x, ... so any
// number of rows works. What it costs: log2(blockDim) block barriers per row, which shows when rows are
// short. Requires a power-of-two blockDim.
#pragma once
#include "reduce_ladder_common.cuh"

namespace primer {
namespace ladder {

template <typename T>
__device__ __forceinline__ void reduce_batched_v1(const T* in, T* out, long long rows, long long cols) {
    T* sdata = dynamic_shared<T>();
    const unsigned tid = threadIdx.x;
    for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
        const T* r = in + row * cols;
        T v = T(0);
        for (long long c = tid; c < cols; c += blockDim.x) v += r[c];
        // Safe to overwrite: after the previous row's last barrier only thread 0 read, and only sdata[0].
        sdata[tid] = v;
        __syncthreads();
        for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
            if (tid < s) sdata[tid] += sdata[tid + s];
            __syncthreads();
        }
        if (tid == 0) out[row] = sdata[0];
    }
}

}  // namespace ladder
}  // namespace primer
