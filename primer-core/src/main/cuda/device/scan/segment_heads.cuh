// Where segments start: none, an int8 flag per element, or a sorted offsets array.
//   load_rows<VEC, ROWS, STRIDE>(first, n, interior, raw): issued right after the tile's data, raw[r]
//     for the chunk of VEC elements at first + r * STRIDE; a raw word is not looked at until the tile
//     is scanned, so its load stays in flight meanwhile (int8's rows come back as bits: FlagHeads);
//     `interior`: every row lies inside [0, n) (INTERIOR TILES, ../scan_kernels.cuh);
//   prepare(tile, tile_start, storage): every thread, once per tile before it is scanned (may
//     hold barriers);
//   bits<VEC>(raw, tile_offset, storage): bit k set if element k of the chunk starts a segment
//     (tile_offset: the chunk's position in the tile, counted from its first, possibly virtual, item);
//   GATED, load_gate(): whether the launch scans at all, nonzero for yes (OffsetHeads: a device word
//     the offsets' check wrote; device_scan's blocks load it beside their ticket and leave at once
//     when it is 0);
//   BITS_IN_SHARED: bits() reads shared memory alone, so a thread may read any chunk's bits: 4- and
//     8-byte segmented scans, which read their tiles BLOCKED (../scan_kernels.cuh), need it, and call
//     it where the bits are used (held in registers through the tile, the offsets scans' bits took
//     them from 64 registers to 105 at 256 x 8 tiles, sm_90); int8's four rows read theirs once,
//     after prepare ("Head bits", ../scan_kernels.cuh);
//   KEEPS_ROWS, keep_rows<VEC, ROWS, STRIDE>(raw, thread_offset, first, storage): after prepare, each
//     thread writes its own chunks' bits from its raw words into storage (SharedFlagHeads).
// The offsets' heads (OffsetHeads) and the kernels that prepare them are in offset_heads.cuh.
#pragma once
#include "policy.cuh"

namespace primer {

struct NoHeads {
    static constexpr bool SEGMENTED = false;
    static constexpr bool BITS_IN_SHARED = false;
    static constexpr bool KEEPS_ROWS = false;
    static constexpr bool GATED = false;
    __device__ __forceinline__ unsigned long long load_gate() const { return 1ull; }
    struct Storage {};
    template <int VEC, int ROWS, int STRIDE>
    __device__ __forceinline__ void load_rows(long long, long long, bool, unsigned (&raw)[ROWS]) const {
#pragma unroll
        for (int r = 0; r < ROWS; ++r) raw[r] = 0u;
    }
    __device__ __forceinline__ void prepare(long long, long long, Storage&) const {}
    template <int VEC>
    __device__ __forceinline__ unsigned bits(unsigned, int, const Storage&) const { return 0u; }
};

namespace scan_detail {
/** Bit k set where byte k (k < BYTES) of the word is nonzero. */
template <int BYTES>
__device__ __forceinline__ unsigned nonzero_bytes(unsigned word) {
    static_assert(BYTES >= 1 && BYTES <= 4, "bytes of a word");
    unsigned heads = 0;
#pragma unroll
    for (int k = 0; k < BYTES; ++k) heads |= ((word >> (8 * k)) & 0xffu) ? 1u << k : 0u;
    return heads;
}
/**
 * Bit k set where byte k of the word is nonzero, without a test per byte: adding 0x7f to a byte's
 * low seven bits sets its bit 7 unless they are zero, and one multiply gathers the four bit 7s.
 */
__device__ __forceinline__ unsigned nonzero_byte_bits(unsigned word) {
    const unsigned top = (((word & 0x7f7f7f7fu) + 0x7f7f7f7fu) | word) & 0x80808080u;
    return ((top >> 7) * 0x10204080u) >> 28;  // byte k's bit 7 lands on bit 28 + k
}
}  // namespace scan_detail

struct FlagHeads {
    static constexpr bool SEGMENTED = true;
    static constexpr bool BITS_IN_SHARED = false;
    static constexpr bool KEEPS_ROWS = false;
    static constexpr bool GATED = false;
    __device__ __forceinline__ unsigned long long load_gate() const { return 1ull; }
    const signed char* flags;  // nonzero: a segment starts here
    struct Storage {};
    /**
     * Each row's VEC flag bytes: a raw word for VEC 2 or 4; for VEC 16 (int8 data) already the 16
     * head bits, because four raw words a row waiting for bits() took the segmented int8 scans from
     * 58 registers to 88 (sm_90) and spilled them. Making a row's bits waits for its load, so where
     * every row is whole and aligned all rows load before any is looked at: row by row, each load
     * was waited out before the next went out. 2^28 int8 by flags, a head in about 1024: sums
     * 0.313-0.322 -> 0.271-0.280 ms, max 0.345 -> 0.302-0.307 (bench/results/2026-11-24-nvidia-h200-
     * segscan-i8-ab.md).
     */
    template <int VEC, int ROWS, int STRIDE>
    __device__ __forceinline__ void load_rows(long long first, long long n, bool interior, unsigned (&raw)[ROWS]) const {
        const signed char* p = flags + first;
        const bool aligned = (reinterpret_cast<unsigned long long>(p) & (VEC - 1)) == 0;
        if constexpr (VEC == 16) {
            static_assert(STRIDE % 16 == 0, "rows of whole 16-byte vectors");
            if ((interior || (first >= 0 && first + (ROWS - 1) * (long long)STRIDE + VEC <= n)) && aligned) {
                uint4 x[ROWS];
#pragma unroll
                for (int r = 0; r < ROWS; ++r) x[r] = *reinterpret_cast<const uint4*>(p + r * STRIDE);
#pragma unroll
                for (int r = 0; r < ROWS; ++r) raw[r] = heads16(x[r].x, x[r].y, x[r].z, x[r].w);
                return;
            }
        } else {
            if (interior && aligned) {  // one word a row from one address, no tests
#pragma unroll
                for (int r = 0; r < ROWS; ++r) {
                    if constexpr (VEC == 4) raw[r] = *reinterpret_cast<const unsigned*>(p + r * STRIDE);
                    else raw[r] = *reinterpret_cast<const unsigned short*>(p + r * STRIDE);
                }
                return;
            }
        }
#pragma unroll
        for (int r = 0; r < ROWS; ++r) raw[r] = load_chunk<VEC>(first + r * STRIDE, n);
    }
    __device__ __forceinline__ void prepare(long long, long long, Storage&) const {}
    template <int VEC>
    __device__ __forceinline__ unsigned bits(unsigned raw, int, const Storage&) const {
        if constexpr (VEC == 16) return raw;
        else return scan_detail::nonzero_bytes<VEC>(raw);
    }

    /** One chunk's raw word (load_rows), zero for elements outside [0, n); one load where aligned. */
    template <int VEC>
    __device__ __forceinline__ unsigned load_chunk(long long index, long long n) const {
        static_assert(VEC == 2 || VEC == 4 || VEC == 16, "VEC flag bytes: a word or four");
        const signed char* p = flags + index;
        const bool whole = index >= 0 && index + VEC <= n && (reinterpret_cast<unsigned long long>(p) & (VEC - 1)) == 0;
        if constexpr (VEC == 16) {
            if (whole) {
                const uint4 x = *reinterpret_cast<const uint4*>(p);
                return heads16(x.x, x.y, x.z, x.w);
            }
            unsigned word[4] = {0u, 0u, 0u, 0u};
#pragma unroll
            for (int k = 0; k < VEC; ++k) {
                if (index + k >= 0 && index + k < n) word[k / 4] |= (unsigned)(unsigned char)flags[index + k] << (8 * (k % 4));
            }
            return heads16(word[0], word[1], word[2], word[3]);
        } else {
            if (whole) {
                if constexpr (VEC == 4) return *reinterpret_cast<const unsigned*>(p);
                else return *reinterpret_cast<const unsigned short*>(p);
            }
            unsigned word = 0;
#pragma unroll
            for (int k = 0; k < VEC; ++k) {
                if (index + k >= 0 && index + k < n) word |= (unsigned)(unsigned char)flags[index + k] << (8 * k);
            }
            return word;
        }
    }
    static __device__ __forceinline__ unsigned heads16(unsigned w0, unsigned w1, unsigned w2, unsigned w3) {
        return scan_detail::nonzero_byte_bits(w0) | scan_detail::nonzero_byte_bits(w1) << 4 |
               scan_detail::nonzero_byte_bits(w2) << 8 | scan_detail::nonzero_byte_bits(w3) << 12;
    }

    /**
     * For a blocked tile (../arg_scan_tile.cuh), where a thread owns ITEMS consecutive elements and
     * so ITEMS consecutive flags: fetch_items() loads the flags of elements index .. index+ITEMS-1
     * (zero outside [0, n)) straight into registers, 16 bytes a load where aligned (4 where only
     * that is, else byte by byte); item_bits() then makes them head bits, item i's in bit i % 32
     * of bits[i / 32]. Two steps, so that the loads stay in flight while the tile's data arrives.
     */
    template <int ITEMS>
    __device__ __forceinline__ void fetch_items(long long index, long long n, unsigned (&word)[ITEMS / 4]) const {
        static_assert(ITEMS % 16 == 0, "a thread's flags are whole 16-byte vectors");
        const signed char* p = flags + index;
        const unsigned long long at = reinterpret_cast<unsigned long long>(p);
        if (index >= 0 && index + ITEMS <= n && (at & 3) == 0) {
            if ((at & 15) == 0) {
#pragma unroll
                for (int v = 0; v < ITEMS / 16; ++v) {
                    const uint4 x = reinterpret_cast<const uint4*>(p)[v];
                    word[4 * v] = x.x, word[4 * v + 1] = x.y, word[4 * v + 2] = x.z, word[4 * v + 3] = x.w;
                }
            } else {
#pragma unroll
                for (int i = 0; i < ITEMS / 4; ++i) word[i] = reinterpret_cast<const unsigned*>(p)[i];
            }
        } else {
#pragma unroll
            for (int i = 0; i < ITEMS / 4; ++i) {
                word[i] = 0u;
#pragma unroll
                for (int k = 4 * i; k < 4 * i + 4; ++k) {
                    if (index + k >= 0 && index + k < n) word[i] |= (unsigned)(unsigned char)flags[index + k] << (8 * (k % 4));
                }
            }
        }
    }
    template <int ITEMS>
    static __device__ __forceinline__ void item_bits(const unsigned (&word)[ITEMS / 4], unsigned (&bits)[(ITEMS + 31) / 32]) {
#pragma unroll
        for (int b = 0; b < (ITEMS + 31) / 32; ++b) bits[b] = 0u;
#pragma unroll
        for (int i = 0; i < ITEMS / 4; ++i) bits[i / 8] |= scan_detail::nonzero_byte_bits(word[i]) << (4 * (i % 8));
    }
};

/**
 * Flags for 4- and 8-byte data whose head bits live in shared memory, one byte per chunk of the
 * tile (CHUNKS = the tile's chunks), as OffsetHeads' bitmap does: the raw words are loaded as by
 * FlagHeads, then keep_rows() writes each chunk's bits (element 0 marked). A chunk's bits are read
 * by a lane of the warp that staged the chunk (BLOCKED, ../scan_kernels.cuh), after the __syncwarp
 * that lets it read the chunk: no block barrier is needed.
 */
template <int CHUNKS>
struct SharedFlagHeads : FlagHeads {
    static constexpr bool BITS_IN_SHARED = true;
    static constexpr bool KEEPS_ROWS = true;
    struct Storage {
        unsigned char chunk_bits[CHUNKS];
    };
    __device__ __forceinline__ void prepare(long long, long long, Storage&) const {}
    template <int VEC, int ROWS, int STRIDE>
    __device__ __forceinline__ void keep_rows(const unsigned (&raw)[ROWS], int thread_offset, long long first,
                                              Storage& s) const {
        static_assert(VEC == 2 || VEC == 4, "4- and 8-byte data");
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
            unsigned bits = scan_detail::nonzero_bytes<VEC>(raw[r]);
            if (r == 0 && first <= 0) bits |= 1u << (int)-first;  // element 0 starts a segment whatever flags[0] holds
            s.chunk_bits[(thread_offset + r * STRIDE) / VEC] = (unsigned char)bits;
        }
    }
    template <int VEC>
    __device__ __forceinline__ unsigned bits(unsigned, int tile_offset, const Storage& s) const {
        return s.chunk_bits[tile_offset / VEC];
    }
};

/**
 * The head flags a segmented scan of T takes, built-in and user-defined operators alike: 4- and
 * 8-byte data keep their bits in shared memory (SharedFlagHeads), which their BLOCKED tiles and
 * WIDENING SUMS (../scan_kernels.cuh) need, the float keys' min and max too (2^28 float32 max 0.775-0.785 ->
 * 0.639 ms, 2^28 float64 1.72-1.74 -> 1.27 with them, bench/results/2026-11-25-nvidia-h200-step68-ab.md);
 * int8 keeps FlagHeads: FOLD reads its rows' bits into registers once.
 */
template <typename T>
struct FlagHeadsFor {
    using type = SharedFlagHeads<ScanShape<T, true>::BLOCK_THREADS * ScanShape<T, true>::ROWS>;
};
template <>
struct FlagHeadsFor<signed char> {
    using type = FlagHeads;
};

}  // namespace primer
