package dev.primer.cuda;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A kernel entry point. A launch packs the arguments into this kernel's parameter block and hands it
 * to {@link KernelGraphs}, which launches through an executable graph per launch shape (cheaper
 * than cuLaunchKernel: docs/internals.md). Launches of one kernel are serialised by its lock, which
 * guards the parameter block and the graphs. With {@code -Dprimer.checkLaunches=true} (the GPU test
 * suite runs with it), every launch's arguments are also checked against the kernel's parameter
 * list as compiled (count and sizes, from cuFuncGetParamInfo): the driver copies each parameter's
 * size from its slot, so an Integer where the kernel takes a long long, or a missing argument, would
 * otherwise launch with stale bytes. Off by default: the driver has no parameter count, so the
 * lookup asks for the parameter past the last one, an API error that compute-sanitizer reports.
 */
public final class CudaKernel {
    private static final int MAX_ARGS = 32;
    private static final int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
    private static final int CU_FUNC_ATTRIBUTE_NUM_REGS = 4;
    private static final int CUDA_ERROR_INVALID_VALUE = 1;

    private final CudaContext context;
    private final String name;
    private final long handle;
    private final Object lock = new Object();
    /** Argument i's value in 8-byte slot i. Guarded by lock. */
    private final MemorySegment values;
    /** Guarded by lock. */
    private final KernelGraphs graphs;
    /** Bytes of each parameter, in order; null when unchecked (the default, or a driver before CUDA 12.4). */
    private final int[] parameterBytes;

    CudaKernel(CudaContext context, String name, long handle) {
        this(context, name, handle, CudaContext.CHECK_LAUNCHES);
    }

    private CudaKernel(CudaContext context, String name, long handle, boolean checkArguments) {
        this.context = context;
        this.name = name;
        this.handle = handle;
        this.parameterBytes = checkArguments ? parameterBytes(context, name, handle) : null;
        Arena arena = Arena.ofAuto();
        values = arena.allocate(8L * MAX_ARGS, 8);
        MemorySegment pointers = arena.allocate(ADDRESS.byteSize() * MAX_ARGS, 8);  // entry i points at slot i
        for (int i = 0; i < MAX_ARGS; i++) pointers.setAtIndex(ADDRESS, i, values.asSlice(8L * i, 8));
        graphs = new KernelGraphs(name, handle, pointers);
    }

    /** Another entry point to the same function, with no graphs yet (tests). */
    CudaKernel freshCopy() {
        return new CudaKernel(context, name, handle);
    }

    /** As {@link #freshCopy}, its launches checked against the parameter list whatever the flag says (tests). */
    CudaKernel checkedCopy() {
        return new CudaKernel(context, name, handle, true);
    }

    public String name() { return name; }

    /** The sizes of the kernel's parameters as compiled, or null when the driver has no cuFuncGetParamInfo. */
    private static int[] parameterBytes(CudaContext context, String name, long handle) {
        if (Driver.cuFuncGetParamInfo == null) return null;
        context.makeCurrent();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment offset = arena.allocate(JAVA_LONG), size = arena.allocate(JAVA_LONG);
            int[] sizes = new int[MAX_ARGS + 1];
            int count = 0;
            for (; count <= MAX_ARGS; count++) {
                int r = (int) Driver.cuFuncGetParamInfo.invokeExact(handle, (long) count, offset, size);
                if (r == CUDA_ERROR_INVALID_VALUE) break;  // the driver's answer past the last parameter
                Driver.check(r, "cuFuncGetParamInfo(" + name + ", " + count + ")");
                sizes[count] = Math.toIntExact(size.get(JAVA_LONG, 0));
            }
            if (count > MAX_ARGS) throw new IllegalStateException(name + ": more than " + MAX_ARGS + " parameters");
            // No parameter at all reads the same as a driver that cannot answer for this image: unchecked.
            return count == 0 ? null : Arrays.copyOf(sizes, count);
        } catch (Throwable t) {
            throw Driver.rethrow(t);
        }
    }

    /** The parameters' sizes as the driver reports them (tests); empty when unchecked. */
    int[] parameterBytes() {
        return parameterBytes == null ? new int[0] : parameterBytes.clone();
    }

    /** 1-D launch: {@code grid} blocks of {@code block} threads. */
    public void launch(long grid, int block, int sharedBytes, Object... args) {
        launch(grid, 1, block, sharedBytes, args);
    }

    /**
     * 2-D grid launch. Arguments in the kernel's parameter order: Long (pointers and 64-bit
     * integers), Integer, Float, Double. A configuration the driver refuses throws a CudaException
     * naming the kernel and the call that refused it: at a shape's first launch that is the graph's
     * making (cuGraphAddKernelNode_v2, cuGraphInstantiateWithFlags), which also costs more than a
     * launch; later, cuGraphExecKernelNodeSetParams_v2 or cuGraphLaunch. With
     * {@code -Dprimer.checkLaunches=true} the stream is synchronized and checked after the launch,
     * so a faulting kernel is named here.
     */
    public void launch(long gridX, long gridY, int block, int sharedBytes, Object... args) {
        submit(gridX, gridY, block, sharedBytes, false, args);
        if (CudaContext.CHECK_LAUNCHES) context.checkAfterLaunch(name);
    }

    /**
     * A cooperative launch of {@code grid} blocks, for kernels that wait at a grid-wide barrier
     * ({@code device/grid_barrier.cuh}): the driver starts it only with every block resident at once,
     * else CudaException CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE (at most
     * {@link #maxActiveBlocksPerSm} blocks per SM). Otherwise as {@link #launch}.
     */
    public void launchCooperative(long grid, int block, int sharedBytes, Object... args) {
        submit(grid, 1, block, sharedBytes, true, args);
        if (CudaContext.CHECK_LAUNCHES) context.checkAfterLaunch(name);
    }

    /** The launch without the optional check: queued on the stream, not waited for. */
    void enqueue(long gridX, long gridY, int block, int sharedBytes, Object... args) {
        submit(gridX, gridY, block, sharedBytes, false, args);
    }

    private void submit(long gridX, long gridY, int block, int sharedBytes, boolean cooperative, Object... args) {
        if (gridX < 1 || gridX > Integer.MAX_VALUE) throw new IllegalArgumentException(name + ": gridX " + gridX + " out of range 1..2^31-1");
        if (gridY < 1 || gridY > 65535) throw new IllegalArgumentException(name + ": gridY " + gridY + " out of range 1..65535");
        if (block < 1 || block > 1024) throw new IllegalArgumentException(name + ": block " + block + " out of range 1..1024");
        if (sharedBytes < 0) throw new IllegalArgumentException(name + ": sharedBytes " + sharedBytes + " is negative");
        if (args.length > MAX_ARGS) throw new IllegalArgumentException(name + ": more than " + MAX_ARGS + " arguments");
        if (parameterBytes != null && args.length != parameterBytes.length) {
            throw new IllegalArgumentException(name + ": " + args.length + " arguments for " + parameterBytes.length
                    + " parameters");
        }
        context.makeCurrent();
        synchronized (lock) {
            for (int i = 0; i < args.length; i++) {
                long offset = 8L * i;
                int bytes = switch (args[i]) {
                    case Long v -> { values.set(JAVA_LONG, offset, v); yield 8; }
                    case Integer v -> { values.set(JAVA_INT, offset, v); yield 4; }
                    case Float v -> { values.set(JAVA_FLOAT, offset, v); yield 4; }
                    case Double v -> { values.set(JAVA_DOUBLE, offset, v); yield 8; }
                    case null -> throw new IllegalArgumentException(name + ": argument " + i + " is null");
                    default -> throw new IllegalArgumentException(name + ": argument " + i + " has unsupported type "
                            + args[i].getClass().getSimpleName() + " (Long, Integer, Float, Double)");
                };
                if (parameterBytes != null && bytes != parameterBytes[i]) {
                    throw new IllegalArgumentException(name + ": argument " + i + " (" + args[i].getClass().getSimpleName() + ", "
                            + bytes + " bytes) for a parameter of " + parameterBytes[i] + " bytes");
                }
            }
            try {
                Driver.lastKernel = name;
                graphs.launch(gridX, gridY, block, sharedBytes, cooperative, context.streamHandle());
            } catch (Throwable t) {
                throw Driver.rethrow(t);
            }
        }
    }

    /** Launch shapes of this kernel that have a graph (tests). */
    int graphShapes() {
        synchronized (lock) {
            return graphs.shapes();
        }
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
