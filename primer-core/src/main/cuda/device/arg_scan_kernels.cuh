// Running argmin and argmax: out[i] = the index of the first minimum (maximum) of in[0 .. i], NaN
// counting as the extreme and -0.0 below 0.0 (Java's order, as argMin/argMax; torch.cummin and
// torch.cummax return these indices beside the values).
//
// This file holds what the plain and the segmented scans share: keys (ArgScanKey: each element as a
// signed integer in Java's order, every NaN one key, the extreme), the order searched and the
// tiles' shape. Both scans run the same tile code (arg_scan_tile.cuh): the plain scan is the
// segmented one over a single segment that starts at element 0. Everything is exact, so the
// results are the same on every run.
//
// SINGLE PASS (arg_scan_single_pass), the device scan's decoupled look-back (scan_kernels.cuh):
// a block draws its tile's number from a ticket, scans the tile, and warp 0 publishes the tile's
// run (key, first position, last segment start: 24 bytes, in WideTileStatus words), looks back
// for the runs before it (combined as a tree: the operator is exact) and hands the block its
// carry, from which it writes the outputs. A tile that holds a segment start publishes its run as
// its inclusive prefix at once. Input read once, 8 bytes written per element: 12 bytes of traffic
// per float32 element, 16 per float64. Before, SCAN THEN PROPAGATE in three launches (tile totals;
// one block of 1024 turning them into prefixes; outputs in reverse tile order, from the prefixes)
// read the input twice: 16 and 24 bytes per element (ncu, 2^28 float32: totals 292 us, prefixes
// 78.5, outputs 993). On an H200, 2^28 elements, ms, three launches -> one pass (bench/results/
// 2026-11-24-nvidia-h200-step61-argscan-ab.md): float32 1.372 -> 1.058, int32 1.325 -> 1.072,
// float64 1.871 -> 1.457; by offsets in rows of 4096, float32 1.465 -> 1.060; by flags float32
// 1.539 -> 1.101, float64 2.147 -> 1.628. The single pass ran at fewer blocks per SM (then 5,
// segmented 4, against 6 and 5) and still won.
// Earlier measurements (2^28 elements; bench/results 2026-11-23-nvidia-h200-suite.md): keys and
// records in rows of chunks striped across each warp (two warp scans a row) took float32 1.491 ms,
// int32 1.231, float64 3.018; before that, (key, 64-bit index) pairs combined at every item, as a
// reduce's ArgMax does, 1.615 / 1.454 / 3.156. ncu: both bound by the integer pipe, not by memory.
// Tiles lie on 16-byte boundaries of the input, as in the device scan: tile 0 starts scan_shift(in)
// elements before in[0], so every whole chunk is one aligned 16-byte load.
#pragma once
#include "../ops.cuh"
#include "../warp/warp_scan.cuh"
#include "scan/lookback.cuh"
#include "scan/tile_io.cuh"

namespace primer {

/** Launch shape; GpuArgScan.java mirrors it (the kernels trap when the tile count disagrees). */
struct ArgScanPolicy {
    static constexpr int BLOCK_THREADS = 256;        // tile kernels
    static constexpr int CHUNKS = 8;                 // 16-byte chunks per thread per tile, consecutive
    static constexpr int PREFETCH_TILES_AHEAD = 128; // 4 MB ahead, as the device scan (../scan_kernels.cuh)
};

template <typename T>
struct ArgScanShape {
    static constexpr int VEC = 16 / (int)sizeof(T);              // items per chunk
    static constexpr int ITEMS = ArgScanPolicy::CHUNKS * VEC;    // per thread, consecutive
    static constexpr int TILE_ITEMS = ArgScanPolicy::BLOCK_THREADS * ITEMS;
    // Register budget (__launch_bounds__): blocks per SM at which the single-pass kernel compiles
    // without spilling (scripts/build-kernels.sh refuses spills). Plain, on sm_90: 4-byte keys need
    // 48 registers (5 blocks; at 40 they spill); 8-byte keys fit 40 (6 blocks, 36 KB of shared
    // memory each). Segmented: 4-byte keys by flags need 54-59 (4 blocks); 8-byte keys fit 48 (5).
    // int8 runs at 3 (68-76 registers). On an H200 (2^28 elements, ms; bench/results/
    // 2026-11-25-nvidia-h200-step80-ab.md): plain float64 5 -> 6 blocks 1.252-1.257 -> 1.208-1.214,
    // by flags float64 4 -> 5 1.557-1.566 -> 1.416-1.424; int8 at 4 blocks (64 registers, no spills)
    // was no faster, 0.640-0.662 against 0.644-0.651, and stays at 3. sm_80 and sm_89 keep 4 blocks
    // for plain 8-byte keys (their budget before; untimed there).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
    static constexpr int BLOCKS_PER_SM = sizeof(T) == 1 ? 3 : sizeof(T) == 8 ? 4 : 5;
#else
    static constexpr int BLOCKS_PER_SM = sizeof(T) == 1 ? 3 : sizeof(T) == 8 ? 6 : 5;
#endif
    static constexpr int SEGMENTED_BLOCKS_PER_SM = sizeof(T) == 1 ? 3 : sizeof(T) == 8 ? 5 : 4;
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
    /** Published runs keep keys with "larger is more extreme", so one look-back serves both orders. */
    static __device__ __forceinline__ Key larger_is_better(Key k) { return MAX ? k : Key(~k); }
    /** The more extreme key (a maximum or a minimum: one instruction for 32-bit keys). */
    struct Extreme {
        static __device__ __forceinline__ Key identity() { return WORST; }
        __device__ __forceinline__ Key operator()(Key a, Key b) const { return beats(b, a) ? b : a; }
    };
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

}  // namespace arg_scan_detail

}  // namespace primer
