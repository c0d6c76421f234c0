package dev.primer.cpu;

import dev.primer.Op;
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
 * Template (see {@link Specialized}): int64 scan of a chunk with {@code OP} (wrapping as Java's long
 * arithmetic), in blocks of two vectors of 4 lanes as {@link FloatBlockScan}.
 * Integers are exact in any order, so the carry enters the running total at the start and the chunk's
 * total is a plain reduction.
 */
final class LongBlockScan implements ChunkScanner {
    private static final Specialized.Spec SPEC = Specialized.spec(MethodHandles.lookup());
    private static final Op OP = SPEC.op();
    private static final boolean INCLUSIVE = SPEC.inclusive();
    private static final VectorOperators.Associative LANE_OP = LaneOps.vectorOperator(OP);
    private static final long IDENTITY = LaneOps.integralIdentity(OP, Long.MIN_VALUE, Long.MAX_VALUE);

    private static final VectorSpecies<Long> S = LongVector.SPECIES_256;
    private static final int LANES = 4, BYTES = 8, BLOCK = 2 * LANES;
    private static final VectorShuffle<Long> LAST = VectorShuffle.fromOp(S, i -> LANES - 1);
    // Sklansky steps: lane i takes the last lane of the pair / half before it (masked lanes: the identity).
    private static final VectorShuffle<Long> PAIRS = VectorShuffle.fromOp(S, i -> i & ~1);
    private static final VectorShuffle<Long> HALVES = VectorShuffle.fromOp(S, i -> 1);
    private static final VectorShuffle<Long> UP1 = VectorShuffle.fromOp(S, i -> i - 1 & 3);
    private static final VectorMask<Long> EVEN = VectorMask.fromLong(S, 0x5);
    private static final VectorMask<Long> LOW_HALF = VectorMask.fromLong(S, 0x3);
    private static final VectorMask<Long> FIRST = VectorMask.fromLong(S, 0x1);
    private static final ByteOrder NATIVE = ByteOrder.nativeOrder();
    private static final ValueLayout.OfLong ELEMENT = ValueLayout.JAVA_LONG_UNALIGNED;

    @Override public long total(MemorySegment in, long from, long to) {
        LongVector a0 = LongVector.broadcast(S, IDENTITY), a1 = a0;
        long i = from, end = from + ((to - from) & ~(2L * LANES - 1));
        for (; i < end; i += 2 * LANES) {
            a0 = a0.lanewise(LANE_OP, LongVector.fromMemorySegment(S, in, i * BYTES, NATIVE));
            a1 = a1.lanewise(LANE_OP, LongVector.fromMemorySegment(S, in, (i + LANES) * BYTES, NATIVE));
        }
        long r = a0.lanewise(LANE_OP, a1).reduceLanes(LANE_OP);
        for (; i < to; i++) r = LaneOps.apply(OP, r, in.getAtIndex(ELEMENT, i));
        return r;
    }

    @Override public void scan(MemorySegment in, MemorySegment out, long from, long to, long carryBits) {
        long whole = (to - from) / BLOCK, tail = from + whole * BLOCK;
        long running = blocks(in, from * BYTES, out, from * BYTES, whole, carryBits);
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
        return LaneOps.apply(OP, carryBits, totalBits);
    }

    /**
     * Scans {@code count} whole blocks of two vectors from the running value {@code carry op R}; returns
     * it after them. As {@link IntBlockScan}: Sklansky steps in each vector (pairs, then halves), the
     * running value advanced by each vector's total formed beside the prefix.
     */
    private static long blocks(MemorySegment in, long inByte, MemorySegment out, long outByte, long count, long r) {
        LongVector id = LongVector.broadcast(S, IDENTITY), running = LongVector.broadcast(S, r);
        for (long b = 0; b < count; b++) {
            long at = inByte + b * (BLOCK * BYTES), o = outByte + b * (BLOCK * BYTES);
            LongVector v0 = prefix(LongVector.fromMemorySegment(S, in, at, NATIVE), id);
            LongVector v1 = prefix(LongVector.fromMemorySegment(S, in, at + LANES * BYTES, NATIVE), id);
            LongVector r1 = running.lanewise(LANE_OP, v0.rearrange(LAST));
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

    /** The inclusive prefix of one vector's lanes from the identity, in two Sklansky steps. */
    private static LongVector prefix(LongVector v, LongVector id, VectorOperators.Associative op) {
        v = v.lanewise(op, v.rearrange(PAIRS).blend(id, EVEN));
        return v.lanewise(op, v.rearrange(HALVES).blend(id, LOW_HALF));
    }

    private static LongVector prefix(LongVector v, LongVector id) {
        return prefix(v, id, LANE_OP);
    }
}
