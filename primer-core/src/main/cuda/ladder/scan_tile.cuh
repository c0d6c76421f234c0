// Scan ladder helper for the device-level steps (5, 6, 7): one 4096-element tile per block.
//
// 128 threads (4 warps) x 32 consecutive elements each. Why these sizes: 32 elements per thread turn
// most of the work into a serial scan in registers (31 dependent adds, no communication), so the
// warp/block part (shuffles, one barrier) is paid once per 32 elements. 4096-element tiles keep the
// per-tile costs of the single-pass steps (a flag round trip through L2) small next to the tile's
// 32 KB of traffic. And small blocks let more tiles be resident per SM (56 registers x 128 threads:
// 9 blocks, 36 Ki elements in flight per SM): measured on an H200, the single-pass steps are limited
// by how many tiles are loading while others wait on their look-back, so tiles per SM is the knob
// (256 x 16 reached 61% of copy bandwidth for step 7, 128 x 32 70%, 128 x 64 71%).
//
// Global memory is read and written striped (consecutive lanes, consecutive addresses: coalesced)
// and transposed through shared memory to the blocked arrangement the serial scan needs. The
// transposition pads one word per 32 (index i + i/32) so that both the striped and the blocked
// accesses of a warp hit 32 different banks.
//
// Float rounding depth of one element (used by the runner's tolerance): 31 serial adds, 5 in the
// warp scan, at most 3 combining warp totals, then 3 adds of prefixes: at most 42.
#pragma once
#include "scan_warp.cuh"

namespace primer {
namespace ladder {

constexpr int TILE_THREADS = 128;
constexpr int TILE_ITEMS = 32;
constexpr int TILE_ELEMENTS = TILE_THREADS * TILE_ITEMS;
constexpr int TILE_WARPS = TILE_THREADS / 32;

__device__ __forceinline__ int tile_padded(int i) { return i + (i >> 5); }

template <typename T>
struct TileShared {
    T items[TILE_ELEMENTS + TILE_ELEMENTS / 32];  // the transposition buffer
    T warp_totals[TILE_WARPS];
    T tile_exclusive;          // the tile's prefix, published by the thread that learnt it
    unsigned long long tile;   // the tile this block works on (single-pass steps take it in order)
};

/** Loads tile elements [base, base + 4096) (identity past n) into v: thread t gets 32t .. 32t+31. */
template <typename T>
__device__ __forceinline__ void tile_load(const T* in, long long base, long long n, T (&v)[TILE_ITEMS],
                                          TileShared<T>& s) {
    const int t = threadIdx.x;
    if (base + TILE_ELEMENTS <= n) {  // a full tile: 32 independent loads, no bounds tests
#pragma unroll
        for (int k = 0; k < TILE_ITEMS; ++k) s.items[tile_padded(k * TILE_THREADS + t)] = in[base + k * TILE_THREADS + t];
    } else {
#pragma unroll
        for (int k = 0; k < TILE_ITEMS; ++k) {
            const long long g = base + k * TILE_THREADS + t;
            s.items[tile_padded(k * TILE_THREADS + t)] = g < n ? in[g] : Sum<T>::identity();
        }
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE_ITEMS; ++k) v[k] = s.items[tile_padded(t * TILE_ITEMS + k)];
}

/**
 * Scans the tile in v: afterwards v holds each element's inclusive prefix within its thread's 32,
 * `aggregate` the whole tile's sum (the same value in every thread), and the return value is the
 * sum of the tile's elements before this thread's first one. One barrier; every thread must call.
 * Reuses s.warp_totals: the caller separates two calls with a barrier.
 */
template <typename T>
__device__ __forceinline__ T tile_scan(T (&v)[TILE_ITEMS], TileShared<T>& s, T& aggregate) {
    const Sum<T> op;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
    for (int k = 1; k < TILE_ITEMS; ++k) v[k] = op(v[k - 1], v[k]);

    const T warp_inclusive = scan_warp_inclusive(v[TILE_ITEMS - 1], op);
    T before_in_warp = __shfl_up_sync(SCAN_FULL_WARP, warp_inclusive, 1);
    if (lane == 0) before_in_warp = Sum<T>::identity();
    if (lane == 31) s.warp_totals[warp] = warp_inclusive;
    __syncthreads();

    // Every thread walks the 4 warp totals in the same order: the same aggregate everywhere.
    T running = Sum<T>::identity(), before_warp = Sum<T>::identity();
#pragma unroll
    for (int w = 0; w < TILE_WARPS; ++w) {
        if (w == warp) before_warp = running;
        running = op(running, s.warp_totals[w]);
    }
    aggregate = running;
    return op(before_warp, before_in_warp);
}

/** Adds `prefix` to v and stores the tile's elements below n. Starts with a barrier of its own. */
template <typename T>
__device__ __forceinline__ void tile_store(T* out, long long base, long long n, const T (&v)[TILE_ITEMS],
                                           T prefix, TileShared<T>& s) {
    const Sum<T> op;
    const int t = threadIdx.x;
    __syncthreads();  // every thread has finished reading s.items in tile_load (and s.tile*)
#pragma unroll
    for (int k = 0; k < TILE_ITEMS; ++k) s.items[tile_padded(t * TILE_ITEMS + k)] = op(prefix, v[k]);
    __syncthreads();
    if (base + TILE_ELEMENTS <= n) {
#pragma unroll
        for (int k = 0; k < TILE_ITEMS; ++k) out[base + k * TILE_THREADS + t] = s.items[tile_padded(k * TILE_THREADS + t)];
    } else {
#pragma unroll
        for (int k = 0; k < TILE_ITEMS; ++k) {
            const long long g = base + k * TILE_THREADS + t;
            if (g < n) out[g] = s.items[tile_padded(k * TILE_THREADS + t)];
        }
    }
}

}  // namespace ladder
}  // namespace primer
