package dev.primer.cuda;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A kernel entry point. {@link #launch} packs the arguments into a per-thread parameter block that is
 * reused for every launch (no allocation on the launch path beyond boxing), then calls cuLaunchKernel
 * on the context's stream.
 */
public final class CudaKernel {
    private static final int MAX_ARGS = 32;
    private static final int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
    private static final int CU_FUNC_ATTRIBUTE_NUM_REGS = 4;

    /** Slot i holds argument i's value (8 bytes); pointer i points at slot i. */
    private static final ThreadLocal<MemorySegment[]> PARAMS = ThreadLocal.withInitial(() -> {
        Arena arena = Arena.ofAuto();
        MemorySegment values = arena.allocate(8L * MAX_ARGS, 8);
        MemorySegment pointers = arena.allocate(ADDRESS.byteSize() * MAX_ARGS, 8);
        for (int i = 0; i < MAX_ARGS; i++) pointers.setAtIndex(ADDRESS, i, values.asSlice(8L * i, 8));
        return new MemorySegment[] {values, pointers};
    });

    private final CudaContext context;
    private final String name;
    private final long handle;

    CudaKernel(CudaContext context, String name, long handle) {
        this.context = context;
        this.name = name;
        this.handle = handle;
    }

    public String name() { return name; }

    /** 1-D launch: {@code grid} blocks of {@code block} threads. */
    public void launch(long grid, int block, int sharedBytes, Object... args) {
        launch(grid, 1, block, sharedBytes, args);
    }

    /**
     * 2-D grid launch. Arguments in the kernel's parameter order: Long (pointers and 64-bit
     * integers), Integer, Float, Double.
     */
    public void launch(long gridX, long gridY, int block, int sharedBytes, Object... args) {
        if (gridX < 1 || gridX > Integer.MAX_VALUE) throw new IllegalArgumentException(name + ": gridX " + gridX + " out of range 1..2^31-1");
        if (gridY < 1 || gridY > 65535) throw new IllegalArgumentException(name + ": gridY " + gridY + " out of range 1..65535");
        if (block < 1 || block > 1024) throw new IllegalArgumentException(name + ": block " + block + " out of range 1..1024");
        if (args.length > MAX_ARGS) throw new IllegalArgumentException(name + ": more than " + MAX_ARGS + " arguments");
        context.makeCurrent();
        MemorySegment[] params = PARAMS.get();
        MemorySegment values = params[0];
        for (int i = 0; i < args.length; i++) {
            long offset = 8L * i;
            switch (args[i]) {
                case Long v -> values.set(JAVA_LONG, offset, v);
                case Integer v -> values.set(JAVA_INT, offset, v);
                case Float v -> values.set(JAVA_FLOAT, offset, v);
                case Double v -> values.set(JAVA_DOUBLE, offset, v);
                case null -> throw new IllegalArgumentException(name + ": argument " + i + " is null");
                default -> throw new IllegalArgumentException(name + ": argument " + i + " has unsupported type "
                        + args[i].getClass().getSimpleName() + " (Long, Integer, Float, Double)");
            }
        }
        int result;
        try {
            result = (int) Driver.cuLaunchKernel.invokeExact(handle, (int) gridX, (int) gridY, 1, block, 1, 1,
                    sharedBytes, context.streamHandle(), params[1], MemorySegment.NULL);
        } catch (Throwable t) {
            throw Driver.rethrow(t);
        }
        Driver.check(result, "cuLaunchKernel(" + name + ")");
        if (CudaContext.CHECK_LAUNCHES) context.checkAfterLaunch(name);
    }

    /** Blocks of {@code block} threads that fit on one multiprocessor at once. */
    public int maxActiveBlocksPerSm(int block, int sharedBytes) {
        context.makeCurrent();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            Driver.check((int) Driver.cuOccupancyMaxActiveBlocksPerMultiprocessor.invokeExact(out, handle, block, (long) sharedBytes),
                    "cuOccupancyMaxActiveBlocksPerMultiprocessor(" + name + ")");
            return out.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw Driver.rethrow(t);
        }
    }

    /** Raises the dynamic shared-memory limit (needed above 48 KB). */
    public void setMaxDynamicSharedBytes(int bytes) {
        context.makeCurrent();
        try {
            Driver.check((int) Driver.cuFuncSetAttribute.invokeExact(handle, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes),
                    "cuFuncSetAttribute(" + name + ", MAX_DYNAMIC_SHARED_SIZE_BYTES)");
        } catch (Throwable t) {
            throw Driver.rethrow(t);
        }
    }

    /** Registers per thread, as compiled. */
    public int registersPerThread() {
        context.makeCurrent();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            Driver.check((int) Driver.cuFuncGetAttribute.invokeExact(out, CU_FUNC_ATTRIBUTE_NUM_REGS, handle),
                    "cuFuncGetAttribute(" + name + ", NUM_REGS)");
            return out.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw Driver.rethrow(t);
        }
    }
}
