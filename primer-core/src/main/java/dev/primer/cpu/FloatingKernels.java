package dev.primer.cpu;

import dev.primer.Op;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Reductions of one chunk of float32 or float64 values (Vector API).
 *
 * <p><b>Fixed order.</b> SUM and PROD accumulate in double in 16 logical lanes, whatever the
 * hardware's vector width: element {@code from + 16q + r} goes to lane {@code r}, each lane
 * accumulating left to right from 0.0 (SUM) or 1.0 (PROD). The 16 lanes then combine as
 * {@code l[r] op l[r+4] op l[r+8] op l[r+12]} (as {@code (l[r] op l[r+4]) op (l[r+8] op l[r+12])}),
 * those four as {@code (m0 op m1) op (m2 op m3)}, and the last {@code (to - from) % 16} elements join
 * one at a time. The result depends only on the values, not on threads or the CPU. MIN/MAX are exact
 * in any order. Each element passes through at most {@code CHUNK/16 + 4 + 15 = 4115} roundings here.
 */
final class FloatingKernels {
    private FloatingKernels() {}

    private static final VectorSpecies<Float> F4 = FloatVector.SPECIES_128;
    private static final VectorSpecies<Float> F8 = FloatVector.SPECIES_256;
    private static final VectorSpecies<Double> D4 = DoubleVector.SPECIES_256;
    private static final ByteOrder NATIVE = ByteOrder.nativeOrder();
    private static final ValueLayout.OfFloat FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final ValueLayout.OfDouble DOUBLE = ValueLayout.JAVA_DOUBLE_UNALIGNED;

    /** Longest path of roundings from an element of one chunk to that chunk's SUM/PROD result. */
    static final int ROUNDINGS_PER_CHUNK = Parallel.CHUNK / 16 + 4 + 15;

    /** SUM/PROD/MIN/MAX of the float32 elements {@code [from, to)}, in double. */
    static double reduceFloat(Op op, MemorySegment in, long from, long to) {
        return op == Op.SUM || op == Op.PROD ? floatSumOrProd(op, in, from, to) : floatMinOrMax(op, in, from, to);
    }

    /** SUM/PROD/MIN/MAX of the float64 elements {@code [from, to)}. */
    static double reduceDouble(Op op, MemorySegment in, long from, long to) {
        return op == Op.SUM || op == Op.PROD ? doubleSumOrProd(op, in, from, to) : doubleMinOrMax(op, in, from, to);
    }

    private static double start(Op op) {
        return op == Op.SUM ? 0.0 : 1.0;
    }

    private static DoubleVector widen(MemorySegment in, long byteOffset) {
        // Four floats become four doubles in one conversion: no lane shuffling.
        return (DoubleVector) FloatVector.fromMemorySegment(F4, in, byteOffset, NATIVE)
                .convertShape(VectorOperators.F2D, D4, 0);
    }

    private static double floatSumOrProd(Op op, MemorySegment in, long from, long to) {
        DoubleVector a0 = DoubleVector.broadcast(D4, start(op)), a1 = a0, a2 = a0, a3 = a0;
        long i = from, end = from + ((to - from) & ~15L);
        for (; i < end; i += 16) {
            long b = i * Float.BYTES;
            a0 = LaneOps.apply(op, a0, widen(in, b));
            a1 = LaneOps.apply(op, a1, widen(in, b + 16));
            a2 = LaneOps.apply(op, a2, widen(in, b + 32));
            a3 = LaneOps.apply(op, a3, widen(in, b + 48));
        }
        double r = combine16(op, a0, a1, a2, a3);
        for (; i < to; i++) {
            r = LaneOps.apply(op, r, (double) in.getAtIndex(FLOAT, i));
        }
        return r;
    }

    private static double doubleSumOrProd(Op op, MemorySegment in, long from, long to) {
        DoubleVector a0 = DoubleVector.broadcast(D4, start(op)), a1 = a0, a2 = a0, a3 = a0;
        long i = from, end = from + ((to - from) & ~15L);
        for (; i < end; i += 16) {
            long b = i * Double.BYTES;
            a0 = LaneOps.apply(op, a0, DoubleVector.fromMemorySegment(D4, in, b, NATIVE));
            a1 = LaneOps.apply(op, a1, DoubleVector.fromMemorySegment(D4, in, b + 32, NATIVE));
            a2 = LaneOps.apply(op, a2, DoubleVector.fromMemorySegment(D4, in, b + 64, NATIVE));
            a3 = LaneOps.apply(op, a3, DoubleVector.fromMemorySegment(D4, in, b + 96, NATIVE));
        }
        double r = combine16(op, a0, a1, a2, a3);
        for (; i < to; i++) {
            r = LaneOps.apply(op, r, in.getAtIndex(DOUBLE, i));
        }
        return r;
    }

    /** The fixed tree over the 16 logical lanes held by four 4-lane vectors. */
    private static double combine16(Op op, DoubleVector a0, DoubleVector a1, DoubleVector a2, DoubleVector a3) {
        DoubleVector m = LaneOps.apply(op, LaneOps.apply(op, a0, a1), LaneOps.apply(op, a2, a3));
        return LaneOps.apply(op, LaneOps.apply(op, m.lane(0), m.lane(1)), LaneOps.apply(op, m.lane(2), m.lane(3)));
    }

    private static double floatMinOrMax(Op op, MemorySegment in, long from, long to) {
        FloatVector a0 = FloatVector.broadcast(F8, (float) LaneOps.floatingIdentity(op)), a1 = a0;
        long i = from, end = from + ((to - from) & ~15L);
        for (; i < end; i += 16) {
            long b = i * Float.BYTES;
            a0 = LaneOps.apply(op, a0, FloatVector.fromMemorySegment(F8, in, b, NATIVE));
            a1 = LaneOps.apply(op, a1, FloatVector.fromMemorySegment(F8, in, b + 32, NATIVE));
        }
        float r = LaneOps.reduceLanes(op, LaneOps.apply(op, a0, a1));
        for (; i < to; i++) {
            r = LaneOps.apply(op, r, in.getAtIndex(FLOAT, i));
        }
        return r;
    }

    private static double doubleMinOrMax(Op op, MemorySegment in, long from, long to) {
        DoubleVector a0 = DoubleVector.broadcast(D4, LaneOps.floatingIdentity(op)), a1 = a0;
        long i = from, end = from + ((to - from) & ~7L);
        for (; i < end; i += 8) {
            long b = i * Double.BYTES;
            a0 = LaneOps.apply(op, a0, DoubleVector.fromMemorySegment(D4, in, b, NATIVE));
            a1 = LaneOps.apply(op, a1, DoubleVector.fromMemorySegment(D4, in, b + 32, NATIVE));
        }
        double r = LaneOps.reduceLanes(op, LaneOps.apply(op, a0, a1));
        for (; i < to; i++) {
            r = LaneOps.apply(op, r, in.getAtIndex(DOUBLE, i));
        }
        return r;
    }
}
