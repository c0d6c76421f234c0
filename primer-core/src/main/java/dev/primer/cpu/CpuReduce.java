package dev.primer.cpu;

import dev.primer.DType;
import dev.primer.Op;
import dev.primer.Reductions;

import java.lang.foreign.MemorySegment;

/**
 * Whole-array reductions on the CPU: the reference the GPU backend must equal.
 *
 * <p><b>Order.</b> The input splits into chunks of {@value Parallel#CHUNK} elements; each chunk
 * reduces in a fixed order (see {@link FloatChunkReduce}) and chunk results combine over a fixed
 * balanced tree (see {@link Parallel#reduceChunks}). Chunks run in parallel on fork/join; the
 * order never depends on the number of threads, so float results are identical run to run and on
 * any thread count.
 *
 * <p><b>Accumulators.</b> int8/int32 SUM and PROD accumulate in int64 (PROD wraps as Java's long
 * multiplication). int32 SUM of more than 2^32 elements runs in ranges of at most 2^32 elements (whose
 * int64 sums are always exact), their sums added in 128 bits: exact, and ArithmeticException when the
 * total does not fit a long (int8 SUM would need more than 2^56 elements to leave int64). int64 SUM
 * is exact (128-bit) and throws ArithmeticException when the true sum does not fit a long; int64 PROD
 * wraps. float32 SUM and PROD accumulate in double (each float converts exactly); float64 in
 * double. MIN/MAX follow Math.min/Math.max: NaN wins, -0.0 &lt; 0.0. A floating result that is NaN is
 * returned as the canonical {@link Double#NaN}; a SUM that is zero is +0.0 (the lanes start at +0.0).
 *
 * <p><b>Error bound (SUM).</b> Every element reaches the result through at most
 * {@code d(n) = 4115 + ceil(log2(ceil(n / 65536)))} double roundings ({@link #sumRoundings}), so
 * {@code |result - exact| <= gamma(d) * sum(|x_i|)} with {@code gamma(d) = d u / (1 - d u)},
 * {@code u = 2^-53}: below {@code 5e-13 * sum(|x_i|)} up to 2^40 elements. For float32 that is far
 * below the final rounding to float the caller applies; two correct implementations (this one and the
 * GPU's) therefore differ by at most {@code (d_cpu + d_gpu) u sum(|x_i|)} before rounding to float.
 *
 * <p>Inputs are MemorySegments (native, or heap ones) holding at least {@code n} elements in native
 * byte order.
 */
public final class CpuReduce {
    private CpuReduce() {}

    /** int32 SUM of more elements than this runs in ranges of at most this many (each exact). */
    static final long INT_SUM_RANGE = Reductions.INT_SUM_EXACT_ELEMENTS;

    /**
     * SUM/PROD/MIN/MAX/AND/OR/XOR of {@code n} int8/int32/int64 elements, as a long (see the class
     * comment for accumulators). Empty input gives the identity: SUM 0, PROD 1, MIN the type's
     * MAX_VALUE, MAX its MIN_VALUE, AND -1 (all ones), OR/XOR 0.
     *
     * @throws ArithmeticException if an int64 or int32 SUM does not fit a long
     */
    public static long reduceIntegral(DType type, Op op, MemorySegment in, long n) {
        checkReduce(type, op, in, n);
        if (type.isFloatingPoint()) {
            throw new IllegalArgumentException("type: " + type + " is floating-point; use reduceFloating");
        }
        if (n == 0) return Reductions.identityBits(type, op);
        if (isExact(type, op)) return exactRange(in, 0, n).longValueExact("the sum");
        if (type == DType.INT && op == Op.SUM && n > INT_SUM_RANGE) return intSumInRanges(in, 0, n, INT_SUM_RANGE);
        return integralRange(integralKernel(type, op), op, in, 0, n);
    }

    /**
     * int32 SUM of elements [{@code from}, {@code to}) in consecutive ranges of at most {@code range}
     * elements (at most {@link #INT_SUM_RANGE}, so each range's sum is exact), combined by
     * {@link Reductions#combineIntSums}: ArithmeticException when the total does not fit a long.
     */
    static long intSumInRanges(MemorySegment in, long from, long to, long range) {
        if (range < 1 || range > INT_SUM_RANGE) throw new IllegalArgumentException("range must be in [1, 2^32]: " + range);
        IntegralChunkReducer kernel = integralKernel(DType.INT, Op.SUM);
        long n = to - from;
        long[] rangeSums = new long[Math.toIntExact((n + range - 1) / range)];
        for (int r = 0; r < rangeSums.length; r++) {
            long begin = from + r * range, end = Math.min(to, begin + range);
            rangeSums[r] = integralRange(kernel, Op.SUM, in, begin, end);
        }
        return Reductions.combineIntSums(rangeSums, n);
    }

    /**
     * SUM/PROD/MIN/MAX of {@code n} float32/float64 elements, in double. Empty input gives SUM 0.0,
     * PROD 1.0, MIN +Infinity, MAX -Infinity.
     */
    public static double reduceFloating(DType type, Op op, MemorySegment in, long n) {
        checkReduce(type, op, in, n);
        if (!type.isFloatingPoint()) {
            throw new IllegalArgumentException("type: " + type + " is an integer type; use reduceIntegral");
        }
        if (n == 0) {
            return switch (op) {
                case SUM -> 0.0;
                case PROD -> 1.0;
                case MIN -> Double.POSITIVE_INFINITY;
                default -> Double.NEGATIVE_INFINITY;
            };
        }
        return floatingRange(floatingKernel(type, op), op, in, 0, n);
    }

    /**
     * Index of the first maximum ({@code max}) or minimum of {@code n} elements; -1 when empty. NaN
     * counts as the extreme either way (so the first NaN wins), and -0.0 &lt; 0.0.
     */
    public static long argExtreme(DType type, boolean max, MemorySegment in, long n) {
        Checks.nonNull(type, "type");
        Checks.nonNegative(n, "n");
        Checks.holds(in, n, type, "in");
        if (n == 0) return -1;
        return argRange(type, max, in, 0, n);
    }

    /**
     * The number of roundings on the longest path from an element to a SUM/PROD result of {@code n}
     * floating-point elements (see the class comment's error bound).
     */
    public static int sumRoundings(long n) {
        long chunks = Math.max(1, Parallel.chunks(n));
        return FloatChunkReduce.ROUNDINGS + (64 - Long.numberOfLeadingZeros(chunks - 1));
    }

    private static void checkReduce(DType type, Op op, MemorySegment in, long n) {
        Checks.nonNull(type, "type");
        Checks.nonNull(op, "op");
        Checks.nonNegative(n, "n");
        Checks.holds(in, n, type, "in");
        op.requireSupports(type, "op");
    }

    // ---- shared with CpuSegmentedReduce: [from, to) non-empty, chunks aligned at from ----

    /** The chunk kernel of an integer reduction (not int64 SUM: see {@link #exactRange}). */
    static IntegralChunkReducer integralKernel(DType type, Op op) {
        Class<? extends IntegralChunkReducer> template = switch (type) {
            case BYTE -> ByteChunkReduce.class;
            case INT -> IntChunkReduce.class;
            case LONG -> LongChunkReduce.class;
            default -> throw new IllegalArgumentException("type: " + type + " is not an integer type");
        };
        return Specialized.instance(template, IntegralChunkReducer.class, op, true);
    }

    /** The chunk kernel of a floating-point reduction. */
    static FloatingChunkReducer floatingKernel(DType type, Op op) {
        Class<? extends FloatingChunkReducer> template = type == DType.FLOAT ? FloatChunkReduce.class : DoubleChunkReduce.class;
        return Specialized.instance(template, FloatingChunkReducer.class, op, true);
    }

    /** Integer reduction of {@code [from, to)} with the kernel of {@code op}. */
    static long integralRange(IntegralChunkReducer kernel, Op op, MemorySegment in, long from, long to) {
        if (to - from <= Parallel.CHUNK) return kernel.reduce(in, from, to); // short segments: no boxing
        return Parallel.reduceChunks(from, to, (a, b) -> kernel.reduce(in, a, b),
                (x, y) -> LaneOps.apply(op, (long) x, (long) y));
    }

    /** Whether the reduction is an int64 SUM, which is exact. */
    static boolean isExact(DType type, Op op) {
        return type == DType.LONG && op == Op.SUM;
    }

    /** The exact 128-bit sum of the int64 elements {@code [from, to)}. */
    static ExactLongSum exactRange(MemorySegment in, long from, long to) {
        if (to - from <= Parallel.CHUNK) return ExactLongSum.ofChunk(in, from, to);
        return Parallel.reduceChunks(from, to, (a, b) -> ExactLongSum.ofChunk(in, a, b), ExactLongSum::plus);
    }

    /** Floating-point reduction of {@code [from, to)} in double, NaN canonical. */
    static double floatingRange(FloatingChunkReducer kernel, Op op, MemorySegment in, long from, long to) {
        double r = to - from <= Parallel.CHUNK ? kernel.reduce(in, from, to)
                : Parallel.reduceChunksToDouble(from, to, (a, b) -> kernel.reduce(in, a, b),
                        (x, y) -> LaneOps.apply(op, x, y));
        return Double.isNaN(r) ? Double.NaN : r;
    }

    /** Absolute index of the first extreme of {@code [from, to)}. */
    static long argRange(DType type, boolean max, MemorySegment in, long from, long to) {
        return Parallel.reduceChunks(from, to,
                (a, b) -> ArgKernels.chunk(type, max, in, a, b),
                (x, y) -> ArgKernels.Best.combine(x, y, max)).index();
    }
}
