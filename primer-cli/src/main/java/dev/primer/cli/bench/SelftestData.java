package dev.primer.cli.bench;

import dev.primer.DType;
import dev.primer.Op;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;

/**
 * Host inputs for the self-test, chosen so each operator's answer means something: full-range
 * integers for MIN/MAX and the bitwise operators, odd integers for PROD (so wrapping products do not
 * collapse to 0), sums that cannot overflow, floats near 1 for PROD (no underflow), and a tie-heavy
 * variant (few distinct values, both signs of zero) for the first-index rule of argMin/argMax.
 */
final class SelftestData {
    private SelftestData() {}

    static MemorySegment allocate(Arena arena, DType type, long n) {
        long bytes = n * type.byteSize();
        return arena.allocate(Math.max(bytes, 8), 8).asSlice(0, bytes);
    }

    static MemorySegment values(Arena arena, DType type, Op op, long n, long seed) {
        MemorySegment s = allocate(arena, type, n);
        SplittableRandom r = new SplittableRandom(seed);
        for (long i = 0; i < n; i++) {
            switch (type) {
                case BYTE -> s.set(ValueLayout.JAVA_BYTE, i, (byte) (op == Op.PROD ? r.nextInt(-64, 64) * 2 + 1 : r.nextInt(-128, 128)));
                case INT -> s.setAtIndex(ValueLayout.JAVA_INT, i, switch (op) {
                    case PROD -> r.nextInt() | 1;
                    default -> r.nextInt();
                });
                case LONG -> s.setAtIndex(ValueLayout.JAVA_LONG, i, switch (op) {
                    case PROD -> r.nextLong() | 1;
                    case SUM -> r.nextLong(-(1L << 40), 1L << 40);
                    default -> r.nextLong();
                });
                case FLOAT -> s.setAtIndex(ValueLayout.JAVA_FLOAT, i, (float) floating(r, op));
                case DOUBLE -> s.setAtIndex(ValueLayout.JAVA_DOUBLE, i, floating(r, op));
            }
        }
        return s;
    }

    private static double floating(SplittableRandom r, Op op) {
        return op == Op.PROD ? r.nextDouble(0.999, 1.001) : r.nextDouble(-1, 1);
    }

    /** Few distinct values (quarters in [-8, 8), zeros of both signs): many ties for argMin/argMax. */
    static MemorySegment ties(Arena arena, DType type, long n, long seed) {
        MemorySegment s = allocate(arena, type, n);
        SplittableRandom r = new SplittableRandom(seed);
        for (long i = 0; i < n; i++) {
            int k = r.nextInt(-32, 32);
            boolean negativeZero = k == 0 && r.nextBoolean();
            switch (type) {
                case BYTE -> s.set(ValueLayout.JAVA_BYTE, i, (byte) k);
                case INT -> s.setAtIndex(ValueLayout.JAVA_INT, i, k);
                case LONG -> s.setAtIndex(ValueLayout.JAVA_LONG, i, k * 0x1_0000_0001L);
                case FLOAT -> s.setAtIndex(ValueLayout.JAVA_FLOAT, i, negativeZero ? -0.0f : k / 4f);
                case DOUBLE -> s.setAtIndex(ValueLayout.JAVA_DOUBLE, i, negativeZero ? -0.0 : k / 4.0);
            }
        }
        return s;
    }

    /** Sets element i of a floating segment (for planting NaN or infinities). */
    static void setFloating(MemorySegment s, DType type, long i, double v) {
        if (type == DType.FLOAT) s.setAtIndex(ValueLayout.JAVA_FLOAT, i, (float) v);
        else s.setAtIndex(ValueLayout.JAVA_DOUBLE, i, v);
    }

    /** Head flags: 1 with probability 1/50, and element 0 flagged or not at random. */
    static MemorySegment flags(Arena arena, long n, long seed) {
        MemorySegment s = allocate(arena, DType.BYTE, n);
        SplittableRandom r = new SplittableRandom(seed);
        for (long i = 0; i < n; i++) s.set(ValueLayout.JAVA_BYTE, i, (byte) (r.nextInt(50) == 0 ? 1 + r.nextInt(3) : 0));
        return s;
    }

    /**
     * Offsets (segments + 1 of them) of segments covering [0, n): empty segments (about a third),
     * short ones, and now and then a long one, so every dispatch path of a segmented kernel runs.
     */
    static long[] offsets(long n, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        java.util.ArrayList<Long> o = new java.util.ArrayList<>();
        o.add(0L);
        long end = 0;
        while (end < n) {
            int kind = r.nextInt(10);
            long len = kind < 3 ? 0 : kind < 8 ? r.nextLong(1, 40) : kind < 9 ? r.nextLong(40, 1500) : r.nextLong(1500, 20000);
            end = Math.min(n, end + len);
            o.add(end);
            if (r.nextInt(20) == 0) o.add(end); // runs of empty segments
        }
        return o.stream().mapToLong(Long::longValue).toArray();
    }
}
