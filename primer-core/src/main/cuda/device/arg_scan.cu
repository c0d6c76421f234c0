// Running argmin / argmax entry points (see arg_scan_kernels.cuh for the algorithm), one launch per
// scan, per operator <op> (argmin, argmax) and suffix (i8 i32 i64 f32 f64):
//
//   argscan_<op>_<suffix>(const T* in, long long* out, long long n, long long tiles, int inclusive,
//                         unsigned char* scratch, unsigned epoch)
//       grid: tiles = ceil((n + shift) / tile_items), shift = (in % 16) / sizeof(T), blocks of 256;
//       tile_items = 256 * 8 * (16 / sizeof(T)) (GpuArgScan.java). out[i] = index of the first
//       extreme of in[0 .. i] (inclusive != 0), or of in[0 .. i-1] (inclusive == 0; out[0] = -1).
//       scratch and epoch as the device scan's (GpuScan.java: a zero counter, then 128 bytes of
//       status per tile; the epoch new on that scratch).
//
// n >= 1; in aligned to its element size, out to 8 bytes, the two disjoint.
#include "arg_scan_tile.cuh"  // the plain scan is the segmented one over one segment

#define PRIMER_ARG_SCAN(OP_NAME, SUFFIX, T, MAX)                                                                  \
    extern "C" __global__ void                                                                                    \
    __launch_bounds__(primer::ArgScanPolicy::BLOCK_THREADS, primer::ArgScanShape<T>::BLOCKS_PER_SM)               \
        argscan_##OP_NAME##_##SUFFIX(const T* in, long long* out, long long n, long long tiles, int inclusive,    \
                                     unsigned char* scratch, unsigned epoch) {                                    \
        primer::arg_scan_single_pass<T, MAX>(in, n, tiles, primer::NoHeads{}, out, inclusive != 0, scratch, epoch); \
    }

#define PRIMER_ARG_SCANS(SUFFIX, T)           \
    PRIMER_ARG_SCAN(argmin, SUFFIX, T, false) \
    PRIMER_ARG_SCAN(argmax, SUFFIX, T, true)

PRIMER_ARG_SCANS(i8, signed char)
PRIMER_ARG_SCANS(i32, int)
PRIMER_ARG_SCANS(i64, long long)
PRIMER_ARG_SCANS(f32, float)
PRIMER_ARG_SCANS(f64, double)
