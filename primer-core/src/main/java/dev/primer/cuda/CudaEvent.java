package dev.primer.cuda;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

/** A CUDA event on the context's stream, for timing device work without host clocks. */
public final class CudaEvent implements AutoCloseable {
    private final CudaContext context;
    private long handle;

    CudaEvent(CudaContext context) {
        this.context = context;
        context.makeCurrent();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            Driver.check((int) Driver.cuEventCreate.invokeExact(out, 0), "cuEventCreate");
            handle = out.get(ADDRESS, 0).address();
        } catch (Throwable t) {
            throw Driver.rethrow(t);
        }
    }

    /** Records this event on the context's stream. */
    public CudaEvent record() {
        context.makeCurrent();
        try {
            Driver.check((int) Driver.cuEventRecord.invokeExact(live(), context.streamHandle()), "cuEventRecord");
        } catch (Throwable t) {
            throw Driver.rethrow(t);
        }
        return this;
    }

    public void synchronize() {
        context.makeCurrent();
        try {
            Driver.check((int) Driver.cuEventSynchronize.invokeExact(live()), "cuEventSynchronize");
        } catch (Throwable t) {
            throw Driver.rethrow(t);
        }
    }

    /** Milliseconds from {@code start} to this event; waits for this event first. */
    public float elapsedMillis(CudaEvent start) {
        synchronize();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_FLOAT);
            Driver.check((int) Driver.cuEventElapsedTime.invokeExact(out, start.live(), live()), "cuEventElapsedTime");
            return out.get(JAVA_FLOAT, 0);
        } catch (Throwable t) {
            throw Driver.rethrow(t);
        }
    }

    private long live() {
        if (handle == 0) throw new IllegalStateException("CudaEvent is closed");
        return handle;
    }

    @Override
    public void close() {
        if (handle == 0) return;
        context.makeCurrent();
        long h = handle;
        handle = 0;
        try {
            Driver.check((int) Driver.cuEventDestroy.invokeExact(h), "cuEventDestroy_v2");
        } catch (Throwable t) {
            throw Driver.rethrow(t);
        }
    }
}
