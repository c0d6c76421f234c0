package dev.primer.cpu;

import dev.primer.Op;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.nio.ByteOrder;

/**
 * Template (see {@link Specialized}): float64 scan of a chunk with {@code OP}, in blocks of 4 lanes, as
 * {@link FloatBlockScan} does for float32: the in-block prefix {@code H} forms in two lane-shift steps
 * (lane j takes lane j-1, then j-2), then {@code out = carry op (R_b op H_j)}, {@code R_(b+1) = R_b op H_3}.
 */

final class DoubleBlockScan implements ChunkScanner {
    private static final Specialized.Spec SPEC = Specialized.spec(MethodHandles.lookup());
    private static final Op OP = SPEC.op();
    private static final boolean INCLUSIVE = SPEC.inclusive();
    private static final VectorOperators.Associative LANE_OP = LaneOps.vectorOperator(OP);
    private static final double IDENTITY = LaneOps.floatingIdentity(OP);

    private static final VectorSpecies<Double> S = DoubleVector.SPECIES_256;
    private static final int LANES = 4, BYTES = 8;
    private static final VectorShuffle<Double> LAST = VectorShuffle.fromOp(S, i -> LANES - 1);
    private static final ByteOrder NATIVE = ByteOrder.nativeOrder();

    @Override public long chunk(MemorySegment in, MemorySegment out, long from, long to, long carryBits, boolean write) {
        double carry = Double.longBitsToDouble(carryBits);
        long whole = (to - from) / LANES, tail = from + whole * LANES;
        double r = blocks(in, from * BYTES, write ? out : null, from * BYTES, whole, IDENTITY, carry);
        if (tail < to) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment block = arena.allocate(LANES * BYTES, 32);
                for (int j = 0; j < LANES; j++) block.setAtIndex(ValueLayout.JAVA_DOUBLE, j, IDENTITY);
                MemorySegment.copy(in, tail * BYTES, block, 0, (to - tail) * BYTES);
                r = blocks(block, 0, write ? block : null, 0, 1, r, carry);
                if (write) MemorySegment.copy(block, 0, out, tail * BYTES, (to - tail) * BYTES);
            }
        }
        return Double.doubleToRawLongBits(r);
    }

    @Override public long combine(long carryBits, long totalBits) {
        return Double.doubleToRawLongBits(LaneOps.apply(OP, Double.longBitsToDouble(carryBits), Double.longBitsToDouble(totalBits)));
    }

    /** Scans {@code count} whole blocks; returns the running local total after them. */
    private static double blocks(MemorySegment in, long inByte, MemorySegment out, long outByte, long count,
                                 double r, double carry) {
        DoubleVector id = DoubleVector.broadcast(S, IDENTITY);
        DoubleVector running = DoubleVector.broadcast(S, r), c = DoubleVector.broadcast(S, carry);
        for (long b = 0; b < count; b++) {
            DoubleVector v = DoubleVector.fromMemorySegment(S, in, inByte + b * (LANES * BYTES), NATIVE);
            v = v.lanewise(LANE_OP, id.slice(LANES - 1, v));
            v = v.lanewise(LANE_OP, id.slice(LANES - 2, v));
            DoubleVector t = running.lanewise(LANE_OP, v);
            if (out != null) {
                // exclusive: lane 0 takes the running total before this block, lane j the prefix at j-1
                DoubleVector e = INCLUSIVE ? t : running.slice(LANES - 1, t);
                c.lanewise(LANE_OP, e).intoMemorySegment(out, outByte + b * (LANES * BYTES), NATIVE);
            }
            running = t.rearrange(LAST);
        }
        return running.lane(0);
    }
}
