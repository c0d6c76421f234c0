// Block-wide scan of items held in registers.
//
// Arrangement ("rows"): warp w owns the contiguous run of 32 * ROWS * VEC items starting at
// w * 32 * ROWS * VEC; within it, row r is the next 32 * VEC items, and lane l holds the VEC
// consecutive items [l * VEC, (l + 1) * VEC) of each row.
//   ROWS == 1: the classic blocked arrangement (thread t holds items [t * VEC, (t + 1) * VEC)).
//   ROWS > 1, VEC items = 16 bytes: exactly what coalesced 16-byte loads deliver (each load
//   instruction of a warp covers one row), so a device scan needs no shared-memory transpose.
//
// How: each thread scans its VEC items (caller, or the blocked wrappers below); each row's VEC-item
// totals are scanned across the lanes (warp_inclusive_scan, the rows independent of one another, so
// their shuffles overlap); rows are chained in order inside the warp; lane 0 of each warp leaves the
// warp's total in shared memory; after a barrier warp 0 scans the (at most 32) warp totals and, if
// the caller supplied one, asks for the block's prefix (a device scan's look-back); after a second
// barrier every chunk knows everything before it.
//
// Every combination keeps the earlier operand on the left and the same association on every run:
// non-commutative operators work and float results are reproducible bitwise.
// Every thread of the block must call (barriers inside); blocks are 1-D with BLOCK_THREADS threads.
// Storage may be reused by the next call without a barrier in between (see the comment in the code).
#pragma once
#include "../ops.cuh"
#include "../warp/warp_scan.cuh"

namespace primer {

template <typename T, int BLOCK_THREADS>
struct BlockScanStorage {
    T warp_total[BLOCK_THREADS / 32];
    T warp_prefix[BLOCK_THREADS / 32];
    T aggregate;
};

/** Pass as block_prefix when the block has nothing before it. */
struct NoBlockPrefix {};

namespace block_scan_detail {
template <typename P> struct HasBlockPrefix { static constexpr bool value = true; };
template <> struct HasBlockPrefix<NoBlockPrefix> { static constexpr bool value = false; };

template <typename T> struct ConstantPrefix {
    T value;
    __device__ __forceinline__ T operator()(T) const { return value; }
};
}  // namespace block_scan_detail

/**
 * chunk_total[r]: this thread's total of its VEC items in row r. On return prefix[r] holds the
 * combination of everything before that chunk in the block, preceded by the block prefix:
 *   block_prefix(aggregate) is called once, by all 32 lanes of warp 0, with the block's aggregate,
 *   and must return the value that precedes the block (the same in every lane) -- for a device
 *   scan, the tile's exclusive prefix from the look-back. With NoBlockPrefix the first chunk of
 *   thread 0 has nothing before it and its prefix[0] is unspecified.
 * Returns the block's aggregate (without the block prefix) in every thread.
 */
template <int BLOCK_THREADS, int ROWS, typename T, typename Op, typename BlockPrefix>
__device__ __forceinline__ T block_scan_chunk_prefixes(const T (&chunk_total)[ROWS], T (&prefix)[ROWS], Op op,
                                                       BlockScanStorage<T, BLOCK_THREADS>& storage,
                                                       BlockPrefix& block_prefix) {
    static_assert(BLOCK_THREADS % 32 == 0 && BLOCK_THREADS >= 32 && BLOCK_THREADS <= 1024,
                  "BLOCK_THREADS: a multiple of 32, at most 1024");
    constexpr int WARPS = BLOCK_THREADS / 32;
    constexpr bool HAS_BLOCK_PREFIX = block_scan_detail::HasBlockPrefix<BlockPrefix>::value;
    const unsigned lane = lane_id();
    const unsigned warp = threadIdx.x / 32;

    // 1. Each row across the lanes.
    T inclusive[ROWS], row_total[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) inclusive[r] = warp_inclusive_scan(chunk_total[r], op, row_total[r]);

    // 2. Chain the rows: chunk (lane, r) follows rows 0..r-1 and lanes 0..lane-1 of row r.
    //    Lane 0 of row 0 has nothing before it in the warp; its prefix[0] is fixed up in step 4.
    T carry = row_total[0];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        const T left = warp_shfl_up(inclusive[r], 1);
        if (r == 0) {
            prefix[0] = left;
        } else {
            prefix[r] = lane == 0 ? carry : op(carry, left);
            carry = op(carry, row_total[r]);
        }
    }
    const T warp_total = carry;

    // 3. The warps. Reuse without a barrier between calls is safe: warp_total is read (by warp 0)
    //    before the second barrier of a call and written after it in the next; warp_prefix and
    //    aggregate are read after the second barrier and written after the next call's first.
    if (lane == 0) storage.warp_total[warp] = warp_total;
    __syncthreads();
    if (warp == 0) {
        const T total = storage.warp_total[lane < WARPS ? lane : WARPS - 1];
        const T warps_inclusive = warp_inclusive_scan(total, op);
        const T aggregate = warp_shfl(warps_inclusive, WARPS - 1);
        const T left = warp_shfl_up(warps_inclusive, 1);
        T before_warp = left;  // lane 0 without a block prefix: unspecified, never used
        if constexpr (HAS_BLOCK_PREFIX) {
            const T before_block = block_prefix(aggregate);
            before_warp = lane == 0 ? before_block : op(before_block, left);
        }
        if (lane < WARPS) storage.warp_prefix[lane] = before_warp;
        if (lane == 0) storage.aggregate = aggregate;
    }
    __syncthreads();

    // 4. Put the warp's prefix in front.
    const bool has_warp_prefix = HAS_BLOCK_PREFIX || warp != 0;
    const T before_warp = storage.warp_prefix[warp];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        const bool has_chunk_prefix = r != 0 || lane != 0;
        if (has_warp_prefix) prefix[r] = has_chunk_prefix ? op(before_warp, prefix[r]) : before_warp;
    }
    return storage.aggregate;
}

/** Inclusive scan of each thread's ITEMS consecutive items, in place (blocked arrangement). */
template <int ITEMS, typename T, typename Op>
__device__ __forceinline__ void thread_inclusive_scan(T (&items)[ITEMS], Op op) {
#pragma unroll
    for (int k = 1; k < ITEMS; ++k) items[k] = op(items[k - 1], items[k]);
}

/**
 * Blocked arrangement: thread t holds items [t * ITEMS, (t + 1) * ITEMS) of the block's sequence.
 * Afterwards items[k] = item_0 op ... op (this item). Returns the block's aggregate.
 */
template <int BLOCK_THREADS, int ITEMS, typename T, typename Op>
__device__ __forceinline__ T block_inclusive_scan(T (&items)[ITEMS], Op op,
                                                  BlockScanStorage<T, BLOCK_THREADS>& storage) {
    thread_inclusive_scan(items, op);
    const T total[1] = {items[ITEMS - 1]};
    T prefix[1];
    NoBlockPrefix none;
    const T aggregate = block_scan_chunk_prefixes<BLOCK_THREADS, 1>(total, prefix, op, storage, none);
    if (threadIdx.x != 0) {
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) items[k] = op(prefix[0], items[k]);
    }
    return aggregate;
}

/**
 * As above, preceded by block_prefix(aggregate) (see block_scan_chunk_prefixes): items[k] =
 * prefix op item_0 op ... op (this item).
 */
template <int BLOCK_THREADS, int ITEMS, typename T, typename Op, typename BlockPrefix>
__device__ __forceinline__ T block_inclusive_scan(T (&items)[ITEMS], Op op, BlockScanStorage<T, BLOCK_THREADS>& storage,
                                                  BlockPrefix& block_prefix) {
    thread_inclusive_scan(items, op);
    const T total[1] = {items[ITEMS - 1]};
    T prefix[1];
    const T aggregate = block_scan_chunk_prefixes<BLOCK_THREADS, 1>(total, prefix, op, storage, block_prefix);
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) items[k] = op(prefix[0], items[k]);
    return aggregate;
}

/**
 * Blocked arrangement, exclusive, preceded by block_prefix(aggregate): items[k] = prefix op item_0
 * op ... op (the item before this one); the block's first item gets the prefix itself.
 */
template <int BLOCK_THREADS, int ITEMS, typename T, typename Op, typename BlockPrefix>
__device__ __forceinline__ T block_exclusive_scan(T (&items)[ITEMS], Op op, BlockScanStorage<T, BLOCK_THREADS>& storage,
                                                  BlockPrefix& block_prefix) {
    thread_inclusive_scan(items, op);
    const T total[1] = {items[ITEMS - 1]};
    T prefix[1];
    const T aggregate = block_scan_chunk_prefixes<BLOCK_THREADS, 1>(total, prefix, op, storage, block_prefix);
#pragma unroll
    for (int k = ITEMS - 1; k > 0; --k) items[k] = op(prefix[0], items[k - 1]);
    items[0] = prefix[0];
    return aggregate;
}

/** Blocked exclusive scan starting from init: items[k] = init op (everything before). */
template <int BLOCK_THREADS, int ITEMS, typename T, typename Op>
__device__ __forceinline__ T block_exclusive_scan(T (&items)[ITEMS], T init, Op op,
                                                  BlockScanStorage<T, BLOCK_THREADS>& storage) {
    block_scan_detail::ConstantPrefix<T> prefix{init};
    return block_exclusive_scan<BLOCK_THREADS>(items, op, storage, prefix);
}

}  // namespace primer
