// Scan ladder, step 6 (device level): chained scan, one pass.
//
// One launch, one 4096-element tile per block (scan_tile.cuh). A block scans its tile locally, then
// thread 0 waits until the previous tile has published its inclusive prefix, publishes its own
// (previous prefix + this tile's total), and the block writes its tile with the prefix added.
// Blocks take their tile number from an atomic counter, not from blockIdx: the hardware may start
// block 900 before block 3, and block 900 would then spin on SM resources that tile 3 needs (a
// deadlock once every SM is full of waiters). With the counter, whoever waits for tile k - 1 knows
// that the block holding tile k - 1 is already running.
// What it fixes: scan-then-propagate's traffic. Each element is read once and written once (2n).
// What it costs: a serial chain. Tile k can publish only after tile k - 1 has, so the run takes at
// least (number of tiles) x (one publish-and-observe round trip through L2: a flag load that sees
// the flag, a second load for the value, a release fence and two stores), about a microsecond per
// tile, however many SMs there are. The loads and the local scan overlap with the wait; the chain
// does not. Step 7 shortens the chain.
//
// Memory ordering (Volta+): the prefix and its flag are two words, so the writer publishes with
// release (value stored first, then flag.store(1, release)) and the reader spins on an acquire
// load of the flag before it loads the value: a plain flag or a missing fence could let the reader
// see the flag before the value. (The lecture version uses volatile and __threadfence(); release and
// acquire say the same thing in the language of the PTX memory model.) flags and the tile counter
// must be zero before the launch; the runner clears them inside the timed region, as a user would.
#pragma once
#include <cuda/atomic>
#include "scan_tile.cuh"

namespace primer {
namespace ladder {

using device_atomic_u32 = cuda::atomic_ref<unsigned, cuda::thread_scope_device>;

template <typename T>
__device__ __forceinline__ void scan_chained(const T* in, T* out, long long n, unsigned* flags, T* inclusive,
                                             unsigned* tile_counter) {
    __shared__ TileShared<T> s;
    const Sum<T> op;
    if (threadIdx.x == 0) s.tile = device_atomic_u32(*tile_counter).fetch_add(1u, cuda::memory_order_relaxed);
    __syncthreads();
    const long long tile = (long long)s.tile;
    const long long base = tile * TILE_ELEMENTS;

    T v[TILE_ITEMS];
    T aggregate;
    tile_load(in, base, n, v, s);
    const T before = tile_scan(v, s, aggregate);

    if (threadIdx.x == 0) {
        T prefix = Sum<T>::identity();
        if (tile > 0) {
            device_atomic_u32 ready(flags[tile - 1]);
            while (ready.load(cuda::memory_order_acquire) == 0u) {
            }
            prefix = cuda::atomic_ref<T, cuda::thread_scope_device>(inclusive[tile - 1]).load(cuda::memory_order_relaxed);
        }
        cuda::atomic_ref<T, cuda::thread_scope_device>(inclusive[tile]).store(op(prefix, aggregate),
                                                                              cuda::memory_order_relaxed);
        device_atomic_u32(flags[tile]).store(1u, cuda::memory_order_release);
        s.tile_exclusive = prefix;
    }
    __syncthreads();
    tile_store(out, base, n, v, op(s.tile_exclusive, before), s);
}

}  // namespace ladder
}  // namespace primer
