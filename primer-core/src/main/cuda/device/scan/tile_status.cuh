// Tile status words: what a tile publishes for its successors' look-back (its aggregate A, then its
// inclusive prefix P), and how they are read and written under the memory model.
//
// STATUS WORDS (scratch, one 128-byte line per tile at a fixed stride, after a 16-byte header
// holding the tile counter): { u64 words[16] }, of which TileStatus uses words[0] (`word` below) and
// words[1] (`high`), WideTileStatus (at the end) as many as its value needs. One tile per line: tiles whose words
// shared lines slowed the scan (2^28 float sums 0.569 ms at 16 bytes per tile, 0.559 at 24, 0.555
// at 32, 0.547 at 64 and 128; int32 -> int64 1.016, 0.993, 0.982, 0.971, 0.961; lab). Each word's high half is a tag, epoch << 3 | head << 2 |
// state (1 = A, 2 = P); its low half carries 32 bits of the value: `word` all of a 4-byte value, or
// the low half of an 8-byte one, whose high half goes to `high` under the same tag. One 64-bit
// load reads a tag and its bits together (single-copy atomic; relaxed at device scope is enough
// since nothing else is published through them). An 8-byte value's two words are written by one
// 16-byte store and read by one 16-byte load (each word single-copy atomic, the pair not), and a
// reader takes them only if the tags agree: each state is written once per launch, so equal tags
// mean both halves come from the same publication; unequal ones (A's half beside P's,
// mid-publication) read as "nothing yet" and are polled again. (Before, 8-byte values sat in
// separate A and P fields behind a release/acquire word, so a poll cost two dependent round trips:
// int32 -> int64 sums of 2^28 took 1.13 ms and float64 sums of 2^27 0.81 ms; with the split words
// 1.01 and 0.73 ms, at 16 bytes per tile; lab. Two 8-byte accesses instead of one 16-byte access:
// 0.5-2% slower for int32 -> int64, int64 and float64, lab.)
//   The epoch (1 .. 2^29 - 1, a new one per launch, chosen by the host) makes every word of an
//   earlier launch read as "nothing yet", so the words need no clearing between launches: no extra
//   launch, no memset. The host clears the whole buffer when its epoch counter wraps. Because the
//   stride is fixed and words only ever hold status words, leftovers of any earlier launch (any
//   dtype, any tile count, either kind of status) sit in the same fields and fail the epoch test.
//   Loads and stores use ld/st.relaxed|acquire|release.gpu (PTX), never volatile: they go to L2,
//   the point of coherence, and carry the ordering the memory model needs.
#pragma once
#include "../../ops.cuh"
#include "policy.cuh"

namespace primer {

namespace scan_detail {

/** The value whose bits are the low sizeof(T) bytes of `bits` (1 byte: an int8 scan's init). */
template <typename T>
__device__ __forceinline__ T from_bits(unsigned long long bits) {
    static_assert(sizeof(T) == 1 || sizeof(T) == 4 || sizeof(T) == 8, "1-, 4- or 8-byte values");
    T value;
    if constexpr (sizeof(T) == 1) {
        const unsigned char low = (unsigned char)bits;
        __builtin_memcpy(&value, &low, 1);
    } else if constexpr (sizeof(T) == 4) {
        const unsigned low = (unsigned)bits;
        __builtin_memcpy(&value, &low, 4);
    } else {
        __builtin_memcpy(&value, &bits, 8);
    }
    return value;
}

template <typename T>
__device__ __forceinline__ unsigned long long to_bits(T value) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "4- or 8-byte values");
    if constexpr (sizeof(T) == 4) {
        unsigned low;
        __builtin_memcpy(&low, &value, 4);
        return low;
    } else {
        unsigned long long bits;
        __builtin_memcpy(&bits, &value, 8);
        return bits;
    }
}

// ---- memory-model accesses at device (gpu) scope ----

__device__ __forceinline__ unsigned long long load_relaxed(const unsigned long long* p) {
    unsigned long long v;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ void store_relaxed(unsigned long long* p, unsigned long long v) {
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
/** Two adjacent words in one 16-byte access (each word single-copy atomic, the pair not). */
__device__ __forceinline__ void load_relaxed_pair(const unsigned long long* p, unsigned long long& first,
                                                  unsigned long long& second) {
    asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];" : "=l"(first), "=l"(second) : "l"(p) : "memory");
}
__device__ __forceinline__ void store_relaxed_pair(unsigned long long* p, unsigned long long first,
                                                   unsigned long long second) {
    asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(first), "l"(second) : "memory");
}

// ---- what a status word carries: a 4/8-byte value and a head bit ----

template <typename V>
struct StatusPayload {
    static constexpr bool IN_WORD = sizeof(V) == 4;
    static __device__ __forceinline__ unsigned long long bits(V v) { return to_bits(v); }
    static __device__ __forceinline__ unsigned head(V) { return 0; }
    static __device__ __forceinline__ V make(unsigned long long bits, unsigned) { return from_bits<V>(bits); }
};
template <typename T>
struct StatusPayload<Segmented<T>> {
    static constexpr bool IN_WORD = sizeof(T) == 4;
    static __device__ __forceinline__ unsigned long long bits(Segmented<T> v) { return to_bits(v.value); }
    static __device__ __forceinline__ unsigned head(Segmented<T> v) { return v.head ? 1u : 0u; }
    static __device__ __forceinline__ Segmented<T> make(unsigned long long bits, unsigned head) {
        return {from_bits<T>(bits), (int)head};
    }
};

}  // namespace scan_detail

struct TileStatusSlot {
    // TileStatus: words[0] = tag | the value (4 bytes) or its low half (8 bytes), words[1] = tag |
    // the high half. WideTileStatus: words[k] = tag | the value's k-th 32 bits. The rest of the
    // line holds no other tile's words.
    unsigned long long words[16];
};
static_assert(sizeof(TileStatusSlot) == ScanPolicyConstants::STATUS_SLOT_BYTES, "slot layout");

constexpr unsigned TILE_NOTHING = 0u, TILE_AGGREGATE = 1u, TILE_PREFIX = 2u;

template <typename V>
struct TileStatus {
    using Payload = scan_detail::StatusPayload<V>;
    TileStatusSlot* slots;
    unsigned epoch;

    __device__ __forceinline__ void publish(long long tile, unsigned state, V value) const {
        const unsigned long long tag =
            (unsigned long long)((epoch << 3) | (Payload::head(value) << 2) | state) << 32;
        const unsigned long long bits = Payload::bits(value);
        TileStatusSlot& slot = slots[tile];
        if constexpr (Payload::IN_WORD) {
            scan_detail::store_relaxed(&slot.words[0], tag | (bits & 0xffffffffull));
        } else {
            scan_detail::store_relaxed_pair(&slot.words[0], tag | (bits & 0xffffffffull), tag | (bits >> 32));
        }
    }

    /** TILE_NOTHING while the tile has published nothing in this launch; else its state and value. */
    __device__ __forceinline__ unsigned poll(long long tile, V& value) const {
        const TileStatusSlot& slot = slots[tile];
        unsigned long long w, h = 0;
        if constexpr (Payload::IN_WORD) w = scan_detail::load_relaxed(&slot.words[0]);
        else scan_detail::load_relaxed_pair(&slot.words[0], w, h);
        unsigned long long bits = w & 0xffffffffull;
        if constexpr (!Payload::IN_WORD) {
            if ((h >> 32) != (w >> 32)) return TILE_NOTHING;  // halves of different publications
            bits |= h << 32;
        }
        if ((unsigned)(w >> 35) != epoch) return TILE_NOTHING;
        value = Payload::make(bits, (unsigned)(w >> 34) & 1u);
        return (unsigned)(w >> 32) & 3u;
    }
};

/**
 * Status words for a value of any size up to 64 bytes (the running argmin and argmax publish a run:
 * a key, a position and a segment start, 24 bytes): words[k] = tag | the value's k-th 32 bits,
 * written and read a 16-byte pair at a time. A reader takes the value only if every word carries
 * the same tag of this launch, by the argument of TileStatus: each state is written once per
 * launch, so equal tags mean every piece comes from the same publication. The pairs' loads are
 * independent, so a poll is still one round trip. No head bit: the value carries what it needs.
 */
template <typename V>
struct WideTileStatus {
    static_assert(sizeof(V) % 4 == 0, "values of whole 32-bit pieces");
    static constexpr int PIECES = (int)sizeof(V) / 4;
    static constexpr int PAIRS = (PIECES + 1) / 2;
    static_assert(2 * PAIRS <= 16, "a value fits one slot");
    TileStatusSlot* slots;
    unsigned epoch;

    __device__ __forceinline__ void publish(long long tile, unsigned state, V value) const {
        unsigned piece[2 * PAIRS] = {};
        __builtin_memcpy(piece, &value, sizeof(V));
        const unsigned long long tag = (unsigned long long)((epoch << 3) | state) << 32;
        TileStatusSlot& slot = slots[tile];
#pragma unroll
        for (int p = 0; p < PAIRS; ++p) {
            scan_detail::store_relaxed_pair(&slot.words[2 * p], tag | piece[2 * p], tag | piece[2 * p + 1]);
        }
    }

    /** TILE_NOTHING while the tile has published nothing whole in this launch; else its state and value. */
    __device__ __forceinline__ unsigned poll(long long tile, V& value) const {
        const TileStatusSlot& slot = slots[tile];
        unsigned long long w[2 * PAIRS];
#pragma unroll
        for (int p = 0; p < PAIRS; ++p) scan_detail::load_relaxed_pair(&slot.words[2 * p], w[2 * p], w[2 * p + 1]);
        const unsigned tag = (unsigned)(w[0] >> 32);
        bool whole = tag >> 3 == epoch;
        unsigned piece[2 * PAIRS];
#pragma unroll
        for (int k = 0; k < 2 * PAIRS; ++k) {
            whole &= (unsigned)(w[k] >> 32) == tag;
            piece[k] = (unsigned)w[k];
        }
        if (!whole) return TILE_NOTHING;
        __builtin_memcpy(&value, piece, sizeof(V));
        return tag & 3u;
    }
};

}  // namespace primer
