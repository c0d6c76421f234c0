package dev.primer.cpu;

import dev.primer.DType;
import dev.primer.Op;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Prefix scans on the CPU: the reference the GPU backend must equal.
 *
 * <p><b>Definition.</b> Inclusive: {@code out[i] = init op x_0 op ... op x_i}; exclusive:
 * {@code out[0] = init}, {@code out[i] = init op x_0 op ... op x_(i-1)}. {@code initBits} holds the raw
 * bits of the output type's initial value (a float's in the low 32 bits; an int's value). The output
 * type is the input's, or int64 for an int8/int32 SUM. Integers wrap as Java's arithmetic in the
 * output type; MIN/MAX follow Math.min/Math.max. {@code out} may be {@code in} itself (same elements),
 * or memory apart from it.
 *
 * <p><b>Algorithm and float order.</b> Two passes over chunks of {@value Parallel#CHUNK} elements,
 * chunks in parallel on fork/join, a cache-sized window of chunks at a time: (1) each chunk's local
 * total, (2) after the carries are chained in order ({@code C_0 = init}, {@code C_(c+1) = C_c op T_c}), each chunk rescanned as
 * {@code out[i] = C_c op L_i}, where {@code L} is the chunk's own scan from the identity, formed in
 * vector registers: in blocks of two vectors of {@code B} lanes (8 for float32, 4 for float64) each
 * vector's prefix takes log2(B) lane-shift steps, the second vector adds the first's last lane, and a
 * running total {@code R} adds block by block: {@code L = R_b op P_j} (see {@link FloatBlockScan}). Float results therefore round differently from a sequential loop, but they are
 * fixed: the same on any thread count and on every run. Exclusive outputs equal the inclusive output of
 * the previous element bit for bit.
 *
 * <p><b>Error bound (float SUM).</b> Element {@code x_j} reaches {@code out[i]} through at most
 * {@code d(i) = log2(B) + 2^15/B + 3 + floor(i / 2^16)} roundings in the element type
 * ({@link #roundings}), so {@code |out[i] - exact_i| <= gamma(d) * (|init| + sum_(j<=i) |x_j|)} with
 * {@code gamma(d) = d u / (1 - d u)}, {@code u = 2^-24} (float32) or {@code 2^-53} (float64). For PROD the
 * same {@code gamma(d)} bounds the relative error. A GPU scan with its own depth {@code d'} agrees with
 * this one within {@code gamma(d + d')} of that sum.
 *
 * <p><b>Segmented scans.</b> By offsets: every segment is scanned exactly as {@link #scan} scans an
 * array of its own (chunks aligned at the segment's start), with {@code init} at its start; elements
 * outside every segment are left as they are. By head flags: see {@link FlagSegmentScan} for the
 * order (sequential within a chunk).
 */
public final class CpuScan {
    private CpuScan() {}

    /**
     * Scans {@code n} elements of {@code in} (type {@code inType}) into {@code out} (type
     * {@code outType}: {@code inType}, or LONG for an int8/int32 SUM).
     */
    public static void scan(DType inType, DType outType, Op op, boolean inclusive, long initBits,
                            MemorySegment in, MemorySegment out, long n) {
        Checks.nonNull(inType, "inType");
        Checks.nonNull(outType, "outType");
        Checks.nonNull(op, "op");
        op.requireSupports(inType, "op");
        boolean widened = outType == DType.LONG && (inType == DType.INT || inType == DType.BYTE);
        if (outType != inType && !(widened && op == Op.SUM)) {
            throw new IllegalArgumentException("outType: a scan of " + inType + " with " + op + " writes "
                    + inType + (inType == DType.INT || inType == DType.BYTE ? " (or int64 for SUM)" : "")
                    + ", not " + outType);
        }
        Checks.nonNegative(n, "n");
        Checks.holds(in, n, inType, "in");
        Checks.holds(out, n, outType, "out");
        Checks.inPlaceOrApart(in, n * inType.byteSize(), out, n * outType.byteSize(), inType == outType);
        run(scanner(inType, outType, op, inclusive), in, out, 0, n, carryBits(outType, initBits));
    }

    /**
     * Segmented scan of {@code n} elements: a segment starts at index 0 and wherever the int8
     * {@code headFlags} is non-zero; {@code init} applies at each segment's start.
     */
    public static void segmentedScanByFlags(DType type, Op op, boolean inclusive, long initBits, MemorySegment in,
                                            MemorySegment headFlags, MemorySegment out, long n) {
        Checks.nonNull(type, "type");
        Checks.nonNull(op, "op");
        op.requireSupports(type, "op");
        Checks.nonNegative(n, "n");
        Checks.holds(in, n, type, "in");
        Checks.holds(headFlags, n, DType.BYTE, "headFlags");
        Checks.holds(out, n, type, "out");
        Checks.inPlaceOrApart(in, n * type.byteSize(), out, n * type.byteSize(), true);
        FlagSegmentScan.scan(type, op, inclusive, carryBits(type, initBits), in, headFlags, out, n);
    }

    /**
     * Segmented scan: segment {@code k < segments} is {@code [offsets[k], offsets[k+1])} (int64
     * offsets, non-decreasing, within the elements of {@code in}); {@code init} applies at each
     * segment's start. {@code out} holds at least {@code offsets[segments]} elements.
     */
    public static void segmentedScanByOffsets(DType type, Op op, boolean inclusive, long initBits, MemorySegment in,
                                              MemorySegment offsets, long segments, MemorySegment out) {
        Checks.nonNull(type, "type");
        Checks.nonNull(op, "op");
        op.requireSupports(type, "op");
        Checks.offsets(offsets, segments, Checks.elements(in, type, "in"), "in");
        long end = offsets.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, segments);
        Checks.holds(out, end, type, "out");
        Checks.inPlaceOrApart(in, end * type.byteSize(), out, end * type.byteSize(), true);
        ChunkScanner scanner = scanner(type, type, op, inclusive);
        long carry = carryBits(type, initBits);
        Parallel.forWeightedRange(segments, k -> offsets.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, k), (lo, hi) -> {
            for (long k = lo; k < hi; k++) {
                run(scanner, in, out, offsets.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, k),
                        offsets.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, k + 1), carry);
            }
        });
    }

    /**
     * The most roundings on a path from an element to {@code out[index]} of a float32/float64 SUM or
     * PROD scan (see the class comment's error bound).
     */
    public static long roundings(DType type, long index) {
        int lanes = type == DType.DOUBLE ? 4 : 8;
        return Integer.numberOfTrailingZeros(lanes) + Parallel.CHUNK / (2 * lanes) + 3 + index / Parallel.CHUNK;
    }

    /**
     * Scan of {@code [from, to)}, chunks aligned at {@code from}, as a chained scan that reads memory
     * once: workers claim chunks in index order; a worker reduces its chunk to the local total
     * {@code T_c} (reading it into its cache), waits until the carry {@code C_c} is published, publishes
     * {@code C_(c+1) = C_c op T_c} and then scans the chunk from its cache as {@code C_c op L_i}. The
     * carries chain in index order whatever thread does what, so the arithmetic (and every float bit) is
     * the same as a sequential two-pass scan's. Claiming in order makes the wait safe: the chunk before
     * is always held by a running worker, which publishes right after its reduce.
     */
    private static void run(ChunkScanner scanner, MemorySegment in, MemorySegment out, long from, long to, long init) {
        long n = to - from;
        // Integer scans are exact in any order, so they may chain pieces smaller than a chunk: small
        // arrays then use every thread too.
        long piece = scanner.splits() ? Math.clamp(n / (4L * Parallel.threads()) & ~63L, MIN_PIECE, Parallel.CHUNK) : Parallel.CHUNK;
        long pieces = (n + piece - 1) / piece;
        if (pieces == 0) return;
        if (pieces == 1) {
            scanner.scan(in, out, from, to, init);
            return;
        }
        new Chain(scanner, in, out, from, to, piece, pieces, init).run();
    }

    /** The smallest piece of an integer scan worth handing to another thread. */
    private static final long MIN_PIECE = 1 << 13;

    /** The shared state of one chained scan (see {@link #run}). */
    private static final class Chain {
        private static final VarHandle READY, FAILED;
        static {
            try {
                MethodHandles.Lookup lookup = MethodHandles.lookup();
                READY = lookup.findVarHandle(Chain.class, "ready", long.class);
                FAILED = lookup.findVarHandle(Chain.class, "failed", boolean.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private final ChunkScanner scanner;
        private final MemorySegment in, out;
        private final long from, to, piece, chunks;
        private final AtomicLong next = new AtomicLong();
        /**
         * The last published carry and its chunk: {@code carry} is {@code C_ready}. Carries publish
         * strictly in order and {@code C_(c+1)} only after {@code C_c} has been read, so the one slot
         * always holds the carry that the single waiting worker needs.
         */
        private long carry;
        @SuppressWarnings("unused") private volatile long ready;
        @SuppressWarnings("unused") private volatile boolean failed;

        Chain(ChunkScanner scanner, MemorySegment in, MemorySegment out, long from, long to, long piece, long chunks, long init) {
            this.piece = piece;
            this.scanner = scanner;
            this.in = in;
            this.out = out;
            this.from = from;
            this.to = to;
            this.chunks = chunks;
            this.carry = init;
        }

        void run() {
            int helpers = (int) Math.min(chunks - 1, Parallel.threads() - 1);
            ForkJoinTask<?>[] tasks = new ForkJoinTask<?>[helpers];
            for (int t = 0; t < helpers; t++) {
                tasks[t] = Parallel.fork(this::work);
            }
            Throwable failure = null;
            try {
                work();
            } catch (Throwable e) {
                failure = e;
            }
            for (ForkJoinTask<?> task : tasks) {
                try {
                    task.join();
                } catch (Throwable e) {
                    if (failure == null) failure = e;
                }
            }
            if (failure instanceof RuntimeException e) throw e;
            if (failure instanceof Error e) throw e;
            if (failure != null) throw new IllegalStateException(failure);
        }

        private void work() {
            try {
                for (long c; (c = next.getAndIncrement()) < chunks; ) {
                    long start = from + c * piece, end = Math.min(to, start + piece);
                    // the last chunk has no successor to carry into
                    long total = c + 1 < chunks ? scanner.total(in, start, end) : 0;
                    long mine = await(c);
                    if (c + 1 < chunks) {
                        carry = scanner.combine(mine, total);
                        READY.setRelease(this, c + 1);
                    }
                    scanner.scan(in, out, start, end, mine);
                }
            } catch (Throwable e) {
                FAILED.setVolatile(this, true);
                throw e;
            }
        }

        /** {@code C_c}, once published. */
        private long await(long c) {
            for (int spins = 0; (long) READY.getAcquire(this) != c; spins++) {
                if ((boolean) FAILED.getVolatile(this)) throw new CancellationException("another chunk failed");
                if (spins < 1 << 12) Thread.onSpinWait(); else Thread.yield();
            }
            return carry;
        }
    }

    private static ChunkScanner scanner(DType inType, DType outType, Op op, boolean inclusive) {
        Class<? extends ChunkScanner> template = switch (inType) {
            case BYTE -> null;
            case INT -> outType == DType.LONG ? IntToLongBlockScan.class : IntBlockScan.class;
            case LONG -> LongBlockScan.class;
            case FLOAT -> FloatBlockScan.class;
            case DOUBLE -> DoubleBlockScan.class;
        };
        if (template == null) return new ByteScan(op, inclusive, outType == DType.LONG);
        return Specialized.instance(template, ChunkScanner.class, op, inclusive);
    }

    /** initBits in the form the scanners carry: integers sign-extended, a float's bits in the low 32. */
    private static long carryBits(DType type, long initBits) {
        return switch (type) {
            case BYTE -> (byte) initBits;
            case INT -> (int) initBits;
            case FLOAT -> initBits & 0xFFFF_FFFFL;
            case LONG, DOUBLE -> initBits;
        };
    }
}
