package dev.primer;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The running argmin / argmax ({@link Primer#argExtremeScan}; {@link Primer#exclusiveArgExtremeScan}:
 * -1, then the inclusive answer one element later) on every backend against a sequential scan
 * written here in Java's order ({@code Float.compare} / {@code Double.compare}: -0.0 below 0.0; NaN
 * above every number for argmax, below every number for argmin): every type, sizes around the
 * GPU's tiles (8192 4-byte, 4096 8-byte, 32768 int8 elements) and the CPU's chunks (65536), inputs
 * that start 0..3 elements into their allocation, outputs at 8-byte and 16-byte boundaries, poisoned
 * with guards on both sides, every element checked, and the input checked unchanged. Three kinds of
 * data: few distinct values (ties everywhere: the first index must win), a rising trend with noise
 * (the extreme moves often, across tiles and chunks), and for floats NaNs of any sign and payload,
 * infinities and zeros of both signs.
 */
class ArgExtremeScanTest {
    static Iterable<BackendKind> backends() { return Backends.all().toList(); }

    // 0 last: the cases before it keep their random draws
    private static final long[] SIZES = {1, 2, 31, 33, 4095, 4097, 8191, 8193, 32767, 32769, 65535, 65537,
            3 * 65536 + 7, (1 << 20) + 1, 0};
    private static final long POISON = 0x5EED_0BAD_5EED_0BADL;
    private static final int GUARD = 8;

    enum Data { FEW_VALUES, RISING, SPECIALS }

    @ParameterizedTest
    @MethodSource("backends")
    void everyTypeMatchesASequentialScan(BackendKind kind) {
        SplittableRandom random = new SplittableRandom(2026_11_23);
        try (Primer primer = Backends.open(kind); Arena arena = Arena.ofConfined()) {
            int config = 0;
            for (DType type : DType.values()) {
                for (long n : SIZES) {
                    for (Data data : Data.values()) {
                        if (data == Data.SPECIALS && !type.isFloatingPoint()) continue;
                        MemorySegment x = data(arena, type, data, n, random);
                        checkArgmaxAndArgmin(primer, arena, type, x, n, config, data + " n=" + n + " on " + kind);
                        config += 2;
                    }
                }
            }
        }
    }

    /**
     * Integers at the ends of their range, where a GPU key equals the one that stands in for items
     * outside [0, n) (ArgScanOrder::WORST): inputs of nothing but the lowest or the highest value
     * (every index ties with index 0), and inputs mostly of one end with rare middle values and rarer
     * values of the other end, so that tiles tie with the tiles before them and the extreme moves late.
     */
    @ParameterizedTest
    @MethodSource("backends")
    void integersAtTheEndsOfTheirRange(BackendKind kind) {
        SplittableRandom random = new SplittableRandom(2026_11_24);
        try (Primer primer = Backends.open(kind); Arena arena = Arena.ofConfined()) {
            int config = 0;
            for (DType type : new DType[] {DType.BYTE, DType.INT, DType.LONG}) {
                for (long n : new long[] {1, 33, 8193, 65537, (1 << 20) + 1}) {
                    for (String data : RANGE_ENDS) {
                        MemorySegment x = rangeEnds(arena, type, data, n, random);
                        checkArgmaxAndArgmin(primer, arena, type, x, n, config, data + " n=" + n + " on " + kind);
                        config += 2;
                    }
                }
            }
        }
    }

    /**
     * Floats whose running extreme sits at zero: nothing but -0.0 and 0.0 (the extreme moves once,
     * from -0.0 to 0.0 for argmax, where the values compare equal), then a NaN late in the input
     * that takes over and then ties with later NaNs. The CPU's scan skips its key for values that
     * cannot take over by one float compare; these are the values where that compare says nothing.
     */
    @ParameterizedTest
    @MethodSource("backends")
    void zerosOfBothSignsThenNaNsAtTheRunningExtreme(BackendKind kind) {
        SplittableRandom random = new SplittableRandom(2026_11_25);
        try (Primer primer = Backends.open(kind); Arena arena = Arena.ofConfined()) {
            int config = 0;
            for (DType type : new DType[] {DType.FLOAT, DType.DOUBLE}) {
                for (long n : new long[] {2, 33, 65537, 3 * 65536 + 7}) {
                    for (boolean nans : new boolean[] {false, true}) {
                        MemorySegment x = arena.allocate(n * type.byteSize(), 8);
                        long firstNaN = nans ? n / 2 + random.nextLong(n - n / 2) : n;
                        for (long i = 0; i < n; i++) {
                            double v = i >= firstNaN && (i == firstNaN || random.nextInt(3) == 0) ? Double.NaN
                                    : random.nextInt(3) == 0 ? 0.0 : -0.0;
                            if (type == DType.FLOAT) x.setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i, (float) v);
                            else x.setAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, i, v);
                        }
                        checkArgmaxAndArgmin(primer, arena, type, x, n, config,
                                (nans ? "zeros then NaNs from " + firstNaN : "zeros") + " n=" + n + " on " + kind);
                        config += 2;
                    }
                }
            }
        }
    }

    @ParameterizedTest
    @MethodSource("backends")
    void argumentsAreCheckedBeforeAnythingRuns(BackendKind kind) {
        try (Primer primer = Backends.open(kind); Primer other = Primer.open(BackendKind.CPU);
             FloatArray in = primer.upload(new float[] {3, 1, 2}); LongArray out = primer.allocateLongs(3);
             LongArray shortOut = primer.allocateLongs(2); LongArray longs = primer.upload(new long[] {5, 6, 7});
             LongArray foreign = other.allocateLongs(3)) {
            out.fill(POISON);
            assertThrows(NullPointerException.class, () -> primer.argExtremeScan(null, out, true));
            assertThrows(NullPointerException.class, () -> primer.argExtremeScan(in, null, true));
            assertMessage(IllegalArgumentException.class, "out has 2 elements", () -> primer.argExtremeScan(in, shortOut, true));
            assertMessage(IllegalArgumentException.class, "out overlaps in", () -> primer.argExtremeScan(longs, longs, false));
            assertMessage(IllegalArgumentException.class, "out overlaps in",
                    () -> primer.argExtremeScan(longs.slice(0, 2), longs.slice(1, 3), false));
            assertMessage(IllegalArgumentException.class, "out belongs to another Primer",
                    () -> primer.argExtremeScan(in, foreign, true));
            assertThrows(NullPointerException.class, () -> primer.exclusiveArgExtremeScan(null, out, true));
            assertThrows(NullPointerException.class, () -> primer.exclusiveArgExtremeScan(in, null, false));
            assertMessage(IllegalArgumentException.class, "out has 2 elements", () -> primer.exclusiveArgExtremeScan(in, shortOut, false));
            assertMessage(IllegalArgumentException.class, "out overlaps in",
                    () -> primer.exclusiveArgExtremeScan(longs.slice(1, 3), longs.slice(0, 2), true));
            for (long v : out.toArray()) assertEquals(POISON, v, "a rejected call wrote out");
            assertEquals(5, longs.get(0), "a rejected call wrote in");
            primer.argExtremeScan(in, out, true);
            assertEquals(java.util.List.of(0L, 0L, 0L), boxed(out.toArray()));
            primer.argExtremeScan(in, out, false);
            assertEquals(java.util.List.of(0L, 1L, 1L), boxed(out.toArray()));
            primer.exclusiveArgExtremeScan(in, out, true);
            assertEquals(java.util.List.of(-1L, 0L, 0L), boxed(out.toArray()));
            primer.exclusiveArgExtremeScan(in, out, false);
            assertEquals(java.util.List.of(-1L, 0L, 1L), boxed(out.toArray()));
            in.close();
            assertThrows(IllegalStateException.class, () -> primer.argExtremeScan(in, out, true));
            assertThrows(IllegalStateException.class, () -> primer.exclusiveArgExtremeScan(in, out, true));
        }
    }

    // ---- one run ----

    /**
     * Both directions over x, inclusive and exclusive; configurations `config` and `config + 1` place
     * the input and the output (the exclusive output one place further on).
     */
    private static void checkArgmaxAndArgmin(Primer primer, Arena arena, DType type, MemorySegment x, long n, int config,
                                             String label) {
        for (boolean max : new boolean[] {true, false}) {
            int shift = config % 4;
            for (boolean inclusive : new boolean[] {true, false}) {
                int outShift = GUARD + (config + (inclusive ? 0 : 1)) % 3;
                String what = (max ? "argmax" : "argmin") + (inclusive ? "" : " exclusive") + " scan of " + type + " "
                        + label + " shift=" + shift + " out at " + outShift;
                check(primer, arena, type, max, inclusive, x, n, shift, outShift, what);
            }
            config++;
        }
    }

    private static void check(Primer primer, Arena arena, DType type, boolean max, boolean inclusive, MemorySegment x,
                              long n, int shift, int outShift, String what) {
        long[] want = inclusive ? reference(type, max, x, n) : exclusive(reference(type, max, x, n));
        try (DeviceArray base = primer.allocate(type, n + shift + GUARD);
             LongArray outBase = primer.allocateLongs(n + outShift + GUARD)) {
            MemorySegment host = arena.allocate(base.byteSize(), 8).fill((byte) 0x5A);
            MemorySegment.copy(x, 0, host, shift * type.byteSize(), n * type.byteSize());
            base.copyFrom(host);
            outBase.fill(POISON);
            DeviceArray in = slice(base, shift, shift + n);
            LongArray out = outBase.slice(outShift, outShift + n);
            if (inclusive) primer.argExtremeScan(in, out, max); else primer.exclusiveArgExtremeScan(in, out, max);

            long[] got = outBase.toArray();
            for (int g = 0; g < outShift; g++) assertEquals(POISON, got[g], what + ": guard before out, element " + g);
            for (int g = 0; g < GUARD; g++) assertEquals(POISON, got[(int) (outShift + n) + g], what + ": guard after out, element " + g);
            for (int i = 0; i < n; i++) {
                if (got[outShift + i] != want[i]) {
                    fail(what + ": out[" + i + "] = " + got[outShift + i] + ", expected " + want[i] + " (in[" + i + "] = "
                            + show(type, x, i) + (want[i] < 0 ? "" : ", in[expected] = " + show(type, x, want[i])) + ")");
                }
            }
            MemorySegment after = arena.allocate(base.byteSize(), 8);
            base.copyTo(after);
            assertEquals(-1, after.mismatch(host), what + ": the input changed");
        }
    }

    /** out[i] = the first index of the extreme of x[0 .. i], by a sequential scan. */
    static long[] reference(DType type, boolean max, MemorySegment x, long n) {
        long[] want = new long[(int) n];
        long best = -1;
        for (int i = 0; i < n; i++) {
            if (best < 0 || moreExtreme(type, max, x, i, best)) best = i;
            want[i] = best;
        }
        return want;
    }

    /** The exclusive scan from the inclusive one: -1 (nothing before element 0), then each answer one element later. */
    private static long[] exclusive(long[] inclusive) {
        long[] out = new long[inclusive.length];
        if (out.length == 0) return out;
        out[0] = -1;
        System.arraycopy(inclusive, 0, out, 1, out.length - 1);
        return out;
    }

    /** Whether x[i] is strictly more extreme than x[j], in Java's order (NaN the extreme). */
    static boolean moreExtreme(DType type, boolean max, MemorySegment x, long i, long j) {
        return switch (type) {
            case BYTE, INT, LONG -> max ? integer(type, x, i) > integer(type, x, j) : integer(type, x, i) < integer(type, x, j);
            case FLOAT -> {
                float a = x.getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i), b = x.getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, j);
                yield max ? Float.compare(a, b) > 0 : !Float.isNaN(b) && (Float.isNaN(a) || Float.compare(a, b) < 0);
            }
            case DOUBLE -> {
                double a = x.getAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, i), b = x.getAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, j);
                yield max ? Double.compare(a, b) > 0 : !Double.isNaN(b) && (Double.isNaN(a) || Double.compare(a, b) < 0);
            }
        };
    }

    private static long integer(DType type, MemorySegment x, long i) {
        return switch (type) {
            case BYTE -> x.get(ValueLayout.JAVA_BYTE, i);
            case INT -> x.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i);
            default -> x.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i);
        };
    }

    static String show(DType type, MemorySegment x, long i) {
        return switch (type) {
            case FLOAT -> x.getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i) + " (0x"
                    + Integer.toHexString(x.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i)) + ")";
            case DOUBLE -> x.getAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, i) + " (0x"
                    + Long.toHexString(x.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i)) + ")";
            default -> Long.toString(integer(type, x, i));
        };
    }

    // ---- data ----

    static MemorySegment data(Arena arena, DType type, Data data, long n, SplittableRandom random) {
        MemorySegment x = arena.allocate(Math.max(1, n) * type.byteSize(), 8);
        for (long i = 0; i < n; i++) {
            double v = switch (data) {
                case FEW_VALUES -> random.nextInt(7) - 3;
                case RISING -> type == DType.BYTE ? (i * 200 / Math.max(1, n)) - 100 + random.nextInt(4)
                        : i / 16.0 + random.nextInt(64);
                case SPECIALS -> special(type, random);
            };
            switch (type) {
                case BYTE -> x.set(ValueLayout.JAVA_BYTE, i, (byte) v);
                case INT -> x.setAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i, (int) v);
                case LONG -> x.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i, (long) v * 0x1_0000_0001L);  // beyond int's range
                case FLOAT -> x.setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i, (float) v);
                case DOUBLE -> x.setAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, i, v);
            }
            if (data == Data.SPECIALS && random.nextInt(2000) == 0) {  // a NaN of random sign and payload
                if (type == DType.FLOAT) x.setAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i, 0x7F80_0001 | random.nextInt() & 0x803F_FFFF | 0x40_0000 * random.nextInt(2));
                else x.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i, 0x7FF0_0000_0000_0001L | random.nextLong() & 0x800F_FFFF_FFFF_FFFFL);
            }
        }
        return x;
    }

    /** The kinds of {@link #rangeEnds} data. */
    static final String[] RANGE_ENDS = {"all lowest", "all highest", "mostly lowest", "mostly highest"};

    /**
     * Integers of {@code type} at the ends of its range ({@code data}: one of {@link #RANGE_ENDS}):
     * all one end, or mostly one end with rare middle values and rarer values of the other end.
     */
    static MemorySegment rangeEnds(Arena arena, DType type, String data, long n, SplittableRandom random) {
        long lowest = type == DType.BYTE ? Byte.MIN_VALUE : type == DType.INT ? Integer.MIN_VALUE : Long.MIN_VALUE;
        long highest = -(lowest + 1);
        long common = data.endsWith("lowest") ? lowest : highest, rare = common == lowest ? highest : lowest;
        MemorySegment x = arena.allocate(Math.max(1, n) * type.byteSize(), 8);
        for (long i = 0; i < n; i++) {
            int draw = random.nextInt(1 << 18);
            long v = data.startsWith("all") || draw < (1 << 17) ? common
                    : draw == 1 << 17 ? rare : new long[] {lowest + 1, 0, highest - 1}[draw % 3];
            switch (type) {
                case BYTE -> x.set(ValueLayout.JAVA_BYTE, i, (byte) v);
                case INT -> x.setAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i, (int) v);
                default -> x.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i, v);
            }
        }
        return x;
    }

    /** Zeros of both signs, infinities (rare), and small values that tie often. */
    private static double special(DType type, SplittableRandom random) {
        return switch (random.nextInt(16)) {
            case 0, 1, 2 -> -0.0;
            case 3, 4, 5 -> 0.0;
            case 6 -> random.nextInt(64) == 0 ? Double.POSITIVE_INFINITY : 1.0;
            case 7 -> random.nextInt(64) == 0 ? Double.NEGATIVE_INFINITY : -1.0;
            default -> (random.nextInt(9) - 4) * 0.25;
        };
    }

    // ---- helpers ----

    static DeviceArray slice(DeviceArray a, long from, long to) {
        return CustomSegments.slice(a, from, to);
    }

    private static java.util.List<Long> boxed(long[] values) {
        return java.util.Arrays.stream(values).boxed().toList();
    }

    private static void assertMessage(Class<? extends Throwable> type, String part, org.junit.jupiter.api.function.Executable call) {
        Throwable t = assertThrows(type, call);
        assertTrue(t.getMessage() != null && t.getMessage().contains(part), "message \"" + t.getMessage() + "\" lacks \"" + part + "\"");
    }
}
