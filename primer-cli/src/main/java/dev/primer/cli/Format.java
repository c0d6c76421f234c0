package dev.primer.cli;

import java.util.Locale;

/** Number formatting shared by the commands' human-readable output (JSON keeps raw numbers). */
public final class Format {
    private Format() {}

    /** About four significant digits, fixed-point (e.g. 0.01234, 12.35, 1234.5, 123457); NaN as "NaN". */
    public static String number(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) return Double.toString(v);
        double a = Math.abs(v);
        if (a == 0) return "0";
        if (a >= 1e9) return String.format(Locale.ROOT, "%.3e", v);
        if (a >= 1000) return String.format(Locale.ROOT, "%.0f", v);
        if (a >= 100) return String.format(Locale.ROOT, "%.1f", v);
        if (a >= 10) return String.format(Locale.ROOT, "%.2f", v);
        if (a >= 1) return String.format(Locale.ROOT, "%.3f", v);
        if (a >= 1e-4) return new java.math.BigDecimal(String.format(Locale.ROOT, "%.4g", v)).stripTrailingZeros().toPlainString();
        return String.format(Locale.ROOT, "%.3e", v);
    }

    /** Milliseconds for a table cell: "0.1234", "12.35", "1234". */
    public static String millis(double ms) { return number(ms); }

    /** A duration for prose: "850 µs", "12.3 ms", "4.56 s". */
    public static String duration(double ms) {
        if (ms < 1) return number(ms * 1e3) + " µs";
        if (ms < 1000) return number(ms) + " ms";
        return number(ms / 1e3) + " s";
    }

    /** Bytes per second as GB/s (10^9), e.g. "3712.5 GB/s". */
    public static String gbps(double bytesPerSecond) { return number(bytesPerSecond / 1e9) + " GB/s"; }

    /** A byte count in binary units: "512 B", "1.50 KiB", "80.0 GiB". */
    public static String bytes(long b) {
        if (b < 1024) return b + " B";
        String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB"};
        double v = b;
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, v >= 100 ? "%.0f %s" : v >= 10 ? "%.1f %s" : "%.2f %s", v, units[u]);
    }

    /** A count with thousands separators: 16,777,216. */
    public static String count(long n) { return String.format(Locale.ROOT, "%,d", n); }

    /** A count as the power of two it is, when it is one: "2^24 (16,777,216)"; else {@link #count}. */
    public static String powerOfTwo(long n) {
        if (n > 0 && Long.bitCount(n) == 1) return "2^" + Long.numberOfTrailingZeros(n) + " (" + count(n) + ")";
        return count(n);
    }

    /** A ratio as a percentage with one decimal: "87.3%"; "-" when the denominator is not positive. */
    public static String percent(double part, double whole) {
        if (!(whole > 0) || Double.isNaN(part)) return "-";
        return String.format(Locale.ROOT, "%.1f%%", 100 * part / whole);
    }

    /** A tolerance as people write it: 1e-5, 2.5e-7. */
    public static String tolerance(double t) {
        String s = String.format(Locale.ROOT, "%.1e", t).replace(".0e", "e");
        return s.replace("e-0", "e-").replace("e+0", "e").replace("e+", "e");
    }

    /** A speedup factor: "1.00x", "2.33x", "30.0x". */
    public static String speedup(double factor) {
        if (Double.isNaN(factor) || Double.isInfinite(factor)) return "-";
        return String.format(Locale.ROOT, factor >= 100 ? "%.0fx" : factor >= 10 ? "%.1fx" : "%.2fx", factor);
    }
}
