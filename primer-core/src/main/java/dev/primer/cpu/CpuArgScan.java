package dev.primer.cpu;

import dev.primer.DType;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Running argmin / argmax: inclusive, {@code out[i]} = the index of the first minimum (or maximum) of
 * {@code in[0 .. i]}; exclusive, {@code out[0] = -1} and {@code out[i]} = that of {@code in[0 .. i-1]}.
 * Order by {@link ArgKernels}' keys (NaN the extreme, -0.0 below 0.0), as {@link CpuReduce#argExtreme}.
 *
 * <p>Two parallel passes over chunks of {@link Parallel#CHUNK}: each chunk's best (key, first index)
 * from the vector kernel of argMin/argMax, the carries chained in order on the caller, then each
 * chunk scanned from its carry. The scan is a scalar loop: on random data the running extreme
 * changes about log(n) times, so its one branch is predicted and the loop runs at a load, a compare
 * and a store per element. {@link CpuSegmentedArgScan} runs the same loop between segment heads.
 */
public final class CpuArgScan {
    private CpuArgScan() {}

    /** Scans {@code n} elements of {@code type} in {@code in} into the int64 indices in {@code out}. */
    public static void argExtremeScan(DType type, boolean max, boolean inclusive, MemorySegment in, MemorySegment out,
                                      long n) {
        Checks.nonNull(type, "type");
        Checks.nonNegative(n, "n");
        Checks.holds(in, n, type, "in");
        Checks.holds(out, n, DType.LONG, "out");
        if (n == 0) return;
        long chunks = Parallel.chunks(n);
        if (chunks == 1) {
            startSegment(type, max, inclusive, in, out, 0, n);
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
        Parallel.forEachChunk(n, (from, to) -> {
            ArgKernels.Best carry = carries[(int) (from / Parallel.CHUNK)];
            if (carry == null) startSegment(type, max, inclusive, in, out, from, to);
            else scan(type, max, inclusive, in, out, from, to, carry.key(), carry.index(), 0);
        });
    }

    /** out[from .. to) (non-empty) of a segment whose first element is {@code from}. */
    static void startSegment(DType type, boolean max, boolean inclusive, MemorySegment in, MemorySegment out,
                             long from, long to) {
        out.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, from, inclusive ? 0 : -1);
        scan(type, max, inclusive, in, out, from + 1, to, ArgKernels.key(type, max, in, from), from, from);
    }

    /**
     * out[from .. to) of a segment that starts at {@code start} (before {@code from}), whose elements
     * before {@code from} have their best key {@code key} first at {@code index}: each output is the
     * index of the running extreme (inclusive: after the element; exclusive: before it) minus {@code start}.
     */
    static void scan(DType type, boolean max, boolean inclusive, MemorySegment in, MemorySegment out, long from, long to,
                     long key, long index, long start) {
        // One loop per type, so that the key and the comparison compile without switches; max and
        // inclusive are the same for the whole loop, so their branches are predicted (or unswitched).
        switch (type) {
            case BYTE -> {
                for (long i = from; i < to; i++) {
                    long k = in.get(ValueLayout.JAVA_BYTE, i), before = index;
                    if (max ? k > key : k < key) { key = k; index = i; }
                    out.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i, (inclusive ? index : before) - start);
                }
            }
            case INT -> {
                for (long i = from; i < to; i++) {
                    long k = in.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i), before = index;
                    if (max ? k > key : k < key) { key = k; index = i; }
                    out.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i, (inclusive ? index : before) - start);
                }
            }
            case LONG -> {
                for (long i = from; i < to; i++) {
                    long k = in.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i), before = index;
                    if (max ? k > key : k < key) { key = k; index = i; }
                    out.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i, (inclusive ? index : before) - start);
                }
            }
            // Floats: a value below the running maximum (above the running minimum) cannot take
            // over, whatever its key, and one float compare says so; the key is made only for the
            // rest (equal values, -0.0 and 0.0, NaN on either side), so most elements cost a load,
            // a compare and a store (docs/cpu-backend.md: 1.10-1.16x faster than keys for every
            // element). `best` is the running extreme as a value (NaN once a NaN leads).
            case FLOAT -> {
                float best = ArgKernels.floatOfKey((int) key);
                for (long i = from; i < to; i++) {
                    float x = in.getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i);
                    long before = index;
                    if (max ? !(x < best) : !(x > best)) {
                        long k = ArgKernels.floatKey(Float.floatToRawIntBits(x), max);
                        if (max ? k > key : k < key) { key = k; index = i; best = x; }
                    }
                    out.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i, (inclusive ? index : before) - start);
                }
            }
            case DOUBLE -> {
                double best = ArgKernels.doubleOfKey(key);
                for (long i = from; i < to; i++) {
                    double x = in.getAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, i);
                    long before = index;
                    if (max ? !(x < best) : !(x > best)) {
                        long k = ArgKernels.doubleKey(Double.doubleToRawLongBits(x), max);
                        if (max ? k > key : k < key) { key = k; index = i; best = x; }
                    }
                    out.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i, (inclusive ? index : before) - start);
                }
            }
        }
    }
}
