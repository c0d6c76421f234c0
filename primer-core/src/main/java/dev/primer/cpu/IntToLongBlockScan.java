package dev.primer.cpu;

import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.nio.ByteOrder;

/**
 * Template (see {@link Specialized}; only {@code INCLUSIVE} varies): int32 in, int64 out, SUM scan in
 * blocks of 4 lanes, four ints widening to four longs in one conversion; otherwise the block algorithm
 * of {@link FloatBlockScan}. Exact (until int64 wraps).
 */
final class IntToLongBlockScan implements ChunkScanner {
    private static final boolean INCLUSIVE = Specialized.spec(MethodHandles.lookup()).inclusive();

    private static final VectorSpecies<Integer> I4 = IntVector.SPECIES_128;
    private static final VectorSpecies<Long> S = LongVector.SPECIES_256;
    private static final int LANES = 4;
    private static final VectorShuffle<Long> LAST = VectorShuffle.fromOp(S, i -> LANES - 1);
    private static final ByteOrder NATIVE = ByteOrder.nativeOrder();

    @Override public long chunk(MemorySegment in, MemorySegment out, long from, long to, long carry, boolean write) {
        long whole = (to - from) / LANES, tail = from + whole * LANES;
        long r = blocks(in, from * 4, write ? out : null, from * 8, whole, 0, carry);
        if (tail < to) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment inBlock = arena.allocate(LANES * 4L, 16), outBlock = arena.allocate(LANES * 8L, 32);
                MemorySegment.copy(in, tail * 4, inBlock, 0, (to - tail) * 4); // the pad stays 0, the identity
                r = blocks(inBlock, 0, write ? outBlock : null, 0, 1, r, carry);
                if (write) MemorySegment.copy(outBlock, 0, out, tail * 8, (to - tail) * 8);
            }
        }
        return r;
    }

    @Override public long combine(long carry, long total) {
        return carry + total;
    }

    private static long blocks(MemorySegment in, long inByte, MemorySegment out, long outByte, long count,
                               long r, long carry) {
        LongVector zero = LongVector.zero(S);
        LongVector running = LongVector.broadcast(S, r), c = LongVector.broadcast(S, carry);
        for (long b = 0; b < count; b++) {
            LongVector v = (LongVector) IntVector.fromMemorySegment(I4, in, inByte + b * (LANES * 4), NATIVE)
                    .convertShape(VectorOperators.I2L, S, 0);
            v = v.add(zero.slice(LANES - 1, v));
            v = v.add(zero.slice(LANES - 2, v));
            LongVector t = running.add(v);
            if (out != null) {
                LongVector e = INCLUSIVE ? t : running.slice(LANES - 1, t);
                c.add(e).intoMemorySegment(out, outByte + b * (LANES * 8), NATIVE);
            }
            running = t.rearrange(LAST);
        }
        return running.lane(0);
    }
}
