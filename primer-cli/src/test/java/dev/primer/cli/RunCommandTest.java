package dev.primer.cli;

import dev.primer.io.Npy;
import dev.primer.io.NpyArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RunCommandTest {
    @TempDir Path dir;

    private Path ints(int n) throws IOException {
        int[] a = new int[n];
        for (int i = 0; i < n; i++) a[i] = i - 3;
        Path p = dir.resolve("ints.npy");
        Npy.write(p, a);
        return p;
    }

    private static void assertOneCleanLine(Cli.Result r) {
        assertEquals(2, r.exitCode(), r::toString);
        assertEquals(1, r.err().lines().count(), r::toString);
        assertFalse(r.err().contains("\tat "), "no stack trace without --verbose");
        assertTrue(r.err().startsWith("primer run: "), r::toString);
    }

    @Test void sumOfIntsIsExact() throws IOException {
        Path in = ints(1000);   // -3 .. 996
        Cli.Result r = Cli.run("run", "sum", in.toString(), "--backend", "cpu");
        assertEquals(0, r.exitCode(), r::toString);
        assertTrue(r.out().startsWith("sum = 496500\n"), r::toString);
    }

    @Test void jsonForScripts() throws IOException {
        Path in = dir.resolve("f.npy");
        Npy.write(in, new double[] {2.5, -1, 7, 7});
        Map<String, Object> m = MiniJson.object(Cli.run("run", "argmax", in.toString(), "--backend", "cpu", "--json").out());
        assertEquals(2.0, m.get("result"));
        assertEquals("float64", m.get("dtype"));
        assertEquals("int64", m.get("resultDtype"));
        assertEquals(4.0, m.get("n"));
        assertTrue((Double) m.get("millis") >= 0);
        Map<String, Object> s = MiniJson.object(Cli.run("run", "min", in.toString(), "--backend", "cpu", "--json").out());
        assertEquals(-1.0, s.get("result"));
    }

    @Test void perRowResultsGoToTheOutputFile() throws IOException {
        Path in = ints(12);     // rows: [-3..0], [1..4], [5..8]
        Path out = dir.resolve("rows.npy");
        Cli.Result r = Cli.run("run", "sum", in.toString(), "--rows", "3", "-o", out.toString(), "--backend", "cpu");
        assertEquals(0, r.exitCode(), r::toString);
        NpyArray result = Npy.read(out);
        assertEquals(dev.primer.DType.LONG, result.dtype());
        assertArrayEquals(new long[] {-6, 10, 26}, result.data().toArray(ValueLayout.JAVA_LONG));
        Cli.Result printed = Cli.run("run", "max", in.toString(), "--cols", "4", "--backend", "cpu");
        assertTrue(printed.out().contains("[2] 8"), printed::toString);
    }

    @Test void perSegmentWithInt32Offsets() throws IOException {
        Path in = ints(10);     // -3 .. 6
        Path offsets = dir.resolve("off.npy");
        Npy.write(offsets, new int[] {0, 3, 3, 10});
        Map<String, Object> m = MiniJson.object(Cli.run("run", "sum", in.toString(), "--offsets", offsets.toString(),
                "--backend", "cpu", "--json").out());
        assertEquals(List.of(-6.0, 0.0, 21.0), m.get("head"));
        assertEquals(3.0, m.get("segments"));
    }

    @Test void badOpListsTheValidOnes() throws IOException {
        Cli.Result r = Cli.run("run", "average", ints(4).toString(), "--backend", "cpu");
        assertOneCleanLine(r);
        assertTrue(r.err().contains("unknown op 'average'") && r.err().contains("inclusive-scan"), r::toString);
    }

    @Test void missingFile() {
        Cli.Result r = Cli.run("run", "sum", dir.resolve("nope.npy").toString(), "--backend", "cpu");
        assertOneCleanLine(r);
        assertTrue(r.err().contains("no such file") && r.err().contains("nope.npy"), r::toString);
    }

    @Test void malformedNpy() throws IOException {
        Path bad = dir.resolve("bad.npy");
        Files.writeString(bad, "this is not numpy");
        Cli.Result r = Cli.run("run", "sum", bad.toString(), "--backend", "cpu");
        assertOneCleanLine(r);
        assertTrue(r.err().contains("bad.npy"), r::toString);
    }

    @Test void operatorNotDefinedForTheDtype() throws IOException {
        Path in = dir.resolve("f.npy");
        Npy.write(in, new float[] {1, 2});
        assertOneCleanLine(Cli.run("run", "xor", in.toString(), "--backend", "cpu"));
    }

    @Test void verboseAddsTheStackTrace() {
        Cli.Result r = Cli.run("run", "sum", dir.resolve("nope.npy").toString(), "--backend", "cpu", "--verbose");
        assertEquals(2, r.exitCode(), r::toString);
        assertTrue(r.err().startsWith("primer run: no such file"), r::toString);
    }

    @Test void rowsOrColsWithOffsetsIsRejected() throws IOException {
        Path in = ints(12);
        Path offsets = dir.resolve("off.npy");
        Npy.write(offsets, new long[] {0, 3, 12});
        for (String option : new String[] {"--rows", "--cols"}) {
            Cli.Result r = Cli.run("run", "sum", in.toString(), option, "4", "--offsets", offsets.toString(), "--backend", "cpu");
            assertOneCleanLine(r);
            assertTrue(r.err().contains("--offsets"), r::toString);
        }
    }

    @Test void repsIsBounded() throws IOException {
        Cli.Result r = Cli.run("run", "sum", ints(4).toString(), "--reps", "2147483647", "--backend", "cpu");
        assertOneCleanLine(r);
        assertTrue(r.err().contains("--reps"), r::toString);
    }

    @Test void optionThatDoesNotFitTheOp() throws IOException {
        Cli.Result r = Cli.run("run", "sum", ints(4).toString(), "--init", "3", "--backend", "cpu");
        assertOneCleanLine(r);
    }
}
