// Where segments start: none, an int8 flag per element, or a sorted offsets array.
//   load<VEC>(index, n): issued with the chunk's data (one tile ahead); returns a raw word that is
//     not looked at until the tile is scanned, so the load stays in flight meanwhile;
//   prepare(tile, tile_start, storage): every thread, once per tile before it is scanned (may
//     hold barriers);
//   bits<VEC>(raw, tile_offset, storage): bit k set if element k of the chunk starts a segment
//     (tile_offset: the chunk's position in the tile, counted from its first, possibly virtual, item);
//   BITS_IN_SHARED: bits() reads shared memory alone, and is called where the bits are used instead
//     of once per chunk up front (held in registers through the tile, the offsets scans' bits took
//     them from 64 registers to 105 at 256 x 8 tiles, sm_90).
// The offsets' heads (OffsetHeads) and the kernels that prepare them are in offset_heads.cuh.
#pragma once

namespace primer {

struct NoHeads {
    static constexpr bool SEGMENTED = false;
    static constexpr bool BITS_IN_SHARED = false;
    struct Storage {};
    template <int VEC>
    __device__ __forceinline__ unsigned load(long long, long long) const { return 0u; }
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
}  // namespace scan_detail

struct FlagHeads {
    static constexpr bool SEGMENTED = true;
    static constexpr bool BITS_IN_SHARED = false;
    const signed char* flags;  // nonzero: a segment starts here
    struct Storage {};
    /**
     * The chunk's VEC flag bytes (zero for elements outside [0, n)), one load where aligned: as one
     * raw word for VEC 2 or 4; for VEC 16 (int8 data) already as the 16 head bits, because four raw
     * words waiting for bits() took the segmented int8 scans from 58 registers to 88 (sm_90) and
     * spilled them at 4 blocks per SM.
     */
    template <int VEC>
    __device__ __forceinline__ unsigned load(long long index, long long n) const {
        static_assert(VEC == 2 || VEC == 4 || VEC == 16, "VEC flag bytes: a word or four");
        const signed char* p = flags + index;
        if constexpr (VEC == 16) {
            if (whole<VEC>(index, n)) {
                const uint4 raw = *reinterpret_cast<const uint4*>(p);
                return heads16(raw.x, raw.y, raw.z, raw.w);
            }
            const uint4 word = edge_words<VEC>(index, n);
            return heads16(word.x, word.y, word.z, word.w);
        } else {
            if (whole<VEC>(index, n)) {
                if constexpr (VEC == 4) return *reinterpret_cast<const unsigned*>(p);
                else return *reinterpret_cast<const unsigned short*>(p);
            }
            return edge_words<VEC>(index, n).x;
        }
    }
    /**
     * load() in two steps, for a caller that issues several loads before it looks at any: fetch()
     * returns the bytes as loaded (VEC 2 and 4: in .x), raw() makes load()'s word of them.
     */
    template <int VEC>
    __device__ __forceinline__ uint4 fetch(long long index, long long n) const {
        static_assert(VEC == 2 || VEC == 4 || VEC == 16, "VEC flag bytes: a word or four");
        const signed char* p = flags + index;
        if (!whole<VEC>(index, n)) return edge_words<VEC>(index, n);
        if constexpr (VEC == 16) return *reinterpret_cast<const uint4*>(p);
        else if constexpr (VEC == 4) return make_uint4(*reinterpret_cast<const unsigned*>(p), 0u, 0u, 0u);
        else return make_uint4(*reinterpret_cast<const unsigned short*>(p), 0u, 0u, 0u);
    }
    template <int VEC>
    static __device__ __forceinline__ unsigned raw(uint4 bytes) {
        if constexpr (VEC == 16) return heads16(bytes.x, bytes.y, bytes.z, bytes.w);
        else return bytes.x;
    }
    /** Whether the chunk's flags are one aligned load inside [0, n). */
    template <int VEC>
    __device__ __forceinline__ bool whole(long long index, long long n) const {
        return index >= 0 && index + VEC <= n && (reinterpret_cast<unsigned long long>(flags + index) & (VEC - 1)) == 0;
    }
    /** The chunk's flag bytes one by one (zero outside [0, n)), four to a word. */
    template <int VEC>
    __device__ __forceinline__ uint4 edge_words(long long index, long long n) const {
        unsigned word[4] = {0u, 0u, 0u, 0u};
#pragma unroll
        for (int k = 0; k < VEC; ++k) {
            if (index + k >= 0 && index + k < n) word[k / 4] |= (unsigned)(unsigned char)flags[index + k] << (8 * (k % 4));
        }
        return make_uint4(word[0], word[1], word[2], word[3]);
    }
    static __device__ __forceinline__ unsigned heads16(unsigned w0, unsigned w1, unsigned w2, unsigned w3) {
        return scan_detail::nonzero_bytes<4>(w0) | scan_detail::nonzero_bytes<4>(w1) << 4 |
               scan_detail::nonzero_bytes<4>(w2) << 8 | scan_detail::nonzero_bytes<4>(w3) << 12;
    }
    __device__ __forceinline__ void prepare(long long, long long, Storage&) const {}
    template <int VEC>
    __device__ __forceinline__ unsigned bits(unsigned raw, int, const Storage&) const {
        if constexpr (VEC == 16) return raw;
        else return scan_detail::nonzero_bytes<VEC>(raw);
    }
};

}  // namespace primer
