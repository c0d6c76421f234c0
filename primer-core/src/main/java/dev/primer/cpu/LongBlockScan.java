package dev.primer.cpu;

import dev.primer.Op;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * int64 scan of a chunk in blocks of 4 lanes (wrapping as Java's long arithmetic), the same block
 * algorithm as {@link FloatBlockScan}; integers are exact, so the order is only a matter of speed.
 */
final class LongBlockScan implements ChunkScanner {
    private static final VectorSpecies<Long> S = LongVector.SPECIES_256;
    private static final int LANES = 4;
    private static final VectorShuffle<Long> LAST = VectorShuffle.fromOp(S, i -> LANES - 1);
    private static final ByteOrder NATIVE = ByteOrder.nativeOrder();

    private final Op op;
    private final boolean inclusive;
    private final MemorySegment in, out;
    private final long identity;

    LongBlockScan(Op op, boolean inclusive, MemorySegment in, MemorySegment out) {
        this.op = op;
        this.inclusive = inclusive;
        this.in = in;
        this.out = out;
        this.identity = LaneOps.integralIdentity(op, Long.MIN_VALUE, Long.MAX_VALUE);
    }

    @Override public long chunk(long from, long to, long carryBits, boolean write) {
        long carry = carryBits;
        long whole = (to - from) / LANES, tail = from + whole * LANES;
        long r = blocks(op, inclusive, identity, in, from * 8, write ? out : null, from * 8, whole, identity, carry);
        if (tail < to) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment block = arena.allocate(LANES * 8L, 32);
                for (int j = 0; j < LANES; j++) block.setAtIndex(ValueLayout.JAVA_LONG, j, identity);
                MemorySegment.copy(in, tail * 8, block, 0, (to - tail) * 8);
                r = blocks(op, inclusive, identity, block, 0, write ? block : null, 0, 1, r, carry);
                if (write) MemorySegment.copy(block, 0, out, tail * 8, (to - tail) * 8);
            }
        }
        return r;
    }

    @Override public long combine(long carryBits, long totalBits) {
        return LaneOps.apply(op, carryBits, totalBits);
    }

    /**
     * Scans {@code count} whole blocks; returns the running local total after them. (The identity comes
     * in as an argument: computed here, by a switch, it made C2 keep the loop's vectors boxed.)
     */
    private static long blocks(Op op, boolean inclusive, long identity, MemorySegment in, long inByte,
                               MemorySegment out, long outByte, long count, long r, long carry) {
        LongVector id = LongVector.broadcast(S, identity);
        LongVector running = LongVector.broadcast(S, r), c = LongVector.broadcast(S, carry);
        for (long b = 0; b < count; b++) {
            LongVector v = LongVector.fromMemorySegment(S, in, inByte + b * (LANES * 8), NATIVE);
            v = LaneOps.apply(op, v, id.slice(LANES - 1, v));
            v = LaneOps.apply(op, v, id.slice(LANES - 2, v));
            LongVector t = LaneOps.apply(op, running, v);
            if (out != null) {
                // exclusive: lane 0 takes the running total before this block, lane j the prefix at j-1
                LongVector e = inclusive ? t : running.slice(LANES - 1, t);
                LaneOps.apply(op, c, e).intoMemorySegment(out, outByte + b * (LANES * 8), NATIVE);
            }
            running = t.rearrange(LAST);
        }
        return running.lane(0);
    }
}
