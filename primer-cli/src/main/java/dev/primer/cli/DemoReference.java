package dev.primer.cli;

import dev.primer.DType;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The demo's reference answers on the CPU backend: plain sequential loops, written independently of
 * the backends so that a shared bug cannot hide. Semantics as documented in Primer: int32 sums in
 * int64, float32 sums in float64 rounded once, Math.min/Math.max, first index of the extreme.
 */
final class DemoReference {
    private DemoReference() {}

    static Object sum(DType type, MemorySegment in, long n) {
        return switch (type) {
            case INT -> {
                long s = 0;
                for (long i = 0; i < n; i++) s += in.getAtIndex(JAVA_INT, i);
                yield s;
            }
            case FLOAT -> {
                double s = 0;
                for (long i = 0; i < n; i++) s += in.getAtIndex(JAVA_FLOAT, i);
                yield (float) s;
            }
            case DOUBLE -> {
                double s = 0;
                for (long i = 0; i < n; i++) s += in.getAtIndex(JAVA_DOUBLE, i);
                yield s;
            }
            default -> throw new IllegalArgumentException(type.toString());
        };
    }

    static Object extreme(DType type, MemorySegment in, long n, boolean max) {
        return switch (type) {
            case INT -> {
                int e = max ? Integer.MIN_VALUE : Integer.MAX_VALUE;
                for (long i = 0; i < n; i++) {
                    int v = in.getAtIndex(JAVA_INT, i);
                    e = max ? Math.max(e, v) : Math.min(e, v);
                }
                yield (long) e;
            }
            case FLOAT -> {
                float e = max ? Float.NEGATIVE_INFINITY : Float.POSITIVE_INFINITY;
                for (long i = 0; i < n; i++) {
                    float v = in.getAtIndex(JAVA_FLOAT, i);
                    e = max ? Math.max(e, v) : Math.min(e, v);
                }
                yield e;
            }
            case DOUBLE -> {
                double e = max ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
                for (long i = 0; i < n; i++) {
                    double v = in.getAtIndex(JAVA_DOUBLE, i);
                    e = max ? Math.max(e, v) : Math.min(e, v);
                }
                yield e;
            }
            default -> throw new IllegalArgumentException(type.toString());
        };
    }

    /** First index of the extreme; NaN counts as the extreme; -1 when empty. */
    static Object argExtreme(DType type, MemorySegment in, long n, boolean max) {
        long best = -1;
        double bestValue = 0;
        for (long i = 0; i < n; i++) {
            double v = switch (type) {
                case INT -> in.getAtIndex(JAVA_INT, i);
                case FLOAT -> in.getAtIndex(JAVA_FLOAT, i);
                case DOUBLE -> in.getAtIndex(JAVA_DOUBLE, i);
                default -> throw new IllegalArgumentException(type.toString());
            };
            if (Double.isNaN(v)) return i;
            int c = Double.compare(v, bestValue); // orders -0.0 below 0.0, as Math.min/max do
            if (best < 0 || (max ? c > 0 : c < 0)) {
                best = i;
                bestValue = v;
            }
        }
        return best;
    }

    static Object xor(MemorySegment in, long n) {
        int x = 0;
        for (long i = 0; i < n; i++) x ^= in.getAtIndex(JAVA_INT, i);
        return (long) x;
    }

    /** float32 row sums accumulated in float64, rounded once. */
    static Object rowSums(MemorySegment in, long rows, long cols) {
        float[] out = new float[Math.toIntExact(rows)];
        for (long r = 0; r < rows; r++) {
            double s = 0;
            for (long c = 0; c < cols; c++) s += in.getAtIndex(JAVA_FLOAT, r * cols + c);
            out[(int) r] = (float) s;
        }
        return DemoCheck.HostVector.of(out);
    }

    static Object segmentSums(MemorySegment in, MemorySegment offsets, long segments) {
        long[] out = new long[Math.toIntExact(segments)];
        for (int k = 0; k < segments; k++) {
            long s = 0;
            for (long i = offsets.getAtIndex(JAVA_LONG, k), end = offsets.getAtIndex(JAVA_LONG, k + 1); i < end; i++) {
                s += in.getAtIndex(JAVA_INT, i);
            }
            out[k] = s;
        }
        return DemoCheck.HostVector.of(out);
    }

    static Object inclusiveSumInts(MemorySegment in, long n) {
        MemorySegment out = MemorySegment.ofArray(new long[Math.toIntExact(n)]);
        long s = 0;
        for (long i = 0; i < n; i++) out.setAtIndex(JAVA_LONG, i, s += in.getAtIndex(JAVA_INT, i));
        return new DemoCheck.HostVector(out, DType.LONG, n);
    }

    static Object inclusiveSumDoubles(MemorySegment in, long n) {
        double[] out = new double[Math.toIntExact(n)];
        double s = 0;
        for (int i = 0; i < n; i++) out[i] = s += in.getAtIndex(JAVA_DOUBLE, i);
        return DemoCheck.HostVector.of(out);
    }

    static Object exclusiveMaxInts(MemorySegment in, long n) {
        int[] out = new int[Math.toIntExact(n)];
        int m = Integer.MIN_VALUE;
        for (int i = 0; i < n; i++) {
            out[i] = m;
            m = Math.max(m, in.getAtIndex(JAVA_INT, i));
        }
        return DemoCheck.HostVector.of(out);
    }

    /** out[i] = the first index of the maximum of in[0 .. i] (Float.compare's order: NaN the maximum, -0.0 below 0.0). */
    static Object runningArgMaxFloats(MemorySegment in, long n) {
        MemorySegment out = MemorySegment.ofArray(new long[Math.toIntExact(n)]);
        long best = 0;
        for (long i = 0; i < n; i++) {
            if (Float.compare(in.getAtIndex(JAVA_FLOAT, i), in.getAtIndex(JAVA_FLOAT, best)) > 0) best = i;
            out.setAtIndex(JAVA_LONG, i, best);
        }
        return new DemoCheck.HostVector(out, DType.LONG, n);
    }

    static Object segmentedInclusiveMaxInts(MemorySegment in, MemorySegment offsets, long segments, long n) {
        int[] out = new int[Math.toIntExact(n)];
        for (int k = 0; k < segments; k++) {
            int m = Integer.MIN_VALUE;
            for (long i = offsets.getAtIndex(JAVA_LONG, k), end = offsets.getAtIndex(JAVA_LONG, k + 1); i < end; i++) {
                m = Math.max(m, in.getAtIndex(JAVA_INT, i));
                out[(int) i] = m;
            }
        }
        return DemoCheck.HostVector.of(out);
    }
}
