package dev.primer.cpu;

import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorMask;
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
 * blocks of 4 lanes, four ints widening to four longs in one conversion; otherwise as
 * {@link LongBlockScan}. Exact (until int64 wraps).
 */
final class IntToLongBlockScan implements ChunkScanner {
    private static final boolean INCLUSIVE = Specialized.spec(MethodHandles.lookup()).inclusive();

    private static final VectorSpecies<Integer> I4 = IntVector.SPECIES_128;
    private static final VectorSpecies<Long> S = LongVector.SPECIES_256;
    private static final int LANES = 4;
    private static final VectorShuffle<Long> LAST = VectorShuffle.fromOp(S, i -> LANES - 1);
    private static final VectorShuffle<Long> PAIRS = VectorShuffle.fromOp(S, i -> i & ~1);
    private static final VectorShuffle<Long> HALVES = VectorShuffle.fromOp(S, i -> 1);
    private static final VectorShuffle<Long> UP1 = VectorShuffle.fromOp(S, i -> i - 1 & 3);
    private static final VectorMask<Long> EVEN = VectorMask.fromLong(S, 0x5);
    private static final VectorMask<Long> LOW_HALF = VectorMask.fromLong(S, 0x3);
    private static final VectorMask<Long> FIRST = VectorMask.fromLong(S, 0x1);
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
     * Scans {@code count} whole blocks of 4 (widened) elements from the running value; returns it after
     * them. Sklansky steps in each vector (pairs, then halves), two vectors per iteration, the running
     * value advanced by each vector's total formed beside the prefix (see {@link IntBlockScan}).
     */
    private static long blocks(MemorySegment in, long inByte, MemorySegment out, long outByte, long count, long r) {
        LongVector running = LongVector.broadcast(S, r);
        long b = 0;
        for (; b + 1 < count; b += 2) {
            LongVector v0 = prefix(widen(in, inByte + b * (LANES * 4)));
            LongVector v1 = prefix(widen(in, inByte + b * (LANES * 4) + 16));
            LongVector r1 = running.add(v0.rearrange(LAST));
            long o = outByte + b * (LANES * 8);
            (INCLUSIVE ? running.add(v0) : running.add(v0.rearrange(UP1).blend(0, FIRST))).intoMemorySegment(out, o, NATIVE);
            (INCLUSIVE ? r1.add(v1) : r1.add(v1.rearrange(UP1).blend(0, FIRST))).intoMemorySegment(out, o + LANES * 8, NATIVE);
            running = r1.add(v1.rearrange(LAST));
        }
        for (; b < count; b++) {
            LongVector v = prefix(widen(in, inByte + b * (LANES * 4)));
            (INCLUSIVE ? running.add(v) : running.add(v.rearrange(UP1).blend(0, FIRST))).intoMemorySegment(out, outByte + b * (LANES * 8), NATIVE);
            running = running.add(v.rearrange(LAST));
        }
        return running.lane(0);
    }

    private static LongVector prefix(LongVector v) {
        v = v.add(v.rearrange(PAIRS).blend(0, EVEN));
        return v.add(v.rearrange(HALVES).blend(0, LOW_HALF));
    }
}
