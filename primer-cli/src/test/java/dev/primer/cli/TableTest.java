package dev.primer.cli;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class TableTest {

    @Test void alignsTextLeftAndNumbersRight() {
        Table t = new Table("step", "time (ms)", "speedup");
        t.row("K1", 8.054, "1.00x");
        t.row("K7 long name", 0.268, "30.0x");
        assertEquals("""
                step          time (ms)  speedup
                ------------  ---------  -------
                K1                8.054    1.00x
                K7 long name      0.268    30.0x
                """, t.render());
    }

    @Test void forcedAlignmentAndNoHeader() {
        Table t = new Table("a", "b").noHeader().right(0).left(1);
        t.row("x", "12");
        t.row("yyy", "3");
        assertEquals("  x  12\nyyy  3\n", t.render());
    }

    @Test void formatsNumbers() {
        assertEquals("0", Format.number(0));
        assertEquals("1234", Format.number(1234.4));
        assertEquals("12.35", Format.number(12.345));
        assertEquals("0.01235", Format.number(0.012345));
        assertEquals("1.00 GiB", Format.bytes(1L << 30));
        assertEquals("2^24 (16,777,216)", Format.powerOfTwo(1 << 24));
        assertEquals("1e-5", Format.tolerance(1e-5));
        assertEquals("50.0%", Format.percent(1, 2));
    }
}
