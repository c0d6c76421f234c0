package dev.primer.cli.bench;

import dev.primer.Backend;
import dev.primer.DType;
import dev.primer.DeviceArray;
import dev.primer.LongArray;
import dev.primer.Op;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Locale;

/**
 * SUM over segments of power-law lengths (many tiny segments, a few huge ones): the case a fixed
 * rows × cols dispatch cannot serve, float32, int64 (exact 128-bit sums), int32 and int8 (into
 * int64), all on the merge path; and float32 and int8 over short segments of uniform lengths 1-8 (float32 1-32
 * too), where the classic kernels are faster (the offsets' check picks the route; none longer than
 * 32: segments_short alone). Then ARGMAX (int64 indices within the segments) of float32 and float64
 * over the power law and of float32 over uniform lengths 1-8. Bytes = values + offsets + results.
 */
final class SegmentsBench {
    static final String GROUP = "segments";
    static final String NAME = "segments_sum_f32_powerlaw";
    static final String NAME_I64 = "segments_sum_i64_powerlaw";
    static final String NAME_UNIFORM = "segments_sum_f32_uniform8";
    static final String NAME_UNIFORM32 = "segments_sum_f32_uniform32";
    static final String NAME_I32 = "segments_sum_i32_powerlaw";
    static final String NAME_I8 = "segments_sum_i8_powerlaw";
    static final String NAME_I8_UNIFORM = "segments_sum_i8_uniform8";
    static final String NAME_ARGMAX = "segments_argmax_f32_powerlaw";
    static final String NAME_ARGMAX_F64 = "segments_argmax_f64_powerlaw";
    static final String NAME_ARGMAX_UNIFORM = "segments_argmax_f32_uniform8";

    private SegmentsBench() {}

    static List<BenchRecord> run(BenchSetup s) {
        return List.of(Guard.run(s, GROUP, NAME, "float32", "powerlaw", () -> measure(s, GROUP, DType.FLOAT, NAME, 0)),
                Guard.run(s, GROUP, NAME_I64, "int64", "powerlaw", () -> measure(s, GROUP, DType.LONG, NAME_I64, 0)),
                Guard.run(s, GROUP, NAME_UNIFORM, "float32", "uniform", () -> measure(s, GROUP, DType.FLOAT, NAME_UNIFORM,
                        -8)),
                Guard.run(s, GROUP, NAME_UNIFORM32, "float32", "uniform", () -> measure(s, GROUP, DType.FLOAT,
                        NAME_UNIFORM32, -32)),
                Guard.run(s, GROUP, NAME_I32, "int32", "powerlaw", () -> measure(s, GROUP, DType.INT, NAME_I32, 0)),
                Guard.run(s, GROUP, NAME_I8, "int8", "powerlaw", () -> measure(s, GROUP, DType.BYTE, NAME_I8, 0)),
                Guard.run(s, GROUP, NAME_I8_UNIFORM, "int8", "uniform", () -> measure(s, GROUP, DType.BYTE,
                        NAME_I8_UNIFORM, -8)),
                Guard.run(s, GROUP, NAME_ARGMAX, "float32", "powerlaw", () -> measure(s, GROUP, DType.FLOAT, NAME_ARGMAX, 0,
                        true)),
                Guard.run(s, GROUP, NAME_ARGMAX_F64, "float64", "powerlaw", () -> measure(s, GROUP, DType.DOUBLE,
                        NAME_ARGMAX_F64, 0, true)),
                Guard.run(s, GROUP, NAME_ARGMAX_UNIFORM, "float32", "uniform", () -> measure(s, GROUP, DType.FLOAT,
                        NAME_ARGMAX_UNIFORM, -8, true)));
    }

    /** The {@code type} row over {@code n} values in segments of power-law lengths drawn in Java (the sizes group). */
    static BenchRecord powerLaw(BenchSetup s, String group, String name, DType type, long n) {
        return Guard.run(s, group, name, type.toString(), n + " values", () -> measure(s, group, type, name, n));
    }

    private static BenchRecord measure(BenchSetup s, String group, DType type, String name, long values) throws Exception {
        return measure(s, group, type, name, values, false);
    }

    /**
     * values: 0 for the segments file or the default size, -m for lengths uniform in [1, m] over the
     * default size, else that many values in Java's power-law segments. argMax: each segment's
     * argmax (an int64 index within it) instead of its SUM.
     */
    private static BenchRecord measure(BenchSetup s, String group, DType type, String name, long values, boolean argMax)
            throws Exception {
        Backend backend = s.gpu().backend();
        int size = type.byteSize();
        // int8 and int32 sums land in int64, as do indices
        DType outType = argMax || type == DType.BYTE || type == DType.INT ? DType.LONG : type;
        int outSize = outType.byteSize();
        try (Arena arena = Arena.ofShared(); Closer closer = new Closer()) {
            SegmentOffsets seg = values > 0 ? SegmentOffsets.generate(values, arena)
                    : values < 0 ? SegmentOffsets.uniform(s.segmentValues(), (int) -values, arena)
                    : s.segmentsFile() != null ? SegmentOffsets.load(s.segmentsFile(), arena)
                    : SegmentOffsets.generate(s.segmentValues(), arena);
            long n = seg.values(), count = seg.segments();
            MemorySegment host = RandomHost.fill(arena.allocate(Math.max(size, size * n), 64), type, n, 51);
            int buffers = s.buffersFor(size * n);
            LongArray offsets = closer.add(s.gpu().allocateLongs(count + 1));
            offsets.copyFrom(seg.offsets());
            DeviceArray[] in = new DeviceArray[buffers];
            DeviceArray[] out = new DeviceArray[buffers];
            for (int b = 0; b < buffers; b++) {
                in[b] = closer.add(s.gpu().allocate(type, n));
                in[b].copyFrom(host);
                out[b] = closer.add(s.gpu().allocate(outType, count));
            }
            EventTimer timer = closer.add(new EventTimer(s.ctx()));
            Timing t = timer.time(BenchSetup.WARMUP, s.reps(), i -> {
                if (argMax) backend.argExtremeSegments(in[i % buffers], true, offsets, (LongArray) out[i % buffers]);
                else backend.reduceSegments(in[i % buffers], Op.SUM, offsets, out[i % buffers]);
            });
            s.ctx().synchronize();

            MemorySegment result = arena.allocate(Math.max(outSize, outSize * count), outSize);
            out[0].copyTo(result.asSlice(0, outSize * count));
            String check = argMax ? checkEveryArgMax(type, host, seg, result) : checkEverySegment(type, host, seg, result);
            String note = String.format(Locale.ROOT, "%d segments over %d values (longest %d); %s; %s", count, n,
                    longest(seg), check, seg.origin());
            boolean ok = !check.startsWith("FAILED");
            String dtype = type == outType || argMax ? type.toString() : type + "->" + outType;
            return BenchRecord.measured(group, name, dtype, n + " values, " + count + " segments", n,
                    (double) size * n + 8.0 * (count + 1) + outSize * count, t, ok, note);
        }
    }

    private static long longest(SegmentOffsets seg) {
        long longest = 0;
        for (long i = 0; i < seg.segments(); i++) longest = Math.max(longest, seg.offset(i + 1) - seg.offset(i));
        return longest;
    }

    /**
     * Every segment against a host fold: int64 (values of +-1000), int32 and int8 (into int64) exactly,
     * float32 within its bound: one rounding of the float64-accumulated sum to float (2^-24 |sum|)
     * plus the float64 accumulations of both sides ((k - 1) 2^-53 sum|x| each, k the segment's
     * length).
     */
    private static String checkEverySegment(DType type, MemorySegment host, SegmentOffsets seg, MemorySegment result) {
        long wrong = 0, firstWrong = -1;
        double worst = 0;
        for (long i = 0; i < seg.segments(); i++) {
            long from = seg.offset(i), to = seg.offset(i + 1);
            boolean good;
            if (type != DType.FLOAT) {
                long exact = 0;
                for (long j = from; j < to; j++) {
                    exact += switch (type) {
                        case LONG -> host.getAtIndex(ValueLayout.JAVA_LONG, j);
                        case INT -> host.getAtIndex(ValueLayout.JAVA_INT, j);
                        default -> host.get(ValueLayout.JAVA_BYTE, j);
                    };
                }
                good = result.getAtIndex(ValueLayout.JAVA_LONG, i) == exact;
            } else {
                double sum = 0, abs = 0;
                for (long j = from; j < to; j++) {
                    float x = host.getAtIndex(ValueLayout.JAVA_FLOAT, j);
                    sum += x;
                    abs += Math.abs(x);
                }
                double error = Math.abs(result.getAtIndex(ValueLayout.JAVA_FLOAT, i) - sum);
                double bound = 0x1p-24 * (Math.abs(sum) + 0x1p-40 * abs) + 2 * Math.max(0, to - from - 1) * 0x1p-53 * abs;
                good = error <= bound;
                if (abs > 0) worst = Math.max(worst, error / abs);
            }
            if (!good && wrong++ == 0) firstWrong = i;
        }
        String what = seg.segments() + " segments " + (type != DType.FLOAT ? "exact"
                : String.format(Locale.ROOT, "within one float rounding and the float64 sums' bound (worst error %.2e of sum|x|)", worst));
        return wrong == 0 ? "every segment ok: " + what : "FAILED: " + wrong + " of " + what + " wrong, first at " + firstWrong;
    }

    /**
     * Every segment's index against the host's: the first maximum in Java's order (Double.compare:
     * NaN above everything, -0.0 below 0.0; float32 widens exactly), -1 for an empty segment.
     */
    private static String checkEveryArgMax(DType type, MemorySegment host, SegmentOffsets seg, MemorySegment result) {
        long wrong = 0, firstWrong = -1;
        for (long i = 0; i < seg.segments(); i++) {
            long from = seg.offset(i), to = seg.offset(i + 1), best = -1;
            double max = 0;
            for (long j = from; j < to; j++) {
                double x = type == DType.FLOAT ? host.getAtIndex(ValueLayout.JAVA_FLOAT, j) : host.getAtIndex(ValueLayout.JAVA_DOUBLE, j);
                if (best < 0 || Double.compare(x, max) > 0) {
                    best = j - from;
                    max = x;
                }
            }
            if (result.getAtIndex(ValueLayout.JAVA_LONG, i) != best && wrong++ == 0) firstWrong = i;
        }
        String what = seg.segments() + " segments' first maximum (index within the segment)";
        return wrong == 0 ? "every segment ok: " + what : "FAILED: " + wrong + " of " + what + " wrong, first at " + firstWrong;
    }
}
