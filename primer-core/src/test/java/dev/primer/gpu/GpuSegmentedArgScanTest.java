package dev.primer.gpu;

import dev.primer.DType;
import dev.primer.cuda.Cuda;
import dev.primer.cuda.CudaContext;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link GpuSegmentedArgScan} on device pointers: the checks of its arguments. (Types, sizes,
 * segment layouts, data and more than 2^31 elements are checked through the facade, on both
 * backends, by SegmentedArgExtremeScanTest.)
 */
class GpuSegmentedArgScanTest {
    private static CudaContext ctx;

    @BeforeEach
    void gpu() {
        Assumptions.assumeTrue(Cuda.isAvailable(), () -> "no GPU: " + Cuda.unavailableReason());
        ctx = Cuda.context();
    }

    @Test
    void pointersAreCheckedBeforeAnyLaunch() {
        long in = ctx.allocate(4096), flags = ctx.allocate(1024), out = ctx.allocate(8 * 1024);
        try {
            GpuSegmentedArgScan.byFlags(ctx, DType.FLOAT, true, true, 0, 0, 0, 0);  // nothing to do: no pointer needed
            assertMessage("n must be >= 0", () -> GpuSegmentedArgScan.byFlags(ctx, DType.FLOAT, true, true, in, flags, out, -1));
            assertMessage("in: null device pointer", () -> GpuSegmentedArgScan.byFlags(ctx, DType.FLOAT, true, true, 0, flags, out, 5));
            assertMessage("in: device pointer", () -> GpuSegmentedArgScan.byFlags(ctx, DType.FLOAT, true, false, in + 2, flags, out, 5));
            assertMessage("out: device pointer", () -> GpuSegmentedArgScan.byFlags(ctx, DType.INT, false, true, in, flags, out + 4, 5));
            assertMessage("headFlags: null device pointer", () -> GpuSegmentedArgScan.byFlags(ctx, DType.INT, false, true, in, 0, out, 5));
            assertMessage("out: overlaps in", () -> GpuSegmentedArgScan.byFlags(ctx, DType.LONG, false, true, out + 8, flags, out, 5));
            assertMessage("headFlags: overlaps out", () -> GpuSegmentedArgScan.byFlags(ctx, DType.INT, true, true, in, out + 39, out, 5));
            GpuSegmentedArgScan.byFlags(ctx, DType.BYTE, true, true, out + 40, out + 45, out, 5);  // adjacent: fine

            assertMessage("segments must be >= 0", () -> GpuSegmentedArgScan.byOffsets(ctx, DType.INT, true, true, in, flags, -1, out, 5));
            assertMessage("offsets: null device pointer", () -> GpuSegmentedArgScan.byOffsets(ctx, DType.INT, true, true, in, 0, 1, out, 5));
            long offsets = ctx.allocate(16);
            try {
                ctx.copyToDevice(offsets, MemorySegment.ofArray(new long[] {1, 4}), 16);
                assertMessage("out: overlaps in", () -> GpuSegmentedArgScan.byOffsets(ctx, DType.LONG, true, true, out, offsets, 1, out, 5));
                assertMessage("offsets: overlaps out", () -> GpuSegmentedArgScan.byOffsets(ctx, DType.INT, true, true, in, offsets, 1, offsets - 8, 5));
                ctx.copyToDevice(offsets, MemorySegment.ofArray(new long[] {3, 2}), 16);
                assertMessage("offsets decrease", () -> GpuSegmentedArgScan.byOffsets(ctx, DType.INT, true, true, in, offsets, 1, out, 5));
                ctx.copyToDevice(offsets, MemorySegment.ofArray(new long[] {0, 6}), 16);
                assertMessage("is beyond the 5 elements", () -> GpuSegmentedArgScan.byOffsets(ctx, DType.INT, true, true, in, offsets, 1, out, 5));
            } finally {
                ctx.free(offsets);
            }
            ctx.synchronize();
        } finally {
            ctx.free(in);
            ctx.free(flags);
            ctx.free(out);
        }
    }

    private static void assertMessage(String part, org.junit.jupiter.api.function.Executable call) {
        Throwable t = assertThrows(IllegalArgumentException.class, call);
        assertTrue(t.getMessage().contains(part), "message \"" + t.getMessage() + "\" lacks \"" + part + "\"");
    }
}
