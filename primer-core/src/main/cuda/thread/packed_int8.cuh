// int8 arithmetic four elements per instruction: a 16-byte vector load is four 32-bit words of
// four signed bytes each, and the SIMD-within-a-word intrinsics (dp4a, vmins4, vmaxs4, vcmpeq4)
// or plain bitwise operators fold a whole word at once. One element at a time, an int8 vector
// would unpack into sixteen registers (thirty-two for 64-bit accumulators) and the kernels that
// keep several vectors in flight would spill.
//
// The thread level, below warp/: a single thread's fold of its own data. Used by the device-wide
// reduce (its per-thread state) and the batched/segmented reduce (one result per vector).
#pragma once
#include "../ops.cuh"

namespace primer {

/** The exact sum of 16 int8 values: dp4a adds four signed bytes (times 1) at a time; |sum| <= 2048. */
__device__ __forceinline__ int int8x16_sum(const unsigned (&w)[4]) {
    int sum = 0;
#pragma unroll
    for (int k = 0; k < 4; ++k) sum = __dp4a((int)w[k], 0x01010101, sum);
    return sum;
}

/** The exact product of a word's four int8 values (|product| <= 2^28 fits an int). */
__device__ __forceinline__ int int8x4_product(unsigned word) {
    int p = (int)(int8_t)(word & 0xff);
#pragma unroll
    for (int lane = 1; lane < 4; ++lane) p *= (int)(int8_t)((word >> (8 * lane)) & 0xff);
    return p;
}

/** The product of 16 int8 values mod 2^64, as Java's long multiplication wraps. */
__device__ __forceinline__ unsigned long long int8x16_product(const unsigned (&w)[4]) {
    const long long low = (long long)int8x4_product(w[0]) * int8x4_product(w[1]);   // exact: <= 2^56
    const long long high = (long long)int8x4_product(w[2]) * int8x4_product(w[3]);
    return (unsigned long long)low * (unsigned long long)high;
}

/** An int8 operator applied lane by lane to four packed bytes, and the word of four identities. */
template <typename Op> struct PackedInt8;
template <> struct PackedInt8<Min<int8_t>> {
    static constexpr unsigned IDENTITY = 0x7f7f7f7fu;
    static __device__ __forceinline__ unsigned apply(unsigned a, unsigned b) { return __vmins4(a, b); }
};
template <> struct PackedInt8<Max<int8_t>> {
    static constexpr unsigned IDENTITY = 0x80808080u;
    static __device__ __forceinline__ unsigned apply(unsigned a, unsigned b) { return __vmaxs4(a, b); }
};
template <> struct PackedInt8<BitAnd<int8_t>> {
    static constexpr unsigned IDENTITY = 0xffffffffu;
    static __device__ __forceinline__ unsigned apply(unsigned a, unsigned b) { return a & b; }
};
template <> struct PackedInt8<BitOr<int8_t>> {
    static constexpr unsigned IDENTITY = 0u;
    static __device__ __forceinline__ unsigned apply(unsigned a, unsigned b) { return a | b; }
};
template <> struct PackedInt8<BitXor<int8_t>> {
    static constexpr unsigned IDENTITY = 0u;
    static __device__ __forceinline__ unsigned apply(unsigned a, unsigned b) { return a ^ b; }
};

/** Op over 16 int8 values, packed: three word operations leave four lanes. */
template <typename Op>
__device__ __forceinline__ unsigned int8x16_packed(const unsigned (&w)[4]) {
    using P = PackedInt8<Op>;
    return P::apply(P::apply(w[0], w[1]), P::apply(w[2], w[3]));
}

/** Op over the four lanes of a packed word. */
template <typename Op>
__device__ __forceinline__ int8_t int8x4_lanes(unsigned word, Op op) {
    int8_t r = (int8_t)(word & 0xff);
#pragma unroll
    for (int lane = 1; lane < 4; ++lane) r = op(r, (int8_t)((word >> (8 * lane)) & 0xff));
    return r;
}

/** The largest (MAX) or smallest of 16 int8 values. */
template <bool MAX>
__device__ __forceinline__ int8_t int8x16_extreme(const unsigned (&w)[4]) {
    if constexpr (MAX) return int8x4_lanes(int8x16_packed<Max<int8_t>>(w), Max<int8_t>());
    else return int8x4_lanes(int8x16_packed<Min<int8_t>>(w), Min<int8_t>());
}

/** The position (0..15) of the first byte equal to value; 16 when there is none. */
__device__ __forceinline__ int int8x16_first_equal(const unsigned (&w)[4], int8_t value) {
    const unsigned pattern = (unsigned)(uint8_t)value * 0x01010101u;
    int at = 16;
#pragma unroll
    for (int k = 3; k >= 0; --k) {
        const unsigned equal = __vcmpeq4(w[k], pattern);  // 0xff in every equal byte
        if (equal != 0) at = 4 * k + (__ffs(equal) - 1) / 8;
    }
    return at;
}

}  // namespace primer
