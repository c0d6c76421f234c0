package dev.primer.cpu;

import dev.primer.Op;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * int32 scan of a chunk in blocks of 8 lanes (wrapping as Java's int arithmetic), the same block
 * algorithm as {@link FloatBlockScan}; integers are exact, so the order is only a matter of speed.
 */
final class IntBlockScan implements ChunkScanner {
    private static final VectorSpecies<Integer> S = IntVector.SPECIES_256;
    private static final int LANES = 8;
    private static final VectorShuffle<Integer> LAST = VectorShuffle.fromOp(S, i -> LANES - 1);
    private static final ByteOrder NATIVE = ByteOrder.nativeOrder();

    private final Op op;
    private final boolean inclusive;
    private final MemorySegment in, out;
    private final int identity;

    IntBlockScan(Op op, boolean inclusive, MemorySegment in, MemorySegment out) {
        this.op = op;
        this.inclusive = inclusive;
        this.in = in;
        this.out = out;
        this.identity = (int) LaneOps.integralIdentity(op, Integer.MIN_VALUE, Integer.MAX_VALUE);
    }

    @Override public long chunk(long from, long to, long carryBits, boolean write) {
        int carry = (int) carryBits;
        long whole = (to - from) / LANES, tail = from + whole * LANES;
        int r = blocks(op, inclusive, identity, in, from * 4, write ? out : null, from * 4, whole, identity, carry);
        if (tail < to) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment block = arena.allocate(LANES * 4L, 32);
                for (int j = 0; j < LANES; j++) block.setAtIndex(ValueLayout.JAVA_INT, j, identity);
                MemorySegment.copy(in, tail * 4, block, 0, (to - tail) * 4);
                r = blocks(op, inclusive, identity, block, 0, write ? block : null, 0, 1, r, carry);
                if (write) MemorySegment.copy(block, 0, out, tail * 4, (to - tail) * 4);
            }
        }
        return r;
    }

    @Override public long combine(long carryBits, long totalBits) {
        return (int) LaneOps.apply(op, carryBits, totalBits);
    }

    /**
     * Scans {@code count} whole blocks; returns the running local total after them. (The identity comes
     * in as an argument: computed here, by a switch, it made C2 keep the loop's vectors boxed.)
     */
    private static int blocks(Op op, boolean inclusive, int identity, MemorySegment in, long inByte,
                              MemorySegment out, long outByte, long count, int r, int carry) {
        IntVector id = IntVector.broadcast(S, identity);
        IntVector running = IntVector.broadcast(S, r), c = IntVector.broadcast(S, carry);
        for (long b = 0; b < count; b++) {
            IntVector v = IntVector.fromMemorySegment(S, in, inByte + b * (LANES * 4), NATIVE);
            v = LaneOps.apply(op, v, id.slice(LANES - 1, v));
            v = LaneOps.apply(op, v, id.slice(LANES - 2, v));
            v = LaneOps.apply(op, v, id.slice(LANES - 4, v));
            IntVector t = LaneOps.apply(op, running, v);
            if (out != null) {
                // exclusive: lane 0 takes the running total before this block, lane j the prefix at j-1
                IntVector e = inclusive ? t : running.slice(LANES - 1, t);
                LaneOps.apply(op, c, e).intoMemorySegment(out, outByte + b * (LANES * 4), NATIVE);
            }
            running = t.rearrange(LAST);
        }
        return running.lane(0);
    }
}
