package dev.primer.cpu;

import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.nio.ByteOrder;

/**
 * Template (see {@link Specialized}; only {@code INCLUSIVE} varies): int32 in, int64 out, SUM scan in
 * blocks of 4 elements by a scalar loop (as {@link LongBlockScan}); the total is a vector reduction,
 * four ints widening to four longs in one conversion. Exact (until int64 wraps).
 */
final class IntToLongBlockScan implements ChunkScanner {
    private static final boolean INCLUSIVE = Specialized.spec(MethodHandles.lookup()).inclusive();

    private static final VectorSpecies<Integer> I4 = IntVector.SPECIES_128;
    private static final VectorSpecies<Long> S = LongVector.SPECIES_256;
    private static final int LANES = 4;
    private static final VectorShuffle<Long> LAST = VectorShuffle.fromOp(S, i -> LANES - 1);
    private static final ByteOrder NATIVE = ByteOrder.nativeOrder();

    private static LongVector widen(MemorySegment in, long byteOffset) {
        return (LongVector) IntVector.fromMemorySegment(I4, in, byteOffset, NATIVE).convertShape(VectorOperators.I2L, S, 0);
    }

    @Override public long total(MemorySegment in, long from, long to) {
        LongVector a0 = LongVector.zero(S), a1 = a0;
        long i = from, end = from + ((to - from) & ~7L);
        for (; i < end; i += 8) {
            a0 = a0.add(widen(in, i * 4));
            a1 = a1.add(widen(in, i * 4 + 16));
        }
        long r = a0.add(a1).reduceLanes(VectorOperators.ADD);
        for (; i < to; i++) r += in.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i);
        return r;
    }

    @Override public void scan(MemorySegment in, MemorySegment out, long from, long to, long carry) {
        long whole = (to - from) / LANES, tail = from + whole * LANES;
        long running = blocks(in, from * 4, out, from * 8, whole, carry);
        if (tail < to) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment inBlock = arena.allocate(LANES * 4L, 16), outBlock = arena.allocate(LANES * 8L, 32);
                MemorySegment.copy(in, tail * 4, inBlock, 0, (to - tail) * 4); // the pad stays 0, the identity
                blocks(inBlock, 0, outBlock, 0, 1, running);
                MemorySegment.copy(outBlock, 0, out, tail * 8, (to - tail) * 8);
            }
        }
    }

    @Override public boolean splits() {
        return true; // exact in any order
    }

    @Override public long combine(long carry, long total) {
        return carry + total;
    }

    /**
     * Scans {@code count} whole blocks of 4 elements from the running value; returns it after them. A
     * scalar loop, as {@link LongBlockScan}: faster than a 4-lane int64 vector prefix on AVX2.
     */
    private static long blocks(MemorySegment in, long inByte, MemorySegment out, long outByte, long count, long r) {
        long inBase = inByte / 4, outBase = outByte / 8, n = count * LANES;
        for (long i = 0; i < n; i++) {
            long before = r;
            r += in.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, inBase + i);
            out.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, outBase + i, INCLUSIVE ? r : before);
        }
        return r;
    }
}
