// Integer min and max for the segmented scans: 32-bit operands through PTX's min/max instruction as
// inline asm, which nvcc cannot see into.
//
// Written as a select (a < b ? b : a, ops.cuh's larger), nvcc merged the max with the segmented
// scan's own selects (a head's restart, the pair operator) into compares, predicate logic and
// selects at every step: the PTX of a segmented int32 max scan held 64 max.s32 among 366 and.pred
// and 508 selp. asm keeps it one instruction. 2^28 (int64: 2^27) by flags, a head in about 1024, ms
// (bench/lab/minmax_lab.cu): segmented int32 max 0.797 -> 0.767, and 0.714 with the chunk scan
// restarting by selection (as every segmented scan does since BLOCKED, ../scan_kernels.cuh); int8
// 0.515 -> 0.382 (values in int; 0.343 since folded chunks restart by selection, by flags, where the
// select measured the same).
// 64-bit operands keep the select: as asm they measured slower (int64 max 0.742 -> 0.766
// ms, float64 keys 0.877 -> 0.942).
#pragma once
#include "../../ops.cuh"

namespace primer {

/** The larger (MAX) or smaller of a and b. */
template <bool MAX> __device__ __forceinline__ unsigned integer_extreme(unsigned a, unsigned b) {
    unsigned r;
    if (MAX) asm("max.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    else asm("min.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
template <bool MAX> __device__ __forceinline__ int integer_extreme(int a, int b) {
    int r;
    if (MAX) asm("max.s32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    else asm("min.s32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
template <bool MAX> __device__ __forceinline__ unsigned long long integer_extreme(unsigned long long a, unsigned long long b) {
    return MAX ? larger(a, b) : smaller(a, b);
}
template <bool MAX> __device__ __forceinline__ long long integer_extreme(long long a, long long b) {
    return MAX ? larger(a, b) : smaller(a, b);
}

/** Integer max (MAX) or min through integer_extreme: the results of ops.cuh's Max and Min on integers. */
template <typename T, bool MAX> struct IntegerExtreme {
    static __device__ __forceinline__ T identity() { return MAX ? Limits<T>::lowest() : Limits<T>::highest(); }
    __device__ __forceinline__ T operator()(T a, T b) const { return integer_extreme<MAX>(a, b); }
};
template <typename T> using IntegerMax = IntegerExtreme<T, true>;
template <typename T> using IntegerMin = IntegerExtreme<T, false>;

}  // namespace primer
