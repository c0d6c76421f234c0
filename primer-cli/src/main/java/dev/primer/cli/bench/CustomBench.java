package dev.primer.cli.bench;

import dev.primer.CustomOp;
import dev.primer.DType;
import dev.primer.DeviceArray;
import dev.primer.LongArray;
import dev.primer.cpu.CpuCustomReduce;
import dev.primer.gpu.GpuCustomReduce;
import dev.primer.cpu.CpuCustomScan;
import dev.primer.cpu.CpuCustomSegmentedScan;
import dev.primer.gpu.GpuCustomScan;
import dev.primer.gpu.GpuCustomSegmentedReduce;
import dev.primer.gpu.SegmentedReducePolicy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * User-defined operators (NVRTC) on n elements (2^28; 2^24 with --quick), to set beside the built-in
 * reduce and scan: a float sum written as a CustomOp (commutative, but it takes the order-preserving
 * reduce like every CustomOp), affine maps composed (associative, not commutative), and a forward
 * fill scan; then the segmented forms: a forward fill restarting at head flags (one in about 1024
 * elements), affine maps composed along each row of a (n / 4096) x 4096, a (n / 16) x 16 and a
 * 1048576 x 128 matrix, the float sum along rows of 256 (beside the built-in rows_sum_f32_1Mx256),
 * and over segments of power-law lengths (the offsets of the built-in segments benchmark,
 * SegmentOffsets) and of lengths uniform in [1, 8] (a lane per segment). Reduces
 * are timed with events around the call, which waits for its result (the segmented one for its
 * offsets check; rows do not wait). Each result is checked against the CPU backend (exact for the
 * exact operators; a float64 sum for the float one).
 */
final class CustomBench {
    static final String GROUP = "custom";

    private CustomBench() {}

    static List<BenchRecord> run(BenchSetup s) {
        return List.of(
                Guard.run(s, GROUP, "custom_reduce_fsum_f32", "float32", String.valueOf(s.n()), () -> reduce(s, "custom_reduce_fsum_f32", CustomOps.FSUM)),
                Guard.run(s, GROUP, "custom_reduce_affine_i64", "int64", String.valueOf(s.n()), () -> reduce(s, "custom_reduce_affine_i64", CustomOps.AFFINE32)),
                Guard.run(s, GROUP, "custom_reduce_affine_i8", "int8", String.valueOf(s.n()), () -> reduce(s, "custom_reduce_affine_i8", CustomOps.AFFINE4)),
                Guard.run(s, GROUP, "custom_scan_fsum_f32", "float32", String.valueOf(s.n()), () -> scan(s, "custom_scan_fsum_f32", CustomOps.FSUM)),
                Guard.run(s, GROUP, "custom_scan_ffill_f64", "float64", String.valueOf(s.n()), () -> scan(s, "custom_scan_ffill_f64", CustomOps.FFILL)),
                Guard.run(s, GROUP, "custom_scan_affine_i8", "int8", String.valueOf(s.n()), () -> scan(s, "custom_scan_affine_i8", CustomOps.AFFINE4)),
                Guard.run(s, GROUP, "custom_segscan_ffill_f64", "float64", String.valueOf(s.n()), () -> segmentedScan(s, "custom_segscan_ffill_f64")),
                rows(s, "custom_rows_affine_i64", CustomOps.AFFINE32, new long[] {s.n() / ROW, ROW}),
                rows(s, "custom_rows_affine_i64_short", CustomOps.AFFINE32, new long[] {s.n() / SHORT_ROW, SHORT_ROW}),
                rows(s, "custom_rows_affine_i64_1Mx128", CustomOps.AFFINE32, s.rowsMiddle(DType.LONG)),
                rows(s, "custom_rows_fsum_f32_1Mx256", CustomOps.FSUM, s.rowsMiddle(DType.FLOAT)),
                Guard.run(s, GROUP, "custom_segments_affine_i64_powerlaw", "int64", "powerlaw",
                        () -> segments(s, "custom_segments_affine_i64_powerlaw", 0)),
                Guard.run(s, GROUP, "custom_segments_affine_i64_uniform8", "int64", "uniform",
                        () -> segments(s, "custom_segments_affine_i64_uniform8", 8)));
    }

    /** Columns of the rows rows: long ones (a warp per row), and short ones (a group of lanes per row). */
    private static final long ROW = 4096, SHORT_ROW = 16;

    /** Forward fill restarting at head flags, inclusive; every element checked against the CPU backend's scan. */
    private static BenchRecord segmentedScan(BenchSetup s, String name) {
        CustomOp op = CustomOps.FFILL;
        long n = s.n(), bytes = n * 8;
        int buffers = s.buffersFor(2 * bytes + n);
        try (Arena arena = Arena.ofShared(); Closer closer = new Closer()) {
            MemorySegment host = input(arena, op, n);
            MemorySegment flags = RandomHost.headFlags(arena.allocate(n, 64), n, 5);
            long[] in = new long[buffers], out = new long[buffers], heads = new long[buffers];
            for (int b = 0; b < buffers; b++) {
                DeviceArray a = closer.add(s.gpu().allocate(op.type(), n));
                a.copyFrom(host);
                in[b] = a.devicePointer();
                out[b] = closer.add(s.gpu().allocate(op.type(), n)).devicePointer();
                DeviceArray f = closer.add(s.gpu().allocate(DType.BYTE, n));
                f.copyFrom(flags);
                heads[b] = f.devicePointer();
            }
            EventTimer timer = closer.add(new EventTimer(s.ctx()));
            Timing t = timer.time(BenchSetup.WARMUP, s.reps(), i -> GpuCustomScan.segmentedScanByFlags(s.ctx(), op, true,
                    op.identityBits(), in[i % buffers], heads[i % buffers], out[i % buffers], n));
            s.ctx().synchronize();
            MemorySegment got = arena.allocate(bytes, 64), want = arena.allocate(bytes, 64);
            s.ctx().copyToHost(got, out[0], bytes);
            CpuCustomSegmentedScan.byFlags(op, true, op.identityBits(), host, flags, want, n);
            String check = got.mismatch(want) < 0 ? "ok: every element the CPU's, exactly" : "FAILED: element "
                    + got.mismatch(want) / 8 + " differs from the CPU's";
            return BenchRecord.measured(GROUP, name, op.type().toString(), String.valueOf(n), n, 2.0 * bytes + n, t,
                    !check.startsWith("FAILED"), "inclusive, a head flag in about 1024; " + check + "; " + buffers + " buffer(s)");
        }
    }

    /**
     * {@code op} along each row of a rows x cols matrix ({@code shape}); every row checked against the
     * CPU backend (exactly, or for the float sum within the summation bound of its float64 sum).
     */
    private static BenchRecord rows(BenchSetup s, String name, CustomOp op, long[] shape) {
        long rows = shape[0], cols = shape[1];
        return Guard.run(s, GROUP, name, op.type().toString(), rows + "x" + cols, () -> measureRows(s, name, op, rows, cols));
    }

    private static BenchRecord measureRows(BenchSetup s, String name, CustomOp op, long rows, long cols) {
        long n = rows * cols, size = op.type().byteSize(), bytes = n * size;
        try (Arena arena = Arena.ofShared(); Closer closer = new Closer()) {
            MemorySegment host = input(arena, op, n);
            DeviceArray in = closer.add(s.gpu().allocate(op.type(), n));
            in.copyFrom(host);
            DeviceArray out = closer.add(s.gpu().allocate(op.type(), rows));
            EventTimer timer = closer.add(new EventTimer(s.ctx()));
            Timing t = timer.time(BenchSetup.WARMUP, s.reps(), i -> GpuCustomSegmentedReduce.reduceRows(s.ctx(), op,
                    in.devicePointer(), rows, cols, out.devicePointer()));
            MemorySegment got = arena.allocate(rows * size, 64);
            out.copyTo(got);
            String check = op == CustomOps.FSUM ? checkFloatRows(host, got, rows, cols) : checkRowsExactly(op, host, got, rows, cols);
            return BenchRecord.measured(GROUP, name, op.type().toString(), rows + "x" + cols, n, (double) bytes + rows * size, t,
                    !check.startsWith("FAILED"), check + "; each row folded in order (" + (cols <= 32 ? "a group of lanes per row, in lane order"
                            : bytes / rows <= SegmentedReducePolicy.HALF_WARP_MAX_ROW_BYTES ? "a half-warp per row"
                            : cols < ROW ? "a warp per row" : "a warp per row at full size on an H200, a block per row at --quick")
                            + ": GpuCustomSegmentedReduce.reduceRows); one buffer");
        }
    }

    private static String checkRowsExactly(CustomOp op, MemorySegment host, MemorySegment got, long rows, long cols) {
        MemorySegment want = Arena.ofAuto().allocate(got.byteSize(), 64);
        CpuCustomReduce.reduceRows(op, host, rows, cols, want);
        long at = got.mismatch(want);
        return at < 0 ? "ok: every row the CPU's, exactly" : "FAILED: row " + at / op.type().byteSize() + " differs from the CPU's";
    }

    /** Each float32 row sum against its float64 sum, within the summation bound of the row (FloatSum). */
    private static String checkFloatRows(MemorySegment host, MemorySegment got, long rows, long cols) {
        double worst = 0;
        for (long r = 0; r < rows; r++) {
            FloatSum row = FloatSum.of(host, r * cols, (r + 1) * cols);
            double err = row.error(got.getAtIndex(ValueLayout.JAVA_FLOAT, r));
            if (err > row.bound()) return "FAILED: row " + r + " off by " + err;
            worst = Math.max(worst, err / Math.max(row.abs(), 1e-30));
        }
        return String.format(Locale.ROOT, "ok: every row within the bound (worst error %.1e of sum|x|)", worst);
    }

    /**
     * Affine maps composed over each segment of power-law lengths ({@code uniform} 0) or of lengths
     * uniform in [1, uniform]; every segment checked against the CPU backend.
     */
    private static BenchRecord segments(BenchSetup s, String name, int uniform) throws java.io.IOException {
        CustomOp op = CustomOps.AFFINE32;
        try (Arena arena = Arena.ofShared(); Closer closer = new Closer()) {
            SegmentOffsets seg = uniform > 0 ? SegmentOffsets.uniform(s.segmentValues(), uniform, arena)
                    : s.segmentsFile() != null
                    ? SegmentOffsets.load(s.segmentsFile(), arena)
                    : SegmentOffsets.generate(s.segmentValues(), arena);
            long n = seg.values(), count = seg.segments(), bytes = n * 8;
            MemorySegment host = input(arena, op, n);
            int buffers = s.buffersFor(bytes);
            LongArray offsets = closer.add(s.gpu().allocateLongs(count + 1));
            offsets.copyFrom(seg.offsets());
            long[] in = new long[buffers];
            for (int b = 0; b < buffers; b++) {
                DeviceArray a = closer.add(s.gpu().allocate(op.type(), n));
                a.copyFrom(host);
                in[b] = a.devicePointer();
            }
            DeviceArray out = closer.add(s.gpu().allocate(op.type(), count));
            EventTimer timer = closer.add(new EventTimer(s.ctx()));
            Timing t = timer.time(BenchSetup.WARMUP, s.reps(), i -> GpuCustomSegmentedReduce.reduceSegments(s.ctx(), op,
                    in[i % buffers], offsets.devicePointer(), count, out.devicePointer(), n));
            MemorySegment got = arena.allocate(Math.max(8, count * 8), 64), want = arena.allocate(Math.max(8, count * 8), 64);
            out.copyTo(got.asSlice(0, count * 8));
            CpuCustomReduce.reduceSegments(op, host, seg.offsets(), count, want);
            String check = got.mismatch(want) < 0 ? "ok: every segment the CPU's, exactly" : "FAILED: segment "
                    + got.mismatch(want) / 8 + " differs from the CPU's";
            return BenchRecord.measured(GROUP, name, op.type().toString(), n + " values, " + count + " segments", n,
                    bytes + 8.0 * (count + 1) + 8.0 * count, t, !check.startsWith("FAILED"),
                    check + "; " + seg.origin() + "; " + buffers + " buffer(s)");
        }
    }

    private static BenchRecord reduce(BenchSetup s, String name, CustomOp op) {
        long n = s.n(), bytes = n * op.type().byteSize();
        int buffers = s.buffersFor(bytes);
        try (Arena arena = Arena.ofShared(); Closer closer = new Closer()) {
            MemorySegment host = input(arena, op, n);
            long[] in = new long[buffers];
            for (int b = 0; b < buffers; b++) {
                DeviceArray a = closer.add(s.gpu().allocate(op.type(), n));
                a.copyFrom(host);
                in[b] = a.devicePointer();
            }
            long[] last = new long[1];
            EventTimer timer = closer.add(new EventTimer(s.ctx()));
            Timing t = timer.time(BenchSetup.WARMUP, s.reps(), i -> last[0] = GpuCustomReduce.reduce(s.ctx(), op, in[i % buffers], n));
            String check = op == CustomOps.FSUM ? checkFloatSum(Float.intBitsToFloat((int) last[0]), host, n)
                    : last[0] == CpuCustomReduce.reduce(op, host, n) ? "ok: the CPU's left fold, exactly" : "FAILED: differs from the CPU's left fold";
            return BenchRecord.measured(GROUP, name, op.type().toString(), String.valueOf(n), n, (double) bytes + op.type().byteSize(), t,
                    !check.startsWith("FAILED"), check + "; kernel and result readback; " + buffers + " buffer(s)");
        }
    }

    private static BenchRecord scan(BenchSetup s, String name, CustomOp op) {
        long n = s.n(), bytes = n * op.type().byteSize();
        int buffers = s.buffersFor(2 * bytes);
        try (Arena arena = Arena.ofShared(); Closer closer = new Closer()) {
            MemorySegment host = input(arena, op, n);
            long[] in = new long[buffers], out = new long[buffers];
            for (int b = 0; b < buffers; b++) {
                DeviceArray a = closer.add(s.gpu().allocate(op.type(), n));
                a.copyFrom(host);
                in[b] = a.devicePointer();
                out[b] = closer.add(s.gpu().allocate(op.type(), n)).devicePointer();
            }
            EventTimer timer = closer.add(new EventTimer(s.ctx()));
            Timing t = timer.time(BenchSetup.WARMUP, s.reps(),
                    i -> GpuCustomScan.scan(s.ctx(), op, true, op.identityBits(), in[i % buffers], out[i % buffers], n));
            s.ctx().synchronize();
            MemorySegment got = arena.allocate(bytes, 64);
            s.ctx().copyToHost(got, out[0], bytes);
            String check = checkScan(op, host, got, n);
            return BenchRecord.measured(GROUP, name, op.type().toString(), String.valueOf(n), n, 2.0 * bytes, t,
                    !check.startsWith("FAILED"), "inclusive; " + check + "; " + buffers + " buffer(s)");
        }
    }

    private static MemorySegment input(Arena arena, CustomOp op, long n) {
        MemorySegment x = arena.allocate(n * op.type().byteSize(), 64);
        SplittableRandom random = new SplittableRandom(97);
        for (long i = 0; i < n; i++) {
            switch (op.type()) {
                case BYTE -> x.set(ValueLayout.JAVA_BYTE, i, (byte) (((2 * random.nextInt(8) + 1) << 4) | random.nextInt(16)));  // odd m
                case FLOAT -> x.setAtIndex(ValueLayout.JAVA_FLOAT, i, (float) random.nextDouble(-1, 1));
                case LONG -> x.setAtIndex(ValueLayout.JAVA_LONG, i, random.nextLong() | (1L << 32));
                case DOUBLE -> x.setAtIndex(ValueLayout.JAVA_DOUBLE, i, random.nextInt(10) < 7 ? Double.NaN : random.nextDouble(-1e6, 1e6));
                default -> throw new IllegalArgumentException(op.toString());
            }
        }
        return x;
    }

    /** A float32 sum against the float64 sum, within the float32 summation bound (FloatSum). */
    private static String checkFloatSum(float got, MemorySegment host, long n) {
        FloatSum sum = FloatSum.of(host, 0, n);
        double err = sum.error(got);
        return String.format(Locale.ROOT, "%s: %.6g vs float64 %.6g, error %.2g (bound %.2g)", err <= sum.bound() ? "ok" : "FAILED",
                got, sum.exact(), err, sum.bound());
    }

    /** The float64 sum and sum of magnitudes of float32 x[from, to); bound: (n - 1) u sum|x|, u = 2^-24. */
    private record FloatSum(double exact, double abs, long n) {
        static FloatSum of(MemorySegment x, long from, long to) {
            double exact = 0, abs = 0;
            for (long i = from; i < to; i++) {
                float v = x.getAtIndex(ValueLayout.JAVA_FLOAT, i);
                exact += v;
                abs += Math.abs(v);
            }
            return new FloatSum(exact, abs, to - from);
        }

        double bound() { return (n - 1) * 0x1p-24 * abs; }

        double error(float got) { return Math.abs(got - exact); }
    }

    /**
     * Every position against the sequential fold: exact for the forward fill, for the float sum within
     * (i + 1) u sum|x| of the float64 prefix (the same bound per position).
     */
    private static String checkScan(CustomOp op, MemorySegment in, MemorySegment out, long n) {
        if (op.type() == DType.BYTE) {
            MemorySegment want = Arena.ofAuto().allocate(n, 64);
            CpuCustomScan.scan(op, true, op.identityBits(), in, want, n);
            long at = want.mismatch(out);
            return at < 0 ? "ok: every element the CPU's, exactly" : "FAILED: element " + at + " differs from the CPU's";
        }
        if (op == CustomOps.FFILL) {
            double acc = Double.NaN;
            for (long i = 0; i < n; i++) {
                double x = in.getAtIndex(ValueLayout.JAVA_DOUBLE, i);
                if (!Double.isNaN(x)) acc = x;
                if (Double.doubleToLongBits(acc) != Double.doubleToLongBits(out.getAtIndex(ValueLayout.JAVA_DOUBLE, i))) {
                    return "FAILED: element " + i + " is " + out.getAtIndex(ValueLayout.JAVA_DOUBLE, i) + ", expected " + acc;
                }
            }
            return "ok: every element exact";
        }
        double prefix = 0, abs = 0, worst = 0;
        for (long i = 0; i < n; i++) {
            float x = in.getAtIndex(ValueLayout.JAVA_FLOAT, i);
            prefix += x;
            abs += Math.abs(x);
            double err = Math.abs(out.getAtIndex(ValueLayout.JAVA_FLOAT, i) - prefix);
            if (err > (i + 1) * 0x1p-24 * abs + 1e-30) return "FAILED: element " + i + " off by " + err;
            worst = Math.max(worst, err / Math.max(abs, 1e-30));
        }
        return String.format(Locale.ROOT, "ok: every element within the bound (worst error %.1e of sum|x|)", worst);
    }
}
