package dev.primer.cli;

import dev.primer.DType;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Options both ladders take (a picocli mixin). */
public final class LadderOptions {
    @Option(names = "--n", paramLabel = "N",
            description = "Elements: an exponent up to 40 (22 = 2^22), 2^22, a count (4194304) or 4M."
                    + " Default: 2^22 for reduce (the lecture's), 2^24 for scan.")
    String n;

    @Option(names = "--dtype", paramLabel = "int32|float32", defaultValue = "int32",
            description = "Element type. Default: int32.")
    String dtype;

    @Option(names = "--reps", paramLabel = "R", defaultValue = "20",
            description = "Timed runs per step (after warm-up); the median is reported. Default: 20.")
    int reps;

    @Option(names = "--show", paramLabel = "STEP",
            description = "Print the step's title, what it fixes and costs, and its kernel source; no GPU needed.")
    String show;

    @Option(names = "--plot", paramLabel = "FILE",
            description = "Also draw the lectures' bar chart (time and bandwidth per kernel) to FILE.svg or FILE.png.")
    Path plot;

    @Option(names = "--json", description = "Print one JSON object instead of the table.")
    boolean json;

    /** int32 or float32 (the ladders are compiled for these). */
    DType type() {
        DType t;
        try {
            t = DType.parse(dtype);
        } catch (IllegalArgumentException e) {
            throw CliException.usage("--dtype: " + e.getMessage());
        }
        if (t != DType.INT && t != DType.FLOAT) throw CliException.usage("--dtype: the ladders are compiled for int32 and float32, not " + t);
        return t;
    }

    void checkReps() {
        Reps.check(reps);
    }

    /** --plot: a .svg or .png file in an existing directory, checked before the ladder runs rather than after. */
    void checkPlot() {
        if (plot == null) return;
        Canvas.checkFile(plot);
        Path dir = plot.toAbsolutePath().getParent();
        if (dir != null && !Files.isDirectory(dir)) throw CliException.usage("--plot " + plot + ": no such directory " + dir);
    }

    /**
     * Draws the chart, when --plot asks for it, and returns the exit status. A chart that cannot be
     * written is reported naming --plot; it does not hide a failed verification (the status stays 1).
     */
    int plot(LadderReport report, int status, CommandSpec spec) {
        if (plot == null) return status;
        try {
            report.plot(plot);
            if (!json) spec.commandLine().getOut().println("wrote " + plot);
            return status;
        } catch (IOException e) {
            spec.commandLine().getErr().println(spec.qualifiedName() + ": cannot write --plot " + plot + ": " + Errors.explain(e));
            return status == ExitCode.OK ? ExitCode.USAGE : status;
        }
    }

    /** Exit 2 for --backend cpu, exit 3 with the reason when no GPU is usable. */
    static void requireGpu(Main main, String command) {
        Backends.requireGpuOnly(main.backend(), command, "; --show works anywhere");
    }
}
