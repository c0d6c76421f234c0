package dev.primer.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;

import org.junit.jupiter.api.Test;

class ExactLongSumTest {

    @Property
    void addsExactlyAsBigInteger(@ForAll @Size(max = 50) long[] values) {
        ExactLongSum sum = ExactLongSum.ZERO;
        ExactLongSum halves = ExactLongSum.ZERO;
        BigInteger exact = BigInteger.ZERO;
        for (int i = 0; i < values.length; i++) {
            sum = sum.plus(values[i]);
            halves = i % 2 == 0 ? halves.plus(ExactLongSum.of(values[i])) : halves.plus(values[i]);
            exact = exact.add(BigInteger.valueOf(values[i]));
        }
        assertEquals(exact, sum.toBigInteger());
        assertEquals(exact, halves.toBigInteger());
        assertEquals(exact.bitLength() < 64, sum.fitsLong());
    }

    @Property
    void halvesJoinExactly(@ForAll long hi32Sum, @ForAll long lo32Sum) {
        assertEquals(BigInteger.valueOf(hi32Sum).shiftLeft(32).add(BigInteger.valueOf(lo32Sum)),
                ExactLongSum.ofHalves(hi32Sum, lo32Sum).toBigInteger());
    }

    @Test
    void fitsOnlyWithinLongRange() {
        assertTrue(ExactLongSum.of(Long.MIN_VALUE).fitsLong());
        assertFalse(ExactLongSum.of(Long.MIN_VALUE).plus(-1).fitsLong());
        assertFalse(ExactLongSum.of(Long.MAX_VALUE).plus(1).fitsLong());
        assertEquals(Long.MAX_VALUE, ExactLongSum.of(Long.MAX_VALUE).plus(1).plus(-1).longValueExact("x"));
        assertThrows(ArithmeticException.class, () -> ExactLongSum.of(Long.MAX_VALUE).plus(Long.MAX_VALUE).longValueExact("x"));
    }
}
