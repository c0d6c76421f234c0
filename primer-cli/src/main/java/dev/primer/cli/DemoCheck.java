package dev.primer.cli;

import dev.primer.DType;

import java.lang.foreign.MemorySegment;

/** Comparing a demo result with its reference: exactly, or within a relative tolerance. */
final class DemoCheck {
    private DemoCheck() {}

    /** An array result in host memory. */
    record HostVector(MemorySegment data, DType type, long length) {
        static HostVector of(int[] a) { return new HostVector(MemorySegment.ofArray(a), DType.INT, a.length); }
        static HostVector of(long[] a) { return new HostVector(MemorySegment.ofArray(a), DType.LONG, a.length); }
        static HostVector of(float[] a) { return new HostVector(MemorySegment.ofArray(a), DType.FLOAT, a.length); }
        static HostVector of(double[] a) { return new HostVector(MemorySegment.ofArray(a), DType.DOUBLE, a.length); }

        Number get(long i) { return HostValues.get(data, type, i); }
    }

    /** Null when {@code got} matches {@code want}; otherwise what differs. */
    static String compare(Object got, Object want, double tolerance) {
        if (got instanceof HostVector g && want instanceof HostVector w) return compareVectors(g, w, tolerance);
        if (got instanceof HostVector || want instanceof HostVector) return "got " + describe(got) + ", expected " + describe(want);
        if (got instanceof Long || want instanceof Long) {
            return got.equals(want) ? null : "got " + got + ", expected " + want;
        }
        double g = ((Number) got).doubleValue(), w = ((Number) want).doubleValue();
        return close(g, w, tolerance) ? null : "got " + got + ", expected " + want;
    }

    private static String compareVectors(HostVector g, HostVector w, double tolerance) {
        if (g.type() != w.type()) return "result is " + g.type() + ", expected " + w.type();
        if (g.length() != w.length()) return g.length() + " values, expected " + w.length();
        long bad = 0, first = -1;
        boolean integral = !g.type().isFloatingPoint();
        for (long i = 0; i < g.length(); i++) {
            boolean ok = integral ? g.get(i).longValue() == w.get(i).longValue()
                    : close(g.get(i).doubleValue(), w.get(i).doubleValue(), tolerance);
            if (!ok) {
                if (first < 0) first = i;
                bad++;
            }
        }
        if (bad == 0) return null;
        return bad + " of " + g.length() + " differ; first at [" + first + "]: got " + g.get(first) + ", expected " + w.get(first);
    }

    /** Equal (-0.0 differs from 0.0 when exact, NaN equals NaN), or within {@code tolerance} relative. */
    static boolean close(double got, double want, double tolerance) {
        if (Double.compare(got, want) == 0) return true;
        if (tolerance == 0 || Double.isNaN(got) || Double.isNaN(want)) return false;
        return Math.abs(got - want) <= tolerance * Math.max(Math.abs(got), Math.abs(want));
    }

    private static String describe(Object o) {
        return o instanceof HostVector v ? "an array of " + v.length() + " " + v.type() : String.valueOf(o);
    }
}
