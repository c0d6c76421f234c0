package dev.primer.cpu;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Segmented scan whose segments start where an int8 head flag is non-zero (and at index 0). Each
 * segment is scanned as an array of its own, exactly as {@link CpuScan#segmentedScanByOffsets} scans
 * it, so the same segments give the same bits by flags and by offsets, and float sums keep the plain
 * scan's error bound (a left-to-right loop within a chunk rounded up to 2^16 times on one path).
 *
 * <p>Chunks of the flags are taken in parallel; a chunk's task scans the segments whose heads lie
 * in it, each to its end, wherever that is (a long segment's scan spreads over the threads itself).
 */
final class FlagSegmentScan {
    private FlagSegmentScan() {}

    /** Eight flags read as one word, the first flag in the lowest byte. */
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    static void scan(ChunkScanner scanner, long carryBits, MemorySegment in, MemorySegment flags, MemorySegment out,
                     long n, boolean inPlace) {
        Parallel.forRange(Parallel.chunks(n), 1, (lo, hi) -> {
            for (long c = lo; c < hi; c++) {
                long from = c * Parallel.CHUNK, to = Math.min(n, from + Parallel.CHUNK);
                long head = from == 0 ? 0 : nextHead(flags, from, to);  // element 0 starts a segment whatever its flag
                while (head < to) {
                    long end = nextHead(flags, head + 1, n);
                    CpuScan.scanRange(scanner, in, out, head, end, carryBits, inPlace);
                    head = end;
                }
            }
        });
    }

    /** The first index in {@code [from, to)} whose flag is non-zero, or {@code to}: eight flags a load. */
    static long nextHead(MemorySegment flags, long from, long to) {
        long i = from;
        for (; i + 8 <= to; i += 8) {
            long word = flags.get(WORD, i);
            if (word != 0) return i + Long.numberOfTrailingZeros(word) / 8;
        }
        for (; i < to; i++) {
            if (flags.get(ValueLayout.JAVA_BYTE, i) != 0) return i;
        }
        return to;
    }
}
