package dev.primer.cpu;

import dev.primer.Op;
import jdk.incubator.vector.IntVector;
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
 * Template (see {@link Specialized}): int32 scan of a chunk with {@code OP} (wrapping as Java's int
 * arithmetic), in blocks of two vectors of 8 lanes as {@link FloatBlockScan}.
 * Integers are exact in any order, so the carry enters the running total at the start and the chunk's
 * total is a plain reduction.
 */
final class IntBlockScan implements ChunkScanner {
    private static final Specialized.Spec SPEC = Specialized.spec(MethodHandles.lookup());
    private static final Op OP = SPEC.op();
    private static final boolean INCLUSIVE = SPEC.inclusive();
    private static final VectorOperators.Associative LANE_OP = LaneOps.vectorOperator(OP);
    private static final int IDENTITY = (int) LaneOps.integralIdentity(OP, Integer.MIN_VALUE, Integer.MAX_VALUE);

    private static final VectorSpecies<Integer> S = IntVector.SPECIES_256;
    private static final int LANES = 8, BYTES = 4, BLOCK = 2 * LANES;
    private static final VectorShuffle<Integer> LAST = VectorShuffle.fromOp(S, i -> LANES - 1);
    // Sklansky steps: lane i takes the last lane of the pair / quad / half before it (masked lanes: the identity).
    private static final VectorShuffle<Integer> PAIRS = VectorShuffle.fromOp(S, i -> i & ~1);
    private static final VectorShuffle<Integer> QUADS = VectorShuffle.fromOp(S, i -> (i & ~3) + 1 & 7);
    private static final VectorShuffle<Integer> HALVES = VectorShuffle.fromOp(S, i -> 3);
    private static final VectorShuffle<Integer> UP1 = VectorShuffle.fromOp(S, i -> i - 1 & 7);
    private static final VectorMask<Integer> EVEN = VectorMask.fromLong(S, 0x55);
    private static final VectorMask<Integer> QUAD_LOW = VectorMask.fromLong(S, 0x33);
    private static final VectorMask<Integer> LOW_HALF = VectorMask.fromLong(S, 0x0F);
    private static final VectorMask<Integer> FIRST = VectorMask.fromLong(S, 0x01);
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

    @Override public void scan(MemorySegment in, MemorySegment out, long from, long to, long carryBits) {
        long whole = (to - from) / BLOCK, tail = from + whole * BLOCK;
        int running = blocks(in, from * BYTES, out, from * BYTES, whole, (int) carryBits);
        if (tail < to) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment block = arena.allocate(BLOCK * BYTES, 32);
                for (int j = 0; j < BLOCK; j++) block.setAtIndex(ELEMENT, j, IDENTITY);
                MemorySegment.copy(in, tail * BYTES, block, 0, (to - tail) * BYTES);
                blocks(block, 0, block, 0, 1, running);
                MemorySegment.copy(block, 0, out, tail * BYTES, (to - tail) * BYTES);
            }
        }
    }

    @Override public boolean splits() {
        return true; // exact in any order
    }

    @Override public long combine(long carryBits, long totalBits) {
        return (int) LaneOps.apply(OP, carryBits, totalBits);
    }

    /**
     * Scans {@code count} whole blocks of two vectors from the running value {@code carry op R}; returns
     * it after them. Integers are exact in any order, so each vector's prefix forms in Sklansky's shape
     * (lane pairs, then quads, then halves: one lane permute and a blend per step) and the running
     * value advances by the vector's total, formed beside the prefix, so that one operation per vector
     * depends on the one before.
     */
    private static int blocks(MemorySegment in, long inByte, MemorySegment out, long outByte, long count, int r) {
        IntVector id = IntVector.broadcast(S, IDENTITY), running = IntVector.broadcast(S, r);
        for (long b = 0; b < count; b++) {
            long at = inByte + b * (BLOCK * BYTES), o = outByte + b * (BLOCK * BYTES);
            IntVector v0 = prefix(IntVector.fromMemorySegment(S, in, at, NATIVE), id);
            IntVector v1 = prefix(IntVector.fromMemorySegment(S, in, at + LANES * BYTES, NATIVE), id);
            IntVector total0 = v0.rearrange(LAST), r1 = running.lanewise(LANE_OP, total0);
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

    /** The inclusive prefix of one vector's lanes from the identity, in three Sklansky steps. */
    private static IntVector prefix(IntVector v, IntVector id) {
        v = v.lanewise(LANE_OP, v.rearrange(PAIRS).blend(id, EVEN));
        v = v.lanewise(LANE_OP, v.rearrange(QUADS).blend(id, QUAD_LOW));
        return v.lanewise(LANE_OP, v.rearrange(HALVES).blend(id, LOW_HALF));
    }
}
