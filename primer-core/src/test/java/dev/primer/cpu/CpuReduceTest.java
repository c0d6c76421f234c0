package dev.primer.cpu;

import dev.primer.ArgumentMessages;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.primer.DType;
import dev.primer.JavaOps;
import dev.primer.Op;
import dev.primer.Reductions;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class CpuReduceTest {

    static Stream<Arguments> typesOpsSizes() {
        List<Arguments> all = new ArrayList<>();
        for (DType type : DType.values()) {
            for (Op op : Op.values()) {
                if (!op.supports(type)) continue;
                for (long n : TestArrays.SIZES) all.add(Arguments.of(type, op, n));
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0} {1} n={2}")
    @MethodSource("typesOpsSizes")
    void matchesSequentialReference(DType type, Op op, long n) {
        MemorySegment in = TestArrays.random(type, op, n, 31 * n + op.ordinal());
        if (type.isFloatingPoint()) {
            double actual = CpuReduce.reduceFloating(type, op, in, n);
            // Bit for bit the documented order...
            double model = n == 0 ? Double.longBitsToDouble(Reductions.identityBits(DType.DOUBLE, op)) : OrderModel.reduce(type, op, in, 0, n);
            assertEquals(Double.doubleToRawLongBits(model), Double.doubleToRawLongBits(actual), "documented order");
            // ...and within the documented bound of the exact value.
            switch (op) {
                case SUM -> assertSumWithinBound(type, in, n, actual);
                case PROD -> {
                    double product = 1;
                    for (long i = 0; i < n; i++) product *= TestArrays.floating(type, in, i);
                    double sequential = product, d = CpuReduce.sumRoundings(n) + n; // both orders' roundings
                    assertTrue(Math.abs(actual - sequential) <= TestArrays.gamma((long) d, 0x1p-53) * Math.abs(sequential),
                            () -> actual + " vs sequential " + sequential);
                }
                default -> {
                    double expected = op == Op.MIN ? Double.POSITIVE_INFINITY : Double.NEGATIVE_INFINITY;
                    for (long i = 0; i < n; i++) expected = OrderModel.apply(op, expected, TestArrays.floating(type, in, i));
                    assertEquals(expected, actual);
                }
            }
        } else {
            assertEquals(integralReference(type, op, in, n), CpuReduce.reduceIntegral(type, op, in, n));
        }
    }

    /** Sequential reference: int64 accumulation (LONG SUM through BigInteger), Java semantics. */
    static long integralReference(DType type, Op op, MemorySegment in, long n) {
        if (type == DType.LONG && op == Op.SUM) {
            BigInteger sum = BigInteger.ZERO;
            for (long i = 0; i < n; i++) sum = sum.add(BigInteger.valueOf(TestArrays.integral(type, in, i)));
            return sum.longValueExact();
        }
        long r = JavaOps.identity(op, type);
        for (long i = 0; i < n; i++) r = JavaOps.apply(op, r, TestArrays.integral(type, in, i));
        return r;
    }

    static void assertSumWithinBound(DType type, MemorySegment in, long n, double actual) {
        BigDecimal exact = n <= 65537 ? TestArrays.exactSum(type, in, 0, n) : null;
        double abs = 0;
        for (long i = 0; i < n; i++) abs += Math.abs(TestArrays.floating(type, in, i));
        double bound = TestArrays.gamma(CpuReduce.sumRoundings(n), 0x1p-53) * abs * 1.01;
        if (exact != null) {
            double error = exact.subtract(new BigDecimal(actual)).abs().doubleValue();
            assertTrue(error <= bound, () -> "sum " + actual + " is " + error + " from exact " + exact + ", bound " + bound);
        } else {
            // Compensated summation (error ~ n u^2 sum|x|) stands in for the exact sum.
            double s = 0, c = 0;
            for (long i = 0; i < n; i++) {
                double x = TestArrays.floating(type, in, i), t = s + x;
                c += Math.abs(s) >= Math.abs(x) ? (s - t) + x : (x - t) + s;
                s = t;
            }
            double reference = s + c;
            assertTrue(Math.abs(actual - reference) <= bound, () -> actual + " vs " + reference);
        }
    }

    @Test
    void emptyInputGivesTheIdentity() {
        MemorySegment none = TestArrays.allocate(DType.LONG, 0);
        assertEquals(0, CpuReduce.reduceIntegral(DType.INT, Op.SUM, none, 0));
        assertEquals(1, CpuReduce.reduceIntegral(DType.LONG, Op.PROD, none, 0));
        assertEquals(Integer.MAX_VALUE, CpuReduce.reduceIntegral(DType.INT, Op.MIN, none, 0));
        assertEquals(Byte.MIN_VALUE, CpuReduce.reduceIntegral(DType.BYTE, Op.MAX, none, 0));
        assertEquals(-1, CpuReduce.reduceIntegral(DType.INT, Op.AND, none, 0));
        assertEquals(0, CpuReduce.reduceIntegral(DType.LONG, Op.XOR, none, 0));
        assertEquals(0.0, CpuReduce.reduceFloating(DType.FLOAT, Op.SUM, none, 0));
        assertEquals(1.0, CpuReduce.reduceFloating(DType.DOUBLE, Op.PROD, none, 0));
        assertEquals(Double.POSITIVE_INFINITY, CpuReduce.reduceFloating(DType.FLOAT, Op.MIN, none, 0));
        assertEquals(Double.NEGATIVE_INFINITY, CpuReduce.reduceFloating(DType.DOUBLE, Op.MAX, none, 0));
        assertEquals(-1, CpuReduce.argExtreme(DType.FLOAT, true, none, 0));
    }

    @Test
    void signedZerosAndNaNFollowMathMinMax() {
        for (int n : new int[] {2, 40, 70000}) {
            float[] v = new float[n];
            java.util.Arrays.fill(v, 0.0f);
            v[n - 1] = -0.0f;
            MemorySegment zeros = TestArrays.floats(v);
            assertEquals(-0.0, CpuReduce.reduceFloating(DType.FLOAT, Op.MIN, zeros, n));
            assertEquals(0.0, CpuReduce.reduceFloating(DType.FLOAT, Op.MAX, zeros, n));
            assertEquals(n - 1, CpuReduce.argExtreme(DType.FLOAT, false, zeros, n));
            assertEquals(0, CpuReduce.argExtreme(DType.FLOAT, true, zeros, n));
            v[n / 2] = Float.NaN;
            MemorySegment nan = TestArrays.floats(v);
            for (Op op : new Op[] {Op.SUM, Op.PROD, Op.MIN, Op.MAX}) {
                assertEquals(Double.doubleToRawLongBits(Double.NaN),
                        Double.doubleToRawLongBits(CpuReduce.reduceFloating(DType.FLOAT, op, nan, n)), op + " with NaN");
            }
            assertEquals(n / 2, CpuReduce.argExtreme(DType.FLOAT, true, nan, n));
            assertEquals(n / 2, CpuReduce.argExtreme(DType.FLOAT, false, nan, n));
        }
        // A zero sum is +0.0, even of negative zeros; one -0.0 alone as well (lanes start at +0.0).
        assertEquals(0.0, CpuReduce.reduceFloating(DType.DOUBLE, Op.SUM, TestArrays.doubles(-0.0, -0.0), 2));
        assertEquals(Double.doubleToRawLongBits(0.0),
                Double.doubleToRawLongBits(CpuReduce.reduceFloating(DType.DOUBLE, Op.SUM, TestArrays.doubles(-0.0), 1)));
        // Infinities of both signs make NaN; the canonical one.
        assertEquals(Double.doubleToRawLongBits(Double.NaN), Double.doubleToRawLongBits(
                CpuReduce.reduceFloating(DType.DOUBLE, Op.SUM, TestArrays.doubles(Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY), 2)));
    }

    static Stream<Arguments> argCases() {
        List<Arguments> all = new ArrayList<>();
        for (DType type : DType.values()) {
            for (long n : TestArrays.SIZES) {
                if (n > 0) all.add(Arguments.of(type, n));
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("argCases")
    void argExtremeFindsTheFirstExtreme(DType type, long n) {
        // Few distinct values: many ties, so "first" matters.
        MemorySegment in = TestArrays.allocate(type, n);
        java.util.Random r = new java.util.Random(n);
        for (long i = 0; i < n; i++) {
            int v = r.nextInt(9) - 4;
            switch (type) {
                case BYTE -> in.set(ValueLayout.JAVA_BYTE, i, (byte) v);
                case INT -> in.setAtIndex(ValueLayout.JAVA_INT, i, v);
                case LONG -> in.setAtIndex(ValueLayout.JAVA_LONG, i, v);
                case FLOAT -> in.setAtIndex(ValueLayout.JAVA_FLOAT, i, v == 0 && r.nextBoolean() ? -0.0f : v);
                case DOUBLE -> in.setAtIndex(ValueLayout.JAVA_DOUBLE, i, v == 0 && r.nextBoolean() ? -0.0 : v);
            }
        }
        for (boolean max : new boolean[] {true, false}) {
            assertEquals(argReference(type, max, in, 0, n), CpuReduce.argExtreme(type, max, in, n), max ? "argmax" : "argmin");
        }
        // The extreme only at the very end, past every vector block and chunk.
        TestArrays.setBits(type, in, n - 1, type == DType.FLOAT ? Float.floatToRawIntBits(100f)
                : type == DType.DOUBLE ? Double.doubleToRawLongBits(100.0) : 100);
        assertEquals(n - 1, CpuReduce.argExtreme(type, true, in, n));
    }

    /** First index of the extreme under Math.min/Math.max order (NaN extreme, -0.0 below 0.0). */
    static long argReference(DType type, boolean max, MemorySegment in, long from, long to) {
        long best = from;
        for (long i = from + 1; i < to; i++) {
            if (type.isFloatingPoint()) {
                double b = TestArrays.floating(type, in, best), x = TestArrays.floating(type, in, i);
                if (Double.isNaN(b)) break;
                boolean better = Double.isNaN(x) || (max ? Double.compare(x, b) > 0 : Double.compare(x, b) < 0);
                if (better) best = i;
            } else {
                long b = TestArrays.integral(type, in, best), x = TestArrays.integral(type, in, i);
                if (max ? x > b : x < b) best = i;
            }
        }
        return best;
    }

    @Test
    void argExtremeOfTheTypesLimits() {
        // Every element equal to the type's extreme: the first index.
        for (long n : new long[] {5, 16, 70000}) {
            MemorySegment mins = TestArrays.allocate(DType.INT, n), maxs = TestArrays.allocate(DType.LONG, n);
            for (long i = 0; i < n; i++) {
                mins.setAtIndex(ValueLayout.JAVA_INT, i, Integer.MIN_VALUE);
                maxs.setAtIndex(ValueLayout.JAVA_LONG, i, Long.MAX_VALUE);
            }
            assertEquals(0, CpuReduce.argExtreme(DType.INT, true, mins, n));
            assertEquals(0, CpuReduce.argExtreme(DType.INT, false, mins, n));
            assertEquals(0, CpuReduce.argExtreme(DType.LONG, false, maxs, n));
            assertEquals(0, CpuReduce.argExtreme(DType.LONG, true, maxs, n));
        }
        MemorySegment inf = TestArrays.floats(Float.NEGATIVE_INFINITY, Float.NEGATIVE_INFINITY, -1f, Float.NEGATIVE_INFINITY);
        assertEquals(0, CpuReduce.argExtreme(DType.FLOAT, false, inf, 4));
        assertEquals(2, CpuReduce.argExtreme(DType.FLOAT, true, inf, 4));
    }

    @Test
    void longSumIsExactAndOverflowThrows() {
        assertEquals(Long.MAX_VALUE, CpuReduce.reduceIntegral(DType.LONG, Op.SUM, TestArrays.longs(Long.MAX_VALUE, 1, -1), 3));
        ArithmeticException e = assertThrows(ArithmeticException.class,
                () -> CpuReduce.reduceIntegral(DType.LONG, Op.SUM, TestArrays.longs(Long.MAX_VALUE, 1), 2));
        assertTrue(e.getMessage().contains("9223372036854775808"), e.getMessage());
        assertThrows(ArithmeticException.class,
                () -> CpuReduce.reduceIntegral(DType.LONG, Op.SUM, TestArrays.longs(Long.MIN_VALUE, -1), 2));
        // Partial sums far beyond int64 that cancel: exact, across chunks and threads.
        int n = 3 * 65536 + 5;
        MemorySegment in = TestArrays.allocate(DType.LONG, n);
        for (int i = 0; i < n; i++) in.setAtIndex(ValueLayout.JAVA_LONG, i, i < n / 2 ? Long.MAX_VALUE : -Long.MAX_VALUE);
        assertEquals(-Long.MAX_VALUE, CpuReduce.reduceIntegral(DType.LONG, Op.SUM, in, n)); // one more negative
        in.setAtIndex(ValueLayout.JAVA_LONG, n - 1, Long.MIN_VALUE); // one below: -2^63, still a long
        assertEquals(Long.MIN_VALUE, CpuReduce.reduceIntegral(DType.LONG, Op.SUM, in, n));
        in.setAtIndex(ValueLayout.JAVA_LONG, n - 2, Long.MIN_VALUE); // one more below: overflow
        assertThrows(ArithmeticException.class, () -> CpuReduce.reduceIntegral(DType.LONG, Op.SUM, in, n));
    }

    @Test
    void intSumIsExactInInt64() {
        int n = (1 << 20) + 3;
        MemorySegment in = TestArrays.allocate(DType.INT, n);
        for (int i = 0; i < n; i++) in.setAtIndex(ValueLayout.JAVA_INT, i, Integer.MAX_VALUE);
        assertEquals((long) n * Integer.MAX_VALUE, CpuReduce.reduceIntegral(DType.INT, Op.SUM, in, n));
        MemorySegment bytes = TestArrays.allocate(DType.BYTE, n);
        bytes.fill((byte) -128);
        assertEquals(-128L * n, CpuReduce.reduceIntegral(DType.BYTE, Op.SUM, bytes, n));
    }

    // ---- int32 SUM beyond 2^32 elements: ranges of 2^32, combined exactly or ArithmeticException ----
    // (2^32 int32 elements take 16 GiB, too much for a CPU test: the two pieces are tested apart.)

    /** 2^32 elements of Integer.MAX_VALUE: the largest sum of one range, 2^63 - 2^32. */
    static final long MAX_RANGE_SUM = (1L << 32) * Integer.MAX_VALUE;
    /** 2^32 elements of Integer.MIN_VALUE: the smallest sum of one range, -2^63. */
    static final long MIN_RANGE_SUM = (1L << 32) * Integer.MIN_VALUE;

    @Test
    void int32SumRangesCombineExactlyOrThrow() {
        long n = 5L << 32;  // only named in the message
        assertEquals(Long.MIN_VALUE, MIN_RANGE_SUM);
        assertEquals(0, Reductions.combineIntSums(new long[0], 0));
        assertEquals(MAX_RANGE_SUM, Reductions.combineIntSums(new long[] {MAX_RANGE_SUM}, n));
        assertEquals(Long.MAX_VALUE, Reductions.combineIntSums(new long[] {MAX_RANGE_SUM, (1L << 32) - 1}, n));
        assertEquals(Long.MIN_VALUE, Reductions.combineIntSums(new long[] {MIN_RANGE_SUM, 0}, n));
        // The running total leaves the range of long and comes back: still exact (addExact would throw).
        assertEquals(Long.MAX_VALUE - (1L << 33) + 1, Reductions.combineIntSums(new long[] {MAX_RANGE_SUM, MAX_RANGE_SUM, MIN_RANGE_SUM}, n));
        assertEquals(-(1L << 33), Reductions.combineIntSums(new long[] {MIN_RANGE_SUM, MIN_RANGE_SUM, MAX_RANGE_SUM, MAX_RANGE_SUM}, n));
        // One past either end throws, naming the exact sum and the element count.
        ArithmeticException up = assertThrows(ArithmeticException.class,
                () -> Reductions.combineIntSums(new long[] {MAX_RANGE_SUM, 1L << 32}, n));
        assertEquals("int32 sum overflows int64: the exact sum of the " + n + " elements is 9223372036854775808, outside the range of long",
                up.getMessage());
        ArithmeticException down = assertThrows(ArithmeticException.class,
                () -> Reductions.combineIntSums(new long[] {MIN_RANGE_SUM, -1}, n));
        assertTrue(down.getMessage().contains(" is -9223372036854775809,"), down.getMessage());
        assertThrows(ArithmeticException.class,
                () -> Reductions.combineIntSums(new long[] {MIN_RANGE_SUM, MIN_RANGE_SUM, MAX_RANGE_SUM, MAX_RANGE_SUM, MIN_RANGE_SUM}, n));
        // Many ranges: exact against BigInteger, the value or the exception carrying it.
        SplittableRandom random = new SplittableRandom(2024);
        for (int trial = 0; trial < 20_000; trial++) {
            long[] sums = new long[1 + random.nextInt(40)];
            BigInteger exact = BigInteger.ZERO;
            for (int i = 0; i < sums.length; i++) {
                sums[i] = switch (random.nextInt(4)) {
                    case 0 -> MAX_RANGE_SUM - random.nextInt(3);
                    case 1 -> MIN_RANGE_SUM + random.nextInt(3);
                    default -> random.nextLong(MIN_RANGE_SUM, MAX_RANGE_SUM + 1);
                };
                exact = exact.add(BigInteger.valueOf(sums[i]));
            }
            if (exact.bitLength() < 64) {
                assertEquals(exact.longValueExact(), Reductions.combineIntSums(sums, n), exact::toString);
            } else {
                ArithmeticException e = assertThrows(ArithmeticException.class, () -> Reductions.combineIntSums(sums, n));
                assertTrue(e.getMessage().contains(" is " + exact + ","), e.getMessage());
            }
        }
    }

    @Test
    void int32SumInRangesEqualsTheWholeSum() {
        int n = 3 * 65536 + 5;
        MemorySegment in = TestArrays.allocate(DType.INT, n);
        SplittableRandom random = new SplittableRandom(17);
        for (int i = 0; i < n; i++) {
            int v = switch (random.nextInt(3)) {
                case 0 -> Integer.MAX_VALUE;
                case 1 -> Integer.MIN_VALUE;
                default -> random.nextInt();
            };
            in.setAtIndex(ValueLayout.JAVA_INT, i, v);
        }
        long expected = integralReference(DType.INT, Op.SUM, in, n);
        assertEquals(expected, CpuReduce.reduceIntegral(DType.INT, Op.SUM, in, n));
        for (long range : new long[] {1, 7, 65535, 65536, 65537, 100_003, n - 1, n, 1L << 32}) {
            assertEquals(expected, CpuReduce.intSumInRanges(in, 0, n, range), "range " + range);
            assertEquals(expected - in.getAtIndex(ValueLayout.JAVA_INT, n - 1), CpuReduce.intSumInRanges(in, 0, n - 1, range), "range " + range);
            assertEquals(expected - in.getAtIndex(ValueLayout.JAVA_INT, 0), CpuReduce.intSumInRanges(in, 1, n, range), "range " + range);
        }
        assertMessage(IllegalArgumentException.class, "range", () -> CpuReduce.intSumInRanges(in, 0, n, 0));
        assertMessage(IllegalArgumentException.class, "range", () -> CpuReduce.intSumInRanges(in, 0, n, (1L << 32) + 1));
    }

    @Test
    void resultsDoNotDependOnTheThreadCount() {
        for (DType type : new DType[] {DType.FLOAT, DType.DOUBLE}) {
            for (Op op : new Op[] {Op.SUM, Op.PROD}) {
                long n = 37 * 65536 + 11;
                MemorySegment in = TestArrays.random(type, op, n, 5);
                double here = CpuReduce.reduceFloating(type, op, in, n);
                double one = TestArrays.inPool(1, () -> CpuReduce.reduceFloating(type, op, in, n));
                double four = TestArrays.inPool(4, () -> CpuReduce.reduceFloating(type, op, in, n));
                assertEquals(Double.doubleToRawLongBits(one), Double.doubleToRawLongBits(here), type + " " + op);
                assertEquals(Double.doubleToRawLongBits(one), Double.doubleToRawLongBits(four), type + " " + op);
            }
        }
    }

    @Test
    void sumRoundingsGrowsWithTheChunkTree() {
        assertEquals(4115, CpuReduce.sumRoundings(0));
        assertEquals(4115, CpuReduce.sumRoundings(65536));
        assertEquals(4116, CpuReduce.sumRoundings(65537));
        assertEquals(4115 + 10, CpuReduce.sumRoundings(1024L * 65536));
    }

    @Test
    void rejectsBadArguments() {
        MemorySegment in = TestArrays.allocate(DType.INT, 10);
        assertMessage(NullPointerException.class, "type", () -> CpuReduce.reduceIntegral(null, Op.SUM, in, 1));
        assertMessage(NullPointerException.class, "op", () -> CpuReduce.reduceIntegral(DType.INT, null, in, 1));
        assertMessage(NullPointerException.class, "in", () -> CpuReduce.reduceIntegral(DType.INT, Op.SUM, null, 1));
        assertMessage(NullPointerException.class, "in", () -> CpuReduce.argExtreme(DType.INT, true, null, 1));
        assertMessage(IllegalArgumentException.class, "n", () -> CpuReduce.reduceIntegral(DType.INT, Op.SUM, in, -1));
        assertMessage(IllegalArgumentException.class, "in", () -> CpuReduce.reduceIntegral(DType.INT, Op.SUM, in, 11));
        assertMessage(IllegalArgumentException.class, "in", () -> CpuReduce.reduceFloating(DType.DOUBLE, Op.SUM, in, 6));
        assertMessage(IllegalArgumentException.class, "in", () -> CpuReduce.argExtreme(DType.LONG, false, in, 6));
        assertMessage(IllegalArgumentException.class, "op", () -> CpuReduce.reduceFloating(DType.FLOAT, Op.XOR, in, 1));
        assertMessage(IllegalArgumentException.class, "type", () -> CpuReduce.reduceIntegral(DType.FLOAT, Op.SUM, in, 1));
        assertMessage(IllegalArgumentException.class, "type", () -> CpuReduce.reduceFloating(DType.INT, Op.SUM, in, 1));
    }

    static void assertMessage(Class<? extends Throwable> type, String argument, org.junit.jupiter.api.function.Executable call) {
        Throwable e = assertThrows(type, call);
        ArgumentMessages.assertStartsWith(argument, e);
    }

    @Test
    void customOperatorsTakeUnalignedAndHeapSegmentsAsTheBuiltInKernelsDo() {
        dev.primer.CustomOp sum = dev.primer.CustomOp.ofInt("s", "a + b", 0, Integer::sum);
        MemorySegment odd = java.lang.foreign.Arena.ofAuto().allocate(408, 64).asSlice(1, 400);
        MemorySegment heap = MemorySegment.ofArray(new byte[400]);
        for (MemorySegment in : new MemorySegment[] {odd, heap}) {
            for (int i = 0; i < 100; i++) in.setAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i, i);
            assertEquals(4950, (int) CpuCustomReduce.reduce(sum, in, 100));
            MemorySegment out = MemorySegment.ofArray(new byte[400]);
            CpuCustomScan.scan(sum, true, 0, in, out, 100);
            assertEquals(4950, out.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, 99));
        }
    }
}
