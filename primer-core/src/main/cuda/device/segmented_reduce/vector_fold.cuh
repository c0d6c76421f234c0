// One 16-byte vector load (Vector16, load_vector) and its fold into one accumulator (VectorFold,
// fold_vector): a small tree per vector, or four bytes per instruction for int8.
#pragma once
#include "../../ops.cuh"
#include "../../thread/packed_int8.cuh"
#include "recipe.cuh"

namespace primer {
namespace segmented {

/** 16 bytes of T: what one vector load brings. */
template <typename T>
struct alignas(16) Vector16 {
    static constexpr int ITEMS = 16 / (int)sizeof(T);
    T item[ITEMS];
};
/**
 * int8 as four words of four bytes, never as sixteen bytes: the packed folds below take words, and
 * sixteen byte values would hold a register each while a vector is in flight (nvcc does not pack
 * them back), spilling every kernel that keeps several vectors in flight.
 */
template <>
struct alignas(16) Vector16<int8_t> {
    static constexpr int ITEMS = 16;
    unsigned word[4];
};

template <typename T>
__device__ __forceinline__ Vector16<T> load_vector(const Vector16<T>* p) {
    const uint4 raw = __ldg(reinterpret_cast<const uint4*>(p));
    Vector16<T> v;
    __builtin_memcpy(&v, &raw, sizeof(v));
    return v;
}

/** Folds one vector as a small tree (one dependent step on the running accumulator per vector). */
template <typename T, typename A, typename Op>
struct VectorFold {
    static __device__ __forceinline__ A apply(const Vector16<T>& v, long long first_index) {
        constexpr int ITEMS = Vector16<T>::ITEMS;
        Op op;
        A t[ITEMS];
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) t[k] = Lift<T, A>::apply(v.item[k], first_index + k);
#pragma unroll
        for (int step = 1; step < ITEMS; step *= 2) {
#pragma unroll
            for (int k = 0; k + step < ITEMS; k += 2 * step) t[k] = op(t[k], t[k + step]);
        }
        return t[0];
    }
};

// int8 vectors fold four bytes per instruction (thread/packed_int8.cuh): lifted one by one, sixteen
// elements would take sixteen to sixty-four registers, and spill.
template <>
struct VectorFold<int8_t, unsigned long long, Sum<unsigned long long>> {
    static __device__ __forceinline__ unsigned long long apply(const Vector16<int8_t>& v, long long) {
        return (unsigned long long)(long long)int8x16_sum(v.word);
    }
};
template <>
struct VectorFold<int8_t, unsigned long long, Prod<unsigned long long>> {
    static __device__ __forceinline__ unsigned long long apply(const Vector16<int8_t>& v, long long) {
        return int8x16_product(v.word);
    }
};
template <typename Op>
struct PackedVectorFold {
    static __device__ __forceinline__ int8_t apply(const Vector16<int8_t>& v, long long) {
        return int8x4_lanes(int8x16_packed<Op>(v.word), Op());
    }
};
template <> struct VectorFold<int8_t, int8_t, Min<int8_t>> : PackedVectorFold<Min<int8_t>> {};
template <> struct VectorFold<int8_t, int8_t, Max<int8_t>> : PackedVectorFold<Max<int8_t>> {};
template <> struct VectorFold<int8_t, int8_t, BitAnd<int8_t>> : PackedVectorFold<BitAnd<int8_t>> {};
template <> struct VectorFold<int8_t, int8_t, BitOr<int8_t>> : PackedVectorFold<BitOr<int8_t>> {};
template <> struct VectorFold<int8_t, int8_t, BitXor<int8_t>> : PackedVectorFold<BitXor<int8_t>> {};
/** The vector's extreme, then the first byte equal to it. */
template <bool MAX>
struct ArgVectorFold {
    static __device__ __forceinline__ KeyIndex<int8_t> apply(const Vector16<int8_t>& v, long long first_index) {
        const int8_t extreme = int8x16_extreme<MAX>(v.word);
        return {extreme, first_index + int8x16_first_equal(v.word, extreme)};
    }
};
template <> struct VectorFold<int8_t, KeyIndex<int8_t>, ArgMin<int8_t>> : ArgVectorFold<false> {};
template <> struct VectorFold<int8_t, KeyIndex<int8_t>, ArgMax<int8_t>> : ArgVectorFold<true> {};

template <class Rc>
__device__ __forceinline__ typename Rc::A fold_vector(const Vector16<typename Rc::T>& v, long long first_index) {
    return VectorFold<typename Rc::T, typename Rc::A, typename Rc::Op>::apply(v, first_index);
}

}  // namespace segmented
}  // namespace primer
