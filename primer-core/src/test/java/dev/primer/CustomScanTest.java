package dev.primer;

import dev.primer.gpu.ScanPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static dev.primer.CustomScanOps.AFFINE16;
import static dev.primer.CustomScanOps.AFFINE32;
import static dev.primer.CustomScanOps.AFFINE4;
import static dev.primer.CustomScanOps.ABS_MAX;
import static dev.primer.CustomScanOps.BYTE_SUM;
import static dev.primer.CustomScanOps.FIRST_NONZERO;
import static dev.primer.CustomScanOps.FFILL;
import static dev.primer.CustomScanOps.FLOAT_SUM;
import static dev.primer.CustomScanOps.assertSameElements;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Scans with user-defined operators through the facade, on every backend: each element against a
 * sequential left fold with the operator's Java lambda (exact operators, int8 ones among them,
 * several not commutative), inclusive, exclusive from the identity and from an init, in place, on slices that
 * start 1..3 elements (int8: 1..15) past an alignment boundary, with poisoned guard elements around
 * the output; a float sum against the exact prefix within each backend's bound; then the GPU
 * against the CPU, and the argument checks.
 */
class CustomScanTest {
    static Iterable<BackendKind> backends() { return Backends.all().toList(); }

    private static final long[] SIZES = {0, 1, 31, 33, 1000, (1 << 16) + 1, 3 * (1 << 16) + 5};

    @ParameterizedTest
    @MethodSource("backends")
    void scansMatchASequentialFold(BackendKind kind) {
        try (Primer primer = Backends.open(kind); Arena arena = Arena.ofConfined()) {
            int config = 0;
            for (CustomOp op : CustomScanOps.EXACT) {
                for (long n : SIZES) {
                    config++;
                    MemorySegment x = CustomScanOps.input(arena, op, n, 31L * config);
                    long init = CustomScanOps.someInitBits(op, config);
                    int shifts = op.type() == DType.BYTE ? 16 : 4;  // within a 16-byte vector
                    int shift = config % shifts, outShift = (config / 4) % shifts;
                    check(primer, arena, op, x, n, Mode.INCLUSIVE, op.identityBits(), shift, outShift);
                    check(primer, arena, op, x, n, Mode.EXCLUSIVE, op.identityBits(), shift, (outShift + 1) % shifts);
                    check(primer, arena, op, x, n, Mode.EXCLUSIVE_INIT, init, shift, outShift);
                    check(primer, arena, op, x, n, Mode.INCLUSIVE, op.identityBits(), shift, -1);
                    check(primer, arena, op, x, n, Mode.EXCLUSIVE_INIT, init, shift, -1);
                }
            }
        }
    }

    /** More chunks than one CPU window (64 chunks of 2^16), and about 600 GPU tiles. */
    @ParameterizedTest
    @MethodSource("backends")
    void longScansAcrossManyChunksAndTiles(BackendKind kind) {
        long n = 70L * (1 << 16) + 3;
        try (Primer primer = Backends.open(kind); Arena arena = Arena.ofConfined()) {
            for (CustomOp op : new CustomOp[] {AFFINE32, AFFINE16, AFFINE4, FIRST_NONZERO}) {
                MemorySegment x = CustomScanOps.input(arena, op, n, 99);
                check(primer, arena, op, x, n, Mode.INCLUSIVE, op.identityBits(), 1, 0);
                check(primer, arena, op, x, n, Mode.EXCLUSIVE_INIT, CustomScanOps.someInitBits(op, 5), 0, -1);
            }
        }
    }

    /** The GPU against the CPU, element by element; a float sum (not exactly associative) within a bound. */
    @Test
    void gpuMatchesTheCpu() {
        Backends.assumeGpu();
        try (Primer gpu = Primer.open(BackendKind.GPU); Primer cpu = Primer.open(BackendKind.CPU);
             Arena arena = Arena.ofConfined()) {
            for (long n : new long[] {1, 33, 8191, 8193, 4097, (1 << 20) + 1, (1 << 24) + 7}) {
                for (CustomOp op : new CustomOp[] {FLOAT_SUM, AFFINE16, FFILL, ABS_MAX, AFFINE4, BYTE_SUM, FIRST_NONZERO}) {
                    for (boolean inclusive : new boolean[] {true, false}) {
                        MemorySegment x = CustomScanOps.input(arena, op, n, n ^ op.name().hashCode());
                        long init = inclusive ? op.identityBits() : CustomScanOps.someInitBits(op, n);
                        MemorySegment want = run(cpu, arena, op, x, n, inclusive, init);
                        MemorySegment got = run(gpu, arena, op, x, n, inclusive, init);
                        String what = op.name() + (inclusive ? " inclusive" : " exclusive") + " n=" + n;
                        if (op == FLOAT_SUM) {  // each backend within its own bound of the exact prefix (below)
                            assertExactOnSmallIntegers(what, gpu, cpu, arena, n, inclusive);
                        } else {
                            assertSameElements(what + " GPU vs CPU", op.type(), want, got, n);
                        }
                    }
                }
            }
        }
    }

    /** The ordered look-back: a float sum gives the same bits on every run. */
    @Test
    void gpuFloatSumsAreBitwiseIdenticalFromRunToRun() {
        Backends.assumeGpu();
        long n = (1L << 24) + 7;
        try (Primer gpu = Primer.open(BackendKind.GPU); Arena arena = Arena.ofConfined()) {
            MemorySegment x = CustomScanOps.input(arena, FLOAT_SUM, n, 7);
            MemorySegment first = run(gpu, arena, FLOAT_SUM, x, n, true, FLOAT_SUM.identityBits());
            for (int r = 1; r < 4; r++) {
                MemorySegment again = run(gpu, arena, FLOAT_SUM, x, n, true, FLOAT_SUM.identityBits());
                assertEquals(-1L, first.mismatch(again), "run " + r + " differs bitwise from run 0");
            }
        }
    }

    @ParameterizedTest
    @MethodSource("backends")
    void argumentErrorsNameTheArgument(BackendKind kind) {
        try (Primer primer = Backends.open(kind); Primer other = Primer.open(BackendKind.CPU);
             LongArray l = primer.upload(new long[10]); LongArray l2 = primer.allocateLongs(10);
             LongArray shorter = primer.allocateLongs(9); IntArray i = primer.upload(new int[10]);
             FloatArray f = primer.allocateFloats(10); LongArray foreign = other.allocateLongs(10);
             ByteArray b = primer.upload(new byte[10]); ByteArray b2 = primer.allocateBytes(10)) {
            expect("in", () -> primer.inclusiveScan(i, l, AFFINE32));
            expect("out", () -> primer.inclusiveScan(l, i, AFFINE32));
            expect("out has 9 elements", () -> primer.exclusiveScan(l, shorter, AFFINE32));
            expect("init", () -> primer.exclusiveScan(l, l2, AFFINE32, 1.5));
            expect("init", () -> primer.exclusiveScan(f, f, ABS_MAX, 1L));
            expect("init", () -> primer.exclusiveScan(i, i, AFFINE16, 1L << 40));
            expect("init", () -> primer.exclusiveScan(b, b2, AFFINE4, 200L));  // int8: -128..127
            expect("init", () -> primer.exclusiveScan(b, b2, AFFINE4, -129L));
            expect("init", () -> primer.exclusiveScan(b, b2, BYTE_SUM, 1.5));
            expect("in", () -> primer.inclusiveScan(i, b2, AFFINE4));
            expect("out", () -> primer.inclusiveScan(b, i, AFFINE4));
            expect("in", () -> primer.exclusiveScan(b, b2, AFFINE16));
            expect("out", () -> primer.inclusiveScan(l.slice(0, 9), l.slice(1, 10), AFFINE32));  // overlaps in partly
            expect("in", () -> primer.inclusiveScan(foreign, l2, AFFINE32));
            expect("out", () -> primer.inclusiveScan(l, foreign, AFFINE32));
            assertThrows(NullPointerException.class, () -> primer.inclusiveScan(l, l2, (CustomOp) null));
            assertThrows(NullPointerException.class, () -> primer.inclusiveScan(null, l2, AFFINE32));
            LongArray closed = primer.allocateLongs(10);
            closed.close();
            assertThrows(IllegalStateException.class, () -> primer.inclusiveScan(closed, l2, AFFINE32));
            assertThrows(IllegalStateException.class, () -> primer.exclusiveScan(l, closed, AFFINE32));
            // The message names the operator, as reduce's does.
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> primer.inclusiveScan(i, i, ABS_MAX));
            assertTrue(e.getMessage().contains("absmax"), e.getMessage());
        }
    }

    @Test
    void inPlaceScansOfTheSameArrayWork() {
        try (Primer primer = Primer.open(BackendKind.CPU); LongArray a = primer.upload(new long[] {3, 0, 0, 5, 0})) {
            CustomOp lastNonZero = CustomOp.ofLong("lastnz", "b != 0 ? b : a", 0L, (x, y) -> y != 0 ? y : x);
            primer.inclusiveScan(a, a, lastNonZero);
            assertEquals(java.util.List.of(3L, 3L, 3L, 5L, 5L), java.util.Arrays.stream(a.toArray()).boxed().toList());
            primer.exclusiveScan(a, a, lastNonZero, 7L);
            assertEquals(java.util.List.of(7L, 3L, 3L, 3L, 5L), java.util.Arrays.stream(a.toArray()).boxed().toList());
        }
    }

    /**
     * A worked example: int8 sums wrap as Java's (byte) cast does (the GPU narrows its int sums), in
     * place, exclusive from an init at the byte's limits.
     */
    @ParameterizedTest
    @MethodSource("backends")
    void int8SumsWrapAround(BackendKind kind) {
        try (Primer primer = Backends.open(kind); ByteArray a = primer.upload(new byte[] {100, 27, 1, -128, -1})) {
            primer.inclusiveScan(a, a, BYTE_SUM);
            assertArrayEquals(new byte[] {100, 127, -128, 0, -1}, a.toArray());
            primer.exclusiveScan(a, a, BYTE_SUM, Byte.MAX_VALUE);  // 127, 127 + 100, + 127, + -128, + 0
            assertArrayEquals(new byte[] {127, -29, 98, -30, -30}, a.toArray());
            primer.exclusiveScan(a, a, BYTE_SUM, Byte.MIN_VALUE);  // -128, -128 + 127, + -29, + 98, + -30
            assertArrayEquals(new byte[] {-128, -1, -30, 68, 38}, a.toArray());
        }
    }

    // ---- the machinery ----

    private enum Mode { INCLUSIVE, EXCLUSIVE, EXCLUSIVE_INIT }

    /**
     * Scans x (n elements) placed {@code shift} elements into an array, into an array at
     * {@code outShift} (in place when -1), poisoned around; checks every element and the guards.
     */
    private static void check(Primer primer, Arena arena, CustomOp op, MemorySegment x, long n, Mode mode, long init,
                              int shift, int outShift) {
        String what = op.name() + " " + mode + " n=" + n + " shift=" + shift + "/" + (outShift < 0 ? "in place" : outShift)
                + " init=0x" + Long.toHexString(init) + " on " + primer.kind();
        MemorySegment want = CustomScanOps.reference(arena, op, x, n, mode == Mode.INCLUSIVE, init);
        try (StagedScan scan = new StagedScan(primer, arena, op.type(), x, n, shift, outShift)) {
            switch (mode) {
                case INCLUSIVE -> primer.inclusiveScan(scan.in, scan.out, op);
                case EXCLUSIVE -> primer.exclusiveScan(scan.in, scan.out, op);
                case EXCLUSIVE_INIT -> CustomScanOps.withInit(op.type(), init,
                        v -> primer.exclusiveScan(scan.in, scan.out, op, v), v -> primer.exclusiveScan(scan.in, scan.out, op, v));
            }
            scan.assertOutput(what, arena, want);
        }
    }

    private static MemorySegment run(Primer primer, Arena arena, CustomOp op, MemorySegment x, long n, boolean inclusive,
                                     long init) {
        DType type = op.type();
        try (DeviceArray in = primer.upload(type, x, n); DeviceArray out = primer.allocate(type, n)) {
            out.copyFrom(arena.allocate(out.byteSize(), 8).fill(StagedScan.POISON));
            if (inclusive) primer.inclusiveScan(in, out, op);
            else CustomScanOps.withInit(type, init, v -> primer.exclusiveScan(in, out, op, v), v -> primer.exclusiveScan(in, out, op, v));
            MemorySegment got = arena.allocate(out.byteSize(), 8);
            out.copyTo(got);
            return got;
        }
    }

    /**
     * A float sum on each backend: every element within gamma(d) * (|init| + sum |x_j|) of the exact
     * prefix, gamma(d) = d u / (1 - d u), d the most roundings on an element's path to out[i] in that
     * backend's association ({@link #roundings}).
     */
    @ParameterizedTest
    @MethodSource("backends")
    void floatSumsStayWithinTheirBackendsBound(BackendKind kind) {
        try (Primer primer = Backends.open(kind); Arena arena = Arena.ofConfined()) {
            for (long n : new long[] {1, 33, 4097, 8193, (1 << 16) + 1, (1 << 20) + 1, (1 << 24) + 7}) {
                for (boolean inclusive : new boolean[] {true, false}) {
                    MemorySegment x = CustomScanOps.input(arena, FLOAT_SUM, n, n + 11);
                    long init = inclusive ? FLOAT_SUM.identityBits() : CustomScanOps.someInitBits(FLOAT_SUM, n);
                    MemorySegment got = run(primer, arena, FLOAT_SUM, x, n, inclusive, init);
                    assertWithinTheBound(kind + (inclusive ? " inclusive" : " exclusive") + " n=" + n, kind, x, n, init,
                            inclusive, got);
                }
            }
        }
    }

    /**
     * The most roundings on a path from an element (or init) to out[i] of a float32 sum scan.
     * CPU (CpuCustomScan): chunks of 2^16 (Parallel.CHUNK) are left folds, their totals chained into
     * carries, then each chunk scanned left to right from its carry; so i / 2^16 carries, up to
     * 2^16 - 1 roundings inside an earlier chunk's total and i mod 2^16 + 1 in out[i]'s own chunk.
     * GPU (device_scan, the ordered look-back): one rounding per preceding tile in the look-back's
     * left fold and a few dozen inside the tile (its thread, warp and block scans): i / tileItems + 64,
     * tileItems from ScanPolicy (a tile grid shifted by a misaligned start adds one tile, within the 64).
     */
    static long roundings(BackendKind kind, long i) {
        if (kind == BackendKind.GPU) return i / ScanPolicy.tileItems(DType.FLOAT, false) + 64;
        long chunk = 1 << 16, c = i / chunk, p = i % chunk;
        return c == 0 ? p + 1 : chunk - 1 + c + p + 1;
    }

    private static void assertWithinTheBound(String what, BackendKind kind, MemorySegment x, long n, long init,
                                             boolean inclusive, MemorySegment got) {
        double u = 0x1p-24, initValue = Float.intBitsToFloat((int) init);
        double hi = initValue, lo = 0, abs = Math.abs(initValue);  // hi + lo: the exact prefix, compensated (TwoSum)
        for (long i = 0; i < n; i++) {
            double xi = x.getAtIndex(ValueLayout.JAVA_FLOAT, i);
            double expectHi = hi, expectLo = lo, expectAbs = abs;  // exclusive: the prefix before x_i
            double t = hi + xi;
            lo += Math.abs(hi) >= Math.abs(xi) ? (hi - t) + xi : (xi - t) + hi;
            hi = t;
            abs += Math.abs(xi);
            if (inclusive) {
                expectHi = hi;
                expectLo = lo;
                expectAbs = abs;
            }
            long d = roundings(kind, i);
            double bound = d * u / (1 - d * u) * expectAbs;
            float g = got.getAtIndex(ValueLayout.JAVA_FLOAT, i);
            double error = Math.abs((g - expectHi) - expectLo);
            if (!(error <= bound)) {
                fail(what + ": element " + i + ": " + g + " is " + error + " from the exact " + (expectHi + expectLo)
                        + ", above gamma(" + d + ") = " + bound);
            }
        }
    }

    /**
     * The CPU's bound is loose past its first chunk (it must admit 2^16 roundings), too loose to see
     * a lost carry there. On small integers every float sum is exact, so both backends must give the
     * exact prefix, bit for bit, at every element.
     */
    private static void assertExactOnSmallIntegers(String what, Primer gpu, Primer cpu, Arena arena, long n,
                                                   boolean inclusive) {
        MemorySegment x = CustomScanOps.smallIntegerFloats(arena, n, n + 17);
        long init = inclusive ? FLOAT_SUM.identityBits() : Float.floatToRawIntBits(-5f) & 0xFFFF_FFFFL;
        MemorySegment exact = CustomScanOps.reference(arena, FLOAT_SUM, x, n, inclusive, init);
        for (Primer primer : new Primer[] {cpu, gpu}) {
            assertSameElements(what + ", small integers, " + primer.kind(), DType.FLOAT, exact,
                    run(primer, arena, FLOAT_SUM, x, n, inclusive, init), n);
        }
    }

    private static void expect(String start, Runnable call) {
        ArgumentMessages.assertStartsWith(start, assertThrows(IllegalArgumentException.class, call::run));
    }
}
