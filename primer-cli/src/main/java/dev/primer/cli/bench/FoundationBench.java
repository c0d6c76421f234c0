package dev.primer.cli.bench;

import dev.primer.DType;
import dev.primer.cuda.CudaContext;
import dev.primer.cuda.CudaKernel;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The foundation: what every primitive pays before its own work. Java → driver launch overhead
 * (asynchronous and synchronous), host ↔ device transfer bandwidth (pageable, pinned and Java heap
 * memory), device-to-device copy bandwidth (the practical ceiling the report compares kernels to),
 * read-only bandwidth (the ceiling of reductions), and the trivial kernel checked end to end.
 */
final class FoundationBench {
    static final String GROUP = "foundation";
    private static final int ASYNC_LAUNCHES = 10_000;
    private static final int SYNC_LAUNCHES = 2_000;
    private static final long TRANSFER_BYTES = 1L << 30;

    private FoundationBench() {}

    static List<BenchRecord> run(BenchSetup s, BenchRecord copy, BenchRecord read) {
        List<BenchRecord> out = new ArrayList<>();
        out.add(Guard.run(s, GROUP, "launch_async", "-", "fill_u64 n=0", () -> launchAsync(s)));
        out.add(Guard.run(s, GROUP, "launch_sync", "-", "fill_u64 n=0", () -> launchSync(s)));
        out.addAll(transfers(s));
        out.add(copy);
        out.add(read);
        out.add(Guard.run(s, GROUP, "fill_u64_verify", "int64", String.valueOf((1L << 20) + 3), () -> fillVerify(s)));
        return out;
    }

    /** Device-to-device copy of n floats, counting read + write: the measured bandwidth ceiling. */
    static BenchRecord copy(BenchSetup s) {
        return Guard.run(s, GROUP, "copy_f32", "float32", String.valueOf(s.n()), () -> copyF32(s));
    }

    /** A kernel that only reads n floats: the ceiling of kernels that read much and write little (reductions). */
    static BenchRecord read(BenchSetup s) {
        return Guard.run(s, GROUP, "read_f32", "float32", String.valueOf(s.n()), () -> readF32(s));
    }

    private static CudaKernel fillKernel(CudaContext ctx) {
        return ctx.module("fill").kernel("fill_u64");
    }

    private static BenchRecord launchAsync(BenchSetup s) {
        CudaContext ctx = s.ctx();
        CudaKernel k = fillKernel(ctx);
        long dummy = ctx.allocate(64);
        try {
            Object[] args = {dummy, 0L, 0L}; // n = 0: the kernel returns at once; boxed once, outside the loop
            for (int i = 0; i < 1000; i++) k.launch(1, 32, 0, args);
            ctx.synchronize();
            int batches = s.reps();
            double[] usPerLaunch = new double[batches];
            for (int b = 0; b < batches; b++) {
                long t0 = System.nanoTime();
                for (int i = 0; i < ASYNC_LAUNCHES; i++) k.launch(1, 32, 0, args);
                ctx.synchronize();
                usPerLaunch[b] = (System.nanoTime() - t0) / 1e3 / ASYNC_LAUNCHES;
            }
            Timing t = Timing.of(Arrays.stream(usPerLaunch).map(us -> us / 1e3).toArray());
            return BenchRecord.measured(GROUP, "launch_async", "-", "fill_u64 n=0", 0, 0, t, null,
                    String.format(Locale.ROOT, "%.2f µs per launch (CudaKernel.launch: the kernel's one-node graph, arguments set and relaunched):"
                                    + " wall time of %d back-to-back launches / %d, median of %d batches",
                            t.medianMs() * 1e3, ASYNC_LAUNCHES, ASYNC_LAUNCHES, batches));
        } finally {
            ctx.free(dummy);
        }
    }

    private static BenchRecord launchSync(BenchSetup s) {
        CudaContext ctx = s.ctx();
        CudaKernel k = fillKernel(ctx);
        long dummy = ctx.allocate(64);
        try {
            Object[] args = {dummy, 0L, 0L};
            Timing t = Timing.wall(200, SYNC_LAUNCHES, i -> {
                k.launch(1, 32, 0, args);
                ctx.synchronize();
            });
            return BenchRecord.measured(GROUP, "launch_sync", "-", "fill_u64 n=0", 0, 0, t, null,
                    String.format(Locale.ROOT, "%.2f µs per launch (through the kernel's graph) + stream synchronize (median of %d)",
                            t.medianMs() * 1e3, SYNC_LAUNCHES));
        } finally {
            ctx.free(dummy);
        }
    }

    /** 1 GiB each way from pageable native memory, pinned memory and a Java float[]: wall time of the synchronous copy. */
    private static List<BenchRecord> transfers(BenchSetup s) {
        List<BenchRecord> out = new ArrayList<>();
        CudaContext ctx = s.ctx();
        long device;
        try {
            device = ctx.allocate(TRANSFER_BYTES);
        } catch (Throwable t) {
            for (String name : List.of("h2d_pageable", "d2h_pageable", "h2d_pinned", "d2h_pinned", "h2d_heap", "d2h_heap")) {
                BenchRecord r = BenchRecord.failed(GROUP, name, "bytes", "1 GiB", t);
                s.say(BenchFormat.line(r));
                out.add(r);
            }
            return out;
        }
        try {
            try (Arena arena = Arena.ofShared()) {
                MemorySegment pageable = Guard.hostOrNull(() -> RandomHost.fillBytes(arena.allocate(TRANSFER_BYTES, 4096), 11));
                out.addAll(transferPair(s, device, "pageable", pageable, "native memory from an Arena (not page-locked)"));
            }
            MemorySegment pinned = Guard.hostOrNull(() -> RandomHost.fillBytes(ctx.allocatePinned(TRANSFER_BYTES), 12));
            try {
                out.addAll(transferPair(s, device, "pinned", pinned, "page-locked (cuMemAllocHost)"));
            } finally {
                if (pinned != null) ctx.freePinned(pinned);
            }
            MemorySegment heap = Guard.hostOrNull(() -> {
                float[] a = new float[(int) (TRANSFER_BYTES / 4)];
                SplittableRandom random = new SplittableRandom(13);
                for (int i = 0; i < a.length; i++) a[i] = (float) random.nextDouble();
                return MemorySegment.ofArray(a);
            });
            out.addAll(transferPair(s, device, "heap", heap, "Java float[2^28], through the context's pinned staging"));
        } finally {
            ctx.free(device);
        }
        return out;
    }

    private static List<BenchRecord> transferPair(BenchSetup s, long device, String kind, MemorySegment host, String what) {
        CudaContext ctx = s.ctx();
        String shape = "1 GiB";
        BenchRecord h2d = Guard.run(s, GROUP, "h2d_" + kind, "bytes", shape, () -> {
            if (host == null) throw new IllegalStateException("could not allocate 1 GiB of " + kind + " host memory");
            Timing t = Timing.wall(1, s.reps(), i -> ctx.copyToDevice(device, host, TRANSFER_BYTES));
            return BenchRecord.measured(GROUP, "h2d_" + kind, "bytes", shape, TRANSFER_BYTES, TRANSFER_BYTES, t, null,
                    "host → device, " + what + "; wall time of the synchronous copy");
        });
        BenchRecord d2h = Guard.run(s, GROUP, "d2h_" + kind, "bytes", shape, () -> {
            if (host == null) throw new IllegalStateException("could not allocate 1 GiB of " + kind + " host memory");
            Timing t = Timing.wall(1, s.reps(), i -> ctx.copyToHost(host, device, TRANSFER_BYTES));
            return BenchRecord.measured(GROUP, "d2h_" + kind, "bytes", shape, TRANSFER_BYTES, TRANSFER_BYTES, t, null,
                    "device → host, " + what + "; wall time of the synchronous copy");
        });
        return List.of(h2d, d2h);
    }

    private static BenchRecord copyF32(BenchSetup s) {
        CudaContext ctx = s.ctx();
        long n = s.n();
        long bytes = n * 4;
        int buffers = s.buffersFor(2 * bytes);
        long[] src = new long[buffers];
        long[] dst = new long[buffers];
        try (Arena arena = Arena.ofShared(); EventTimer timer = new EventTimer(ctx)) {
            MemorySegment host = RandomHost.fill(arena.allocate(bytes, 64), DType.FLOAT, n, 21);
            for (int b = 0; b < buffers; b++) {
                src[b] = ctx.allocate(bytes);
                dst[b] = ctx.allocate(bytes);
                ctx.copyToDevice(src[b], host, bytes);
                ctx.memset32(dst[b], 0x3f800000, n);
            }
            Timing t = timer.time(BenchSetup.WARMUP, s.reps(), i -> ctx.copyDeviceToDeviceAsync(dst[i % buffers], src[i % buffers], bytes));
            ctx.synchronize();
            boolean ok = sameBytes(ctx, dst[0], host, 0) && sameBytes(ctx, dst[0], host, bytes - 4096);
            return BenchRecord.measured(GROUP, "copy_f32", "float32", String.valueOf(n), n, 2.0 * bytes, t, ok,
                    "cuMemcpyDtoDAsync; bytes = read + write; " + buffers + " buffer pair(s)");
        } finally {
            for (int b = 0; b < buffers; b++) {
                ctx.free(src[b]);
                ctx.free(dst[b]);
            }
        }
    }

    /**
     * read_xor_u64 over n floats (n a multiple of 4), 8 blocks of 256 threads per SM: each block
     * leaves the xor of the 64-bit words it read; their xor must equal the host's over the buffer.
     */
    private static BenchRecord readF32(BenchSetup s) {
        CudaContext ctx = s.ctx();
        long n = s.n();
        long bytes = n * 4;
        if (bytes % 16 != 0) throw new IllegalStateException("read_f32 needs whole 16-byte vectors: n = " + n);
        int buffers = s.buffersFor(bytes);
        int grid = 8 * ctx.device().multiprocessorCount();
        long[] src = new long[buffers];
        long partials = ctx.allocate(8L * grid);
        try (Arena arena = Arena.ofShared(); EventTimer timer = new EventTimer(ctx)) {
            MemorySegment host = RandomHost.fill(arena.allocate(bytes, 64), DType.FLOAT, n, 22);
            for (int b = 0; b < buffers; b++) {
                src[b] = ctx.allocate(bytes);
                ctx.copyToDevice(src[b], host, bytes);
            }
            CudaKernel k = ctx.module("stream_read").kernel("read_xor_u64");
            long vectors = bytes / 16;
            ctx.memset8(partials, (byte) 0x5a, 8L * grid);  // poison
            Timing t = timer.time(BenchSetup.WARMUP, s.reps(), i -> k.launch(grid, 256, 0, src[i % buffers], vectors, partials));
            ctx.synchronize();
            // The last launch read buffer (runs - 1) % buffers; every buffer holds the same bytes.
            MemorySegment got = arena.allocate(8L * grid, 8);
            ctx.copyToHost(got, partials, 8L * grid);
            long deviceXor = 0, hostXor = 0;
            for (int b = 0; b < grid; b++) deviceXor ^= got.getAtIndex(ValueLayout.JAVA_LONG, b);
            for (long w = 0; w < bytes / 8; w++) hostXor ^= host.getAtIndex(ValueLayout.JAVA_LONG, w);
            boolean ok = deviceXor == hostXor;
            return BenchRecord.measured(GROUP, "read_f32", "float32", String.valueOf(n), n, bytes, t, ok,
                    String.format(Locale.ROOT, "read_xor_u64: reads only (xor of the 64-bit words, one per block); bytes = read; "
                            + "%d blocks of 256; %d buffer(s)%s", grid, buffers, ok ? "" : "; the xor differs from the host's"));
        } finally {
            for (int b = 0; b < buffers; b++) if (src[b] != 0) ctx.free(src[b]);
            ctx.free(partials);
        }
    }

    /** Whether 4 KiB of device memory at {@code offset} equal the host bytes there. */
    private static boolean sameBytes(CudaContext ctx, long device, MemorySegment host, long offset) {
        MemorySegment got = ctx.readback(device + offset, 4096);
        return got.mismatch(host.asSlice(offset, 4096)) == -1;
    }

    /** fill_u64 on 2^20 + 3 longs with a random pattern, launched as the GPU backend does; every element checked. */
    private static BenchRecord fillVerify(BenchSetup s) {
        CudaContext ctx = s.ctx();
        long n = (1L << 20) + 3;
        long pattern = new SplittableRandom(31).nextLong() | 1;
        long device = ctx.allocate(8 * n);
        try (Arena arena = Arena.ofConfined(); EventTimer timer = new EventTimer(ctx)) {
            ctx.memset8(device, (byte) 0, 8 * n);
            CudaKernel k = fillKernel(ctx);
            long grid = Math.min((n + 255) / 256, 8L * ctx.device().multiprocessorCount());
            Timing t = timer.time(BenchSetup.WARMUP, s.reps(), i -> k.launch(grid, 256, 0, device, n, pattern));
            MemorySegment host = arena.allocate(8 * n, 8);
            ctx.copyToHost(host, device, 8 * n);
            long bad = 0, firstBad = -1;
            for (long i = 0; i < n; i++) {
                if (host.getAtIndex(ValueLayout.JAVA_LONG, i) != pattern) {
                    if (bad++ == 0) firstBad = i;
                }
            }
            String note = bad == 0
                    ? "every element equals the pattern 0x" + Long.toHexString(pattern) + " (8 MiB, fits in L2: a correctness check)"
                    : bad + " wrong elements, first at " + firstBad;
            return BenchRecord.measured(GROUP, "fill_u64_verify", "int64", String.valueOf(n), n, 8.0 * n, t, bad == 0, note);
        } finally {
            ctx.free(device);
        }
    }
}
