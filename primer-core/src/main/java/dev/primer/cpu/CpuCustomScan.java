package dev.primer.cpu;

import dev.primer.CustomOp;
import dev.primer.DType;

import java.lang.foreign.MemorySegment;
import java.util.function.LongUnaryOperator;

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
 *
 * <p>The segmented scans ({@link CpuCustomSegmentedScan}) run the same passes.
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
        CustomLane lane = CustomLane.of(op);
        run(plain(lane, in, out, inclusive), 0, n, lane.carry(initBits));
    }

    /** What the two passes do to one chunk [from, to). */
    interface Chunks {
        /**
         * Pass 1, independent of the chunks before: how the chunk turns the carry into it into the
         * carry out of it.
         */
        LongUnaryOperator carryThrough(long from, long to);

        /** Pass 2: writes the chunk's outputs from the carry into it. */
        void scan(long from, long to, long carry);
    }

    /** The unsegmented scan's chunks: the carry out is {@code carry op T_c}. */
    static Chunks plain(CustomLane lane, MemorySegment in, MemorySegment out, boolean inclusive) {
        return new Chunks() {
            @Override public LongUnaryOperator carryThrough(long from, long to) {
                long total = lane.total(in, from, to);
                return carry -> lane.combine(carry, total);
            }

            @Override public void scan(long from, long to, long carry) {
                lane.scan(in, null, out, from, to, carry, 0, inclusive);
            }
        };
    }

    /**
     * Scans {@code [from, to)} in chunks aligned at {@code from}, starting from {@code init}: pass 1 on
     * a window of chunks in parallel, the carries chained in order, pass 2 on the window in parallel.
     * Pass 1 reads a whole window before pass 2 writes into it, so the scan may run in place.
     */
    static void run(Chunks chunks, long from, long to, long init) {
        long count = Parallel.chunks(to - from);
        if (count == 0) return;
        if (count == 1) {
            chunks.scan(from, to, init);
            return;
        }
        int window = (int) Math.min(count, windowChunks());
        LongUnaryOperator[] through = new LongUnaryOperator[window];
        long[] carry = new long[window + 1];
        carry[0] = init;
        for (long w = 0; w < count; w += window) {
            long first = w, inWindow = Math.min(window, count - w);
            long passes = Math.min(inWindow, count - 1 - first); // the last chunk carries into nothing
            Parallel.forRange(passes, 1, (lo, hi) -> {
                for (long c = lo; c < hi; c++) {
                    long start = from + (first + c) * Parallel.CHUNK;
                    through[(int) c] = chunks.carryThrough(start, start + Parallel.CHUNK);
                }
            });
            for (int c = 0; c < passes; c++) carry[c + 1] = through[c].applyAsLong(carry[c]);
            Parallel.forRange(inWindow, 1, (lo, hi) -> {
                for (long c = lo; c < hi; c++) {
                    long start = from + (first + c) * Parallel.CHUNK;
                    chunks.scan(start, Math.min(to, start + Parallel.CHUNK), carry[(int) c]);
                }
            });
            carry[0] = carry[(int) inWindow]; // into the next window
        }
    }

    /**
     * Chunks per window: about a last-level cache of input (the rescan reads it back from there),
     * more with more threads so that each takes several.
     */
    private static long windowChunks() {
        return Math.max(64, 4L * Parallel.threads());
    }
}
