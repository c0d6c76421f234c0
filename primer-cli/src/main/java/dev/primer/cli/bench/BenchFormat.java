package dev.primer.cli.bench;

import java.util.Locale;

/** Number formatting shared by the progress lines and the Markdown report. */
final class BenchFormat {
    private BenchFormat() {}

    /** Milliseconds with four significant digits (launch overheads are microseconds). */
    static String ms(double ms) {
        if (Double.isNaN(ms)) return "–";
        if (ms >= 100) return String.format(Locale.ROOT, "%.1f", ms);
        if (ms >= 1) return String.format(Locale.ROOT, "%.3f", ms);
        return String.format(Locale.ROOT, "%.4g", ms);
    }

    static String gbps(double gbps) {
        return Double.isNaN(gbps) ? "–" : String.format(Locale.ROOT, "%.1f", gbps);
    }

    static String percent(double fraction) {
        return Double.isNaN(fraction) ? "–" : String.format(Locale.ROOT, "%.1f%%", 100 * fraction);
    }

    static String ratio(double r) {
        return Double.isNaN(r) ? "–" : String.format(Locale.ROOT, "%.2f×", r);
    }

    static String verified(Boolean v) {
        return v == null ? "n/a" : v ? "ok" : "FAILED";
    }

    /** The progress line printed as each benchmark finishes. */
    static String line(BenchRecord r) {
        if (!r.ok()) return String.format(Locale.ROOT, "%-12s %-28s ERROR %s", r.group(), r.name(), r.error());
        return String.format(Locale.ROOT, "%-12s %-28s %-8s %12s ms %9s GB/s  %-6s %s", r.group(), r.name(),
                r.dtype(), ms(r.ms()), gbps(r.gbps()), verified(r.verified()), r.note() == null ? "" : r.note());
    }
}
