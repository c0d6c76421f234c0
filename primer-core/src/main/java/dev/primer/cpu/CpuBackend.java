package dev.primer.cpu;

import dev.primer.Backend;
import dev.primer.BackendKind;
import dev.primer.Buffer;
import dev.primer.ByteArray;
import dev.primer.CustomOp;
import dev.primer.DeviceArray;
import dev.primer.LongArray;
import dev.primer.Op;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** The CPU backend: native memory, Vector API kernels and fork/join. The reference for the GPU. */
public final class CpuBackend implements Backend {

    @Override public BackendKind kind() { return BackendKind.CPU; }

    @Override public String description() {
        return "CPU (" + Runtime.getRuntime().availableProcessors() + " cores, Vector API "
                + jdk.incubator.vector.FloatVector.SPECIES_PREFERRED.vectorBitSize() + "-bit)";
    }

    @Override public Buffer allocate(long bytes) { return new CpuBuffer(bytes); }

    @Override public void copyIn(MemorySegment src, Buffer dst, long offset, long bytes) {
        MemorySegment.copy(src, 0, dst.hostSegment(), offset, bytes);
    }

    @Override public void copyOut(Buffer src, long offset, MemorySegment dst, long bytes) {
        MemorySegment.copy(src.hostSegment(), offset, dst, 0, bytes);
    }

    @Override public void copy(Buffer src, long srcOffset, Buffer dst, long dstOffset, long bytes) {
        MemorySegment.copy(src.hostSegment(), srcOffset, dst.hostSegment(), dstOffset, bytes);
    }

    @Override public void fill(Buffer dst, long offset, long count, int elementBytes, long pattern) {
        MemorySegment s = dst.hostSegment().asSlice(offset, count * elementBytes);
        switch (elementBytes) {
            case 1 -> s.fill((byte) pattern);
            case 4 -> { for (long i = 0; i < count; i++) s.setAtIndex(ValueLayout.JAVA_INT, i, (int) pattern); }
            case 8 -> { for (long i = 0; i < count; i++) s.setAtIndex(ValueLayout.JAVA_LONG, i, pattern); }
            default -> throw new IllegalArgumentException("element size " + elementBytes);
        }
    }

    @Override public void synchronize() { }

    // ---- reduce ----

    @Override public long reduceIntegral(DeviceArray in, Op op) {
        return CpuReduce.reduceIntegral(in.dtype(), op, in.segment(), in.length());
    }

    @Override public double reduceFloating(DeviceArray in, Op op) {
        return CpuReduce.reduceFloating(in.dtype(), op, in.segment(), in.length());
    }

    @Override public long argExtreme(DeviceArray in, boolean max) {
        return CpuReduce.argExtreme(in.dtype(), max, in.segment(), in.length());
    }

    @Override public long reduceCustom(DeviceArray in, CustomOp op) {
        return CpuCustomReduce.reduce(op, in.segment(), in.length());
    }

    @Override public void reduceRows(DeviceArray in, Op op, long rows, long cols, DeviceArray out) {
        CpuSegmentedReduce.reduceRows(in.dtype(), op, in.segment(), rows, cols, out.segment());
    }

    @Override public void reduceRowsCustom(DeviceArray in, CustomOp op, long rows, long cols, DeviceArray out) {
        CpuCustomReduce.reduceRows(op, in.segment(), rows, cols, out.segment());
    }

    @Override public void reduceSegments(DeviceArray in, Op op, LongArray offsets, DeviceArray out) {
        CpuSegmentedReduce.reduceSegments(in.dtype(), op, in.segment(), offsets.segment(), offsets.length() - 1, out.segment());
    }

    @Override public void reduceSegmentsCustom(DeviceArray in, CustomOp op, LongArray offsets, DeviceArray out) {
        CpuCustomReduce.reduceSegments(op, in.segment(), offsets.segment(), offsets.length() - 1, out.segment());
    }

    @Override public void argExtremeRows(DeviceArray in, boolean max, long rows, long cols, LongArray out) {
        CpuSegmentedReduce.argExtremeRows(in.dtype(), max, in.segment(), rows, cols, out.segment());
    }

    @Override public void argExtremeSegments(DeviceArray in, boolean max, LongArray offsets, LongArray out) {
        CpuSegmentedReduce.argExtremeSegments(in.dtype(), max, in.segment(), offsets.segment(), offsets.length() - 1, out.segment());
    }

    // ---- scan ----

    @Override public void scan(DeviceArray in, DeviceArray out, Op op, boolean inclusive, long initBits) {
        CpuScan.scan(in.dtype(), out.dtype(), op, inclusive, initBits, in.segment(), out.segment(), in.length());
    }

    @Override public void scanCustom(DeviceArray in, DeviceArray out, CustomOp op, boolean inclusive, long initBits) {
        CpuCustomScan.scan(op, inclusive, initBits, in.segment(), out.segment(), in.length());
    }

    @Override public void argExtremeScan(DeviceArray in, boolean max, boolean inclusive, LongArray out) {
        CpuArgScan.argExtremeScan(in.dtype(), max, inclusive, in.segment(), out.segment(), in.length());
    }

    @Override public void segmentedArgExtremeScanByFlags(DeviceArray in, ByteArray headFlags, boolean max, boolean inclusive,
                                                         LongArray out) {
        CpuSegmentedArgScan.byFlags(in.dtype(), max, inclusive, in.segment(), headFlags.segment(), out.segment(), in.length());
    }

    @Override public void segmentedArgExtremeScanByOffsets(DeviceArray in, LongArray offsets, boolean max, boolean inclusive,
                                                           LongArray out) {
        CpuSegmentedArgScan.byOffsets(in.dtype(), max, inclusive, in.segment(), offsets.segment(), offsets.length() - 1,
                out.segment());
    }

    @Override public void segmentedScanByFlags(DeviceArray in, ByteArray headFlags, DeviceArray out, Op op, boolean inclusive, long initBits) {
        CpuScan.segmentedScanByFlags(in.dtype(), out.dtype(), op, inclusive, initBits, in.segment(), headFlags.segment(), out.segment(), in.length());
    }

    @Override public void segmentedScanByOffsets(DeviceArray in, LongArray offsets, DeviceArray out, Op op, boolean inclusive, long initBits) {
        CpuScan.segmentedScanByOffsets(in.dtype(), out.dtype(), op, inclusive, initBits, in.segment(), offsets.segment(), offsets.length() - 1, out.segment());
    }

    @Override public void segmentedScanCustomByFlags(DeviceArray in, ByteArray headFlags, DeviceArray out, CustomOp op,
                                                     boolean inclusive, long initBits) {
        CpuCustomSegmentedScan.byFlags(op, inclusive, initBits, in.segment(), headFlags.segment(), out.segment(), in.length());
    }

    @Override public void segmentedScanCustomByOffsets(DeviceArray in, LongArray offsets, DeviceArray out, CustomOp op,
                                                       boolean inclusive, long initBits) {
        CpuCustomSegmentedScan.byOffsets(op, inclusive, initBits, in.segment(), offsets.segment(), offsets.length() - 1,
                out.segment());
    }

    @Override public void close() { }
}
