package dev.primer;

import java.lang.foreign.MemorySegment;

/**
 * What a backend provides: memory and the primitives, on arrays already validated by {@link Primer}.
 * Implemented by the GPU ({@code dev.primer.gpu.GpuBackend}) and the CPU
 * ({@code dev.primer.cpu.CpuBackend}); not meant for implementation outside Primer.
 */
public interface Backend extends AutoCloseable {
    BackendKind kind();

    /** e.g. "NVIDIA H200 (sm_90, 132 SMs)" or "CPU (2 cores, Vector API 256-bit)". */
    String description();

    Buffer allocate(long bytes);

    /** Copies {@code bytes} from host memory (heap or native) into the buffer at {@code offset}. */
    void copyIn(MemorySegment src, Buffer dst, long offset, long bytes);

    /** Copies {@code bytes} from the buffer at {@code offset} into host memory. */
    void copyOut(Buffer src, long offset, MemorySegment dst, long bytes);

    void copy(Buffer src, long srcOffset, Buffer dst, long dstOffset, long bytes);

    /** Sets {@code count} elements of {@code elementBytes} each to the pattern's low bytes. */
    void fill(Buffer dst, long offset, long count, int elementBytes, long pattern);

    /** Waits for all work issued so far (a no-op on the CPU). */
    void synchronize();

    // ---- reduce ----
    long reduceIntegral(DeviceArray in, Op op);

    double reduceFloating(DeviceArray in, Op op);

    long argExtreme(DeviceArray in, boolean max);

    /** Reduce with a user-defined operator; the result's raw bits. */
    long reduceCustom(DeviceArray in, CustomOp op);

    void reduceRows(DeviceArray in, Op op, long rows, long cols, DeviceArray out);

    /** Each row reduced with a user-defined operator, in index order; out has op.type(), {@code rows} elements. */
    void reduceRowsCustom(DeviceArray in, CustomOp op, long rows, long cols, DeviceArray out);

    void reduceSegments(DeviceArray in, Op op, LongArray offsets, DeviceArray out);

    /** Each segment reduced with a user-defined operator, in index order; empty ones give the identity. */
    void reduceSegmentsCustom(DeviceArray in, CustomOp op, LongArray offsets, DeviceArray out);

    void argExtremeRows(DeviceArray in, boolean max, long rows, long cols, LongArray out);

    void argExtremeSegments(DeviceArray in, boolean max, LongArray offsets, LongArray out);

    // ---- scan ----
    void scan(DeviceArray in, DeviceArray out, Op op, boolean inclusive, long initBits);

    /**
     * Scan with a user-defined operator; {@code in} and {@code out} have {@code op.type()} and the
     * same length ({@code out} may be {@code in}); {@code initBits}: the init as raw bits of the type.
     */
    void scanCustom(DeviceArray in, DeviceArray out, CustomOp op, boolean inclusive, long initBits);

    /**
     * Running argmin ({@code max} false) or argmax: inclusive, out[i] = the index of the first
     * extreme of in[0 .. i]; exclusive, out[0] = -1 and out[i] = that of in[0 .. i-1]. out has in's length.
     */
    void argExtremeScan(DeviceArray in, boolean max, boolean inclusive, LongArray out);

    /**
     * Running argmin/argmax restarting at every element whose head flag is non-zero (and at element
     * 0); indices count from the segment's first element, and an exclusive scan gives -1 there.
     */
    void segmentedArgExtremeScanByFlags(DeviceArray in, ByteArray headFlags, boolean max, boolean inclusive, LongArray out);

    /**
     * As {@link #segmentedArgExtremeScanByFlags}, for the segments [offsets[k], offsets[k+1]); out
     * outside [offsets[0], offsets[last]) is not written.
     */
    void segmentedArgExtremeScanByOffsets(DeviceArray in, LongArray offsets, boolean max, boolean inclusive, LongArray out);

    /** Segmented scan into out's type: in's, or int64 for an int8 or int32 SUM (as {@link #scan}). */
    void segmentedScanByFlags(DeviceArray in, ByteArray headFlags, DeviceArray out, Op op, boolean inclusive, long initBits);

    void segmentedScanByOffsets(DeviceArray in, LongArray offsets, DeviceArray out, Op op, boolean inclusive, long initBits);

    /** {@link #segmentedScanByFlags} with a user-defined operator; in and out have op.type(). */
    void segmentedScanCustomByFlags(DeviceArray in, ByteArray headFlags, DeviceArray out, CustomOp op, boolean inclusive,
                                    long initBits);

    /** {@link #segmentedScanByOffsets} with a user-defined operator; in and out have op.type(). */
    void segmentedScanCustomByOffsets(DeviceArray in, LongArray offsets, DeviceArray out, CustomOp op, boolean inclusive,
                                      long initBits);

    @Override
    void close();
}
