// Java's float min and max, scanned as unsigned integer min and max over keys (FLOAT KEYS in
// ../scan_kernels.cuh).
//
// A float's bits b, with the magnitude bits flipped when the sign is set, s = b ^ (sign ? 0x7fffffff
// : 0), order as signed integers the way Java orders the numbers (-0.0 < 0.0), and are their own
// inverse. The numbers fill the window s in [-K, K - 1], K = the bits of the smallest positive NaN
// (0x7f800001; float64 0x7ff0000000000001), from -inf to +inf; every NaN lies outside it. So, as
// unsigned integers, s + K puts the numbers at [0, 2K - 1] and every NaN, of either sign, above
// +inf: the order of Math.max, where a NaN wins. s - K puts them at the top and every NaN below
// -inf: Math.min's. Both maps are bijections, so a key's way back gives a NaN's own bits (sign and
// payload): the scan returns one of the NaNs it met, as docs/semantics.md allows, and any other
// result is exactly Math.max's or Math.min's. The identities are the keys of -inf (MAX: 0) and
// +inf (MIN: all ones). (Min as the unsigned max of reversed keys, (K - 1) - s, with the identity 0,
// measured 1.6% slower for segmented float64 min and 5% slower than max for float32; lab.)
#pragma once
#include "../../ops.cuh"
#include "integer_extremes.cuh"

namespace primer {

template <typename F> struct FloatKeyBits;
template <> struct FloatKeyBits<float> {
    using Key = uint32_t;
    using Signed = int32_t;
    static constexpr Key SMALLEST_NAN = 0x7f800001u;  // K
    static __device__ __forceinline__ Key bits(float x) { return __float_as_uint(x); }
    static __device__ __forceinline__ float value(Key k) { return __uint_as_float(k); }
};
template <> struct FloatKeyBits<double> {
    using Key = unsigned long long;
    using Signed = long long;
    static constexpr Key SMALLEST_NAN = 0x7ff0000000000001ull;
    static __device__ __forceinline__ Key bits(double x) { return (Key)__double_as_longlong(x); }
    static __device__ __forceinline__ double value(Key k) { return __longlong_as_double((long long)k); }
};

/** Math.max (MAX) or Math.min of floats F, as the unsigned max or min of their keys. */
template <typename F, bool MAX> struct FloatKeyExtreme {
    using Bits = FloatKeyBits<F>;
    using Key = typename Bits::Key;
    static constexpr int SIGN = 8 * (int)sizeof(Key) - 1;
    static constexpr Key MAGNITUDE = ~Key(0) >> 1;

    static __device__ __forceinline__ Key identity() { return MAX ? Key(0) : ~Key(0); }
    // 32-bit keys through asm max.u32 / min.u32, 64-bit ones as the select (integer_extremes.cuh).
    __device__ __forceinline__ Key operator()(Key a, Key b) const { return integer_extreme<MAX>(a, b); }

    /** Flips the magnitude of a value with the sign bit set (an arithmetic shift spreads the sign): its own inverse. */
    static __device__ __forceinline__ Key flip(Key b) {
        return b ^ ((Key)((typename Bits::Signed)b >> SIGN) & MAGNITUDE);
    }
    static __device__ __forceinline__ Key key(F x) {
        const Key s = flip(Bits::bits(x));
        return MAX ? s + Bits::SMALLEST_NAN : s - Bits::SMALLEST_NAN;
    }
    static __device__ __forceinline__ F value(Key k) {
        return Bits::value(flip(MAX ? k - Bits::SMALLEST_NAN : k + Bits::SMALLEST_NAN));
    }
};
template <typename F> using FloatKeyMax = FloatKeyExtreme<F, true>;
template <typename F> using FloatKeyMin = FloatKeyExtreme<F, false>;

}  // namespace primer
