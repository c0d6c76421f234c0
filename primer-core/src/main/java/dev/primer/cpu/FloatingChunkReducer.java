package dev.primer.cpu;

import java.lang.foreign.MemorySegment;

/** Reduces one chunk {@code [from, to)} (non-empty) of floating-point values with one operator, in double. */
interface FloatingChunkReducer {
    double reduce(MemorySegment in, long from, long to);
}
