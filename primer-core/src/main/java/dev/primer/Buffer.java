package dev.primer;

import java.lang.foreign.MemorySegment;

/**
 * Memory a backend allocated for one array (device memory on the GPU, a native segment on the CPU).
 * Freed exactly once, by its array's close or, for a leaked array, by the Cleaner.
 */
public interface Buffer {
    long byteSize();

    void free();

    /** The device address of byte 0 (GPU buffers only). */
    default long deviceAddress() {
        throw new UnsupportedOperationException("not a GPU buffer");
    }

    /** The host memory (CPU buffers only). */
    default MemorySegment hostSegment() {
        throw new UnsupportedOperationException("not a CPU buffer");
    }
}
