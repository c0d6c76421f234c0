package dev.primer.cpu;

import dev.primer.CustomOp;
import dev.primer.DType;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.function.DoubleBinaryOperator;
import java.util.function.IntBinaryOperator;
import java.util.function.LongBinaryOperator;

/**
 * Scan with a user-defined operator on the CPU, the operator being the {@link CustomOp}'s Java lambda.
 *
 * <p>Inclusive: {@code out[i] = init op x_0 op ... op x_i}; exclusive: {@code out[0] = init},
 * {@code out[i] = init op x_0 op ... op x_(i-1)}. Operand order is kept (the lower indices are always
 * the left operand), so the operator need not be commutative; it must be associative.
 *
 * <p>Order of evaluation, the same combinations as {@link CpuScan}'s but with the lambda: chunks of
 * {@value Parallel#CHUNK} elements, a window of them at a time, in parallel on fork/join. (1) Each chunk's total
 * {@code T_c = x_a op ... op x_b}, a left fold; (2) the carries chained in order, {@code C_0 = init},
 * {@code C_(c+1) = C_c op T_c}; (3) each chunk scanned left to right from its carry:
 * {@code out[a] = C_c op x_a}, {@code out[a+1] = out[a] op x_(a+1)}, .... The chunks depend on the
 * length alone, so the result is the same on any thread count and every run. For an exactly
 * associative operator this is the sequential left fold; a float operator that is only nearly
 * associative (a sum) differs from it by rounding where the carries are chained.
 */
public final class CpuCustomScan {
    private CpuCustomScan() {}

    /** Scans {@code n} elements of {@code op.type()}; {@code initBits}: the init's raw bits. {@code out} may be {@code in}. */
    public static void scan(CustomOp op, boolean inclusive, long initBits, MemorySegment in, MemorySegment out, long n) {
        Checks.nonNull(op, "op");
        DType type = op.type();
        Checks.nonNegative(n, "n");
        Checks.holds(in, n, type, "in");
        Checks.holds(out, n, type, "out");
        Checks.inPlaceOrApart(in, n * type.byteSize(), out, n * type.byteSize(), true);
        Lane lane = lane(op);
        long chunks = Parallel.chunks(n);
        if (chunks == 0) return;
        long init = lane.carry(initBits);
        if (chunks == 1) {
            lane.scan(in, out, 0, n, init, inclusive);
            return;
        }
        int window = (int) Math.min(chunks, windowChunks());
        long[] carry = new long[window + 1];
        carry[0] = init;
        for (long w = 0; w < chunks; w += window) {
            long first = w, count = Math.min(window, chunks - w);
            long totals = Math.min(count, chunks - 1 - first); // the last chunk carries into nothing
            Parallel.forRange(totals, 1, (lo, hi) -> {
                for (long c = lo; c < hi; c++) {
                    long start = (first + c) * Parallel.CHUNK;
                    carry[(int) c + 1] = lane.total(in, start, start + Parallel.CHUNK);
                }
            });
            for (int c = 1; c <= totals; c++) carry[c] = lane.combine(carry[c - 1], carry[c]);
            Parallel.forRange(count, 1, (lo, hi) -> {
                for (long c = lo; c < hi; c++) {
                    long start = (first + c) * Parallel.CHUNK;
                    lane.scan(in, out, start, Math.min(n, start + Parallel.CHUNK), carry[(int) c], inclusive);
                }
            });
            carry[0] = carry[(int) count]; // into the next window
        }
    }

    /**
     * Chunks per window: about a last-level cache of input (the rescan reads it back from there),
     * more with more threads so that each takes several.
     */
    private static long windowChunks() {
        return Math.max(64, 4L * Parallel.threads());
    }

    /**
     * The operator on one element type; values travel as raw bits in a long (4-byte types in the low
     * 32 bits).
     */
    private interface Lane {
        /** initBits as this lane carries them. */
        long carry(long initBits);

        /** x_from op ... op x_(to-1), to > from. */
        long total(MemorySegment in, long from, long to);

        long combine(long a, long b);

        /** Scans [from, to) starting from {@code carry}. Reads x_i before writing out[i] (in place). */
        void scan(MemorySegment in, MemorySegment out, long from, long to, long carry, boolean inclusive);
    }

    private static Lane lane(CustomOp op) {
        return switch (op.javaOperator()) {
            case IntBinaryOperator f -> new IntLane(f);
            case LongBinaryOperator f -> new LongLane(f);
            case CustomOp.FloatBinaryOperator f -> new FloatLane(f);
            case DoubleBinaryOperator f -> new DoubleLane(f);
            default -> throw new IllegalArgumentException("op: unsupported operator " + op.javaOperator().getClass());
        };
    }

    private record IntLane(IntBinaryOperator f) implements Lane {
        private static final ValueLayout.OfInt T = ValueLayout.JAVA_INT;

        @Override public long carry(long initBits) { return initBits & 0xFFFF_FFFFL; }

        @Override public long total(MemorySegment in, long from, long to) {
            int acc = in.getAtIndex(T, from);
            for (long i = from + 1; i < to; i++) acc = f.applyAsInt(acc, in.getAtIndex(T, i));
            return acc & 0xFFFF_FFFFL;
        }

        @Override public long combine(long a, long b) { return f.applyAsInt((int) a, (int) b) & 0xFFFF_FFFFL; }

        @Override public void scan(MemorySegment in, MemorySegment out, long from, long to, long carry, boolean inclusive) {
            int acc = (int) carry;
            if (inclusive) {
                for (long i = from; i < to; i++) {
                    acc = f.applyAsInt(acc, in.getAtIndex(T, i));
                    out.setAtIndex(T, i, acc);
                }
            } else {
                for (long i = from; i < to; i++) {
                    int x = in.getAtIndex(T, i);
                    out.setAtIndex(T, i, acc);
                    acc = f.applyAsInt(acc, x);
                }
            }
        }
    }

    private record LongLane(LongBinaryOperator f) implements Lane {
        private static final ValueLayout.OfLong T = ValueLayout.JAVA_LONG;

        @Override public long carry(long initBits) { return initBits; }

        @Override public long total(MemorySegment in, long from, long to) {
            long acc = in.getAtIndex(T, from);
            for (long i = from + 1; i < to; i++) acc = f.applyAsLong(acc, in.getAtIndex(T, i));
            return acc;
        }

        @Override public long combine(long a, long b) { return f.applyAsLong(a, b); }

        @Override public void scan(MemorySegment in, MemorySegment out, long from, long to, long carry, boolean inclusive) {
            long acc = carry;
            if (inclusive) {
                for (long i = from; i < to; i++) {
                    acc = f.applyAsLong(acc, in.getAtIndex(T, i));
                    out.setAtIndex(T, i, acc);
                }
            } else {
                for (long i = from; i < to; i++) {
                    long x = in.getAtIndex(T, i);
                    out.setAtIndex(T, i, acc);
                    acc = f.applyAsLong(acc, x);
                }
            }
        }
    }

    private record FloatLane(CustomOp.FloatBinaryOperator f) implements Lane {
        private static final ValueLayout.OfFloat T = ValueLayout.JAVA_FLOAT;

        @Override public long carry(long initBits) { return initBits & 0xFFFF_FFFFL; }

        private static float value(long bits) { return Float.intBitsToFloat((int) bits); }

        private static long bits(float value) { return Float.floatToRawIntBits(value) & 0xFFFF_FFFFL; }

        @Override public long total(MemorySegment in, long from, long to) {
            float acc = in.getAtIndex(T, from);
            for (long i = from + 1; i < to; i++) acc = f.applyAsFloat(acc, in.getAtIndex(T, i));
            return bits(acc);
        }

        @Override public long combine(long a, long b) { return bits(f.applyAsFloat(value(a), value(b))); }

        @Override public void scan(MemorySegment in, MemorySegment out, long from, long to, long carry, boolean inclusive) {
            float acc = value(carry);
            if (inclusive) {
                for (long i = from; i < to; i++) {
                    acc = f.applyAsFloat(acc, in.getAtIndex(T, i));
                    out.setAtIndex(T, i, acc);
                }
            } else {
                for (long i = from; i < to; i++) {
                    float x = in.getAtIndex(T, i);
                    out.setAtIndex(T, i, acc);
                    acc = f.applyAsFloat(acc, x);
                }
            }
        }
    }

    private record DoubleLane(DoubleBinaryOperator f) implements Lane {
        private static final ValueLayout.OfDouble T = ValueLayout.JAVA_DOUBLE;

        @Override public long carry(long initBits) { return initBits; }

        @Override public long total(MemorySegment in, long from, long to) {
            double acc = in.getAtIndex(T, from);
            for (long i = from + 1; i < to; i++) acc = f.applyAsDouble(acc, in.getAtIndex(T, i));
            return Double.doubleToRawLongBits(acc);
        }

        @Override public long combine(long a, long b) {
            return Double.doubleToRawLongBits(f.applyAsDouble(Double.longBitsToDouble(a), Double.longBitsToDouble(b)));
        }

        @Override public void scan(MemorySegment in, MemorySegment out, long from, long to, long carry, boolean inclusive) {
            double acc = Double.longBitsToDouble(carry);
            if (inclusive) {
                for (long i = from; i < to; i++) {
                    acc = f.applyAsDouble(acc, in.getAtIndex(T, i));
                    out.setAtIndex(T, i, acc);
                }
            } else {
                for (long i = from; i < to; i++) {
                    double x = in.getAtIndex(T, i);
                    out.setAtIndex(T, i, acc);
                    acc = f.applyAsDouble(acc, x);
                }
            }
        }
    }
}
