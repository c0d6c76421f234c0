package dev.primer.cpu;

import java.lang.foreign.MemorySegment;

/**
 * A {@link ChunkScanner} whose operator is exact in any order (integers). So {@link CpuScan} may chain
 * pieces smaller than a chunk, and may scan a piece from the identity first and apply its carry
 * afterwards (scan-first): {@code out[i] = carry op L_i} either way, to the bit.
 */
interface ExactChunkScanner extends ChunkScanner {

    /** Scans {@code [from, to)} of {@code in} into {@code out} from the identity; returns the local total. */
    long scanLocal(MemorySegment in, MemorySegment out, long from, long to);

    /** {@code out[i] = carry op out[i]} over {@code [from, to)}. */
    void applyCarry(MemorySegment out, long from, long to, long carryBits);
}
