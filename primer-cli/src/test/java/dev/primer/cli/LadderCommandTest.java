package dev.primer.cli;

import dev.primer.cuda.Cuda;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

class LadderCommandTest {

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

    @Test void optionConflictsAreUsageErrors() {
        assertEquals(2, Cli.run("ladder", "reduce", "--lecture", "g80", "--n", "20").exitCode());
        assertEquals(2, Cli.run("ladder", "reduce", "--dtype", "float64").exitCode());
        assertEquals(2, Cli.run("ladder", "reduce", "--backend", "cpu").exitCode());
        assertEquals(2, Cli.run("ladder", "scan", "--n", "2^41").exitCode());
    }
}
