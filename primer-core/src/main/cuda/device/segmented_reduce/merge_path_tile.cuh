// The standalone merge path's tile kernel (segreduce_merge_path_*, and the user-defined operators'):
// which of the two ways a recipe's tiles take.
#pragma once
#include "marked_tile.cuh"
#include "prefix_tile.cuh"

namespace primer {
namespace segmented {

/**
 * Tile t of BLOCK * ITEMS merge steps, by the whole block, its partials to the tile's slots in
 * scratch (segmented_reduce_merge_path.cuh's header): by prefix differences for integer sums and
 * xor (prefix_tile.cuh); by runs of values for the others (marked_tile.cuh), ArgMin/ArgMax included
 * (their indices by place there). The merge walk is the one launch's (one_launch.cuh).
 */
template <class Rc, int BLOCK, int ITEMS>
__device__ __forceinline__ void merge_path_tile(const typename Rc::T* __restrict__ in,
                                                const long long* __restrict__ offsets, long long nseg,
                                                long long in_length, long long tiles, long long t,
                                                typename Rc::Out* __restrict__ out, unsigned char* __restrict__ scratch) {
    if constexpr (ByPrefixDifferences<Rc>) {
        merge_path_prefix_tile<Rc, BLOCK, ITEMS>(in, offsets, nseg, in_length, tiles, t, out, scratch);
    } else {
        merge_path_marked_tile<Rc, BLOCK, ITEMS>(in, offsets, nseg, in_length, tiles, t, out, scratch);
    }
}

}  // namespace segmented
}  // namespace primer
