package dev.primer.cpu;

import dev.primer.Op;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * float32 scan of a chunk in blocks of 8 lanes. Within a block the prefix forms in registers in
 * three lane-shift steps (Hillis-Steele: lane j takes lane j-1, then j-2, then j-4, identity shifted
 * in); a running local total adds block by block; the chunk's carry is added last. So for element j
 * of block b of a chunk: {@code out = carry + (R_b + H_j)}, with {@code H_j} the in-block prefix and
 * {@code R_{b+1} = R_b + H_7}, {@code R_0 = -0.0}. The last partial block is padded with the identity.
 */
final class FloatBlockScan implements ChunkScanner {
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_256;
    private static final int LANES = 8;
    private static final VectorShuffle<Float> LAST = VectorShuffle.fromOp(S, i -> LANES - 1);
    private static final ByteOrder NATIVE = ByteOrder.nativeOrder();

    private final Op op;
    private final boolean inclusive;
    private final MemorySegment in, out;
    private final float identity;

    FloatBlockScan(Op op, boolean inclusive, MemorySegment in, MemorySegment out) {
        this.op = op;
        this.inclusive = inclusive;
        this.in = in;
        this.out = out;
        this.identity = (float) LaneOps.floatingIdentity(op);
    }

    @Override public long chunk(long from, long to, long carryBits, boolean write) {
        float carry = Float.intBitsToFloat((int) carryBits);
        long whole = (to - from) / LANES, tail = from + whole * LANES;
        float r = blocks(op, inclusive, identity, in, from * 4, write ? out : null, from * 4, whole, identity, carry);
        if (tail < to) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment block = arena.allocate(LANES * 4L, 32);
                for (int j = 0; j < LANES; j++) block.setAtIndex(ValueLayout.JAVA_FLOAT, j, identity);
                MemorySegment.copy(in, tail * 4, block, 0, (to - tail) * 4);
                r = blocks(op, inclusive, identity, block, 0, write ? block : null, 0, 1, r, carry);
                if (write) MemorySegment.copy(block, 0, out, tail * 4, (to - tail) * 4);
            }
        }
        return Float.floatToRawIntBits(r) & 0xFFFF_FFFFL;
    }

    @Override public long combine(long carryBits, long totalBits) {
        float c = LaneOps.apply(op, Float.intBitsToFloat((int) carryBits), Float.intBitsToFloat((int) totalBits));
        return Float.floatToRawIntBits(c) & 0xFFFF_FFFFL;
    }

    /**
     * Scans {@code count} whole blocks; returns the running local total after them. (The identity comes
     * in as an argument: computed here, by a switch, it made C2 keep the loop's vectors boxed.)
     */
    private static float blocks(Op op, boolean inclusive, float identity, MemorySegment in, long inByte,
                                MemorySegment out, long outByte, long count, float r, float carry) {
        FloatVector id = FloatVector.broadcast(S, identity);
        FloatVector running = FloatVector.broadcast(S, r), c = FloatVector.broadcast(S, carry);
        for (long b = 0; b < count; b++) {
            FloatVector v = FloatVector.fromMemorySegment(S, in, inByte + b * (LANES * 4), NATIVE);
            v = LaneOps.apply(op, v, id.slice(LANES - 1, v));
            v = LaneOps.apply(op, v, id.slice(LANES - 2, v));
            v = LaneOps.apply(op, v, id.slice(LANES - 4, v));
            FloatVector t = LaneOps.apply(op, running, v);
            if (out != null) {
                // exclusive: lane 0 takes the running total before this block, lane j the prefix at j-1
                FloatVector e = inclusive ? t : running.slice(LANES - 1, t);
                LaneOps.apply(op, c, e).intoMemorySegment(out, outByte + b * (LANES * 4), NATIVE);
            }
            running = t.rearrange(LAST);
        }
        return running.lane(0);
    }
}
