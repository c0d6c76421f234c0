package dev.primer.cpu;

import dev.primer.Op;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.nio.ByteOrder;

/**
 * Template (see {@link Specialized}): one chunk of int32 values reduced with {@code OP}, to a long.
 * SUM and PROD accumulate in int64 lanes (wrapping as Java's long arithmetic), four ints widening to
 * four longs in one conversion; the other operators run in int lanes. Integers are exact in any order.
 */
final class IntChunkReduce implements IntegralChunkReducer {
    private static final Op OP = Specialized.spec(MethodHandles.lookup()).op();
    private static final VectorOperators.Associative LANE_OP = LaneOps.vectorOperator(OP);
    private static final boolean IN_LONG = OP == Op.SUM || OP == Op.PROD;
    private static final boolean IDEMPOTENT = LaneOps.idempotent(OP);

    private static final VectorSpecies<Integer> I4 = IntVector.SPECIES_128;
    private static final VectorSpecies<Integer> I8 = IntVector.SPECIES_256;
    private static final VectorSpecies<Long> L4 = LongVector.SPECIES_256;
    private static final ByteOrder NATIVE = ByteOrder.nativeOrder();
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;

    @Override public long reduce(MemorySegment in, long from, long to) {
        return IN_LONG ? inLong(in, from, to) : inInt(in, from, to);
    }

    private static LongVector widen(MemorySegment in, long byteOffset) {
        return (LongVector) IntVector.fromMemorySegment(I4, in, byteOffset, NATIVE).convertShape(VectorOperators.I2L, L4, 0);
    }

    private static long inLong(MemorySegment in, long from, long to) {
        LongVector a0 = LongVector.broadcast(L4, OP == Op.PROD ? 1 : 0), a1 = a0;
        long i = from, end = from + ((to - from) & ~7L);
        for (; i < end; i += 8) {
            long b = i * Integer.BYTES;
            a0 = a0.lanewise(LANE_OP, widen(in, b));
            a1 = a1.lanewise(LANE_OP, widen(in, b + 16));
        }
        long r = a0.lanewise(LANE_OP, a1).reduceLanes(LANE_OP);
        for (; i < to; i++) {
            r = LaneOps.apply(OP, r, in.getAtIndex(INT, i));
        }
        return r;
    }

    private static long inInt(MemorySegment in, long from, long to) {
        IntVector a0 = IntVector.broadcast(I8, (int) LaneOps.integralIdentity(OP, Integer.MIN_VALUE, Integer.MAX_VALUE)), a1 = a0;
        long i = from, end = from + ((to - from) & ~15L);
        for (; i < end; i += 16) {
            long b = i * Integer.BYTES;
            a0 = a0.lanewise(LANE_OP, IntVector.fromMemorySegment(I8, in, b, NATIVE));
            a1 = a1.lanewise(LANE_OP, IntVector.fromMemorySegment(I8, in, b + 32, NATIVE));
        }
        if (to - i >= 8) { // one more plain vector: fewer than 8 left after it
            a0 = a0.lanewise(LANE_OP, IntVector.fromMemorySegment(I8, in, i * Integer.BYTES, NATIVE));
            i += 8;
        }
        if (i < to) { // no Math.min/max per element: C2 makes it a branch that mispredicts on random data
            if (IDEMPOTENT && to - from >= 8) { // MIN, MAX, AND, OR: folding some elements twice changes nothing
                a1 = a1.lanewise(LANE_OP, IntVector.fromMemorySegment(I8, in, (to - 8) * Integer.BYTES, NATIVE));
            } else {
                VectorMask<Integer> m = VectorMask.fromLong(I8, (1L << (to - i)) - 1);
                a1 = a1.lanewise(LANE_OP, IntVector.fromMemorySegment(I8, in, i * Integer.BYTES, NATIVE, m), m);
            }
        }
        return a0.lanewise(LANE_OP, a1).reduceLanes(LANE_OP);
    }
}
