// Segmented integer sums by plain warp scans (PLAIN ROW SCANS in ../scan_kernels.cuh), and the
// int32 -> int64 chunks of WIDENING SUMS there.
//
// Integer sums wrap (mod 2^32 in int, mod 2^64 in long long), so any association gives the same
// bits, and a segmented sum needs no (value, head) pairs between lanes: the value before a chunk in
// its segment is a plain prefix sum less the plain prefix at the segment's start, and a warp's total
// is a plain sum of the shares its lanes keep. A row costs one ballot and one plain warp scan
// instead of a scan of pairs (a select and an extra shuffle a step). Segmented int8 sums (SEGMENTED
// BYTE SUMS, whose chunk totals come from byte_sums.cuh) and int32 -> int64 sums take them.
// The stage holds zeros outside [0, n) (stage_chunk), the identity of a sum, and no heads lie
// there, so nothing here needs a valid mask.
#pragma once
#include "../../ops.cuh"
#include "../../warp/warp_reduce.cuh"
#include "../../warp/warp_scan.cuh"

namespace primer {

/** Segmented scans of int32 data by a sum into int64: WIDENING SUMS in ../scan_kernels.cuh. */
template <typename Op, typename InT, typename OutT> struct WideningSums { static constexpr bool value = false; };
template <> struct WideningSums<Sum<long long>, int, long long> { static constexpr bool value = true; };

namespace scan_detail {

/**
 * A chunk's (value, head); `heads`: bit k set where item k starts a segment. Without a head, the
 * sum of its items; else init plus its items from the last head on.
 */
__device__ __forceinline__ Segmented<long long> widening_chunk_total(const int (&x)[4], unsigned heads, long long init) {
    const int last = heads ? 31 - __clz(heads) : 0;
    long long sum = heads ? init : 0;
#pragma unroll
    for (int k = 0; k < 4; ++k) sum += k >= last ? (long long)x[k] : 0;
    return {sum, heads ? 1 : 0};
}

/**
 * Folds one row's chunk totals (lane l: chunk l) into this lane's share of its warp's total: a head
 * discards everything before it, so the row's last head clears every earlier row's shares and the
 * shares of the lanes before it. The warp's total is the sum of the shares, with a head where
 * `any_heads` has a bit. Rows in order; every lane calls.
 */
template <typename V>
__device__ __forceinline__ void fold_row_share(Segmented<V> chunk, V& share, unsigned& any_heads) {
    const unsigned heads = __ballot_sync(0xffffffffu, chunk.head);
    if (heads) share = (int)lane_id() >= 31 - __clz(heads) ? chunk.value : 0;
    else share += chunk.value;
    any_heads |= heads;
}

/** The warp's (value, head) total from its lanes' shares (fold_row_share), in every lane. */
template <typename V>
__device__ __forceinline__ Segmented<V> warp_total_of_shares(V share, unsigned any_heads) {
    return {warp_reduce(share, Sum<V>{}), any_heads ? 1 : 0};
}

/**
 * Lane l's chunk's exclusive prefix within its segment (lane l: chunk l of a row); `carry`, what
 * precedes the row, becomes what precedes the next. From the plain exclusive sums E of the chunk
 * totals: E(l) - E(m) when chunk m < l is the last that holds a head (its total already starts at
 * its head), else carry + E(l).
 */
template <typename V>
__device__ __forceinline__ V segmented_sum_row_prefix(Segmented<V> chunk, V& carry) {
    const unsigned lane = lane_id();
    const unsigned heads = __ballot_sync(0xffffffffu, chunk.head);
    const V exclusive = warp_inclusive_scan(chunk.value, Sum<V>{}) - chunk.value;
    const unsigned heads_before = heads & ((1u << lane) - 1u);
    const V at_head = warp_shfl(exclusive, heads_before ? 31 - __clz(heads_before) : 0);
    const V prefix = heads_before ? exclusive - at_head : carry + exclusive;
    carry = warp_shfl(chunk.head ? chunk.value : prefix + chunk.value, 31);  // through the row's last chunk
    return prefix;
}

/** A chunk's four outputs from what precedes it in its segment. */
__device__ __forceinline__ void widening_chunk_outputs(const int (&x)[4], unsigned heads, long long prefix, long long init,
                                                       int inclusive, long long (&o)[4]) {
    long long running = prefix;
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        const long long before = (heads >> k) & 1u ? init : running;
        running = before + x[k];
        o[k] = inclusive ? running : before;
    }
}

}  // namespace scan_detail
}  // namespace primer
