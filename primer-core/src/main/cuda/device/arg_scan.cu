// Running argmin / argmax entry points (see arg_scan_kernels.cuh for the algorithm). Launched in this
// order on one stream, per operator <op> (argmin, argmax) and suffix (i8 i32 i64 f32 f64):
//
//   argscan_totals_<op>_<suffix>(const T* in, long long n, long long tiles, KeyIndex<Key>* totals)
//       grid: tiles = ceil((n + shift) / tile_items), shift = (in % 16) / sizeof(T), blocks of 256;
//       tile_items = 256 * 8 * (16 / sizeof(T)) (GpuArgScan.java). Writes totals[0 .. tiles).
//   argscan_prefixes_k<bits>(KeyIndex<Key>* totals, long long tiles)
//       one block of 1024: totals[t] becomes the exclusive prefix of tile t. Per key width only
//       (k32: int8, int32, float32; k64: int64, float64), as it never sees an element.
//   argscan_outputs_<op>_<suffix>(const T* in, const KeyIndex<Key>* prefixes, long long* out,
//                                 long long n, long long tiles, int inclusive)
//       the same grid as the totals: out[i] = index of the first extreme of in[0 .. i] (inclusive
//       != 0), or of in[0 .. i-1] (inclusive == 0; out[0] = -1).
//
// n >= 1; in aligned to its element size, out to 8 bytes, the two disjoint. KeyIndex<Key> (a key
// and an index) is 16 bytes for both key widths.
#include "arg_scan_tile.cuh"  // the plain scan is the segmented one over one segment

#define PRIMER_ARG_SCAN(OP_NAME, SUFFIX, T, MAX)                                                                     \
    extern "C" __global__ void                                                                                       \
    __launch_bounds__(primer::ArgScanPolicy::BLOCK_THREADS, primer::ArgScanShape<T>::BLOCKS_PER_SM)                  \
        argscan_totals_##OP_NAME##_##SUFFIX(const T* in, long long n, long long tiles,                               \
                                            primer::KeyIndex<primer::ArgScanKeyOf<T>>* totals) {                     \
        primer::arg_scan_tile_totals<T, MAX>(in, n, tiles, totals);                                                  \
    }                                                                                                                \
    extern "C" __global__ void                                                                                       \
    __launch_bounds__(primer::ArgScanPolicy::BLOCK_THREADS, primer::ArgScanShape<T>::BLOCKS_PER_SM)                  \
        argscan_outputs_##OP_NAME##_##SUFFIX(const T* in, const primer::KeyIndex<primer::ArgScanKeyOf<T>>* prefixes, \
                                             long long* out, long long n, long long tiles, int inclusive) {          \
        primer::arg_scan_outputs<T, MAX>(in, prefixes, out, n, tiles, inclusive != 0);                               \
    }

#define PRIMER_ARG_SCANS(SUFFIX, T)           \
    PRIMER_ARG_SCAN(argmin, SUFFIX, T, false) \
    PRIMER_ARG_SCAN(argmax, SUFFIX, T, true)

PRIMER_ARG_SCANS(i8, signed char)
PRIMER_ARG_SCANS(i32, int)
PRIMER_ARG_SCANS(i64, long long)
PRIMER_ARG_SCANS(f32, float)
PRIMER_ARG_SCANS(f64, double)

#define PRIMER_ARG_SCAN_PREFIXES(BITS, KEY)                                                                   \
    extern "C" __global__ void __launch_bounds__(primer::ArgScanPolicy::PREFIX_THREADS)                       \
        argscan_prefixes_k##BITS(primer::KeyIndex<KEY>* totals, long long tiles) {                            \
        primer::arg_scan_tile_prefixes<primer::KeyIndex<KEY>, primer::FirstOfLargestKey<KEY>>(totals, tiles); \
    }

PRIMER_ARG_SCAN_PREFIXES(32, int)
PRIMER_ARG_SCAN_PREFIXES(64, long long)

static_assert(sizeof(primer::KeyIndex<int>) == 16 && sizeof(primer::KeyIndex<long long>) == 16,
              "GpuArgScan sizes the totals at 16 bytes a tile");
