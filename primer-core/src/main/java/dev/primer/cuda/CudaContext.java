package dev.primer.cuda;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongConsumer;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The primary context of one device, with the one stream Primer issues all work on, the loaded
 * modules, per-primitive scratch buffers and pinned staging buffers for heap transfers.
 * A CUDA context is current per thread: every entry point makes it current on the calling thread
 * first (a thread-local check, so the common case costs no driver call).
 */
public final class CudaContext {
    /** Synchronize and check after every launch (tests turn this on): names a faulting kernel at once. */
    static final boolean CHECK_LAUNCHES = Boolean.getBoolean("primer.checkLaunches");
    private static final int CU_STREAM_NON_BLOCKING = 1;
    /** Two pinned buffers of this size pipeline heap transfers: fill one while the other is copied. */
    private static final long STAGING_BYTES = 8L << 20;

    private static final ThreadLocal<CudaContext> CURRENT = new ThreadLocal<>();

    private final CudaDevice device;
    private final long handle;
    private final long stream;
    private final Map<String, CudaModule> modules = new ConcurrentHashMap<>();
    private final Map<String, long[]> scratch = new HashMap<>(); // owner -> {pointer, bytes}
    private final Map<String, Object> scratchLocks = new ConcurrentHashMap<>();
    private final MemorySegment[] staging = new MemorySegment[2];
    private final CudaEvent[] stagingFree = new CudaEvent[2];
    /** Held through a heap transfer: the two staging buffers serve one transfer at a time. */
    private final Object stagingLock = new Object();
    private final MemorySegment readback;

    CudaContext(CudaDevice device) {
        this.device = device;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            Driver.check((int) Driver.cuDevicePrimaryCtxRetain.invokeExact(out, device.ordinal()), "cuDevicePrimaryCtxRetain");
            handle = out.get(ADDRESS, 0).address();
            Driver.check((int) Driver.cuCtxSetCurrent.invokeExact(handle), "cuCtxSetCurrent");
            CURRENT.set(this);
            Driver.check((int) Driver.cuStreamCreate.invokeExact(out, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
            stream = out.get(ADDRESS, 0).address();
        } catch (Throwable t) {
            throw Driver.rethrow(t);
        }
        readback = allocatePinned(4096);
    }

    public CudaDevice device() { return device; }

    long streamHandle() { return stream; }

    /** Makes this context current on the calling thread. */
    void makeCurrent() {
        if (CURRENT.get() == this) return;
        try {
            Driver.check((int) Driver.cuCtxSetCurrent.invokeExact(handle), "cuCtxSetCurrent");
        } catch (Throwable t) {
            throw Driver.rethrow(t);
        }
        CURRENT.set(this);
    }

    /** The module packed in the jar as {@code dev/primer/kernels/NAME.fatbin}, loaded once. */
    public CudaModule module(String name) {
        CudaModule m = modules.get(name);
        return m != null ? m : modules.computeIfAbsent(name, n -> new CudaModule(this, n, kernelImage(n)));
    }

    /** A module from an image built at run time (NVRTC), cached under {@code key}. */
    public CudaModule module(String key, byte[] image) {
        return modules.computeIfAbsent(key, n -> new CudaModule(this, n, image));
    }

    private static byte[] kernelImage(String name) {
        String resource = "/dev/primer/kernels/" + name + ".fatbin";
        try (InputStream in = CudaContext.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("kernel module " + resource + " is not in the jar"
                        + " (was it built without nvcc, or is the module name wrong?)");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + resource, e);
        }
    }

    /** Waits for all work issued on Primer's stream. */
    public void synchronize() {
        makeCurrent();
        try {
            Driver.check((int) Driver.cuStreamSynchronize.invokeExact(stream), "cuStreamSynchronize");
        } catch (Throwable t) {
            throw Driver.rethrow(t);
        }
    }

    /** {@code CUDA_ERROR_NOT_READY}: cuStreamQuery's "work still pending". */
    private static final int CUDA_ERROR_NOT_READY = 600;
    /** Spinning on a result longer than this falls back to cuStreamSynchronize. */
    private static final long SPIN_LIMIT_NANOS = 200_000;
    private static final VarHandle LONG_AT = ValueLayout.JAVA_LONG.varHandle();

    /** Whether all work issued on Primer's stream has finished; an error there is thrown. */
    public boolean isIdle() {
        makeCurrent();
        int r;
        try {
            r = (int) Driver.cuStreamQuery.invokeExact(stream);
        } catch (Throwable t) {
            throw Driver.rethrow(t);
        }
        if (r == CUDA_ERROR_NOT_READY) return false;
        Driver.check(r, "cuStreamQuery");
        return true;
    }

    /**
     * Waits for a result that the last launch on Primer's stream writes straight into pinned host
     * memory: until each of the first {@code words} 8-byte words of {@code pinned} differs from
     * {@code poison} (which the caller stored there before the launch), or the stream is idle. Polling
     * the memory the device writes returns about 2 µs sooner than cuStreamSynchronize (measured on an
     * H200 with cuLaunchKernel: 9.9 vs 12.0 µs for a 2^20-float sum); a true value that happens to
     * equal the poison only costs the wait for the stream. The stream is queried now and then, so an
     * error in the kernel is thrown (as by {@link #synchronize}) rather than waited on forever; after
     * {@value #SPIN_LIMIT_NANOS} ns of spinning it synchronizes instead, to give the CPU back.
     * Work later on the stream stays ordered after the kernel, which may still be retiring.
     */
    public void awaitPinnedResult(MemorySegment pinned, int words, long poison) {
        long start = System.nanoTime();
        long nextQuery = start + 20_000;
        for (int spin = 0; ; spin++) {
            boolean written = true;
            for (int w = 0; w < words && written; w++) written = (long) LONG_AT.getVolatile(pinned, 8L * w) != poison;
            if (written) return;
            if ((spin & 63) == 63) {
                long now = System.nanoTime();
                if (now - start > SPIN_LIMIT_NANOS) {
                    synchronize();
                    return;
                }
                if (now >= nextQuery) {
                    if (isIdle()) return;
                    nextQuery = now + 10_000;
                }
            }
            Thread.onSpinWait();
        }
    }

    void checkAfterLaunch(String kernel) {
        int r;
        try {
            r = (int) Driver.cuStreamSynchronize.invokeExact(stream);
        } catch (Throwable t) {
            throw Driver.rethrow(t);
        }
        Driver.check(r, "kernel " + kernel + " (error found by the synchronize after its launch)");
    }

    // ---- memory ----

    /** Device memory of {@code bytes} (0 for 0 bytes). Freed by {@link #free}. */
    public long allocate(long bytes) {
        if (bytes < 0) throw new IllegalArgumentException("bytes must be >= 0: " + bytes);
        if (bytes == 0) return 0;
        makeCurrent();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            Driver.check((int) Driver.cuMemAlloc.invokeExact(out, bytes), "cuMemAlloc_v2(" + bytes + " bytes)");
            return out.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw Driver.rethrow(t);
        }
    }

    public void free(long pointer) {
        if (pointer == 0) return;
        makeCurrent();
        try {
            Driver.check((int) Driver.cuMemFree.invokeExact(pointer), "cuMemFree_v2");
        } catch (Throwable t) {
            throw Driver.rethrow(t);
        }
    }

    /** {free, total} device memory in bytes. */
    public long[] memoryInfo() {
        makeCurrent();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment free = arena.allocate(JAVA_LONG), total = arena.allocate(JAVA_LONG);
            Driver.check((int) Driver.cuMemGetInfo.invokeExact(free, total), "cuMemGetInfo_v2");
            return new long[] {free.get(JAVA_LONG, 0), total.get(JAVA_LONG, 0)};
        } catch (Throwable t) {
            throw Driver.rethrow(t);
        }
    }

    /** Page-locked host memory, released when the JVM exits (used for staging and results). */
    public MemorySegment allocatePinned(long bytes) {
        makeCurrent();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            Driver.check((int) Driver.cuMemAllocHost.invokeExact(out, bytes), "cuMemAllocHost_v2(" + bytes + " bytes)");
            return out.get(ADDRESS, 0).reinterpret(bytes);
        } catch (Throwable t) {
            throw Driver.rethrow(t);
        }
    }

    /** Frees memory from {@link #allocatePinned}. */
    public void freePinned(MemorySegment pinned) {
        makeCurrent();
        try {
            Driver.check((int) Driver.cuMemFreeHost.invokeExact(pinned), "cuMemFreeHost");
        } catch (Throwable t) {
            throw Driver.rethrow(t);
        }
    }

    /**
     * A device buffer owned by this context for one primitive ({@code owner}), at least {@code bytes}
     * long, zero-filled when (re)allocated. Kernels that keep counters there leave them zero.
     *
     * <p>The context (and its one stream) is shared by every thread and every GPU Primer, and a
     * larger request frees the old buffer. So a caller whose use of the buffer spans more than one
     * launch, copy or memset, or reads a result back out of it, or may ask for more bytes than before,
     * holds {@link #scratchLock scratchLock(owner)} from this call until its last use of the buffer
     * has been issued (and read back, where it reads): otherwise another thread's launches can land
     * between its own on the stream and consume or overwrite its partials, counters or results, or
     * free the buffer under it. A fixed-size buffer used by one self-contained launch needs no lock:
     * the stream runs launches one after another.
     */
    public synchronized long scratch(String owner, long bytes) {
        long[] s = scratch.get(owner);
        if (s != null && s[1] >= bytes) return s[0];
        if (s != null) {
            synchronize();
            scratch.remove(owner);  // first: if what follows fails, no later call may get (or free) it again
            free(s[0]);
        }
        long size = Math.max(bytes, 4096);
        long p = allocate(size);
        try {
            memset8(p, (byte) 0, size);
            synchronize();
        } catch (RuntimeException e) {
            try {
                free(p);
            } catch (RuntimeException f) {
                e.addSuppressed(f);
            }
            throw e;
        }
        scratch.put(owner, new long[] {p, size});
        return p;
    }

    /**
     * The lock guarding the {@link #scratch} buffer of {@code owner} on this context: one object per
     * owner, so primitives with different buffers do not wait for each other. Lock order: a thread
     * holding it may call {@link #scratch}, {@link #readback} and the other methods of this context
     * (which lock only the context), never another owner's scratch lock.
     */
    public Object scratchLock(String owner) {
        Object lock = scratchLocks.get(owner);
        return lock != null ? lock : scratchLocks.computeIfAbsent(owner, o -> new Object());
    }

    /**
     * Copies {@code bytes} (at most 4 KiB) from the device through a pinned buffer owned by this
     * context and returns them as a heap segment of the caller's own: the fast way back for scalar
     * results, safe when several threads share the context.
     */
    public synchronized MemorySegment readback(long src, int bytes) {
        if (bytes > readback.byteSize()) throw new IllegalArgumentException("readback of " + bytes + " bytes > 4096");
        makeCurrent();
        asyncDtoH(readback, src, bytes);
        synchronize();
        MemorySegment copy = MemorySegment.ofArray(new long[(bytes + 7) / 8]); // 8-byte aligned, like the pinned buffer
        MemorySegment.copy(readback, 0, copy, 0, bytes);
        return copy.asSlice(0, bytes);
    }

    /**
     * Runs {@code launch} with the address of a pinned buffer of this context whose first {@code words}
     * 8-byte words hold {@code poison}, waits until the work it issued has written them all
     * ({@link #awaitPinnedResult}) and returns a copy of them: {@link #readback}'s answer without its
     * copy and synchronize, for a kernel that writes a few words straight to the host and may go on
     * running after them (later work on the stream stays ordered after it).
     */
    public synchronized MemorySegment launchAndAwait(int words, long poison, LongConsumer launch) {
        if (words < 1 || 8L * words > readback.byteSize()) throw new IllegalArgumentException("words: " + words + " not in 1 .. 512");
        makeCurrent();
        for (int w = 0; w < words; w++) readback.set(JAVA_LONG, 8L * w, poison);
        launch.accept(readback.address());
        awaitPinnedResult(readback, words, poison);
        MemorySegment copy = MemorySegment.ofArray(new long[words]);
        MemorySegment.copy(readback, 0, copy, 0, 8L * words);
        return copy;
    }

    /** Synchronous host-to-device copy; heap segments go through pinned staging. */
    public void copyToDevice(long dst, MemorySegment src, long bytes) {
        checkCopy(src, bytes, "src");
        if (bytes == 0) return;
        makeCurrent();
        if (src.isNative()) {
            asyncHtoD(dst, src, bytes);
            synchronize();
            return;
        }
        synchronized (stagingLock) {  // another thread's transfer would overwrite the buffers mid-copy
            for (long done = 0, chunk = 0; done < bytes; done += STAGING_BYTES, chunk++) {
                int k = (int) (chunk & 1);
                long n = Math.min(STAGING_BYTES, bytes - done);
                MemorySegment buffer = staging(k);
                stagingFree[k].synchronize();                 // the copy that last used this buffer is done
                MemorySegment.copy(src, done, buffer, 0, n);  // overlaps the other buffer's DMA
                asyncHtoD(dst + done, buffer, n);
                stagingFree[k].record();
            }
            synchronize();
        }
    }

    /** Synchronous device-to-host copy; heap segments go through pinned staging. */
    public void copyToHost(MemorySegment dst, long src, long bytes) {
        checkCopy(dst, bytes, "dst");
        if (bytes == 0) return;
        makeCurrent();
        if (dst.isNative()) {
            asyncDtoH(dst, src, bytes);
            synchronize();
            return;
        }
        long chunks = (bytes + STAGING_BYTES - 1) / STAGING_BYTES;
        synchronized (stagingLock) {
            // Keep one chunk in flight ahead of the host copy-out.
            issueDtoH(0, src, bytes);
            for (long c = 0; c < chunks; c++) {
                if (c + 1 < chunks) issueDtoH(c + 1, src, bytes);
                int k = (int) (c & 1);
                stagingFree[k].synchronize();
                long off = c * STAGING_BYTES;
                MemorySegment.copy(staging[k], 0, dst, off, Math.min(STAGING_BYTES, bytes - off));
            }
        }
    }

    private void issueDtoH(long chunk, long src, long bytes) {
        int k = (int) (chunk & 1);
        long off = chunk * STAGING_BYTES;
        asyncDtoH(staging(k), src + off, Math.min(STAGING_BYTES, bytes - off));
        stagingFree[k].record();
    }

    private synchronized MemorySegment staging(int k) {
        if (staging[k] == null) {
            MemorySegment buffer = allocatePinned(STAGING_BYTES);
            try {
                stagingFree[k] = newEvent().record();
            } catch (RuntimeException e) {
                freePinned(buffer);
                throw e;
            }
            staging[k] = buffer;  // last: a half-made pair would be taken as made
        }
        return staging[k];
    }

    private static void checkCopy(MemorySegment segment, long bytes, String name) {
        if (segment == null) throw new NullPointerException(name);
        if (bytes < 0) throw new IllegalArgumentException("bytes must be >= 0: " + bytes);
        if (bytes > segment.byteSize()) {
            throw new IllegalArgumentException(name + " holds " + segment.byteSize() + " bytes, fewer than the " + bytes + " to copy");
        }
    }

    public void copyDeviceToDevice(long dst, long src, long bytes) {
        copyDeviceToDeviceAsync(dst, src, bytes);
        synchronize();
    }

    /** Device-to-device copy ordered on Primer's stream (no host wait). */
    public void copyDeviceToDeviceAsync(long dst, long src, long bytes) {
        if (bytes == 0) return;
        makeCurrent();
        try {
            Driver.check((int) Driver.cuMemcpyDtoDAsync.invokeExact(dst, src, bytes, stream), "cuMemcpyDtoDAsync_v2");
        } catch (Throwable t) {
            throw Driver.rethrow(t);
        }
    }

    /** Sets {@code count} bytes to {@code value}, ordered on Primer's stream. */
    public void memset8(long pointer, byte value, long count) {
        if (count == 0) return;
        makeCurrent();
        try {
            Driver.check((int) Driver.cuMemsetD8Async.invokeExact(pointer, value, count, stream), "cuMemsetD8Async");
        } catch (Throwable t) {
            throw Driver.rethrow(t);
        }
    }

    /** Sets {@code count} 32-bit words to {@code value}, ordered on Primer's stream. */
    public void memset32(long pointer, int value, long count) {
        if (count == 0) return;
        makeCurrent();
        try {
            Driver.check((int) Driver.cuMemsetD32Async.invokeExact(pointer, value, count, stream), "cuMemsetD32Async");
        } catch (Throwable t) {
            throw Driver.rethrow(t);
        }
    }

    private void asyncHtoD(long dst, MemorySegment src, long bytes) {
        try {
            Driver.check((int) Driver.cuMemcpyHtoDAsync.invokeExact(dst, src, bytes, stream), "cuMemcpyHtoDAsync_v2");
        } catch (Throwable t) {
            throw Driver.rethrow(t);
        }
    }

    private void asyncDtoH(MemorySegment dst, long src, long bytes) {
        try {
            Driver.check((int) Driver.cuMemcpyDtoHAsync.invokeExact(dst, src, bytes, stream), "cuMemcpyDtoHAsync_v2");
        } catch (Throwable t) {
            throw Driver.rethrow(t);
        }
    }

    public CudaEvent newEvent() { return new CudaEvent(this); }

}
