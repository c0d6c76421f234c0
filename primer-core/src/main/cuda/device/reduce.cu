// Device-wide reduce entry points, one per (operator, dtype): reduce_<op>_<suffix>.
//
// Every kernel has the parameters
//     (const T* in, long long n, R* result, unsigned char* scratch)
// and is launched with ReducePolicyConstants::BLOCK_THREADS (256) threads per block and any grid
// (GpuReduce / ReducePolicy choose it). scratch: see reduce_kernels.cuh; unused with one block.
//
// Accumulator A (what partials hold) and result R (what *result receives), matching the CPU backend:
//   integer SUM, PROD of int8/int32 and PROD of int64:  A = unsigned 64-bit (wraps like Java's long),
//                                                        R = long long
//   int64 SUM:                                           A = R = __int128 (exact; 16 bytes, low word first)
//   integer MIN, MAX, AND, OR, XOR:                      A = T, R = long long (widened)
//   float32/float64 SUM, PROD:                           A = R = double
//   float32/float64 MIN, MAX:                            A = T, R = double (widened, exact)
//   ARGMIN, ARGMAX:                                      A = R = KeyIndex<T> {T key; long long index}
//                                                        (16 bytes, index at byte 8; -1 when n == 0)
#include "reduce_kernels.cuh"

using primer::KeyIndex;
using Wide = unsigned long long;

#define PRIMER_REDUCE(NAME, T, A, R, OP)                                                                   \
    extern "C" __global__ void __launch_bounds__(primer::ReducePolicyConstants::BLOCK_THREADS)            \
    NAME(const T* __restrict__ in, long long n, R* __restrict__ result, unsigned char* __restrict__ scratch) { \
        primer::device_reduce<primer::ReducePolicyConstants::BLOCK_THREADS,                                \
                              primer::ReducePolicyConstants::VECS_PER_THREAD, T, A, R>(in, n, result,      \
                                                                                       scratch, OP());     \
    }

// The operators every integer type shares; SUM differs (int64 sums exactly in 128 bits).
#define PRIMER_REDUCE_INTEGER(SUFFIX, T)                                                    \
    PRIMER_REDUCE(reduce_prod_##SUFFIX, T, Wide, long long, primer::Prod<Wide>)             \
    PRIMER_REDUCE(reduce_min_##SUFFIX, T, T, long long, primer::Min<T>)                     \
    PRIMER_REDUCE(reduce_max_##SUFFIX, T, T, long long, primer::Max<T>)                     \
    PRIMER_REDUCE(reduce_and_##SUFFIX, T, T, long long, primer::BitAnd<T>)                  \
    PRIMER_REDUCE(reduce_or_##SUFFIX, T, T, long long, primer::BitOr<T>)                    \
    PRIMER_REDUCE(reduce_xor_##SUFFIX, T, T, long long, primer::BitXor<T>)                  \
    PRIMER_REDUCE(reduce_argmin_##SUFFIX, T, KeyIndex<T>, KeyIndex<T>, primer::ArgMin<T>)   \
    PRIMER_REDUCE(reduce_argmax_##SUFFIX, T, KeyIndex<T>, KeyIndex<T>, primer::ArgMax<T>)

#define PRIMER_REDUCE_FLOATING(SUFFIX, T)                                                   \
    PRIMER_REDUCE(reduce_sum_##SUFFIX, T, double, double, primer::Sum<double>)              \
    PRIMER_REDUCE(reduce_prod_##SUFFIX, T, double, double, primer::Prod<double>)            \
    PRIMER_REDUCE(reduce_min_##SUFFIX, T, T, double, primer::Min<T>)                        \
    PRIMER_REDUCE(reduce_max_##SUFFIX, T, T, double, primer::Max<T>)                        \
    PRIMER_REDUCE(reduce_argmin_##SUFFIX, T, KeyIndex<T>, KeyIndex<T>, primer::ArgMin<T>)   \
    PRIMER_REDUCE(reduce_argmax_##SUFFIX, T, KeyIndex<T>, KeyIndex<T>, primer::ArgMax<T>)

PRIMER_REDUCE(reduce_sum_i8, int8_t, Wide, long long, primer::Sum<Wide>)
PRIMER_REDUCE_INTEGER(i8, int8_t)
PRIMER_REDUCE(reduce_sum_i32, int32_t, Wide, long long, primer::Sum<Wide>)
PRIMER_REDUCE_INTEGER(i32, int32_t)
PRIMER_REDUCE(reduce_sum_i64, long long, __int128, __int128, primer::Sum<__int128>)
PRIMER_REDUCE_INTEGER(i64, long long)
PRIMER_REDUCE_FLOATING(f32, float)
PRIMER_REDUCE_FLOATING(f64, double)
