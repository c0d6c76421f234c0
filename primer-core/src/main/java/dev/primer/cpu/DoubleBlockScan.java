package dev.primer.cpu;

import dev.primer.Op;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.nio.ByteOrder;

/**
 * Template (see {@link Specialized}): float64 scan of a chunk with {@code OP}, as {@link FloatBlockScan}
 * does for float32 but in blocks of 8 elements held as two vectors of 4 lanes: the in-vector prefix
 * {@code H} forms in two lane-shift steps (lane j takes lane j-1, then j-2), the second vector takes the
 * first's last lane ({@code P = H op P_3}), then {@code out = carry op (R_b op P_j)},
 * {@code R_(b+1) = R_b op P_7}.
 */

final class DoubleBlockScan implements ChunkScanner {
    private static final Specialized.Spec SPEC = Specialized.spec(MethodHandles.lookup());
    private static final Op OP = SPEC.op();
    private static final boolean INCLUSIVE = SPEC.inclusive();
    private static final boolean EXACT = OP == Op.MIN || OP == Op.MAX;
    private static final VectorOperators.Associative LANE_OP = LaneOps.vectorOperator(OP);
    private static final double IDENTITY = LaneOps.floatingIdentity(OP);

    private static final VectorSpecies<Double> S = DoubleVector.SPECIES_256;
    private static final int LANES = 4, BYTES = 8, BLOCK = 2 * LANES;
    private static final VectorShuffle<Double> LAST = VectorShuffle.fromOp(S, i -> LANES - 1);
    // Lane shifts by k with the identity in the k lowest lanes (blend): the lanes of id.slice(LANES - k, v), in fewer instructions.
    private static final VectorShuffle<Double> UP1 = VectorShuffle.fromOp(S, i -> i - 1 & (LANES - 1));
    private static final VectorMask<Double> LOW1 = VectorMask.fromLong(S, 0x1);
    private static final VectorShuffle<Double> UP2 = VectorShuffle.fromOp(S, i -> i - 2 & (LANES - 1));
    private static final VectorMask<Double> LOW2 = VectorMask.fromLong(S, 0x3);
    // Even and odd lanes gathered into both halves, and the upper half: for combining adjacent lanes.
    private static final VectorShuffle<Double> EVENS = VectorShuffle.fromOp(S, i -> 2 * i % LANES);
    private static final VectorShuffle<Double> ODDS = VectorShuffle.fromOp(S, i -> (2 * i + 1) % LANES);
    private static final VectorMask<Double> UPPER = VectorMask.fromLong(S, 0xC);
    private static final ByteOrder NATIVE = ByteOrder.nativeOrder();

    @Override public long total(MemorySegment in, long from, long to) {
        double r;
        if (EXACT) {
            r = reduce(in, from, to);
        } else {
            long whole = (to - from) / (4 * BLOCK), rest = from + whole * 4 * BLOCK;
            r = chunk(in, null, rest, to, groupTotals(in, from * BYTES, whole), IDENTITY);
        }
        return Double.doubleToRawLongBits(r);
    }

    /** Adjacent lanes combined: lane k &lt; 2 holds a_2k op a_2k+1, lane k + 2 the same of b. */
    private static DoubleVector pairs(DoubleVector a, DoubleVector b) {
        // One-vector shuffles and a blend: the two-vector rearrange kept its vectors boxed (C2, JDK 25).
        return a.rearrange(EVENS).blend(b.rearrange(EVENS), UPPER).lanewise(LANE_OP, a.rearrange(ODDS).blend(b.rearrange(ODDS), UPPER));
    }

    /**
     * The running total over {@code count} groups of 4 blocks, as {@link #blocks} forms it, without the
     * in-block prefixes (see {@link FloatBlockScan}): adjacent lanes of 8 vectors combined twice.
     */
    private static double groupTotals(MemorySegment in, long inByte, long count) {
        double r = IDENTITY;
        for (long g = 0; g < count; g++) {
            long at = inByte + g * (4 * BLOCK * BYTES);
            DoubleVector p01 = pairs(DoubleVector.fromMemorySegment(S, in, at, NATIVE), DoubleVector.fromMemorySegment(S, in, at + 32, NATIVE));
            DoubleVector p23 = pairs(DoubleVector.fromMemorySegment(S, in, at + 64, NATIVE), DoubleVector.fromMemorySegment(S, in, at + 96, NATIVE));
            DoubleVector p45 = pairs(DoubleVector.fromMemorySegment(S, in, at + 128, NATIVE), DoubleVector.fromMemorySegment(S, in, at + 160, NATIVE));
            DoubleVector p67 = pairs(DoubleVector.fromMemorySegment(S, in, at + 192, NATIVE), DoubleVector.fromMemorySegment(S, in, at + 224, NATIVE));
            DoubleVector low = pairs(p01, p23), high = pairs(p45, p67); // lane k: the tree of vector k (then k + 4)
            // lanes 0, 1: the totals P_7 = H_3(second) op H_3(first) of blocks 0, 1 (then 2, 3), as blocks() forms them
            DoubleVector t = low.rearrange(ODDS).lanewise(LANE_OP, low.rearrange(EVENS));
            DoubleVector u = high.rearrange(ODDS).lanewise(LANE_OP, high.rearrange(EVENS));
            r = LaneOps.apply(OP, r, t.lane(0));
            r = LaneOps.apply(OP, r, t.lane(1));
            r = LaneOps.apply(OP, r, u.lane(0));
            r = LaneOps.apply(OP, r, u.lane(1));
        }
        return r;
    }

    @Override public void scan(MemorySegment in, MemorySegment out, long from, long to, long carryBits) {
        chunk(in, out, from, to, IDENTITY, Double.longBitsToDouble(carryBits));
    }

    @Override public long combine(long carryBits, long totalBits) {
        return Double.doubleToRawLongBits(LaneOps.apply(OP, Double.longBitsToDouble(carryBits), Double.longBitsToDouble(totalBits)));
    }

    /**
     * Scans {@code [from, to)} into {@code out} (null: only the total) from the running local total
     * {@code r} and returns the local total after it.
     */
    private static double chunk(MemorySegment in, MemorySegment out, long from, long to, double r, double carry) {
        long whole = (to - from) / BLOCK, tail = from + whole * BLOCK;
        r = blocks(in, from * BYTES, out, from * BYTES, whole, r, carry);
        if (tail < to) r = partialBlock(in, out, tail * BYTES, (int) (to - tail), r, carry);
        return r;
    }

    /** Scans {@code count} whole blocks; returns the running local total after them. */
    private static double blocks(MemorySegment in, long inByte, MemorySegment out, long outByte, long count,
                                 double r, double carry) {
        DoubleVector id = DoubleVector.broadcast(S, IDENTITY);
        DoubleVector running = DoubleVector.broadcast(S, r), c = DoubleVector.broadcast(S, carry);
        for (long b = 0; b < count; b++) {
            long at = inByte + b * (BLOCK * BYTES);
            DoubleVector v0 = DoubleVector.fromMemorySegment(S, in, at, NATIVE);
            DoubleVector v1 = DoubleVector.fromMemorySegment(S, in, at + LANES * BYTES, NATIVE);
            v0 = v0.lanewise(LANE_OP, v0.rearrange(UP1).blend(id, LOW1));
            v1 = v1.lanewise(LANE_OP, v1.rearrange(UP1).blend(id, LOW1));
            v0 = v0.lanewise(LANE_OP, v0.rearrange(UP2).blend(id, LOW2));
            v1 = v1.lanewise(LANE_OP, v1.rearrange(UP2).blend(id, LOW2));
            v1 = v1.lanewise(LANE_OP, v0.rearrange(LAST));
            DoubleVector t0 = running.lanewise(LANE_OP, v0), t1 = running.lanewise(LANE_OP, v1);
            // t1's last lane, formed beside t1 so that one operation per block depends on the block before
            DoubleVector next = running.lanewise(LANE_OP, v1.rearrange(LAST));
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
    private static double partialBlock(MemorySegment in, MemorySegment out, long at, int m, double r, double carry) {
        DoubleVector id = DoubleVector.broadcast(S, IDENTITY), running = DoubleVector.broadcast(S, r);
        long lanes = (1L << m) - 1;
        VectorMask<Double> m0 = VectorMask.fromLong(S, lanes), m1 = VectorMask.fromLong(S, lanes >>> LANES);
        DoubleVector v0 = id.blend(DoubleVector.fromMemorySegment(S, in, at, NATIVE, m0), m0);
        DoubleVector v1 = id.blend(DoubleVector.fromMemorySegment(S, in, at + LANES * BYTES, NATIVE, m1), m1);
        v0 = v0.lanewise(LANE_OP, v0.rearrange(UP1).blend(id, LOW1));
        v1 = v1.lanewise(LANE_OP, v1.rearrange(UP1).blend(id, LOW1));
        v0 = v0.lanewise(LANE_OP, v0.rearrange(UP2).blend(id, LOW2));
        v1 = v1.lanewise(LANE_OP, v1.rearrange(UP2).blend(id, LOW2));
        v1 = v1.lanewise(LANE_OP, v0.rearrange(LAST));
        DoubleVector t0 = running.lanewise(LANE_OP, v0), t1 = running.lanewise(LANE_OP, v1);
        if (out != null) {
            DoubleVector c = DoubleVector.broadcast(S, carry);
            c.lanewise(LANE_OP, INCLUSIVE ? t0 : t0.rearrange(UP1).blend(running, LOW1)).intoMemorySegment(out, at, NATIVE, m0);
            c.lanewise(LANE_OP, INCLUSIVE ? t1 : t1.rearrange(UP1).blend(t0.rearrange(LAST), LOW1))
                    .intoMemorySegment(out, at + LANES * BYTES, NATIVE, m1);
        }
        // the local total at the last element; the padded block's (lane BLOCK - 1) would associate differently
        return m <= LANES ? t0.lane(m - 1) : t1.lane(m - 1 - LANES);
    }

    /** MIN/MAX total: a plain reduction, exact in any order. */
    private static double reduce(MemorySegment in, long from, long to) {
        DoubleVector a0 = DoubleVector.broadcast(S, IDENTITY), a1 = a0;
        long i = from, end = from + ((to - from) & ~7L);
        for (; i < end; i += 8) {
            a0 = a0.lanewise(LANE_OP, DoubleVector.fromMemorySegment(S, in, i * BYTES, NATIVE));
            a1 = a1.lanewise(LANE_OP, DoubleVector.fromMemorySegment(S, in, i * BYTES + 32, NATIVE));
        }
        double r = a0.lanewise(LANE_OP, a1).reduceLanes(LANE_OP);
        for (; i < to; i++) r = LaneOps.apply(OP, r, in.getAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, i));
        return r;
    }
}
