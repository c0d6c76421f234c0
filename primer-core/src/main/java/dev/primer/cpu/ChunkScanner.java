package dev.primer.cpu;

/**
 * Scans one chunk of an array for the two-pass parallel scan in {@link CpuScan}; values travel as
 * raw bits of the output type (a float's bits in the low 32, an int sign-extended).
 *
 * <p>The chunk's result is defined as {@code out[i] = carry op local[i]}, where {@code local} is the
 * scan of the chunk alone from the identity: so the chunk's local total can be computed before its
 * carry is known, and that total is exactly {@code local} at the chunk's last element.
 */
interface ChunkScanner {

    /**
     * Scans elements {@code [from, to)} into the output as {@code carry op local[i]} when
     * {@code write}, and returns the local total (the identity combined with every element, in the
     * same order as the outputs use). With {@code write} false nothing is stored.
     */
    long chunk(long from, long to, long carryBits, boolean write);

    /** {@code carry op total}: the carry into the next chunk. */
    long combine(long carryBits, long totalBits);
}
