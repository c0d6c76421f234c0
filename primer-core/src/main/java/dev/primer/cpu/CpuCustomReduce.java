package dev.primer.cpu;

import dev.primer.CustomOp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.function.DoubleBinaryOperator;
import java.util.function.IntBinaryOperator;
import java.util.function.LongBinaryOperator;
import java.util.stream.LongStream;

/**
 * Reduce with a user-defined operator on the CPU: fixed chunks folded left to right in parallel,
 * then the chunk results folded left to right, so the result does not depend on the thread count.
 */
public final class CpuCustomReduce {
    private CpuCustomReduce() {}

    private static final long CHUNK = 1 << 16;

    /** The result's raw bits (of op.type()). */
    public static long reduce(CustomOp op, MemorySegment in, long n) {
        long chunks = (n + CHUNK - 1) / CHUNK;
        long[] partial = new long[(int) chunks];
        LongStream.range(0, chunks).parallel().forEach(c -> partial[(int) c] =
                fold(op, in, c * CHUNK, Math.min(n, (c + 1) * CHUNK), op.identityBits()));
        long acc = op.identityBits();
        for (long p : partial) acc = combine(op, acc, p);
        return acc;
    }

    private static long fold(CustomOp op, MemorySegment in, long from, long to, long identityBits) {
        switch (op.javaOperator()) {
            case IntBinaryOperator f -> {
                int acc = (int) identityBits;
                for (long i = from; i < to; i++) acc = f.applyAsInt(acc, in.getAtIndex(ValueLayout.JAVA_INT, i));
                return acc & 0xFFFF_FFFFL;
            }
            case LongBinaryOperator f -> {
                long acc = identityBits;
                for (long i = from; i < to; i++) acc = f.applyAsLong(acc, in.getAtIndex(ValueLayout.JAVA_LONG, i));
                return acc;
            }
            case CustomOp.FloatBinaryOperator f -> {
                float acc = Float.intBitsToFloat((int) identityBits);
                for (long i = from; i < to; i++) acc = f.applyAsFloat(acc, in.getAtIndex(ValueLayout.JAVA_FLOAT, i));
                return Float.floatToRawIntBits(acc) & 0xFFFF_FFFFL;
            }
            case DoubleBinaryOperator f -> {
                double acc = Double.longBitsToDouble(identityBits);
                for (long i = from; i < to; i++) acc = f.applyAsDouble(acc, in.getAtIndex(ValueLayout.JAVA_DOUBLE, i));
                return Double.doubleToRawLongBits(acc);
            }
            default -> throw new IllegalArgumentException("unsupported operator " + op.javaOperator().getClass());
        }
    }

    private static long combine(CustomOp op, long a, long b) {
        return switch (op.javaOperator()) {
            case IntBinaryOperator f -> f.applyAsInt((int) a, (int) b) & 0xFFFF_FFFFL;
            case LongBinaryOperator f -> f.applyAsLong(a, b);
            case CustomOp.FloatBinaryOperator f ->
                    Float.floatToRawIntBits(f.applyAsFloat(Float.intBitsToFloat((int) a), Float.intBitsToFloat((int) b))) & 0xFFFF_FFFFL;
            case DoubleBinaryOperator f ->
                    Double.doubleToRawLongBits(f.applyAsDouble(Double.longBitsToDouble(a), Double.longBitsToDouble(b)));
            default -> throw new IllegalArgumentException("unsupported operator " + op.javaOperator().getClass());
        };
    }
}
