package dev.primer.cpu;

import static dev.primer.cpu.CpuReduceTest.assertMessage;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.primer.DType;
import dev.primer.Op;
import dev.primer.Reductions;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class CpuSegmentedReduceTest {

    /**
     * Each segment's result as the documented order gives it for the segment alone (chunks aligned at
     * its start: OrderModel, independent of the kernels; integers a sequential fold), stored in the
     * output type.
     */
    static long expectedBits(DType type, Op op, MemorySegment in, long from, long to) {
        DType outType = CpuSegmentedReduce.outputType(type, op);
        if (from == to) return Reductions.identityBits(outType, op);
        if (type.isFloatingPoint()) {
            double r = OrderModel.reduce(type, op, in, from, to);
            return outType == DType.FLOAT ? Float.floatToRawIntBits((float) r) & 0xFFFF_FFFFL : Double.doubleToRawLongBits(r);
        }
        MemorySegment slice = in.asSlice(from * type.byteSize(), (to - from) * type.byteSize());
        long r = CpuReduceTest.integralReference(type, op, slice, to - from);
        return switch (outType) {
            case BYTE -> (byte) r;
            case INT -> (int) r;
            default -> r;
        };
    }

    static Stream<Arguments> typesAndOps() {
        List<Arguments> all = new ArrayList<>();
        for (DType type : DType.values()) {
            for (Op op : Op.values()) if (op.supports(type)) all.add(Arguments.of(type, op));
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("typesAndOps")
    void rowsReduceAsSlices(DType type, Op op) {
        long[][] shapes = {{0, 5}, {3, 0}, {1, 1}, {7, 31}, {33, 33}, {1000, 1}, {3, 65537}, {2, 200_000}, {70_000, 3}};
        for (long[] shape : shapes) {
            long rows = shape[0], cols = shape[1];
            MemorySegment in = TestArrays.random(type, op, rows * cols, rows * 31 + cols);
            DType outType = CpuSegmentedReduce.outputType(type, op);
            MemorySegment out = TestArrays.output(outType, rows);
            CpuSegmentedReduce.reduceRows(type, op, in, rows, cols, out);
            for (long k = 0; k < rows; k++) {
                assertEquals(expectedBits(type, op, in, k * cols, (k + 1) * cols), TestArrays.bits(outType, out, k),
                        type + " " + op + " " + rows + "x" + cols + " row " + k);
            }
            MemorySegment args = TestArrays.output(DType.LONG, rows);
            for (boolean max : new boolean[] {true, false}) {
                if (op != Op.SUM) break; // once per type
                CpuSegmentedReduce.argExtremeRows(type, max, in, rows, cols, args);
                for (long k = 0; k < rows; k++) {
                    long expected = cols == 0 ? -1 : CpuReduceTest.argReference(type, max, in, k * cols, (k + 1) * cols) - k * cols;
                    assertEquals(expected, args.getAtIndex(ValueLayout.JAVA_LONG, k), "arg row " + k);
                }
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("typesAndOps")
    void segmentsReduceAsSlices(DType type, Op op) {
        Random r = new Random(type.ordinal() * 10 + op.ordinal());
        long n = 400_000;
        MemorySegment in = TestArrays.random(type, op, n, r.nextLong());
        // A gap before the first segment, many empty and short segments, then a few long ones.
        List<Long> bounds = new ArrayList<>(List.of(17L));
        while (bounds.getLast() < 100_000) bounds.add(bounds.getLast() + (r.nextInt(4) == 0 ? 0 : r.nextInt(40)));
        bounds.add(100_000L + 65_536);
        bounds.add(100_000L + 3 * 65_536 + 1);
        bounds.add(n - 3);
        long segments = bounds.size() - 1;
        MemorySegment offsets = TestArrays.allocate(DType.LONG, segments + 1);
        for (int k = 0; k <= segments; k++) offsets.setAtIndex(ValueLayout.JAVA_LONG, k, bounds.get(k));
        DType outType = CpuSegmentedReduce.outputType(type, op);
        MemorySegment out = TestArrays.output(outType, segments);
        CpuSegmentedReduce.reduceSegments(type, op, in, offsets, segments, out);
        for (int k = 0; k < segments; k++) {
            assertEquals(expectedBits(type, op, in, bounds.get(k), bounds.get(k + 1)), TestArrays.bits(outType, out, k),
                    type + " " + op + " segment " + k);
        }
        if (op == Op.MAX || op == Op.MIN) {
            MemorySegment args = TestArrays.output(DType.LONG, segments);
            CpuSegmentedReduce.argExtremeSegments(type, op == Op.MAX, in, offsets, segments, args);
            for (int k = 0; k < segments; k++) {
                long from = bounds.get(k), to = bounds.get(k + 1);
                long expected = from == to ? -1 : CpuReduceTest.argReference(type, op == Op.MAX, in, from, to) - from;
                assertEquals(expected, args.getAtIndex(ValueLayout.JAVA_LONG, k), "arg segment " + k);
            }
        }
    }

    @Test
    void float32SumsRoundOnceAndEmptySegmentsGiveTheIdentity() {
        // 1 + 2^-30 four times: in float each addition would drop the small part; in double it survives.
        MemorySegment in = TestArrays.floats(1f, 0x1p-25f, 0x1p-25f, 0x1p-25f, 0x1p-25f);
        MemorySegment out = TestArrays.allocate(DType.FLOAT, 2);
        CpuSegmentedReduce.reduceSegments(DType.FLOAT, Op.SUM, in, TestArrays.longs(0, 5, 5), 2, out);
        assertEquals(1f + 0x1p-23f, out.getAtIndex(ValueLayout.JAVA_FLOAT, 0));
        assertEquals(0f, out.getAtIndex(ValueLayout.JAVA_FLOAT, 1));
        MemorySegment ints = TestArrays.allocate(DType.INT, 4);
        MemorySegment results = TestArrays.allocate(DType.INT, 2);
        CpuSegmentedReduce.reduceSegments(DType.INT, Op.AND, ints, TestArrays.longs(4, 4, 4), 2, results);
        assertEquals(-1, results.getAtIndex(ValueLayout.JAVA_INT, 0));
        CpuSegmentedReduce.reduceSegments(DType.INT, Op.MIN, ints, TestArrays.longs(4, 4), 1, results);
        assertEquals(Integer.MAX_VALUE, results.getAtIndex(ValueLayout.JAVA_INT, 0));
        MemorySegment floats = TestArrays.allocate(DType.FLOAT, 1);
        CpuSegmentedReduce.reduceRows(DType.FLOAT, Op.MAX, floats, 1, 0, floats);
        assertEquals(Float.NEGATIVE_INFINITY, floats.getAtIndex(ValueLayout.JAVA_FLOAT, 0));
    }

    @Test
    void outputTypesWidenIntegerSumsAndProducts() {
        assertEquals(DType.LONG, CpuSegmentedReduce.outputType(DType.INT, Op.SUM));
        assertEquals(DType.LONG, CpuSegmentedReduce.outputType(DType.BYTE, Op.PROD));
        assertEquals(DType.INT, CpuSegmentedReduce.outputType(DType.INT, Op.MAX));
        assertEquals(DType.FLOAT, CpuSegmentedReduce.outputType(DType.FLOAT, Op.SUM));
        assertEquals(DType.BYTE, CpuSegmentedReduce.outputType(DType.BYTE, Op.XOR));
    }

    @Test
    void anOverflowingLongSumNamesTheFirstSegment() {
        MemorySegment in = TestArrays.longs(1, 2, Long.MAX_VALUE, 1, Long.MIN_VALUE, -1, Long.MAX_VALUE, 5);
        MemorySegment out = TestArrays.allocate(DType.LONG, 4);
        ArithmeticException e = assertThrows(ArithmeticException.class,
                () -> CpuSegmentedReduce.reduceSegments(DType.LONG, Op.SUM, in, TestArrays.longs(0, 2, 4, 6, 8), 4, out));
        assertTrue(e.getMessage().contains("segment 1"), e.getMessage());
        CpuSegmentedReduce.reduceRows(DType.LONG, Op.SUM, in, 1, 2, out);
        assertEquals(3, out.getAtIndex(ValueLayout.JAVA_LONG, 0));
    }

    /**
     * int32 SUM segments longer than 2^32 elements are summed in exact ranges; with the range shortened
     * to a few elements, segments of every length around it give the plain int64 sums (segments
     * this short cannot leave int64: the overflow itself needs 2^32 elements, GpuSegmentedReduceTest).
     */
    @Test
    void int32SumsInExactRangesMatchThePlainSums() {
        Random r = new Random(5);
        int n = 5000;
        MemorySegment in = TestArrays.allocate(DType.INT, n);
        for (int i = 0; i < n; i++) {
            int pick = r.nextInt(3);
            in.setAtIndex(ValueLayout.JAVA_INT, i, pick == 0 ? Integer.MAX_VALUE : pick == 1 ? Integer.MIN_VALUE : r.nextInt());
        }
        long[] bounds = {3, 3, 4, 10, 11, 17, 100, 1000, 1001, n};
        long segments = bounds.length - 1;
        MemorySegment out = TestArrays.output(DType.LONG, segments);
        for (long range : new long[] {1, 6, 7, 1 << 10}) {
            CpuSegmentedReduce.reduceSegments(DType.INT, Op.SUM, in, TestArrays.longs(bounds), segments, out, range);
            for (int k = 0; k < segments; k++) {
                long expected = 0;
                for (long i = bounds[k]; i < bounds[k + 1]; i++) expected += in.getAtIndex(ValueLayout.JAVA_INT, i);
                assertEquals(expected, out.getAtIndex(ValueLayout.JAVA_LONG, k), "range " + range + " segment " + k);
            }
        }
    }

    /**
     * int32 SUM of a row or segment of more than 2^32 elements: exact, and ArithmeticException naming
     * the first row or segment whose sum does not fit a long. 2^32 + 2^25 values of 0x7f7f7f7f sum
     * past 2^63; 2^32 + 1 of them do not. Needs 16 GiB: runs where 32 GiB are free (the GPU machine's
     * test stage), skips elsewhere (CI).
     */
    @Test
    @Tag("large")
    void int32SumsOverMoreThan2To32ElementsAreExactOrThrow() throws IOException {
        long n = (1L << 32) + (1L << 25);
        long available = availableMemory();
        Assumptions.assumeTrue(available > 32L << 30, () -> "needs 32 GiB of free memory, " + (available >> 30) + " GiB are");
        try (Arena arena = Arena.ofShared()) {  // the backend's worker threads read it
            MemorySegment in = arena.allocate(4 * n, 64);
            in.fill((byte) 0x7f);
            long value = 0x7f7f7f7fL;
            MemorySegment out = TestArrays.output(DType.LONG, 2);
            ArithmeticException row = assertThrows(ArithmeticException.class,
                    () -> CpuSegmentedReduce.reduceRows(DType.INT, Op.SUM, in, 1, n, out));
            assertTrue(row.getMessage().startsWith("row 0: int32 sum overflows int64"), row.getMessage());
            ArithmeticException segment = assertThrows(ArithmeticException.class,
                    () -> CpuSegmentedReduce.reduceSegments(DType.INT, Op.SUM, in, TestArrays.longs(0, 0, n), 2, out));
            assertTrue(segment.getMessage().startsWith("segment 1: int32 sum overflows int64"), segment.getMessage());
            CpuSegmentedReduce.reduceSegments(DType.INT, Op.SUM, in, TestArrays.longs(0, (1L << 25) - 1, n), 2, out);
            assertEquals(value * ((1L << 25) - 1), out.getAtIndex(ValueLayout.JAVA_LONG, 0));
            assertEquals(value * ((1L << 32) + 1), out.getAtIndex(ValueLayout.JAVA_LONG, 1));
        }
    }

    /** MemAvailable from /proc/meminfo in bytes (Linux), or 0 where there is none. */
    private static long availableMemory() throws IOException {
        Path meminfo = Path.of("/proc/meminfo");
        if (!Files.isReadable(meminfo)) return 0;
        for (String line : Files.readAllLines(meminfo)) {
            if (line.startsWith("MemAvailable:")) return 1024 * Long.parseLong(line.replaceAll("[^0-9]", ""));
        }
        return 0;
    }

    @Test
    void resultsDoNotDependOnTheThreadCount() {
        long rows = 3, cols = 5 * 65536 + 7;
        MemorySegment in = TestArrays.random(DType.FLOAT, Op.SUM, rows * cols, 1);
        MemorySegment one = TestArrays.output(DType.FLOAT, rows), four = TestArrays.output(DType.FLOAT, rows);
        TestArrays.inPool(1, () -> { CpuSegmentedReduce.reduceRows(DType.FLOAT, Op.SUM, in, rows, cols, one); return null; });
        TestArrays.inPool(4, () -> { CpuSegmentedReduce.reduceRows(DType.FLOAT, Op.SUM, in, rows, cols, four); return null; });
        assertEquals(-1, one.mismatch(four));
    }

    @Test
    void rejectsBadArguments() {
        MemorySegment in = TestArrays.allocate(DType.INT, 12), out = TestArrays.allocate(DType.LONG, 12);
        assertMessage(NullPointerException.class, "type", () -> CpuSegmentedReduce.reduceRows(null, Op.SUM, in, 3, 4, out));
        assertMessage(NullPointerException.class, "op", () -> CpuSegmentedReduce.reduceRows(DType.INT, null, in, 3, 4, out));
        assertMessage(NullPointerException.class, "in", () -> CpuSegmentedReduce.reduceRows(DType.INT, Op.SUM, null, 3, 4, out));
        assertMessage(NullPointerException.class, "out", () -> CpuSegmentedReduce.reduceRows(DType.INT, Op.SUM, in, 3, 4, null));
        assertMessage(IllegalArgumentException.class, "rows", () -> CpuSegmentedReduce.reduceRows(DType.INT, Op.SUM, in, -3, 4, out));
        assertMessage(IllegalArgumentException.class, "cols", () -> CpuSegmentedReduce.reduceRows(DType.INT, Op.SUM, in, 3, -4, out));
        assertMessage(IllegalArgumentException.class, "rows * cols", () -> CpuSegmentedReduce.reduceRows(DType.INT, Op.SUM, in, 1L << 40, 1L << 40, out));
        assertMessage(IllegalArgumentException.class, "in", () -> CpuSegmentedReduce.reduceRows(DType.INT, Op.SUM, in, 4, 4, out));
        assertMessage(IllegalArgumentException.class, "out", () -> CpuSegmentedReduce.reduceRows(DType.INT, Op.SUM, in, 3, 4, out.asSlice(0, 16)));
        assertMessage(IllegalArgumentException.class, "op", () -> CpuSegmentedReduce.reduceRows(DType.FLOAT, Op.AND, in, 3, 4, out));
        assertMessage(IllegalArgumentException.class, "out", () -> CpuSegmentedReduce.argExtremeRows(DType.INT, true, in, 3, 4, in.asSlice(0, 16)));
        assertMessage(IllegalArgumentException.class, "offsets", () -> CpuSegmentedReduce.reduceSegments(DType.INT, Op.SUM, in,
                TestArrays.longs(0, 6, 5), 2, out));
        assertMessage(IllegalArgumentException.class, "offsets", () -> CpuSegmentedReduce.reduceSegments(DType.INT, Op.SUM, in,
                TestArrays.longs(0, 13), 1, out));
        assertMessage(IllegalArgumentException.class, "offsets", () -> CpuSegmentedReduce.argExtremeSegments(DType.INT, false, in,
                TestArrays.longs(-2, 3), 1, out));
        assertMessage(NullPointerException.class, "offsets", () -> CpuSegmentedReduce.reduceSegments(DType.INT, Op.SUM, in, null, 1, out));
        assertMessage(IllegalArgumentException.class, "segments", () -> CpuSegmentedReduce.reduceSegments(DType.INT, Op.SUM, in,
                TestArrays.longs(0), -1, out));
    }
}
