package dev.primer.cli;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DemoCommandTest {

    @Test void everyPrimitivePassesOnTheCpu() {
        Cli.Result r = Cli.run("demo", "--backend", "cpu", "--size", "100000", "--reps", "1");
        assertEquals(0, r.exitCode(), r::toString);
        assertTrue(r.out().contains("checks passed"), r::toString);
        assertFalse(r.out().contains("FAILED"), r::toString);
        for (String p : new String[] {"sum", "argmax", "reduceRows", "reduceSegments", "inclusiveScan"}) {
            assertTrue(r.out().contains(p), p);
        }
    }

    @Test void sizeAndRepsAreBoundedNamingTheOption() {
        String[][] cases = {{"--size", "9223372036854775807"}, {"--size", "40"}, {"--size", "2^33"}, {"--reps", "2147483647"}};
        for (String[] c : cases) {
            Cli.Result r = Cli.run("demo", "--backend", "cpu", c[0], c[1]);
            assertEquals(2, r.exitCode(), r::toString);
            assertEquals(1, r.err().lines().count(), r::toString);
            assertTrue(r.err().startsWith("primer demo: " + c[0] + " "), r::toString);
            assertEquals("", r.out(), r::toString);
        }
    }

    @Test void checksCatchAWrongAnswer() {
        assertEquals(null, DemoCheck.compare(5L, 5L, 0));
        assertTrue(DemoCheck.compare(5L, 6L, 0).contains("expected 6"));
        assertEquals(null, DemoCheck.compare(1.000001f, 1.0f, 1e-5));
        assertTrue(DemoCheck.compare(1.0001f, 1.0f, 1e-5) != null);
        assertTrue(DemoCheck.compare(-0.0, 0.0, 0) != null, "exact comparison tells -0.0 from 0.0");
        var got = DemoCheck.HostVector.of(new long[] {1, 2, 3});
        var want = DemoCheck.HostVector.of(new long[] {1, 2, 4});
        assertTrue(DemoCheck.compare(got, want, 0).startsWith("1 of 3 differ; first at [2]"));
    }
}
