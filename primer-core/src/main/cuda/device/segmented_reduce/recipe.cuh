// What an entry point reduces (Recipe: input, accumulator, output, operator) and the conversion at
// its end, Finish (accumulator -> output element, raising the overflow flag for 128-bit sums that
// do not fit a long); the one at its start, Lift, is every reduce's (ops.cuh).
#pragma once
#include "../../ops.cuh"

namespace primer {
namespace segmented {

/** What one entry point reduces: input T, accumulator A, output Out, operator Op on A. */
template <typename T_, typename A_, typename Out_, typename Op_>
struct Recipe {
    using T = T_;
    using A = A_;
    using Out = Out_;
    using Op = Op_;
};

/** Records that result `which` overflowed; the flag keeps the smallest such index. */
__device__ __forceinline__ void mark_overflow(unsigned long long* flag, long long which) {
    atomicMax(flag, (1ULL << 63) - (unsigned long long)which);
}

/** An accumulator as the output element: a conversion (double -> float rounds once), or the index. */
template <typename A, typename Out>
struct Finish {
    static __device__ __forceinline__ Out apply(A a, long long, unsigned long long*) { return (Out)a; }
};
template <typename T>
struct Finish<KeyIndex<T>, long long> {
    static __device__ __forceinline__ long long apply(KeyIndex<T> a, long long, unsigned long long*) { return a.index; }
};
#if !defined(__CUDACC_RTC__) || defined(__CUDACC_RTC_INT128__)  // NVRTC: only with --device-int128
/** 128-bit sums (int64 SUM, int32 sum_exact) are exact; a total outside the long range raises the overflow flag. */
template <>
struct Finish<__int128, long long> {
    static __device__ __forceinline__ long long apply(__int128 a, long long which, unsigned long long* flag) {
        const long long low = (long long)(unsigned long long)a;
        if ((__int128)low != a) mark_overflow(flag, which);
        return low;
    }
};
#endif

}  // namespace segmented
}  // namespace primer
