package dev.primer;

/** The typing rules of reductions and scans, shared by the facade and both backends. */
public final class Reductions {
    private Reductions() {}

    /** Element type of a per-row / per-segment result: the accumulator's, except float32 stays float32. */
    public static DType outputType(DType in, Op op) {
        boolean widened = (in == DType.INT || in == DType.BYTE) && (op == Op.SUM || op == Op.PROD);
        return widened ? DType.LONG : in;
    }

    /** Raw bits (in {@code type}'s representation) of the operator's identity. */
    public static long identityBits(DType type, Op op) {
        return switch (type) {
            case FLOAT -> Float.floatToRawIntBits(switch (op) {
                case SUM -> 0f;
                case PROD -> 1f;
                case MIN -> Float.POSITIVE_INFINITY;
                case MAX -> Float.NEGATIVE_INFINITY;
                default -> throw new IllegalArgumentException(op + " is not defined for " + type);
            }) & 0xFFFF_FFFFL;
            case DOUBLE -> Double.doubleToRawLongBits(switch (op) {
                case SUM -> 0d;
                case PROD -> 1d;
                case MIN -> Double.POSITIVE_INFINITY;
                case MAX -> Double.NEGATIVE_INFINITY;
                default -> throw new IllegalArgumentException(op + " is not defined for " + type);
            });
            case BYTE, INT, LONG -> switch (op) {
                case SUM, OR, XOR -> 0L;
                case PROD -> 1L;
                case AND -> -1L;
                case MIN -> type == DType.BYTE ? Byte.MAX_VALUE : type == DType.INT ? Integer.MAX_VALUE : Long.MAX_VALUE;
                case MAX -> type == DType.BYTE ? Byte.MIN_VALUE : type == DType.INT ? Integer.MIN_VALUE : Long.MIN_VALUE;
            };
        };
    }

    /** Elements of an int32 SUM whose 64-bit sum is always exact: |sum| <= 2^32 * 2^31 = 2^63 (-2^63 fits). */
    public static final long INT_SUM_EXACT_ELEMENTS = 1L << 32;

    /**
     * The total of the exact sums of consecutive ranges (at most {@link #INT_SUM_EXACT_ELEMENTS}
     * elements each) of an int32 SUM of {@code n} elements, added in 128 bits, so a running total
     * may leave the range of long on the way as long as the total comes back into it. Both backends
     * sum longer inputs this way.
     *
     * @throws ArithmeticException when the total does not fit a long, giving it exactly
     */
    public static long combineIntSums(long[] rangeSums, long n) {
        long high = 0, low = 0;  // high * 2^64 + unsigned(low)
        for (long s : rangeSums) {
            long sum = low + s;
            high += (s >> 63) + (Long.compareUnsigned(sum, low) < 0 ? 1 : 0);
            low = sum;
        }
        if (high != (low >> 63)) {
            java.math.BigInteger exact = java.math.BigInteger.valueOf(high).shiftLeft(64)
                    .add(new java.math.BigInteger(Long.toUnsignedString(low)));
            throw new ArithmeticException("int32 sum overflows int64: the exact sum of the " + n
                    + " elements is " + exact + ", outside the range of long");
        }
        return low;
    }

    static long integralInitBits(DType out, long init, String name) {
        switch (out) {
            case BYTE -> requireRange(init, Byte.MIN_VALUE, Byte.MAX_VALUE, out, name);
            case INT -> requireRange(init, Integer.MIN_VALUE, Integer.MAX_VALUE, out, name);
            case LONG -> { }
            default -> throw new IllegalArgumentException(name + ": out is " + out + "; pass a double initial value");
        }
        return init;
    }

    static long floatingInitBits(DType out, double init, String name) {
        return switch (out) {
            case FLOAT -> {
                float f = (float) init;  // rounds; a finite init beyond float32's range would become infinite
                if (Float.isInfinite(f) && !Double.isInfinite(init)) {
                    throw new IllegalArgumentException(name + " = " + init + " does not fit " + out);
                }
                yield Float.floatToRawIntBits(f) & 0xFFFF_FFFFL;
            }
            case DOUBLE -> Double.doubleToRawLongBits(init);
            default -> throw new IllegalArgumentException(name + ": out is " + out + "; pass an integer initial value");
        };
    }

    private static void requireRange(long v, long lo, long hi, DType t, String name) {
        if (v < lo || v > hi) throw new IllegalArgumentException(name + " = " + v + " does not fit " + t);
    }
}
