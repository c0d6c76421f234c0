package dev.primer.cuda;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ConcurrentHashMap;

import static java.lang.foreign.ValueLayout.ADDRESS;

/** A loaded module (fatbin or cubin) and its kernels, looked up once by name. */
public final class CudaModule {
    private final CudaContext context;
    private final String name;
    private final long handle;
    private final ConcurrentHashMap<String, CudaKernel> kernels = new ConcurrentHashMap<>();

    CudaModule(CudaContext context, String name, byte[] image) {
        this.context = context;
        this.name = name;
        context.makeCurrent();
        try (Arena arena = Arena.ofConfined()) {
            // The driver reads the image as a NUL-terminated blob (PTX) or by its header (fatbin/cubin).
            MemorySegment bytes = arena.allocate(image.length + 1L, 16);
            MemorySegment.copy(image, 0, bytes, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, image.length);
            MemorySegment out = arena.allocate(ADDRESS);
            Driver.check((int) Driver.cuModuleLoadData.invokeExact(out, bytes), "cuModuleLoadData(" + name + ")");
            handle = out.get(ADDRESS, 0).address();
        } catch (Throwable t) {
            throw Driver.rethrow(t);
        }
    }

    public String name() { return name; }

    /** The kernel with this {@code extern "C"} name; CudaException CUDA_ERROR_NOT_FOUND if absent. */
    public CudaKernel kernel(String kernelName) {
        CudaKernel k = kernels.get(kernelName);
        if (k != null) return k;
        return kernels.computeIfAbsent(kernelName, this::lookup);
    }

    private CudaKernel lookup(String kernelName) {
        context.makeCurrent();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            Driver.check((int) Driver.cuModuleGetFunction.invokeExact(out, handle, arena.allocateFrom(kernelName)),
                    "cuModuleGetFunction(" + name + ":" + kernelName + ")");
            return new CudaKernel(context, kernelName, out.get(ADDRESS, 0).address());
        } catch (Throwable t) {
            throw Driver.rethrow(t);
        }
    }
}
