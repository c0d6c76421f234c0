package dev.primer;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A leaked array is freed once by the Cleaner's action; a closed one is never freed twice. */
class LeakReportTest {
    static final class CountingBuffer implements Buffer {
        final AtomicInteger frees = new AtomicInteger();
        @Override public long byteSize() { return 16; }
        @Override public void free() { frees.incrementAndGet(); }
    }

    @Test
    void leakedMemoryIsFreedOnceAndReported() {
        try (Primer primer = Primer.open(BackendKind.CPU)) {
            CountingBuffer buffer = new CountingBuffer();
            DeviceArray.Memory memory = new DeviceArray.Memory(primer.backend(), buffer, "test array");
            memory.run();   // what the Cleaner does for an unreachable, unclosed array
            memory.run();
            memory.free();  // a late close does not free again
            assertEquals(1, buffer.frees.get());
        }
    }

    @Test
    void closeFreesOnceAndTheCleanerThenDoesNothing() {
        try (Primer primer = Primer.open(BackendKind.CPU)) {
            CountingBuffer buffer = new CountingBuffer();
            DeviceArray.Memory memory = new DeviceArray.Memory(primer.backend(), buffer, "test array");
            IntArray a = new IntArray(memory, 0, 4, null);
            a.close();
            a.close();
            memory.run();
            assertEquals(1, buffer.frees.get());
        }
    }
}
