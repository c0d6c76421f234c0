package dev.primer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;
import java.util.concurrent.ForkJoinPool;
import java.util.function.Supplier;

import static dev.primer.CustomScanOps.FLOAT_SUM;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Segmented scans with user-defined operators through the facade, on every backend: by head flags
 * and by offsets; inclusive, exclusive from the identity and from a random init; out of place and in
 * place; each element against a sequential fold of its segment written here, exactly (the operators
 * of {@link CustomScanOps#EXACT}, int8 ones among them, several not commutative, so a swapped operand
 * anywhere fails). Inputs, flags and offsets are slices that start 1..3 elements (int8: 1..15) past an
 * allocation (the GPU aligns its tiles to 16 bytes); outputs are poisoned first, with guards around
 * them, and by offsets what lies outside [offsets[0], offsets[last]) must keep its poison (or, in
 * place, its input).
 */
class CustomSegmentedScanTest {
    static Iterable<BackendKind> backends() { return Backends.all().toList(); }

    private static final long[] SIZES = {0, 1, 31, 33, 4097, 300_007};
    /** Heads per element: only element 0; segments across CPU chunks and GPU tiles; a few per tile; dense; every element. */
    private static final double[] DENSITIES = {0, 1e-5, 1.0 / 3000, 0.3, 1};

    @ParameterizedTest
    @MethodSource("backends")
    void byFlagsMatchesASequentialFold(BackendKind kind) {
        try (Primer primer = Backends.open(kind)) {
            int config = 0;
            for (CustomOp op : CustomScanOps.EXACT) {
                for (long n : SIZES) {
                    for (double density : DENSITIES) {
                        config++;
                        SplittableRandom random = new SplittableRandom(config);
                        byte[] flags = CustomSegments.headFlags(n, density, config % 2 == 0, random);
                        allModes(primer, op, Segments.byFlags(flags), config);
                    }
                }
            }
        }
    }

    @ParameterizedTest
    @MethodSource("backends")
    void byOffsetsMatchesASequentialFold(BackendKind kind) {
        try (Primer primer = Backends.open(kind)) {
            int config = 0;
            for (CustomOp op : CustomScanOps.EXACT) {
                for (long n : SIZES) {
                    for (double density : DENSITIES) {
                        config++;
                        SplittableRandom random = new SplittableRandom(config);
                        // The whole array, or a sub-range: offsets[0] > 0 and offsets[last] < n.
                        long begin = config % 3 == 0 || n == 0 ? 0 : 1 + random.nextLong(Math.min(n, 5));
                        long end = config % 3 == 1 ? n : Math.max(begin, n - random.nextLong(Math.min(n, 5) + 1));
                        allModes(primer, op, Segments.byOffsets(CustomSegments.offsets(begin, end, density, random), n), config);
                    }
                }
            }
        }
    }

    /** No segments at all (offsets of one element), and only empty ones: out keeps every poisoned element. */
    @ParameterizedTest
    @MethodSource("backends")
    void offsetsWithoutElementsWriteNothing(BackendKind kind) {
        try (Primer primer = Backends.open(kind)) {
            for (long[] offsets : new long[][] {{0}, {7}, {40}, {0, 0}, {3, 3, 3, 3}, {40, 40}}) {
                allModes(primer, CustomScanOps.AFFINE32, Segments.byOffsets(offsets, 40), offsets.length);
            }
        }
    }

    /** About 2^21 elements: many CPU chunks and many GPU tiles, segments that span them and power-law offsets. */
    @ParameterizedTest
    @MethodSource("backends")
    void longScansAcrossManyChunksAndTiles(BackendKind kind) {
        long n = (1L << 21) + 3;
        try (Primer primer = Backends.open(kind)) {
            int config = 100;
            for (CustomOp op : CustomScanOps.EXACT) {
                SplittableRandom random = new SplittableRandom(++config);
                for (double density : new double[] {1e-6, 1.0 / 5000}) {
                    Segments flags = Segments.byFlags(CustomSegments.headFlags(n, density, random.nextBoolean(), random));
                    check(primer, op, flags, Mode.INCLUSIVE, op.identityBits(), 1, 2, config);
                    check(primer, op, flags, Mode.EXCLUSIVE_INIT, CustomScanOps.someInitBits(op, config), 3, -1, config);
                }
                long[] offsets = CustomSegments.powerLawOffsets(2, n - 1, 1L << 21, random);
                Segments segments = Segments.byOffsets(offsets, n);
                check(primer, op, segments, Mode.EXCLUSIVE, op.identityBits(), 2, 1, config);
                check(primer, op, segments, Mode.INCLUSIVE, op.identityBits(), 1, -1, config);
            }
        }
    }

    /** The CPU's float results are fixed by the length and the offsets alone: one thread or many, the same bits. */
    @Test
    void cpuFloatSumsDoNotDependOnTheThreadCount() throws Exception {
        long n = 5L * (1 << 16) + 77;
        try (Primer primer = Primer.open(BackendKind.CPU); Arena arena = Arena.ofConfined();
             DeviceArray in = primer.upload(DType.FLOAT, CustomScanOps.input(arena, FLOAT_SUM, n, 3), n);
             DeviceArray out = primer.allocate(DType.FLOAT, n);
             ByteArray flags = primer.upload(CustomSegments.headFlags(n, 1e-5, false, new SplittableRandom(4)));
             LongArray offsets = primer.upload(new long[] {1, 70_000, 70_001, n - 2})) {
            Runnable[] scans = {
                    () -> primer.segmentedInclusiveScan(in, flags, out, FLOAT_SUM),
                    () -> primer.segmentedExclusiveScan(in, flags, out, FLOAT_SUM, 0.25),
                    () -> primer.segmentedInclusiveScan(in, offsets, out, FLOAT_SUM)};
            for (Runnable scan : scans) {
                Supplier<byte[]> run = () -> {
                    scan.run();
                    byte[] bytes = new byte[(int) out.byteSize()];
                    out.copyTo(MemorySegment.ofArray(bytes));
                    return bytes;
                };
                byte[] many = run.get();
                try (ForkJoinPool one = new ForkJoinPool(1); ForkJoinPool three = new ForkJoinPool(3)) {
                    assertEquals(-1, java.util.Arrays.mismatch(many, one.submit(run::get).get()), "1 thread vs the common pool");
                    assertEquals(-1, java.util.Arrays.mismatch(many, three.submit(run::get).get()), "3 threads vs the common pool");
                }
            }
        }
    }

    // ---- the machinery ----

    private enum Mode { INCLUSIVE, EXCLUSIVE, EXCLUSIVE_INIT }

    /**
     * A segment layout of n elements: by head flags ({@code offsets} null) or by offsets
     * ({@code flags} null); {@code head}: the elements that start a segment within [begin, end).
     */
    private record Segments(long n, byte[] flags, long[] offsets, boolean[] head, long begin, long end) {
        static Segments byFlags(byte[] flags) {
            boolean[] head = new boolean[flags.length];
            for (int i = 0; i < flags.length; i++) head[i] = flags[i] != 0;
            return new Segments(flags.length, flags, null, head, 0, flags.length);
        }

        static Segments byOffsets(long[] offsets, long n) {
            return new Segments(n, null, offsets, CustomSegments.headsOf(offsets, n), offsets[0], offsets[offsets.length - 1]);
        }

        @Override public String toString() {
            return (flags != null ? "flags" : offsets.length - 1 + " segments in [" + begin + ", " + end + ")") + " n=" + n;
        }
    }

    /** Inclusive, exclusive from the identity and from an init, out of place, then two in place. */
    private static void allModes(Primer primer, CustomOp op, Segments s, int config) {
        long init = CustomScanOps.someInitBits(op, config);
        int shifts = op.type() == DType.BYTE ? 16 : 4;  // within a 16-byte vector
        int shift = config % shifts, outShift = (config / 4) % shifts;
        check(primer, op, s, Mode.INCLUSIVE, op.identityBits(), shift, outShift, config);
        check(primer, op, s, Mode.EXCLUSIVE, op.identityBits(), shift, (outShift + 1) % shifts, config);
        check(primer, op, s, Mode.EXCLUSIVE_INIT, init, shift, (outShift + 2) % shifts, config);
        check(primer, op, s, Mode.INCLUSIVE, op.identityBits(), shift, -1, config);
        check(primer, op, s, Mode.EXCLUSIVE_INIT, init, shift, -1, config);
    }

    /**
     * Scans random input placed {@code shift} elements into an array (flags and offsets placed one
     * further) into an array at {@code outShift} (in place when -1), poisoned around; checks every
     * element against the fold and every guard byte.
     */
    private static void check(Primer primer, CustomOp op, Segments s, Mode mode, long init, int shift, int outShift, long seed) {
        DType type = op.type();
        long n = s.n();
        boolean inPlace = outShift < 0;
        String what = op.name() + " " + mode + " " + s + " shift=" + shift + "/" + (inPlace ? "in place" : outShift)
                + " init=0x" + Long.toHexString(init) + " on " + primer.kind();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment x = CustomScanOps.input(arena, op, n, seed * 1_000_003 + mode.ordinal());
            MemorySegment want = reference(arena, op, x, s, mode == Mode.INCLUSIVE, init, inPlace);
            try (StagedScan scan = new StagedScan(primer, arena, type, x, n, shift, outShift)) {
                DeviceArray in = scan.in, out = scan.out;
                int extra = (shift + 1) % 4;
                if (s.flags() != null) {
                    try (ByteArray flagsBase = primer.allocateBytes(n + extra)) {
                        ByteArray flags = flagsBase.slice(extra, extra + n);
                        flags.copyFrom(s.flags());
                        switch (mode) {
                            case INCLUSIVE -> primer.segmentedInclusiveScan(in, flags, out, op);
                            case EXCLUSIVE -> primer.segmentedExclusiveScan(in, flags, out, op);
                            case EXCLUSIVE_INIT -> CustomScanOps.withInit(type, init,
                                    v -> primer.segmentedExclusiveScan(in, flags, out, op, v),
                                    v -> primer.segmentedExclusiveScan(in, flags, out, op, v));
                        }
                    }
                } else {
                    try (LongArray offsetsBase = primer.allocateLongs(s.offsets().length + extra)) {
                        LongArray offsets = offsetsBase.slice(extra, extra + s.offsets().length);
                        offsets.copyFrom(s.offsets());
                        switch (mode) {
                            case INCLUSIVE -> primer.segmentedInclusiveScan(in, offsets, out, op);
                            case EXCLUSIVE -> primer.segmentedExclusiveScan(in, offsets, out, op);
                            case EXCLUSIVE_INIT -> CustomScanOps.withInit(type, init,
                                    v -> primer.segmentedExclusiveScan(in, offsets, out, op, v),
                                    v -> primer.segmentedExclusiveScan(in, offsets, out, op, v));
                        }
                    }
                }
                scan.assertOutput(what, arena, want);
            }
        }
    }

    /**
     * Each segment folded from {@code init} left to right; the elements outside [begin, end) as they
     * were: poison, or in place the input.
     */
    private static MemorySegment reference(Arena arena, CustomOp op, MemorySegment x, Segments s, boolean inclusive, long init,
                                           boolean inPlace) {
        DType type = op.type();
        MemorySegment out = arena.allocate(Math.max(1, x.byteSize()), 8);
        if (inPlace) out.copyFrom(x); else out.fill(StagedScan.POISON);
        long acc = 0;
        for (long i = s.begin(); i < s.end(); i++) {
            if (i == s.begin() || s.head()[(int) i]) acc = init;
            long next = CustomSegments.apply(op, acc, CustomSegments.get(type, x, i));
            CustomSegments.set(type, out, i, inclusive ? next : acc);
            acc = next;
        }
        return out;
    }
}
