// Device-wide scan entry points (see scan_kernels.cuh for the algorithm and the launch contract).
//
//   scan_<op>_<suffix>(const T* in, T* out, long long n, long long init_bits, int inclusive,
//                      unsigned char* scratch, unsigned epoch)
//       op: sum prod min max (i32 i64 f32 f64), and or xor (i32 i64); accumulates in T.
//   scan_sum_i32_i64(const int* in, long long* out, ...same...)      int32 in, int64 sums out.
//   segscan_flags_<op>_<suffix>(const T* in, const signed char* flags, T* out, long long n,
//                      long long init_bits, int inclusive, unsigned char* scratch, unsigned epoch)
//       a segment starts at every element whose flag is nonzero (and at element 0).
//   segscan_offsets_<op>_<suffix>(const T* in, const long long* offsets, const long long* tile_first,
//                      T* out, long long n, long long begin, long long init_bits, int inclusive,
//                      unsigned char* scratch, unsigned epoch)
//       in, out: already advanced to element offsets[0] = begin; n = offsets[segments] - begin.
//   segscan_offsets_tile_starts(const long long* offsets, long long segments, long long begin,
//                      long long shift, long long tile_items, long long tiles, long long* tile_first)
//       grid: ceil((tiles + 1) / 256) blocks of 256; fills tile_first[0 .. tiles].
//
// init_bits: the init as raw bits of T (low 32 bits for 4-byte types); it starts the inclusive
// scans too (out[i] = init op in[0] op ... op in[i]); pass the operator's identity for a plain scan.
// Launch: blockDim.x = 256, gridDim.x = tiles = ceil((n + shift) / tile_items), where shift =
// (in % 16) / sizeof(T) and tile_items = 256 * 4 * (16 / sizeof(T)) (ScanPolicy.java).
#include "scan_kernels.cuh"

#define PRIMER_SCAN_BOUNDS \
    __launch_bounds__(primer::ScanPolicyConstants::BLOCK_THREADS, primer::ScanPolicyConstants::MIN_BLOCKS_PER_SM)
#define PRIMER_SCAN_SHAPE primer::ScanPolicyConstants::BLOCK_THREADS, primer::ScanPolicyConstants::ROWS

#define PRIMER_SCAN(NAME, IN, OUT, OP)                                                                       \
    extern "C" __global__ void PRIMER_SCAN_BOUNDS NAME(const IN* in, OUT* out, long long n, long long tiles,     \
                                                       long long init_bits, int inclusive, unsigned char* scratch, \
                                                       unsigned epoch) {                                          \
        primer::device_scan<PRIMER_SCAN_SHAPE, IN, OUT, OP>(in, out, n, tiles, init_bits, inclusive, scratch,    \
                                                            epoch, primer::NoHeads{});                            \
    }

#define PRIMER_SEGSCAN_FLAGS(NAME, T, OP)                                                                        \
    extern "C" __global__ void PRIMER_SCAN_BOUNDS NAME(const T* in, const signed char* flags, T* out, long long n, \
                                                       long long tiles, long long init_bits, int inclusive,       \
                                                       unsigned char* scratch, unsigned epoch) {                  \
        primer::device_scan<PRIMER_SCAN_SHAPE, T, T, OP>(in, out, n, tiles, init_bits, inclusive, scratch, epoch, \
                                                         primer::FlagHeads{flags});                               \
    }

#define PRIMER_SEGSCAN_OFFSETS(NAME, T, OP)                                                                       \
    extern "C" __global__ void PRIMER_SCAN_BOUNDS NAME(const T* in, const long long* offsets,                    \
                                                       const long long* tile_first, T* out, long long n,          \
                                                       long long tiles, long long begin, long long init_bits,     \
                                                       int inclusive, unsigned char* scratch, unsigned epoch) {   \
        using Heads = primer::OffsetHeads<primer::scan_tile_items<T>(), primer::ScanPolicyConstants::BLOCK_THREADS>; \
        primer::device_scan<PRIMER_SCAN_SHAPE, T, T, OP>(in, out, n, tiles, init_bits, inclusive, scratch, epoch, \
                                                         Heads{offsets, tile_first, begin});                      \
    }

#define PRIMER_SCAN_ALL(OP_NAME, SUFFIX, T, OP)              \
    PRIMER_SCAN(scan_##OP_NAME##_##SUFFIX, T, T, OP)         \
    PRIMER_SEGSCAN_FLAGS(segscan_flags_##OP_NAME##_##SUFFIX, T, OP) \
    PRIMER_SEGSCAN_OFFSETS(segscan_offsets_##OP_NAME##_##SUFFIX, T, OP)

#define PRIMER_SCAN_ARITHMETIC(SUFFIX, T)               \
    PRIMER_SCAN_ALL(sum, SUFFIX, T, primer::Sum<T>)      \
    PRIMER_SCAN_ALL(prod, SUFFIX, T, primer::Prod<T>)    \
    PRIMER_SCAN_ALL(min, SUFFIX, T, primer::Min<T>)      \
    PRIMER_SCAN_ALL(max, SUFFIX, T, primer::Max<T>)

#define PRIMER_SCAN_BITWISE(SUFFIX, T)                  \
    PRIMER_SCAN_ALL(and, SUFFIX, T, primer::BitAnd<T>)   \
    PRIMER_SCAN_ALL(or, SUFFIX, T, primer::BitOr<T>)     \
    PRIMER_SCAN_ALL(xor, SUFFIX, T, primer::BitXor<T>)

PRIMER_SCAN_ARITHMETIC(i32, int)
PRIMER_SCAN_BITWISE(i32, int)
PRIMER_SCAN_ARITHMETIC(i64, long long)
PRIMER_SCAN_BITWISE(i64, long long)
PRIMER_SCAN_ARITHMETIC(f32, float)
PRIMER_SCAN_ARITHMETIC(f64, double)

PRIMER_SCAN(scan_sum_i32_i64, int, long long, primer::Sum<long long>)

extern "C" __global__ void __launch_bounds__(primer::ScanPolicyConstants::SEGMENT_STARTS_BLOCK)
segscan_offsets_tile_starts(const long long* offsets, long long segments, long long begin, long long shift,
                            long long tile_items, long long tiles, long long* tile_first) {
    primer::segment_tile_starts(offsets, segments, begin, shift, tile_items, tiles, tile_first);
}
