// Device-wide scan entry points (see scan_kernels.cuh for the algorithm and the launch contract).
//
//   scan_<op>_<suffix>(const T* in, T* out, long long n, long long tiles, long long init_bits,
//                      int inclusive, unsigned char* scratch, unsigned epoch)
//       op: sum prod min max (i8 i32 i64 f32 f64), and or xor (i8 i32 i64); accumulates in T,
//       except i8 (signed char), which combines in int32 and narrows each output as it is stored:
//       the same bits as Java byte arithmetic (sums and products wrap mod 2^8); and float min and
//       max other than plain float32, which combine integer keys of the same bits (FLOAT KEYS).
//   scan_sum_i32_i64(const int* in, long long* out, ...same...)          int32 in, int64 sums out.
//   scan_sum_i8_i64(const signed char* in, long long* out, ...same...)   int8 in, int64 sums out.
//   segscan_flags_<op>_<suffix>(const T* in, const signed char* flags, T* out, long long n,
//                      long long tiles, long long init_bits, int inclusive, unsigned char* scratch,
//                      unsigned epoch)
//       a segment starts at every element whose flag is nonzero (and at element 0).
//   segscan_offsets_<op>_<suffix>(const T* in, const long long* offsets, const long long* tile_first,
//                      T* out, long long n, long long tiles, long long begin, long long init_bits,
//                      int inclusive, unsigned char* scratch, unsigned epoch, const unsigned long long* gate)
//       in, out: already advanced to element offsets[0] = begin; n = offsets[segments] - begin.
//       gate: a word the check below wrote (not null): every block leaves at once where it is 0.
//   segscan_offsets_check_and_tile_starts(const long long* offsets, long long segments, long long length,
//                      const void* in, long long item_bytes, long long tile_items,
//                      unsigned long long* state, unsigned long long* verdict, unsigned long long* gate,
//                      long long* tile_first)
//       checks the offsets (state: two zeroed words of scratch, left zeroed), writes verdict[0..2] =
//       {offsets[0], offsets[segments], the first k with offsets[k] > offsets[k+1] or -1} to pinned
//       host memory and, unless gate is null, gate[0] = 1 for sorted offsets from 0 to length, else 0,
//       and gate[1] = 1 (device memory), and for ends in range fills tile_first[0 .. tiles] of the tiles of elements
//       offsets[0] .. offsets[segments] of in (the full array). grid: at least 8 threads for each
//       t = 0 .. max_tiles, blocks of 256, max_tiles = ceil((length + 16 / item_bytes - 1) / tile_items).
//
// The segmented scans take the same suffixes and operators as scan_<op>_<suffix>, i8 included.
// init_bits: the init as raw bits of the output type (low 32 bits for 4-byte types, the low byte,
// sign-extended, for i8); it starts the inclusive scans too (out[i] = init op in[0] op ... op in[i]);
// pass the operator's identity for a plain scan.
// Launch: blockDim.x = ScanShape<in type, segmented>::BLOCK_THREADS, gridDim.x = tiles =
// ceil((n + shift) / tile_items), shift = (in % 16) / sizeof(in type); `tiles` is passed too and
// checked. 256 threads and 32768-element tiles for int8 input, 8192 for 4-byte, 4096 for 8-byte;
// segmented int8: 16384, but 32768 for sums (ScanPolicy.java).
#include "scan_kernels.cuh"

// Registers: 256-thread blocks at 6 per SM may hold 40 registers per thread, at 5 per SM 48, at 4 per
// SM 64. MIN_BLOCKS is the most that compiles without spills on every target (ptxas -warn-spills is
// an error here), up to the 6 that the shared memory of a 32 KB tile allows. Plain scans get 6,
// except bitwise operators of int64 (5: at 6 they spill 4 bytes on sm_80 and sm_89). int64 products
// took 5 too, until BLOCKED_IN_WAIT (scan_kernels.cuh): 40 registers at 6 since (32-36 on sm_80 and
// sm_89), and cumprod of 2^28 1.143 -> 1.128-1.136 ms at 6
// (bench/results/2026-11-25-nvidia-h200-step69-ab.md). float64 sums and products took 5 until SCAN IN
// THE WAIT (scan_kernels.cuh); they need 39 registers since, and 8-byte min and max, blocked in the
// wait, 38-40 (32-36 on sm_80 and sm_89). Segmented scans ask segmented_scan_min_blocks
// (scan/policy.cuh): 4- and 8-byte data, BLOCKED in scan_kernels.cuh, and int32 -> int64 sums
// (WIDENING SUMS), 6 (37-40 registers on sm_90 and sm_89; 8-byte data 5 on sm_80, where six spilled 8
// bytes at 6). At the 5 they had before (4 for int64 products and bitwise operators and for 8-byte
// min and max by flags) they ran 0.5-1.5% slower (sums), float64 max 1.5% by flags and 6.5% by
// offsets (bench/results/2026-11-25-nvidia-h200-step68-ab.md).
// int8 (16 items a chunk, folded rather than scanned in registers; see FOLD in scan_kernels.cuh):
// plain 6 (40 registers on sm_80/89/90), segmented 5 (45-48, 256 x 4 tiles and the block scan; by
// offsets each row's head bits are read into registers once (see "Head bits" in scan_kernels.cuh):
// read at each use they took 53-56 registers at 4 per SM and spilled at 5), but segmented min and
// max on sm_90 6 (40, BYTE EXTREMES in scan_kernels.cuh; at 5 they ran 4-5% slower); int8 -> int64 sums 6
// (40 since BYTE SUMS in scan_kernels.cuh; before, 44 at 5: 6 spilled on sm_80 and sm_89). Segmented
// int8 sums (SEGMENTED BYTE SUMS, 256 x 8 tiles, PLAIN ROW SCANS): into int8 6 (40), into int64 4
// (55-56; at 5, 4 bytes spill by offsets on sm_90).
#define PRIMER_SCAN_BOUNDS(IN, SEG, MIN_BLOCKS) \
    __launch_bounds__(primer::ScanShape<IN, SEG>::BLOCK_THREADS,   \
                      primer::scan_min_blocks(MIN_BLOCKS, primer::ScanShape<IN, SEG>::BLOCK_THREADS))
#define PRIMER_SCAN_SHAPE(IN, SEG) primer::ScanShape<IN, SEG>::BLOCK_THREADS, primer::ScanShape<IN, SEG>::ROWS

#define PRIMER_SCAN(NAME, IN, OUT, OP, MIN_BLOCKS)                                                               \
    extern "C" __global__ void PRIMER_SCAN_BOUNDS(IN, false, MIN_BLOCKS)                                          \
        NAME(const IN* in, OUT* out, long long n, long long tiles, long long init_bits, int inclusive,           \
             unsigned char* scratch, unsigned epoch) {                                                            \
        primer::device_scan<PRIMER_SCAN_SHAPE(IN, false), IN, OUT, OP>(in, out, n, tiles, init_bits, inclusive, scratch, \
                                                                epoch, primer::NoHeads{});                        \
    }

// Segmented scans of IN into OUT: IN itself, or int64 for the sums that widen.
#define PRIMER_SEGSCAN_BOUNDS(IN, OUT, OP) \
    PRIMER_SCAN_BOUNDS(IN, true, primer::segmented_scan_min_blocks(sizeof(IN), sizeof(OUT), primer::ByteSums<OP, IN>::value, \
                                                                   primer::ByteExtremes<OP, IN>::value))
#define PRIMER_SEGSCAN_SHAPE_OF(IN, OP) primer::ScanShape<IN, true, primer::ByteSums<OP, IN>::value>
#define PRIMER_SEGSCAN_SHAPE(IN, OP) PRIMER_SEGSCAN_SHAPE_OF(IN, OP)::BLOCK_THREADS, PRIMER_SEGSCAN_SHAPE_OF(IN, OP)::ROWS

#define PRIMER_SEGSCAN_FLAGS(NAME, IN, OUT, OP)                                                                  \
    extern "C" __global__ void PRIMER_SEGSCAN_BOUNDS(IN, OUT, OP)                                                     \
        NAME(const IN* in, const signed char* flags, OUT* out, long long n, long long tiles, long long init_bits, \
             int inclusive, unsigned char* scratch, unsigned epoch) {                                             \
        using Heads = primer::FlagHeadsFor<IN>::type;  /* scan/segment_heads.cuh */                             \
        primer::device_scan<PRIMER_SEGSCAN_SHAPE(IN, OP), IN, OUT, OP>(in, out, n, tiles, init_bits, inclusive, \
                                                                       scratch, epoch, Heads{flags});             \
    }

#define PRIMER_SEGSCAN_OFFSETS(NAME, IN, OUT, OP)                                                                \
    extern "C" __global__ void PRIMER_SEGSCAN_BOUNDS(IN, OUT, OP)                                                     \
        NAME(const IN* in, const long long* offsets, const long long* tile_first, OUT* out, long long n,          \
             long long tiles, long long begin, long long init_bits, int inclusive, unsigned char* scratch,        \
             unsigned epoch, const unsigned long long* gate) {                                                    \
        using Shape = PRIMER_SEGSCAN_SHAPE_OF(IN, OP);                                                           \
        using Heads = primer::OffsetHeads<Shape::TILE_ITEMS, Shape::BLOCK_THREADS>;                               \
        primer::device_scan<PRIMER_SEGSCAN_SHAPE(IN, OP), IN, OUT, OP>(in, out, n, tiles, init_bits, inclusive,      \
                                                                       scratch, epoch,                            \
                                                                       Heads{offsets, tile_first, begin,          \
                                                                             primer::segment_head_slots(tile_first, tiles), gate}); \
    }

// The segmented scans, by flags and by offsets.
#define PRIMER_SEGSCANS(OP_NAME, SUFFIX, T, OP)                         \
    PRIMER_SEGSCAN_FLAGS(segscan_flags_##OP_NAME##_##SUFFIX, T, T, OP)  \
    PRIMER_SEGSCAN_OFFSETS(segscan_offsets_##OP_NAME##_##SUFFIX, T, T, OP)

// PLAIN: min blocks of the plain scan.
#define PRIMER_SCAN_ALL(OP_NAME, SUFFIX, T, OP, PLAIN) \
    PRIMER_SCAN(scan_##OP_NAME##_##SUFFIX, T, T, OP, PLAIN)            \
    PRIMER_SEGSCANS(OP_NAME, SUFFIX, T, OP)

PRIMER_SCAN_ALL(sum, i32, int, primer::Sum<int>, 6)
PRIMER_SCAN_ALL(prod, i32, int, primer::Prod<int>, 6)
// Integer min and max: plain scans keep ops.cuh's Min and Max; segmented ones take
// scan/integer_extremes.cuh's, which nvcc cannot merge with the heads' selects (int8 too).
PRIMER_SCAN(scan_min_i32, int, int, primer::Min<int>, 6)
PRIMER_SCAN(scan_max_i32, int, int, primer::Max<int>, 6)
PRIMER_SEGSCANS(min, i32, int, primer::IntegerMin<int>)
PRIMER_SEGSCANS(max, i32, int, primer::IntegerMax<int>)
PRIMER_SCAN_ALL(and, i32, int, primer::BitAnd<int>, 6)
PRIMER_SCAN_ALL(or, i32, int, primer::BitOr<int>, 6)
PRIMER_SCAN_ALL(xor, i32, int, primer::BitXor<int>, 6)
PRIMER_SCAN_ALL(sum, f32, float, primer::Sum<float>, 6)
PRIMER_SCAN_ALL(prod, f32, float, primer::Prod<float>, 6)
// Float min and max (FLOAT KEYS, scan_kernels.cuh): plain float32 scans keep Java's operators (their
// NaN fast path is faster than keys there); segmented ones, and float64, scan keys.
PRIMER_SCAN(scan_min_f32, float, float, primer::Min<float>, 6)
PRIMER_SCAN(scan_max_f32, float, float, primer::Max<float>, 6)
PRIMER_SEGSCANS(min, f32, float, primer::FloatKeyMin<float>)
PRIMER_SEGSCANS(max, f32, float, primer::FloatKeyMax<float>)
PRIMER_SCAN_ALL(sum, i64, long long, primer::Sum<long long>, 6)
PRIMER_SCAN_ALL(prod, i64, long long, primer::Prod<long long>, 6)
PRIMER_SCAN(scan_min_i64, long long, long long, primer::Min<long long>, 6)
PRIMER_SCAN(scan_max_i64, long long, long long, primer::Max<long long>, 6)
PRIMER_SEGSCANS(min, i64, long long, primer::IntegerMin<long long>)
PRIMER_SEGSCANS(max, i64, long long, primer::IntegerMax<long long>)
PRIMER_SCAN_ALL(and, i64, long long, primer::BitAnd<long long>, 5)
PRIMER_SCAN_ALL(or, i64, long long, primer::BitOr<long long>, 5)
PRIMER_SCAN_ALL(xor, i64, long long, primer::BitXor<long long>, 5)
PRIMER_SCAN_ALL(sum, f64, double, primer::Sum<double>, 6)
PRIMER_SCAN_ALL(prod, f64, double, primer::Prod<double>, 6)
PRIMER_SCAN_ALL(min, f64, double, primer::FloatKeyMin<double>, 6)
PRIMER_SCAN_ALL(max, f64, double, primer::FloatKeyMax<double>, 6)

PRIMER_SCAN_ALL(sum, i8, signed char, primer::Sum<int>, 6)
PRIMER_SCAN_ALL(prod, i8, signed char, primer::Prod<int>, 6)
PRIMER_SCAN(scan_min_i8, signed char, signed char, primer::Min<int>, 6)
PRIMER_SCAN(scan_max_i8, signed char, signed char, primer::Max<int>, 6)
PRIMER_SEGSCANS(min, i8, signed char, primer::IntegerMin<int>)
PRIMER_SEGSCANS(max, i8, signed char, primer::IntegerMax<int>)
PRIMER_SCAN_ALL(and, i8, signed char, primer::BitAnd<int>, 6)
PRIMER_SCAN_ALL(or, i8, signed char, primer::BitOr<int>, 6)
PRIMER_SCAN_ALL(xor, i8, signed char, primer::BitXor<int>, 6)

PRIMER_SCAN(scan_sum_i32_i64, int, long long, primer::Sum<long long>, 6)
PRIMER_SCAN(scan_sum_i8_i64, signed char, long long, primer::Sum<long long>, 6)
// Segmented sums into int64: int32 by WIDENING SUMS, int8 by SEGMENTED BYTE SUMS (scan_kernels.cuh).
PRIMER_SEGSCAN_FLAGS(segscan_flags_sum_i32_i64, int, long long, primer::Sum<long long>)
PRIMER_SEGSCAN_OFFSETS(segscan_offsets_sum_i32_i64, int, long long, primer::Sum<long long>)
PRIMER_SEGSCAN_FLAGS(segscan_flags_sum_i8_i64, signed char, long long, primer::Sum<long long>)
PRIMER_SEGSCAN_OFFSETS(segscan_offsets_sum_i8_i64, signed char, long long, primer::Sum<long long>)

extern "C" __global__ void __launch_bounds__(primer::ScanPolicyConstants::SEGMENT_STARTS_BLOCK)
segscan_offsets_check_and_tile_starts(const long long* offsets, long long segments, long long length, const void* in,
                                      long long item_bytes, long long tile_items, unsigned long long* state,
                                      unsigned long long* verdict, unsigned long long* gate, long long* tile_first) {
    primer::check_offsets_and_find_tile_starts(offsets, segments, length, in, item_bytes, tile_items, state, verdict,
                                               gate, tile_first);
}
