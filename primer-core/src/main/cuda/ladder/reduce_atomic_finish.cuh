// ATOMIC_FINISH - finish across blocks with one atomicAdd per block, in a single launch.
//
// What it fixes: the relaunch. K1-K7 write one partial per block and the host launches the kernel again
// on the partials until one value is left; here every block adds its partial straight into the result.
// One launch, no partials buffer; a few hundred atomics on one address are cheap next to the loads.
// What it costs: the result must be zeroed before the launch (the runner's memset32 does it, inside the
// timed region). For int32 the sum is exact and the same every run (integer addition is associative,
// wrap-around included). For float32 the blocks' partials are added in whatever order they arrive, so
// the result may differ in its last bits from run to run: not deterministic, which is why Primer's own
// reduce never uses float atomics. Block reduce as WARP_PARTIALS; grid as K7.
#pragma once
#include "reduce_ladder_common.cuh"
#include "reduce_warp_partials.cuh"

namespace primer {
namespace ladder {

template <typename T>
__device__ __forceinline__ void reduce_atomic_finish(const T* in, T* result, long long n) {
    const T v = block_reduce_warp_partials(grid_stride_pair_sum(in, n, blockDim.x), dynamic_shared<T>());
    if (threadIdx.x == 0) atomicAdd(result, v);
}

}  // namespace ladder
}  // namespace primer
