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

    /**
     * A scratch buffer that fails to grow (the device full) is dropped, not kept: the next call neither
     * gets the freed pointer back nor frees it a second time (which would throw CUDA_ERROR_INVALID_VALUE).
     */
    @Test
    void aScratchThatFailsToGrowIsNeitherReusedNorFreedTwice() {
        CudaContext ctx = Cuda.context();
        String owner = "test.scratch-growth";
        long grownBytes = 64L << 20;
        ctx.scratch(owner, 4096);
        java.util.List<Long> hog = new java.util.ArrayList<>();
        try {
            for (long piece = 1L << 34; piece >= 1L << 20; piece >>= 1) {  // the device's memory, big pieces first
                while (true) {
                    try {
                        hog.add(ctx.allocate(piece));
                    } catch (CudaException full) {
                        assertEquals("CUDA_ERROR_OUT_OF_MEMORY", full.errorName());
                        break;
                    }
                }
            }
            CudaException e = assertThrows(CudaException.class, () -> ctx.scratch(owner, grownBytes));
            assertEquals("CUDA_ERROR_OUT_OF_MEMORY", e.errorName());
        } finally {
            for (long p : hog) ctx.free(p);
        }
        long grown = ctx.scratch(owner, grownBytes);
        ctx.memset8(grown, (byte) 7, grownBytes);  // it is the caller's to use
        ctx.synchronize();
        assertEquals(grown, ctx.scratch(owner, 4096), "kept for the next call");
    }

    @Test
    void aBadLaunchIsNamedAndTheKernelLaunchesAfterIt() {
        CudaContext ctx = Cuda.context();
        CudaKernel fill = ctx.module("fill").kernel("fill_u64").freshCopy();
        long n = 33;
        long p = ctx.allocate(8 * n);
        try (Arena arena = Arena.ofConfined()) {
            fill.launch(1, 32, 0, p, n, 1L);
            assertEquals(1, fill.graphShapes());
            // 240 KB of dynamic shared memory is more than any GPU gives a block: the launch must fail.
            CudaException e = assertThrows(CudaException.class, () -> fill.launch(1, 32, 240 << 10, p, n, 2L));
            assertTrue(e.getMessage().contains("fill_u64"), e.getMessage());
            assertEquals(1, fill.graphShapes(), "the refused shape keeps no graph");
            long pattern = 0x0123_4567_89AB_CDEFL;
            fill.launch(1, 32, 0, p, n, pattern);  // the surviving graph, new arguments
            assertEquals(1, fill.graphShapes());
            assertFilled(ctx, arena, p, n, pattern);
        } finally {
            ctx.free(p);
        }
    }

    /**
     * A cooperative launch runs only with every block resident at once: one block more than a wave is
     * refused, naming the kernel and the driver's error, both through a shape's graph (whose node
     * carries the cooperative attribute) and past the graphs' eight shapes (cuLaunchCooperativeKernel);
     * launches within a wave run either way. The kernel: the segmented reduce's one launch (grid
     * barriers) over one empty segment, which writes 0, a verdict of zeros, and leaves its barrier's
     * arrivals at zero.
     */
    @Test
    void aCooperativeLaunchBeyondOneWaveIsRefused() {
        CudaContext ctx = Cuda.context();
        CudaKernel one = ctx.module("segmented_reduce").kernel("segreduce_one_launch_sum_f32").freshCopy();
        int wave = one.maxActiveBlocksPerSm(256, 0) * ctx.device().multiprocessorCount();
        long offsets = ctx.allocate(16), in = ctx.allocate(16), out = ctx.allocate(16), verdict = ctx.allocate(32);
        long scratch = ctx.allocate(4096);
        try (Arena arena = Arena.ofConfined()) {
            ctx.memset8(offsets, (byte) 0, 16);
            ctx.memset8(scratch, (byte) 0, 4096);
            Object[] args = {in, offsets, 1L, 0L, 4, out, scratch, verdict};  // items: 4 steps per thread
            CudaException graph = assertThrows(CudaException.class, () -> one.launchCooperative(wave + 1, 256, 0, args));
            assertTrue(graph.getMessage().contains("COOPERATIVE_LAUNCH_TOO_LARGE")
                    && graph.getMessage().contains("segreduce_one_launch_sum_f32"), graph.getMessage());
            assertEquals(0, one.graphShapes(), "the refused shape keeps no graph");
            for (int grid = 1; grid <= 9; grid++) {  // the ninth past the graphs
                ctx.memset8(out, (byte) 0x5A, 16);
                ctx.memset8(verdict, (byte) 0x5A, 32);
                one.launchCooperative(Math.min(grid, wave), 256, 0, args);
                MemorySegment got = arena.allocate(32);
                ctx.copyToHost(got, out, 4);
                assertEquals(0.0f, got.get(ValueLayout.JAVA_FLOAT, 0), "grid " + grid);
                ctx.copyToHost(got, verdict, 32);
                for (int w = 0; w < 4; w++) assertEquals(0L, got.getAtIndex(ValueLayout.JAVA_LONG, w), "verdict word " + w);
                ctx.copyToHost(got, scratch + 56, 8);
                assertEquals(0L, got.get(ValueLayout.JAVA_LONG, 0), "the arrivals are back to zero");
            }
            CudaException plain = assertThrows(CudaException.class, () -> one.launchCooperative(wave + 1, 256, 0, args));
            assertTrue(plain.getMessage().contains("cuLaunchCooperativeKernel")
                    && plain.getMessage().contains("COOPERATIVE_LAUNCH_TOO_LARGE"), plain.getMessage());
        } finally {
            for (long p : new long[] {offsets, in, out, verdict, scratch}) ctx.free(p);
        }
    }

    /**
     * With the check on (-Dprimer.checkLaunches=true, as the GPU suite runs), arguments that do not
     * match the kernel's parameter list as compiled (fill_u64: a pointer, a long long, an unsigned
     * long long) are refused before anything is queued, naming the kernel and the argument; the
     * kernel then launches as before. The suite's other tests launch every kernel with the check on.
     */
    @Test
    void argumentsThatDoNotMatchTheParametersAreRefusedByName() {
        CudaContext ctx = Cuda.context();
        CudaKernel fill = ctx.module("fill").kernel("fill_u64").checkedCopy();
        org.junit.jupiter.api.Assumptions.assumeTrue(fill.parameterBytes().length > 0,
                "this driver has no cuFuncGetParamInfo (CUDA < 12.4): launches are not checked");
        assertEquals("[8, 8, 8]", java.util.Arrays.toString(fill.parameterBytes()));
        long n = 40;
        long p = ctx.allocate(8 * n);
        try (Arena arena = Arena.ofConfined()) {
            ctx.memset8(p, (byte) 0x5A, 8 * n);
            IllegalArgumentException tooFew = assertThrows(IllegalArgumentException.class, () -> fill.launch(1, 32, 0, p, n));
            assertEquals("fill_u64: 2 arguments for 3 parameters", tooFew.getMessage());
            IllegalArgumentException tooMany = assertThrows(IllegalArgumentException.class, () -> fill.launch(1, 32, 0, p, n, 1L, 2L));
            assertEquals("fill_u64: 4 arguments for 3 parameters", tooMany.getMessage());
            IllegalArgumentException narrow = assertThrows(IllegalArgumentException.class, () -> fill.launch(1, 32, 0, p, (int) n, 1L));
            assertEquals("fill_u64: argument 1 (Integer, 4 bytes) for a parameter of 8 bytes", narrow.getMessage());
            assertEquals(0, fill.graphShapes(), "nothing was launched");
            ctx.synchronize();
            MemorySegment host = arena.allocate(ValueLayout.JAVA_LONG, n);
            ctx.copyToHost(host, p, 8 * n);
            for (long i = 0; i < n; i++) assertEquals(0x5A5A5A5A5A5A5A5AL, host.getAtIndex(ValueLayout.JAVA_LONG, i), "element " + i);
            long pattern = 0x1357_9BDF_2468_ACE0L;
            fill.launch(1, 32, 0, p, n, pattern);
            assertFilled(ctx, arena, p, n, pattern);
        } finally {
            ctx.free(p);
        }
    }

    /** Above 48 KB, dynamic shared memory needs the kernel's attribute raised; the graph then takes it. */
    @Test
    void dynamicSharedMemoryAbove48KbLaunchesOnceAllowed() {
        CudaContext ctx = Cuda.context();
        CudaKernel fill = ctx.module("fill").kernel("fill_u64").freshCopy();
        long n = 1000;
        long p = ctx.allocate(8 * n);
        try (Arena arena = Arena.ofConfined()) {
            fill.setMaxDynamicSharedBytes(64 << 10);
            long pattern = 0x7777_0000_1234_5678L;
            fill.launch(3, 64, 64 << 10, p, n, pattern);
            assertEquals(1, fill.graphShapes());
            assertFilled(ctx, arena, p, n, pattern);
        } finally {
            ctx.free(p);
        }
    }

    /**
     * Launches queued without waiting, each with its own arguments, all land as issued: setting a
     * graph's arguments must not reach launches already in the stream. Runs of 25 launches of one
     * shape, over grids of 1 to 12 blocks, so eight shapes go through graphs and the rest by
     * cuLaunchKernel, interleaved on the stream; a slow one-warp fill first and one every 64 launches
     * keep the GPU behind, so graphs are updated while their earlier launches still wait.
     */
    @Test
    void launchesQueuedBackToBackKeepTheirOwnArguments() {
        CudaContext ctx = Cuda.context();
        CudaKernel fill = ctx.module("fill").kernel("fill_u64").freshCopy();
        int launches = 3000, region = 48;
        long slowElements = 1L << 22;
        long regions = ctx.allocate(8L * launches * region), slow = ctx.allocate(8 * slowElements);
        try (Arena arena = Arena.ofConfined()) {
            ctx.memset8(regions, (byte) 0xA5, 8L * launches * region);
            ctx.synchronize();
            assertEquals(0, fill.graphShapes());
            fill.enqueue(1, 1, 32, 0, slow, slowElements, 1L);
            for (int i = 0; i < launches; i++) {
                if (i % 64 == 63) fill.enqueue(1, 1, 32, 0, slow, slowElements / 4, (long) i);
                fill.enqueue(1 + (i / 25) % 12, 1, 32, 0, regions + 8L * region * i, (long) region, pattern(i));
            }
            ctx.synchronize();
            MemorySegment host = arena.allocate(ValueLayout.JAVA_LONG, (long) launches * region);
            ctx.copyToHost(host, regions, 8L * launches * region);
            for (int i = 0; i < launches; i++) {
                for (int j = 0; j < region; j++) {
                    assertEquals(pattern(i), host.getAtIndex(ValueLayout.JAVA_LONG, (long) i * region + j), "launch " + i + ", element " + j);
                }
            }
            assertEquals(KernelGraphs.MAX_SHAPES, fill.graphShapes(), "12 shapes launched: graphs for the first " + KernelGraphs.MAX_SHAPES + " only");
        } finally {
            ctx.free(regions);
            ctx.free(slow);
        }
    }

    private static void assertFilled(CudaContext ctx, Arena arena, long p, long n, long pattern) {
        MemorySegment host = arena.allocate(ValueLayout.JAVA_LONG, n);
        ctx.copyToHost(host, p, 8 * n);
        for (long i = 0; i < n; i++) assertEquals(pattern, host.getAtIndex(ValueLayout.JAVA_LONG, i), "element " + i);
    }

    private static long pattern(int launch) {
        return 0x9E37_79B9_7F4A_7C15L * (launch + 1);
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
