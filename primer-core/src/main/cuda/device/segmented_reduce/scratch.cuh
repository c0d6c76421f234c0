// The scratch buffer every kernel here shares: its layout, and the accessors of the overflow flag
// and the partial slots (the segments' counters, flags, work items and ids: segment_scratch.cuh).
//
// Scratch layout (zero-filled once by the host; counters are put back to zero by the host after
// each call):
//   [0, 8)     overflow flag: a 128-bit sum (int64 SUM, int32 sum_exact) that does not fit a long
//              sets it to 2^63 - (first index)
//   [8, 16)    count of queued work items (segments)
//   [16, 24)   count of long segments of more than one work item (segments)
//   [24, 28)   malformed-offsets flags (segments): BAD_BOUNDS | DECREASING | QUEUE_FULL, and
//              ROUTED_CLASSIC | ROUTED_SHORT (the check's route, not a fault: check_offsets.cuh)
//   [32, 40)   first decreasing offset: 2^63 - (smallest s with offsets[s] > offsets[s+1]), or 0
//   [40, 48)   the offsets' check: idle lane steps of the classic kernels, summed over its blocks
//   [48, 56)   the offsets' check: ticket of its last block (which puts both back to zero)
//   [56, 64)   the one launch's arrivals at its grid barriers (its last block puts them back to zero)
//   [64, 72)   the offsets' check: values in short segments, summed over its blocks (put back to zero
//              with the idle steps)
//   [256, ...) rows: partial slots (rows * chunks); segments: 2 * MAX_CHUNKS partial slots, then
//              2 * MAX_CHUNKS work items, then MAX_CHUNKS ids of long segments of several items.
//   Every partial slot is 16 bytes.
#pragma once
#include "policy.cuh"

namespace primer {
namespace segmented {

template <typename A>
__device__ __forceinline__ A* partial_slot(unsigned char* scratch, long long slot) {
    return reinterpret_cast<A*>(scratch + Constants::HEADER_BYTES + slot * Constants::SLOT_BYTES);
}

__device__ __forceinline__ unsigned long long* overflow_flag(unsigned char* scratch) {
    return reinterpret_cast<unsigned long long*>(scratch + Constants::OVERFLOW_FLAG_OFFSET);
}

}  // namespace segmented
}  // namespace primer
