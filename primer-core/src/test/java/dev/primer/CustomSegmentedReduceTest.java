package dev.primer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ForkJoinPool;
import java.util.function.Supplier;
import java.util.stream.LongStream;

import static dev.primer.CustomScanOps.AFFINE16;
import static dev.primer.CustomScanOps.AFFINE4;
import static dev.primer.CustomScanOps.FFILL;
import static dev.primer.CustomScanOps.FIRST_NONZERO;
import static dev.primer.CustomScanOps.FLOAT_SUM;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * Rows and segments reduced with user-defined operators through the facade, on every backend: each
 * result against a left fold from the identity written here, exactly (the operators of
 * {@link CustomScanOps#EXACT}, int8 ones among them; on their random inputs the non-commutative ones
 * give another answer when operands swap, which {@link #theInputsAreOrderSensitive} makes sure of).
 * Empty rows and segments give the identity. Matrices and values are slices that start 1..3 elements
 * (int8: 1..15) past an allocation.
 */
class CustomSegmentedReduceTest {
    static Iterable<BackendKind> backends() { return Backends.all().toList(); }

    /**
     * rows × cols: empty either way, tiny, odd widths (about an int8 row's 128-byte head too), a few very
     * long rows, many short ones, rows of just over a tile.
     */
    private static final long[][] SHAPES = {
            {0, 5}, {5, 0}, {1, 1}, {3, 31}, {1000, 33}, {77, 127}, {65, 129}, {4, (1 << 20) + 3}, {1 << 17, 3}, {257, 4097}};

    @ParameterizedTest
    @MethodSource("backends")
    void rowsMatchALeftFold(BackendKind kind) {
        try (Primer primer = Backends.open(kind)) {
            int config = 0;
            for (CustomOp op : CustomScanOps.EXACT) {
                for (long[] shape : SHAPES) {
                    config++;
                    long rows = shape[0], cols = shape[1], shift = config % (op.type() == DType.BYTE ? 16 : 4);
                    try (Arena arena = Arena.ofConfined(); DeviceArray base = primer.allocate(op.type(), rows * cols + shift)) {
                        MemorySegment x = CustomScanOps.input(arena, op, rows * cols, config);
                        DeviceArray matrix = CustomSegments.slice(base, shift, shift + rows * cols);
                        matrix.copyFrom(x);
                        long[] starts = LongStream.rangeClosed(0, rows).map(r -> r * cols).toArray();
                        String what = op.name() + " " + rows + " × " + cols + " shift " + shift + " on " + kind;
                        try (DeviceArray got = primer.reduceRows(matrix, rows, cols, op)) {
                            assertMatches(what, op, x, starts, got);
                        }
                        assertEquals(-1, x.mismatch(download(arena, matrix)), what + ": the matrix changed");
                    }
                }
            }
        }
    }

    @ParameterizedTest
    @MethodSource("backends")
    void segmentsMatchALeftFold(BackendKind kind) {
        try (Primer primer = Backends.open(kind)) {
            int config = 0;
            for (CustomOp op : CustomScanOps.EXACT) {
                for (long[] offsets : layouts(new SplittableRandom(op.name().hashCode()))) {
                    config++;
                    long n = offsets[offsets.length - 1] + config % 3;  // offsets[last] < n now and then
                    long shift = config % (op.type() == DType.BYTE ? 16 : 4);
                    try (Arena arena = Arena.ofConfined(); DeviceArray base = primer.allocate(op.type(), n + shift);
                         LongArray offsetsBase = primer.allocateLongs(offsets.length + 1)) {
                        MemorySegment x = CustomScanOps.input(arena, op, n, config);
                        DeviceArray values = CustomSegments.slice(base, shift, shift + n);
                        values.copyFrom(x);
                        LongArray o = offsetsBase.slice(1, offsets.length + 1);
                        o.copyFrom(offsets);
                        String what = op.name() + " " + (offsets.length - 1) + " segments of " + n + " (first at "
                                + offsets[0] + ") shift " + shift + " on " + kind;
                        try (DeviceArray got = primer.reduceSegments(values, o, op)) {
                            assertMatches(what, op, x, offsets, got);
                        }
                        assertEquals(-1, x.mismatch(download(arena, values)), what + ": the values changed");
                    }
                }
            }
        }
    }

    /** The non-commutative operators on these inputs: a fold with operands swapped gives other answers. */
    @Test
    void theInputsAreOrderSensitive() {
        try (Arena arena = Arena.ofConfined()) {
            for (CustomOp op : new CustomOp[] {AFFINE16, CustomScanOps.AFFINE32, FFILL, AFFINE4, FIRST_NONZERO}) {
                int n = op == FIRST_NONZERO ? 10_000 : 33;  // mostly zeros: the first and the last non-zero differ
                MemorySegment x = CustomScanOps.input(arena, op, n, 7);
                long forward = op.identityBits(), swapped = op.identityBits();
                for (int i = 0; i < n; i++) {
                    long v = CustomSegments.get(op.type(), x, i);
                    forward = CustomSegments.apply(op, forward, v);
                    swapped = CustomSegments.apply(op, v, swapped);
                }
                assertNotEquals(forward, swapped, op.name());
            }
        }
    }

    /** The CPU's float results are fixed by the shape and the offsets alone: one thread or many, the same bits. */
    @Test
    void cpuFloatSumsDoNotDependOnTheThreadCount() throws Exception {
        long n = 5L * 80_001;  // 6 chunks and more, in 5 rows
        try (Primer primer = Primer.open(BackendKind.CPU); Arena arena = Arena.ofConfined();
             DeviceArray values = primer.upload(DType.FLOAT, CustomScanOps.input(arena, FLOAT_SUM, n, 9), n);
             LongArray offsets = primer.upload(new long[] {0, 3, 3, 200_000, n - 1, n})) {
            for (Supplier<DeviceArray> reduce : List.<Supplier<DeviceArray>>of(
                    () -> primer.reduceRows(values, 1, n, FLOAT_SUM),
                    () -> primer.reduceRows(values, 5, n / 5, FLOAT_SUM),
                    () -> primer.reduceSegments(values, offsets, FLOAT_SUM))) {
                Supplier<float[]> run = () -> {
                    try (FloatArray r = (FloatArray) reduce.get()) {
                        return r.toArray();
                    }
                };
                float[] many = run.get();
                try (ForkJoinPool one = new ForkJoinPool(1); ForkJoinPool three = new ForkJoinPool(3)) {
                    assertEquals(-1, Arrays.mismatch(many, one.submit(run::get).get()), "1 thread vs the common pool");
                    assertEquals(-1, Arrays.mismatch(many, three.submit(run::get).get()), "3 threads vs the common pool");
                }
            }
        }
    }

    /** A worked example: affine maps (m, c) composed in index order; empty segments give the identity (1, 0). */
    @ParameterizedTest
    @MethodSource("backends")
    void resultsHaveTheOperatorsTypeAndOneElementPerRowOrSegment(BackendKind kind) {
        long v0 = map(2, 1), v1 = map(3, 5), v2 = map(1, 7), v3 = map(5, 0);
        try (Primer primer = Backends.open(kind);
             LongArray values = primer.upload(new long[] {v0, v1, v2, v3});
             LongArray offsets = primer.upload(new long[] {0, 0, 1, 4, 4});
             LongArray none = primer.upload(new long[] {2});
             DeviceArray rows = primer.reduceRows(values, 2, 2, CustomScanOps.AFFINE32);
             DeviceArray segments = primer.reduceSegments(values, offsets, CustomScanOps.AFFINE32);
             DeviceArray noSegments = primer.reduceSegments(values, none, CustomScanOps.AFFINE32)) {
            assertSame(DType.LONG, rows.dtype());
            assertSame(DType.LONG, segments.dtype());
            assertEquals(0, noSegments.length());
            // v0 then v1: x -> 3(2x + 1) + 5 = 6x + 8; v2 then v3: x -> 5(x + 7) = 5x + 35.
            assertEquals(List.of(map(6, 8), map(5, 35)), Arrays.stream(((LongArray) rows).toArray()).boxed().toList());
            // v1 then v2 then v3: x -> 5(3x + 5 + 7) = 15x + 60.
            assertEquals(List.of(map(1, 0), v0, map(15, 60), map(1, 0)),
                    Arrays.stream(((LongArray) segments).toArray()).boxed().toList());
        }
    }

    /**
     * The same in int8, with AFFINE4's maps mod 16 (results with bit 7 set are negative bytes); and
     * reduce of the whole array.
     */
    @ParameterizedTest
    @MethodSource("backends")
    void int8ResultsAreBytesInIndexOrder(BackendKind kind) {
        byte v0 = map4(3, 1), v1 = map4(5, 2), v2 = map4(1, 7), v3 = map4(7, 0);
        try (Primer primer = Backends.open(kind);
             ByteArray values = primer.upload(new byte[] {v0, v1, v2, v3});
             LongArray offsets = primer.upload(new long[] {0, 0, 1, 4, 4});
             DeviceArray rows = primer.reduceRows(values, 2, 2, AFFINE4);
             DeviceArray segments = primer.reduceSegments(values, offsets, AFFINE4)) {
            assertSame(DType.BYTE, rows.dtype());
            assertSame(DType.BYTE, segments.dtype());
            // v0 then v1: x -> 5(3x + 1) + 2 = 15x + 7; v2 then v3: x -> 7(x + 7) = 7x + 49 = 7x + 1 (mod 16).
            assertArrayEquals(new byte[] {map4(15, 7), map4(7, 1)}, ((ByteArray) rows).toArray());
            // v1 then v2 then v3: x -> 7(5x + 2 + 7) = 35x + 63 = 3x + 15.
            assertArrayEquals(new byte[] {map4(1, 0), v0, map4(3, 15), map4(1, 0)}, ((ByteArray) segments).toArray());
            // 15x + 7, then v2: 15x + 14, then v3: 7(15x + 14) = 105x + 98 = 9x + 2.
            assertEquals(map4(9, 2), primer.reduce(values, AFFINE4));
        }
    }

    /** AFFINE4's packing of x -> m x + c (mod 16). */
    private static byte map4(int m, int c) {
        return (byte) (m << 4 | c);
    }

    /** AFFINE32's packing of x -> m x + c. */
    private static long map(int m, int c) {
        return ((long) m << 32) | (c & 0xFFFF_FFFFL);
    }

    // ---- the machinery ----

    /**
     * Offsets layouts: empty segments here and there (one at each end), a first offset above 0,
     * power-law lengths with a few segments of about 2^21 among many short ones, only empty segments,
     * and none.
     */
    private static long[][] layouts(SplittableRandom random) {
        long[] powerLaw = CustomSegments.powerLawOffsets(3, 1 << 20, 1 << 16, random);
        long last = powerLaw[powerLaw.length - 1];
        long[] withLongOnes = LongStream.concat(Arrays.stream(powerLaw),
                LongStream.of(last + (1 << 21) - 7, last + (1 << 21) - 7, last + (1 << 22) - 1, last + (1 << 22) + 4)).toArray();
        return new long[][] {
                {0, 0, 5, 5, 6, 40, 40},
                {7, 8, 40, 41, 300, 4097, 4097, 4100},
                CustomSegments.offsets(1, 300_000, 1.0 / 50, random),
                withLongOnes,
                {5, 5, 5},
                {0}};
    }

    /** {@code got[k]} is the left fold from the identity of [starts[k], starts[k+1]) of x, for every k. */
    private static void assertMatches(String what, CustomOp op, MemorySegment x, long[] starts, DeviceArray got) {
        DType type = op.type();
        assertSame(type, got.dtype(), what);
        assertEquals(starts.length - 1, got.length(), what + ": results");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment results = download(arena, got);
            for (int k = 0; k + 1 < starts.length; k++) {
                long acc = op.identityBits();
                for (long i = starts[k]; i < starts[k + 1]; i++) acc = CustomSegments.apply(op, acc, CustomSegments.get(type, x, i));
                long want = CustomScanOps.bitsAt(type, canonical(type, acc), 0), have = CustomScanOps.bitsAt(type, results, k);
                if (want != have) {
                    throw new AssertionError(what + ": result " + k + " of [" + starts[k] + ", " + starts[k + 1] + ") is 0x"
                            + Long.toHexString(have) + ", expected 0x" + Long.toHexString(want));
                }
            }
        }
    }

    /** One element holding {@code bits}, for {@link CustomScanOps#bitsAt} (NaNs canonical). */
    private static MemorySegment canonical(DType type, long bits) {
        MemorySegment one = MemorySegment.ofArray(new long[1]);
        CustomSegments.set(type, one, 0, bits);
        return one;
    }

    private static MemorySegment download(Arena arena, DeviceArray a) {
        MemorySegment host = arena.allocate(Math.max(1, a.byteSize()), 8).asSlice(0, a.byteSize());
        a.copyTo(host);
        return host;
    }
}
