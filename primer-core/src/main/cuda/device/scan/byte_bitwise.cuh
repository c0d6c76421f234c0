// int8 AND, OR and XOR (BYTE BITWISE in ../scan_kernels.cuh: plain scans): a whole chunk four bytes
// a word. The operators work on each bit alone, so one 32-bit operation combines four bytes, and a
// sign-extended byte's combinations are the sign extensions of the bytes' combinations.
#pragma once
#include "../../ops.cuh"
#include "byte_sums.cuh"

namespace primer {

/** int8 scans under AND, OR or XOR. */
template <typename Op, typename InT> struct ByteBitwise { static constexpr bool value = false; };
template <> struct ByteBitwise<BitAnd<int>, signed char> { static constexpr bool value = true; };
template <> struct ByteBitwise<BitOr<int>, signed char> { static constexpr bool value = true; };
template <> struct ByteBitwise<BitXor<int>, signed char> { static constexpr bool value = true; };

namespace scan_detail {

/** Op on four bytes at once. */
template <typename Op>
__device__ __forceinline__ unsigned bytewise(unsigned a, unsigned b) { return (unsigned)Op()((int)a, (int)b); }

/** A whole chunk's 16 signed bytes combined: the words, then the halves, then the bytes of the low half. */
template <typename Op>
__device__ __forceinline__ int byte_bitwise_total(const uint4& w) {
    unsigned t = bytewise<Op>(bytewise<Op>(w.x, w.y), bytewise<Op>(w.z, w.w));
    t = bytewise<Op>(t, t >> 16);
    t = bytewise<Op>(t, t >> 8);
    return (int)(signed char)(t & 0xffu);
}

/**
 * A whole chunk's 16 outputs from `prefix` (its low byte counts): in each word, the word combined with
 * itself moved up a byte, then two bytes (the identity's byte moved in below), gives its bytes'
 * running values; the prefix, in all four bytes, completes them, and the word's last byte carries on.
 * Exclusive outputs are the inclusive ones moved up a byte, the carry in below. Six or seven
 * instructions a word against four an item folded.
 */
template <typename Op>
__device__ __forceinline__ uint4 byte_chunk_bitwise(const uint4& w, int prefix, int inclusive) {
    const unsigned FILL = ((unsigned)Op::identity() & 0xffu) * 0x01010101u;  // the identity in every byte
    unsigned words[4] = {w.x, w.y, w.z, w.w};
    unsigned carry = prmt((unsigned)prefix, 0u, 0x0000u);
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        unsigned x = bytewise<Op>(words[k], prmt(words[k], FILL, 0x2104u));  // byte b: bytes b-1 and b
        x = bytewise<Op>(x, prmt(x, FILL, 0x1054u));                         // bytes 0 to b
        x = bytewise<Op>(x, carry);
        words[k] = inclusive ? x : prmt(x, carry, 0x2104u);
        carry = prmt(x, 0u, 0x3333u);
    }
    return make_uint4(words[0], words[1], words[2], words[3]);
}

}  // namespace scan_detail
}  // namespace primer
