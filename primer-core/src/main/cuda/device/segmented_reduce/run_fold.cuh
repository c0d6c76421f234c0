// How a thread folds a run of consecutive values (a lane's short segment, warp_segments.cuh; a
// thread's run in the marked tile, marked_tile.cuh): by the recipe's operator, or, for ArgMin/ArgMax,
// by keys and places.
//
// Within a run a value always comes after all that the accumulator holds, so the ArgMin/ArgMax fold
// takes it only when it is strictly more extreme (a tie keeps the first), comparing integer keys
// (RunKeys), and keeps the value's place (an index the caller counts, within the segment or the
// tile: place_frame.cuh) as an int: against ArgExtreme's (key, 64-bit index) operator, fewer
// registers, no index comparison and no NaN tests. The result is ArgExtreme's: the first extreme.
// Not the scans' float keys (../scan/float_keys.cuh), though the sign flip is the same: those keep
// each NaN's own bits and so order NaNs by payload, where a run must keep its first NaN whatever
// the payloads (one key for every NaN), and they leave no key past every value for the empty run.
#pragma once
#include "recipe.cuh"

namespace primer {
namespace segmented {

/** A run's fold by the recipe's operator. */
template <class Rc, class Op = typename Rc::Op>
struct RunFold {
    using T = typename Rc::T;
    using A = typename Rc::A;
    using State = A;
    static __device__ __forceinline__ State empty() { return Op::identity(); }
    static __device__ __forceinline__ void fold(State& s, T x, int) { s = Op{}(s, Lift<T, A>::apply(x, 0)); }
    /** The state as a partial of the tile (for ArgMin/ArgMax: indices by place). */
    static __device__ __forceinline__ A partial(const State& s) { return s; }
    /** The state as a segment's result, the segment's first value at place `start`. */
    static __device__ __forceinline__ A result(const State& s, int) { return s; }
};

/**
 * The keys a run of ArgMin/ArgMax compares: integers as they are; floats as signed integers in
 * Java's order (the magnitude bits flipped when negative: -0.0 below 0.0), every NaN as one key past
 * the infinities on the extreme's side, so that one integer comparison decides (the first NaN then
 * stays, as ArgExtreme keeps it) and the empty run's key (`EMPTY`) lies beyond every value's.
 */
template <typename T, bool MAX>
struct RunKeys {
    using K = T;
    static constexpr bool HAS_EMPTY = false;  // every key is some value's: the run's emptiness is its place
    static __device__ __forceinline__ K key(T x) { return x; }
    static __device__ __forceinline__ T value(K k) { return k; }
};
template <typename T, typename Bits, bool MAX>
struct FloatRunKeys {
    using K = Bits;
    static constexpr bool HAS_EMPTY = true;
    static constexpr int SHIFT = 8 * (int)sizeof(Bits) - 1;
    static constexpr Bits LOW = (Bits)((unsigned long long)1 << SHIFT), HIGH = (Bits)~LOW;  // the type's min and max
    static constexpr Bits EMPTY = MAX ? LOW : HIGH;
    static __device__ __forceinline__ K flip(Bits b) { return b ^ ((b >> SHIFT) & HIGH); }  // its own inverse
    static __device__ __forceinline__ K key(T x) { return x != x ? (MAX ? HIGH : LOW) : flip(bits_of(x)); }
    static __device__ __forceinline__ T value(K k) { return from_bits(flip(k)); }
    static __device__ __forceinline__ Bits bits_of(float x) { return __float_as_int(x); }
    static __device__ __forceinline__ Bits bits_of(double x) { return __double_as_longlong(x); }
    static __device__ __forceinline__ T from_bits(Bits b) {
        if constexpr (sizeof(T) == 4) return __int_as_float(b);
        else return __longlong_as_double(b);
    }
};
template <bool MAX> struct RunKeys<float, MAX> : FloatRunKeys<float, int, MAX> {};
template <bool MAX> struct RunKeys<double, MAX> : FloatRunKeys<double, long long, MAX> {};

/** ArgMin/ArgMax: the most extreme key so far and its place; place < 0 before the first value. */
template <typename K>
struct PlacedKey {
    K key;
    int place;
};

template <class Rc, typename T, bool MAX>
struct ArgRunFold {
    using A = typename Rc::A;
    using Keys = RunKeys<T, MAX>;
    using State = PlacedKey<typename Keys::K>;
    static __device__ __forceinline__ State empty() {
        if constexpr (Keys::HAS_EMPTY) return {Keys::EMPTY, -1};
        else return {typename Keys::K{}, -1};
    }
    /** A later value replaces the run's extreme only when strictly more extreme: a tie keeps the first. */
    static __device__ __forceinline__ void fold(State& s, T x, int place) {
        const typename Keys::K k = Keys::key(x);
        const bool beyond = MAX ? s.key < k : k < s.key;
        if (Keys::HAS_EMPTY ? beyond : s.place < 0 || beyond) s = {k, place};
    }
    static __device__ __forceinline__ A partial(const State& s) {
        return s.place < 0 ? ArgExtreme<T, MAX>::identity() : A{Keys::value(s.key), s.place};
    }
    static __device__ __forceinline__ A result(const State& s, int start) {
        return s.place < 0 ? ArgExtreme<T, MAX>::identity() : A{Keys::value(s.key), s.place - start};
    }
};
template <class Rc, typename T>
struct RunFold<Rc, ArgMax<T>> : ArgRunFold<Rc, T, true> {};
template <class Rc, typename T>
struct RunFold<Rc, ArgMin<T>> : ArgRunFold<Rc, T, false> {};

}  // namespace segmented
}  // namespace primer
