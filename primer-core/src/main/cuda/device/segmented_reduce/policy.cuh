// The batched and segmented reduce's shape constants: block sizes, vectors in flight, segment
// classes, the chunk tiling of long segments and the scratch header offsets (scratch.cuh,
// segment_scratch.cuh). SegmentedReducePolicy.java mirrors them, and SegmentedReducePolicyTest
// reads them from this file.
#pragma once

namespace primer {
namespace segmented {

/** Shape constants; SegmentedReducePolicy.java mirrors them. */
struct Constants {
    static constexpr int BLOCK_THREADS = 256;         // every kernel but rows_chunk
    static constexpr int CHUNK_BLOCK_THREADS = 256;   // rows_chunk
    static constexpr int CHUNK_VECS_PER_THREAD = 3;   // rows_chunk: vectors per thread per batch
    static constexpr int LONG_VECS_PER_THREAD = 4;    // segments_long
    static constexpr int WARP_VECS_PER_LANE = 2;      // rows_warp (with six blocks per SM, segmented_reduce.cu)
    static constexpr int MEDIUM_VECS_PER_LANE = 2;    // medium segments, two at a time
    static constexpr int ROWS_PER_GROUP_VECTOR = 2;   // rows_group: rows in flight per group of lanes
    static constexpr int ROWS_PER_GROUP_SCALAR = 4;
    static constexpr int SHORT_SEGMENT = 32;          // folded by one lane
    static constexpr long long LONG_CHUNK_MIN = 2048; // C's floor: shorter segments never leave the warp
    static constexpr long long MAX_CHUNKS = 1LL << 16;
    static constexpr long long CHUNK_ALIGN = 64;      // C is a multiple of this
    static constexpr long long ITEM_CHUNKS = 16;      // chunks per queued work item
    static constexpr int MERGE_PATH_ITEMS = 13;       // merge-path steps per thread, 8-byte values (segmented_reduce_merge_path.cuh)
    static constexpr int MERGE_PATH_ITEMS_NARROW = 23; // the same for 1- to 4-byte values
    static constexpr int MERGE_PATH_PREFETCH_AHEAD = 192;  // tiles between a tile and the one it asks L2 for (merge_path_prefetch_ahead)
    static constexpr int SHORT_PREFETCH_AHEAD = 1536;      // blocks between segments_short's block and the one it asks L2 for
    static constexpr int SHORT_PREFETCH_SEGMENT_BYTES = 32; // ... where segments average at most this many bytes of values
    static constexpr int SLOT_BYTES = 16;
    static constexpr int HEADER_BYTES = 256;
    static constexpr int OVERFLOW_FLAG_OFFSET = 0;
    static constexpr int ITEM_COUNT_OFFSET = 8;
    static constexpr int LONG_COUNT_OFFSET = 16;
    static constexpr int MALFORMED_OFFSET = 24;
    static constexpr int FIRST_DECREASE_OFFSET = 32;
    static constexpr int IDLE_COUNTER_OFFSET = 40;    // the check's sum of idle lane steps (check_offsets.cuh)
    static constexpr int CHECK_TICKET_OFFSET = 48;    // the check's last-block ticket
    static constexpr int ARRIVALS_OFFSET = 56;        // the one launch's grid barrier (one_launch.cuh)
    static constexpr int SHORT_VALUES_OFFSET = 64;    // the check's sum of values in short segments (check_offsets.cuh)
    static constexpr unsigned BAD_BOUNDS = 1;   // offsets[0] < 0, offsets[nseg] < offsets[0] or > in_length
    static constexpr unsigned DECREASING = 2;   // some offsets[s] > offsets[s+1]
    static constexpr unsigned QUEUE_FULL = 4;   // the long-segment queue would overflow
    static constexpr unsigned ROUTED_CLASSIC = 8;  // not a fault: the check sent the call to the classic
                                                   // kernels, so the merge path queued behind it stays shut
    static constexpr unsigned ROUTED_SHORT = 16;   // not a fault, raised with ROUTED_CLASSIC: no segment is
                                                   // longer than SHORT_SEGMENT, so segments_short alone runs;
                                                   // its gate opens on nothing else (check_offsets.cuh)
    static constexpr long long ITEM_CAPACITY = 2 * MAX_CHUNKS;  // work items
    static constexpr long long LONG_CAPACITY = MAX_CHUNKS;      // long segment ids
};

}  // namespace segmented
}  // namespace primer
