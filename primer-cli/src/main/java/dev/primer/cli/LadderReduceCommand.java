package dev.primer.cli;

import dev.primer.DType;
import dev.primer.cuda.Cuda;
import dev.primer.cuda.CudaContext;
import dev.primer.ladder.LadderStep;
import dev.primer.ladder.ReduceLadder;
import dev.primer.ladder.ReduceLadderRunner;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/** {@code primer ladder reduce}: the reduction ladder (Harris' seven kernels and the steps after them). */
@Command(name = "reduce", mixinStandardHelpOptions = true, sortOptions = false,
        header = "The reduction ladder: Harris' seven kernels and the steps after them, measured and verified.",
        description = {
                "The reduction ladder: K1-K7 of Harris' \"Optimizing Parallel Reduction in CUDA\", then warp "
                        + "shuffles, per-warp partials, and atomic / spin-lock finishes; or, with --batched, the "
                        + "batched (one value per row) kernels. Each step is verified against the CPU and timed "
                        + "(CUDA events, median of --reps).",
                "--lecture g80 reproduces the lecture's configuration (2^22 int32, 128 threads) and prints its G80 "
                        + "figures beside ours; --lecture k40 likewise (2^26 int32, 1024 threads; K40m figures).",
                ""},
        footerHeading = "%nExamples:%n",
        footer = {
                "  primer ladder reduce --lecture g80",
                "  primer ladder reduce --n 28 --threads 256 --dtype float32 --plot reduce.svg",
                "  primer ladder reduce --steps K6,K7,WARP_PARTIALS --json",
                "  primer ladder reduce --batched --rows 4096 --cols 8192",
                "  primer ladder reduce --show K5"})
public final class LadderReduceCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Mixin LadderOptions options;

    @Option(names = "--threads", paramLabel = "T",
            description = "Threads per block, a power of two (2..1024). Default: 128 (256 with --batched).")
    Integer threads;

    @Option(names = "--lecture", paramLabel = "g80|k40",
            description = "The lecture's configuration: g80 = 2^22 int32, 128 threads; k40 = 2^26 int32, 1024 threads.")
    String lecture;

    @Option(names = "--steps", paramLabel = "K1,K7,...", split = ",", hideParamSyntax = true,
            description = "Run only these steps (ids as in the table). Default: all.")
    List<String> only;

    @Option(names = "--batched", description = "Run the batched kernels (BATCHED_V1, BATCHED_V2) on a rows × cols matrix.")
    boolean batched;

    @Option(names = "--rows", paramLabel = "R", description = "Rows of --batched. Default: " + ReduceLadderRunner.DEFAULT_BATCHED_ROWS + ".")
    Long rows;

    @Option(names = "--cols", paramLabel = "C", description = "Columns of --batched. Default: " + ReduceLadderRunner.DEFAULT_BATCHED_COLS + ".")
    Long cols;

    static final long DEFAULT_N = 1L << 22;
    static final int DEFAULT_THREADS = 128;

    @Override public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        if (options.show != null) {
            out.print(show(ReduceLadder.parse(options.show)));
            out.flush();
            return ExitCode.OK;
        }
        DType type = options.type();
        options.checkReps();
        options.checkPlot();
        if (!batched && (rows != null || cols != null)) throw CliException.usage("--rows/--cols go with --batched");
        if (batched && (options.n != null || lecture != null || only != null)) {
            throw CliException.usage("--batched takes --rows/--cols (and --threads), not --n, --lecture or --steps");
        }
        checkThreads();
        if (batched) checkMatrix(type);
        long n = DEFAULT_N;
        int blockSize = threads != null ? threads : batched ? ReduceLadderRunner.DEFAULT_BATCHED_BLOCK_SIZE : DEFAULT_THREADS;
        if (lecture != null) {
            if (options.n != null || threads != null) throw CliException.usage("--lecture sets --n and --threads; give one or the other");
            switch (lecture.trim().toLowerCase(Locale.ROOT)) {
                case "g80" -> { n = 1L << 22; blockSize = 128; }
                case "k40", "k40m" -> { n = 1L << 26; blockSize = 1024; }
                default -> throw CliException.usage("--lecture must be g80 or k40, not '" + lecture + "'");
            }
            if (type != DType.INT) throw CliException.usage("--lecture: the lectures reduced int32; drop --dtype " + options.dtype);
        } else if (options.n != null) {
            n = Sizes.parse(options.n, "--n");
        }
        List<ReduceLadder> steps = new ArrayList<>();
        if (only != null) for (String id : only) steps.add(ReduceLadder.parse(id));
        else steps.addAll(ReduceLadder.ladder());
        for (ReduceLadder s : steps) if (s.isBatched()) throw CliException.usage("--steps: " + s.id() + " is batched; use --batched");

        Main main = Main.of(spec);
        LadderOptions.requireGpu(main, "the reduction ladder");
        CudaContext ctx = Cuda.context();
        PrintWriter err = spec.commandLine().getErr();

        CopyBandwidth.Result copy;
        List<LadderStep> results;
        int total = (batched ? 2 : steps.size()) + 2; // the copy measurement, the input, each step
        try (ProgressBar bar = ProgressBar.start(err, "ladder reduce", total)) {
            bar.step("measuring copy bandwidth");
            copy = CopyBandwidth.gpu(ctx, ProgressBar.silent());
            if (batched) {
                long r = rows != null ? rows : ReduceLadderRunner.DEFAULT_BATCHED_ROWS;
                long c = cols != null ? cols : ReduceLadderRunner.DEFAULT_BATCHED_COLS;
                rows = r;
                cols = c;
                results = ReduceLadderRunner.runBatched(ctx, type, r, c, blockSize, options.reps, bar);
            } else {
                results = ReduceLadderRunner.run(ctx, type, n, blockSize, options.reps, bar, steps);
            }
        }
        Json config = Json.object().put("dtype", type.toString()).put("threads", blockSize).put("repetitions", options.reps);
        String description;
        if (batched) {
            config.put("rows", rows).put("cols", cols);
            description = String.format(Locale.ROOT, "%s, %,d rows × %,d cols, %d threads/block, median of %d runs",
                    type, rows, cols, blockSize, options.reps);
        } else {
            config.put("n", n);
            description = String.format(Locale.ROOT, "%s, n = %s, %d threads/block, median of %d runs",
                    type, Format.powerOfTwo(n), blockSize, options.reps);
        }
        LectureColumns figures = batched ? null : LectureColumns.forReduce(type, n, blockSize);
        LadderReport report = new LadderReport(batched ? "batched reduce ladder" : "reduce ladder", description, config,
                results, copy, ctx.device(), figures);
        if (options.json) out.println(report.json());
        else out.print(report.text(main.verbose()));
        int status = options.plot(report, report.allVerified() ? ExitCode.OK : ExitCode.CHECK_FAILED, spec);
        out.flush();
        return status;
    }

    /** --threads as ReduceLadderRunner takes it: a power of two up to 1024; at least 2 but for --batched. */
    private void checkThreads() {
        int min = batched ? 1 : 2;  // K1-K3 reduce blockSize elements per block: a block of 1 never gets to one value
        if (threads != null && (threads < min || threads > 1024 || Integer.bitCount(threads) != 1)) {
            throw CliException.usage("--threads must be a power of two from " + min + " to 1024, not " + threads);
        }
    }

    /** --rows and --cols as ReduceLadderRunner.runBatched takes them, and a matrix whose bytes fit in a long. */
    private void checkMatrix(DType type) {
        if (rows != null && (rows < 1 || rows > ReduceLadderRunner.MAX_BATCHED_ROWS)) {
            throw CliException.usage("--rows must be from 1 to " + ReduceLadderRunner.MAX_BATCHED_ROWS + ", not " + rows);
        }
        if (cols != null && cols < 0) throw CliException.usage("--cols must be >= 0, not " + cols);
        long r = rows != null ? rows : ReduceLadderRunner.DEFAULT_BATCHED_ROWS;
        long c = cols != null ? cols : ReduceLadderRunner.DEFAULT_BATCHED_COLS;
        if (Math.multiplyHigh(r, c) != 0 || r * c > Long.MAX_VALUE / type.byteSize()) {
            throw CliException.usage("--rows " + r + " × --cols " + c + " is too many elements");
        }
    }

    /** Title, story and kernel source of one step. */
    static String show(ReduceLadder step) {
        return LadderText.show(step.id(), step.title(), step.story(), step.sourceFile(), ReduceLadderRunner.source(step));
    }
}
