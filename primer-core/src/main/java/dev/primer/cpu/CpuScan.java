package dev.primer.cpu;

import dev.primer.DType;
import dev.primer.Op;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
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
 * <p><b>Algorithm and float order.</b> Chunks of {@value Parallel#CHUNK} elements, each (1) reduced
 * to its local total {@code T_c}, (2) rescanned as {@code out[i] = C_c op L_i} once its carry is known,
 * the carries chained in order ({@code C_0 = init}, {@code C_(c+1) = C_c op T_c}); threads take chunks
 * in order and rescan each right after reducing it, from their cache (a chained scan with look-back:
 * see {@link #scanRange}), so memory is read once and written once. Here {@code L} is the chunk's own scan from the identity, formed in
 * vector registers: in blocks of two vectors of {@code B} lanes (8 for float32, 4 for float64) each
 * vector's prefix takes log2(B) lane-shift steps, the second vector adds the first's last lane, and a
 * running total {@code R} adds block by block: {@code L = R_b op P_j} (see {@link FloatBlockScan}). Float results therefore round differently from a sequential loop, but they are
 * fixed: the same on any thread count and on every run (but for which NaN comes out where NaNs of
 * different bits meet: the JIT may swap a commutative operation's operands). Exclusive outputs equal
 * the inclusive output of the previous element bit for bit.
 *
 * <p><b>Error bound (float SUM).</b> Element {@code x_j} reaches {@code out[i]} through at most
 * {@code d(i) = log2(B) + 2^15/B + 3 + floor(i / 2^16)} roundings in the element type
 * ({@link #roundings}), so {@code |out[i] - exact_i| <= gamma(d) * (|init| + sum_(j<=i) |x_j|)} with
 * {@code gamma(d) = d u / (1 - d u)}, {@code u = 2^-24} (float32) or {@code 2^-53} (float64). A GPU
 * scan with its own depth {@code d'} agrees with this one within {@code gamma(d + d')} of that sum. PROD
 * is different: every multiplication rounds the whole running product, so its relative error grows
 * like {@code gamma(i + 1)}, with the element count rather than the depth (absent underflow and
 * overflow).
 *
 * <p><b>Segmented scans.</b> Every segment, by offsets or by head flags, is scanned exactly as
 * {@link #scan} scans an array of its own (chunks aligned at the segment's start), with {@code init}
 * at its start: the same segments give the same bits both ways, and the bound above holds with
 * {@code i} counted from the segment's start. By offsets, elements outside every segment are left as
 * they are.
 */
public final class CpuScan {
    private CpuScan() {}

    /**
     * Scans {@code n} elements of {@code in} (type {@code inType}) into {@code out} (type
     * {@code outType}: {@code inType}, or LONG for an int8/int32 SUM).
     */
    public static void scan(DType inType, DType outType, Op op, boolean inclusive, long initBits,
                            MemorySegment in, MemorySegment out, long n) {
        checkTypes(inType, outType, op);
        Checks.nonNegative(n, "n");
        Checks.holds(in, n, inType, "in");
        Checks.holds(out, n, outType, "out");
        boolean inPlace = Checks.inPlaceOrApart(in, n * inType.byteSize(), out, n * outType.byteSize(), inType == outType);
        scanRange(scanner(inType, outType, op, inclusive), in, out, 0, n, carryBits(outType, initBits), inPlace);
    }

    /** {@code outType} is {@code inType}, or LONG for an int8/int32 SUM; {@code op} supports {@code inType}. */
    private static void checkTypes(DType inType, DType outType, Op op) {
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
    }

    /**
     * Segmented scan of {@code n} elements: a segment starts at index 0 and wherever the int8
     * {@code headFlags} is non-zero; {@code init} applies at each segment's start.
     */
    public static void segmentedScanByFlags(DType type, Op op, boolean inclusive, long initBits, MemorySegment in,
                                            MemorySegment headFlags, MemorySegment out, long n) {
        segmentedScanByFlags(type, type, op, inclusive, initBits, in, headFlags, out, n);
    }

    /** As above, into {@code outType}: {@code inType}, or LONG for an int8/int32 SUM (as {@link #scan}). */
    public static void segmentedScanByFlags(DType inType, DType outType, Op op, boolean inclusive, long initBits,
                                            MemorySegment in, MemorySegment headFlags, MemorySegment out, long n) {
        checkTypes(inType, outType, op);
        Checks.nonNegative(n, "n");
        Checks.holds(in, n, inType, "in");
        Checks.holds(headFlags, n, DType.BYTE, "headFlags");
        Checks.holds(out, n, outType, "out");
        boolean inPlace = Checks.inPlaceOrApart(in, n * inType.byteSize(), out, n * outType.byteSize(), inType == outType);
        FlagSegmentScan.scan(scanner(inType, outType, op, inclusive), carryBits(outType, initBits), in, headFlags, out, n,
                inPlace);
    }

    /**
     * Segmented scan: segment {@code k < segments} is {@code [offsets[k], offsets[k+1])} (int64
     * offsets, non-decreasing, within the elements of {@code in}); {@code init} applies at each
     * segment's start. {@code out} holds at least {@code offsets[segments]} elements.
     */
    public static void segmentedScanByOffsets(DType type, Op op, boolean inclusive, long initBits, MemorySegment in,
                                              MemorySegment offsets, long segments, MemorySegment out) {
        segmentedScanByOffsets(type, type, op, inclusive, initBits, in, offsets, segments, out);
    }

    /** As above, into {@code outType}: {@code inType}, or LONG for an int8/int32 SUM (as {@link #scan}). */
    public static void segmentedScanByOffsets(DType inType, DType outType, Op op, boolean inclusive, long initBits,
                                              MemorySegment in, MemorySegment offsets, long segments, MemorySegment out) {
        checkTypes(inType, outType, op);
        Checks.offsets(offsets, segments, Checks.elements(in, inType, "in"), "in");
        long end = offsets.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, segments);
        Checks.holds(out, end, outType, "out");
        boolean inPlace = Checks.offsetsApart(in, inType, offsets.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, 0), end, out,
                outType);
        ChunkScanner scanner = scanner(inType, outType, op, inclusive);
        long carry = carryBits(outType, initBits);
        Parallel.forWeightedRange(segments, k -> offsets.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, k), (lo, hi) -> {
            for (long k = lo; k < hi; k++) {
                scanRange(scanner, in, out, offsets.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, k),
                        offsets.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, k + 1), carry, inPlace);
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
     * once: threads claim pieces (chunks; for integers, which are exact in any order, also smaller
     * pieces) in index order; a thread reduces its piece to the local total {@code T_c} (reading it into
     * its cache), takes the carry {@code C_c}, publishes {@code C_(c+1) = C_c op T_c} and then scans the
     * piece from its cache as {@code C_c op L_i}. Carries always chain in index order, from the same
     * totals, whatever thread does what, so the arithmetic (and every float bit) is the same as a
     * sequential two-pass scan's. Large integer scans in place go the other way round (see
     * {@link Chain#scanFirst}). {@code inPlace}: whether {@code out} is {@code in} itself over the
     * elements scanned (else it lies apart: the callers' checks allow nothing else).
     */
    static void scanRange(ChunkScanner scanner, MemorySegment in, MemorySegment out, long from, long to, long init,
                          boolean inPlace) {
        long n = to - from;
        if (n <= Parallel.CHUNK) { // one piece, whatever the scanner (most segments of a segmented scan)
            if (n > 0) scanner.scan(in, out, from, to, init);
            return;
        }
        // Integer scans are exact in any order, so they may chain pieces smaller than a chunk: small
        // arrays then use every thread too.
        boolean exact = scanner instanceof ExactChunkScanner;
        long piece = exact ? Math.clamp(n / (4L * Parallel.threads()) & ~63L, MIN_PIECE, Parallel.CHUNK) : Parallel.CHUNK;
        // Below two chunks one thread is faster than waking another (tens of microseconds on a VM);
        // an integer scan may then take them as one piece (floats keep their chunks: the order).
        if (exact && n < 2L * Parallel.CHUNK) piece = Math.max(n, 1);
        long pieces = (n + piece - 1) / piece;
        if (pieces == 1) {
            scanner.scan(in, out, from, to, init);
            return;
        }
        boolean scanFirst = exact && n >= SCAN_FIRST && inPlace;
        // Windows bound the chain's bookkeeping (a few arrays of one entry per piece).
        long carry = init;
        for (long w = 0; w < pieces; w += WINDOW) {
            long wFrom = from + w * piece, wTo = Math.min(to, wFrom + WINDOW * piece);
            carry = new Chain(scanner, in, out, wFrom, wTo, piece, Math.min(WINDOW, pieces - w), carry, wTo < to, inPlace,
                    scanFirst).run();
        }
    }

    /** The smallest piece of an integer scan worth handing to another thread. */
    private static final long MIN_PIECE = 1 << 13;
    /**
     * Elements from which an integer scan in place goes scan-first, for int32 and int64 alike: 2^23
     * int32 fill the 32 MiB L3 of the VM it was measured on (AMD EPYC with AVX-512, 2026-11-23). There
     * int32 at 2^24 took 2.78 ms against 3.30 reduce-first (JMH; int64 5.26 against 5.56); at 2^21 and
     * 2^22 elements the two orders tied (int32 in cache; int64 at 2^22 fills the L3).
     */
    static final long SCAN_FIRST = 1 << 23;
    /** Pieces per chain. */
    private static final int WINDOW = 1 << 16;

    /**
     * The shared state of one chained scan (see {@link #scanRange}): decoupled look-back, CPU style. A thread
     * whose carry {@code C_c} is not published after a short spin (the thread before it may have been
     * descheduled) does not wait for it: it goes back to the last published carry and folds the totals
     * from there itself, reducing again any piece whose total is not published yet (in place, where the
     * piece may already be overwritten, it waits for that total instead: its owner publishes it before
     * writing, or, scan-first, right after its scan). Each carry is a pure
     * function of the input, formed by the same operations in the same order by whoever forms it, so
     * two threads publishing the same carry write the same bits.
     */
    private static final class Chain {
        private static final VarHandle FLAGS = MethodHandles.arrayElementVarHandle(byte[].class);
        private static final byte TOTAL = 1, CARRY = 2;
        private static final int SPINS = 1 << 9;

        private final ChunkScanner scanner;
        private final MemorySegment in, out;
        private final long from, to, piece;
        private final int pieces;
        private final boolean needLast;
        /** Whether {@code in} and {@code out} are apart, so that any piece's input may be read again. */
        private final boolean apart;
        /**
         * Whether a thread scans its piece from the identity first (reading it from memory once, the
         * loads feeding the scan) and then applies the carry from its cache; otherwise it reduces the
         * piece first (a read that only the memory paces) and scans it from its cache with the carry.
         * Scan-first can read DRAM and compute at once, where reduce-first does one after the other.
         * It publishes each total later (after the whole scan, not after a read), so a thread that
         * loses its core mid-piece holds the next one up longer: it is taken only for large scans
         * ({@link CpuScan#SCAN_FIRST}), where it measured faster. Only integer scans (exact in any
         * order) may, and only in place: apart, int32 to int64 at 2^24 ran 1.3-1.4x slower scan-first
         * (likely because its stores to {@code out} miss while its loads stream in; same-type scans
         * apart were not timed).
         */
        private final boolean scanFirst;
        private final AtomicLong next = new AtomicLong();
        /** {@code totals[c] = T_c} once {@code flags[c]} has TOTAL; {@code carries[c] = C_c} once it has CARRY. */
        private final long[] totals, carries;
        private final byte[] totalFlags, carryFlags;

        Chain(ChunkScanner scanner, MemorySegment in, MemorySegment out, long from, long to, long piece, long pieces,
              long init, boolean needLast, boolean inPlace, boolean scanFirst) {
            this.scanner = scanner;
            this.in = in;
            this.out = out;
            this.from = from;
            this.to = to;
            this.piece = piece;
            this.pieces = (int) pieces;
            this.needLast = needLast;
            this.apart = !inPlace;
            this.scanFirst = scanFirst;
            totals = new long[this.pieces];
            carries = new long[this.pieces + 1];
            totalFlags = new byte[this.pieces];
            carryFlags = new byte[this.pieces + 1];
            carries[0] = init;
            carryFlags[0] = CARRY;
        }

        /** Scans the window; returns the carry out of it (when asked for: {@code needLast}). */
        long run() {
            Parallel.runWithHelpers((int) Math.min(pieces - 1, Parallel.threads() - 1), this::work);
            return needLast ? carries[pieces] : 0;
        }

        private long start(int c) {
            return from + c * piece;
        }

        private long end(int c) {
            return Math.min(to, from + (c + 1) * piece);
        }

        private void work() {
            for (long claimed; (claimed = next.getAndIncrement()) < pieces; ) {
                int c = (int) claimed;
                if (scanFirst) scanFirst(c); else reduceFirst(c);
            }
        }

        private void reduceFirst(int c) {
            boolean last = c + 1 == pieces;
            long total = 0;
            if (!last || needLast) { // the last piece has no successor to carry into
                total = scanner.total(in, start(c), end(c));
                publishTotal(c, total);
            }
            long carry = carry(c);
            if (!last || needLast) publish(c + 1, scanner.combine(carry, total));
            scanner.scan(in, out, start(c), end(c), carry);
        }

        private void scanFirst(int c) {
            ExactChunkScanner exact = (ExactChunkScanner) scanner;
            long total = exact.scanLocal(in, out, start(c), end(c));
            publishTotal(c, total);
            long carry = carry(c);
            publish(c + 1, scanner.combine(carry, total));
            exact.applyCarry(out, start(c), end(c), carry);
        }

        private void publishTotal(int c, long total) {
            totals[c] = total;
            FLAGS.setRelease(totalFlags, c, TOTAL);
        }

        private void publish(int c, long carry) {
            carries[c] = carry;
            FLAGS.setRelease(carryFlags, c, CARRY);
        }

        private boolean hasCarry(int c) {
            return (byte) FLAGS.getAcquire(carryFlags, c) == CARRY;
        }

        /** {@code C_c}: published, or folded here from the last published one. */
        private long carry(int c) {
            for (int spin = 0; spin < SPINS; spin++) {
                if (hasCarry(c)) return carries[c];
                Thread.onSpinWait();
            }
            int j = c;
            while (!hasCarry(j)) j--; // carries[0] is always there
            long carry = carries[j];
            for (int i = j; i < c; i++) {
                if (hasCarry(i + 1)) {
                    carry = carries[i + 1];
                    continue;
                }
                long total;
                if ((byte) FLAGS.getAcquire(totalFlags, i) == TOTAL) {
                    total = totals[i];
                } else if (apart) {
                    total = scanner.total(in, start(i), end(i));
                } else {
                    // In place the piece's owner overwrites it once its total is out: wait for that total.
                    for (int spin = 0; (byte) FLAGS.getAcquire(totalFlags, i) != TOTAL; spin++) {
                        if (spin < SPINS) Thread.onSpinWait(); else Thread.yield();
                    }
                    total = totals[i];
                }
                carry = scanner.combine(carry, total);
                publish(i + 1, carry);
            }
            return carry;
        }
    }

    static ChunkScanner scanner(DType inType, DType outType, Op op, boolean inclusive) {
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
    static long carryBits(DType type, long initBits) {
        return switch (type) {
            case BYTE -> (byte) initBits;
            case INT -> (int) initBits;
            case FLOAT -> initBits & 0xFFFF_FFFFL;
            case LONG, DOUBLE -> initBits;
        };
    }
}
