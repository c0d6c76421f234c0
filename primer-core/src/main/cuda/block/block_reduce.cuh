// Block-wide reduction: each warp reduces by shuffles, lane 0 of each warp leaves its partial in
// shared memory, one barrier, and the first warp reduces the partials.
//
// Result: valid in every lane of warp 0, in particular in thread 0 (block_reduce_ordered: in thread 0
// only); other threads get an unspecified value. Every thread of the block must call it (it
// contains barriers).
//
// Storage is a static __shared__ array per instantiation (BLOCK_THREADS, ordered or not, T, Op). Calling it again in
// the same kernel is safe: each call starts with a barrier, so no warp overwrites the partials
// while warp 0 of the previous call may still be reading them. That barrier costs next to nothing
// where, as in the device kernels, the threads arrive from a long streaming loop anyway.
#pragma once
#include "../ops.cuh"
#include "../warp/warp_reduce.cuh"

namespace primer {

namespace block_reduce_detail {

/** Warps reduce their lanes, lane 0 of each leaves its partial, one barrier, warp 0 reduces them. */
template <int BLOCK_THREADS, bool ORDERED, typename T, typename Op>
__device__ __forceinline__ T reduce(T value, Op op) {
    static_assert(BLOCK_THREADS % 32 == 0 && BLOCK_THREADS >= 32 && BLOCK_THREADS <= 1024,
                  "BLOCK_THREADS: a multiple of 32, at most 1024");
    constexpr int WARPS = BLOCK_THREADS / 32;
    static_assert((WARPS & (WARPS - 1)) == 0, "BLOCK_THREADS / 32 must be a power of two");

    if constexpr (ORDERED) value = warp_reduce_ordered(value, op);
    else value = warp_reduce(value, op);
    if constexpr (WARPS == 1) {
        return value;
    } else {
        __shared__ T warp_partials[WARPS];
        const int lane = threadIdx.x & 31;
        const int warp = threadIdx.x >> 5;
        __syncthreads();  // a previous call's warp 0 has finished reading warp_partials
        if (lane == 0) warp_partials[warp] = value;
        __syncthreads();
        if (warp == 0) {
            value = lane < WARPS ? warp_partials[lane] : Op::identity();  // identities on the right
            if constexpr (ORDERED) value = warp_reduce_ordered(value, op);
            else value = warp_reduce_lanes<WARPS>(value, op);
        }
        return value;
    }
}

}  // namespace block_reduce_detail

/** The block's total, valid in warp 0 (thread 0 in particular), for commutative operators. */
template <int BLOCK_THREADS, typename T, typename Op>
__device__ __forceinline__ T block_reduce(T value, Op op) {
    return block_reduce_detail::reduce<BLOCK_THREADS, false>(value, op);
}

/**
 * value_0 op value_1 op ... op value_(BLOCK_THREADS-1) in thread order, valid in thread 0 only: for
 * operators that are associative but not commutative (warp_reduce_ordered at both levels).
 */
template <int BLOCK_THREADS, typename T, typename Op>
__device__ __forceinline__ T block_reduce_ordered(T value, Op op) {
    return block_reduce_detail::reduce<BLOCK_THREADS, true>(value, op);
}

}  // namespace primer
