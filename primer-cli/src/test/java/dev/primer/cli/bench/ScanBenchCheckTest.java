package dev.primer.cli.bench;

import dev.primer.BackendKind;
import dev.primer.DType;
import dev.primer.DeviceArray;
import dev.primer.Op;
import dev.primer.Primer;
import dev.primer.Reductions;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The scan rows' host check (cumprod_*, cumxor_*, the sampled sums): it accepts the CPU backend's
 * scans of the bench's data, and fails on one wrong output, wherever the check looks at every one.
 */
class ScanBenchCheckTest {
    private static final long[] SIZES = {1, 33, (1 << 16) + 3};

    @Test
    void productAndXorRowsAcceptTheCpuScanAndRejectOneWrongOutput() {
        Object[][] rows = {{Op.PROD, DType.DOUBLE}, {Op.PROD, DType.LONG}, {Op.XOR, DType.LONG}, {Op.XOR, DType.BYTE},
                {Op.SUM, DType.LONG}};
        try (Primer primer = Primer.open(BackendKind.CPU); Arena arena = Arena.ofShared()) {
            for (long n : SIZES) {
                for (Object[] row : rows) {
                    Op op = (Op) row[0];
                    DType type = (DType) row[1];
                    MemorySegment in = op == Op.PROD ? RandomHost.factors(arena.allocate(8 * n, 64), type, n, 61)
                            : RandomHost.fill(arena.allocate(8 * n, 64), type, n, 61);
                    MemorySegment out = cpuScan(primer, arena, op, type, in, n);
                    String what = op + " " + type + " n=" + n;
                    String verdict = ScanBench.check(in, op, type, out, type, n, true);
                    assertTrue(verdict.endsWith("ok"), what + ": " + verdict);
                    assertTrue(verdict.startsWith(n + " positions (every one)"), what + ": " + verdict);
                    long wrong = n / 2;
                    if (type == DType.BYTE) out.set(ValueLayout.JAVA_BYTE, wrong, (byte) (out.get(ValueLayout.JAVA_BYTE, wrong) ^ 4));
                    else out.setAtIndex(ValueLayout.JAVA_LONG, wrong, out.getAtIndex(ValueLayout.JAVA_LONG, wrong) ^ 4);
                    assertEquals("FAILED: 1 of " + n + " positions (every one) exact wrong, first at " + wrong,
                            ScanBench.check(in, op, type, out, type, n, true), what);
                }
            }
        }
    }

    @Test
    void theSampleLooksAtEvery65536thPositionAndTheLastTen() {
        long n = (1 << 17) + 5;
        try (Primer primer = Primer.open(BackendKind.CPU); Arena arena = Arena.ofShared()) {
            MemorySegment in = RandomHost.factors(arena.allocate(8 * n, 64), DType.LONG, n, 61);
            MemorySegment out = cpuScan(primer, arena, Op.PROD, DType.LONG, in, n);
            assertEquals("12 sampled positions exact ok", ScanBench.check(in, Op.PROD, DType.LONG, out, DType.LONG, n, false));
            out.setAtIndex(ValueLayout.JAVA_LONG, 1 << 16, ~out.getAtIndex(ValueLayout.JAVA_LONG, 1 << 16));
            assertTrue(ScanBench.check(in, Op.PROD, DType.LONG, out, DType.LONG, n, false).startsWith("FAILED: 1 of 12"));
        }
    }

    @Test
    void factorsKeepEveryProductExact() {
        long n = 4096;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment doubles = RandomHost.factors(arena.allocate(8 * n, 64), DType.DOUBLE, n, 5);
            MemorySegment longs = RandomHost.factors(arena.allocate(8 * n, 64), DType.LONG, n, 5);
            int negative = 0;
            for (long i = 0; i < n; i++) {
                double d = doubles.getAtIndex(ValueLayout.JAVA_DOUBLE, i);
                assertTrue(d == 1.0 || d == -1.0, "double factor " + d);
                if (d < 0) negative++;
                long x = longs.getAtIndex(ValueLayout.JAVA_LONG, i);
                assertTrue((x & 1) != 0 && Math.abs(x) <= 999, "long factor " + x);
            }
            assertTrue(negative > n / 4 && negative < 3 * n / 4, "signs drawn at random: " + negative + " of " + n);
            assertThrows(IllegalArgumentException.class, () -> RandomHost.factors(arena.allocate(4 * n), DType.INT, n, 5));
        }
    }

    @Test
    void operatorsWithoutAHostReferenceAreRefused() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(64);
            assertThrows(IllegalArgumentException.class, () -> ScanBench.check(s, Op.XOR, DType.INT, s, DType.INT, 4, true));
            assertThrows(IllegalArgumentException.class, () -> ScanBench.check(s, Op.PROD, DType.FLOAT, s, DType.FLOAT, 4, true));
            assertThrows(IllegalArgumentException.class, () -> ScanBench.check(s, Op.AND, DType.BYTE, s, DType.BYTE, 4, true));
        }
    }

    /** The inclusive scan of in on the CPU backend, copied back to a new host segment. */
    private static MemorySegment cpuScan(Primer primer, Arena arena, Op op, DType type, MemorySegment in, long n) {
        try (DeviceArray a = primer.upload(type, in, n); DeviceArray b = primer.allocate(type, n)) {
            primer.backend().scan(a, b, op, true, Reductions.identityBits(type, op));
            MemorySegment out = arena.allocate(8 * n, 64);
            b.copyTo(out);
            return out;
        }
    }
}
