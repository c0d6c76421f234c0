// Scan ladder, step 5 (device level): scan-then-propagate, three launches.
//
//   1. scan_tiles:      every 4096-element tile is scanned on its own (scan_tile.cuh); the block
//                       writes its tile's local scan to out and its total to tile_sums[tile].
//   2. scan_tile_sums:  one block scans tile_sums in place (inclusive), 4096 at a time with a
//                       carry: n / 4096 sums, i.e. 0.02% of the data, so one block keeps up
//                       (for n = 2^30: 256 Ki sums, 64 rounds).
//   3. add_tile_sums:   every tile but the first adds the inclusive sum of all tiles before it.
// What it fixes: block-level steps scan tiles; this is a scan of the whole array, for any n.
// What it costs: memory traffic. Steps 1 and 3 each read and write the array: 4n words move where
// a scan needs 2n, so at best half the copy bandwidth, plus two extra launches and their tails.
// Reduce-then-scan (reduce tiles first, scan during the second read) gets this down to 3n;
// the single-pass steps that follow get it to 2n.
#pragma once
#include "scan_tile.cuh"

namespace primer {
namespace ladder {

template <typename T>
__device__ __forceinline__ void scan_then_propagate_tiles(const T* in, T* out, long long n, T* tile_sums) {
    __shared__ TileShared<T> s;
    const long long base = (long long)blockIdx.x * TILE_ELEMENTS;
    T v[TILE_ITEMS];
    T aggregate;
    tile_load(in, base, n, v, s);
    const T before = tile_scan(v, s, aggregate);
    tile_store(out, base, n, v, before, s);
    if (threadIdx.x == 0) tile_sums[blockIdx.x] = aggregate;
}

/** One block, launched alone: tile_sums[0..count) becomes its own inclusive scan. */
template <typename T>
__device__ __forceinline__ void scan_then_propagate_tile_sums(T* tile_sums, long long count) {
    __shared__ TileShared<T> s;
    const Sum<T> op;
    T carry = Sum<T>::identity();
    for (long long base = 0; base < count; base += TILE_ELEMENTS) {
        T v[TILE_ITEMS];
        T aggregate;
        tile_load(tile_sums, base, count, v, s);
        const T before = tile_scan(v, s, aggregate);
        tile_store(tile_sums, base, count, v, op(carry, before), s);  // in place: all loads came first
        carry = op(carry, aggregate);
        __syncthreads();  // the next round's tile_load overwrites s.items that tile_store still reads
    }
}

/** Block b adds the inclusive sum of tiles 0..b to tile b + 1 (tile 0 needs nothing). */
template <typename T>
__device__ __forceinline__ void scan_then_propagate_add(T* out, long long n, const T* tile_sums) {
    const Sum<T> op;
    const long long tile = (long long)blockIdx.x + 1;
    const long long base = tile * TILE_ELEMENTS;
    const T prefix = tile_sums[tile - 1];
    T v[TILE_ITEMS];  // all loads first, then the stores: 32 loads in flight per thread
    if (base + TILE_ELEMENTS <= n) {
#pragma unroll
        for (int k = 0; k < TILE_ITEMS; ++k) v[k] = out[base + k * TILE_THREADS + threadIdx.x];
#pragma unroll
        for (int k = 0; k < TILE_ITEMS; ++k) out[base + k * TILE_THREADS + threadIdx.x] = op(prefix, v[k]);
    } else {
#pragma unroll
        for (int k = 0; k < TILE_ITEMS; ++k) {
            const long long g = base + k * TILE_THREADS + threadIdx.x;
            v[k] = g < n ? out[g] : Sum<T>::identity();
        }
#pragma unroll
        for (int k = 0; k < TILE_ITEMS; ++k) {
            const long long g = base + k * TILE_THREADS + threadIdx.x;
            if (g < n) out[g] = op(prefix, v[k]);
        }
    }
}

}  // namespace ladder
}  // namespace primer
