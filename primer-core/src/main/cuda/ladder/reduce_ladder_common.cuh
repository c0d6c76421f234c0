// Helpers every rung of the reduction ladder shares (Harris, "Optimizing Parallel Reduction in CUDA").
//
// The ladder sums with the element type's own `+`: int32 wraps around exactly as Java's `int +=` does
// (nvcc emits a plain 32-bit IADD), so an int32 result can be checked bit for bit against the CPU.
#pragma once

namespace primer {
namespace ladder {

/**
 * The block's dynamic shared memory viewed as T[]. A template cannot declare `extern __shared__ T s[]`
 * itself: each instantiation would redeclare the same symbol with another type.
 */
template <typename T>
__device__ __forceinline__ T* dynamic_shared() {
    extern __shared__ __align__(16) unsigned char ladder_dynamic_shared[];
    return reinterpret_cast<T*>(ladder_dynamic_shared);
}

/** How many lanes a warp of this block has: 32, or the whole block when it is smaller than a warp. */
__device__ __forceinline__ unsigned warp_lanes(unsigned block) { return block < 32u ? block : 32u; }

/** The mask naming lanes 0..lanes-1: the lanes a *_sync intrinsic must wait for. */
__device__ __forceinline__ unsigned lane_mask(unsigned lanes) {
    return lanes >= 32u ? 0xffffffffu : (1u << lanes) - 1u;
}

}  // namespace ladder
}  // namespace primer
