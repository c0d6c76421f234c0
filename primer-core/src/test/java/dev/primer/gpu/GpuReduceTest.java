package dev.primer.gpu;

import dev.primer.BackendKind;
import dev.primer.DType;
import dev.primer.IntArray;
import dev.primer.Op;
import dev.primer.Primer;
import dev.primer.cuda.Cuda;
import dev.primer.cuda.CudaContext;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.math.BigInteger;
import java.util.SplittableRandom;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The device-wide reduce against straightforward Java references: every operator and type, sizes
 * around warp, block, tile and grid boundaries, slices starting 1..3 elements past an aligned
 * address, NaN and -0.0, run-to-run bitwise identity, inputs of more than 2^31 elements, int32 sums
 * of more than 2^32 elements (exact or ArithmeticException), and argument errors. Integer results, MIN/MAX and ARGMIN/ARGMAX must be exact; float sums must lie
 * within the bound of any summation order, (n - 1)·2^-53·Σ|x_i| of the exact sum (a double
 * accumulator; float inputs widen exactly), the exact sum taken as a double-double.
 */
class GpuReduceTest {
    private static final long[] SIZES = {0, 1, 31, 33, 1023, 1025, (1 << 20) - 1, (1 << 20) + 1, (1 << 24) + 3};
    private static final long MAX_SIZE = (1 << 24) + 3;
    private static final int MAX_OFFSET = 3;
    private static CudaContext ctx;

    @BeforeEach
    void gpu() {
        Assumptions.assumeTrue(Cuda.isAvailable(), () -> "no GPU: " + Cuda.unavailableReason());
        ctx = Cuda.context();
    }

    // ---- integer operators ----

    @ParameterizedTest
    @EnumSource(value = DType.class, names = {"BYTE", "INT", "LONG"})
    void integerOperatorsMatchJava(DType type) {
        SplittableRandom random = new SplittableRandom(type.ordinal() * 31L + 1);
        for (Op op : Op.values()) {
            try (Arena arena = Arena.ofConfined(); Device data = new Device(integerData(arena, type, op, random))) {
                for (long n : SIZES) {
                    for (int offset : offsets(n)) {
                        long expected = integerReference(type, op, data.host, offset, n);
                        long actual = GpuReduce.reduceIntegral(ctx, type, op, data.at(type, offset), n);
                        assertEquals(expected, actual, () -> op + " " + type + " n=" + n + " offset=" + offset);
                    }
                }
            }
        }
    }

    /** Data that keeps each operator's result informative (PROD never collapses to 0, AND keeps bits). */
    private static MemorySegment integerData(Arena arena, DType type, Op op, SplittableRandom random) {
        long count = MAX_SIZE + MAX_OFFSET;
        MemorySegment s = arena.allocate(count * type.byteSize(), 16);
        long[] oddFactors = {1, 1, 1, 1, 1, -1, 3, 5, -7};
        for (long i = 0; i < count; i++) {
            long v = switch (op) {
                case SUM -> type == DType.LONG ? random.nextLong(-(1L << 40), 1L << 40) : random.nextLong();
                case PROD -> oddFactors[random.nextInt(oddFactors.length)];  // odd: never 0 mod 2^64
                case MIN, MAX -> random.nextLong(-1000, 1000);
                case AND -> ~(1L << random.nextInt(type == DType.BYTE ? 6 : 40));
                case OR -> 1L << random.nextInt(type == DType.BYTE ? 6 : 40);
                case XOR -> random.nextLong();
            };
            put(s, type, i, v);
        }
        return s;
    }

    private static long integerReference(DType type, Op op, MemorySegment s, long offset, long n) {
        long acc = switch (op) {
            case SUM, OR, XOR -> 0;
            case PROD -> 1;
            case AND -> -1;
            case MIN -> type == DType.BYTE ? Byte.MAX_VALUE : type == DType.INT ? Integer.MAX_VALUE : Long.MAX_VALUE;
            case MAX -> type == DType.BYTE ? Byte.MIN_VALUE : type == DType.INT ? Integer.MIN_VALUE : Long.MIN_VALUE;
        };
        for (long i = offset; i < offset + n; i++) {
            long v = getLong(s, type, i);
            acc = switch (op) {
                case SUM -> acc + v;
                case PROD -> acc * v;
                case MIN -> Math.min(acc, v);
                case MAX -> Math.max(acc, v);
                case AND -> acc & v;
                case OR -> acc | v;
                case XOR -> acc ^ v;
            };
        }
        return acc;
    }

    // ---- floating-point operators ----

    @ParameterizedTest
    @EnumSource(value = DType.class, names = {"FLOAT", "DOUBLE"})
    void floatingOperatorsMatchJava(DType type) {
        SplittableRandom random = new SplittableRandom(type.ordinal() * 17L + 3);
        for (Op op : new Op[] {Op.SUM, Op.PROD, Op.MIN, Op.MAX}) {
            try (Arena arena = Arena.ofConfined(); Device data = new Device(floatingData(arena, type, op, random))) {
                for (long n : SIZES) {
                    for (int offset : offsets(n)) {
                        double actual = GpuReduce.reduceFloating(ctx, type, op, data.at(type, offset), n);
                        String what = op + " " + type + " n=" + n + " offset=" + offset;
                        switch (op) {
                            case SUM -> checkSum(type, data.host, offset, n, actual, what);
                            case PROD -> checkProduct(type, data.host, offset, n, actual, what);
                            default -> assertSameDouble(floatingMinMax(type, op == Op.MAX, data.host, offset, n), actual, what);
                        }
                    }
                }
            }
        }
    }

    private static MemorySegment floatingData(Arena arena, DType type, Op op, SplittableRandom random) {
        long count = MAX_SIZE + MAX_OFFSET;
        MemorySegment s = arena.allocate(count * type.byteSize(), 16);
        for (long i = 0; i < count; i++) {
            double v = switch (op) {
                // mixed signs and magnitudes, so the sum cancels and the order matters
                case SUM -> (random.nextDouble() * 2 - 1) * Math.scalb(1.0, random.nextInt(-20, 21));
                case PROD -> 1 + (random.nextDouble() - 0.5) * 1e-3;
                default -> Math.rint((random.nextDouble() * 2 - 1) * 1e4) / 8;  // ties
            };
            putDouble(s, type, i, v);
        }
        return s;
    }

    /** |actual - exact| <= (n - 1)·2^-53·Σ|x|: the bound for a double accumulator in any order. */
    private static void checkSum(DType type, MemorySegment s, long offset, long n, double actual, String what) {
        double hi = 0, lo = 0, abs = 0;  // double-double exact-enough reference (TwoSum)
        for (long i = offset; i < offset + n; i++) {
            double x = getDouble(s, type, i);
            double t = hi + x;
            double e = Math.abs(hi) >= Math.abs(x) ? (hi - t) + x : (x - t) + hi;
            hi = t;
            lo += e;
            abs += Math.abs(x);
        }
        double bound = Math.max(0, n - 1) * Math.scalb(1.0, -53) * abs;
        double error = Math.abs((actual - hi) - lo), exact = hi + lo;
        assertTrue(error <= bound, () -> what + ": sum " + actual + " is " + error + " from the exact " + exact
                + ", above the bound " + bound);
    }

    private static void checkProduct(DType type, MemorySegment s, long offset, long n, double actual, String what) {
        double reference = 1;
        for (long i = offset; i < offset + n; i++) reference *= getDouble(s, type, i);
        double bound = 2.0 * (n + 1) * Math.scalb(1.0, -53) * Math.abs(reference);  // both orders' rounding
        double ref = reference;
        assertTrue(Math.abs(actual - ref) <= bound, () -> what + ": product " + actual + " vs " + ref);
    }

    private static double floatingMinMax(DType type, boolean max, MemorySegment s, long offset, long n) {
        if (type == DType.FLOAT) {
            float acc = max ? Float.NEGATIVE_INFINITY : Float.POSITIVE_INFINITY;
            for (long i = offset; i < offset + n; i++) {
                float x = s.getAtIndex(JAVA_FLOAT, i);
                acc = max ? Math.max(acc, x) : Math.min(acc, x);
            }
            return acc;
        }
        double acc = max ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
        for (long i = offset; i < offset + n; i++) {
            double x = s.getAtIndex(JAVA_DOUBLE, i);
            acc = max ? Math.max(acc, x) : Math.min(acc, x);
        }
        return acc;
    }

    /** Equal as Double.compare sees it: -0.0 differs from 0.0, every NaN equals every NaN. */
    private static void assertSameDouble(double expected, double actual, String what) {
        assertEquals(0, Double.compare(expected, actual), () -> what + ": expected " + expected + ", got " + actual);
    }

    // ---- ARGMIN / ARGMAX ----

    @ParameterizedTest
    @EnumSource(DType.class)
    void argExtremesMatchJava(DType type) {
        SplittableRandom random = new SplittableRandom(type.ordinal() * 7L + 5);
        try (Arena arena = Arena.ofConfined()) {
            long count = MAX_SIZE + MAX_OFFSET;
            MemorySegment s = arena.allocate(count * type.byteSize(), 16);
            for (long i = 0; i < count; i++) {  // a narrow range: many ties, the first index must win
                if (type.isFloatingPoint()) putDouble(s, type, i, random.nextInt(-500, 500) / 4.0);
                else put(s, type, i, random.nextLong(-100, 100));
            }
            try (Device data = new Device(s)) {
                for (long n : SIZES) {
                    for (int offset : offsets(n)) {
                        for (boolean max : new boolean[] {false, true}) {
                            long expected = argReference(type, max, s, offset, n);
                            long actual = GpuReduce.argExtreme(ctx, type, max, data.at(type, offset), n);
                            assertEquals(expected, actual, () -> (max ? "argmax " : "argmin ") + type + " n=" + n + " offset=" + offset);
                        }
                    }
                }
            }
        }
    }

    /** First index of the extreme, NaN counting as the extreme; -1 when empty. */
    private static long argReference(DType type, boolean max, MemorySegment s, long offset, long n) {
        long best = -1;
        for (long i = offset; i < offset + n; i++) {
            if (best < 0) {
                best = i;
                if (type.isFloatingPoint() && Double.isNaN(getDouble(s, type, i))) break;
                continue;
            }
            if (type.isFloatingPoint()) {
                double x = getDouble(s, type, i), b = getDouble(s, type, best);
                if (Double.isNaN(x)) {
                    best = i;
                    break;
                }
                int c = Double.compare(x, b);  // -0.0 < 0.0, as Math.min/max order them
                if (max ? c > 0 : c < 0) best = i;
            } else {
                long x = getLong(s, type, i), b = getLong(s, type, best);
                if (max ? x > b : x < b) best = i;
            }
        }
        return best < 0 ? -1 : best - offset;
    }

    // ---- NaN and signed zero ----

    @ParameterizedTest
    @EnumSource(value = DType.class, names = {"FLOAT", "DOUBLE"})
    void nanWinsAndNegativeZeroIsBelowZero(DType type) {
        double nan = Double.NaN;
        for (long n : new long[] {1, 33, 4097, (1 << 20) + 1}) {
            for (int scenario = 0; scenario < 6; scenario++) {
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment s = arena.allocate((n + MAX_OFFSET) * type.byteSize(), 16);
                    SplittableRandom random = new SplittableRandom(scenario);
                    for (int offset = 0; offset <= MAX_OFFSET; offset++) {
                        for (long i = 0; i < n + MAX_OFFSET; i++) putDouble(s, type, i, random.nextDouble() * 2 - 1);
                        long at = offset;
                        switch (scenario) {
                            case 0 -> {  // NaNs in the middle and at the end: NaN wins, the first NaN's index
                                putDouble(s, type, at + n / 2, nan);
                                putDouble(s, type, at + n - 1, nan);
                            }
                            case 1 -> {  // zeros with a few -0.0: min is -0.0, argmin the first -0.0
                                for (long i = 0; i < n; i++) putDouble(s, type, at + i, 0.0);
                                putDouble(s, type, at + n / 3, -0.0);
                                putDouble(s, type, at + n - 1, -0.0);
                            }
                            case 2 -> {  // -0.0 everywhere but one 0.0 at the end: max is 0.0 there
                                for (long i = 0; i < n; i++) putDouble(s, type, at + i, -0.0);
                                putDouble(s, type, at + n - 1, 0.0);
                            }
                            case 3 -> { for (long i = 0; i < n; i++) putDouble(s, type, at + i, 5.0); }  // all ties
                            case 4 -> {  // infinities at both ends
                                putDouble(s, type, at, Double.NEGATIVE_INFINITY);
                                putDouble(s, type, at + n - 1, Double.POSITIVE_INFINITY);
                            }
                            case 5 -> { for (long i = 0; i < n; i++) putDouble(s, type, at + i, Double.POSITIVE_INFINITY); }
                            default -> throw new AssertionError();
                        }
                        try (Device data = new Device(s)) {
                            long ptr = data.at(type, offset);
                            String what = type + " scenario " + scenario + " n=" + n + " offset=" + offset;
                            assertSameDouble(floatingMinMax(type, false, s, offset, n), GpuReduce.reduceFloating(ctx, type, Op.MIN, ptr, n), "min " + what);
                            assertSameDouble(floatingMinMax(type, true, s, offset, n), GpuReduce.reduceFloating(ctx, type, Op.MAX, ptr, n), "max " + what);
                            assertEquals(argReference(type, false, s, offset, n), GpuReduce.argExtreme(ctx, type, false, ptr, n), "argmin " + what);
                            assertEquals(argReference(type, true, s, offset, n), GpuReduce.argExtreme(ctx, type, true, ptr, n), "argmax " + what);
                        }
                    }
                }
            }
        }
    }

    // ---- reproducibility ----

    @Test
    void floatSumIsBitwiseIdenticalRunToRun() {
        long n = (1 << 24) + 3;
        SplittableRandom random = new SplittableRandom(99);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate((n + 1) * 4, 16);
            for (long i = 0; i <= n; i++) s.setAtIndex(JAVA_FLOAT, i, (float) ((random.nextDouble() * 2 - 1) * 1000));
            try (Device data = new Device(s)) {
                for (int offset = 0; offset <= 1; offset++) {
                    long first = Double.doubleToRawLongBits(GpuReduce.reduceFloating(ctx, DType.FLOAT, Op.SUM, data.at(DType.FLOAT, offset), n));
                    for (int run = 1; run < 5; run++) {
                        long again = Double.doubleToRawLongBits(GpuReduce.reduceFloating(ctx, DType.FLOAT, Op.SUM, data.at(DType.FLOAT, offset), n));
                        assertEquals(first, again, "run " + run + " offset " + offset);
                    }
                }
            }
        }
    }

    // ---- LONG SUM: exact in 128 bits ----

    @Test
    void longSumIsExactAndThrowsWhenItDoesNotFitALong() {
        assertEquals(Long.MAX_VALUE - 1, longSum(Long.MAX_VALUE, 1, -2));  // overflows on the way, not at the end
        ArithmeticException e = assertThrows(ArithmeticException.class, () -> longSum(Long.MAX_VALUE, Long.MAX_VALUE));
        assertTrue(e.getMessage().startsWith("long sum overflows"), e.getMessage());
        assertThrows(ArithmeticException.class, () -> longSum(Long.MIN_VALUE, -1));
        assertEquals(Long.MIN_VALUE, longSum(Long.MIN_VALUE, 0));

        // Every block's partial overflows a long; the whole is exactly 0, then exactly -3.
        long n = 1 << 22;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(n * 8, 16);
            for (long i = 0; i < n; i++) s.setAtIndex(JAVA_LONG, i, i < n / 2 ? Long.MAX_VALUE : -Long.MAX_VALUE);
            try (Device data = new Device(s)) {
                assertEquals(0, GpuReduce.reduceIntegral(ctx, DType.LONG, Op.SUM, data.ptr, n));
            }
            s.setAtIndex(JAVA_LONG, n - 1, -Long.MAX_VALUE - 1);
            s.setAtIndex(JAVA_LONG, 7, Long.MAX_VALUE - 2);
            try (Device data = new Device(s)) {
                assertEquals(-3, GpuReduce.reduceIntegral(ctx, DType.LONG, Op.SUM, data.ptr, n));
            }
            // random full-range values: compare with BigInteger, exception or value
            SplittableRandom random = new SplittableRandom(5);
            for (long m : new long[] {3, 1025, (1 << 20) + 1}) {
                BigInteger exact = BigInteger.ZERO;
                for (long i = 0; i < m; i++) {
                    long v = random.nextLong() >> random.nextInt(64);
                    s.setAtIndex(JAVA_LONG, i, v);
                    exact = exact.add(BigInteger.valueOf(v));
                }
                try (Device data = new Device(s)) {
                    if (exact.bitLength() < 64) {
                        assertEquals(exact.longValueExact(), GpuReduce.reduceIntegral(ctx, DType.LONG, Op.SUM, data.ptr, m));
                    } else {
                        ArithmeticException overflow = assertThrows(ArithmeticException.class,
                                () -> GpuReduce.reduceIntegral(ctx, DType.LONG, Op.SUM, data.ptr, m));
                        assertTrue(overflow.getMessage().contains(exact.toString()), overflow.getMessage());
                    }
                }
            }
        }
    }

    private static long longSum(long... values) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(values.length * 8L, 16);
            for (int i = 0; i < values.length; i++) s.setAtIndex(JAVA_LONG, i, values[i]);
            try (Device data = new Device(s)) {
                return GpuReduce.reduceIntegral(ctx, DType.LONG, Op.SUM, data.ptr, values.length);
            }
        }
    }

    // ---- more than 2^31 elements ----

    @Test
    @Tag(BigInputs.TAG)
    void reducesMoreThan2To31Elements() {
        long n = (1L << 31) + 5;
        long bytes = n * 4;
        Assumptions.assumeTrue(ctx.memoryInfo()[0] > bytes + (1L << 30), "needs " + (bytes >> 30) + " GiB of free device memory");
        long ptr = ctx.allocate(bytes);
        try (Arena arena = Arena.ofConfined()) {
            ctx.memset32(ptr, 3, n);
            MemorySegment one = arena.allocate(4);
            long[] at = {0, (1L << 31) + 1, n - 1};
            int[] value = {-7, 1000, -1000};
            for (int k = 0; k < at.length; k++) {
                one.set(JAVA_INT, 0, value[k]);
                ctx.copyToDevice(ptr + at[k] * 4, one, 4);
            }
            long expected = 3 * (n - at.length) - 7 + 1000 - 1000;
            assertEquals(expected, GpuReduce.reduceIntegral(ctx, DType.INT, Op.SUM, ptr, n));
            assertEquals((1L << 31) + 1, GpuReduce.argExtreme(ctx, DType.INT, true, ptr, n));
            assertEquals(n - 1, GpuReduce.argExtreme(ctx, DType.INT, false, ptr, n));
            assertEquals(-1000, GpuReduce.reduceIntegral(ctx, DType.INT, Op.MIN, ptr, n));

            // the same memory as more than 2^31 bytes, starting one byte in
            long bytesN = (1L << 31) + 7;
            ctx.memset8(ptr, (byte) 1, bytesN + 1);
            one.set(JAVA_BYTE, 0, (byte) -100);
            ctx.copyToDevice(ptr + bytesN, one, 1);  // the last element of the slice
            assertEquals(bytesN - 1 - 100, GpuReduce.reduceIntegral(ctx, DType.BYTE, Op.SUM, ptr + 1, bytesN));
            assertEquals(bytesN - 1, GpuReduce.argExtreme(ctx, DType.BYTE, false, ptr + 1, bytesN));
        } finally {
            ctx.free(ptr);
        }
    }

    // ---- INT SUM beyond 2^32 elements: one launch per chunk of 2^32, exact or ArithmeticException ----

    /**
     * 2^32 + 2^20 + 7 int32 elements (16 GiB) through Primer.sum: exact where the sum fits a long,
     * including exactly Long.MIN_VALUE, and ArithmeticException where it does not (the int64
     * accumulator of a single launch would wrap silently there).
     */
    @Test
    @Tag(BigInputs.TAG)
    void intSumOfMoreThan2To32ElementsIsExactOrThrows() {
        long chunk = 1L << 32;
        long n = chunk + (1L << 20) + 7;
        long bytes = n * Integer.BYTES;
        Assumptions.assumeTrue(ctx.memoryInfo()[0] > bytes + (1L << 30), "needs " + ((bytes >> 30) + 2) + " GiB of free device memory");
        try (Primer primer = Primer.open(BackendKind.GPU); IntArray a = primer.allocateInts(n)) {
            // Fits: 2^31 elements of MAX_VALUE, the rest -3, distinct values around the chunk boundary
            // [2^32 - 5, 2^32 + 5) and at the last element.
            a.fill(-3);
            try (IntArray head = a.slice(0, 1L << 31)) {
                head.fill(Integer.MAX_VALUE);
            }
            int[] edge = {1, -2, 3, Integer.MIN_VALUE, Integer.MAX_VALUE, 6, -7, 8, Integer.MAX_VALUE, 10};
            try (IntArray around = a.slice(chunk - 5, chunk + 5); IntArray last = a.slice(n - 1, n)) {
                around.copyFrom(edge);
                last.fill(12345);
            }
            BigInteger exact = BigInteger.valueOf(Integer.MAX_VALUE).shiftLeft(31)
                    .add(BigInteger.valueOf(-3L * (n - (1L << 31) - edge.length - 1)))
                    .add(BigInteger.valueOf(java.util.Arrays.stream(edge).asLongStream().sum()))
                    .add(BigInteger.valueOf(12345));
            assertEquals(exact.longValueExact(), primer.sum(a));
            assertEquals(exact.longValueExact(), primer.reduce(a, Op.SUM));
            try (IntArray tail = a.slice(1, n)) {  // 4 bytes in: every chunk starts one element later
                assertEquals(exact.longValueExact() - Integer.MAX_VALUE, primer.sum(tail));
            }
            assertEquals(Integer.MIN_VALUE, primer.reduce(a, Op.MIN));  // other operators: one launch, as before

            // Exactly Long.MIN_VALUE: the first 2^32 elements MIN_VALUE (one chunk of -2^63), the rest 0.
            a.fill(0);
            try (IntArray first = a.slice(0, chunk)) {
                first.fill(Integer.MIN_VALUE);
                assertEquals(Long.MIN_VALUE, primer.sum(first));  // exactly 2^32 elements: one launch
            }
            assertEquals(Long.MIN_VALUE, primer.sum(a));
            try (IntArray last = a.slice(n - 1, n)) {
                last.fill(-1);  // one below: -2^63 - 1
            }
            ArithmeticException below = assertThrows(ArithmeticException.class, () -> primer.sum(a));
            assertEquals("int32 sum overflows int64: the exact sum of the " + n + " elements is -9223372036854775809, outside the range of long",
                    below.getMessage());

            // All MAX_VALUE: (2^32 + 2^20 + 7)(2^31 - 1) > 2^63 - 1.
            a.fill(Integer.MAX_VALUE);
            BigInteger over = BigInteger.valueOf(n).multiply(BigInteger.valueOf(Integer.MAX_VALUE));
            ArithmeticException above = assertThrows(ArithmeticException.class, () -> primer.sum(a));
            assertTrue(above.getMessage().startsWith("int32 sum overflows int64: the exact sum of the " + n + " elements is " + over + ","),
                    above.getMessage());
            assertThrows(ArithmeticException.class, () -> GpuReduce.reduceIntegral(ctx, DType.INT, Op.SUM, a.devicePointer(), n));
        }
    }

    // ---- the asynchronous variant and its result layout ----

    @Test
    void reduceIntoWritesTheDocumentedLayout() {
        try (Arena arena = Arena.ofConfined()) {
            int n = 100_003;
            MemorySegment ints = arena.allocate(n * 4L, 16), floats = arena.allocate(n * 4L, 16), longs = arena.allocate(n * 8L, 16);
            for (int i = 0; i < n; i++) {
                ints.setAtIndex(JAVA_INT, i, i % 1000 - 400);
                floats.setAtIndex(JAVA_FLOAT, i, (i * 37 % 1001) - 500.5f);
                longs.setAtIndex(JAVA_LONG, i, i % 2 == 0 ? Long.MAX_VALUE : 1);
            }
            long result = ctx.allocate(64);
            MemorySegment back = arena.allocate(64);
            try (Device di = new Device(ints); Device df = new Device(floats); Device dl = new Device(longs)) {
                assertEquals(8, GpuReduce.resultBytes(DType.INT, Op.SUM));
                GpuReduce.reduceInto(ctx, DType.INT, Op.SUM, di.ptr, n, result);
                ctx.copyToHost(back, result, 8);
                assertEquals(integerReference(DType.INT, Op.SUM, ints, 0, n), back.get(JAVA_LONG, 0));

                GpuReduce.reduceInto(ctx, DType.INT, Op.MIN, di.ptr, n, result);
                ctx.copyToHost(back, result, 8);
                assertEquals(-400, back.get(JAVA_LONG, 0));  // widened to 64 bits

                GpuReduce.reduceInto(ctx, DType.FLOAT, Op.MAX, df.ptr, n, result);
                ctx.copyToHost(back, result, 8);
                assertEquals(499.5, back.get(JAVA_DOUBLE, 0));  // the float, widened

                assertEquals(16, GpuReduce.resultBytes(DType.LONG, Op.SUM));
                GpuReduce.reduceInto(ctx, DType.LONG, Op.SUM, dl.ptr, n, result);  // overflows: the 128-bit sum
                ctx.copyToHost(back, result, 16);
                BigInteger exact = BigInteger.valueOf(Long.MAX_VALUE).multiply(BigInteger.valueOf((n + 1) / 2)).add(BigInteger.valueOf(n / 2));
                assertEquals(exact.longValue(), back.get(JAVA_LONG, 0));
                assertEquals(exact.shiftRight(64).longValue(), back.get(JAVA_LONG, 8));

                GpuReduce.argExtremeInto(ctx, DType.FLOAT, true, df.ptr, n, result);
                ctx.copyToHost(back, result, GpuReduce.ARG_RESULT_BYTES);
                assertEquals(499.5f, back.get(JAVA_FLOAT, 0));
                assertEquals(argReference(DType.FLOAT, true, floats, 0, n), back.get(JAVA_LONG, 8));
            } finally {
                ctx.free(result);
            }
        }
    }

    // ---- argument errors ----

    @Test
    void rejectsBadArguments() {
        try (Arena arena = Arena.ofConfined(); Device data = new Device(arena.allocate(64, 16))) {
            long p = data.ptr;
            assertMessage("n", () -> GpuReduce.reduceIntegral(ctx, DType.INT, Op.SUM, p, -1));
            assertMessage("n", () -> GpuReduce.reduceFloating(ctx, DType.FLOAT, Op.SUM, p, -1));
            assertMessage("n", () -> GpuReduce.argExtreme(ctx, DType.INT, true, p, -1));
            assertMessage("op", () -> GpuReduce.reduceFloating(ctx, DType.FLOAT, Op.XOR, p, 4));
            assertMessage("op", () -> GpuReduce.reduceInto(ctx, DType.DOUBLE, Op.AND, p, 4, p + 32));
            assertMessage("op", () -> GpuReduce.resultBytes(DType.FLOAT, Op.OR));
            assertMessage("type", () -> GpuReduce.reduceIntegral(ctx, DType.FLOAT, Op.SUM, p, 4));
            assertMessage("type", () -> GpuReduce.reduceFloating(ctx, DType.INT, Op.SUM, p, 4));
            assertMessage("in", () -> GpuReduce.reduceIntegral(ctx, DType.INT, Op.SUM, p + 2, 4));
            assertMessage("in", () -> GpuReduce.reduceIntegral(ctx, DType.INT, Op.SUM, 0, 4));
            assertMessage("resultPtr", () -> GpuReduce.reduceInto(ctx, DType.INT, Op.SUM, p, 4, 0));
            assertMessage("resultPtr", () -> GpuReduce.argExtremeInto(ctx, DType.INT, true, p, 4, p + 8));
            assertMessage("ctx", () -> GpuReduce.reduceIntegral(null, DType.INT, Op.SUM, p, 4));
            assertMessage("type", () -> GpuReduce.reduceIntegral(ctx, null, Op.SUM, p, 4));
            assertMessage("op", () -> GpuReduce.reduceIntegral(ctx, DType.INT, null, p, 4));
            // n == 0 needs no memory at all: the identity comes back
            assertEquals(0, GpuReduce.reduceIntegral(ctx, DType.INT, Op.SUM, 0, 0));
            assertEquals(-1, GpuReduce.argExtreme(ctx, DType.DOUBLE, false, 0, 0));
        }
    }

    private static void assertMessage(String argument, org.junit.jupiter.api.function.Executable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        assertTrue(e.getMessage().startsWith(argument), () -> "message should name '" + argument + "': " + e.getMessage());
    }

    // ---- helpers ----

    /** Slice offsets to try: every 0..3 for sizes up to 2^20 + 1, then aligned and 3 elements in. */
    private static int[] offsets(long n) {
        return n > (1 << 21) ? new int[] {0, MAX_OFFSET} : new int[] {0, 1, 2, 3};
    }

    /** A device copy of a host segment; {@link #at} addresses element i of it. */
    private static final class Device implements AutoCloseable {
        final MemorySegment host;
        final long ptr;

        Device(MemorySegment host) {
            this.host = host;
            this.ptr = ctx.allocate(host.byteSize());
            ctx.copyToDevice(ptr, host, host.byteSize());
        }

        long at(DType type, long index) { return ptr + index * type.byteSize(); }

        @Override public void close() { ctx.free(ptr); }
    }

    private static void put(MemorySegment s, DType type, long i, long v) {
        switch (type) {
            case BYTE -> s.setAtIndex(JAVA_BYTE, i, (byte) v);
            case INT -> s.setAtIndex(JAVA_INT, i, (int) v);
            case LONG -> s.setAtIndex(JAVA_LONG, i, v);
            default -> throw new IllegalArgumentException(type.toString());
        }
    }

    private static long getLong(MemorySegment s, DType type, long i) {
        return switch (type) {
            case BYTE -> s.getAtIndex(JAVA_BYTE, i);
            case INT -> s.getAtIndex(JAVA_INT, i);
            case LONG -> s.getAtIndex(JAVA_LONG, i);
            default -> throw new IllegalArgumentException(type.toString());
        };
    }

    private static void putDouble(MemorySegment s, DType type, long i, double v) {
        if (type == DType.FLOAT) s.setAtIndex(JAVA_FLOAT, i, (float) v);
        else s.setAtIndex(JAVA_DOUBLE, i, v);
    }

    private static double getDouble(MemorySegment s, DType type, long i) {
        return type == DType.FLOAT ? s.getAtIndex(JAVA_FLOAT, i) : s.getAtIndex(JAVA_DOUBLE, i);
    }
}
