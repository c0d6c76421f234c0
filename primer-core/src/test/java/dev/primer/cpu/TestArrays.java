package dev.primer.cpu;

import dev.primer.DType;
import dev.primer.Op;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigDecimal;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ForkJoinPool;

/** Native arrays of random elements for the CPU tests, element access by index, and thread pools. */
final class TestArrays {
    private TestArrays() {}

    /** Sizes around the vector widths, the chunk (2^16) and a multi-chunk size. */
    static final long[] SIZES = {0, 1, 7, 31, 33, 65535, 65536, 65537, (1 << 20) + 3};

    static MemorySegment allocate(DType type, long n) {
        return allocate(Arena.ofAuto(), type, n);
    }

    /** From {@code arena}: large tests free their arrays as they go rather than when the GC runs. */
    static MemorySegment allocate(Arena arena, DType type, long n) {
        // 8 bytes more than needed: a segment's own size never hides a read past n.
        return arena.allocate(n * type.byteSize() + 8, 64).asSlice(0, n * type.byteSize());
    }

    /** The poison byte of {@link #output}: not zero, and no float or double of it is NaN. */
    static final byte POISON = (byte) 0xA5;

    /**
     * An output array poisoned with {@link #POISON} in every byte: an element the code under test
     * forgets to write keeps a value that no check expects (zeros would pass wherever 0 is the
     * answer: empty rows, AND, sums of nothing).
     */
    static MemorySegment output(DType type, long n) {
        MemorySegment s = allocate(type, n);
        s.fill(POISON);
        return s;
    }

    /**
     * n random elements suited to {@code op}: sparse bits for AND and OR ({@link #sparseBit}); the full range for MIN/MAX;
     * values near 1 for PROD, so that products stay finite; mixed magnitudes and signs for SUM.
     */
    static MemorySegment random(DType type, Op op, long n, long seed) {
        return random(Arena.ofAuto(), type, op, n, seed);
    }

    static MemorySegment random(Arena arena, DType type, Op op, long n, long seed) {
        MemorySegment s = allocate(arena, type, n);
        Random r = new Random(seed);
        for (long i = 0; i < n; i++) {
            if (op == Op.AND || op == Op.OR) {
                long bit = sparseBit(r, type);
                setBits(type, s, i, op == Op.AND ? ~bit : bit);
                continue;
            }
            switch (type) {
                case BYTE -> s.set(ValueLayout.JAVA_BYTE, i, (byte) r.nextInt());
                case INT -> s.setAtIndex(ValueLayout.JAVA_INT, i, op == Op.PROD ? (r.nextInt(7) - 3) | 1 : r.nextInt());
                case LONG -> s.setAtIndex(ValueLayout.JAVA_LONG, i, op == Op.SUM ? r.nextLong() >> 24 : op == Op.PROD ? r.nextInt(7) - 3 | 1 : r.nextLong());
                case FLOAT -> s.setAtIndex(ValueLayout.JAVA_FLOAT, i, (float) floating(op, r));
                case DOUBLE -> s.setAtIndex(ValueLayout.JAVA_DOUBLE, i, floating(op, r));
            }
        }
        return s;
    }

    /**
     * Bit k with probability 2^-(k+1), or none, never the sign bit: an AND (OR) of n such operands
     * (complemented for AND) leaves the bits above about log2(n) undecided, so results stay far from
     * 0 and -1 and a dropped element shows. Full-range data reaches 0 (-1) within a few elements.
     */
    private static long sparseBit(Random r, DType type) {
        int k = Long.numberOfTrailingZeros(r.nextLong());
        return k < 8 * type.byteSize() - 1 ? 1L << k : 0;
    }

    private static double floating(Op op, Random r) {
        return switch (op) {
            case PROD -> 1 + (r.nextDouble() - 0.5) / 64;
            case SUM -> (r.nextDouble() * 2 - 1) * Math.scalb(1.0, r.nextInt(-12, 12));
            default -> r.nextGaussian() * 1e3;
        };
    }

    /** Element i as a long (integers sign-extended). */
    static long integral(DType type, MemorySegment s, long i) {
        return switch (type) {
            case BYTE -> s.get(ValueLayout.JAVA_BYTE, i);
            case INT -> s.getAtIndex(ValueLayout.JAVA_INT, i);
            case LONG -> s.getAtIndex(ValueLayout.JAVA_LONG, i);
            default -> throw new IllegalArgumentException(type.toString());
        };
    }

    /** Element i as a double (floats widened exactly). */
    static double floating(DType type, MemorySegment s, long i) {
        return type == DType.FLOAT ? s.getAtIndex(ValueLayout.JAVA_FLOAT, i) : s.getAtIndex(ValueLayout.JAVA_DOUBLE, i);
    }

    /** Raw bits of element i (a float's in the low 32, integers sign-extended). */
    static long bits(DType type, MemorySegment s, long i) {
        return switch (type) {
            case FLOAT -> s.getAtIndex(ValueLayout.JAVA_INT, i) & 0xFFFF_FFFFL;
            case DOUBLE -> s.getAtIndex(ValueLayout.JAVA_LONG, i);
            default -> integral(type, s, i);
        };
    }

    static void setBits(DType type, MemorySegment s, long i, long bits) {
        switch (type) {
            case BYTE -> s.set(ValueLayout.JAVA_BYTE, i, (byte) bits);
            case INT, FLOAT -> s.setAtIndex(ValueLayout.JAVA_INT, i, (int) bits);
            case LONG, DOUBLE -> s.setAtIndex(ValueLayout.JAVA_LONG, i, bits);
        }
    }

    static MemorySegment copy(MemorySegment s) {
        return copy(Arena.ofAuto(), s);
    }

    static MemorySegment copy(Arena arena, MemorySegment s) {
        MemorySegment c = arena.allocate(s.byteSize() + 8, 64).asSlice(0, s.byteSize());
        c.copyFrom(s);
        return c;
    }

    static MemorySegment longs(long... values) {
        MemorySegment s = allocate(DType.LONG, values.length);
        for (int i = 0; i < values.length; i++) s.setAtIndex(ValueLayout.JAVA_LONG, i, values[i]);
        return s;
    }

    static MemorySegment floats(float... values) {
        MemorySegment s = allocate(DType.FLOAT, values.length);
        for (int i = 0; i < values.length; i++) s.setAtIndex(ValueLayout.JAVA_FLOAT, i, values[i]);
        return s;
    }

    static MemorySegment doubles(double... values) {
        MemorySegment s = allocate(DType.DOUBLE, values.length);
        for (int i = 0; i < values.length; i++) s.setAtIndex(ValueLayout.JAVA_DOUBLE, i, values[i]);
        return s;
    }

    /** The exact sum of {@code [from, to)} as a BigDecimal (floating types). */
    static BigDecimal exactSum(DType type, MemorySegment s, long from, long to) {
        BigDecimal sum = BigDecimal.ZERO;
        for (long i = from; i < to; i++) sum = sum.add(new BigDecimal(floating(type, s, i)));
        return sum;
    }

    /** gamma(d) = d u / (1 - d u): the classic bound factor for d roundings of unit roundoff u. */
    static double gamma(long d, double u) {
        return d * u / (1 - d * u);
    }

    /** Runs {@code work} inside a fork/join pool of the given parallelism and returns its result. */
    static <T> T inPool(int parallelism, Callable<T> work) {
        ForkJoinPool pool = new ForkJoinPool(parallelism);
        try {
            return pool.submit(work).get();
        } catch (Exception e) {
            throw new AssertionError(e);
        } finally {
            pool.shutdownNow();
        }
    }
}
