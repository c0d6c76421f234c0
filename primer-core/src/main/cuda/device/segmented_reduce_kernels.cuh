// Batched and segmented reduce: one result per row of a row-major (rows, cols) matrix, or one per
// CSR segment values[offsets[s], offsets[s+1]).
//
// The building block is group_fold: G cooperating threads (a few lanes, a warp or a whole block)
// fold a range [begin, end) of one row into per-thread accumulators. The range is cut into
// [head | body | tail]: scalar loads up to the first 16-byte boundary (rows start anywhere when
// cols is odd), 16-byte vector loads for the body, scalars for the rest. Every thread issues the
// loads of a whole batch (U vectors for each of R rows) before it folds any of them, and issues
// the next batch before folding the current one, so enough bytes are in flight to keep HBM busy
// even when a row gives a thread a single vector.
//
// Batched rows (uniform length, so the host picks one kernel, see SegmentedReducePolicy.java):
//   rows_group   G lanes per row, G in {1, 2, 4, 8, 16, 32}, then a shuffle reduce within G lanes.
//                G = 1 is thread-per-row; 64 float columns use G = 16, one float4 per lane.
//                Vector loads when every row is 16-byte aligned, coalesced scalar loads otherwise.
//   rows_warp    a warp per row (a few hundred to a few thousand columns).
//   rows_chunk   a block of 256 threads per (row, chunk): long rows. With one chunk per row it
//                writes the result; with several (few rows, huge cols) it leaves partials in
//                scratch and
//   rows_combine folds each row's partials in chunk order.
//   (Measured on an H200, 2048 x 262144 float32, 2026-11-21: 256-thread blocks with 3 vectors per
//   thread in flight at 4 blocks per SM read 4.59 TB/s; 256 x 4 and 128 x 4 at 8 per SM 4.49,
//   512 x 2 at 2 per SM 4.43, 256 x 2 4.14-4.31; cutting rows into 2-8 chunks with a combine
//   launch was 1-7% slower. Earlier: equal flat shares per warp were within 1%; warp tiles
//   streamed in one front with a last-warp combine were 10-40% slower; L1/L2 cache hints on the
//   loads changed nothing.)
//
// CSR segments (lengths vary freely, e.g. power law), three launches; the host reads the header
// back once afterwards (offsets check, 128-bit sum overflow):
//   segments_small    a warp per 32 consecutive segments. Short segments (<= SHORT_SEGMENT) are
//                     folded by their own lane; medium ones (<= chunk length C) by the whole warp,
//                     two at a time; long ones (> C) are queued as work items of up to
//                     ITEM_CHUNKS chunks of C elements each, with one atomic reservation per
//                     warp. Up to four blocks per SM (<= 64 registers; segmented_reduce.cu gives
//                     each operator its count): latency, not bandwidth, bounds it, so warps in
//                     flight count most.
//   segments_long     persistent blocks, a block per work item, its partial into a slot fixed by
//                     the item's first chunk; an item that is its whole segment (most long
//                     segments: up to ITEM_CHUNKS * C elements) writes the result itself.
//   segments_combine  a block per segment of several items folds their partials in order.
//   (Measured on an H200, 2^26 float32 values, 2026-11-21 (bench/lab/segments_lab.cu): power-law
//   lengths 0.434 -> 0.339 ms from the fourth block per SM; segments of 3000 elements 0.213 ->
//   0.113 ms from the direct write and the per-warp reservation (the combine had cost a block per
//   segment, the queue a serial atomic per long lane). Staging each warp's segments in shared
//   memory with one round of 16-byte loads was slower at every occupancy: the small kernel waits
//   on too few warps, not on the loads of each. 2026-11-22: laying a warp's short segments end to
//   end, shared equally by its lanes, took 1.15-3.6x as long, and 16 or 32 loads per lane_fold
//   batch gained 7% on uniform 1-32 lengths only and lost elsewhere: the kernel issues about 400
//   instructions per warp of 32 power-law segments at half the issue rate, so fewer instructions
//   per warp is the way on.)
//   Chunks tile the flat range [offsets[0], offsets[nseg]) in pieces of C elements, where
//   C = max(LONG_CHUNK_MIN, total / MAX_CHUNKS rounded up): every kernel computes C from the
//   two end offsets, so scratch is bounded (MAX_CHUNKS) without the host knowing the total.
//   A segment longer than C cannot lie inside one chunk, so a chunk meets at most two long
//   segments: the one covering its first element (slot 2j) and one starting inside it (slot 2j+1).
//   (C stays 2048 up to 2^27 elements in all, so a medium segment never burdens one warp for long;
//   work items of 16 chunks keep a block's fixed cost per item small: one 2^28-element float32
//   segment reduces at ~3.9 TB/s.)
//   Malformed offsets never make a kernel read or write outside its buffers. segments_small checks
//   0 <= offsets[0] <= offsets[nseg] <= in_length (else it reads nothing and raises BAD_BOUNDS),
//   clamps every segment into [offsets[0], offsets[nseg]] and raises DECREASING (keeping the
//   first such s) for any offsets[s] > offsets[s+1]; queue entries past the capacity of the work
//   items (2 * MAX_CHUNKS) or of the long ids (MAX_CHUNKS) are not written, and a reservation
//   passing either raises QUEUE_FULL (only overlapping, hence decreasing, offsets get there:
//   disjoint long segments need fewer than MAX_CHUNKS ids and 2 * MAX_CHUNKS items). segments_long
//   and segments_combine do nothing when any flag is up (the host throws; the queue may then
//   hold unwritten entries), and clamp the counts they read anyway.
//
// Determinism: which thread folds which element, and the order partials combine, depend only on
// the shape, the offsets and the input address, never on timing (the work queue's order varies,
// but a work item's slot and its fold do not). No float atomics; results are bitwise reproducible.
//
// Scratch layout (zero-filled once by the host; counters are put back to zero by the host after
// each call):
//   [0, 8)     overflow flag: a 128-bit sum (int64 SUM, int32 sum_exact) that does not fit a long
//              sets it to 2^63 - (first index)
//   [8, 16)    count of queued work items (segments)
//   [16, 24)   count of long segments of more than one work item (segments)
//   [24, 28)   malformed-offsets flags (segments): BAD_BOUNDS | DECREASING | QUEUE_FULL
//   [32, 40)   first decreasing offset: 2^63 - (smallest s with offsets[s] > offsets[s+1]), or 0
//   [256, ...) rows: partial slots (rows * chunks); segments: 2 * MAX_CHUNKS partial slots, then
//              2 * MAX_CHUNKS work items, then MAX_CHUNKS ids of long segments of several items.
//   Every partial slot is 16 bytes.
//
// Self-contained (ops.cuh, thread/, warp/, block/ only), so NVRTC can instantiate it for other operators.
#pragma once
#include "../ops.cuh"
#include "../warp/warp_reduce.cuh"
#include "../block/block_reduce.cuh"
#include "../thread/packed_int8.cuh"

namespace primer {
namespace segmented {

/** Shape constants; SegmentedReducePolicy.java mirrors them. */
struct Constants {
    static constexpr int BLOCK_THREADS = 256;         // every kernel but rows_chunk
    static constexpr int CHUNK_BLOCK_THREADS = 256;   // rows_chunk
    static constexpr int CHUNK_VECS_PER_THREAD = 3;   // rows_chunk: vectors per thread per batch
    static constexpr int LONG_VECS_PER_THREAD = 4;    // segments_long
    static constexpr int WARP_VECS_PER_LANE = 4;      // rows_warp
    static constexpr int MEDIUM_VECS_PER_LANE = 2;    // medium segments, two at a time
    static constexpr int ROWS_PER_GROUP_VECTOR = 2;   // rows_group: rows in flight per group of lanes
    static constexpr int ROWS_PER_GROUP_SCALAR = 4;
    static constexpr int SHORT_SEGMENT = 32;          // folded by one lane
    static constexpr long long LONG_CHUNK_MIN = 2048; // C's floor: shorter segments never leave the warp
    static constexpr long long MAX_CHUNKS = 1LL << 16;
    static constexpr long long CHUNK_ALIGN = 64;      // C is a multiple of this
    static constexpr long long ITEM_CHUNKS = 16;      // chunks per queued work item
    static constexpr int MERGE_PATH_ITEMS = 13;       // merge-path steps per thread (segmented_reduce_merge_path.cuh)
    static constexpr int SLOT_BYTES = 16;
    static constexpr int HEADER_BYTES = 256;
    static constexpr int OVERFLOW_FLAG_OFFSET = 0;
    static constexpr int ITEM_COUNT_OFFSET = 8;
    static constexpr int LONG_COUNT_OFFSET = 16;
    static constexpr int MALFORMED_OFFSET = 24;
    static constexpr int FIRST_DECREASE_OFFSET = 32;
    static constexpr unsigned BAD_BOUNDS = 1;   // offsets[0] < 0, offsets[nseg] < offsets[0] or > in_length
    static constexpr unsigned DECREASING = 2;   // some offsets[s] > offsets[s+1]
    static constexpr unsigned QUEUE_FULL = 4;   // the long-segment queue would overflow
    static constexpr long long ITEM_CAPACITY = 2 * MAX_CHUNKS;  // work items
    static constexpr long long LONG_CAPACITY = MAX_CHUNKS;      // long segment ids
};

/** What one entry point reduces: input T, accumulator A, output Out, operator Op on A. */
template <typename T_, typename A_, typename Out_, typename Op_>
struct Recipe {
    using T = T_;
    using A = A_;
    using Out = Out_;
    using Op = Op_;
};

/** An input element as an accumulator: a conversion, or (key, index within the row) for ArgMin/Max. */
template <typename T, typename A>
struct Lift {
    static __device__ __forceinline__ A apply(T x, long long) { return (A)x; }
};
template <typename T>
struct Lift<T, KeyIndex<T>> {
    static __device__ __forceinline__ KeyIndex<T> apply(T x, long long index) { return {x, index}; }
};

/** Records that result `which` overflowed; the flag keeps the smallest such index. */
__device__ __forceinline__ void mark_overflow(unsigned long long* flag, long long which) {
    atomicMax(flag, (1ULL << 63) - (unsigned long long)which);
}

/** An accumulator as the output element: a conversion (double -> float rounds once), or the index. */
template <typename A, typename Out>
struct Finish {
    static __device__ __forceinline__ Out apply(A a, long long, unsigned long long*) { return (Out)a; }
};
template <typename T>
struct Finish<KeyIndex<T>, long long> {
    static __device__ __forceinline__ long long apply(KeyIndex<T> a, long long, unsigned long long*) { return a.index; }
};
#if !defined(__CUDACC_RTC__) || defined(__CUDACC_RTC_INT128__)  // NVRTC: only with --device-int128
/** 128-bit sums (int64 SUM, int32 sum_exact) are exact; a total outside the long range raises the overflow flag. */
template <>
struct Finish<__int128, long long> {
    static __device__ __forceinline__ long long apply(__int128 a, long long which, unsigned long long* flag) {
        const long long low = (long long)(unsigned long long)a;
        if ((__int128)low != a) mark_overflow(flag, which);
        return low;
    }
};
#endif

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

/**
 * G threads (lane = 0..G-1 among them) fold R ranges base[r][0, length[r]) into acc[r]; element i
 * of range r has index index_offset[r] + i (for ArgMin/Max). Loads of the first batch (U vectors
 * per thread per range) are all issued before any fold, then the body streams with the next batch
 * always in flight. Each thread folds its elements in a fixed order: head scalars, body vectors
 * lane, lane + G, ..., tail scalars; the caller then combines the G threads' accumulators.
 * Index: int where the caller bounds the length, else long long. Empty ranges are fine.
 */
template <int G, int U, int R, typename Index, class Rc>
__device__ __forceinline__ void group_fold(const typename Rc::T* const (&base)[R], const Index (&length)[R],
                                           const long long (&index_offset)[R], int lane,
                                           typename Rc::A (&acc)[R]) {
    using T = typename Rc::T;
    using A = typename Rc::A;
    using V = Vector16<T>;
    constexpr int VEC = V::ITEMS;
    constexpr int SCALARS = (VEC - 1 + G - 1) / G;  // head (or tail) elements one thread may hold
    typename Rc::Op op;

    int head[R];
    Index vectors[R], tail_begin[R];
#pragma unroll
    for (int r = 0; r < R; ++r) {
        const int misaligned = (int)((reinterpret_cast<unsigned long long>(base[r]) & 15u) / sizeof(T));
        head[r] = (VEC - misaligned) & (VEC - 1);
        if (head[r] > length[r]) head[r] = (int)length[r];
        vectors[r] = (length[r] - head[r]) / VEC;
        tail_begin[r] = head[r] + vectors[r] * VEC;
    }

    // First batch: every load of it in flight before any fold.
    T head_items[R][SCALARS], tail_items[R][SCALARS];
    V body_items[R][U];
#pragma unroll
    for (int r = 0; r < R; ++r) {
#pragma unroll
        for (int k = 0; k < SCALARS; ++k) {
            const int e = lane + k * G;
            if (e < head[r]) head_items[r][k] = base[r][e];
        }
        const V* body = reinterpret_cast<const V*>(base[r] + head[r]);
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const Index v = lane + (Index)u * G;
            if (v < vectors[r]) body_items[r][u] = load_vector(body + v);
        }
#pragma unroll
        for (int k = 0; k < SCALARS; ++k) {
            const Index e = tail_begin[r] + lane + k * G;
            if (e < length[r]) tail_items[r][k] = base[r][e];
        }
    }
#pragma unroll
    for (int r = 0; r < R; ++r) {
#pragma unroll
        for (int k = 0; k < SCALARS; ++k) {
            const int e = lane + k * G;
            if (e < head[r]) acc[r] = op(acc[r], Lift<T, A>::apply(head_items[r][k], index_offset[r] + e));
        }
        // The body, batch after batch: the next batch's loads are issued before this one is folded
        // (software pipelining), so a thread has loads in flight all the time.
        const V* body = reinterpret_cast<const V*>(base[r] + head[r]);
        for (Index v0 = 0;; v0 += (Index)G * U) {
            const Index next0 = v0 + (Index)G * U;
            const bool more = next0 < vectors[r];  // the same for the whole group
            V next[U];
            if (more) {
#pragma unroll
                for (int u = 0; u < U; ++u) {
                    const Index v = next0 + lane + (Index)u * G;
                    if (v < vectors[r]) next[u] = load_vector(body + v);
                }
            }
#pragma unroll
            for (int u = 0; u < U; ++u) {
                const Index v = v0 + lane + (Index)u * G;
                if (v < vectors[r]) {
                    acc[r] = op(acc[r], fold_vector<Rc>(body_items[r][u], index_offset[r] + head[r] + (long long)v * VEC));
                }
            }
            if (!more) break;
#pragma unroll
            for (int u = 0; u < U; ++u) body_items[r][u] = next[u];
        }
#pragma unroll
        for (int k = 0; k < SCALARS; ++k) {
            const Index e = tail_begin[r] + lane + k * G;
            if (e < length[r]) acc[r] = op(acc[r], Lift<T, A>::apply(tail_items[r][k], index_offset[r] + e));
        }
    }
}

/** Combines the accumulators of each aligned group of 2^log2_lanes lanes (every lane gets its group's). */
template <typename A, typename Op>
__device__ __forceinline__ A group_reduce(A value, int log2_lanes, Op op) {
    switch (log2_lanes) {
        case 1: return warp_reduce_lanes<2>(value, op);
        case 2: return warp_reduce_lanes<4>(value, op);
        case 3: return warp_reduce_lanes<8>(value, op);
        case 4: return warp_reduce_lanes<16>(value, op);
        case 5: return warp_reduce_lanes<32>(value, op);
        default: return value;
    }
}

template <typename A>
__device__ __forceinline__ A* partial_slot(unsigned char* scratch, long long slot) {
    return reinterpret_cast<A*>(scratch + Constants::HEADER_BYTES + slot * Constants::SLOT_BYTES);
}

__device__ __forceinline__ unsigned long long* overflow_flag(unsigned char* scratch) {
    return reinterpret_cast<unsigned long long*>(scratch + Constants::OVERFLOW_FLAG_OFFSET);
}

// ---------------------------------------------------------------------------------------------
// Batched rows
// ---------------------------------------------------------------------------------------------

/**
 * 2^log2_lanes lanes (G) per row, R rows per group at a time. At each of the R steps the warp's
 * 32 / G groups take consecutive rows, so a warp reads one contiguous stretch. Meant for short rows
 * (the host picks G >= cols / (16 / sizeof(T))), so a lane holds about one vector per row and R rows'
 * loads are in flight together. VECTORIZED (every row 16-byte aligned: an aligned input and cols a
 * multiple of the vector) uses 16-byte loads; otherwise lanes load scalars, still coalesced (a group
 * reads G consecutive elements). Two instantiations rather than a branch: each gets the registers
 * of its own path. cols < 2^31. blockDim.x must be BLOCK; any grid.
 */
template <class Rc, bool VECTORIZED, int R, int BLOCK>
__device__ __forceinline__ void rows_group(const typename Rc::T* __restrict__ in, long long rows, long long cols,
                                           int log2_lanes, typename Rc::Out* __restrict__ out,
                                           unsigned char* __restrict__ scratch) {
    using T = typename Rc::T;
    using A = typename Rc::A;
    using V = Vector16<T>;
    constexpr int VEC = V::ITEMS;
    typename Rc::Op op;
    const int lanes = 1 << log2_lanes;
    const int groups_per_warp = 32 >> log2_lanes;
    const long long rows_per_warp_step = (long long)groups_per_warp * R;
    const int lane = threadIdx.x & 31;
    const int group = lane >> log2_lanes;
    const int lane_in_group = lane & (lanes - 1);
    const int n = (int)cols;
    const long long warps = (long long)gridDim.x * (BLOCK / 32);

    // The loop bound is the same for the whole warp: every lane reaches the shuffles.
    for (long long first = ((long long)blockIdx.x * (BLOCK / 32) + (threadIdx.x >> 5)) * rows_per_warp_step;
         first < rows; first += warps * rows_per_warp_step) {
        long long row[R];
        const T* p[R];
        A acc[R];
#pragma unroll
        for (int r = 0; r < R; ++r) {
            row[r] = first + (long long)r * groups_per_warp + group;
            p[r] = in + (row[r] < rows ? row[r] : 0) * cols;
            acc[r] = Rc::Op::identity();
        }
        if constexpr (VECTORIZED) {
            const int vectors = n / VEC;
            for (int v0 = 0; v0 < vectors; v0 += lanes) {
                const int v = v0 + lane_in_group;
                V items[R];
#pragma unroll
                for (int r = 0; r < R; ++r) {
                    if (row[r] < rows && v < vectors) items[r] = load_vector(reinterpret_cast<const V*>(p[r]) + v);
                }
#pragma unroll
                for (int r = 0; r < R; ++r) {
                    if (row[r] < rows && v < vectors) acc[r] = op(acc[r], fold_vector<Rc>(items[r], (long long)v * VEC));
                }
            }
        } else {
            // A lane loads SCALARS elements of each row per step: a vector's worth, but at most four
            // (sixteen int8 bytes for each of R rows, a register each, would spill).
            constexpr int SCALARS = VEC < 4 ? VEC : 4;
            for (int c0 = 0; c0 < n; c0 += lanes * SCALARS) {
                T items[R][SCALARS];
#pragma unroll
                for (int r = 0; r < R; ++r) {
#pragma unroll
                    for (int k = 0; k < SCALARS; ++k) {
                        const int c = c0 + lane_in_group + k * lanes;
                        if (row[r] < rows && c < n) items[r][k] = p[r][c];
                    }
                }
#pragma unroll
                for (int r = 0; r < R; ++r) {
#pragma unroll
                    for (int k = 0; k < SCALARS; ++k) {
                        const int c = c0 + lane_in_group + k * lanes;
                        if (row[r] < rows && c < n) acc[r] = op(acc[r], Lift<T, A>::apply(items[r][k], c));
                    }
                }
            }
        }
#pragma unroll
        for (int r = 0; r < R; ++r) {
            acc[r] = group_reduce(acc[r], log2_lanes, op);
            if (lane_in_group == 0 && row[r] < rows) {
                out[row[r]] = Finish<A, typename Rc::Out>::apply(acc[r], row[r], overflow_flag(scratch));
            }
        }
    }
}

/** A warp per row, U vectors per lane in flight: rows of a few hundred to a few thousand elements. */
template <class Rc, int U, int BLOCK>
__device__ __forceinline__ void rows_warp(const typename Rc::T* __restrict__ in, long long rows, long long cols,
                                          typename Rc::Out* __restrict__ out, unsigned char* __restrict__ scratch) {
    using A = typename Rc::A;
    typename Rc::Op op;
    const int lane = threadIdx.x & 31;
    const long long warps = (long long)gridDim.x * (BLOCK / 32);
    for (long long row = (long long)blockIdx.x * (BLOCK / 32) + (threadIdx.x >> 5); row < rows; row += warps) {
        const typename Rc::T* base[1] = {in + row * cols};
        const long long length[1] = {cols};
        const long long index_offset[1] = {0};
        A acc[1] = {Rc::Op::identity()};
        group_fold<32, U, 1, long long, Rc>(base, length, index_offset, lane, acc);
        acc[0] = warp_reduce(acc[0], op);
        if (lane == 0) out[row] = Finish<A, typename Rc::Out>::apply(acc[0], row, overflow_flag(scratch));
    }
}

/**
 * A block per (row, chunk). A row's body vectors (after its head) are cut into chunks of
 * chunk_vecs vectors; chunk 0 also takes the head, the last chunk the tail. With one chunk per row
 * the block writes the result; otherwise its partial goes to slot row * chunks + chunk.
 */
template <class Rc, int BLOCK, int U>
__device__ __forceinline__ void rows_chunk(const typename Rc::T* __restrict__ in, long long rows, long long cols,
                                           long long chunks, long long chunk_vecs, typename Rc::Out* __restrict__ out,
                                           unsigned char* __restrict__ scratch) {
    using T = typename Rc::T;
    using A = typename Rc::A;
    constexpr int VEC = Vector16<T>::ITEMS;
    typename Rc::Op op;
    const long long work = rows * chunks;
    for (long long w = blockIdx.x; w < work; w += gridDim.x) {
        const long long row = w / chunks;
        const long long chunk = w - row * chunks;
        const long long row_begin = row * cols;
        const long long row_end = row_begin + cols;
        const unsigned misaligned = (unsigned)((reinterpret_cast<unsigned long long>(in + row_begin) & 15u) / sizeof(T));
        long long head = (long long)((VEC - misaligned) & (VEC - 1));
        if (head > cols) head = cols;
        long long begin = chunk == 0 ? row_begin : row_begin + head + chunk * chunk_vecs * VEC;
        long long end = chunk == chunks - 1 ? row_end : row_begin + head + (chunk + 1) * chunk_vecs * VEC;
        if (begin > row_end) begin = row_end;
        if (end > row_end) end = row_end;
        if (end < begin) end = begin;
        const T* base[1] = {in + begin};
        const long long length[1] = {end - begin};
        const long long index_offset[1] = {begin - row_begin};
        A acc[1] = {Rc::Op::identity()};
        group_fold<BLOCK, U, 1, long long, Rc>(base, length, index_offset, threadIdx.x, acc);
        const A total = block_reduce<BLOCK>(acc[0], op);
        if (threadIdx.x == 0) {
            if (chunks == 1) out[row] = Finish<A, typename Rc::Out>::apply(total, row, overflow_flag(scratch));
            else *partial_slot<A>(scratch, w) = total;
        }
    }
}

/** A warp per row folds the row's chunk partials in chunk order. */
template <class Rc, int BLOCK>
__device__ __forceinline__ void rows_combine(long long rows, long long chunks, typename Rc::Out* __restrict__ out,
                                             unsigned char* __restrict__ scratch) {
    using A = typename Rc::A;
    typename Rc::Op op;
    const int lane = threadIdx.x & 31;
    const long long warps = (long long)gridDim.x * (BLOCK / 32);
    for (long long row = (long long)blockIdx.x * (BLOCK / 32) + (threadIdx.x >> 5); row < rows; row += warps) {
        A acc = Rc::Op::identity();
        for (long long c = lane; c < chunks; c += 32) acc = op(acc, *partial_slot<A>(scratch, row * chunks + c));
        acc = warp_reduce(acc, op);
        if (lane == 0) out[row] = Finish<A, typename Rc::Out>::apply(acc, row, overflow_flag(scratch));
    }
}

// ---------------------------------------------------------------------------------------------
// CSR segments
// ---------------------------------------------------------------------------------------------

/**
 * One queued piece of a long segment: elements [begin, end), up to ITEM_CHUNKS chunks of it,
 * indices counted from index_base (the segment's start), its partial into slot; a negative slot,
 * -1 - s, marks an item that is all of segment s, its result written to out[s]. Everything the
 * block needs is in the item, so it starts loading after a single dependent read.
 */
struct LongWork {
    long long begin;
    long long end;
    long long index_base;
    long long slot;
};

/** C: the chunk length, from the flat total alone, so every kernel derives the same one. */
__device__ __forceinline__ long long long_chunk_length(long long total) {
    if (total < 0) total = 0;
    long long c = (total + Constants::MAX_CHUNKS - 1) / Constants::MAX_CHUNKS;
    if (c < Constants::LONG_CHUNK_MIN) c = Constants::LONG_CHUNK_MIN;
    return (c + Constants::CHUNK_ALIGN - 1) / Constants::CHUNK_ALIGN * Constants::CHUNK_ALIGN;
}

__device__ __forceinline__ unsigned long long* item_count(unsigned char* scratch) {
    return reinterpret_cast<unsigned long long*>(scratch + Constants::ITEM_COUNT_OFFSET);
}
__device__ __forceinline__ unsigned long long* long_count(unsigned char* scratch) {
    return reinterpret_cast<unsigned long long*>(scratch + Constants::LONG_COUNT_OFFSET);
}
__device__ __forceinline__ unsigned* malformed_flags(unsigned char* scratch) {
    return reinterpret_cast<unsigned*>(scratch + Constants::MALFORMED_OFFSET);
}
__device__ __forceinline__ unsigned long long* first_decrease(unsigned char* scratch) {
    return reinterpret_cast<unsigned long long*>(scratch + Constants::FIRST_DECREASE_OFFSET);
}
__device__ __forceinline__ LongWork* work_items(unsigned char* scratch) {
    return reinterpret_cast<LongWork*>(scratch + Constants::HEADER_BYTES
                                       + 2 * Constants::MAX_CHUNKS * Constants::SLOT_BYTES);
}
__device__ __forceinline__ long long* long_segments(unsigned char* scratch) {
    return reinterpret_cast<long long*>(scratch + Constants::HEADER_BYTES
                                        + 2 * Constants::MAX_CHUNKS * Constants::SLOT_BYTES
                                        + 2 * Constants::MAX_CHUNKS * (long long)sizeof(LongWork));
}

/** The partial slot of long segment [start, ...) in chunk j: 2j if it covers the chunk's start. */
__device__ __forceinline__ long long long_slot(long long start, long long flat_base, long long chunk_length,
                                               long long j) {
    return 2 * j + (start > flat_base + j * chunk_length ? 1 : 0);
}

/** The smaller of a queue counter and its capacity (the counter passes it only for malformed offsets). */
__device__ __forceinline__ long long clamp_count(unsigned long long count, long long capacity) {
    return count < (unsigned long long)capacity ? (long long)count : capacity;
}

/** Segment s starts at offsets[s] (CSR segments). */
struct OffsetStarts {
    const long long* offsets;
    __device__ __forceinline__ long long operator()(long long s) const { return __ldg(offsets + s); }
};

/** Segment s starts at s * cols (the rows of a row-major matrix, as segments). */
struct RowStarts {
    long long cols;
    __device__ __forceinline__ long long operator()(long long s) const { return s * cols; }
};

/** A warp's view of its 32 consecutive segments (see read_warp_segments). */
struct WarpSegments {
    long long flat_base, flat_end;  // starts(0), starts(nseg)
    long long chunk_length;         // C
    long long start, end;           // this lane's segment, clamped into [flat_base, flat_end]
    bool valid;                     // this lane has a segment (first_segment + lane < nseg)
};

/**
 * Reads segment first_segment + lane's bounds for the whole warp, and checks them: when
 * 0 <= starts(0) <= starts(nseg) <= in_length fails it raises BAD_BOUNDS and returns false (for the
 * whole warp: nothing may be read); a decreasing pair raises DECREASING (keeping the first such s)
 * and reads as an empty segment; every segment is clamped into [starts(0), starts(nseg)], so none
 * reaches outside in (a no-op for valid offsets).
 */
template <class Starts>
__device__ __forceinline__ bool read_warp_segments(Starts starts, long long first_segment, long long nseg,
                                                   long long in_length, unsigned char* scratch, WarpSegments& w) {
    const long long s = first_segment + (threadIdx.x & 31);
    w.valid = s < nseg;
    w.flat_base = starts(0);
    w.flat_end = starts(nseg);
    if (w.flat_base < 0 || w.flat_end < w.flat_base || w.flat_end > in_length) {
        if (blockIdx.x == 0 && threadIdx.x == 0) atomicOr(malformed_flags(scratch), Constants::BAD_BOUNDS);
        return false;
    }
    w.chunk_length = long_chunk_length(w.flat_end - w.flat_base);
    long long start = 0, end = 0;
    if (w.valid) {
        start = starts(s);
        end = starts(s + 1);
        if (end < start) {
            atomicOr(malformed_flags(scratch), Constants::DECREASING);
            mark_overflow(first_decrease(scratch), s);  // keeps the smallest s, as for the overflow flag
        }
        start = start < w.flat_base ? w.flat_base : start > w.flat_end ? w.flat_end : start;
        end = end < start ? start : end > w.flat_end ? w.flat_end : end;
    }
    w.start = start;
    w.end = end;
    return true;
}

/** A short segment folded by one lane, SHORT_BATCH loads in flight, in index order. */
template <class Rc>
__device__ __forceinline__ typename Rc::A lane_fold(const typename Rc::T* __restrict__ in, long long start, int n) {
    using T = typename Rc::T;
    using A = typename Rc::A;
    constexpr int SHORT_BATCH = 8;
    typename Rc::Op op;
    A acc = Rc::Op::identity();
    for (int i0 = 0; i0 < n; i0 += SHORT_BATCH) {
        T items[SHORT_BATCH];
#pragma unroll
        for (int k = 0; k < SHORT_BATCH; ++k) {
            if (i0 + k < n) items[k] = in[start + i0 + k];
        }
#pragma unroll
        for (int k = 0; k < SHORT_BATCH; ++k) {
            if (i0 + k < n) acc = op(acc, Lift<T, A>::apply(items[k], i0 + k));
        }
    }
    return acc;
}

/**
 * Queues the long segments of the warp (lanes set in long_mask): one work item per ITEM_CHUNKS
 * chunks a segment meets and, for a segment of more than one item, its id for the combine. A
 * segment of one item is marked in the item's slot (-1 - s) and written by segments_long itself.
 * One reservation per warp on each counter (a scan of the lanes' item counts), then the whole warp
 * writes the items, one segment at a time. All 32 lanes call it.
 */
__device__ __forceinline__ void queue_long_segments(unsigned long_mask, const WarpSegments& w,
                                                    long long first_segment, unsigned char* scratch) {
    constexpr unsigned FULL = 0xffffffffu;
    if (long_mask == 0) return;  // a ballot: the same for the whole warp
    const int lane = threadIdx.x & 31;
    long long first_chunk = 0, items = 0;
    if ((long_mask >> lane) & 1u) {
        first_chunk = (w.start - w.flat_base) / w.chunk_length;
        const long long last_chunk = (w.end - 1 - w.flat_base) / w.chunk_length;
        // Clamped segments always lie within the chunks, so this guard never fires; it stays so that
        // nothing can overrun scratch.
        if (first_chunk < 0 || last_chunk >= Constants::MAX_CHUNKS) {
            atomicOr(malformed_flags(scratch), Constants::QUEUE_FULL);
        } else {
            items = (last_chunk - first_chunk) / Constants::ITEM_CHUNKS + 1;
        }
    }
    long long items_before = items;  // inclusive scan over the lanes, then exclusive
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
        const long long x = __shfl_up_sync(FULL, items_before, d);
        if (lane >= d) items_before += x;
    }
    const long long total_items = __shfl_sync(FULL, items_before, 31);
    items_before -= items;
    const unsigned combined = __ballot_sync(FULL, items > 1);
    unsigned long long item_base = 0, id_base = 0;
    if (lane == 0) {
        item_base = atomicAdd(item_count(scratch), (unsigned long long)total_items);
        if (combined) id_base = atomicAdd(long_count(scratch), (unsigned long long)__popc(combined));
        // Past a capacity only for overlapping segments: nothing is written there, the host is told.
        if (item_base + (unsigned long long)total_items > (unsigned long long)Constants::ITEM_CAPACITY
            || id_base + (unsigned long long)__popc(combined) > (unsigned long long)Constants::LONG_CAPACITY) {
            atomicOr(malformed_flags(scratch), Constants::QUEUE_FULL);
        }
    }
    item_base = __shfl_sync(FULL, item_base, 0);
    id_base = __shfl_sync(FULL, id_base, 0);
    if (items > 1) {
        const unsigned long long id = id_base + (unsigned long long)__popc(combined & ((1u << lane) - 1u));
        if (id < (unsigned long long)Constants::LONG_CAPACITY) long_segments(scratch)[id] = first_segment + lane;
    }
    for (unsigned pending = long_mask; pending; pending &= pending - 1) {
        const int b = __ffs(pending) - 1;
        const long long seg_start = __shfl_sync(FULL, w.start, b);
        const long long seg_end = __shfl_sync(FULL, w.end, b);
        const long long seg_first_chunk = __shfl_sync(FULL, first_chunk, b);
        const long long seg_items = __shfl_sync(FULL, items, b);
        const unsigned long long base = item_base + (unsigned long long)__shfl_sync(FULL, items_before, b);
        for (long long t = lane; t < seg_items; t += 32) {
            const long long chunk = seg_first_chunk + t * Constants::ITEM_CHUNKS;
            const long long chunk_begin = w.flat_base + chunk * w.chunk_length;
            const long long item_end = chunk_begin + Constants::ITEM_CHUNKS * w.chunk_length;
            if (base + t >= (unsigned long long)Constants::ITEM_CAPACITY) break;
            const long long slot = seg_items == 1 ? -1 - (first_segment + b)
                                                  : long_slot(seg_start, w.flat_base, w.chunk_length, chunk);
            work_items(scratch)[base + t] = LongWork{seg_start > chunk_begin ? seg_start : chunk_begin,
                                                     seg_end < item_end ? seg_end : item_end, seg_start, slot};
        }
    }
}

/**
 * A warp per 32 consecutive segments; see the header comment. in_length: the elements of in;
 * offsets[0] and offsets[nseg] must lie in [0, in_length], else nothing is read.
 */
template <class Rc, int BLOCK>
__device__ __forceinline__ void segments_small(const typename Rc::T* __restrict__ in,
                                               const long long* __restrict__ offsets, long long nseg,
                                               long long in_length, typename Rc::Out* __restrict__ out,
                                               unsigned char* __restrict__ scratch) {
    using T = typename Rc::T;
    using A = typename Rc::A;
    using Out = typename Rc::Out;
    constexpr unsigned FULL = 0xffffffffu;
    typename Rc::Op op;
    const int lane = threadIdx.x & 31;
    const long long first_segment = ((long long)blockIdx.x * (BLOCK / 32) + (threadIdx.x >> 5)) * 32;
    if (first_segment >= nseg) return;  // the whole warp
    WarpSegments w;
    if (!read_warp_segments(OffsetStarts{offsets}, first_segment, nseg, in_length, scratch, w)) return;
    const long long s = first_segment + lane;
    const long long length = w.end - w.start;
    unsigned long long* flag = overflow_flag(scratch);

    // Short: this lane alone.
    if (w.valid && length <= Constants::SHORT_SEGMENT) out[s] = Finish<A, Out>::apply(lane_fold<Rc>(in, w.start, (int)length), s, flag);

    // Medium: the whole warp, two segments at a time.
    unsigned medium = __ballot_sync(FULL, w.valid && length > Constants::SHORT_SEGMENT && length <= w.chunk_length);
    while (medium) {
        const int a = __ffs(medium) - 1;
        medium &= medium - 1;
        const int b = medium ? __ffs(medium) - 1 : a;
        const bool two = medium != 0;
        if (two) medium &= medium - 1;
        const long long start_a = __shfl_sync(FULL, w.start, a);
        const long long start_b = __shfl_sync(FULL, w.start, b);
        const T* base[2] = {in + start_a, in + start_b};
        const int lengths[2] = {(int)(__shfl_sync(FULL, w.end, a) - start_a),
                                two ? (int)(__shfl_sync(FULL, w.end, b) - start_b) : 0};
        const long long index_offset[2] = {0, 0};
        A acc[2] = {Rc::Op::identity(), Rc::Op::identity()};
        group_fold<32, Constants::MEDIUM_VECS_PER_LANE, 2, int, Rc>(base, lengths, index_offset, lane, acc);
        acc[0] = warp_reduce(acc[0], op);
        acc[1] = warp_reduce(acc[1], op);
        if (lane == 0) {
            out[first_segment + a] = Finish<A, Out>::apply(acc[0], first_segment + a, flag);
            if (two) out[first_segment + b] = Finish<A, Out>::apply(acc[1], first_segment + b, flag);
        }
    }

    // Long: queued for segments_long.
    queue_long_segments(__ballot_sync(FULL, w.valid && length > w.chunk_length), w, first_segment, scratch);
}

/**
 * Persistent blocks: a block per queued work item, its partial into the item's slot, or, for an
 * item that is its whole segment (slot -1 - s), the result into out[s].
 */
template <class Rc, int BLOCK, int U>
__device__ __forceinline__ void segments_long(const typename Rc::T* __restrict__ in, typename Rc::Out* __restrict__ out,
                                              unsigned char* __restrict__ scratch) {
    using A = typename Rc::A;
    typename Rc::Op op;
    if (*malformed_flags(scratch) != 0) return;  // the host throws; items may be missing
    const long long items = clamp_count(*item_count(scratch), Constants::ITEM_CAPACITY);
    const LongWork* work = work_items(scratch);
    for (long long i = blockIdx.x; i < items; i += gridDim.x) {
        const LongWork item = work[i];
        const typename Rc::T* base[1] = {in + item.begin};
        const long long length[1] = {item.end > item.begin ? item.end - item.begin : 0};
        const long long index_offset[1] = {item.begin - item.index_base};
        A acc[1] = {Rc::Op::identity()};
        group_fold<BLOCK, U, 1, long long, Rc>(base, length, index_offset, threadIdx.x, acc);
        const A total = block_reduce<BLOCK>(acc[0], op);
        if (threadIdx.x == 0) {
            if (item.slot >= 0) {
                *partial_slot<A>(scratch, item.slot) = total;
            } else {
                const long long s = -1 - item.slot;
                out[s] = Finish<A, typename Rc::Out>::apply(total, s, overflow_flag(scratch));
            }
        }
    }
}

/**
 * Persistent blocks: a block per long segment of several items folds their partials in order. ORDERED (for
 * operators that need not commute): each thread folds a contiguous run of the partials and the
 * threads combine in thread order; otherwise threads take every BLOCK-th partial, four loads in
 * flight, and combine by butterflies. starts: OffsetStarts or RowStarts, as for the small kernel.
 */
template <class Rc, int BLOCK, bool ORDERED = false, class Starts = OffsetStarts>
__device__ __forceinline__ void segments_combine(Starts starts, long long nseg, typename Rc::Out* __restrict__ out,
                                                 unsigned char* __restrict__ scratch) {
    using A = typename Rc::A;
    typename Rc::Op op;
    if (*malformed_flags(scratch) != 0) return;  // the host throws; ids or partials may be missing
    const long long longs = clamp_count(*long_count(scratch), Constants::LONG_CAPACITY);
    if (longs == 0) return;
    const long long flat_base = starts(0);
    const long long chunk_length = long_chunk_length(starts(nseg) - flat_base);
    const long long* ids = long_segments(scratch);
    for (long long i = blockIdx.x; i < longs; i += gridDim.x) {
        const long long s = ids[i];
        const long long seg_start = starts(s);
        const long long seg_end = starts(s + 1);
        const long long first_chunk = (seg_start - flat_base) / chunk_length;
        const long long items = ((seg_end - 1 - flat_base) / chunk_length - first_chunk) / Constants::ITEM_CHUNKS + 1;
        auto partial = [&](long long k) {
            return *partial_slot<A>(scratch, long_slot(seg_start, flat_base, chunk_length,
                                                        first_chunk + k * Constants::ITEM_CHUNKS));
        };
        A acc = Rc::Op::identity();
        A total;
        if constexpr (ORDERED) {
            const long long per_thread = (items + BLOCK - 1) / BLOCK;
            const long long first = threadIdx.x * per_thread;
            const long long last = first + per_thread < items ? first + per_thread : items;
            for (long long k = first; k < last; ++k) acc = op(acc, partial(k));
            total = block_reduce_ordered<BLOCK>(acc, op);
        } else {
#pragma unroll 4
            for (long long k = threadIdx.x; k < items; k += BLOCK) acc = op(acc, partial(k));
            total = block_reduce<BLOCK>(acc, op);
        }
        if (threadIdx.x == 0) out[s] = Finish<A, typename Rc::Out>::apply(total, s, overflow_flag(scratch));
    }
}

}  // namespace segmented
}  // namespace primer
