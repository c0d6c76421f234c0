// Running argmin and argmax: out[i] = the index of the first minimum (maximum) of in[0 .. i], NaN
// counting as the extreme and -0.0 below 0.0 (Java's order, as argMin/argMax; torch.cummin and
// torch.cummax return these indices beside the values). Each element becomes an unsigned integer
// key whose order is the order searched for (ArgScanKey: Java's order for floats, NaN the extreme;
// reversed for argmin), and pairs (key, index) combine by FirstOfLargestKey: the larger key wins,
// equal keys keep the smaller index. That is exact under any association (the results are the same
// on every run) and a few integer instructions, where ops.cuh's ArgExtreme, the reduce's operator,
// tests NaN and signed zeros at every step (with it, 2^24 float32 took 0.178 ms, 33% of the copy).
// Measured on an H200 (2^28 elements, bench/results 2026-11-23, step 45): float32 1.615 ms, int32
// 1.454, float64 3.156 (48%, 53%, 33% of the copy counting input + 8 bytes out per element;
// torch.cummax 278-516x slower). Reading the input twice bounds this form near 0.95 ms (float32):
// what is left has not been profiled.
//
// SCAN THEN PROPAGATE, three launches and no look-back:
//   tile totals:   a block per tile folds its elements to (extreme, first index);
//   tile prefixes: one block turns the totals, in place, into each tile's exclusive prefix;
//   outputs:       a block per tile stages its input in shared memory; each warp, from the tile's
//                  prefix and the totals of the warps before it, scans its rows' chunk totals (one
//                  warp scan per row), folds each chunk on from its prefix and stores the running
//                  index, a whole 32-byte sector per store where it can (RowStore, scan/tile_io.cuh).
// Why not the single-pass scan of scan_kernels.cuh: its status words carry values of 4 or 8 bytes,
// and a (key, index) pair takes 16; its elements do not know their position. This form reads the
// input twice and writes 8 bytes per element: 16 bytes of traffic per float32 element where a
// single pass would move 12, 24 against 16 for float64.
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
    static constexpr int BLOCK_THREADS = 256;   // tile kernels
    static constexpr int ROWS = 8;              // 16-byte chunks per thread per tile
    static constexpr int PREFIX_THREADS = 1024; // the one block of the prefix kernel
    static constexpr int PREFIX_ITEMS = 4;      // tile totals per thread per round
};

template <typename T>
struct ArgScanShape {
    static constexpr int VEC = 16 / (int)sizeof(T);  // items per chunk
    static constexpr int ROW_ITEMS = 32 * VEC;
    static constexpr int WARP_ITEMS = ROW_ITEMS * ArgScanPolicy::ROWS;
    static constexpr int TILE_ITEMS = WARP_ITEMS * (ArgScanPolicy::BLOCK_THREADS / 32);
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

/** The larger key, and of equal keys the smaller index: commutative and associative. */
template <typename Key> struct FirstOfLargestKey {
    static __device__ __forceinline__ KeyIndex<Key> identity() { return {Key(0), 0x7fffffffffffffffLL}; }
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

/** Element index of this thread's row-0 chunk in this block's tile. */
template <typename T>
__device__ __forceinline__ long long first_item(const T* in) {
    return (long long)blockIdx.x * ArgScanShape<T>::TILE_ITEMS - scan_shift(in) + thread_offset<T>();
}

/** acc op (key(x[k]), index + k) for the items of the chunk that lie in [0, n), in order. */
template <bool MAX, int VEC, typename T>
__device__ __forceinline__ KeyIndex<typename ArgScanKey<T>::Key> fold_chunk(KeyIndex<typename ArgScanKey<T>::Key> acc,
                                                                             const T (&x)[VEC], long long index, long long n) {
    using Key = typename ArgScanKey<T>::Key;
    const FirstOfLargestKey<Key> op{};
    const bool whole = index >= 0 && index + VEC <= n;
#pragma unroll
    for (int k = 0; k < VEC; ++k) {
        if (whole || (index + k >= 0 && index + k < n)) acc = op(acc, KeyIndex<Key>{ArgScanKey<T>::template of<MAX>(x[k]), index + k});
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

/** A tile's total or prefix: the largest key and its first index (the identity: key 0, index 2^63 - 1). */
template <typename T> using ArgScanTotal = KeyIndex<typename ArgScanKey<T>::Key>;

/** Tile totals: totals[tile] = (largest key, its first index) over the tile's elements. */
template <typename T, bool MAX>
__device__ __forceinline__ void arg_scan_tile_totals(const T* in, long long n, long long tiles, ArgScanTotal<T>* totals) {
    using S = ArgScanShape<T>;
    using Op = FirstOfLargestKey<typename ArgScanKey<T>::Key>;
    arg_scan_detail::check_tiles(in, n, tiles);
    const long long first = arg_scan_detail::first_item(in);
    T x[ArgScanPolicy::ROWS][S::VEC];
#pragma unroll
    for (int r = 0; r < ArgScanPolicy::ROWS; ++r) arg_scan_detail::load_chunk<S::VEC>(in, first + r * S::ROW_ITEMS, n, x[r]);
    ArgScanTotal<T> acc = Op::identity();
#pragma unroll
    for (int r = 0; r < ArgScanPolicy::ROWS; ++r) acc = arg_scan_detail::fold_chunk<MAX>(acc, x[r], first + r * S::ROW_ITEMS, n);
    acc = block_reduce<ArgScanPolicy::BLOCK_THREADS>(acc, Op{});
    if (threadIdx.x == 0) totals[blockIdx.x] = acc;
}

/**
 * Tile prefixes, in place: totals[t] becomes the combination of totals[0 .. t-1] (the identity for
 * t = 0). One block of PREFIX_THREADS, PREFIX_ITEMS consecutive totals per thread per round.
 */
template <typename T>
__device__ __forceinline__ void arg_scan_tile_prefixes(ArgScanTotal<T>* totals, long long tiles) {
    constexpr int THREADS = ArgScanPolicy::PREFIX_THREADS, ITEMS = ArgScanPolicy::PREFIX_ITEMS;
    using Op = FirstOfLargestKey<typename ArgScanKey<T>::Key>;
    __shared__ BlockScanStorage<ArgScanTotal<T>, THREADS> storage;
    const Op op{};
    ArgScanTotal<T> carry = Op::identity();
    for (long long base = 0; base < tiles; base += (long long)THREADS * ITEMS) {
        const long long first = base + (long long)threadIdx.x * ITEMS;
        ArgScanTotal<T> items[ITEMS];
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) items[k] = first + k < tiles ? totals[first + k] : Op::identity();
        const ArgScanTotal<T> round_total = block_exclusive_scan<THREADS>(items, carry, op, storage);
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            if (first + k < tiles) totals[first + k] = items[k];
        }
        carry = op(carry, round_total);
    }
}

/**
 * Outputs: every element of the tile gets the index of the first extreme of in[0 .. i]. Each thread
 * folds its chunks to their totals (kept in registers, a key and an index each), each warp combines
 * its own; after one barrier a warp's carry is the tile's prefix and the totals of the warps before
 * it. Then the warp takes its rows in order: a warp scan of the row's chunk totals gives each
 * chunk's prefix, and the chunk is folded on from it, its running index stored. (The block scan of
 * every row's chunks at once, block_scan_chunk_prefixes, took 128-170 registers with ArgExtreme and
 * spilled for int8.)
 */
template <typename T, bool MAX>
__device__ __forceinline__ void arg_scan_outputs(const T* in, const ArgScanTotal<T>* prefixes, long long* out, long long n,
                                                 long long tiles) {
    using S = ArgScanShape<T>;
    using Op = FirstOfLargestKey<typename ArgScanKey<T>::Key>;
    constexpr int ROWS = ArgScanPolicy::ROWS, VEC = S::VEC, WARPS = ArgScanPolicy::BLOCK_THREADS / 32;
    using Store = scan_detail::RowStore<VEC, long long>;
    __shared__ struct {
        alignas(16) T stage[S::TILE_ITEMS];
        ArgScanTotal<T> warp_total[WARPS];
    } s;
    const Op op{};
    arg_scan_detail::check_tiles(in, n, tiles);
    const long long first = arg_scan_detail::first_item(in);
    const int stage_offset = arg_scan_detail::thread_offset<T>();
    const int lane = (int)lane_id(), warp = (int)(threadIdx.x / 32);
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        scan_detail::stage_chunk<VEC>(in, first + r * S::ROW_ITEMS, n, s.stage + stage_offset + r * S::ROW_ITEMS);
    }
    scan_detail::wait_staged();  // each thread reads back only what it staged
    auto chunk = [&](int r, T (&x)[VEC]) { scan_detail::read_chunk<VEC>(s.stage + stage_offset + r * S::ROW_ITEMS, x); };

    ArgScanTotal<T> chunk_total[ROWS];
    ArgScanTotal<T> total = Op::identity();
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        T x[VEC];
        chunk(r, x);
        chunk_total[r] = arg_scan_detail::fold_chunk<MAX>(Op::identity(), x, first + r * S::ROW_ITEMS, n);
        total = op(total, chunk_total[r]);
    }
    total = warp_reduce(total, op);
    if (lane == 0) s.warp_total[warp] = total;
    __syncthreads();
    ArgScanTotal<T> carry = prefixes[blockIdx.x];
    for (int w = 0; w < warp; ++w) carry = op(carry, s.warp_total[w]);

#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        ArgScanTotal<T> row_total;
        const ArgScanTotal<T> upto = warp_inclusive_scan(chunk_total[r], op, row_total);
        const ArgScanTotal<T> before = warp_shfl_up(upto, 1);
        ArgScanTotal<T> running = lane == 0 ? carry : op(carry, before);
        carry = op(carry, row_total);
        T x[VEC];
        chunk(r, x);
        const long long index = first + r * S::ROW_ITEMS;
        const bool whole = index >= 0 && index + VEC <= n;
        Store store(out, index, n);
        // A piece at a time (RowStore): int8 would otherwise hold 16 indices (32 registers) at once.
#pragma unroll
        for (int piece = 0; piece < VEC / Store::PIECE; ++piece) {
            long long o[Store::PIECE];
#pragma unroll
            for (int j = 0; j < Store::PIECE; ++j) {
                const int k = piece * Store::PIECE + j;
                if (whole || (index + k >= 0 && index + k < n)) {
                    running = op(running, ArgScanTotal<T>{ArgScanKey<T>::template of<MAX>(x[k]), index + k});
                }
                o[j] = running.index;  // stored only for items in [0, n)
            }
            store.put(piece, o);  // every lane: RowStore shuffles
        }
    }
}

}  // namespace primer
