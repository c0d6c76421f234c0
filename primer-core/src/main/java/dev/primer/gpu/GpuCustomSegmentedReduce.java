package dev.primer.gpu;

import dev.primer.CustomOp;
import dev.primer.DType;
import dev.primer.cuda.CudaContext;
import dev.primer.cuda.CudaKernel;

import java.util.Objects;

/**
 * Batched and segmented reduce with a user-defined operator, read off a segmented scan: the
 * inclusive segmented scan by offsets ({@link GpuCustomScan}: operand order kept, fixed
 * association) into a temporary array, then {@code out[s]} = the last scanned element of segment
 * s, or the identity for an empty one. Rows are the segments {@code [r * cols, (r + 1) * cols)}.
 *
 * <p>Why not the built-in segmented reduce's kernels ({@link GpuSegmentedReduce})? They fold
 * elements a lane apart and combine lanes by butterflies, which needs a commutative operator; the
 * scan keeps order at every level and balances any mix of segment lengths by construction. The
 * price is traffic: the input is read once and the temporary written once (about twice what a
 * reduce must move), and the temporary takes {@code 4 or 8 x (offsets[segments] - offsets[0])}
 * bytes of device memory for the call. Synchronous: the temporary is freed before returning.
 */
public final class GpuCustomSegmentedReduce {
    private GpuCustomSegmentedReduce() {}

    /**
     * {@code out[s] = in[offsets[s]] op ... op in[offsets[s+1] - 1]} (the identity when empty), s in
     * [0, segments); offsets checked as for {@link GpuScan#segmentedScanByOffsets}; {@code inLength}:
     * the elements of {@code in}; out holds {@code segments} elements of op.type().
     */
    public static void reduceSegments(CudaContext ctx, CustomOp op, long in, long offsets, long segments, long out,
                                      long inLength) {
        Objects.requireNonNull(ctx, "ctx");
        Objects.requireNonNull(op, "op");
        DType type = op.type();
        GpuCustomReduce.cudaType(type);  // rejects int8
        if (segments < 0) throw new IllegalArgumentException("segments must be >= 0: " + segments);
        if (segments == 0) return;
        GpuScan.requireAligned(out, type, "out");
        long[] range = GpuScan.checkedOffsetRange(ctx, offsets, segments, inLength);
        long size = type.byteSize(), begin = range[0], n = range[1] - begin;
        if (n > 0) GpuScan.requireAligned(in, type, "in");  // empty values (a null pointer) with empty segments are fine
        requireApart(in + begin * size, n * size, out, segments * size, "out: overlaps in");
        requireApart(offsets, 8 * (segments + 1), out, segments * size, "offsets: overlaps out");
        reduce(ctx, op, in + begin * size, offsets, segments, begin, n, out);
    }

    /** {@code out[r] = in[r * cols] op ... op in[r * cols + cols - 1]} (the identity when cols = 0), r in [0, rows). */
    public static void reduceRows(CudaContext ctx, CustomOp op, long in, long rows, long cols, long out) {
        Objects.requireNonNull(ctx, "ctx");
        Objects.requireNonNull(op, "op");
        DType type = op.type();
        GpuCustomReduce.cudaType(type);
        if (rows < 0) throw new IllegalArgumentException("rows must be >= 0: " + rows);
        if (cols < 0) throw new IllegalArgumentException("cols must be >= 0: " + cols);
        if (rows == 0) return;
        GpuScan.requireAligned(out, type, "out");
        long n = Math.multiplyExact(rows, cols);
        if (n > 0) GpuScan.requireAligned(in, type, "in");
        requireApart(in, n * type.byteSize(), out, rows * type.byteSize(), "out: overlaps in");
        long offsets = ctx.allocate(8 * Math.addExact(rows, 1));
        try {
            GpuScan.rowOffsets(ctx, rows, cols, offsets);
            reduce(ctx, op, in, offsets, rows, 0, n, out);
        } finally {
            try {
                ctx.synchronize();  // nothing may still read the offsets (reduce waits too, unless it failed early)
            } finally {
                ctx.free(offsets);
            }
        }
    }

    /**
     * The scan of the n elements at {@code inBase} (element {@code begin} of the input) into a
     * temporary, then the segment ends into out; waits for both (and so for all earlier work).
     */
    private static void reduce(CudaContext ctx, CustomOp op, long inBase, long offsets, long segments, long begin, long n,
                               long out) {
        DType type = op.type();
        CudaKernel ends = GpuCustomScan.segmentedKernel(ctx, op, true, GpuCustomScan.ENDS_KERNEL);
        long scanned = n > 0 ? ctx.allocate(n * type.byteSize()) : 0;
        try {
            if (n > 0) {
                CudaKernel scan = GpuCustomScan.segmentedKernel(ctx, op, true, GpuCustomScan.OFFSETS_KERNEL);
                GpuScan.launchOffsetsChecked(ctx, scan, type, true, op.identityBits(), inBase, offsets, segments, begin,
                        scanned, n);
            }
            long grid = Math.min((segments + ScanPolicy.SEGMENT_STARTS_BLOCK - 1) / ScanPolicy.SEGMENT_STARTS_BLOCK,
                    32L * ctx.device().multiprocessorCount());
            ends.launch(grid, ScanPolicy.SEGMENT_STARTS_BLOCK, 0, scanned, offsets, segments, out);
        } finally {
            try {
                ctx.synchronize();
            } finally {
                ctx.free(scanned);
            }
        }
    }

    private static void requireApart(long a, long aBytes, long b, long bBytes, String message) {
        if (GpuScan.overlaps(a, aBytes, b, bBytes)) throw new IllegalArgumentException(message);
    }
}
