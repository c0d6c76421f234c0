package dev.primer.gpu;

import dev.primer.BackendKind;
import dev.primer.Backends;
import dev.primer.CustomOp;
import dev.primer.IntArray;
import dev.primer.LongArray;
import dev.primer.Op;
import dev.primer.Primer;
import dev.primer.cuda.Nvrtc;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * A GPU machine without NVRTC (scripts/gpu-suite.sh's stage "nonvrtc" runs this with
 * -Dprimer.nvrtc.library pointing nowhere): built-in operators work as usual, and every
 * user-defined one throws IllegalStateException saying NVRTC is missing, writing nothing.
 */
class WithoutNvrtcTest {
    private static final CustomOp MAX = CustomOp.ofInt("max", "a > b ? a : b", Integer.MIN_VALUE, Math::max);

    @BeforeEach
    void gpuWithoutNvrtc() {
        Backends.assumeGpu();
        assumeFalse(Nvrtc.isAvailable(), "NVRTC is present (the suite's stage nonvrtc runs this without it)");
    }

    @Test
    void builtInOperatorsRunAndUserDefinedOnesSayNvrtcIsMissing() {
        int n = 1000;
        int[] values = new Random(33).ints(n, -1000, 1000).toArray();
        try (Primer primer = Primer.open(BackendKind.GPU);
             IntArray x = primer.upload(values);
             IntArray out = primer.allocateInts(n);
             LongArray offsets = primer.upload(new long[] {0, 10, 10, 999, 1000})) {
            long sum = 0;
            for (int v : values) sum += v;
            assertEquals(sum, primer.sum(x));

            out.fill(0x5A5A5A5A);
            assertMissing(() -> primer.reduce(x, MAX));
            assertMissing(() -> primer.inclusiveScan(x, out, MAX));
            assertMissing(() -> primer.exclusiveScan(x, out, MAX));
            assertMissing(() -> primer.segmentedInclusiveScan(x, offsets, out, MAX));
            assertMissing(() -> primer.reduceSegments(x, offsets, MAX).close());
            assertMissing(() -> primer.reduceRows(x, 10, 100, MAX).close());
            int[] poison = new int[n];
            java.util.Arrays.fill(poison, 0x5A5A5A5A);
            assertArrayEquals(poison, out.toArray(), "a refused call wrote to out");

            primer.inclusiveScan(x, out, Op.MAX);  // the built-in operator, still there
            int[] expected = new int[n];
            for (int i = 0, m = Integer.MIN_VALUE; i < n; i++) expected[i] = m = Math.max(m, values[i]);
            assertArrayEquals(expected, out.toArray());
        }
    }

    private static void assertMissing(Runnable call) {
        IllegalStateException e = assertThrows(IllegalStateException.class, call::run);
        assertTrue(e.getMessage().contains(Nvrtc.unavailableReason()), e.getMessage());
    }
}
