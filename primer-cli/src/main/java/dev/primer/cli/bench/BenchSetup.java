package dev.primer.cli.bench;

import dev.primer.DType;
import dev.primer.Primer;
import dev.primer.cuda.CudaContext;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * What every benchmark group needs: the GPU (as a CUDA context and as a Primer), how many warm-up
 * and timed repetitions to run, and the sizes. Sizes are those of bench/baselines.py, so records of
 * the same name pair up: 2^28 elements, or 2^24 with {@code --quick} (as baselines.py --quick).
 * {@code match} (null: all) picks the benchmarks that run by name ({@code --match}).
 */
record BenchSetup(CudaContext ctx, Primer gpu, boolean quick, Path segmentsFile, Pattern match, PrintWriter log) {
    static final int WARMUP = 3;
    /** Event-timed benchmarks also warm up for this long (at most WARMUP_MAX_RUNS runs), for the JIT. */
    static final long WARMUP_NANOS = 500_000_000L;
    static final int WARMUP_MAX_RUNS = 5000;

    int reps() { return quick ? 5 : 20; }

    /** Whether the benchmark of this name runs: --match finds in it, or there is no --match. */
    boolean selected(String name) { return match == null || match.matcher(name).find(); }

    long n() { return quick ? 1L << 24 : 1L << 28; }

    long[] rowsWide() { return quick ? new long[] {2048, 8192} : new long[] {2048, 262144}; }

    long[] rowsNarrow() { return quick ? new long[] {262144, 64} : new long[] {4194304, 64}; }

    /** Rows of 1 KiB (256 float32, 128 float64 or int64, 1024 int8 columns): rows_warp's range. */
    long[] rowsMiddle(DType type) { return new long[] {quick ? 65536 : 1048576, 1024 / type.byteSize()}; }

    long[] rowsMiddleLong() { return quick ? new long[] {4096, 4096} : new long[] {65536, 4096}; }

    long segmentValues() { return quick ? n() : 1L << 26; }

    long syncN() { return 1L << 20; }

    /**
     * Copies of an input set needed so that rotating through them defeats the L2 cache: one when the
     * set is at least 3 × L2, else enough for ~max(200 MB, 3.5 × L2) (baselines.py's rule).
     */
    int buffersFor(long setBytes) {
        long l2 = Math.max(ctx.device().l2CacheBytes(), 1 << 20);
        if (setBytes >= 3 * l2) return 1;
        double target = Math.max(200e6, 3.5 * l2);
        return (int) Math.ceil(target / setBytes);
    }

    void say(String line) {
        log.println(line);
        log.flush();
    }
}
