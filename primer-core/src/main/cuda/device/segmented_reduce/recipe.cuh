// What an entry point reduces (Recipe: input, accumulator, output, operator) and the conversion at
// its end, finish (accumulator -> output element through Finish, raising the overflow flag for
// 128-bit sums that do not fit a long; NaN canonical for built-in operators); the one at its start,
// Lift, is every reduce's (ops.cuh).
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

/** Whether Op is one of Primer's operators (a user-defined one's results leave as it made them). */
template <typename Op> struct BuiltIn { static constexpr bool value = false; };
template <typename T> struct BuiltIn<Sum<T>> { static constexpr bool value = true; };
template <typename T> struct BuiltIn<Prod<T>> { static constexpr bool value = true; };
template <typename T> struct BuiltIn<Min<T>> { static constexpr bool value = true; };
template <typename T> struct BuiltIn<Max<T>> { static constexpr bool value = true; };

/** Float NaNs as Java's Float.NaN / Double.NaN bits; every other value as it is. */
template <typename T> __device__ __forceinline__ T canonical_nan(T x) { return x; }
template <> __device__ __forceinline__ float canonical_nan<float>(float x) { return x != x ? __int_as_float(0x7fc00000) : x; }
template <> __device__ __forceinline__ double canonical_nan<double>(double x) {
    return x != x ? __longlong_as_double(0x7ff8000000000000LL) : x;
}

/**
 * Result `which` of recipe Rc as stored. A NaN result of a built-in operator leaves as the
 * canonical NaN, as the CPU backend's does (and the device reduce's): Min and Max would otherwise
 * keep an input NaN's payload and sign, and sums and products give the GPU's own NaN (0x7fffffff).
 */
template <class Rc>
__device__ __forceinline__ typename Rc::Out finish(typename Rc::A a, long long which, unsigned long long* flag) {
    const typename Rc::Out out = Finish<typename Rc::A, typename Rc::Out>::apply(a, which, flag);
    if constexpr (BuiltIn<typename Rc::Op>::value) return canonical_nan(out);
    else return out;
}

}  // namespace segmented
}  // namespace primer
