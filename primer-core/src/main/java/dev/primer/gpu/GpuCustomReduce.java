package dev.primer.gpu;

import dev.primer.CustomOp;
import dev.primer.DType;
import dev.primer.cuda.CudaContext;
import dev.primer.cuda.CudaKernel;
import dev.primer.cuda.CudaModule;
import dev.primer.cuda.Nvrtc;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Reduce with a user-defined operator: the order-preserving device-wide reduce
 * ({@code device/ordered_reduce_kernels.cuh}) instantiated for the operator through NVRTC, so the
 * operator need be associative only, not commutative (the left operand always covers the lower
 * indices), and float results are the same bits every run. The compiled
 * module is cached on disk by NVRTC's cache and in memory here, so only the first call pays the
 * compile (about a second), and later processes on the machine load it from disk (until the
 * operator, the packed headers, the GPU architecture or the NVRTC version change).
 */
public final class GpuCustomReduce {
    private GpuCustomReduce() {}

    static final String KERNEL = "primer_custom_reduce";
    /** Compiled modules by device and source (a source may hold several entry points). */
    private static final Map<String, CudaModule> MODULES = new ConcurrentHashMap<>();
    /** Module keys: one per compiled source (the source's hash could collide). */
    private static final AtomicLong MODULE_KEYS = new AtomicLong();

    /**
     * NVRTC has no __builtin_memcpy but declares ::memcpy, which it lowers to register moves for
     * constant sizes. (A byte loop did not: the PTX reassembled every double from eight bytes, and
     * the user-defined float64 scan ran at half the speed of the same kernel built by nvcc.)
     */
    static final String RTC_PRELUDE = """
            #define __builtin_memcpy(d, s, n) memcpy((d), (s), (n))
            """;

    /**
     * The operator as the functor the templates take: {@code UserOp}, with its identity. An int8
     * operator works on ints holding bytes and narrows each result to a byte (Java's {@code (byte)}
     * cast), as the built-in int8 scans do: the scan's status words carry 4- or 8-byte values, and
     * every kernel combines in the operator's type, storing the elements' type.
     */
    static String userOp(CustomOp op) {
        String narrow = op.type() == DType.BYTE ? "(signed char)" : "";
        return """
                struct UserOp {
                    static __device__ __forceinline__ %1$s identity() { return %2$s; }
                    __device__ __forceinline__ %1$s operator()(%1$s a, %1$s b) const { return (%1$s)%4$s(%3$s); }
                };
                """.formatted(valueType(op.type()), op.identityLiteral(), op.cudaExpression(), narrow);
    }

    /** The CUDA source of the kernel for {@code op}. */
    static String source(CustomOp op) {
        String t = cudaType(op.type());
        return RTC_PRELUDE + """
                #include "device/ordered_reduce_kernels.cuh"
                """ + userOp(op) + """
                extern "C" __global__ void __launch_bounds__(primer::ReducePolicyConstants::BLOCK_THREADS)
                %2$s(const %1$s* __restrict__ in, long long n, %1$s* __restrict__ result, unsigned char* __restrict__ scratch) {
                    primer::device_reduce_ordered<primer::ReducePolicyConstants::BLOCK_THREADS,
                                                  primer::ReducePolicyConstants::VECS_PER_THREAD, %1$s>(
                        in, n, result, scratch, UserOp());
                }
                """.formatted(t, KERNEL);
    }

    /** The C++ type of the elements a custom operator reduces and scans. */
    static String cudaType(DType type) {
        return switch (type) {
            case BYTE -> "signed char";
            case INT -> "int";
            case LONG -> "long long";
            case FLOAT -> "float";
            case DOUBLE -> "double";
        };
    }

    /** The C++ type the operator combines in: the elements', but int for int8. */
    static String valueType(DType type) {
        return type == DType.BYTE ? "int" : cudaType(type);
    }

    /** NVRTC options besides the include path (which Nvrtc adds, and keys by the headers' hash). */
    private static final List<String> OPTIONS = List.of("--device-int128", "-default-device", "-lineinfo");
    private static final String SCRATCH_OWNER = "reduce-custom";

    /**
     * The kernel {@code entry} of {@code source} compiled through NVRTC against the packed headers:
     * once per device and source, whichever of its entries is asked for (NVRTC's disk cache spares
     * later processes the compile too: it is keyed by the headers' content, {@link CudaSources#headersHash},
     * not by the per-process directory they are unpacked into).
     */
    static CudaKernel compile(CudaContext ctx, String name, String source, String entry) {
        return module(ctx, name, source).kernel(entry);
    }

    /**
     * The module of {@code source}, compiled as {@link #compile} says: for a source of several entry
     * points, one lookup (the key is the whole source) serves them all.
     */
    static CudaModule module(CudaContext ctx, String name, String source) {
        return MODULES.computeIfAbsent(ctx.device().ordinal() + "\0" + source, key -> {
            byte[] cubin = Nvrtc.compile(name, source, Map.of(), CudaSources.includeRoot(), CudaSources.headersHash(),
                    OPTIONS, ctx.device());
            return ctx.module("nvrtc:" + MODULE_KEYS.incrementAndGet() + ":" + name, cubin);
        });
    }

    /**
     * {@code in[0] op in[1] op ... op in[n-1]} (the identity when n = 0) as raw bits of op.type(), zero-extended;
     * {@code in} aligned to the element size. Waits for the result.
     */
    public static long reduce(CudaContext ctx, CustomOp op, long in, long n) {
        if (n < 0) throw new IllegalArgumentException("n must be >= 0: " + n);
        if (n == 0) return rawBits(op.identityBits(), op.type());
        GpuScan.requireAligned(in, op.type(), "in");
        if (!Nvrtc.isAvailable()) throw new IllegalStateException(Nvrtc.unavailableReason());
        CudaKernel k = compile(ctx, "custom_reduce_" + op.name(), source(op), KERNEL);
        int perSm = k.maxActiveBlocksPerSm(ReducePolicy.BLOCK_THREADS, 0);
        int grid = ReducePolicy.gridSize(n, op.type(), ctx.device().multiprocessorCount(), perSm);
        long partialBytes = ReducePolicy.scratchBytes(ctx.device());
        MemorySegment bits;
        // The result slot lives in the context's shared scratch: hold its lock from the launch through
        // the readback, or another thread's launch could overwrite the slot before we read it.
        synchronized (ctx.scratchLock(SCRATCH_OWNER)) {
            long scratch = ctx.scratch(SCRATCH_OWNER, partialBytes + 64);
            long result = scratch + partialBytes; // 16-byte aligned slot after the partials
            k.launch(grid, ReducePolicy.BLOCK_THREADS, 0, in, n, result, grid > 1 ? scratch : 0L);
            bits = ctx.readback(result, op.type().byteSize());
        }
        return rawBits(switch (op.type().byteSize()) {
            case 1 -> bits.get(ValueLayout.JAVA_BYTE, 0);
            case 4 -> bits.get(ValueLayout.JAVA_INT, 0);
            default -> bits.get(ValueLayout.JAVA_LONG, 0);
        }, op.type());
    }

    /** A value's bits zero-extended from its type's width, the identity's as the kernel's result. */
    private static long rawBits(long bits, DType type) {
        return switch (type.byteSize()) {
            case 1 -> bits & 0xFFL;
            case 4 -> bits & 0xFFFF_FFFFL;
            default -> bits;
        };
    }
}
