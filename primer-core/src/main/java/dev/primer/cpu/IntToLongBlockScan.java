package dev.primer.cpu;

import static dev.primer.cpu.LongScanLanes.*;

import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.nio.ByteOrder;

/**
 * Template (see {@link Specialized}; only {@code INCLUSIVE} varies): int32 in, int64 out, SUM scan: in
 * vectors of 8 lanes with AVX-512, else a scalar loop (as {@link LongBlockScan}); the total is a vector
 * reduction, ints widening to longs in one conversion. Exact (until int64 wraps).
 */
final class IntToLongBlockScan implements ExactChunkScanner {
    private static final boolean INCLUSIVE = Specialized.spec(MethodHandles.lookup()).inclusive();

    private static final VectorSpecies<Integer> HALF = WIDE ? IntVector.SPECIES_256 : IntVector.SPECIES_128;
    private static final int BLOCK = 2 * LANES;
    private static final ByteOrder NATIVE = ByteOrder.nativeOrder();

    private static LongVector widen(MemorySegment in, long byteOffset) {
        return (LongVector) IntVector.fromMemorySegment(HALF, in, byteOffset, NATIVE).convertShape(VectorOperators.I2L, S, 0);
    }

    @Override public long total(MemorySegment in, long from, long to) {
        LongVector a0 = LongVector.zero(S), a1 = a0;
        long i = from, end = from + ((to - from) & -BLOCK);
        for (; i < end; i += BLOCK) {
            a0 = a0.add(widen(in, i * 4));
            a1 = a1.add(widen(in, (i + LANES) * 4));
        }
        long r = a0.add(a1).reduceLanes(VectorOperators.ADD);
        for (; i < to; i++) r += in.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i);
        return r;
    }

    @Override public void applyCarry(MemorySegment out, long from, long to, long carryBits) {
        LongVector carry = LongVector.broadcast(S, carryBits);
        long i = from;
        for (long end = to - BLOCK; i <= end; i += BLOCK) {
            carry.add(LongVector.fromMemorySegment(S, out, i * 8, NATIVE)).intoMemorySegment(out, i * 8, NATIVE);
            carry.add(LongVector.fromMemorySegment(S, out, (i + LANES) * 8, NATIVE)).intoMemorySegment(out, (i + LANES) * 8, NATIVE);
        }
        for (; i < to; i++) out.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i, carryBits + out.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i));
    }

    @Override public void scan(MemorySegment in, MemorySegment out, long from, long to, long carry) {
        scanFrom(in, out, from, to, carry);
    }

    @Override public long scanLocal(MemorySegment in, MemorySegment out, long from, long to) {
        return scanFrom(in, out, from, to, 0);
    }

    private static long scanFrom(MemorySegment in, MemorySegment out, long from, long to, long carry) {
        long tail = WIDE ? from + (to - from) / BLOCK * BLOCK : from;
        return serial(in, out, tail, to, blocks(in, from * 4, out, from * 8, (tail - from) / BLOCK, carry));
    }

    @Override public long combine(long carry, long total) {
        return carry + total;
    }

    /**
     * Scans {@code count} whole blocks of two vectors' elements from the running value; returns it
     * after them: Sklansky steps in 8 lanes (AVX-512; see {@link LongBlockScan}).
     */
    private static long blocks(MemorySegment in, long inByte, MemorySegment out, long outByte, long count, long r) {
        LongVector zero = LongVector.zero(S), running = LongVector.broadcast(S, r);
        for (long b = 0; b < count; b++) {
            long at = inByte + b * (BLOCK * 4), o = outByte + b * (BLOCK * 8);
            LongVector v0 = prefix(widen(in, at)), v1 = prefix(widen(in, at + LANES * 4));
            LongVector r1 = running.add(v0.rearrange(LAST));
            if (INCLUSIVE) {
                running.add(v0).intoMemorySegment(out, o, NATIVE);
                r1.add(v1).intoMemorySegment(out, o + LANES * 8, NATIVE);
            } else {
                running.add(v0.rearrange(UP1).blend(zero, FIRST)).intoMemorySegment(out, o, NATIVE);
                r1.add(v1.rearrange(UP1).blend(zero, FIRST)).intoMemorySegment(out, o + LANES * 8, NATIVE);
            }
            running = r1.add(v1.rearrange(LAST));
        }
        return running.lane(0);
    }

    /**
     * Scans elements {@code [from, to)} one at a time from the running value {@code r}: all of them
     * with AVX2 (see {@link LongBlockScan}), else the last partial block.
     */
    private static long serial(MemorySegment in, MemorySegment out, long from, long to, long r) {
        for (long i = from; i < to; i++) {
            long before = r;
            r += in.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i);
            out.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i, INCLUSIVE ? r : before);
        }
        return r;
    }

    private static LongVector prefix(LongVector v) {
        v = v.lanewise(VectorOperators.ADD, v.rearrange(FROM1), BIT1);
        v = v.lanewise(VectorOperators.ADD, v.rearrange(FROM2), BIT2);
        return v.lanewise(VectorOperators.ADD, v.rearrange(FROM4), BIT4);
    }
}
