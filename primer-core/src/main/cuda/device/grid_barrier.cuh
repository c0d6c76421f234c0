// A barrier across every block of a grid, for kernels launched cooperatively
// (CudaKernel.launchCooperative: a graph node with the cooperative attribute, or
// cuLaunchCooperativeKernel). The driver starts such a grid only when all its blocks fit on the GPU
// at once, or refuses it (CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE), so a block waiting here never
// waits for one that cannot start. An ordinary launch makes no such promise: there it may hang.
//
// The arrivals count up in one 64-bit word that is zero between launches: the k-th barrier lets a
// block through once k * gridDim.x arrivals are in. After its last barrier each block arrives once
// more (grid_depart); the block that arrives last knows every other one is past every barrier, and
// puts the word back to zero. Only thread 0 of a block touches the word: release on arrival, so
// its block's writes (ordered before it by __syncthreads) are in; acquire on the way out, so the
// block then sees every other block's.
#pragma once

namespace primer {

__device__ __forceinline__ unsigned long long grid_arrive(unsigned long long* arrivals) {
    unsigned long long before;
    asm volatile("atom.acq_rel.gpu.global.add.u64 %0, [%1], 1;" : "=l"(before) : "l"(arrivals) : "memory");
    return before;
}

__device__ __forceinline__ unsigned long long grid_arrivals(const unsigned long long* arrivals) {
    unsigned long long count;
    asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(count) : "l"(arrivals) : "memory");
    return count;
}

/** The k-th barrier of the launch (k = 1, 2, ...): what any block wrote before it, every block sees after it. */
__device__ __forceinline__ void grid_barrier(unsigned long long* arrivals, unsigned k) {
    __syncthreads();
    if (threadIdx.x == 0) {
        grid_arrive(arrivals);
        const unsigned long long target = (unsigned long long)k * gridDim.x;
        while (grid_arrivals(arrivals) < target) {}
    }
    __syncthreads();
}

/**
 * The launch's last arrival, after its `barriers` barriers: true (in every thread of the block) in
 * the one block that arrives last, which then sees what every block wrote; that block has put the
 * word back to zero, as no block reads it any more.
 */
__device__ __forceinline__ bool grid_depart(unsigned long long* arrivals, unsigned barriers) {
    __shared__ bool last;
    __syncthreads();
    if (threadIdx.x == 0) {
        last = grid_arrive(arrivals) == (barriers + 1ull) * gridDim.x - 1;
        if (last) *arrivals = 0;
    }
    __syncthreads();
    return last;
}

}  // namespace primer
