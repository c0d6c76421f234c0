// A segmented reduce in one launch: the offsets' check, the merge path's partition, its tiles and
// its fixup (segmented_reduce_merge_path.cuh) as phases of one cooperative kernel, a grid barrier
// (grid_barrier.cuh) between phases where kernel boundaries stood. Its verdict reaches the host in
// pinned memory as the kernel ends, so a call costs one launch and one wait.
//
// Why: behind the check, a call cost the check, a round trip for its verdict and three more
// launches: 25-39 us for float32 sums of 2^16 to 2^20 values. In one launch the same took 21-27 us
// (bench/lab/OneLaunchLab.java on an H200, 2026-11-24: power-law and uniform 1-8 lengths). What is
// left is the phases' own chains of dependent loads: each phase alone costs 1.5-6 us above an
// empty kernel. So GpuSegmentedReduce takes this path when a block per tile fits one wave of
// resident blocks. It serves larger inputs too (each block walks every gridDim.x-th tile), but
// there the classic kernels, picked by the check's verdict, win on even lengths (2^22 values of
// uniform 1-8 lengths: 41 us in one launch, 34 by the classic kernels).
//
//   phase 1  the check (check_offsets.cuh: the flags alone, no idle steps, no ticket) and the
//            partition (a warp per tile boundary), one after the other in each thread: neither
//            reads what the other writes
//   barrier
//   phase 2  the tiles: tile t by block t % gridDim.x (nothing when the check refused the offsets)
//   barrier
//   phase 3  the fixup: tiles 8g .. 8g + 7 by block g % gridDim.x
//   the last block out (grid_depart) writes verdict[0..3] = offsets[0], offsets[nseg], the
//   first-decrease word and the overflow flag, and puts those flags back to zero; the host throws
//   for bad offsets (nothing was written) or an overflow.
#pragma once
#include "../grid_barrier.cuh"
#include "../segmented_reduce_merge_path.cuh"
#include "check_offsets.cuh"

namespace primer {
namespace segmented {

__device__ __forceinline__ unsigned long long* grid_arrivals_word(unsigned char* scratch) {
    return reinterpret_cast<unsigned long long*>(scratch + Constants::ARRIVALS_OFFSET);
}

/** See the header comment; grid: at most one wave of resident blocks, launched cooperatively. */
template <class Rc, int BLOCK, int ITEMS>
__device__ __forceinline__ void merge_path_one_launch(const typename Rc::T* __restrict__ in,
                                                      const long long* __restrict__ offsets, long long nseg,
                                                      long long in_length, long long tiles,
                                                      typename Rc::Out* __restrict__ out,
                                                      unsigned char* __restrict__ scratch,
                                                      unsigned long long* verdict) {
    constexpr long long TILE = (long long)BLOCK * ITEMS;
    constexpr long long FIXUP_TILES = BLOCK / 32;  // a warp each
    unsigned long long* arrivals = grid_arrivals_word(scratch);

    if (blockIdx.x == 0 && threadIdx.x == 0) {
        long long begin, end;
        check_offset_ends(offsets, nseg, in_length, scratch, begin, end);
    }
    check_offset_pairs<false>(offsets, nseg, scratch);
    constexpr int WARPS = BLOCK / 32;
    for (long long t = (long long)blockIdx.x * WARPS + (threadIdx.x >> 5); t <= tiles; t += (long long)gridDim.x * WARPS)
        merge_path_partition_warp(offsets, nseg, in_length, TILE, t, scratch);
    grid_barrier(arrivals, 1);

    for (long long t = blockIdx.x; t < tiles; t += gridDim.x) {
        if (t != blockIdx.x) __syncthreads();
        merge_path_tile<Rc, BLOCK, ITEMS>(in, offsets, nseg, in_length, tiles, t, out, scratch);
    }
    grid_barrier(arrivals, 2);

    for (long long first = (long long)blockIdx.x * FIXUP_TILES; first < tiles;
         first += (long long)gridDim.x * FIXUP_TILES) {
        if (first != (long long)blockIdx.x * FIXUP_TILES) __syncthreads();
        merge_path_fixup<Rc, BLOCK>(offsets, nseg, in_length, TILE, tiles, first, out, scratch);
    }

    if (grid_depart(arrivals, 2) && threadIdx.x == 0) {
        verdict[0] = (unsigned long long)offsets[0];
        verdict[1] = (unsigned long long)offsets[nseg];
        verdict[2] = *first_decrease(scratch);
        verdict[3] = *overflow_flag(scratch);
        *malformed_flags(scratch) = 0;
        *first_decrease(scratch) = 0;
        *overflow_flag(scratch) = 0;
    }
}

}  // namespace segmented
}  // namespace primer
