// K6 - complete unrolling.
//
// What it fixes: K5's remaining loop. With the block size a template parameter every step's bound is a
// compile-time constant: the whole tree unrolls, the `blockSize >= ...` tests vanish, and only the
// steps the block size needs are compiled.
// What it costs: one kernel per block size (1, 2, 4, ..., 1024 are instantiated) and a host-side switch
// that picks the one matching the launch; blockDim must equal blockSize.
// Fixed from the lecture: guarded loads; the last warp is Volta-safe (see K5).
#pragma once
#include "reduce_ladder_common.cuh"
#include "reduce_k5_unroll_last_warp.cuh"

namespace primer {
namespace ladder {

/** The whole shared-memory tree for a block of blockSize threads; sdata[0] ends with the block's sum. */
template <unsigned blockSize, typename T>
__device__ __forceinline__ void block_reduce_complete_unroll(T* sdata, unsigned tid) {
    if (blockSize >= 1024) { if (tid < 512) sdata[tid] += sdata[tid + 512]; __syncthreads(); }
    if (blockSize >= 512) { if (tid < 256) sdata[tid] += sdata[tid + 256]; __syncthreads(); }
    if (blockSize >= 256) { if (tid < 128) sdata[tid] += sdata[tid + 128]; __syncthreads(); }
    if (blockSize >= 128) { if (tid < 64) sdata[tid] += sdata[tid + 64]; __syncthreads(); }
    if (tid < 32) last_warp_reduce(sdata, tid, blockSize);
}

template <unsigned blockSize, typename T>
__device__ __forceinline__ void reduce_k6_complete_unroll(const T* in, T* out, long long n) {
    T* sdata = dynamic_shared<T>();
    const unsigned tid = threadIdx.x;
    const long long i = (long long)blockIdx.x * (blockSize * 2) + tid;
    T v = i < n ? in[i] : T(0);
    if (i + blockSize < n) v += in[i + blockSize];
    sdata[tid] = v;
    __syncthreads();

    block_reduce_complete_unroll<blockSize>(sdata, tid);
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

}  // namespace ladder
}  // namespace primer
