package dev.primer.cli.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The performance targets of the issues, printed beside each result and marked met or missed. A
 * target against a baseline that is absent cannot be judged and says so. "Read bandwidth" targets
 * (reductions) are judged against the same run's read-only kernel (read_f32), "copy bandwidth"
 * targets (scans) against its device-to-device copy (read + write bytes).
 */
final class Targets {
    /** One condition: at least {@code value} × a library's speed, a fraction of copy or read bandwidth, or at most some µs. */
    record Condition(Kind kind, double value, String library) {
        enum Kind { SPEEDUP, COPY_FRACTION, READ_FRACTION, MAX_MICROS }

        String describe() {
            return switch (kind) {
                case SPEEDUP -> "≥ " + java.math.BigDecimal.valueOf(value).stripTrailingZeros().toPlainString() + "× " + library;
                case COPY_FRACTION -> String.format(Locale.ROOT, "≥ %.0f%% copy bw", 100 * value);
                case READ_FRACTION -> String.format(Locale.ROOT, "≥ %.0f%% read bw", 100 * value);
                case MAX_MICROS -> String.format(Locale.ROOT, "≤ %.0f µs", value);
            };
        }
    }

    /** The verdict on one record: "met", "missed: ...", or "unknown: ..." when a comparison is absent. */
    record Verdict(String target, String status) {}

    private static final Map<String, List<Condition>> TARGETS = Map.ofEntries(
            Map.entry("sum_f32", List.of(speedup(1.05, "cupy"), read(0.97))),
            Map.entry("sum_i32", List.of(speedup(1.8, "cupy"))),
            Map.entry("sum_f64", List.of(speedup(1.0, "cupy"))),
            Map.entry("max_f32", List.of(speedup(1.0, "cupy"), speedup(1.0, "torch"))),
            Map.entry("argmax_f32", List.of(speedup(1.0, "cupy"), speedup(1.0, "torch"))),
            Map.entry("sum_sync_f32_2^20", List.of(new Condition(Condition.Kind.MAX_MICROS, 10, null))),
            Map.entry("rows_sum_f32_2048x262144", List.of(speedup(1.0, "torch"), read(0.95))),
            Map.entry("rows_sum_f32_4Mx64", List.of(speedup(2.0, "torch"))),
            Map.entry("cumsum_f32", List.of(speedup(1.5, "torch"), speedup(3.0, "cupy"), copy(0.90))),
            Map.entry("cumsum_i32", List.of(speedup(1.5, "torch"), speedup(3.0, "cupy"), copy(0.90))),
            Map.entry("cumsum_i32_to_i32", List.of(speedup(1.5, "torch"), speedup(3.0, "cupy"), copy(0.90))));

    private Targets() {}

    private static Condition speedup(double v, String lib) { return new Condition(Condition.Kind.SPEEDUP, v, lib); }

    private static Condition copy(double f) { return new Condition(Condition.Kind.COPY_FRACTION, f, null); }

    private static Condition read(double f) { return new Condition(Condition.Kind.READ_FRACTION, f, null); }

    static boolean has(String name) { return TARGETS.containsKey(name); }

    /**
     * Judges a record; {@code speedupOver} gives Primer's speed relative to a library (baseline ms /
     * Primer ms, NaN when not comparable), {@code copyGbps} and {@code readGbps} the measured copy and
     * read bandwidths (NaN if absent).
     */
    static Verdict judge(BenchRecord r, java.util.function.ToDoubleFunction<String> speedupOver, double copyGbps,
                         double readGbps) {
        List<Condition> conditions = TARGETS.get(r.name());
        if (conditions == null) return null;
        String target = String.join(", ", conditions.stream().map(Condition::describe).toList());
        if (!r.ok()) return new Verdict(target, "missed: did not run");
        if (Boolean.FALSE.equals(r.verified())) return new Verdict(target, "missed: wrong answer");
        List<String> missed = new ArrayList<>(), unknown = new ArrayList<>();
        for (Condition c : conditions) {
            switch (c.kind()) {
                case SPEEDUP -> {
                    double x = speedupOver.applyAsDouble(c.library());
                    if (Double.isNaN(x)) unknown.add("no " + c.library() + " baseline");
                    // three decimals: a miss by less than 0.005 must not print as the target itself
                    else if (x < c.value()) missed.add(String.format(Locale.ROOT, "%.3f× %s", x, c.library()));
                }
                case COPY_FRACTION -> {
                    double f = r.gbps() / copyGbps;
                    if (Double.isNaN(f)) unknown.add("no copy bandwidth");
                    else if (f < c.value()) missed.add(String.format(Locale.ROOT, "%.1f%% of copy bw", 100 * f));
                }
                case READ_FRACTION -> {
                    double f = r.gbps() / readGbps;
                    if (Double.isNaN(f)) unknown.add("no read bandwidth");
                    else if (f < c.value()) missed.add(String.format(Locale.ROOT, "%.1f%% of read bw", 100 * f));
                }
                case MAX_MICROS -> {
                    double us = r.ms() * 1e3;
                    if (us > c.value()) missed.add(String.format(Locale.ROOT, "%.2f µs", us));
                }
            }
        }
        if (!missed.isEmpty()) return new Verdict(target, "missed: " + String.join(", ", missed)
                + (unknown.isEmpty() ? "" : "; " + String.join(", ", unknown)));
        if (!unknown.isEmpty()) return new Verdict(target, "unknown: " + String.join(", ", unknown));
        return new Verdict(target, "met");
    }
}
