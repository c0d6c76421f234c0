package dev.primer.cuda;

import dev.primer.Backends;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The driver bindings on a real GPU: errors are named, kernels load from the jar and run. */
class CudaLayerTest {
    @BeforeEach
    void gpu() { Backends.assumeGpu(); }

    @Test
    void deviceReportsSaneAttributes() {
        CudaDevice d = Cuda.device();
        assertTrue(d.multiprocessorCount() > 0, d.toString());
        assertTrue(d.totalMemoryBytes() > 1L << 30, d.toString());
        assertTrue(d.l2CacheBytes() > 0, d.toString());
        assertTrue(d.computeMajor() >= 8, d.toString());
    }

    @Test
    void outOfMemoryIsACudaExceptionNamingCallAndError() {
        CudaException e = assertThrows(CudaException.class, () -> Cuda.context().allocate(1L << 50));
        assertEquals("CUDA_ERROR_OUT_OF_MEMORY", e.errorName());
        assertTrue(e.getMessage().contains("cuMemAlloc_v2"), e.getMessage());
    }

    @Test
    void aBadLaunchIsNamed() {
        CudaKernel fill = Cuda.context().module("fill").kernel("fill_u64");
        // 64 KB of dynamic shared memory exceeds the default 48 KB limit: the launch must fail.
        CudaException e = assertThrows(CudaException.class, () -> fill.launch(1, 32, 64 << 10, 0L, 0L, 0L));
        assertTrue(e.getMessage().contains("fill_u64"), e.getMessage());
    }

    @Test
    void missingKernelAndModuleAreClearErrors() {
        CudaException k = assertThrows(CudaException.class, () -> Cuda.context().module("fill").kernel("no_such_kernel"));
        assertEquals("CUDA_ERROR_NOT_FOUND", k.errorName());
        IllegalStateException m = assertThrows(IllegalStateException.class, () -> Cuda.context().module("no_such_module"));
        assertTrue(m.getMessage().contains("no_such_module"), m.getMessage());
    }

    @Test
    void theTrivialKernelRunsFromTheJarAndWritesEveryElement() {
        CudaContext ctx = Cuda.context();
        long n = (1 << 20) + 3;
        long p = ctx.allocate(8 * (n + 1));
        try (Arena arena = Arena.ofConfined()) {
            ctx.memset8(p, (byte) 0xA5, 8 * (n + 1)); // poison, including one element past the end
            long pattern = 0x5EED_1234_ABCD_0042L;
            ctx.module("fill").kernel("fill_u64").launch(1000, 256, 0, p, n, pattern);
            MemorySegment host = arena.allocate(ValueLayout.JAVA_LONG, n + 1);
            ctx.copyToHost(host, p, 8 * (n + 1));
            for (long i = 0; i < n; i++) assertEquals(pattern, host.getAtIndex(ValueLayout.JAVA_LONG, i), "element " + i);
            assertEquals(0xA5A5A5A5A5A5A5A5L, host.getAtIndex(ValueLayout.JAVA_LONG, n), "the element past the end was written");
        } finally {
            ctx.free(p);
        }
    }

    @Test
    void eventsTimeDeviceWork() {
        CudaContext ctx = Cuda.context();
        long bytes = 256L << 20;
        long a = ctx.allocate(bytes), b = ctx.allocate(bytes);
        try (CudaEvent start = ctx.newEvent(); CudaEvent stop = ctx.newEvent()) {
            start.record();
            ctx.copyDeviceToDeviceAsync(b, a, bytes);
            stop.record();
            float ms = stop.elapsedMillis(start);
            assertTrue(ms > 0 && ms < 1000, "elapsed " + ms);
        } finally {
            ctx.free(a);
            ctx.free(b);
        }
    }
}
