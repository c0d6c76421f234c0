// Scan ladder, step 3 (block level): Blelloch with conflict-free padding.
//
// Same algorithm, same tile (2048 elements, 1024 threads) as step 2; only the layout changes:
// slot i lives at index i + (i >> 5), one spare word after every 32 (LOG_NUM_BANKS = 5: 32 banks of
// 4 bytes). Slots 2^k apart then land in different banks, because each crossing of a 32-slot
// boundary shifts the bank by one.
// What it fixes: step 2's bank conflicts. Checked slot by slot for this tile: the levels with 64 or
// more active threads become conflict-free; the five levels with 32 or fewer active threads (at most
// one warp working) keep a 2-way conflict. GPU Gems 3 adds a second term, i >> (2·LOG_NUM_BANKS),
// that removes those too, for one more shift and add per index.
// What it costs: 64 extra words of shared memory (3%) and a shift and add per index. It does not
// fix the idle threads near the root or the 22 barriers: the tree shape is still the limit.
#pragma once
#include "scan_blelloch.cuh"

namespace primer {
namespace ladder {

constexpr int SCAN_LOG_NUM_BANKS = 5;

struct BlellochPaddedLayout {
    static constexpr int SLOTS = BLELLOCH_TILE + (BLELLOCH_TILE >> SCAN_LOG_NUM_BANKS);
    static __device__ __forceinline__ int at(int i) { return i + (i >> SCAN_LOG_NUM_BANKS); }
};

template <typename T>
__device__ __forceinline__ void scan_blelloch_padded_tile(const T* in, T* out, long long n) {
    scan_blelloch_tile<T, BlellochPaddedLayout>(in, out, n);
}

}  // namespace ladder
}  // namespace primer
