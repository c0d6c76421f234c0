// INDICES BY PLACE: how the marked tile (marked_tile.cuh) counts ArgMin/ArgMax indices. A thread
// folding a run of values does not know where the segment open at the run's start began, so it
// cannot count an index within that segment. It counts places instead (a value's index in the
// tile's stage, lead + its position in the tile): one frame for every thread of the tile, in which
// the block scan at the tile's end combines partials as it does any others. A result the thread
// closes itself counts from the place after its previous close; the others (the first segment each
// thread closes, the tile's first and open parts) are taken to their segment's own frame by
// merge_path_tile_end through PlaceFrame, one load of the segment's start offset each. (The merge
// walk, which knows every segment's start, counts from it directly.)
#pragma once
#include "../segmented_reduce_merge_path.cuh"

namespace primer {
namespace segmented {

/** An accumulator with its index counted from `start` instead (ArgMin/ArgMax; the identity's -1 stays). */
template <typename A>
__device__ __forceinline__ A index_from(A a, long long) { return a; }
template <typename T>
__device__ __forceinline__ KeyIndex<T> index_from(KeyIndex<T> a, long long start) {
    return {a.key, a.index < 0 ? a.index : a.index - start};
}

/**
 * Where a tile's places lie (INDICES BY PLACE), in shared memory: what PlaceFrame needs after the
 * fold, which would otherwise hold the tile's span in registers through it (they spilled at six
 * blocks per SM).
 */
struct PlaceOrigin {
    long long i0;      // the tile's first segment
    long long origin;  // the offset (an index of the values) at place 0: the tile's first value less lead
    int na;            // segments closing in the tile
};

/** A tile's PlaceOrigin: one per recipe, and none where no recipe needs it. */
template <class Rc>
__device__ __forceinline__ PlaceOrigin& place_origin() {
    __shared__ PlaceOrigin origin;
    return origin;
}

/**
 * merge_path_tile_end's frame for partials by place: each leaves counted from its segment's start.
 * The offsets passed the check (the tile runs only then), so the starts need no clamping.
 */
struct PlaceFrame {
    const long long* offsets;
    const PlaceOrigin& places;
    /** Segment i0 + k's first place (negative when it began in an earlier tile). */
    __device__ __forceinline__ long long start(int k) const { return __ldg(offsets + places.i0 + k) - places.origin; }
    template <typename A> __device__ __forceinline__ A closed(A a, int k) const { return index_from(a, start(k)); }
    /** The segment open at the tile's end is i0 + na (offsets has nseg + 1 entries: i0 + na <= nseg). */
    template <typename A> __device__ __forceinline__ A open(A a) const { return index_from(a, start(places.na)); }
};

}  // namespace segmented
}  // namespace primer
