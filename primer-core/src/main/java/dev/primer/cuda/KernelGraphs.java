package dev.primer.cuda;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * How one kernel reaches the stream: through executable one-node CUDA graphs, one per launch shape
 * (grid, block, dynamic shared memory, cooperative or not), made at the shape's first launch, at
 * most {@link #MAX_SHAPES}. A launch sets the node's arguments in its shape's graph and launches
 * that graph; shapes beyond the first {@link #MAX_SHAPES} launch by cuLaunchKernel (or
 * cuLaunchCooperativeKernel), so a kernel called with ever new grids costs what it did before
 * graphs, never an instantiation per launch. A cooperative shape's node carries the cooperative
 * launch attribute: the driver runs it only with every block resident at once, or refuses it. Why
 * graphs, and why one per shape rather than one per kernel (moving a graph to another grid was
 * slow): docs/internals.md, from {@code bench/lab/sync_poll_lab.cu}.
 *
 * <p>Graphs live as long as the kernel (its context never unloads modules). Not thread-safe: the
 * owning {@link CudaKernel} calls it under its lock.
 */
final class KernelGraphs {
    static final int MAX_SHAPES = 8;
    /** CU_LAUNCH_ATTRIBUTE_COOPERATIVE (cuda.h), a kernel node attribute. */
    private static final int ATTRIBUTE_COOPERATIVE = 2;
    /** sizeof(CUlaunchAttributeValue): a union, its cooperative field an int at offset 0. */
    private static final long ATTRIBUTE_VALUE_BYTES = 64;

    /** CUDA_KERNEL_NODE_PARAMS_v2 (cuda.h); extra, kern and ctx stay zero, as func is set. */
    private static final StructLayout NODE_PARAMS = MemoryLayout.structLayout(
            ADDRESS.withName("func"),
            JAVA_INT.withName("gridDimX"), JAVA_INT.withName("gridDimY"), JAVA_INT.withName("gridDimZ"),
            JAVA_INT.withName("blockDimX"), JAVA_INT.withName("blockDimY"), JAVA_INT.withName("blockDimZ"),
            JAVA_INT.withName("sharedMemBytes"), MemoryLayout.paddingLayout(4),
            ADDRESS.withName("kernelParams"), ADDRESS.withName("extra"),
            ADDRESS.withName("kern"), ADDRESS.withName("ctx"));
    private static final long FUNC = offset("func"), GRID_X = offset("gridDimX"), GRID_Y = offset("gridDimY"),
            GRID_Z = offset("gridDimZ"), BLOCK_X = offset("blockDimX"), BLOCK_Y = offset("blockDimY"),
            BLOCK_Z = offset("blockDimZ"), SHARED = offset("sharedMemBytes"), KERNEL_PARAMS = offset("kernelParams");

    private static long offset(String field) {
        return NODE_PARAMS.byteOffset(MemoryLayout.PathElement.groupElement(field));
    }

    private final String kernelName;
    private final long function;
    private final MemorySegment kernelParams;
    /** The node as the next launch wants it: this function, its shape, kernelParams. */
    private final MemorySegment node;
    /** The graphs made so far, most recently launched first. */
    private final Shape[] shapes = new Shape[MAX_SHAPES];
    private int count;

    /** A graph is kept whole: its node's handle is what the executable graph's updates name. */
    private record Shape(long gridX, long gridY, int block, int sharedBytes, boolean cooperative, long graph, long node,
                         long executable) {
        boolean is(long gx, long gy, int b, int s, boolean c) {
            return gridX == gx && gridY == gy && block == b && sharedBytes == s && cooperative == c;
        }
    }

    /** {@code kernelParams}: the array of pointers to the argument values, as cuLaunchKernel takes it. */
    KernelGraphs(String kernelName, long function, MemorySegment kernelParams) {
        this.kernelName = kernelName;
        this.function = function;
        this.kernelParams = kernelParams;
        node = Arena.ofAuto().allocate(NODE_PARAMS);
        node.set(JAVA_LONG, FUNC, function);
        node.set(ADDRESS, KERNEL_PARAMS, kernelParams);
        for (long unit : new long[] {GRID_Z, BLOCK_Y, BLOCK_Z}) node.set(JAVA_INT, unit, 1);
    }

    /** Shapes with a graph so far. */
    int shapes() { return count; }

    /** Launches the kernel with the argument values kernelParams points at now; cooperatively if asked. */
    void launch(long gridX, long gridY, int block, int sharedBytes, boolean cooperative, long stream) throws Throwable {
        int i = 0;
        while (i < count && !shapes[i].is(gridX, gridY, block, sharedBytes, cooperative)) i++;
        if (i == count && count == MAX_SHAPES) {
            if (cooperative) {
                Driver.check((int) Driver.cuLaunchCooperativeKernel.invokeExact(function, (int) gridX, (int) gridY, 1,
                        block, 1, 1, sharedBytes, stream, kernelParams), "cuLaunchCooperativeKernel(" + kernelName + ")");
            } else {
                Driver.check((int) Driver.cuLaunchKernel.invokeExact(function, (int) gridX, (int) gridY, 1, block, 1, 1,
                        sharedBytes, stream, kernelParams, MemorySegment.NULL), "cuLaunchKernel(" + kernelName + ")");
            }
            return;
        }
        node.set(JAVA_INT, GRID_X, (int) gridX);
        node.set(JAVA_INT, GRID_Y, (int) gridY);
        node.set(JAVA_INT, BLOCK_X, block);
        node.set(JAVA_INT, SHARED, sharedBytes);
        Shape shape;
        if (i < count) {
            shape = shapes[i];
            Driver.check((int) Driver.cuGraphExecKernelNodeSetParams.invokeExact(shape.executable(), shape.node(), node),
                    "cuGraphExecKernelNodeSetParams_v2(" + kernelName + ")");
            launchGraph(shape, stream);
        } else {
            shape = instantiate(gridX, gridY, block, sharedBytes, cooperative);
            try {
                launchGraph(shape, stream);
            } catch (Throwable t) {
                destroy(shape.executable(), shape.graph());  // a shape the driver refuses takes no slot
                throw t;
            }
            count++;
        }
        System.arraycopy(shapes, 0, shapes, 1, i);  // most recently launched first
        shapes[0] = shape;
    }

    private void launchGraph(Shape shape, long stream) throws Throwable {
        Driver.check((int) Driver.cuGraphLaunch.invokeExact(shape.executable(), stream), "cuGraphLaunch(" + kernelName + ")");
    }

    /** A graph of one node as {@link #node} describes it, instantiated; on failure nothing is kept. */
    private Shape instantiate(long gridX, long gridY, int block, int sharedBytes, boolean cooperative) throws Throwable {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            Driver.check((int) Driver.cuGraphCreate.invokeExact(out, 0), "cuGraphCreate(" + kernelName + ")");
            long graph = out.get(JAVA_LONG, 0);
            try {
                Driver.check((int) Driver.cuGraphAddKernelNode.invokeExact(out, graph, MemorySegment.NULL, 0L, node),
                        "cuGraphAddKernelNode_v2(" + kernelName + ")");
                long graphNode = out.get(JAVA_LONG, 0);
                if (cooperative) {
                    MemorySegment value = arena.allocate(ATTRIBUTE_VALUE_BYTES, 8);
                    value.set(JAVA_INT, 0, 1);
                    Driver.check((int) Driver.cuGraphKernelNodeSetAttribute.invokeExact(graphNode, ATTRIBUTE_COOPERATIVE,
                            value), "cuGraphKernelNodeSetAttribute(" + kernelName + ", COOPERATIVE)");
                }
                Driver.check((int) Driver.cuGraphInstantiate.invokeExact(out, graph, 0L),
                        "cuGraphInstantiateWithFlags(" + kernelName + ")");
                return new Shape(gridX, gridY, block, sharedBytes, cooperative, graph, graphNode, out.get(JAVA_LONG, 0));
            } catch (Throwable t) {
                destroy(0, graph);
                throw t;
            }
        }
    }

    /** Frees a graph and its executable form (0: none), best effort: the error that led here is the one to report. */
    private static void destroy(long executable, long graph) throws Throwable {
        int executableResult = executable == 0 ? 0 : (int) Driver.cuGraphExecDestroy.invokeExact(executable);
        int graphResult = (int) Driver.cuGraphDestroy.invokeExact(graph);
    }
}
