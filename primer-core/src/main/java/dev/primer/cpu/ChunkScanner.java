package dev.primer.cpu;

import java.lang.foreign.MemorySegment;

/**
 * Scans one chunk for the two-pass parallel scan of {@link CpuScan}; values travel as raw bits of the
 * output type (a float's bits in the low 32, an integer sign-extended).
 *
 * <p>A chunk's outputs are {@code out[i] = carry op L_i}, where {@code L} is the chunk's own scan from
 * the identity. So the chunk's local total {@code L_last} can be computed before its carry is known, and
 * the next chunk's carry, {@code carry op L_last}, is exactly the inclusive output at this chunk's last
 * element.
 */
interface ChunkScanner {

    /** The local total {@code L_last} of elements {@code [from, to)} (bit for bit as {@link #scan} forms it). */
    long total(MemorySegment in, long from, long to);

    /** Scans elements {@code [from, to)} of {@code in} into {@code out} as {@code carry op L_i}. */
    void scan(MemorySegment in, MemorySegment out, long from, long to, long carryBits);

    /** {@code carry op total}: the carry into the next chunk. */
    long combine(long carryBits, long totalBits);
}
