package dev.primer.cpu;

import dev.primer.DType;
import dev.primer.Op;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;

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
     * Two-pass scan of {@code [from, to)}, chunks aligned at {@code from}, a window of chunks at a time:
     * pass 2 then rereads each window from cache rather than memory (2 memory passes instead of 3). The
     * window only schedules; the arithmetic is the same for any window.
     */
    private static void run(ChunkScanner scanner, MemorySegment in, MemorySegment out, long from, long to, long init) {
        long chunks = Parallel.chunks(to - from);
        if (chunks == 0) return;
        if (chunks == 1) {
            scanner.scan(in, out, from, to, init);
            return;
        }
        int window = (int) Math.min(chunks, windowChunks());
        long[] carry = new long[window + 1];
        carry[0] = init;
        for (long w = 0; w < chunks; w += window) {
            long first = w, count = Math.min(window, chunks - w);
            // Pass 1: the local totals (the array's last chunk has no successor to carry into).
            long totals = Math.min(count, chunks - 1 - first);
            Parallel.forRange(totals, 1, (lo, hi) -> {
                for (long c = lo; c < hi; c++) {
                    long start = from + (first + c) * Parallel.CHUNK;
                    carry[(int) c + 1] = scanner.total(in, start, start + Parallel.CHUNK);
                }
            });
            // The carries, chained in order.
            for (int c = 1; c <= totals; c++) {
                carry[c] = scanner.combine(carry[c - 1], carry[c]);
            }
            // Pass 2: each chunk rescanned from its carry.
            Parallel.forRange(count, 1, (lo, hi) -> {
                for (long c = lo; c < hi; c++) {
                    long start = from + (first + c) * Parallel.CHUNK;
                    scanner.scan(in, out, start, Math.min(to, start + Parallel.CHUNK), carry[(int) c]);
                }
            });
            carry[0] = carry[(int) count]; // into the next window
        }
    }

    /**
     * Chunks per window: 64 (4 Mi elements, 16-32 MiB: about a last-level cache), more with more
     * threads. Smaller windows measured slower: each costs two fork/join rounds.
     */
    private static long windowChunks() {
        ForkJoinPool pool = ForkJoinTask.getPool();
        int threads = (pool != null ? pool : ForkJoinPool.commonPool()).getParallelism() + 1;
        return Math.max(64, 4L * threads);
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
