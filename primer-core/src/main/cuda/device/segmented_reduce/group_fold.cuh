// The building block of every kernel here: group_fold, G cooperating threads (a few lanes, a warp
// or a whole block) folding a range [begin, end) of one row into per-thread accumulators; and
// group_reduce and group_reduce_rows, which combine one row's or several rows' accumulators across
// a group of lanes.
//
// The range is cut into [head | body | tail]: scalar loads up to the first 16-byte boundary (rows
// start anywhere when cols is odd), 16-byte vector loads for the body, scalars for the rest. Every
// thread issues the loads of a whole batch (U vectors for each of R rows) before it folds any of
// them, and issues the next batch before folding the current one, so enough bytes are in flight
// to keep HBM busy even when a row gives a thread a single vector.
#pragma once
#include "../../warp/warp_reduce.cuh"
#include "recipe.cuh"
#include "vector_fold.cuh"

namespace primer {
namespace segmented {

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
    using V = Vec16<T>;
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

/** A lane's rows after group_reduce_rows: acc[0 .. count) are the totals of rows first .. first + count - 1. */
struct GroupRows {
    int first;
    int count;  // 0: another lane of the group writes these rows
};

/**
 * A lane's partial combined with its partner's at one step of a group reduce. ORDERED keeps lane
 * order (the lower lane's partial first), for operators that need not commute; otherwise the lane's
 * own partial comes first, which the built-in operators allow (they commute bit for bit).
 */
template <bool ORDERED, typename A, typename Op>
__device__ __forceinline__ A combine_with_partner(A mine, A got, bool upper, Op op) {
    if constexpr (ORDERED) return op(upper ? got : mine, upper ? mine : got);  // one op, its operands selected
    else return op(mine, got);
}

/**
 * Combines R = 2^LOG2_R rows' accumulators (acc[r]: row r) across each aligned group of
 * 2^log2_lanes lanes. While a lane holds more than one row, each step halves them: at offset 1,
 * 2, 4, ... the lane whose offset bit is set keeps the upper half of its rows, its partner the lower
 * half, and each sends the half it drops: R - 1 values cross lanes in the first LOG2_R steps where
 * a reduce per row sends R at every step (measured on an H200, 4M x 64 float32 sums in float64: 0.320
 * -> 0.272 ms, bench/lab/rows_group_lab.cu). Then the single row left is reduced as usual. Offsets
 * rise, so each partial covers adjacent lanes and ORDERED keeps lane order. The lanes that differ
 * only in their higher bits end with the same totals; the one with those bits clear gets a nonzero
 * count.
 */
template <int LOG2_R, bool ORDERED, typename A, typename Op>
__device__ __forceinline__ GroupRows group_reduce_rows(A (&acc)[1 << LOG2_R], int log2_lanes, int lane_in_group, Op op) {
    constexpr int R = 1 << LOG2_R;
    int first = 0;
#pragma unroll
    for (int k = 0; k < 5; ++k) {
        if (k >= log2_lanes) break;  // the same for the whole warp
        const int offset = 1 << k;
        const bool upper = (lane_in_group & offset) != 0;
        if (k < LOG2_R) {
            const int half = R >> (k + 1);
#pragma unroll
            for (int i = 0; i < half; ++i) {
                const A low = acc[i], high = acc[i + half];  // copies: a select between array elements would take an address
                const A got = detail::shfl_xor(upper ? low : high, offset);
                acc[i] = combine_with_partner<ORDERED>(upper ? high : low, got, upper, op);
            }
            first += upper ? half : 0;
        } else {
            acc[0] = combine_with_partner<ORDERED>(acc[0], detail::shfl_xor(acc[0], offset), upper, op);
        }
    }
    const int halvings = log2_lanes < LOG2_R ? log2_lanes : LOG2_R;
    return {first, (lane_in_group >> halvings) == 0 ? R >> halvings : 0};
}

}  // namespace segmented
}  // namespace primer
