package dev.primer.cpu;

import dev.primer.Op;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.nio.ByteOrder;

/**
 * Template (see {@link Specialized}): float32 scan of a chunk with {@code OP}, in blocks of 16 elements
 * held as two vectors of 8 lanes. In each vector the prefix {@code H} forms in registers in three
 * lane-shift steps (Hillis-Steele: lane j takes lane j-1, then j-2, then j-4, the identity shifted in);
 * the second vector then takes the first's last lane: block prefix {@code P = H} in the first vector,
 * {@code P = H op P_7} in the second. A running local total adds block by block and the chunk's carry
 * comes last: {@code out = carry op (R_b op P_j)}, {@code R_(b+1) = R_b op P_15}, {@code R_0} the
 * identity (-0.0 for SUM, so that adding it changes nothing). Two vectors per block halve the chain of
 * dependent operations from block to block. A last partial block is padded with the identity. MIN/MAX
 * are exact in any order, so their totals come from a plain reduction.
 */
final class FloatBlockScan implements ChunkScanner {
    private static final Specialized.Spec SPEC = Specialized.spec(MethodHandles.lookup());
    private static final Op OP = SPEC.op();
    private static final boolean INCLUSIVE = SPEC.inclusive();
    private static final boolean EXACT = OP == Op.MIN || OP == Op.MAX;
    private static final VectorOperators.Associative LANE_OP = LaneOps.vectorOperator(OP);
    private static final float IDENTITY = (float) LaneOps.floatingIdentity(OP);

    private static final VectorSpecies<Float> S = FloatVector.SPECIES_256;
    private static final int LANES = 8, BYTES = 4, BLOCK = 2 * LANES;
    private static final VectorShuffle<Float> LAST = VectorShuffle.fromOp(S, i -> LANES - 1);
    // Lane shifts by k with the identity in the k lowest lanes (blend): the lanes of id.slice(LANES - k, v), in fewer instructions.
    private static final VectorShuffle<Float> UP1 = VectorShuffle.fromOp(S, i -> i - 1 & (LANES - 1));
    private static final VectorMask<Float> LOW1 = VectorMask.fromLong(S, 0x1);
    private static final VectorShuffle<Float> UP2 = VectorShuffle.fromOp(S, i -> i - 2 & (LANES - 1));
    private static final VectorMask<Float> LOW2 = VectorMask.fromLong(S, 0x3);
    private static final VectorShuffle<Float> UP4 = VectorShuffle.fromOp(S, i -> i - 4 & (LANES - 1));
    private static final VectorMask<Float> LOW4 = VectorMask.fromLong(S, 0xF);
    // Even and odd lanes gathered into both halves, and the upper half: for combining adjacent lanes.
    private static final VectorShuffle<Float> EVENS = VectorShuffle.fromOp(S, i -> 2 * i % LANES);
    private static final VectorShuffle<Float> ODDS = VectorShuffle.fromOp(S, i -> (2 * i + 1) % LANES);
    private static final VectorMask<Float> UPPER = VectorMask.fromLong(S, 0xF0);
    private static final ByteOrder NATIVE = ByteOrder.nativeOrder();

    @Override public long total(MemorySegment in, long from, long to) {
        float r;
        if (EXACT) {
            r = reduce(in, from, to);
        } else {
            long whole = (to - from) / (4 * BLOCK), rest = from + whole * 4 * BLOCK;
            r = chunk(in, null, rest, to, groupTotals(in, from * BYTES, whole), IDENTITY);
        }
        return Float.floatToRawIntBits(r) & 0xFFFF_FFFFL;
    }

    /** Adjacent lanes combined: lane k &lt; 4 holds a_2k op a_2k+1, lane k + 4 the same of b. */
    private static FloatVector pairs(FloatVector a, FloatVector b) {
        // One-vector shuffles and a blend: the two-vector rearrange kept its vectors boxed (C2, JDK 25).
        return a.rearrange(EVENS).blend(b.rearrange(EVENS), UPPER).lanewise(LANE_OP, a.rearrange(ODDS).blend(b.rearrange(ODDS), UPPER));
    }

    /**
     * The running total over {@code count} groups of 4 blocks, as {@link #blocks} forms it, without the
     * in-block prefixes: a block's total is the pairwise tree over its elements that the lane shifts
     * build in their last lane ({@code op} is commutative, so the pairs' inner order does not matter),
     * computed here for 8 vectors at once by combining adjacent lanes three times.
     */
    private static float groupTotals(MemorySegment in, long inByte, long count) {
        float r = IDENTITY;
        for (long g = 0; g < count; g++) {
            long at = inByte + g * (4 * BLOCK * BYTES);
            FloatVector p01 = pairs(FloatVector.fromMemorySegment(S, in, at, NATIVE), FloatVector.fromMemorySegment(S, in, at + 32, NATIVE));
            FloatVector p23 = pairs(FloatVector.fromMemorySegment(S, in, at + 64, NATIVE), FloatVector.fromMemorySegment(S, in, at + 96, NATIVE));
            FloatVector p45 = pairs(FloatVector.fromMemorySegment(S, in, at + 128, NATIVE), FloatVector.fromMemorySegment(S, in, at + 160, NATIVE));
            FloatVector p67 = pairs(FloatVector.fromMemorySegment(S, in, at + 192, NATIVE), FloatVector.fromMemorySegment(S, in, at + 224, NATIVE));
            FloatVector eights = pairs(pairs(p01, p23), pairs(p45, p67)); // lane k: the tree of vector k
            // lane b < 4: block b's total P_15 = H_7(vector 2b+1) op H_7(vector 2b), as blocks() forms it
            FloatVector t = eights.rearrange(ODDS).lanewise(LANE_OP, eights.rearrange(EVENS));
            r = LaneOps.apply(OP, r, t.lane(0));
            r = LaneOps.apply(OP, r, t.lane(1));
            r = LaneOps.apply(OP, r, t.lane(2));
            r = LaneOps.apply(OP, r, t.lane(3));
        }
        return r;
    }

    @Override public void scan(MemorySegment in, MemorySegment out, long from, long to, long carryBits) {
        chunk(in, out, from, to, IDENTITY, Float.intBitsToFloat((int) carryBits));
    }

    @Override public long combine(long carryBits, long totalBits) {
        float c = LaneOps.apply(OP, Float.intBitsToFloat((int) carryBits), Float.intBitsToFloat((int) totalBits));
        return Float.floatToRawIntBits(c) & 0xFFFF_FFFFL;
    }

    /**
     * Scans {@code [from, to)} into {@code out} (null: only the total) from the running local total
     * {@code r} and returns the local total after it.
     */
    private static float chunk(MemorySegment in, MemorySegment out, long from, long to, float r, float carry) {
        long whole = (to - from) / BLOCK, tail = from + whole * BLOCK;
        r = blocks(in, from * BYTES, out, from * BYTES, whole, r, carry);
        if (tail < to) r = partialBlock(in, out, tail * BYTES, (int) (to - tail), r, carry);
        return r;
    }

    /** Scans {@code count} whole blocks; returns the running local total after them. */
    private static float blocks(MemorySegment in, long inByte, MemorySegment out, long outByte, long count,
                                float r, float carry) {
        FloatVector id = FloatVector.broadcast(S, IDENTITY);
        FloatVector running = FloatVector.broadcast(S, r), c = FloatVector.broadcast(S, carry);
        for (long b = 0; b < count; b++) {
            long at = inByte + b * (BLOCK * BYTES);
            FloatVector v0 = FloatVector.fromMemorySegment(S, in, at, NATIVE);
            FloatVector v1 = FloatVector.fromMemorySegment(S, in, at + LANES * BYTES, NATIVE);
            v0 = v0.lanewise(LANE_OP, v0.rearrange(UP1).blend(id, LOW1));
            v1 = v1.lanewise(LANE_OP, v1.rearrange(UP1).blend(id, LOW1));
            v0 = v0.lanewise(LANE_OP, v0.rearrange(UP2).blend(id, LOW2));
            v1 = v1.lanewise(LANE_OP, v1.rearrange(UP2).blend(id, LOW2));
            v0 = v0.lanewise(LANE_OP, v0.rearrange(UP4).blend(id, LOW4));
            v1 = v1.lanewise(LANE_OP, v1.rearrange(UP4).blend(id, LOW4));
            v1 = v1.lanewise(LANE_OP, v0.rearrange(LAST));
            FloatVector t0 = running.lanewise(LANE_OP, v0), t1 = running.lanewise(LANE_OP, v1);
            // t1's last lane, formed beside t1 so that one operation per block depends on the block before
            FloatVector next = running.lanewise(LANE_OP, v1.rearrange(LAST));
            if (out != null) {
                // exclusive: each lane takes the inclusive value one lane before (lane 0: the running total)
                long o = outByte + b * (BLOCK * BYTES);
                c.lanewise(LANE_OP, INCLUSIVE ? t0 : t0.rearrange(UP1).blend(running, LOW1)).intoMemorySegment(out, o, NATIVE);
                c.lanewise(LANE_OP, INCLUSIVE ? t1 : t1.rearrange(UP1).blend(t0.rearrange(LAST), LOW1)).intoMemorySegment(out, o + LANES * BYTES, NATIVE);
            }
            running = next;
        }
        return running.lane(0);
    }

    /**
     * Scans the {@code m < BLOCK} elements at byte {@code at} as {@link #blocks} scans a block padded
     * with the identity, in the same registers (so with the same bits), but reading and writing only
     * lanes below {@code m} (masked); returns the local total {@code L} at the last of them. The lines
     * repeat {@code blocks}' rather than share a helper: a vector passed to a method that C2 does not
     * inline (a rarely taken path's often is not) is boxed, and its operations run as Java loops.
     */
    private static float partialBlock(MemorySegment in, MemorySegment out, long at, int m, float r, float carry) {
        FloatVector id = FloatVector.broadcast(S, IDENTITY), running = FloatVector.broadcast(S, r);
        long lanes = (1L << m) - 1;
        VectorMask<Float> m0 = VectorMask.fromLong(S, lanes), m1 = VectorMask.fromLong(S, lanes >>> LANES);
        FloatVector v0 = id.blend(FloatVector.fromMemorySegment(S, in, at, NATIVE, m0), m0);
        FloatVector v1 = id.blend(FloatVector.fromMemorySegment(S, in, at + LANES * BYTES, NATIVE, m1), m1);
        v0 = v0.lanewise(LANE_OP, v0.rearrange(UP1).blend(id, LOW1));
        v1 = v1.lanewise(LANE_OP, v1.rearrange(UP1).blend(id, LOW1));
        v0 = v0.lanewise(LANE_OP, v0.rearrange(UP2).blend(id, LOW2));
        v1 = v1.lanewise(LANE_OP, v1.rearrange(UP2).blend(id, LOW2));
        v0 = v0.lanewise(LANE_OP, v0.rearrange(UP4).blend(id, LOW4));
        v1 = v1.lanewise(LANE_OP, v1.rearrange(UP4).blend(id, LOW4));
        v1 = v1.lanewise(LANE_OP, v0.rearrange(LAST));
        FloatVector t0 = running.lanewise(LANE_OP, v0), t1 = running.lanewise(LANE_OP, v1);
        if (out != null) {
            FloatVector c = FloatVector.broadcast(S, carry);
            c.lanewise(LANE_OP, INCLUSIVE ? t0 : t0.rearrange(UP1).blend(running, LOW1)).intoMemorySegment(out, at, NATIVE, m0);
            c.lanewise(LANE_OP, INCLUSIVE ? t1 : t1.rearrange(UP1).blend(t0.rearrange(LAST), LOW1))
                    .intoMemorySegment(out, at + LANES * BYTES, NATIVE, m1);
        }
        // the local total at the last element; the padded block's (lane BLOCK - 1) would associate differently
        return m <= LANES ? t0.lane(m - 1) : t1.lane(m - 1 - LANES);
    }

    /** MIN/MAX total: a plain reduction, exact in any order. */
    private static float reduce(MemorySegment in, long from, long to) {
        FloatVector a0 = FloatVector.broadcast(S, IDENTITY), a1 = a0;
        long i = from, end = from + ((to - from) & ~15L);
        for (; i < end; i += 16) {
            a0 = a0.lanewise(LANE_OP, FloatVector.fromMemorySegment(S, in, i * BYTES, NATIVE));
            a1 = a1.lanewise(LANE_OP, FloatVector.fromMemorySegment(S, in, i * BYTES + 32, NATIVE));
        }
        float r = a0.lanewise(LANE_OP, a1).reduceLanes(LANE_OP);
        for (; i < to; i++) r = LaneOps.apply(OP, r, in.getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i));
        return r;
    }
}
