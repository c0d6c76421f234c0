// int8 sums (BYTE SUMS in ../scan_kernels.cuh): a chunk's 16 signed bytes summed by dp4a in four
// instructions; int8 -> int8 sums computed four bytes a word; int8 -> int64 sums stored as slices of
// 512 contiguous bytes. Segmented sums too: a segment's sum from a head at h is init plus the bytes
// from h on, one dp4a sum less another (SEGMENTED BYTE SUMS).
//
// dp4a.s32.s32 d, a, b, c adds the four byte products of a and b to c. With b's bytes 1 or 0 it
// sums the bytes of a that b selects, exactly (16 bytes of at most 128 in magnitude fit an int).
// The stage holds zeros for items outside [0, n) (stage_chunk), the identity of a sum, so a chunk
// needs no valid mask here.
#pragma once
#include "../../ops.cuh"
#include "../../warp/warp_scan.cuh"

namespace primer {

/** Scans of int8 data by a sum (into int8 or int64), plain or segmented: BYTE SUMS in ../scan_kernels.cuh. */
template <typename Op, typename InT> struct ByteSums { static constexpr bool value = false; };
template <> struct ByteSums<Sum<int>, signed char> { static constexpr bool value = true; };
template <> struct ByteSums<Sum<long long>, signed char> { static constexpr bool value = true; };

namespace scan_detail {

__device__ __forceinline__ int dp4a(unsigned a, unsigned b, int c) {
    int d;
    asm("dp4a.s32.s32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
}

__device__ __forceinline__ unsigned prmt(unsigned a, unsigned b, unsigned selector) {
    unsigned d;
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(selector));
    return d;
}

/** A staged chunk's 16 signed bytes, as four 32-bit words. */
__device__ __forceinline__ uint4 read_byte_chunk(const signed char* stage) { return *reinterpret_cast<const uint4*>(stage); }

/** The sum of a chunk's 16 signed bytes. */
__device__ __forceinline__ int byte_sum(const uint4& w) {
    constexpr unsigned ALL = 0x01010101u;
    return dp4a(w.w, ALL, dp4a(w.z, ALL, dp4a(w.y, ALL, dp4a(w.x, ALL, 0))));
}

/** The sum of a chunk's bytes before position h (h in [0, 16]): four dp4a, selectors built for h. */
__device__ __forceinline__ int byte_sum_before(const uint4& w, int h) {
    const unsigned words[4] = {w.x, w.y, w.z, w.w};
    int sum = 0;
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        const int bytes = min(max(h - 4 * k, 0), 4);
        sum = dp4a(words[k], 0x01010101u & (unsigned)((1ull << (8 * bytes)) - 1ull), sum);
    }
    return sum;
}

/**
 * A chunk's (value, head) in a segmented sum; `heads`: bit k set where item k starts a segment.
 * Without a head, the sum of its bytes; else init plus its bytes from the last head on.
 */
template <typename V>
__device__ __forceinline__ Segmented<V> segmented_byte_total(const uint4& w, unsigned heads, V init) {
    const int all = byte_sum(w);
    if (heads == 0u) return {(V)all, 0};
    return {init + (V)(all - byte_sum_before(w, 31 - __clz(heads))), 1};
}

/**
 * Sums of a chunk's bytes before position k and through position k (k in [0, 15]): four dp4a with
 * selectors built once, then byte k itself, sign-extended by one prmt from its half of the chunk.
 * (Two sets of selectors, eight registers, spilled int8 -> int64 sums at 5 blocks per SM on sm_90.)
 */
struct BytePrefixes {
    unsigned select[4];  // bytes 1 at the positions before k
    unsigned pick;       // prmt selector: byte k of its half, its sign replicated above it
    bool high;           // byte k lies in the chunk's upper half

    __device__ __forceinline__ explicit BytePrefixes(int k) {
#pragma unroll
        for (int w = 0; w < 4; ++w) {
            const int bytes = min(max(k - 4 * w, 0), 4);
            select[w] = bytes == 4 ? 0x01010101u : 0x01010101u & ((1u << (8 * bytes)) - 1u);
        }
        const unsigned b = (unsigned)(k & 7);
        pick = b | (b | 8u) << 4 | (b | 8u) << 8 | (b | 8u) << 12;
        high = k >= 8;
    }

    /** Into before and through: the sums of bytes [0, k) and [0, k]. */
    __device__ __forceinline__ void of(const uint4& w, int& before, int& through) const {
        before = dp4a(w.w, select[3], dp4a(w.z, select[2], dp4a(w.y, select[1], dp4a(w.x, select[0], 0))));
        through = before + (int)prmt(high ? w.z : w.x, high ? w.w : w.y, pick);
    }
};

/**
 * A chunk's 16 int8 sums, mod 2^8, from what precedes it (its low byte counts): four bytes a word
 * in two 16-bit lanes each, so that no carry crosses from one byte's sum into the next. A word's
 * bytes b0..b3 split into even (b0, b2) and odd (b1, b3) lanes; with s = even + odd = (b0 + b1,
 * b2 + b3), the odd sums are s + (s << 16) = (b0 + b1, b0 + .. + b3) and the even ones even +
 * (s << 16) = (b0, b0 + b1 + b2); one prmt interleaves their low bytes. About 9 instructions a
 * word against 4 a byte folded one at a time. Exclusive sums take each byte back off its lane.
 */
__device__ __forceinline__ uint4 byte_chunk_sums(const uint4& w, int prefix, int inclusive) {
    unsigned words[4] = {w.x, w.y, w.z, w.w};
    unsigned carry = prmt((unsigned)prefix, 0u, 0x4040u);  // the prefix's low byte in both lanes
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        const unsigned even = words[k] & 0x00ff00ffu;
        const unsigned odd = prmt(words[k], 0u, 0x4341u);  // (b1, b3)
        const unsigned pairs = even + odd;
        unsigned odd_sums = pairs * 0x00010001u + carry;
        unsigned even_sums = even + (pairs << 16) + carry;
        carry = prmt(odd_sums, 0u, 0x4242u);  // b0 + .. + b3 (and the carry), low byte, both lanes
        if (!inclusive) {
            odd_sums -= odd;
            even_sums -= even;
        }
        words[k] = prmt(even_sums, odd_sums, 0x6240u);
    }
    return make_uint4(words[0], words[1], words[2], words[3]);
}

/** The bytes of a and b added pairwise, each sum mod 2^8 (no carry crosses into the next byte). */
__device__ __forceinline__ unsigned add_bytes(unsigned a, unsigned b) {
    return ((a & 0x7f7f7f7fu) + (b & 0x7f7f7f7fu)) ^ ((a ^ b) & 0x80808080u);
}

/**
 * A chunk's outputs from byte_chunk_sums (computed from `prefix` as if it held no head), re-based for
 * its one head, at item h: each output from h on moves by init less the sum that precedes h there (the
 * output before h when inclusive, prefix if h is 0; the output at h when exclusive), so that the
 * segment from h begins at init op x[h] (ONE HEAD in ../scan_kernels.cuh).
 */
__device__ __forceinline__ uint4 rebase_at_head(const uint4& sums, int prefix, int inclusive, int h, int init) {
    const int q = inclusive ? h - 1 : h;
    const bool high = q >= 8;
    const unsigned before =
        q < 0 ? (unsigned)prefix : prmt(high ? sums.z : sums.x, high ? sums.w : sums.y, (unsigned)(q & 7));
    const unsigned shift = (((unsigned)init - before) & 0xffu) * 0x01010101u;
    unsigned words[4] = {sums.x, sums.y, sums.z, sums.w};
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        const int from = min(max(h - 4 * k, 0), 4);  // the word's first byte at or past h
        words[k] = add_bytes(words[k], (unsigned)((unsigned long long)shift << (8 * from)));
    }
    return make_uint4(words[0], words[1], words[2], words[3]);
}

/**
 * One warp row of an int8 -> int64 sum (32 chunks of 16 items; lane c holds chunk c's exclusive
 * prefix), stored as 8 slices of 64 outputs, each 512 contiguous bytes in one instruction: slice q
 * is chunks 4q .. 4q+3, eight lanes a chunk, two outputs a lane. A lane takes its chunk's prefix by
 * a shuffle and sums the chunk's bytes before its two outputs by dp4a from the stage.
 * `prefixes`: BytePrefixes(2m + inclusive), m = lane % 8, so that the lane's two outputs sum the
 * chunk's first 2m + inclusive and 2m + 1 + inclusive bytes. Every lane of the warp calls; lanes
 * read chunks that other lanes staged, so a block barrier must lie between staging and this.
 * Why: a lane folding its own chunk stores 128 bytes of one line, a 32-byte sector per lane pair
 * and instruction, so every L2 write request carried one sector (100.7 M requests for 2^28 items;
 * ncu, H200): the kernel ran at 70% of the copy, bound by L2, as fast as torch's own int8 -> int64
 * conversion. Slices carry four sectors a request (25.2 M), and the scan runs at 88% of the copy
 * (BYTE SUMS in ../scan_kernels.cuh).
 * SEGMENTED: lane c also holds chunk c's head bits (`chunk_heads`, bit k: item k starts a segment),
 * and `chunk_prefix` is the running value before the chunk. An output at or after a head h of its
 * chunk is init plus the bytes from h to its end, i.e. init - (bytes before h) + what the
 * unsegmented form adds; the lane's second output has another head than its first only when it is
 * one itself, and the bytes before it are then one of the two sums `prefixes` gives.
 */
template <bool SEGMENTED = false>
__device__ __forceinline__ void store_row_byte_sums(const signed char* row_stage, long long row_first, long long n,
                                                    long long* out, long long chunk_prefix, const BytePrefixes& prefixes,
                                                    unsigned chunk_heads = 0u, long long init = 0, int inclusive = 1) {
    const int lane = (int)lane_id();
#pragma unroll
    for (int q = 0; q < 8; ++q) {
        const int chunk = 4 * q + (lane >> 3);
        const long long prefix = warp_shfl(chunk_prefix, chunk);
        const uint4 w = read_byte_chunk(row_stage + 16 * chunk);
        int before, through;
        prefixes.of(w, before, through);
        long long o[2] = {prefix + before, prefix + through};
        if constexpr (SEGMENTED) {
            const unsigned heads = warp_shfl(chunk_heads, chunk);
            const int first_item = 2 * (lane & 7);
            const unsigned heads_to_first = heads & ((2u << first_item) - 1u);  // heads at or before the first output
            if (heads & ((4u << first_item) - 1u)) {                          // ... at or before the second
                const int bytes_before_head = heads_to_first ? byte_sum_before(w, 31 - __clz(heads_to_first)) : 0;
                if (heads_to_first) o[0] = init - bytes_before_head + before;
                const bool second_is_head = (heads >> (first_item + 1)) & 1u;
                const int second_bytes_before = second_is_head ? (inclusive ? before : through) : bytes_before_head;
                o[1] = init - second_bytes_before + through;
            }
        }
        const long long i = row_first + 16 * chunk + 2 * (lane & 7);
        long long* p = out + i;
        if (i >= 0 && i + 2 <= n && (reinterpret_cast<unsigned long long>(p) & 15) == 0) {
            uint4 raw;
            __builtin_memcpy(&raw, o, 16);
            __stcs(reinterpret_cast<uint4*>(p), raw);
        } else {
            if (i >= 0 && i < n) p[0] = o[0];
            if (i + 1 >= 0 && i + 1 < n) p[1] = o[1];
        }
    }
}

}  // namespace scan_detail
}  // namespace primer
