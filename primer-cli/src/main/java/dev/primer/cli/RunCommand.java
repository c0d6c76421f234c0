package dev.primer.cli;

import dev.primer.BackendKind;
import dev.primer.ByteArray;
import dev.primer.DType;
import dev.primer.DeviceArray;
import dev.primer.DoubleArray;
import dev.primer.FloatArray;
import dev.primer.IntArray;
import dev.primer.LongArray;
import dev.primer.Op;
import dev.primer.Primer;
import dev.primer.Reductions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/** {@code primer run}: one primitive on a .npy file. */
@Command(name = "run", mixinStandardHelpOptions = true, sortOptions = false,
        header = "Run one primitive (reduce, per-row/segment reduce, arg-min/max, scan) on a .npy file.",
        description = {
                "Run one primitive on a .npy file (any shape, read flattened; int8, int32, int64, float32, float64).",
                "",
                "Reductions (sum prod min max and or xor argmin argmax) print one value; with --rows/--cols they "
                        + "reduce each row of the row-major matrix, with --offsets each segment "
                        + "[offsets[i], offsets[i+1]). Scans (inclusive-scan, exclusive-scan) apply --op, with "
                        + "--offsets restarting at each segment (elements outside the segments are copied from the "
                        + "input); their output goes to -o, or a summary is printed.",
                "int8/int32 sum and prod accumulate in int64 (an int32 sum scan, segmented or not, writes "
                        + "int64); float32 sums "
                        + "accumulate in float64. Times exclude loading the file: one warm-up run, then the median "
                        + "of --reps runs.",
                ""},
        footerHeading = "%nExamples:%n",
        footer = {
                "  primer run sum data.npy",
                "  primer run argmax data.npy --json",
                "  primer run max matrix.npy --rows 1000 --cols 4096 -o row_max.npy",
                "  primer run sum values.npy --offsets offsets.npy",
                "  primer run inclusive-scan data.npy --op max -o running_max.npy",
                "  primer run exclusive-scan data.npy --init 10 -o shifted.npy",
                "  primer run inclusive-scan values.npy --offsets offsets.npy -o running_sums.npy"})
public final class RunCommand implements Callable<Integer> {

    /** What {@code <op>} may be. */
    enum Kind {
        SUM("sum"), PROD("prod"), MIN("min"), MAX("max"), AND("and"), OR("or"), XOR("xor"),
        ARGMIN("argmin"), ARGMAX("argmax"), INCLUSIVE_SCAN("inclusive-scan"), EXCLUSIVE_SCAN("exclusive-scan");

        final String word;

        Kind(String word) { this.word = word; }

        boolean isScan() { return this == INCLUSIVE_SCAN || this == EXCLUSIVE_SCAN; }

        boolean isArg() { return this == ARGMIN || this == ARGMAX; }

        Op reduceOp() { return Op.valueOf(name()); }

        static Kind parse(String s) {
            String k = s.trim().toLowerCase(Locale.ROOT).replace('_', '-');
            for (Kind kind : values()) if (kind.word.equals(k)) return kind;
            throw CliException.usage("unknown op '" + s + "': expected one of " + valid());
        }

        static String valid() {
            StringBuilder b = new StringBuilder();
            for (Kind kind : values()) b.append(b.isEmpty() ? "" : ", ").append(kind.word);
            return b.toString();
        }
    }

    @Spec CommandSpec spec;

    @Parameters(index = "0", paramLabel = "<op>",
            description = "sum, prod, min, max, and, or, xor, argmin, argmax, inclusive-scan, exclusive-scan")
    String opName;

    @Parameters(index = "1", paramLabel = "<in.npy>", description = "Input array (.npy).")
    Path input;

    @Option(names = {"-o", "--output"}, paramLabel = "<out.npy>",
            description = "Write the per-row / per-segment results or the scan here (.npy).")
    Path output;

    @Option(names = "--json", description = "Print one JSON object (for scripts).")
    boolean json;

    @Option(names = "--rows", paramLabel = "R", description = "Reduce each of R rows (row-major; --cols inferred if absent).")
    Long rows;

    @Option(names = "--cols", paramLabel = "C", description = "Row length (--rows inferred if absent).")
    Long cols;

    @Option(names = "--offsets", paramLabel = "<offsets.npy>",
            description = "Segment boundaries: segments+1 non-decreasing int32/int64 values (reductions and scans).")
    Path offsetsFile;

    @Option(names = "--op", paramLabel = "OP", description = "Operator of a scan: sum, prod, min, max, and, or, xor. Default: sum.")
    String scanOpName;

    @Option(names = "--init", paramLabel = "V", description = "Initial value of an exclusive scan. Default: the operator's identity.")
    String init;

    @Option(names = "--reps", paramLabel = "R", defaultValue = "3",
            description = "Timed runs after one warm-up run; the median time is reported. Default: 3.")
    int reps;

    private static final int HEAD = 10;

    @Override public Integer call() throws IOException {
        Kind kind = Kind.parse(opName);
        Op op = checkOptions(kind);
        Reps.check(reps);
        if (!Files.exists(input)) throw CliException.usage("no such file: " + input);
        Main main = Main.of(spec);
        BackendKind backend = Backends.resolve(main.backend());
        PrintWriter out = spec.commandLine().getOut();
        try (Primer primer = Primer.open(backend)) {
            long t0 = System.nanoTime();
            try (DeviceArray in = primer.load(input)) {
                double loadMs = (System.nanoTime() - t0) / 1e6;
                Json result = Json.object()
                        .put("op", kind.word)
                        .put("input", input.toString())
                        .put("dtype", in.dtype().toString())
                        .put("n", in.length())
                        .put("backend", Backends.name(primer.kind()))
                        .put("device", primer.description());
                if (kind.isScan()) scan(primer, in, kind, op, result);
                else if (rows != null || cols != null) perRow(primer, in, kind, result);
                else if (offsetsFile != null) perSegment(primer, in, kind, result);
                else scalar(primer, in, kind, result);
                result.put("repetitions", reps).put("loadMillis", loadMs);
                if (json) out.println(result);
                else out.print(human(result));
            }
        }
        out.flush();
        return ExitCode.OK;
    }

    /** Options that do not fit the op are usage errors, named. Returns the operator. */
    private Op checkOptions(Kind kind) {
        if ((rows != null || cols != null) && offsetsFile != null) throw CliException.usage("give either --rows/--cols or --offsets, not both");
        if (kind.isScan()) {
            if (rows != null || cols != null) throw CliException.usage("--rows/--cols apply to reductions, not scans (use --offsets for a segmented scan)");
            if (kind == Kind.INCLUSIVE_SCAN && init != null) throw CliException.usage("--init applies to exclusive-scan only");
            return parseOp(scanOpName == null ? "sum" : scanOpName);
        }
        if (scanOpName != null) throw CliException.usage("--op applies to scans; for a reduction name the op itself (e.g. 'primer run max FILE')");
        if (init != null) throw CliException.usage("--init applies to exclusive-scan only");
        if (output != null && rows == null && cols == null && offsetsFile == null) {
            throw CliException.usage("-o needs an array result: add --rows/--cols or --offsets (a plain " + kind.word + " prints one value)");
        }
        return kind.isArg() ? null : kind.reduceOp();
    }

    static Op parseOp(String s) {
        try {
            return Op.valueOf(s.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw CliException.usage("unknown scan operator '" + s + "': expected one of sum, prod, min, max, and, or, xor");
        }
    }

    // ------------------------------------------------------------------ scalar

    private void scalar(Primer primer, DeviceArray in, Kind kind, Json result) {
        Object[] value = new Object[1];
        double ms = time(primer, () -> value[0] = kind.isArg()
                ? (Object) (kind == Kind.ARGMAX ? primer.argMax(in) : primer.argMin(in))
                : reduce(primer, in, kind.reduceOp()), null);
        DType resultType = kind.isArg() ? DType.LONG : Reductions.outputType(in.dtype(), kind.reduceOp());
        result.put("result", value[0]).put("resultDtype", resultType.toString())
                .put("millis", ms).put("gigabytesPerSecond", gbps(in.byteSize(), ms));
    }

    /** The typed reduce: long for integer types, float for float32, double for float64. */
    static Object reduce(Primer primer, DeviceArray in, Op op) {
        return switch (in) {
            case ByteArray a -> primer.reduce(a, op);
            case IntArray a -> primer.reduce(a, op);
            case LongArray a -> primer.reduce(a, op);
            case FloatArray a -> primer.reduce(a, op);
            case DoubleArray a -> primer.reduce(a, op);
        };
    }

    // ------------------------------------------------------------------ rows / segments

    private void perRow(Primer primer, DeviceArray in, Kind kind, Json result) throws IOException {
        long n = in.length();
        long r, c;
        if (rows != null && cols != null) {
            r = rows;
            c = cols;
        } else if (rows != null) {
            r = rows;
            if (r <= 0 || n % r != 0) throw CliException.usage("--rows " + r + " does not divide the " + n + " elements; give --cols too");
            c = n / r;
        } else {
            c = cols;
            if (c <= 0 || n % c != 0) throw CliException.usage("--cols " + c + " does not divide the " + n + " elements; give --rows too");
            r = n / c;
        }
        if (r < 0 || c < 0) throw CliException.usage("--rows and --cols must be >= 0");
        if (Math.multiplyHigh(r, c) != 0 || r * c != n) {
            throw CliException.usage("--rows " + r + " × --cols " + c + " = " + (Math.multiplyHigh(r, c) != 0 ? "overflow" : r * c)
                    + ", but " + input + " holds " + n + " elements");
        }
        DeviceArray[] res = new DeviceArray[1];
        double ms = time(primer, () -> res[0] = kind.isArg()
                ? primer.argExtremeRows(in, r, c, kind == Kind.ARGMAX)
                : primer.reduceRows(in, r, c, kind.reduceOp()), () -> res[0].close());
        try (DeviceArray values = res[0]) {
            result.put("rows", r).put("cols", c);
            arrayResult(primer, values, ms, in.byteSize() + values.byteSize(), result);
        }
    }

    private void perSegment(Primer primer, DeviceArray in, Kind kind, Json result) throws IOException {
        try (LongArray offsets = loadOffsets(primer, offsetsFile, in.length())) {
            DeviceArray[] res = new DeviceArray[1];
            double ms = time(primer, () -> res[0] = kind.isArg()
                    ? primer.argExtremeSegments(in, offsets, kind == Kind.ARGMAX)
                    : primer.reduceSegments(in, offsets, kind.reduceOp()), () -> res[0].close());
            try (DeviceArray values = res[0]) {
                result.put("segments", offsets.length() - 1).put("offsets", offsetsFile.toString());
                arrayResult(primer, values, ms, in.byteSize() + offsets.byteSize() + values.byteSize(), result);
            }
        }
    }

    /**
     * Reads segment offsets (int32 or int64), checks them (at least one value, non-decreasing, within
     * [0, n]) and returns them as int64 on {@code primer}.
     */
    static LongArray loadOffsets(Primer primer, Path file, long n) throws IOException {
        if (!Files.exists(file)) throw CliException.usage("no such file: " + file);
        try (Arena arena = Arena.ofConfined()) {
            var npy = dev.primer.io.Npy.read(file, arena);
            DType t = npy.dtype();
            if (t != DType.INT && t != DType.LONG) {
                throw CliException.usage("--offsets " + file + " holds " + t + "; offsets must be int32 or int64");
            }
            long count = npy.length();
            if (count < 1) throw CliException.usage("--offsets " + file + " is empty; it needs segments + 1 values");
            MemorySegment longs = arena.allocate(count * 8, 8);
            long previous = Long.MIN_VALUE;
            for (long i = 0; i < count; i++) {
                long v = t == DType.INT ? npy.data().getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i)
                        : npy.data().getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i);
                if (v < 0 || v > n) throw CliException.usage("--offsets: offsets[" + i + "] = " + v + " is outside [0, " + n + "]");
                if (v < previous) throw CliException.usage("--offsets: offsets decrease at index " + i + " (" + previous + " > " + v + ")");
                longs.setAtIndex(ValueLayout.JAVA_LONG, i, v);
                previous = v;
            }
            return (LongArray) primer.upload(DType.LONG, longs, count);
        }
    }

    // ------------------------------------------------------------------ scans

    /** An int32 array's values as int64, in host memory. */
    private static MemorySegment widened(DeviceArray in) {
        MemorySegment ints = Arena.ofAuto().allocate(Math.max(1, in.byteSize()), 8);
        in.copyTo(ints);
        MemorySegment longs = Arena.ofAuto().allocate(Math.max(1, 8 * in.length()), 8);
        for (long i = 0; i < in.length(); i++) longs.setAtIndex(ValueLayout.JAVA_LONG, i, ints.getAtIndex(ValueLayout.JAVA_INT, i));
        return longs;
    }

    private void scan(Primer primer, DeviceArray in, Kind kind, Op op, Json result) throws IOException {
        op.requireSupports(in.dtype(), "--op");
        boolean widen = in.dtype() == DType.INT && op == Op.SUM;
        DType outType = widen ? DType.LONG : in.dtype();
        try (DeviceArray out = primer.allocate(outType, in.length());
             LongArray offsets = offsetsFile == null ? null : loadOffsets(primer, offsetsFile, in.length())) {
            double ms;
            if (offsets != null) {
                // a segmented scan writes only [offsets[0], offsets[last]); the rest of the file holds the input
                if (widen) out.copyFrom(widened(in));
                else out.copyFrom(in);
                result.put("segments", offsets.length() - 1).put("offsets", offsetsFile.toString());
            }
            if (kind == Kind.INCLUSIVE_SCAN) {
                ms = time(primer, () -> {
                    if (offsets != null) primer.segmentedInclusiveScan(in, offsets, out, op);
                    else primer.inclusiveScan(in, out, op);
                }, null);
            } else {
                Object initValue = initValue(outType, op);
                result.put("init", initValue);
                boolean floating = outType.isFloatingPoint();
                double d = ((Number) initValue).doubleValue();
                long l = ((Number) initValue).longValue();
                ms = time(primer, () -> {
                    if (offsets != null && floating) primer.segmentedExclusiveScan(in, offsets, out, op, d);
                    else if (offsets != null) primer.segmentedExclusiveScan(in, offsets, out, op, l);
                    else if (floating) primer.exclusiveScan(in, out, op, d);
                    else primer.exclusiveScan(in, out, op, l);
                }, null);
            }
            result.put("scanOp", op.name().toLowerCase(Locale.ROOT));
            arrayResult(primer, out, ms, in.byteSize() + out.byteSize(), result);
        }
    }

    /** --init parsed for the output type, or the operator's identity. */
    private Object initValue(DType outType, Op op) {
        if (init == null) {
            long bits = Reductions.identityBits(outType, op);
            return switch (outType) {
                case FLOAT -> Float.intBitsToFloat((int) bits);
                case DOUBLE -> Double.longBitsToDouble(bits);
                default -> bits;
            };
        }
        String s = init.trim();
        try {
            if (outType.isFloatingPoint()) {
                return switch (s.toLowerCase(Locale.ROOT)) {
                    case "inf", "+inf", "infinity" -> Double.POSITIVE_INFINITY;
                    case "-inf", "-infinity" -> Double.NEGATIVE_INFINITY;
                    case "nan" -> Double.NaN;
                    default -> Double.parseDouble(s);
                };
            }
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            throw CliException.usage("--init '" + init + "' is not " + (outType.isFloatingPoint() ? "a number" : "an integer")
                    + " (the scan's output is " + outType + ")");
        }
    }

    // ------------------------------------------------------------------ output

    private void arrayResult(Primer primer, DeviceArray values, double ms, long bytesMoved, Json result) throws IOException {
        result.put("resultDtype", values.dtype().toString())
                .put("count", values.length())
                .put("millis", ms)
                .put("gigabytesPerSecond", gbps(bytesMoved, ms))
                .put("head", HostValues.head(values, HEAD));
        if (values.length() > 0) result.put("last", HostValues.read(values, values.length() - 1, 1).getFirst());
        if (output != null) {
            primer.save(output, values);
            result.put("output", output.toString());
        }
    }

    /** The lines printed without --json. */
    static String human(Json r) {
        StringBuilder b = new StringBuilder();
        String what = r.get("op") + (r.has("scanOp") ? " (" + r.get("scanOp") + ")" : "");
        String shape = Format.count((Long) r.get("n")) + " " + r.get("dtype")
                + (r.has("rows") ? " as " + r.get("rows") + " rows × " + r.get("cols") + " cols" : "")
                + (r.has("segments") ? " in " + r.get("segments") + " segments" : "");
        if (r.has("result")) {
            b.append(what).append(" = ").append(r.get("result")).append('\n');
        } else {
            long count = (Long) r.get("count");
            @SuppressWarnings("unchecked") List<Number> head = (List<Number>) r.get("head");
            b.append(what).append(": ").append(Format.count(count)).append(' ').append(r.get("resultDtype"))
                    .append(count == 1 ? " value" : " values").append('\n');
            for (int i = 0; i < head.size(); i++) b.append("  [").append(i).append("] ").append(head.get(i)).append('\n');
            if (count > head.size()) {
                if (count > head.size() + 1) b.append("  ... (").append(Format.count(count - head.size() - 1)).append(" more)\n");
                b.append("  [").append(count - 1).append("] ").append(r.get("last")).append('\n');
            }
            if (r.has("output")) b.append("wrote ").append(r.get("output")).append('\n');
            else if (count > head.size()) b.append("(use -o FILE.npy to save all ").append(Format.count(count)).append(")\n");
        }
        b.append("  ").append(shape).append(" on ").append(r.get("backend")).append(": ")
                .append(Format.duration((Double) r.get("millis")))
                .append(", ").append(Format.number((Double) r.get("gigabytesPerSecond"))).append(" GB/s")
                .append(" (median of ").append(r.get("repetitions")).append(" after a warm-up; load ")
                .append(Format.duration((Double) r.get("loadMillis"))).append(")\n");
        return b.toString();
    }

    /**
     * Median milliseconds of {@code reps} runs of the action after one warm-up run (kernel loading,
     * JIT), each waiting for the backend to finish. {@code discard}, when given, frees the result of a
     * run before the next one (the last run's result stays).
     */
    private double time(Primer primer, Runnable action, Runnable discard) {
        double[] ms = new double[reps];
        action.run();
        for (int r = 0; r < reps; r++) {
            if (discard != null) discard.run();
            long t0 = System.nanoTime();
            action.run();
            primer.synchronize();
            ms[r] = (System.nanoTime() - t0) / 1e6;
        }
        return CopyBandwidth.median(ms);
    }

    static double gbps(long bytes, double ms) { return ms > 0 ? bytes / (ms * 1e-3) / 1e9 : Double.NaN; }
}
