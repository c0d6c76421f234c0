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
 * ({@link GpuScan#launchPlain}); segmented scans likewise, with the signatures of
 * {@code segscan_flags_*} and {@code segscan_offsets_*} ({@link GpuScan#launchFlags},
 * {@link GpuScan#launchOffsets}), one source (and compile) for each. The operator need not be commutative: the scan keeps operand order
 * everywhere. Its look-back folds the tile aggregates left to right (the ordered look-back), so
 * float results are the same bits on every run; an operator declared {@link CustomOp#exact()} has
 * each window of aggregates combined as a tree instead (still in operand order), which any
 * association leaves the same bits for. The compiled module is cached on disk by NVRTC's
 * cache (keyed by the source, the packed headers' content, the architecture and the NVRTC version;
 * see {@link GpuCustomReduce#compile}) and in memory here, so only the first call per operator on a
 * machine pays the compile (about a second).
 */
public final class GpuCustomScan {
    private GpuCustomScan() {}

    static final String KERNEL = "primer_custom_scan";
    static final String FLAGS_KERNEL = "primer_custom_segscan_flags";
    static final String OFFSETS_KERNEL = "primer_custom_segscan_offsets";
    /**
     * Blocks per SM the register budget of a plain scan must allow (256-thread blocks: 6 leave 40
     * registers a thread, 5 leave 48, 4 leave 64), as {@code device/scan.cu} chooses for the built-in
     * operators: 6 for 4-byte values and 5 for 8-byte ones (an int64 affine map spilled at 6).
     * Measured with the bench's operators (bench/lab/scan_ordered_lab.cu): float64 forward fill
     * 0.568 ms at 5 (2^27), float32 sum 0.564 at 6 against 0.580 at 5 (2^28). int8 scans take 5 (at
     * 6, the plain scan of a first-non-zero selection spilled 16 bytes; nvcc 13.0, sm_90). Segmented
     * scans ask what the built-in ones ask ({@link #SEGMENTED_MIN_BLOCKS}). A heavier operator may
     * spill a little: still correct, somewhat slower.
     */
    static int minBlocks(DType type) {
        if (type == DType.BYTE) return 5;
        return type.byteSize() == 8 ? 5 : 6;
    }

    /**
     * The segmented scans' blocks per SM, chosen by the architecture NVRTC compiles for
     * (scan/policy.cuh): 6 for 4- and 8-byte data (sm_80: 5 for 8-byte), 5 for int8. The test
     * operators compile at 6 without spills on sm_90 (37-40 registers), the int64 affine maps
     * included. A float64 forward fill by flags runs as fast as at the 4 it had before (1.18-1.20 ms
     * for 2^27 either way, bench/results/2026-11-25-nvidia-h200-step69-ab.md); the built-in
     * segmented scans gained up to 6% at 6.
     */
    static final String SEGMENTED_MIN_BLOCKS = "primer::segmented_scan_min_blocks(sizeof(%s))";

    /** The CUDA source of the plain scan kernel for {@code op}: the prelude, the header, the functor, the entry point. */
    static String source(CustomOp op) {
        String t = GpuCustomReduce.cudaType(op.type());
        return header(op) + """
                using Shape = primer::ScanShape<%1$s>;
                extern "C" __global__ void __launch_bounds__(Shape::BLOCK_THREADS, primer::scan_min_blocks(%3$d, Shape::BLOCK_THREADS))
                %2$s(const %1$s* in, %1$s* out, long long n, long long tiles, long long init_bits, int inclusive,
                     unsigned char* scratch, unsigned epoch) {
                    primer::device_scan<Shape::BLOCK_THREADS, Shape::ROWS, %1$s, %1$s, UserOp>(
                        in, out, n, tiles, init_bits, inclusive, scratch, epoch, primer::NoHeads{});
                }
                """.formatted(t, KERNEL, minBlocks(op.type()));
    }

    /**
     * The CUDA source of the segmented scan kernel for {@code op}, by head flags or by offsets, with
     * the signatures of the prebuilt
     * {@code segscan_flags_*} / {@code segscan_offsets_*} kernels.
     */
    static String segmentedSource(CustomOp op, boolean byOffsets) {
        String t = GpuCustomReduce.cudaType(op.type());
        String shape = """
                using Shape = primer::ScanShape<%1$s, true>;
                #define PRIMER_CUSTOM_BOUNDS __launch_bounds__(Shape::BLOCK_THREADS, primer::scan_min_blocks(%2$s, Shape::BLOCK_THREADS))
                """.formatted(t, SEGMENTED_MIN_BLOCKS.formatted(t));
        String entry = byOffsets ? """
                extern "C" __global__ void PRIMER_CUSTOM_BOUNDS
                %1$s(const %2$s* in, const long long* offsets, const long long* tile_first, %2$s* out, long long n,
                     long long tiles, long long begin, long long init_bits, int inclusive, unsigned char* scratch, unsigned epoch,
                     const unsigned long long* gate) {
                    using Heads = primer::OffsetHeads<Shape::TILE_ITEMS, Shape::BLOCK_THREADS>;
                    primer::device_scan<Shape::BLOCK_THREADS, Shape::ROWS, %2$s, %2$s, UserOp>(
                        in, out, n, tiles, init_bits, inclusive, scratch, epoch,
                        Heads{offsets, tile_first, begin, primer::segment_head_slots(tile_first, tiles), gate});
                }
                """.formatted(OFFSETS_KERNEL, t) : """
                extern "C" __global__ void PRIMER_CUSTOM_BOUNDS
                %1$s(const %2$s* in, const signed char* flags, %2$s* out, long long n, long long tiles, long long init_bits,
                     int inclusive, unsigned char* scratch, unsigned epoch) {
                    using Heads = primer::FlagHeadsFor<%2$s>::type;
                    primer::device_scan<Shape::BLOCK_THREADS, Shape::ROWS, %2$s, %2$s, UserOp>(
                        in, out, n, tiles, init_bits, inclusive, scratch, epoch, Heads{flags});
                }
                """.formatted(FLAGS_KERNEL, t);
        return header(op) + shape + entry;
    }

    /**
     * The prelude, the scan header and the operator as a functor; for an {@link CustomOp#exact()}
     * operator, leave to combine each look-back window as a tree (TreeLookback) rather than as a
     * serial left fold, which only an inexact operator needs for bitwise reproducible results.
     */
    private static String header(CustomOp op) {
        return GpuCustomReduce.RTC_PRELUDE + """
                #include "device/scan_kernels.cuh"
                """ + GpuCustomReduce.userOp(op) + (op.isExact() ? EXACT_LOOKBACK : "");
    }

    /** The specialisation an exact operator's scans get. */
    static final String EXACT_LOOKBACK = """
            namespace primer { template <> struct TreeLookback<UserOp> { static constexpr bool value = true; }; }
            """;

    /** The segmented kernel {@code entry} for {@code op}, compiled once (NVRTC) with its source. */
    static CudaKernel segmentedKernel(CudaContext ctx, CustomOp op, boolean byOffsets, String entry) {
        requireNvrtc();
        return GpuCustomReduce.compile(ctx, "custom_segscan_" + (byOffsets ? "offsets_" : "flags_") + op.name(),
                segmentedSource(op, byOffsets), entry);
    }

    private static void requireNvrtc() {
        if (!Nvrtc.isAvailable()) throw new IllegalStateException(Nvrtc.unavailableReason());
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
        if (n < 0) throw new IllegalArgumentException("n must be >= 0: " + n);
        if (n == 0) return;
        GpuScan.requireAligned(in, type, "in");
        GpuScan.requireAligned(out, type, "out");
        GpuScan.requireInPlaceOrDisjoint(in, n * type.byteSize(), out, n * type.byteSize());
        requireNvrtc();
        CudaKernel kernel = GpuCustomReduce.compile(ctx, "custom_scan_" + op.name(), source(op), KERNEL);
        GpuScan.launchPlain(ctx, kernel, type, inclusive, initBits, in, out, n);
    }

    /**
     * Segmented scan with {@code op}, segments starting at every nonzero byte of {@code headFlags}
     * and at element 0; as {@link GpuScan#segmentedScanByFlags} otherwise. Issued on the context's stream.
     */
    public static void segmentedScanByFlags(CudaContext ctx, CustomOp op, boolean inclusive, long initBits,
                                            long in, long headFlags, long out, long n) {
        Objects.requireNonNull(ctx, "ctx");
        Objects.requireNonNull(op, "op");
        GpuScan.launchFlags(ctx, () -> segmentedKernel(ctx, op, false, FLAGS_KERNEL), op.type(), op.type(),
                ScanPolicy.tileItems(op.type(), true), inclusive, initBits,
                in, headFlags, out, n);
    }

    /**
     * Segmented scan with {@code op} of each segment {@code [offsets[k], offsets[k+1])}; as
     * {@link GpuScan#segmentedScanByOffsets} otherwise (the offsets are checked first: the host waits for the verdict).
     */
    public static void segmentedScanByOffsets(CudaContext ctx, CustomOp op, boolean inclusive, long initBits,
                                              long in, long offsets, long segments, long out, long length) {
        Objects.requireNonNull(ctx, "ctx");
        Objects.requireNonNull(op, "op");
        GpuScan.launchOffsets(ctx, () -> segmentedKernel(ctx, op, true, OFFSETS_KERNEL), op.type(), op.type(),
                ScanPolicy.tileItems(op.type(), true), inclusive, initBits,
                in, offsets, segments, out, length);
    }
}
