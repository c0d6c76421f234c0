package dev.primer.cpu;

import dev.primer.CustomOp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.function.DoubleBinaryOperator;
import java.util.function.IntBinaryOperator;
import java.util.function.LongBinaryOperator;

/**
 * A {@link CustomOp}'s Java operator on one element type, with the loops the CPU's custom reduce and
 * scans run. Values travel as raw bits in a long (1- and 4-byte types in the low 8 and 32 bits); the loops are
 * written once per type so that the operator runs on primitives. Every loop keeps operand order: the
 * accumulated lower indices are always the left operand.
 */
sealed interface CustomLane {

    static CustomLane of(CustomOp op) {
        return switch (op.javaOperator()) {
            case CustomOp.ByteBinaryOperator f -> new ByteLane(f);
            case IntBinaryOperator f -> new IntLane(f);
            case LongBinaryOperator f -> new LongLane(f);
            case CustomOp.FloatBinaryOperator f -> new FloatLane(f);
            case DoubleBinaryOperator f -> new DoubleLane(f);
            default -> throw new IllegalArgumentException("op: unsupported operator " + op.javaOperator().getClass());
        };
    }

    /** {@code bits} as this lane carries them (a 1- or 4-byte type's low 8 or 32 bits, zero-extended). */
    long carry(long bits);

    /** Element {@code i} of {@code in}, as carried. */
    long get(MemorySegment in, long i);

    long combine(long a, long b);

    /** {@code acc op x_from op ... op x_(to-1)}: {@code acc} when the range is empty. */
    long fold(MemorySegment in, long from, long to, long acc);

    /** {@code x_from op ... op x_(to-1)}, to > from. */
    default long total(MemorySegment in, long from, long to) {
        return fold(in, from + 1, to, get(in, from));
    }

    /**
     * Scans [from, to) from {@code carry}: inclusive {@code out[i] = acc = acc op x_i}; exclusive
     * {@code out[i] = acc}, then {@code acc = acc op x_i}. With {@code flags}, {@code acc} is reset to
     * {@code init} at every element whose flag is non-zero (a segment's head) before it is used; with
     * {@code flags} null there are no heads. Reads x_i before writing out[i] (in place).
     */
    void scan(MemorySegment in, MemorySegment flags, MemorySegment out, long from, long to, long carry, long init,
              boolean inclusive);

    private static boolean head(MemorySegment flags, long i) {
        return flags != null && flags.get(ValueLayout.JAVA_BYTE, i) != 0;
    }

    record ByteLane(CustomOp.ByteBinaryOperator f) implements CustomLane {
        private static final ValueLayout.OfByte T = ValueLayout.JAVA_BYTE;

        @Override public long carry(long bits) { return bits & 0xFFL; }

        @Override public long get(MemorySegment in, long i) { return in.get(T, i) & 0xFFL; }

        @Override public long combine(long a, long b) { return f.applyAsByte((byte) a, (byte) b) & 0xFFL; }

        @Override public long fold(MemorySegment in, long from, long to, long acc) {
            byte a = (byte) acc;
            for (long i = from; i < to; i++) a = f.applyAsByte(a, in.get(T, i));
            return a & 0xFFL;
        }

        @Override public void scan(MemorySegment in, MemorySegment flags, MemorySegment out, long from, long to,
                                   long carry, long init, boolean inclusive) {
            byte acc = (byte) carry, start = (byte) init;
            for (long i = from; i < to; i++) {
                byte x = in.get(T, i);
                if (head(flags, i)) acc = start;
                if (inclusive) {
                    acc = f.applyAsByte(acc, x);
                    out.set(T, i, acc);
                } else {
                    out.set(T, i, acc);
                    acc = f.applyAsByte(acc, x);
                }
            }
        }
    }

    record IntLane(IntBinaryOperator f) implements CustomLane {
        private static final ValueLayout.OfInt T = ValueLayout.JAVA_INT_UNALIGNED;  // as the built-in kernels: any segment, heap ones too

        @Override public long carry(long bits) { return bits & 0xFFFF_FFFFL; }

        @Override public long get(MemorySegment in, long i) { return in.getAtIndex(T, i) & 0xFFFF_FFFFL; }

        @Override public long combine(long a, long b) { return f.applyAsInt((int) a, (int) b) & 0xFFFF_FFFFL; }

        @Override public long fold(MemorySegment in, long from, long to, long acc) {
            int a = (int) acc;
            for (long i = from; i < to; i++) a = f.applyAsInt(a, in.getAtIndex(T, i));
            return a & 0xFFFF_FFFFL;
        }

        @Override public void scan(MemorySegment in, MemorySegment flags, MemorySegment out, long from, long to,
                                   long carry, long init, boolean inclusive) {
            int acc = (int) carry, start = (int) init;
            for (long i = from; i < to; i++) {
                int x = in.getAtIndex(T, i);
                if (head(flags, i)) acc = start;
                if (inclusive) {
                    acc = f.applyAsInt(acc, x);
                    out.setAtIndex(T, i, acc);
                } else {
                    out.setAtIndex(T, i, acc);
                    acc = f.applyAsInt(acc, x);
                }
            }
        }
    }

    record LongLane(LongBinaryOperator f) implements CustomLane {
        private static final ValueLayout.OfLong T = ValueLayout.JAVA_LONG_UNALIGNED;

        @Override public long carry(long bits) { return bits; }

        @Override public long get(MemorySegment in, long i) { return in.getAtIndex(T, i); }

        @Override public long combine(long a, long b) { return f.applyAsLong(a, b); }

        @Override public long fold(MemorySegment in, long from, long to, long acc) {
            for (long i = from; i < to; i++) acc = f.applyAsLong(acc, in.getAtIndex(T, i));
            return acc;
        }

        @Override public void scan(MemorySegment in, MemorySegment flags, MemorySegment out, long from, long to,
                                   long carry, long init, boolean inclusive) {
            long acc = carry;
            for (long i = from; i < to; i++) {
                long x = in.getAtIndex(T, i);
                if (head(flags, i)) acc = init;
                if (inclusive) {
                    acc = f.applyAsLong(acc, x);
                    out.setAtIndex(T, i, acc);
                } else {
                    out.setAtIndex(T, i, acc);
                    acc = f.applyAsLong(acc, x);
                }
            }
        }
    }

    record FloatLane(CustomOp.FloatBinaryOperator f) implements CustomLane {
        private static final ValueLayout.OfFloat T = ValueLayout.JAVA_FLOAT_UNALIGNED;

        private static float value(long bits) { return Float.intBitsToFloat((int) bits); }

        private static long bits(float value) { return Float.floatToRawIntBits(value) & 0xFFFF_FFFFL; }

        @Override public long carry(long bits) { return bits & 0xFFFF_FFFFL; }

        @Override public long get(MemorySegment in, long i) { return bits(in.getAtIndex(T, i)); }

        @Override public long combine(long a, long b) { return bits(f.applyAsFloat(value(a), value(b))); }

        @Override public long fold(MemorySegment in, long from, long to, long acc) {
            float a = value(acc);
            for (long i = from; i < to; i++) a = f.applyAsFloat(a, in.getAtIndex(T, i));
            return bits(a);
        }

        @Override public void scan(MemorySegment in, MemorySegment flags, MemorySegment out, long from, long to,
                                   long carry, long init, boolean inclusive) {
            float acc = value(carry), start = value(init);
            for (long i = from; i < to; i++) {
                float x = in.getAtIndex(T, i);
                if (head(flags, i)) acc = start;
                if (inclusive) {
                    acc = f.applyAsFloat(acc, x);
                    out.setAtIndex(T, i, acc);
                } else {
                    out.setAtIndex(T, i, acc);
                    acc = f.applyAsFloat(acc, x);
                }
            }
        }
    }

    record DoubleLane(DoubleBinaryOperator f) implements CustomLane {
        private static final ValueLayout.OfDouble T = ValueLayout.JAVA_DOUBLE_UNALIGNED;

        @Override public long carry(long bits) { return bits; }

        @Override public long get(MemorySegment in, long i) { return Double.doubleToRawLongBits(in.getAtIndex(T, i)); }

        @Override public long combine(long a, long b) {
            return Double.doubleToRawLongBits(f.applyAsDouble(Double.longBitsToDouble(a), Double.longBitsToDouble(b)));
        }

        @Override public long fold(MemorySegment in, long from, long to, long acc) {
            double a = Double.longBitsToDouble(acc);
            for (long i = from; i < to; i++) a = f.applyAsDouble(a, in.getAtIndex(T, i));
            return Double.doubleToRawLongBits(a);
        }

        @Override public void scan(MemorySegment in, MemorySegment flags, MemorySegment out, long from, long to,
                                   long carry, long init, boolean inclusive) {
            double acc = Double.longBitsToDouble(carry), start = Double.longBitsToDouble(init);
            for (long i = from; i < to; i++) {
                double x = in.getAtIndex(T, i);
                if (head(flags, i)) acc = start;
                if (inclusive) {
                    acc = f.applyAsDouble(acc, x);
                    out.setAtIndex(T, i, acc);
                } else {
                    out.setAtIndex(T, i, acc);
                    acc = f.applyAsDouble(acc, x);
                }
            }
        }
    }
}
