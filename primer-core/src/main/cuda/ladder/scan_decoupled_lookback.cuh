// Scan ladder, step 7 (device level): single pass with decoupled look-back (Merrill & Garland 2016).
//
// As in step 6: one launch, 4096-element tiles (scan_tile.cuh), tile numbers from an atomic counter.
// Each tile owns a 64-bit status word: a flag in the low half, a 32-bit value in the high half.
//   X (0): nothing known yet.   A (1): the tile's own total.   P (2): inclusive prefix up to this tile.
// A block publishes A as soon as its local scan is done, before it waits for anybody. Then warp 0
// looks back: lane j reads the status of tile (k-1-j), 32 predecessors at once. It waits until none
// of the 32 is X; if some lane sees P, the nearest such tile ends the search: the exclusive prefix is
// that P plus the A's of the tiles between. If all 32 are A, their sum is added and the window moves
// 32 tiles further back. Finally the block publishes P = prefix + its own total, and stores.
// What it fixes: step 6's serial chain. A tile no longer waits for its predecessor to finish its
// look-back, only for its predecessors' totals, which are published without waiting; a window
// usually finds a P within the first 32 tiles, so the wait per tile is about one L2 round trip in
// parallel with everyone else's: 2n traffic in one launch, 66-69% of copy bandwidth on an H200 (the
// rest is tiles sitting resident while they wait; see scan_tile.cuh).
// What it costs: more status traffic (32 loads per window), and for float: the prefix a tile gets is
// associated differently depending on which predecessors had P when it looked, so float results can
// differ in the last bits from run to run (within the documented bound). Integers are exact.
//
// Memory ordering (Volta+): flag and value travel in one aligned 64-bit word, written by one 64-bit
// store and read by one 64-bit load, so a reader sees either X or a complete (flag, value) pair: the
// single-copy atomicity of the word does what a fence between value and flag does in step 6, and no
// other memory is published through the flag. The accesses go through cuda::atomic_ref at device
// scope (relaxed): that keeps them out of the non-coherent L1 path and makes the compiler reload
// the word on every poll (the lecture's `volatile`). A then P from the same thread to the same word
// reach every reader in that order (coherence). The status words and the tile counter must be zero
// before the launch; the runner clears them inside the timed region, as a user would.
#pragma once
#include <cuda/atomic>
#include "scan_tile.cuh"

namespace primer {
namespace ladder {

constexpr unsigned LOOKBACK_INVALID = 0u, LOOKBACK_AGGREGATE = 1u, LOOKBACK_PREFIX = 2u;

using device_atomic_u64 = cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>;

__device__ __forceinline__ unsigned lookback_bits(int x) { return (unsigned)x; }
__device__ __forceinline__ unsigned lookback_bits(float x) { return __float_as_uint(x); }
template <typename T> __device__ __forceinline__ T lookback_value(unsigned long long word);
template <> __device__ __forceinline__ int lookback_value<int>(unsigned long long word) { return (int)(unsigned)(word >> 32); }
template <> __device__ __forceinline__ float lookback_value<float>(unsigned long long word) { return __uint_as_float((unsigned)(word >> 32)); }
__device__ __forceinline__ unsigned lookback_flag(unsigned long long word) { return (unsigned)word; }

template <typename T>
__device__ __forceinline__ unsigned long long lookback_word(unsigned flag, T value) {
    static_assert(sizeof(T) == 4, "value and flag must share one 64-bit word");
    return ((unsigned long long)lookback_bits(value) << 32) | flag;
}

__device__ __forceinline__ void lookback_publish(unsigned long long* status, long long tile, unsigned long long word) {
    device_atomic_u64(status[tile]).store(word, cuda::memory_order_relaxed);
}

/** Called by all 32 lanes of one warp; returns the sum of tiles 0..tile-1 in every lane. */
template <typename T>
__device__ __forceinline__ T lookback_exclusive_prefix(unsigned long long* status, long long tile) {
    const Sum<T> op;
    const int lane = threadIdx.x & 31;
    T exclusive = Sum<T>::identity();
    for (long long window_end = tile - 1;; window_end -= 32) {
        const long long predecessor = window_end - lane;  // lane 0: the nearest predecessor
        // Before tile 0 there is nothing: a P of zero ends the search.
        unsigned long long word = predecessor >= 0 ? device_atomic_u64(status[predecessor]).load(cuda::memory_order_relaxed)
                                                   : lookback_word(LOOKBACK_PREFIX, Sum<T>::identity());
        while (__any_sync(SCAN_FULL_WARP, lookback_flag(word) == LOOKBACK_INVALID)) {
            if (lookback_flag(word) == LOOKBACK_INVALID) {
                word = device_atomic_u64(status[predecessor]).load(cuda::memory_order_relaxed);
            }
        }
        const unsigned has_prefix = __ballot_sync(SCAN_FULL_WARP, lookback_flag(word) == LOOKBACK_PREFIX);
        const int last = has_prefix ? __ffs(has_prefix) - 1 : 31;  // the nearest P, or the whole window
        const T value = lane <= last ? lookback_value<T>(word) : Sum<T>::identity();
        exclusive = op(scan_warp_total(value, op), exclusive);  // this window lies before what we have
        if (has_prefix) return exclusive;
    }
}

template <typename T>
__device__ __forceinline__ void scan_decoupled_lookback(const T* in, T* out, long long n, unsigned long long* status,
                                                        unsigned* tile_counter) {
    __shared__ TileShared<T> s;
    const Sum<T> op;
    if (threadIdx.x == 0) {
        s.tile = cuda::atomic_ref<unsigned, cuda::thread_scope_device>(*tile_counter).fetch_add(1u, cuda::memory_order_relaxed);
    }
    __syncthreads();
    const long long tile = (long long)s.tile;
    const long long base = tile * TILE_ELEMENTS;

    T v[TILE_ITEMS];
    T aggregate;
    tile_load(in, base, n, v, s);
    const T before = tile_scan(v, s, aggregate);

    if (threadIdx.x < 32) {  // warp 0 publishes and looks back
        T prefix = Sum<T>::identity();
        if (tile == 0) {
            if (threadIdx.x == 0) lookback_publish(status, tile, lookback_word(LOOKBACK_PREFIX, aggregate));
        } else {
            if (threadIdx.x == 0) lookback_publish(status, tile, lookback_word(LOOKBACK_AGGREGATE, aggregate));
            prefix = lookback_exclusive_prefix<T>(status, tile);
            if (threadIdx.x == 0) lookback_publish(status, tile, lookback_word(LOOKBACK_PREFIX, op(prefix, aggregate)));
        }
        if (threadIdx.x == 0) s.tile_exclusive = prefix;
    }
    __syncthreads();
    tile_store(out, base, n, v, op(s.tile_exclusive, before), s);
}

}  // namespace ladder
}  // namespace primer
