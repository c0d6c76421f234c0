package dev.primer.cli;

import dev.primer.cuda.Cuda;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/** bench and selftest: their options are checked before the GPU, and they write to the command's writers. */
class GpuOnlyCommandsTest {
    @TempDir Path dir;

    /** Exit 2 with one "primer COMMAND: ..." line that names the option, whether or not a GPU is present. */
    private static void assertUsage(Cli.Result r, String command, String option) {
        assertEquals(2, r.exitCode(), r::toString);
        assertEquals(1, r.err().lines().count(), r::toString);
        assertTrue(r.err().startsWith("primer " + command + ": "), r::toString);
        assertTrue(r.err().contains(option), r::toString);
    }

    @Test void benchChecksItsOptionsBeforeTheGpu() throws IOException {
        assertUsage(Cli.run("bench", "--only", "nope"), "bench", "--only");
        assertUsage(Cli.run("bench", "--match", "argmax_scan("), "bench", "--match");
        assertUsage(Cli.run("bench", "--baselines", dir.resolve("none.json").toString()), "bench", "--baselines");
        assertUsage(Cli.run("bench", "--segments", dir.resolve("none.npy").toString()), "bench", "--segments");
        Path file = Files.writeString(dir.resolve("a-file"), "");
        assertUsage(Cli.run("bench", "--out-dir", file.resolve("results").toString()), "bench", "--out-dir");
    }

    @Test void anUnwritableOutDirFailsBeforeTheRun() {
        assertUsage(Cli.run("bench", "--out-dir", "/proc/primer-results"), "bench", "--out-dir");
    }

    @Test void backendCpuIsAUsageError() {
        assertUsage(Cli.run("bench", "--backend", "cpu"), "bench", "GPU only");
        assertUsage(Cli.run("selftest", "--backend", "cpu"), "selftest", "GPU only");
        assertUsage(Cli.run("--backend", "cpu", "selftest", "--quick"), "selftest", "GPU only");
    }

    @Test void withoutAGpuTheyExitThreeOnTheCommandsErrorWriter() {
        assumeFalse(Cuda.isAvailable(), "a GPU is present");
        for (String command : new String[] {"bench", "selftest"}) {
            Cli.Result r = Cli.run(command, "--quick");
            assertEquals(3, r.exitCode(), r::toString);
            assertTrue(r.err().startsWith("primer " + command + ": ") && r.err().contains(Cuda.unavailableReason()), r::toString);
            assertEquals("", r.out(), r::toString);
        }
    }
}
