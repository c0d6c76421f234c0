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
 * output (8 per element), what one pass must move, as Primer's single pass does
 * (device/arg_scan_kernels.cuh). Pairs with torch.cummax, which writes the running values too
 * (bench/baselines.py times it once for cummax_* and once here; CuPy has no cumulative argmax). Every
 * index is checked against a sequential scan on the host.
 */
final class ArgScanBench {
    private ArgScanBench() {}

    static BenchRecord argmax(BenchSetup s, String name, DType type) {
        return Guard.run(s, ScanBench.GROUP, name, type.toString(), String.valueOf(s.n()), () -> measure(s, name, type, false));
    }

    /**
     * The running argmax of rising float32 data ({@link RandomHost#risingFloats}): every element a
     * new maximum, so no warp of a tile finds its outputs all one index (the kernel's quiet path).
     */
    static BenchRecord rising(BenchSetup s, String name) {
        return Guard.run(s, ScanBench.GROUP, name, DType.FLOAT.toString(), String.valueOf(s.n()),
                () -> measure(s, name, DType.FLOAT, true));
    }

    private static BenchRecord measure(BenchSetup s, String name, DType type, boolean rising) {
        long n = s.n(), inBytes = n * type.byteSize(), outBytes = n * Long.BYTES;
        int buffers = s.buffersFor(inBytes + outBytes);
        Backend backend = s.gpu().backend();
        try (Arena arena = Arena.ofShared(); Closer closer = new Closer()) {
            MemorySegment host = rising ? RandomHost.risingFloats(arena.allocate(inBytes, 64), n, 83)
                    : RandomHost.fill(arena.allocate(inBytes, 64), type, n, 83);
            DeviceArray[] in = new DeviceArray[buffers];
            LongArray[] out = new LongArray[buffers];
            for (int b = 0; b < buffers; b++) {
                in[b] = closer.add(s.gpu().allocate(type, n));
                in[b].copyFrom(host);
                out[b] = closer.add(s.gpu().allocateLongs(n));
            }
            EventTimer timer = closer.add(new EventTimer(s.ctx()));
            Timing t = timer.time(BenchSetup.WARMUP, s.reps(), i -> backend.argExtremeScan(in[i % buffers], true, true, out[i % buffers]));
            s.ctx().synchronize();
            MemorySegment result = arena.allocate(outBytes, 64);
            out[0].copyTo(result);
            String check = check(type, host, result, n);
            return BenchRecord.measured(ScanBench.GROUP, name, type.toString(), String.valueOf(n), n, (double) inBytes + outBytes, t,
                    !check.startsWith("FAILED"), (rising ? "running argmax of rising data; "
                            : "running argmax (torch.cummax also writes the values); ") + check + "; "
                            + buffers + " buffer(s)");
        }
    }

    /** Rows of argmax_scan_rows_*: bench/baselines.py's ARG_SCAN_ROW, the row torch.cummax(x, 1) scans. */
    static final int ROW = 4096;

    /**
     * Segmented running argmax: by head flags, a head in about {@code oneIn} elements
     * ({@code rows} false), or rows of {@link #ROW} elements as segments by offsets, beside
     * torch.cummax along dimension 1. Indices count from each segment's start; every one is checked.
     */
    static BenchRecord segmented(BenchSetup s, String name, DType type, boolean rows, int oneIn) {
        return Guard.run(s, ScanBench.GROUP, name, type.toString(), String.valueOf(s.n()),
                () -> measureSegmented(s, name, type, rows, oneIn));
    }

    private static BenchRecord measureSegmented(BenchSetup s, String name, DType type, boolean rows, int oneIn) {
        long n = rows ? s.n() / ROW * ROW : s.n(), inBytes = n * type.byteSize(), outBytes = n * Long.BYTES;
        long headBytes = rows ? 0 : n;
        int buffers = s.buffersFor(inBytes + headBytes + outBytes);
        Backend backend = s.gpu().backend();
        try (Arena arena = Arena.ofShared(); Closer closer = new Closer()) {
            MemorySegment host = RandomHost.fill(arena.allocate(inBytes, 64), type, n, 89);
            MemorySegment flags = arena.allocate(n, 64);
            if (rows) {
                for (long i = 0; i < n; i += ROW) flags.set(ValueLayout.JAVA_BYTE, i, (byte) 1);
            } else {
                RandomHost.headFlags(flags, n, 97, oneIn);
            }
            long[] offsets = java.util.stream.LongStream.rangeClosed(0, n / ROW).map(k -> k * ROW).toArray();
            LongArray rowOffsets = closer.add(s.gpu().upload(offsets));
            DeviceArray[] in = new DeviceArray[buffers];
            dev.primer.ByteArray[] heads = new dev.primer.ByteArray[buffers];
            LongArray[] out = new LongArray[buffers];
            for (int b = 0; b < buffers; b++) {
                in[b] = closer.add(s.gpu().allocate(type, n));
                in[b].copyFrom(host);
                if (!rows) {
                    heads[b] = closer.add(s.gpu().allocateBytes(n));
                    heads[b].copyFrom(flags);
                }
                out[b] = closer.add(s.gpu().allocateLongs(n));
            }
            EventTimer timer = closer.add(new EventTimer(s.ctx()));
            Timing t = timer.time(BenchSetup.WARMUP, s.reps(), i -> {
                if (rows) backend.segmentedArgExtremeScanByOffsets(in[i % buffers], rowOffsets, true, true, out[i % buffers]);
                else backend.segmentedArgExtremeScanByFlags(in[i % buffers], heads[i % buffers], true, true, out[i % buffers]);
            });
            s.ctx().synchronize();
            MemorySegment result = arena.allocate(outBytes, 64);
            out[0].copyTo(result);
            String check = checkSegmented(type, host, flags, result, n);
            String segments = rows ? "rows of " + ROW + " by offsets (torch.cummax along dim 1)"
                    : "by head flags, a head in about " + oneIn;
            return BenchRecord.measured(ScanBench.GROUP, name, type.toString(), String.valueOf(n), n,
                    (double) inBytes + headBytes + outBytes, t, !check.startsWith("FAILED"),
                    "segmented running argmax, " + segments + "; " + check + "; " + buffers + " buffer(s)");
        }
    }

    /** Every index against the first index of each segment's running maximum, counted from the segment's start. */
    private static String checkSegmented(DType type, MemorySegment in, MemorySegment flags, MemorySegment out, long n) {
        long best = -1, start = 0;
        for (long i = 0; i < n; i++) {
            if (i == 0 || flags.get(ValueLayout.JAVA_BYTE, i) != 0) {
                start = i;
                best = i;
            } else if (greater(type, in, i, best)) {
                best = i;
            }
            long got = out.getAtIndex(ValueLayout.JAVA_LONG, i);
            if (got != best - start) return "FAILED: element " + i + " is " + got + ", expected " + (best - start);
        }
        return "ok: " + n + " indices exact";
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
