package dev.primer.cpu;

import dev.primer.DType;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Running argmin / argmax: {@code out[i]} = the index of the first minimum (or maximum) of
 * {@code in[0 .. i]}, by {@link ArgKernels}' keys (NaN the extreme, -0.0 below 0.0), as
 * {@link CpuReduce#argExtreme}.
 *
 * <p>Two parallel passes over chunks of {@link Parallel#CHUNK}: each chunk's best (key, first index)
 * from the vector kernel of argMin/argMax, the carries chained in order on the caller, then each
 * chunk scanned from its carry. The scan is a scalar loop: on random data the running extreme
 * changes about log(n) times, so its one branch is predicted and the loop runs at a load, a compare
 * and a store per element.
 */
public final class CpuArgScan {
    private CpuArgScan() {}

    /** Scans {@code n} elements of {@code type} in {@code in} into the int64 indices in {@code out}. */
    public static void argExtremeScan(DType type, boolean max, MemorySegment in, MemorySegment out, long n) {
        Checks.nonNull(type, "type");
        Checks.nonNegative(n, "n");
        Checks.holds(in, n, type, "in");
        Checks.holds(out, n, DType.LONG, "out");
        if (n == 0) return;
        long chunks = Parallel.chunks(n);
        if (chunks == 1) {
            scan(type, max, in, out, 0, n, null);
            return;
        }
        ArgKernels.Best[] carries = new ArgKernels.Best[(int) chunks];  // carries[c]: chunks before c (null for c = 0)
        Parallel.forEachChunk(n, (from, to) -> carries[(int) (from / Parallel.CHUNK)] = ArgKernels.chunk(type, max, in, from, to));
        ArgKernels.Best before = null;
        for (int c = 0; c < chunks; c++) {
            ArgKernels.Best total = carries[c];
            carries[c] = before;
            before = before == null ? total : ArgKernels.Best.combine(before, total, max);
        }
        Parallel.forEachChunk(n, (from, to) -> scan(type, max, in, out, from, to, carries[(int) (from / Parallel.CHUNK)]));
    }

    /** out[from .. to) from the best of everything before {@code from} ({@code null}: nothing before). */
    private static void scan(DType type, boolean max, MemorySegment in, MemorySegment out, long from, long to,
                             ArgKernels.Best before) {
        long key, index;
        long i = from;
        if (before == null) {
            key = ArgKernels.key(type, max, in, i);
            index = i;
            out.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i++, index);
        } else {
            key = before.key();
            index = before.index();
        }
        // One loop per type and direction, so that the key and the comparison compile without switches.
        switch (type) {
            case BYTE -> {
                for (; i < to; i++) {
                    long k = in.get(ValueLayout.JAVA_BYTE, i);
                    if (max ? k > key : k < key) { key = k; index = i; }
                    out.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i, index);
                }
            }
            case INT -> {
                for (; i < to; i++) {
                    long k = in.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i);
                    if (max ? k > key : k < key) { key = k; index = i; }
                    out.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i, index);
                }
            }
            case LONG -> {
                for (; i < to; i++) {
                    long k = in.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i);
                    if (max ? k > key : k < key) { key = k; index = i; }
                    out.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i, index);
                }
            }
            case FLOAT -> {
                for (; i < to; i++) {
                    long k = ArgKernels.floatKey(in.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i), max);
                    if (max ? k > key : k < key) { key = k; index = i; }
                    out.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i, index);
                }
            }
            case DOUBLE -> {
                for (; i < to; i++) {
                    long k = ArgKernels.doubleKey(in.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i), max);
                    if (max ? k > key : k < key) { key = k; index = i; }
                    out.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i, index);
                }
            }
        }
    }
}
