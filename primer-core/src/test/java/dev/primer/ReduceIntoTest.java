package dev.primer;

import dev.primer.cuda.Nvrtc;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The into-variants of the row and segment reductions ({@code reduceRows(..., out)} and the like),
 * on every backend: each writes exactly what the allocating variant returns (bit for bit: both are
 * deterministic), into a slice that starts 3 elements past an allocation, and nothing around it
 * (guards of 0x5A bytes on both sides). Every type with every operator it supports, at shapes that
 * take each kernel family (GpuSegmentedReduceTest covers the kernels' shapes against references).
 */
class ReduceIntoTest {
    static Iterable<BackendKind> backends() { return Backends.all().toList(); }

    private static final int GUARD = 3, TAIL = 4;
    private static final byte POISON = 0x5A;
    private static final CustomOp LONG_AFFINE = CustomOp.ofLong("intoAffine", "a * 3 + b", 0L, (a, b) -> a * 3 + b);

    /** rows × cols: no rows, empty rows, one long row, odd shapes, short rows, two rows of a tile and more. */
    private static final long[][] SHAPES = {{0, 5}, {6, 0}, {1, 5000}, {37, 33}, {300, 7}, {2, 70001}};

    @ParameterizedTest
    @MethodSource("backends")
    void rowsIntoASliceAreWhatTheAllocatingVariantReturns(BackendKind kind) {
        SplittableRandom random = new SplittableRandom(41);
        try (Primer p = Backends.open(kind)) {
            for (DType type : DType.values()) {
                for (long[] shape : SHAPES) {
                    long rows = shape[0], cols = shape[1];
                    try (DeviceArray matrix = random(p, type, rows * cols, random)) {
                        String at = type + " " + rows + " × " + cols;
                        for (Op op : Op.values()) {
                            if (!op.supports(type)) continue;
                            DType outType = Reductions.outputType(type, op);
                            try (DeviceArray expected = p.reduceRows(matrix, rows, cols, op)) {
                                assertInto(p, outType, expected, out -> p.reduceRows(matrix, rows, cols, op, out), at + " " + op);
                            }
                        }
                        for (boolean max : new boolean[] {false, true}) {
                            try (LongArray expected = p.argExtremeRows(matrix, rows, cols, max)) {
                                assertInto(p, DType.LONG, expected, out -> p.argExtremeRows(matrix, rows, cols, max, (LongArray) out),
                                        at + (max ? " argmax" : " argmin"));
                            }
                        }
                        if (type == DType.LONG && customOpsRun(kind)) {
                            try (DeviceArray expected = p.reduceRows(matrix, rows, cols, LONG_AFFINE)) {
                                assertInto(p, DType.LONG, expected, out -> p.reduceRows(matrix, rows, cols, LONG_AFFINE, out), at + " affine");
                            }
                        }
                    }
                }
            }
        }
    }

    @ParameterizedTest
    @MethodSource("backends")
    void segmentsIntoASliceAreWhatTheAllocatingVariantReturns(BackendKind kind) {
        SplittableRandom random = new SplittableRandom(43);
        try (Primer p = Backends.open(kind)) {
            for (long[] offsetsOnHost : segmentLayouts(random)) {
                long n = offsetsOnHost[offsetsOnHost.length - 1] + 2;  // two values after the last segment
                for (DType type : DType.values()) {
                    try (DeviceArray values = random(p, type, n, random); LongArray offsets = p.upload(offsetsOnHost)) {
                        String at = type + " " + (offsetsOnHost.length - 1) + " segments over " + n;
                        for (Op op : Op.values()) {
                            if (!op.supports(type)) continue;
                            DType outType = Reductions.outputType(type, op);
                            try (DeviceArray expected = p.reduceSegments(values, offsets, op)) {
                                assertInto(p, outType, expected, out -> p.reduceSegments(values, offsets, op, out), at + " " + op);
                            }
                        }
                        for (boolean max : new boolean[] {false, true}) {
                            try (LongArray expected = p.argExtremeSegments(values, offsets, max)) {
                                assertInto(p, DType.LONG, expected, out -> p.argExtremeSegments(values, offsets, max, (LongArray) out),
                                        at + (max ? " argmax" : " argmin"));
                            }
                        }
                        if (type == DType.LONG && customOpsRun(kind)) {
                            try (DeviceArray expected = p.reduceSegments(values, offsets, LONG_AFFINE)) {
                                assertInto(p, DType.LONG, expected, out -> p.reduceSegments(values, offsets, LONG_AFFINE, out), at + " affine");
                            }
                        }
                    }
                }
            }
        }
    }

    /**
     * Offsets that decrease, or reach past the values: IllegalArgumentException naming offsets;
     * nothing is written (the inputs and out, poisoned before each call, are as they were; the GPU
     * checks the offsets before it reduces), and the next call into the same out gives the right
     * results (no flag left up).
     */
    @ParameterizedTest
    @MethodSource("backends")
    void malformedOffsetsAreNamedAndTheNextCallIsRight(BackendKind kind) {
        SplittableRandom random = new SplittableRandom(47);
        int n = 4000;
        try (Primer p = Backends.open(kind);
             LongArray values = (LongArray) random(p, DType.LONG, n, random);
             LongArray good = p.upload(new long[] {0, 1000, 1000, 3999, n});
             LongArray out = p.allocateLongs(4)) {
            long[] valuesBefore = values.toArray();
            for (long[] bad : new long[][] {{0, 1000, 999, 3999, n}, {0, 1000, 1000, 3999, n + 1}, {0, 3000, 1000, 3999, n}}) {
                try (LongArray offsets = p.upload(bad)) {
                    List<Runnable> calls = new ArrayList<>(List.of(() -> p.reduceSegments(values, offsets, Op.SUM, out),
                            () -> p.reduceSegments(values, offsets, Op.MAX, out),
                            () -> p.argExtremeSegments(values, offsets, true, out)));
                    if (customOpsRun(kind)) calls.add(() -> p.reduceSegments(values, offsets, LONG_AFFINE, out));
                    for (Runnable call : calls) {
                        out.fillBits(poisonBits(DType.LONG));
                        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call::run, Arrays.toString(bad));
                        ArgumentMessages.assertStartsWith("offsets", e);
                        assertArrayEquals(bad, offsets.toArray(), "offsets changed");
                        assertArrayEquals(valuesBefore, values.toArray(), "values changed");
                        long[] poisoned = new long[4];
                        Arrays.fill(poisoned, poisonBits(DType.LONG));
                        assertArrayEquals(poisoned, out.toArray(), "out written after " + Arrays.toString(bad));
                        p.reduceSegments(values, good, Op.SUM, out);
                        long[] v = values.toArray();
                        assertArrayEquals(new long[] {sum(v, 0, 1000), 0, sum(v, 1000, 3999), sum(v, 3999, n)}, out.toArray(),
                                "the call after " + Arrays.toString(bad));
                    }
                }
            }
        }
    }

    // ---------------------------------------------------------------- helpers

    private interface Into {
        void run(DeviceArray out);
    }

    /** {@code into} writes {@code expected}'s bytes into a slice [GUARD, GUARD + length) and no byte around it. */
    private static void assertInto(Primer p, DType type, DeviceArray expected, Into into, String what) {
        long length = expected.length();
        assertEquals(type, expected.dtype(), what);
        try (DeviceArray whole = p.allocate(type, GUARD + length + TAIL)) {
            whole.fillBits(poisonBits(type));
            DeviceArray out = CustomSegments.slice(whole, GUARD, GUARD + length);
            into.run(out);
            byte[] all = bytesOf(whole);
            int size = type.byteSize();
            byte[] inside = Arrays.copyOfRange(all, GUARD * size, (int) (GUARD + length) * size);
            assertArrayEquals(bytesOf(expected), inside, what);
            CustomScanOps.assertGuardsUntouched(what, MemorySegment.ofArray(all), (long) GUARD * size, length * size, POISON);
        }
    }

    private static long poisonBits(DType type) {
        long bits = 0;
        for (int i = 0; i < type.byteSize(); i++) bits = bits << 8 | (POISON & 0xFF);
        return bits;
    }

    private static byte[] bytesOf(DeviceArray a) {
        byte[] bytes = new byte[Math.toIntExact(a.byteSize())];
        a.copyTo(MemorySegment.ofArray(bytes));
        return bytes;
    }

    /** Random values (small integers for integer types, so products and sums stay in range; floats of mixed sign). */
    private static DeviceArray random(Primer p, DType type, long n, SplittableRandom random) {
        int count = Math.toIntExact(n);
        return switch (type) {
            case BYTE -> {
                byte[] v = new byte[count];
                for (int i = 0; i < count; i++) v[i] = (byte) random.nextInt(-3, 4);
                yield p.upload(v);
            }
            case INT -> p.upload(random.ints(count, -1000, 1000).toArray());
            case LONG -> p.upload(random.longs(count, -1000, 1000).toArray());
            case FLOAT -> {
                float[] v = new float[count];
                for (int i = 0; i < count; i++) v[i] = (float) random.nextDouble(-2, 2);
                yield p.upload(v);
            }
            case DOUBLE -> p.upload(random.doubles(count, -2, 2).toArray());
        };
    }

    /** Offsets: none, all empty, short and empty mixed (power-law-ish), and one long segment among short ones. */
    private static List<long[]> segmentLayouts(SplittableRandom random) {
        List<long[]> layouts = new ArrayList<>();
        layouts.add(new long[] {1});
        layouts.add(new long[] {0, 0, 0, 0});
        int segments = 3001;
        long[] mixed = new long[segments + 1];
        mixed[0] = 2;
        for (int i = 1; i <= segments; i++) {
            int r = random.nextInt(100);
            mixed[i] = mixed[i - 1] + (r < 20 ? 0 : r < 90 ? random.nextInt(1, 9) : random.nextInt(9, 400));
        }
        layouts.add(mixed);
        long[] oneLong = new long[66];
        for (int i = 1; i < oneLong.length; i++) oneLong[i] = oneLong[i - 1] + (i == 30 ? 70001 : random.nextInt(0, 40));
        layouts.add(oneLong);
        return layouts;
    }

    private static boolean customOpsRun(BackendKind kind) {
        return kind == BackendKind.CPU || Nvrtc.isAvailable();
    }

    private static long sum(long[] v, int from, int to) {
        long s = 0;
        for (int i = from; i < to; i++) s += v[i];
        return s;
    }
}
