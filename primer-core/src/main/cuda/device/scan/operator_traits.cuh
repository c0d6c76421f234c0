// What the device scan needs to know about an operator: whether it is exact under any association,
// commutative, one instruction, or cheaper without NaN operands; and, from that, how a tile is
// scanned (TileScan: the THREE WAYS of ../scan_kernels.cuh).
#pragma once
#include "../../ops.cuh"

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
 * for exactly associative operators (any association gives the same bits); worth it only where one
 * operation is expensive: Java-semantics min/max (NaN tests around the max), and segmented integer
 * sums and products (2^27 int64 sums in one segment, draft builds: 0.777 ms folded on bare values,
 * 0.723 as a tree, 0.729 in the final build; int32 and with heads no difference;
 * bench/lab/scan_heads_lab.cu). Plain integer sums, products and bitwise operators are exact too,
 * but fold as fast in order and with fewer registers.
 */
template <typename Op> struct TreeLookback { static constexpr bool value = false; };
template <typename T> struct TreeLookback<Min<T>> { static constexpr bool value = true; };  // a selection: exact
template <typename T> struct TreeLookback<Max<T>> { static constexpr bool value = true; };
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
 * An operator's form for operands that are not NaN, where it is cheaper (device_scan's NAN FAST
 * PATH): Java's float min and max as the bare PTX instruction. Elsewhere the operator itself. The
 * fast path also relies on what makes these cheaper: a NaN on the left is their result.
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
template <> struct NaNFreeForm<Min<double>> : CheaperWithoutNaN<MinOfNumbers<double>> {};
template <> struct NaNFreeForm<Max<double>> : CheaperWithoutNaN<MaxOfNumbers<double>> {};
/** A segmented operator's: the pair's select around its operator's NaN-free form. */
template <typename Op, typename T> struct NaNFreeForm<SegmentedOp<Op, T>> {
    using type = SegmentedOp<typename NaNFreeForm<Op>::type, T>;
    static constexpr bool CHEAPER = NaNFreeForm<Op>::CHEAPER;
};

/**
 * How a tile is scanned (THREE WAYS in ../scan_kernels.cuh): EARLY_AGGREGATE for 4-byte values of 4-byte input under
 * one-instruction operators; BLOCK_SCAN for int8 data (VEC = 16 items a chunk, values in int) under
 * operators that are not commutative (the segmented ones): REDUCE_FIRST would fold each 16-item
 * chunk three times, and those folds are what a segmented int8 scan's time goes to; REDUCE_FIRST
 * for everything else, other int8 scans included: EARLY_AGGREGATE holds the chunk totals and
 * prefixes through the block scan, and with 16-item chunks that spilled at 6 blocks per SM (20-44
 * bytes, sm_90), where REDUCE_FIRST needs at most 40 registers.
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
