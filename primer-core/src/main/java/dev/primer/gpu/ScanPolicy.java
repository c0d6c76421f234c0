package dev.primer.gpu;

import dev.primer.DType;
import dev.primer.Op;

/**
 * Launch shape of the device scan. Mirrors {@code ScanShape} and {@code ScanPolicyConstants} in
 * {@code src/main/cuda/device/scan/policy.cuh}; a kernel whose grid disagrees with its own tile size
 * traps at once, so a mismatch cannot go unnoticed.
 *
 * <p>One block scans one tile, {@link #BLOCK_THREADS} threads times {@link #rows} 16-byte vectors of
 * input each: 32768 int8 elements, 8192 of 4 bytes or 4096 of 8 bytes (256 x 8), except segmented
 * int8 scans but sums, 16384 (256 x 4: they keep the block scan, see {@code TileScanFor}); the input type sets
 * the tile, whatever the output (int8 -> int64 tiles are int8 tiles). The tiles are laid on 16-byte
 * boundaries of the input, so tile 0 may start up to 15 int8 elements (3 of 4 bytes, 1 of 8) before
 * {@code in[0]} ({@link #shift}).
 */
public final class ScanPolicy {
    private ScanPolicy() {}

    public static final int VECTOR_BYTES = 16;
    /**
     * Scratch: a 16-byte header (the tile counter), then one 128-byte status slot per tile, so that no
     * two tiles' status words share a cache line.
     */
    public static final int SCRATCH_HEADER_BYTES = 16;
    public static final int STATUS_SLOT_BYTES = 128;
    /** Epochs run 1 .. EPOCH_LIMIT - 1; the status words hold 29 bits of them. */
    public static final int EPOCH_LIMIT = 1 << 29;
    /** Threads per block of {@code segscan_offsets_tile_starts}. */
    public static final int SEGMENT_STARTS_BLOCK = 256;
    /** Threads per tile of {@code segscan_offsets_tile_starts} (a search as many ways wide). */
    public static final int SEGMENT_STARTS_LANES = 8;
    /** Per tile, the positions of its first segment starts that the tile-starts kernel keeps (int32 each). */
    public static final int SEGMENT_HEAD_SLOTS = 32;

    /**
     * Scratch of the segmented scans by offsets: tile_first (tiles + 1 longs), then, from the next multiple of a
     * slot's bytes ({@code segment_head_slots_offset}), each tile's slot.
     */
    public static long segmentScratchBytes(long tiles) {
        long slotBytes = 4L * SEGMENT_HEAD_SLOTS;
        return Math.ceilDiv(8 * (tiles + 1), slotBytes) * slotBytes + slotBytes * tiles;
    }

    /** Threads per block of every scan kernel. */
    public static final int BLOCK_THREADS = 256;

    /**
     * 16-byte vectors per thread per tile of {@code inType}, by an operator that does not sum bytes: a
     * user-defined one, or see {@link #rows(DType, Op, boolean)}. The output type plays no part.
     */
    public static int rows(DType inType, boolean segmented) {
        return segmented && inType.byteSize() == 1 ? 4 : 8;
    }

    /** As above, by the built-in {@code op}: segmented int8 sums sum their bytes, and take 8 rows. */
    public static int rows(DType inType, Op op, boolean segmented) {
        return segmented && sumsBytes(inType, op) ? 8 : rows(inType, segmented);
    }

    /**
     * Whether a scan of {@code inType} by {@code op} sums its chunks' bytes by dp4a ({@code BYTE SUMS} in
     * scan_kernels.cuh): int8 sums. Segmented, they need no block scan, so their tiles are 256 x 8.
     */
    static boolean sumsBytes(DType inType, Op op) {
        return inType == DType.BYTE && op == Op.SUM;
    }

    /** Elements per tile of {@code inType}, by an operator that does not sum bytes. */
    public static int tileItems(DType inType, boolean segmented) {
        return tileItemsOf(inType, rows(inType, segmented));
    }

    /** Elements per tile of {@code inType}, by the built-in {@code op}. */
    public static int tileItems(DType inType, Op op, boolean segmented) {
        return tileItemsOf(inType, rows(inType, op, segmented));
    }

    private static int tileItemsOf(DType inType, int rows) {
        return BLOCK_THREADS * rows * (VECTOR_BYTES / inType.byteSize());
    }

    /** How many elements the tile grid starts before {@code in[0]}: in's distance past a 16-byte boundary. */
    public static long shift(long inPointer, DType inType) {
        return Math.floorMod(inPointer, VECTOR_BYTES) / inType.byteSize();
    }

    /** Tiles (= blocks) that cover {@code n >= 1} elements starting at {@code inPointer}. */
    public static long tiles(long n, long inPointer, DType inType, boolean segmented) {
        return tiles(n, inPointer, inType, tileItems(inType, segmented));
    }

    /** Tiles (= blocks) of {@code tileItems} elements that cover {@code n >= 1} elements starting at {@code inPointer}. */
    public static long tiles(long n, long inPointer, DType inType, int tileItems) {
        return (n + shift(inPointer, inType) + tileItems - 1) / tileItems;
    }

    /**
     * The most tiles of {@code tileItems} elements of {@code inType} that a scan of at most {@code length}
     * elements can take, wherever they start (tile 0 may begin up to VECTOR_BYTES / size - 1 elements
     * early): the grid and scratch of the tile starts, which are found before the host knows the range.
     */
    public static long maxTiles(long length, DType inType, int tileItems) {
        if (length < 0) throw new IllegalArgumentException("length must be >= 0: " + length);
        return Math.ceilDiv(Math.min(length, Long.MAX_VALUE / 2) + VECTOR_BYTES / inType.byteSize() - 1, tileItems);
    }

    /** Scratch bytes a scan of {@code tiles} tiles needs. */
    public static long scratchBytes(long tiles) {
        return SCRATCH_HEADER_BYTES + STATUS_SLOT_BYTES * tiles;
    }
}
