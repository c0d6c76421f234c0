// Warp-wide scan by shuffles (Kogge-Stone): log2(32) steps, no shared memory.
//
// Step d (d = 1, 2, 4, 8, 16): every lane i >= d combines the partial of lane i - d on its LEFT,
// op(partial[i - d], partial[i]), so the operands never swap places: non-commutative operators
// (a segmented scan's) work, and the association is fixed, so float results are the same bits on
// every run.
//
// All 32 lanes must call (full mask): since Volta the lanes of a warp are not guaranteed to run in
// lockstep, and the *_sync shuffles name their participants. Lane numbers come from %laneid, so any
// block shape works.
#pragma once
#include "../ops.cuh"

namespace primer {

namespace warp_scan_detail {

constexpr unsigned FULL_MASK = 0xffffffffu;

/** Any trivially copyable value travels as 32-bit words, one shuffle per word. */
template <typename T>
__device__ __forceinline__ T shfl_up_words(T value, unsigned delta) {
    constexpr int WORDS = (int)((sizeof(T) + 3) / 4);
    int words[WORDS] = {};
    __builtin_memcpy(words, &value, sizeof(T));  // the builtin: NVRTC has no <cstring>
#pragma unroll
    for (int w = 0; w < WORDS; ++w) words[w] = __shfl_up_sync(FULL_MASK, words[w], delta);
    __builtin_memcpy(&value, words, sizeof(T));
    return value;
}

template <typename T>
__device__ __forceinline__ T shfl_words(T value, int source_lane) {
    constexpr int WORDS = (int)((sizeof(T) + 3) / 4);
    int words[WORDS] = {};
    __builtin_memcpy(words, &value, sizeof(T));
#pragma unroll
    for (int w = 0; w < WORDS; ++w) words[w] = __shfl_sync(FULL_MASK, words[w], source_lane);
    __builtin_memcpy(&value, words, sizeof(T));
    return value;
}

#if !defined(__CUDACC_RTC__) || defined(__CUDACC_RTC_INT128__)  // NVRTC: only with --device-int128
// 128-bit integers as two halves: a byte copy of them would go through local memory. The merge-path
// segmented reduce scans int64 sums as Segmented<__int128>, hence the overloads for those too.
__device__ __forceinline__ __int128 shfl_up_words(__int128 value, unsigned delta) {
    const unsigned long long low = __shfl_up_sync(FULL_MASK, (unsigned long long)value, delta);
    const long long high = __shfl_up_sync(FULL_MASK, (long long)(value >> 64), delta);
    return (__int128)(((unsigned __int128)(unsigned long long)high << 64) | low);
}
__device__ __forceinline__ __int128 shfl_words(__int128 value, int source_lane) {
    const unsigned long long low = __shfl_sync(FULL_MASK, (unsigned long long)value, source_lane);
    const long long high = __shfl_sync(FULL_MASK, (long long)(value >> 64), source_lane);
    return (__int128)(((unsigned __int128)(unsigned long long)high << 64) | low);
}
__device__ __forceinline__ Segmented<__int128> shfl_up_words(Segmented<__int128> value, unsigned delta) {
    return {shfl_up_words(value.value, delta), __shfl_up_sync(FULL_MASK, value.head, delta)};
}
__device__ __forceinline__ Segmented<__int128> shfl_words(Segmented<__int128> value, int source_lane) {
    return {shfl_words(value.value, source_lane), __shfl_sync(FULL_MASK, value.head, source_lane)};
}
#endif

}  // namespace warp_scan_detail

/** This thread's lane in its warp (0..31), whatever the block's shape. */
__device__ __forceinline__ unsigned lane_id() {
    unsigned lane;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    return lane;
}

/** __shfl_up_sync for any trivially copyable type; lanes below delta get their own value back. */
template <typename T>
__device__ __forceinline__ T warp_shfl_up(T value, unsigned delta) {
    return warp_scan_detail::shfl_up_words(value, delta);
}

/** __shfl_sync (broadcast from source_lane) for any trivially copyable type. */
template <typename T>
__device__ __forceinline__ T warp_shfl(T value, int source_lane) {
    return warp_scan_detail::shfl_words(value, source_lane);
}

/** Lane i receives value_0 op value_1 op ... op value_i. */
template <typename T, typename Op>
__device__ __forceinline__ T warp_inclusive_scan(T value, Op op) {
    const unsigned lane = lane_id();
#pragma unroll
    for (unsigned delta = 1; delta < 32; delta <<= 1) {
        const T left = warp_shfl_up(value, delta);
        if (lane >= delta) value = op(left, value);
    }
    return value;
}

/** As warp_inclusive_scan; also gives every lane the warp's total (lane 31's result). */
template <typename T, typename Op>
__device__ __forceinline__ T warp_inclusive_scan(T value, Op op, T& warp_total) {
    value = warp_inclusive_scan(value, op);
    warp_total = warp_shfl(value, 31);
    return value;
}

/**
 * Lane i receives init op value_0 op ... op value_(i-1); lane 0 receives init. warp_total gets
 * value_0 op ... op value_31 (without init) in every lane.
 */
template <typename T, typename Op>
__device__ __forceinline__ T warp_exclusive_scan(T value, Op op, T init, T& warp_total) {
    const T inclusive = warp_inclusive_scan(value, op, warp_total);
    const T left = warp_shfl_up(inclusive, 1);
    return lane_id() == 0 ? init : op(init, left);
}

template <typename T, typename Op>
__device__ __forceinline__ T warp_exclusive_scan(T value, Op op, T init) {
    T warp_total;
    return warp_exclusive_scan(value, op, init, warp_total);
}

}  // namespace primer
