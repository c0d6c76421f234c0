// Binary operators shared by every collective (warp -> block -> device) and the ladder.
//
// Each operator is a stateless functor with
//   static __device__ T identity();          // x op identity == x
//   __device__ T operator()(T a, T b) const;  // associative (and commutative, for these)
// The semantics follow Java so that GPU and CPU backends agree:
//   Min/Max follow Math.min/Math.max: NaN wins, and -0.0 < 0.0.
//   ArgMin/ArgMax keep the first index of the extreme (NaN counts as the extreme, as in NumPy).
#pragma once
#if defined(__CUDACC_RTC__)
// NVRTC (user-defined operators) has no standard headers: the few fixed-width names we use.
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef int int32_t;
typedef unsigned int uint32_t;
typedef long long int64_t;
typedef unsigned long long uint64_t;
#define INT32_MIN (-2147483647 - 1)
#define INT32_MAX 2147483647
#else
#include <cstdint>
#endif

namespace primer {

template <typename T> struct Limits;
template <> struct Limits<int8_t>  { static __device__ __forceinline__ int8_t lowest() { return -128; } static __device__ __forceinline__ int8_t highest() { return 127; } };
template <> struct Limits<int32_t> { static __device__ __forceinline__ int32_t lowest() { return INT32_MIN; } static __device__ __forceinline__ int32_t highest() { return INT32_MAX; } };
template <> struct Limits<long long> { static __device__ __forceinline__ long long lowest() { return (long long)0x8000000000000000ULL; } static __device__ __forceinline__ long long highest() { return 0x7fffffffffffffffLL; } };
template <> struct Limits<float>   { static __device__ __forceinline__ float lowest() { return -__int_as_float(0x7f800000); } static __device__ __forceinline__ float highest() { return __int_as_float(0x7f800000); } };
template <> struct Limits<double>  { static __device__ __forceinline__ double lowest() { return -__longlong_as_double(0x7ff0000000000000LL); } static __device__ __forceinline__ double highest() { return __longlong_as_double(0x7ff0000000000000LL); } };

template <typename T> __device__ __forceinline__ bool is_nan(T) { return false; }
template <> __device__ __forceinline__ bool is_nan<float>(float x) { return x != x; }
template <> __device__ __forceinline__ bool is_nan<double>(double x) { return x != x; }

template <typename T> __device__ __forceinline__ bool is_negative_zero(T) { return false; }
template <> __device__ __forceinline__ bool is_negative_zero<float>(float x) { return __float_as_int(x) == (int)0x80000000; }
template <> __device__ __forceinline__ bool is_negative_zero<double>(double x) { return __double_as_longlong(x) == (long long)0x8000000000000000ULL; }

/** Java's total "less than" for min/max: NaN is below nothing and above nothing; -0.0 < 0.0. */
template <typename T> __device__ __forceinline__ bool java_less(T a, T b) {
    return a < b || (a == b && is_negative_zero(a) && !is_negative_zero(b));
}

/**
 * The type integer sums and products are computed in: unsigned, so that they wrap as Java's do
 * (signed overflow is undefined in C++, and the compiler may assume it away); floats as they are.
 */
template <typename T> struct Wrapping { using type = T; };
template <> struct Wrapping<int32_t> { using type = uint32_t; };
template <> struct Wrapping<long long> { using type = unsigned long long; };

template <typename T> struct Sum {
    static __device__ __forceinline__ T identity() { return T(0); }
    __device__ __forceinline__ T operator()(T a, T b) const {
        using W = typename Wrapping<T>::type;
        return T(W(a) + W(b));
    }
};
template <typename T> struct Prod {
    static __device__ __forceinline__ T identity() { return T(1); }
    __device__ __forceinline__ T operator()(T a, T b) const {
        using W = typename Wrapping<T>::type;
        return T(W(a) * W(b));
    }
};
/**
 * The larger (smaller) of two values that are not NaN, as Java orders them (-0.0 < 0.0). For floats
 * this is PTX's max (min) instruction, which orders zeros so (PTX ISA, "Floating Point
 * Instructions: max"); when one operand is NaN it returns the other, so Min and Max test for NaN
 * first. Written as selects around one instruction, not as java_less under NaN tests, which nvcc
 * compiled to three branches per combination: scans whose every step waits on the last one (a
 * running maximum) paid for them. (Segmented float scans and float64 ones now scan integer keys
 * instead: device/scan/float_keys.cuh.)
 */
template <typename T> __device__ __forceinline__ T larger(T a, T b) { return a < b ? b : a; }
template <typename T> __device__ __forceinline__ T smaller(T a, T b) { return b < a ? b : a; }
template <> __device__ __forceinline__ float larger<float>(float a, float b) {
    float r;
    asm("max.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    return r;
}
template <> __device__ __forceinline__ float smaller<float>(float a, float b) {
    float r;
    asm("min.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    return r;
}
template <> __device__ __forceinline__ double larger<double>(double a, double b) {
    double r;
    asm("max.f64 %0, %1, %2;" : "=d"(r) : "d"(a), "d"(b));
    return r;
}
template <> __device__ __forceinline__ double smaller<double>(double a, double b) {
    double r;
    asm("min.f64 %0, %1, %2;" : "=d"(r) : "d"(a), "d"(b));
    return r;
}

/** Math.min: a NaN wins (the left one, bits unchanged, when both are), else the smaller; -0.0 < 0.0. */
template <typename T> struct Min {
    static __device__ __forceinline__ T identity() { return Limits<T>::highest(); }
    __device__ __forceinline__ T operator()(T a, T b) const { return is_nan(a) ? a : is_nan(b) ? b : smaller(a, b); }
};
/** Math.max: a NaN wins (the left one, bits unchanged, when both are), else the larger; -0.0 < 0.0. */
template <typename T> struct Max {
    static __device__ __forceinline__ T identity() { return Limits<T>::lowest(); }
    __device__ __forceinline__ T operator()(T a, T b) const { return is_nan(a) ? a : is_nan(b) ? b : larger(a, b); }
};
/** Min and Max for operands known not to be NaN: the bare instruction (plain float32 scans' NaN fast path). */
template <typename T> struct MinOfNumbers {
    static __device__ __forceinline__ T identity() { return Limits<T>::highest(); }
    __device__ __forceinline__ T operator()(T a, T b) const { return smaller(a, b); }
};
template <typename T> struct MaxOfNumbers {
    static __device__ __forceinline__ T identity() { return Limits<T>::lowest(); }
    __device__ __forceinline__ T operator()(T a, T b) const { return larger(a, b); }
};
template <typename T> struct BitAnd {
    static __device__ __forceinline__ T identity() { return T(~T(0)); }
    __device__ __forceinline__ T operator()(T a, T b) const { return a & b; }
};
template <typename T> struct BitOr {
    static __device__ __forceinline__ T identity() { return T(0); }
    __device__ __forceinline__ T operator()(T a, T b) const { return a | b; }
};
template <typename T> struct BitXor {
    static __device__ __forceinline__ T identity() { return T(0); }
    __device__ __forceinline__ T operator()(T a, T b) const { return a ^ b; }
};

/** A value with the index it came from: the element type of ArgMin/ArgMax. */
template <typename T> struct KeyIndex {
    T key;
    long long index;
};

/**
 * An input element as an accumulator: a conversion, or (key, index) for ArgMin/ArgMax (the index
 * within the input, row or segment, as the caller counts it). Every reduce folds through it.
 */
template <typename T, typename A>
struct Lift {
    static __device__ __forceinline__ A apply(T x, long long) { return (A)x; }
};
template <typename T>
struct Lift<T, KeyIndex<T>> {
    static __device__ __forceinline__ KeyIndex<T> apply(T x, long long index) { return {x, index}; }
};

/**
 * Index of the first extreme (MAX: the largest, else the smallest; NaN counts as the extreme, as
 * NumPy's); an empty input yields index -1.
 */
template <typename T, bool MAX> struct ArgExtreme {
    static __device__ __forceinline__ KeyIndex<T> identity() { return {MAX ? Limits<T>::lowest() : Limits<T>::highest(), -1}; }
    __device__ __forceinline__ KeyIndex<T> operator()(KeyIndex<T> a, KeyIndex<T> b) const {
        if (a.index < 0) return b;
        if (b.index < 0) return a;
        bool a_nan = is_nan(a.key), b_nan = is_nan(b.key);
        if (a_nan || b_nan) {
            if (a_nan && b_nan) return a.index <= b.index ? a : b;
            return a_nan ? a : b;
        }
        if (MAX ? java_less(a.key, b.key) : java_less(b.key, a.key)) return b;  // b is more extreme
        if (MAX ? java_less(b.key, a.key) : java_less(a.key, b.key)) return a;
        return a.index <= b.index ? a : b;
    }
};
template <typename T> struct ArgMin : ArgExtreme<T, false> {};
template <typename T> struct ArgMax : ArgExtreme<T, true> {};

/**
 * A value and whether a segment starts (a head) within the span it covers, and the operator that
 * restarts at a head: the left value is dropped when the right span holds a head. Segmented scans
 * and the merge-path segmented reduce combine these; the earlier operand stays on the left.
 */
template <typename T>
struct Segmented {
    T value;
    int head;
};

template <typename Op, typename T>
struct SegmentedOp {
    Op op;
    static __device__ __forceinline__ Segmented<T> identity() { return {Op::identity(), 0}; }
    __device__ __forceinline__ Segmented<T> operator()(Segmented<T> a, Segmented<T> b) const {
        return {b.head ? b.value : op(a.value, b.value), a.head | b.head};
    }
};

}  // namespace primer
