// The scan ladder: inclusive prefix sums from Hillis-Steele to decoupled look-back, one module.
// Each step's kernel body lives in its own scan_*.cuh (printed by `primer ladder scan --show`);
// this file only instantiates the entry points for int32 and float32. Parameters:
//   block level (each block scans its own tile; see docs/ladder-scan.md):
//     scan_hillis_steele_T(const T* in, T* out, long long n)        1024 threads, 1024-element tiles
//     scan_blelloch_T, scan_blelloch_padded_T (same parameters)       1024 threads, 2048-element tiles
//     scan_warp_shuffle_T (same parameters)                           1024 threads, 1024-element tiles
//   device level (the whole array; 128 threads, 4096-element tiles):
//     scan_tiles_T(const T* in, T* out, long long n, T* tile_sums)   grid = tiles
//     scan_tile_sums_T(T* tile_sums, long long count)                 grid = 1
//     scan_add_tile_sums_T(T* out, long long n, const T* tile_sums)   grid = tiles - 1
//     scan_chained_T(const T* in, T* out, long long n, unsigned* flags, T* inclusive, unsigned* tile_counter)
//     scan_decoupled_lookback_T(const T* in, T* out, long long n, unsigned long long* status, unsigned* tile_counter)
// int32 sums wrap around as Java's int does (a plain 32-bit add).
#include "scan_hillis_steele.cuh"
#include "scan_blelloch_padded.cuh"
#include "scan_warp_shuffle.cuh"
#include "scan_then_propagate.cuh"
#include "scan_chained.cuh"
#include "scan_decoupled_lookback.cuh"

using namespace primer::ladder;

#define PRIMER_SCAN_LADDER(SUFFIX, T)                                                                              \
    extern "C" __global__ void __launch_bounds__(HILLIS_STEELE_THREADS)                                            \
        scan_hillis_steele_##SUFFIX(const T* in, T* out, long long n) {                                            \
        scan_hillis_steele_tile<T>(in, out, n);                                                                    \
    }                                                                                                              \
    extern "C" __global__ void __launch_bounds__(BLELLOCH_THREADS)                                                 \
        scan_blelloch_##SUFFIX(const T* in, T* out, long long n) {                                                 \
        scan_blelloch_tile<T, BlellochNaiveLayout>(in, out, n);                                                    \
    }                                                                                                              \
    extern "C" __global__ void __launch_bounds__(BLELLOCH_THREADS)                                                 \
        scan_blelloch_padded_##SUFFIX(const T* in, T* out, long long n) {                                          \
        scan_blelloch_padded_tile<T>(in, out, n);                                                                  \
    }                                                                                                              \
    extern "C" __global__ void __launch_bounds__(WARP_SHUFFLE_THREADS)                                             \
        scan_warp_shuffle_##SUFFIX(const T* in, T* out, long long n) {                                             \
        scan_warp_shuffle_tile<T>(in, out, n);                                                                     \
    }                                                                                                              \
    extern "C" __global__ void __launch_bounds__(TILE_THREADS)                                                     \
        scan_tiles_##SUFFIX(const T* in, T* out, long long n, T* tile_sums) {                                      \
        scan_then_propagate_tiles<T>(in, out, n, tile_sums);                                                       \
    }                                                                                                              \
    extern "C" __global__ void __launch_bounds__(TILE_THREADS) scan_tile_sums_##SUFFIX(T* tile_sums, long long count) { \
        scan_then_propagate_tile_sums<T>(tile_sums, count);                                                        \
    }                                                                                                              \
    extern "C" __global__ void __launch_bounds__(TILE_THREADS)                                                     \
        scan_add_tile_sums_##SUFFIX(T* out, long long n, const T* tile_sums) {                                     \
        scan_then_propagate_add<T>(out, n, tile_sums);                                                             \
    }                                                                                                              \
    extern "C" __global__ void __launch_bounds__(TILE_THREADS) scan_chained_##SUFFIX(                              \
        const T* in, T* out, long long n, unsigned* flags, T* inclusive, unsigned* tile_counter) {                 \
        scan_chained<T>(in, out, n, flags, inclusive, tile_counter);                                               \
    }                                                                                                              \
    extern "C" __global__ void __launch_bounds__(TILE_THREADS) scan_decoupled_lookback_##SUFFIX(                   \
        const T* in, T* out, long long n, unsigned long long* status, unsigned* tile_counter) {                    \
        scan_decoupled_lookback<T>(in, out, n, status, tile_counter);                                              \
    }

PRIMER_SCAN_LADDER(i32, int)
PRIMER_SCAN_LADDER(f32, float)
