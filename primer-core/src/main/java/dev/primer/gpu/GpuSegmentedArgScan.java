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
 * {@link GpuScan#segmentedScanByOffsets}. One single-pass launch on the context's stream, as
 * {@link GpuArgScan} (by offsets after the offsets' check and tile starts); deterministic.
 */
public final class GpuSegmentedArgScan {
    private GpuSegmentedArgScan() {}

    private static final String MODULE = "segmented_arg_scan";
    private static final String SCRATCH = "segmented-arg-scan";

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
        var kernel = ctx.module(MODULE).kernel("segargscan_flags_" + suffix(type, max));
        GpuScan.withStatus(ctx, tiles, (status, epoch) -> kernel.launch(tiles, GpuArgScan.BLOCK_THREADS, 0,
                in, headFlags, out, n, tiles, inclusive ? 1 : 0, status, epoch));
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
        var kernel = ctx.module(MODULE).kernel("segargscan_offsets_" + suffix(type, max));
        synchronized (ctx.scratchLock(SCRATCH)) {  // the tile starts, from the check to the scan that reads them
            long tileFirst = ctx.scratch(SCRATCH, ScanPolicy.segmentScratchBytes(maxTiles));
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
            GpuScan.withStatus(ctx, tiles, (status, epoch) -> kernel.launch(tiles, GpuArgScan.BLOCK_THREADS, 0,
                    inBase, offsets, tileFirst, begin, outBase, n, tiles, inclusive ? 1 : 0, status, epoch));
        }
    }

    private static String suffix(DType type, boolean max) {
        return (max ? "argmax_" : "argmin_") + type.kernelSuffix();
    }
}
