package dev.primer.cli.bench;

import dev.primer.CustomOp;

/**
 * The user-defined operators the self-test and the benchmarks run: exact ones (any association gives
 * the same bits), two of them not commutative, and a float sum.
 */
final class CustomOps {
    private CustomOps() {}

    /** x -> m*x + c mod 2^16 composed, packed (m << 16 | c): associative, not commutative. */
    static final CustomOp AFFINE16 = CustomOp.ofInt("affine16",
            "(int)(((((unsigned)b >> 16) * ((unsigned)a >> 16)) << 16)"
                    + " | ((((unsigned)b >> 16) * ((unsigned)a & 0xFFFFu) + ((unsigned)b & 0xFFFFu)) & 0xFFFFu))",
            0x10000, (a, b) -> {
                int am = a >>> 16, ac = a & 0xFFFF, bm = b >>> 16, bc = b & 0xFFFF;
                return ((bm * am) << 16) | ((bm * ac + bc) & 0xFFFF);
            });

    /**
     * The same on nibbles of a byte: (m << 4 | c), x -> m*x + c mod 16. The CUDA expression sees
     * ints holding the bytes (sign-extended: hence the masks), and its result is narrowed to a byte.
     */
    static final CustomOp AFFINE4 = CustomOp.ofByte("affine4",
            "((((b >> 4) & 15) * ((a >> 4) & 15)) << 4) | ((((b >> 4) & 15) * (a & 15) + (b & 15)) & 15)",
            (byte) 0x10, (a, b) -> {
                int am = (a >> 4) & 15, ac = a & 15, bm = (b >> 4) & 15, bc = b & 15;
                return (byte) (((bm * am) << 4) | ((bm * ac + bc) & 15));
            });

    /** The same on 32-bit halves of a long: (m << 32 | c), mod 2^32. */
    static final CustomOp AFFINE32 = CustomOp.ofLong("affine32",
            "(long long)(((unsigned long long)((unsigned)((unsigned long long)b >> 32) * (unsigned)((unsigned long long)a >> 32)) << 32)"
                    + " | (unsigned long long)((unsigned)((unsigned long long)b >> 32) * (unsigned)a + (unsigned)b))",
            1L << 32, (a, b) -> {
                int am = (int) (a >>> 32), ac = (int) a, bm = (int) (b >>> 32), bc = (int) b;
                return ((long) (bm * am) << 32) | ((bm * ac + bc) & 0xFFFF_FFFFL);
            });

    /**
     * Forward fill: the last value that is not NaN; associative, not commutative; a selection, so
     * declared exact (the scans' look-back may combine as a tree; AFFINE16 keeps the ordered one).
     */
    static final CustomOp FFILL = CustomOp.ofDouble("ffill", "b == b ? b : a", Double.NaN,
            (a, b) -> Double.isNaN(b) ? a : b).exact();

    /** max(|a|, |b|): commutative, exact. */
    static final CustomOp ABS_MAX = CustomOp.ofFloat("absmax", "fmaxf(fabsf(a), fabsf(b))", 0f,
            (a, b) -> Math.max(Math.abs(a), Math.abs(b)));

    /** Bitwise xor: commutative, every bit matters. */
    static final CustomOp LONG_XOR = CustomOp.ofLong("lxor", "a ^ b", 0L, (a, b) -> a ^ b);

    /** A float sum written as a CustomOp: it rounds, so it takes a bound, not bits. */
    static final CustomOp FSUM = CustomOp.ofFloat("fsum", "a + b", 0f, Float::sum);
}
