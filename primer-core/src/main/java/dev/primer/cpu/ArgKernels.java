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

    /** The best key of {@code [from, to)} (non-empty, at most one chunk) and its first index. */
    static Best chunk(DType type, boolean max, MemorySegment in, long from, long to) {
        return switch (type) {
            case BYTE, INT, FLOAT -> intKeys(type, max, in, from, to);
            case LONG, DOUBLE -> longKeys(type, max, in, from, to);
        };
    }

    private static IntVector intKeys(DType type, boolean max, MemorySegment in, long i) {
        return switch (type) {
            case BYTE -> (IntVector) ByteVector.fromMemorySegment(B8, in, i, NATIVE).convertShape(VectorOperators.B2I, I8, 0);
            case INT -> IntVector.fromMemorySegment(I8, in, i * Integer.BYTES, NATIVE);
            default -> {
                IntVector bits = IntVector.fromMemorySegment(I8, in, i * Float.BYTES, NATIVE);
                IntVector keys = bits.lanewise(VectorOperators.XOR, bits.lanewise(VectorOperators.ASHR, 31).and(0x7FFF_FFFF));
                VectorMask<Integer> nan = bits.and(0x7FFF_FFFF).compare(VectorOperators.GT, 0x7F80_0000);
                yield keys.blend(max ? Integer.MAX_VALUE : Integer.MIN_VALUE, nan);
            }
        };
    }

    private static Best intKeys(DType type, boolean max, MemorySegment in, long from, long to) {
        IntVector best = IntVector.broadcast(I8, max ? Integer.MIN_VALUE : Integer.MAX_VALUE);
        IntVector bestAt = IntVector.broadcast(I8, -1);   // index relative to from
        IntVector at = IntVector.zero(I8).addIndex(1);
        long i = from, end = from + ((to - from) & ~7L);
        for (; i < end; i += 8) {
            IntVector k = intKeys(type, max, in, i);
            VectorMask<Integer> better = max ? k.compare(VectorOperators.GT, best) : k.compare(VectorOperators.LT, best);
            best = best.blend(k, better);
            bestAt = bestAt.blend(at, better);
            at = at.add(8);
        }
        long key, index;
        if (end > from) {
            int start = max ? Integer.MIN_VALUE : Integer.MAX_VALUE;
            int top = max ? best.reduceLanes(VectorOperators.MAX) : best.reduceLanes(VectorOperators.MIN);
            // The lanes that reached the top saw it at different places: take the first. If the top is
            // the start value, every key equals it and no lane ever moved: the first index is from.
            VectorMask<Integer> atTop = best.compare(VectorOperators.EQ, top);
            key = top;
            index = top == start ? from : from + bestAt.blend(Integer.MAX_VALUE, atTop.not()).reduceLanes(VectorOperators.MIN);
        } else {
            key = key(type, max, in, from);
            index = from;
            i = from + 1;
        }
        for (; i < to; i++) {
            long k = key(type, max, in, i);
            if (max ? k > key : k < key) {
                key = k;
                index = i;
            }
        }
        return new Best(key, index);
    }

    private static LongVector longKeys(DType type, boolean max, MemorySegment in, long i) {
        LongVector bits = LongVector.fromMemorySegment(L4, in, i * Long.BYTES, NATIVE);
        if (type == DType.LONG) return bits;
        LongVector keys = bits.lanewise(VectorOperators.XOR, bits.lanewise(VectorOperators.ASHR, 63).and(0x7FFF_FFFF_FFFF_FFFFL));
        VectorMask<Long> nan = bits.and(0x7FFF_FFFF_FFFF_FFFFL).compare(VectorOperators.GT, 0x7FF0_0000_0000_0000L);
        return keys.blend(max ? Long.MAX_VALUE : Long.MIN_VALUE, nan);
    }

    private static Best longKeys(DType type, boolean max, MemorySegment in, long from, long to) {
        LongVector best = LongVector.broadcast(L4, max ? Long.MIN_VALUE : Long.MAX_VALUE);
        LongVector bestAt = LongVector.broadcast(L4, -1);
        LongVector at = LongVector.zero(L4).addIndex(1);
        long i = from, end = from + ((to - from) & ~3L);
        for (; i < end; i += 4) {
            LongVector k = longKeys(type, max, in, i);
            VectorMask<Long> better = max ? k.compare(VectorOperators.GT, best) : k.compare(VectorOperators.LT, best);
            best = best.blend(k, better);
            bestAt = bestAt.blend(at, better);
            at = at.add(4);
        }
        long key, index;
        if (end > from) {
            long start = max ? Long.MIN_VALUE : Long.MAX_VALUE;
            long top = max ? best.reduceLanes(VectorOperators.MAX) : best.reduceLanes(VectorOperators.MIN);
            VectorMask<Long> atTop = best.compare(VectorOperators.EQ, top);
            key = top;
            index = top == start ? from : from + bestAt.blend(Long.MAX_VALUE, atTop.not()).reduceLanes(VectorOperators.MIN);
        } else {
            key = key(type, max, in, from);
            index = from;
            i = from + 1;
        }
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
