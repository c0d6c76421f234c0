package dev.primer.cuda;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The executable one-node CUDA graphs through which one kernel launches: one per launch shape (grid,
 * block, dynamic shared memory), made at the shape's first launch, at most {@link #MAX_SHAPES}.
 * A launch sets the node's arguments in its shape's graph and launches that graph.
 *
 * <p>Why graphs, measured on the H200 with driver 13.0 ({@code bench/lab/sync_poll_lab.cu}):
 * relaunching an executable graph with new arguments held the CPU for 1.4-2.8 us against 2.8-4.2
 * for cuLaunchKernel, and the GPU starts sooner too: a one-block kernel writing a host word was
 * seen after 4.3-5.8 us against 6.4-8.2, a synchronous 2^20-float sum after 8.4-9.5 us against
 * 10.1-12.2. Why one graph per shape: setting a new grid in a graph's node cost about a
 * cuLaunchKernel of CPU, and the reduce ladder's relaunch steps, whose grids shrink pass by pass,
 * each took ~10 us longer from an idle GPU through one graph per kernel than through cuLaunchKernel.
 * Setting arguments leaves launches already queued alone (the lab's 100,000 back-to-back launches,
 * each with its own arguments, all landed as issued).
 *
 * <p>Shapes beyond the first {@link #MAX_SHAPES} launch by cuLaunchKernel, as before graphs: a kernel
 * called with ever new grids (a reduce over many small sizes) costs what it did, never a graph's
 * instantiation per launch. Graphs live as long as the kernel (its context never unloads modules).
 * Not thread-safe: the owning {@link CudaKernel} calls it under its lock.
 */
final class KernelGraphs {
    static final int MAX_SHAPES = 8;

    private final String kernelName;
    /** The graphs made so far, most recently launched first. */
    private final Shape[] shapes = new Shape[MAX_SHAPES];
    private int count;

    private record Shape(long gridX, long gridY, int block, int sharedBytes, long node, long executable) {
        boolean is(long gx, long gy, int b, int s) {
            return gridX == gx && gridY == gy && block == b && sharedBytes == s;
        }
    }

    KernelGraphs(String kernelName) {
        this.kernelName = kernelName;
    }

    /** Shapes with a graph so far (for tests). */
    int shapes() { return count; }

    /**
     * Launches the kernel as {@code nodeParams} (a CUDA_KERNEL_NODE_PARAMS_v2 of that shape) describe
     * it on {@code stream}; the launch-by-hand arguments serve a shape that gets no graph.
     */
    void launch(MemorySegment nodeParams, long gridX, long gridY, int block, int sharedBytes, long stream,
                long function, MemorySegment kernelParams) throws Throwable {
        int i = 0;
        while (i < count && !shapes[i].is(gridX, gridY, block, sharedBytes)) i++;
        Shape shape;
        if (i < count) {
            shape = shapes[i];
            Driver.check((int) Driver.cuGraphExecKernelNodeSetParams.invokeExact(shape.executable(), shape.node(), nodeParams),
                    "cuGraphExecKernelNodeSetParams_v2(" + kernelName + ")");
        } else if (count < MAX_SHAPES) {
            shape = instantiate(nodeParams, gridX, gridY, block, sharedBytes);
            count++;
        } else {
            Driver.check((int) Driver.cuLaunchKernel.invokeExact(function, (int) gridX, (int) gridY, 1, block, 1, 1,
                    sharedBytes, stream, kernelParams, MemorySegment.NULL), "cuLaunchKernel(" + kernelName + ")");
            return;
        }
        System.arraycopy(shapes, 0, shapes, 1, i);  // most recently launched first
        shapes[0] = shape;
        Driver.check((int) Driver.cuGraphLaunch.invokeExact(shape.executable(), stream), "cuGraphLaunch(" + kernelName + ")");
    }

    /** A graph of one node as {@code nodeParams} describe it, instantiated; on failure nothing is kept. */
    private Shape instantiate(MemorySegment nodeParams, long gridX, long gridY, int block, int sharedBytes) throws Throwable {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            Driver.check((int) Driver.cuGraphCreate.invokeExact(out, 0), "cuGraphCreate(" + kernelName + ")");
            long graph = out.get(JAVA_LONG, 0);
            try {
                Driver.check((int) Driver.cuGraphAddKernelNode.invokeExact(out, graph, MemorySegment.NULL, 0L, nodeParams),
                        "cuGraphAddKernelNode_v2(" + kernelName + ")");
                long node = out.get(JAVA_LONG, 0);
                Driver.check((int) Driver.cuGraphInstantiate.invokeExact(out, graph, 0L),
                        "cuGraphInstantiateWithFlags(" + kernelName + ")");
                return new Shape(gridX, gridY, block, sharedBytes, node, out.get(JAVA_LONG, 0));
            } catch (Throwable t) {
                int destroyed = (int) Driver.cuGraphDestroy.invokeExact(graph);  // the first error is the one to report
                throw t;
            }
        }
    }
}
