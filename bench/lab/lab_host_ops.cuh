// What the segmented scan labs share on the host side: the float64 forward fill as the NVRTC wrapper
// writes a user-defined operator (declared exact, so its look-back windows combine as a tree), the
// host's fold of an operator (wrapping integer sums; max without NaN), a value's raw bits, and the
// check of a scan's outputs against that fold.
// Include after device/scan_kernels.cuh (for Sum, Max, TreeLookback).
#pragma once
#include <climits>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

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
template <typename V> struct Host<primer::Prod<V>, V> {
    static V identity() { return V(1); }
    static V apply(V a, V b) {
        if constexpr (std::is_integral<V>::value) return (V)((unsigned long long)a * (unsigned long long)b);
        else return a * b;
    }
};
template <> struct Host<primer::Max<int>, int> {
    static int identity() { return INT_MIN; }
    static int apply(int a, int b) { return a > b ? a : b; }
};

template <typename T> static long long bits_of(T v) {
    long long b = 0;
    std::memcpy(&b, &v, sizeof(T));
    return b;
}

/** Operators whose outputs are checked within a bound (float sums: any association), not bitwise. */
template <typename Op> struct IsFloatSum {
    static constexpr bool value = std::is_same<Op, primer::Sum<float>>::value || std::is_same<Op, primer::Sum<double>>::value;
};

/**
 * How many of the n outputs in `got` differ from the scan of hin[offset ..] folded on the host from
 * `init` (in the operator's type V), restarting at every i > 0 with heads[offset + i] != 0 when
 * `heads` is given: bitwise, or for float sums within 1e-5 of a float64 prefix (relative to the
 * sum of magnitudes).
 */
template <typename Op, typename V, typename InT, typename OutT>
static long long wrong_outputs(const std::vector<OutT>& got, const std::vector<InT>& hin, const std::vector<signed char>* heads,
                               long long offset, long long n, OutT init, int inclusive) {
    long long bad = 0;
    V acc = (V)init;
    double exact = (double)init, magnitude = std::fabs((double)init);
    for (long long i = 0; i < n; ++i) {
        if (heads && i > 0 && (*heads)[offset + i]) {
            acc = (V)init;
            exact = (double)init;
            magnitude = std::fabs((double)init);
        }
        const V x = (V)hin[offset + i];
        const V before = acc;
        acc = Host<Op, V>::apply(acc, x);
        const OutT want = (OutT)(inclusive ? acc : before);
        if constexpr (IsFloatSum<Op>::value) {
            const double want_exact = inclusive ? exact + (double)x : exact;
            bad += !(std::fabs((double)got[i] - want_exact) <= 1e-5 * std::max(1.0, magnitude + std::fabs((double)x)));
            exact += (double)x;
            magnitude += std::fabs((double)x);
        } else {
            bad += bits_of(got[i]) != bits_of(want);
        }
    }
    return bad;
}
