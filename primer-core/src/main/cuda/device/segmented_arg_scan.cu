// Segmented running argmin / argmax entry points (see arg_scan_tile.cuh), one launch per scan, per
// operator <op> (argmin, argmax), suffix (i8 i32 i64 f32 f64) and heads <by> (flags, offsets), over
// the tiles of the plain scan (arg_scan.cu, GpuArgScan.java):
//
//   segargscan_<by>_<op>_<suffix>(in, <heads>, long long* out, long long n, long long tiles,
//                                 int inclusive, unsigned char* scratch, unsigned epoch)
//
// <heads> by flags: const signed char* flags (n of them; non-zero starts a segment). By offsets:
// const long long* offsets, const long long* tile_first, long long begin, where in, out and n are
// already those of [offsets[0], offsets[segments]) (begin = offsets[0]) and tile_first is the
// scratch filled by the scan module's segscan_offsets_tile_starts with this tile size. Scratch and
// epoch as the plain scan's; n >= 1; in and out disjoint.
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

#define PRIMER_SEG_ARG_SCAN(OP_NAME, SUFFIX, T, MAX)                                                                  \
    extern "C" __global__ void                                                                                        \
    __launch_bounds__(primer::ArgScanPolicy::BLOCK_THREADS, primer::ArgScanShape<T>::SEGMENTED_BLOCKS_PER_SM)         \
        segargscan_flags_##OP_NAME##_##SUFFIX(const T* in, const signed char* flags, long long* out, long long n,     \
                                              long long tiles, int inclusive, unsigned char* scratch,                 \
                                              unsigned epoch) {                                                       \
        primer::arg_scan_single_pass<T, MAX>(in, n, tiles, primer::FlagHeads{flags}, out, inclusive != 0, scratch,    \
                                             epoch);                                                                  \
    }                                                                                                                 \
    extern "C" __global__ void                                                                                        \
    __launch_bounds__(primer::ArgScanPolicy::BLOCK_THREADS, primer::ArgScanShape<T>::SEGMENTED_BLOCKS_PER_SM)         \
        segargscan_offsets_##OP_NAME##_##SUFFIX(const T* in, const long long* offsets, const long long* tile_first,   \
                                                long long begin, long long* out, long long n, long long tiles,        \
                                                int inclusive, unsigned char* scratch, unsigned epoch) {              \
        primer::arg_scan_single_pass<T, MAX>(in, n, tiles, offset_heads<T>(offsets, tile_first, begin, tiles), out,   \
                                             inclusive != 0, scratch, epoch);                                         \
    }

#define PRIMER_SEG_ARG_SCANS(SUFFIX, T)           \
    PRIMER_SEG_ARG_SCAN(argmin, SUFFIX, T, false) \
    PRIMER_SEG_ARG_SCAN(argmax, SUFFIX, T, true)

PRIMER_SEG_ARG_SCANS(i8, signed char)
PRIMER_SEG_ARG_SCANS(i32, int)
PRIMER_SEG_ARG_SCANS(i64, long long)
PRIMER_SEG_ARG_SCANS(f32, float)
PRIMER_SEG_ARG_SCANS(f64, double)

static_assert(sizeof(primer::ArgRun<int, long long>) == 24 && sizeof(primer::ArgRun<long long, long long>) == 24,
              "a published run is 24 bytes for both key widths (WideTileStatus: three pairs of words)");
