// Module "reduce_ladder": every rung of the reduction ladder (Harris, "Optimizing Parallel Reduction
// in CUDA"), plus the warp-shuffle variants, the three ways to finish across blocks, and the batched
// (one value per row) kernels. Each step's kernel body lives in its own header, so the CLI
// (ReduceLadderRunner.source) can print exactly that step; this unit only instantiates them as
// extern "C" entry points.
//
// Entry points (T = int for _i32, float for _f32; the sum accumulates in T):
//   reduce_k1_<t> .. reduce_k5_<t>      (const T* in, T* out, long long n)   one partial per block
//   reduce_k6_<t>_b<B>, reduce_k7_<t>_b<B>  the same, B = 1, 2, 4, ..., 1024; launch with blockDim == B
//   reduce_shfl_down_<t>, reduce_shfl_xor_<t>, reduce_warp_partials_<t>   one partial per block
//   reduce_atomic_finish_<t>(const T* in, T* result, long long n)         *result += the block's sum
//   reduce_lock_finish_<t>(const T* in, T* result, long long n, int* lock)
//   reduce_batched_v1_<t>, reduce_batched_v2_<t>(const T* in, T* out, long long rows, long long cols)
// Dynamic shared memory: blockDim * sizeof(T) for all of them.
#include "reduce_ladder_common.cuh"
#include "reduce_k1_interleaved_divergent.cuh"
#include "reduce_k2_interleaved_strided.cuh"
#include "reduce_k3_sequential.cuh"
#include "reduce_k4_first_add_during_load.cuh"
#include "reduce_k5_unroll_last_warp.cuh"
#include "reduce_k6_complete_unroll.cuh"
#include "reduce_k7_multiple_elements.cuh"
#include "reduce_shfl_down.cuh"
#include "reduce_shfl_xor.cuh"
#include "reduce_warp_partials.cuh"
#include "reduce_atomic_finish.cuh"
#include "reduce_lock_finish.cuh"
#include "reduce_batched_v1.cuh"
#include "reduce_batched_v2.cuh"

// A kernel whose block size is chosen at launch (any power of two up to 1024).
#define PRIMER_LADDER_ENTRY(entry, body, T)                                                             \
    extern "C" __global__ void __launch_bounds__(1024) entry(const T* in, T* out, long long n) {        \
        primer::ladder::body<T>(in, out, n);                                                            \
    }

// K6 and K7 for one block size B: the launch must use exactly B threads.
#define PRIMER_LADDER_UNROLLED(T, t, B)                                                                 \
    extern "C" __global__ void __launch_bounds__(B) reduce_k6_##t##_b##B(const T* in, T* out,           \
                                                                          long long n) {                \
        primer::ladder::reduce_k6_complete_unroll<B, T>(in, out, n);                                    \
    }                                                                                                   \
    extern "C" __global__ void __launch_bounds__(B) reduce_k7_##t##_b##B(const T* in, T* out,           \
                                                                          long long n) {                \
        primer::ladder::reduce_k7_multiple_elements<B, T>(in, out, n);                                  \
    }

#define PRIMER_LADDER_BATCHED(entry, body, T)                                                           \
    extern "C" __global__ void __launch_bounds__(1024) entry(const T* in, T* out, long long rows,       \
                                                             long long cols) {                          \
        primer::ladder::body<T>(in, out, rows, cols);                                                   \
    }

#define PRIMER_LADDER_ALL(T, t)                                                                         \
    PRIMER_LADDER_ENTRY(reduce_k1_##t, reduce_k1_interleaved_divergent, T)                              \
    PRIMER_LADDER_ENTRY(reduce_k2_##t, reduce_k2_interleaved_strided, T)                                \
    PRIMER_LADDER_ENTRY(reduce_k3_##t, reduce_k3_sequential, T)                                         \
    PRIMER_LADDER_ENTRY(reduce_k4_##t, reduce_k4_first_add_during_load, T)                              \
    PRIMER_LADDER_ENTRY(reduce_k5_##t, reduce_k5_unroll_last_warp, T)                                   \
    PRIMER_LADDER_UNROLLED(T, t, 1)                                                                     \
    PRIMER_LADDER_UNROLLED(T, t, 2)                                                                     \
    PRIMER_LADDER_UNROLLED(T, t, 4)                                                                     \
    PRIMER_LADDER_UNROLLED(T, t, 8)                                                                     \
    PRIMER_LADDER_UNROLLED(T, t, 16)                                                                    \
    PRIMER_LADDER_UNROLLED(T, t, 32)                                                                    \
    PRIMER_LADDER_UNROLLED(T, t, 64)                                                                    \
    PRIMER_LADDER_UNROLLED(T, t, 128)                                                                   \
    PRIMER_LADDER_UNROLLED(T, t, 256)                                                                   \
    PRIMER_LADDER_UNROLLED(T, t, 512)                                                                   \
    PRIMER_LADDER_UNROLLED(T, t, 1024)                                                                  \
    PRIMER_LADDER_ENTRY(reduce_shfl_down_##t, reduce_shfl_down, T)                                      \
    PRIMER_LADDER_ENTRY(reduce_shfl_xor_##t, reduce_shfl_xor, T)                                        \
    PRIMER_LADDER_ENTRY(reduce_warp_partials_##t, reduce_warp_partials, T)                              \
    PRIMER_LADDER_ENTRY(reduce_atomic_finish_##t, reduce_atomic_finish, T)                              \
    extern "C" __global__ void __launch_bounds__(1024) reduce_lock_finish_##t(                          \
        const T* in, T* result, long long n, int* lock) {                                               \
        primer::ladder::reduce_lock_finish<T>(in, result, n, lock);                                     \
    }                                                                                                   \
    PRIMER_LADDER_BATCHED(reduce_batched_v1_##t, reduce_batched_v1, T)                                  \
    PRIMER_LADDER_BATCHED(reduce_batched_v2_##t, reduce_batched_v2, T)

PRIMER_LADDER_ALL(int, i32)
PRIMER_LADDER_ALL(float, f32)
