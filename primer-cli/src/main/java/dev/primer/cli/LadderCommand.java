package dev.primer.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code primer ladder}: the optimisation ladders (reduce, scan), each step measured and verified. */
@Command(name = "ladder", mixinStandardHelpOptions = true,
        header = "Run an optimisation ladder (reduce, scan) the lectures' way, or --show a step's source.",
        synopsisSubcommandLabel = "(reduce | scan)",
        commandListHeading = "%nCommands:%n",
        description = {
                "Run an optimisation ladder on the GPU, the lectures' way: every kernel on the same random input, "
                        + "verified against the CPU, timed with CUDA events (median), and compared with the measured "
                        + "copy bandwidth and the theoretical peak; beside it the lectures' own figures when the "
                        + "configuration matches. --show prints a step's story and kernel source without a GPU.",
                ""},
        subcommands = {LadderReduceCommand.class, LadderScanCommand.class})
public final class LadderCommand implements Runnable {
    @Spec CommandSpec spec;

    @Override public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
