package dev.primer.cpu;

import dev.primer.Op;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.nio.ByteOrder;

/**
 * Template (see {@link Specialized}): one chunk of int64 values reduced with {@code OP} in long lanes
 * (PROD wraps as Java's long multiplication). SUM is exact instead: {@link ExactLongSum#ofChunk}.
 */
final class LongChunkReduce implements IntegralChunkReducer {
    private static final Op OP = Specialized.spec(MethodHandles.lookup()).op();
    private static final VectorOperators.Associative LANE_OP = LaneOps.vectorOperator(OP);
    private static final boolean IDEMPOTENT = LaneOps.idempotent(OP);

    private static final VectorSpecies<Long> L4 = LongVector.SPECIES_256;
    private static final ByteOrder NATIVE = ByteOrder.nativeOrder();

    @Override public long reduce(MemorySegment in, long from, long to) {
        LongVector a0 = LongVector.broadcast(L4, LaneOps.integralIdentity(OP, Long.MIN_VALUE, Long.MAX_VALUE)), a1 = a0;
        long i = from, end = from + ((to - from) & ~7L);
        for (; i < end; i += 8) {
            long b = i * Long.BYTES;
            a0 = a0.lanewise(LANE_OP, LongVector.fromMemorySegment(L4, in, b, NATIVE));
            a1 = a1.lanewise(LANE_OP, LongVector.fromMemorySegment(L4, in, b + 32, NATIVE));
        }
        if (to - i >= 4) { // one more plain vector: fewer than 4 left after it
            a0 = a0.lanewise(LANE_OP, LongVector.fromMemorySegment(L4, in, i * Long.BYTES, NATIVE));
            i += 4;
        }
        if (i < to) { // no Math.min/max per element: C2 makes it a branch that mispredicts on random data
            if (IDEMPOTENT && to - from >= 4) { // MIN, MAX, AND, OR: folding some elements twice changes nothing
                a1 = a1.lanewise(LANE_OP, LongVector.fromMemorySegment(L4, in, (to - 4) * Long.BYTES, NATIVE));
            } else {
                VectorMask<Long> m = VectorMask.fromLong(L4, (1L << (to - i)) - 1);
                a1 = a1.lanewise(LANE_OP, LongVector.fromMemorySegment(L4, in, i * Long.BYTES, NATIVE, m), m);
            }
        }
        return a0.lanewise(LANE_OP, a1).reduceLanes(LANE_OP);
    }
}
