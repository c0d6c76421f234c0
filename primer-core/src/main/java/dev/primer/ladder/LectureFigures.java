package dev.primer.ladder;

import dev.primer.DType;

import java.util.List;
import java.util.Optional;

/**
 * The published figures of the reduction ladder, printed beside the measured ones so a user sees how
 * far the hardware has come. Only figures that were published are here: where a source gives only some
 * steps, the others are absent, never interpolated.
 */
public final class LectureFigures {
    private LectureFigures() {}

    /** One published step: its {@link ReduceLadder#id()}, time (NaN when not published) and bandwidth. */
    public record Figure(String stepId, double millis, double gigabytesPerSecond) {
        public boolean hasMillis() { return !Double.isNaN(millis); }
    }

    /**
     * One published table: the hardware it ran on, its peak bandwidth as then quoted (bytes/s), the
     * problem (n elements of {@code type}, {@code blockSize} threads per block) and its figures.
     */
    public record Table(String hardware, double peakBytesPerSecond, String source, long n, DType type, int blockSize,
                        List<Figure> figures) {
        /** The figure for a step id such as {@code "K3"}, if this table has one. */
        public Optional<Figure> figure(String stepId) {
            return figures.stream().filter(f -> f.stepId.equalsIgnoreCase(stepId)).findFirst();
        }
    }

    /**
     * Harris, "Optimizing Parallel Reduction in CUDA" (NVIDIA, 2007): 2^22 ints, 128 threads per block,
     * on a G80 (384-bit bus at 900 MHz DDR: 86.4 GB/s peak).
     */
    public static final Table G80 = new Table("NVIDIA G80", 86.4e9,
            "Harris, Optimizing Parallel Reduction in CUDA (2007)", 1L << 22, DType.INT, 128, List.of(
                    new Figure("K1", 8.054, 2.083),
                    new Figure("K2", 3.456, 4.854),
                    new Figure("K3", 1.722, 9.741),
                    new Figure("K4", 0.965, 17.377),
                    new Figure("K5", 0.536, 31.289),
                    new Figure("K6", 0.381, 43.996),
                    new Figure("K7", 0.268, 62.671)));

    /**
     * The same kernels on a Tesla K40m (288 GB/s peak): 2^26 ints, 1024 threads per block. Only the first
     * and the last kernel's bandwidth are known.
     */
    public static final Table K40M = new Table("NVIDIA Tesla K40m", 288e9,
            "the lecture's kernels re-run on a K40m (first and last kernel only)", 1L << 26, DType.INT, 1024, List.of(
                    new Figure("K1", Double.NaN, 8.195),
                    new Figure("K7", Double.NaN, 96.867)));

    /** Every table, oldest first. */
    public static List<Table> all() { return List.of(G80, K40M); }
}
