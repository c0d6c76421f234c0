package dev.primer.cpu;

import java.lang.foreign.MemorySegment;

/**
 * Scans one chunk for the two-pass parallel scan of {@link CpuScan}; values travel as raw bits of the
 * output type (a float's bits in the low 32, an integer sign-extended).
 *
 * <p>A chunk's outputs are {@code out[i] = carry op L_i}, where {@code L} is the chunk's own scan from
 * the identity. So the chunk's local total can be computed before its carry is known, and the next
 * chunk's carry, {@code carry op total}, is exactly the inclusive output at this chunk's last element.
 */
interface ChunkScanner {

    /**
     * Scans elements {@code [from, to)} of {@code in} into {@code out} as {@code carry op L_i} when
     * {@code write} (else stores nothing), and returns the chunk's local total {@code L_last}, the
     * same whether or not it writes.
     */
    long chunk(MemorySegment in, MemorySegment out, long from, long to, long carryBits, boolean write);

    /** {@code carry op total}: the carry into the next chunk. */
    long combine(long carryBits, long totalBits);
}
