package dev.primer.cpu;

import dev.primer.DType;
import dev.primer.Op;
import dev.primer.Reductions;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.function.LongUnaryOperator;

/**
 * Batched (rows of a row-major matrix) and segmented (int64 offsets) reductions on the CPU.
 *
 * <p>Each segment's result is exactly what {@link CpuReduce} gives for that segment alone (chunks
 * aligned at the segment's start, the same fixed order and error bound), so results do not depend on
 * the neighbours or on the thread count. Segments run in parallel, grouped so that a piece of work
 * holds about one chunk of elements; a long segment is itself reduced in parallel.
 *
 * <p><b>Outputs</b> ({@link #outputType}): int8/int32 SUM and PROD give int64; float32 SUM and PROD
 * accumulate in double and store float32, rounded once (NaN canonical); other results keep the element
 * type. An empty segment gives the identity: SUM 0, PROD 1, MIN +Infinity or the type's MAX_VALUE,
 * MAX -Infinity or MIN_VALUE, AND all ones, OR/XOR 0. Argmin/argmax store int64 indices within the
 * segment, -1 for an empty one. An int64 SUM that overflows in any segment throws
 * ArithmeticException naming the first such row or segment (the contents of {@code out} are then
 * unspecified); so does an int32 SUM, which can leave int64 only in a segment of more than 2^32
 * elements: such a segment is summed as {@link CpuReduce} sums an int32 array that long, in exact
 * ranges of 2^32 elements added in 128 bits.
 */
public final class CpuSegmentedReduce {
    private CpuSegmentedReduce() {}

    /** Element type of the per-segment results of {@code op} on {@code in}. */
    public static DType outputType(DType in, Op op) {
        return Reductions.outputType(Checks.nonNull(in, "in"), Checks.nonNull(op, "op"));
    }

    /** Reduces each of {@code rows} rows of {@code cols} elements (row-major) into {@code out[row]}. */
    public static void reduceRows(DType type, Op op, MemorySegment in, long rows, long cols, MemorySegment out) {
        checkTypeOp(type, op);
        long n = Checks.product(rows, cols);
        Checks.holds(in, n, type, "in");
        Checks.holds(out, rows, outputType(type, op), "out");
        reduce(type, op, in, rows, k -> k * cols, out, CpuReduce.INT_SUM_RANGE, "row");
    }

    /**
     * Reduces each segment {@code [offsets[k], offsets[k+1])}, {@code k < segments}, of {@code in}
     * into {@code out[k]}. {@code offsets} holds {@code segments + 1} non-decreasing int64 values
     * within {@code [0, elements of in]}.
     */
    public static void reduceSegments(DType type, Op op, MemorySegment in, MemorySegment offsets, long segments,
                                      MemorySegment out) {
        reduceSegments(type, op, in, offsets, segments, out, CpuReduce.INT_SUM_RANGE);
    }

    /** As above, int32 SUM segments longer than {@code intSumRange} summed in exact ranges of that many (tests shorten it). */
    static void reduceSegments(DType type, Op op, MemorySegment in, MemorySegment offsets, long segments,
                               MemorySegment out, long intSumRange) {
        checkTypeOp(type, op);
        Checks.offsets(offsets, segments, Checks.elements(in, type, "in"), "in");
        Checks.holds(out, segments, outputType(type, op), "out");
        reduce(type, op, in, segments, offset(offsets), out, intSumRange, "segment");
    }

    /** Index within each row of its first maximum ({@code max}) or minimum; int64 {@code out}. */
    public static void argExtremeRows(DType type, boolean max, MemorySegment in, long rows, long cols,
                                      MemorySegment out) {
        Checks.nonNull(type, "type");
        long n = Checks.product(rows, cols);
        Checks.holds(in, n, type, "in");
        Checks.holds(out, rows, DType.LONG, "out");
        argExtreme(type, max, in, rows, k -> k * cols, out);
    }

    /** Index within each segment of its first maximum ({@code max}) or minimum; int64 {@code out}. */
    public static void argExtremeSegments(DType type, boolean max, MemorySegment in, MemorySegment offsets,
                                          long segments, MemorySegment out) {
        Checks.nonNull(type, "type");
        Checks.offsets(offsets, segments, Checks.elements(in, type, "in"), "in");
        Checks.holds(out, segments, DType.LONG, "out");
        argExtreme(type, max, in, segments, offset(offsets), out);
    }

    private static void checkTypeOp(DType type, Op op) {
        Checks.nonNull(type, "type");
        Checks.nonNull(op, "op");
        op.requireSupports(type, "op");
    }

    private static LongUnaryOperator offset(MemorySegment offsets) {
        return k -> offsets.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, k);
    }

    /** {@code what}: "row" or "segment", for the overflow message. */
    private static void reduce(DType type, Op op, MemorySegment in, long count, LongUnaryOperator start,
                               MemorySegment out, long intSumRange, String what) {
        DType outType = outputType(type, op);
        long identity = Reductions.identityBits(outType, op);
        boolean exact = CpuReduce.isExact(type, op);
        boolean intSum = type == DType.INT && op == Op.SUM;
        FloatingChunkReducer floating = type.isFloatingPoint() ? CpuReduce.floatingKernel(type, op) : null;
        IntegralChunkReducer integral = type.isFloatingPoint() || exact ? null : CpuReduce.integralKernel(type, op);
        LongAccumulator firstOverflow = new LongAccumulator(Math::min, Long.MAX_VALUE);
        Parallel.forWeightedRange(count, start, (lo, hi) -> {
            for (long k = lo; k < hi; k++) {
                long from = start.applyAsLong(k), to = start.applyAsLong(k + 1);
                if (from == to) {
                    storeBits(out, outType, k, identity);
                } else if (floating != null) {
                    double r = CpuReduce.floatingRange(floating, op, in, from, to);
                    if (outType == DType.FLOAT) {
                        float f = (float) r;
                        out.setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, k, Float.isNaN(f) ? Float.NaN : f);
                    } else {
                        out.setAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, k, r);
                    }
                } else if (exact) {
                    ExactLongSum sum = CpuReduce.exactRange(in, from, to);
                    if (!sum.fitsLong()) firstOverflow.accumulate(k);
                    out.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, k, sum.low());
                } else if (intSum && to - from > intSumRange) {
                    try {
                        out.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, k, CpuReduce.intSumInRanges(in, from, to, intSumRange));
                    } catch (ArithmeticException overflow) {
                        firstOverflow.accumulate(k);
                    }
                } else {
                    storeBits(out, outType, k, CpuReduce.integralRange(integral, op, in, from, to));
                }
            }
        });
        long k = firstOverflow.get();
        if (k == Long.MAX_VALUE) return;
        // The first overflowing one, summed again for the message (it has failed already).
        long from = start.applyAsLong(k), to = start.applyAsLong(k + 1);
        if (exact) {
            CpuReduce.exactRange(in, from, to).longValueExact("the sum of " + what + " " + k);
        } else {
            try {
                CpuReduce.intSumInRanges(in, from, to, intSumRange);
            } catch (ArithmeticException overflow) {
                throw new ArithmeticException(what + " " + k + ": " + overflow.getMessage());
            }
        }
        throw new AssertionError(what + " " + k + " overflowed once but not when summed again");
    }

    private static void argExtreme(DType type, boolean max, MemorySegment in, long count, LongUnaryOperator start,
                                   MemorySegment out) {
        Parallel.forWeightedRange(count, start, (lo, hi) -> {
            for (long k = lo; k < hi; k++) {
                long from = start.applyAsLong(k), to = start.applyAsLong(k + 1);
                long index = from == to ? -1 : CpuReduce.argRange(type, max, in, from, to) - from;
                out.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, k, index);
            }
        });
    }

    /** Stores the low bits of {@code bits} as element {@code k} of {@code type}. */
    static void storeBits(MemorySegment out, DType type, long k, long bits) {
        switch (type) {
            case BYTE -> out.set(ValueLayout.JAVA_BYTE, k, (byte) bits);
            case INT, FLOAT -> out.setAtIndex(ValueLayout.JAVA_INT_UNALIGNED, k, (int) bits);
            case LONG, DOUBLE -> out.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, k, bits);
        }
    }
}
