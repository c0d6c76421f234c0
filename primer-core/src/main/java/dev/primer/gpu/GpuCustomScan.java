package dev.primer.gpu;

import dev.primer.CustomOp;
import dev.primer.DType;
import dev.primer.cuda.CudaContext;
import dev.primer.cuda.CudaKernel;
import dev.primer.cuda.Nvrtc;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Scan with a user-defined operator: the production device-wide scan
 * ({@code device/scan_kernels.cuh}, single pass, deterministic decoupled look-back) instantiated
 * for the operator through NVRTC as {@code primer::scan_kernel<T, T, UserOp>}, and launched exactly
 * as the prebuilt {@code scan_<op>_<suffix>} kernels are ({@link GpuScan#launchPlain}). The operator
 * need not be commutative: the scan keeps operand order everywhere. Its look-back folds the tile
 * aggregates left to right (the ordered look-back), so float results are the same bits on every run.
 *
 * <p>The kernel is a template instantiation, so its entry point has a C++-mangled name; rather than
 * spell the mangling out (it encodes the template's defaults), the name is read from the compiled
 * cubin's symbol table ({@link #entryPoint}). The compiled module is cached on disk by NVRTC's cache
 * and in memory here, so only the first call per operator pays the compile (about a second).
 */
public final class GpuCustomScan {
    private GpuCustomScan() {}

    /** The mangled names of scan_kernel instantiations start so. */
    static final String ENTRY_PREFIX = "_ZN6primer11scan_kernelI";
    private static final Map<String, CudaKernel> KERNELS = new ConcurrentHashMap<>();

    /**
     * The CUDA source of the kernel for {@code op}: {@link GpuCustomReduce#RTC_PRELUDE}, the header, the
     * operator as a functor, and an explicit instantiation of {@code scan_kernel}.
     */
    static String source(CustomOp op) {
        String t = cudaType(op.type());
        return GpuCustomReduce.RTC_PRELUDE + """
                #include "device/scan_kernels.cuh"
                struct UserOp {
                    static __device__ __forceinline__ %1$s identity() { return %2$s; }
                    __device__ __forceinline__ %1$s operator()(%1$s a, %1$s b) const { return (%1$s)(%3$s); }
                };
                template __global__ void primer::scan_kernel<%1$s, %1$s, UserOp>(
                    const %1$s*, %1$s*, long long, long long, long long, int, unsigned char*, unsigned);
                """.formatted(t, op.identityLiteral(), op.cudaExpression());
    }

    private static String cudaType(DType type) {
        return switch (type) {
            case INT -> "int";
            case LONG -> "long long";
            case FLOAT -> "float";
            case DOUBLE -> "double";
            case BYTE -> throw new IllegalArgumentException("int8 custom operators are not supported");
        };
    }

    private static CudaKernel kernel(CudaContext ctx, CustomOp op) {
        String src = source(op);
        return KERNELS.computeIfAbsent(ctx.device().ordinal() + "\0" + src, key -> {
            byte[] cubin = Nvrtc.compile("custom_scan_" + op.name(), src, Map.of(),
                    List.of("-I" + CudaSources.includeRoot(), "--device-int128", "-default-device", "-lineinfo"), ctx.device());
            return ctx.module("nvrtc-scan:" + Integer.toHexString(key.hashCode()) + ":" + op.name(), cubin)
                    .kernel(entryPoint(cubin));
        });
    }

    /**
     * Scans {@code n} elements of {@code op.type()} at {@code in} into {@code out}:
     * {@code out[i] = init op in[0] op ... op in[i]} (inclusive) or {@code init op in[0] op ... op in[i-1]}
     * (exclusive, {@code out[0] = init}); {@code initBits} holds the init as raw bits of the type
     * ({@link CustomOp#identityBits()} for a plain scan). {@code out == in} (in place) is allowed,
     * other overlaps are not; pointers aligned to the element size. Issued on the context's stream.
     */
    public static void scan(CudaContext ctx, CustomOp op, boolean inclusive, long initBits, long in, long out, long n) {
        Objects.requireNonNull(ctx, "ctx");
        Objects.requireNonNull(op, "op");
        DType type = op.type();
        cudaType(type);
        if (n < 0) throw new IllegalArgumentException("n must be >= 0: " + n);
        if (n == 0) return;
        GpuScan.requireAligned(in, type, "in");
        GpuScan.requireAligned(out, type, "out");
        GpuScan.requireInPlaceOrDisjoint(in, n * type.byteSize(), out, n * type.byteSize());
        if (!Nvrtc.isAvailable()) throw new IllegalStateException(Nvrtc.unavailableReason());
        GpuScan.launchPlain(ctx, kernel(ctx, op), type, inclusive, initBits, in, out, n);
    }

    // ---- the entry point's name, from the cubin (an ELF64 image) ----

    private static final int SHT_SYMTAB = 2, STT_FUNC = 2, STB_GLOBAL = 1;

    /**
     * The name of the one {@code scan_kernel} instantiation in {@code cubin}: a global function symbol
     * whose name starts with {@link #ENTRY_PREFIX}.
     */
    static String entryPoint(byte[] cubin) {
        List<String> found = new ArrayList<>();
        for (String name : globalFunctions(cubin)) {
            if (name.startsWith(ENTRY_PREFIX)) found.add(name);
        }
        if (found.size() != 1) {
            throw new IllegalStateException("the compiled scan module should hold one " + ENTRY_PREFIX
                    + "... kernel, it holds " + found);
        }
        return found.get(0);
    }

    /** Names of the global function symbols of an ELF64 little-endian image. */
    static List<String> globalFunctions(byte[] image) {
        ByteBuffer b = ByteBuffer.wrap(image).order(ByteOrder.LITTLE_ENDIAN);
        if (image.length < 64 || b.getInt(0) != 0x464C457F || image[4] != 2 || image[5] != 1) {
            throw new IllegalStateException("not an ELF64 little-endian image (" + image.length + " bytes)");
        }
        long shoff = b.getLong(0x28);
        int shentsize = Short.toUnsignedInt(b.getShort(0x3A)), shnum = Short.toUnsignedInt(b.getShort(0x3C));
        List<String> names = new ArrayList<>();
        for (int s = 0; s < shnum; s++) {
            int sh = Math.toIntExact(shoff + (long) s * shentsize);
            if (b.getInt(sh + 4) != SHT_SYMTAB) continue;
            int offset = Math.toIntExact(b.getLong(sh + 0x18)), size = Math.toIntExact(b.getLong(sh + 0x20));
            int entsize = Math.toIntExact(b.getLong(sh + 0x38));
            int strtab = Math.toIntExact(shoff + (long) b.getInt(sh + 0x28) * shentsize);
            int strings = Math.toIntExact(b.getLong(strtab + 0x18));
            for (int e = offset; e + entsize <= offset + size; e += entsize) {
                int info = image[e + 4] & 0xFF;
                if ((info & 0xF) != STT_FUNC || (info >>> 4) != STB_GLOBAL) continue;
                int start = strings + b.getInt(e), end = start;
                while (image[end] != 0) end++;
                names.add(new String(image, start, end - start, StandardCharsets.US_ASCII));
            }
        }
        return names;
    }
}
