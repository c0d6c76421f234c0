package dev.primer.cpu;

import dev.primer.Op;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * float64 scan of a chunk in blocks of 4 lanes, as {@link FloatBlockScan} does for float32: the in-block
 * prefix forms in two lane-shift steps (lane j takes lane j-1, then j-2), then
 * {@code out = carry + (R_b + H_j)} with {@code R_{b+1} = R_b + H_3}, {@code R_0 = -0.0}.
 */
final class DoubleBlockScan implements ChunkScanner {
    private static final VectorSpecies<Double> S = DoubleVector.SPECIES_256;
    private static final int LANES = 4;
    private static final VectorShuffle<Double> LAST = VectorShuffle.fromOp(S, i -> LANES - 1);
    private static final ByteOrder NATIVE = ByteOrder.nativeOrder();

    private final Op op;
    private final boolean inclusive;
    private final MemorySegment in, out;
    private final double identity;

    DoubleBlockScan(Op op, boolean inclusive, MemorySegment in, MemorySegment out) {
        this.op = op;
        this.inclusive = inclusive;
        this.in = in;
        this.out = out;
        this.identity = LaneOps.floatingIdentity(op);
    }

    @Override public long chunk(long from, long to, long carryBits, boolean write) {
        double carry = Double.longBitsToDouble(carryBits);
        long whole = (to - from) / LANES, tail = from + whole * LANES;
        double r = blocks(op, inclusive, identity, in, from * 8, write ? out : null, from * 8, whole, identity, carry);
        if (tail < to) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment block = arena.allocate(LANES * 8L, 32);
                for (int j = 0; j < LANES; j++) block.setAtIndex(ValueLayout.JAVA_DOUBLE, j, identity);
                MemorySegment.copy(in, tail * 8, block, 0, (to - tail) * 8);
                r = blocks(op, inclusive, identity, block, 0, write ? block : null, 0, 1, r, carry);
                if (write) MemorySegment.copy(block, 0, out, tail * 8, (to - tail) * 8);
            }
        }
        return Double.doubleToRawLongBits(r);
    }

    @Override public long combine(long carryBits, long totalBits) {
        return Double.doubleToRawLongBits(LaneOps.apply(op, Double.longBitsToDouble(carryBits), Double.longBitsToDouble(totalBits)));
    }

    /**
     * Scans {@code count} whole blocks; returns the running local total after them. (The identity comes
     * in as an argument: computed here, by a switch, it made C2 keep the loop's vectors boxed.)
     */
    private static double blocks(Op op, boolean inclusive, double identity, MemorySegment in, long inByte,
                                 MemorySegment out, long outByte, long count, double r, double carry) {
        DoubleVector id = DoubleVector.broadcast(S, identity);
        DoubleVector running = DoubleVector.broadcast(S, r), c = DoubleVector.broadcast(S, carry);
        for (long b = 0; b < count; b++) {
            DoubleVector v = DoubleVector.fromMemorySegment(S, in, inByte + b * (LANES * 8), NATIVE);
            v = LaneOps.apply(op, v, id.slice(LANES - 1, v));
            v = LaneOps.apply(op, v, id.slice(LANES - 2, v));
            DoubleVector t = LaneOps.apply(op, running, v);
            if (out != null) {
                // exclusive: lane 0 takes the running total before this block, lane j the prefix at j-1
                DoubleVector e = inclusive ? t : running.slice(LANES - 1, t);
                LaneOps.apply(op, c, e).intoMemorySegment(out, outByte + b * (LANES * 8), NATIVE);
            }
            running = t.rearrange(LAST);
        }
        return running.lane(0);
    }
}
