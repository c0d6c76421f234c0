package dev.primer.cpu;

import dev.primer.Op;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.nio.ByteOrder;

/**
 * Template (see {@link Specialized}): one chunk of float64 values reduced with {@code OP}.
 *
 * <p><b>Fixed order.</b> As {@link FloatChunkReduce}: SUM and PROD accumulate in 16 logical lanes
 * (element {@code from + 16q + r} to lane {@code r}), combined by the same fixed tree, then the last
 * {@code (to - from) % 16} elements one at a time. MIN/MAX are exact in any order.
 */
final class DoubleChunkReduce implements FloatingChunkReducer {
    private static final Op OP = Specialized.spec(MethodHandles.lookup()).op();
    private static final VectorOperators.Associative LANE_OP = LaneOps.vectorOperator(OP);
    private static final boolean SUM_OR_PROD = OP == Op.SUM || OP == Op.PROD;

    private static final VectorSpecies<Double> D4 = DoubleVector.SPECIES_256;
    private static final ByteOrder NATIVE = ByteOrder.nativeOrder();
    private static final ValueLayout.OfDouble DOUBLE = ValueLayout.JAVA_DOUBLE_UNALIGNED;

    @Override public double reduce(MemorySegment in, long from, long to) {
        return SUM_OR_PROD ? sumOrProd(in, from, to) : inLanes(in, from, to);
    }

    private static double sumOrProd(MemorySegment in, long from, long to) {
        DoubleVector a0 = DoubleVector.broadcast(D4, OP == Op.PROD ? 1.0 : 0.0), a1 = a0, a2 = a0, a3 = a0;
        long i = from, end = from + ((to - from) & ~15L);
        for (; i < end; i += 16) {
            long b = i * Double.BYTES;
            a0 = a0.lanewise(LANE_OP, DoubleVector.fromMemorySegment(D4, in, b, NATIVE));
            a1 = a1.lanewise(LANE_OP, DoubleVector.fromMemorySegment(D4, in, b + 32, NATIVE));
            a2 = a2.lanewise(LANE_OP, DoubleVector.fromMemorySegment(D4, in, b + 64, NATIVE));
            a3 = a3.lanewise(LANE_OP, DoubleVector.fromMemorySegment(D4, in, b + 96, NATIVE));
        }
        DoubleVector m = a0.lanewise(LANE_OP, a1).lanewise(LANE_OP, a2.lanewise(LANE_OP, a3));
        double r = LaneOps.apply(OP, LaneOps.apply(OP, m.lane(0), m.lane(1)), LaneOps.apply(OP, m.lane(2), m.lane(3)));
        for (; i < to; i++) {
            r = LaneOps.apply(OP, r, in.getAtIndex(DOUBLE, i));
        }
        return r;
    }

    private static double inLanes(MemorySegment in, long from, long to) {
        DoubleVector a0 = DoubleVector.broadcast(D4, LaneOps.floatingIdentity(OP)), a1 = a0;
        long i = from, end = from + ((to - from) & ~7L);
        for (; i < end; i += 8) {
            long b = i * Double.BYTES;
            a0 = a0.lanewise(LANE_OP, DoubleVector.fromMemorySegment(D4, in, b, NATIVE));
            a1 = a1.lanewise(LANE_OP, DoubleVector.fromMemorySegment(D4, in, b + 32, NATIVE));
        }
        if (to - i >= 4) { // one more plain vector: fewer than 4 left after it
            a0 = a0.lanewise(LANE_OP, DoubleVector.fromMemorySegment(D4, in, i * Double.BYTES, NATIVE));
            i += 4;
        }
        if (i < to) { // no Math.min/max per element: C2 makes it a branch that mispredicts on random data
            if (to - from >= 4) { // MIN and MAX: folding some elements twice changes nothing
                a1 = a1.lanewise(LANE_OP, DoubleVector.fromMemorySegment(D4, in, (to - 4) * Double.BYTES, NATIVE));
            } else {
                VectorMask<Double> m = VectorMask.fromLong(D4, (1L << (to - i)) - 1);
                a1 = a1.lanewise(LANE_OP, DoubleVector.fromMemorySegment(D4, in, i * Double.BYTES, NATIVE, m), m);
            }
        }
        return a0.lanewise(LANE_OP, a1).reduceLanes(LANE_OP);
    }
}
