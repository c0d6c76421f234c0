package dev.primer.cli.bench;

import java.util.Arrays;
import java.util.function.IntConsumer;

/** Median and fastest of a set of timed repetitions, in milliseconds. */
record Timing(double medianMs, double minMs, int reps) {

    static Timing of(double[] millis) {
        if (millis.length == 0) throw new IllegalArgumentException("no repetitions");
        double[] sorted = millis.clone();
        Arrays.sort(sorted);
        int m = sorted.length / 2;
        double median = sorted.length % 2 == 1 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2;
        return new Timing(median, sorted[0], sorted.length);
    }

    /** Host wall time of each synchronous call (transfers, scalar-returning calls), after warm-up. */
    static Timing wall(int warmup, int reps, IntConsumer call) {
        for (int i = 0; i < warmup; i++) call.accept(i);
        double[] ms = new double[reps];
        for (int r = 0; r < reps; r++) {
            long t0 = System.nanoTime();
            call.accept(warmup + r);
            ms[r] = (System.nanoTime() - t0) / 1e6;
        }
        return of(ms);
    }
}
