package dev.primer;

import dev.primer.cpu.CpuBackend;
import dev.primer.cuda.Cuda;
import dev.primer.gpu.GpuBackend;
import dev.primer.io.Npy;
import dev.primer.io.NpyArray;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Reference;
import java.nio.file.Path;
import java.util.Objects;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;

/**
 * Primer's entry point: a backend (the GPU or the CPU) and the primitives on its arrays.
 *
 * <pre>{@code
 * try (Primer primer = Primer.open();                 // the GPU if usable, else the CPU
 *      FloatArray x = primer.upload(new float[] {1, 2, 3})) {
 *     float total = primer.sum(x);
 * }
 * }</pre>
 *
 * <p>Arrays live on the backend that made them; primitives take arrays and return scalars or new
 * arrays; nothing is copied to the host unless asked. Accumulators: int32 and int8 SUM and PROD
 * accumulate in int64; int64 SUM is exact (ArithmeticException when the true sum does not fit a
 * long); PROD of integers wraps like Java multiplication; float32 SUM and PROD accumulate in float64
 * and round once; MIN and MAX follow Math.min / Math.max (NaN wins, -0.0 &lt; 0.0); ARGMIN/ARGMAX give
 * the first index of the extreme (NaN counts as the extreme), -1 when empty. Float results are
 * bitwise identical from run to run on one backend; GPU and CPU agree within the documented bound
 * (docs/semantics.md) and exactly for everything else.
 *
 * <p>Scans take {@code out == in} to work in place; an {@code out} that partly overlaps {@code in}
 * is rejected (by offsets, only the elements [offsets[0], offsets[last]) that the scan touches count).
 *
 * <p>Methods of one Primer are serialised (thread-safe). On the GPU every Primer issues its work on
 * one context and stream, so several Primers share the device rather than run side by side. An
 * array's own methods (copies, fill, close) are not serialised with the Primer's: do not close an
 * array while another thread's call is using it.
 */
public final class Primer implements AutoCloseable {
    private final Backend backend;
    private volatile boolean closed;

    private Primer(Backend backend) {
        this.backend = backend;
    }

    /** The GPU when one is usable, else the CPU. */
    public static Primer open() { return open(BackendKind.AUTO); }

    /** The named backend; GPU throws IllegalStateException with the reason when none is usable. AUTO never throws for that. */
    public static Primer open(BackendKind kind) {
        Objects.requireNonNull(kind, "kind");
        return switch (kind) {
            case GPU -> new Primer(new GpuBackend(Cuda.context()));
            case CPU -> new Primer(new CpuBackend());
            case AUTO -> gpuIfUsable();
        };
    }

    /** AUTO: the GPU, or the CPU when there is none or its context cannot be made (with a warning). */
    private static Primer gpuIfUsable() {
        if (!Cuda.isAvailable()) return open(BackendKind.CPU);
        try {
            return open(BackendKind.GPU);
        } catch (IllegalStateException e) {
            System.getLogger("dev.primer").log(System.Logger.Level.WARNING, e.getMessage() + "; using the CPU");
            return open(BackendKind.CPU);
        }
    }

    public BackendKind kind() { return backend.kind(); }

    public String description() { return backend.description(); }

    /**
     * The backend, for code that extends Primer (ladders, benchmarks). Its primitives take arrays as
     * they are: the GPU backend checks their lengths, not what Primer's own methods check (ownership,
     * types, overlaps, operators).
     */
    public Backend backend() {
        requireOpen();
        return backend;
    }

    // ---------------------------------------------------------------- arrays

    /** A new array of {@code length} elements of {@code type}; contents undefined. */
    public synchronized DeviceArray allocate(DType type, long length) {
        requireOpen();
        Objects.requireNonNull(type, "type");
        long bytes = byteLength(type, length);
        Buffer buffer = backend.allocate(bytes);
        DeviceArray.Memory memory = new DeviceArray.Memory(backend, buffer, type + " array of " + length + " elements");
        return switch (type) {
            case BYTE -> new ByteArray(memory, 0, length, null);
            case INT -> new IntArray(memory, 0, length, null);
            case LONG -> new LongArray(memory, 0, length, null);
            case FLOAT -> new FloatArray(memory, 0, length, null);
            case DOUBLE -> new DoubleArray(memory, 0, length, null);
        };
    }

    public ByteArray allocateBytes(long length) { return (ByteArray) allocate(DType.BYTE, length); }
    public IntArray allocateInts(long length) { return (IntArray) allocate(DType.INT, length); }
    public LongArray allocateLongs(long length) { return (LongArray) allocate(DType.LONG, length); }
    public FloatArray allocateFloats(long length) { return (FloatArray) allocate(DType.FLOAT, length); }
    public DoubleArray allocateDoubles(long length) { return (DoubleArray) allocate(DType.DOUBLE, length); }

    private static long byteLength(DType type, long length) {
        if (length < 0) throw new IllegalArgumentException("length must be >= 0: " + length);
        if (length > Long.MAX_VALUE / type.byteSize()) {
            throw new IllegalArgumentException("length: " + length + " elements of " + type + " overflow a long in bytes");
        }
        return length * type.byteSize();
    }

    /** Uploads {@code length} elements of {@code type} from host memory (heap or native). */
    public DeviceArray upload(DType type, MemorySegment src, long length) {
        requireOpen();
        Objects.requireNonNull(src, "src");
        Objects.requireNonNull(type, "type");
        if (src.byteSize() < byteLength(type, length)) {  // before allocating what would be thrown away
            throw new IllegalArgumentException("src holds " + src.byteSize() + " bytes, fewer than " + length + " elements of "
                    + type);
        }
        DeviceArray a = allocate(type, length);
        try {
            a.copyFrom(src);
        } catch (RuntimeException e) {
            closeAfter(e, a);
            throw e;
        }
        return a;
    }

    public ByteArray upload(byte[] src) { return (ByteArray) upload(DType.BYTE, MemorySegment.ofArray(Objects.requireNonNull(src, "src")), src.length); }
    public IntArray upload(int[] src) { return (IntArray) upload(DType.INT, MemorySegment.ofArray(Objects.requireNonNull(src, "src")), src.length); }
    public LongArray upload(long[] src) { return (LongArray) upload(DType.LONG, MemorySegment.ofArray(Objects.requireNonNull(src, "src")), src.length); }
    public FloatArray upload(float[] src) { return (FloatArray) upload(DType.FLOAT, MemorySegment.ofArray(Objects.requireNonNull(src, "src")), src.length); }
    public DoubleArray upload(double[] src) { return (DoubleArray) upload(DType.DOUBLE, MemorySegment.ofArray(Objects.requireNonNull(src, "src")), src.length); }

    /** Reads a .npy file (any shape, C order) into a flat array of its dtype. */
    public DeviceArray load(Path npyFile) throws IOException {
        requireOpen();  // before reading the file
        Objects.requireNonNull(npyFile, "npyFile");
        try (Arena arena = Arena.ofConfined()) {
            NpyArray npy = Npy.read(npyFile, arena);
            return upload(npy.dtype(), npy.data(), npy.data().byteSize() / npy.dtype().byteSize());
        }
    }

    /** Writes an array as a 1-d .npy file. */
    public void save(Path npyFile, DeviceArray array) throws IOException {
        save(npyFile, own(array, "array"), new long[] {array.length()});
    }

    /** Writes an array as a .npy file of the given shape (whose product must be the length). */
    public void save(Path npyFile, DeviceArray array, long[] shape) throws IOException {
        Objects.requireNonNull(npyFile, "npyFile");
        own(array, "array");
        Objects.requireNonNull(shape, "shape");
        long product = 1;
        for (long d : shape) {  // all before any copy
            if (d < 0) throw new IllegalArgumentException("shape " + java.util.Arrays.toString(shape) + " has a negative dimension");
            if (d != 0 && product > Long.MAX_VALUE / d) {
                throw new IllegalArgumentException("shape " + java.util.Arrays.toString(shape) + " holds more than 2^63 elements");
            }
            product *= d;
        }
        if (product != array.length()) {
            throw new IllegalArgumentException("shape " + java.util.Arrays.toString(shape) + " holds " + product
                    + " elements; the array has " + array.length());
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment host = arena.allocate(Math.max(1, array.byteSize()), 64).asSlice(0, array.byteSize());
            array.copyTo(host);
            Npy.write(npyFile, array.dtype(), shape, host);
        }
    }

    /** Waits for all work issued so far. Primitives that return scalars already wait. */
    public synchronized void synchronize() {
        requireOpen();
        backend.synchronize();
    }

    // ---------------------------------------------------------------- reduce

    /** Sum of int8 elements, accumulated in int64. */
    public long sum(ByteArray a) { return reduce(a, Op.SUM); }
    /** Sum of int32 elements, accumulated in int64: exact at any length; ArithmeticException when it does not fit a long. */
    public long sum(IntArray a) { return reduce(a, Op.SUM); }
    /** Exact sum; ArithmeticException when it does not fit a long. */
    public long sum(LongArray a) { return reduce(a, Op.SUM); }
    /** Sum accumulated in float64, rounded once to float32. */
    public float sum(FloatArray a) { return reduce(a, Op.SUM); }
    public double sum(DoubleArray a) { return reduce(a, Op.SUM); }

    /** SUM/PROD accumulate in int64; the others return the element's value widened. */
    public synchronized long reduce(ByteArray a, Op op) { return runForLong(() -> backend.reduceIntegral(checkReduce(a, op), op), a); }
    /** SUM/PROD accumulate in int64; the others return the element's value widened. */
    public synchronized long reduce(IntArray a, Op op) { return runForLong(() -> backend.reduceIntegral(checkReduce(a, op), op), a); }
    public synchronized long reduce(LongArray a, Op op) { return runForLong(() -> backend.reduceIntegral(checkReduce(a, op), op), a); }
    /** SUM and PROD accumulate in float64 and round once. */
    public synchronized float reduce(FloatArray a, Op op) { return (float) runForDouble(() -> backend.reduceFloating(checkReduce(a, op), op), a); }
    public synchronized double reduce(DoubleArray a, Op op) { return runForDouble(() -> backend.reduceFloating(checkReduce(a, op), op), a); }

    /**
     * Reduce with a user-defined operator (compiled at run time on the GPU; see {@link CustomOp}):
     * {@code a[0] op a[1] op ... op a[n-1]}. The operator must be associative; it need not be
     * commutative (operand order is kept on both backends).
     */
    public synchronized byte reduce(ByteArray a, CustomOp op) { return (byte) runForLong(() -> backend.reduceCustom(checkCustom(a, op), op), a); }
    public synchronized int reduce(IntArray a, CustomOp op) { return (int) runForLong(() -> backend.reduceCustom(checkCustom(a, op), op), a); }
    public synchronized long reduce(LongArray a, CustomOp op) { return runForLong(() -> backend.reduceCustom(checkCustom(a, op), op), a); }
    public synchronized float reduce(FloatArray a, CustomOp op) { return Float.intBitsToFloat((int) runForLong(() -> backend.reduceCustom(checkCustom(a, op), op), a)); }
    public synchronized double reduce(DoubleArray a, CustomOp op) { return Double.longBitsToDouble(runForLong(() -> backend.reduceCustom(checkCustom(a, op), op), a)); }

    /** Index of the first minimum (NaN counts as the minimum); -1 when empty. */
    public synchronized long argMin(DeviceArray a) { return runForLong(() -> backend.argExtreme(checkArg(a), false), a); }
    /** Index of the first maximum (NaN counts as the maximum); -1 when empty. */
    public synchronized long argMax(DeviceArray a) { return runForLong(() -> backend.argExtreme(checkArg(a), true), a); }

    /**
     * Reduces each row of a row-major (rows × cols) matrix. The result's type is the accumulator's:
     * int64 for int8/int32 SUM and PROD, float32 for float32 (accumulated in float64), else the input's.
     * Integer sums are exact: one that does not fit a long (an int64 SUM, or an int32 SUM of a row of
     * more than 2^32 elements) throws ArithmeticException naming the first such row.
     */
    public synchronized DeviceArray reduceRows(DeviceArray matrix, long rows, long cols, Op op) {
        checkRows(matrix, rows, cols, op);
        DeviceArray out = allocate(Reductions.outputType(matrix.dtype(), op), rows);
        return fillOrClose(out, () -> backend.reduceRows(matrix, op, rows, cols, out), matrix);
    }

    /**
     * {@link #reduceRows(DeviceArray, long, long, Op)} into {@code out}, which must have the result's
     * type and {@code rows} elements and not overlap {@code matrix}: no allocation per call. What the
     * host checks (types, lengths, overlap, closed arrays) is checked before anything is written; after
     * an ArithmeticException, {@code out}'s contents are unspecified.
     */
    public synchronized void reduceRows(DeviceArray matrix, long rows, long cols, Op op, DeviceArray out) {
        checkRows(matrix, rows, cols, op);
        checkResults(out, Reductions.outputType(matrix.dtype(), op), rows, op + " over " + matrix.dtype() + " rows", matrix, "matrix", null);
        run(() -> backend.reduceRows(matrix, op, rows, cols, out), matrix, out);
    }

    /**
     * Reduces each row of a row-major (rows × cols) matrix with a user-defined operator, in index
     * order (it need not be commutative); the result has the operator's type, and an empty row
     * (cols = 0) gives its identity.
     */
    public synchronized DeviceArray reduceRows(DeviceArray matrix, long rows, long cols, CustomOp op) {
        checkCustom(matrix, op, "matrix");
        checkRowShape(matrix, rows, cols);
        DeviceArray out = allocate(op.type(), rows);
        return fillOrClose(out, () -> backend.reduceRowsCustom(matrix, op, rows, cols, out), matrix);
    }

    /** {@link #reduceRows(DeviceArray, long, long, CustomOp)} into {@code out}: the operator's type, {@code rows} elements. */
    public synchronized void reduceRows(DeviceArray matrix, long rows, long cols, CustomOp op, DeviceArray out) {
        checkCustom(matrix, op, "matrix");
        checkRowShape(matrix, rows, cols);
        checkResults(out, op.type(), rows, op + " over rows", matrix, "matrix", null);
        run(() -> backend.reduceRowsCustom(matrix, op, rows, cols, out), matrix, out);
    }

    /** Index within each row of its first minimum or maximum; -1 for every row when cols = 0. */
    public synchronized LongArray argExtremeRows(DeviceArray matrix, long rows, long cols, boolean max) {
        checkRows(matrix, rows, cols, Op.MIN);
        LongArray out = allocateLongs(rows);
        return fillOrClose(out, () -> backend.argExtremeRows(matrix, max, rows, cols, out), matrix);
    }

    /** {@link #argExtremeRows(DeviceArray, long, long, boolean)} into {@code out} ({@code rows} elements). */
    public synchronized void argExtremeRows(DeviceArray matrix, long rows, long cols, boolean max, LongArray out) {
        checkRows(matrix, rows, cols, Op.MIN);
        checkResults(out, DType.LONG, rows, "indices within rows", matrix, "matrix", null);
        run(() -> backend.argExtremeRows(matrix, max, rows, cols, out), matrix, out);
    }

    /**
     * Reduces each segment [offsets[i], offsets[i+1]) of {@code values}; empty segments give the
     * operator's identity. Output type and exact integer sums as for {@link #reduceRows}.
     */
    public synchronized DeviceArray reduceSegments(DeviceArray values, LongArray offsets, Op op) {
        long segments = checkSegments(values, offsets, op);
        DeviceArray out = allocate(Reductions.outputType(values.dtype(), op), segments);
        return fillOrClose(out, () -> backend.reduceSegments(values, op, offsets, out), values, offsets);
    }

    /**
     * {@link #reduceSegments(DeviceArray, LongArray, Op)} into {@code out}, which must have the
     * result's type and one element per segment and not overlap {@code values} or {@code offsets}: no
     * allocation per call. Everything is checked before anything is written: what the host can
     * (types, lengths, overlap, closed arrays), and the offsets' values (on the GPU, by a pass of
     * their own before the reduce). Only after an ArithmeticException (an exact sum that does not
     * fit, found as the GPU reduces) are {@code out}'s contents unspecified.
     */
    public synchronized void reduceSegments(DeviceArray values, LongArray offsets, Op op, DeviceArray out) {
        long segments = checkSegments(values, offsets, op);
        checkResults(out, Reductions.outputType(values.dtype(), op), segments, op + " over " + values.dtype() + " segments",
                values, "values", offsets);
        run(() -> backend.reduceSegments(values, op, offsets, out), values, offsets, out);
    }

    /**
     * Reduces each segment [offsets[i], offsets[i+1]) of {@code values} with a user-defined operator,
     * in index order (it need not be commutative); the result has the operator's type, and an empty
     * segment gives its identity.
     */
    public synchronized DeviceArray reduceSegments(DeviceArray values, LongArray offsets, CustomOp op) {
        checkCustom(values, op, "values");
        long segments = checkOffsets(offsets);
        DeviceArray out = allocate(op.type(), segments);
        return fillOrClose(out, () -> backend.reduceSegmentsCustom(values, op, offsets, out), values, offsets);
    }

    /** {@link #reduceSegments(DeviceArray, LongArray, CustomOp)} into {@code out}, as {@link #reduceSegments(DeviceArray, LongArray, Op, DeviceArray)}. */
    public synchronized void reduceSegments(DeviceArray values, LongArray offsets, CustomOp op, DeviceArray out) {
        checkCustom(values, op, "values");
        long segments = checkOffsets(offsets);
        checkResults(out, op.type(), segments, op + " over segments", values, "values", offsets);
        run(() -> backend.reduceSegmentsCustom(values, op, offsets, out), values, offsets, out);
    }

    /** Index within each segment of its first minimum or maximum; -1 for empty segments. */
    public synchronized LongArray argExtremeSegments(DeviceArray values, LongArray offsets, boolean max) {
        long segments = checkSegments(values, offsets, Op.MIN);
        LongArray out = allocateLongs(segments);
        return fillOrClose(out, () -> backend.argExtremeSegments(values, max, offsets, out), values, offsets);
    }

    /** {@link #argExtremeSegments(DeviceArray, LongArray, boolean)} into {@code out} (one element per segment). */
    public synchronized void argExtremeSegments(DeviceArray values, LongArray offsets, boolean max, LongArray out) {
        long segments = checkSegments(values, offsets, Op.MIN);
        checkResults(out, DType.LONG, segments, "indices within segments", values, "values", offsets);
        run(() -> backend.argExtremeSegments(values, max, offsets, out), values, offsets, out);
    }

    // ---------------------------------------------------------------- scan

    /**
     * out[i] = e op in[0] op ... op in[i], e the operator's identity (+0.0 for a float SUM, so a prefix
     * of -0.0 values gives +0.0). {@code out} may be {@code in}. {@code out} has the input's type
     * (int8 and int32 wrap like Java's byte and int arithmetic), or int64 for an int8 or int32 SUM.
     */
    public synchronized void inclusiveScan(DeviceArray in, DeviceArray out, Op op) {
        checkScan(in, out, op);
        run(() -> backend.scan(in, out, op, true, Reductions.identityBits(out.dtype(), op)), in, out);
    }

    /** out[0] = init, out[i] = init op in[0] op ... op in[i-1]; for integer outputs. */
    public synchronized void exclusiveScan(DeviceArray in, DeviceArray out, Op op, long init) {
        checkScan(in, out, op);
        run(() -> backend.scan(in, out, op, false, Reductions.integralInitBits(out.dtype(), init, "init")), in, out);
    }

    /** out[0] = init, out[i] = init op in[0] op ... op in[i-1]; for float32/float64 outputs. */
    public synchronized void exclusiveScan(DeviceArray in, DeviceArray out, Op op, double init) {
        checkScan(in, out, op);
        run(() -> backend.scan(in, out, op, false, Reductions.floatingInitBits(out.dtype(), init, "init")), in, out);
    }

    /**
     * Running argmin ({@code max} false) or argmax: out[i] = the index of the first minimum (maximum)
     * of in[0 .. i], NaN counting as the extreme and -0.0 below 0.0, as {@link #argMin}/{@link #argMax}
     * (the indices of torch.cummin / torch.cummax). Every type; {@code out} is int64, in's length, and
     * must not overlap {@code in}.
     */
    public synchronized void argExtremeScan(DeviceArray in, LongArray out, boolean max) {
        checkArgScan(in, out);
        run(() -> backend.argExtremeScan(in, max, true, out), in, out);
    }

    /**
     * Exclusive running argmin/argmax: out[0] = -1 (nothing before it), out[i] = the index of the
     * first minimum (maximum) of in[0 .. i-1]; otherwise as {@link #argExtremeScan}.
     */
    public synchronized void exclusiveArgExtremeScan(DeviceArray in, LongArray out, boolean max) {
        checkArgScan(in, out);
        run(() -> backend.argExtremeScan(in, max, false, out), in, out);
    }

    /**
     * Running argmin/argmax of each segment, segments starting at every element whose head flag is
     * non-zero (and at element 0): out[i] = the index of the first minimum (maximum) of
     * in[s .. i], counted from the segment's first element s (as {@link #argExtremeSegments}; the
     * indices of torch.cummax along a row). Order, types and {@code out} as {@link #argExtremeScan}.
     */
    public synchronized void segmentedArgExtremeScan(DeviceArray in, ByteArray headFlags, LongArray out, boolean max) {
        checkArgScan(in, out);
        checkHeadFlags(in, headFlags, out);
        run(() -> backend.segmentedArgExtremeScanByFlags(in, headFlags, max, true, out), in, headFlags, out);
    }

    /**
     * As {@link #segmentedArgExtremeScan(DeviceArray, ByteArray, LongArray, boolean)}, exclusive: -1 at
     * every segment's first element, then the index within the segment of the first extreme before i.
     */
    public synchronized void segmentedExclusiveArgExtremeScan(DeviceArray in, ByteArray headFlags, LongArray out, boolean max) {
        checkArgScan(in, out);
        checkHeadFlags(in, headFlags, out);
        run(() -> backend.segmentedArgExtremeScanByFlags(in, headFlags, max, false, out), in, headFlags, out);
    }

    /**
     * Running argmin/argmax of each segment [offsets[k], offsets[k+1]), indices counted from the
     * segment's first element; elements of {@code out} outside [offsets[0], offsets[last]) are left
     * as they were.
     */
    public synchronized void segmentedArgExtremeScan(DeviceArray in, LongArray offsets, LongArray out, boolean max) {
        checkOffsets(offsets);
        checkArgScan(in, out, offsets);
        run(() -> backend.segmentedArgExtremeScanByOffsets(in, offsets, max, true, out), in, offsets, out);
    }

    /**
     * As {@link #segmentedArgExtremeScan(DeviceArray, LongArray, LongArray, boolean)}, exclusive: -1 at
     * every segment's first element.
     */
    public synchronized void segmentedExclusiveArgExtremeScan(DeviceArray in, LongArray offsets, LongArray out, boolean max) {
        checkOffsets(offsets);
        checkArgScan(in, out, offsets);
        run(() -> backend.segmentedArgExtremeScanByOffsets(in, offsets, max, false, out), in, offsets, out);
    }

    /**
     * out[i] = in[0] op ... op in[i] with a user-defined operator (compiled at run time on the GPU;
     * see {@link CustomOp}). {@code in} and {@code out} have the operator's type and the same length;
     * {@code out} may be {@code in}. The operator must be associative; it need not be commutative.
     */
    public synchronized void inclusiveScan(DeviceArray in, DeviceArray out, CustomOp op) {
        checkScanCustom(in, out, op);
        run(() -> backend.scanCustom(in, out, op, true, op.identityBits()), in, out);
    }

    /** out[0] = the operator's identity, out[i] = in[0] op ... op in[i-1]; as {@link #inclusiveScan(DeviceArray, DeviceArray, CustomOp)}. */
    public synchronized void exclusiveScan(DeviceArray in, DeviceArray out, CustomOp op) {
        checkScanCustom(in, out, op);
        run(() -> backend.scanCustom(in, out, op, false, op.identityBits()), in, out);
    }

    /** out[0] = init, out[i] = init op in[0] op ... op in[i-1]; for int8/int32/int64 operators. */
    public synchronized void exclusiveScan(DeviceArray in, DeviceArray out, CustomOp op, long init) {
        checkScanCustom(in, out, op);
        run(() -> backend.scanCustom(in, out, op, false, Reductions.integralInitBits(op.type(), init, "init")), in, out);
    }

    /** out[0] = init, out[i] = init op in[0] op ... op in[i-1]; for float32/float64 operators. */
    public synchronized void exclusiveScan(DeviceArray in, DeviceArray out, CustomOp op, double init) {
        checkScanCustom(in, out, op);
        run(() -> backend.scanCustom(in, out, op, false, Reductions.floatingInitBits(op.type(), init, "init")), in, out);
    }

    /**
     * Inclusive scan restarting at every element whose head flag is non-zero (and at element 0).
     * {@code out} has the input's type, or int64 for an int8 or int32 SUM, as for
     * {@link #inclusiveScan(DeviceArray, DeviceArray, Op)}.
     */
    public synchronized void segmentedInclusiveScan(DeviceArray in, ByteArray headFlags, DeviceArray out, Op op) {
        checkFlagScan(in, headFlags, out, op);
        run(() -> backend.segmentedScanByFlags(in, headFlags, out, op, true, Reductions.identityBits(out.dtype(), op)),
                in, headFlags, out);
    }

    /**
     * Exclusive scan of each segment, segments starting at every non-zero head flag (and at element
     * 0): out[i] = init at a segment's first element, then init op in[first] op ... op in[i-1].
     * For integer outputs.
     */
    public synchronized void segmentedExclusiveScan(DeviceArray in, ByteArray headFlags, DeviceArray out, Op op, long init) {
        checkFlagScan(in, headFlags, out, op);
        run(() -> backend.segmentedScanByFlags(in, headFlags, out, op, false, Reductions.integralInitBits(out.dtype(), init, "init")),
                in, headFlags, out);
    }

    /** As {@link #segmentedExclusiveScan(DeviceArray, ByteArray, DeviceArray, Op, long)}, for float32/float64 outputs. */
    public synchronized void segmentedExclusiveScan(DeviceArray in, ByteArray headFlags, DeviceArray out, Op op, double init) {
        checkFlagScan(in, headFlags, out, op);
        run(() -> backend.segmentedScanByFlags(in, headFlags, out, op, false, Reductions.floatingInitBits(out.dtype(), init, "init")),
                in, headFlags, out);
    }

    /**
     * Inclusive scan of each segment [offsets[i], offsets[i+1]); elements of {@code out} outside
     * [offsets[0], offsets[last]) are left as they were. {@code out} has the input's type, or int64
     * for an int8 or int32 SUM.
     */
    public synchronized void segmentedInclusiveScan(DeviceArray in, LongArray offsets, DeviceArray out, Op op) {
        checkOffsetScan(in, offsets, out, op);
        run(() -> backend.segmentedScanByOffsets(in, offsets, out, op, true, Reductions.identityBits(out.dtype(), op)),
                in, offsets, out);
    }

    /**
     * Exclusive scan of each segment [offsets[i], offsets[i+1]): out[offsets[i]] = init, then
     * init op in[offsets[i]] op ... op in[j-1]; for integer outputs. Elements of {@code out} outside
     * [offsets[0], offsets[last]) are left as they were.
     */
    public synchronized void segmentedExclusiveScan(DeviceArray in, LongArray offsets, DeviceArray out, Op op, long init) {
        checkOffsetScan(in, offsets, out, op);
        run(() -> backend.segmentedScanByOffsets(in, offsets, out, op, false, Reductions.integralInitBits(out.dtype(), init, "init")),
                in, offsets, out);
    }

    /** As {@link #segmentedExclusiveScan(DeviceArray, LongArray, DeviceArray, Op, long)}, for float32/float64 outputs. */
    public synchronized void segmentedExclusiveScan(DeviceArray in, LongArray offsets, DeviceArray out, Op op, double init) {
        checkOffsetScan(in, offsets, out, op);
        run(() -> backend.segmentedScanByOffsets(in, offsets, out, op, false, Reductions.floatingInitBits(out.dtype(), init, "init")),
                in, offsets, out);
    }

    /**
     * Inclusive scan with a user-defined operator (see {@link CustomOp}), restarting at every element
     * whose head flag is non-zero (and at element 0). {@code in} and {@code out} have the operator's
     * type; operand order is kept, so the operator need not be commutative.
     */
    public synchronized void segmentedInclusiveScan(DeviceArray in, ByteArray headFlags, DeviceArray out, CustomOp op) {
        checkFlagScanCustom(in, headFlags, out, op);
        run(() -> backend.segmentedScanCustomByFlags(in, headFlags, out, op, true, op.identityBits()), in, headFlags, out);
    }

    /** Exclusive scan of each flagged segment with a user-defined operator, each segment starting from its identity. */
    public synchronized void segmentedExclusiveScan(DeviceArray in, ByteArray headFlags, DeviceArray out, CustomOp op) {
        checkFlagScanCustom(in, headFlags, out, op);
        run(() -> backend.segmentedScanCustomByFlags(in, headFlags, out, op, false, op.identityBits()), in, headFlags, out);
    }

    /** As {@link #segmentedExclusiveScan(DeviceArray, ByteArray, DeviceArray, CustomOp)}, each segment starting from init; int8/int32/int64 operators. */
    public synchronized void segmentedExclusiveScan(DeviceArray in, ByteArray headFlags, DeviceArray out, CustomOp op, long init) {
        checkFlagScanCustom(in, headFlags, out, op);
        run(() -> backend.segmentedScanCustomByFlags(in, headFlags, out, op, false, Reductions.integralInitBits(op.type(), init, "init")),
                in, headFlags, out);
    }

    /** As {@link #segmentedExclusiveScan(DeviceArray, ByteArray, DeviceArray, CustomOp)}, each segment starting from init; float32/float64 operators. */
    public synchronized void segmentedExclusiveScan(DeviceArray in, ByteArray headFlags, DeviceArray out, CustomOp op, double init) {
        checkFlagScanCustom(in, headFlags, out, op);
        run(() -> backend.segmentedScanCustomByFlags(in, headFlags, out, op, false, Reductions.floatingInitBits(op.type(), init, "init")),
                in, headFlags, out);
    }

    /**
     * Inclusive scan of each segment [offsets[i], offsets[i+1]) with a user-defined operator;
     * elements of {@code out} outside [offsets[0], offsets[last]) are left as they were.
     */
    public synchronized void segmentedInclusiveScan(DeviceArray in, LongArray offsets, DeviceArray out, CustomOp op) {
        checkOffsetScanCustom(in, offsets, out, op);
        run(() -> backend.segmentedScanCustomByOffsets(in, offsets, out, op, true, op.identityBits()), in, offsets, out);
    }

    /** Exclusive scan of each segment by offsets with a user-defined operator, each segment starting from its identity. */
    public synchronized void segmentedExclusiveScan(DeviceArray in, LongArray offsets, DeviceArray out, CustomOp op) {
        checkOffsetScanCustom(in, offsets, out, op);
        run(() -> backend.segmentedScanCustomByOffsets(in, offsets, out, op, false, op.identityBits()), in, offsets, out);
    }

    /** As {@link #segmentedExclusiveScan(DeviceArray, LongArray, DeviceArray, CustomOp)}, each segment starting from init; int8/int32/int64 operators. */
    public synchronized void segmentedExclusiveScan(DeviceArray in, LongArray offsets, DeviceArray out, CustomOp op, long init) {
        checkOffsetScanCustom(in, offsets, out, op);
        run(() -> backend.segmentedScanCustomByOffsets(in, offsets, out, op, false, Reductions.integralInitBits(op.type(), init, "init")),
                in, offsets, out);
    }

    /** As {@link #segmentedExclusiveScan(DeviceArray, LongArray, DeviceArray, CustomOp)}, each segment starting from init; float32/float64 operators. */
    public synchronized void segmentedExclusiveScan(DeviceArray in, LongArray offsets, DeviceArray out, CustomOp op, double init) {
        checkOffsetScanCustom(in, offsets, out, op);
        run(() -> backend.segmentedScanCustomByOffsets(in, offsets, out, op, false, Reductions.floatingInitBits(op.type(), init, "init")),
                in, offsets, out);
    }

    /**
     * Makes this Primer unusable (IllegalStateException from then on); idempotent. Its arrays stay
     * as they are: each is closed on its own ({@link DeviceArray#close}).
     */
    @Override
    public synchronized void close() {
        if (closed) return;
        closed = true;
        backend.close();
    }

    private void requireOpen() {
        if (closed) throw new IllegalStateException("this Primer is closed");
    }

    @Override
    public String toString() { return "Primer[" + backend.description() + "]"; }

    // ---------------------------------------------------------------- argument checks

    private <A extends DeviceArray> A own(A a, String name) {
        requireOpen();
        Objects.requireNonNull(a, name);
        a.requireOpen(name);
        if (a.backendImpl() != backend) {
            throw new IllegalArgumentException(name + " belongs to another Primer (" + a.backend() + "); copy it over first");
        }
        return a;
    }

    private DeviceArray checkReduce(DeviceArray a, Op op) { return checkReduce(a, op, "array"); }

    private DeviceArray checkReduce(DeviceArray a, Op op, String name) {
        own(a, name);
        Objects.requireNonNull(op, "op");
        op.requireSupports(a.dtype(), "op");
        return a;
    }

    private DeviceArray checkCustom(DeviceArray a, CustomOp op) { return checkCustom(a, op, "array"); }

    private DeviceArray checkCustom(DeviceArray a, CustomOp op, String name) {
        own(a, name);
        Objects.requireNonNull(op, "op");
        if (op.type() != a.dtype()) throw new IllegalArgumentException("op: " + op + " is defined on " + op.type() + ", " + name + " is " + a.dtype());
        return a;
    }

    private DeviceArray checkArg(DeviceArray a) {
        own(a, "array");
        return a;
    }

    private void checkRows(DeviceArray matrix, long rows, long cols, Op op) {
        checkReduce(matrix, op, "matrix");
        checkRowShape(matrix, rows, cols);
    }

    private static void checkRowShape(DeviceArray matrix, long rows, long cols) {
        if (rows < 0) throw new IllegalArgumentException("rows must be >= 0: " + rows);
        if (cols < 0) throw new IllegalArgumentException("cols must be >= 0: " + cols);
        if (Math.multiplyHigh(rows, cols) != 0 || rows * cols != matrix.length()) {
            throw new IllegalArgumentException("rows × cols = " + rows + " × " + cols + " does not match the matrix length " + matrix.length());
        }
    }

    private long checkSegments(DeviceArray values, LongArray offsets, Op op) { return checkSegments(values, offsets, op, "values"); }

    private long checkSegments(DeviceArray values, LongArray offsets, Op op, String valuesName) {
        checkReduce(values, op, valuesName);
        return checkOffsets(offsets);
    }

    private long checkOffsets(LongArray offsets) {
        own(offsets, "offsets");
        if (offsets.length() < 1) throw new IllegalArgumentException("offsets needs at least one element (segments + 1)");
        return offsets.length() - 1;
    }

    /**
     * {@code out} of the into-variants: this backend's and open, of the results' {@code type}, one
     * element per result, overlapping neither input ({@code offsets} may be null).
     */
    private void checkResults(DeviceArray out, DType type, long count, String results, DeviceArray input, String inputName,
                              LongArray offsets) {
        own(out, "out");
        if (out.dtype() != type) {
            throw new IllegalArgumentException("out is " + out.dtype() + "; the results of " + results + " are " + type);
        }
        if (out.length() != count) {
            throw new IllegalArgumentException("out has " + out.length() + " elements for " + count + " results");
        }
        if (out.overlaps(input)) throw new IllegalArgumentException("out overlaps " + inputName);
        if (offsets != null && out.overlaps(offsets)) throw new IllegalArgumentException("out overlaps offsets");
    }

    private void checkScan(DeviceArray in, DeviceArray out, Op op) {
        checkReduce(in, op, "in");
        own(out, "out");
        if (out.length() != in.length()) throw new IllegalArgumentException("out has " + out.length() + " elements, in has " + in.length());
        boolean widening = (in.dtype() == DType.INT || in.dtype() == DType.BYTE) && out.dtype() == DType.LONG && op == Op.SUM;
        if (out.dtype() != in.dtype() && !widening) {
            throw new IllegalArgumentException("out is " + out.dtype() + " but in is " + in.dtype()
                    + " (out must match in, or be int64 for an int8 or int32 SUM)");
        }
    }

    /** A running argmin/argmax writes int64 indices, one per input element, into an out apart from in. */
    private void checkArgScan(DeviceArray in, LongArray out) { checkArgScan(in, out, null); }

    /** As {@link #checkArgScan(DeviceArray, LongArray)}, out also apart from {@code offsets} (may be null). */
    private void checkArgScan(DeviceArray in, LongArray out, LongArray offsets) {
        own(in, "in");
        checkResults(out, DType.LONG, in.length(), "a running argmin/argmax of " + in.length() + " elements", in, "in", offsets);
    }

    private void checkFlagScan(DeviceArray in, ByteArray headFlags, DeviceArray out, Op op) {
        checkScan(in, out, op);
        checkHeadFlags(in, headFlags, out);
    }

    private void checkHeadFlags(DeviceArray in, ByteArray headFlags, DeviceArray out) {
        own(headFlags, "headFlags");
        if (headFlags.length() != in.length()) {
            throw new IllegalArgumentException("headFlags has " + headFlags.length() + " elements, in has " + in.length());
        }
        if (out.overlaps(headFlags)) throw new IllegalArgumentException("headFlags: overlaps out");
    }

    private void checkOffsetScan(DeviceArray in, LongArray offsets, DeviceArray out, Op op) {
        checkScan(in, out, op);
        checkSegments(in, offsets, op, "in");
        if (out.overlaps(offsets)) throw new IllegalArgumentException("offsets: overlaps out");
    }

    private void checkFlagScanCustom(DeviceArray in, ByteArray headFlags, DeviceArray out, CustomOp op) {
        checkScanCustom(in, out, op);
        checkHeadFlags(in, headFlags, out);
    }

    private void checkOffsetScanCustom(DeviceArray in, LongArray offsets, DeviceArray out, CustomOp op) {
        checkScanCustom(in, out, op);
        checkOffsets(offsets);
        if (out.overlaps(offsets)) throw new IllegalArgumentException("offsets: overlaps out");
    }

    private void checkScanCustom(DeviceArray in, DeviceArray out, CustomOp op) {
        own(in, "in");
        own(out, "out");
        Objects.requireNonNull(op, "op");
        if (in.dtype() != op.type()) {
            throw new IllegalArgumentException("in is " + in.dtype() + " but op " + op + " is defined on " + op.type());
        }
        if (out.dtype() != op.type()) {
            throw new IllegalArgumentException("out is " + out.dtype() + " but op " + op + " is defined on " + op.type());
        }
        if (out.length() != in.length()) throw new IllegalArgumentException("out has " + out.length() + " elements, in has " + in.length());
    }

    /** Fills a new array, or closes it when the filling fails; as {@link #run} for the inputs. */
    private static <A extends DeviceArray> A fillOrClose(A out, Runnable fill, DeviceArray... inputs) {
        try {
            run(fill, inputs);
            return out;
        } catch (RuntimeException e) {
            closeAfter(e, out);
            throw e;
        }
    }

    /** Closes an array a failure leaves unused; after a failed launch freeing may fail too, and e is the error to see. */
    private static void closeAfter(RuntimeException e, DeviceArray array) {
        try {
            array.close();
        } catch (RuntimeException c) {
            e.addSuppressed(c);
        }
    }

    // ---------------------------------------------------------------- reachability

    /*
     * A call's arrays must stay reachable until it has issued its work: a backend takes their memory
     * as a raw address or segment, after which the JIT may treat an array the caller no longer uses
     * (primer.sum(primer.upload(x))) as unreachable, and its Cleaner could free the memory before
     * the launch reads it. The fences below hold them to the end of the call.
     */

    private static void run(Runnable call, DeviceArray... arrays) {
        try {
            call.run();
        } finally {
            Reference.reachabilityFence(arrays);
        }
    }

    private static long runForLong(LongSupplier call, DeviceArray... arrays) {
        try {
            return call.getAsLong();
        } finally {
            Reference.reachabilityFence(arrays);
        }
    }

    private static double runForDouble(DoubleSupplier call, DeviceArray... arrays) {
        try {
            return call.getAsDouble();
        } finally {
            Reference.reachabilityFence(arrays);
        }
    }
}
