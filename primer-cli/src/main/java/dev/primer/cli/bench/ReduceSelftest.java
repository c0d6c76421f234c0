package dev.primer.cli.bench;

import dev.primer.DType;
import dev.primer.DeviceArray;
import dev.primer.DoubleArray;
import dev.primer.LongArray;
import dev.primer.Op;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Locale;

/**
 * Self-test of the fill kernel and the production device-wide reduce: every operator of every dtype,
 * argMin/argMax, NaN and signed zeros, and int64 SUM overflow, each against the CPU backend.
 */
final class ReduceSelftest {
    /** Float SUM/PROD accumulate in float64 on both backends: only the summation order differs. */
    static final double REL = 1e-10;

    private ReduceSelftest() {}

    static List<Long> sizes(boolean quick) {
        return quick ? List.of(0L, 1L, 33L, 70000L) : List.of(0L, 1L, 33L, 1000L, 70000L);
    }

    static void fill(CheckLog log, Twins t, boolean quick) {
        for (long n : sizes(quick)) {
            long pattern = 0x9E3779B97F4A7C15L ^ n;
            log.check(String.format(Locale.ROOT, "fill_u64 int64 n=%d", n), () -> {
                try (Arena arena = Arena.ofConfined(); LongArray a = t.gpu().allocateLongs(n)) {
                    a.fill(pattern);
                    MemorySegment host = Twins.download(a, arena);
                    for (long i = 0; i < n; i++) {
                        long v = host.getAtIndex(ValueLayout.JAVA_LONG, i);
                        if (v != pattern) return "element " + i + " is 0x" + Long.toHexString(v);
                    }
                    return null;
                }
            });
            log.check(String.format(Locale.ROOT, "fill_u64 float64 n=%d", n), () -> {
                try (Arena arena = Arena.ofConfined(); DoubleArray a = t.gpu().allocateDoubles(n)) {
                    a.fill(-0.0);
                    MemorySegment host = Twins.download(a, arena);
                    for (long i = 0; i < n; i++) {
                        long bits = host.getAtIndex(ValueLayout.JAVA_LONG, i);
                        if (bits != Long.MIN_VALUE) return "element " + i + " has bits 0x" + Long.toHexString(bits);
                    }
                    return null;
                }
            });
        }
    }

    static void reduce(CheckLog log, Twins t, boolean quick) {
        for (DType type : DType.values()) {
            for (Op op : Op.values()) {
                if (!op.supports(type)) continue;
                for (long n : sizes(quick)) {
                    long seed = 1000L * type.ordinal() + 100L * op.ordinal() + n;
                    log.check(String.format(Locale.ROOT, "reduce %s %s n=%d", op, type, n), () -> {
                        try (Arena arena = Arena.ofConfined(); Closer closer = new Closer()) {
                            MemorySegment host = SelftestData.values(arena, type, op, n, seed);
                            return compareReduce(t, closer, type, op, host, n);
                        }
                    });
                }
            }
        }
    }

    private static String compareReduce(Twins t, Closer closer, DType type, Op op, MemorySegment host, long n) {
        DeviceArray[] a = t.upload(closer, type, host, n);
        Number g = Twins.reduce(t.gpu(), a[0], op), c = Twins.reduce(t.cpu(), a[1], op);
        if (!type.isFloatingPoint()) return Compare.exact(g.longValue(), c.longValue());
        return Compare.floating(g.doubleValue(), c.doubleValue(), type, op, Compare.absSum(host, type, 0, n), REL);
    }

    static void argExtreme(CheckLog log, Twins t, boolean quick) {
        for (DType type : DType.values()) {
            for (boolean max : new boolean[] {false, true}) {
                for (long n : sizes(quick)) {
                    long seed = 7000L + 10L * type.ordinal() + n + (max ? 1 : 0);
                    log.check(String.format(Locale.ROOT, "%s %s n=%d (ties)", max ? "argMax" : "argMin", type, n), () -> {
                        try (Arena arena = Arena.ofConfined(); Closer closer = new Closer()) {
                            MemorySegment host = SelftestData.ties(arena, type, n, seed);
                            DeviceArray[] a = t.upload(closer, type, host, n);
                            return arg(t, a, max);
                        }
                    });
                }
            }
        }
    }

    private static String arg(Twins t, DeviceArray[] a, boolean max) {
        long g = max ? t.gpu().argMax(a[0]) : t.gpu().argMin(a[0]);
        long c = max ? t.cpu().argMax(a[1]) : t.cpu().argMin(a[1]);
        return Compare.exact(g, c);
    }

    /** NaN wins MIN/MAX and argMin/argMax; -0.0 < 0.0; infinities; at several positions. */
    static void specials(CheckLog log, Twins t) {
        long n = 70000;
        for (DType type : List.of(DType.FLOAT, DType.DOUBLE)) {
            for (long nanAt : new long[] {-1, 0, 33, n - 1}) {
                for (Op op : List.of(Op.MIN, Op.MAX, Op.SUM)) {
                    String where = nanAt < 0 ? "signed zeros and infinities" : "NaN at " + nanAt;
                    log.check(String.format(Locale.ROOT, "reduce %s %s n=%d, %s", op, type, n, where), () -> {
                        try (Arena arena = Arena.ofConfined(); Closer closer = new Closer()) {
                            MemorySegment host = special(arena, type, n, nanAt);
                            return compareReduce(t, closer, type, op, host, n);
                        }
                    });
                }
                for (boolean max : new boolean[] {false, true}) {
                    String where = nanAt < 0 ? "signed zeros and infinities" : "NaN at " + nanAt;
                    log.check(String.format(Locale.ROOT, "%s %s n=%d, %s", max ? "argMax" : "argMin", type, n, where), () -> {
                        try (Arena arena = Arena.ofConfined(); Closer closer = new Closer()) {
                            MemorySegment host = special(arena, type, n, nanAt);
                            return arg(t, t.upload(closer, type, host, n), max);
                        }
                    });
                }
            }
        }
    }

    private static MemorySegment special(Arena arena, DType type, long n, long nanAt) {
        MemorySegment host = SelftestData.ties(arena, type, n, 77);
        if (nanAt >= 0) {
            SelftestData.setFloating(host, type, nanAt, Double.NaN);
        } else {
            SelftestData.setFloating(host, type, n / 3, Double.POSITIVE_INFINITY);
            SelftestData.setFloating(host, type, n / 2, Double.NEGATIVE_INFINITY);
            SelftestData.setFloating(host, type, 2 * n / 3, Double.POSITIVE_INFINITY);
        }
        return host;
    }

    /** int64 SUM is exact: a true sum beyond a long throws ArithmeticException on both backends. */
    static void overflow(CheckLog log, Twins t) {
        long n = 1000;
        log.check("reduce SUM int64 n=1000 overflowing: ArithmeticException on both", () -> {
            try (Arena arena = Arena.ofConfined(); Closer closer = new Closer()) {
                MemorySegment host = SelftestData.allocate(arena, DType.LONG, n);
                for (long i = 0; i < n; i++) host.setAtIndex(ValueLayout.JAVA_LONG, i, Long.MAX_VALUE / 100);
                DeviceArray[] a = t.upload(closer, DType.LONG, host, n);
                String g = throwsArithmetic(() -> Twins.reduce(t.gpu(), a[0], Op.SUM));
                String c = throwsArithmetic(() -> Twins.reduce(t.cpu(), a[1], Op.SUM));
                if (g != null) return "GPU " + g;
                return c == null ? null : "CPU " + c;
            }
        });
        log.check("reduce SUM int64 n=1000 overflowing in between, fitting at the end", () -> {
            try (Arena arena = Arena.ofConfined(); Closer closer = new Closer()) {
                MemorySegment host = SelftestData.allocate(arena, DType.LONG, n);
                for (long i = 0; i < n; i++) host.setAtIndex(ValueLayout.JAVA_LONG, i, i < n / 2 ? Long.MAX_VALUE / 100 : -(Long.MAX_VALUE / 100));
                DeviceArray[] a = t.upload(closer, DType.LONG, host, n);
                return Compare.exact(Twins.reduce(t.gpu(), a[0], Op.SUM).longValue(), Twins.reduce(t.cpu(), a[1], Op.SUM).longValue());
            }
        });
    }

    private static String throwsArithmetic(Runnable call) {
        try {
            call.run();
            return "returned instead of throwing ArithmeticException";
        } catch (ArithmeticException expected) {
            return null;
        }
    }
}
