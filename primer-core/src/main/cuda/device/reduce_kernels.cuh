// Device-wide reduce: one launch for every size, any operator.
//
//   1. The input is split into [head | body | tail]: the head runs up to the first 128-byte boundary
//      (slices may start anywhere), the body is whole 16-byte vectors, the tail is what is left.
//      A body that starts on a cache line lets each warp's 512-byte load touch exactly four lines
//      (16-byte alignment alone measured 6% slower for a misaligned slice).
//   2. The body is cut into gridDim.x contiguous shares. Each block streams its share in tiles of
//      BLOCK_THREADS x VECS_PER_THREAD vectors: every thread issues all its 16-byte loads of a tile
//      before it folds any, so enough bytes are in flight to keep HBM busy.
//   3. Block 0 folds the head and tail too; each block reduces its threads (block_reduce).
//   4. With one block, thread 0 writes the result. Otherwise block partials go to scratch, and the
//      last block to finish (elected by a ticket counter) reduces them in block order and writes
//      the result, then puts the counter back to zero.
//
// The grid size is chosen by the host from n and the device alone (ReducePolicy.java), so which
// thread folds which element, and in which order partials combine, is the same every run: float
// results are bitwise reproducible. No float atomics.
//
// Scratch layout (zero-filled by the host once; every launch leaves it zero again):
//   bytes [0, 4)       unsigned int ticket counter
//   bytes [16, ...)    gridDim.x slots of reduce_slot_bytes<A>() bytes (16 for every built-in A)
//
// Result layout: one R at *result (see reduce.cu for R per entry point).
//
// This header is self-contained (ops.cuh, thread/, warp/, block/ only; no host code), so NVRTC can
// instantiate reduce_kernel<...> for a user-defined operator by including it.
#pragma once
#include "../ops.cuh"
#include "../warp/warp_reduce.cuh"
#include "../block/block_reduce.cuh"
#include "../thread/packed_int8.cuh"
#include "../thread/vector16.cuh"

namespace primer {

/** Launch shape of the device reduce; ReducePolicy.java mirrors these numbers. */
struct ReducePolicyConstants {
    static constexpr int BLOCK_THREADS = 256;
    static constexpr int VECS_PER_THREAD = 4;  // 16-byte loads in flight per thread per tile
    static constexpr int VECTOR_BYTES = 16;
    static constexpr int BODY_ALIGN_BYTES = 128;  // the body starts on a cache line
    static constexpr int SHARE_ALIGN_VECS = 32;  // block shares start on 512-byte boundaries
    static constexpr int SCRATCH_HEADER_BYTES = 16;
};

/**
 * How a thread folds its elements into a private state, finished into an A before the block
 * reduction. The general case keeps an A; specialisations below use packed arithmetic for int8.
 */
template <typename T, typename A, typename Op>
struct ThreadFold {
    using State = A;
    static __device__ __forceinline__ State init() { return Op::identity(); }
    static __device__ __forceinline__ State add(State s, T x, long long index, Op op) {
        return op(s, Lift<T, A>::apply(x, index));
    }
    static __device__ __forceinline__ State add(State s, const Vec16<T>& v, long long first_index, Op op) {
#pragma unroll
        for (int k = 0; k < Vec16<T>::ITEMS; ++k) s = op(s, Lift<T, A>::apply(v.item[k], first_index + k));
        return s;
    }
    static __device__ __forceinline__ A finish(State s, Op) { return s; }
};

/** int8 sum into 64 bits: dp4a adds four signed bytes in one instruction; 16 bytes fit in 32 bits. */
template <typename Op>
struct Int8SumFold {
    using State = unsigned long long;
    static __device__ __forceinline__ State init() { return 0; }
    static __device__ __forceinline__ State add(State s, int8_t x, long long, Op) { return s + (State)(long long)x; }
    static __device__ __forceinline__ State add(State s, const Vec16<int8_t>& v, long long, Op) {
        return s + (State)(long long)int8x16_sum(v.word);
    }
    static __device__ __forceinline__ State finish(State s, Op) { return s; }
};
template <>
struct ThreadFold<int8_t, unsigned long long, Sum<unsigned long long>> : Int8SumFold<Sum<unsigned long long>> {};

/** int8 product into 64 bits: four bytes multiply exactly in 32 bits (|product| <= 2^28), eight in 64. */
template <typename Op>
struct Int8ProdFold {
    using State = unsigned long long;
    static __device__ __forceinline__ State init() { return 1; }
    static __device__ __forceinline__ State add(State s, int8_t x, long long, Op) { return s * (State)(long long)x; }
    static __device__ __forceinline__ State add(State s, const Vec16<int8_t>& v, long long, Op) {
        return s * int8x16_product(v.word);  // wraps mod 2^64 like Java's long
    }
    static __device__ __forceinline__ State finish(State s, Op) { return s; }
};
template <>
struct ThreadFold<int8_t, unsigned long long, Prod<unsigned long long>> : Int8ProdFold<Prod<unsigned long long>> {};

/**
 * Java's order on T as plain integer order, for the min/max family. A float's bits, with the
 * magnitude bits flipped when negative, compare as integers exactly as Math.min/max order the
 * floats (-0.0 < 0.0); every NaN maps to the extreme the operator looks for (NaN wins), so one
 * integer min/max per element replaces the NaN and signed-zero tests. Integers are their own keys.
 */
template <typename T, bool MAX>
struct OrderedKey {
    using K = T;
    static __device__ __forceinline__ K of(T x) { return x; }
    static __device__ __forceinline__ T value(K k) { return k; }
};
template <bool MAX>
struct OrderedKey<float, MAX> {
    using K = int;
    static constexpr K NAN_KEY = MAX ? 0x7fffffff : (int)0x80000000;  // no number has this key
    static __device__ __forceinline__ K of(float x) {
        const int bits = __float_as_int(x);
        return x != x ? NAN_KEY : bits ^ ((bits >> 31) & 0x7fffffff);
    }
    static __device__ __forceinline__ float value(K k) {
        return k == NAN_KEY ? __int_as_float(0x7fc00000) : __int_as_float(k ^ ((k >> 31) & 0x7fffffff));
    }
};
template <bool MAX>
struct OrderedKey<double, MAX> {
    using K = long long;
    static constexpr K NAN_KEY = MAX ? 0x7fffffffffffffffLL : (long long)0x8000000000000000ULL;
    static __device__ __forceinline__ K of(double x) {
        const long long bits = __double_as_longlong(x);
        return x != x ? NAN_KEY : bits ^ ((bits >> 63) & 0x7fffffffffffffffLL);
    }
    static __device__ __forceinline__ double value(K k) {
        return k == NAN_KEY ? __longlong_as_double(0x7ff8000000000000LL)
                            : __longlong_as_double(k ^ ((k >> 63) & 0x7fffffffffffffffLL));
    }
};

template <bool MAX, typename K>
__device__ __forceinline__ K pick_extreme(K a, K b) { return MAX ? (a < b ? b : a) : (b < a ? b : a); }

/** Float MIN/MAX on ordered keys: one integer min/max per element. */
template <typename T, typename Op, bool MAX>
struct KeyExtremeFold {
    using Key = OrderedKey<T, MAX>;
    using State = typename Key::K;
    static __device__ __forceinline__ State init() { return Key::of(Op::identity()); }
    static __device__ __forceinline__ State add(State s, T x, long long, Op) { return pick_extreme<MAX>(s, Key::of(x)); }
    static __device__ __forceinline__ State add(State s, const Vec16<T>& v, long long, Op) {
#pragma unroll
        for (int k = 0; k < Vec16<T>::ITEMS; ++k) s = pick_extreme<MAX>(s, Key::of(v.item[k]));
        return s;
    }
    static __device__ __forceinline__ T finish(State s, Op) { return Key::value(s); }
};
template <> struct ThreadFold<float, float, Min<float>> : KeyExtremeFold<float, Min<float>, false> {};
template <> struct ThreadFold<float, float, Max<float>> : KeyExtremeFold<float, Max<float>, true> {};
template <> struct ThreadFold<double, double, Min<double>> : KeyExtremeFold<double, Min<double>, false> {};
template <> struct ThreadFold<double, double, Max<double>> : KeyExtremeFold<double, Max<double>, true> {};

/**
 * ArgMin/ArgMax on ordered keys. Per vector: the extreme key (integer min/max only); only when it
 * beats the thread's best so far (rare after the first few vectors) is its first position found.
 * Vectors arrive in increasing index order and before any single element (device_reduce's order),
 * so a tie with the best so far keeps the earlier index; single elements use the full rule.
 */
template <typename T, typename Op, bool MAX>
struct ArgExtremeFold {
    using Key = OrderedKey<T, MAX>;
    using K = typename Key::K;
    static constexpr int ITEMS = Vec16<T>::ITEMS;
    struct State {
        K key;
        long long index;  // -1: nothing seen yet
    };
    static __device__ __forceinline__ bool wins(K a, K b) { return MAX ? b < a : a < b; }
    static __device__ __forceinline__ State init() { return {Key::of(Op::identity().key), -1}; }
    static __device__ __forceinline__ State add(State s, T x, long long index, Op) {
        const K k = Key::of(x);
        const bool replace = wins(k, s.key) || (k == s.key && (unsigned long long)index < (unsigned long long)s.index);
        return replace ? State{k, index} : s;
    }
    static __device__ __forceinline__ K vector_extreme(const Vec16<T>& v) {
        if constexpr (sizeof(T) == 1) {  // four bytes per instruction
            return int8x16_extreme<MAX>(v.word);
        } else {
            K r = Key::of(v.item[0]);
#pragma unroll
            for (int k = 1; k < ITEMS; ++k) r = pick_extreme<MAX>(r, Key::of(v.item[k]));
            return r;
        }
    }
    static __device__ __forceinline__ State add(State s, const Vec16<T>& v, long long first_index, Op) {
        const K m = vector_extreme(v);
        if (wins(m, s.key) || s.index < 0) {
            int at = ITEMS - 1;
            if constexpr (sizeof(T) == 1) {  // four bytes per comparison
                at = int8x16_first_equal(v.word, (int8_t)m);
            } else {
#pragma unroll
                for (int k = ITEMS - 2; k >= 0; --k) {
                    if (Key::of(v.item[k]) == m) at = k;
                }
            }
            s = State{m, first_index + at};
        }
        return s;
    }
    static __device__ __forceinline__ KeyIndex<T> finish(State s, Op) { return {Key::value(s.key), s.index}; }
};
template <typename T>
struct ThreadFold<T, KeyIndex<T>, ArgMin<T>> : ArgExtremeFold<T, ArgMin<T>, false> {};
template <typename T>
struct ThreadFold<T, KeyIndex<T>, ArgMax<T>> : ArgExtremeFold<T, ArgMax<T>, true> {};

/** Keeps four int8 lanes in one word: one instruction per four elements, lanes folded at the end. */
template <typename Op>
struct PackedInt8Fold {
    using P = PackedInt8<Op>;
    using State = unsigned;
    static __device__ __forceinline__ State init() { return P::IDENTITY; }
    static __device__ __forceinline__ State add(State s, int8_t x, long long, Op) {
        // The element goes in lane 0 only, identity elsewhere (replicating it would break XOR).
        return P::apply(s, (P::IDENTITY & 0xffffff00u) | (unsigned)(uint8_t)x);
    }
    static __device__ __forceinline__ State add(State s, const Vec16<int8_t>& v, long long, Op) {
        return P::apply(s, int8x16_packed<Op>(v.word));
    }
    static __device__ __forceinline__ int8_t finish(State s, Op op) { return int8x4_lanes(s, op); }
};
template <> struct ThreadFold<int8_t, int8_t, Min<int8_t>> : PackedInt8Fold<Min<int8_t>> {};
template <> struct ThreadFold<int8_t, int8_t, Max<int8_t>> : PackedInt8Fold<Max<int8_t>> {};
template <> struct ThreadFold<int8_t, int8_t, BitAnd<int8_t>> : PackedInt8Fold<BitAnd<int8_t>> {};
template <> struct ThreadFold<int8_t, int8_t, BitOr<int8_t>> : PackedInt8Fold<BitOr<int8_t>> {};
template <> struct ThreadFold<int8_t, int8_t, BitXor<int8_t>> : PackedInt8Fold<BitXor<int8_t>> {};

/** Bytes of one partial's slot in scratch: sizeof(A) rounded up to 16 (16 for every built-in A). */
template <typename A>
__host__ __device__ constexpr int reduce_slot_bytes() { return (int)((sizeof(A) + 15) / 16 * 16); }

/** Partials travel through L2 (st.cg / ld.cg): the last block must not read a stale L1 line. */
template <typename A>
__device__ __forceinline__ void store_partial(unsigned char* slots, unsigned slot, const A& value) {
    constexpr int WORDS = reduce_slot_bytes<A>() / 16;
    uint4 words[WORDS] = {};
    __builtin_memcpy(words, &value, sizeof(A));
    uint4* dst = reinterpret_cast<uint4*>(slots + (size_t)slot * reduce_slot_bytes<A>());
#pragma unroll
    for (int w = 0; w < WORDS; ++w) __stcg(dst + w, words[w]);
}
template <typename A>
__device__ __forceinline__ A load_partial(const unsigned char* slots, unsigned slot) {
    constexpr int WORDS = reduce_slot_bytes<A>() / 16;
    uint4 words[WORDS];
    const uint4* src = reinterpret_cast<const uint4*>(slots + (size_t)slot * reduce_slot_bytes<A>());
#pragma unroll
    for (int w = 0; w < WORDS; ++w) words[w] = __ldcg(src + w);
    A value;
    __builtin_memcpy(&value, words, sizeof(A));
    return value;
}

/** Where a block's work lies: the input as [head | body | tail], and the block's share of the body. */
struct ReduceSplit {
    long long head;        // elements before the first 128-byte boundary (at most n)
    long long tail_begin;  // the first element after the body's whole vectors
    long long begin, end;  // this block's contiguous share of the body, in vectors from its start
};

template <typename T>
__device__ __forceinline__ ReduceSplit reduce_split(const T* in, long long n) {
    constexpr unsigned ALIGN = ReducePolicyConstants::BODY_ALIGN_BYTES;
    constexpr long long SHARE_ALIGN = ReducePolicyConstants::SHARE_ALIGN_VECS;
    constexpr int ITEMS = Vec16<T>::ITEMS;
    ReduceSplit s;
    const unsigned misalignment = (unsigned)(reinterpret_cast<size_t>(in) & (ALIGN - 1));
    s.head = (long long)(((ALIGN - misalignment) & (ALIGN - 1)) / sizeof(T));
    if (s.head > n) s.head = n;
    const long long body_vecs = (n - s.head) / ITEMS;
    s.tail_begin = s.head + body_vecs * ITEMS;
    long long share = (body_vecs + gridDim.x - 1) / gridDim.x;
    share = (share + SHARE_ALIGN - 1) / SHARE_ALIGN * SHARE_ALIGN;
    s.begin = (long long)blockIdx.x * share;
    if (s.begin > body_vecs) s.begin = body_vecs;
    s.end = s.begin + share;
    if (s.end > body_vecs) s.end = body_vecs;
    return s;
}

/**
 * Thread 0 stores the block's partial (held by thread 0) in its slot and takes a ticket; true in
 * every thread of the last block to arrive, which then sees every partial. That block puts the
 * counter back to zero for the next launch (every block has taken its ticket by then).
 * Every thread of the block must call it (it holds a barrier).
 */
template <typename A>
__device__ __forceinline__ bool last_block_to_arrive(unsigned char* scratch, const A& block_partial) {
    unsigned* ticket_counter = reinterpret_cast<unsigned*>(scratch);
    __shared__ bool is_last_block;
    if (threadIdx.x == 0) {
        store_partial(scratch + ReducePolicyConstants::SCRATCH_HEADER_BYTES, blockIdx.x, block_partial);
        // Release: our partial is visible before our ticket is; acquire: the last block sees every
        // partial whose ticket came before its own (and its threads do, after the barrier). Cheaper
        // than a __threadfence on each side: a synchronous 2^20-float sum returned 0.5 us sooner.
        unsigned ticket;
        asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;" : "=r"(ticket) : "l"(ticket_counter) : "memory");
        is_last_block = ticket == gridDim.x - 1;
        if (is_last_block) *ticket_counter = 0;
    }
    __syncthreads();
    return is_last_block;
}

/**
 * The whole device-wide reduce of in[0, n) into *result (converted A -> R by a cast).
 * The pointer must be aligned to sizeof(T); the head takes up the elements before the first
 * 128-byte boundary, so a slice may start anywhere.
 * Every thread of every block must call it; blockDim.x must equal BLOCK_THREADS.
 */
template <int BLOCK_THREADS, int VECS_PER_THREAD, typename T, typename A, typename R, typename Op>
__device__ __forceinline__ void device_reduce(const T* __restrict__ in, long long n, R* __restrict__ result,
                                              unsigned char* __restrict__ scratch, Op op) {
    using Fold = ThreadFold<T, A, Op>;
    using V = Vec16<T>;
    constexpr int ITEMS = V::ITEMS;
    constexpr int TILE_VECS = BLOCK_THREADS * VECS_PER_THREAD;
    const int tid = threadIdx.x;

    static_assert(BLOCK_THREADS >= (int)ReducePolicyConstants::BODY_ALIGN_BYTES,
                  "block 0 folds the head with one element per thread");

    const ReduceSplit split = reduce_split(in, n);
    const long long head = split.head, tail_begin = split.tail_begin, begin = split.begin, end = split.end;
    const V* body = reinterpret_cast<const V*>(in + head);

    typename Fold::State state = Fold::init();
    long long v = begin;
    for (; v + TILE_VECS <= end; v += TILE_VECS) {
        V items[VECS_PER_THREAD];
#pragma unroll
        for (int u = 0; u < VECS_PER_THREAD; ++u) items[u] = load_vector(body + v + u * BLOCK_THREADS + tid);
#pragma unroll
        for (int u = 0; u < VECS_PER_THREAD; ++u) {
            state = Fold::add(state, items[u], head + (v + u * BLOCK_THREADS + tid) * ITEMS, op);
        }
    }
    if (v < end) {  // the share's last, partial tile
        V items[VECS_PER_THREAD];
#pragma unroll
        for (int u = 0; u < VECS_PER_THREAD; ++u) {
            const long long j = v + u * BLOCK_THREADS + tid;
            if (j < end) items[u] = load_vector(body + j);
        }
#pragma unroll
        for (int u = 0; u < VECS_PER_THREAD; ++u) {
            const long long j = v + u * BLOCK_THREADS + tid;
            if (j < end) state = Fold::add(state, items[u], head + j * ITEMS, op);
        }
    }
    if (blockIdx.x == 0) {  // head < 128 bytes, tail < 16 bytes: one element per thread at most
        if (tid < head) state = Fold::add(state, in[tid], (long long)tid, op);
        const long long t = tail_begin + tid;
        if (t < n) state = Fold::add(state, in[t], t, op);
    }

    const A block_total = block_reduce<BLOCK_THREADS>(Fold::finish(state, op), op);
    if (gridDim.x == 1) {
        if (tid == 0) *result = (R)block_total;
        return;
    }

    // Publish this block's partial; the last block to arrive combines them all.
    if (!last_block_to_arrive(scratch, block_total)) return;
    const unsigned char* slots = scratch + ReducePolicyConstants::SCRATCH_HEADER_BYTES;
    A acc = Op::identity();
    for (unsigned b = tid; b < gridDim.x; b += BLOCK_THREADS) acc = op(acc, load_partial<A>(slots, b));
    const A total = block_reduce<BLOCK_THREADS>(acc, op);
    if (tid == 0) *result = (R)total;
}

/**
 * The kernel as a template, for NVRTC with a user-defined operator (name it with
 * nvrtcAddNameExpression, e.g. "primer::reduce_kernel<float, double, double, MyOp>").
 */
template <typename T, typename A, typename R, typename Op>
__global__ void __launch_bounds__(ReducePolicyConstants::BLOCK_THREADS)
reduce_kernel(const T* __restrict__ in, long long n, R* __restrict__ result, unsigned char* __restrict__ scratch) {
    device_reduce<ReducePolicyConstants::BLOCK_THREADS, ReducePolicyConstants::VECS_PER_THREAD, T, A, R>(
        in, n, result, scratch, Op());
}

}  // namespace primer
