// Batched and segmented reduce entry points (see segmented_reduce_kernels.cuh for the algorithms),
// one per (kernel, operator, dtype): segreduce_<kernel>_<op>_<suffix>, op in sum prod min max and
// or xor argmin argmax (and sum_exact for i32), suffix in i8 i32 i64 f32 f64. All are launched with
// 256 threads per block.
//
//   segreduce_rows_vector_*             (const T* in, long long rows, long long cols, int log2_lanes,
//                                        Out* out, unsigned char* scratch)
//       2^log2_lanes lanes per row, 2 rows per group at a time, 16-byte loads: every row 16-byte
//       aligned, cols <= lanes * (16 / sizeof(T)) for one vector per lane.
//   segreduce_rows_scalar_*             (same parameters) the same with scalar loads, any alignment,
//                                        4 rows per group at a time.
//   segreduce_rows_warp_*               (const T* in, long long rows, long long cols, Out* out, unsigned char* scratch)
//       a warp per row, 2 vectors per lane in flight.
//   segreduce_rows_half_warp_*          (the same)
//       a half-warp per row (rows of at most 1 KiB), 2 vectors per lane in flight.
//   segreduce_rows_chunk_*: grid = rows * chunks (or fewer: it grid-strides).
//   segreduce_rows_chunk_*              (const T* in, long long rows, long long cols, long long chunks,
//                                        long long chunk_vecs, Out* out, unsigned char* scratch)
//   segreduce_rows_combine_*            (long long rows, long long chunks, Out* out, unsigned char* scratch)
//   segreduce_check_offsets             (const long long* offsets, long long nseg, long long in_length,
//                                        unsigned char* scratch, unsigned long long* verdict,
//                                        long long tile_items, long long tiles,
//                                        double merge_path_idle_per_value)   first, before any of the
//                                        segments' kernels; verdict: 6 words of pinned host memory, or
//                                        null; tile_items > 0: also the merge path's partition for
//                                        `tiles` tiles of that many steps, in merge_path_searchers blocks
//                                        ahead of the check's (else 0 and 0); merge_path_idle_per_value
//                                        >= 0: the route by that rule (check_offsets.cuh), else none;
//                                        grid: those blocks and any number for the check (it grid-strides)
//   segreduce_segments_small_*          (const T* in, const long long* offsets, long long nseg,
//                                        long long in_length, Out* out, unsigned char* scratch)
//                                        grid: ceil(nseg / 256); in_length: the elements of in
//   segreduce_segments_short_*          (the same as segments_small) alone, where the check found no
//                                        segment longer than SHORT_SEGMENT; routed recipes only
//   segreduce_segments_long_*           (const T* in, Out* out, unsigned char* scratch)
//   segreduce_segments_combine_*        (const long long* offsets, long long nseg, Out* out, unsigned char* scratch)
//
// The merge path (segmented_reduce_merge_path.cuh), for every recipe but int32 sum_exact: where the
// check's verdict says the classic kernels' lanes would idle, and for int64 SUM (128-bit) over many
// short segments (the host's bound: in_length <= 64 * nseg). Tiles of TILE = 256 *
// merge_path_items<T>() steps (23 for int8 and 4-byte values, 13 for 8-byte ones), tiles >=
// ceil((offsets[nseg] - offsets[0] + nseg) / TILE), their splits found by the check's launch:
//   segreduce_merge_path_*              (const T* in, const long long* offsets, long long nseg, long long in_length,
//                                        long long tiles, Out* out, unsigned char* scratch)   grid: tiles
//   segreduce_merge_path_fixup_*        (const long long* offsets, long long nseg, long long in_length,
//                                        long long tile_items, long long tiles, Out* out, unsigned char* scratch)
//                                        grid: ceil(tiles / 8)
//   segreduce_one_launch_*              (const T* in, const long long* offsets, long long nseg, long long in_length,
//                                        int items, Out* out, unsigned char* scratch,
//                                        unsigned long long* verdict)   the check and the merge path in one
//                                        cooperative launch (segmented_reduce/one_launch.cuh), tiles of
//                                        256 * items steps (items <= the merge path's); grid: the tiles,
//                                        ceil((in_length + nseg) / (256 * items)), at most one wave of
//                                        resident blocks; verdict: 4 words of pinned host memory
//
// Output element Out (the accumulator A in brackets), matching the CPU backend:
//   int8, int32 SUM:            int64 (64-bit, always exact: the host gives these kernels no row or
//                               segment of more than 2^32 int32 elements)
//   int32 sum_exact:            int64 (exact 128-bit sum, the overflow flag as for int64 SUM): the
//                               host takes it when a row or segment may hold more than 2^32 elements
//   int8, int32 PROD:           int64 (64-bit, wraps like Java's long)
//   int64 SUM:                  int64 (exact 128-bit sum; a total outside the long range sets the
//                               overflow flag in scratch, which GpuSegmentedReduce turns into an
//                               ArithmeticException)
//   int64 PROD:                 int64 (wraps like Java)
//   integer MIN, MAX, AND, OR, XOR: the input type
//   float32 SUM, PROD:          float32 (accumulated in double, rounded to float once at the end)
//   float32 MIN, MAX:           float32
//   float64 SUM, PROD, MIN, MAX: float64
//   ARGMIN, ARGMAX:             int64 index within the row / segment, -1 when it is empty
#include "segmented_reduce_kernels.cuh"
#include "segmented_reduce_merge_path.cuh"
#include "segmented_reduce/merge_path_tile.cuh"
#include "segmented_reduce/one_launch.cuh"

using primer::KeyIndex;
using Wide = unsigned long long;
namespace seg = primer::segmented;

// Launch bounds: 256 threads and at least two blocks per SM (<= 128 registers); given the thread
// count alone, ptxas aims for 64 registers and spills in some kernels. rows_scalar asks for three
// blocks: four rows of scalar loads in flight per lane need the occupancy more than the registers
// (measured: 2x faster on 4M x 63 float32); rows_chunk for four (<= 64 registers: 3 vectors per
// thread in flight at 4 blocks per SM read fastest, see segmented_reduce/rows.cuh); segments_small for four too
// (more warps in flight: power-law segments 0.434 -> 0.339 ms, see segmented_reduce/segments.cuh), SMALL_BLOCKS below, except
// where that spills on sm_80 to sm_90: three for argmin/argmax and float64 min/max, two for
// float64 argmin/argmax and the 128-bit sums (int64 sum, int32 sum_exact). rows_warp for six,
// WARP_BLOCKS below (<= 40 registers at 2 vectors a lane: rows of a few hundred columns leave a
// warp one or two vectors a lane, so warps in flight count; see segmented_reduce/rows.cuh), except
// where that spills on sm_80 to sm_90: five for argmin/argmax of up to 4 bytes, int8 and float64
// min/max and int64 sum, four for 8-byte argmin/argmax (8 bytes spilled at five on sm_80 and sm_89).
// rows_half_warp for five, HALF_BLOCKS below (at six, sums of every type spilled 4-8 bytes on sm_80
// to sm_90), except four where rows_warp asks for four and for int32 argmin/argmax (4 bytes spilled
// at five on sm_80).
#define PRIMER_SEGRED_BOUNDS __launch_bounds__(seg::Constants::BLOCK_THREADS, 2)
#define PRIMER_SEGRED_SCALAR_BOUNDS __launch_bounds__(seg::Constants::BLOCK_THREADS, 3)
#define PRIMER_SEGRED_CHUNK_BOUNDS __launch_bounds__(seg::Constants::CHUNK_BLOCK_THREADS, 4)

#define PRIMER_SEGRED_ALL(OP, SUFFIX, T, A, OUT, OPERATOR, SMALL_BLOCKS, WARP_BLOCKS, HALF_BLOCKS)                   \
    using Rc_##OP##_##SUFFIX = seg::Recipe<T, A, OUT, OPERATOR>;                                                     \
    extern "C" __global__ void PRIMER_SEGRED_BOUNDS                                                                  \
    segreduce_rows_vector_##OP##_##SUFFIX(const T* __restrict__ in, long long rows, long long cols,                  \
                                          int log2_lanes, OUT* __restrict__ out,                                     \
                                          unsigned char* __restrict__ scratch) {                                     \
        seg::rows_group<Rc_##OP##_##SUFFIX, true, seg::Constants::ROWS_PER_GROUP_VECTOR,                             \
                        seg::Constants::BLOCK_THREADS>(in, rows, cols, log2_lanes, out,                              \
                        seg::overflow_flag(scratch));                                                                \
    }                                                                                                                \
    extern "C" __global__ void PRIMER_SEGRED_SCALAR_BOUNDS                                                           \
    segreduce_rows_scalar_##OP##_##SUFFIX(const T* __restrict__ in, long long rows, long long cols,                  \
                                          int log2_lanes, OUT* __restrict__ out,                                     \
                                          unsigned char* __restrict__ scratch) {                                     \
        seg::rows_group<Rc_##OP##_##SUFFIX, false, seg::Constants::ROWS_PER_GROUP_SCALAR,                            \
                        seg::Constants::BLOCK_THREADS>(in, rows, cols, log2_lanes, out,                              \
                        seg::overflow_flag(scratch));                                                                \
    }                                                                                                                \
    extern "C" __global__ void __launch_bounds__(seg::Constants::BLOCK_THREADS, WARP_BLOCKS)                       \
    segreduce_rows_warp_##OP##_##SUFFIX(const T* __restrict__ in, long long rows, long long cols,                    \
                                        OUT* __restrict__ out, unsigned char* __restrict__ scratch) {                \
        seg::rows_warp<Rc_##OP##_##SUFFIX, 32, seg::Constants::WARP_VECS_PER_LANE, seg::Constants::BLOCK_THREADS>(   \
            in, rows, cols, out, scratch);                                                                           \
    }                                                                                                                \
    extern "C" __global__ void __launch_bounds__(seg::Constants::BLOCK_THREADS, HALF_BLOCKS)                       \
    segreduce_rows_half_warp_##OP##_##SUFFIX(const T* __restrict__ in, long long rows, long long cols,               \
                                             OUT* __restrict__ out, unsigned char* __restrict__ scratch) {           \
        seg::rows_warp<Rc_##OP##_##SUFFIX, 16, seg::Constants::WARP_VECS_PER_LANE, seg::Constants::BLOCK_THREADS>(   \
            in, rows, cols, out, scratch);                                                                           \
    }                                                                                                                \
    extern "C" __global__ void PRIMER_SEGRED_CHUNK_BOUNDS                                                            \
    segreduce_rows_chunk_##OP##_##SUFFIX(const T* __restrict__ in, long long rows, long long cols, long long chunks, \
                                         long long chunk_vecs, OUT* __restrict__ out,                                \
                                         unsigned char* __restrict__ scratch) {                                      \
        seg::rows_chunk<Rc_##OP##_##SUFFIX, seg::Constants::CHUNK_BLOCK_THREADS,                                     \
                        seg::Constants::CHUNK_VECS_PER_THREAD>(                                                      \
            in, rows, cols, chunks, chunk_vecs, out, scratch);                                                       \
    }                                                                                                                \
    extern "C" __global__ void PRIMER_SEGRED_BOUNDS                                                                  \
    segreduce_rows_combine_##OP##_##SUFFIX(long long rows, long long chunks, OUT* __restrict__ out,                  \
                                           unsigned char* __restrict__ scratch) {                                    \
        seg::rows_combine<Rc_##OP##_##SUFFIX, seg::Constants::BLOCK_THREADS>(rows, chunks, out, scratch);            \
    }                                                                                                                \
    extern "C" __global__ void __launch_bounds__(seg::Constants::BLOCK_THREADS, SMALL_BLOCKS)                        \
    segreduce_segments_small_##OP##_##SUFFIX(const T* __restrict__ in, const long long* __restrict__ offsets,        \
                                             long long nseg, long long in_length, OUT* __restrict__ out,             \
                                             unsigned char* __restrict__ scratch) {                                  \
        seg::segments_small<Rc_##OP##_##SUFFIX, seg::Constants::BLOCK_THREADS>(in, offsets, nseg, in_length, out,    \
                                                                                scratch);                            \
    }                                                                                                                \
    extern "C" __global__ void PRIMER_SEGRED_BOUNDS                                                                  \
    segreduce_segments_long_##OP##_##SUFFIX(const T* __restrict__ in, OUT* __restrict__ out,                         \
                                            unsigned char* __restrict__ scratch) {                                   \
        seg::segments_long<Rc_##OP##_##SUFFIX, seg::Constants::BLOCK_THREADS, seg::Constants::LONG_VECS_PER_THREAD>( \
            in, out, scratch);                                                                                       \
    }                                                                                                                \
    extern "C" __global__ void PRIMER_SEGRED_BOUNDS                                                                  \
    segreduce_segments_combine_##OP##_##SUFFIX(const long long* __restrict__ offsets, long long nseg,                \
                                               OUT* __restrict__ out, unsigned char* __restrict__ scratch) {         \
        seg::segments_combine<Rc_##OP##_##SUFFIX, seg::Constants::BLOCK_THREADS>(seg::OffsetStarts{offsets}, nseg,   \
                                                                                  out, scratch);                     \
    }

/**
 * The merge-path tile kernel's blocks per SM (its launch bounds' minimum). Values of up to 4 bytes:
 * six, all that the shared memory of a 4-byte tile allows (32-40 registers on sm_80, sm_89 and
 * sm_90, unspilled; left to the compiler, min, max and the bitwise recipes took 48-56 and five), but
 * five for int8 argmin and argmax (47-48 registers on the marked tile since step 90; on the merge walk
 * they had spilled 10 bytes at six on sm_80 and sm_89). 8-byte ones are left to the compiler (0: no
 * minimum; argmin and argmax take 39 registers on sm_90, 52-54 on sm_80 and sm_89).
 */
template <class Rc>
constexpr int merge_path_min_blocks() {
    if (sizeof(typename Rc::T) > 4) return 0;
    return sizeof(typename Rc::T) == 1 && seg::CarriesIndex<typename Rc::A>::value ? 5 : 6;
}

/**
 * The merge-path tile and fixup kernels of a recipe PRIMER_SEGRED_ALL has declared (the tile kernel
 * at merge_path_min_blocks), and its one launch at three blocks per SM or more.
 */
#define PRIMER_SEGRED_MERGE_PATH(OP, SUFFIX, T, OUT)                                                                 \
    extern "C" __global__ void __launch_bounds__(seg::Constants::BLOCK_THREADS,                                      \
                                                 merge_path_min_blocks<Rc_##OP##_##SUFFIX>())                       \
    segreduce_merge_path_##OP##_##SUFFIX(const T* __restrict__ in, const long long* __restrict__ offsets,            \
                                         long long nseg, long long in_length, long long tiles,                       \
                                         OUT* __restrict__ out, unsigned char* __restrict__ scratch) {               \
        seg::merge_path_tile<Rc_##OP##_##SUFFIX, seg::Constants::BLOCK_THREADS, seg::merge_path_items<T>()>(        \
            in, offsets, nseg, in_length, tiles, blockIdx.x, out, scratch);                                          \
    }                                                                                                                \
    extern "C" __global__ void __launch_bounds__(seg::Constants::BLOCK_THREADS)                                      \
    segreduce_merge_path_fixup_##OP##_##SUFFIX(const long long* __restrict__ offsets, long long nseg,                \
                                               long long in_length, long long tile_items, long long tiles,           \
                                               OUT* __restrict__ out, unsigned char* __restrict__ scratch) {         \
        seg::merge_path_fixup<Rc_##OP##_##SUFFIX, seg::Constants::BLOCK_THREADS>(                                   \
            offsets, nseg, in_length, tile_items, tiles, (long long)blockIdx.x * (seg::Constants::BLOCK_THREADS / 32),  \
            out, scratch);                                                                                           \
    }                                                                                                                \
    extern "C" __global__ void __launch_bounds__(seg::Constants::BLOCK_THREADS, 3)                                   \
    segreduce_one_launch_##OP##_##SUFFIX(const T* __restrict__ in, const long long* __restrict__ offsets,            \
                                         long long nseg, long long in_length, int items,                             \
                                         OUT* __restrict__ out, unsigned char* __restrict__ scratch,                 \
                                         unsigned long long* verdict) {                                              \
        seg::merge_path_one_launch<Rc_##OP##_##SUFFIX, seg::Constants::BLOCK_THREADS, seg::merge_path_items<T>()>(  \
            in, offsets, nseg, in_length, items, out, scratch, verdict);                                             \
    }

/** segments_short of a recipe PRIMER_SEGRED_ALL has declared: every routed recipe (GpuSegmentedReduce.routed). */
#define PRIMER_SEGRED_SHORT(OP, SUFFIX, T, OUT)                                                                      \
    extern "C" __global__ void __launch_bounds__(seg::Constants::BLOCK_THREADS, seg::segments_short_blocks(sizeof(T))) \
    segreduce_segments_short_##OP##_##SUFFIX(const T* __restrict__ in, const long long* __restrict__ offsets,        \
                                             long long nseg, long long in_length, OUT* __restrict__ out,             \
                                             unsigned char* __restrict__ scratch) {                                  \
        seg::segments_short<Rc_##OP##_##SUFFIX, seg::Constants::BLOCK_THREADS>(in, offsets, nseg, in_length, out,    \
                                                                                scratch);                            \
    }

/** A routed recipe's kernels beside the classic ones: its merge path and segments_short. */
#define PRIMER_SEGRED_ROUTED(OP, SUFFIX, T, OUT) \
    PRIMER_SEGRED_MERGE_PATH(OP, SUFFIX, T, OUT) \
    PRIMER_SEGRED_SHORT(OP, SUFFIX, T, OUT)

/**
 * The check and, with tile_items > 0, the merge path's partition beside it: the first
 * merge_path_searchers blocks find the splits of `tiles` tiles of tile_items steps (a thread per
 * boundary, a binary search each: some two dozen dependent loads), the others check, so the check's
 * pass over the offsets hides the searches' latency. 2^26 float32 values in 12.8M power-law segments
 * (ncu, H200): the check took 33-35 us and the partition after it 16 us; together 33.5-33.9 us.
 * Tried first and not kept: the check writing the splits as it reads each pair (splits[t] = k for
 * the boundaries in [key(k - 1), key(k))), which needs no search but took the check to 82-88 us
 * (56-60 M warp instructions: a division per pair, or per warp) and 58 registers
 * (bench/results/2026-11-24-nvidia-h200-step62-ab.md).
 */
extern "C" __global__ void __launch_bounds__(seg::Constants::BLOCK_THREADS)
segreduce_check_offsets(const long long* __restrict__ offsets, long long nseg, long long in_length,
                        unsigned char* __restrict__ scratch, unsigned long long* verdict, long long tile_items,
                        long long tiles, double merge_path_idle_per_value) {
    const long long searchers = seg::merge_path_searchers(tile_items, tiles);
    if (blockIdx.x < searchers) {  // first, so that the searches start at once
        const long long t = (long long)blockIdx.x * seg::Constants::BLOCK_THREADS + threadIdx.x;
        if (t <= tiles) seg::merge_path_partition(offsets, nseg, in_length, tile_items, t, scratch);
        return;
    }
    seg::check_offsets(offsets, nseg, in_length, scratch, verdict, merge_path_idle_per_value, blockIdx.x - searchers,
                       gridDim.x - searchers);
}

// *_WARP: rows_warp's blocks per SM for min/max and for argmin/argmax (WARP_BLOCKS above); ARG_HALF:
// rows_half_warp's for argmin/argmax (HALF_BLOCKS).
#define PRIMER_SEGRED_INTEGER_COMMON(SUFFIX, T, MINMAX_WARP, ARG_WARP, ARG_HALF)                             \
    PRIMER_SEGRED_ALL(prod, SUFFIX, T, Wide, long long, primer::Prod<Wide>, 4, 6, 5)                         \
    PRIMER_SEGRED_ALL(min, SUFFIX, T, T, T, primer::Min<T>, 4, MINMAX_WARP, 5)                               \
    PRIMER_SEGRED_ALL(max, SUFFIX, T, T, T, primer::Max<T>, 4, MINMAX_WARP, 5)                               \
    PRIMER_SEGRED_ALL(and, SUFFIX, T, T, T, primer::BitAnd<T>, 4, 6, 5)                                      \
    PRIMER_SEGRED_ALL(or, SUFFIX, T, T, T, primer::BitOr<T>, 4, 6, 5)                                        \
    PRIMER_SEGRED_ALL(xor, SUFFIX, T, T, T, primer::BitXor<T>, 4, 6, 5)                                      \
    PRIMER_SEGRED_ALL(argmin, SUFFIX, T, KeyIndex<T>, long long, primer::ArgMin<T>, 3, ARG_WARP, ARG_HALF)   \
    PRIMER_SEGRED_ALL(argmax, SUFFIX, T, KeyIndex<T>, long long, primer::ArgMax<T>, 3, ARG_WARP, ARG_HALF)

#define PRIMER_SEGRED_FLOATING(SUFFIX, T, MINMAX_BLOCKS, ARG_BLOCKS, MINMAX_WARP, ARG_WARP)                  \
    PRIMER_SEGRED_ALL(sum, SUFFIX, T, double, T, primer::Sum<double>, 4, 6, 5)                               \
    PRIMER_SEGRED_ALL(prod, SUFFIX, T, double, T, primer::Prod<double>, 4, 6, 5)                             \
    PRIMER_SEGRED_ALL(min, SUFFIX, T, T, T, primer::Min<T>, MINMAX_BLOCKS, MINMAX_WARP, 5)                   \
    PRIMER_SEGRED_ALL(max, SUFFIX, T, T, T, primer::Max<T>, MINMAX_BLOCKS, MINMAX_WARP, 5)                   \
    PRIMER_SEGRED_ALL(argmin, SUFFIX, T, KeyIndex<T>, long long, primer::ArgMin<T>, ARG_BLOCKS, ARG_WARP, ARG_WARP)  \
    PRIMER_SEGRED_ALL(argmax, SUFFIX, T, KeyIndex<T>, long long, primer::ArgMax<T>, ARG_BLOCKS, ARG_WARP, ARG_WARP)

/** The routed kernels of PRIMER_SEGRED_INTEGER_COMMON's recipes. */
#define PRIMER_SEGRED_INTEGER_ROUTED(SUFFIX, T)                 \
    PRIMER_SEGRED_ROUTED(prod, SUFFIX, T, long long)            \
    PRIMER_SEGRED_ROUTED(min, SUFFIX, T, T)                     \
    PRIMER_SEGRED_ROUTED(max, SUFFIX, T, T)                     \
    PRIMER_SEGRED_ROUTED(and, SUFFIX, T, T)                     \
    PRIMER_SEGRED_ROUTED(or, SUFFIX, T, T)                      \
    PRIMER_SEGRED_ROUTED(xor, SUFFIX, T, T)                     \
    PRIMER_SEGRED_ROUTED(argmin, SUFFIX, T, long long)          \
    PRIMER_SEGRED_ROUTED(argmax, SUFFIX, T, long long)

/** The routed kernels of PRIMER_SEGRED_FLOATING's recipes. */
#define PRIMER_SEGRED_FLOATING_ROUTED(SUFFIX, T)                \
    PRIMER_SEGRED_ROUTED(sum, SUFFIX, T, T)                     \
    PRIMER_SEGRED_ROUTED(prod, SUFFIX, T, T)                    \
    PRIMER_SEGRED_ROUTED(min, SUFFIX, T, T)                     \
    PRIMER_SEGRED_ROUTED(max, SUFFIX, T, T)                     \
    PRIMER_SEGRED_ROUTED(argmin, SUFFIX, T, long long)          \
    PRIMER_SEGRED_ROUTED(argmax, SUFFIX, T, long long)

// Merge paths for every recipe but int32 sum_exact (whose classic kernels won but on the power laws,
// bench/results/2026-11-22-nvidia-h200-lab.md), and segments_short for those the check routes (all
// of them but int64 SUM).
PRIMER_SEGRED_ALL(sum, i8, int8_t, Wide, long long, primer::Sum<Wide>, 4, 6, 5)
PRIMER_SEGRED_ROUTED(sum, i8, int8_t, long long)
PRIMER_SEGRED_INTEGER_COMMON(i8, int8_t, 5, 5, 5)
PRIMER_SEGRED_INTEGER_ROUTED(i8, int8_t)
PRIMER_SEGRED_ALL(sum, i32, int32_t, Wide, long long, primer::Sum<Wide>, 4, 6, 5)
PRIMER_SEGRED_ROUTED(sum, i32, int32_t, long long)
PRIMER_SEGRED_ALL(sum_exact, i32, int32_t, __int128, long long, primer::Sum<__int128>, 2, 6, 5)
PRIMER_SEGRED_INTEGER_COMMON(i32, int32_t, 6, 5, 4)
PRIMER_SEGRED_INTEGER_ROUTED(i32, int32_t)
PRIMER_SEGRED_ALL(sum, i64, long long, __int128, long long, primer::Sum<__int128>, 2, 5, 5)
PRIMER_SEGRED_MERGE_PATH(sum, i64, long long, long long)  // not routed: no segments_short
PRIMER_SEGRED_INTEGER_COMMON(i64, long long, 6, 4, 4)
PRIMER_SEGRED_INTEGER_ROUTED(i64, long long)
PRIMER_SEGRED_FLOATING(f32, float, 4, 3, 6, 5)
PRIMER_SEGRED_FLOATING_ROUTED(f32, float)
PRIMER_SEGRED_FLOATING(f64, double, 3, 2, 5, 4)
PRIMER_SEGRED_FLOATING_ROUTED(f64, double)
