package dev.primer;

import dev.primer.cuda.Cuda;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.LongPredicate;
import java.util.function.LongUnaryOperator;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The segmented running argmin / argmax ({@link Primer#segmentedArgExtremeScan},
 * {@link Primer#segmentedExclusiveArgExtremeScan}), by head flags and by offsets, on every backend
 * against a sequential scan written here (in Java's order, as {@link ArgExtremeScanTest}'s): indices
 * count from each segment's first element, and an exclusive scan gives -1 there.
 *
 * <p>Every type, sizes around the GPU's tiles (8192 4-byte, 4096 8-byte, 32768 int8 elements) and the
 * CPU's chunks (65536), and segments of 1-4 elements, of up to 300, of up to three tiles (across tiles
 * and chunks), one for everything, and one per element. Flags are any non-zero byte, and element 0
 * starts a segment whether or not it is flagged; offsets may leave elements out at either end (their
 * outputs must keep the poison) and repeat (empty segments, at the ends too). Inputs, flags and offsets
 * start a few elements into their allocations, with non-zero bytes around the flags; outputs lie at
 * varying places between poisoned guards; every element is checked, and the inputs unchanged after.
 */
class SegmentedArgExtremeScanTest {
    static Iterable<BackendKind> backends() { return Backends.all().toList(); }

    private static final long[] SIZES = {0, 1, 2, 31, 33, 4095, 4097, 8193, 32769, 65537, 3 * 65536 + 7, (1 << 20) + 1};
    private static final long POISON = 0x5EED_0BAD_5EED_0BADL;
    private static final int GUARD = 8;
    /** What lies around the flags in their allocation: a backend that read it would see heads. */
    private static final byte FLAG_GUARD = 0x11;

    /** How segments are laid out. */
    enum Layout { SHORT, MEDIUM, LONG, WHOLE, EVERY_ELEMENT }

    /**
     * Segments over n elements: by flags (all of [0, n), element 0 flagged or not) or by offsets (of
     * [begin, end), with empty segments now and then); {@code head[i]}: element i starts a segment.
     */
    private record Segments(long begin, long end, boolean[] head, byte[] flags, long[] offsets) {
        boolean byFlags() { return flags != null; }

        @Override public String toString() {
            return byFlags() ? "by flags" : "by " + (offsets.length - 1) + " offsets over [" + begin + ", " + end + ")";
        }
    }

    @ParameterizedTest
    @MethodSource("backends")
    void everyTypeSizeAndLayoutMatchesASequentialScan(BackendKind kind) {
        SplittableRandom random = new SplittableRandom(2026_11_25);
        try (Primer primer = Backends.open(kind); Arena arena = Arena.ofShared()) {
            int config = 0;
            for (DType type : DType.values()) {
                List<ArgExtremeScanTest.Data> kinds = Arrays.stream(ArgExtremeScanTest.Data.values())
                        .filter(d -> d != ArgExtremeScanTest.Data.SPECIALS || type.isFloatingPoint()).toList();
                for (int size = 0; size < SIZES.length; size++) {
                    long n = SIZES[size];
                    for (Layout layout : Layout.values()) {
                        for (boolean byFlags : new boolean[] {true, false}) {
                            // each layout meets every kind of data, both ways, over the sizes
                            ArgExtremeScanTest.Data data = kinds.get((size + layout.ordinal() + (byFlags ? 1 : 0)) % kinds.size());
                            MemorySegment x = ArgExtremeScanTest.data(arena, type, data, n, random);
                            Segments segments = segments(layout, type, n, byFlags, random);
                            checkEveryScan(primer, arena, type, x, n, segments, config++,
                                    data + " " + layout + " n=" + n + " on " + kind);
                        }
                    }
                }
            }
        }
    }

    /** {@link ArgExtremeScanTest#rangeEnds} data (every index may tie with a segment's first) in short, long and whole segments. */
    @ParameterizedTest
    @MethodSource("backends")
    void integersAtTheEndsOfTheirRange(BackendKind kind) {
        SplittableRandom random = new SplittableRandom(2026_11_26);
        try (Primer primer = Backends.open(kind); Arena arena = Arena.ofShared()) {
            int config = 0;
            for (DType type : new DType[] {DType.BYTE, DType.INT, DType.LONG}) {
                for (long n : new long[] {33, 65537, 3 * 65536 + 7}) {
                    for (String data : ArgExtremeScanTest.RANGE_ENDS) {
                        for (Layout layout : new Layout[] {Layout.SHORT, Layout.LONG, Layout.WHOLE}) {
                            boolean byFlags = config % 2 == 0;
                            MemorySegment x = ArgExtremeScanTest.rangeEnds(arena, type, data, n, random);
                            Segments segments = segments(layout, type, n, byFlags, random);
                            checkEveryScan(primer, arena, type, x, n, segments, config++, data + " " + layout + " n=" + n + " on " + kind);
                        }
                    }
                }
            }
        }
    }

    /** One offset is no segment: nothing is written, wherever it lies. */
    @ParameterizedTest
    @MethodSource("backends")
    void noSegmentsWriteNothing(BackendKind kind) {
        try (Primer primer = Backends.open(kind); IntArray in = primer.upload(new int[] {4, 2, 7, 1, 9});
             LongArray out = primer.allocateLongs(5)) {
            for (long offset : new long[] {0, 3, 5}) {
                try (LongArray offsets = primer.upload(new long[] {offset})) {
                    out.fill(POISON);
                    primer.segmentedArgExtremeScan(in, offsets, out, true);
                    primer.segmentedExclusiveArgExtremeScan(in, offsets, out, false);
                    for (long v : out.toArray()) assertEquals(POISON, v, "offsets {" + offset + "} wrote out");
                }
            }
        }
    }

    @ParameterizedTest
    @MethodSource("backends")
    void argumentsAreCheckedBeforeAnythingRuns(BackendKind kind) {
        try (Primer primer = Backends.open(kind); Primer other = Primer.open(BackendKind.CPU);
             FloatArray in = primer.upload(new float[] {3, 1, 2, 5}); ByteArray flags = primer.upload(new byte[] {1, 0, -1, 0});
             LongArray offsets = primer.upload(new long[] {0, 2, 4}); LongArray out = primer.allocateLongs(4);
             ByteArray shortFlags = primer.upload(new byte[] {1, 0, 1}); LongArray shortOut = primer.allocateLongs(3);
             LongArray longs = primer.upload(new long[] {0, 2, 4, 6, 8, 10, 12, 14}); LongArray foreign = other.allocateLongs(4)) {
            out.fill(POISON);
            LongArray lowLongs = longs.slice(0, 4), highLongs = longs.slice(4, 8);
            rejects(NullPointerException.class, "in", () -> primer.segmentedArgExtremeScan(null, flags, out, true));
            rejects(NullPointerException.class, "headFlags", () -> primer.segmentedArgExtremeScan(in, (ByteArray) null, out, true));
            rejects(NullPointerException.class, "out", () -> primer.segmentedExclusiveArgExtremeScan(in, flags, null, false));
            rejects(NullPointerException.class, "in", () -> primer.segmentedExclusiveArgExtremeScan(null, offsets, out, true));
            rejects(NullPointerException.class, "offsets", () -> primer.segmentedArgExtremeScan(in, (LongArray) null, out, false));
            rejects(NullPointerException.class, "out", () -> primer.segmentedArgExtremeScan(in, offsets, null, true));
            rejects(IllegalArgumentException.class, "headFlags", () -> primer.segmentedArgExtremeScan(in, shortFlags, out, true));
            rejects(IllegalArgumentException.class, "headFlags", () -> primer.segmentedExclusiveArgExtremeScan(in, shortFlags, out, true));
            rejects(IllegalArgumentException.class, "out has 3 elements", () -> primer.segmentedArgExtremeScan(in, flags, shortOut, true));
            rejects(IllegalArgumentException.class, "out has 3 elements",
                    () -> primer.segmentedExclusiveArgExtremeScan(in, offsets, shortOut, false));
            rejects(IllegalArgumentException.class, "out overlaps in",
                    () -> primer.segmentedArgExtremeScan(lowLongs, flags, lowLongs, true));
            rejects(IllegalArgumentException.class, "out overlaps in",
                    () -> primer.segmentedExclusiveArgExtremeScan(longs.slice(1, 5), offsets, longs.slice(0, 4), true));
            rejects(IllegalArgumentException.class, "out overlaps offsets",
                    () -> primer.segmentedArgExtremeScan(lowLongs, longs.slice(4, 7), highLongs, false));
            rejects(IllegalArgumentException.class, "out belongs to another Primer",
                    () -> primer.segmentedArgExtremeScan(in, flags, foreign, true));
            for (long[] bad : new long[][] {{-1, 2, 4}, {0, 3, 2, 4}, {0, 2, 5}, {5}, {}}) {
                try (LongArray badOffsets = primer.upload(bad)) {
                    rejects(IllegalArgumentException.class, "offsets", () -> primer.segmentedArgExtremeScan(in, badOffsets, out, true));
                    rejects(IllegalArgumentException.class, "offsets",
                            () -> primer.segmentedExclusiveArgExtremeScan(in, badOffsets, out, false));
                }
            }
            // headFlags (int8) cannot share memory with out (int64): no slice of one owner is both.
            for (long v : out.toArray()) assertEquals(POISON, v, "a rejected call wrote out");
            assertArrayEquals(new float[] {3, 1, 2, 5}, in.toArray(), "a rejected call wrote in");
            assertArrayEquals(new long[] {0, 2, 4, 6}, lowLongs.toArray(), "a rejected call wrote the int64 input");
            assertArrayEquals(new long[] {8, 10, 12, 14}, highLongs.toArray(), "a rejected call wrote the offsets' array");

            // Segments [0, 2) and [2, 4) of 3, 1, 2, 5, both ways.
            primer.segmentedArgExtremeScan(in, flags, out, false);
            assertArrayEquals(new long[] {0, 1, 0, 0}, out.toArray());
            primer.segmentedArgExtremeScan(in, offsets, out, true);
            assertArrayEquals(new long[] {0, 0, 0, 1}, out.toArray());
            primer.segmentedExclusiveArgExtremeScan(in, offsets, out, false);
            assertArrayEquals(new long[] {-1, 0, -1, 0}, out.toArray());
            primer.segmentedExclusiveArgExtremeScan(in, flags, out, true);
            assertArrayEquals(new long[] {-1, 0, -1, 0}, out.toArray());

            for (int closed = 0; closed < 4; closed++) {  // in, flags, offsets, out
                try (FloatArray c = primer.upload(new float[] {3, 1, 2, 5}); ByteArray cf = primer.upload(new byte[] {1, 0, -1, 0});
                     LongArray co = primer.upload(new long[] {0, 2, 4}); LongArray cout = primer.allocateLongs(4)) {
                    new DeviceArray[] {c, cf, co, cout}[closed].close();
                    Executable byFlags = () -> primer.segmentedArgExtremeScan(c, cf, cout, true);
                    Executable byOffsets = () -> primer.segmentedExclusiveArgExtremeScan(c, co, cout, true);
                    if (closed != 2) assertThrows(IllegalStateException.class, byFlags);
                    if (closed != 1) assertThrows(IllegalStateException.class, byOffsets);
                }
            }
        }
    }

    /**
     * int8 by flags beyond 2^31 elements on the GPU: the first segment runs past 2^31, with the only
     * 127 after 2^31 (so argmax indices within it pass 2^31), then segments of about a thousand elements,
     * one holding the only -128. Every element is checked against a sequential scan on the host,
     * argmax inclusive and argmin exclusive. Through the facade, and with indices within a segment
     * beyond 2^31 (GpuSegmentedArgScanTest's segments cross 2^31 but start shortly before it). Needs
     * ~22 GB of device memory.
     */
    @Test
    @Tag("large")
    void int8ByFlagsBeyondTwoToThe31OnTheGpu() {
        Backends.assumeGpu();
        long n = (1L << 31) + (1L << 16) + 3, firstHead = (1L << 31) + 40_000;
        long top = (1L << 31) + 12_345, bottom = (1L << 31) + 54_321;
        long need = 10 * n + (1L << 30);  // in, flags and out, and 1 GiB for scratch
        Assumptions.assumeTrue(Cuda.context().memoryInfo()[0] > need, () -> "needs " + (need >> 30) + " GiB of free device memory");
        LongUnaryOperator value = i -> i == top ? 127 : i == bottom ? -128 : (((mix(i) >>> 32) * 254) >>> 32) - 127;
        LongPredicate head = i -> i == firstHead || (i > firstHead && Long.remainderUnsigned(mix(i), 1000) == 0);
        try (Primer primer = Primer.open(BackendKind.GPU)) {
            checkBeyond(primer, n, value, head, top, bottom);
        }
    }

    // ---- one case

    /** Argmax and argmin, inclusive and exclusive; {@code config} places the arrays. */
    private static void checkEveryScan(Primer primer, Arena arena, DType type, MemorySegment x, long n, Segments s, int config,
                                       String label) {
        int shift = config % 4, flagShift = config % 5, offsetShift = config % 2;
        try (DeviceArray base = primer.allocate(type, n + shift + GUARD);
             ByteArray flagBase = s.byFlags() ? primer.allocateBytes(n + flagShift + GUARD) : null;
             LongArray offsetBase = s.byFlags() ? null : primer.allocateLongs(s.offsets.length + offsetShift + GUARD)) {
            MemorySegment host = arena.allocate(base.byteSize(), 8).fill((byte) 0x5A);
            MemorySegment.copy(x, 0, host, shift * type.byteSize(), n * type.byteSize());
            base.copyFrom(host);
            DeviceArray in = ArgExtremeScanTest.slice(base, shift, shift + n);
            ByteArray flags = null;
            LongArray offsets = null;
            if (s.byFlags()) {
                byte[] flagHost = new byte[(int) flagBase.length()];
                Arrays.fill(flagHost, FLAG_GUARD);
                System.arraycopy(s.flags, 0, flagHost, flagShift, (int) n);
                flagBase.copyFrom(flagHost);
                flags = flagBase.slice(flagShift, flagShift + n);
            } else {
                long[] offsetHost = new long[(int) offsetBase.length()];
                Arrays.fill(offsetHost, -7);
                System.arraycopy(s.offsets, 0, offsetHost, offsetShift, s.offsets.length);
                offsetBase.copyFrom(offsetHost);
                offsets = offsetBase.slice(offsetShift, offsetShift + s.offsets.length);
            }
            int scan = 0;
            for (boolean max : new boolean[] {true, false}) {
                for (boolean inclusive : new boolean[] {true, false}) {
                    int outShift = GUARD + (config + scan++) % 3;
                    String what = (max ? "argmax" : "argmin") + (inclusive ? "" : " exclusive") + " scan of " + type + " " + s
                            + " " + label + " shift=" + shift + " out at " + outShift;
                    long[] want = reference(type, max, inclusive, x, n, s);
                    try (LongArray outBase = primer.allocateLongs(n + outShift + GUARD)) {
                        outBase.fill(POISON);
                        LongArray out = outBase.slice(outShift, outShift + n);
                        if (s.byFlags()) {
                            if (inclusive) primer.segmentedArgExtremeScan(in, flags, out, max);
                            else primer.segmentedExclusiveArgExtremeScan(in, flags, out, max);
                        } else {
                            if (inclusive) primer.segmentedArgExtremeScan(in, offsets, out, max);
                            else primer.segmentedExclusiveArgExtremeScan(in, offsets, out, max);
                        }
                        compare(outBase.toArray(), outShift, want, type, x, s, what);
                    }
                }
            }
            MemorySegment after = arena.allocate(base.byteSize(), 8);
            base.copyTo(after);
            assertEquals(-1, after.mismatch(host), label + ": the input changed");
            if (flags != null) assertArrayEquals(s.flags, flags.toArray(), label + ": the flags changed");
            if (offsets != null) assertArrayEquals(s.offsets, offsets.toArray(), label + ": the offsets changed");
        }
    }

    private static void compare(long[] got, int outShift, long[] want, DType type, MemorySegment x, Segments s, String what) {
        int n = want.length;
        for (int g = 0; g < outShift; g++) assertEquals(POISON, got[g], what + ": guard before out, element " + g);
        for (int g = 0; g < GUARD; g++) assertEquals(POISON, got[outShift + n + g], what + ": guard after out, element " + g);
        for (int i = 0; i < n; i++) {
            if (got[outShift + i] == want[i]) continue;
            if (want[i] == POISON) fail(what + ": out[" + i + "] (outside every segment) = " + got[outShift + i] + ", not left as it was");
            long start = i;
            while (!s.head[(int) start]) start--;
            fail(what + ": out[" + i + "] = " + got[outShift + i] + ", expected " + want[i] + " (segment from " + start
                    + ", in[" + i + "] = " + ArgExtremeScanTest.show(type, x, i)
                    + (want[i] < 0 ? "" : ", in[start + expected] = " + ArgExtremeScanTest.show(type, x, start + want[i])) + ")");
        }
    }

    /** The sequential scan of each segment; elements outside [begin, end) keep the poison. */
    private static long[] reference(DType type, boolean max, boolean inclusive, MemorySegment x, long n, Segments s) {
        long[] want = new long[(int) n];
        Arrays.fill(want, POISON);
        long start = s.begin, best = -1;
        for (int i = (int) s.begin; i < s.end; i++) {
            if (s.head[i]) {
                start = i;
                best = -1;
            }
            long before = best;
            if (best < 0 || ArgExtremeScanTest.moreExtreme(type, max, x, i, best)) best = i;
            long at = inclusive ? best : before;
            want[i] = at < 0 ? -1 : at - start;
        }
        return want;
    }

    // ---- segment layouts

    private static Segments segments(Layout layout, DType type, long n, boolean byFlags, SplittableRandom random) {
        long begin = 0, end = n;
        if (!byFlags && n > 0 && random.nextBoolean()) {  // leave out a few elements at the start, the end, or both
            begin = random.nextLong(Math.min(n, 4));
            end = n - random.nextLong(Math.min(n - begin, 3) + 1);
        }
        boolean[] head = new boolean[(int) n];
        if (begin < end) head[(int) begin] = true;
        if (layout != Layout.WHOLE) {
            int tile = type.byteSize() == 1 ? 32768 : type.byteSize() == 4 ? 8192 : 4096;
            long longest = switch (layout) {
                case SHORT -> 4;
                case MEDIUM -> 300;
                case LONG -> 3L * tile;
                default -> 1;  // EVERY_ELEMENT
            };
            for (long i = begin; i < end; i += 1 + random.nextLong(longest)) head[(int) i] = true;
        }
        if (byFlags) {
            byte[] flags = new byte[(int) n];
            for (int i = 0; i < n; i++) {
                if (head[i]) flags[i] = new byte[] {1, -1, 7, Byte.MIN_VALUE, (byte) (1 + random.nextInt(255))}[random.nextInt(5)];
            }
            if (n > 0 && random.nextBoolean()) flags[0] = 0;  // element 0 starts a segment whatever its flag
            return new Segments(begin, end, head, flags, null);
        }
        LongStream.Builder offsets = LongStream.builder();
        if (random.nextInt(4) == 0) offsets.add(begin);  // an empty segment at the start
        for (long i = begin; i < end; i++) {
            if (!head[(int) i]) continue;
            offsets.add(i);
            if (random.nextInt(8) == 0) offsets.add(i);  // an empty segment
        }
        offsets.add(end);
        if (random.nextInt(4) == 0) offsets.add(end);  // an empty segment at the end
        long[] o = offsets.build().toArray();
        if (begin == end && o.length == 1) o = new long[] {begin, end};  // one (empty) segment, not none: noSegmentsWriteNothing has those
        return new Segments(begin, end, head, null, o);
    }

    // ---- beyond 2^31

    /**
     * int8 by flags over n elements of {@code value}, segments starting at element 0 and where
     * {@code head} holds, made and checked a chunk at a time (the host never holds the whole array):
     * argmax inclusive reaches {@code top}, argmin exclusive reaches {@code bottom}.
     */
    private static void checkBeyond(Primer primer, long n, LongUnaryOperator value, LongPredicate head, long top, long bottom) {
        long chunk = 1L << 24;
        try (Arena arena = Arena.ofConfined(); ByteArray in = primer.allocateBytes(n); ByteArray flags = primer.allocateBytes(n);
             LongArray out = primer.allocateLongs(n)) {
            MemorySegment bytes = arena.allocate(chunk), longs = arena.allocate(8 * chunk, 8);
            for (long from = 0; from < n; from += chunk) {
                long count = Math.min(chunk, n - from);
                for (long j = 0; j < count; j++) bytes.set(ValueLayout.JAVA_BYTE, j, (byte) value.applyAsLong(from + j));
                in.slice(from, from + count).copyFrom(bytes);
                for (long j = 0; j < count; j++) {
                    bytes.set(ValueLayout.JAVA_BYTE, j, (byte) (head.test(from + j) ? 1 | mix(~(from + j)) : 0));  // any odd byte
                }
                flags.slice(from, from + count).copyFrom(bytes);
            }
            for (boolean max : new boolean[] {true, false}) {
                boolean inclusive = max;
                out.fill(POISON);
                if (inclusive) primer.segmentedArgExtremeScan(in, flags, out, max);
                else primer.segmentedExclusiveArgExtremeScan(in, flags, out, max);
                long start = 0, best = -1, bestValue = 0;
                boolean reached = false;
                for (long from = 0; from < n; from += chunk) {
                    long count = Math.min(chunk, n - from);
                    out.slice(from, from + count).copyTo(longs);
                    for (long j = 0; j < count; j++) {
                        long i = from + j, v = value.applyAsLong(i);
                        if (i == 0 || head.test(i)) {
                            start = i;
                            best = -1;
                        }
                        long before = best;
                        if (best < 0 || (max ? v > bestValue : v < bestValue)) {
                            best = i;
                            bestValue = v;
                        }
                        long at = inclusive ? best : before, want = at < 0 ? -1 : at - start;
                        long got = longs.getAtIndex(ValueLayout.JAVA_LONG, j);
                        if (got != want) {
                            fail((max ? "argmax" : "argmin exclusive") + " element " + i + ": " + got + ", expected " + want
                                    + " (segment from " + start + ")");
                        }
                        reached |= at == (max ? top : bottom);
                    }
                }
                assertTrue(reached, "the extreme past 2^31 was reached");
            }
        }
    }

    /** A 64-bit hash of i (splitmix64's finalizer). */
    private static long mix(long i) {
        long z = i * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 31)) * 0xBF58476D1CE4E5B9L;
        return z ^ (z >>> 29);
    }

    // ---- helpers

    /** The call throws {@code type} with a message starting with {@code start} (an argument's name, as a whole word). */
    private static void rejects(Class<? extends Throwable> type, String start, Executable call) {
        ArgumentMessages.assertStartsWith(start, assertThrows(type, call));
    }
}
