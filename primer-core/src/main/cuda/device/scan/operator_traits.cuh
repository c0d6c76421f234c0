// What the device scan needs to know about an operator: whether it is exact under any association,
// commutative, one instruction or cheaper without NaN operands; how data becomes its values and
// its values outputs (ScanValues); and, from that, how a tile is scanned (TileScan: the THREE WAYS
// of ../scan_kernels.cuh).
#pragma once
#include "../../ops.cuh"
#include "float_keys.cuh"
#include "integer_extremes.cuh"

namespace primer {

// Segmented<T> and SegmentedOp (a value with a head flag, and the operator that restarts at a
// head) are in ops.cuh: the merge-path segmented reduce scans them too.

/** Integer sums and products: they wrap, so any association gives the same bits. */
template <typename Op> struct WrapsExactly { static constexpr bool value = false; };
template <> struct WrapsExactly<Sum<int>> { static constexpr bool value = true; };
template <> struct WrapsExactly<Sum<long long>> { static constexpr bool value = true; };
template <> struct WrapsExactly<Prod<int>> { static constexpr bool value = true; };
template <> struct WrapsExactly<Prod<long long>> { static constexpr bool value = true; };

/**
 * Whether the look-back combines each window as a tree rather than folding in order. Allowed only
 * for exactly associative operators (any association gives the same bits); worth it where one
 * operation is expensive: min and max (chosen when Java's float forms tested NaN around the max;
 * every type's min and max, float keys included, keep it), and segmented integer sums and products
 * (2^27 int64 sums in one segment, draft builds: 0.777 ms folded on bare values, 0.723 as a tree,
 * 0.729 in the final build; int32 and with heads no difference; bench/lab/scan_heads_lab.cu).
 * Plain integer sums, products and bitwise operators are exact too, but fold as fast in order and
 * with fewer registers.
 */
template <typename Op> struct TreeLookback { static constexpr bool value = false; };
template <typename T> struct TreeLookback<Min<T>> { static constexpr bool value = true; };  // a selection: exact
template <typename T> struct TreeLookback<Max<T>> { static constexpr bool value = true; };
template <typename F, bool MAX> struct TreeLookback<FloatKeyExtreme<F, MAX>> { static constexpr bool value = true; };
template <typename T, bool MAX> struct TreeLookback<IntegerExtreme<T, MAX>> { static constexpr bool value = true; };
template <typename Op, typename T>
struct TreeLookback<SegmentedOp<Op, T>> {
    static constexpr bool value = TreeLookback<Op>::value || WrapsExactly<Op>::value;
};

/** Operators whose operands may be combined in any order (the built-in ones). */
template <typename Op> struct Commutative { static constexpr bool value = false; };
template <typename T> struct Commutative<Sum<T>> { static constexpr bool value = true; };
template <typename T> struct Commutative<Prod<T>> { static constexpr bool value = true; };
template <typename T> struct Commutative<Min<T>> { static constexpr bool value = true; };
template <typename T> struct Commutative<Max<T>> { static constexpr bool value = true; };
template <typename F, bool MAX> struct Commutative<FloatKeyExtreme<F, MAX>> { static constexpr bool value = true; };
template <typename T, bool MAX> struct Commutative<IntegerExtreme<T, MAX>> { static constexpr bool value = true; };
template <typename T> struct Commutative<BitAnd<T>> { static constexpr bool value = true; };
template <typename T> struct Commutative<BitOr<T>> { static constexpr bool value = true; };
template <typename T> struct Commutative<BitXor<T>> { static constexpr bool value = true; };

/** Commutative operators of one instruction, for EARLY_AGGREGATE (min and max take REDUCE_FIRST: THREE WAYS in ../scan_kernels.cuh). */
template <typename Op> struct OneInstruction { static constexpr bool value = false; };
template <typename T> struct OneInstruction<Sum<T>> { static constexpr bool value = true; };
template <typename T> struct OneInstruction<Prod<T>> { static constexpr bool value = true; };
template <typename T> struct OneInstruction<BitAnd<T>> { static constexpr bool value = true; };
template <typename T> struct OneInstruction<BitOr<T>> { static constexpr bool value = true; };
template <typename T> struct OneInstruction<BitXor<T>> { static constexpr bool value = true; };

/**
 * Operators of one PTX instruction that the GPU runs as several: int64 products (mul.lo.s64 is three
 * integer multiply-adds) and 64-bit max and min (a compare and two selects; Java's float64 min and
 * max as float keys). SCAN IN THE WAIT takes them too, their tiles read blocked (../scan_kernels.cuh).
 */
template <typename Op> struct SlowInstruction { static constexpr bool value = false; };
template <> struct SlowInstruction<Prod<long long>> { static constexpr bool value = true; };
template <> struct SlowInstruction<Min<long long>> { static constexpr bool value = true; };
template <> struct SlowInstruction<Max<long long>> { static constexpr bool value = true; };
template <bool MAX> struct SlowInstruction<FloatKeyExtreme<double, MAX>> { static constexpr bool value = true; };

/**
 * An operator's form for operands that are not NaN, where it is cheaper (device_scan's NAN FAST
 * PATH, plain scans): Java's float32 min and max as the bare PTX instruction. Elsewhere the
 * operator itself. The fast path also relies on what makes these cheaper: a NaN on the left is
 * their result. (Segmented float scans and float64 ones scan keys instead: float_keys.cuh.)
 */
template <typename Op> struct NaNFreeForm {
    using type = Op;
    static constexpr bool CHEAPER = false;
};
template <typename FastOp> struct CheaperWithoutNaN {
    using type = FastOp;
    static constexpr bool CHEAPER = true;
};
template <> struct NaNFreeForm<Min<float>> : CheaperWithoutNaN<MinOfNumbers<float>> {};
template <> struct NaNFreeForm<Max<float>> : CheaperWithoutNaN<MaxOfNumbers<float>> {};

/**
 * How the scan turns an input element into the operator's value type V, and V into an output:
 * casts (int8 widens to int as it is read and narrows as it is stored), except under float keys
 * (float_keys.cuh), whose values are the keys of Java's float order. (The casts take references:
 * by value, nvcc 13.0 compiled the segmented int8 scans to other PTX than the bare casts did.)
 */
template <typename Op> struct ScanValues {
    template <typename V, typename X> static __device__ __forceinline__ V lift(const X& x) { return (V)x; }
    template <typename Out, typename V> static __device__ __forceinline__ Out lower(const V& v) { return (Out)v; }
};
template <typename F, bool MAX> struct ScanValues<FloatKeyExtreme<F, MAX>> {
    using Keys = FloatKeyExtreme<F, MAX>;
    template <typename V> static __device__ __forceinline__ V lift(F x) { return Keys::key(x); }
    template <typename Out> static __device__ __forceinline__ Out lower(typename Keys::Key k) { return Keys::value(k); }
};

/**
 * How a tile is scanned (THREE WAYS in ../scan_kernels.cuh): EARLY_AGGREGATE for 4-byte values of 4-byte input under
 * one-instruction operators; BLOCK_SCAN for int8 data (VEC = 16 items a chunk, values in int) under
 * operators that are not commutative (the segmented and the user-defined ones): REDUCE_FIRST
 * would fold each 16-item chunk three times, and those folds are what a segmented int8 scan's time
 * goes to; REDUCE_FIRST for everything else, other int8 scans included: EARLY_AGGREGATE holds the
 * chunk totals and prefixes through the block scan, and with 16-item chunks that spilled at 6
 * blocks per SM (20-44 bytes, sm_90), where REDUCE_FIRST needs at most 40 registers. (device_scan
 * takes REDUCE_FIRST for segmented int8 sums, whose chunk totals are a few dp4a: SEGMENTED BYTE SUMS.)
 */
enum class TileScan { BLOCK_SCAN, EARLY_AGGREGATE, REDUCE_FIRST };
template <typename ScanOp, typename Value, int VEC>
struct TileScanFor {
    static constexpr TileScan value =
        sizeof(Value) == 4 && VEC <= 4 && OneInstruction<ScanOp>::value ? TileScan::EARLY_AGGREGATE
        : VEC > 4 && !Commutative<ScanOp>::value                        ? TileScan::BLOCK_SCAN
                                                                         : TileScan::REDUCE_FIRST;
};

}  // namespace primer
