package dev.primer.cpu;

import dev.primer.Op;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.nio.ByteOrder;

/**
 * Template (see {@link Specialized}): int32 scan of a chunk with {@code OP} (wrapping as Java's int
 * arithmetic), in blocks of two vectors as {@link FloatBlockScan}. Integers are exact in any order, so
 * the vectors are as wide as the CPU's (16 lanes with AVX-512, else 8), the carry enters the running
 * total at the start (or, scan-first, is applied afterwards) and the chunk's total is a plain reduction.
 */
final class IntBlockScan implements ExactChunkScanner {
    private static final Specialized.Spec SPEC = Specialized.spec(MethodHandles.lookup());
    private static final Op OP = SPEC.op();
    private static final boolean INCLUSIVE = SPEC.inclusive();
    private static final VectorOperators.Associative LANE_OP = LaneOps.vectorOperator(OP);
    private static final int IDENTITY = (int) LaneOps.integralIdentity(OP, Integer.MIN_VALUE, Integer.MAX_VALUE);

    private static final VectorSpecies<Integer> S =
            IntVector.SPECIES_PREFERRED.length() >= 16 ? IntVector.SPECIES_512 : IntVector.SPECIES_256;
    private static final int LANES = S.length(), BYTES = 4, BLOCK = 2 * LANES;
    private static final VectorShuffle<Integer> LAST = VectorShuffle.fromOp(S, i -> LANES - 1);
    private static final VectorShuffle<Integer> UP1 = VectorShuffle.fromOp(S, i -> i - 1 & LANES - 1);
    private static final VectorMask<Integer> FIRST = VectorMask.fromLong(S, 1);
    // Sklansky steps of width d = 1, 2, 4, 8 (LaneOps.sklanskyShuffle and sklanskyLanes).
    private static final VectorShuffle<Integer> FROM1 = LaneOps.sklanskyShuffle(S, 1),
            FROM2 = LaneOps.sklanskyShuffle(S, 2),
            FROM4 = LaneOps.sklanskyShuffle(S, 4),
            FROM8 = LaneOps.sklanskyShuffle(S, 8);
    private static final VectorMask<Integer> BIT1 = LaneOps.sklanskyLanes(S, 1),
            BIT2 = LaneOps.sklanskyLanes(S, 2),
            BIT4 = LaneOps.sklanskyLanes(S, 4),
            BIT8 = LaneOps.sklanskyLanes(S, 8);
    private static final ByteOrder NATIVE = ByteOrder.nativeOrder();
    private static final ValueLayout.OfInt ELEMENT = ValueLayout.JAVA_INT_UNALIGNED;

    @Override public long total(MemorySegment in, long from, long to) {
        IntVector a0 = IntVector.broadcast(S, IDENTITY), a1 = a0;
        long i = from, end = from + ((to - from) & ~(2L * LANES - 1));
        for (; i < end; i += 2 * LANES) {
            a0 = a0.lanewise(LANE_OP, IntVector.fromMemorySegment(S, in, i * BYTES, NATIVE));
            a1 = a1.lanewise(LANE_OP, IntVector.fromMemorySegment(S, in, (i + LANES) * BYTES, NATIVE));
        }
        long r = a0.lanewise(LANE_OP, a1).reduceLanes(LANE_OP);
        for (; i < to; i++) r = LaneOps.apply(OP, r, in.getAtIndex(ELEMENT, i));
        return (int) r;
    }

    @Override public void applyCarry(MemorySegment out, long from, long to, long carryBits) {
        IntVector carry = IntVector.broadcast(S, (int) carryBits);
        long i = from;
        for (long end = to - BLOCK; i <= end; i += BLOCK) {
            carry.lanewise(LANE_OP, IntVector.fromMemorySegment(S, out, i * BYTES, NATIVE)).intoMemorySegment(out, i * BYTES, NATIVE);
            carry.lanewise(LANE_OP, IntVector.fromMemorySegment(S, out, (i + LANES) * BYTES, NATIVE))
                    .intoMemorySegment(out, (i + LANES) * BYTES, NATIVE);
        }
        for (; i < to; i++) out.setAtIndex(ELEMENT, i, (int) LaneOps.apply(OP, carryBits, out.getAtIndex(ELEMENT, i)));
    }

    @Override public void scan(MemorySegment in, MemorySegment out, long from, long to, long carryBits) {
        scanFrom(in, out, from, to, carryBits);
    }

    @Override public long scanLocal(MemorySegment in, MemorySegment out, long from, long to) {
        return scanFrom(in, out, from, to, IDENTITY);
    }

    private static long scanFrom(MemorySegment in, MemorySegment out, long from, long to, long carryBits) {
        long whole = (to - from) / BLOCK, tail = from + whole * BLOCK;
        int running = blocks(in, from * BYTES, out, from * BYTES, whole, (int) carryBits);
        for (long i = tail; i < to; i++) { // the last partial block: one element at a time, exact in any order
            int before = running;
            running = (int) LaneOps.apply(OP, running, in.getAtIndex(ELEMENT, i));
            out.setAtIndex(ELEMENT, i, INCLUSIVE ? running : before);
        }
        return running;
    }

    @Override public long combine(long carryBits, long totalBits) {
        return (int) LaneOps.apply(OP, carryBits, totalBits);
    }

    /**
     * Scans {@code count} whole blocks of two vectors from the running value {@code carry op R}; returns
     * it after them. Integers are exact in any order, so each vector's prefix forms in Sklansky's shape
     * and the running value advances by the vector's total, formed beside the prefix, so that one
     * operation per vector depends on the one before.
     */
    private static int blocks(MemorySegment in, long inByte, MemorySegment out, long outByte, long count, int r) {
        IntVector id = IntVector.broadcast(S, IDENTITY), running = IntVector.broadcast(S, r);
        for (long b = 0; b < count; b++) {
            long at = inByte + b * (BLOCK * BYTES), o = outByte + b * (BLOCK * BYTES);
            IntVector v0 = prefix(IntVector.fromMemorySegment(S, in, at, NATIVE));
            IntVector v1 = prefix(IntVector.fromMemorySegment(S, in, at + LANES * BYTES, NATIVE));
            IntVector r1 = running.lanewise(LANE_OP, v0.rearrange(LAST));
            if (INCLUSIVE) {
                running.lanewise(LANE_OP, v0).intoMemorySegment(out, o, NATIVE);
                r1.lanewise(LANE_OP, v1).intoMemorySegment(out, o + LANES * BYTES, NATIVE);
            } else {
                running.lanewise(LANE_OP, v0.rearrange(UP1).blend(id, FIRST)).intoMemorySegment(out, o, NATIVE);
                r1.lanewise(LANE_OP, v1.rearrange(UP1).blend(id, FIRST)).intoMemorySegment(out, o + LANES * BYTES, NATIVE);
            }
            running = r1.lanewise(LANE_OP, v1.rearrange(LAST));
        }
        return running.lane(0);
    }

    /**
     * The inclusive prefix of one vector's lanes from the identity, in log2(LANES) Sklansky steps. Each
     * step is a lane permute and a masked operation (one instruction with AVX-512's mask registers;
     * a blend more with AVX2): measured on a Sapphire Rapids VM, 16 lanes scan a chunk in cache at
     * 0.15 ns per element, 8 lanes with a blend against the identity 0.23, a scalar loop 0.40.
     */
    private static IntVector prefix(IntVector v) {
        v = v.lanewise(LANE_OP, v.rearrange(FROM1), BIT1);
        v = v.lanewise(LANE_OP, v.rearrange(FROM2), BIT2);
        v = v.lanewise(LANE_OP, v.rearrange(FROM4), BIT4);
        return LANES == 16 ? v.lanewise(LANE_OP, v.rearrange(FROM8), BIT8) : v;
    }
}
