// A loaded 16-byte vector (Vec16, thread/vector16.cuh) folded into one accumulator (VectorFold,
// fold_vector): a small tree per vector, or four bytes per instruction for int8.
#pragma once
#include "../../ops.cuh"
#include "../../thread/packed_int8.cuh"
#include "../../thread/vector16.cuh"
#include "recipe.cuh"

namespace primer {
namespace segmented {

/**
 * Folds one vector as a small tree (one dependent step on the running accumulator per vector), each
 * step op(left, right) in index order, so it serves operators that do not commute.
 */
template <typename T, typename A, typename Op>
struct VectorFold {
    static __device__ __forceinline__ A apply(const Vec16<T>& v, long long first_index) {
        constexpr int ITEMS = Vec16<T>::ITEMS;
        Op op;
        A t[ITEMS];
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) t[k] = Lift<T, A>::apply(vector_element(v, k), first_index + k);
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
    static __device__ __forceinline__ unsigned long long apply(const Vec16<int8_t>& v, long long) {
        return (unsigned long long)(long long)int8x16_sum(v.word);
    }
};
template <>
struct VectorFold<int8_t, unsigned long long, Prod<unsigned long long>> {
    static __device__ __forceinline__ unsigned long long apply(const Vec16<int8_t>& v, long long) {
        return int8x16_product(v.word);
    }
};
template <typename Op>
struct PackedVectorFold {
    static __device__ __forceinline__ int8_t apply(const Vec16<int8_t>& v, long long) {
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
    static __device__ __forceinline__ KeyIndex<int8_t> apply(const Vec16<int8_t>& v, long long first_index) {
        const int8_t extreme = int8x16_extreme<MAX>(v.word);
        return {extreme, first_index + int8x16_first_equal(v.word, extreme)};
    }
};
template <> struct VectorFold<int8_t, KeyIndex<int8_t>, ArgMin<int8_t>> : ArgVectorFold<false> {};
template <> struct VectorFold<int8_t, KeyIndex<int8_t>, ArgMax<int8_t>> : ArgVectorFold<true> {};

template <class Rc>
__device__ __forceinline__ typename Rc::A fold_vector(const Vec16<typename Rc::T>& v, long long first_index) {
    return VectorFold<typename Rc::T, typename Rc::A, typename Rc::Op>::apply(v, first_index);
}

}  // namespace segmented
}  // namespace primer
