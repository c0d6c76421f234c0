// Running argmin and argmax: out[i] = the index of the first minimum (maximum) of in[0 .. i], NaN
// counting as the extreme and -0.0 below 0.0 (Java's order, as argMin/argMax; torch.cummin and
// torch.cummax return these indices beside the values). The operator is ops.cuh's ArgExtreme on
// (key, index) pairs, the reduce's own: the larger (smaller) key wins, equal keys keep the smaller
// index, so it is exact under any association and the results are the same on every run.
//
// SCAN THEN PROPAGATE, three launches and no look-back:
//   tile totals:   a block per tile folds its elements to (extreme, first index);
//   tile prefixes: one block turns the totals, in place, into each tile's exclusive prefix;
//   outputs:       a block per tile stages its input in shared memory, scans its chunks' totals
//                  from the tile's prefix (block_scan.cuh), folds each chunk on from its prefix and
//                  stores the running index, a whole 32-byte sector per store where it can
//                  (RowStore, scan/tile_io.cuh).
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

/** acc op (x[k], index + k) for the items of the chunk that lie in [0, n), in order. */
template <int VEC, typename T, typename Op>
__device__ __forceinline__ KeyIndex<T> fold_chunk(KeyIndex<T> acc, const T (&x)[VEC], long long index, long long n, Op op) {
    if (index >= 0 && index + VEC <= n) {
#pragma unroll
        for (int k = 0; k < VEC; ++k) acc = op(acc, KeyIndex<T>{x[k], index + k});
    } else {
#pragma unroll
        for (int k = 0; k < VEC; ++k) {
            if (index + k >= 0 && index + k < n) acc = op(acc, KeyIndex<T>{x[k], index + k});
        }
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

/** Tile totals: totals[tile] = (extreme, first index) of the tile's elements (index -1 if none). */
template <typename T, bool MAX>
__device__ __forceinline__ void arg_scan_tile_totals(const T* in, long long n, long long tiles, KeyIndex<T>* totals) {
    using S = ArgScanShape<T>;
    const ArgExtreme<T, MAX> op{};
    arg_scan_detail::check_tiles(in, n, tiles);
    const long long first = arg_scan_detail::first_item(in);
    T x[ArgScanPolicy::ROWS][S::VEC];
#pragma unroll
    for (int r = 0; r < ArgScanPolicy::ROWS; ++r) arg_scan_detail::load_chunk<S::VEC>(in, first + r * S::ROW_ITEMS, n, x[r]);
    KeyIndex<T> acc = ArgExtreme<T, MAX>::identity();
#pragma unroll
    for (int r = 0; r < ArgScanPolicy::ROWS; ++r) acc = arg_scan_detail::fold_chunk<S::VEC>(acc, x[r], first + r * S::ROW_ITEMS, n, op);
    acc = block_reduce<ArgScanPolicy::BLOCK_THREADS>(acc, op);
    if (threadIdx.x == 0) totals[blockIdx.x] = acc;
}

/**
 * Tile prefixes, in place: totals[t] becomes the combination of totals[0 .. t-1] (the identity for
 * t = 0). One block of PREFIX_THREADS, PREFIX_ITEMS consecutive totals per thread per round.
 */
template <typename T, bool MAX>
__device__ __forceinline__ void arg_scan_tile_prefixes(KeyIndex<T>* totals, long long tiles) {
    constexpr int THREADS = ArgScanPolicy::PREFIX_THREADS, ITEMS = ArgScanPolicy::PREFIX_ITEMS;
    __shared__ BlockScanStorage<KeyIndex<T>, THREADS> storage;
    const ArgExtreme<T, MAX> op{};
    KeyIndex<T> carry = ArgExtreme<T, MAX>::identity();
    for (long long base = 0; base < tiles; base += (long long)THREADS * ITEMS) {
        const long long first = base + (long long)threadIdx.x * ITEMS;
        KeyIndex<T> items[ITEMS];
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) items[k] = first + k < tiles ? totals[first + k] : ArgExtreme<T, MAX>::identity();
        const KeyIndex<T> round_total = block_exclusive_scan<THREADS>(items, carry, op, storage);
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            if (first + k < tiles) totals[first + k] = items[k];
        }
        carry = op(carry, round_total);
    }
}

/**
 * Outputs: every element of the tile gets the index of the first extreme of in[0 .. i]. Each warp
 * folds its rows to its total first; after one barrier a warp's carry is the tile's prefix and the
 * totals of the warps before it; then the warp takes its rows in order, one warp scan of the chunk
 * totals per row, each chunk folded on from its prefix. A chunk is folded three times (warp total,
 * row scan, outputs) but nothing waits in registers across rows: the block scan of every row's
 * chunks at once (block_scan_chunk_prefixes) held them all and took 128-170 registers (int8 spilled).
 */
template <typename T, bool MAX>
__device__ __forceinline__ void arg_scan_outputs(const T* in, const KeyIndex<T>* prefixes, long long* out, long long n,
                                                 long long tiles) {
    using S = ArgScanShape<T>;
    using Op = ArgExtreme<T, MAX>;
    constexpr int ROWS = ArgScanPolicy::ROWS, VEC = S::VEC, WARPS = ArgScanPolicy::BLOCK_THREADS / 32;
    using Store = scan_detail::RowStore<VEC, long long>;
    __shared__ struct {
        alignas(16) T stage[S::TILE_ITEMS];
        KeyIndex<T> warp_total[WARPS];
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

    KeyIndex<T> total = Op::identity();
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        T x[VEC];
        chunk(r, x);
        total = arg_scan_detail::fold_chunk<VEC>(total, x, first + r * S::ROW_ITEMS, n, op);
    }
    total = warp_reduce(total, op);
    if (lane == 0) s.warp_total[warp] = total;
    __syncthreads();
    KeyIndex<T> carry = prefixes[blockIdx.x];
    for (int w = 0; w < warp; ++w) carry = op(carry, s.warp_total[w]);

#pragma unroll 1
    for (int r = 0; r < ROWS; ++r) {
        T x[VEC];
        chunk(r, x);
        const long long index = first + r * S::ROW_ITEMS;
        KeyIndex<T> row_total;
        const KeyIndex<T> upto = warp_inclusive_scan(arg_scan_detail::fold_chunk<VEC>(Op::identity(), x, index, n, op), op,
                                                     row_total);
        const KeyIndex<T> before = warp_shfl_up(upto, 1);
        KeyIndex<T> running = lane == 0 ? carry : op(carry, before);
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
                if (whole || (index + k >= 0 && index + k < n)) running = op(running, KeyIndex<T>{x[k], index + k});
                o[j] = running.index;  // stored only for items in [0, n)
            }
            store.put(piece, o);  // every lane: RowStore shuffles
        }
    }
}

}  // namespace primer
