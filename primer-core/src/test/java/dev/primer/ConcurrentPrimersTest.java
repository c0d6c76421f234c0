package dev.primer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.primer.cuda.Nvrtc;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Several threads, each with its own GPU Primer (so nothing serialises them but the library), run
 * batched and segmented reduces and custom-operator reduces on different inputs at once, many
 * times, and every result is checked against the CPU backend. All GPU Primers share one context,
 * one stream and its scratch buffers: a call whose launches another thread's launches can land
 * between (rows chunk + combine, the three segment kernels and their counter reset, a result or
 * overflow flag read back from scratch), or whose scratch another thread grows and frees, gives a
 * wrong answer or a wrong (missing, or someone else's) int64 overflow here. Integer results only, so
 * every comparison is exact. Skipped without a GPU.
 */
class ConcurrentPrimersTest {
    private static final int THREADS = 6;
    private static final int ROUNDS = 40;

    private static final CustomOp LONG_XOR = CustomOp.ofLong("cc_lxor", "a ^ b", 0L, (a, b) -> a ^ b);
    private static final CustomOp INT_MAX = CustomOp.ofInt("cc_imax", "a > b ? a : b", Integer.MIN_VALUE, Math::max);

    /** One thread's inputs (on both backends) and the CPU's answers. */
    private static final class Work implements AutoCloseable {
        final int seed;
        final long rows, cols;
        final IntArray matrixGpu;
        final long[] rowSums, rowArgMax;
        final LongArray valuesGpu, offsetsGpu, hugeGpu, hugeOffsetsGpu;
        final long[] segmentSums, segmentArgMin;
        final long overflowSegment;
        final LongArray xorInputGpu;
        final IntArray maxInputGpu;
        final long xor;
        final int max;

        Work(int seed, Primer gpu, Primer cpu) {
            this.seed = seed;
            SplittableRandom random = new SplittableRandom(1000 + seed);
            // Rows: few rows of many columns, so rows are cut into chunks and combined (a second
            // launch over scratch slots); row counts differ per thread, so the scratch grows under load.
            rows = 30 + 30L * seed + random.nextInt(20);
            cols = 24_000 + random.nextInt(64);
            int[] matrix = random.ints(rows * cols, -1_000_000, 1_000_000).toArray();
            try (IntArray m = cpu.upload(matrix);
                 LongArray sums = (LongArray) cpu.reduceRows(m, rows, cols, Op.SUM);
                 LongArray argMax = cpu.argExtremeRows(m, rows, cols, true)) {
                rowSums = sums.toArray();
                rowArgMax = argMax.toArray();
            }
            matrixGpu = gpu.upload(matrix);

            // Segments: many short and medium ones, some long (queued as work items: three launches
            // and a counter reset on the shared scratch), some empty.
            int segments = 1500 + random.nextInt(1000);
            long[] offsets = new long[segments + 1];
            for (int s = 0; s < segments; s++) {
                int kind = random.nextInt(100);
                int length = kind < 5 ? 0 : kind < 80 ? random.nextInt(1, 64) : kind < 95 ? random.nextInt(64, 2048)
                        : random.nextInt(3000, 60_000);
                offsets[s + 1] = offsets[s] + length;
            }
            long[] values = random.longs(offsets[segments], -1L << 40, 1L << 40).toArray();
            try (LongArray v = cpu.upload(values); LongArray o = cpu.upload(offsets);
                 LongArray sums = (LongArray) cpu.reduceSegments(v, o, Op.SUM);
                 LongArray argMin = cpu.argExtremeSegments(v, o, false)) {
                segmentSums = sums.toArray();
                segmentArgMin = argMin.toArray();
            }
            valuesGpu = gpu.upload(values);
            offsetsGpu = gpu.upload(offsets);

            // An int64 SUM that overflows in one segment (which the exception must name).
            long[] huge = new long[4000];
            long[] hugeOffsets = {0, 100, 100 + 3000, 4000};
            overflowSegment = 1;
            for (int i = 0; i < huge.length; i++) huge[i] = random.nextLong(-1000, 1000);
            for (int i = 100; i < 3100; i++) huge[i] = Long.MAX_VALUE / 1000;
            hugeGpu = gpu.upload(huge);
            hugeOffsetsGpu = gpu.upload(hugeOffsets);

            // Custom operators: multi-block reduces whose result slot is in the shared scratch.
            long[] l = random.longs(1_000_000 + random.nextInt(1000)).toArray();
            int[] i = random.ints(700_000 + random.nextInt(1000)).toArray();
            long x = 0;
            for (long e : l) x ^= e;
            int m = Integer.MIN_VALUE;
            for (int e : i) m = Math.max(m, e);
            xor = x;
            max = m;
            xorInputGpu = gpu.upload(l);
            maxInputGpu = gpu.upload(i);
        }

        @Override public void close() {
            for (DeviceArray a : new DeviceArray[] {matrixGpu, valuesGpu, offsetsGpu, hugeGpu, hugeOffsetsGpu,
                    xorInputGpu, maxInputGpu}) {
                a.close();
            }
        }
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void gpuPrimersOnSeveralThreadsMatchTheCpu() throws Exception {
        Backends.assumeGpu();
        boolean custom = Nvrtc.isAvailable();
        if (custom) {  // compile once up front, so the threads race on the launches, not the compile
            try (Primer gpu = Primer.open(BackendKind.GPU); LongArray a = gpu.upload(new long[] {1, 2});
                 IntArray b = gpu.upload(new int[] {1, 2})) {
                assertEquals(3L, gpu.reduce(a, LONG_XOR));
                assertEquals(2, gpu.reduce(b, INT_MAX));
            }
        }
        CyclicBarrier start = new CyclicBarrier(THREADS);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<?>> results = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int seed = t;
                results.add(pool.submit(() -> {
                    try (Primer gpu = Primer.open(BackendKind.GPU); Primer cpu = Primer.open(BackendKind.CPU);
                         Work w = new Work(seed, gpu, cpu)) {
                        start.await();
                        for (int round = 0; round < ROUNDS; round++) run(gpu, w, custom, round);
                    }
                    return null;
                }));
            }
            for (Future<?> f : results) f.get();
        } finally {
            pool.shutdownNow();
            assertTrue(pool.awaitTermination(1, TimeUnit.MINUTES));
        }
    }

    private static void run(Primer gpu, Work w, boolean custom, int round) {
        String where = "thread " + w.seed + " round " + round + ": ";
        try (LongArray sums = (LongArray) gpu.reduceRows(w.matrixGpu, w.rows, w.cols, Op.SUM)) {
            assertArrayEquals(w.rowSums, sums.toArray(), where + "reduceRows SUM");
        }
        try (LongArray sums = (LongArray) gpu.reduceSegments(w.valuesGpu, w.offsetsGpu, Op.SUM)) {
            assertArrayEquals(w.segmentSums, sums.toArray(), where + "reduceSegments int64 SUM");
        }
        ArithmeticException e = assertThrows(ArithmeticException.class,
                () -> gpu.reduceSegments(w.hugeGpu, w.hugeOffsetsGpu, Op.SUM).close(), where + "overflow not reported");
        assertTrue(e.getMessage().contains("segment " + w.overflowSegment), where + e.getMessage());
        if (custom) {
            assertEquals(w.xor, gpu.reduce(w.xorInputGpu, LONG_XOR), where + "custom xor");
            assertEquals(w.max, gpu.reduce(w.maxInputGpu, INT_MAX), where + "custom max");
        }
        try (LongArray argMax = gpu.argExtremeRows(w.matrixGpu, w.rows, w.cols, true)) {
            assertArrayEquals(w.rowArgMax, argMax.toArray(), where + "argExtremeRows max");
        }
        try (LongArray argMin = gpu.argExtremeSegments(w.valuesGpu, w.offsetsGpu, false)) {
            assertArrayEquals(w.segmentArgMin, argMin.toArray(), where + "argExtremeSegments min");
        }
    }
}
