package dev.primer.gpu;

import dev.primer.DType;
import dev.primer.cuda.CudaContext;

import java.util.Objects;

/**
 * Segmented running argmin / argmax on device pointers (module {@code segmented_arg_scan}, see
 * {@code device/arg_scan_tile.cuh}): {@code out[i]} = the index, counted from the first
 * element s of i's segment, of the first minimum (or maximum) of {@code in[s .. i]} (inclusive) or
 * of {@code in[s .. i-1]} (exclusive; -1 at s), in Java's order as {@link GpuArgScan}. Segments start
 * at every non-zero head flag (and element 0), or are given by offsets as in
 * {@link GpuScan#segmentedScanByOffsets}. Three launches on the context's stream (tile totals, tile
 * prefixes, outputs), after the offsets' check and tile starts; deterministic.
 */
public final class GpuSegmentedArgScan {
    private GpuSegmentedArgScan() {}

    private static final String MODULE = "segmented_arg_scan";
    private static final String SCRATCH = "segmented-arg-scan";
    /** Bytes of a tile's total, {@code SegmentedKeyIndex<Key>}: a key, an index and a head position. */
    static final int TOTAL_BYTES = 24;

    /**
     * Segments start at every element whose int8 flag is non-zero, and at element 0. {@code in}
     * aligned to its element size, {@code out} to 8 bytes, neither input overlapping {@code out}.
     */
    public static void byFlags(CudaContext ctx, DType type, boolean max, boolean inclusive, long in, long headFlags,
                               long out, long n) {
        Objects.requireNonNull(ctx, "ctx");
        Objects.requireNonNull(type, "type");
        if (n < 0) throw new IllegalArgumentException("n must be >= 0: " + n);
        if (n == 0) return;
        long tiles = GpuArgScan.checkedTiles(type, in, out, n);
        if (headFlags == 0) throw new IllegalArgumentException("headFlags: null device pointer");
        if (GpuScan.overlaps(headFlags, n, out, n * Long.BYTES)) throw new IllegalArgumentException("headFlags: overlaps out");
        String suffix = suffix(type, max);
        var module = ctx.module(MODULE);
        synchronized (ctx.scratchLock(SCRATCH)) {  // the totals live across three launches
            long totals = ctx.scratch(SCRATCH, TOTAL_BYTES * tiles);
            module.kernel("segargscan_flags_totals_" + suffix).launch(tiles, GpuArgScan.BLOCK_THREADS, 0,
                    in, headFlags, n, tiles, totals);
            module.kernel(prefixKernel(type)).launch(1, GpuArgScan.PREFIX_THREADS, 0, totals, tiles);
            module.kernel("segargscan_flags_outputs_" + suffix).launch(tiles, GpuArgScan.BLOCK_THREADS, 0,
                    in, headFlags, totals, out, n, tiles, inclusive ? 1 : 0);
        }
    }

    /**
     * Segment k is {@code [offsets[k], offsets[k+1])} of {@code in} and {@code out}, which hold
     * {@code length} elements; elements outside {@code [offsets[0], offsets[segments])} are not
     * touched. The offsets are checked on the device first (the host waits for the verdict), as
     * {@link GpuScan#segmentedScanByOffsets} does, and bad ones throw before anything is written.
     */
    public static void byOffsets(CudaContext ctx, DType type, boolean max, boolean inclusive, long in, long offsets,
                                 long segments, long out, long length) {
        Objects.requireNonNull(ctx, "ctx");
        Objects.requireNonNull(type, "type");
        if (segments < 0) throw new IllegalArgumentException("segments must be >= 0: " + segments);
        if (segments == 0) {
            GpuScan.requireAligned(offsets, DType.LONG, "offsets");
            GpuSegmentedReduce.checkLoneOffset(ctx, offsets, length);
            return;
        }
        int tileItems = GpuArgScan.tileItems(type);
        long maxTiles = ScanPolicy.maxTiles(length, type, tileItems);
        String suffix = suffix(type, max);
        var module = ctx.module(MODULE);
        synchronized (ctx.scratchLock(SCRATCH)) {
            // One buffer: the tile starts (ScanPolicy.segmentScratchBytes), then the totals at a 16-byte
            // boundary; sized for the most tiles, as the tile starts are found before the range is known.
            long startsBytes = Math.ceilDiv(ScanPolicy.segmentScratchBytes(maxTiles), 16) * 16;
            long tileFirst = ctx.scratch(SCRATCH, startsBytes + TOTAL_BYTES * maxTiles);
            long totals = tileFirst + startsBytes;
            long[] range = GpuScan.checkOffsetsFindingTileStarts(ctx, offsets, segments, length, in, type, tileItems, tileFirst);
            long begin = range[0], n = range[1] - begin;
            if (n == 0) return;
            // After the offsets: empty arrays (null pointers) with empty segments are fine. The bases are
            // aligned exactly when in and out are (begin elements past them).
            long inBase = in + begin * type.byteSize(), outBase = out + begin * Long.BYTES;
            long tiles = GpuArgScan.checkedTiles(type, inBase, outBase, n);
            if (GpuScan.overlaps(offsets, 8 * (segments + 1), outBase, n * Long.BYTES)) {
                throw new IllegalArgumentException("offsets: overlaps out");
            }
            module.kernel("segargscan_offsets_totals_" + suffix).launch(tiles, GpuArgScan.BLOCK_THREADS, 0,
                    inBase, offsets, tileFirst, begin, n, tiles, totals);
            module.kernel(prefixKernel(type)).launch(1, GpuArgScan.PREFIX_THREADS, 0, totals, tiles);
            module.kernel("segargscan_offsets_outputs_" + suffix).launch(tiles, GpuArgScan.BLOCK_THREADS, 0,
                    inBase, offsets, tileFirst, begin, totals, outBase, n, tiles, inclusive ? 1 : 0);
        }
    }

    private static String suffix(DType type, boolean max) {
        return (max ? "argmax_" : "argmin_") + type.kernelSuffix();
    }

    /** One prefix kernel per key width, as {@link GpuArgScan#prefixKernel}. */
    static String prefixKernel(DType type) {
        return type.byteSize() == 8 ? "segargscan_prefixes_k64" : "segargscan_prefixes_k32";
    }
}
