package dev.primer.gpu;

import dev.primer.Backends;
import dev.primer.CustomOp;
import dev.primer.CustomScanOps;
import dev.primer.DType;
import dev.primer.cpu.CpuCustomScan;
import dev.primer.cuda.Cuda;
import dev.primer.cuda.CudaContext;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntBinaryOperator;
import java.util.function.LongPredicate;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The GPU scan with user-defined operators: the generated source (compiled here by nvcc when it is
 * on the PATH, since NVRTC may not be), and on a GPU raw-pointer scans at every 16-byte misalignment, in place, with poisoned guards,
 * against the CPU element by element, and the argument checks.
 */
class GpuCustomScanTest {
    private static final long GUARD = 8;
    /**
     * Output poison: not a NaN of any width (with 0xFF, an output left unwritten where a forward fill
     * expected a NaN passed, NaNs comparing equal); int8 outputs run again under {@link #POISON2}, as
     * a byte matches one poison once in 256.
     */
    private static final byte POISON = 0x5A, POISON2 = (byte) 0xA5;
    private static final CustomOp[] OPS = {CustomScanOps.AFFINE16, CustomScanOps.AFFINE32, CustomScanOps.ABS_MAX,
            CustomScanOps.FFILL, CustomScanOps.FFILL_EXACT, CustomScanOps.DOUBLE_SUM,
            CustomScanOps.AFFINE4, CustomScanOps.BYTE_SUM, CustomScanOps.FIRST_NONZERO, CustomScanOps.BYTE_MAX};

    @Test
    void theSourceInstantiatesTheDeviceScan() {
        String src = GpuCustomScan.source(CustomScanOps.AFFINE32);
        assertTrue(src.startsWith(GpuCustomReduce.RTC_PRELUDE), "NVRTC needs the prelude");
        assertTrue(src.contains("#include \"device/scan_kernels.cuh\""), src);
        assertTrue(src.contains("primer::device_scan<Shape::BLOCK_THREADS, Shape::ROWS, long long, long long, UserOp>("), src);
        assertTrue(src.contains("extern \"C\" __global__") && src.contains(GpuCustomScan.KERNEL + "(const long long* in"), src);
        assertTrue(src.contains("return (long long)0x100000000ULL;"), src);
        assertTrue(GpuCustomScan.source(CustomScanOps.ABS_MAX).contains("primer::device_scan<Shape::BLOCK_THREADS, Shape::ROWS, float, float, UserOp>"));
        // int8: signed char elements; the operator on ints holding them, each result narrowed to a byte.
        String bytes = GpuCustomScan.source(CustomScanOps.AFFINE4);
        assertTrue(bytes.contains("primer::device_scan<Shape::BLOCK_THREADS, Shape::ROWS, signed char, signed char, UserOp>("), bytes);
        assertTrue(bytes.contains(GpuCustomScan.KERNEL + "(const signed char* in, signed char* out"), bytes);
        assertTrue(bytes.contains("int identity() { return (signed char)0x10U; }"), bytes);
        assertTrue(bytes.contains("operator()(int a, int b) const { return (int)(signed char)(" + CustomScanOps.AFFINE4.cudaExpression() + "); }"),
                bytes);
    }

    /** nvcc compiles each operator's source as NVRTC will, and the cubin holds the entry point. */
    @Test
    void nvccCompilesTheSources() throws Exception {
        NvccCheck.assertCompiles(List.of(OPS), GpuCustomScan::source, GpuCustomScan.KERNEL);
    }

    /**
     * The prelude's memcpy (bit copies between values and words) compiles to register moves: the PTX
     * of an 8-byte operator's scan assembles nothing from bytes (prmt). The byte loop it replaced
     * did, 166-176 times a kernel, and the float64 forward fill ran at half its speed.
     */
    @Test
    void eightByteValuesAreCopiedAsWordsNotBytes() throws Exception {
        for (CustomOp op : List.of(CustomScanOps.FFILL_EXACT, CustomScanOps.AFFINE32)) {
            String ptx = NvccCheck.ptx(GpuCustomScan.source(op));
            assertTrue(ptx.contains(".entry " + GpuCustomScan.KERNEL), "no kernel in the PTX of " + op);
            assertTrue(!Pattern.compile("\\bprmt\\.").matcher(ptx).find(), "byte permutes in the PTX of " + op);
        }
    }

    @Test
    void theSegmentedSourcesInstantiateTheDeviceScanWithHeads() {
        String flags = GpuCustomScan.segmentedSource(CustomScanOps.FFILL, false);
        assertTrue(flags.contains("using Shape = primer::ScanShape<double, true>;"), flags);
        assertTrue(flags.contains(GpuCustomScan.FLAGS_KERNEL + "(const double* in, const signed char* flags"), flags);
        assertTrue(flags.contains("using Heads = primer::FlagHeadsFor<double>::type;"), flags);  // the built-in scans' heads
        assertTrue(flags.contains("Heads{flags}"), flags);
        assertTrue(flags.contains("primer::scan_min_blocks(primer::segmented_scan_min_blocks(sizeof(double)), Shape::BLOCK_THREADS)"),
                flags);  // the built-in segmented scans' blocks per SM (scan/policy.cuh)
        String offsets = GpuCustomScan.segmentedSource(CustomScanOps.AFFINE16, true);
        assertTrue(offsets.contains(GpuCustomScan.OFFSETS_KERNEL + "(const int* in, const long long* offsets"), offsets);
        assertTrue(offsets.contains("Heads{offsets, tile_first, begin, primer::segment_head_slots(tile_first, tiles), gate}"), offsets);
        assertTrue(offsets.contains("unsigned epoch,\n     const unsigned long long* gate)"), offsets);  // the gate comes last, as launchOffsets passes it
        String bytes = GpuCustomScan.segmentedSource(CustomScanOps.AFFINE4, false);
        assertTrue(bytes.contains("using Shape = primer::ScanShape<signed char, true>;"), bytes);
        assertTrue(bytes.contains(GpuCustomScan.FLAGS_KERNEL + "(const signed char* in, const signed char* flags, signed char* out"), bytes);
        assertTrue(bytes.contains("using Heads = primer::FlagHeadsFor<signed char>::type;"), bytes);
    }

    /** An exact() operator's scans combine look-back windows as a tree; the others fold them in order. */
    @Test
    void onlyExactOperatorsTakeTheTreeLookback() {
        assertTrue(GpuCustomScan.source(CustomScanOps.FFILL_EXACT).contains(GpuCustomScan.EXACT_LOOKBACK));
        assertTrue(GpuCustomScan.segmentedSource(CustomScanOps.FFILL_EXACT, true).contains(GpuCustomScan.EXACT_LOOKBACK));
        assertTrue(!GpuCustomScan.source(CustomScanOps.FFILL).contains("TreeLookback"));
        assertTrue(!GpuCustomScan.segmentedSource(CustomScanOps.AFFINE32, false).contains("TreeLookback"));
        assertTrue(GpuCustomScan.source(CustomScanOps.FIRST_NONZERO).contains(GpuCustomScan.EXACT_LOOKBACK));
        assertTrue(!GpuCustomScan.segmentedSource(CustomScanOps.AFFINE4, true).contains("TreeLookback"));
    }

    /** nvcc compiles the segmented sources too, one operator per type. */
    @Test
    void nvccCompilesTheSegmentedSources() throws Exception {
        List<CustomOp> ops = List.of(CustomScanOps.AFFINE16, CustomScanOps.AFFINE32, CustomScanOps.ABS_MAX, CustomScanOps.FFILL,
                CustomScanOps.FFILL_EXACT, CustomScanOps.AFFINE4, CustomScanOps.BYTE_SUM, CustomScanOps.FIRST_NONZERO);
        NvccCheck.assertCompiles(ops, op -> GpuCustomScan.segmentedSource(op, false), GpuCustomScan.FLAGS_KERNEL);
        NvccCheck.assertCompiles(ops, op -> GpuCustomScan.segmentedSource(op, true), GpuCustomScan.OFFSETS_KERNEL);
    }

    /** Raw pointers 0..VEC-1 elements past a 16-byte boundary (int8: 0..15 bytes), in place or not, guards poisoned. */
    @Test
    void misalignedAndInPlaceScansMatchTheCpu() {
        CudaContext ctx = CustomGpu.context();
        int config = 0;
        for (CustomOp op : OPS) {
            int maxShift = 16 / op.type().byteSize() - 1;
            for (long n : new long[] {0, 1, 2, 31, 4095, 4097, 8191, 8193, (1 << 20) + 3}) {
                for (int c = 0; c < 3; c++, config++) {
                    int inShift = config % (maxShift + 1);
                    int outShift = c == 1 ? (inShift + 1) % (maxShift + 1) : inShift;
                    boolean inclusive = c != 1;
                    long init = c == 0 ? op.identityBits() : CustomScanOps.someInitBits(op, config);
                    check(ctx, op, inclusive, init, n, inShift, outShift, c == 2, config);
                }
            }
        }
    }

    /**
     * A non-commutative operator over more than 2^31 elements: an exclusive scan from an init, and an
     * inclusive scan segmented by flags (about one head in 2^24 elements, one right after 2^31; the
     * ordered look-back on bare values), every element the left fold's. Needs ~19 GB.
     */
    @Test
    @Tag(BigInputs.TAG)
    void scansMoreThan2To31ElementsInOrder() {
        CudaContext ctx = CustomGpu.context();
        long n = (1L << 31) + 7;
        BigInputs.assumeFreeMemory(ctx, 9 * n);
        IntBinaryOperator op = (IntBinaryOperator) CustomScanOps.AFFINE16.javaOperator();
        int identity = (int) CustomScanOps.AFFINE16.identityBits(), init = (3 << 16) | 7;  // x -> 3x + 7
        LongPredicate head = i -> i == 0 || i == (1L << 31) + 1 || (BigInputs.mix(i) & ((1L << 24) - 1)) == 0;
        long[] device = new long[3];  // in, out, flags: each freed if it was allocated
        try {
            long in = device[0] = ctx.allocate(4 * n);
            long out = device[1] = ctx.allocate(4 * n);
            long flags = device[2] = ctx.allocate(n);
            BigInputs.uploadInts(ctx, in, n, BigInputs::affine16);
            BigInputs.upload(ctx, flags, n, 1, (host, start, count) -> {
                for (long j = 0; j < count; j++) host.set(ValueLayout.JAVA_BYTE, j, (byte) (head.test(start + j) ? 1 : 0));
            });

            ctx.memset8(out, (byte) 0xA5, 4 * n);
            GpuCustomScan.scan(ctx, CustomScanOps.AFFINE16, false, init & 0xFFFF_FFFFL, in, out, n);
            BigInputs.checkIntScan(ctx, out, n, BigInputs::affine16, op, i -> i == 0, false, init);

            ctx.memset8(out, (byte) 0xA5, 4 * n);
            GpuCustomScan.segmentedScanByFlags(ctx, CustomScanOps.AFFINE16, true, identity & 0xFFFF_FFFFL, in, flags, out, n);
            BigInputs.checkIntScan(ctx, out, n, BigInputs::affine16, op, head, true, identity);
        } finally {
            for (long pointer : device) if (pointer != 0) ctx.free(pointer);
        }
    }

    /**
     * The int8 operator AFFINE4 (not commutative, sign-carrying bytes) over more than 2^31 bytes: an exclusive
     * scan from an init with in and out 3 and 5 bytes past 16-byte boundaries (a head tile), and an inclusive
     * scan by offsets with segments ending on either side of 2^31, every element the left fold's, and the
     * bytes around out untouched. Needs ~5 GB.
     */
    @Test
    @Tag(BigInputs.TAG)
    void scansMoreThan2To31BytesInOrder() {
        CudaContext ctx = CustomGpu.context();
        long n = (1L << 31) + 29;
        BigInputs.assumeFreeMemory(ctx, 2 * n);
        CustomOp.ByteBinaryOperator op = (CustomOp.ByteBinaryOperator) CustomScanOps.AFFINE4.javaOperator();
        byte identity = (byte) CustomScanOps.AFFINE4.identityBits(), init = (byte) 0xB3;  // x -> 11x + 3, bit 7 set
        long[] offsets = {0, 1000, (1L << 31) - 1, (1L << 31) + 1, n - 1, n};
        LongPredicate head = i -> Arrays.binarySearch(offsets, i) >= 0;
        long[] device = new long[3];  // in, out, offsets: each freed if it was allocated
        try {
            long in = (device[0] = ctx.allocate(n + 16)) + 3;
            long out = (device[1] = ctx.allocate(n + 16)) + 5;
            long offsetsAt = device[2] = ctx.allocate(8L * offsets.length);
            BigInputs.uploadBytes(ctx, in, n, BigInputs::affine4);
            ctx.copyToDevice(offsetsAt, MemorySegment.ofArray(offsets), 8L * offsets.length);

            ctx.memset8(device[1], (byte) 0xA5, n + 16);
            GpuCustomScan.scan(ctx, CustomScanOps.AFFINE4, false, init & 0xFFL, in, out, n);
            BigInputs.checkByteScan(ctx, out, n, BigInputs::affine4, op, i -> i == 0, false, init);
            checkGuards(ctx, device[1], out, n);

            ctx.memset8(device[1], (byte) 0xA5, n + 16);
            GpuCustomScan.segmentedScanByOffsets(ctx, CustomScanOps.AFFINE4, true, identity & 0xFFL, in, offsetsAt,
                    offsets.length - 1, out, n);
            BigInputs.checkByteScan(ctx, out, n, BigInputs::affine4, op, head, true, identity);
            checkGuards(ctx, device[1], out, n);
        } finally {
            for (long pointer : device) if (pointer != 0) ctx.free(pointer);
        }
    }

    /** The bytes of the n + 16 byte allocation at base before out and after out[n - 1] still hold 0xA5. */
    private static void checkGuards(CudaContext ctx, long base, long out, long n) {
        MemorySegment before = ctx.readback(base, (int) (out - base)), after = ctx.readback(out + n, (int) (base + n + 16 - (out + n)));
        for (MemorySegment guard : new MemorySegment[] {before, after}) {
            for (long i = 0; i < guard.byteSize(); i++) {
                assertEquals((byte) 0xA5, guard.get(ValueLayout.JAVA_BYTE, i), (guard == before ? "before" : "after") + " out, byte " + i);
            }
        }
    }

    @Test
    void argumentErrorsNameTheArgument() {
        Backends.assumeGpu();
        CudaContext ctx = Cuda.context();
        CustomOp op = CustomScanOps.AFFINE32;
        long a = ctx.allocate(1024), b = ctx.allocate(1024);
        try {
            CustomGpu.expect("n", () -> GpuCustomScan.scan(ctx, op, true, 0, a, b, -1));
            CustomGpu.expect("in", () -> GpuCustomScan.scan(ctx, op, true, 0, a + 4, b, 8));
            CustomGpu.expect("out", () -> GpuCustomScan.scan(ctx, op, true, 0, a, b + 4, 8));
            CustomGpu.expect("in", () -> GpuCustomScan.scan(ctx, op, true, 0, 0, b, 8));
            CustomGpu.expect("out", () -> GpuCustomScan.scan(ctx, op, true, 0, a, a + 8, 8));
            GpuCustomScan.scan(ctx, op, true, 0, 0, 0, 0);  // nothing to do: no checks, no compile
            CustomGpu.expect("headFlags", () -> GpuCustomScan.segmentedScanByFlags(ctx, op, true, 0, a, 0, b, 8));
            CustomGpu.expect("headFlags", () -> GpuCustomScan.segmentedScanByFlags(ctx, op, true, 0, a, b + 8, b, 8));
            CustomGpu.expect("n", () -> GpuCustomScan.segmentedScanByFlags(ctx, op, true, 0, a, b, a, -1));
            CustomGpu.expect("segments", () -> GpuCustomScan.segmentedScanByOffsets(ctx, op, true, 0, a, b, -1, a, 8));
            CustomGpu.expect("offsets", () -> GpuCustomScan.segmentedScanByOffsets(ctx, op, true, 0, a, b + 4, 1, a, 8));
            CustomOp bytes = CustomScanOps.AFFINE4;  // int8: any address is aligned, overlaps are still caught
            CustomGpu.expect("n", () -> GpuCustomScan.scan(ctx, bytes, true, 0x10, a, b, -1));
            CustomGpu.expect("in", () -> GpuCustomScan.scan(ctx, bytes, true, 0x10, 0, b, 8));
            CustomGpu.expect("out", () -> GpuCustomScan.scan(ctx, bytes, true, 0x10, a + 1, a + 2, 8));
            CustomGpu.expect("headFlags", () -> GpuCustomScan.segmentedScanByFlags(ctx, bytes, true, 0x10, a + 1, b + 3, b, 8));
        } finally {
            ctx.free(a);
            ctx.free(b);
        }
    }

    // ---- the machinery ----

    private static void check(CudaContext ctx, CustomOp op, boolean inclusive, long init, long n, int inShift, int outShift,
                              boolean inPlace, long seed) {
        DType type = op.type();
        long size = type.byteSize();
        String what = op.name() + (inclusive ? " inclusive" : " exclusive") + " n=" + n + " shift=" + inShift + "/"
                + (inPlace ? "in place" : outShift) + " init=0x" + Long.toHexString(init);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment x = CustomScanOps.input(arena, op, n, seed);
            MemorySegment want = arena.allocate(n * size, 8);
            CpuCustomScan.scan(op, inclusive, init, x, want, n);
            long bytes = size * (n + 2 * GUARD) + 16;
            long inBuf = ctx.allocate(bytes), outBuf = inPlace ? inBuf : ctx.allocate(bytes);
            try {
                long in = inBuf + 16 + size * inShift;  // ctx.allocate is 256-byte aligned
                long outOffset = inPlace ? 16 + size * inShift : 16 + size * outShift;
                for (byte poison : size == 1 ? new byte[] {POISON, POISON2} : new byte[] {POISON}) {
                    // Poisoned around the output, in place too (the input's buffer is then the output's).
                    ctx.memset8(inBuf, poison, bytes);
                    if (!inPlace) ctx.memset8(outBuf, poison, bytes);
                    ctx.copyToDevice(in, x, size * n);
                    GpuCustomScan.scan(ctx, op, inclusive, init, in, outBuf + outOffset, n);
                    MemorySegment got = arena.allocate(bytes, 8);
                    ctx.copyToHost(got, outBuf, bytes);
                    CustomScanOps.assertGuardsUntouched(what, got, outOffset, size * n, poison);
                    CustomScanOps.assertSameElements(what, type, want, got.asSlice(outOffset), n);
                }
            } finally {
                ctx.free(inBuf);
                if (!inPlace) ctx.free(outBuf);
            }
        }
    }
}
