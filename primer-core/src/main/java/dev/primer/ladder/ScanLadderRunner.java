package dev.primer.ladder;

import dev.primer.DType;
import dev.primer.cuda.CudaContext;
import dev.primer.cuda.CudaEvent;
import dev.primer.cuda.CudaKernel;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * Runs the scan ladder on the GPU: every step on the same random input, verified element by element
 * against the CPU, then timed.
 *
 * <p>Per step: the output is poisoned (every byte 0xFF) and the step runs once on the input; every
 * element is checked (int32 exactly, with Java's wrap-around; float32 within the bound below). Then 2
 * warm-up runs and {@code repetitions} timed runs, each between two CUDA events on Primer's stream;
 * the median is reported. Everything a user would pay is inside the events: all launches of a step and,
 * for the single-pass steps, the memset that zeroes their tile counter and flags. Inputs under 200 MB
 * are copied into several buffers (same contents, different addresses; up to 32) and the timed runs
 * rotate through them, so a run does not find its input in the 60 MB L2 left by the previous one.
 *
 * <p>Float tolerance, for element i in tile k (k = 0 for the block-level steps, whose sums restart at each
 * tile): {@code |gpu_i - ref_i| <= eps * ((k + 2) * M_i + c * S_i) + (i + 1) * 2^-53 * S_i}, where eps =
 * 2^-23 (float32's machine epsilon, twice the unit roundoff u), ref_i the inclusive sum in double, S_i the
 * sum of |x_j| and M_i the largest |ref_j| over the same range, and c the step's
 * {@link ScanLadder#roundingDepth()}. Why: every scan here adds contiguous ranges. The additions whose
 * operands all lie in one tile form subtrees of depth at most c, whose rounding error is at most
 * c·u/(1-c·u)·(their sum of |x_j|) <= c·eps·(...) in total. The additions that join values from different
 * tiles are at most k + 1 for element i, whatever the order (any tree joining k + 2 pieces has k + 1
 * nodes), and each rounds a range sum, at most 2·M_i in magnitude, by at most u, i.e. eps·M_i. The last
 * term bounds the double reference's own error. A wrong element is typically off by at least one input
 * (~0.5) or a tile total (~tens): far outside the bound for small i, while the int32 run, which shares
 * every kernel line through templates, checks the logic exactly.
 */
public final class ScanLadderRunner {
    static final String MODULE = "scan_ladder";
    static final int WARMUPS = 2;
    /** Inputs smaller than this are rotated among several buffers. */
    static final long ROTATE_BELOW_BYTES = 200_000_000L;
    static final int MAX_INPUT_BUFFERS = 32;

    private ScanLadderRunner() {}

    /** Runs every step of the ladder, in order; see the class comment for what is measured. */
    public static List<LadderStep> run(CudaContext ctx, DType type, long n, int repetitions, Consumer<String> progress) {
        return run(ctx, List.of(ScanLadder.values()), type, n, repetitions, progress);
    }

    /** Runs the given steps, in the given order, on one shared input. */
    public static List<LadderStep> run(CudaContext ctx, List<ScanLadder> steps, DType type, long n, int repetitions,
                                       Consumer<String> progress) {
        ScanLadder.suffix(type);  // int32 and float32 only
        Objects.requireNonNull(ctx, "ctx");
        Objects.requireNonNull(steps, "steps");
        Consumer<String> say = progress == null ? line -> { } : progress;  // as the reduce ladder: progress is optional
        if (n < 1) throw new IllegalArgumentException("n must be >= 1: " + n);
        if (repetitions < 1) throw new IllegalArgumentException("repetitions must be >= 1: " + repetitions);
        for (ScanLadder step : steps) {
            if (ceilDiv(n, step.tileElements()) > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("n = " + n + " needs more than 2^31-1 tiles of " + step.tileElements());
            }
        }
        List<LadderStep> results = new ArrayList<>();
        try (Arena arena = Arena.ofConfined(); Bench bench = new Bench(ctx, type, n, arena, say)) {
            int index = 0;
            for (ScanLadder step : steps) {
                index++;
                say.accept(String.format("scan %s n=%d: %s (%d/%d)", type, n, step.id(), index, steps.size()));
                results.add(bench.measure(step, repetitions));
            }
        }
        return results;
    }

    /**
     * The kernel source of a step, as packed in the jar: the step's header followed by the ladder headers
     * it includes (each once), e.g. the device-level tile scan the last three steps share.
     */
    public static String source(ScanLadder step) {
        return LadderSource.withIncludes(step.sourceFile());
    }

    static long ceilDiv(long a, long b) { return (a + b - 1) / b; }

    /** Device and host buffers shared by all steps of one run, freed on close. */
    private static final class Bench implements AutoCloseable {
        private final CudaContext ctx;
        private final DType type;
        private final long n;
        private final long bytes;
        private final MemorySegment input;
        private final MemorySegment output;
        private final long[] inputs;
        private final long out;
        /** Tile sums (scan-then-propagate), or counter + flags + prefixes / status words (single pass). */
        private final long aux;
        private final Consumer<String> progress;

        Bench(CudaContext ctx, DType type, long n, Arena arena, Consumer<String> progress) {
            this.ctx = ctx;
            this.type = type;
            this.n = n;
            this.bytes = n * type.byteSize();
            this.progress = progress;
            input = arena.allocate(bytes, 64);
            output = arena.allocate(bytes, 64);
            fillRandom(input, type, n);
            int buffers = bytes >= ROTATE_BELOW_BYTES ? 1
                    : (int) Math.min(MAX_INPUT_BUFFERS, ceilDiv(ROTATE_BELOW_BYTES, bytes));
            inputs = new long[buffers];
            long deviceTiles = ceilDiv(n, deviceTile());
            long auxPointer = 0, outPointer = 0;
            try {
                for (int b = 0; b < buffers; b++) inputs[b] = ctx.allocate(bytes);
                outPointer = ctx.allocate(bytes);
                auxPointer = ctx.allocate(8 + 8 * deviceTiles);
            } catch (RuntimeException e) {
                for (long p : inputs) ctx.free(p);
                ctx.free(outPointer);
                throw e;
            }
            out = outPointer;
            aux = auxPointer;
            ctx.copyToDevice(inputs[0], input, bytes);
            for (int b = 1; b < buffers; b++) ctx.copyDeviceToDeviceAsync(inputs[b], inputs[0], bytes);
            ctx.synchronize();
        }

        private static int deviceTile() { return ScanLadder.SCAN_THEN_PROPAGATE.tileElements(); }

        LadderStep measure(ScanLadder step, int repetitions) {
            List<CudaKernel> kernels = step.kernelNames(type).stream().map(k -> ctx.module(MODULE).kernel(k)).toList();

            ctx.memset8(out, (byte) 0xFF, bytes);  // poison: an element the kernel skips cannot pass
            launch(step, kernels, inputs[0]);
            ctx.synchronize();
            ctx.copyToHost(output, out, bytes);
            String mismatch = type == DType.INT ? verifyInt(step, input, output, n) : verifyFloat(step, input, output, n);
            if (mismatch != null) progress.accept("scan " + step.id() + ": WRONG RESULT: " + mismatch);

            double[] millis = new double[repetitions];
            try (CudaEvent start = ctx.newEvent(); CudaEvent stop = ctx.newEvent()) {
                for (int r = -WARMUPS; r < repetitions; r++) {
                    long in = inputs[Math.floorMod(r, inputs.length)];
                    start.record();
                    launch(step, kernels, in);
                    stop.record();
                    double ms = stop.elapsedMillis(start);
                    if (r >= 0) millis[r] = ms;
                }
            }
            return new LadderStep(step.id(), step.title(), median(millis), 2.0 * bytes, mismatch == null,
                    note(step, mismatch));
        }

        private String note(ScanLadder step, String mismatch) {
            String what = switch (step.scope()) {
                case TILE -> "each " + step.tileElements() + "-element tile scanned on its own, "
                        + step.threadsPerBlock() + " threads per block";
                case DEVICE -> step.kernelBases().size() + (step.kernelBases().size() == 1 ? " launch" : " launches")
                        + ", " + step.tileElements() + "-element tiles, " + step.threadsPerBlock() + " threads per block"
                        + (step == ScanLadder.SCAN_THEN_PROPAGATE ? "" : "; zeroing the tile flags is timed");
            };
            return mismatch == null ? what : what + "; WRONG: " + mismatch;
        }

        /** One complete run of a step: everything that sits between the timing events. */
        private void launch(ScanLadder step, List<CudaKernel> k, long in) {
            int threads = step.threadsPerBlock();
            long tiles = ceilDiv(n, step.tileElements());
            switch (step) {
                case HILLIS_STEELE, BLELLOCH, BLELLOCH_PADDED, WARP_SHUFFLE ->
                        k.get(0).launch(tiles, threads, 0, in, out, n);
                case SCAN_THEN_PROPAGATE -> {
                    long tileSums = aux;
                    k.get(0).launch(tiles, threads, 0, in, out, n, tileSums);
                    k.get(1).launch(1, threads, 0, tileSums, tiles);
                    if (tiles > 1) k.get(2).launch(tiles - 1, threads, 0, out, n, tileSums);
                }
                case CHAINED -> {
                    // [tile counter, 4 bytes + 4 padding][flags: tiles x 4][inclusive prefixes: tiles x 4]
                    long counter = aux, flags = aux + 8, prefixes = aux + 8 + 4 * tiles;
                    ctx.memset32(aux, 0, 2 + tiles);
                    k.get(0).launch(tiles, threads, 0, in, out, n, flags, prefixes, counter);
                }
                case DECOUPLED_LOOKBACK -> {
                    // [tile counter, 4 bytes + 4 padding][status words: tiles x 8]
                    long counter = aux, status = aux + 8;
                    ctx.memset32(aux, 0, 2 + 2 * tiles);
                    k.get(0).launch(tiles, threads, 0, in, out, n, status, counter);
                }
            }
        }

        @Override
        public void close() {
            ctx.synchronize();
            for (long p : inputs) ctx.free(p);
            ctx.free(out);
            ctx.free(aux);
        }
    }

    static double median(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        int m = v.length / 2;
        return v.length % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
    }

    /** int32: full-range random ints; float32: uniform on [-1, 1) (multiples of 2^-23). Seeded by n. */
    static void fillRandom(MemorySegment segment, DType type, long n) {
        SplittableRandom random = new SplittableRandom(0x5CA4_1ADDE5L ^ n);
        if (type == DType.INT) {
            for (long i = 0; i < n; i++) segment.setAtIndex(ValueLayout.JAVA_INT, i, random.nextInt());
        } else {
            for (long i = 0; i < n; i++) segment.setAtIndex(ValueLayout.JAVA_FLOAT, i, random.nextFloat() * 2f - 1f);
        }
    }

    /** null when every element equals Java's wrapping int prefix sum (restarting per tile for TILE steps). */
    static String verifyInt(ScanLadder step, MemorySegment input, MemorySegment output, long n) {
        long tile = step.isDeviceWide() ? Long.MAX_VALUE : step.tileElements();
        int sum = 0;
        long wrong = 0;
        String first = null;
        for (long i = 0; i < n; i++) {
            if (i % tile == 0) sum = 0;
            sum += input.getAtIndex(ValueLayout.JAVA_INT, i);
            int got = output.getAtIndex(ValueLayout.JAVA_INT, i);
            if (got != sum) {
                if (first == null) first = "out[" + i + "] = " + got + ", expected " + sum;
                wrong++;
            }
        }
        return first == null ? null : first + " (" + wrong + " of " + n + " elements wrong)";
    }

    /** null when every element is within the bound of the class comment. */
    static String verifyFloat(ScanLadder step, MemorySegment input, MemorySegment output, long n) {
        final double eps = 0x1p-23, doubleUnit = 0x1p-53;
        long tile = step.isDeviceWide() ? Long.MAX_VALUE : step.tileElements();
        int depth = step.roundingDepth();
        double ref = 0, absSum = 0, maxAbsRef = 0;
        long wrong = 0, start = 0;
        String first = null;
        for (long i = 0; i < n; i++) {
            if (i % tile == 0) {
                ref = 0;
                absSum = 0;
                maxAbsRef = 0;
                start = i;
            }
            double x = input.getAtIndex(ValueLayout.JAVA_FLOAT, i);
            ref += x;
            absSum += Math.abs(x);
            maxAbsRef = Math.max(maxAbsRef, Math.abs(ref));
            long joins = step.isDeviceWide() ? i / step.tileElements() + 2 : 2;
            double tolerance = eps * (joins * maxAbsRef + depth * absSum) + (i - start + 1) * doubleUnit * absSum;
            float got = output.getAtIndex(ValueLayout.JAVA_FLOAT, i);
            if (!(Math.abs(got - ref) <= tolerance)) {  // NaN (the poison) fails too
                if (first == null) first = "out[" + i + "] = " + got + ", expected " + ref + " +- " + (float) tolerance;
                wrong++;
            }
        }
        return first == null ? null : first + " (" + wrong + " of " + n + " elements wrong)";
    }
}
