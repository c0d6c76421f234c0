package dev.primer.cpu;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A small native buffer per thread, where a block scanner pads the last partial block of its range
 * with the identity: an Arena per tail cost more than the scan of a short segment (a segmented scan
 * has one tail per segment), and vector loads from heap arrays ran slower still.
 */
final class TailBlock {
    private TailBlock() {}

    /** Enough for the widest block: 32 int32 lanes, or 16 elements in and 16 int64 out. */
    static final int BYTES = 512;

    private static final ThreadLocal<MemorySegment> BUFFER =
            ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(BYTES, 64));

    /**
     * This thread's buffer, {@code bytes} long, 64-byte aligned, its contents left from the last use. A
     * scanner uses it only between its own calls, never across a fork or a join, so no two uses overlap.
     */
    static MemorySegment get(long bytes) {
        return BUFFER.get().asSlice(0, bytes);
    }
}
