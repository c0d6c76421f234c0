package dev.primer.cli;

import java.util.Locale;

/** Parsing element counts the way users type them: 4194304, 22 (an exponent), 2^22, 4M. */
public final class Sizes {
    private Sizes() {}

    /** Largest exponent accepted as a bare number (2^40 elements). */
    public static final int MAX_EXPONENT = 40;

    /**
     * A count: a number up to 40 is an exponent of two ({@code 22} = 2^22); {@code 2^22} likewise;
     * a suffix k, M, G multiplies by 2^10, 2^20, 2^30; anything else is the count itself.
     *
     * @throws CliException (exit 2) naming {@code option} when the text is not a positive count
     */
    public static long parse(String text, String option) {
        String s = text.trim().replace("_", "").replace(",", "");
        try {
            if (s.startsWith("2^")) return power(Integer.parseInt(s.substring(2)), option, text);
            long multiplier = 1;
            char last = s.isEmpty() ? ' ' : Character.toUpperCase(s.charAt(s.length() - 1));
            switch (last) {
                case 'K' -> multiplier = 1L << 10;
                case 'M' -> multiplier = 1L << 20;
                case 'G' -> multiplier = 1L << 30;
                default -> { }
            }
            if (multiplier != 1) s = s.substring(0, s.length() - 1);
            long v = Long.parseLong(s);
            if (multiplier == 1 && v >= 0 && v <= MAX_EXPONENT) return power((int) v, option, text);
            if (v <= 0) throw CliException.usage(option + " must be positive, not '" + text + "'");
            return Math.multiplyExact(v, multiplier);
        } catch (NumberFormatException | ArithmeticException e) {
            throw CliException.usage(option + " '" + text + "' is not a count: give an exponent (22 = 2^22), 2^22, a count (4194304) or 4M");
        }
    }

    private static long power(int exponent, String option, String text) {
        if (exponent < 0 || exponent > MAX_EXPONENT) {
            throw CliException.usage(option + " '" + text + "': the exponent must be from 0 to " + MAX_EXPONENT);
        }
        return 1L << exponent;
    }

    /** "2^22" when n is a power of two, else the count with separators. */
    public static String describe(long n) {
        if (n > 0 && Long.bitCount(n) == 1) return "2^" + Long.numberOfTrailingZeros(n);
        return String.format(Locale.ROOT, "%,d", n);
    }
}
