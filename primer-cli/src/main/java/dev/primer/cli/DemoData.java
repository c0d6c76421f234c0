package dev.primer.cli;

import dev.primer.DType;
import dev.primer.DoubleArray;
import dev.primer.FloatArray;
import dev.primer.IntArray;
import dev.primer.LongArray;
import dev.primer.Primer;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.stream.LongStream;

/**
 * The demo's inputs, generated once in host memory from a seed: int32 over the whole range, float32
 * and float64 uniform in [0, 1) (positive, so running sums are well conditioned and a relative
 * tolerance is meaningful), and segment offsets with random lengths averaging {@value #MEAN_SEGMENT}.
 * Generation is parallel over fixed chunks, each with its own seeded generator: the data depend on
 * the seed only, not on the number of cores.
 */
final class DemoData {
    static final int MEAN_SEGMENT = 1000;
    static final int ROW_LENGTH = 1024;
    private static final int CHUNK = 1 << 16;

    final long n;
    final MemorySegment ints, floats, doubles, offsets;
    final long segments, rows, cols;

    private DemoData(long n, MemorySegment ints, MemorySegment floats, MemorySegment doubles, MemorySegment offsets) {
        this.n = n;
        this.ints = ints;
        this.floats = floats;
        this.doubles = doubles;
        this.offsets = offsets;
        this.segments = offsets.byteSize() / 8 - 1;
        this.cols = Math.min(ROW_LENGTH, n);
        this.rows = cols == 0 ? 0 : n / cols;
    }

    static DemoData generate(Arena arena, long n, long seed) {
        MemorySegment ints = arena.allocate(Math.max(1, n * 4), 64).asSlice(0, n * 4);
        MemorySegment floats = arena.allocate(Math.max(1, n * 4), 64).asSlice(0, n * 4);
        MemorySegment doubles = arena.allocate(Math.max(1, n * 8), 64).asSlice(0, n * 8);
        long chunks = (n + CHUNK - 1) / CHUNK;
        LongStream.range(0, chunks).parallel().forEach(c -> {
            SplittableRandom r = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + c);
            for (long i = c * CHUNK, end = Math.min(n, i + CHUNK); i < end; i++) {
                ints.setAtIndex(ValueLayout.JAVA_INT, i, r.nextInt());
                floats.setAtIndex(ValueLayout.JAVA_FLOAT, i, (float) r.nextDouble());
                doubles.setAtIndex(ValueLayout.JAVA_DOUBLE, i, r.nextDouble());
            }
        });
        long[] bounds = segmentBounds(n, new SplittableRandom(seed ^ 0x5DEECE66DL));
        MemorySegment offsets = arena.allocate(bounds.length * 8L, 8);
        MemorySegment.copy(bounds, 0, offsets, ValueLayout.JAVA_LONG, 0, bounds.length);
        return new DemoData(n, ints, floats, doubles, offsets);
    }

    /** 0 = b[0] <= b[1] <= ... <= b[last] = n, lengths uniform in [0, 2 * MEAN_SEGMENT]. */
    private static long[] segmentBounds(long n, SplittableRandom r) {
        long[] b = new long[16];
        int k = 1;
        long at = 0;
        while (at < n) {
            at = Math.min(n, at + r.nextInt(2 * MEAN_SEGMENT + 1));
            if (k == b.length) b = Arrays.copyOf(b, b.length * 2);
            b[k++] = at;
        }
        return Arrays.copyOf(b, k);
    }

    /** Bytes of input data. */
    long bytes() { return ints.byteSize() + floats.byteSize() + doubles.byteSize() + offsets.byteSize(); }

    /** The inputs uploaded to a backend, with output buffers for the scans. */
    OnBackend upload(Primer p) { return new OnBackend(p, this); }

    /** The inputs on one backend; closing frees them. */
    static final class OnBackend implements AutoCloseable {
        private final Primer primer;
        final IntArray ints;
        final FloatArray floats;
        final DoubleArray doubles;
        final LongArray offsets;
        final LongArray scanLong;
        final DoubleArray scanDouble;
        final IntArray scanInt;

        OnBackend(Primer p, DemoData d) {
            primer = p;
            ints = (IntArray) p.upload(DType.INT, d.ints, d.n);
            floats = (FloatArray) p.upload(DType.FLOAT, d.floats, d.n);
            doubles = (DoubleArray) p.upload(DType.DOUBLE, d.doubles, d.n);
            offsets = (LongArray) p.upload(DType.LONG, d.offsets, d.segments + 1);
            scanLong = p.allocateLongs(d.n);
            scanDouble = p.allocateDoubles(d.n);
            scanInt = p.allocateInts(d.n);
        }

        Primer primer() { return primer; }

        @Override public void close() {
            for (var a : new dev.primer.DeviceArray[] {ints, floats, doubles, offsets, scanLong, scanDouble, scanInt}) a.close();
        }
    }
}
