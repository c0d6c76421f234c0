package dev.primer.cpu;

import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigInteger;
import java.nio.ByteOrder;

/**
 * A 128-bit two's-complement integer, {@code high * 2^64 + unsigned(low)}: wide enough to add up to
 * 2^64 longs exactly. LONG SUM accumulates in it and fails only if the final value does not fit.
 */
record ExactLongSum(long high, long low) {

    static final ExactLongSum ZERO = new ExactLongSum(0, 0);

    private static final VectorSpecies<Long> L4 = LongVector.SPECIES_256;

    /**
     * The exact sum of the int64 elements {@code [from, to)} of one chunk (Vector API): each value
     * splits into its signed high and unsigned low 32 bits, summed in separate long lanes (a chunk's
     * partial sums stay below 2^48 in magnitude), joined in 128 bits at the end.
     */
    static ExactLongSum ofChunk(MemorySegment in, long from, long to) {
        ByteOrder order = ByteOrder.nativeOrder();
        LongVector hi0 = LongVector.zero(L4), hi1 = hi0, lo0 = hi0, lo1 = hi0;
        long i = from, end = from + ((to - from) & ~7L);
        for (; i < end; i += 8) {
            long b = i * Long.BYTES;
            LongVector v0 = LongVector.fromMemorySegment(L4, in, b, order);
            LongVector v1 = LongVector.fromMemorySegment(L4, in, b + 32, order);
            hi0 = hi0.add(v0.lanewise(VectorOperators.ASHR, 32));
            hi1 = hi1.add(v1.lanewise(VectorOperators.ASHR, 32));
            lo0 = lo0.add(v0.and(0xFFFF_FFFFL));
            lo1 = lo1.add(v1.and(0xFFFF_FFFFL));
        }
        long hi = hi0.add(hi1).reduceLanes(VectorOperators.ADD);
        long lo = lo0.add(lo1).reduceLanes(VectorOperators.ADD);
        for (; i < to; i++) {
            long x = in.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i);
            hi += x >> 32;
            lo += x & 0xFFFF_FFFFL;
        }
        return ofHalves(hi, lo);
    }

    static ExactLongSum of(long value) {
        return new ExactLongSum(value >> 63, value);
    }

    /** {@code hi32Sum * 2^32 + lo32Sum}, both exact longs. */
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
