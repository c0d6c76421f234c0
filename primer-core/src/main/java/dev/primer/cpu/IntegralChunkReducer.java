package dev.primer.cpu;

import java.lang.foreign.MemorySegment;

/** Reduces one chunk {@code [from, to)} (non-empty) of integers with one operator, to a long. */
interface IntegralChunkReducer {
    long reduce(MemorySegment in, long from, long to);
}
