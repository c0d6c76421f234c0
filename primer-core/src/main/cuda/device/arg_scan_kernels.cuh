// Running argmin and argmax: out[i] = the index of the first minimum (maximum) of in[0 .. i], NaN
// counting as the extreme and -0.0 below 0.0 (Java's order, as argMin/argMax; torch.cummin and
// torch.cummax return these indices beside the values).
//
// RANKED KEYS. Each element becomes an unsigned integer key whose order is the order searched for
// (ArgScanKey: Java's order for floats, NaN the extreme; reversed for argmin), paired with a 32-bit
// rank that falls as the position within the tile rises (ArgScanRank). "First of the largest"
// is then the largest (key, rank) pair: a plain maximum, commutative and exact under any
// association, so the results are the same on every run. For 32-bit keys (int8, int32, float32)
// the pair is one 64-bit integer, key above rank, and combining two is one 64-bit comparison; for
// 64-bit keys it is three 32-bit words. Ranks are local to a tile (positions < 2^15); only the tile
// totals and prefixes carry global 64-bit indices, and an output decodes its rank against the
// tile's start, or takes the prefix's index when the prefix still wins (the CARRY rank).
// Measured on an H200, 2^28 elements (bench/results 2026-11-23, steps 45 and 46): (key, 64-bit
// index) pairs of 16 bytes combined by "larger key, else smaller index", with 76-80 registers and
// 3 blocks per SM in the outputs kernel, took float32 1.615 ms, int32 1.454, float64 3.156 (48%,
// 53%, 33% of the copy counting input + 8 bytes out per element); with ops.cuh's ArgExtreme (NaN
// and signed-zero tests at every step) 2^24 float32 had taken 0.178 ms, 33% of the copy.
//
// SCAN THEN PROPAGATE, three launches and no look-back:
//   tile totals:   a block per tile folds its elements to (largest key, first index);
//   tile prefixes: one block turns the totals, in place, into each tile's exclusive prefix (one
//                  kernel per key width: it never sees an element);
//   outputs:       a block per tile, in REVERSE tile order (the totals kernel read the input's tail
//                  last, so some of it is still in L2), stages its input in shared memory and
//                  reduces it first (each thread folds its chunks, a butterfly per warp, one
//                  barrier): a warp's carry is then the tile's prefix and the totals of the warps
//                  before it. The warp takes its rows in order: a warp scan of the row's chunk
//                  totals gives each chunk's prefix, the chunk is folded on from it and its running
//                  index stored, a whole 32-byte sector per store where it can (RowStore,
//                  scan/tile_io.cuh). Nothing waits in registers from the reduction to the rows
//                  (the device scan's REDUCE_FIRST, ../scan_kernels.cuh), so more blocks fit an SM.
// Why not the single-pass scan of scan_kernels.cuh: its status words carry values of 4 or 8 bytes,
// and a tile's (key, index) takes 16. This form reads the input twice and writes 8 bytes per
// element: 16 bytes of traffic per float32 element where a single pass would move 12, 24 against
// 16 for float64.
// Tiles lie on 16-byte boundaries of the input, as in the device scan: tile 0 starts scan_shift(in)
// elements before in[0], so every whole chunk is one aligned 16-byte load.
#pragma once
#include "../ops.cuh"
#include "../block/block_reduce.cuh"
#include "../block/block_scan.cuh"
#include "../warp/warp_reduce.cuh"
#include "../warp/warp_scan.cuh"
#include "scan/tile_io.cuh"

namespace primer {

/** Launch shape; GpuArgScan.java mirrors it (the kernels trap when the tile count disagrees). */
struct ArgScanPolicy {
    static constexpr int BLOCK_THREADS = 256;        // tile kernels
    static constexpr int ROWS = 8;                   // 16-byte chunks per thread per tile
    static constexpr int PREFIX_THREADS = 1024;      // the one block of the prefix kernel
    static constexpr int PREFIX_ITEMS = 4;           // tile totals per thread per round
    static constexpr int PREFETCH_TILES_AHEAD = 128; // outputs kernel: 4 MB ahead (../scan_kernels.cuh)
};

template <typename T>
struct ArgScanShape {
    static constexpr int VEC = 16 / (int)sizeof(T);  // items per chunk
    static constexpr int ROW_ITEMS = 32 * VEC;
    static constexpr int WARP_ITEMS = ROW_ITEMS * ArgScanPolicy::ROWS;
    static constexpr int TILE_ITEMS = WARP_ITEMS * (ArgScanPolicy::BLOCK_THREADS / 32);
    // Register budgets (__launch_bounds__): as many blocks per SM as fit without spilling. The
    // outputs kernel's 32 KB stage allows 6; int8's sixteen keys a chunk need more registers.
    static constexpr int TOTALS_BLOCKS_PER_SM = sizeof(T) == 1 ? 2 : 3;
    static constexpr int OUTPUTS_BLOCKS_PER_SM = sizeof(T) == 1 ? 4 : 6;
};

/**
 * An element's key: unsigned, ordered as argmax (MAX) or argmin searches, so both take the largest.
 * Integers: the value with its sign bit flipped (int8 widened to 32 bits). Floats: the bits with the
 * magnitude flipped when negative and the sign bit flipped, so that unsigned order is Java's order
 * (-0.0 below 0.0), and every NaN the largest key (one key for all: the first NaN wins). For argmin
 * the keys are complemented; NaN keeps the largest key.
 */
template <typename T> struct ArgScanKey;
template <> struct ArgScanKey<int> {
    using Key = unsigned;
    template <bool MAX> static __device__ __forceinline__ Key of(int x) {
        const Key u = (Key)x ^ 0x80000000u;
        return MAX ? u : ~u;
    }
};
template <> struct ArgScanKey<signed char> {
    using Key = unsigned;
    template <bool MAX> static __device__ __forceinline__ Key of(signed char x) { return ArgScanKey<int>::of<MAX>(x); }
};
template <> struct ArgScanKey<long long> {
    using Key = unsigned long long;
    template <bool MAX> static __device__ __forceinline__ Key of(long long x) {
        const Key u = (Key)x ^ 0x8000000000000000ull;
        return MAX ? u : ~u;
    }
};
template <> struct ArgScanKey<float> {
    using Key = unsigned;
    template <bool MAX> static __device__ __forceinline__ Key of(float x) {
        const Key b = __float_as_uint(x);
        const Key u = b ^ ((Key)((int)b >> 31) >> 1) ^ 0x80000000u;
        return (b & 0x7fffffffu) > 0x7f800000u ? ~0u : MAX ? u : ~u;
    }
};
template <> struct ArgScanKey<double> {
    using Key = unsigned long long;
    template <bool MAX> static __device__ __forceinline__ Key of(double x) {
        const Key b = (Key)__double_as_longlong(x);
        const Key u = b ^ ((Key)((long long)b >> 63) >> 1) ^ 0x8000000000000000ull;
        return (b & 0x7fffffffffffffffull) > 0x7ff0000000000000ull ? ~0ull : MAX ? u : ~u;
    }
};

/**
 * Ranks within a tile: position p ranks FIRST - p, so of equal keys the earlier position ranks
 * higher; the carry from the tiles before ranks above every position, and rank 0 (the identity's)
 * below every one (p < 2^15).
 */
struct ArgScanRank {
    static constexpr unsigned CARRY = 0xffffffffu;
    static constexpr unsigned FIRST = 0xfffffffeu;
};

/** A key with its rank, ordered key first, then rank. */
template <typename Key> struct Ranked;
template <> struct Ranked<unsigned> {
    unsigned long long bits;  // key << 32 | rank: one 64-bit comparison orders two pairs
    static __device__ __forceinline__ Ranked make(unsigned key, unsigned rank) { return {(unsigned long long)key << 32 | rank}; }
    __device__ __forceinline__ unsigned key() const { return (unsigned)(bits >> 32); }
    __device__ __forceinline__ unsigned rank() const { return (unsigned)bits; }
    __device__ __forceinline__ bool above(Ranked other) const { return bits > other.bits; }
};
template <> struct Ranked<unsigned long long> {
    unsigned key_low, key_high, rank_;  // three 4-byte words: 12 bytes, three shuffles, no padding
    static __device__ __forceinline__ Ranked make(unsigned long long key, unsigned rank) {
        return {(unsigned)key, (unsigned)(key >> 32), rank};
    }
    __device__ __forceinline__ unsigned long long key() const { return (unsigned long long)key_high << 32 | key_low; }
    __device__ __forceinline__ unsigned rank() const { return rank_; }
    __device__ __forceinline__ bool above(Ranked other) const {
        return key() > other.key() || (key() == other.key() && rank_ > other.rank_);
    }
};

/** The higher-ranked pair: the larger key, of equal keys the earlier position. A maximum: commutative and associative. */
template <typename Key> struct HigherRanked {
    static __device__ __forceinline__ Ranked<Key> identity() { return Ranked<Key>::make(Key(0), 0u); }
    __device__ __forceinline__ Ranked<Key> operator()(Ranked<Key> a, Ranked<Key> b) const { return b.above(a) ? b : a; }
};

/** Tile totals and prefixes with global indices: the larger key, of equal keys the smaller index. */
template <typename Key> struct FirstOfLargestKey {
    static __device__ __forceinline__ KeyIndex<Key> identity() { return {Key(0), 0x7fffffffffffffffLL}; }
    __device__ __forceinline__ KeyIndex<Key> operator()(KeyIndex<Key> a, KeyIndex<Key> b) const {
        return b.key > a.key || (b.key == a.key && b.index < a.index) ? b : a;
    }
};

template <typename T> using ArgScanKeyOf = typename ArgScanKey<T>::Key;

namespace arg_scan_detail {

/** Traps unless the grid is the tile count the host computed (host and device disagree on the tile). */
template <typename T>
__device__ __forceinline__ void check_tiles(const T* in, long long n, long long tiles) {
    constexpr int TILE = ArgScanShape<T>::TILE_ITEMS;
    if (blockIdx.x == 0 && threadIdx.x == 0
        && ((n + scan_shift(in) + TILE - 1) / TILE != tiles || gridDim.x != tiles)) {
        __trap();
    }
}

/** Where this thread's row-0 chunk lies within a tile (block_scan.cuh's arrangement of rows). */
template <typename T>
__device__ __forceinline__ int thread_offset() {
    using S = ArgScanShape<T>;
    return (int)(threadIdx.x / 32) * S::WARP_ITEMS + (int)(threadIdx.x % 32) * S::VEC;
}

/** Element index of a tile's position 0 (negative for tile 0 when the input is not 16-byte aligned). */
template <typename T>
__device__ __forceinline__ long long tile_start(const T* in, long long tile) {
    return tile * ArgScanShape<T>::TILE_ITEMS - scan_shift(in);
}

template <bool MAX, int VEC, typename T>
__device__ __forceinline__ void chunk_keys(const T (&x)[VEC], ArgScanKeyOf<T> (&key)[VEC]) {
#pragma unroll
    for (int k = 0; k < VEC; ++k) key[k] = ArgScanKey<T>::template of<MAX>(x[k]);
}

/** acc op (key[k], rank0 - k) for the items k of the chunk at element `index` that lie in [0, n). */
template <int VEC, typename Key>
__device__ __forceinline__ Ranked<Key> fold_chunk(Ranked<Key> acc, const Key (&key)[VEC], unsigned rank0, long long index, long long n) {
    const HigherRanked<Key> op{};
    const bool whole = index >= 0 && index + VEC <= n;
#pragma unroll
    for (int k = 0; k < VEC; ++k) {
        if (whole || (index + k >= 0 && index + k < n)) acc = op(acc, Ranked<Key>::make(key[k], rank0 - k));
    }
    return acc;
}

/** A chunk from global memory: one 16-byte load when whole, else its items in [0, n) (zeros elsewhere, never folded). */
template <int VEC, typename T>
__device__ __forceinline__ void load_chunk(const T* in, long long index, long long n, T (&x)[VEC]) {
    if (index >= 0 && index + VEC <= n) {
        const uint4 raw = __ldg(reinterpret_cast<const uint4*>(in + index));
        __builtin_memcpy(x, &raw, 16);
    } else {
#pragma unroll
        for (int k = 0; k < VEC; ++k) x[k] = (index + k >= 0 && index + k < n) ? in[index + k] : T(0);
    }
}

}  // namespace arg_scan_detail

/** Tile totals: totals[tile] = (largest key, its first index) over the tile's elements. */
template <typename T, bool MAX>
__device__ __forceinline__ void arg_scan_tile_totals(const T* in, long long n, long long tiles, KeyIndex<ArgScanKeyOf<T>>* totals) {
    using S = ArgScanShape<T>;
    using Key = ArgScanKeyOf<T>;
    using Op = HigherRanked<Key>;
    constexpr int ROWS = ArgScanPolicy::ROWS, VEC = S::VEC;
    arg_scan_detail::check_tiles(in, n, tiles);
    const long long start = arg_scan_detail::tile_start(in, blockIdx.x);
    const int offset = arg_scan_detail::thread_offset<T>();
    T x[ROWS][VEC];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) arg_scan_detail::load_chunk<VEC>(in, start + offset + r * S::ROW_ITEMS, n, x[r]);
    Ranked<Key> acc = Op::identity();
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        Key key[VEC];
        arg_scan_detail::chunk_keys<MAX>(x[r], key);
        acc = arg_scan_detail::fold_chunk(acc, key, ArgScanRank::FIRST - (unsigned)(offset + r * S::ROW_ITEMS),
                                          start + offset + r * S::ROW_ITEMS, n);
    }
    acc = block_reduce<ArgScanPolicy::BLOCK_THREADS>(acc, Op{});
    // Every tile holds an element of [0, n), so acc is one of them, never the identity.
    if (threadIdx.x == 0) totals[blockIdx.x] = {acc.key(), start + (long long)(ArgScanRank::FIRST - acc.rank())};
}

/**
 * Tile prefixes, in place: totals[t] becomes the combination of totals[0 .. t-1] (the identity for
 * t = 0). One block of PREFIX_THREADS, PREFIX_ITEMS consecutive totals per thread per round.
 */
template <typename Key>
__device__ __forceinline__ void arg_scan_tile_prefixes(KeyIndex<Key>* totals, long long tiles) {
    constexpr int THREADS = ArgScanPolicy::PREFIX_THREADS, ITEMS = ArgScanPolicy::PREFIX_ITEMS;
    using Op = FirstOfLargestKey<Key>;
    __shared__ BlockScanStorage<KeyIndex<Key>, THREADS> storage;
    const Op op{};
    KeyIndex<Key> carry = Op::identity();
    for (long long base = 0; base < tiles; base += (long long)THREADS * ITEMS) {
        const long long first = base + (long long)threadIdx.x * ITEMS;
        KeyIndex<Key> items[ITEMS];
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) items[k] = first + k < tiles ? totals[first + k] : Op::identity();
        const KeyIndex<Key> round_total = block_exclusive_scan<THREADS>(items, carry, op, storage);
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            if (first + k < tiles) totals[first + k] = items[k];
        }
        carry = op(carry, round_total);
    }
}

/** Outputs: every element of the tile gets the index of the first extreme of in[0 .. i] (see the top of this file). */
template <typename T, bool MAX>
__device__ __forceinline__ void arg_scan_outputs(const T* in, const KeyIndex<ArgScanKeyOf<T>>* prefixes, long long* out,
                                                 long long n, long long tiles) {
    using S = ArgScanShape<T>;
    using Key = ArgScanKeyOf<T>;
    using Op = HigherRanked<Key>;
    constexpr int ROWS = ArgScanPolicy::ROWS, VEC = S::VEC, WARPS = ArgScanPolicy::BLOCK_THREADS / 32;
    using Store = scan_detail::RowStore<VEC, long long>;
    __shared__ struct {
        alignas(16) T stage[S::TILE_ITEMS];
        Ranked<Key> warp_total[WARPS];
    } s;
    const Op op{};
    arg_scan_detail::check_tiles(in, n, tiles);
    const long long tile = tiles - 1 - blockIdx.x;  // REVERSE tile order
    const long long ahead = tile - ArgScanPolicy::PREFETCH_TILES_AHEAD;
    if (threadIdx.x == 0 && ahead >= 1) scan_detail::prefetch_tile_l2<S::TILE_ITEMS>(in, ahead, tiles, n, scan_shift(in));
    const long long start = arg_scan_detail::tile_start(in, tile);
    const int offset = arg_scan_detail::thread_offset<T>();
    const int lane = (int)lane_id(), warp = (int)(threadIdx.x / 32);
    const auto index_of_row = [&](int r) { return start + offset + r * S::ROW_ITEMS; };
    const auto rank_of_row = [&](int r) { return ArgScanRank::FIRST - (unsigned)(offset + r * S::ROW_ITEMS); };
    const auto keys_of_row = [&](int r, Key (&key)[VEC]) {
        T x[VEC];
        scan_detail::read_chunk<VEC>(s.stage + offset + r * S::ROW_ITEMS, x);
        arg_scan_detail::chunk_keys<MAX>(x, key);
    };
#pragma unroll
    for (int r = 0; r < ROWS; ++r) scan_detail::stage_chunk<VEC>(in, index_of_row(r), n, s.stage + offset + r * S::ROW_ITEMS);
    const KeyIndex<Key> prefix = prefixes[tile];
    scan_detail::wait_staged();  // each thread reads back only what it staged

    Ranked<Key> total = Op::identity();
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        Key key[VEC];
        keys_of_row(r, key);
        total = arg_scan_detail::fold_chunk(total, key, rank_of_row(r), index_of_row(r), n);
    }
    total = warp_reduce(total, op);
    if (lane == 0) s.warp_total[warp] = total;
    __syncthreads();
    // Tile 0 has no prefix: its identity ranks below every element, which wins at once.
    Ranked<Key> carry = tile == 0 ? Op::identity() : Ranked<Key>::make(prefix.key, ArgScanRank::CARRY);
    for (int w = 0; w < warp; ++w) carry = op(carry, s.warp_total[w]);

    const long long rank_origin = start + (long long)ArgScanRank::FIRST;  // position FIRST - rank is element rank_origin - rank
    // One row at a time: unrolled, the rows' keys overlap and spill within 6 blocks' registers.
#pragma unroll 1
    for (int r = 0; r < ROWS; ++r) {
        Key key[VEC];
        keys_of_row(r, key);
        const long long index = index_of_row(r);
        const unsigned rank0 = rank_of_row(r);
        Ranked<Key> row_total;
        const Ranked<Key> upto = warp_inclusive_scan(arg_scan_detail::fold_chunk(Op::identity(), key, rank0, index, n), op, row_total);
        const Ranked<Key> before = warp_shfl_up(upto, 1);
        Ranked<Key> running = lane == 0 ? carry : op(carry, before);
        carry = op(carry, row_total);
        const bool whole = index >= 0 && index + VEC <= n;
        Store store(out, index, n);
        // A piece at a time (RowStore): int8 would otherwise hold 16 indices (32 registers) at once.
#pragma unroll
        for (int piece = 0; piece < VEC / Store::PIECE; ++piece) {
            long long o[Store::PIECE];
#pragma unroll
            for (int j = 0; j < Store::PIECE; ++j) {
                const int k = piece * Store::PIECE + j;
                if (whole || (index + k >= 0 && index + k < n)) running = op(running, Ranked<Key>::make(key[k], rank0 - k));
                // Stored only for items in [0, n), each of which has folded itself in: never the identity.
                o[j] = running.rank() == ArgScanRank::CARRY ? prefix.index : rank_origin - (long long)running.rank();
            }
            store.put(piece, o);  // every lane: RowStore shuffles
        }
    }
}

}  // namespace primer
