package dev.primer.cli.bench;

import dev.primer.Backend;
import dev.primer.DType;
import dev.primer.DeviceArray;
import dev.primer.Op;
import dev.primer.Reductions;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Locale;

/**
 * Inclusive prefix SUM of n elements (2^28; 2^24 with --quick). Bytes = input + output. cumsum_i32
 * writes int64, as NumPy/CuPy and PyTorch do for int32 input, so it pairs with their cumsum;
 * cumsum_i32_to_i32 keeps int32 (wrapping like Java int addition) and pairs with their cumsum with
 * {@code dtype=int32}. cumsum_i64 and cumsum_f64 keep their type. cumsum_i8 writes int64 (as the
 * libraries do for int8) and cumsum_i8_to_i8 keeps int8 (wrapping like Java byte arithmetic).
 * Checked at every 2^16-th position and the last 10 against a host prefix (exact for integers,
 * float64 for float32 and float64).
 */
final class ScanBench {
    static final String GROUP = "scan";
    /** Float32 scans accumulate in float32 on the GPU; this bounds their drift from a float64 prefix. */
    static final double FLOAT_TOLERANCE = 1e-4;
    /** Float64 scans differ from the sequential float64 prefix only by association. */
    static final double DOUBLE_TOLERANCE = 1e-9;

    private ScanBench() {}

    static List<BenchRecord> run(BenchSetup s) {
        return List.of(
                scan(s, "cumsum_f32", DType.FLOAT, DType.FLOAT),
                scan(s, "cumsum_i32", DType.INT, DType.LONG),
                scan(s, "cumsum_i32_to_i32", DType.INT, DType.INT),
                scan(s, "cumsum_i64", DType.LONG, DType.LONG),
                scan(s, "cumsum_f64", DType.DOUBLE, DType.DOUBLE),
                scan(s, "cumsum_i8", DType.BYTE, DType.LONG),
                scan(s, "cumsum_i8_to_i8", DType.BYTE, DType.BYTE));
    }

    private static BenchRecord scan(BenchSetup s, String name, DType inType, DType outType) {
        String dtype = inType == outType ? inType.toString() : inType + "->" + outType;
        return Guard.run(s, GROUP, name, dtype, String.valueOf(s.n()), () -> measure(s, name, dtype, inType, outType));
    }

    private static BenchRecord measure(BenchSetup s, String name, String dtype, DType inType, DType outType) {
        long n = s.n();
        long inBytes = n * inType.byteSize(), outBytes = n * outType.byteSize();
        int buffers = s.buffersFor(inBytes + outBytes);
        Backend backend = s.gpu().backend();
        long identity = Reductions.identityBits(outType, Op.SUM);
        try (Arena arena = Arena.ofShared(); Closer closer = new Closer()) {
            MemorySegment host = RandomHost.fill(arena.allocate(inBytes, 64), inType, n, 61);
            DeviceArray[] in = new DeviceArray[buffers];
            DeviceArray[] out = new DeviceArray[buffers];
            for (int b = 0; b < buffers; b++) {
                in[b] = closer.add(s.gpu().allocate(inType, n));
                in[b].copyFrom(host);
                out[b] = closer.add(s.gpu().allocate(outType, n));
            }
            EventTimer timer = closer.add(new EventTimer(s.ctx()));
            Timing t = timer.time(BenchSetup.WARMUP, s.reps(),
                    i -> backend.scan(in[i % buffers], out[i % buffers], Op.SUM, true, identity));
            s.ctx().synchronize();

            MemorySegment result = arena.allocate(outBytes, 64);
            out[0].copyTo(result);
            String check = check(host, inType, result, outType, n);
            boolean ok = !check.startsWith("FAILED");
            return BenchRecord.measured(GROUP, name, dtype, String.valueOf(n), n, (double) inBytes + outBytes, t, ok,
                    "inclusive SUM; " + check + "; " + buffers + " buffer(s)");
        }
    }

    /** Walks the host prefix once, comparing the sampled positions. */
    private static String check(MemorySegment in, DType inType, MemorySegment out, DType outType, long n) {
        long sampled = 0, wrong = 0, firstWrong = -1;
        double worst = 0;
        double prefix = 0;
        long exact = 0;
        for (long i = 0; i < n; i++) {
            switch (inType) {
                case FLOAT -> prefix += in.getAtIndex(ValueLayout.JAVA_FLOAT, i);
                case DOUBLE -> prefix += in.getAtIndex(ValueLayout.JAVA_DOUBLE, i);
                case INT -> exact += in.getAtIndex(ValueLayout.JAVA_INT, i);
                case LONG -> exact += in.getAtIndex(ValueLayout.JAVA_LONG, i);
                case BYTE -> exact += in.get(ValueLayout.JAVA_BYTE, i);
            }
            if ((i & 0xFFFF) != 0 && i < n - 10) continue;
            sampled++;
            double err = switch (outType) {
                case FLOAT -> HostReference.relativeError(out.getAtIndex(ValueLayout.JAVA_FLOAT, i), prefix);
                case DOUBLE -> HostReference.relativeError(out.getAtIndex(ValueLayout.JAVA_DOUBLE, i), prefix);
                default -> 0;
            };
            worst = Math.max(worst, err);
            boolean good = switch (outType) {
                case FLOAT -> err <= FLOAT_TOLERANCE;
                case DOUBLE -> err <= DOUBLE_TOLERANCE;
                case LONG -> out.getAtIndex(ValueLayout.JAVA_LONG, i) == exact;
                case INT -> out.getAtIndex(ValueLayout.JAVA_INT, i) == (int) exact;
                case BYTE -> out.get(ValueLayout.JAVA_BYTE, i) == (byte) exact;
            };
            if (!good && wrong++ == 0) firstWrong = i;
        }
        String what = sampled + " sampled positions";
        if (inType.isFloatingPoint()) {
            what += String.format(Locale.ROOT, ", max rel err %.2e vs float64 prefix (bound %.0e)", worst,
                    inType == DType.FLOAT ? FLOAT_TOLERANCE : DOUBLE_TOLERANCE);
        } else {
            what += " exact";
        }
        return wrong == 0 ? what + " ok" : "FAILED: " + wrong + " of " + what + " wrong, first at " + firstWrong;
    }
}
