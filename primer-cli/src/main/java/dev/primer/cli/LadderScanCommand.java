package dev.primer.cli;

import dev.primer.DType;
import dev.primer.cuda.Cuda;
import dev.primer.cuda.CudaContext;
import dev.primer.ladder.LadderStep;
import dev.primer.ladder.ScanLadder;
import dev.primer.ladder.ScanLadderRunner;
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

/** {@code primer ladder scan}: the scan ladder, from Hillis-Steele to decoupled look-back. */
@Command(name = "scan", mixinStandardHelpOptions = true, sortOptions = false,
        header = "The scan ladder: Hillis-Steele to decoupled look-back, measured and verified.",
        description = {
                "The scan ladder (inclusive prefix sums): Hillis-Steele, Blelloch, Blelloch with conflict-free "
                        + "padding, warp shuffles (block level: each tile scanned on its own), then "
                        + "scan-then-propagate, chained scan and decoupled look-back (the whole array). Every step "
                        + "reads n and writes n elements; each is verified element by element against the CPU and "
                        + "timed (CUDA events, median of --reps).",
                ""},
        footerHeading = "%nExamples:%n",
        footer = {
                "  primer ladder scan",
                "  primer ladder scan --n 28 --dtype float32 --plot scan.png",
                "  primer ladder scan --steps chained,decoupled-lookback",
                "  primer ladder scan --show DECOUPLED_LOOKBACK"})
public final class LadderScanCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Mixin LadderOptions options;

    @Option(names = "--steps", paramLabel = "STEP,...", split = ",", hideParamSyntax = true,
            description = "Run only these steps (ids as in the table, or 1..7). Default: all.")
    List<String> only;

    static final long DEFAULT_N = 1L << 24;

    @Override public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        if (options.show != null) {
            ScanLadder step = ScanLadder.parse(options.show);
            out.print(LadderText.show(step.id(), step.title(), step.story(), step.sourceFile(), ScanLadderRunner.source(step)));
            out.flush();
            return ExitCode.OK;
        }
        DType type = options.type();
        options.checkReps();
        options.checkPlot();
        long n = options.n != null ? Sizes.parse(options.n, "--n") : DEFAULT_N;
        List<ScanLadder> steps = new ArrayList<>();
        if (only != null) for (String id : only) steps.add(ScanLadder.parse(id));
        else steps.addAll(List.of(ScanLadder.values()));

        Main main = Main.of(spec);
        LadderOptions.requireGpu(main, "the scan ladder");
        CudaContext ctx = Cuda.context();
        PrintWriter err = spec.commandLine().getErr();

        CopyBandwidth.Result copy;
        List<LadderStep> results;
        try (ProgressBar bar = ProgressBar.start(err, "ladder scan", steps.size() + 1)) {
            bar.step("measuring copy bandwidth");
            copy = CopyBandwidth.gpu(ctx, ProgressBar.silent());
            results = ScanLadderRunner.run(ctx, steps, type, n, options.reps, bar);
        }
        Json config = Json.object().put("dtype", type.toString()).put("n", n).put("repetitions", options.reps);
        String description = String.format(Locale.ROOT, "%s, n = %s, median of %d runs", type, Format.powerOfTwo(n), options.reps);
        LadderReport report = new LadderReport("scan ladder", description, config, results, copy, ctx.device(), null);
        if (options.json) out.println(report.json());
        else out.print(report.text(main.verbose()));
        int status = options.plot(report, report.allVerified() ? ExitCode.OK : ExitCode.CHECK_FAILED, spec);
        out.flush();
        return status;
    }
}
