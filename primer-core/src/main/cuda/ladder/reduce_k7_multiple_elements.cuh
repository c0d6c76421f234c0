// K7 - multiple elements per thread (algorithm cascading).
//
// What it fixes: K6 still spends one tree (log2 blockSize barrier steps) per 2*blockSize elements.
// Launching only as many blocks as the GPU holds at once and letting each thread add many elements
// sequentially in a register (a grid-stride loop) leaves one tree per block for the whole input, keeps
// many independent loads in flight, and costs no tail wave: the grid is fixed by the hardware, not by n.
// What it costs: nothing in speed; the per-thread sequential sums lengthen float rounding chains.
// The grid: the runner launches (SM count) x (blocks of this kernel resident per SM), one full wave.
// Fixed from the lecture: its loop read in[i + blockSize] past the end when n is not a multiple of
// 2*blockSize*gridDim; the second load is guarded. The running sum lives in a register, not in sdata.
#pragma once
#include "reduce_ladder_common.cuh"
#include "reduce_k6_complete_unroll.cuh"

namespace primer {
namespace ladder {

/**
 * This thread's share of a grid-stride walk over in[0, n): two elements a block width apart per
 * iteration, as the lecture's kernel 7 reads them. `block` is blockDim (a constant in K7).
 */
template <typename T>
__device__ __forceinline__ T grid_stride_pair_sum(const T* in, long long n, unsigned block) {
    long long i = (long long)blockIdx.x * (block * 2) + threadIdx.x;
    const long long grid_step = (long long)gridDim.x * (block * 2);
    T v = T(0);
    // Four iterations (up to eight independent loads) in flight per thread. A fixed count keeps the
    // register use alike on every target: left to itself, ptxas unrolled the int32 loop differently
    // per architecture and spilled on sm_80.
#pragma unroll 4
    while (i < n) {
        v += in[i];
        if (i + block < n) v += in[i + block];
        i += grid_step;
    }
    return v;
}

template <unsigned blockSize, typename T>
__device__ __forceinline__ void reduce_k7_multiple_elements(const T* in, T* out, long long n) {
    T* sdata = dynamic_shared<T>();
    const unsigned tid = threadIdx.x;
    sdata[tid] = grid_stride_pair_sum(in, n, blockSize);
    __syncthreads();

    block_reduce_complete_unroll<blockSize>(sdata, tid);
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

}  // namespace ladder
}  // namespace primer
