// The 16-byte vector every streaming kernel loads (the reduces: whole-array, ordered, rows and
// segments): Vec16<T> and load_vector. One load instruction per vector; the kernels keep several
// vectors in flight per thread, so how a vector is held decides their registers.
#pragma once
#include "../ops.cuh"

namespace primer {

/** 16 bytes of T: what one vector load brings. */
template <typename T>
struct alignas(16) Vec16 {
    static constexpr int ITEMS = 16 / (int)sizeof(T);
    T item[ITEMS];
};

/**
 * int8 as four words of four bytes, never as sixteen bytes: the packed folds (packed_int8.cuh) take
 * words, and sixteen byte values would hold a register each while a vector is in flight (nvcc does
 * not pack them back): an int8 operator's ordered reduces held 128 registers for two tiles in
 * flight, and the segmented kernels spilled.
 */
template <>
struct alignas(16) Vec16<int8_t> {
    static constexpr int ITEMS = 16;
    unsigned word[4];
};

/** Element k of a vector (k a constant where it can be: the item stays in its register). */
template <typename T>
__device__ __forceinline__ T vector_element(const Vec16<T>& v, int k) { return v.item[k]; }
__device__ __forceinline__ int8_t vector_element(const Vec16<int8_t>& v, int k) {
    return (int8_t)(v.word[k / 4] >> (8 * (k % 4)));
}

template <typename T>
__device__ __forceinline__ Vec16<T> load_vector(const Vec16<T>* p) {
    // Plain read-only loads: L2 prefetch hints (.L2::256B) measured 6% slower on the H200.
    const uint4 raw = __ldg(reinterpret_cast<const uint4*>(p));
    Vec16<T> v;
    __builtin_memcpy(&v, &raw, sizeof(v));
    return v;
}

}  // namespace primer
