package dev.primer.cpu;

import static dev.primer.cpu.CpuReduceTest.assertMessage;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.primer.DType;
import dev.primer.JavaOps;
import dev.primer.Op;
import dev.primer.Reductions;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class CpuScanTest {

    static Stream<Arguments> scans() {
        List<Arguments> all = new ArrayList<>();
        for (DType type : DType.values()) {
            for (Op op : Op.values()) {
                if (!op.supports(type)) continue;
                for (long n : TestArrays.SIZES) {
                    all.add(Arguments.of(type, type, op, n));
                    if (op == Op.SUM && (type == DType.INT || type == DType.BYTE)) all.add(Arguments.of(type, DType.LONG, op, n));
                }
            }
        }
        return all.stream();
    }

    /** A random initial value's raw bits for the output type (small, so sums stay in range). */
    static long randomInit(DType out, Op op, Random r) {
        return switch (out) {
            case FLOAT -> Float.floatToRawIntBits(op == Op.PROD ? 1.5f : (float) r.nextGaussian()) & 0xFFFF_FFFFL;
            case DOUBLE -> Double.doubleToRawLongBits(op == Op.PROD ? 1.5 : r.nextGaussian());
            case BYTE -> (byte) r.nextInt();
            case INT -> op == Op.PROD ? 3 : r.nextInt(1000) - 500;
            case LONG -> op == Op.PROD ? 3 : r.nextInt(1000) - 500;
        };
    }

    @ParameterizedTest(name = "{0}->{1} {2} n={3}")
    @MethodSource("scans")
    void matchesTheReference(DType inType, DType outType, Op op, long n) {
        Random r = new Random(n * 7 + op.ordinal());
        MemorySegment in = TestArrays.random(inType, op, n, r.nextLong());
        for (boolean inclusive : new boolean[] {true, false}) {
            long init = randomInit(outType, op, r);
            MemorySegment out = TestArrays.output(outType, n);
            CpuScan.scan(inType, outType, op, inclusive, init, in, out, n);
            String what = inType + "->" + outType + " " + op + (inclusive ? " inclusive" : " exclusive");
            if (inType.isFloatingPoint()) {
                checkFloating(inType, op, inclusive, init, in, out, n, what);
            } else {
                checkIntegral(inType, outType, op, inclusive, init, in, 0, out, 0, n, what);
            }
            if (inType == outType) { // in place gives the same bits
                MemorySegment inPlace = TestArrays.copy(in);
                CpuScan.scan(inType, outType, op, inclusive, init, inPlace, inPlace, n);
                assertEquals(-1, inPlace.mismatch(out), what + " in place");
            }
        }
    }

    /** Sequential reference in the output type with Java's wrapping. */
    static void checkIntegral(DType inType, DType outType, Op op, boolean inclusive, long init, MemorySegment in, long inFrom,
                              MemorySegment out, long outFrom, long n, String what) {
        long acc = narrow(outType, init);
        for (long i = 0; i < n; i++) {
            long before = acc;
            acc = JavaOps.apply(op, acc, TestArrays.integral(inType, in, inFrom + i));
            long expected = narrow(outType, inclusive ? acc : before);
            long actual = TestArrays.integral(outType, out, outFrom + i);
            if (expected != actual) fail(what + ": element " + i + " expected " + expected + " but was " + actual);
        }
    }

    private static long narrow(DType type, long v) {
        return switch (type) {
            case BYTE -> (byte) v;
            case INT -> (int) v;
            default -> v;
        };
    }

    static double initValue(DType type, long bits) {
        return type == DType.FLOAT ? Float.intBitsToFloat((int) bits) : Double.longBitsToDouble(bits);
    }

    static void checkFloating(DType type, Op op, boolean inclusive, long init, MemorySegment in, MemorySegment out, long n,
                              String what) {
        double start = initValue(type, init);
        double[] model = OrderModel.scan(type, op, inclusive, start, in, 0, n);
        double sum = start, compensation = 0, abs = Math.abs(start), extreme = start;
        for (int i = 0; i < n; i++) {
            double actual = TestArrays.floating(type, out, i);
            long actualBits = TestArrays.bits(type, out, i);
            long modelBits = type == DType.FLOAT ? Float.floatToRawIntBits((float) model[i]) & 0xFFFF_FFFFL
                    : Double.doubleToRawLongBits(model[i]);
            if (actualBits != modelBits) fail(what + ": element " + i + " is " + actual + ", the documented order gives " + model[i]);
            double x = TestArrays.floating(type, in, i);
            if (op == Op.SUM) {
                double expected = sum + compensation; // before x for exclusive
                if (inclusive) {
                    double t = sum + x;
                    compensation += Math.abs(sum) >= Math.abs(x) ? (sum - t) + x : (x - t) + sum;
                    sum = t;
                    abs += Math.abs(x);
                    expected = sum + compensation;
                }
                double u = type == DType.FLOAT ? 0x1p-24 : 0x1p-53;
                double bound = TestArrays.gamma(CpuScan.roundings(type, i), u) * abs
                        + (type == DType.FLOAT ? Math.ulp((float) expected) : Math.ulp(expected));
                if (!(Math.abs(actual - expected) <= bound)) {
                    fail(what + ": element " + i + " is " + actual + ", exact " + expected + " +- " + bound);
                }
                if (!inclusive) {
                    double t = sum + x;
                    compensation += Math.abs(sum) >= Math.abs(x) ? (sum - t) + x : (x - t) + sum;
                    sum = t;
                    abs += Math.abs(x);
                }
            } else if (op == Op.MIN || op == Op.MAX) { // exact in any order
                double before = extreme;
                extreme = OrderModel.apply(op, extreme, x);
                assertEquals(inclusive ? extreme : before, actual, what);
            }
        }
    }

    @Test
    void exclusiveIsInclusiveShiftedBitForBit() {
        for (DType type : new DType[] {DType.FLOAT, DType.DOUBLE}) {
            long n = 3 * 65536 + 13;
            MemorySegment in = TestArrays.random(type, Op.SUM, n, 9);
            MemorySegment inclusive = TestArrays.output(type, n), exclusive = TestArrays.output(type, n);
            long init = type == DType.FLOAT ? Float.floatToRawIntBits(0.25f) : Double.doubleToRawLongBits(0.25);
            CpuScan.scan(type, type, Op.SUM, true, init, in, inclusive, n);
            CpuScan.scan(type, type, Op.SUM, false, init, in, exclusive, n);
            assertEquals(init, TestArrays.bits(type, exclusive, 0));
            for (long i = 1; i < n; i++) {
                assertEquals(TestArrays.bits(type, inclusive, i - 1), TestArrays.bits(type, exclusive, i), "element " + i);
            }
        }
    }

    @Test
    void initAppliesToInclusiveScansAndSignedZerosSurvive() {
        MemorySegment zeros = TestArrays.floats(-0.0f, -0.0f, -0.0f);
        MemorySegment out = TestArrays.allocate(DType.FLOAT, 3);
        CpuScan.scan(DType.FLOAT, DType.FLOAT, Op.SUM, true, Float.floatToRawIntBits(-0.0f) & 0xFFFF_FFFFL, zeros, out, 3);
        for (int i = 0; i < 3; i++) assertEquals(Float.floatToRawIntBits(-0.0f), out.getAtIndex(ValueLayout.JAVA_INT, i));
        MemorySegment ints = TestArrays.allocate(DType.INT, 3);
        for (int i = 0; i < 3; i++) ints.setAtIndex(ValueLayout.JAVA_INT, i, i + 1);
        MemorySegment sums = TestArrays.allocate(DType.INT, 3);
        CpuScan.scan(DType.INT, DType.INT, Op.SUM, true, 10, ints, sums, 3);
        assertEquals(11, sums.getAtIndex(ValueLayout.JAVA_INT, 0));
        assertEquals(16, sums.getAtIndex(ValueLayout.JAVA_INT, 2));
        CpuScan.scan(DType.INT, DType.INT, Op.MAX, false, -7, ints, sums, 3);
        assertEquals(-7, sums.getAtIndex(ValueLayout.JAVA_INT, 0));
        assertEquals(2, sums.getAtIndex(ValueLayout.JAVA_INT, 2));
    }

    @Test
    void int32SumWrapsAndWidenedSumDoesNot() {
        int n = 70000;
        MemorySegment in = TestArrays.allocate(DType.INT, n);
        for (int i = 0; i < n; i++) in.setAtIndex(ValueLayout.JAVA_INT, i, Integer.MAX_VALUE);
        MemorySegment narrow = TestArrays.output(DType.INT, n), wide = TestArrays.output(DType.LONG, n);
        CpuScan.scan(DType.INT, DType.INT, Op.SUM, true, 0, in, narrow, n);
        CpuScan.scan(DType.INT, DType.LONG, Op.SUM, true, 0, in, wide, n);
        assertEquals((int) ((long) n * Integer.MAX_VALUE), narrow.getAtIndex(ValueLayout.JAVA_INT, n - 1));
        assertEquals((long) n * Integer.MAX_VALUE, wide.getAtIndex(ValueLayout.JAVA_LONG, n - 1));
    }

    @Test
    void carriesChainAcrossWindowsOfChunks() {
        long n = 70 * 65536L + 5; // more than one window of 64 chunks
        MemorySegment ints = TestArrays.random(DType.INT, Op.SUM, n, 4), sums = TestArrays.output(DType.INT, n);
        CpuScan.scan(DType.INT, DType.INT, Op.SUM, false, 7, ints, sums, n);
        checkIntegral(DType.INT, DType.INT, Op.SUM, false, 7, ints, 0, sums, 0, n, "int32 exclusive");
        MemorySegment floats = TestArrays.random(DType.FLOAT, Op.SUM, n, 5), out = TestArrays.output(DType.FLOAT, n);
        CpuScan.scan(DType.FLOAT, DType.FLOAT, Op.SUM, true, 0, floats, out, n);
        checkFloating(DType.FLOAT, Op.SUM, true, 0, floats, out, n, "float32 inclusive");
    }

    @Test
    void resultsDoNotDependOnTheThreadCount() {
        long n = 67 * 65536 + 5;
        for (DType type : new DType[] {DType.FLOAT, DType.DOUBLE}) {
            MemorySegment in = TestArrays.random(type, Op.SUM, n, 77);
            MemorySegment one = TestArrays.output(type, n), four = TestArrays.output(type, n), here = TestArrays.output(type, n);
            TestArrays.inPool(1, () -> { CpuScan.scan(type, type, Op.SUM, true, 0, in, one, n); return null; });
            TestArrays.inPool(4, () -> { CpuScan.scan(type, type, Op.SUM, true, 0, in, four, n); return null; });
            CpuScan.scan(type, type, Op.SUM, true, 0, in, here, n);
            assertEquals(-1, one.mismatch(four), type + ": 1 vs 4 threads");
            assertEquals(-1, one.mismatch(here), type + ": 1 thread vs the common pool");
        }
    }

    // ---- segmented by head flags ----

    static Stream<Arguments> flagScans() {
        List<Arguments> all = new ArrayList<>();
        for (DType type : DType.values()) {
            for (Op op : Op.values()) {
                if (!op.supports(type)) continue;
                for (long n : new long[] {0, 1, 33, 65537, (1 << 20) + 3}) {
                    for (int every : new int[] {3, 1000, 200_000}) all.add(Arguments.of(type, op, n, every));
                }
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0} {1} n={2} heads 1/{3}")
    @MethodSource("flagScans")
    void flagSegmentedScanMatchesTheReference(DType type, Op op, long n, int every) {
        Random r = new Random(n + every);
        MemorySegment in = TestArrays.random(type, op, n, r.nextLong());
        MemorySegment flags = TestArrays.allocate(DType.BYTE, n);
        for (long i = 0; i < n; i++) flags.set(ValueLayout.JAVA_BYTE, i, (byte) (r.nextInt(every) == 0 ? 1 + r.nextInt(100) : 0));
        for (boolean inclusive : new boolean[] {true, false}) {
            long init = randomInit(type, op, r);
            MemorySegment out = TestArrays.output(type, n);
            CpuScan.segmentedScanByFlags(type, op, inclusive, init, in, flags, out, n);
            String what = type + " " + op + (inclusive ? " inclusive" : " exclusive");
            List<Long> heads = new ArrayList<>();
            for (long i = 0; i < n; i++) {
                if (i == 0 || flags.get(ValueLayout.JAVA_BYTE, i) != 0) heads.add(i);
            }
            heads.add(n);
            for (int k = 0; k + 1 < heads.size(); k++) {  // each segment as an array of its own
                long from = heads.get(k), to = heads.get(k + 1);
                if (type.isFloatingPoint()) {
                    double[] model = OrderModel.scan(type, op, inclusive, initValue(type, init), in, from, to);
                    for (long i = from; i < to; i++) {
                        long want = type == DType.FLOAT ? Float.floatToRawIntBits((float) model[(int) (i - from)]) & 0xFFFF_FFFFL
                                : Double.doubleToRawLongBits(model[(int) (i - from)]);
                        if (want != TestArrays.bits(type, out, i)) {
                            fail(what + ": element " + i + " is " + TestArrays.floating(type, out, i) + ", expected " + model[(int) (i - from)]);
                        }
                    }
                } else {
                    checkIntegral(type, type, op, inclusive, init, in, from, out, from, to - from, what + " segment at " + from);
                }
            }
            // the same segments by offsets: the same bits
            MemorySegment byOffsets = TestArrays.output(type, n);
            CpuScan.segmentedScanByOffsets(type, op, inclusive, init, in,
                    TestArrays.longs(heads.stream().mapToLong(Long::longValue).toArray()), heads.size() - 1, byOffsets);
            assertEquals(-1, byOffsets.mismatch(out), what + ": by offsets and by flags");
            MemorySegment inPlace = TestArrays.copy(in);
            CpuScan.segmentedScanByFlags(type, op, inclusive, init, inPlace, flags, inPlace, n);
            assertEquals(-1, inPlace.mismatch(out), what + " in place");
        }
    }

    @Test
    void aLongFlagSegmentKeepsThePlainScansErrorBound() {
        // 1 then 2^16 - 1 increments of 2^-25, half an ulp of 1: a left-to-right loop loses every one
        int n = 1 << 16;
        MemorySegment in = TestArrays.allocate(DType.FLOAT, n), flags = TestArrays.allocate(DType.BYTE, n);
        in.setAtIndex(ValueLayout.JAVA_FLOAT, 0, 1f);
        for (int i = 1; i < n; i++) in.setAtIndex(ValueLayout.JAVA_FLOAT, i, 0x1p-25f);
        MemorySegment out = TestArrays.output(DType.FLOAT, n);
        CpuScan.segmentedScanByFlags(DType.FLOAT, Op.SUM, true, Float.floatToRawIntBits(0f), in, flags, out, n);
        double exact = 1 + (n - 1) * 0x1p-25, u = 0x1p-24, d = CpuScan.roundings(DType.FLOAT, n - 1);
        double bound = d * u / (1 - d * u) * exact;
        float got = out.getAtIndex(ValueLayout.JAVA_FLOAT, n - 1);
        assertTrue(Math.abs(got - exact) <= bound, "out[n-1] = " + got + ", exact " + exact + ", bound " + bound);
    }

    // ---- segmented by offsets ----

    @Test
    void offsetSegmentsScanAsArraysOfTheirOwn() {
        Random r = new Random(11);
        for (DType type : DType.values()) {
            for (Op op : new Op[] {Op.SUM, Op.MAX}) {
                long n = 300_000;
                MemorySegment in = TestArrays.random(type, op, n, r.nextLong());
                // segments: a gap at the start, empty ones, short ones, two spanning several chunks, a gap at the end
                long[] bounds = {5, 5, 6, 40, 40, 1000, 140_000, 140_001, 290_000, 299_990};
                MemorySegment offsets = TestArrays.longs(bounds);
                long segments = bounds.length - 1;
                for (boolean inclusive : new boolean[] {true, false}) {
                    long init = randomInit(type, op, r);
                    MemorySegment out = TestArrays.output(type, n);
                    out.fill((byte) 0x5A);
                    CpuScan.segmentedScanByOffsets(type, op, inclusive, init, in, offsets, segments, out);
                    for (int k = 0; k < segments; k++) {
                        long from = bounds[k], to = bounds[k + 1];
                        String what = type + " " + op + (inclusive ? " inclusive" : " exclusive") + " segment " + k;
                        if (type.isFloatingPoint()) {  // the documented order of a scan of the segment alone
                            double[] model = OrderModel.scan(type, op, inclusive, initValue(type, init), in, from, to);
                            for (long i = from; i < to; i++) {
                                long want = type == DType.FLOAT ? Float.floatToRawIntBits((float) model[(int) (i - from)]) & 0xFFFF_FFFFL
                                        : Double.doubleToRawLongBits(model[(int) (i - from)]);
                                assertEquals(want, TestArrays.bits(type, out, i), what + ": element " + i);
                            }
                        } else {
                            checkIntegral(type, type, op, inclusive, init, in, from, out, from, to - from, what);
                        }
                    }
                    long size = type.byteSize(), begin = bounds[0] * size, end = bounds[bounds.length - 1] * size;
                    for (long b = 0; b < n * size; b++) {
                        if (b == begin) b = end;  // every byte outside the segments
                        assertEquals(0x5A, out.get(ValueLayout.JAVA_BYTE, b) & 0xFF, "byte " + b + ", outside every segment: untouched");
                    }
                }
            }
        }
    }

    @Test
    void integerSegmentsByOffsetsMatchTheSequentialReference() {
        long n = 70_001;
        MemorySegment in = TestArrays.random(DType.INT, Op.SUM, n, 3);
        long[] bounds = {0, 3, 3, 65_540, 70_001};
        MemorySegment out = TestArrays.output(DType.INT, n);
        CpuScan.segmentedScanByOffsets(DType.INT, Op.SUM, false, 4, in, TestArrays.longs(bounds), 4, out);
        for (int k = 0; k < 4; k++) {
            checkIntegral(DType.INT, DType.INT, Op.SUM, false, 4, in, bounds[k], out, bounds[k], bounds[k + 1] - bounds[k], "segment " + k);
        }
    }

    @Test
    void roundingsFollowTheDocumentedDepth() {
        assertEquals(3 + 4096 + 3, CpuScan.roundings(DType.FLOAT, 0));
        assertEquals(2 + 8192 + 3 + 3, CpuScan.roundings(DType.DOUBLE, 3 * 65536));
    }

    @Test
    void aRangesTotalCarriesIntoItsLastInclusiveOutput() {
        // ChunkScanner's contract, on ranges of every length up to a few blocks, partial blocks
        // included: carry op total(range) is, bit for bit, the inclusive scan's last output from carry
        Random r = new Random(5);
        for (DType inType : DType.values()) {
            for (Op op : Op.values()) {
                if (!op.supports(inType)) continue;
                List<DType> outTypes = new ArrayList<>(List.of(inType));
                if (op == Op.SUM && (inType == DType.INT || inType == DType.BYTE)) outTypes.add(DType.LONG);
                for (DType outType : outTypes) {
                    ChunkScanner scanner = CpuScan.scanner(inType, outType, op, true);
                    MemorySegment in = TestArrays.random(inType, op, 100, r.nextLong());
                    for (int length = 1; length <= 70; length++) {
                        long from = r.nextInt(100 - length + 1), last = from + length - 1;
                        long carry = CpuScan.carryBits(outType, randomInit(outType, op, r));
                        MemorySegment out = TestArrays.output(outType, 100);
                        scanner.scan(in, out, from, from + length, carry);
                        long carried = scanner.combine(carry, scanner.total(in, from, from + length));
                        if (outType == DType.BYTE) carried = (byte) carried;
                        assertEquals(TestArrays.bits(outType, out, last), carried,
                                inType + "->" + outType + " " + op + ", " + length + " elements from " + from);
                    }
                }
            }
        }
    }

    @Test
    void rejectsBadArguments() {
        MemorySegment in = TestArrays.allocate(DType.INT, 16), out = TestArrays.allocate(DType.LONG, 16);
        MemorySegment flags = TestArrays.allocate(DType.BYTE, 4);
        assertMessage(NullPointerException.class, "inType", () -> CpuScan.scan(null, DType.INT, Op.SUM, true, 0, in, out, 1));
        assertMessage(NullPointerException.class, "outType", () -> CpuScan.scan(DType.INT, null, Op.SUM, true, 0, in, out, 1));
        assertMessage(NullPointerException.class, "op", () -> CpuScan.scan(DType.INT, DType.INT, null, true, 0, in, out, 1));
        assertMessage(NullPointerException.class, "in", () -> CpuScan.scan(DType.INT, DType.INT, Op.SUM, true, 0, null, out, 1));
        assertMessage(NullPointerException.class, "out", () -> CpuScan.scan(DType.INT, DType.INT, Op.SUM, true, 0, in, null, 1));
        assertMessage(IllegalArgumentException.class, "n", () -> CpuScan.scan(DType.INT, DType.INT, Op.SUM, true, 0, in, out, -1));
        assertMessage(IllegalArgumentException.class, "in", () -> CpuScan.scan(DType.INT, DType.INT, Op.SUM, true, 0, in, out, 17));
        assertMessage(IllegalArgumentException.class, "out", () -> CpuScan.scan(DType.INT, DType.LONG, Op.SUM, true, 0, in, in, 16));
        assertMessage(IllegalArgumentException.class, "outType", () -> CpuScan.scan(DType.INT, DType.LONG, Op.MAX, true, 0, in, out, 1));
        assertMessage(IllegalArgumentException.class, "outType", () -> CpuScan.scan(DType.FLOAT, DType.DOUBLE, Op.SUM, true, 0, in, out, 1));
        assertMessage(IllegalArgumentException.class, "op", () -> CpuScan.scan(DType.DOUBLE, DType.DOUBLE, Op.OR, true, 0, in, out, 1));
        // out overlapping in, but not the same elements
        assertMessage(IllegalArgumentException.class, "out", () -> CpuScan.scan(DType.INT, DType.INT, Op.SUM, true, 0, in,
                in.asSlice(4), 8));
        assertMessage(IllegalArgumentException.class, "out", () -> CpuScan.scan(DType.INT, DType.LONG, Op.SUM, true, 0, out.asSlice(0, 64),
                out, 8));
        assertMessage(IllegalArgumentException.class, "headFlags", () -> CpuScan.segmentedScanByFlags(DType.INT, Op.SUM, true, 0, in, flags, in, 5));
        assertMessage(NullPointerException.class, "headFlags", () -> CpuScan.segmentedScanByFlags(DType.INT, Op.SUM, true, 0, in, null, in, 5));
        assertMessage(IllegalArgumentException.class, "offsets", () -> CpuScan.segmentedScanByOffsets(DType.INT, Op.SUM, true, 0, in,
                TestArrays.longs(0, 5, 4), 2, in));
        assertMessage(IllegalArgumentException.class, "offsets", () -> CpuScan.segmentedScanByOffsets(DType.INT, Op.SUM, true, 0, in,
                TestArrays.longs(0, 17), 1, in));
        assertMessage(IllegalArgumentException.class, "offsets", () -> CpuScan.segmentedScanByOffsets(DType.INT, Op.SUM, true, 0, in,
                TestArrays.longs(-1, 3), 1, in));
        assertMessage(IllegalArgumentException.class, "offsets", () -> CpuScan.segmentedScanByOffsets(DType.INT, Op.SUM, true, 0, in,
                TestArrays.longs(0, 3), 2, in));
        assertMessage(IllegalArgumentException.class, "segments", () -> CpuScan.segmentedScanByOffsets(DType.INT, Op.SUM, true, 0, in,
                TestArrays.longs(0, 3), -1, in));
        assertMessage(IllegalArgumentException.class, "out", () -> CpuScan.segmentedScanByOffsets(DType.INT, Op.SUM, true, 0, in,
                TestArrays.longs(0, 16), 1, TestArrays.allocate(DType.INT, 15)));
        assertEquals(0, Reductions.identityBits(DType.INT, Op.SUM)); // the facade's default init is the identity
    }
}
