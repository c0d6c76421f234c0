// The CSR segments' part of scratch (layout: scratch.cuh): the chunk tiling that places long
// segments' partials, the queued work items (LongWork), the queue counters, the malformed-offsets
// flags and the ids of long segments of several items.
//
// Chunks tile the flat range [offsets[0], offsets[nseg]) in pieces of C elements, where
// C = max(LONG_CHUNK_MIN, total / MAX_CHUNKS rounded up): every kernel computes C from the
// two end offsets, so scratch is bounded (MAX_CHUNKS) without the host knowing the total.
// A segment longer than C cannot lie inside one chunk, so a chunk meets at most two long
// segments: the one covering its first element (slot 2j) and one starting inside it (slot 2j+1).
// (C stays 2048 up to 2^27 elements in all, so a medium segment never burdens one warp for long;
// work items of 16 chunks keep a block's fixed cost per item small: one 2^28-element float32
// segment reduces at ~3.9 TB/s.)
#pragma once
#include "policy.cuh"

namespace primer {
namespace segmented {

/**
 * One queued piece of a long segment: elements [begin, end), up to ITEM_CHUNKS chunks of it,
 * indices counted from index_base (the segment's start), its partial into slot; a negative slot,
 * -1 - s, marks an item that is all of segment s, its result written to out[s]. Everything the
 * block needs is in the item, so it starts loading after a single dependent read.
 */
struct LongWork {
    long long begin;
    long long end;
    long long index_base;
    long long slot;
};

/** C: the chunk length, from the flat total alone, so every kernel derives the same one. */
__device__ __forceinline__ long long long_chunk_length(long long total) {
    if (total < 0) total = 0;
    long long c = (total + Constants::MAX_CHUNKS - 1) / Constants::MAX_CHUNKS;
    if (c < Constants::LONG_CHUNK_MIN) c = Constants::LONG_CHUNK_MIN;
    return (c + Constants::CHUNK_ALIGN - 1) / Constants::CHUNK_ALIGN * Constants::CHUNK_ALIGN;
}

__device__ __forceinline__ unsigned long long* item_count(unsigned char* scratch) {
    return reinterpret_cast<unsigned long long*>(scratch + Constants::ITEM_COUNT_OFFSET);
}
__device__ __forceinline__ unsigned long long* long_count(unsigned char* scratch) {
    return reinterpret_cast<unsigned long long*>(scratch + Constants::LONG_COUNT_OFFSET);
}
__device__ __forceinline__ unsigned* malformed_flags(unsigned char* scratch) {
    return reinterpret_cast<unsigned*>(scratch + Constants::MALFORMED_OFFSET);
}
__device__ __forceinline__ unsigned long long* first_decrease(unsigned char* scratch) {
    return reinterpret_cast<unsigned long long*>(scratch + Constants::FIRST_DECREASE_OFFSET);
}
__device__ __forceinline__ unsigned long long* idle_counter(unsigned char* scratch) {
    return reinterpret_cast<unsigned long long*>(scratch + Constants::IDLE_COUNTER_OFFSET);
}
__device__ __forceinline__ unsigned long long* check_ticket(unsigned char* scratch) {
    return reinterpret_cast<unsigned long long*>(scratch + Constants::CHECK_TICKET_OFFSET);
}
__device__ __forceinline__ unsigned long long* short_values_counter(unsigned char* scratch) {
    return reinterpret_cast<unsigned long long*>(scratch + Constants::SHORT_VALUES_OFFSET);
}
__device__ __forceinline__ LongWork* work_items(unsigned char* scratch) {
    return reinterpret_cast<LongWork*>(scratch + Constants::HEADER_BYTES
                                       + 2 * Constants::MAX_CHUNKS * Constants::SLOT_BYTES);
}
__device__ __forceinline__ long long* long_segments(unsigned char* scratch) {
    return reinterpret_cast<long long*>(scratch + Constants::HEADER_BYTES
                                        + 2 * Constants::MAX_CHUNKS * Constants::SLOT_BYTES
                                        + 2 * Constants::MAX_CHUNKS * (long long)sizeof(LongWork));
}

/** The partial slot of long segment [start, ...) in chunk j: 2j if it covers the chunk's start. */
__device__ __forceinline__ long long long_slot(long long start, long long flat_base, long long chunk_length,
                                               long long j) {
    return 2 * j + (start > flat_base + j * chunk_length ? 1 : 0);
}

/** The smaller of a queue counter and its capacity (the counter passes it only for malformed offsets). */
__device__ __forceinline__ long long clamp_count(unsigned long long count, long long capacity) {
    return count < (unsigned long long)capacity ? (long long)count : capacity;
}

}  // namespace segmented
}  // namespace primer
