package dev.primer.ladder;

/**
 * One measured rung of a ladder: what ran, how long it took (median over repetitions, CUDA events),
 * the effective bandwidth (bytes that must move / time) and whether its answer matched the CPU.
 * The table derives % of peak and the step / cumulative speedups from these.
 */
public record LadderStep(String id, String title, double millis, double bytesMoved, boolean verified, String note) {
    public double gigabytesPerSecond() { return bytesMoved / (millis * 1e-3) / 1e9; }
}
