package dev.primer.gpu;

import dev.primer.DType;
import dev.primer.Op;
import dev.primer.Reductions;
import dev.primer.cuda.CudaContext;
import dev.primer.cuda.CudaKernel;

import java.lang.foreign.MemorySegment;
import java.math.BigInteger;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Device-wide reduce on the GPU: one kernel launch for every size (module {@code reduce}, kernels
 * {@code reduce_<op>_<suffix>}; see {@code device/reduce.cu}). Grid sizing is {@link ReducePolicy}.
 *
 * <p>Accumulators, shared with the CPU backend: BYTE/INT SUM and PROD and LONG PROD in 64 bits
 * (PROD wraps as Java's long multiplication does); LONG SUM exactly in 128 bits, and the
 * synchronous call throws ArithmeticException when the sum does not fit a long; INT SUM of more than
 * 2^32 elements runs as one launch per chunk of at most 2^32 (a chunk's 64-bit sum is always exact),
 * the chunk sums added in 128 bits, and the synchronous call throws ArithmeticException when the total
 * does not fit a long (BYTE SUM would need more than 2^56 elements to leave 64 bits); FLOAT SUM/PROD in
 * double; MIN/MAX as Math.min/Math.max (NaN wins, -0.0 &lt; 0.0); ARGMIN/ARGMAX the first index of
 * the extreme, NaN counting as the extreme, -1 when empty. Float results are bitwise identical run
 * to run (fixed reduction order, no float atomics).
 *
 * <p>Device pointers must be aligned to the element size; any 16-byte misalignment (a slice
 * starting anywhere) is handled by the kernel.
 *
 * <p>Result layout written by {@link #reduceInto} / {@link #argExtremeInto} ({@link #resultBytes}):
 * <ul>
 *   <li>integer types: one {@code long long} (MIN/MAX/AND/OR/XOR widened from the element type),
 *       except LONG SUM: 16 bytes, the exact 128-bit two's-complement sum, low 64 bits first;</li>
 *   <li>FLOAT/DOUBLE: one {@code double} (MIN/MAX: the element widened, exactly);</li>
 *   <li>ARGMIN/ARGMAX: {@code {T key; long long index}}: 16 bytes, the key at byte 0, the index at byte 8.</li>
 * </ul>
 *
 * <p>The synchronous calls have the kernel write its result straight into a small pinned host buffer
 * (pinned memory is addressable from the device under unified addressing), so a call is one launch
 * (INT SUM beyond 2^32 elements: one per chunk) and no copy command; the host spins on that buffer
 * until the result lands rather than waiting in cuStreamSynchronize, which returns later. Synchronous
 * calls on one context are serialised by a lock around that buffer.
 */
public final class GpuReduce {
    private GpuReduce() {}

    static final String MODULE = "reduce";
    private static final String SCRATCH_OWNER = "reduce";
    /** Bytes of an ARGMIN/ARGMAX result: {@code {T key; long long index}}. */
    public static final int ARG_RESULT_BYTES = 16;
    private static final int ARG_INDEX_OFFSET = 8;
    private static final int ARG_MIN = Op.values().length, ARG_MAX = ARG_MIN + 1, KINDS = ARG_MAX + 1;
    /** Stored over the pinned result before a synchronous launch (a NaN payload no sum produces). */
    private static final long RESULT_POISON = 0x7FF4_DEAD_5EED_1234L;
    /** INT SUM of more elements than this runs as one launch per chunk of at most this many (each exact). */
    static final long INT_SUM_CHUNK = Reductions.INT_SUM_EXACT_ELEMENTS;

    // ---- synchronous: launch, wait, return the value ----

    /**
     * Reduces {@code n} elements of BYTE, INT or LONG at device pointer {@code in}.
     * SUM and PROD accumulate in 64 bits (LONG SUM exactly in 128; INT SUM of more than 2^32
     * elements chunk by chunk, the chunk sums added exactly); MIN/MAX/AND/OR/XOR return the element
     * value widened. An empty input gives the operator's identity.
     *
     * @throws ArithmeticException for LONG SUM and INT SUM when the exact sum does not fit a long
     */
    public static long reduceIntegral(CudaContext ctx, DType type, Op op, long in, long n) {
        checkInput(ctx, type, in, n);
        if (op == null) throw new IllegalArgumentException("op must not be null");
        if (type.isFloatingPoint()) {
            throw new IllegalArgumentException("type: reduceIntegral takes int8, int32 or int64, not " + type
                    + " (use reduceFloating)");
        }
        op.requireSupports(type, "op");
        Kernels k = kernels(ctx);
        synchronized (k) {
            if (type == DType.INT && op == Op.SUM && n > INT_SUM_CHUNK) return intSumInChunks(ctx, k, in, n);
            MemorySegment r = k.runSync(ctx, type, op.ordinal(), in, n);
            long low = r.get(JAVA_LONG, 0);
            if (type == DType.LONG && op == Op.SUM) {
                long high = r.get(JAVA_LONG, 8);
                if (high != (low >> 63)) {
                    BigInteger exact = BigInteger.valueOf(high).shiftLeft(64).add(new BigInteger(Long.toUnsignedString(low)));
                    throw new ArithmeticException("long sum overflows: the exact sum of the " + n
                            + " elements is " + exact + ", outside the range of long");
                }
            }
            return low;
        }
    }

    /**
     * INT SUM of more than {@link #INT_SUM_CHUNK} elements: one synchronous launch per chunk of at
     * most that many (each chunk's sum exact), combined by {@link Reductions#combineIntSums}. The caller
     * holds {@code k}'s lock.
     */
    private static long intSumInChunks(CudaContext ctx, Kernels k, long in, long n) {
        long[] chunkSums = new long[Math.toIntExact((n + INT_SUM_CHUNK - 1) / INT_SUM_CHUNK)];
        for (int c = 0; c < chunkSums.length; c++) {
            long from = c * INT_SUM_CHUNK;
            long count = Math.min(INT_SUM_CHUNK, n - from);
            chunkSums[c] = k.runSync(ctx, DType.INT, Op.SUM.ordinal(), in + from * Integer.BYTES, count).get(JAVA_LONG, 0);
        }
        return Reductions.combineIntSums(chunkSums, n);
    }

    /**
     * Reduces {@code n} elements of FLOAT or DOUBLE at device pointer {@code in}. FLOAT SUM and PROD
     * accumulate in double and return that double (callers round to float if they want);
     * MIN/MAX return the element value widened. An empty input gives the operator's identity. A NaN
     * result is {@link Double#NaN} (the device's sums and products give NaNs of other bits).
     */
    public static double reduceFloating(CudaContext ctx, DType type, Op op, long in, long n) {
        checkInput(ctx, type, in, n);
        if (op == null) throw new IllegalArgumentException("op must not be null");
        if (!type.isFloatingPoint()) {
            throw new IllegalArgumentException("type: reduceFloating takes float32 or float64, not " + type
                    + " (use reduceIntegral)");
        }
        op.requireSupports(type, "op");
        Kernels k = kernels(ctx);
        synchronized (k) {
            double r = k.runSync(ctx, type, op.ordinal(), in, n).get(JAVA_DOUBLE, 0);
            return Double.isNaN(r) ? Double.NaN : r;
        }
    }

    /** Index of the first maximum ({@code max}) or minimum, NaN counting as the extreme; -1 when n == 0. */
    public static long argExtreme(CudaContext ctx, DType type, boolean max, long in, long n) {
        checkInput(ctx, type, in, n);
        Kernels k = kernels(ctx);
        synchronized (k) {
            return k.runSync(ctx, type, max ? ARG_MAX : ARG_MIN, in, n).get(JAVA_LONG, ARG_INDEX_OFFSET);
        }
    }

    // ---- asynchronous: launch only, result stays on the device ----

    /**
     * Launches the reduce of {@code n} elements at {@code in} with its result written to device
     * memory at {@code resultPtr} ({@link #resultBytes} bytes, layout in the class comment), ordered
     * on the context's stream; returns without waiting. No overflow check happens for LONG SUM:
     * the 128-bit sum is what is written. INT SUM runs as one launch here at any length: beyond 2^32
     * elements the 64-bit result is the exact sum modulo 2^64 (use {@link #reduceIntegral} for a
     * checked sum).
     */
    public static void reduceInto(CudaContext ctx, DType type, Op op, long in, long n, long resultPtr) {
        checkInput(ctx, type, in, n);
        if (op == null) throw new IllegalArgumentException("op must not be null");
        op.requireSupports(type, "op");
        checkResult(resultPtr, resultBytes(type, op));
        kernels(ctx).launch(ctx, type, op.ordinal(), in, n, resultPtr);
    }

    /** {@link #reduceInto} for ARGMIN ({@code max == false}) / ARGMAX: writes {@link #ARG_RESULT_BYTES} bytes. */
    public static void argExtremeInto(CudaContext ctx, DType type, boolean max, long in, long n, long resultPtr) {
        checkInput(ctx, type, in, n);
        checkResult(resultPtr, ARG_RESULT_BYTES);
        kernels(ctx).launch(ctx, type, max ? ARG_MAX : ARG_MIN, in, n, resultPtr);
    }

    /** Bytes {@link #reduceInto} writes at its result pointer: 16 for LONG SUM, else 8. */
    public static long resultBytes(DType type, Op op) {
        if (type == null) throw new IllegalArgumentException("type must not be null");
        if (op == null) throw new IllegalArgumentException("op must not be null");
        op.requireSupports(type, "op");
        return type == DType.LONG && op == Op.SUM ? 16 : 8;
    }

    /** The kernel's name for an operator and type, e.g. {@code reduce_sum_f32}. */
    public static String kernelName(Op op, DType type) {
        return "reduce_" + op.name().toLowerCase(Locale.ROOT) + "_" + type.kernelSuffix();
    }

    // ---- argument checks ----

    private static void checkInput(CudaContext ctx, DType type, long in, long n) {
        if (ctx == null) throw new IllegalArgumentException("ctx must not be null");
        if (type == null) throw new IllegalArgumentException("type must not be null");
        if (n < 0) throw new IllegalArgumentException("n must be >= 0: " + n);
        if (n > 0 && in == 0) throw new IllegalArgumentException("in: null device pointer for " + n + " elements");
        if (in % type.byteSize() != 0) {
            throw new IllegalArgumentException("in: device pointer 0x" + Long.toHexString(in)
                    + " is not aligned to the " + type.byteSize() + "-byte elements of " + type);
        }
    }

    private static void checkResult(long resultPtr, long bytes) {
        if (resultPtr == 0) throw new IllegalArgumentException("resultPtr: null device pointer");
        long align = Math.min(bytes, 16);
        if (resultPtr % align != 0) {
            throw new IllegalArgumentException("resultPtr: device pointer 0x" + Long.toHexString(resultPtr)
                    + " is not aligned to " + align + " bytes");
        }
    }

    // ---- per-context state: kernels, their occupancy, scratch, the pinned result buffer ----

    private static final Map<CudaContext, Kernels> KERNELS = new ConcurrentHashMap<>();

    private static Kernels kernels(CudaContext ctx) {
        Kernels k = KERNELS.get(ctx);
        return k != null ? k : KERNELS.computeIfAbsent(ctx, Kernels::new);
    }

    /** A kernel with its occupancy; immutable, so it is safely shared between threads. */
    private record Entry(CudaKernel kernel, int blocksPerSm) {}

    private static final class Kernels {
        private final CudaContext ctx;
        private final int multiprocessors;
        private final Entry[][] entries = new Entry[DType.values().length][KINDS];
        private volatile long scratch;
        /** Pinned, device-addressable (unified addressing): synchronous results land here. */
        private MemorySegment hostResult;

        Kernels(CudaContext ctx) {
            this.ctx = ctx;
            this.multiprocessors = ctx.device().multiprocessorCount();
        }

        private Entry entry(DType type, int kind) {
            Entry e = entries[type.ordinal()][kind];
            if (e == null) {  // a race only looks the same kernel up twice
                String name = kind == ARG_MIN ? "reduce_argmin_" + type.kernelSuffix()
                        : kind == ARG_MAX ? "reduce_argmax_" + type.kernelSuffix()
                        : kernelName(Op.values()[kind], type);
                CudaKernel k = ctx.module(MODULE).kernel(name);
                e = new Entry(k, Math.max(1, k.maxActiveBlocksPerSm(ReducePolicy.BLOCK_THREADS, 0)));
                entries[type.ordinal()][kind] = e;
            }
            return e;
        }

        private long scratch() {
            long s = scratch;
            if (s == 0) {
                s = ctx.scratch(SCRATCH_OWNER, ReducePolicy.scratchBytes(ctx.device()));
                scratch = s;
            }
            return s;
        }

        void launch(CudaContext ctx, DType type, int kind, long in, long n, long resultPtr) {
            Entry e = entry(type, kind);
            int grid = ReducePolicy.gridSize(n, type, multiprocessors, e.blocksPerSm());
            long scratchPtr = grid > 1 ? scratch() : 0L;  // one block writes the result directly
            e.kernel().launch(grid, ReducePolicy.BLOCK_THREADS, 0, in, n, resultPtr, scratchPtr);
        }

        /**
         * Launch into the pinned result buffer, poisoned first, and spin until the result lands
         * there (CudaContext.awaitPinnedResult). The caller holds this object's lock.
         */
        MemorySegment runSync(CudaContext ctx, DType type, int kind, long in, long n) {
            if (hostResult == null) hostResult = ctx.allocatePinned(64);
            int words = kind >= ARG_MIN || (type == DType.LONG && kind == Op.SUM.ordinal()) ? 2 : 1;
            for (int w = 0; w < words; w++) hostResult.set(JAVA_LONG, 8L * w, RESULT_POISON);
            launch(ctx, type, kind, in, n, hostResult.address());
            ctx.awaitPinnedResult(hostResult, words, RESULT_POISON);
            return hostResult;
        }
    }
}
