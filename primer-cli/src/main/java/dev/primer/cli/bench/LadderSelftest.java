package dev.primer.cli.bench;

import dev.primer.DType;
import dev.primer.cuda.CudaContext;
import dev.primer.ladder.LadderStep;
import dev.primer.ladder.ReduceLadderRunner;
import dev.primer.ladder.ScanLadderRunner;

import java.util.List;
import java.util.Locale;

/**
 * Self-test of the teaching ladders: every reduction step at every block size the module
 * instantiates (K6 and K7 are compiled once per block size), the batched kernels, and every scan
 * step, each at a small size with one timed repetition. The runners verify each step against the
 * CPU themselves; a step that is not verified fails here with the runner's note.
 */
final class LadderSelftest {
    static final long N = (1L << 16) + 3;

    private LadderSelftest() {}

    static void reduceLadder(CheckLog log, CudaContext ctx, boolean quick) {
        List<Integer> blocks = quick ? List.of(256) : List.of(2, 4, 8, 16, 32, 64, 128, 256, 512, 1024);
        for (DType type : List.of(DType.INT, DType.FLOAT)) {
            for (int block : blocks) {
                String part = String.format(Locale.ROOT, "reduce ladder %s n=%d block=%d", type, N, block);
                List<LadderStep> steps;
                try {
                    steps = ReduceLadderRunner.run(ctx, type, N, block, 1, null);
                } catch (RuntimeException | LinkageError e) {
                    log.skippedPart(part, e);
                    continue;
                }
                steps.forEach(s -> report(log, part, s));
            }
        }
    }

    static void batchedLadder(CheckLog log, CudaContext ctx, boolean quick) {
        long[][] shapes = quick ? new long[][] {{37, 5003}} : new long[][] {{1, 1}, {37, 5003}, {1000, 3}, {5, 0}};
        for (DType type : List.of(DType.INT, DType.FLOAT)) {
            for (long[] shape : shapes) {
                for (int block : quick ? List.of(256) : List.of(32, 256, 1024)) {
                    String part = String.format(Locale.ROOT, "batched ladder %s %dx%d block=%d", type, shape[0], shape[1], block);
                    List<LadderStep> steps;
                    try {
                        steps = ReduceLadderRunner.runBatched(ctx, type, shape[0], shape[1], block, 1, null);
                    } catch (RuntimeException | LinkageError e) {
                        log.skippedPart(part, e);
                        continue;
                    }
                    steps.forEach(s -> report(log, part, s));
                }
            }
        }
    }

    static void scanLadder(CheckLog log, CudaContext ctx, boolean quick) {
        List<Long> sizes = quick ? List.of(N) : List.of(1L, 5000L, N);
        for (DType type : List.of(DType.INT, DType.FLOAT)) {
            for (long n : sizes) {
                String part = String.format(Locale.ROOT, "scan ladder %s n=%d", type, n);
                List<LadderStep> steps;
                try {
                    steps = ScanLadderRunner.run(ctx, type, n, 1, line -> { });
                } catch (RuntimeException | LinkageError e) {
                    log.skippedPart(part, e);
                    continue;
                }
                steps.forEach(s -> report(log, part, s));
            }
        }
    }

    private static void report(CheckLog log, String part, LadderStep s) {
        log.record(part + ": " + s.id(), s.verified() ? null : "not verified: " + s.note());
    }
}
