// K5 - unroll the last warp.
//
// What it fixes: K4's synchronisation overhead. Once s <= 32 only warp 0 still works, and a warp needs
// no __syncthreads(): the last six halvings are written out without the loop or the block barrier.
// What it costs: the block-level loop (s > 32) is still a loop over a run-time blockDim.
//
// Correct on Volta and later: the lecture's warpReduce took a `volatile` pointer and no barrier at all,
// trusting the 32 lanes to run in lockstep, and had every lane execute every step. Since Volta the lanes
// of a warp are scheduled independently: lane 0 may read slot 16 before lane 16 has added slot 48 into it,
// and lane 16 may overwrite slot 16 in step 16 while lane 0 still reads it. Here each step is done only by
// the lanes whose result is still needed (tid < s), so no lane reads a slot that is written in the same
// step, and __syncwarp() orders one step's writes before the next step's reads. __syncwarp() also makes
// the writes visible and stops the compiler caching the slots, which is what `volatile` used to do, so a
// plain pointer suffices. Fixed from the lecture: guarded loads; blocks smaller than 64 threads skip the
// steps that would read past their shared memory. Requires a power-of-two blockDim.
#pragma once
#include "reduce_ladder_common.cuh"

namespace primer {
namespace ladder {

/**
 * The last (up to) six halvings of a shared-memory tree, done by warp 0 alone: called by threads
 * 0 .. min(32, block)-1 once sdata[0 .. min(64, block)) holds the values left to add; sdata[0] ends up
 * with their sum. `block` is the block size (a compile-time constant in K6/K7, so the guards fold away).
 */
template <typename T>
__device__ __forceinline__ void last_warp_reduce(T* sdata, unsigned tid, unsigned block) {
    const unsigned mask = lane_mask(warp_lanes(block));
    if (block >= 64) sdata[tid] += sdata[tid + 32];  // reads slots 32..63, writes 0..31: no overlap
    __syncwarp(mask);
    if (block >= 32 && tid < 16) sdata[tid] += sdata[tid + 16];
    __syncwarp(mask);
    if (block >= 16 && tid < 8) sdata[tid] += sdata[tid + 8];
    __syncwarp(mask);
    if (block >= 8 && tid < 4) sdata[tid] += sdata[tid + 4];
    __syncwarp(mask);
    if (block >= 4 && tid < 2) sdata[tid] += sdata[tid + 2];
    __syncwarp(mask);
    if (block >= 2 && tid < 1) sdata[tid] += sdata[tid + 1];
}

template <typename T>
__device__ __forceinline__ void reduce_k5_unroll_last_warp(const T* in, T* out, long long n) {
    T* sdata = dynamic_shared<T>();
    const unsigned tid = threadIdx.x;
    const long long i = (long long)blockIdx.x * (blockDim.x * 2) + tid;
    T v = i < n ? in[i] : T(0);
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    sdata[tid] = v;
    __syncthreads();

    for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }
    if (tid < 32) last_warp_reduce(sdata, tid, blockDim.x);
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

}  // namespace ladder
}  // namespace primer
