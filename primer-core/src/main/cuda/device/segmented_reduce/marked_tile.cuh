// The standalone merge path's tile (segreduce_merge_path_*): the same split of the merge into tiles
// as segmented_reduce_merge_path.cuh, but inside a tile the threads fold runs of VALUES, not merge
// steps.
//
// Why: the merge walk decides at every step whether to fold a value or close a segment, and the
// lanes of a warp take different sides: ncu (H200, 2^26 float32 values in 12.8M power-law segments,
// 2026-11-24) had the tile kernel at 208 us, 82% of issue slots busy, 21 of 32 threads active, DRAM
// 42%: bound by instructions, some 70 thread instructions a merge step.
//
// Here the block first marks, in shared memory, the last value of every segment that closes in the
// tile with the segment's number (last_of[p] = k for segment i0 + k), and writes the empty ones
// (the identity's result) itself, a segment per thread. Then each thread takes 4G consecutive
// values (G odd, so that its 16-byte loads of values and 8-byte loads of marks are free of bank
// conflicts) and folds them in order, writing a segment's result when it meets that segment's mark.
// The tile's end is the merge path's: a block-wide segmented scan of the threads' open partials
// gives each thread what precedes its first segment (merge_path_tile_end).
//
// Measured (the same input; bench/results/2026-11-24-nvidia-h200-step60-marked-tile.md): the tile
// kernel 208 -> 187 us, 173 -> 144 M warp instructions; the whole call 0.274-0.275 -> 0.258 ms
// (float32), 0.381-0.383 -> 0.340-0.341 ms (int64, 128-bit sums). Still bound by issue (76%), and
// L2 is 90% busy: a thread writes its results straight to out, a lane per sector. Tried and not
// kept: the results staged over their last values and written in segment order (L2 61% busy, but
// no faster, and int64 lost a block per SM), and the fold by selects instead of branches (no
// faster). Where the instructions go (ncu's source view): about 40% the fold, 45% each tile's
// fixed work (its span, staging, marks), which only longer tiles would spread thinner.
// Step 62: 4-byte values staged a 16-byte piece per copy (stage_values_aligned) and these tiles at
// six blocks per SM (../segmented_reduce.cu): 187-188 -> 183-185 us, 144 -> 137 M instructions
// (float32, the same input). The fold by selects tried again, with only the store under a condition
// (every 8-byte recipe then fit 40 registers on sm_90): 145 M instructions, 191 us, and int64 sums
// 255 -> 276 us; not kept (bench/results/2026-11-24-nvidia-h200-step62-ab.md).
//
// Step 73 combined the two (results over their last values by selects and a predicated store, then
// written in segment order) and found step 62's outcome again: converged lanes, L2 62% busy, but
// every lane runs the close's selects at every value, so 137 -> 146 M instructions, 185 -> 191 us
// (int64: 256 -> 287 us). Not kept. Branches cost less here than predication: this kernel is bound
// by warp instructions issued (bench/results/2026-11-25-nvidia-h200-step73-ab.md breaks them down
// by phase).
//
// Step 83 tried two things for int8, whose tiles take as long as float32's (134.6 M warp instructions,
// 188 us; power law): its values staged 16 bytes a copy like 4-byte ones (the same instructions and
// time; five int8 recipes then spilled at six blocks per SM on sm_80 and sm_89), and 35 or 47 steps a
// thread instead of 23 (7-19% slower). Neither kept (bench/results/2026-11-26-nvidia-h200-step83-ab.md).
//
// Step 84: integer sums and xor of up to 4 bytes left these tiles for prefix differences
// (prefix_tile.cuh): int8 sums 0.240 -> 0.182 ms, int32 0.255 -> 0.187 on the same input.
//
// Step 90: ArgMin/ArgMax left the merge walk for these tiles. Their accumulator carries the index
// within the segment, which a run of values does not know at its start: the runs count places
// instead (INDICES BY PLACE, place_frame.cuh), and compare integer keys (run_fold.cuh). Power law
// (2^26 values, 12.8M segments), argmax, ms: float32 0.397-0.401 -> 0.317-0.320 (the marked tile
// with ArgExtreme's fold) -> 0.273-0.288 (keys); float64 0.493-0.502 -> 0.416-0.417 -> 0.375-0.389.
// ncu, float32: the tile kernel 342 -> 263 -> 219 us, 284 M -> 226 M -> 180 M warp instructions
// (bench/results/2026-11-26-nvidia-h200-step90-ab.md). The one launch keeps the walk
// (segmented_reduce/one_launch.cuh): it walks tiles of the host's chosen step count.
#pragma once
#include "place_frame.cuh"
#include "run_fold.cuh"

namespace primer {
namespace segmented {

/** A value no segment ends at (last_of). */
constexpr unsigned short NO_SEGMENT_ENDS = 0xffff;

template <class Rc, int BLOCK, int ITEMS>
struct MarkedTileStorage {
    static constexpr int TILE = BLOCK * ITEMS;
    // A tile's values sit `lead` (< 16 / sizeof(T), at most 3) places in (stage_values_aligned), and a
    // thread's last group of four may reach 4G - 1 (at most 27) past lead + nb.
    static constexpr int PAD = 32;
    static_assert(TILE < NO_SEGMENT_ENDS && (TILE + PAD) % 8 == 0, "16-bit marks, cleared 16 bytes at a time");
    alignas(32) typename Rc::T values[TILE + PAD];
    alignas(16) unsigned short last_of[TILE + PAD];  // k: segment i0 + k ends at this value; else NO_SEGMENT_ENDS
    BlockScanStorage<Segmented<typename Rc::A>, BLOCK> scan;
    long long first_start;  // offsets[i0] relative to the first value of all (clamped)
};

/**
 * Starts copying a tile's nb values to shared memory (cp.async, committed) so that value p lands at
 * values[lead + p], lead = (its first value's address % 16) / sizeof(T): global and shared 16-byte
 * pieces then line up, and every whole piece goes in one copy instead of four (or two, or sixteen);
 * the partial pieces at the ends go a value at a time, so nothing outside the tile's values is read.
 * Returns lead. 4-byte values, and int8 where BYTES (prefix_tile.cuh); others go a value at a time
 * (merge_path_stage_values), lead 0: 8-byte ones took 4-8 more registers with it, and float64 sums a
 * block per SM less; the marked tile's int8 gained nothing with it, its fold being the bound, and
 * spilled at six blocks per SM (step 83).
 */
template <typename T, int BLOCK, bool BYTES = false>
__device__ __forceinline__ int stage_values_aligned(const T* __restrict__ tile_values, int nb, T* values) {
    if constexpr (sizeof(T) != 4 && !(sizeof(T) == 1 && BYTES)) {
        merge_path_stage_values<T, BLOCK>(tile_values, nb, values);
        return 0;
    } else {
        constexpr int VEC = 16 / (int)sizeof(T);
        const int lead = (int)((reinterpret_cast<unsigned long long>(tile_values) & 15) / sizeof(T));
        const T* aligned = tile_values - lead;
        const int pieces = (lead + nb + VEC - 1) / VEC;
        for (int q = threadIdx.x; q < pieces; q += BLOCK) {
            const int p0 = q * VEC - lead;  // the piece's first value, relative to the tile's
            if (p0 >= 0 && p0 + VEC <= nb) {
                copy_async16(&values[q * VEC], aligned + q * VEC);
            } else if constexpr (sizeof(T) == 4) {
                for (int i = 0; i < VEC; ++i)
                    if (p0 + i >= 0 && p0 + i < nb) copy_async(&values[q * VEC + i], aligned + q * VEC + i);
            } else {  // int8: cp.async copies 4, 8 or 16 bytes
#pragma unroll 1
                for (int i = 0; i < VEC; ++i)
                    if (p0 + i >= 0 && p0 + i < nb) values[q * VEC + i] = aligned[q * VEC + i];
            }
        }
        asm volatile("cp.async.commit_group;" ::: "memory");
        return lead;
    }
}

/** Four consecutive values or marks, read from shared memory in one access. */
template <typename T>
struct alignas(4 * sizeof(T)) FourOf {
    T x[4];
};

/**
 * Marks a staged tile: last_of[lead + e - 1] = k for each segment i0 + k that closes in the tile
 * with values in it (e: its end, relative to the tile's first value); an empty segment's result is
 * written here; segment i0, when it began in an earlier tile and has no value here, leaves the
 * identity as the tile's part of it. The marks must be cleared before, and a barrier must follow.
 */
template <class Rc, int BLOCK, int ITEMS, int ROUNDS>
__device__ __forceinline__ void mark_round(int k0, const long long (&start)[ROUNDS], const long long (&end)[ROUNDS],
                                           long long first_value, int lead, const FlatRange& range,
                                           const MergePathSpan& span,
                                           MarkedTileStorage<Rc, BLOCK, ITEMS>& smem, typename Rc::A* first_part,
                                           typename Rc::Out* __restrict__ out, unsigned char* __restrict__ scratch) {
    using Op = typename Rc::Op;
#pragma unroll
    for (int r = 0; r < ROUNDS; ++r) {
        const int k = k0 + r * BLOCK + (int)threadIdx.x;
        if (k >= span.na) continue;
        const int s = merge_path_local(start[r], first_value, span.nb);
        const int e = merge_path_local(end[r], first_value, span.nb);
        if (k == 0) smem.first_start = range.clamp(start[r]);
        if (k == 0 && start[r] < first_value) {  // began in an earlier tile: its part here ends at e
            if (e > 0) smem.last_of[lead + e - 1] = 0;
            else *first_part = Op::identity();
        } else if (e <= s) {
            out[span.i0 + k] = finish<Rc>(Op::identity(), span.i0 + k, overflow_flag(scratch));
        } else {
            smem.last_of[lead + e - 1] = (unsigned short)k;
        }
    }
}

/** Loads the start and end offsets of segments i0 + k for this thread's k of round k0. */
template <int BLOCK, int ROUNDS>
__device__ __forceinline__ void load_round(const long long* __restrict__ offsets, const MergePathSpan& span, int k0,
                                           long long (&start)[ROUNDS], long long (&end)[ROUNDS]) {
#pragma unroll
    for (int r = 0; r < ROUNDS; ++r) {
        const int k = k0 + r * BLOCK + (int)threadIdx.x;
        start[r] = k < span.na ? __ldg(offsets + span.i0 + k) : 0;
        end[r] = k < span.na ? __ldg(offsets + span.i0 + k + 1) : 0;
    }
}

/**
 * Folds value p (at `place`) into the thread's run; at a segment's last value (mark k), writes the
 * segment's result (or keeps it as this thread's first, whose earlier part the block scan supplies)
 * and starts anew. `run_start`: the place after this thread's last close (place_frame.cuh).
 */
template <class Rc>
__device__ __forceinline__ void fold_marked(typename Rc::T value, unsigned short mark, int place, int& run_start,
                                            typename RunFold<Rc>::State& run, bool& closed,
                                            typename RunFold<Rc>::State& first_partial, int& first_closed,
                                            typename Rc::Out* __restrict__ tile_out, long long i0,
                                            unsigned long long* flag) {
    using Fold = RunFold<Rc>;
    Fold::fold(run, value, place);
    if (mark != NO_SEGMENT_ENDS) {
        if (closed) {
            tile_out[mark] = finish<Rc>(Fold::result(run, run_start), i0 + mark, flag);
        } else {
            first_partial = run;
            first_closed = mark;
        }
        closed = true;
        run = Fold::empty();
        run_start = place + 1;
    }
}

/** Tile t of BLOCK * ITEMS merge steps, folded by runs of values (see the top of this file). */
template <class Rc, int BLOCK, int ITEMS>
__device__ __forceinline__ void merge_path_marked_tile(const typename Rc::T* __restrict__ in,
                                                       const long long* __restrict__ offsets, long long nseg,
                                                       long long in_length, long long tiles, long long t,
                                                       typename Rc::Out* __restrict__ out,
                                                       unsigned char* __restrict__ scratch) {
    using T = typename Rc::T;
    using A = typename Rc::A;
    using Op = typename Rc::Op;
    using Storage = MarkedTileStorage<Rc, BLOCK, ITEMS>;
    constexpr int ROUNDS = 4;  // segments per thread whose offsets are in flight at once
    __shared__ Storage smem;
    FlatRange range;
    MergePathSpan span;
    if (!merge_path_span(offsets, nseg, in_length, (long long)BLOCK * ITEMS, t, scratch, range, span)) return;
    const int tid = threadIdx.x, nb = span.nb;
    const long long first_value = range.base + span.j0;
    A* first_part = merge_path_first_slot<A>(scratch, tiles, t);

    const int lead = stage_values_aligned<T, BLOCK>(in + first_value, nb, smem.values);  // value p at lead + p
    if constexpr (CarriesIndex<A>::value) {
        if (tid == 0) place_origin<Rc>() = PlaceOrigin{span.i0, first_value - lead, span.na};
    }
    long long start[ROUNDS], end[ROUNDS];
    load_round<BLOCK>(offsets, span, 0, start, end);
    const int cleared = nb + Storage::PAD;  // past lead + nb + 27 (nb <= TILE: the span holds at most TILE merge steps)
    for (int q = tid; q * 8 < cleared; q += BLOCK)
        reinterpret_cast<uint4*>(smem.last_of)[q] = make_uint4(0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu);
    __syncthreads();
    for (int k0 = 0;;) {
        mark_round<Rc, BLOCK, ITEMS>(k0, start, end, first_value, lead, range, span, smem, first_part, out, scratch);
        k0 += ROUNDS * BLOCK;
        if (k0 >= span.na) break;
        load_round<BLOCK>(offsets, span, k0, start, end);
    }
    asm volatile("cp.async.wait_all;" ::: "memory");
    __syncthreads();

    // This thread's places: 4G from v0 on, G odd (conflict-free 16- and 8-byte shared loads); the
    // tile's values are places [lead, lead + nb).
    const int places = lead + nb;
    const int groups = ((places + 4 * BLOCK - 1) / (4 * BLOCK)) | 1;
    const int v0 = tid * 4 * groups;
    typename RunFold<Rc>::State run = RunFold<Rc>::empty(), first_run = RunFold<Rc>::empty();
    bool closed = false;
    int first_closed = 0, run_start = 0;
    typename Rc::Out* tile_out = out + span.i0;
    unsigned long long* flag = overflow_flag(scratch);
    if (v0 < places) {
        for (int g = 0; g < groups; ++g) {
            const int p0 = v0 + 4 * g;
            const FourOf<T> v = *reinterpret_cast<const FourOf<T>*>(&smem.values[p0]);
            const FourOf<unsigned short> m = *reinterpret_cast<const FourOf<unsigned short>*>(&smem.last_of[p0]);
            if (p0 >= lead && p0 + 4 <= places) {
#pragma unroll
                for (int i = 0; i < 4; ++i)
                    fold_marked<Rc>(v.x[i], m.x[i], p0 + i, run_start, run, closed, first_run, first_closed, tile_out,
                                    span.i0, flag);
            } else {  // the tile's first group (places before lead) or its last
#pragma unroll
                for (int i = 0; i < 4; ++i) {
                    if (p0 + i >= lead && p0 + i < places)
                        fold_marked<Rc>(v.x[i], m.x[i], p0 + i, run_start, run, closed, first_run, first_closed,
                                        tile_out, span.i0, flag);
                }
            }
        }
    }
    const A acc = RunFold<Rc>::partial(run), first_partial = RunFold<Rc>::partial(first_run);
    A* open_part = merge_path_open_slot<A>(scratch, tiles, t);
    if constexpr (CarriesIndex<A>::value) {  // INDICES BY PLACE (place_frame.cuh)
        merge_path_tile_end<Rc, BLOCK>(acc, closed, first_partial, first_closed, smem.first_start, span.j0, span.i0,
                                       smem.scan, first_part, open_part, scratch, tile_out,
                                       PlaceFrame{offsets, place_origin<Rc>()});
    } else {
        merge_path_tile_end<Rc, BLOCK>(acc, closed, first_partial, first_closed, smem.first_start, span.j0, span.i0,
                                       smem.scan, first_part, open_part, scratch, tile_out);
    }
}

}  // namespace segmented
}  // namespace primer
