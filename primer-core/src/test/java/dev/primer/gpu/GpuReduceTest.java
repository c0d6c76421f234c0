package dev.primer.gpu;

import dev.primer.JavaOps;
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
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.function.LongConsumer;
import java.util.function.LongUnaryOperator;
import java.util.regex.Pattern;
import java.util.stream.LongStream;

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
            boolean decidedByOne = op == Op.MIN || op == Op.MAX || op == Op.AND || op == Op.OR;
            try (Arena arena = Arena.ofConfined(); Device data = new Device(integerData(arena, type, op, random))) {
                for (long n : SIZES) {
                    for (int offset : offsets(n)) {
                        // MIN, MAX, AND, OR: one element late in the slice decides the result (see integerData)
                        long[] at = decidedByOne && n > 0 ? new long[] {latePosition(random, type, offset, n)} : new long[0];
                        LongConsumer plant = i -> put(data.host, type, i, decider(type, op, getLong(data.host, type, i), random));
                        try (Planted planted = data.plant(type, plant, at)) {
                            long expected = integerReference(type, op, data.host, offset, n);
                            long actual = GpuReduce.reduceIntegral(ctx, type, op, data.at(type, offset), n);
                            assertEquals(expected, actual,
                                    () -> op + " " + type + " n=" + n + " offset=" + offset + " planted " + Arrays.toString(at));
                        }
                    }
                }
            }
        }
    }

    /**
     * Data that keeps each operator's result informative (PROD never collapses to 0), and leaves room
     * for the one element a test plants ({@link #decider}): MIN/MAX values within [-bound, bound)
     * ({@link #extremeBound}), AND/OR one sparse bit below the sign bit per element ({@link #sparseBit}).
     */
    private static MemorySegment integerData(Arena arena, DType type, Op op, SplittableRandom random) {
        long count = MAX_SIZE + MAX_OFFSET;
        MemorySegment s = arena.allocate(count * type.byteSize(), 16);
        long[] oddFactors = {1, 1, 1, 1, 1, -1, 3, 5, -7};
        for (long i = 0; i < count; i++) {
            long v = switch (op) {
                case SUM -> type == DType.LONG ? random.nextLong(-(1L << 40), 1L << 40) : random.nextLong();
                case PROD -> oddFactors[random.nextInt(oddFactors.length)];  // odd: never 0 mod 2^64
                case MIN, MAX -> random.nextLong(-extremeBound(type), extremeBound(type));
                case AND -> ~sparseBit(random, type);
                case OR -> sparseBit(random, type);
                case XOR -> random.nextLong();
            };
            put(s, type, i, v);
        }
        return s;
    }

    /** integerData's MIN/MAX values lie in [-bound, bound): for int8 that leaves -128 and 127 free. */
    private static long extremeBound(DType type) {
        return type == DType.BYTE ? 127 : 1000;
    }

    /**
     * Bit k with probability 2^-(k+1), or none, never the sign bit: at every size a few bits are
     * cleared (AND) or set (OR) by a handful of elements anywhere in the slice, and the sign bit
     * only by the element a test plants.
     */
    private static long sparseBit(SplittableRandom random, DType type) {
        int k = Long.numberOfTrailingZeros(random.nextLong());
        return k < 8 * type.byteSize() - 1 ? 1L << k : 0;
    }

    /**
     * The element that alone decides op over integerData, replacing {@code old}: a MIN (MAX) beyond
     * every other value, or old with the sign bit cleared (AND) or set (OR), which no other element has.
     */
    private static long decider(DType type, Op op, long old, SplittableRandom random) {
        long sign = 1L << (8 * type.byteSize() - 1);
        return switch (op) {
            case MIN, MAX -> integerBeyond(type, op == Op.MAX, extremeBound(type), random);
            case AND -> old & ~sign;
            case OR -> old | sign;
            default -> throw new AssertionError(op);
        };
    }

    /** A value of type above (max) or below every value in [-bound, bound). */
    private static long integerBeyond(DType type, boolean max, long bound, SplittableRandom random) {
        return max ? highest(type) - random.nextLong(highest(type) - bound + 1) : lowest(type) + random.nextLong(-bound - lowest(type));
    }

    /** A float-exact value above (max) or below every value in [-bound, bound]. */
    private static double floatingBeyond(boolean max, double bound, SplittableRandom random) {
        return (max ? 1 : -1) * (Math.floor(bound) + 1 + random.nextInt(1 << 20));
    }

    private static long lowest(DType type) {
        return type == DType.BYTE ? Byte.MIN_VALUE : type == DType.INT ? Integer.MIN_VALUE : Long.MIN_VALUE;
    }

    private static long highest(DType type) {
        return type == DType.BYTE ? Byte.MAX_VALUE : type == DType.INT ? Integer.MAX_VALUE : Long.MAX_VALUE;
    }

    /**
     * An index late in [offset, offset + n), n > 0: the last element, one in the last tile (one
     * block's step), or one in the last 1/32 of the slice (the last blocks' shares).
     */
    private static long latePosition(SplittableRandom random, DType type, long offset, long n) {
        long span = switch (random.nextInt(3)) {
            case 0 -> 1;
            case 1 -> Math.min(n, ReducePolicy.tileElements(type));
            default -> Math.max(1, n / 32);
        };
        return offset + n - 1 - random.nextLong(span);
    }

    private static long integerReference(DType type, Op op, MemorySegment s, long offset, long n) {
        long acc = switch (op) {
            case SUM, OR, XOR -> 0;
            case PROD -> 1;
            case AND -> -1;
            case MIN -> highest(type);
            case MAX -> lowest(type);
        };
        for (long i = offset; i < offset + n; i++) acc = JavaOps.apply(op, acc, getLong(s, type, i));
        return acc;
    }

    // ---- floating-point operators ----

    @ParameterizedTest
    @EnumSource(value = DType.class, names = {"FLOAT", "DOUBLE"})
    void floatingOperatorsMatchJava(DType type) {
        SplittableRandom random = new SplittableRandom(type.ordinal() * 17L + 3);
        for (Op op : new Op[] {Op.SUM, Op.PROD, Op.MIN, Op.MAX}) {
            boolean minMax = op == Op.MIN || op == Op.MAX;
            try (Arena arena = Arena.ofConfined(); Device data = new Device(floatingData(arena, type, op, random))) {
                for (long n : SIZES) {
                    for (int offset : offsets(n)) {
                        // MIN, MAX: an extreme beyond floatingData's range, late in the slice, decides the result
                        long[] at = minMax && n > 0 ? new long[] {latePosition(random, type, offset, n)} : new long[0];
                        LongConsumer plant = i -> putDouble(data.host, type, i, floatingBeyond(op == Op.MAX, MIN_MAX_RANGE, random));
                        try (Planted planted = data.plant(type, plant, at)) {
                            double actual = GpuReduce.reduceFloating(ctx, type, op, data.at(type, offset), n);
                            String what = op + " " + type + " n=" + n + " offset=" + offset + " planted " + Arrays.toString(at);
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
    }

    /** floatingData's MIN/MAX values lie in [-MIN_MAX_RANGE, MIN_MAX_RANGE], in steps of 1/8. */
    private static final double MIN_MAX_RANGE = 1250;

    private static MemorySegment floatingData(Arena arena, DType type, Op op, SplittableRandom random) {
        long count = MAX_SIZE + MAX_OFFSET;
        MemorySegment s = arena.allocate(count * type.byteSize(), 16);
        for (long i = 0; i < count; i++) {
            double v = switch (op) {
                // mixed signs and magnitudes, so the sum cancels and the order matters
                case SUM -> (random.nextDouble() * 2 - 1) * Math.scalb(1.0, random.nextInt(-20, 21));
                case PROD -> 1 + (random.nextDouble() - 0.5) * 1e-3;
                default -> Math.rint((random.nextDouble() * 2 - 1) * (MIN_MAX_RANGE * 8)) / 8;  // ties
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
                if (type.isFloatingPoint()) putDouble(s, type, i, random.nextInt(-4 * ARG_RANGE, 4 * ARG_RANGE) / 4.0);
                else put(s, type, i, random.nextLong(-ARG_RANGE, ARG_RANGE));
            }
            try (Device data = new Device(s)) {
                for (long n : SIZES) {
                    for (int offset : offsets(n)) {
                        for (boolean max : new boolean[] {false, true}) {
                            String what = (max ? "argmax " : "argmin ") + type + " n=" + n + " offset=" + offset;
                            assertArgExtreme(type, max, data, offset, n, what);
                            if (n == 0) continue;
                            // Then a unique extreme late in the slice, sometimes once more after it: the first must win.
                            long first = latePosition(random, type, offset, n), last = offset + n - 1;
                            long[] at = first < last && random.nextBoolean() ? new long[] {first, first + 1 + random.nextLong(last - first)}
                                    : new long[] {first};
                            double floating = floatingBeyond(max, ARG_RANGE, random);
                            long integral = integerBeyond(type, max, ARG_RANGE, random);
                            LongConsumer plant = type.isFloatingPoint() ? i -> putDouble(s, type, i, floating) : i -> put(s, type, i, integral);
                            try (Planted planted = data.plant(type, plant, at)) {
                                assertArgExtreme(type, max, data, offset, n, what + " planted " + Arrays.toString(at));
                            }
                        }
                    }
                }
            }
        }
    }

    /**
     * Every element equal to the value no other can lose to (the lowest for argmax, the highest for argmin,
     * -inf / +inf for floats): the answer is index 0. A kernel whose empty slots or padding carry that value
     * with some other index, or that lets a later tie win, answers something else.
     */
    @ParameterizedTest
    @EnumSource(DType.class)
    void argExtremesOfAConstantAtTheTypesEndsAreTheFirstIndex(DType type) {
        long count = (1 << 20) + 1 + MAX_OFFSET;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(count * type.byteSize(), 16);
            for (boolean max : new boolean[] {false, true}) {
                for (long i = 0; i < count; i++) {
                    if (type == DType.FLOAT || type == DType.DOUBLE) {
                        putDouble(s, type, i, max ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY);
                    } else {
                        long lowest = switch (type) {
                            case BYTE -> Byte.MIN_VALUE;
                            case INT -> Integer.MIN_VALUE;
                            default -> Long.MIN_VALUE;
                        };
                        put(s, type, i, max ? lowest : -(lowest + 1));
                    }
                }
                try (Device data = new Device(s)) {
                    for (long n : new long[] {1, 31, 33, 1025, (1 << 20) + 1}) {
                        for (int offset = 0; offset <= MAX_OFFSET; offset++) {
                            String what = (max ? "argmax " : "argmin ") + type + " of a constant, n=" + n + " offset=" + offset;
                            assertEquals(0, GpuReduce.argExtreme(ctx, type, max, data.at(type, offset), n), what);
                        }
                    }
                }
            }
        }
    }

    private static void assertArgExtreme(DType type, boolean max, Device data, long offset, long n, String what) {
        assertEquals(argReference(type, max, data.host, offset, n), GpuReduce.argExtreme(ctx, type, max, data.at(type, offset), n), what);
    }

    /** argExtremesMatchJava's values lie in [-ARG_RANGE, ARG_RANGE): integers, or floats in steps of 1/4. */
    private static final int ARG_RANGE = 100;

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

    /** Whatever NaN the data holds (sign, payload), a NaN result is Double.NaN, as on the CPU (docs/semantics.md). */
    @Test
    void aNaNResultIsTheCanonicalNaN() {
        int n = 100_003;
        SplittableRandom random = new SplittableRandom(5);
        for (DType type : new DType[] {DType.FLOAT, DType.DOUBLE}) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment s = arena.allocate(n * type.byteSize(), 16);
                for (long i = 0; i < n; i++) {
                    double v = random.nextDouble(-1, 1);
                    if (type == DType.FLOAT) s.setAtIndex(JAVA_FLOAT, i, (float) v);
                    else s.setAtIndex(JAVA_DOUBLE, i, v);
                }
                long at = 70_001;  // a negative signalling NaN with a payload
                if (type == DType.FLOAT) s.setAtIndex(JAVA_INT, at, 0xff800123);
                else s.setAtIndex(JAVA_LONG, at, 0xfff0000000000123L);
                try (Device data = new Device(s)) {
                    for (Op op : new Op[] {Op.SUM, Op.PROD, Op.MIN, Op.MAX}) {
                        double r = GpuReduce.reduceFloating(ctx, type, op, data.at(type, 0), n);
                        assertEquals(Double.doubleToRawLongBits(Double.NaN), Double.doubleToRawLongBits(r), type + " " + op);
                    }
                }
            }
        }
    }

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
        BigInputs.assumeFreeMemory(ctx, bytes);
        long ptr = ctx.allocate(bytes);
        try {
            // Values in [-1000, 1000], then a unique maximum past 2^31, tied once later (the first wins), and a unique minimum last.
            long maxAt = (1L << 31) + 1;
            long sum = fillPeriodicAndPlant(ptr, DType.INT, n, BigInputs::value, new long[] {maxAt, n - 2, n - 1},
                    new long[] {1001, 1001, -1001});
            assertEquals(sum, GpuReduce.reduceIntegral(ctx, DType.INT, Op.SUM, ptr, n));
            assertEquals(maxAt, GpuReduce.argExtreme(ctx, DType.INT, true, ptr, n));
            assertEquals(n - 1, GpuReduce.argExtreme(ctx, DType.INT, false, ptr, n));
            assertEquals(-1001, GpuReduce.reduceIntegral(ctx, DType.INT, Op.MIN, ptr, n));
            assertEquals(1001, GpuReduce.reduceIntegral(ctx, DType.INT, Op.MAX, ptr, n));

            // The same memory as more than 2^31 bytes, starting one byte in (slice element k is byte k + 1): values in
            // [-126, 126], a unique maximum 127 past 2^31 and a unique minimum -128 last.
            long bytesN = (1L << 31) + 7, byteMaxAt = (1L << 31) + 2;
            LongUnaryOperator smallByte = i -> BigInputs.value(i) % 127;
            long total = fillPeriodicAndPlant(ptr, DType.BYTE, bytesN + 1, smallByte, new long[] {byteMaxAt + 1, bytesN},
                    new long[] {127, -128});
            assertEquals(total - smallByte.applyAsLong(0), GpuReduce.reduceIntegral(ctx, DType.BYTE, Op.SUM, ptr + 1, bytesN));
            assertEquals(bytesN - 1, GpuReduce.argExtreme(ctx, DType.BYTE, false, ptr + 1, bytesN));
            assertEquals(byteMaxAt, GpuReduce.argExtreme(ctx, DType.BYTE, true, ptr + 1, bytesN));
        } finally {
            ctx.free(ptr);
        }
    }

    /**
     * float32 and float64 over more than 2^31 elements (8 and 16 GiB): integer values in [-1000,
     * 1000], so the double accumulator holds every partial sum exactly and SUM must be the exact sum;
     * a unique maximum past 2^31, tied once later (the first wins), and a unique minimum last.
     */
    @Test
    @Tag(BigInputs.TAG)
    void reducesMoreThan2To31FloatingElements() {
        long n = (1L << 31) + 5;
        for (DType type : new DType[] {DType.FLOAT, DType.DOUBLE}) {
            long bytes = n * type.byteSize();
            BigInputs.assumeFreeMemory(ctx, bytes);
            long ptr = ctx.allocate(bytes);
            try {
                long maxAt = (1L << 31) + 1;
                long sum = fillPeriodicAndPlant(ptr, type, n, BigInputs::value, new long[] {maxAt, n - 2, n - 1},
                        new long[] {1001, 1001, -1001});
                assertEquals((double) sum, GpuReduce.reduceFloating(ctx, type, Op.SUM, ptr, n), type + " SUM");
                assertEquals(1001.0, GpuReduce.reduceFloating(ctx, type, Op.MAX, ptr, n), type + " MAX");
                assertEquals(-1001.0, GpuReduce.reduceFloating(ctx, type, Op.MIN, ptr, n), type + " MIN");
                assertEquals(maxAt, GpuReduce.argExtreme(ctx, type, true, ptr, n), type + " ARGMAX");
                assertEquals(n - 1, GpuReduce.argExtreme(ctx, type, false, ptr, n), type + " ARGMIN");
            } finally {
                ctx.free(ptr);
            }
        }
    }

    /** int64 over more than 2^31 elements (16 GiB): the exact SUM of varied 40-bit values, MIN, MAX and their first indices past 2^31. */
    @Test
    @Tag(BigInputs.TAG)
    void reducesMoreThan2To31LongElements() {
        long n = (1L << 31) + 5;
        long bytes = n * 8;
        BigInputs.assumeFreeMemory(ctx, bytes);
        long ptr = ctx.allocate(bytes);
        try {
            long big = 1L << 40, maxAt = (1L << 31) + 1;  // every element below is within 2^39 of 0
            long sum = fillPeriodicAndPlant(ptr, DType.LONG, n, i -> BigInputs.mix(i) >> 24, new long[] {maxAt, n - 2, n - 1},
                    new long[] {big, -big, big});
            assertEquals(sum, GpuReduce.reduceIntegral(ctx, DType.LONG, Op.SUM, ptr, n));
            assertEquals(big, GpuReduce.reduceIntegral(ctx, DType.LONG, Op.MAX, ptr, n));
            assertEquals(-big, GpuReduce.reduceIntegral(ctx, DType.LONG, Op.MIN, ptr, n));
            assertEquals(maxAt, GpuReduce.argExtreme(ctx, DType.LONG, true, ptr, n));
            assertEquals(n - 2, GpuReduce.argExtreme(ctx, DType.LONG, false, ptr, n));
        } finally {
            ctx.free(ptr);
        }
    }

    /**
     * Elements in one period of the large inputs: odd, so an index off by any power of two (a wrapped
     * 32-bit index or byte offset) reads another slot, while the host never makes more than one period.
     */
    private static final long PERIOD = (1L << 24) + 7;

    /**
     * Fills n elements of type at ptr with element(i % PERIOD) (one period through BigInputs, the rest
     * by doubling device-to-device copies), then writes value[k] at index[k]; returns the exact sum of
     * the n elements, as the host works it out from one period.
     */
    private static long fillPeriodicAndPlant(long ptr, DType type, long n, LongUnaryOperator element, long[] index, long[] value) {
        assertEquals(index.length, Arrays.stream(index).distinct().count(), "planted indices must differ");
        int size = type.byteSize();
        long first = Math.min(n, PERIOD);
        BigInputs.upload(ctx, ptr, first, size, (host, start, count) -> {
            for (long j = 0; j < count; j++) put(host, type, j, element.applyAsLong(start + j));
        });
        for (long filled = first; filled < n; filled *= 2) {  // [0, filled) holds the periodic data
            ctx.copyDeviceToDevice(ptr + filled * size, ptr, Math.min(filled, n - filled) * size);
        }
        long sum = 0;
        for (long j = 0; j < PERIOD; j++) sum += element.applyAsLong(j) * ((n - j + PERIOD - 1) / PERIOD);  // slot j's repeats below n
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment one = arena.allocate(size, 8);
            for (int k = 0; k < index.length; k++) {
                put(one, type, 0, value[k]);
                ctx.copyToDevice(ptr + index[k] * size, one, size);
                sum += value[k] - element.applyAsLong(index[k] % PERIOD);
            }
        }
        return sum;
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
        BigInputs.assumeFreeMemory(ctx, bytes);
        try (Primer primer = Primer.open(BackendKind.GPU); IntArray a = primer.allocateInts(n)) {
            // Fits: the first 2^31 elements within 2000 below MAX_VALUE, the rest in [-1000, 1000] (varied, so an index
            // that wraps reads another value), distinct values around the chunk boundary [2^32 - 5, 2^32 + 5) and last.
            long head = 1L << 31;
            LongUnaryOperator high = i -> Integer.MAX_VALUE - 1000 - BigInputs.value(i);
            int[] edge = {1, -2, 3, Integer.MIN_VALUE, Integer.MAX_VALUE, 6, -7, 8, Integer.MAX_VALUE, 10};
            long[] at = LongStream.concat(LongStream.range(chunk - 5, chunk + 5), LongStream.of(n - 1)).map(i -> i - head).toArray();
            long[] planted = LongStream.concat(Arrays.stream(edge).asLongStream(), LongStream.of(12345)).toArray();
            long exact = fillPeriodicAndPlant(a.devicePointer(), DType.INT, head, high, new long[0], new long[0])
                    + fillPeriodicAndPlant(a.devicePointer() + 4 * head, DType.INT, n - head, BigInputs::value, at, planted);
            assertEquals(exact, primer.sum(a));
            assertEquals(exact, primer.reduce(a, Op.SUM));
            try (IntArray tail = a.slice(1, n)) {  // 4 bytes in: every chunk starts one element later
                assertEquals(exact - high.applyAsLong(0), primer.sum(tail));
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

    /**
     * The message names the argument as GpuReduce's messages do, first and then ':' or ' must': "in"
     * is not "inLength" or "init".
     */
    private static void assertMessage(String argument, org.junit.jupiter.api.function.Executable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        String message = e.getMessage();
        assertTrue(message != null && message.matches("(?s)" + Pattern.quote(argument) + "(:| must).*"),
                () -> "message should name '" + argument + "': " + message);
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

        /**
         * Has {@code write} change the host copy at each of {@code indices} and copies those elements to
         * the device; closing the result puts the old elements back in both (no whole upload per change).
         */
        Planted plant(DType type, LongConsumer write, long... indices) {
            int size = type.byteSize();
            byte[] old = new byte[size * indices.length];
            for (int k = 0; k < indices.length; k++) MemorySegment.copy(host, JAVA_BYTE, indices[k] * size, old, k * size, size);
            for (long i : indices) {
                write.accept(i);
                upload(i, size);
            }
            return () -> {
                for (int k = 0; k < indices.length; k++) {
                    MemorySegment.copy(old, k * size, host, JAVA_BYTE, indices[k] * size, size);
                    upload(indices[k], size);
                }
            };
        }

        private void upload(long index, int size) {
            ctx.copyToDevice(ptr + index * size, host.asSlice(index * size, size), size);
        }

        @Override public void close() { ctx.free(ptr); }
    }

    /** Elements planted by {@link Device#plant}; close restores them. */
    private interface Planted extends AutoCloseable {
        @Override void close();
    }

    private static void put(MemorySegment s, DType type, long i, long v) {
        switch (type) {
            case BYTE -> s.setAtIndex(JAVA_BYTE, i, (byte) v);
            case INT -> s.setAtIndex(JAVA_INT, i, (int) v);
            case LONG -> s.setAtIndex(JAVA_LONG, i, v);
            case FLOAT -> s.setAtIndex(JAVA_FLOAT, i, v);  // the tests' integers: exact below 2^24
            case DOUBLE -> s.setAtIndex(JAVA_DOUBLE, i, v);
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
