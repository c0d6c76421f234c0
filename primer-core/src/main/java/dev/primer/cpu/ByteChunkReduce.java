package dev.primer.cpu;

import dev.primer.Op;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.nio.ByteOrder;

/**
 * Template (see {@link Specialized}): one chunk of int8 values reduced with {@code OP}, to a long.
 * SUM runs in int lanes (a chunk's sum stays below 2^23 in magnitude), PROD one element at a time in
 * four int64 products (rare), the bitwise operators and MIN/MAX in byte lanes.
 */
final class ByteChunkReduce implements IntegralChunkReducer {
    private static final Op OP = Specialized.spec(MethodHandles.lookup()).op();
    private static final VectorOperators.Associative LANE_OP = LaneOps.vectorOperator(OP);

    private static final VectorSpecies<Byte> B8 = ByteVector.SPECIES_64;
    private static final VectorSpecies<Byte> B32 = ByteVector.SPECIES_256;
    private static final VectorSpecies<Integer> I8 = IntVector.SPECIES_256;
    private static final ByteOrder NATIVE = ByteOrder.nativeOrder();

    @Override public long reduce(MemorySegment in, long from, long to) {
        return OP == Op.SUM ? sum(in, from, to) : OP == Op.PROD ? product(in, from, to) : inBytes(in, from, to);
    }

    private static long sum(MemorySegment in, long from, long to) {
        IntVector a0 = IntVector.zero(I8), a1 = a0;
        long i = from, end = from + ((to - from) & ~15L);
        for (; i < end; i += 16) {
            a0 = a0.add((IntVector) ByteVector.fromMemorySegment(B8, in, i, NATIVE).convertShape(VectorOperators.B2I, I8, 0));
            a1 = a1.add((IntVector) ByteVector.fromMemorySegment(B8, in, i + 8, NATIVE).convertShape(VectorOperators.B2I, I8, 0));
        }
        long r = a0.add(a1).reduceLanes(VectorOperators.ADD);
        for (; i < to; i++) {
            r += in.get(ValueLayout.JAVA_BYTE, i);
        }
        return r;
    }

    private static long product(MemorySegment in, long from, long to) {
        long p0 = 1, p1 = 1, p2 = 1, p3 = 1;
        long i = from, end = from + ((to - from) & ~3L);
        for (; i < end; i += 4) {
            p0 *= in.get(ValueLayout.JAVA_BYTE, i);
            p1 *= in.get(ValueLayout.JAVA_BYTE, i + 1);
            p2 *= in.get(ValueLayout.JAVA_BYTE, i + 2);
            p3 *= in.get(ValueLayout.JAVA_BYTE, i + 3);
        }
        long r = (p0 * p1) * (p2 * p3);
        for (; i < to; i++) {
            r *= in.get(ValueLayout.JAVA_BYTE, i);
        }
        return r;
    }

    private static long inBytes(MemorySegment in, long from, long to) {
        ByteVector a0 = ByteVector.broadcast(B32, (byte) LaneOps.integralIdentity(OP, Byte.MIN_VALUE, Byte.MAX_VALUE)), a1 = a0;
        long i = from, end = from + ((to - from) & ~63L);
        for (; i < end; i += 64) {
            a0 = a0.lanewise(LANE_OP, ByteVector.fromMemorySegment(B32, in, i, NATIVE));
            a1 = a1.lanewise(LANE_OP, ByteVector.fromMemorySegment(B32, in, i + 32, NATIVE));
        }
        long r = a0.lanewise(LANE_OP, a1).reduceLanes(LANE_OP);
        for (; i < to; i++) {
            r = LaneOps.apply(OP, r, in.get(ValueLayout.JAVA_BYTE, i));
        }
        return r;
    }
}
