package dev.primer.cpu;

import dev.primer.Buffer;
import dev.primer.PrimerException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** Native host memory in its own shared arena, so it can be freed on close. */
final class CpuBuffer implements Buffer {
    private final Arena arena = Arena.ofShared();
    private final MemorySegment segment;

    /** Throws PrimerException when the memory is not there, as the GPU's allocation does (CudaException). */
    CpuBuffer(long bytes) {
        try {
            segment = arena.allocate(Math.max(bytes, 1), 64).asSlice(0, bytes);
        } catch (OutOfMemoryError e) {
            arena.close();
            throw new PrimerException("out of host memory: " + bytes + " bytes could not be allocated", e);
        }
    }

    @Override public long byteSize() { return segment.byteSize(); }

    @Override public MemorySegment hostSegment() { return segment; }

    @Override public void free() { arena.close(); }
}
