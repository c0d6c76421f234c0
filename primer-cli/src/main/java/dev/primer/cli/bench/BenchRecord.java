package dev.primer.cli.bench;

/**
 * One measurement of {@code primer bench}: what ran (group, name, dtype, shape), how long it took
 * (median {@code ms} of {@code reps} timed runs, fastest {@code msMin}), the bytes that must move,
 * whether the answer matched the host reference, and a note. A benchmark that could not run carries
 * {@code error} instead of a time. Names of comparable benchmarks are those of bench/baselines.py.
 */
record BenchRecord(String group, String name, String dtype, String shape, long n, double bytes,
                   double ms, double msMin, int reps, Boolean verified, String note, String error) {

    static final String LIBRARY = "primer";

    /** Stands in for a benchmark that --match left out (Guard); dropped before the report. */
    static final BenchRecord NOT_SELECTED = new BenchRecord("", "", "", "", 0, 0, Double.NaN, Double.NaN, 0, null, null, null);

    static BenchRecord measured(String group, String name, String dtype, String shape, long n, double bytes,
                                Timing t, Boolean verified, String note) {
        return new BenchRecord(group, name, dtype, shape, n, bytes, t.medianMs(), t.minMs(), t.reps(), verified, note, null);
    }

    static BenchRecord failed(String group, String name, String dtype, String shape, Throwable error) {
        String message = error.getClass().getSimpleName() + (error.getMessage() == null ? "" : ": " + error.getMessage());
        return new BenchRecord(group, name, dtype, shape, 0, 0, Double.NaN, Double.NaN, 0, null, null, message);
    }

    boolean ok() { return error == null; }

    /** Effective bandwidth, GB/s (10^9 bytes per second): bytes / time, as baselines.py computes it. */
    double gbps() { return bytes > 0 && ms > 0 ? bytes / ms / 1e6 : Double.NaN; }

    /** A copy with {@code verified} and {@code note} replaced (verification runs after timing). */
    BenchRecord withVerification(Boolean verified, String note) {
        return new BenchRecord(group, name, dtype, shape, n, bytes, ms, msMin, reps, verified, note, error);
    }
}
