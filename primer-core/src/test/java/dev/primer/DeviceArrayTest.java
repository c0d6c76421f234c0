package dev.primer;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Arrays on each backend: transfers, slices, fills, lifetimes and argument errors. */
class DeviceArrayTest {
    /** Awkward sizes, and one that crosses the GPU's 8 MiB pinned staging chunks several times. */
    static final int[] SIZES = {0, 1, 31, 33, 1023, 1025, (1 << 16) + 1, 5_000_011};

    static Iterable<BackendKind> backends() { return Backends.all().toList(); }

    @ParameterizedTest
    @MethodSource("backends")
    void roundTripsEveryTypeAtAwkwardSizes(BackendKind kind) {
        SplittableRandom random = new SplittableRandom(42);
        try (Primer primer = Backends.open(kind)) {
            for (int n : SIZES) {
                int[] ints = random.ints(n).toArray();
                long[] longs = random.longs(n).toArray();
                double[] doubles = random.doubles(n, -1e6, 1e6).toArray();
                float[] floats = new float[n];
                byte[] bytes = new byte[n];
                for (int i = 0; i < n; i++) {
                    floats[i] = (float) doubles[i];
                    bytes[i] = (byte) ints[i];
                }
                try (IntArray a = primer.upload(ints); LongArray b = primer.upload(longs); DoubleArray c = primer.upload(doubles);
                     FloatArray d = primer.upload(floats); ByteArray e = primer.upload(bytes)) {
                    assertArrayEquals(ints, a.toArray(), "int32 n=" + n);
                    assertArrayEquals(longs, b.toArray(), "int64 n=" + n);
                    assertArrayEquals(doubles, c.toArray(), "float64 n=" + n);
                    assertArrayEquals(floats, d.toArray(), "float32 n=" + n);
                    assertArrayEquals(bytes, e.toArray(), "int8 n=" + n);
                    assertEquals(n, a.length());
                    assertEquals(4L * n, a.byteSize());
                }
            }
        }
    }

    @ParameterizedTest
    @MethodSource("backends")
    void nativeSegmentsTransferBothWays(BackendKind kind) {
        try (Primer primer = Backends.open(kind); Arena arena = Arena.ofConfined()) {
            long n = 3_000_017;
            MemorySegment src = arena.allocate(ValueLayout.JAVA_DOUBLE, n);
            for (long i = 0; i < n; i++) src.setAtIndex(ValueLayout.JAVA_DOUBLE, i, Math.sin(i));
            try (DeviceArray a = primer.upload(DType.DOUBLE, src, n)) {
                MemorySegment back = arena.allocate(ValueLayout.JAVA_DOUBLE, n);
                back.fill((byte) 0x7F); // poison
                a.copyTo(back);
                assertEquals(-1, src.mismatch(back));
            }
        }
    }

    @ParameterizedTest
    @MethodSource("backends")
    void slicesShareMemoryWithoutCopying(BackendKind kind) {
        try (Primer primer = Backends.open(kind); IntArray a = primer.upload(new int[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9})) {
            IntArray middle = a.slice(3, 7);
            assertArrayEquals(new int[] {3, 4, 5, 6}, middle.toArray());
            middle.copyFrom(new int[] {-3, -4, -5, -6});
            assertArrayEquals(new int[] {0, 1, 2, -3, -4, -5, -6, 7, 8, 9}, a.toArray());
            IntArray inner = middle.slice(1, 3);
            assertArrayEquals(new int[] {-4, -5}, inner.toArray());
            assertEquals(-5, inner.get(1));
            assertEquals(0, a.slice(10, 10).length());
            assertThrows(IndexOutOfBoundsException.class, () -> a.slice(5, 11));
            assertThrows(IndexOutOfBoundsException.class, () -> a.slice(-1, 2));
            assertThrows(IndexOutOfBoundsException.class, () -> a.slice(6, 5));
            assertFalse(middle.isOwner());
            middle.close();                      // closing a view frees nothing
            assertTrue(middle.isClosed());
            assertEquals(9, a.get(9));
        }
    }

    @ParameterizedTest
    @MethodSource("backends")
    void fillWritesEveryElementOfEveryWidth(BackendKind kind) {
        try (Primer primer = Backends.open(kind)) {
            int n = 100_003;
            try (ByteArray b = primer.allocateBytes(n); IntArray i = primer.allocateInts(n); LongArray l = primer.allocateLongs(n);
                 FloatArray f = primer.allocateFloats(n); DoubleArray d = primer.allocateDoubles(n)) {
                b.fill((byte) -7);
                i.fill(0x12345678);
                l.fill(0x0123_4567_89AB_CDEFL);
                f.fill(-0.0f);
                d.fill(Math.PI);
                byte[] eb = new byte[n]; Arrays.fill(eb, (byte) -7);
                int[] ei = new int[n]; Arrays.fill(ei, 0x12345678);
                long[] el = new long[n]; Arrays.fill(el, 0x0123_4567_89AB_CDEFL);
                float[] ef = new float[n]; Arrays.fill(ef, -0.0f);
                double[] ed = new double[n]; Arrays.fill(ed, Math.PI);
                assertArrayEquals(eb, b.toArray());
                assertArrayEquals(ei, i.toArray());
                assertArrayEquals(el, l.toArray());
                assertArrayEquals(ef, f.toArray());
                assertArrayEquals(ed, d.toArray());
                // A fill of a slice touches only the slice.
                l.slice(10, 20).fill(-1L);
                long[] got = l.toArray();
                for (int k = 0; k < n; k++) assertEquals(k >= 10 && k < 20 ? -1L : 0x0123_4567_89AB_CDEFL, got[k], "index " + k);
            }
        }
    }

    @ParameterizedTest
    @MethodSource("backends")
    void closedArraysFailClearlyAndCloseIsIdempotent(BackendKind kind) {
        try (Primer primer = Backends.open(kind)) {
            FloatArray a = primer.upload(new float[] {1, 2, 3});
            FloatArray view = a.slice(0, 2);
            a.close();
            a.close();
            IllegalStateException e = assertThrows(IllegalStateException.class, a::toArray);
            assertTrue(e.getMessage().contains("closed"), e.getMessage());
            IllegalStateException v = assertThrows(IllegalStateException.class, view::toArray);
            assertTrue(v.getMessage().contains("owner"), v.getMessage());
            assertThrows(IllegalStateException.class, () -> primer.sum(a));
        }
    }

    @ParameterizedTest
    @MethodSource("backends")
    void badArgumentsNameTheArgument(BackendKind kind) {
        try (Primer primer = Backends.open(kind); IntArray a = primer.upload(new int[] {1, 2, 3})) {
            assertMessage(IllegalArgumentException.class, () -> a.copyFrom(new int[2]), "src");
            assertMessage(IllegalArgumentException.class, () -> a.copyTo(new int[4]), "dst");
            assertMessage(NullPointerException.class, () -> a.copyFrom((int[]) null), "src");
            assertMessage(NullPointerException.class, () -> primer.upload((float[]) null), "src");
            assertMessage(IllegalArgumentException.class, () -> primer.allocate(DType.INT, -1), "length");
            try (LongArray other = primer.allocateLongs(3); FloatArray one = primer.upload(new float[] {1})) {
                assertMessage(IllegalArgumentException.class, () -> primer.reduce(one, Op.XOR), "op");
                assertMessage(IllegalArgumentException.class, () -> other.copyFrom(a), "src");
            }
        }
    }

    @ParameterizedTest
    @MethodSource("backends")
    void arraysOfAnotherPrimerAreRejected(BackendKind kind) {
        try (Primer one = Backends.open(kind); Primer cpu = Primer.open(BackendKind.CPU);
             IntArray foreign = cpu.upload(new int[] {1})) {
            assertMessage(IllegalArgumentException.class, () -> one.sum(foreign), "another Primer");
        }
    }

    @ParameterizedTest
    @MethodSource("backends")
    void npyFilesLoadAndSave(BackendKind kind, @TempDir Path dir) throws Exception {
        try (Primer primer = Backends.open(kind); FloatArray a = primer.upload(new float[] {1.5f, -2f, Float.NaN, 7f, 0f, 3f})) {
            Path file = dir.resolve("a.npy");
            primer.save(file, a, new long[] {2, 3});
            try (DeviceArray back = primer.load(file)) {
                assertEquals(DType.FLOAT, back.dtype());
                assertArrayEquals(a.toArray(), ((FloatArray) back).toArray());
            }
            assertMessage(IllegalArgumentException.class, () -> primer.save(file, a, new long[] {4, 2}), "shape");
        }
    }

    static void assertMessage(Class<? extends Throwable> type, org.junit.jupiter.api.function.Executable call, String fragment) {
        Throwable t = assertThrows(type, call);
        assertTrue(t.getMessage() != null && t.getMessage().contains(fragment), "message '" + t.getMessage() + "' should mention " + fragment);
    }
}
