// Segments given by a sorted offsets array: each tile's starts, found once per launch by
// segment_tile_starts (a search per tile by a group of lanes, the first few starts' positions in a
// slot), set as a bitmap in shared memory by OffsetHeads::prepare; and the offsets' check, in the same
// launch as the tile starts, whose verdict opens the scan's gate on the device and reaches the host,
// so that bad offsets are refused before anything is written.
#pragma once
#include "policy.cuh"

namespace primer {

/**
 * Per tile, the positions within it of its first SEGMENT_HEAD_SLOTS segment starts (int32), written
 * by segment_tile_starts after tile_first[0 .. tiles] in the same scratch, from the next multiple of
 * a slot's 128 bytes: a tile's warp loads its slot as one 128-byte line. ScanPolicy.java mirrors it.
 */
__host__ __device__ constexpr long long segment_head_slots_offset(long long tiles) {
    constexpr long long SLOT_BYTES = ScanPolicyConstants::SEGMENT_HEAD_SLOTS * 4;
    return (8 * (tiles + 1) + SLOT_BYTES - 1) / SLOT_BYTES * SLOT_BYTES;
}
__host__ __device__ __forceinline__ int* segment_head_slots(long long* tile_first, long long tiles) {
    return reinterpret_cast<int*>(reinterpret_cast<char*>(tile_first) + segment_head_slots_offset(tiles));
}
__host__ __device__ __forceinline__ const int* segment_head_slots(const long long* tile_first, long long tiles) {
    return reinterpret_cast<const int*>(reinterpret_cast<const char*>(tile_first) + segment_head_slots_offset(tiles));
}

template <int TILE_ITEMS, int BLOCK_THREADS>
struct OffsetHeads {
    static constexpr bool SEGMENTED = true;
    static constexpr bool BITS_IN_SHARED = true;
    static constexpr bool KEEPS_ROWS = false;
    static constexpr bool GATED = true;
    static constexpr int SLOTS = ScanPolicyConstants::SEGMENT_HEAD_SLOTS;
    const long long* offsets;     // segment k is [offsets[k], offsets[k+1]) of the full array
    const long long* tile_first;  // per tile (and one more): the first k >= 1 with offsets[k] >= tile start
    long long begin;              // offsets[0]: element 0 of this scan
    const int* slots;             // per tile: its first SLOTS starts' positions (segment_head_slots)
    const unsigned long long* gate;  // device_scan scans where *gate != 0 (check_offsets_and_find_tile_starts wrote it)
    struct Storage {
        unsigned bits[TILE_ITEMS / 32];
    };
    // Never null for device_scan: a load under a null test was a branch, and the ticket's atomic
    // waited for the load behind it (2^28 float32, the scan kernel 692 -> 697 us, ncu).
    __device__ __forceinline__ unsigned long long load_gate() const { return *gate; }
    template <int VEC, int ROWS, int STRIDE>
    __device__ __forceinline__ void load_rows(long long, long long, bool, unsigned (&raw)[ROWS]) const {
#pragma unroll
        for (int r = 0; r < ROWS; ++r) raw[r] = 0u;
    }
    /**
     * The tile's segment starts as a bitmap in shared memory. A tile with at most SLOTS starts
     * takes their positions from its slot, loaded beside tile_first[tile] and tile_first[tile + 1]:
     * one round trip to memory before the scan. One with more reads its offsets after them: two.
     * Tile 0 also marks element 0, whose segment starts at offsets[0], as the scan does by flags.
     * (2^28 float32 with a start in about 1024 elements: 0.788 -> 0.721 ms, 8%; with one in 16
     * (256-512 a tile) nothing changes; bench/lab/scan_offsets_lab.cu.) Zeroing the bitmap is safe
     * without a barrier first: the previous tile's bitmap was read before that tile's block scan,
     * whose barriers every thread has passed since.
     */
    __device__ __forceinline__ void prepare(long long tile, long long tile_start, Storage& s) const {
        const long long first = tile_first[tile], end = tile_first[tile + 1];
        const int slot = threadIdx.x < SLOTS ? slots[tile * SLOTS + threadIdx.x] : -1;
        for (int w = threadIdx.x; w < TILE_ITEMS / 32; w += BLOCK_THREADS) s.bits[w] = 0u;
        __syncthreads();
        if (tile_start <= 0 && threadIdx.x == 0) atomicOr(&s.bits[-tile_start >> 5], 1u << (-tile_start & 31));  // element 0 (device_scan)
        if (end - first <= SLOTS) {
            if (threadIdx.x < end - first && slot >= 0 && slot < TILE_ITEMS) atomicOr(&s.bits[slot >> 5], 1u << (slot & 31));
        } else {
            for (long long k = first + threadIdx.x; k < end; k += BLOCK_THREADS) {
                const long long at = offsets[k] - begin - tile_start;
                if (at >= 0 && at < TILE_ITEMS) atomicOr(&s.bits[at >> 5], 1u << (at & 31));  // guards unsorted input
            }
        }
        __syncthreads();
    }
    template <int VEC>
    __device__ __forceinline__ unsigned bits(unsigned, int tile_offset, const Storage& s) const {
        static_assert(32 % VEC == 0 && VEC < 32, "a chunk's bits lie in one word");  // tile_offset: a multiple of VEC
        return (s.bits[tile_offset >> 5] >> (tile_offset & 31)) & ((1u << VEC) - 1u);
    }
};

/**
 * Segmented-by-offsets helper, SEGMENT_STARTS_LANES lanes for each t = 0 .. tiles (grid: (tiles + 1)
 * x LANES threads, in blocks of SEGMENT_STARTS_BLOCK): tile_first[t] = the first k in
 * [1, segments) with offsets[k] >= begin - shift + t * tile_items, or segments if none. A tile's
 * segment starts are then offsets[tile_first[t] .. tile_first[t+1]). A tile with at most
 * SEGMENT_HEAD_SLOTS of them also gets their positions within it in its slot (segment_head_slots:
 * the scratch has room for tile_first and then tiles slots); a tile with more is left to read its
 * offsets (OffsetHeads::prepare).
 *
 * The search is LANES-way: each round, lane j of the tile's group probes the last offset of piece j
 * of the range cut in LANES, and the group keeps the first piece that reaches the key. 2^18
 * segments take six rounds of loads; a binary search, a thread per tile, waited out eighteen, one
 * after another. Measured (ncu, 2^28 elements, a head in about 1024; bench/results/
 * 2026-11-24-nvidia-h200-offsets-ab.md): int8 (16384 tiles) binary 14.3 us, a warp per tile
 * (32-way, four rounds) 9.1; float32 (32768 tiles, a warp each would be four times the threads
 * an H200 runs at once) binary 12.4, 8 lanes 8.2.
 */
__device__ __forceinline__ void segment_tile_starts(const long long* offsets, long long segments, long long begin,
                                                    long long shift, long long tile_items, long long tiles,
                                                    long long* tile_first) {
    constexpr int SLOTS = ScanPolicyConstants::SEGMENT_HEAD_SLOTS, LANES = ScanPolicyConstants::SEGMENT_STARTS_LANES;
    static_assert(32 % LANES == 0 && SLOTS % LANES == 0, "whole groups in a warp, whole slots in a group");
    const long long t = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / LANES;
    const int lane = (int)(threadIdx.x % LANES), group = (int)(threadIdx.x % 32) - lane;
    const bool real = t <= tiles;  // every lane of a warp takes part in its ballots, real or not
    const long long key = begin - shift + t * tile_items;
    // The answer is the first k in [lo, hi) with offsets[k] >= key, or hi; offsets[hi - 1] >= key
    // once a round has narrowed the range (before, hi = segments: the answer when none reaches it).
    long long lo = 1, hi = real ? segments : 1;
    while (__any_sync(0xffffffffu, hi - lo > LANES)) {
        const bool searching = hi - lo > LANES;
        const long long step = (hi - lo + LANES - 1) / LANES;
        const long long last = min(lo + (lane + 1) * step, hi) - 1;  // empty pieces repeat hi - 1
        const unsigned reached = __ballot_sync(0xffffffffu, searching && offsets[last] >= key) >> group & ((1u << LANES) - 1u);
        if (searching) {
            const int piece = __ffs(reached) - 1;
            hi = reached ? min(lo + (piece + 1) * step, hi) : hi;
            lo = reached ? lo + piece * step : hi;
        }
    }
    const unsigned reached = __ballot_sync(0xffffffffu, lo + lane < hi && offsets[lo + lane] >= key) >> group & ((1u << LANES) - 1u);
    lo = reached ? lo + __ffs(reached) - 1 : hi;
    if (!real) return;
    if (lane == 0) tile_first[t] = lo;
    if (t == tiles) return;
    // The tile's first starts, SLOTS / LANES a lane: all loads before any store (slot and offsets
    // may alias, for all the compiler knows, and a store between loads would wait a round trip each).
    const bool few = lo + SLOTS >= segments || offsets[lo + SLOTS] >= key + tile_items;
    long long at[SLOTS / LANES];
#pragma unroll
    for (int i = 0; i < SLOTS / LANES; ++i) {
        const long long k = lo + i * LANES + lane;
        at[i] = k < segments ? offsets[k] - key : tile_items;
    }
    int* slot = segment_head_slots(tile_first, tiles) + t * SLOTS;
#pragma unroll
    for (int i = 0; i < SLOTS / LANES; ++i) {
        if (few && at[i] < tile_items) slot[i * LANES + lane] = (int)at[i];
    }
}

/**
 * The offsets' check and the tile starts in one launch, with the verdict handed to the host early.
 * Launched with a grid for the most tiles the `length` elements can take (ScanPolicy.maxTiles), or
 * more (the check is grid-stride); `state` is two zeroed words of scratch, left zeroed.
 *
 * 1. The check: for every k, offsets[k] > offsets[k + 1] raises state[0] to ~k (atomicMax): the
 *    first decreasing pair, with zero meaning none, so the state needs no clearing.
 * 2. The last block through the check (a ticket in state[1], put back to zero) copies offsets[0],
 *    offsets[segments] and the first decrease (-1 for none) to `verdict`, pinned host memory the host
 *    polls. The host throws for bad offsets, so a decreasing pair anywhere is found as the CPU
 *    backend finds it. With a `gate` (two words of device memory; null for none), it also writes
 *    gate[0]: whether the scan the host queued behind this launch without waiting, which guessed
 *    the usual range [0, length), may run: 1 for sorted offsets from 0 to `length`, else 0
 *    (OffsetHeads::load_gate; the guessed scan then writes nothing, and the host launches the scan
 *    of the range it was told, or throws), and gate[1] = 1, the gate of that later scan.
 * 3. segment_tile_starts for the tiles of elements offsets[0] .. offsets[segments] of `in`, with the
 *    shift and tile count derived as the host derives them (ScanPolicy.shift and tiles), unless the
 *    ends are out of range or equal (the host launches nothing then). It runs whether or not the
 *    offsets are sorted, as they are checked at the same time: on unsorted ones it gives wrong
 *    starts, never a read or write out of range (every search stays in [1, segments), every store
 *    in the tiles' scratch), and no scan reads them: the gate stays shut and the host throws.
 * Before step 54 a check kernel ran first, the host read its result back (a synchronize) and only
 * then launched the tile starts. Now the tile starts run while the host launches the scan: 2^28
 * float32 summed by offsets (a head in about 1024) 0.720 -> 0.709 ms, 2^16 24 -> 19 us
 * (bench/results/2026-11-24-nvidia-h200-offsets-verdict-ab.md). Since step 55 the guessed scan is
 * queued before the verdict: float32 by offsets over whole arrays at 2^16 18-21 -> 15-18 us, 2^24
 * 65-68 -> 62-64 us, 2^28 unchanged (the verdict's round trip already hid behind the tile starts);
 * a range inside the arrays pays for the guessed launch, 2^24 +2 us
 * (bench/results/2026-11-24-nvidia-h200-step55-guess-ab.md).
 */
__device__ __forceinline__ void check_offsets_and_find_tile_starts(const long long* offsets, long long segments,
                                                                   long long length, const void* in,
                                                                   long long item_bytes, long long tile_items,
                                                                   unsigned long long* state,
                                                                   unsigned long long* verdict, unsigned long long* gate,
                                                                   long long* tile_first) {
    const long long begin = offsets[0], end = offsets[segments];
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < segments; k += stride) {
        if (offsets[k] > offsets[k + 1]) {
            atomicMax(state, ~(unsigned long long)k);
            __threadfence();  // bad offsets only: before the ticket that follows the barrier
            break;            // a later k of this thread cannot be smaller
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        // Release: this block's check is in before its ticket; acquire: the last block sees every
        // block's (as reduce_kernels.cuh's finish).
        unsigned long long ticket;
        asm volatile("atom.acq_rel.gpu.global.add.u64 %0, [%1], 1;" : "=l"(ticket) : "l"(state + 1) : "memory");
        if (ticket == gridDim.x - 1) {
            const unsigned long long first_decrease = ~atomicExch(state, 0ull);
            state[1] = 0;
            verdict[0] = (unsigned long long)begin;
            verdict[1] = (unsigned long long)end;
            verdict[2] = first_decrease;
            if (gate != nullptr) {
                gate[0] = first_decrease == ~0ull && begin == 0 && end == length ? 1ull : 0ull;
                gate[1] = 1ull;
            }
        }
    }
    if (begin < 0 || end > length || end <= begin) return;  // the same for every thread
    const long long shift = (long long)((reinterpret_cast<unsigned long long>(in) + begin * item_bytes) % 16) / item_bytes;
    const long long tiles = (end - begin + shift + tile_items - 1) / tile_items;
    segment_tile_starts(offsets, segments, begin, shift, tile_items, tiles, tile_first);
}

}  // namespace primer
