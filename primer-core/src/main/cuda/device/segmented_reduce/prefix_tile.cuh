// The merge path's tile for integer sums and xor of values of up to 4 bytes (segreduce_merge_path_* of
// those recipes): a segment's part in the tile is the difference of two of the tile's prefix sums,
// P(end) - P(start) (for xor, P(end) ^ P(start)), exact in the recipe's wrapping integers (int8 and
// int32 sums in 64 bits), so no thread folds a segment's values and nothing branches on where
// segments end.
//
// Why: marked_tile.cuh folds runs of values and closes a segment where its mark says, a branch that
// some lane of a warp takes at most value slots. Bound by instructions issued, its tile took as long
// for int8 as for float32 (188 us, 134.6 M warp instructions, 2^26 values in 12.8M power-law
// segments; step 83), a quarter of the copy's speed. Here the values are summed a group of four at a
// time in two passes (int8 sums: one dp4a a group), whatever the segments, and each segment costs
// two lookups of P in shared memory and a subtraction.
//
//   P(x), the combination of the tile's first x values (x in [0, nb]): the tile's values are places
//   [lead, lead + nb) of the stage (lead < 16: 16-byte pieces line up; places before lead and past the
//   last value up to a whole group hold zero), place q = lead + x; group_prefix[g] holds the combination of
//   places [0, 4g), and P(x) adds the q % 4 places of q's group before q.
//   Each thread takes 4G consecutive places (G odd, as marked_tile.cuh), sums them, a block-wide
//   exclusive scan gives each thread what precedes its places, and a second pass writes the prefix
//   of each of its groups.
//   Segment i0 + k closing in the tile (a lane each, a warp taking 32 consecutive ones a round): its
//   result is P(e) - P(s) (e, s: its end and start, relative to the tile, clamped into it; P(s) is the
//   lane before's P(e)), or, when it began in an earlier tile, its part P(e) goes to the tile's first
//   slot; the tile's open partial, P(nb) - P(end of its last closed segment), to its open slot.
//   merge_path_fixup combines those slots as for every other recipe.
// Measured: bench/results/2026-11-26-nvidia-h200-step84-ab.md (int8 sums 25% faster on power laws,
// int32 27%).
// Step 91: thread 0 asks L2 for the tile's own offsets as it starts (its warps read them only after
// the block scan) and for tile t + 192's values and offsets (merge_path_prefetch_ahead), whose block
// starts soon after. Power law, 2^26 int8 values, ms: 0.179-0.185 -> 0.163-0.166 (own offsets) ->
// 0.157-0.158; the tile kernel 132 -> 116 -> 110 us; int32 about 2% faster; 96 tiles ahead gained
// less, 384 as much (bench/results/2026-11-26-nvidia-h200-step91-ab.md). The marked tile ran 5-8%
// slower with the same prefetch ahead (its L2 already 90% busy) and keeps none.
#pragma once
#include "marked_tile.cuh"

namespace primer {
namespace segmented {

/**
 * Undo<Op>::apply(later, earlier): what `later` holds beyond `earlier` (later = earlier op result),
 * for the operators whose combinations can be taken back exactly; `defined` says which those are.
 */
template <typename Op> struct Undo { static constexpr bool defined = false; };
template <> struct Undo<Sum<unsigned long long>> {
    static constexpr bool defined = true;
    static __device__ __forceinline__ unsigned long long apply(unsigned long long later, unsigned long long earlier) {
        return later - earlier;
    }
};
template <typename T> struct Undo<BitXor<T>> {
    static constexpr bool defined = true;
    static __device__ __forceinline__ T apply(T later, T earlier) { return later ^ earlier; }
};

/**
 * Whether recipe Rc's tiles take prefix differences: integer sums and xor (Undo defined) of values of
 * up to 4 bytes. int64 sums (128 bits) ran slower so: 2^26 values in 12.8M power-law segments, the
 * tile kernel 257 -> 277 us though its warp instructions fell 203 M -> 170 M (achieved occupancy 60%
 * -> 53%; step 84, bench/results/2026-11-26-nvidia-h200-step84-ab.md).
 */
template <class Rc>
constexpr bool ByPrefixDifferences = Undo<typename Rc::Op>::defined && sizeof(typename Rc::T) <= 4;

template <class Rc, int BLOCK, int ITEMS>
struct PrefixTileStorage {
    static constexpr int TILE = BLOCK * ITEMS;
    static constexpr int PAD = 32;  // lead < 16, then up to 3 zeros to the end of the last group
    alignas(32) typename Rc::T values[TILE + PAD];
    alignas(16) typename Rc::A group_prefix[(TILE + PAD) / 4 + 1];  // places [0, 4g) combined
    BlockScanStorage<typename Rc::A, BLOCK> scan;
};

template <typename Op> constexpr bool IsSum = false;
template <typename A> constexpr bool IsSum<Sum<A>> = true;
/** Int8 sums: one dp4a sums a word's four signed bytes. */
template <class Rc> constexpr bool SumsBytes = sizeof(typename Rc::T) == 1 && IsSum<typename Rc::Op>;

/** The combination of group g's first `count` places (0 to 4); places past count do not enter. */
template <class Rc>
__device__ __forceinline__ typename Rc::A group_head(const typename Rc::T* values, int g, int count) {
    using T = typename Rc::T;
    using A = typename Rc::A;
    using Op = typename Rc::Op;
    if constexpr (SumsBytes<Rc>) {
        const unsigned word = *reinterpret_cast<const unsigned*>(values + 4 * g);
        const unsigned kept = count >= 4 ? word : word & ((1u << (8 * count)) - 1u);
        return (A)(long long)__dp4a((int)kept, 0x01010101, 0);
    } else {
        const FourOf<T> v = *reinterpret_cast<const FourOf<T>*>(values + 4 * g);
        Op op;
        A acc = Op::identity();
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            if (i < count) acc = op(acc, Lift<T, A>::apply(v.x[i], 0));
        }
        return acc;
    }
}

/** P at place q: places [0, q) combined. */
template <class Rc, int BLOCK, int ITEMS>
__device__ __forceinline__ typename Rc::A prefix_at(const PrefixTileStorage<Rc, BLOCK, ITEMS>& smem, int q) {
    typename Rc::Op op;
    return op(smem.group_prefix[q >> 2], group_head<Rc>(smem.values, q >> 2, q & 3));
}

/** Tile t of BLOCK * ITEMS merge steps by prefix differences (see the top of this file). */
template <class Rc, int BLOCK, int ITEMS>
__device__ __forceinline__ void merge_path_prefix_tile(const typename Rc::T* __restrict__ in,
                                                       const long long* __restrict__ offsets, long long nseg,
                                                       long long in_length, long long tiles, long long t,
                                                       typename Rc::Out* __restrict__ out,
                                                       unsigned char* __restrict__ scratch) {
    using T = typename Rc::T;
    using A = typename Rc::A;
    using Op = typename Rc::Op;
    using Storage = PrefixTileStorage<Rc, BLOCK, ITEMS>;
    constexpr int ROUNDS = 2;  // rounds of a warp's end offsets in flight at once (4 spilled at 40 registers)
    __shared__ Storage smem;
    Op op;
    FlatRange range;
    MergePathSpan span;
    if (!merge_path_span(offsets, nseg, in_length, (long long)BLOCK * ITEMS, t, scratch, range, span)) return;
    const int tid = threadIdx.x, nb = span.nb;
    const long long first_value = range.base + span.j0;
    // Its warps read the offsets of the segments closing here only after the staging and the block
    // scan: L2 is asked for them now, and, once the staging is issued, for a later tile's values and offsets.
    if (tid == 0) prefetch_l2(offsets + span.i0, 8ll * (span.na + 1));

    const int lead = stage_values_aligned<T, BLOCK, true>(in + first_value, nb, smem.values);  // value p at lead + p
    if (tid == 0) merge_path_prefetch_ahead(in, offsets, range, nseg, (long long)BLOCK * ITEMS, tiles, t, scratch);
    const int places = lead + nb;
    // Zeros before the first value and up to the end of the last group: they add nothing to any sum.
    if (tid < lead) smem.values[tid] = T(0);
    if (tid < ((4 - (places & 3)) & 3)) smem.values[places + tid] = T(0);
    asm volatile("cp.async.wait_all;" ::: "memory");
    __syncthreads();

    // This thread's places: G groups of four from group g0 on, G odd (as marked_tile.cuh: conflict-free).
    const int groups = ((places + 4 * BLOCK - 1) / (4 * BLOCK)) | 1;
    const int g0 = tid * groups;
    A mine[1] = {Op::identity()};
    for (int g = g0; g < g0 + groups && 4 * g < places; ++g) mine[0] = op(mine[0], group_head<Rc>(smem.values, g, 4));
    const A total = block_exclusive_scan<BLOCK, 1>(mine, Op::identity(), op, smem.scan);
    A running = mine[0];
    for (int g = g0; g < g0 + groups && 4 * g < places; ++g) {
        smem.group_prefix[g] = running;
        running = op(running, group_head<Rc>(smem.values, g, 4));
    }
    if (tid == 0 && (places & 3) == 0) smem.group_prefix[places >> 2] = total;  // P(nb) where no group holds it
    __syncthreads();

    // The segments closing here, ROUNDS * 32 consecutive ones a warp at a time: each lane looks up P at
    // its segment's end; P at its start is the lane before's (lane 0: the previous round's lane 31,
    // or in the first round a lookup at the start of the warp's first segment).
    typename Rc::Out* tile_out = out + span.i0;
    unsigned long long* flag = overflow_flag(scratch);
    const int lane = tid & 31;
    for (int k0 = (tid >> 5) * ROUNDS * 32; k0 < span.na; k0 += ROUNDS * BLOCK) {
        long long end[ROUNDS];
#pragma unroll
        for (int r = 0; r < ROUNDS; ++r) {
            const int k = k0 + r * 32 + lane;
            end[r] = k < span.na ? __ldg(offsets + span.i0 + k + 1) : 0;
        }
        const long long first_start = __ldg(offsets + span.i0 + k0);  // the same word in every lane
        A carried = prefix_at(smem, lead + merge_path_local(first_start, first_value, nb));
#pragma unroll
        for (int r = 0; r < ROUNDS; ++r) {
            if (k0 + r * 32 >= span.na) break;  // the same in every lane
            const int k = k0 + r * 32 + lane;
            const A at_end = prefix_at(smem, lead + merge_path_local(end[r], first_value, nb));
            const A before = warp_scan_detail::shfl_up_words(at_end, 1);
            const A at_start = lane == 0 ? carried : before;
            carried = warp_scan_detail::shfl_words(at_end, 31);
            if (k >= span.na) continue;
            if (k == 0 && first_start < first_value) {  // began in an earlier tile: merge_path_fixup finishes it
                *merge_path_first_slot<A>(scratch, tiles, t) = at_end;
            } else {
                tile_out[k] = finish<Rc>(Undo<Op>::apply(at_end, at_start), span.i0 + k, flag);
            }
        }
    }
    if (tid == 0) {  // the values after the last segment that closes here
        const A open = span.na == 0 ? total
                                    : Undo<Op>::apply(total, prefix_at(smem, lead + merge_path_local(
                                                                          __ldg(offsets + span.i0 + span.na), first_value, nb)));
        *merge_path_open_slot<A>(scratch, tiles, t) = open;
    }
}

}  // namespace segmented
}  // namespace primer
