package dev.primer.cpu;

import dev.primer.DType;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Argmin/argmax of one chunk (Vector API): the first index of the extreme value.
 *
 * <p>Every element maps to an integer <i>key</i> whose order is the order argmin/argmax need: the
 * value itself for integers; for floats the IEEE bits folded so that integer order is numeric order
 * with -0.0 below 0.0, and NaN mapped past every number on the side being searched for (NaN is the
 * extreme, as Math.min/Math.max make it). Then the answer is the first index of the largest (argmax)
 * or smallest (argmin) key: each lane keeps its best key and the first index that had it.
 */
final class ArgKernels {
    private ArgKernels() {}

    /** An extreme key and the first index (absolute, in the segment) where it occurs. */
    record Best(long key, long index) {
        /** The better of two chunk results, {@code left} covering the lower indices. */
        static Best combine(Best left, Best right, boolean max) {
            boolean rightWins = max ? right.key > left.key : right.key < left.key;
            return rightWins ? right : left;
        }
    }

    private static final VectorSpecies<Byte> B8 = ByteVector.SPECIES_64;
    private static final VectorSpecies<Integer> I8 = IntVector.SPECIES_256;
    private static final VectorSpecies<Long> L4 = LongVector.SPECIES_256;
    private static final ByteOrder NATIVE = ByteOrder.nativeOrder();

    static int floatKey(int bits, boolean max) {
        if ((bits & 0x7FFF_FFFF) > 0x7F80_0000) return max ? Integer.MAX_VALUE : Integer.MIN_VALUE;
        return bits ^ ((bits >> 31) & 0x7FFF_FFFF);
    }

    static long doubleKey(long bits, boolean max) {
        if ((bits & 0x7FFF_FFFF_FFFF_FFFFL) > 0x7FF0_0000_0000_0000L) return max ? Long.MAX_VALUE : Long.MIN_VALUE;
        return bits ^ ((bits >> 63) & 0x7FFF_FFFF_FFFF_FFFFL);
    }

    /** The float whose key is {@code key} (a NaN for the NaN key): the fold is its own inverse. */
    static float floatOfKey(int key) {
        return Float.intBitsToFloat(key ^ ((key >> 31) & 0x7FFF_FFFF));
    }

    /** The double whose key is {@code key} (a NaN for the NaN key). */
    static double doubleOfKey(long key) {
        return Double.longBitsToDouble(key ^ ((key >> 63) & 0x7FFF_FFFF_FFFF_FFFFL));
    }

    /** The element's key (see the class comment). */
    static long key(DType type, boolean max, MemorySegment in, long i) {
        return switch (type) {
            case BYTE -> in.get(ValueLayout.JAVA_BYTE, i);
            case INT -> in.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i);
            case LONG -> in.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i);
            case FLOAT -> floatKey(in.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i), max);
            case DOUBLE -> doubleKey(in.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i), max);
        };
    }

    /**
     * The best key of {@code [from, to)} (non-empty, at most one chunk) and its first index. One loop per
     * element type: a loop shared by several types was compiled for the first one it met, and the others
     * then ran 3-10x slower than their own loops (float32 after int32, 16M elements on 2 cores: 19-51 ms
     * against 3.7-8; see docs/cpu-backend.md).
     */
    static Best chunk(DType type, boolean max, MemorySegment in, long from, long to) {
        return switch (type) {
            case BYTE -> bytes(max, in, from, to);
            case INT -> ints(max, in, from, to);
            case FLOAT -> floats(max, in, from, to);
            case LONG -> longs(max, in, from, to);
            case DOUBLE -> doubles(max, in, from, to);
        };
    }

    /** Float keys of 8 floats (see the class comment). */
    private static IntVector floatKeys(IntVector bits, boolean max) {
        IntVector keys = bits.lanewise(VectorOperators.XOR, bits.lanewise(VectorOperators.ASHR, 31).and(0x7FFF_FFFF));
        VectorMask<Integer> nan = bits.and(0x7FFF_FFFF).compare(VectorOperators.GT, 0x7F80_0000);
        return keys.blend(max ? Integer.MAX_VALUE : Integer.MIN_VALUE, nan);
    }

    /** Double keys of 4 doubles (see the class comment). */
    private static LongVector doubleKeys(LongVector bits, boolean max) {
        LongVector keys = bits.lanewise(VectorOperators.XOR, bits.lanewise(VectorOperators.ASHR, 63).and(0x7FFF_FFFF_FFFF_FFFFL));
        VectorMask<Long> nan = bits.and(0x7FFF_FFFF_FFFF_FFFFL).compare(VectorOperators.GT, 0x7FF0_0000_0000_0000L);
        return keys.blend(max ? Long.MAX_VALUE : Long.MIN_VALUE, nan);
    }

    // The loops below differ only in how they load keys. Each keeps its lanes' best keys and where
    // they were first seen in local vectors: held in an object, they were boxed at every step (5-10x
    // slower).

    private static Best bytes(boolean max, MemorySegment in, long from, long to) {
        IntVector best = IntVector.broadcast(I8, max ? Integer.MIN_VALUE : Integer.MAX_VALUE), bestAt = IntVector.broadcast(I8, -1);
        IntVector at = IntVector.zero(I8).addIndex(1);
        long end = from + ((to - from) & ~7L);
        for (long i = from; i < end; i += 8) {
            IntVector k = (IntVector) ByteVector.fromMemorySegment(B8, in, i, NATIVE).convertShape(VectorOperators.B2I, I8, 0);
            VectorMask<Integer> better = max ? k.compare(VectorOperators.GT, best) : k.compare(VectorOperators.LT, best);
            best = best.blend(k, better);
            bestAt = bestAt.blend(at, better);
            at = at.add(8);
        }
        return finish(DType.BYTE, max, in, from, to, end, best, bestAt);
    }

    private static Best ints(boolean max, MemorySegment in, long from, long to) {
        IntVector best = IntVector.broadcast(I8, max ? Integer.MIN_VALUE : Integer.MAX_VALUE), bestAt = IntVector.broadcast(I8, -1);
        IntVector at = IntVector.zero(I8).addIndex(1);
        long end = from + ((to - from) & ~7L);
        for (long i = from; i < end; i += 8) {
            IntVector k = IntVector.fromMemorySegment(I8, in, i * Integer.BYTES, NATIVE);
            VectorMask<Integer> better = max ? k.compare(VectorOperators.GT, best) : k.compare(VectorOperators.LT, best);
            best = best.blend(k, better);
            bestAt = bestAt.blend(at, better);
            at = at.add(8);
        }
        return finish(DType.INT, max, in, from, to, end, best, bestAt);
    }

    private static Best floats(boolean max, MemorySegment in, long from, long to) {
        IntVector best = IntVector.broadcast(I8, max ? Integer.MIN_VALUE : Integer.MAX_VALUE), bestAt = IntVector.broadcast(I8, -1);
        IntVector at = IntVector.zero(I8).addIndex(1);
        long end = from + ((to - from) & ~7L);
        for (long i = from; i < end; i += 8) {
            IntVector k = floatKeys(IntVector.fromMemorySegment(I8, in, i * Float.BYTES, NATIVE), max);
            VectorMask<Integer> better = max ? k.compare(VectorOperators.GT, best) : k.compare(VectorOperators.LT, best);
            best = best.blend(k, better);
            bestAt = bestAt.blend(at, better);
            at = at.add(8);
        }
        return finish(DType.FLOAT, max, in, from, to, end, best, bestAt);
    }

    /**
     * The top of the lanes' best keys and the first index where a lane saw it, then the scalar tail
     * {@code [end, to)}. If the top is the start key (no step ran, or every key equals it), no lane
     * ever moved and the first index is {@code from}; the tail takes over only on a strictly better key.
     */
    private static Best finish(DType type, boolean max, MemorySegment in, long from, long to, long end, IntVector best,
                               IntVector bestAt) {
        int start = max ? Integer.MIN_VALUE : Integer.MAX_VALUE;
        int top = max ? best.reduceLanes(VectorOperators.MAX) : best.reduceLanes(VectorOperators.MIN);
        // The lanes that reached the top saw it at different places: take the first.
        VectorMask<Integer> atTop = best.compare(VectorOperators.EQ, top);
        long index = top == start ? from : from + bestAt.blend(Integer.MAX_VALUE, atTop.not()).reduceLanes(VectorOperators.MIN);
        return tail(type, max, in, end, to, top, index);
    }

    private static Best longs(boolean max, MemorySegment in, long from, long to) {
        LongVector best = LongVector.broadcast(L4, max ? Long.MIN_VALUE : Long.MAX_VALUE), bestAt = LongVector.broadcast(L4, -1);
        LongVector at = LongVector.zero(L4).addIndex(1);
        long end = from + ((to - from) & ~3L);
        for (long i = from; i < end; i += 4) {
            LongVector k = LongVector.fromMemorySegment(L4, in, i * Long.BYTES, NATIVE);
            VectorMask<Long> better = max ? k.compare(VectorOperators.GT, best) : k.compare(VectorOperators.LT, best);
            best = best.blend(k, better);
            bestAt = bestAt.blend(at, better);
            at = at.add(4);
        }
        return finish(DType.LONG, max, in, from, to, end, best, bestAt);
    }

    private static Best doubles(boolean max, MemorySegment in, long from, long to) {
        LongVector best = LongVector.broadcast(L4, max ? Long.MIN_VALUE : Long.MAX_VALUE), bestAt = LongVector.broadcast(L4, -1);
        LongVector at = LongVector.zero(L4).addIndex(1);
        long end = from + ((to - from) & ~3L);
        for (long i = from; i < end; i += 4) {
            LongVector k = doubleKeys(LongVector.fromMemorySegment(L4, in, i * Double.BYTES, NATIVE), max);
            VectorMask<Long> better = max ? k.compare(VectorOperators.GT, best) : k.compare(VectorOperators.LT, best);
            best = best.blend(k, better);
            bestAt = bestAt.blend(at, better);
            at = at.add(4);
        }
        return finish(DType.DOUBLE, max, in, from, to, end, best, bestAt);
    }

    private static Best finish(DType type, boolean max, MemorySegment in, long from, long to, long end, LongVector best,
                               LongVector bestAt) {
        long start = max ? Long.MIN_VALUE : Long.MAX_VALUE;
        long top = max ? best.reduceLanes(VectorOperators.MAX) : best.reduceLanes(VectorOperators.MIN);
        VectorMask<Long> atTop = best.compare(VectorOperators.EQ, top);
        long index = top == start ? from : from + bestAt.blend(Long.MAX_VALUE, atTop.not()).reduceLanes(VectorOperators.MIN);
        return tail(type, max, in, end, to, top, index);
    }

    /** The scalar tail {@code [i, to)} after the best so far. */
    private static Best tail(DType type, boolean max, MemorySegment in, long i, long to, long key, long index) {
        for (; i < to; i++) {
            long k = key(type, max, in, i);
            if (max ? k > key : k < key) {
                key = k;
                index = i;
            }
        }
        return new Best(key, index);
    }
}
