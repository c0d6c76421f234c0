package dev.primer.cpu;

import dev.primer.Op;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * int8 scan of a chunk, one element at a time (int8 scans are rare; integers are exact in any order):
 * into int8 (wrapping as Java's byte arithmetic) or, for SUM, into int64.
 */
final class ByteScan implements ChunkScanner {
    private final Op op;
    private final boolean inclusive, toLong;
    private final long identity;

    ByteScan(Op op, boolean inclusive, boolean toLong) {
        this.op = op;
        this.inclusive = inclusive;
        this.toLong = toLong;
        this.identity = LaneOps.integralIdentity(op, Byte.MIN_VALUE, Byte.MAX_VALUE);
    }

    @Override public long total(MemorySegment in, long from, long to) {
        long r = identity;
        for (long i = from; i < to; i++) r = LaneOps.apply(op, r, in.get(ValueLayout.JAVA_BYTE, i));
        return r;
    }

    @Override public void scan(MemorySegment in, MemorySegment out, long from, long to, long carry) {
        long r = carry;
        for (long i = from; i < to; i++) {
            long before = r;
            r = LaneOps.apply(op, r, in.get(ValueLayout.JAVA_BYTE, i));
            long value = inclusive ? r : before;
            if (toLong) out.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i, value);
            else out.set(ValueLayout.JAVA_BYTE, i, (byte) value);
        }
    }

    @Override public long combine(long carry, long total) {
        return LaneOps.apply(op, carry, total);
    }
}
