package dev.primer.cli;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class SizesTest {

    @Test void exponentsCountsAndSuffixes() {
        assertEquals(1L << 22, Sizes.parse("22", "--n"));
        assertEquals(1L << 22, Sizes.parse("2^22", "--n"));
        assertEquals(4194304L, Sizes.parse("4194304", "--n"));
        assertEquals(4L << 20, Sizes.parse("4M", "--n"));
        assertEquals(1L << 40, Sizes.parse("40", "--n"));
        assertEquals(41L, Sizes.parse("41", "--n"));
        assertEquals(100_000L, Sizes.parse("100_000", "--n"));
    }

    @Test void rejectsNonsenseWithExitTwo() {
        CliException e = assertThrows(CliException.class, () -> Sizes.parse("lots", "--n"));
        assertEquals(ExitCode.USAGE, e.exitCode());
        assertThrows(CliException.class, () -> Sizes.parse("2^41", "--n"));
        assertThrows(CliException.class, () -> Sizes.parse("-5", "--n"));
    }
}
