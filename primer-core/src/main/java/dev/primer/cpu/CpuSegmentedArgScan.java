package dev.primer.cpu;

import dev.primer.DType;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Segmented running argmin / argmax: inclusive, {@code out[i]} = the index of the first minimum (or
 * maximum) of {@code in[s .. i]} minus {@code s}, the first element of i's segment (indices within the
 * segment, as {@link CpuSegmentedReduce#argExtremeSegments}); exclusive, -1 at {@code s} and that of
 * {@code in[s .. i-1]} after it. Keys and order as {@link CpuArgScan}. Segments start at every
 * non-zero head flag and at element 0, or are {@code [offsets[k], offsets[k+1])}.
 *
 * <p>The work is split by chunks of elements, not by segments, so that one segment over the whole
 * array spreads over the threads as the unsegmented scan does, and a million short ones cost no task
 * each. Pass 1 gives each chunk's {@link Open open segment} at its end: the best (key, first index)
 * since its last head (the vector kernel of {@link ArgKernels#chunk}) and that head, if it has one.
 * The caller chains these in order into each chunk's carry (the segment open where it starts), and
 * pass 2 scans each chunk from its carry with {@link CpuArgScan}'s loops, starting afresh at every head.
 */
public final class CpuSegmentedArgScan {
    private CpuSegmentedArgScan() {}

    /** Scans {@code n} elements; a segment starts at index 0 and wherever the int8 {@code headFlags} is non-zero. */
    public static void byFlags(DType type, boolean max, boolean inclusive, MemorySegment in, MemorySegment headFlags,
                               MemorySegment out, long n) {
        Checks.nonNull(type, "type");
        Checks.nonNegative(n, "n");
        Checks.holds(in, n, type, "in");
        Checks.holds(headFlags, n, DType.BYTE, "headFlags");
        Checks.holds(out, n, DType.LONG, "out");
        scan(type, max, inclusive, in, out, new FlagHeads(headFlags, n));
    }

    /**
     * Scans the segments {@code [offsets[k], offsets[k+1])}, {@code k < segments} (int64 offsets,
     * non-decreasing, within the elements of {@code in}); out outside [offsets[0], offsets[segments])
     * is not written.
     */
    public static void byOffsets(DType type, boolean max, boolean inclusive, MemorySegment in, MemorySegment offsets,
                                 long segments, MemorySegment out) {
        Checks.nonNull(type, "type");
        Checks.offsets(offsets, segments, Checks.elements(in, type, "in"), "in");
        Checks.holds(out, offsets.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, segments), DType.LONG, "out");
        scan(type, max, inclusive, in, out, new OffsetHeads(offsets, segments));
    }

    /**
     * The segment open at the end of some elements: its running extreme so far, and its head if that
     * lies among the elements (else -1: it began before them).
     */
    private record Open(ArgKernels.Best best, long head) {}

    private static void scan(DType type, boolean max, boolean inclusive, MemorySegment in, MemorySegment out, Heads heads) {
        long begin = heads.begin(), n = heads.end() - begin;
        if (n == 0) return;
        int chunks = Math.toIntExact(Parallel.chunks(n));
        Open[] carries = new Open[chunks];  // carries[c]: open where chunk c starts (null for c = 0: begin is a head)
        if (chunks > 1) {
            Open[] ends = new Open[chunks];
            Parallel.forEachChunk(n, (from, to) -> {
                if (to < n) ends[(int) (from / Parallel.CHUNK)] = openAtEnd(type, max, in, heads, begin + from, begin + to);
            });
            Open open = null;
            for (int c = 0; c + 1 < chunks; c++) {
                Open end = ends[c];
                open = end.head >= 0 ? end : new Open(ArgKernels.Best.combine(open.best, end.best, max), open.head);
                carries[c + 1] = open;
            }
        }
        Parallel.forEachChunk(n, (from, to) ->
                scanChunk(type, max, inclusive, in, out, heads, begin + from, begin + to, carries[(int) (from / Parallel.CHUNK)]));
    }

    /** The segment open at the end of [from, to). */
    private static Open openAtEnd(DType type, boolean max, MemorySegment in, Heads heads, long from, long to) {
        long head = heads.last(from, to);
        return new Open(ArgKernels.chunk(type, max, in, Math.max(head, from), to), head);
    }

    /** out[from .. to) from {@code carry}, the segment open at {@code from} (unused when a head is there). */
    private static void scanChunk(DType type, boolean max, boolean inclusive, MemorySegment in, MemorySegment out,
                                  Heads heads, long from, long to, Open carry) {
        Cursor cursor = heads.from(from);
        long head = cursor.next(to);
        if (head > from) {
            CpuArgScan.scan(type, max, inclusive, in, out, from, head, carry.best.key(), carry.best.index(), carry.head);
        }
        while (head < to) {
            long next = cursor.next(to);
            CpuArgScan.startSegment(type, max, inclusive, in, out, head, next);
            head = next;
        }
    }

    // ---- where segments start

    /** The first elements of the segments within the elements [begin, end) that a scan covers. */
    private interface Heads {
        long begin();

        long end();

        /** The last head in [from, to) (within [begin, end)), or -1. */
        long last(long from, long to);

        /** The heads at {@code from} (within [begin, end)) and after, in order. */
        Cursor from(long from);
    }

    private interface Cursor {
        /** The next head below {@code limit}, or {@code limit} if there is none. */
        long next(long limit);
    }

    /** Eight flags read as one word, the first flag in the lowest byte. */
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** Heads at element 0 and at every non-zero flag, found eight flags a load. */
    private record FlagHeads(MemorySegment flags, long n) implements Heads {
        @Override public long begin() { return 0; }

        @Override public long end() { return n; }

        @Override public long last(long from, long to) {
            long i = to;
            for (; i - 8 >= from; i -= 8) {
                long word = flags.get(WORD, i - 8);
                if (word != 0) return i - 8 + (63 - Long.numberOfLeadingZeros(word)) / 8;
            }
            while (--i >= from) {
                if (flags.get(ValueLayout.JAVA_BYTE, i) != 0) return i;
            }
            return from == 0 ? 0 : -1;  // element 0 starts a segment whatever its flag
        }

        @Override public Cursor from(long from) {
            return new Cursor() {
                private long at = from;

                @Override public long next(long limit) {
                    long head = at == 0 ? 0 : FlagSegmentScan.nextHead(flags, at, limit);
                    at = head + 1;
                    return head;
                }
            };
        }
    }

    /**
     * Heads at the offsets that start non-empty segments. Offsets are non-decreasing and end at
     * {@code end}, so any offset below {@code end} starts one: the last of its repeats.
     */
    private record OffsetHeads(MemorySegment offsets, long segments) implements Heads {
        private long offset(long k) { return offsets.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, k); }

        @Override public long begin() { return offset(0); }

        @Override public long end() { return offset(segments); }

        @Override public long last(long from, long to) {
            long lo = 0, hi = segments;  // the last k with offsets[k] < to: offsets[0] <= from < to, so there is one
            while (lo < hi) {
                long mid = (lo + hi + 1) >>> 1;
                if (offset(mid) < to) lo = mid; else hi = mid - 1;
            }
            long head = offset(lo);
            return head >= from ? head : -1;
        }

        @Override public Cursor from(long from) {
            long lo = 0, hi = segments;  // the first k with offsets[k] >= from: from < end, so there is one
            while (lo < hi) {
                long mid = (lo + hi) >>> 1;
                if (offset(mid) >= from) hi = mid; else lo = mid + 1;
            }
            long first = lo;
            return new Cursor() {
                private long k = first;

                @Override public long next(long limit) {
                    if (k > segments) return limit;
                    long head = offset(k);
                    if (head >= limit) return limit;
                    while (k <= segments && offset(k) == head) k++;  // empty segments start there too
                    return head;
                }
            };
        }
    }
}
