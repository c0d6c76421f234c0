// What the segmented scan labs share on the host side: the float64 forward fill as the NVRTC wrapper
// writes a user-defined operator (declared exact, so its look-back windows combine as a tree), the
// host's fold of an operator (wrapping integer sums; max without NaN), and a value's raw bits.
// Include after device/scan_kernels.cuh (for Sum, Max, TreeLookback).
#pragma once
#include <cmath>
#include <cstring>
#include <type_traits>

struct FFill {
    static __device__ __host__ double identity() { return (double)NAN; }
    __device__ __host__ double operator()(double a, double b) const { return (double)(b == b ? b : a); }
};
namespace primer { template <> struct TreeLookback<FFill> { static constexpr bool value = true; }; }  // exact()

/** The host's fold of a built-in operator (wrapping integers), or the functor itself. */
template <typename Op, typename V> struct Host {
    static V identity() { return Op::identity(); }
    static V apply(V a, V b) { return Op{}(a, b); }
};
template <typename V> struct Host<primer::Sum<V>, V> {
    static V identity() { return V(0); }
    static V apply(V a, V b) {
        if constexpr (std::is_integral<V>::value) return (V)((unsigned long long)a + (unsigned long long)b);
        else return a + b;
    }
};
template <typename V> struct Host<primer::Max<V>, V> {
    static V identity() { return -INFINITY; }
    static V apply(V a, V b) { return a > b ? a : b; }  // no NaN in the inputs
};

template <typename T> static long long bits_of(T v) {
    long long b = 0;
    std::memcpy(&b, &v, sizeof(T));
    return b;
}
