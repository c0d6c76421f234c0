package dev.primer.cli;

import dev.primer.BackendKind;
import dev.primer.DType;
import picocli.CommandLine.Option;

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
        if (reps < 1) throw CliException.usage("--reps must be at least 1");
    }

    /** Exit 2 for --backend cpu, exit 3 with the reason when no GPU is usable. */
    static void requireGpu(Main main, String command) {
        if (main.backend() == BackendKind.CPU) throw CliException.usage(command + " runs on the GPU only (drop --backend cpu; --show works anywhere)");
        Backends.requireGpu(command);
    }
}
