// Batched and segmented reduce: one result per row of a row-major (rows, cols) matrix, or one per
// CSR segment values[offsets[s], offsets[s+1]).
//
// The building block is group_fold (segmented_reduce/group_fold.cuh): G cooperating threads (a
// few lanes, a warp or a whole block) fold a range [begin, end) of one row into per-thread
// accumulators, with 16-byte vector loads for the body and enough loads in flight to keep HBM busy
// even when a row gives a thread a single vector.
//
// Batched rows (uniform length, so the host picks one kernel, see SegmentedReducePolicy.java):
//   rows_group   G lanes per row, G in {1, 2, 4, 8, 16, 32}, then a shuffle reduce within G lanes.
//                G = 1 is thread-per-row; 64 float columns use G = 16, one float4 per lane.
//                Vector loads when every row is 16-byte aligned, coalesced scalar loads otherwise.
//   rows_warp    a warp per row (a few hundred to a few thousand columns), or a half-warp (rows of
//                at most 1 KiB).
//   rows_chunk   a block of 256 threads per (row, chunk): long rows. With one chunk per row it
//                writes the result; with several (few rows, huge cols) it leaves partials in
//                scratch and
//   rows_combine folds each row's partials in chunk order.
//
// CSR segments (lengths vary freely, e.g. power law), four launches: the offsets' check, then the
// classic kernels below or the merge path (segmented_reduce_merge_path.cuh, every thread the same
// number of steps, for heavy-tailed lengths). The check's verdict, in pinned memory, tells the
// host which (GpuSegmentedReduce, SegmentedReducePolicy); where there is no choice (int8, int64
// SUM, 128-bit int32 SUM, user-defined operators) the host reads the header back once afterwards
// (offsets check, 128-bit sum overflow) instead:
//   check_offsets     the offsets' check, first: its flags shut the gate the others load as they
//                     start, so bad offsets are refused with nothing written; it also counts the
//                     steps segments_small's lanes would idle (segmented_reduce/check_offsets.cuh).
//   segments_small    a warp per 32 consecutive segments. Short segments (<= SHORT_SEGMENT) are
//                     folded by their own lane; medium ones (<= chunk length C) by the whole warp,
//                     two at a time; long ones (> C) are queued as work items of up to
//                     ITEM_CHUNKS chunks of C elements each, with one atomic reservation per
//                     warp. Up to four blocks per SM (<= 64 registers; segmented_reduce.cu gives
//                     each operator its count): latency, not bandwidth, bounds it, so warps in
//                     flight count most.
//   segments_short    segments_small's lanes alone, where the check finds every value in a short
//                     segment: six to eight blocks per SM, and no segments_long or
//                     segments_combine behind it. Its own gate (ROUTED_SHORT) lets the host queue
//                     it before the verdict, as it queues the merge path's tiles.
//   segments_long     persistent blocks, a block per work item, its partial into a slot fixed by
//                     the item's first chunk; an item that is its whole segment (most long
//                     segments: up to ITEM_CHUNKS * C elements) writes the result itself.
//   segments_combine  a block per segment of several items folds their partials in order.
//   Chunks of C elements tile the flat range [offsets[0], offsets[nseg]) (C from the two end
//   offsets alone, so scratch stays bounded); a long segment's partials go to slots fixed by the
//   chunks it meets (segmented_reduce/segment_scratch.cuh).
//   Malformed offsets: check_offsets raises BAD_BOUNDS unless 0 <= offsets[0] <= offsets[nseg] <=
//   in_length, and DECREASING (keeping the first such s) for any offsets[s] > offsets[s+1]; the
//   other kernels read and write nothing when a flag is up. Behind the check, so that offsets
//   changed after it ran still never make a kernel read or write outside its buffers,
//   segments_small also tests the end offsets and clamps every segment into [offsets[0],
//   offsets[nseg]]; queue entries past the capacity of the work items (2 * MAX_CHUNKS) or of the
//   long ids (MAX_CHUNKS) are not written, and a reservation passing either raises QUEUE_FULL
//   (only overlapping segments get there: disjoint long segments need fewer than MAX_CHUNKS ids and
//   2 * MAX_CHUNKS items); segments_long and segments_combine clamp the counts they read.
//
// Determinism: which thread folds which element, and the order partials combine, depend only on
// the shape, the offsets and the input address, never on timing (the work queue's order varies,
// but a work item's slot and its fold do not). No float atomics; results are bitwise reproducible.
//
// Every kernel takes one scratch buffer: a 256-byte header (overflow flag; for segments the queue
// counters and the malformed-offsets flags), then 16-byte partial slots and, for segments, the
// work queue (layout: segmented_reduce/scratch.cuh).
//
// Where the parts are (device/segmented_reduce/, one idea a file, included below in dependency order):
//   policy.cuh           Constants: the shape constants SegmentedReducePolicy.java mirrors
//   recipe.cuh           Recipe (input, accumulator, output, operator), Finish, mark_overflow
//   vector_fold.cuh      a loaded 16-byte vector's fold (VectorFold; Vec16 and load_vector: thread/vector16.cuh)
//   group_fold.cuh       group_fold (head | body | tail, loads in flight), group_reduce, group_reduce_rows
//   scratch.cuh          the scratch layout; overflow flag and partial slots
//   rows.cuh             rows_group, rows_warp, rows_chunk, rows_combine (with their measurements)
//   segment_scratch.cuh  the chunk tiling of long segments, LongWork, the segments' counters and flags
//   check_offsets.cuh    the offsets' check, its verdict, and the gate it shuts
//   run_fold.cuh         a run of consecutive values folded by one thread (ArgMin/ArgMax by keys)
//   warp_segments.cuh    a warp's 32 segments: their bounds behind the gate, lane_fold, queue_long_segments
//   segments.cuh         segments_small, segments_short, segments_long, segments_combine (with their measurements)
//
// Self-contained (ops.cuh, thread/, warp/, block/ only), so NVRTC can instantiate it for other operators.
#pragma once
#include "segmented_reduce/policy.cuh"
#include "segmented_reduce/recipe.cuh"
#include "segmented_reduce/vector_fold.cuh"
#include "segmented_reduce/group_fold.cuh"
#include "segmented_reduce/scratch.cuh"
#include "segmented_reduce/rows.cuh"
#include "segmented_reduce/segment_scratch.cuh"
#include "segmented_reduce/check_offsets.cuh"
#include "segmented_reduce/run_fold.cuh"
#include "segmented_reduce/warp_segments.cuh"
#include "segmented_reduce/segments.cuh"
