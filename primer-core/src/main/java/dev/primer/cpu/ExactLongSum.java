package dev.primer.cpu;

import java.math.BigInteger;

/**
 * A 128-bit two's-complement integer, {@code high * 2^64 + unsigned(low)}: wide enough to add up to
 * 2^64 longs exactly. LONG SUM accumulates in it and fails only if the final value does not fit.
 */
record ExactLongSum(long high, long low) {

    static final ExactLongSum ZERO = new ExactLongSum(0, 0);

    static ExactLongSum of(long value) {
        return new ExactLongSum(value >> 63, value);
    }

    /** {@code hi32Sum * 2^32 + lo32Sum}, both exact longs: the form the vector kernel produces. */
    static ExactLongSum ofHalves(long hi32Sum, long lo32Sum) {
        return new ExactLongSum(hi32Sum >> 32, hi32Sum << 32).plus(lo32Sum);
    }

    ExactLongSum plus(long value) {
        long sum = low + value;
        long carry = Long.compareUnsigned(sum, low) < 0 ? 1 : 0;
        return new ExactLongSum(high + (value >> 63) + carry, sum);
    }

    ExactLongSum plus(ExactLongSum other) {
        long sum = low + other.low;
        long carry = Long.compareUnsigned(sum, low) < 0 ? 1 : 0;
        return new ExactLongSum(high + other.high + carry, sum);
    }

    boolean fitsLong() {
        return high == (low >> 63);
    }

    /** The value as a long, or ArithmeticException saying what it is. */
    long longValueExact(String what) {
        if (!fitsLong()) {
            throw new ArithmeticException(what + " overflows int64: the exact sum is " + toBigInteger());
        }
        return low;
    }

    BigInteger toBigInteger() {
        return BigInteger.valueOf(high).shiftLeft(64).add(new BigInteger(Long.toUnsignedString(low)));
    }
}
