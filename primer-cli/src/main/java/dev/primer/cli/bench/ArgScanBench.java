package dev.primer.cli.bench;

import dev.primer.Backend;
import dev.primer.DType;
import dev.primer.DeviceArray;
import dev.primer.LongArray;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Running argmax ({@code argExtremeScan}) of n random elements into int64 indices. Bytes = input +
 * output (8 per element), what one pass must move; Primer's kernels read the input twice
 * (device/arg_scan_kernels.cuh). Pairs with torch.cummax, which writes the running values too
 * (bench/baselines.py times it once for cummax_* and once here; CuPy has no cumulative argmax). Every
 * index is checked against a sequential scan on the host.
 */
final class ArgScanBench {
    private ArgScanBench() {}

    static BenchRecord argmax(BenchSetup s, String name, DType type) {
        return Guard.run(s, ScanBench.GROUP, name, type.toString(), String.valueOf(s.n()), () -> measure(s, name, type));
    }

    private static BenchRecord measure(BenchSetup s, String name, DType type) {
        long n = s.n(), inBytes = n * type.byteSize(), outBytes = n * Long.BYTES;
        int buffers = s.buffersFor(inBytes + outBytes);
        Backend backend = s.gpu().backend();
        try (Arena arena = Arena.ofShared(); Closer closer = new Closer()) {
            MemorySegment host = RandomHost.fill(arena.allocate(inBytes, 64), type, n, 83);
            DeviceArray[] in = new DeviceArray[buffers];
            LongArray[] out = new LongArray[buffers];
            for (int b = 0; b < buffers; b++) {
                in[b] = closer.add(s.gpu().allocate(type, n));
                in[b].copyFrom(host);
                out[b] = closer.add(s.gpu().allocateLongs(n));
            }
            EventTimer timer = closer.add(new EventTimer(s.ctx()));
            Timing t = timer.time(BenchSetup.WARMUP, s.reps(), i -> backend.argExtremeScan(in[i % buffers], true, out[i % buffers]));
            s.ctx().synchronize();
            MemorySegment result = arena.allocate(outBytes, 64);
            out[0].copyTo(result);
            String check = check(type, host, result, n);
            return BenchRecord.measured(ScanBench.GROUP, name, type.toString(), String.valueOf(n), n, (double) inBytes + outBytes, t,
                    !check.startsWith("FAILED"), "running argmax (torch.cummax also writes the values); " + check + "; "
                            + buffers + " buffer(s)");
        }
    }

    /** Every index against the first index of the running maximum (Java's order: NaN the extreme, -0.0 below 0.0). */
    private static String check(DType type, MemorySegment in, MemorySegment out, long n) {
        long best = -1, moves = 0;
        for (long i = 0; i < n; i++) {
            if (best < 0 || greater(type, in, i, best)) {
                best = i;
                moves++;
            }
            long got = out.getAtIndex(ValueLayout.JAVA_LONG, i);
            if (got != best) return "FAILED: element " + i + " is " + got + ", expected " + best;
        }
        return "ok: " + n + " indices exact (the maximum moved " + moves + " times)";
    }

    private static boolean greater(DType type, MemorySegment in, long i, long j) {
        return switch (type) {
            case FLOAT -> Float.compare(in.getAtIndex(ValueLayout.JAVA_FLOAT, i), in.getAtIndex(ValueLayout.JAVA_FLOAT, j)) > 0;
            case DOUBLE -> Double.compare(in.getAtIndex(ValueLayout.JAVA_DOUBLE, i), in.getAtIndex(ValueLayout.JAVA_DOUBLE, j)) > 0;
            case INT -> in.getAtIndex(ValueLayout.JAVA_INT, i) > in.getAtIndex(ValueLayout.JAVA_INT, j);
            case LONG -> in.getAtIndex(ValueLayout.JAVA_LONG, i) > in.getAtIndex(ValueLayout.JAVA_LONG, j);
            case BYTE -> in.get(ValueLayout.JAVA_BYTE, i) > in.get(ValueLayout.JAVA_BYTE, j);
        };
    }
}
