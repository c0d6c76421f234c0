package dev.primer.gpu;

import dev.primer.Backend;
import dev.primer.BackendKind;
import dev.primer.Buffer;
import dev.primer.ByteArray;
import dev.primer.DeviceArray;
import dev.primer.LongArray;
import dev.primer.Op;
import dev.primer.cuda.CudaContext;
import dev.primer.cuda.CudaDevice;

import java.lang.foreign.MemorySegment;

/** The GPU backend: device memory, and the device-wide algorithms of this package. */
public final class GpuBackend implements Backend {
    private final CudaContext ctx;

    public GpuBackend(CudaContext ctx) {
        this.ctx = ctx;
    }

    public CudaContext context() { return ctx; }

    @Override public BackendKind kind() { return BackendKind.GPU; }

    @Override public String description() {
        CudaDevice d = ctx.device();
        return d.name() + " (sm_" + d.computeMajor() + d.computeMinor() + ", " + d.multiprocessorCount() + " SMs)";
    }

    @Override public Buffer allocate(long bytes) { return new GpuBuffer(ctx, ctx.allocate(bytes), bytes); }

    @Override public void copyIn(MemorySegment src, Buffer dst, long offset, long bytes) {
        ctx.copyToDevice(dst.deviceAddress() + offset, src, bytes);
    }

    @Override public void copyOut(Buffer src, long offset, MemorySegment dst, long bytes) {
        ctx.copyToHost(dst, src.deviceAddress() + offset, bytes);
    }

    @Override public void copy(Buffer src, long srcOffset, Buffer dst, long dstOffset, long bytes) {
        ctx.copyDeviceToDevice(dst.deviceAddress() + dstOffset, src.deviceAddress() + srcOffset, bytes);
    }

    @Override public void fill(Buffer dst, long offset, long count, int elementBytes, long pattern) {
        long p = dst.deviceAddress() + offset;
        switch (elementBytes) {
            case 1 -> ctx.memset8(p, (byte) pattern, count);
            case 4 -> ctx.memset32(p, (int) pattern, count);
            case 8 -> {
                if (count == 0) break;
                long grid = Math.min((count + 255) / 256, 8L * ctx.device().multiprocessorCount());
                ctx.module("fill").kernel("fill_u64").launch(grid, 256, 0, p, count, pattern);
            }
            default -> throw new IllegalArgumentException("element size " + elementBytes);
        }
    }

    @Override public void synchronize() { ctx.synchronize(); }

    // ---- reduce ----

    @Override public long reduceIntegral(DeviceArray in, Op op) {
        return GpuReduce.reduceIntegral(ctx, in.dtype(), op, in.devicePointer(), in.length());
    }

    @Override public double reduceFloating(DeviceArray in, Op op) {
        return GpuReduce.reduceFloating(ctx, in.dtype(), op, in.devicePointer(), in.length());
    }

    @Override public long argExtreme(DeviceArray in, boolean max) {
        return GpuReduce.argExtreme(ctx, in.dtype(), max, in.devicePointer(), in.length());
    }

    @Override public long reduceCustom(DeviceArray in, dev.primer.CustomOp op) {
        return GpuCustomReduce.reduce(ctx, op, in.devicePointer(), in.length());
    }

    @Override public void reduceRows(DeviceArray in, Op op, long rows, long cols, DeviceArray out) {
        checkRows(in, rows, cols, out);
        GpuSegmentedReduce.reduceRows(ctx, in.dtype(), op, in.devicePointer(), rows, cols, out.devicePointer());
    }

    @Override public void reduceSegments(DeviceArray in, Op op, LongArray offsets, DeviceArray out) {
        checkSegments(offsets, out);
        GpuSegmentedReduce.reduceSegments(ctx, in.dtype(), op, in.devicePointer(), offsets.devicePointer(),
                offsets.length() - 1, out.devicePointer(), in.length());
    }

    @Override public void argExtremeRows(DeviceArray in, boolean max, long rows, long cols, LongArray out) {
        checkRows(in, rows, cols, out);
        GpuSegmentedReduce.argExtremeRows(ctx, in.dtype(), max, in.devicePointer(), rows, cols, out.devicePointer());
    }

    @Override public void argExtremeSegments(DeviceArray in, boolean max, LongArray offsets, LongArray out) {
        checkSegments(offsets, out);
        GpuSegmentedReduce.argExtremeSegments(ctx, in.dtype(), max, in.devicePointer(), offsets.devicePointer(),
                offsets.length() - 1, out.devicePointer(), in.length());
    }

    // ---- scan ----

    @Override public void scan(DeviceArray in, DeviceArray out, Op op, boolean inclusive, long initBits) {
        holds(out, in.length(), "out");
        GpuScan.scan(ctx, in.dtype(), out.dtype(), op, inclusive, initBits, in.devicePointer(), out.devicePointer(), in.length());
    }

    @Override public void scanCustom(DeviceArray in, DeviceArray out, dev.primer.CustomOp op, boolean inclusive, long initBits) {
        holds(out, in.length(), "out");
        GpuCustomScan.scan(ctx, op, inclusive, initBits, in.devicePointer(), out.devicePointer(), in.length());
    }

    @Override public void argExtremeScan(DeviceArray in, boolean max, boolean inclusive, LongArray out) {
        holds(out, in.length(), "out");
        GpuArgScan.argExtremeScan(ctx, in.dtype(), max, inclusive, in.devicePointer(), out.devicePointer(), in.length());
    }

    @Override public void segmentedArgExtremeScanByFlags(DeviceArray in, ByteArray headFlags, boolean max, boolean inclusive,
                                                         LongArray out) {
        holds(headFlags, in.length(), "headFlags");
        holds(out, in.length(), "out");
        GpuSegmentedArgScan.byFlags(ctx, in.dtype(), max, inclusive, in.devicePointer(), headFlags.devicePointer(),
                out.devicePointer(), in.length());
    }

    @Override public void segmentedArgExtremeScanByOffsets(DeviceArray in, LongArray offsets, boolean max, boolean inclusive,
                                                           LongArray out) {
        holds(out, in.length(), "out");
        GpuSegmentedArgScan.byOffsets(ctx, in.dtype(), max, inclusive, in.devicePointer(), offsets.devicePointer(),
                offsets.length() - 1, out.devicePointer(), in.length());
    }

    @Override public void segmentedScanByFlags(DeviceArray in, ByteArray headFlags, DeviceArray out, Op op, boolean inclusive, long initBits) {
        holds(headFlags, in.length(), "headFlags");
        holds(out, in.length(), "out");
        GpuScan.segmentedScanByFlags(ctx, in.dtype(), out.dtype(), op, inclusive, initBits, in.devicePointer(), headFlags.devicePointer(),
                out.devicePointer(), in.length());
    }

    @Override public void segmentedScanByOffsets(DeviceArray in, LongArray offsets, DeviceArray out, Op op, boolean inclusive, long initBits) {
        GpuScan.segmentedScanByOffsets(ctx, in.dtype(), out.dtype(), op, inclusive, initBits, in.devicePointer(), offsets.devicePointer(),
                offsets.length() - 1, out.devicePointer(), Math.min(in.length(), out.length()));
    }

    @Override public void reduceRowsCustom(DeviceArray in, dev.primer.CustomOp op, long rows, long cols, DeviceArray out) {
        checkRows(in, rows, cols, out);
        GpuCustomSegmentedReduce.reduceRows(ctx, op, in.devicePointer(), rows, cols, out.devicePointer());
    }

    @Override public void reduceSegmentsCustom(DeviceArray in, dev.primer.CustomOp op, LongArray offsets, DeviceArray out) {
        checkSegments(offsets, out);
        GpuCustomSegmentedReduce.reduceSegments(ctx, op, in.devicePointer(), offsets.devicePointer(), offsets.length() - 1,
                out.devicePointer(), in.length());
    }

    @Override public void segmentedScanCustomByFlags(DeviceArray in, ByteArray headFlags, DeviceArray out, dev.primer.CustomOp op,
                                                     boolean inclusive, long initBits) {
        holds(headFlags, in.length(), "headFlags");
        holds(out, in.length(), "out");
        GpuCustomScan.segmentedScanByFlags(ctx, op, inclusive, initBits, in.devicePointer(), headFlags.devicePointer(),
                out.devicePointer(), in.length());
    }

    @Override public void segmentedScanCustomByOffsets(DeviceArray in, LongArray offsets, DeviceArray out, dev.primer.CustomOp op,
                                                       boolean inclusive, long initBits) {
        GpuCustomScan.segmentedScanByOffsets(ctx, op, inclusive, initBits, in.devicePointer(), offsets.devicePointer(),
                offsets.length() - 1, out.devicePointer(), Math.min(in.length(), out.length()));
    }

    /** The context is shared by every GPU Primer of this process and lives as long as it. */
    @Override public void close() { }

    // ---- lengths ----
    // Primer checks every length before it calls a backend; these checks stand for the kernels, which
    // take raw pointers and would write past a short array, when code calls the backend directly
    // (Primer.backend()). The CPU backend's routines check their segments' sizes themselves.

    private static void holds(DeviceArray a, long count, String name) {
        if (a.length() < count) {
            throw new IllegalArgumentException(name + " holds " + a.length() + " elements, fewer than the " + count + " required");
        }
    }

    /** Negative or overflowing shapes are left to GpuSegmentedReduce.checkRows, which names them. */
    private static void checkRows(DeviceArray in, long rows, long cols, DeviceArray out) {
        if (rows > 0 && cols > in.length() / rows) {  // rows * cols > in.length(), without the product
            throw new IllegalArgumentException("in holds " + in.length() + " elements, fewer than rows * cols = " + rows + " * " + cols);
        }
        holds(out, rows, "out");
    }

    /** An empty offsets array (segments = -1) is left to GpuSegmentedReduce, which names it. */
    private static void checkSegments(LongArray offsets, DeviceArray out) {
        holds(out, offsets.length() - 1, "out");
    }
}
