package dev.primer.cli.bench;

import dev.primer.DType;
import dev.primer.DeviceArray;
import dev.primer.FloatArray;
import dev.primer.Op;
import dev.primer.cuda.CudaContext;
import dev.primer.gpu.GpuReduce;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The production device-wide reduce on n elements (2^28; 2^24 with --quick): the kernel sequence
 * alone, timed with events and writing its result to a device buffer (no host copy in the timed
 * region); and the call as a Java user makes it, Primer.sum(FloatArray) on 2^20 floats, timed on the
 * host, result read back included. The result of the last timed run is checked against a host loop.
 */
final class ReduceBench {
    static final String GROUP = "reduce";
    static final String SYNC_NAME = "sum_sync_f32_2^20";
    /** Enough calls for the JIT's optimizing tier (C2 compiles after ~10^4 invocations): steady state. */
    private static final int SYNC_WARMUP = 20_000;
    private static final int SYNC_CALLS = 5000;

    private ReduceBench() {}

    /** One benchmark: a type and an operator, or (op == null) argMax. */
    private record Case(String name, DType type, Op op, int outBytes) {}

    static List<BenchRecord> run(BenchSetup s) {
        List<BenchRecord> out = new ArrayList<>();
        for (Case c : List.of(
                new Case("sum_f32", DType.FLOAT, Op.SUM, 4),      // out bytes as the baselines count them (CuPy's result)
                new Case("sum_i32", DType.INT, Op.SUM, 8),
                new Case("sum_f64", DType.DOUBLE, Op.SUM, 8),
                new Case("max_f32", DType.FLOAT, Op.MAX, 4),
                new Case("argmax_f32", DType.FLOAT, null, 8),
                new Case("sum_i8", DType.BYTE, Op.SUM, 8),          // int8 sums to int64, four bytes an instruction
                new Case("argmax_i8", DType.BYTE, null, 8))) {
            out.add(Guard.run(s, GROUP, c.name(), c.type().toString(), String.valueOf(s.n()), () -> measure(s, GROUP, c, s.n())));
        }
        out.add(Guard.run(s, GROUP, SYNC_NAME, "float32", String.valueOf(s.syncN()), () -> sync(s)));
        return out;
    }

    /** The float32 sum of n elements, as sum_f32 is measured, recorded under {@code group} as {@code name}. */
    static BenchRecord sumFloat(BenchSetup s, String group, String name, long n) {
        Case c = new Case(name, DType.FLOAT, Op.SUM, 4);
        return Guard.run(s, group, name, "float32", String.valueOf(n), () -> measure(s, group, c, n));
    }

    private static BenchRecord measure(BenchSetup s, String group, Case c, long n) {
        CudaContext ctx = s.ctx();
        long bytes = n * c.type().byteSize();
        int buffers = s.buffersFor(bytes);
        try (Arena arena = Arena.ofShared(); Closer closer = new Closer()) {
            MemorySegment host = RandomHost.fill(arena.allocate(bytes, 64), c.type(), n, 71 + c.type().ordinal());
            DeviceArray[] in = new DeviceArray[buffers];
            long[] pointers = new long[buffers];
            for (int b = 0; b < buffers; b++) {
                in[b] = closer.add(s.gpu().allocate(c.type(), n));
                in[b].copyFrom(host);
                pointers[b] = in[b].devicePointer();
            }
            long result = ctx.allocate(64);
            closer.add(() -> ctx.free(result));
            EventTimer timer = closer.add(new EventTimer(ctx));
            Timing t = timer.time(BenchSetup.WARMUP, s.reps(), i -> launch(ctx, c, pointers[i % buffers], n, result));
            ctx.synchronize();
            String check = verify(ctx, c, result, host, n);
            return BenchRecord.measured(group, c.name(), c.type().toString(), String.valueOf(n), n, (double) bytes + c.outBytes(), t,
                    check.startsWith("ok"), check + "; kernels only (result left on the device); " + buffers + " buffer(s)");
        }
    }

    private static void launch(CudaContext ctx, Case c, long in, long n, long result) {
        if (c.op() == null) GpuReduce.argExtremeInto(ctx, c.type(), true, in, n, result);
        else GpuReduce.reduceInto(ctx, c.type(), c.op(), in, n, result);
    }

    /**
     * The result the last timed run left on the device (GpuReduce's layout: a long for int32 SUM, a
     * double for float SUM and MAX, the index at byte 8 for argMax) against a host loop.
     */
    private static String verify(CudaContext ctx, Case c, long result, MemorySegment host, long n) {
        MemorySegment r = ctx.readback(result, 16);
        if (c.op() == null) {
            long got = r.get(ValueLayout.JAVA_LONG, 8), want = HostReference.argMax(host, c.type(), n);
            return got == want ? "ok: index " + got + " as on the host" : "FAILED: index " + got + ", host " + want;
        }
        double want = c.op() == Op.MAX ? HostReference.maxFloat(host, n) : HostReference.sum(host, c.type(), 0, n);
        if (!c.type().isFloatingPoint()) {
            long got = r.get(ValueLayout.JAVA_LONG, 0);
            return got == (long) want ? "ok: exact" : String.format(Locale.ROOT, "FAILED: %d, host %.0f", got, want);
        }
        double got = r.get(ValueLayout.JAVA_DOUBLE, 0);
        if (c.type() == DType.FLOAT && c.op() == Op.SUM) got = (float) got; // what Primer.sum(FloatArray) returns
        double err = HostReference.relativeError(got, want);
        return err <= 1e-6 ? String.format(Locale.ROOT, "ok: rel err %.1e vs host float64", err)
                : String.format(Locale.ROOT, "FAILED: %s, host %s (rel err %.1e)", got, want, err);
    }

    /** What a Java user sees: Primer.sum(FloatArray) of 2^20 floats, result on the host, wall time per call. */
    private static BenchRecord sync(BenchSetup s) {
        long n = s.syncN();
        int buffers = s.buffersFor(4 * n);
        try (Arena arena = Arena.ofShared(); Closer closer = new Closer()) {
            MemorySegment host = RandomHost.fill(arena.allocate(4 * n, 64), DType.FLOAT, n, 81);
            FloatArray[] in = new FloatArray[buffers];
            for (int b = 0; b < buffers; b++) {
                in[b] = closer.add(s.gpu().allocateFloats(n));
                in[b].copyFrom(host);
            }
            int calls = s.quick() ? 500 : SYNC_CALLS;
            float[] last = new float[1];
            Timing t = Timing.wall(SYNC_WARMUP, calls, i -> last[0] = s.gpu().sum(in[i % buffers]));
            double want = HostReference.sum(host, DType.FLOAT, 0, n);
            double err = HostReference.relativeError(last[0], want);
            boolean ok = err <= 1e-6;
            String note = String.format(Locale.ROOT, "%.2f µs per call (median of %d after %d warm-up; host wall time,"
                            + " result read back); rel err %.1e vs host; %d buffers rotated",
                    t.medianMs() * 1e3, calls, SYNC_WARMUP, err, buffers);
            return BenchRecord.measured(GROUP, SYNC_NAME, "float32", String.valueOf(n), n, 4.0 * n + 4, t, ok, note);
        }
    }
}
