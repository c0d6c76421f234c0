package dev.primer.ladder;

import dev.primer.DType;
import dev.primer.cuda.CudaContext;
import dev.primer.cuda.CudaEvent;
import dev.primer.cuda.CudaKernel;
import dev.primer.cuda.CudaModule;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.stream.LongStream;

/**
 * Runs the reduction ladder ({@link ReduceLadder}) on the GPU: every step on the same random input,
 * each verified against a CPU reference and timed with CUDA events.
 *
 * <p><b>Measuring.</b> The input is generated on the host (fixed seed; int32: uniformly random over all
 * 2^32 values, so large sums wrap around; float32: uniform in [-1, 1)) and uploaded once, into
 * ceil(200 MB / bytes) copies (at least one) that successive runs take in turn, so an input smaller
 * than L2 is not served from L2 by the previous run. Each step then does one verification run, two
 * warm-up runs and {@code repetitions} timed runs; a timed run is bracketed by two events and the step's
 * time is the median. The timed region is the whole reduction to one value: for the relaunch steps
 * (K1-K7, SHFL_DOWN, SHFL_XOR, WARP_PARTIALS) every launch of the lecture's host loop, which relaunches
 * the kernel on the per-block partials until one block is left; for ATOMIC_FINISH and LOCK_FINISH the
 * memsets that reset the result (and the lock word) plus the one launch. bytesMoved is n x sizeof(T),
 * the input read once.
 *
 * <p><b>Verifying.</b> Before the verification run the partials, the result and the lock are filled
 * with 0xFFFFFFFF (-1 / NaN), so a kernel that reads a slot it did not write is caught. int32 sums
 * must equal, bit for bit, the wrap-around sum Java's {@code int +=} gives. A float32 sum is compared
 * with a double-precision reference within the error bound of its summation tree:
 * |gpu - ref| &lt;= gamma(h) * sum|x| + (n + 1) 2^-53 sum|x|, gamma(h) = h u / (1 - h u), u = 2^-24,
 * where h bounds the number of float additions on any element's path to the result: per pass,
 * ceil(count / (grid x blockSize)) sequential additions in a thread plus log2(blockSize) tree levels,
 * summed over the passes, plus the grid size for the atomic and lock finishes (the partials are added
 * one after another). The last timed run's result must also equal the verification run's, bit for
 * bit, except for float32 with ATOMIC_FINISH and LOCK_FINISH, whose order of additions changes from run
 * to run (the note says so when it happened). Every device allocation is freed, also when a check fails
 * or a launch throws.
 */
public final class ReduceLadderRunner {
    private ReduceLadderRunner() {}

    /** The kernel module ({@code ladder/reduce_ladder.cu}). */
    public static final String MODULE = "reduce_ladder";
    /** Inputs smaller than this are replicated until the copies together are at least this large. */
    public static final long ROTATION_BYTES = 200_000_000L;
    /** Untimed runs of each step before the timed ones. */
    public static final int WARM_UP_RUNS = 2;
    /** The batched default: 2048 x 16384 float32 = 128 MiB, more than twice an H200's 60 MB L2. */
    public static final long DEFAULT_BATCHED_ROWS = 2048;
    public static final long DEFAULT_BATCHED_COLS = 16384;
    /** The most rows the batched ladder checks: its CPU reference holds a Java array of one answer per row. */
    public static final long MAX_BATCHED_ROWS = Integer.MAX_VALUE - 8;
    /** Threads per block of the batched kernels when the caller does not choose. */
    public static final int DEFAULT_BATCHED_BLOCK_SIZE = 256;

    static final long SEED = 0x5EED_1ADDE5L;
    private static final int CHUNK = 1 << 20;        // elements per host generation/reference task
    private static final long DEVICE_ALIGN = 256;     // each input copy starts on a 256-byte boundary
    private static final double U_FLOAT = 0x1p-24;    // unit roundoff of float32
    private static final double U_DOUBLE = 0x1p-53;   // unit roundoff of the double reference

    // =========================================================================== single-value ladder

    /**
     * Runs the ladder steps ({@link ReduceLadder#ladder()}: K1..K7, SHFL_DOWN, SHFL_XOR, WARP_PARTIALS,
     * ATOMIC_FINISH, LOCK_FINISH) on n random elements and returns one measured, verified step each, in
     * ladder order.
     *
     * @param ctx         the GPU context (module {@value #MODULE} is loaded from it)
     * @param type        {@link DType#INT} (int32, wrap-around sum) or {@link DType#FLOAT} (float32)
     * @param n           elements to reduce, &gt;= 0
     * @param blockSize   threads per block, a power of two from 2 to 1024 (K1-K3 reduce blockSize
     *                    elements per block, so a block of 1 would never get down to one value)
     * @param repetitions timed runs per step, &gt;= 1 (the step's time is their median)
     * @param progress    receives one line when the input is ready and one per step; may be null
     * @return one {@link LadderStep} per step: median milliseconds, bytesMoved = n x sizeof(T), whether
     *         the result matched the CPU, and a note (grids launched, error against bound, ...)
     * @throws IllegalArgumentException for another type, a negative n, a block size that is not a power
     *         of two in 2..1024 (the message names blockSize), repetitions &lt; 1, or an n whose first pass
     *         would need more than 2^31-1 blocks
     */
    public static List<LadderStep> run(CudaContext ctx, DType type, long n, int blockSize, int repetitions,
                                       Consumer<String> progress) {
        return run(ctx, type, n, blockSize, repetitions, progress, ReduceLadder.ladder());
    }

    /** As {@link #run(CudaContext, DType, long, int, int, Consumer)}, for the given (non-batched) steps only. */
    public static List<LadderStep> run(CudaContext ctx, DType type, long n, int blockSize, int repetitions,
                                       Consumer<String> progress, Collection<ReduceLadder> steps) {
        checkArguments(type, n, blockSize, repetitions);
        Objects.requireNonNull(ctx, "ctx");
        for (ReduceLadder step : steps) {
            if (step.isBatched()) throw new IllegalArgumentException(step.id() + " is batched: use runBatched");
        }
        Consumer<String> say = progress == null ? line -> { } : progress;
        final int size = type.byteSize();
        final long bytes = Math.multiplyExact(n, (long) size);

        CudaModule module = ctx.module(MODULE);
        List<Plan> plans = new ArrayList<>();
        for (ReduceLadder step : steps) plans.add(Plan.of(ctx, module, step, type, n, blockSize));
        long partialsA = 1, partialsB = 1;  // pass i writes buffer A when i is even, B when odd
        for (Plan p : plans) {
            if (p.step.finish() != ReduceLadder.Finish.RELAUNCH) continue;
            for (int i = 0; i < p.grids.length; i++) {
                if (i % 2 == 0) partialsA = Math.max(partialsA, p.grids[i]);
                else partialsB = Math.max(partialsB, p.grids[i]);
            }
        }

        List<LadderStep> out = new ArrayList<>();
        try (Arena arena = Arena.ofShared();
             DeviceMemory memory = new DeviceMemory(ctx);
             CudaEvent start = ctx.newEvent();
             CudaEvent stop = ctx.newEvent()) {
            MemorySegment host = arena.allocate(Math.max(bytes, 1), 64);
            fillRandom(host, type, n, SEED);
            Reference ref = Reference.of(host, type, n);
            RotatingInput input = new RotatingInput(ctx, memory, host, bytes);
            Buffers buffers = new Buffers(memory.allocate(partialsA * size), partialsA,
                    memory.allocate(partialsB * size), partialsB, memory.allocate(size), memory.allocate(4));
            say.accept(String.format(Locale.ROOT, "reduce ladder: %s, n = %,d (%s), blockSize %d, %d input cop%s"
                            + " rotated, %d timed runs per step (median)", type, n, megabytes(bytes), blockSize,
                    input.copies, input.copies == 1 ? "y" : "ies", repetitions));
            for (Plan plan : plans) {
                LadderStep result = measure(ctx, plan, type, n, ref, input, buffers, repetitions, start, stop);
                say.accept(line(result));
                out.add(result);
            }
        }
        return out;
    }

    static void checkArguments(DType type, long n, int blockSize, int repetitions) {
        ReduceLadder.suffix(Objects.requireNonNull(type, "type"));
        if (n < 0) throw new IllegalArgumentException("n must be >= 0, got " + n);
        ReduceLadder.requirePowerOfTwoBlock(blockSize);
        if (blockSize < 2) {
            throw new IllegalArgumentException("blockSize must be at least 2 for the ladder: K1-K3 reduce blockSize"
                    + " elements per block, so blockSize 1 leaves as many partials as inputs, got " + blockSize);
        }
        if (repetitions < 1) throw new IllegalArgumentException("repetitions must be >= 1, got " + repetitions);
    }

    /** One step's launch sequence: the grid and element count of every pass, fixed by n and blockSize. */
    private static final class Plan {
        final ReduceLadder step;
        final CudaKernel kernel;
        final int blockSize;
        final int sharedBytes;
        final long[] grids;
        final long[] counts;
        final long wave;            // blocks in one full wave (ONE_WAVE steps), else 0
        final int residentPerSm;
        final double depth;         // additions on the longest path from an element to the result

        private Plan(ReduceLadder step, CudaKernel kernel, int blockSize, int sharedBytes, long[] grids,
                     long[] counts, long wave, int residentPerSm, double depth) {
            this.step = step;
            this.kernel = kernel;
            this.blockSize = blockSize;
            this.sharedBytes = sharedBytes;
            this.grids = grids;
            this.counts = counts;
            this.wave = wave;
            this.residentPerSm = residentPerSm;
            this.depth = depth;
        }

        static Plan of(CudaContext ctx, CudaModule module, ReduceLadder step, DType type, long n, int blockSize) {
            CudaKernel kernel = module.kernel(step.kernelName(type, blockSize));
            int shared = blockSize * type.byteSize();
            int resident = 0;
            long wave = 0;
            if (step.grid() == ReduceLadder.Grid.ONE_WAVE) {
                // K7's fixed grid: as many blocks as the GPU runs at once, so every block is resident,
                // each thread walks n / (wave x blockSize) elements, and there is no tail wave.
                resident = Math.max(1, kernel.maxActiveBlocksPerSm(blockSize, shared));
                wave = (long) ctx.device().multiprocessorCount() * resident;
            }
            long tile = (long) blockSize * step.elementsPerThread();
            int levels = Integer.numberOfTrailingZeros(blockSize);
            List<long[]> passes = new ArrayList<>();
            long count = n;
            double depth = 0;
            while (true) {
                long grid = Math.max(1, Math.ceilDiv(count, tile));
                if (wave > 0) grid = Math.min(grid, wave);
                if (grid > Integer.MAX_VALUE) {
                    throw new IllegalArgumentException(step.id() + ": n = " + count + " needs " + grid + " blocks of "
                            + blockSize + " threads, more than the 2^31-1 a grid holds; use a larger blockSize");
                }
                passes.add(new long[] {grid, count});
                depth += Math.ceilDiv(Math.max(count, 1), grid * blockSize) + levels;
                if (step.finish() != ReduceLadder.Finish.RELAUNCH) {
                    depth += grid;  // the blocks' sums are added into the result one after another
                    break;
                }
                if (grid == 1) break;
                if (grid >= count) throw new IllegalStateException(step.id() + ": pass over " + count + " makes no progress");
                count = grid;
            }
            long[] grids = passes.stream().mapToLong(p -> p[0]).toArray();
            long[] counts = passes.stream().mapToLong(p -> p[1]).toArray();
            return new Plan(step, kernel, blockSize, shared, grids, counts, wave, resident, depth);
        }

        /** Runs the whole reduction once on {@code input}; returns the device address of the result. */
        long execute(CudaContext ctx, long input, Buffers buffers) {
            switch (step.finish()) {
                case RELAUNCH -> {
                    // The lecture's host loop: the same kernel again on the partials until one is left.
                    long src = input;
                    for (int i = 0; i < grids.length; i++) {
                        long dst = i % 2 == 0 ? buffers.partialsA : buffers.partialsB;
                        kernel.launch(grids[i], blockSize, sharedBytes, src, dst, counts[i]);
                        src = dst;
                    }
                    return src;
                }
                case ATOMIC -> {
                    ctx.memset32(buffers.result, 0, 1);  // 0 is the bit pattern of int 0 and of 0.0f
                    kernel.launch(grids[0], blockSize, sharedBytes, input, buffers.result, counts[0]);
                    return buffers.result;
                }
                case LOCK -> {
                    ctx.memset32(buffers.result, 0, 1);
                    ctx.memset32(buffers.lock, 0, 1);
                    kernel.launch(grids[0], blockSize, sharedBytes, input, buffers.result, counts[0], buffers.lock);
                    return buffers.result;
                }
                default -> throw new IllegalStateException(step + " is not a single-value step");
            }
        }

        String shape() {
            StringBuilder s = new StringBuilder();
            if (wave > 0) s.append("wave ").append(wave).append(" = ").append(wave / residentPerSm)
                    .append(" SMs x ").append(residentPerSm).append("; ");
            s.append(grids.length == 1 ? "grid " : "grids ");
            for (int i = 0; i < grids.length; i++) s.append(i == 0 ? "" : " > ").append(grids[i]);
            return s.toString();
        }
    }

    private record Buffers(long partialsA, long partialsACount, long partialsB, long partialsBCount,
                           long result, long lock) {
        /** 0xFFFFFFFF everywhere: int -1, float NaN; a slot read before it is written shows. */
        void poison(CudaContext ctx) {
            ctx.memset32(partialsA, -1, partialsACount);
            ctx.memset32(partialsB, -1, partialsBCount);
            ctx.memset32(result, -1, 1);
            ctx.memset32(lock, -1, 1);
        }
    }

    private static LadderStep measure(CudaContext ctx, Plan plan, DType type, long n, Reference ref,
                                      RotatingInput input, Buffers buffers, int repetitions,
                                      CudaEvent start, CudaEvent stop) {
        buffers.poison(ctx);
        long resultAddress = plan.execute(ctx, input.next(), buffers);
        int first = ctx.readback(resultAddress, 4).get(ValueLayout.JAVA_INT, 0);

        for (int i = 0; i < WARM_UP_RUNS; i++) plan.execute(ctx, input.next(), buffers);
        double[] millis = new double[repetitions];
        long last = resultAddress;
        for (int r = 0; r < repetitions; r++) {
            long address = input.next();
            start.record();
            last = plan.execute(ctx, address, buffers);
            stop.record();
            millis[r] = stop.elapsedMillis(start);
        }
        int again = ctx.readback(last, 4).get(ValueLayout.JAVA_INT, 0);

        Check check = Check.of(type, first, ref, n, plan.depth);
        Check checkAgain = Check.of(type, again, ref, n, plan.depth);
        boolean orderDependent = type == DType.FLOAT && plan.step.finish() != ReduceLadder.Finish.RELAUNCH;
        boolean repeatable = first == again;
        boolean verified = check.ok && checkAgain.ok && (repeatable || orderDependent);
        StringBuilder note = new StringBuilder(plan.shape()).append("; ").append(check.detail);
        if (!checkAgain.ok) note.append("; a timed run: ").append(checkAgain.detail);
        if (!repeatable) {
            note.append(orderDependent ? "; result changed between runs (float atomics/lock: order-dependent)"
                    : "; result changed between runs (" + format(type, first) + " then " + format(type, again) + ")");
        } else if (orderDependent) {
            note.append("; order-dependent (float), may change between runs");
        }
        return new LadderStep(plan.step.id(), plan.step.title(), median(millis), (double) n * type.byteSize(),
                verified, note.toString());
    }

    // =========================================================================== batched

    /**
     * Runs BATCHED_V1 and BATCHED_V2 on a random row-major (rows, cols) matrix with
     * {@value #DEFAULT_BATCHED_BLOCK_SIZE} threads per block; see
     * {@link #runBatched(CudaContext, DType, long, long, int, int, Consumer)}.
     */
    public static List<LadderStep> runBatched(CudaContext ctx, DType type, long rows, long cols, int repetitions,
                                              Consumer<String> progress) {
        return runBatched(ctx, type, rows, cols, DEFAULT_BATCHED_BLOCK_SIZE, repetitions, progress);
    }

    /**
     * Runs the batched kernels (one value per row: {@link ReduceLadder#batched()}) on a random row-major
     * (rows, cols) matrix, measured and verified as {@link #run} does: every row is checked (int32 exact,
     * float32 within the bound with h = ceil(cols / blockSize) + log2(blockSize)), the output is
     * poisoned before the verification run, and the timed region is the one launch. bytesMoved is
     * rows x cols x sizeof(T). The defaults, {@value #DEFAULT_BATCHED_ROWS} x {@value #DEFAULT_BATCHED_COLS},
     * hold 128 MiB, more than an H200's L2.
     *
     * @throws IllegalArgumentException for another type, rows &lt; 1, cols &lt; 0, blockSize not a power of two
     *         in 1..1024, or repetitions &lt; 1
     */
    public static List<LadderStep> runBatched(CudaContext ctx, DType type, long rows, long cols, int blockSize,
                                              int repetitions, Consumer<String> progress) {
        ReduceLadder.suffix(Objects.requireNonNull(type, "type"));
        if (rows < 1) throw new IllegalArgumentException("rows must be >= 1, got " + rows);
        if (rows > MAX_BATCHED_ROWS) {  // the kernels loop over any number of rows; the check's arrays cannot
            throw new IllegalArgumentException("rows must be <= " + MAX_BATCHED_ROWS
                    + " (the CPU reference keeps one answer per row in a Java array), got " + rows);
        }
        if (cols < 0) throw new IllegalArgumentException("cols must be >= 0, got " + cols);
        ReduceLadder.requirePowerOfTwoBlock(blockSize);
        if (repetitions < 1) throw new IllegalArgumentException("repetitions must be >= 1, got " + repetitions);
        Objects.requireNonNull(ctx, "ctx");
        Consumer<String> say = progress == null ? line -> { } : progress;
        final int size = type.byteSize();
        final long n = Math.multiplyExact(rows, cols);
        final long bytes = Math.multiplyExact(n, (long) size);
        final long grid = Math.min(rows, Integer.MAX_VALUE);  // the kernels loop over rows beyond the grid
        final int shared = blockSize * size;
        final double depth = Math.ceilDiv(Math.max(cols, 1), blockSize) + Integer.numberOfTrailingZeros(blockSize);

        CudaModule module = ctx.module(MODULE);
        List<LadderStep> out = new ArrayList<>();
        try (Arena arena = Arena.ofShared();
             DeviceMemory memory = new DeviceMemory(ctx);
             CudaEvent start = ctx.newEvent();
             CudaEvent stop = ctx.newEvent()) {
            MemorySegment host = arena.allocate(Math.max(bytes, 1), 64);
            fillRandom(host, type, n, SEED);
            RowReference ref = RowReference.of(host, type, rows, cols);
            RotatingInput input = new RotatingInput(ctx, memory, host, bytes);
            long output = memory.allocate(rows * size);
            MemorySegment first = arena.allocate(rows * size, 64);
            MemorySegment again = arena.allocate(rows * size, 64);
            say.accept(String.format(Locale.ROOT, "batched reduce: %s, %,d rows x %,d cols (%s), blockSize %d,"
                            + " %d input cop%s rotated, %d timed runs per step (median)", type, rows, cols,
                    megabytes(bytes), blockSize, input.copies, input.copies == 1 ? "y" : "ies", repetitions));
            for (ReduceLadder step : ReduceLadder.batched()) {
                CudaKernel kernel = module.kernel(step.kernelName(type, blockSize));
                ctx.memset32(output, -1, rows);
                kernel.launch(grid, blockSize, shared, input.next(), output, rows, cols);
                ctx.copyToHost(first, output, rows * size);
                for (int i = 0; i < WARM_UP_RUNS; i++) kernel.launch(grid, blockSize, shared, input.next(), output, rows, cols);
                double[] millis = new double[repetitions];
                for (int r = 0; r < repetitions; r++) {
                    long address = input.next();
                    start.record();
                    kernel.launch(grid, blockSize, shared, address, output, rows, cols);
                    stop.record();
                    millis[r] = stop.elapsedMillis(start);
                }
                ctx.copyToHost(again, output, rows * size);

                String detail = ref.check(first, type, depth);
                boolean repeatable = first.mismatch(again) == -1;
                boolean verified = detail.startsWith("ok") && repeatable;
                String note = "grid " + grid + " x " + blockSize + " threads; " + detail
                        + (repeatable ? "" : "; result changed between runs");
                LadderStep result = new LadderStep(step.id(), step.title(), median(millis), (double) bytes, verified, note);
                say.accept(line(result));
                out.add(result);
            }
        }
        return out;
    }

    // =========================================================================== kernel source

    /**
     * The CUDA source of a step's kernel: its header {@link ReduceLadder#sourceFile()}, then the ladder
     * headers it includes (the helpers of earlier steps it calls), as the build packs them on the class path.
     *
     * @throws IllegalStateException when a header is not on the class path
     */
    public static String source(ReduceLadder step) {
        return LadderSource.withIncludes(step.sourceFile());
    }

    // =========================================================================== data and references

    /**
     * n random elements, the same for the same seed whatever the thread count: int32 uniform over all
     * 2^32 values; float32 uniform in [-1, 1) on a grid of 2^-23 (every value exact in float).
     */
    static void fillRandom(MemorySegment data, DType type, long n, long seed) {
        long chunks = Math.ceilDiv(n, CHUNK);
        LongStream.range(0, chunks).parallel().forEach(c -> {
            SplittableRandom random = new SplittableRandom(seed + c * 0x9E3779B97F4A7C15L);
            long from = c * CHUNK, to = Math.min(n, from + CHUNK);
            if (type == DType.INT) {
                for (long i = from; i < to; i++) data.setAtIndex(ValueLayout.JAVA_INT, i, random.nextInt());
            } else {
                for (long i = from; i < to; i++) {
                    data.setAtIndex(ValueLayout.JAVA_FLOAT, i, random.nextInt(1 << 24) * 0x1p-23f - 1f);
                }
            }
        });
    }

    /** The CPU answer: the int32 wrap-around sum, or the float32 elements' sum and absolute sum in double. */
    record Reference(int intSum, double sum, double absSum) {
        static Reference of(MemorySegment data, DType type, long n) {
            int chunks = Math.toIntExact(Math.ceilDiv(n, CHUNK));
            int[] ints = new int[chunks];
            double[] sums = new double[chunks], abs = new double[chunks];
            LongStream.range(0, chunks).parallel().forEach(cc -> {
                int c = (int) cc;
                long from = (long) c * CHUNK, to = Math.min(n, from + CHUNK);
                if (type == DType.INT) {
                    int s = 0;
                    for (long i = from; i < to; i++) s += data.getAtIndex(ValueLayout.JAVA_INT, i);  // wraps, as int32 on the GPU
                    ints[c] = s;
                } else {
                    double s = 0, a = 0;
                    for (long i = from; i < to; i++) {
                        float x = data.getAtIndex(ValueLayout.JAVA_FLOAT, i);
                        s += x;
                        a += Math.abs(x);
                    }
                    sums[c] = s;
                    abs[c] = a;
                }
            });
            int is = 0;
            double s = 0, a = 0;
            for (int c = 0; c < chunks; c++) {  // in chunk order: the same reference every time
                is += ints[c];
                s += sums[c];
                a += abs[c];
            }
            return new Reference(is, s, a);
        }
    }

    /** Per-row CPU answers for the batched kernels. */
    private record RowReference(long rows, long cols, int[] intSums, double[] sums, double[] absSums) {
        static RowReference of(MemorySegment data, DType type, long rows, long cols) {
            int r = Math.toIntExact(rows);
            int[] ints = new int[type == DType.INT ? r : 0];
            double[] sums = new double[type == DType.INT ? 0 : r], abs = new double[sums.length];
            LongStream.range(0, rows).parallel().forEach(row -> {
                long from = row * cols, to = from + cols;
                if (type == DType.INT) {
                    int s = 0;
                    for (long i = from; i < to; i++) s += data.getAtIndex(ValueLayout.JAVA_INT, i);
                    ints[(int) row] = s;
                } else {
                    double s = 0, a = 0;
                    for (long i = from; i < to; i++) {
                        float x = data.getAtIndex(ValueLayout.JAVA_FLOAT, i);
                        s += x;
                        a += Math.abs(x);
                    }
                    sums[(int) row] = s;
                    abs[(int) row] = a;
                }
            });
            return new RowReference(rows, cols, ints, sums, abs);
        }

        /** "ok ..." when every row matches, else which rows did not and the first of them. */
        String check(MemorySegment gpu, DType type, double depth) {
            long wrong = 0, firstWrong = -1;
            double worst = 0;  // largest |error| / bound over the rows (float)
            String firstDetail = "";
            for (int row = 0; row < rows; row++) {
                int bits = gpu.getAtIndex(ValueLayout.JAVA_INT, row);
                Check c = type == DType.INT ? Check.ofInt(bits, intSums[row])
                        : Check.ofFloat(bits, sums[row], absSums[row], cols, depth);
                if (type == DType.FLOAT && c.bound > 0) worst = Math.max(worst, c.error / c.bound);
                if (!c.ok) {
                    if (wrong++ == 0) {
                        firstWrong = row;
                        firstDetail = c.detail;
                    }
                }
            }
            if (wrong > 0) return "WRONG in " + wrong + " of " + rows + " rows, first row " + firstWrong + ": " + firstDetail;
            return type == DType.INT ? "ok, every row exact"
                    : String.format(Locale.ROOT, "ok, every row within bound (worst row at %.2g of its bound)", worst);
        }
    }

    /** One result against the reference. */
    record Check(boolean ok, double error, double bound, String detail) {
        static Check of(DType type, int bits, Reference ref, long n, double depth) {
            return type == DType.INT ? ofInt(bits, ref.intSum) : ofFloat(bits, ref.sum, ref.absSum, n, depth);
        }

        static Check ofInt(int gpu, int expected) {
            return gpu == expected ? new Check(true, 0, 0, "exact")
                    : new Check(false, Math.abs((double) gpu - expected), 0, "WRONG: got " + gpu + ", expected " + expected);
        }

        static Check ofFloat(int bits, double expected, double absSum, long n, double depth) {
            double gpu = Float.intBitsToFloat(bits);
            double bound = floatBound(depth, absSum, n);
            double error = Math.abs(gpu - expected);
            boolean ok = error <= bound;  // false for NaN
            String detail = ok
                    ? String.format(Locale.ROOT, "|error| %.3g <= bound %.3g", error, bound)
                    : String.format(Locale.ROOT, "WRONG: got %s, expected %.9g +- %.3g", Float.toString((float) gpu), expected, bound);
            return new Check(ok, error, bound, detail);
        }
    }

    /**
     * Error bound of a float32 summation tree in which no element passes through more than {@code depth}
     * roundings (Higham, Accuracy and Stability of Numerical Algorithms, 4.2), plus the double reference's own.
     */
    static double floatBound(double depth, double absSum, long n) {
        double hu = depth * U_FLOAT;
        double gamma = hu < 1 ? hu / (1 - hu) : Double.POSITIVE_INFINITY;
        return gamma * absSum + (n + 1) * U_DOUBLE * absSum;
    }

    // =========================================================================== device memory

    /** Every device allocation of one run, freed together (after a synchronize) even when a check fails. */
    private static final class DeviceMemory implements AutoCloseable {
        private final CudaContext ctx;
        private final List<Long> pointers = new ArrayList<>();

        DeviceMemory(CudaContext ctx) { this.ctx = ctx; }

        /** At least {@code bytes} (never a null pointer, even for 0 bytes). */
        long allocate(long bytes) {
            long p = ctx.allocate(Math.max(bytes, DEVICE_ALIGN));
            pointers.add(p);
            return p;
        }

        @Override
        public void close() {
            RuntimeException failure = null;
            try {
                ctx.synchronize();
            } catch (RuntimeException e) {
                failure = e;
            }
            for (int i = pointers.size() - 1; i >= 0; i--) {
                try {
                    ctx.free(pointers.get(i));
                } catch (RuntimeException e) {
                    if (failure == null) failure = e;
                    else failure.addSuppressed(e);
                }
            }
            pointers.clear();
            if (failure != null) throw failure;
        }
    }

    /**
     * The input, uploaded once and replicated on the device into enough copies (256-byte aligned) to
     * cover {@link #ROTATION_BYTES}; {@link #next()} hands them out in turn, so consecutive runs read
     * memory the previous run did not leave in L2.
     */
    private static final class RotatingInput {
        final long base;
        final long stride;
        final long copies;
        private long next;

        RotatingInput(CudaContext ctx, DeviceMemory memory, MemorySegment host, long bytes) {
            stride = Math.max(DEVICE_ALIGN, Math.ceilDiv(bytes, DEVICE_ALIGN) * DEVICE_ALIGN);
            copies = bytes == 0 ? 1 : Math.max(1, Math.ceilDiv(ROTATION_BYTES, stride));
            base = memory.allocate(Math.multiplyExact(stride, copies));
            ctx.copyToDevice(base, host, bytes);
            for (long have = 1; have < copies; ) {  // double the copies with each device-to-device copy
                long more = Math.min(have, copies - have);
                ctx.copyDeviceToDeviceAsync(base + have * stride, base, more * stride);
                have += more;
            }
            ctx.synchronize();
        }

        long next() { return base + (next++ % copies) * stride; }
    }

    // =========================================================================== formatting

    static double median(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        int m = v.length / 2;
        return v.length % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
    }

    private static String format(DType type, int bits) {
        return type == DType.INT ? Integer.toString(bits) : Float.toString(Float.intBitsToFloat(bits));
    }

    private static String megabytes(long bytes) {
        return String.format(Locale.ROOT, "%.1f MB", bytes / 1e6);
    }

    private static String line(LadderStep s) {
        return String.format(Locale.ROOT, "  %-13s %10.4f ms %9.1f GB/s  %-5s %s", s.id(), s.millis(),
                s.millis() > 0 ? s.gigabytesPerSecond() : 0.0, s.verified() ? "ok" : "WRONG", s.note());
    }
}
