package dev.primer.gpu;

import dev.primer.DType;
import dev.primer.Op;
import dev.primer.cuda.Cuda;
import dev.primer.cuda.CudaContext;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@link GpuArgScan} on device pointers: the checks of its arguments, and more than 2^31 elements.
 * (Every type, size and kind of data is checked through the facade, on both backends, by
 * ArgExtremeScanTest.)
 */
class GpuArgScanTest {
    private static CudaContext ctx;

    @BeforeEach
    void gpu() {
        Assumptions.assumeTrue(Cuda.isAvailable(), () -> "no GPU: " + Cuda.unavailableReason());
        ctx = Cuda.context();
    }

    @Test
    void pointersAreCheckedBeforeAnyLaunch() {
        long in = ctx.allocate(4096), out = ctx.allocate(8 * 1024);
        try {
            GpuArgScan.argExtremeScan(ctx, DType.FLOAT, true, true, 0, 0, 0);  // nothing to do: no pointer needed
            assertMessage("n must be >= 0", () -> GpuArgScan.argExtremeScan(ctx, DType.FLOAT, true, true, in, out, -1));
            assertMessage("in: null device pointer", () -> GpuArgScan.argExtremeScan(ctx, DType.FLOAT, true, true, 0, out, 5));
            assertMessage("in: device pointer", () -> GpuArgScan.argExtremeScan(ctx, DType.FLOAT, true, true, in + 2, out, 5));
            assertMessage("out: device pointer", () -> GpuArgScan.argExtremeScan(ctx, DType.INT, false, true, in, out + 4, 5));
            assertMessage("out: overlaps in", () -> GpuArgScan.argExtremeScan(ctx, DType.LONG, false, true, out + 8, out, 5));
            assertMessage("out: overlaps in", () -> GpuArgScan.argExtremeScan(ctx, DType.BYTE, true, true, out + 39, out, 5));
            GpuArgScan.argExtremeScan(ctx, DType.BYTE, true, true, out + 40, out, 5);  // adjacent: fine
            ctx.synchronize();
        } finally {
            ctx.free(in);
            ctx.free(out);
        }
    }

    /**
     * int8 beyond 2^31 elements: values in [-127, 126] from a hash of the index, but for one 127 and
     * one -128 placed past 2^31, so both the argmax and the argmin scans move to an index past 2^31
     * and every element is checked against a sequential scan on the host. Needs ~20 GB of device memory.
     */
    @Test
    @Tag(BigInputs.TAG)
    void int8BeyondTwoToThe31() {
        long n = (1L << 31) + (1L << 16) + 3, top = (1L << 31) + 12_345, bottom = (1L << 31) + 54_321;
        BigInputs.assumeFreeMemory(ctx, n + 8 * n);
        java.util.function.LongToIntFunction value = i -> i == top ? 127 : i == bottom ? -128
                : (int) (((BigInputs.mix(i) >>> 32) * 254) >>> 32) - 127;
        long in = ctx.allocate(n), out = 0;
        try {
            out = ctx.allocate(8 * n);
            BigInputs.uploadBytes(ctx, in, n, value);
            for (boolean max : new boolean[] {true, false}) {
                ctx.memset8(out, (byte) 0xA5, 8 * n);
                GpuArgScan.argExtremeScan(ctx, DType.BYTE, max, true, in, out, n);
                long[] best = {-1, 0};  // index, value
                BigInputs.download(ctx, out, n, 8, (host, start, count) -> {
                    for (long j = 0; j < count; j++) {
                        long i = start + j;
                        int v = value.applyAsInt(i);
                        if (best[0] < 0 || (max ? v > best[1] : v < best[1])) {
                            best[0] = i;
                            best[1] = v;
                        }
                        long got = host.getAtIndex(ValueLayout.JAVA_LONG, j);
                        if (got != best[0]) fail((max ? "argmax" : "argmin") + " element " + i + ": " + got + ", expected " + best[0]);
                    }
                });
                assertTrue(best[0] == (max ? top : bottom), "the extreme past 2^31 was reached: " + best[0]);
            }
        } finally {
            ctx.free(in);
            if (out != 0) ctx.free(out);
        }
    }

    /**
     * The arg scans draw tiles from the device scan's counter and publish into its status area with
     * its epochs: plain scans, arg scans and segmented arg scans take turns on one context, larger
     * and smaller grids in turn (so later launches meet words left by earlier ones in the same
     * slots), each output poisoned first and checked element by element.
     */
    @Test
    void takesTurnsWithTheScanOnOneStatusArea() {
        int[] sizes = {3_000_001, 100_003, 1_000_033, 8193};
        int most = 3_000_001;
        long in = ctx.allocate(4L * most), flags = ctx.allocate(most), out = ctx.allocate(8L * most);
        try (Arena arena = Arena.ofConfined()) {
            SplittableRandom random = new SplittableRandom(7);
            MemorySegment values = arena.allocate(4L * most, 16), heads = arena.allocate(most), got = arena.allocate(8L * most, 8);
            for (int i = 0; i < most; i++) {
                values.setAtIndex(ValueLayout.JAVA_INT, i, random.nextInt(-1000, 1000));
                heads.set(ValueLayout.JAVA_BYTE, i, (byte) (random.nextInt(3000) == 0 ? 1 : 0));
            }
            ctx.copyToDevice(in, values, 4L * most);
            ctx.copyToDevice(flags, heads, most);
            for (int round = 0; round < 2; round++) {
                for (int n : sizes) {
                    for (int kind = 0; kind < 3; kind++) {
                        ctx.memset8(out, (byte) 0xA5, 8L * n);
                        if (kind == 0) GpuScan.scan(ctx, DType.INT, DType.LONG, Op.SUM, true, 0, in, out, n);
                        else if (kind == 1) GpuArgScan.argExtremeScan(ctx, DType.INT, round == 0, true, in, out, n);
                        else GpuSegmentedArgScan.byFlags(ctx, DType.INT, round == 1, true, in, flags, out, n);
                        ctx.copyToHost(got, out, 8L * n);
                        long sum = 0, best = 0, start = 0;
                        for (int i = 0; i < n; i++) {
                            int v = values.getAtIndex(ValueLayout.JAVA_INT, i);
                            boolean max = kind == 1 ? round == 0 : round == 1;
                            if (kind == 2 && heads.get(ValueLayout.JAVA_BYTE, i) != 0) start = i;
                            if (i == 0 || i == start && kind == 2) best = i;
                            else if (max ? v > values.getAtIndex(ValueLayout.JAVA_INT, (int) best)
                                         : v < values.getAtIndex(ValueLayout.JAVA_INT, (int) best)) best = i;
                            sum += v;
                            long expected = kind == 0 ? sum : best - (kind == 2 ? start : 0);
                            long actual = got.getAtIndex(ValueLayout.JAVA_LONG, i);
                            if (actual != expected) {
                                assertEquals(expected, actual, "round " + round + ", n " + n + ", kind " + kind + ", element " + i);
                            }
                        }
                    }
                }
            }
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
