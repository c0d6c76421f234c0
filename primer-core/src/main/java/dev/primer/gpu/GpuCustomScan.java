package dev.primer.gpu;

import dev.primer.CustomOp;
import dev.primer.DType;
import dev.primer.cuda.CudaContext;
import dev.primer.cuda.CudaKernel;
import dev.primer.cuda.Nvrtc;

import java.util.Objects;

/**
 * Scan with a user-defined operator: the production device-wide scan
 * ({@code device/scan_kernels.cuh}, single pass, deterministic decoupled look-back) instantiated
 * for the operator through NVRTC behind an {@code extern "C"} entry point with the signature of the
 * prebuilt {@code scan_<op>_<suffix>} kernels, and launched exactly as they are
 * ({@link GpuScan#launchPlain}). The operator need not be commutative: the scan keeps operand order
 * everywhere. Its look-back folds the tile aggregates left to right (the ordered look-back), so
 * float results are the same bits on every run. The compiled module is cached on disk by NVRTC's
 * cache (keyed by the source, the packed headers' content, the architecture and the NVRTC version;
 * see {@link GpuCustomReduce#compile}) and in memory here, so only the first call per operator on a
 * machine pays the compile (about a second).
 */
public final class GpuCustomScan {
    private GpuCustomScan() {}

    static final String KERNEL = "primer_custom_scan";
    /** Blocks per SM the register budget must allow: 64 registers a thread (256-thread blocks). */
    static final int MIN_BLOCKS = 4;

    /** The CUDA source of the kernel for {@code op}: the prelude, the header, the functor, the entry point. */
    static String source(CustomOp op) {
        String t = GpuCustomReduce.cudaType(op.type());
        return GpuCustomReduce.RTC_PRELUDE + """
                #include "device/scan_kernels.cuh"
                struct UserOp {
                    static __device__ __forceinline__ %1$s identity() { return %2$s; }
                    __device__ __forceinline__ %1$s operator()(%1$s a, %1$s b) const { return (%1$s)(%3$s); }
                };
                using Shape = primer::ScanShape<%1$s>;
                extern "C" __global__ void __launch_bounds__(Shape::BLOCK_THREADS, primer::scan_min_blocks(%5$d, Shape::BLOCK_THREADS))
                %4$s(const %1$s* in, %1$s* out, long long n, long long tiles, long long init_bits, int inclusive,
                     unsigned char* scratch, unsigned epoch) {
                    primer::device_scan<Shape::BLOCK_THREADS, Shape::ROWS, %1$s, %1$s, UserOp>(
                        in, out, n, tiles, init_bits, inclusive, scratch, epoch, primer::NoHeads{});
                }
                """.formatted(t, op.identityLiteral(), op.cudaExpression(), KERNEL, MIN_BLOCKS);
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
        GpuCustomReduce.cudaType(type);  // rejects int8
        if (n < 0) throw new IllegalArgumentException("n must be >= 0: " + n);
        if (n == 0) return;
        GpuScan.requireAligned(in, type, "in");
        GpuScan.requireAligned(out, type, "out");
        GpuScan.requireInPlaceOrDisjoint(in, n * type.byteSize(), out, n * type.byteSize());
        if (!Nvrtc.isAvailable()) throw new IllegalStateException(Nvrtc.unavailableReason());
        CudaKernel kernel = GpuCustomReduce.compile(ctx, "custom_scan_" + op.name(), source(op), KERNEL);
        GpuScan.launchPlain(ctx, kernel, type, inclusive, initBits, in, out, n);
    }
}
