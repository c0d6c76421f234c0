package dev.primer.cpu;

import dev.primer.DType;
import dev.primer.Op;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Reductions of one chunk of int8, int32 or int64 values (Vector API). Integer operators are exact
 * (or wrap exactly), so lane order does not matter. Results are longs: int8/int32 SUM and PROD
 * accumulate in int64 (wrapping as Java's long arithmetic); the other operators give the element's
 * value sign-extended.
 */
final class IntegralKernels {
    private IntegralKernels() {}

    private static final VectorSpecies<Byte> B8 = ByteVector.SPECIES_64;
    private static final VectorSpecies<Byte> B32 = ByteVector.SPECIES_256;
    private static final VectorSpecies<Integer> I4 = IntVector.SPECIES_128;
    private static final VectorSpecies<Integer> I8 = IntVector.SPECIES_256;
    private static final VectorSpecies<Long> L4 = LongVector.SPECIES_256;
    private static final ByteOrder NATIVE = ByteOrder.nativeOrder();
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

    /** {@code op} over the elements {@code [from, to)}; LONG SUM goes to {@link #longSum} instead. */
    static long reduce(DType type, Op op, MemorySegment in, long from, long to) {
        return switch (type) {
            case BYTE -> op == Op.SUM ? byteSum(in, from, to) : op == Op.PROD ? byteProd(in, from, to) : bytes(op, in, from, to);
            case INT -> op == Op.SUM || op == Op.PROD ? intWidened(op, in, from, to) : ints(op, in, from, to);
            case LONG -> longs(op, in, from, to);
            default -> throw new IllegalArgumentException("type: " + type + " is not an integer type");
        };
    }

    /** int32 SUM/PROD in int64 lanes: four ints widen to four longs in one conversion. */
    private static long intWidened(Op op, MemorySegment in, long from, long to) {
        LongVector a0 = LongVector.broadcast(L4, op == Op.SUM ? 0 : 1), a1 = a0;
        long i = from, end = from + ((to - from) & ~7L);
        for (; i < end; i += 8) {
            long b = i * Integer.BYTES;
            a0 = LaneOps.apply(op, a0, (LongVector) IntVector.fromMemorySegment(I4, in, b, NATIVE)
                    .convertShape(VectorOperators.I2L, L4, 0));
            a1 = LaneOps.apply(op, a1, (LongVector) IntVector.fromMemorySegment(I4, in, b + 16, NATIVE)
                    .convertShape(VectorOperators.I2L, L4, 0));
        }
        long r = LaneOps.reduceLanes(op, LaneOps.apply(op, a0, a1));
        for (; i < to; i++) {
            r = LaneOps.apply(op, r, in.getAtIndex(INT, i));
        }
        return r;
    }

    /** int8 SUM: a chunk's sum fits int32 lanes (|sum| &lt;= 2^16 * 128), so bytes widen to ints only. */
    private static long byteSum(MemorySegment in, long from, long to) {
        IntVector a0 = IntVector.zero(I8), a1 = a0;
        long i = from, end = from + ((to - from) & ~15L);
        for (; i < end; i += 16) {
            a0 = a0.add((IntVector) ByteVector.fromMemorySegment(B8, in, i, NATIVE).convertShape(VectorOperators.B2I, I8, 0));
            a1 = a1.add((IntVector) ByteVector.fromMemorySegment(B8, in, i + 8, NATIVE).convertShape(VectorOperators.B2I, I8, 0));
        }
        long r = (long) a0.reduceLanes(VectorOperators.ADD) + a1.reduceLanes(VectorOperators.ADD);
        for (; i < to; i++) {
            r += in.get(ValueLayout.JAVA_BYTE, i);
        }
        return r;
    }

    /** int8 PROD: rare; four independent scalar products. */
    private static long byteProd(MemorySegment in, long from, long to) {
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

    /** int8 MIN/MAX/AND/OR/XOR in byte lanes (exact in the element type). */
    private static long bytes(Op op, MemorySegment in, long from, long to) {
        ByteVector a0 = ByteVector.broadcast(B32, (byte) LaneOps.integralIdentity(op, Byte.MIN_VALUE, Byte.MAX_VALUE)), a1 = a0;
        long i = from, end = from + ((to - from) & ~63L);
        for (; i < end; i += 64) {
            a0 = LaneOps.apply(op, a0, ByteVector.fromMemorySegment(B32, in, i, NATIVE));
            a1 = LaneOps.apply(op, a1, ByteVector.fromMemorySegment(B32, in, i + 32, NATIVE));
        }
        long r = LaneOps.reduceLanes(op, LaneOps.apply(op, a0, a1));
        for (; i < to; i++) {
            r = LaneOps.apply(op, r, in.get(ValueLayout.JAVA_BYTE, i));
        }
        return r;
    }

    /** int32 MIN/MAX/AND/OR/XOR in int lanes. */
    private static long ints(Op op, MemorySegment in, long from, long to) {
        IntVector a0 = IntVector.broadcast(I8, (int) LaneOps.integralIdentity(op, Integer.MIN_VALUE, Integer.MAX_VALUE)), a1 = a0;
        long i = from, end = from + ((to - from) & ~15L);
        for (; i < end; i += 16) {
            long b = i * Integer.BYTES;
            a0 = LaneOps.apply(op, a0, IntVector.fromMemorySegment(I8, in, b, NATIVE));
            a1 = LaneOps.apply(op, a1, IntVector.fromMemorySegment(I8, in, b + 32, NATIVE));
        }
        long r = LaneOps.reduceLanes(op, LaneOps.apply(op, a0, a1));
        for (; i < to; i++) {
            r = LaneOps.apply(op, r, in.getAtIndex(INT, i));
        }
        return r;
    }

    /** int64 PROD/MIN/MAX/AND/OR/XOR in long lanes (PROD wraps as Java's long multiplication). */
    private static long longs(Op op, MemorySegment in, long from, long to) {
        LongVector a0 = LongVector.broadcast(L4, LaneOps.integralIdentity(op, Long.MIN_VALUE, Long.MAX_VALUE)), a1 = a0;
        long i = from, end = from + ((to - from) & ~7L);
        for (; i < end; i += 8) {
            long b = i * Long.BYTES;
            a0 = LaneOps.apply(op, a0, LongVector.fromMemorySegment(L4, in, b, NATIVE));
            a1 = LaneOps.apply(op, a1, LongVector.fromMemorySegment(L4, in, b + 32, NATIVE));
        }
        long r = LaneOps.reduceLanes(op, LaneOps.apply(op, a0, a1));
        for (; i < to; i++) {
            r = LaneOps.apply(op, r, in.getAtIndex(LONG, i));
        }
        return r;
    }

    /**
     * int64 SUM, exactly: each value splits into its signed high and unsigned low 32 bits, summed in
     * separate long lanes (a chunk's partial sums stay below 2^48 in magnitude), joined in 128 bits.
     */
    static ExactLongSum longSum(MemorySegment in, long from, long to) {
        LongVector hi0 = LongVector.zero(L4), hi1 = hi0, lo0 = hi0, lo1 = hi0;
        long i = from, end = from + ((to - from) & ~7L);
        for (; i < end; i += 8) {
            long b = i * Long.BYTES;
            LongVector v0 = LongVector.fromMemorySegment(L4, in, b, NATIVE);
            LongVector v1 = LongVector.fromMemorySegment(L4, in, b + 32, NATIVE);
            hi0 = hi0.add(v0.lanewise(VectorOperators.ASHR, 32));
            hi1 = hi1.add(v1.lanewise(VectorOperators.ASHR, 32));
            lo0 = lo0.add(v0.and(0xFFFF_FFFFL));
            lo1 = lo1.add(v1.and(0xFFFF_FFFFL));
        }
        long hi = hi0.add(hi1).reduceLanes(VectorOperators.ADD);
        long lo = lo0.add(lo1).reduceLanes(VectorOperators.ADD);
        for (; i < to; i++) {
            long x = in.getAtIndex(LONG, i);
            hi += x >> 32;
            lo += x & 0xFFFF_FFFFL;
        }
        return ExactLongSum.ofHalves(hi, lo);
    }
}
