// Moving one chunk (VEC consecutive elements starting at element `index`; 16 bytes of input):
// global -> shared staging (cp.async), the L2 prefetch ahead, reads from the stage, and stores that
// fill whole 32-byte sectors.
//
// Tiles are laid on 16-byte boundaries of the input ("shift" = how many elements the input pointer
// is past a boundary): tile 0 starts up to VEC-1 elements before in[0], so every full chunk is one
// aligned vector load, whatever the slice offset. Stores use vectors where the output is aligned the
// same way (always, when in == out) and single elements otherwise.
#pragma once
#include "../../warp/warp_reduce.cuh"
#include "../../warp/warp_scan.cuh"
#include "../../thread/copy_async.cuh"

namespace primer {

namespace scan_detail {

/**
 * Global -> shared without passing through registers: cp.async (sm_80+), 16 bytes, cached in L2
 * only. A full chunk is one aligned vector by construction of the tiles; a partial one (the ends)
 * is copied element by element, with zeros outside [0, n).
 */
template <int VEC, typename T>
__device__ __forceinline__ void stage_chunk(const T* in, long long index, long long n, T* stage) {
    static_assert(VEC * sizeof(T) == 16, "a chunk is one 16-byte vector");
    if (index >= 0 && index + VEC <= n) {
        copy_async16(stage, in + index);
    } else {
#pragma unroll
        for (int k = 0; k < VEC; ++k) stage[k] = (index + k >= 0 && index + k < n) ? in[index + k] : T(0);
    }
}

/**
 * Asks L2 to fetch the input of tile `tile` (PREFETCH AHEAD, ../scan_kernels.cuh): one bulk prefetch on sm_90 and later,
 * nothing before. tile >= 1, so the tile starts past in[0], on a 16-byte boundary; the request
 * covers whole 16-byte vectors that lie within [0, n).
 */
template <int TILE_ITEMS, typename T>
__device__ __forceinline__ void prefetch_tile_l2(const T* in, long long tile, long long tiles, long long n, long long shift) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (tile >= tiles) return;
    const long long start = tile * TILE_ITEMS - shift;
    const long long end = start + TILE_ITEMS < n ? start + TILE_ITEMS : n;
    const unsigned bytes = (unsigned)(((end - start) * (long long)sizeof(T)) & ~15LL);
    if (bytes) asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(in + start), "r"(bytes) : "memory");
#endif
}

/**
 * Where chunk q of a tile lies in a stage that is written striped (a warp's row: 32 consecutive
 * chunks) and read BLOCKED (a thread's eight consecutive chunks): within its own 128 bytes,
 * permuted by q / 8. Eight lanes writing consecutive chunks, or reading chunk c of eight consecutive
 * threads, meet eight different 16-byte bank groups (unpermuted, the blocked reads conflict 8 ways).
 */
__device__ __forceinline__ int blocked_slot(int q) { return (q & ~7) | ((q ^ (q >> 3)) & 7); }

/** Chunk q of a stage laid out by blocked_slot, VEC items a chunk. */
template <int VEC, typename T>
__device__ __forceinline__ T* blocked_chunk(T* stage, int q) { return stage + blocked_slot(q) * VEC; }

/**
 * Waits for this thread's cp.async copies: each thread reads back only what it staged itself, or
 * (BLOCKED, ../scan_kernels.cuh) what its warp staged, after a __syncwarp.
 */
__device__ __forceinline__ void wait_staged() {
    asm volatile("cp.async.commit_group;\n\tcp.async.wait_group 0;" ::: "memory");
}

/** Bit k set if element index + k lies in [0, n). */
template <int VEC>
__device__ __forceinline__ unsigned valid_mask(long long index, long long n) {
    if (index >= 0 && index + VEC <= n) return (1u << VEC) - 1u;
    unsigned mask = 0;
#pragma unroll
    for (int k = 0; k < VEC; ++k) mask |= (index + k >= 0 && index + k < n) ? 1u << k : 0u;
    return mask;
}

template <int VEC, typename T>
__device__ __forceinline__ void read_chunk(const T* stage, T (&x)[VEC]) {
    const uint4 raw = *reinterpret_cast<const uint4*>(stage);
    __builtin_memcpy(x, &raw, 16);
}

/** The reverse of read_chunk: a 16-byte chunk written back to the stage. */
template <int VEC, typename T>
__device__ __forceinline__ void write_chunk(T* stage, const T (&x)[VEC]) {
    uint4 raw;
    __builtin_memcpy(&raw, x, 16);
    *reinterpret_cast<uint4*>(stage) = raw;
}

/**
 * Full aligned chunks as 16-byte streaming stores (evict-first: the output is not read again soon);
 * `whole`: the caller knows this chunk is one (INTERIOR TILES, ../scan_kernels.cuh), and nothing is tested.
 */
template <int VEC, typename T>
__device__ __forceinline__ void store_chunk(T* out, long long index, long long n, const T (&v)[VEC], bool whole = false) {
    constexpr int BYTES = VEC * (int)sizeof(T);
    static_assert(BYTES % 16 == 0, "whole vectors");
    T* p = out + index;
    if (whole || (index >= 0 && index + VEC <= n && (reinterpret_cast<unsigned long long>(p) & 15) == 0)) {
        uint4 raw[BYTES / 16];
        __builtin_memcpy(raw, v, BYTES);
#pragma unroll
        for (int q = 0; q < BYTES / 16; ++q) __stcs(reinterpret_cast<uint4*>(p) + q, raw[q]);
    } else {
#pragma unroll
        for (int k = 0; k < VEC; ++k) {
            if (index + k >= 0 && index + k < n) out[index + k] = v[k];
        }
    }
}

/**
 * One row of chunks, stored by the whole warp (every lane takes part; lane l holds chunk l of the
 * row), a piece at a time: the whole chunk if it is 16 bytes (one store), else one 32-byte sector.
 * A chunk of 32 bytes (4-byte input scanned into 8-byte output) would be two stores at a 32-byte
 * stride, each instruction writing half of every sector it touches; instead lanes 2m and 2m+1 trade
 * halves (one 16-byte shuffle), so that the first instruction completes lane 2m's sector and the
 * second lane 2m+1's. Measured on an H200 with a plain int32 -> int64 conversion in this
 * arrangement: half sectors 62% of the copy's bandwidth, whole sectors 96.5% (512 contiguous bytes
 * per instruction, by more shuffles: 96%). Chunks of 32 * k bytes do the same for each sector in
 * turn, so a caller can store each sector as soon as it is computed instead of holding the whole
 * chunk in registers (int8 -> int64 sums, 128 bytes a chunk, store slices instead: byte_sums.cuh).
 */
template <int VEC, typename T>
struct RowStore {
    static constexpr int BYTES = VEC * (int)sizeof(T);
    static_assert(BYTES == 16 || BYTES % 32 == 0, "a chunk of 16 bytes or of whole 32-byte sectors");
    static constexpr int PIECE = BYTES == 16 ? VEC : 32 / (int)sizeof(T);  // items per put()
    static constexpr int VECTORS = BYTES / 16;
    T* out;
    long long index, n;
    bool whole, full, partner_full = false;

    /** whole: the caller knows the chunk lies inside [0, n) on a 16-byte boundary (INTERIOR TILES). */
    __device__ __forceinline__ RowStore(T* out_, long long index_, long long n_, bool whole_ = false)
        : out(out_), index(index_), n(n_), whole(whole_) {
        full = whole || (index >= 0 && index + VEC <= n && (reinterpret_cast<unsigned long long>(out + index) & 15) == 0);
    }

    /** Items [s * PIECE, (s + 1) * PIECE) of this lane's chunk; every lane calls, for s = 0, 1, ... in turn. */
    __device__ __forceinline__ void put(int s, const T (&v)[PIECE]) {
        if constexpr (BYTES == 16) {
            store_chunk<VEC>(out, index, n, v, whole);
        } else {
            const bool odd = lane_id() & 1u;
            uint4 half[2];
            __builtin_memcpy(half, v, 32);
            const uint4 received = detail::shfl_xor(odd ? half[0] : half[1], 1);  // even lanes send their high half
            // Every lane shuffles, outside any condition: a lane of the mask that skips a shuffle is
            // undefined behaviour (with `full && shuffle`, a full lane beside a partial one could read
            // garbage as "partner full" and store the partner's sector past the end; lab).
            if (s == 0) partner_full = __shfl_xor_sync(0xffffffffu, full, 1);
            if (full && partner_full) {
                uint4* q = reinterpret_cast<uint4*>(out + index) + 2 * s;  // this lane's sector s
                __stcs(odd ? q + (1 - VECTORS) : q, odd ? received : half[0]);  // the even lane's sector s
                __stcs(odd ? q + 1 : q + VECTORS, odd ? half[1] : received);    // the odd lane's sector s
            } else if constexpr (PIECE == VEC) {
                store_chunk<VEC>(out, index, n, v);
            } else {
                store_chunk<PIECE>(out, index + s * PIECE, n, v);  // whole vectors where `full`, else elements
            }
        }
    }
};

/** A whole row of chunks (RowStore, piece by piece); `whole` as for RowStore. */
template <int VEC, typename T>
__device__ __forceinline__ void store_row(T* out, long long index, long long n, const T (&v)[VEC], bool whole = false) {
    using Store = RowStore<VEC, T>;
    Store store(out, index, n, whole);
#pragma unroll
    for (int s = 0; s < VEC / Store::PIECE; ++s) {
        T piece[Store::PIECE];
#pragma unroll
        for (int k = 0; k < Store::PIECE; ++k) piece[k] = v[s * Store::PIECE + k];
        store.put(s, piece);
    }
}

}  // namespace scan_detail

/** Elements of input the tile grid starts before in[0]: in's distance past a 16-byte boundary. */
template <typename InT>
__device__ __forceinline__ long long scan_shift(const InT* in) {
    return (long long)((reinterpret_cast<unsigned long long>(in) % 16) / sizeof(InT));
}

}  // namespace primer
