package dev.primer.cpu;

import dev.primer.DType;
import dev.primer.Op;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Segmented scan whose segments start where an int8 head flag is non-zero (and at index 0), one
 * element at a time within a chunk, chunks in parallel (two passes, as {@link CpuScan}).
 *
 * <p><b>Order.</b> In chunk {@code c}, from a head on: {@code acc = init op x_head}, then
 * {@code acc = acc op x_i} left to right. The elements before the chunk's first head continue the
 * segment open at the chunk's start: {@code out = carry op Q_i}, {@code Q} the chunk's own left-to-right
 * fold from the identity. The carry into chunk {@code c + 1} is the acc at the chunk's end if it has a
 * head, else {@code carry op Q_end}. So a segment that spans chunks rounds as the plain scan does at
 * chunk borders, and within a chunk as a sequential loop.
 */
final class FlagSegmentScan {
    private FlagSegmentScan() {}

    private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final ValueLayout.OfDouble D = ValueLayout.JAVA_DOUBLE_UNALIGNED;
    private static final ValueLayout.OfInt I = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfLong L = ValueLayout.JAVA_LONG_UNALIGNED;

    static void scan(DType type, Op op, boolean inclusive, long initBits, MemorySegment in, MemorySegment flags,
                     MemorySegment out, long n) {
        long chunks = Parallel.chunks(n);
        if (chunks == 0) return;
        // Pass 1: each chunk's fold (from its last head, or from the identity when it has none).
        long[] fold = new long[Math.toIntExact(chunks)];
        boolean[] hasHead = new boolean[fold.length];
        Parallel.forRange(chunks - 1, 1, (lo, hi) -> {
            for (long c = lo; c < hi; c++) {
                long from = c * Parallel.CHUNK, to = from + Parallel.CHUNK;
                fold[(int) c] = chunk(type, op, inclusive, initBits, in, flags, out, from, to, 0, false);
                hasHead[(int) c] = hasHead(flags, from, to);
            }
        });
        // The carries, in order: one step per chunk.
        long[] carry = new long[fold.length];
        carry[0] = initBits; // unused: index 0 is a head
        for (int c = 0; c + 1 < fold.length; c++) {
            carry[c + 1] = hasHead[c] ? fold[c] : combine(type, op, carry[c], fold[c]);
        }
        // Pass 2: every chunk from its carry.
        Parallel.forEachChunk(n, (from, to) ->
                chunk(type, op, inclusive, initBits, in, flags, out, from, to, carry[(int) (from / Parallel.CHUNK)], true));
    }

    private static boolean hasHead(MemorySegment flags, long from, long to) {
        if (from == 0) return true;
        for (long i = from; i < to; i++) {
            if (flags.get(ValueLayout.JAVA_BYTE, i) != 0) return true;
        }
        return false;
    }

    private static long combine(DType type, Op op, long a, long b) {
        return switch (type) {
            case FLOAT -> Float.floatToRawIntBits(LaneOps.apply(op, Float.intBitsToFloat((int) a), Float.intBitsToFloat((int) b))) & 0xFFFF_FFFFL;
            case DOUBLE -> Double.doubleToRawLongBits(LaneOps.apply(op, Double.longBitsToDouble(a), Double.longBitsToDouble(b)));
            default -> LaneOps.apply(op, a, b);
        };
    }

    private static long chunk(DType type, Op op, boolean inclusive, long initBits, MemorySegment in, MemorySegment flags,
                              MemorySegment out, long from, long to, long carryBits, boolean write) {
        return switch (type) {
            case FLOAT -> Float.floatToRawIntBits(floats(op, inclusive, Float.intBitsToFloat((int) initBits), in, flags,
                    out, from, to, Float.intBitsToFloat((int) carryBits), write)) & 0xFFFF_FFFFL;
            case DOUBLE -> Double.doubleToRawLongBits(doubles(op, inclusive, Double.longBitsToDouble(initBits), in, flags,
                    out, from, to, Double.longBitsToDouble(carryBits), write));
            default -> integers(type, op, inclusive, initBits, in, flags, out, from, to, carryBits, write);
        };
    }

    private static float floats(Op op, boolean inclusive, float init, MemorySegment in, MemorySegment flags,
                                MemorySegment out, long from, long to, float carry, boolean write) {
        float acc = (float) LaneOps.floatingIdentity(op);
        boolean open = true;
        for (long i = from; i < to; i++) {
            float x = in.getAtIndex(F, i), before;
            if (i == 0 || flags.get(ValueLayout.JAVA_BYTE, i) != 0) {
                open = false;
                before = init;
                acc = LaneOps.apply(op, init, x);
            } else {
                before = acc;
                acc = LaneOps.apply(op, acc, x);
            }
            if (write) {
                float value = inclusive ? acc : before;
                out.setAtIndex(F, i, open ? LaneOps.apply(op, carry, value) : value);
            }
        }
        return acc;
    }

    private static double doubles(Op op, boolean inclusive, double init, MemorySegment in, MemorySegment flags,
                                  MemorySegment out, long from, long to, double carry, boolean write) {
        double acc = LaneOps.floatingIdentity(op);
        boolean open = true;
        for (long i = from; i < to; i++) {
            double x = in.getAtIndex(D, i), before;
            if (i == 0 || flags.get(ValueLayout.JAVA_BYTE, i) != 0) {
                open = false;
                before = init;
                acc = LaneOps.apply(op, init, x);
            } else {
                before = acc;
                acc = LaneOps.apply(op, acc, x);
            }
            if (write) {
                double value = inclusive ? acc : before;
                out.setAtIndex(D, i, open ? LaneOps.apply(op, carry, value) : value);
            }
        }
        return acc;
    }

    /** Integers in long arithmetic, stored in the element type (so int8/int32 wrap as Java's). */
    private static long integers(DType type, Op op, boolean inclusive, long init, MemorySegment in, MemorySegment flags,
                                 MemorySegment out, long from, long to, long carry, boolean write) {
        long acc = LaneOps.integralIdentity(op, Long.MIN_VALUE, Long.MAX_VALUE);
        boolean open = true;
        for (long i = from; i < to; i++) {
            long x = switch (type) {
                case BYTE -> in.get(ValueLayout.JAVA_BYTE, i);
                case INT -> in.getAtIndex(I, i);
                default -> in.getAtIndex(L, i);
            };
            long before;
            if (i == 0 || flags.get(ValueLayout.JAVA_BYTE, i) != 0) {
                open = false;
                before = init;
                acc = LaneOps.apply(op, init, x);
            } else {
                before = acc;
                acc = LaneOps.apply(op, acc, x);
            }
            if (write) {
                long value = inclusive ? acc : before;
                if (open) value = LaneOps.apply(op, carry, value);
                switch (type) {
                    case BYTE -> out.set(ValueLayout.JAVA_BYTE, i, (byte) value);
                    case INT -> out.setAtIndex(I, i, (int) value);
                    default -> out.setAtIndex(L, i, value);
                }
            }
        }
        return acc;
    }
}
