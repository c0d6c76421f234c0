package dev.primer.cpu;

import dev.primer.CustomOp;
import dev.primer.DType;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.function.LongUnaryOperator;

/**
 * Reduce with a user-defined operator on the CPU: fixed chunks of {@value Parallel#CHUNK} elements
 * each folded left to right from the identity, in parallel, then the chunk results folded left to
 * right from the identity, so the result does not depend on the thread count.
 *
 * <p>Batched (rows of a row-major matrix) and segmented (int64 offsets) reductions give each row or
 * segment exactly what {@link #reduce} gives for it alone (chunks aligned at its start); an empty one
 * gives the identity. Rows and segments run in parallel, grouped so that a piece of work holds about
 * one chunk of elements, and a long one is itself reduced chunk by chunk in parallel.
 */
public final class CpuCustomReduce {
    private CpuCustomReduce() {}

    /** The result's raw bits (of op.type()). */
    public static long reduce(CustomOp op, MemorySegment in, long n) {
        return range(CustomLane.of(op), op.identityBits(), in, 0, n);
    }

    /** Reduces each of {@code rows} rows of {@code cols} elements (row-major) into {@code out[row]}. */
    public static void reduceRows(CustomOp op, MemorySegment in, long rows, long cols, MemorySegment out) {
        Checks.nonNull(op, "op");
        long n = Checks.product(rows, cols);
        Checks.holds(in, n, op.type(), "in");
        Checks.holds(out, rows, op.type(), "out");
        batched(op, in, rows, k -> k * cols, out);
    }

    /**
     * Reduces each segment {@code [offsets[k], offsets[k+1])}, {@code k < segments}, of {@code in}
     * into {@code out[k]}. {@code offsets} holds {@code segments + 1} non-decreasing int64 values
     * within {@code [0, elements of in]}.
     */
    public static void reduceSegments(CustomOp op, MemorySegment in, MemorySegment offsets, long segments,
                                      MemorySegment out) {
        Checks.nonNull(op, "op");
        Checks.offsets(offsets, segments, Checks.elements(in, op.type(), "in"), "in");
        Checks.holds(out, segments, op.type(), "out");
        batched(op, in, segments, k -> offsets.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, k), out);
    }

    /** Item {@code k} of {@code count} is {@code [start(k), start(k + 1))}. */
    private static void batched(CustomOp op, MemorySegment in, long count, LongUnaryOperator start, MemorySegment out) {
        CustomLane lane = CustomLane.of(op);
        DType type = op.type();
        long identity = lane.carry(op.identityBits());
        Parallel.forWeightedRange(count, start, (lo, hi) -> {
            for (long k = lo; k < hi; k++) {
                long bits = range(lane, identity, in, start.applyAsLong(k), start.applyAsLong(k + 1));
                CpuSegmentedReduce.storeBits(out, type, k, bits);
            }
        });
    }

    /** {@code [from, to)} reduced in chunks aligned at {@code from}; the identity when empty. */
    private static long range(CustomLane lane, long identity, MemorySegment in, long from, long to) {
        long chunks = Parallel.chunks(to - from);
        if (chunks == 0) return identity;
        if (chunks == 1) return lane.combine(identity, lane.fold(in, from, to, identity));  // no array for short ones
        long[] partial = new long[Math.toIntExact(chunks)];
        Parallel.forRange(chunks, 1, (lo, hi) -> {
            for (long c = lo; c < hi; c++) {
                long start = from + c * Parallel.CHUNK;
                partial[(int) c] = lane.fold(in, start, Math.min(to, start + Parallel.CHUNK), identity);
            }
        });
        long acc = identity;
        for (long p : partial) acc = lane.combine(acc, p);
        return acc;
    }
}
