// int8 min and max (BYTE EXTREMES in ../scan_kernels.cuh): a chunk's total two bytes an instruction.
//
// sm_90 has min and max on pairs of 16-bit lanes (PTX .s16x2, one VIMNMX); sm_80 and sm_89 have no
// such instruction and keep the fold of sixteen items. A chunk's 16 bytes become eight pairs of
// sign-extended lanes by prmt (a selector nibble 8 + b copies byte b's sign), seven pair extremes
// and one of the last pair's two lanes give its extreme. A segmented chunk's total runs from its last
// head on: the bytes before it are replaced by one that changes no extreme (-128 for max, 127 for min)
// before the pairs are made, so heads cost a mask, not a select per item.
#pragma once
#include "../../ops.cuh"
#include "integer_extremes.cuh"
#include "byte_sums.cuh"

namespace primer {

/** int8 scans under min or max whose chunk totals take pair extremes (sm_90); MAX: the operator is max. */
template <typename Op, typename InT> struct ByteExtremes { static constexpr bool value = false, MAX = false; };
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
template <> struct ByteExtremes<Max<int>, signed char> { static constexpr bool value = true, MAX = true; };
template <> struct ByteExtremes<Min<int>, signed char> { static constexpr bool value = true, MAX = false; };
template <> struct ByteExtremes<IntegerMax<int>, signed char> { static constexpr bool value = true, MAX = true; };
template <> struct ByteExtremes<IntegerMin<int>, signed char> { static constexpr bool value = true, MAX = false; };
#endif

namespace scan_detail {

/** Lane-wise max (MAX) or min of two pairs of signed 16-bit lanes (sm_90). */
template <bool MAX> __device__ __forceinline__ unsigned pair_extreme(unsigned a, unsigned b) {
    unsigned r;
    if (MAX) asm("max.s16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    else asm("min.s16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}

/** The largest (MAX) or smallest of a chunk's 16 signed bytes from byte `from` on (from in [0, 15]). */
template <bool MAX>
__device__ __forceinline__ int byte_extreme_from(const uint4& w, int from) {
    constexpr unsigned NEUTRAL = MAX ? 0x80808080u : 0x7f7f7f7fu;  // bytes that change no extreme
    const unsigned words[4] = {w.x, w.y, w.z, w.w};
    unsigned pairs[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        // Word k's bytes from `from` on: its bits from 8 * from - 32 * k on (a shift of 32 or more keeps none).
        const unsigned keep = __funnelshift_lc(0u, ~0u, (unsigned)max(8 * from - 32 * k, 0));
        const unsigned x = (words[k] & keep) | (NEUTRAL & ~keep);
        pairs[k] = pair_extreme<MAX>(prmt(x, 0u, 0xA280u), prmt(x, 0u, 0xB391u));  // bytes 0 and 2, 1 and 3
    }
    const unsigned last = pair_extreme<MAX>(pair_extreme<MAX>(pairs[0], pairs[1]), pair_extreme<MAX>(pairs[2], pairs[3]));
    return integer_extreme<MAX>((int)(short)(last & 0xffffu), (int)last >> 16);
}

/**
 * A chunk's (value, head) in a segmented min or max scan; `heads`: bit k set where item k starts a
 * segment. Without a head, the extreme of its bytes; else init and its bytes from the last head on.
 */
template <bool MAX, typename V>
__device__ __forceinline__ Segmented<V> segmented_byte_extreme(const uint4& w, unsigned heads, V init) {
    const V from_last_head = byte_extreme_from<MAX>(w, heads ? 31 - __clz(heads) : 0);
    return {heads ? integer_extreme<MAX>(init, from_last_head) : from_last_head, heads ? 1 : 0};
}

}  // namespace scan_detail
}  // namespace primer
