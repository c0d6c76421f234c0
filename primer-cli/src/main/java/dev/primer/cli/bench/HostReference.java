package dev.primer.cli.bench;

import dev.primer.DType;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** Plain, obviously correct host loops that the benchmarks check their GPU answers against. */
final class HostReference {
    private HostReference() {}

    /** Sum of elements [from, to) in float64 (exact in int64 for integer types, returned as double). */
    static double sum(MemorySegment s, DType type, long from, long to) {
        if (!type.isFloatingPoint()) {
            long total = 0;
            for (long i = from; i < to; i++) total += integral(s, type, i);
            return total;
        }
        double total = 0;
        for (long i = from; i < to; i++) total += floating(s, type, i);
        return total;
    }

    /** Math.max over the floats of the segment (NaN wins). */
    static float maxFloat(MemorySegment s, long n) {
        float m = Float.NEGATIVE_INFINITY;
        for (long i = 0; i < n; i++) m = Math.max(m, s.getAtIndex(ValueLayout.JAVA_FLOAT, i));
        return m;
    }

    /** Index of the first maximum (float32: a NaN counts as the maximum; or an integral type); -1 when empty. */
    static long argMax(MemorySegment s, DType type, long n) {
        long best = -1;
        double m = 0;
        for (long i = 0; i < n; i++) {
            double v = floating(s, type, i);
            if (Double.isNaN(v)) return i;
            if (best < 0 || v > m) {
                best = i;
                m = v;
            }
        }
        return best;
    }

    static long integral(MemorySegment s, DType type, long i) {
        return switch (type) {
            case BYTE -> s.get(ValueLayout.JAVA_BYTE, i);
            case INT -> s.getAtIndex(ValueLayout.JAVA_INT, i);
            case LONG -> s.getAtIndex(ValueLayout.JAVA_LONG, i);
            default -> throw new IllegalArgumentException(type + " is not integral");
        };
    }

    static double floating(MemorySegment s, DType type, long i) {
        return switch (type) {
            case FLOAT -> s.getAtIndex(ValueLayout.JAVA_FLOAT, i);
            case DOUBLE -> s.getAtIndex(ValueLayout.JAVA_DOUBLE, i);
            default -> integral(s, type, i);
        };
    }

    /** |a - b| / max(|b|, tiny): the relative error of a against the reference b. */
    static double relativeError(double a, double b) {
        if (a == b) return 0;
        return Math.abs(a - b) / Math.max(Math.abs(b), Double.MIN_NORMAL);
    }
}
