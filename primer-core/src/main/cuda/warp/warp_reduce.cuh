// Warp-wide reduction by butterfly shuffles: log2(32) exchange steps, no shared memory, and every
// lane ends with the warp's total (a butterfly, unlike a tree, leaves nobody out).
//
// All 32 lanes must call it (full mask): since Volta a warp is not guaranteed to run in lockstep,
// so the *_sync shuffles name the participating lanes explicitly.
//
// Every lane computes op(own, partner) with the operands in the opposite order to its partner, so
// the lanes agree bitwise only for commutative operators; every operator in ops.cuh is one.
// warp_reduce_ordered and warp_reduce_rows_ordered (below) keep lane order instead, for
// operators that are not commutative.
#pragma once
#include "../ops.cuh"

namespace primer {

namespace detail {

/**
 * __shfl_xor_sync for any trivially copyable type: the value travels as 32-bit words (one shuffle
 * per word), so int8_t, long long, double, __int128 and user structs all work the same way.
 */
template <typename T>
__device__ __forceinline__ T shfl_xor_words(T value, int lane_mask) {
    constexpr int WORDS = (int)((sizeof(T) + 3) / 4);
    int words[WORDS] = {};
    __builtin_memcpy(words, &value, sizeof(T));  // the builtin: NVRTC has no <cstring>
#pragma unroll
    for (int w = 0; w < WORDS; ++w) words[w] = __shfl_xor_sync(0xffffffffu, words[w], lane_mask);
    __builtin_memcpy(&value, words, sizeof(T));
    return value;
}

template <typename T>
__device__ __forceinline__ T shfl_xor(T value, int lane_mask) { return shfl_xor_words(value, lane_mask); }

/** __shfl_down_sync for any trivially copyable type, a 32-bit word per shuffle. */
template <typename T>
__device__ __forceinline__ T shfl_down_words(T value, unsigned delta) {
    constexpr int WORDS = (int)((sizeof(T) + 3) / 4);
    int words[WORDS] = {};
    __builtin_memcpy(words, &value, sizeof(T));
#pragma unroll
    for (int w = 0; w < WORDS; ++w) words[w] = __shfl_down_sync(0xffffffffu, words[w], delta);
    __builtin_memcpy(&value, words, sizeof(T));
    return value;
}

/** 128-bit integers as two halves (a byte copy of them would go through local memory). */
__device__ __forceinline__ __int128 shfl_xor(__int128 value, int lane_mask) {
    const unsigned long long low = __shfl_xor_sync(0xffffffffu, (unsigned long long)value, lane_mask);
    const long long high = __shfl_xor_sync(0xffffffffu, (long long)(value >> 64), lane_mask);
    return (__int128)(((unsigned __int128)(unsigned long long)high << 64) | low);
}
__device__ __forceinline__ __int128 shfl_down_words(__int128 value, unsigned delta) {
    const unsigned long long low = __shfl_down_sync(0xffffffffu, (unsigned long long)value, delta);
    const long long high = __shfl_down_sync(0xffffffffu, (long long)(value >> 64), delta);
    return (__int128)(((unsigned __int128)(unsigned long long)high << 64) | low);
}

/** Key and index go separately, so the padding of KeyIndex<float> / KeyIndex<int> is not shuffled. */
template <typename T>
__device__ __forceinline__ KeyIndex<T> shfl_xor(KeyIndex<T> value, int lane_mask) {
    value.key = shfl_xor_words(value.key, lane_mask);
    value.index = __shfl_xor_sync(0xffffffffu, value.index, lane_mask);
    return value;
}

}  // namespace detail

/**
 * Reduces within each aligned group of LANES consecutive lanes (LANES a power of two, 1..32): every
 * lane of a group gets that group's total. All 32 lanes must call it.
 * A block reduction uses LANES = warps per block for its last step, sparing the useless rounds.
 */
template <int LANES, typename T, typename Op>
__device__ __forceinline__ T warp_reduce_lanes(T value, Op op) {
    static_assert(LANES >= 1 && LANES <= 32 && (LANES & (LANES - 1)) == 0, "LANES: a power of two <= 32");
#pragma unroll
    for (int lane_mask = LANES / 2; lane_mask > 0; lane_mask >>= 1) {
        value = op(value, detail::shfl_xor(value, lane_mask));
    }
    return value;
}

/** The warp's total, in every lane. All 32 lanes must call it. */
template <typename T, typename Op>
__device__ __forceinline__ T warp_reduce(T value, Op op) {
    return warp_reduce_lanes<32>(value, op);
}

/**
 * value_0 op value_1 op ... op value_(LANES-1) of each aligned group of LANES lanes (a power of two
 * <= 32) in the group's first lane, for operators that are associative but not commutative. Step d
 * (1, 2, 4, ...) gives lane i the span of lane i + d on its RIGHT, op(own, right), so the first
 * lane ends with the group's values in lane order and operands never swap; the association is
 * fixed, so float results are the same bits every run. Other lanes get partial spans. All 32 lanes
 * must call it.
 */
template <int LANES, typename T, typename Op>
__device__ __forceinline__ T warp_reduce_lanes_ordered(T value, Op op) {
    static_assert(LANES >= 1 && LANES <= 32 && (LANES & (LANES - 1)) == 0, "LANES: a power of two <= 32");
    const unsigned lane_in_group = threadIdx.x & (LANES - 1);
#pragma unroll
    for (unsigned delta = 1; delta < LANES; delta <<= 1) {
        const T right = detail::shfl_down_words(value, delta);
        if (lane_in_group + delta < LANES) value = op(value, right);  // the top lanes have nothing to their right
    }
    return value;
}

/** value_0 op value_1 op ... op value_31 in lane 0, in lane order (warp_reduce_lanes_ordered). */
template <typename T, typename Op>
__device__ __forceinline__ T warp_reduce_ordered(T value, Op op) {
    return warp_reduce_lanes_ordered<32>(value, op);
}

/**
 * The ordered total of ROWS values per lane, where value[r] in lane l is item r * 32 + l: a warp's
 * rows of chunks in a scan tile, reduced in index order. Every lane gets the total, the same bits
 * in every lane. ROWS: a power of two, 1..32. All 32 lanes must call it.
 *
 * A transposing butterfly. Reducing each row by itself would take 5 shuffles a row; instead, at
 * lane bit 1, 2, .. ROWS/2 partner lanes split their rows in halves, each keeps one half, receives
 * the partner's copy of it, and combines the two: ROWS - 1 shuffles in all leave each lane with one
 * row over its aligned group of ROWS lanes (row bitreverse(lane mod ROWS)). A butterfly over the
 * remaining lane bits completes the rows, and one over the first log2(ROWS) bits again combines
 * the rows: ROWS + 4 shuffles, ROWS + 4 operations. At every step the operand from the lower lane
 * (or row) is on the left, so the operator need not be commutative, and the association is fixed.
 */
template <int ROWS, typename T, typename Op>
__device__ __forceinline__ T warp_reduce_rows_ordered(const T (&value)[ROWS], Op op) {
    static_assert(ROWS >= 1 && ROWS <= 32 && (ROWS & (ROWS - 1)) == 0, "ROWS: a power of two <= 32");
    const unsigned lane = threadIdx.x & 31;
    auto combine = [&](T own, T other, bool own_is_right) {  // operands selected first: one op evaluated
        const T left = own_is_right ? other : own;
        const T right = own_is_right ? own : other;
        return op(left, right);
    };
    T v[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) v[r] = value[r];
    // Halve the rows: at lane bit `bit`, the upper lane keeps the upper half, the lower lane the lower.
#pragma unroll
    for (int bit = 1; bit < ROWS; bit *= 2) {
        const int half = ROWS / (2 * bit);  // rows each lane holds after this step
        const bool upper = lane & bit;
#pragma unroll
        for (int i = 0; i < half; ++i) {
            // Copies first: a select between v[i] and v[i + half] themselves would select an address
            // in v and put the array in local memory.
            const T low = v[i], high = v[i + half];
            const T other = detail::shfl_xor(upper ? low : high, bit);
            v[i] = combine(upper ? high : low, other, upper);
        }
    }
    // Each lane's row across the whole warp: groups of ROWS lanes in lane order.
#pragma unroll
    for (int bit = ROWS; bit < 32; bit *= 2) v[0] = combine(v[0], detail::shfl_xor(v[0], bit), lane & bit);
    // The rows in row order: rows r and r ^ 1 sit at lane bit ROWS/2, rows r and r ^ 2 at ROWS/4, ...
#pragma unroll
    for (int bit = ROWS / 2; bit >= 1; bit /= 2) v[0] = combine(v[0], detail::shfl_xor(v[0], bit), lane & bit);
    return v[0];
}

}  // namespace primer
