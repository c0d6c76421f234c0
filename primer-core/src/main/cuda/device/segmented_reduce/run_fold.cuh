// How a thread of the marked tile (marked_tile.cuh) folds its run of values: by the recipe's
// operator, or, for ArgMin/ArgMax, by place (INDICES BY PLACE below).
//
// INDICES BY PLACE. A thread folding a run of values does not know where the segment open at the
// run's start began, so it cannot count an index within that segment. It counts places instead (a
// value's index in the tile's stage, lead + its position in the tile): one frame for every thread
// of the tile, in which the block scan at the tile's end combines partials as it does any others.
// A result the thread closes itself counts from the place after its previous close; the others
// (the first segment each thread closes, the tile's first and open parts) are taken to their
// segment's own frame by merge_path_tile_end through PlaceFrame, one load of the segment's start
// offset each. (The merge walk, which knows every segment's start, counts from it directly.)
// Within a run a value always comes after all that the accumulator holds, so the fold takes it only
// when it is strictly more extreme (a tie keeps the first), comparing integer keys (RunKeys), and
// keeps the place as an int: against ArgExtreme's (key, 64-bit index) operator, fewer registers, no
// index comparison and no NaN tests.
#pragma once
#include "../segmented_reduce_merge_path.cuh"

namespace primer {
namespace segmented {

/** An accumulator with its index counted from `start` instead (ArgMin/ArgMax; the identity's -1 stays). */
template <typename A>
__device__ __forceinline__ A index_from(A a, long long) { return a; }
template <typename T>
__device__ __forceinline__ KeyIndex<T> index_from(KeyIndex<T> a, long long start) {
    return {a.key, a.index < 0 ? a.index : a.index - start};
}

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

/**
 * Where a tile's places lie (INDICES BY PLACE), in shared memory: what PlaceFrame needs after the
 * fold, which would otherwise hold the tile's span in registers through it (they spilled at six
 * blocks per SM).
 */
struct PlaceOrigin {
    long long i0;      // the tile's first segment
    long long origin;  // the offset (an index of the values) at place 0: the tile's first value less lead
    int na;            // segments closing in the tile
};

/** A tile's PlaceOrigin: one per recipe, and none where no recipe needs it. */
template <class Rc>
__device__ __forceinline__ PlaceOrigin& place_origin() {
    __shared__ PlaceOrigin origin;
    return origin;
}

/**
 * merge_path_tile_end's frame for partials by place: each leaves counted from its segment's start.
 * The offsets passed the check (the tile runs only then), so the starts need no clamping.
 */
struct PlaceFrame {
    const long long* offsets;
    const PlaceOrigin& places;
    /** Segment i0 + k's first place (negative when it began in an earlier tile). */
    __device__ __forceinline__ long long start(int k) const { return __ldg(offsets + places.i0 + k) - places.origin; }
    template <typename A> __device__ __forceinline__ A closed(A a, int k) const { return index_from(a, start(k)); }
    /** The segment open at the tile's end is i0 + na (offsets has nseg + 1 entries: i0 + na <= nseg). */
    template <typename A> __device__ __forceinline__ A open(A a) const { return index_from(a, start(places.na)); }
};

}  // namespace segmented
}  // namespace primer
