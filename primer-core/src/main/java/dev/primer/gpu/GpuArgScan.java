package dev.primer.gpu;

import dev.primer.DType;
import dev.primer.cuda.CudaContext;

import java.util.Objects;

/**
 * Running argmin / argmax on device pointers (module {@code arg_scan}, see
 * {@code device/arg_scan_kernels.cuh}): {@code out[i]} = the index of the first minimum (or maximum)
 * of {@code in[0 .. i]} (inclusive) or of {@code in[0 .. i-1]} (exclusive; -1 for i = 0), NaN
 * counting as the extreme and -0.0 below 0.0, as {@link GpuReduce#argExtreme}.
 * One single-pass launch on the context's stream (decoupled look-back over the device scan's status
 * area, {@link GpuScan#withStatus}); nothing waits for it. Deterministic: the operator keeps the
 * first index of equal keys, the same under any association.
 */
public final class GpuArgScan {
    private GpuArgScan() {}

    private static final String MODULE = "arg_scan";
    // ArgScanPolicy in device/arg_scan_kernels.cuh (the kernels trap when the tile count disagrees).
    static final int BLOCK_THREADS = 256;
    static final int CHUNKS = 8;

    /** Elements per tile: 256 threads x 8 chunks of 16 bytes. */
    static int tileItems(DType type) {
        return BLOCK_THREADS * CHUNKS * (16 / type.byteSize());
    }

    /**
     * Checks the input and output of a running argmin/argmax over {@code n >= 1} elements ({@code in}
     * aligned to its element size, {@code out} to 8 bytes, the two apart) and returns its tile count:
     * tile 0 starts at the 16-byte boundary at or before in[0]. Shared with {@link GpuSegmentedArgScan}.
     */
    static long checkedTiles(DType type, long in, long out, long n) {
        GpuScan.requireAligned(in, type, "in");
        GpuScan.requireAligned(out, DType.LONG, "out");
        if (n > Long.MAX_VALUE / 16) throw new IllegalArgumentException("n: " + n + " elements are more than one launch can scan");
        if (GpuScan.overlaps(in, n * type.byteSize(), out, n * Long.BYTES)) throw new IllegalArgumentException("out: overlaps in");
        long shift = Math.floorMod(in, 16) / type.byteSize();
        long tiles = (n + shift + tileItems(type) - 1) / tileItems(type);
        if (tiles > Integer.MAX_VALUE) throw new IllegalArgumentException("n: " + n + " elements are more than one launch can scan");
        return tiles;
    }

    /**
     * Scans {@code n} elements of {@code type} at {@code in} into the int64 indices at {@code out}
     * ({@code max}: argmax, else argmin). {@code in} aligned to its element size, {@code out} to 8
     * bytes; the two must not overlap.
     */
    public static void argExtremeScan(CudaContext ctx, DType type, boolean max, boolean inclusive, long in, long out, long n) {
        Objects.requireNonNull(ctx, "ctx");
        Objects.requireNonNull(type, "type");
        if (n < 0) throw new IllegalArgumentException("n must be >= 0: " + n);
        if (n == 0) return;
        long tiles = checkedTiles(type, in, out, n);

        var kernel = ctx.module(MODULE).kernel("argscan_" + (max ? "argmax_" : "argmin_") + type.kernelSuffix());
        GpuScan.withStatus(ctx, tiles, (status, epoch) ->
                kernel.launch(tiles, BLOCK_THREADS, 0, in, out, n, tiles, inclusive ? 1 : 0, status, epoch));
    }
}
