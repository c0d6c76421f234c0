package dev.primer.cli.bench;

import dev.primer.BackendKind;
import dev.primer.Primer;
import dev.primer.cli.Backends;
import dev.primer.cli.ExitCode;
import dev.primer.cli.Main;
import dev.primer.cuda.Cuda;
import dev.primer.cuda.CudaContext;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

/**
 * {@code primer selftest}: runs every GPU kernel Primer ships at small sizes and checks each answer
 * against the CPU backend; small enough that compute-sanitizer (memcheck, racecheck, synccheck)
 * finishes in minutes. One line per check, then exactly {@code selftest: N passed, M failed}.
 */
@Command(name = "selftest", mixinStandardHelpOptions = true,
        description = "Run every GPU kernel at small sizes and check each answer against the CPU backend: "
                + "fill; reduce (every operator and dtype, argMin/argMax, NaN, overflow); rows and segments; "
                + "scans (inclusive, exclusive, segmented by flags and by offsets, running argMin/argMax); user-defined operators "
                + "(NVRTC: reduce and scans); the reduction, batched "
                + "and scan ladders. Sized for compute-sanitizer runs. Exit 1 if any check failed, 3 without a GPU.")
public final class SelftestCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Option(names = "--quick", description = "Fewer sizes and block sizes.")
    boolean quick;

    @Override
    public Integer call() {
        Backends.requireGpuOnly(Main.of(spec).backend(), "selftest", "; it checks the GPU against the CPU");
        PrintWriter out = spec.commandLine().getOut();
        CheckLog log = new CheckLog(out, verbose());
        CudaContext ctx = Cuda.context();
        try (Primer gpu = Primer.open(BackendKind.GPU); Primer cpu = Primer.open(BackendKind.CPU)) {
            log.note("GPU: " + gpu.description() + "; reference: " + cpu.description()
                    + "; kernel sources " + BenchEnvironment.kernelSourcesHash() + (quick ? "; --quick" : ""));
            Twins t = new Twins(gpu, cpu);
            part(log, "fill", () -> ReduceSelftest.fill(log, t, quick));
            part(log, "reduce", () -> ReduceSelftest.reduce(log, t, quick));
            part(log, "argMin/argMax", () -> ReduceSelftest.argExtreme(log, t, quick));
            part(log, "reduce special values", () -> ReduceSelftest.specials(log, t));
            part(log, "reduce overflow", () -> ReduceSelftest.overflow(log, t));
            part(log, "rows", () -> SegmentedSelftest.rows(log, t, quick));
            part(log, "segments", () -> SegmentedSelftest.segments(log, t, quick));
            part(log, "scan", () -> ScanSelftest.scans(log, t, quick));
            part(log, "argMin/argMax scans", () -> ScanSelftest.argScans(log, t, quick));
            part(log, "custom operators", () -> CustomSelftest.customOps(log, t, quick));
            part(log, "reduce ladder", () -> LadderSelftest.reduceLadder(log, ctx, quick));
            part(log, "batched ladder", () -> LadderSelftest.batchedLadder(log, ctx, quick));
            part(log, "scan ladder", () -> LadderSelftest.scanLadder(log, ctx, quick));
        }
        if (log.skipped() > 0) out.println("selftest: " + log.skipped() + " skipped (not supported by a backend)");
        out.println(log.summary());
        out.flush();
        return log.failed() > 0 ? ExitCode.CHECK_FAILED : ExitCode.OK;
    }

    /** Runs one part; anything that escapes its own checks (a missing class, a lost context) fails the part. */
    private static void part(CheckLog log, String name, Runnable body) {
        try {
            body.run();
        } catch (Throwable t) {
            if (t instanceof VirtualMachineError && !(t instanceof OutOfMemoryError)) throw (VirtualMachineError) t;
            log.skippedPart(name, t);
        }
    }

    private boolean verbose() {
        try {
            return Main.of(spec).verbose();
        } catch (RuntimeException e) {
            return false;
        }
    }
}
