package dev.primer.cli;

import dev.primer.cuda.CudaContext;
import dev.primer.cuda.CudaEvent;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.stream.IntStream;

/**
 * The measured copy bandwidth, the yardstick a memory-bound kernel is compared with ("% of copy").
 * GPU: a device-to-device copy between two 1 GiB buffers (far larger than L2) timed with CUDA events;
 * CPU: MemorySegment.copy of 256 MiB, on one thread and on all cores. Both count the bytes read plus
 * the bytes written, take warm-up copies first and report the median of the timed ones.
 */
public final class CopyBandwidth {
    private CopyBandwidth() {}

    /** Number of timed copies after warm-up; the median is reported. */
    public static final int REPETITIONS = 10;
    private static final int WARMUP = 2;
    static final long GPU_BUFFER_BYTES = 1L << 30;
    static final long CPU_BUFFER_BYTES = 256L << 20;

    /** One measurement: bytes read + written per second, of copies of {@code bufferBytes}. */
    public record Result(double bytesPerSecond, long bufferBytes, double medianMillis, int repetitions, String method) {
        public double gigabytesPerSecond() { return bytesPerSecond / 1e9; }

        public Json toJson() {
            return Json.object()
                    .put("bytesPerSecond", bytesPerSecond)
                    .put("gigabytesPerSecond", gigabytesPerSecond())
                    .put("bufferBytes", bufferBytes)
                    .put("medianMillis", medianMillis)
                    .put("repetitions", repetitions)
                    .put("method", method);
        }
    }

    /**
     * Device-to-device copy bandwidth. Uses 1 GiB buffers, or less (a power of two, at least 64 MiB)
     * when free device memory is short.
     */
    public static Result gpu(CudaContext ctx, ProgressBar bar) {
        long free = ctx.memoryInfo()[0];
        long bytes = GPU_BUFFER_BYTES;
        while (bytes > (64L << 20) && 2 * bytes + (256L << 20) > free) bytes >>= 1;
        bar.update(0, "allocating 2 × " + Format.bytes(bytes) + " on the device");
        long src = ctx.allocate(bytes);
        long dst = 0;
        try (CudaEvent start = ctx.newEvent(); CudaEvent stop = ctx.newEvent()) {
            dst = ctx.allocate(bytes);
            ctx.memset32(src, 0x3f800000, bytes / 4);
            ctx.memset32(dst, 0, bytes / 4);
            double[] ms = new double[REPETITIONS];
            for (int i = 0; i < WARMUP + REPETITIONS; i++) {
                bar.update(i, "device-to-device copy " + Format.bytes(bytes) + (i < WARMUP ? " (warm-up)" : ""));
                start.record();
                ctx.copyDeviceToDeviceAsync(dst, src, bytes);
                stop.record();
                float t = stop.elapsedMillis(start);
                if (i >= WARMUP) ms[i - WARMUP] = t;
            }
            double median = median(ms);
            return new Result(2.0 * bytes / (median * 1e-3), bytes, median, REPETITIONS,
                    "cuMemcpyDtoDAsync of " + Format.bytes(bytes) + " timed with CUDA events; (read + write bytes)"
                            + " / median of " + REPETITIONS + " after " + WARMUP + " warm-up copies");
        } finally {
            ctx.synchronize();
            ctx.free(dst);
            ctx.free(src);
        }
    }

    /** Host memory copy bandwidth over {@code threads} threads (each copies its share of 256 MiB). */
    public static Result cpu(int threads, ProgressBar bar) {
        long bytes = CPU_BUFFER_BYTES;
        bar.update(0, "allocating 2 × " + Format.bytes(bytes));
        try (Arena arena = Arena.ofShared()) {
            MemorySegment src = arena.allocate(bytes, 4096);
            MemorySegment dst = arena.allocate(bytes, 4096);
            src.fill((byte) 0x5a);  // touch every page first: the first copy would otherwise time page faults
            dst.fill((byte) 0);
            src.set(ValueLayout.JAVA_LONG, 0, 42L);
            double[] ms = new double[REPETITIONS];
            for (int i = 0; i < WARMUP + REPETITIONS; i++) {
                bar.update(i, "memory copy " + Format.bytes(bytes) + " on " + threads + (threads == 1 ? " thread" : " threads"));
                long t0 = System.nanoTime();
                copy(src, dst, bytes, threads);
                long t1 = System.nanoTime();
                if (i >= WARMUP) ms[i - WARMUP] = (t1 - t0) / 1e6;
            }
            double median = median(ms);
            return new Result(2.0 * bytes / (median * 1e-3), bytes, median, REPETITIONS,
                    "MemorySegment.copy of " + Format.bytes(bytes) + " on " + threads + (threads == 1 ? " thread" : " threads")
                            + "; (read + write bytes) / median of " + REPETITIONS + " after " + WARMUP + " warm-up copies");
        }
    }

    private static void copy(MemorySegment src, MemorySegment dst, long bytes, int threads) {
        if (threads <= 1) {
            MemorySegment.copy(src, 0, dst, 0, bytes);
            return;
        }
        long chunk = (bytes / threads + 4095) & ~4095L;
        IntStream.range(0, threads).parallel().forEach(t -> {
            long from = Math.min(bytes, t * chunk), to = Math.min(bytes, from + chunk);
            if (to > from) MemorySegment.copy(src, from, dst, from, to - from);
        });
    }

    static double median(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        int n = v.length;
        return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }
}
