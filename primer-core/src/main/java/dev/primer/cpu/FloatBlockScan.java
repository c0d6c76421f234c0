package dev.primer.cpu;

import dev.primer.Op;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.nio.ByteOrder;

/**
 * Template (see {@link Specialized}): float32 scan of a chunk with {@code OP}, in blocks of 8 lanes.
 * Within a block the prefix forms in registers in three lane-shift steps (Hillis-Steele: lane j takes
 * lane j-1, then j-2, then j-4, the identity shifted in); a running local total adds block by block,
 * the chunk's carry last. So for lane j of block b: {@code out = carry op (R_b op H_j)}, {@code H} the
 * in-block prefix, {@code R_(b+1) = R_b op H_7}, {@code R_0} the identity (-0.0 for SUM, so that adding
 * it changes nothing). A last partial block is padded with the identity.
 */
final class FloatBlockScan implements ChunkScanner {
    private static final Specialized.Spec SPEC = Specialized.spec(MethodHandles.lookup());
    private static final Op OP = SPEC.op();
    private static final boolean INCLUSIVE = SPEC.inclusive();
    private static final VectorOperators.Associative LANE_OP = LaneOps.vectorOperator(OP);
    private static final float IDENTITY = (float) LaneOps.floatingIdentity(OP);

    private static final VectorSpecies<Float> S = FloatVector.SPECIES_256;
    private static final int LANES = 8, BYTES = 4;
    private static final VectorShuffle<Float> LAST = VectorShuffle.fromOp(S, i -> LANES - 1);
    private static final ByteOrder NATIVE = ByteOrder.nativeOrder();

    @Override public long chunk(MemorySegment in, MemorySegment out, long from, long to, long carryBits, boolean write) {
        float carry = Float.intBitsToFloat((int) carryBits);
        long whole = (to - from) / LANES, tail = from + whole * LANES;
        float r = blocks(in, from * BYTES, write ? out : null, from * BYTES, whole, IDENTITY, carry);
        if (tail < to) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment block = arena.allocate(LANES * BYTES, 32);
                for (int j = 0; j < LANES; j++) block.setAtIndex(ValueLayout.JAVA_FLOAT, j, IDENTITY);
                MemorySegment.copy(in, tail * BYTES, block, 0, (to - tail) * BYTES);
                r = blocks(block, 0, write ? block : null, 0, 1, r, carry);
                if (write) MemorySegment.copy(block, 0, out, tail * BYTES, (to - tail) * BYTES);
            }
        }
        return Float.floatToRawIntBits(r) & 0xFFFF_FFFFL;
    }

    @Override public long combine(long carryBits, long totalBits) {
        float c = LaneOps.apply(OP, Float.intBitsToFloat((int) carryBits), Float.intBitsToFloat((int) totalBits));
        return Float.floatToRawIntBits(c) & 0xFFFF_FFFFL;
    }

    /** Scans {@code count} whole blocks; returns the running local total after them. */
    private static float blocks(MemorySegment in, long inByte, MemorySegment out, long outByte, long count,
                                float r, float carry) {
        FloatVector id = FloatVector.broadcast(S, IDENTITY);
        FloatVector running = FloatVector.broadcast(S, r), c = FloatVector.broadcast(S, carry);
        for (long b = 0; b < count; b++) {
            FloatVector v = FloatVector.fromMemorySegment(S, in, inByte + b * (LANES * BYTES), NATIVE);
            v = v.lanewise(LANE_OP, id.slice(LANES - 1, v));
            v = v.lanewise(LANE_OP, id.slice(LANES - 2, v));
            v = v.lanewise(LANE_OP, id.slice(LANES - 4, v));
            FloatVector t = running.lanewise(LANE_OP, v);
            if (out != null) {
                // exclusive: lane 0 takes the running total before this block, lane j the prefix at j-1
                FloatVector e = INCLUSIVE ? t : running.slice(LANES - 1, t);
                c.lanewise(LANE_OP, e).intoMemorySegment(out, outByte + b * (LANES * BYTES), NATIVE);
            }
            running = t.rearrange(LAST);
        }
        return running.lane(0);
    }
}
