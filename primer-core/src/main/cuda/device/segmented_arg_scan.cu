// Segmented running argmin / argmax entry points (see arg_scan_tile.cuh). Per operator
// <op> (argmin, argmax), suffix (i8 i32 i64 f32 f64) and heads <by> (flags, offsets), launched in
// this order on one stream, over the tiles of the plain scan (arg_scan.cu, GpuArgScan.java):
//
//   segargscan_<by>_totals_<op>_<suffix>(in, <heads>, long long n, long long tiles, ArgRun<Key, long long>* totals)
//   segargscan_prefixes_k<bits>(ArgRun<Key, long long>* totals, long long tiles)   one block of 1024
//   segargscan_<by>_outputs_<op>_<suffix>(in, <heads>, const ArgRun<Key, long long>* prefixes,
//                                         long long* out, long long n, long long tiles, int inclusive)
//
// <heads> by flags: const signed char* flags (n of them; non-zero starts a segment). By offsets:
// const long long* offsets, const long long* tile_first, long long begin, where in, out and n are
// already those of [offsets[0], offsets[segments]) (begin = offsets[0]) and tile_first is the
// scratch filled by the scan module's segscan_offsets_tile_starts with this tile size.
// ArgRun<Key, long long> is 24 bytes for both key widths; n >= 1; in and out disjoint.
#include "arg_scan_tile.cuh"

namespace {
template <typename T>
using ArgOffsetHeads = primer::OffsetHeads<primer::ArgScanShape<T>::TILE_ITEMS, primer::ArgScanPolicy::BLOCK_THREADS>;

template <typename T>
__device__ __forceinline__ ArgOffsetHeads<T> offset_heads(const long long* offsets, const long long* tile_first,
                                                          long long begin, long long tiles) {
    return {offsets, tile_first, begin, primer::segment_head_slots(tile_first, tiles)};
}
}  // namespace

#define PRIMER_SEG_ARG_SCAN(OP_NAME, SUFFIX, T, MAX)                                                                     \
    extern "C" __global__ void                                                                                           \
    __launch_bounds__(primer::ArgScanPolicy::BLOCK_THREADS, primer::ArgScanShape<T>::BLOCKS_PER_SM)                      \
        segargscan_flags_totals_##OP_NAME##_##SUFFIX(const T* in, const signed char* flags, long long n,                 \
                                                     long long tiles,                                                    \
                                                     primer::ArgRun<primer::ArgScanKeyOf<T>, long long>* totals) {       \
        primer::segmented_arg_scan_tile_totals<T, MAX>(in, n, tiles, primer::FlagHeads{flags}, totals);                  \
    }                                                                                                                    \
    extern "C" __global__ void                                                                                           \
    __launch_bounds__(primer::ArgScanPolicy::BLOCK_THREADS, primer::ArgScanShape<T>::SEGMENTED_OUTPUTS_BLOCKS_PER_SM)    \
        segargscan_flags_outputs_##OP_NAME##_##SUFFIX(                                                                   \
            const T* in, const signed char* flags, const primer::ArgRun<primer::ArgScanKeyOf<T>, long long>* prefixes,   \
            long long* out, long long n, long long tiles, int inclusive) {                                               \
        primer::segmented_arg_scan_outputs<T, MAX>(in, n, tiles, primer::FlagHeads{flags}, prefixes, out,                \
                                                   inclusive != 0);                                                      \
    }                                                                                                                    \
    extern "C" __global__ void                                                                                           \
    __launch_bounds__(primer::ArgScanPolicy::BLOCK_THREADS, primer::ArgScanShape<T>::BLOCKS_PER_SM)                      \
        segargscan_offsets_totals_##OP_NAME##_##SUFFIX(const T* in, const long long* offsets,                            \
                                                       const long long* tile_first, long long begin, long long n,        \
                                                       long long tiles,                                                  \
                                                       primer::ArgRun<primer::ArgScanKeyOf<T>, long long>* totals) {     \
        primer::segmented_arg_scan_tile_totals<T, MAX>(in, n, tiles, offset_heads<T>(offsets, tile_first, begin, tiles), \
                                                       totals);                                                          \
    }                                                                                                                    \
    extern "C" __global__ void                                                                                           \
    __launch_bounds__(primer::ArgScanPolicy::BLOCK_THREADS, primer::ArgScanShape<T>::SEGMENTED_OUTPUTS_BLOCKS_PER_SM)    \
        segargscan_offsets_outputs_##OP_NAME##_##SUFFIX(                                                                 \
            const T* in, const long long* offsets, const long long* tile_first, long long begin,                         \
            const primer::ArgRun<primer::ArgScanKeyOf<T>, long long>* prefixes, long long* out, long long n,             \
            long long tiles, int inclusive) {                                                                            \
        primer::segmented_arg_scan_outputs<T, MAX>(in, n, tiles, offset_heads<T>(offsets, tile_first, begin, tiles),     \
                                                   prefixes, out, inclusive != 0);                                       \
    }

#define PRIMER_SEG_ARG_SCANS(SUFFIX, T)           \
    PRIMER_SEG_ARG_SCAN(argmin, SUFFIX, T, false) \
    PRIMER_SEG_ARG_SCAN(argmax, SUFFIX, T, true)

PRIMER_SEG_ARG_SCANS(i8, signed char)
PRIMER_SEG_ARG_SCANS(i32, int)
PRIMER_SEG_ARG_SCANS(i64, long long)
PRIMER_SEG_ARG_SCANS(f32, float)
PRIMER_SEG_ARG_SCANS(f64, double)

#define PRIMER_SEG_ARG_SCAN_PREFIXES(BITS, KEY)                                                                  \
    extern "C" __global__ void __launch_bounds__(primer::ArgScanPolicy::PREFIX_THREADS)                          \
        segargscan_prefixes_k##BITS(primer::ArgRun<KEY, long long>* totals, long long tiles) {                   \
        primer::arg_scan_tile_prefixes<primer::ArgRun<KEY, long long>, primer::TileRunThen<KEY>>(totals, tiles); \
    }

PRIMER_SEG_ARG_SCAN_PREFIXES(32, int)
PRIMER_SEG_ARG_SCAN_PREFIXES(64, long long)

static_assert(sizeof(primer::ArgRun<int, long long>) == 24 && sizeof(primer::ArgRun<long long, long long>) == 24,
              "GpuSegmentedArgScan sizes the totals at 24 bytes a tile");
