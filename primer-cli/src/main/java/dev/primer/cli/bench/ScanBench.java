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
 * Up to 2^24 elements (--quick, and SizesBench's rows) every output of a scan that keeps its type
 * (int8 aside) is checked as the segmented rows' are, one segment; beyond that, and for the widening
 * and int8 rows, every 2^16-th position and the last 10 against a host prefix (exact for integers,
 * float64 for float32 and float64). cumprod_f64, cumprod_i64 and cumxor_i64 are inclusive PROD and XOR
 * scans beside the 8-byte sums, cumxor_i8 an XOR scan beside the int8 ones. Their factors keep every
 * product exact (doubles of +-1, odd longs);
 * the baselines multiply their usual random data, whose products underflow or wrap to zero (a
 * multiply costs the same whatever it yields). Checked exactly, every element up to 2^24 and the
 * sample beyond; no library has a cumulative xor. segscan_* are inclusive SUM scans segmented by head flags (about
 * one head in 1024 elements; segscan_*_long one in 2^22, so most tiles hold no head; bytes = input
 * + flags + output; segscan_offsets_* the same segments given as offsets, bytes = input + offsets +
 * output), every element checked: integers exactly; floats within the bound of any
 * association, (k - 1) u sum|x| over the k elements of the segment so far, except in the _long
 * rows, whose floats are small integers with exact sums, checked exactly (over millions of
 * elements that bound would let a lost tile pass). No library times a segmented scan, so they
 * stand alone. cummax_* (float32, float64, int64), segscan_max_* (float32, float64, int32, int64, int8;
 * a head in about 1024) and segscan_offsets_max_* (float32, float64; the same segments as offsets)
 * are inclusive MAX scans, every element checked against Math.max exactly, and cummin_* (float64,
 * int64) inclusive MIN scans checked against Math.min; cummax_* (cummin_*) pair with torch.cummax
 * (torch.cummin), which also writes an int64 index per element, and CuPy's maximum.accumulate
 * (minimum.accumulate), which CuPy 14 does not support: the baselines file keeps its error.
 * argmax_scan_* are running argmax scans ({@link ArgScanBench}); argmax_scan_rising_f32 scans rising
 * data, every element a new maximum, and stands alone; argmax_scan_rows_f32 scans rows of 4096 as
 * segments by offsets, beside torch.cummax along dimension 1, and segargmax_scan_* by head flags (a
 * head in about 1024) stand alone.
 */
final class ScanBench {
    static final String GROUP = "scan";
    /** Float32 scans accumulate in float32 on the GPU; this bounds their drift from a float64 prefix. */
    static final double FLOAT_TOLERANCE = 1e-4;
    /** Float64 scans differ from the sequential float64 prefix only by association. */
    static final double DOUBLE_TOLERANCE = 1e-9;

    /** Plain scans of at most this many elements have every output checked (larger ones: a sample). */
    private static final long EVERY_ELEMENT_UP_TO = 1L << 24;

    /** One head in this many elements: every tile holds heads. */
    private static final int SHORT_SEGMENTS = 1024;
    /** One head in 2^22: most tiles hold none, and their look-back reaches back to a prefix. */
    private static final int LONG_SEGMENTS = 1 << 22;
    /** One head in 8: most int8 chunks (16 elements) hold one, where int8 sums fold; an int32 row (128) about 16. */
    private static final int DENSE_SEGMENTS = 8;

    private ScanBench() {}

    static List<BenchRecord> run(BenchSetup s) {
        return List.of(
                scan(s, "cumsum_f32", DType.FLOAT, DType.FLOAT),
                scan(s, "cumsum_i32", DType.INT, DType.LONG),
                scan(s, "cumsum_i32_to_i32", DType.INT, DType.INT),
                scan(s, "cumsum_i64", DType.LONG, DType.LONG),
                scan(s, "cumsum_f64", DType.DOUBLE, DType.DOUBLE),
                scan(s, "cumprod_f64", Op.PROD, DType.DOUBLE, DType.DOUBLE),
                scan(s, "cumprod_i64", Op.PROD, DType.LONG, DType.LONG),
                scan(s, "cumxor_i64", Op.XOR, DType.LONG, DType.LONG),
                scan(s, "cumsum_i8", DType.BYTE, DType.LONG),
                scan(s, "cumsum_i8_to_i8", DType.BYTE, DType.BYTE),
                scan(s, "cummax_f32", Op.MAX, DType.FLOAT, DType.FLOAT),
                scan(s, "cummax_f64", Op.MAX, DType.DOUBLE, DType.DOUBLE),
                scan(s, "cummax_i64", Op.MAX, DType.LONG, DType.LONG),
                scan(s, "cummax_i8", Op.MAX, DType.BYTE, DType.BYTE),
                scan(s, "cumxor_i8", Op.XOR, DType.BYTE, DType.BYTE),
                scan(s, "cummin_f64", Op.MIN, DType.DOUBLE, DType.DOUBLE),
                scan(s, "cummin_i64", Op.MIN, DType.LONG, DType.LONG),
                ArgScanBench.argmax(s, "argmax_scan_f32", DType.FLOAT),
                ArgScanBench.argmax(s, "argmax_scan_i32", DType.INT),
                ArgScanBench.argmax(s, "argmax_scan_f64", DType.DOUBLE),
                ArgScanBench.argmax(s, "argmax_scan_i8", DType.BYTE),
                ArgScanBench.rising(s, "argmax_scan_rising_f32"),
                ArgScanBench.segmented(s, "argmax_scan_rows_f32", DType.FLOAT, true, 0),
                ArgScanBench.segmented(s, "segargmax_scan_f32", DType.FLOAT, false, SHORT_SEGMENTS),
                ArgScanBench.segmented(s, "segargmax_scan_f64", DType.DOUBLE, false, SHORT_SEGMENTS),
                ArgScanBench.segmented(s, "segargmax_scan_i8", DType.BYTE, false, SHORT_SEGMENTS),
                segmented(s, "segscan_f32", DType.FLOAT, SHORT_SEGMENTS),
                segmented(s, "segscan_i32", DType.INT, SHORT_SEGMENTS),
                segmented(s, "segscan_f64", DType.DOUBLE, SHORT_SEGMENTS),
                segmented(s, "segscan_i64", DType.LONG, SHORT_SEGMENTS),
                segmented(s, "segscan_i8", DType.BYTE, SHORT_SEGMENTS),
                segmented(s, "segscan_i32_i64", Op.SUM, DType.INT, DType.LONG, SHORT_SEGMENTS),
                segmented(s, "segscan_i8_i64", Op.SUM, DType.BYTE, DType.LONG, SHORT_SEGMENTS),
                segmented(s, "segscan_i8_dense", Op.SUM, DType.BYTE, DType.BYTE, DENSE_SEGMENTS),
                segmented(s, "segscan_i32_i64_dense", Op.SUM, DType.INT, DType.LONG, DENSE_SEGMENTS),
                segmented(s, "segscan_f32_long", DType.FLOAT, LONG_SEGMENTS),
                segmented(s, "segscan_i32_long", DType.INT, LONG_SEGMENTS),
                segmented(s, "segscan_f64_long", DType.DOUBLE, LONG_SEGMENTS),
                segmented(s, "segscan_i64_long", DType.LONG, LONG_SEGMENTS),
                segmented(s, "segscan_max_f32", Op.MAX, DType.FLOAT, SHORT_SEGMENTS),
                segmented(s, "segscan_max_f64", Op.MAX, DType.DOUBLE, SHORT_SEGMENTS),
                segmented(s, "segscan_max_i32", Op.MAX, DType.INT, SHORT_SEGMENTS),
                segmented(s, "segscan_max_i64", Op.MAX, DType.LONG, SHORT_SEGMENTS),
                segmented(s, "segscan_max_i8", Op.MAX, DType.BYTE, SHORT_SEGMENTS),
                segmented(s, "segscan_max_i8_dense", Op.MAX, DType.BYTE, DType.BYTE, DENSE_SEGMENTS),
                byOffsets(s, "segscan_offsets_f32", Op.SUM, DType.FLOAT),
                byOffsets(s, "segscan_offsets_i32", Op.SUM, DType.INT),
                byOffsets(s, "segscan_offsets_f64", Op.SUM, DType.DOUBLE),
                byOffsets(s, "segscan_offsets_i64", Op.SUM, DType.LONG),
                byOffsets(s, "segscan_offsets_i8", Op.SUM, DType.BYTE),
                byOffsets(s, "segscan_offsets_i32_i64", Op.SUM, DType.INT, DType.LONG),
                byOffsets(s, "segscan_offsets_i8_i64", Op.SUM, DType.BYTE, DType.LONG),
                byOffsets(s, "segscan_offsets_max_f32", Op.MAX, DType.FLOAT),
                byOffsets(s, "segscan_offsets_max_f64", Op.MAX, DType.DOUBLE),
                byOffsets(s, "segscan_offsets_max_i8", Op.MAX, DType.BYTE));
    }

    private static BenchRecord segmented(BenchSetup s, String name, DType type, int oneIn) {
        return segmented(s, name, Op.SUM, type, oneIn);
    }

    private static BenchRecord segmented(BenchSetup s, String name, Op op, DType type, int oneIn) {
        return segmented(s, name, op, type, type, oneIn);
    }

    /** A segmented scan by head flags of {@code type} into {@code outType} (int64 for the sums that widen). */
    private static BenchRecord segmented(BenchSetup s, String name, Op op, DType type, DType outType, int oneIn) {
        return Guard.run(s, GROUP, name, dtype(type, outType), String.valueOf(s.n()),
                () -> measureSegmented(s, name, op, type, outType, oneIn));
    }

    private static String dtype(DType inType, DType outType) {
        return inType == outType ? inType.toString() : inType + "->" + outType;
    }

    private static BenchRecord measureSegmented(BenchSetup s, String name, Op op, DType type, DType outType, int oneIn) {
        long n = s.n(), bytes = n * type.byteSize(), outBytes = n * outType.byteSize();
        int buffers = s.buffersFor(bytes + outBytes + n);
        Backend backend = s.gpu().backend();
        long identity = Reductions.identityBits(outType, op);
        try (Arena arena = Arena.ofShared(); Closer closer = new Closer()) {
            boolean exactFloats = oneIn == LONG_SEGMENTS && type.isFloatingPoint();
            MemorySegment host = exactFloats ? RandomHost.smallIntegers(arena.allocate(bytes, 64), type, n, 67)
                    : RandomHost.fill(arena.allocate(bytes, 64), type, n, 67);
            MemorySegment flags = RandomHost.headFlags(arena.allocate(n, 64), n, 71, oneIn);
            DeviceArray[] in = new DeviceArray[buffers], out = new DeviceArray[buffers];
            dev.primer.ByteArray[] heads = new dev.primer.ByteArray[buffers];
            for (int b = 0; b < buffers; b++) {
                in[b] = closer.add(s.gpu().allocate(type, n));
                in[b].copyFrom(host);
                heads[b] = closer.add(s.gpu().allocateBytes(n));
                heads[b].copyFrom(flags);
                out[b] = closer.add(s.gpu().allocate(outType, n));
            }
            EventTimer timer = closer.add(new EventTimer(s.ctx()));
            Timing t = timer.time(BenchSetup.WARMUP, s.reps(),
                    i -> backend.segmentedScanByFlags(in[i % buffers], heads[i % buffers], out[i % buffers], op, true, identity));
            s.ctx().synchronize();
            MemorySegment result = arena.allocate(outBytes, 64);
            out[0].copyTo(result);
            String check = op == Op.MAX ? checkExtreme(op, type, host, flags, result, n)
                    : checkSegmented(host, flags, result, type, outType, n, exactFloats);
            return BenchRecord.measured(GROUP, name, dtype(type, outType), String.valueOf(n), n, (double) bytes + outBytes + n, t,
                    !check.startsWith("FAILED"), "inclusive " + op + " by head flags, a head in about " + density(oneIn) + "; " + check
                            + "; " + buffers + " buffer(s)");
        }
    }

    private static BenchRecord byOffsets(BenchSetup s, String name, Op op, DType type) {
        return byOffsets(s, name, op, type, type);
    }

    private static BenchRecord byOffsets(BenchSetup s, String name, Op op, DType type, DType outType) {
        return Guard.run(s, GROUP, name, dtype(type, outType), String.valueOf(s.n()),
                () -> measureByOffsets(s, GROUP, name, op, type, outType, s.n(), false));
    }

    /** An inclusive float32 sum by offsets of n elements, as the scan group's segscan_offsets_f32 row; for the sizes group. */
    static BenchRecord byOffsetsFloat(BenchSetup s, String group, String name, long n) {
        return Guard.run(s, group, name, DType.FLOAT.toString(), String.valueOf(n),
                () -> measureByOffsets(s, group, name, Op.SUM, DType.FLOAT, DType.FLOAT, n, false));
    }

    /** As {@link #byOffsetsFloat}, the segments leaving out the first and the last element. */
    static BenchRecord byInnerOffsetsFloat(BenchSetup s, String group, String name, long n) {
        return Guard.run(s, group, name, DType.FLOAT.toString(), String.valueOf(n),
                () -> measureByOffsets(s, group, name, Op.SUM, DType.FLOAT, DType.FLOAT, n, true));
    }

    /**
     * The segscan_* SUM and MAX rows' segments given as offsets instead of head flags (the same heads, a
     * segment in about 1024): the offsets are checked on the device first, then each tile finds its
     * segments. Bytes = input + offsets + output, of the elements the segments cover. {@code inner}:
     * the segments run from element 1 to n - 1, so the scan that GpuScan queues before the offsets'
     * verdict, guessing they cover the arrays, does nothing, and the range's scan follows the verdict.
     */
    private static BenchRecord measureByOffsets(BenchSetup s, String group, String name, Op op, DType type, DType outType,
                                                long n, boolean inner) {
        long bytes = n * type.byteSize(), size = type.byteSize(), outSize = outType.byteSize();
        long lo = inner ? 1 : 0, hi = inner ? n - 1 : n;
        int buffers = s.buffersFor(bytes + n * outSize);
        Backend backend = s.gpu().backend();
        try (Arena arena = Arena.ofShared(); Closer closer = new Closer()) {
            MemorySegment host = RandomHost.fill(arena.allocate(bytes, 64), type, n, 73);
            MemorySegment flags = RandomHost.headFlags(arena.allocate(n, 64), n, 71, SHORT_SEGMENTS);
            long segments = 0;
            for (long i = lo; i < hi; i++) if (i == lo || flags.get(ValueLayout.JAVA_BYTE, i) != 0) segments++;
            MemorySegment starts = arena.allocate(8 * (segments + 1), 64);
            for (long i = lo, k = 0; i < hi; i++) {
                if (i == lo || flags.get(ValueLayout.JAVA_BYTE, i) != 0) starts.setAtIndex(ValueLayout.JAVA_LONG, k++, i);
            }
            starts.setAtIndex(ValueLayout.JAVA_LONG, segments, hi);
            dev.primer.LongArray offsets = closer.add(s.gpu().allocateLongs(segments + 1));
            offsets.copyFrom(starts);
            DeviceArray[] in = new DeviceArray[buffers], out = new DeviceArray[buffers];
            for (int b = 0; b < buffers; b++) {
                in[b] = closer.add(s.gpu().allocate(type, n));
                in[b].copyFrom(host);
                out[b] = closer.add(s.gpu().allocate(outType, n));
            }
            long identity = Reductions.identityBits(outType, op);
            EventTimer timer = closer.add(new EventTimer(s.ctx()));
            Timing t = timer.time(BenchSetup.WARMUP, s.reps(),
                    i -> backend.segmentedScanByOffsets(in[i % buffers], offsets, out[i % buffers], op, true, identity));
            s.ctx().synchronize();
            MemorySegment result = arena.allocate(n * outSize, 64);
            out[0].copyTo(result);
            long covered = hi - lo;
            MemorySegment coveredIn = host.asSlice(lo * size), coveredFlags = flags.asSlice(lo), coveredOut = result.asSlice(lo * outSize);
            String check = op == Op.MAX ? checkExtreme(op, type, coveredIn, coveredFlags, coveredOut, covered)
                    : checkSegmented(coveredIn, coveredFlags, coveredOut, type, outType, covered, false);
            return BenchRecord.measured(group, name, dtype(type, outType), String.valueOf(n), covered,
                    (double) covered * (size + outSize) + 8.0 * (segments + 1), t, !check.startsWith("FAILED"), "inclusive " + op + " by offsets, "
                            + segments + " segments (a head in about " + SHORT_SEGMENTS + ")"
                            + (inner ? " over elements 1 .. n - 1" : "") + "; " + check + "; " + buffers + " buffer(s)");
        }
    }

    private static String density(int oneIn) {
        return oneIn == LONG_SEGMENTS ? "2^22" : String.valueOf(oneIn);
    }

    /**
     * Every element against the host's walk of each segment; floats exactly if {@code exactFloats}
     * (their prefixes must then stay below 2^23, where every partial sum is exact; checked here).
     */
    private static String checkSegmented(MemorySegment in, MemorySegment flags, MemorySegment out, DType type, long n,
                                         boolean exactFloats) {
        return checkSegmented(in, flags, out, type, type, n, exactFloats);
    }

    /** As above, {@code type} scanned into {@code outType} (int64 for the integer sums that widen). */
    private static String checkSegmented(MemorySegment in, MemorySegment flags, MemorySegment out, DType type, DType outType,
                                         long n, boolean exactFloats) {
        long wrong = 0, firstWrong = -1, k = 0, exact = 0;
        double prefix = 0, abs = 0, worst = 0, largestPrefix = 0;
        double u = type == DType.FLOAT ? 0x1p-24 : 0x1p-53;
        for (long i = 0; i < n; i++) {
            if (i == 0 || flags.get(ValueLayout.JAVA_BYTE, i) != 0) {
                k = 0;
                exact = 0;
                prefix = 0;
                abs = 0;
            }
            k++;
            boolean good;
            switch (type) {
                case INT, LONG, BYTE -> {
                    exact += switch (type) {
                        case INT -> in.getAtIndex(ValueLayout.JAVA_INT, i);
                        case BYTE -> in.get(ValueLayout.JAVA_BYTE, i);
                        default -> in.getAtIndex(ValueLayout.JAVA_LONG, i);
                    };
                    good = switch (outType) {
                        case INT -> out.getAtIndex(ValueLayout.JAVA_INT, i) == (int) exact;
                        case BYTE -> out.get(ValueLayout.JAVA_BYTE, i) == (byte) exact;
                        default -> out.getAtIndex(ValueLayout.JAVA_LONG, i) == exact;
                    };
                }
                default -> {
                    double x = type == DType.FLOAT ? in.getAtIndex(ValueLayout.JAVA_FLOAT, i) : in.getAtIndex(ValueLayout.JAVA_DOUBLE, i);
                    double got = type == DType.FLOAT ? out.getAtIndex(ValueLayout.JAVA_FLOAT, i) : out.getAtIndex(ValueLayout.JAVA_DOUBLE, i);
                    prefix += x;
                    abs += Math.abs(x);
                    largestPrefix = Math.max(largestPrefix, Math.abs(prefix));
                    double err = Math.abs(got - prefix), bound = exactFloats ? 0 : (k - 1) * u * abs + 2 * u * Math.abs(prefix);
                    worst = Math.max(worst, abs == 0 ? 0 : err / abs);
                    good = err <= bound;
                }
            }
            if (!good && wrong++ == 0) firstWrong = i;
        }
        if (exactFloats && largestPrefix >= 0x1p23) return "FAILED: a prefix reached " + largestPrefix + ", past exact float sums";
        String what = n + " elements" + (type.isFloatingPoint() && !exactFloats
                ? String.format(Locale.ROOT, " within (k - 1) u sum|x| (worst error %.2e of sum|x|)", worst)
                : exactFloats ? " exact (small integers)" : " exact");
        return wrong == 0 ? "ok: " + what : "FAILED: " + wrong + " of " + what + " wrong, first at " + firstWrong;
    }

    /**
     * Every element of an inclusive MAX (MIN) scan against Math.max (Math.min) folded on the host,
     * bit for bit, restarting at each head ({@code flags} null: one segment).
     */
    private static String checkExtreme(Op op, DType type, MemorySegment in, MemorySegment flags, MemorySegment out, long n) {
        boolean max = op == Op.MAX;
        long wrong = 0, firstWrong = -1;
        // Every value of each type is exact in a double or a long, and so is Math.max of them. NaN-free data only
        // (RandomHost.fill): a NaN's bits need not survive the widening, and which NaN a scan returns is unspecified.
        double worst = max ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY, running = worst;
        long worstInteger = max ? Long.MIN_VALUE : Long.MAX_VALUE, runningInteger = worstInteger;
        for (long i = 0; i < n; i++) {
            if (flags != null && flags.get(ValueLayout.JAVA_BYTE, i) != 0) {
                running = worst;
                runningInteger = worstInteger;
            }
            boolean same = switch (type) {
                case FLOAT -> {
                    running = extreme(max, running, in.getAtIndex(ValueLayout.JAVA_FLOAT, i));
                    yield Float.floatToRawIntBits(out.getAtIndex(ValueLayout.JAVA_FLOAT, i)) == Float.floatToRawIntBits((float) running);
                }
                case DOUBLE -> {
                    running = extreme(max, running, in.getAtIndex(ValueLayout.JAVA_DOUBLE, i));
                    yield Double.doubleToRawLongBits(out.getAtIndex(ValueLayout.JAVA_DOUBLE, i)) == Double.doubleToRawLongBits(running);
                }
                case INT -> out.getAtIndex(ValueLayout.JAVA_INT, i)
                        == (runningInteger = extreme(max, runningInteger, in.getAtIndex(ValueLayout.JAVA_INT, i)));
                case LONG -> out.getAtIndex(ValueLayout.JAVA_LONG, i)
                        == (runningInteger = extreme(max, runningInteger, in.getAtIndex(ValueLayout.JAVA_LONG, i)));
                case BYTE -> out.get(ValueLayout.JAVA_BYTE, i)
                        == (runningInteger = extreme(max, runningInteger, in.get(ValueLayout.JAVA_BYTE, i)));
            };
            if (!same && wrong++ == 0) firstWrong = i;
        }
        String what = n + " elements exact (Math." + (max ? "max" : "min") + ")";
        return wrong == 0 ? "ok: " + what : "FAILED: " + wrong + " of " + what + " wrong, first at " + firstWrong;
    }

    private static double extreme(boolean max, double a, double b) { return max ? Math.max(a, b) : Math.min(a, b); }

    private static long extreme(boolean max, long a, long b) { return max ? Math.max(a, b) : Math.min(a, b); }

    private static BenchRecord scan(BenchSetup s, String name, DType inType, DType outType) {
        return scan(s, name, Op.SUM, inType, outType);
    }

    private static BenchRecord scan(BenchSetup s, String name, Op op, DType inType, DType outType) {
        String dtype = inType == outType ? inType.toString() : inType + "->" + outType;
        return Guard.run(s, GROUP, name, dtype, String.valueOf(s.n()),
                () -> measure(s, GROUP, name, op, dtype, inType, outType, s.n()));
    }

    /** The float32 inclusive sum of n elements, as cumsum_f32 is measured, recorded under {@code group} as {@code name}. */
    static BenchRecord cumsumFloat(BenchSetup s, String group, String name, long n) {
        String dtype = DType.FLOAT.toString();
        return Guard.run(s, group, name, dtype, String.valueOf(n),
                () -> measure(s, group, name, Op.SUM, dtype, DType.FLOAT, DType.FLOAT, n));
    }

    private static BenchRecord measure(BenchSetup s, String group, String name, Op op, String dtype, DType inType, DType outType,
                                       long n) {
        long inBytes = n * inType.byteSize(), outBytes = n * outType.byteSize();
        int buffers = s.buffersFor(inBytes + outBytes);
        Backend backend = s.gpu().backend();
        long identity = Reductions.identityBits(outType, op);
        try (Arena arena = Arena.ofShared(); Closer closer = new Closer()) {
            MemorySegment host = op == Op.PROD ? RandomHost.factors(arena.allocate(inBytes, 64), inType, n, 61)
                    : RandomHost.fill(arena.allocate(inBytes, 64), inType, n, 61);
            DeviceArray[] in = new DeviceArray[buffers];
            DeviceArray[] out = new DeviceArray[buffers];
            for (int b = 0; b < buffers; b++) {
                in[b] = closer.add(s.gpu().allocate(inType, n));
                in[b].copyFrom(host);
                out[b] = closer.add(s.gpu().allocate(outType, n));
            }
            EventTimer timer = closer.add(new EventTimer(s.ctx()));
            Timing t = timer.time(BenchSetup.WARMUP, s.reps(),
                    i -> backend.scan(in[i % buffers], out[i % buffers], op, true, identity));
            s.ctx().synchronize();

            MemorySegment result = arena.allocate(outBytes, 64);
            out[0].copyTo(result);
            // Up to 2^24 elements every one is checked (as one segment: the flags all zero), beyond that a sample.
            boolean everyElement = inType == outType && n <= EVERY_ELEMENT_UP_TO && inType != DType.BYTE;
            String check = op == Op.MAX || op == Op.MIN ? checkExtreme(op, inType, host, null, result, n)
                    : op != Op.SUM ? check(host, op, inType, result, outType, n, n <= EVERY_ELEMENT_UP_TO)
                    : everyElement ? checkSegmented(host, arena.allocate(n), result, inType, n, false)
                    : check(host, Op.SUM, inType, result, outType, n, false);
            boolean ok = !check.startsWith("FAILED");
            return BenchRecord.measured(group, name, dtype, String.valueOf(n), n, (double) inBytes + outBytes, t, ok,
                    "inclusive " + op + (op == Op.MAX || op == Op.MIN ? " (torch.cum" + (op == Op.MAX ? "max" : "min")
                            + " also writes an int64 index per element)" : "") + "; "
                            + check + "; " + buffers + " buffer(s)");
        }
    }

    /**
     * Walks the host prefix once, comparing the sampled positions (every position if {@code every}).
     * SUM of any type; PROD of doubles (+-1, so exact) and longs; XOR of longs and bytes.
     */
    static String check(MemorySegment in, Op op, DType inType, MemorySegment out, DType outType, long n, boolean every) {
        boolean sum = op == Op.SUM;
        if (!sum && !(inType == outType && (inType == DType.LONG || op == Op.PROD && inType == DType.DOUBLE
                || op == Op.XOR && inType == DType.BYTE))) {
            throw new IllegalArgumentException("no host reference for " + op + " of " + inType);
        }
        long sampled = 0, wrong = 0, firstWrong = -1;
        double worst = 0;
        double prefix = sum ? 0 : 1;
        long exact = op == Op.PROD ? 1 : 0;
        for (long i = 0; i < n; i++) {
            switch (inType) {
                case FLOAT -> prefix += in.getAtIndex(ValueLayout.JAVA_FLOAT, i);
                case DOUBLE -> prefix = sum ? prefix + in.getAtIndex(ValueLayout.JAVA_DOUBLE, i) : prefix * in.getAtIndex(ValueLayout.JAVA_DOUBLE, i);
                case INT -> exact += in.getAtIndex(ValueLayout.JAVA_INT, i);
                case LONG -> {
                    long x = in.getAtIndex(ValueLayout.JAVA_LONG, i);
                    exact = sum ? exact + x : op == Op.PROD ? exact * x : exact ^ x;
                }
                case BYTE -> {
                    byte x = in.get(ValueLayout.JAVA_BYTE, i);
                    exact = sum ? exact + x : exact ^ x;
                }
            }
            if (!every && (i & 0xFFFF) != 0 && i < n - 10) continue;
            sampled++;
            double err = switch (outType) {
                case FLOAT -> HostReference.relativeError(out.getAtIndex(ValueLayout.JAVA_FLOAT, i), prefix);
                case DOUBLE -> HostReference.relativeError(out.getAtIndex(ValueLayout.JAVA_DOUBLE, i), prefix);
                default -> 0;
            };
            worst = Math.max(worst, err);
            boolean good = switch (outType) {
                case FLOAT -> err <= FLOAT_TOLERANCE;
                case DOUBLE -> sum ? err <= DOUBLE_TOLERANCE : out.getAtIndex(ValueLayout.JAVA_DOUBLE, i) == prefix;
                case LONG -> out.getAtIndex(ValueLayout.JAVA_LONG, i) == exact;
                case INT -> out.getAtIndex(ValueLayout.JAVA_INT, i) == (int) exact;
                case BYTE -> out.get(ValueLayout.JAVA_BYTE, i) == (byte) exact;
            };
            if (!good && wrong++ == 0) firstWrong = i;
        }
        String what = sampled + (every ? " positions (every one)" : " sampled positions");
        if (inType.isFloatingPoint() && sum) {
            what += String.format(Locale.ROOT, ", max rel err %.2e vs float64 prefix (bound %.0e)", worst,
                    inType == DType.FLOAT ? FLOAT_TOLERANCE : DOUBLE_TOLERANCE);
        } else {
            what += " exact";
        }
        return wrong == 0 ? what + " ok" : "FAILED: " + wrong + " of " + what + " wrong, first at " + firstWrong;
    }
}
