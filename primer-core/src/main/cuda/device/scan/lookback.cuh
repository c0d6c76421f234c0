// Look-back. Called by all 32 lanes of one warp for a tile >= 1; returns, in every lane, the
// combination of tiles 0 .. tile-1 preceded by the init (the tile's exclusive prefix).
//
// DETERMINISM. Which predecessor a tile finds with a P differs from run to run, so CUB's look-back,
// which combines "the nearest P" with the A's after it as a tree, associates a float sum differently
// each run. Here every P is, by construction, the LEFT FOLD of the aggregates before it:
//     P_0 = init op A_0,   P_i = (...((P_j op A_(j+1)) op A_(j+2)) ... op A_(i-1)) op A_i
// where j is whichever predecessor was found with P. By induction P_j = init op A_0 op ... op A_j
// folded left to right, and folding on from it gives the same left fold whatever j was: the
// exclusive prefix of every tile is the same bits on every run, and so is every output (A_i comes
// from a reduction or the block scan, each with a fixed association). The price is that the A's
// between j and i are combined one after the other by one lane instead of as a tree: about
// (i - j) dependent operations, a few hundred cycles when j is within a window or two -- the
// common case. The values of up to LOOKBACK_WINDOWS windows are kept in shared memory; if no P
// turns up within them the warp starts again from the nearest window (tile i - 1 reaches P
// eventually, so this terminates).
// Min and max get the same bits from any association and combine each window as a tree instead
// (TreeLookback, operator_traits.cuh): a Java-semantics float max was ~10 dependent instructions per step, and
// folding it serially halved the throughput on an H200 (1.2 vs 2.2 TB/s; it is three now, ops.cuh);
// for sums, products and bitwise operators the fold is as fast as a tree.
#pragma once
#include "../../ops.cuh"
#include "../../warp/warp_reduce.cuh"
#include "../../warp/warp_scan.cuh"
#include "tile_status.cuh"

namespace primer {

namespace scan_detail {

/**
 * Waits until none of the 32 predecessors of this window is TILE_NOTHING; returns this lane's state.
 * Status: TileStatus<V> or WideTileStatus<V>.
 */
template <typename Status, typename V>
__device__ __forceinline__ unsigned poll_window(const Status& status, long long predecessor, V& value) {
    // Before tile 0 there is nothing: such lanes lie below tile 0, which is always a P, so their
    // (zero) value is never combined.
    unsigned state = TILE_AGGREGATE;
    value = V{};
    if (predecessor >= 0) state = status.poll(predecessor, value);
    while (__any_sync(0xffffffffu, state == TILE_NOTHING)) {
        if (state == TILE_NOTHING) state = status.poll(predecessor, value);
    }
    return state;
}

}  // namespace scan_detail

template <typename V, int WINDOWS, bool ORDERED>
struct LookbackStorage {
    V window[WINDOWS][32];
};
template <typename V, int WINDOWS>
struct LookbackStorage<V, WINDOWS, false> {};
/** Segmented values: the bare values (see the segmented lookback_ordered). */
template <typename T, int WINDOWS>
struct LookbackStorage<Segmented<T>, WINDOWS, true> {
    T window[WINDOWS][32];
};

/** TreeLookback operators: each window is combined as a tree. */
template <typename V, typename Op>
__device__ __forceinline__ V lookback_tree(const TileStatus<V>& status, long long tile, Op op) {
    const int lane = (int)lane_id();
    V prefix{};
    bool first_window = true;
    for (long long window_end = tile - 1;; window_end -= 32) {
        V value;
        const unsigned state = scan_detail::poll_window(status, window_end - 31 + lane, value);
        const unsigned prefixes = __ballot_sync(0xffffffffu, state == TILE_PREFIX);
        const int start = prefixes ? 31 - __clz(prefixes) : 0;  // the nearest P, or the whole window
        V window_total;
        warp_inclusive_scan(lane >= start ? value : Op::identity(), op, window_total);
        prefix = first_window ? window_total : op(window_total, prefix);  // this window lies before
        first_window = false;
        if (prefixes) return prefix;
    }
}

/** Any operator: the left fold from the nearest P found (see DETERMINISM above). */
template <int WINDOWS, typename V, typename Op>
__device__ __forceinline__ V lookback_ordered(const TileStatus<V>& status, long long tile, Op op,
                                              LookbackStorage<V, WINDOWS, true>& storage) {
    const int lane = (int)lane_id();
    int window = 0, prefix_lane = 0;
    for (;;) {
        V value;
        const unsigned state = scan_detail::poll_window(status, tile - 32 * (long long)(window + 1) + lane, value);
        storage.window[window][lane] = value;  // lane 31: the nearest predecessor
        const unsigned prefixes = __ballot_sync(0xffffffffu, state == TILE_PREFIX);
        if (prefixes) {
            prefix_lane = 31 - __clz(prefixes);
            break;
        }
        window = window + 1 == WINDOWS ? 0 : window + 1;  // out of room: start again from the nearest
    }
    __syncwarp();
    V prefix{};
    if (lane == 0) {
        prefix = storage.window[window][prefix_lane];
        for (int l = prefix_lane + 1; l < 32; ++l) prefix = op(prefix, storage.window[window][l]);
        for (int w = window - 1; w >= 0; --w) {
#pragma unroll 8
            for (int l = 0; l < 32; ++l) prefix = op(prefix, storage.window[w][l]);
        }
    }
    prefix = warp_shfl(prefix, 0);
    __syncwarp();  // the buffer may be written again only after lane 0 has read it
    return prefix;
}

/**
 * Segmented operators: the same left fold from the nearest P, on the bare values. No A holds a head
 * (a tile whose aggregate holds one publishes it as its P at once: device_scan's look_back), so
 * every pair after the P has head 0, and (v, h) op (w, 0) = (v op w, h): the fold's chain is the
 * operator alone, without the pair's select. Same bits as lookback_ordered; 2^27 float64 sums in
 * one segment 1.003 -> 0.697 ms (bench/lab/scan_heads_lab.cu).
 */
template <int WINDOWS, typename T, typename Op>
__device__ __forceinline__ Segmented<T> lookback_ordered(const TileStatus<Segmented<T>>& status, long long tile,
                                                         SegmentedOp<Op, T> scan_op,
                                                         LookbackStorage<Segmented<T>, WINDOWS, true>& storage) {
    const int lane = (int)lane_id();
    int window = 0, prefix_lane = 0;
    Segmented<T> value;
    for (;;) {
        const unsigned state = scan_detail::poll_window(status, tile - 32 * (long long)(window + 1) + lane, value);
        storage.window[window][lane] = value.value;  // lane 31: the nearest predecessor
        const unsigned prefixes = __ballot_sync(0xffffffffu, state == TILE_PREFIX);
        if (prefixes) {
            prefix_lane = 31 - __clz(prefixes);
            break;
        }
        window = window + 1 == WINDOWS ? 0 : window + 1;  // out of room: start again from the nearest
    }
    const int head = __shfl_sync(0xffffffffu, value.head, prefix_lane);  // the P's
    __syncwarp();
    T folded{};
    if (lane == 0) {
        folded = storage.window[window][prefix_lane];
        for (int l = prefix_lane + 1; l < 32; ++l) folded = scan_op.op(folded, storage.window[window][l]);
        for (int w = window - 1; w >= 0; --w) {
#pragma unroll 8
            for (int l = 0; l < 32; ++l) folded = scan_op.op(folded, storage.window[w][l]);
        }
    }
    folded = warp_shfl(folded, 0);
    __syncwarp();  // the buffer may be written again only after lane 0 has read it
    return {folded, head};
}

}  // namespace primer
