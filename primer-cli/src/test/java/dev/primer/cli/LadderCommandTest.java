package dev.primer.cli;

import dev.primer.cuda.Cuda;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

class LadderCommandTest {
    @TempDir Path dir;

    @Test void showPrintsTheStoryAndTheKernelSourceWithoutAGpu() {
        Cli.Result r = Cli.run("ladder", "reduce", "--show", "K1");
        assertEquals(0, r.exitCode(), r::toString);
        assertTrue(r.out().startsWith("K1: interleaved addressing"), r::toString);
        assertTrue(r.out().contains("kernel source (reduce_k1_interleaved_divergent.cuh)"), r::toString);
        assertTrue(r.out().contains("__syncthreads()"), r::toString);
    }

    @Test void showOfTheScanLadder() {
        Cli.Result r = Cli.run("ladder", "scan", "--show", "decoupled-lookback");
        assertEquals(0, r.exitCode(), r::toString);
        assertTrue(r.out().startsWith("DECOUPLED_LOOKBACK: "), r::toString);
    }

    @Test void unknownStepNamesTheValidOnes() {
        Cli.Result r = Cli.run("ladder", "reduce", "--show", "K9");
        assertEquals(2, r.exitCode(), r::toString);
        assertTrue(r.err().contains("K7"), r::toString);
    }

    @Test void withoutAGpuTheLadderSaysWhyAndExitsThree() {
        assumeFalse(Cuda.isAvailable(), "a GPU is present");
        Cli.Result r = Cli.run("ladder", "reduce", "--lecture", "g80");
        assertEquals(3, r.exitCode(), r::toString);
        assertTrue(r.err().contains(Cuda.unavailableReason()), r::toString);
    }

    /** Exit 2 with one line naming the option, before the GPU is looked for (so also without one). */
    private static void assertUsage(String option, String... args) {
        Cli.Result r = Cli.run(args);
        assertEquals(2, r.exitCode(), r::toString);
        assertEquals(1, r.err().lines().count(), r::toString);
        assertTrue(r.err().startsWith("primer ladder "), r::toString);
        assertTrue(r.err().contains(option), r::toString);
    }

    @Test void optionsAreCheckedBeforeTheGpu() {
        assertUsage("--threads", "ladder", "reduce", "--threads", "3");
        assertUsage("--threads", "ladder", "reduce", "--threads", "1");
        assertUsage("--threads", "ladder", "reduce", "--threads", "2048");
        assertUsage("--threads", "ladder", "reduce", "--batched", "--threads", "0");
        assertUsage("--rows", "ladder", "reduce", "--batched", "--rows", "0");
        assertUsage("--cols", "ladder", "reduce", "--batched", "--cols", "-1");
        assertUsage("--rows", "ladder", "reduce", "--batched", "--rows", "2000000000", "--cols", "4000000000000000");
        assertUsage("--reps", "ladder", "scan", "--reps", "2147483647");
        assertUsage("--plot", "ladder", "reduce", "--plot", "chart.gif");
        assertUsage("--plot", "ladder", "scan", "--plot", "chart");
        assertUsage("--plot", "ladder", "scan", "--plot", dir.resolve("no-such-dir").resolve("chart.svg").toString());
    }

    @Test void aChartThatCannotBeWrittenNamesPlotAndKeepsAFailedVerification() throws IOException {
        LadderOptions options = new LadderOptions();
        options.plot = Files.createDirectory(dir.resolve("taken.svg"));  // a directory: the write fails
        options.checkPlot();
        CommandLine reduce = Main.commandLine().getSubcommands().get("ladder").getSubcommands().get("reduce");
        StringWriter err = new StringWriter();
        reduce.setErr(new PrintWriter(err, true));
        assertEquals(1, options.plot(LadderReportTest.report(false), ExitCode.CHECK_FAILED, reduce.getCommandSpec()));
        assertTrue(err.toString().startsWith("primer ladder reduce: cannot write --plot " + options.plot), err::toString);
        assertEquals(2, options.plot(LadderReportTest.report(true), ExitCode.OK, reduce.getCommandSpec()));
    }

    @Test void optionConflictsAreUsageErrors() {
        assertEquals(2, Cli.run("ladder", "reduce", "--lecture", "g80", "--n", "20").exitCode());
        assertEquals(2, Cli.run("ladder", "reduce", "--dtype", "float64").exitCode());
        assertEquals(2, Cli.run("ladder", "reduce", "--backend", "cpu").exitCode());
        assertEquals(2, Cli.run("ladder", "scan", "--n", "2^41").exitCode());
    }
}
