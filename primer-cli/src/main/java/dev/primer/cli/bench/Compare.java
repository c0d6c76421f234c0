package dev.primer.cli.bench;

import dev.primer.DType;
import dev.primer.Op;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Locale;
import java.util.function.LongToDoubleFunction;

/**
 * GPU answer against CPU answer. Integers, MIN, MAX and indices must be equal (floats bit for bit,
 * so -0.0 differs from 0.0; every NaN equals every NaN). Float SUM and PROD may differ by the rounding
 * of different summation orders: at most 2 ulps of the result's type plus {@code rel × scale}, where
 * scale is the sum of |x| over the elements that went in (SUM) or |reference| (PROD).
 * Each method returns null when the answers agree, else a description of the first difference.
 */
final class Compare {
    private Compare() {}

    static String exact(long gpu, long cpu) {
        return gpu == cpu ? null : "GPU " + gpu + ", CPU " + cpu;
    }

    static String floating(double gpu, double cpu, DType type, Op op, double scale, double rel) {
        if (equalBits(gpu, cpu, type)) return null;
        if (op == Op.MIN || op == Op.MAX || Double.isNaN(gpu) || Double.isNaN(cpu) || Double.isInfinite(cpu)) {
            return String.format(Locale.ROOT, "GPU %s, CPU %s", show(gpu, type), show(cpu, type));
        }
        double allowed = 2 * ulp(cpu, type) + rel * (op == Op.PROD ? Math.abs(cpu) : scale);
        double diff = Math.abs(gpu - cpu);
        return diff <= allowed ? null : String.format(Locale.ROOT, "GPU %s, CPU %s: differ by %.3g > %.3g allowed",
                show(gpu, type), show(cpu, type), diff, allowed);
    }

    /**
     * Element-wise comparison of two downloaded arrays of {@code type}; {@code scale} gives the
     * float SUM scale of element i (ignored for integers and MIN/MAX).
     */
    static String arrays(MemorySegment gpu, MemorySegment cpu, DType type, long count, Op op, LongToDoubleFunction scale, double rel) {
        for (long i = 0; i < count; i++) {
            String problem;
            if (type.isFloatingPoint()) {
                double g = read(gpu, type, i), c = read(cpu, type, i);
                problem = equalBits(g, c, type) ? null : floating(g, c, type, op, scale.applyAsDouble(i), rel);
            } else {
                problem = exact(readIntegral(gpu, type, i), readIntegral(cpu, type, i));
            }
            if (problem != null) return "element " + i + " of " + count + ": " + problem;
        }
        return null;
    }

    static double read(MemorySegment s, DType type, long i) {
        return type == DType.FLOAT ? s.getAtIndex(ValueLayout.JAVA_FLOAT, i) : s.getAtIndex(ValueLayout.JAVA_DOUBLE, i);
    }

    static long readIntegral(MemorySegment s, DType type, long i) {
        return HostReference.integral(s, type, i);
    }

    private static boolean equalBits(double a, double b, DType type) {
        if (type == DType.FLOAT) return Float.floatToIntBits((float) a) == Float.floatToIntBits((float) b);
        return Double.doubleToLongBits(a) == Double.doubleToLongBits(b);
    }

    private static double ulp(double v, DType type) {
        return type == DType.FLOAT ? Math.ulp((float) v) : Math.ulp(v);
    }

    private static String show(double v, DType type) {
        if (type == DType.FLOAT) return Float.toString((float) v);
        return Double.toString(v);
    }

    /** Sum of |x| over [from, to) of a floating segment: the scale of a float SUM's rounding. */
    static double absSum(MemorySegment s, DType type, long from, long to) {
        double total = 0;
        if (!type.isFloatingPoint()) return 0;
        for (long i = from; i < to; i++) total += Math.abs(read(s, type, i));
        return total;
    }

    /** Running sum of |x|: element i is the scale of an inclusive scan's element i. */
    static double[] runningAbsSum(MemorySegment s, DType type, long n) {
        double[] out = new double[(int) n];
        double total = 0;
        for (int i = 0; i < n; i++) {
            if (type.isFloatingPoint()) total += Math.abs(read(s, type, i));
            out[i] = total;
        }
        return out;
    }
}
