// Running argmin and argmax: out[i] = the index of the first minimum (maximum) of in[0 .. i], NaN
// counting as the extreme and -0.0 below 0.0 (Java's order, as argMin/argMax; torch.cummin and
// torch.cummax return these indices beside the values).
//
// KEYS AND RECORDS. Each element becomes a signed integer key in Java's order (ArgScanKey; every NaN
// one key, the extreme). The running extreme changes only at a record, an item strictly more extreme
// than every item before it, and out[i] is the index of the last record at or before i. So the
// kernels reduce and scan keys alone (one max or min instruction an item for 32-bit keys) and look
// for positions only where a key wins: the first position of a known extreme, or the last record
// before a chunk, by a warp scan of positions (which only rise). Everything is exact, so the results
// are the same on every run.
// Measured on an H200 (2^28 elements; bench/results 2026-11-23-nvidia-h200-suite.md, steps 45 and
// 46): combining (key, 64-bit index) pairs at every item, as a reduce's ArgMax does, took float32
// 1.615 ms, int32 1.454, float64 3.156 (48%, 53%, 33% of the copy, counting input + 8 bytes out per
// element); (key, 32-bit rank) pairs packed in 64 bits, 1.637 / 1.377 / 3.673 ms. ncu: both bound by
// the integer pipe (86% busy in the outputs kernel, DRAM 44%), not by memory.
//
// SCAN THEN PROPAGATE, three launches and no look-back:
//   tile totals:   a block per tile reduces its keys to the extreme; the threads that hold it look
//                  for its first position;
//   tile prefixes: one block turns the totals, in place, into each tile's exclusive prefix (keys
//                  kept as "larger is better", so one kernel per key width serves argmin and argmax);
//   outputs:       a block per tile, in REVERSE tile order (the totals kernel read the input's tail
//                  last, so some of it is still in L2), stages its input in shared memory. Each warp
//                  finds its extreme and first position as the totals do; after one barrier a warp's
//                  carry is the tile's prefix and the warps before it. The warp then takes its rows
//                  in order (two warp scans a row: keys, then positions) and stores every running
//                  index, a whole 32-byte sector per store where it can (RowStore, scan/tile_io.cuh).
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
 * An element's key: a signed integer in Java's order. Integers are their value (int8 widened);
 * floats are their bits with the magnitude flipped when negative, so that integer order is Java's
 * order (-0.0 below 0.0), and every NaN one key beyond every number, above them for argmax (MAX) and
 * below them for argmin (one key for all NaNs: the first NaN wins).
 */
template <typename T> struct ArgScanKey;
template <> struct ArgScanKey<int> {
    using Key = int;
    template <bool MAX> static __device__ __forceinline__ int of(int x) { return x; }
};
template <> struct ArgScanKey<signed char> {
    using Key = int;
    template <bool MAX> static __device__ __forceinline__ int of(signed char x) { return x; }
};
template <> struct ArgScanKey<long long> {
    using Key = long long;
    template <bool MAX> static __device__ __forceinline__ long long of(long long x) { return x; }
};
template <> struct ArgScanKey<float> {
    using Key = int;
    template <bool MAX> static __device__ __forceinline__ int of(float x) {
        const int b = __float_as_int(x);
        const int ordered = b ^ ((b >> 31) & 0x7fffffff);  // the magnitude flipped when negative
        return (b & 0x7fffffff) > 0x7f800000 ? (MAX ? 0x7fffffff : (int)0x80000000) : ordered;
    }
};
template <> struct ArgScanKey<double> {
    using Key = long long;
    template <bool MAX> static __device__ __forceinline__ long long of(double x) {
        const long long b = __double_as_longlong(x);
        const long long ordered = b ^ ((b >> 63) & 0x7fffffffffffffffLL);
        return (b & 0x7fffffffffffffffLL) > 0x7ff0000000000000LL ? (MAX ? 0x7fffffffffffffffLL : (long long)0x8000000000000000ull)
                                                                 : ordered;
    }
};

template <typename T> using ArgScanKeyOf = typename ArgScanKey<T>::Key;

/** The order searched: the larger key for argmax (MAX), the smaller for argmin. */
template <typename T, bool MAX> struct ArgScanOrder {
    using Key = ArgScanKeyOf<T>;
    static constexpr Key LOWEST = Key(1) << (8 * sizeof(Key) - 1);
    /** The least extreme key: stands in for items outside [0, n), which are never stored. */
    static constexpr Key WORST = MAX ? LOWEST : Key(~LOWEST);
    static __device__ __forceinline__ Key key(T x) { return ArgScanKey<T>::template of<MAX>(x); }
    /** Whether a is strictly more extreme than b: a later item must be, to take over. */
    static __device__ __forceinline__ bool beats(Key a, Key b) { return MAX ? a > b : a < b; }
    /** Totals and prefixes keep keys with "larger is more extreme", so one prefix kernel serves both. */
    static __device__ __forceinline__ Key larger_is_better(Key k) { return MAX ? k : Key(~k); }
    /** The more extreme key (a maximum or a minimum: one instruction for 32-bit keys). */
    struct Extreme {
        static __device__ __forceinline__ Key identity() { return WORST; }
        __device__ __forceinline__ Key operator()(Key a, Key b) const { return beats(b, a) ? b : a; }
    };
};

/** Tile totals and prefixes with global indices: the larger key, of equal keys the smaller index. */
template <typename Key> struct FirstOfLargestKey {
    static __device__ __forceinline__ KeyIndex<Key> identity() {
        return {Key(Key(1) << (8 * sizeof(Key) - 1)), 0x7fffffffffffffffLL};
    }
    __device__ __forceinline__ KeyIndex<Key> operator()(KeyIndex<Key> a, KeyIndex<Key> b) const {
        return b.key > a.key || (b.key == a.key && b.index < a.index) ? b : a;
    }
};

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

/** The keys of the chunk at element `index`; WORST for items outside [0, n). */
template <typename O, int VEC, typename T>
__device__ __forceinline__ void chunk_keys(const T (&x)[VEC], long long index, long long n, typename O::Key (&key)[VEC]) {
    const bool whole = index >= 0 && index + VEC <= n;
#pragma unroll
    for (int k = 0; k < VEC; ++k) key[k] = whole || (index + k >= 0 && index + k < n) ? O::key(x[k]) : O::WORST;
}

/** acc and the keys, reduced to the most extreme. */
template <typename O, int VEC>
__device__ __forceinline__ typename O::Key extreme_of(typename O::Key acc, const typename O::Key (&key)[VEC]) {
    const typename O::Extreme op{};
#pragma unroll
    for (int k = 0; k < VEC; ++k) acc = op(acc, key[k]);
    return acc;
}

/** The first k whose key equals `wanted` and whose item lies in [0, n), or VEC. */
template <typename O, int VEC>
__device__ __forceinline__ int first_equal(const typename O::Key (&key)[VEC], typename O::Key wanted, long long index, long long n) {
    int first = VEC;
#pragma unroll
    for (int k = VEC - 1; k >= 0; --k) {
        if (key[k] == wanted && index + k >= 0 && index + k < n) first = k;
    }
    return first;
}

/** Lane l gets op(value_0, ..., value_l): op is a maximum or a minimum, so no lane needs to sit a step out. */
template <typename V, typename Op>
__device__ __forceinline__ V warp_inclusive_extreme(V value, Op op) {
#pragma unroll
    for (int delta = 1; delta < 32; delta <<= 1) value = op(value, __shfl_up_sync(0xffffffffu, value, delta));
    return value;
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

/**
 * Tile totals: totals[tile] = (the tile's most extreme key, larger_is_better; its first index). The
 * block reduces keys alone (one instruction an item for 32-bit keys); only threads that hold the
 * extreme look again for its first position.
 */
template <typename T, bool MAX>
__device__ __forceinline__ void arg_scan_tile_totals(const T* in, long long n, long long tiles, KeyIndex<ArgScanKeyOf<T>>* totals) {
    using S = ArgScanShape<T>;
    using O = ArgScanOrder<T, MAX>;
    using Key = typename O::Key;
    constexpr int ROWS = ArgScanPolicy::ROWS, VEC = S::VEC, WARPS = ArgScanPolicy::BLOCK_THREADS / 32;
    __shared__ Key warp_extreme[WARPS];
    arg_scan_detail::check_tiles(in, n, tiles);
    const long long start = arg_scan_detail::tile_start(in, blockIdx.x);
    const int offset = arg_scan_detail::thread_offset<T>();
    const auto index_of_row = [&](int r) { return start + offset + r * S::ROW_ITEMS; };
    T x[ROWS][VEC];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) arg_scan_detail::load_chunk<VEC>(in, index_of_row(r), n, x[r]);
    Key mine = O::WORST;
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        Key key[VEC];
        arg_scan_detail::chunk_keys<O>(x[r], index_of_row(r), n, key);
        mine = arg_scan_detail::extreme_of<O>(mine, key);
    }
    const Key warp_best = warp_reduce(mine, typename O::Extreme{});
    if (lane_id() == 0) warp_extreme[threadIdx.x / 32] = warp_best;
    __syncthreads();
    Key best = warp_extreme[0];
#pragma unroll
    for (int w = 1; w < WARPS; ++w) best = typename O::Extreme{}(best, warp_extreme[w]);
    int first = 0x7fffffff;  // tile position of this thread's first `best`
    if (mine == best) {
#pragma unroll
        for (int r = ROWS - 1; r >= 0; --r) {
            Key key[VEC];
            arg_scan_detail::chunk_keys<O>(x[r], index_of_row(r), n, key);
            const int k = arg_scan_detail::first_equal<O>(key, best, index_of_row(r), n);
            if (k < VEC) first = offset + r * S::ROW_ITEMS + k;
        }
    }
    first = block_reduce<ArgScanPolicy::BLOCK_THREADS>(first, MinOfNumbers<int>{});
    // Every tile holds an item of [0, n), so `first` is one of them.
    if (threadIdx.x == 0) totals[blockIdx.x] = {O::larger_is_better(best), start + first};
}

/**
 * Tile prefixes, in place: totals[t] becomes the combination of totals[0 .. t-1] under Op (the
 * identity for t = 0), in order (Op need not be commutative). One block of PREFIX_THREADS,
 * PREFIX_ITEMS consecutive totals per thread per round. V = KeyIndex<Key> and FirstOfLargestKey for
 * the plain scan; the segmented scan's runs (segmented_arg_scan_kernels.cuh) use it too.
 */
template <typename V, typename Op>
__device__ __forceinline__ void arg_scan_tile_prefixes(V* totals, long long tiles) {
    constexpr int THREADS = ArgScanPolicy::PREFIX_THREADS, ITEMS = ArgScanPolicy::PREFIX_ITEMS;
    __shared__ BlockScanStorage<V, THREADS> storage;
    const Op op{};
    V carry = Op::identity();
    for (long long base = 0; base < tiles; base += (long long)THREADS * ITEMS) {
        const long long first = base + (long long)threadIdx.x * ITEMS;
        V items[ITEMS];
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) items[k] = first + k < tiles ? totals[first + k] : Op::identity();
        const V round_total = block_exclusive_scan<THREADS>(items, carry, op, storage);
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            if (first + k < tiles) totals[first + k] = items[k];
        }
        carry = op(carry, round_total);
    }
}

/**
 * Outputs: every element of the tile gets the index of the first extreme of in[0 .. i] (inclusive),
 * or of in[0 .. i-1] (exclusive; -1 for element 0). See the top of this file.
 */
template <typename T, bool MAX>
__device__ __forceinline__ void arg_scan_outputs(const T* in, const KeyIndex<ArgScanKeyOf<T>>* prefixes, long long* out,
                                                 long long n, long long tiles, bool inclusive) {
    using S = ArgScanShape<T>;
    using O = ArgScanOrder<T, MAX>;
    using Key = typename O::Key;
    constexpr int ROWS = ArgScanPolicy::ROWS, VEC = S::VEC, WARPS = ArgScanPolicy::BLOCK_THREADS / 32;
    using Store = scan_detail::RowStore<VEC, long long>;
    __shared__ struct {
        alignas(16) T stage[S::TILE_ITEMS];
        Key warp_extreme[WARPS];
        int warp_first[WARPS];  // tile position of the warp's first extreme
    } s;
    const typename O::Extreme extreme{};
    arg_scan_detail::check_tiles(in, n, tiles);
    const long long tile = tiles - 1 - blockIdx.x;  // REVERSE tile order
    const long long ahead = tile - ArgScanPolicy::PREFETCH_TILES_AHEAD;
    if (threadIdx.x == 0 && ahead >= 1) scan_detail::prefetch_tile_l2<S::TILE_ITEMS>(in, ahead, tiles, n, scan_shift(in));
    const long long start = arg_scan_detail::tile_start(in, tile);
    const int offset = arg_scan_detail::thread_offset<T>();
    const int lane = (int)lane_id(), warp = (int)(threadIdx.x / 32);
    const auto index_of_row = [&](int r) { return start + offset + r * S::ROW_ITEMS; };
    const auto keys_of_row = [&](int r, Key (&key)[VEC]) {
        T x[VEC];
        scan_detail::read_chunk<VEC>(s.stage + offset + r * S::ROW_ITEMS, x);
        arg_scan_detail::chunk_keys<O>(x, index_of_row(r), n, key);
    };
#pragma unroll
    for (int r = 0; r < ROWS; ++r) scan_detail::stage_chunk<VEC>(in, index_of_row(r), n, s.stage + offset + r * S::ROW_ITEMS);
    // The carry into the tile: its prefix, or for tile 0 the element in[0] itself (combining an
    // element with itself changes nothing), so that a carry is always a real element.
    Key carry;
    long long carry_index;
    if (tile == 0) {
        carry = O::key(in[0]);
        carry_index = 0;
    } else {
        const KeyIndex<Key> prefix = prefixes[tile];
        carry = O::larger_is_better(prefix.key);
        carry_index = prefix.index;
    }
    scan_detail::wait_staged();  // each thread reads back only what it staged

    // Each warp's extreme and its first position, for the warps after it.
    Key mine = O::WORST;
#pragma unroll 2  // fully unrolled, float32 spilled within 6 blocks' registers
    for (int r = 0; r < ROWS; ++r) {
        Key key[VEC];
        keys_of_row(r, key);
        mine = arg_scan_detail::extreme_of<O>(mine, key);
    }
    const Key warp_best = warp_reduce(mine, extreme);
    int first = 0x7fffffff;
    if (mine == warp_best) {
#pragma unroll 1
        for (int r = ROWS - 1; r >= 0; --r) {
            Key key[VEC];
            keys_of_row(r, key);
            const int k = arg_scan_detail::first_equal<O>(key, warp_best, index_of_row(r), n);
            if (k < VEC) first = offset + r * S::ROW_ITEMS + k;
        }
    }
    first = warp_reduce(first, MinOfNumbers<int>{});
    if (lane == 0) {
        s.warp_extreme[warp] = warp_best;
        s.warp_first[warp] = first;
    }
    __syncthreads();
    for (int w = 0; w < warp; ++w) {
        if (O::beats(s.warp_extreme[w], carry)) {  // strictly: of equal keys the earlier one stays
            carry = s.warp_extreme[w];
            carry_index = start + s.warp_first[w];
        }
    }

    // The warp's rows in order. The running extreme only changes at a "record", an item strictly
    // more extreme than everything before it, and out[i] is the index of the last record up to i.
    // Per row: a warp scan of the chunks' extremes gives each chunk the extreme before it; a chunk
    // whose extreme beats that holds records, the last of them at its extreme's first position;
    // a second warp scan (positions only rise) gives each chunk the last record before it.
    // One row at a time: unrolled, the rows' keys overlap and spill within 6 blocks' registers.
#pragma unroll 1
    for (int r = 0; r < ROWS; ++r) {
        Key key[VEC];
        keys_of_row(r, key);
        const long long index = index_of_row(r), row_index = index - lane * VEC;
        const Key chunk_best = arg_scan_detail::extreme_of<O>(O::WORST, key);
        const Key upto = arg_scan_detail::warp_inclusive_extreme(chunk_best, extreme);
        const Key before_lanes = __shfl_up_sync(0xffffffffu, upto, 1);
        const Key before = lane == 0 ? carry : extreme(carry, before_lanes);
        // The last record of this chunk, as a position in the row (-1: none).
        const int last_record = O::beats(chunk_best, before)
                                    ? lane * VEC + arg_scan_detail::first_equal<O>(key, chunk_best, index, n) : -1;
        const int last_upto = arg_scan_detail::warp_inclusive_extreme(last_record, MaxOfNumbers<int>{});
        const int last_before_lanes = __shfl_up_sync(0xffffffffu, last_upto, 1);  // every lane shuffles
        const int last_before = lane == 0 ? -1 : last_before_lanes;
        const int last_in_row = __shfl_sync(0xffffffffu, last_upto, 31);
        const Key row_best = __shfl_sync(0xffffffffu, upto, 31);
        Key running = before;
        long long current = last_before >= 0 ? row_index + last_before : carry_index;
        if (last_in_row >= 0) {  // the row holds a record: the carry moves to its last one
            carry = row_best;
            carry_index = row_index + last_in_row;
        }
        Store store(out, index, n);
        // A piece at a time (RowStore): int8 would otherwise hold 16 indices (32 registers) at once.
#pragma unroll
        for (int piece = 0; piece < VEC / Store::PIECE; ++piece) {
            long long o[Store::PIECE];
#pragma unroll
            for (int j = 0; j < Store::PIECE; ++j) {
                const int k = piece * Store::PIECE + j;
                const long long before_item = index + k == 0 ? -1 : current;  // element 0: nothing before it
                if (O::beats(key[k], running)) {  // never for items outside [0, n): their key is WORST
                    running = key[k];
                    current = index + k;
                }
                o[j] = inclusive ? current : before_item;
            }
            store.put(piece, o);  // every lane: RowStore shuffles
        }
    }
}

}  // namespace primer
