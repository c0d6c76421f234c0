package dev.primer.cpu;

import dev.primer.Op;
import jdk.incubator.vector.IntVector;
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

    @Override public long combine(long carryBits, long totalBits) {
        return (int) LaneOps.apply(OP, carryBits, totalBits);
    }

    /**
     * Scans {@code count} whole blocks of two vectors from the running value {@code carry op R}; returns
     * it after them.
     */
    private static int blocks(MemorySegment in, long inByte, MemorySegment out, long outByte, long count, int r) {
        IntVector id = IntVector.broadcast(S, IDENTITY), running = IntVector.broadcast(S, r);
        for (long b = 0; b < count; b++) {
            long at = inByte + b * (BLOCK * BYTES), o = outByte + b * (BLOCK * BYTES);
            IntVector v0 = IntVector.fromMemorySegment(S, in, at, NATIVE);
            IntVector v1 = IntVector.fromMemorySegment(S, in, at + LANES * BYTES, NATIVE);
            v0 = v0.lanewise(LANE_OP, id.slice(LANES - 1, v0));
            v1 = v1.lanewise(LANE_OP, id.slice(LANES - 1, v1));
            v0 = v0.lanewise(LANE_OP, id.slice(LANES - 2, v0));
            v1 = v1.lanewise(LANE_OP, id.slice(LANES - 2, v1));
            v0 = v0.lanewise(LANE_OP, id.slice(LANES - 4, v0));
            v1 = v1.lanewise(LANE_OP, id.slice(LANES - 4, v1));
            v1 = v1.lanewise(LANE_OP, v0.rearrange(LAST));
            IntVector t0 = running.lanewise(LANE_OP, v0), t1 = running.lanewise(LANE_OP, v1);
            (INCLUSIVE ? t0 : running.slice(LANES - 1, t0)).intoMemorySegment(out, o, NATIVE);
            (INCLUSIVE ? t1 : t0.slice(LANES - 1, t1)).intoMemorySegment(out, o + LANES * BYTES, NATIVE);
            running = t1.rearrange(LAST);
        }
        return running.lane(0);
    }
}
