package dev.primer.gpu;

import dev.primer.DType;

/**
 * How batched and segmented reduce map onto the GPU: which kernel, how many lanes per row, how many
 * chunks per row, how many blocks. Mirrors {@code primer::segmented::Constants} in
 * {@code device/segmented_reduce/policy.cuh}; the choice depends only on the shape, the dtype, the input's
 * 16-byte alignment and the device, so results are reproducible run to run.
 *
 * <p>Rows have one length, so one kernel is picked per call:
 * <ul>
 *   <li>{@link RowsKernel#GROUP}: rows of at most 32 vectors (128 float32 columns): 2^k lanes per row,
 *       k the smallest with one 16-byte vector per lane, each group holding two rows' loads in
 *       flight (rows_vector, when every row is 16-byte aligned), or 2^k lanes loading scalars,
 *       four rows at a time (rows_scalar). 64 float32 columns: 16 lanes, one float4 each, a warp
 *       reading 1 KiB contiguously per row pair. Thread-per-row falls out as 1 lane (at most one
 *       vector of columns).</li>
 *   <li>{@link RowsKernel#WARP}: a warp per row, up to {@link #WARP_MAX_COLS} columns, while there are
 *       enough rows to fill the GPU with warps (a 512-thread block per 9000-column row spends more
 *       on its start and its barrier than on its 36 KB); a half-warp per row (rows_half_warp,
 *       log2Lanes 4) for rows of at most {@link #HALF_WARP_MAX_ROW_BYTES}.</li>
 *   <li>{@link RowsKernel#CHUNK}: a 256-thread block per (row, chunk) for long rows. With enough
 *       rows, one chunk per row and the block writes the result. With few rows (fewer than
 *       {@link #TARGET_BLOCKS_PER_SM} blocks per SM) each row is cut into equal chunks of at least
 *       {@link #MIN_CHUNK_VECTORS} vectors; partials go to scratch and a second small kernel folds
 *       them in chunk order.</li>
 * </ul>
 *
 * <p>Segments vary in length, so the kernels adapt per segment on the device (see the .cuh header):
 * a warp per 32 segments folds short ones lane by lane and medium ones warp by warp, and queues long
 * ones as work items of up to {@link #ITEM_CHUNKS} chunks for persistent blocks, which finish a
 * segment of one item themselves; a combine kernel folds the partials of each segment of several
 * items in order. Three launches and a counter reset; the host sizes scratch for the worst case
 * ({@link #MAX_CHUNKS} chunks) without reading the offsets.
 *
 * <p>The merge path ({@code segmented_reduce_merge_path.cuh}) is the other way: tiles of
 * {@link #mergePathTile} steps (a step folds a value or closes a segment), so every thread does the
 * same work whatever the lengths. Three launches too: a split per tile boundary, a block per tile,
 * a fixup of segments that span tiles. It wins where lengths are heavy-tailed and loses up to 1.5x
 * on uniform short ones (lab, 2^26 float32 values: power law 0.339 -> 0.237 ms, uniform 1-8 0.200 ->
 * 0.257), so the route is the offsets' to decide:
 * <ul>
 *   <li>Every built-in operator over every type (but int64 SUM), and every user-defined
 *       operator: the offsets' check runs first and takes the route
 *       on the device. It sums the steps the classic kernels' lanes would idle while their warp
 *       folds its longest short segment; more than {@link #MERGE_PATH_IDLE_PER_VALUE} per value
 *       takes the merge path ({@link #prefersMergePath}). Where {@link #mergePathFits}, the host
 *       mostly queues the merge path's tiles behind the check before it has the verdict (sized
 *       from {@code inLength}; the check's route opens their gate or not:
 *       GpuSegmentedReduce.launchRouted); otherwise it launches the route the verdict names (merge
 *       path tiles sized from the offsets' own range).</li>
 *   <li>int64 SUM (exact in 128 bits) takes the merge path when {@code in} holds at most
 *       {@link #MERGE_PATH_MAX_AVERAGE} elements per segment (measured: 2x on power-law lengths,
 *       1.6x on segments of one element, 0.94-1.1x on uniform ones, 0.85x with half of {@code in}
 *       in one segment), without waiting for the check: its host reads the overflow flag at the end
 *       anyway, and sizes the grid from {@code inLength + segments}, hence the bound.</li>
 *   <li>int32 SUM in 128 bits (over more than 2^32 elements) keeps the classic kernels. They read
 *       half the bytes where a merge step costs what it does for int64, and were faster on most
 *       distributions.</li>
 * </ul>
 */
public final class SegmentedReducePolicy {
    private SegmentedReducePolicy() {}

    /** Threads per block of every kernel but rows_chunk. */
    public static final int BLOCK_THREADS = 256;
    /** Threads per block of rows_chunk. */
    public static final int CHUNK_BLOCK_THREADS = 256;
    static final int WARPS_PER_BLOCK = BLOCK_THREADS / 32;
    static final int ROWS_PER_GROUP_VECTOR = 2;
    static final int ROWS_PER_GROUP_SCALAR = 4;
    static final int CHUNK_VECS_PER_THREAD = 3;
    /**
     * rows_group's grid at most this many blocks per SM (a few waves; each warp then takes row after
     * row): a block per 32 rows of 64 float32 spent its time starting and ending (H200, 4M x 64:
     * 0.287 -> 0.272 ms, bench/results/2026-11-26-nvidia-h200-step93-ab.md).
     */
    static final int GROUP_BLOCKS_PER_SM = 24;
    /** Warp-per-row up to this many columns, given at least WARP_MIN_ROWS_PER_SM rows per SM. */
    static final long WARP_MAX_COLS = 32768;
    static final int WARP_MIN_ROWS_PER_SM = 32;
    /**
     * Rows of at most this many bytes take a half-warp each: a warp's two rows reduce together in
     * four shuffle rounds, not five each. H200, 1 GiB in rows of 1 KiB (bench/lab/rows_warp_lab.cu,
     * 2026-11-26-nvidia-h200-step95-ab.md): float64 0.310 -> 0.255 ms, float32 0.261 -> 0.251; at 2 KiB
     * float32 was 2% slower, at 16 KiB 4%.
     */
    public static final long HALF_WARP_MAX_ROW_BYTES = 1024;
    /**
     * Blocks per SM below which long rows are split into several chunks each (rows_chunk keeps four
     * 256-thread blocks per SM; 2048 rows of 262144 float32 run fastest unsplit).
     */
    static final int TARGET_BLOCKS_PER_SM = 4;
    /** A chunk is at least two block-wide batches of loads. */
    static final long MIN_CHUNK_VECTORS = 2L * CHUNK_BLOCK_THREADS * CHUNK_VECS_PER_THREAD;
    /** Segments this short are folded by one lane. */
    static final long SHORT_SEGMENT = 32;
    /** C, the chunk length of the long-segment queue, is at least this and a multiple of CHUNK_ALIGN. */
    static final long LONG_CHUNK_MIN = 2048;
    static final long CHUNK_ALIGN = 64;
    /** Grid-stride kernels never need more blocks than this. */
    static final long MAX_GRID = Integer.MAX_VALUE;

    // Scratch layout (bytes), as in device/segmented_reduce/scratch.cuh.
    static final long OVERFLOW_FLAG_OFFSET = 0;
    static final long COUNTERS_OFFSET = 8;  // item count, long-segment count: 16 bytes
    static final int COUNTER_WORDS = 4;
    // The offsets' check's counters and ticket, zero between calls (its last block resets them).
    static final long IDLE_COUNTER_OFFSET = 40;   // idle lane steps
    static final long CHECK_TICKET_OFFSET = 48;
    static final long ARRIVALS_OFFSET = 56;       // the one launch's grid barrier
    static final long SHORT_VALUES_OFFSET = 64;   // values in short segments
    static final long HEADER_BYTES = 256;
    static final long SLOT_BYTES = 16;
    static final long MAX_CHUNKS = 1L << 16;
    /** Chunks per queued work item of a long segment. */
    static final long ITEM_CHUNKS = 16;
    static final long WORK_ITEM_BYTES = 32;

    /** Merge-path steps per thread (the .cuh's MERGE_PATH_ITEMS and _NARROW: 8-byte values, 1 to 4 bytes). */
    static final int MERGE_PATH_ITEMS = 13;
    static final int MERGE_PATH_ITEMS_NARROW = 23;
    static final long MERGE_PATH_TILE = (long) BLOCK_THREADS * MERGE_PATH_ITEMS;

    /** Merge-path steps per tile for values of {@code type} (256 threads). */
    static long mergePathTile(DType type) {
        return (long) BLOCK_THREADS * (type.byteSize() <= 4 ? MERGE_PATH_ITEMS_NARROW : MERGE_PATH_ITEMS);
    }

    /**
     * Idle lane steps per value of the classic kernels beyond which the merge path is faster. The
     * lab's distributions (check_offsets.cuh measures them): power law 2.6 (the merge path 1.43x
     * faster for float32 sums), uniform lengths 1-8 and 1-32 0.8-0.9 (0.78x and 0.67x), all alike
     * 0 (0.88x for lengths of 1, 0.84x for 100).
     */
    static final double MERGE_PATH_IDLE_PER_VALUE = 1.5;

    /**
     * Whether segments over {@code values} elements whose short folds idle {@code idleSteps} take the
     * merge path: the rule the offsets' check applies on the device, given
     * {@link #MERGE_PATH_IDLE_PER_VALUE} (routes_classic in check_offsets.cuh, the same double
     * arithmetic); the GPU tests hold the check's route to this.
     */
    static boolean prefersMergePath(long idleSteps, long values) {
        return values > 0 && idleSteps > MERGE_PATH_IDLE_PER_VALUE * values;
    }

    /**
     * The merge path is taken when {@code inLength <= MERGE_PATH_MAX_AVERAGE * segments}: many short
     * segments, where it gains (lengths 1 to ~100 in the lab), and a grid of at most one tile per ~50
     * segments even when the offsets cover only part of {@code in}.
     */
    static final long MERGE_PATH_MAX_AVERAGE = 64;

    /**
     * Whether segments over {@code inLength} elements take the merge path (for int64 SUM), or have it
     * queued behind the check before the verdict (routed recipes).
     */
    static boolean mergePathFits(long inLength, long segments) {
        return Math.ceilDiv(inLength, MERGE_PATH_MAX_AVERAGE) <= segments;  // inLength <= 64 * segments, no overflow
    }

    /** Tiles of the merge path for segments over {@code inLength} elements: enough for every step. */
    static long mergePathTiles(long inLength, long segments) {
        return mergePathTiles(inLength, segments, MERGE_PATH_TILE);
    }

    /** As above, with tiles of {@code tile} steps. */
    static long mergePathTiles(long inLength, long segments, long tile) {
        return Math.max(1, ceilDiv(inLength + segments, tile));
    }

    /**
     * Merge steps per thread in the one launch, at least: below it more blocks cost more than
     * shorter walks save (bench/lab/one_launch_lab.cu on an H200, 2^16 float32 values: 15.6 us at
     * one step, 14.8 at two to four, 17.4 at the merge path's 23).
     */
    static final int ONE_LAUNCH_MIN_ITEMS = 4;

    /**
     * Merge steps per thread of the one launch over {@code steps} merge steps (values and
     * segments) on {@code sms} SMs: enough for about a tile per SM, so that the walks, chains of
     * dependent steps with nothing to hide them behind, are as short as the SMs allow; at least
     * {@link #ONE_LAUNCH_MIN_ITEMS}, at most {@code maxItems} (the merge path's). The lab measured
     * this choice within 0.1-0.5 us of the best of 1-23 steps at 2^16 to 2^19 values.
     */
    static int oneLaunchItems(long steps, int sms, int maxItems) {
        long perSm = ceilDiv(steps, (long) sms * BLOCK_THREADS);
        return (int) Math.min(maxItems, Math.max(ONE_LAUNCH_MIN_ITEMS, perSm));
    }

    /**
     * Whether segments whose one launch has {@code tiles} tiles take it (the check and the merge
     * path in one cooperative kernel: {@code device/segmented_reduce/one_launch.cuh}) rather than
     * the check's verdict and the kernels it picks: when a block per tile fits one {@code wave} of
     * resident blocks, which the kernel needs (a block holds its tile in shared memory across the
     * grid barrier). There the round trip and the three launches it saves weigh more than what the
     * classic kernels gain over the merge path on even lengths.
     */
    static boolean takesOneLaunch(long tiles, long wave) {
        return tiles <= wave;
    }

    /** Scratch bytes of the merge path: header, tiles + 1 splits (padded to 16), two slots per tile. */
    static long mergePathScratchBytes(long tiles) {
        return HEADER_BYTES + ceilDiv(8 * (tiles + 1), 16) * 16 + 2 * tiles * SLOT_BYTES;
    }

    /** The kernel family for batched rows. */
    public enum RowsKernel { GROUP, WARP, CHUNK }

    /**
     * A plan for batched rows. {@code log2Lanes} applies to GROUP and WARP (5: a warp per row, 4: a
     * half-warp), {@code vectorized} to GROUP; {@code chunksPerRow} and {@code chunkVectors} to CHUNK
     * (chunksPerRow &gt; 1 adds the combine launch).
     */
    public record RowsPlan(RowsKernel kernel, int log2Lanes, boolean vectorized, long chunksPerRow,
                           long chunkVectors, long grid) {
        public boolean needsCombine() { return kernel == RowsKernel.CHUNK && chunksPerRow > 1; }
    }

    /** Elements per 16-byte vector. */
    static int vectorItems(DType type) { return 16 / type.byteSize(); }

    /** The plan for {@code rows} rows of {@code cols} elements at device address {@code in}. */
    public static RowsPlan rows(DType type, long in, long rows, long cols, int multiprocessors) {
        int vec = vectorItems(type);
        if (cols <= 32L * vec) {
            long vectorsPerRow = Math.max(1, (cols + vec - 1) / vec);
            int log2Lanes = 64 - Long.numberOfLeadingZeros(vectorsPerRow - 1);  // ceil(log2)
            boolean vectorized = (in & 15) == 0 && cols % vec == 0;
            long rowsPerBlock = (long) WARPS_PER_BLOCK * (32 >> log2Lanes)
                    * (vectorized ? ROWS_PER_GROUP_VECTOR : ROWS_PER_GROUP_SCALAR);
            return new RowsPlan(RowsKernel.GROUP, log2Lanes, vectorized, 1, 0,
                    Math.min((long) GROUP_BLOCKS_PER_SM * multiprocessors, ceilDiv(rows, rowsPerBlock)));
        }
        if (cols <= WARP_MAX_COLS && rows >= (long) WARP_MIN_ROWS_PER_SM * multiprocessors) {
            int log2Lanes = warpLog2Lanes(type, cols);
            return new RowsPlan(RowsKernel.WARP, log2Lanes, false, 1, 0, warpGrid(rows, log2Lanes));
        }
        long targetBlocks = (long) TARGET_BLOCKS_PER_SM * multiprocessors;
        long rowVectors = ceilDiv(cols, vec);
        long chunks = 1;
        if (rows < targetBlocks) {
            chunks = Math.max(1, Math.min(ceilDiv(targetBlocks, rows), rowVectors / MIN_CHUNK_VECTORS));
        }
        long chunkVectors = ceilDiv(ceilDiv(rowVectors, chunks), CHUNK_BLOCK_THREADS) * CHUNK_BLOCK_THREADS;
        chunks = ceilDiv(rowVectors, chunkVectors);
        return new RowsPlan(RowsKernel.CHUNK, 0, false, chunks, chunkVectors,
                Math.min(MAX_GRID, rows * chunks));
    }

    /** Lanes per row (log2) of a warp-per-row launch: 4, a half-warp, for rows of at most HALF_WARP_MAX_ROW_BYTES; else 5. */
    static int warpLog2Lanes(DType type, long cols) {
        return cols * type.byteSize() <= HALF_WARP_MAX_ROW_BYTES ? 4 : 5;
    }

    /** Blocks of a warp-per-row launch of 2^log2Lanes lanes a row: a row per group, at most MAX_GRID (they grid-stride). */
    static long warpGrid(long rows, int log2Lanes) {
        return Math.min(MAX_GRID, ceilDiv(rows, (long) WARPS_PER_BLOCK << (5 - log2Lanes)));
    }

    /** Scratch bytes a rows plan needs (the header, plus a slot per chunk when chunks combine). */
    static long rowsScratchBytes(RowsPlan plan, long rows) {
        return HEADER_BYTES + (plan.needsCombine() ? Math.multiplyExact(rows, plan.chunksPerRow()) * SLOT_BYTES : 0);
    }

    /** Blocks of the rows-combine kernel: a warp per row. */
    static long rowsCombineGrid(long rows) {
        return Math.min(MAX_GRID, ceilDiv(rows, WARPS_PER_BLOCK));
    }

    /** Scratch bytes of the segmented path: header, partial slots, work items, long-segment ids. */
    static long segmentsScratchBytes() {
        return HEADER_BYTES + 2 * MAX_CHUNKS * SLOT_BYTES + 2 * MAX_CHUNKS * WORK_ITEM_BYTES + MAX_CHUNKS * 8;
    }

    /**
     * C for {@code total} elements in all (as the kernels' long_chunk_length): segments longer than
     * this are queued as work items for whole blocks.
     */
    static long longChunkLength(long total) {
        long c = Math.max(LONG_CHUNK_MIN, ceilDiv(Math.max(0, total), MAX_CHUNKS));
        return ceilDiv(c, CHUNK_ALIGN) * CHUNK_ALIGN;
    }

    /** Blocks of segments_small: a warp per 32 segments. */
    static long segmentsSmallGrid(long segments) {
        return ceilDiv(segments, 32L * WARPS_PER_BLOCK);
    }

    static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }
}
