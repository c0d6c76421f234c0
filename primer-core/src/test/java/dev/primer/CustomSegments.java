package dev.primer;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import java.util.function.DoubleBinaryOperator;
import java.util.function.IntBinaryOperator;
import java.util.function.LongBinaryOperator;

/**
 * What the segmented custom-operator tests share: random segment layouts (head flags, offsets of
 * power-law lengths), a {@link CustomOp}'s Java operator on raw bits for the reference folds, single
 * elements as raw bits, and slices of any array type.
 */
final class CustomSegments {
    private CustomSegments() {}

    /** About {@code density} of the elements flagged with a random non-zero byte (negative ones too); element 0 flagged or not as asked. */
    static byte[] headFlags(long n, double density, boolean flagAtZero, SplittableRandom random) {
        byte[] flags = new byte[Math.toIntExact(n)];
        for (int i = 0; i < n; i++) {
            if (random.nextDouble() < density) flags[i] = nonZeroByte(random);
        }
        if (n > 0) flags[0] = flagAtZero ? nonZeroByte(random) : 0;
        return flags;
    }

    private static byte nonZeroByte(SplittableRandom random) {
        return (byte) (1 + random.nextInt(255));
    }

    /**
     * Offsets from {@code begin} to {@code end}: a boundary after about {@code density} of the
     * elements, each repeated now and then (an empty segment), empty segments at either end now and then.
     */
    static long[] offsets(long begin, long end, double density, SplittableRandom random) {
        LongList o = new LongList();
        o.add(begin);
        if (random.nextInt(4) == 0) o.add(begin);
        for (long i = begin + 1; i < end; i++) {
            if (random.nextDouble() < density) {
                o.add(i);
                if (random.nextInt(4) == 0) o.add(i);
            }
        }
        o.add(end);
        if (random.nextInt(4) == 0) o.add(end);
        return o.toArray();
    }

    /**
     * Offsets from {@code begin} to {@code end} with lengths of a power law: mostly a few elements,
     * now and then tens of thousands, rarely up to {@code maxLength}; one in ten empty.
     */
    static long[] powerLawOffsets(long begin, long end, long maxLength, SplittableRandom random) {
        LongList o = new LongList();
        o.add(begin);
        for (long at = begin; at < end; ) {
            long length = random.nextInt(10) == 0 ? 0
                    : (long) Math.min(maxLength, Math.pow(1 - random.nextDouble(), -1.25));
            at = Math.min(end, at + length);
            o.add(at);
        }
        return o.toArray();
    }

    /** Which elements start a segment of {@code offsets} (every offset below n). */
    static boolean[] headsOf(long[] offsets, long n) {
        boolean[] head = new boolean[Math.toIntExact(n)];
        for (long o : offsets) if (o < n) head[(int) o] = true;
        return head;
    }

    /** {@code a op b} on raw bits of op's type (1- and 4-byte types in the low 8 and 32 bits). */
    static long apply(CustomOp op, long a, long b) {
        return switch (op.javaOperator()) {
            case CustomOp.ByteBinaryOperator f -> f.applyAsByte((byte) a, (byte) b) & 0xFFL;
            case IntBinaryOperator f -> f.applyAsInt((int) a, (int) b) & 0xFFFF_FFFFL;
            case LongBinaryOperator f -> f.applyAsLong(a, b);
            case CustomOp.FloatBinaryOperator f ->
                    Float.floatToRawIntBits(f.applyAsFloat(Float.intBitsToFloat((int) a), Float.intBitsToFloat((int) b))) & 0xFFFF_FFFFL;
            case DoubleBinaryOperator f ->
                    Double.doubleToRawLongBits(f.applyAsDouble(Double.longBitsToDouble(a), Double.longBitsToDouble(b)));
            default -> throw new IllegalArgumentException(op.toString());
        };
    }

    /** Element i as raw bits (1- and 4-byte types zero-extended). */
    static long get(DType type, MemorySegment s, long i) {
        return switch (type.byteSize()) {
            case 1 -> s.get(ValueLayout.JAVA_BYTE, i) & 0xFFL;
            case 4 -> s.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i) & 0xFFFF_FFFFL;
            case 8 -> s.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i);
            default -> throw new IllegalArgumentException(type.toString());
        };
    }

    static void set(DType type, MemorySegment s, long i, long bits) {
        switch (type.byteSize()) {
            case 1 -> s.set(ValueLayout.JAVA_BYTE, i, (byte) bits);
            case 4 -> s.setAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i, (int) bits);
            case 8 -> s.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i, bits);
            default -> throw new IllegalArgumentException(type.toString());
        }
    }

    static DeviceArray slice(DeviceArray a, long from, long to) {
        return switch (a) {
            case IntArray t -> t.slice(from, to);
            case LongArray t -> t.slice(from, to);
            case FloatArray t -> t.slice(from, to);
            case DoubleArray t -> t.slice(from, to);
            case ByteArray t -> t.slice(from, to);
        };
    }

    /** A growing long[]: offsets of millions of segments without boxing. */
    private static final class LongList {
        private long[] values = new long[16];
        private int size;

        void add(long v) {
            if (size == values.length) values = java.util.Arrays.copyOf(values, 2 * size);
            values[size++] = v;
        }

        long[] toArray() { return java.util.Arrays.copyOf(values, size); }
    }
}
