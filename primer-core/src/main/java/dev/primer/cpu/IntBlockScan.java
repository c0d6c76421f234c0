package dev.primer.cpu;

import dev.primer.Op;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.nio.ByteOrder;

/**
 * Template (see {@link Specialized}): int32 scan of a chunk with {@code OP} (wrapping as Java's int
 * arithmetic), in blocks of 8 lanes as {@link FloatBlockScan}; integers are exact in any order.
 */

final class IntBlockScan implements ChunkScanner {
    private static final Specialized.Spec SPEC = Specialized.spec(MethodHandles.lookup());
    private static final Op OP = SPEC.op();
    private static final boolean INCLUSIVE = SPEC.inclusive();
    private static final VectorOperators.Associative LANE_OP = LaneOps.vectorOperator(OP);
    private static final int IDENTITY = (int) LaneOps.integralIdentity(OP, Integer.MIN_VALUE, Integer.MAX_VALUE);

    private static final VectorSpecies<Integer> S = IntVector.SPECIES_256;
    private static final int LANES = 8, BYTES = 4;
    private static final VectorShuffle<Integer> LAST = VectorShuffle.fromOp(S, i -> LANES - 1);
    private static final ByteOrder NATIVE = ByteOrder.nativeOrder();

    @Override public long chunk(MemorySegment in, MemorySegment out, long from, long to, long carryBits, boolean write) {
        int carry = (int) carryBits;
        long whole = (to - from) / LANES, tail = from + whole * LANES;
        int r = blocks(in, from * BYTES, write ? out : null, from * BYTES, whole, IDENTITY, carry);
        if (tail < to) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment block = arena.allocate(LANES * BYTES, 32);
                for (int j = 0; j < LANES; j++) block.setAtIndex(ValueLayout.JAVA_INT, j, IDENTITY);
                MemorySegment.copy(in, tail * BYTES, block, 0, (to - tail) * BYTES);
                r = blocks(block, 0, write ? block : null, 0, 1, r, carry);
                if (write) MemorySegment.copy(block, 0, out, tail * BYTES, (to - tail) * BYTES);
            }
        }
        return r;
    }

    @Override public long combine(long carryBits, long totalBits) {
        return (int) LaneOps.apply(OP, carryBits, totalBits);
    }

    /** Scans {@code count} whole blocks; returns the running local total after them. */
    private static int blocks(MemorySegment in, long inByte, MemorySegment out, long outByte, long count,
                              int r, int carry) {
        IntVector id = IntVector.broadcast(S, IDENTITY);
        IntVector running = IntVector.broadcast(S, r), c = IntVector.broadcast(S, carry);
        for (long b = 0; b < count; b++) {
            IntVector v = IntVector.fromMemorySegment(S, in, inByte + b * (LANES * BYTES), NATIVE);
            v = v.lanewise(LANE_OP, id.slice(LANES - 1, v));
            v = v.lanewise(LANE_OP, id.slice(LANES - 2, v));
            v = v.lanewise(LANE_OP, id.slice(LANES - 4, v));
            IntVector t = running.lanewise(LANE_OP, v);
            if (out != null) {
                // exclusive: lane 0 takes the running total before this block, lane j the prefix at j-1
                IntVector e = INCLUSIVE ? t : running.slice(LANES - 1, t);
                c.lanewise(LANE_OP, e).intoMemorySegment(out, outByte + b * (LANES * BYTES), NATIVE);
            }
            running = t.rearrange(LAST);
        }
        return running.lane(0);
    }
}
