// LOCK_FINISH - finish across blocks under a spin lock, for an operator with no hardware atomic.
//
// What it shows: when the combine step is not a single atomic instruction (a struct, an arg-min, a
// product of doubles), blocks can take turns: one thread per block acquires a lock word with
// atomicCAS, applies the operator to the global result, and releases the lock.
// Memory ordering is the whole difficulty: __threadfence() after acquiring keeps the result's read
// after the lock is taken; the result is read and written through a volatile pointer so it comes from
// L2, not a stale L1 line; __threadfence() before the releasing atomicExch makes the new value visible
// to the next holder before the lock is seen free. Only thread 0 of a block spins, so no warp waits on
// itself; the holder is always a running block, so the wait ends.
// What it costs: the updates are serialised (one lock round trip per block), and the lock word and the
// result must be reset before every launch (the runner's memset32, inside the timed region). As with
// ATOMIC_FINISH, a float result depends on the order the blocks get the lock: not deterministic.
#pragma once
#include "../ops.cuh"
#include "reduce_ladder_common.cuh"
#include "reduce_warp_partials.cuh"

namespace primer {
namespace ladder {

/** result = op(result, v) under the spin lock `lock` (0 = free, 1 = held). Call from one thread. */
template <typename T, typename Op>
__device__ __forceinline__ void combine_under_lock(T* result, T v, int* lock, Op op) {
    while (atomicCAS(lock, 0, 1) != 0) {
        // spin: only one thread of this block is here
    }
    __threadfence();  // acquire: the reads below happen after the lock is ours
    volatile T* r = result;
    *r = op(*r, v);
    __threadfence();  // release: the update is visible device-wide before the lock reads free
    atomicExch(lock, 0);
}

template <typename T>
__device__ __forceinline__ void reduce_lock_finish(const T* in, T* result, long long n, int* lock) {
    const T v = block_reduce_warp_partials(grid_stride_pair_sum(in, n, blockDim.x), dynamic_shared<T>());
    if (threadIdx.x == 0) combine_under_lock(result, v, lock, Sum<T>());
}

}  // namespace ladder
}  // namespace primer
