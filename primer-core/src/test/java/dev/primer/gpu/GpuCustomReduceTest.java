package dev.primer.gpu;

import dev.primer.Backends;
import dev.primer.CustomOp;
import dev.primer.CustomScanOps;
import dev.primer.DType;
import dev.primer.cpu.CpuCustomReduce;
import dev.primer.cuda.Cuda;
import dev.primer.cuda.CudaContext;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.function.IntBinaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The GPU reduce with user-defined operators keeps operand order: associative operators that are not
 * commutative (affine maps composed, forward fill, first non-zero) give the CPU's left fold exactly, at
 * sizes that exercise the head, the warps' runs, partial tiles, many blocks and the tail, at every
 * misalignment (int8: a head of up to 127 bytes, folded 32 at a time).
 */
class GpuCustomReduceTest {
    /** Exact operators: any association gives the left fold's bits, so GPU and CPU must agree exactly. */
    private static final List<CustomOp> EXACT = List.of(CustomScanOps.AFFINE16, CustomScanOps.AFFINE32,
            CustomScanOps.FFILL, CustomScanOps.ABS_MAX, CustomScanOps.AFFINE4, CustomScanOps.BYTE_SUM, CustomScanOps.FIRST_NONZERO,
            CustomScanOps.BYTE_MAX);
    private static final long[] SIZES = {0, 1, 2, 3, 17, 31, 33, 127, 128, 129, 1023, 4097, 65_537, 1_000_003, (1L << 24) + 5};

    @Test
    void theSourceInstantiatesTheOrderedReduce() {
        String src = GpuCustomReduce.source(CustomScanOps.AFFINE32);
        assertTrue(src.startsWith(GpuCustomReduce.RTC_PRELUDE), "NVRTC needs the prelude");
        assertTrue(src.contains("#include \"device/ordered_reduce_kernels.cuh\""), src);
        assertTrue(src.contains("primer::device_reduce_ordered<"), src);
        assertTrue(src.contains("extern \"C\" __global__") && src.contains(GpuCustomReduce.KERNEL + "(const long long* __restrict__ in"), src);
        // int8: signed char elements, the operator on ints holding them, each result narrowed to a byte.
        String bytes = GpuCustomReduce.source(CustomScanOps.BYTE_SUM);
        assertTrue(bytes.contains(GpuCustomReduce.KERNEL + "(const signed char* __restrict__ in, long long n, signed char* __restrict__ result"), bytes);
        assertTrue(bytes.contains("static __device__ __forceinline__ int identity() { return (signed char)0x0U; }"), bytes);
        assertTrue(bytes.contains("operator()(int a, int b) const { return (int)(signed char)(a + b); }"), bytes);
    }

    /** nvcc compiles each operator's source as NVRTC will, and the cubin holds the entry point. */
    @Test
    void nvccCompilesTheSources() throws Exception {
        NvccCheck.assertCompiles(List.of(CustomScanOps.AFFINE16, CustomScanOps.AFFINE32, CustomScanOps.FFILL, CustomScanOps.FLOAT_SUM,
                CustomScanOps.AFFINE4, CustomScanOps.BYTE_SUM, CustomScanOps.FIRST_NONZERO), GpuCustomReduce::source, GpuCustomReduce.KERNEL);
    }

    @Test
    void nonCommutativeOperatorsGiveTheLeftFoldAtEveryMisalignment() {
        CudaContext ctx = CustomGpu.context();
        int config = 0;
        for (CustomOp op : EXACT) {
            int line = 128 / op.type().byteSize();  // elements per 128-byte line: the head is 0 .. line - 1 of them
            for (long n : SIZES) {
                for (int shift : new int[] {0, 1, 3, 5, line / 2 + 1, line - 1}) {
                    if (n > 1_000_003 && shift != 5) continue;  // the largest size once, misaligned
                    check(ctx, op, n, shift, config++);
                }
            }
        }
    }

    /**
     * A rounding operator: the same bits on every run, and within gamma(d) * sum |x| of the exact sum,
     * d the most roundings on any element's path through the kernel's fixed association
     * ({@link #orderedReduceRoundings}: under a hundred at 2^24 elements, where the order-free bound
     * (n - 1) u would admit any answer within sum |x|); on small integers, whose every partial sum is
     * exact, the exact sum bit for bit, which a lost or repeated block would change.
     */
    @Test
    void floatSumsAreReproducibleAndWithinTheBound() {
        CudaContext ctx = CustomGpu.context();
        CustomOp op = CustomScanOps.FLOAT_SUM;
        for (long n : new long[] {1000, 1_000_003, (1L << 24) + 5}) {
            try (Arena arena = Arena.ofShared()) {
                MemorySegment x = CustomScanOps.input(arena, op, n, n);
                long buf = ctx.allocate(4 * n + 16);
                try {
                    ctx.copyToDevice(buf + 4, x, 4 * n);
                    long first = GpuCustomReduce.reduce(ctx, op, buf + 4, n);
                    for (int run = 0; run < 3; run++) {
                        assertEquals(first, GpuCustomReduce.reduce(ctx, op, buf + 4, n), "run " + run + " of n=" + n);
                    }
                    double hi = 0, lo = 0, abs = 0;  // hi + lo: the exact sum compensated (TwoSum), far inside the bound
                    for (long i = 0; i < n; i++) {
                        double v = x.getAtIndex(ValueLayout.JAVA_FLOAT, i), t = hi + v;
                        lo += Math.abs(hi) >= Math.abs(v) ? (hi - t) + v : (v - t) + hi;
                        hi = t;
                        abs += Math.abs(v);
                    }
                    double got = Float.intBitsToFloat((int) first), error = Math.abs((got - hi) - lo);
                    long d = orderedReduceRoundings(n, ctx.device().multiprocessorCount(),
                            ReducePolicy.maxGridSize(ctx.device()));
                    double u = 0x1p-24, bound = d * u / (1 - d * u) * abs;
                    assertTrue(error <= bound, "n=" + n + ": " + got + " is " + error + " from the exact " + (hi + lo)
                            + ", above gamma(" + d + ") sum|x| = " + bound);

                    MemorySegment integers = CustomScanOps.smallIntegerFloats(arena, n, n + 1);
                    ctx.copyToDevice(buf + 4, integers, 4 * n);
                    long exactSum = 0;
                    for (long i = 0; i < n; i++) exactSum += (long) integers.getAtIndex(ValueLayout.JAVA_FLOAT, i);
                    assertEquals((float) exactSum, Float.intBitsToFloat((int) GpuCustomReduce.reduce(ctx, op, buf + 4, n)),
                            "n=" + n + ": small integers sum exactly");
                } finally {
                    ctx.free(buf);
                }
            }
        }
    }

    /**
     * The most roundings on a path from a float32 element to device_reduce_ordered's result
     * (device/ordered_reduce_kernels.cuh), for n elements whose head (before the first 128-byte
     * boundary) is at most 31: a lane folds its VECS_PER_THREAD vectors of a warp tile left to right
     * (16); its warp combines lanes in a 5-level tree; the warp's running total takes one per warp tile
     * of its run (longest where the grid is smallest: one block per SM at least, when there are that
     * many tiles); two 5-level trees combine the block's warps; the last block folds each thread's run
     * of partials (longest at the largest grid) and reduces its threads the same way; the head's and
     * tail's warp trees (5) and the two combinations that join them to the body (2).
     */
    static long orderedReduceRoundings(long n, int multiprocessors, int maxGrid) {
        int vecItems = ReducePolicy.VECTOR_BYTES / Float.BYTES, warps = ReducePolicy.BLOCK_THREADS / 32;
        long align = 32;  // ReducePolicyConstants::SHARE_ALIGN_VECS: block shares and warp runs are whole 512-byte lines
        long vectors = (n + vecItems - 1) / vecItems;
        long smallestGrid = ReducePolicy.gridSize(n, DType.FLOAT, multiprocessors, 1);
        long share = roundUp((vectors + smallestGrid - 1) / smallestGrid, align);
        long run = roundUp((share + warps - 1) / warps, align);
        long warpTiles = (run + 32L * ReducePolicy.VECS_PER_THREAD - 1) / (32L * ReducePolicy.VECS_PER_THREAD);
        long partialsPerThread = (maxGrid + ReducePolicy.BLOCK_THREADS - 1) / ReducePolicy.BLOCK_THREADS;
        return (long) ReducePolicy.VECS_PER_THREAD * vecItems + 5 + warpTiles + 10 + partialsPerThread + 10 + 5 + 2;
    }

    private static long roundUp(long x, long multiple) {
        return (x + multiple - 1) / multiple * multiple;
    }

    /** A non-commutative operator over more than 2^31 elements: the left fold, with 64-bit indices. Needs ~9 GB. */
    @Test
    @Tag(BigInputs.TAG)
    void reducesMoreThan2To31ElementsInOrder() {
        CudaContext ctx = CustomGpu.context();
        long n = (1L << 31) + 7;
        BigInputs.assumeFreeMemory(ctx, 4 * n);
        IntBinaryOperator op = (IntBinaryOperator) CustomScanOps.AFFINE16.javaOperator();
        int want = (int) CustomScanOps.AFFINE16.identityBits();
        for (long i = 0; i < n; i++) want = op.applyAsInt(want, BigInputs.affine16(i));
        long in = ctx.allocate(4 * n);
        try {
            BigInputs.uploadInts(ctx, in, n, BigInputs::affine16);
            assertEquals(want, (int) GpuCustomReduce.reduce(ctx, CustomScanOps.AFFINE16, in, n));
        } finally {
            ctx.free(in);
        }
    }

    /** The same in int8: more than 2^31 bytes, AFFINE4's maps, 64-bit indices. Needs ~3 GB. */
    @Test
    @Tag(BigInputs.TAG)
    void reducesMoreThan2To31BytesInOrder() {
        CudaContext ctx = CustomGpu.context();
        long n = (1L << 31) + 77;
        BigInputs.assumeFreeMemory(ctx, n);
        CustomOp.ByteBinaryOperator op = (CustomOp.ByteBinaryOperator) CustomScanOps.AFFINE4.javaOperator();
        byte want = (byte) CustomScanOps.AFFINE4.identityBits();
        for (long i = 0; i < n; i++) want = op.applyAsByte(want, (byte) BigInputs.affine4(i));
        long in = ctx.allocate(n + 16);
        try {
            BigInputs.uploadBytes(ctx, in + 3, n, BigInputs::affine4);  // a head of 13 bytes
            assertEquals(want, (byte) GpuCustomReduce.reduce(ctx, CustomScanOps.AFFINE4, in + 3, n));
        } finally {
            ctx.free(in);
        }
    }

    @Test
    void argumentErrorsNameTheArgument() {
        Backends.assumeGpu();
        CudaContext ctx = Cuda.context();
        long a = ctx.allocate(1024);
        try {
            CustomGpu.expect("n", () -> GpuCustomReduce.reduce(ctx, CustomScanOps.AFFINE32, a, -1));
            CustomGpu.expect("in", () -> GpuCustomReduce.reduce(ctx, CustomScanOps.AFFINE32, a + 4, 8));
            CustomGpu.expect("in", () -> GpuCustomReduce.reduce(ctx, CustomScanOps.AFFINE32, 0, 8));
            assertEquals(CustomScanOps.AFFINE32.identityBits(), GpuCustomReduce.reduce(ctx, CustomScanOps.AFFINE32, 0, 0));
            CustomGpu.expect("n", () -> GpuCustomReduce.reduce(ctx, CustomScanOps.AFFINE4, a, -1));
            CustomGpu.expect("in", () -> GpuCustomReduce.reduce(ctx, CustomScanOps.AFFINE4, 0, 8));
            assertEquals(0x10, (byte) GpuCustomReduce.reduce(ctx, CustomScanOps.AFFINE4, 0, 0));
            // n = 0 gives the identity's bits as any other n gives a result's (below): zero-extended from the type's width
            assertEquals(0x80L, GpuCustomReduce.reduce(ctx, CustomScanOps.BYTE_MAX, 0, 0));
        } finally {
            ctx.free(a);
        }
    }

    /** A result's bits, zero-extended from the type's width, as the identity's are for n = 0 (above; this one needs NVRTC). */
    @Test
    void aResultIsZeroExtendedAsTheIdentityIs() {
        CudaContext ctx = CustomGpu.context();
        long a = ctx.allocate(256);
        try {
            ctx.memset8(a, (byte) 0x80, 1);
            assertEquals(0x80L, GpuCustomReduce.reduce(ctx, CustomScanOps.BYTE_MAX, a, 1));
            assertEquals(GpuCustomReduce.reduce(ctx, CustomScanOps.BYTE_MAX, 0, 0), GpuCustomReduce.reduce(ctx, CustomScanOps.BYTE_MAX, a, 1));
        } finally {
            ctx.free(a);
        }
    }

    private static void check(CudaContext ctx, CustomOp op, long n, int shift, long seed) {
        DType type = op.type();
        long size = type.byteSize();
        try (Arena arena = Arena.ofShared()) {
            MemorySegment x = CustomScanOps.input(arena, op, n, seed);
            long want = CpuCustomReduce.reduce(op, x, n);
            long buf = ctx.allocate(size * n + 128);
            try {
                ctx.copyToDevice(buf + size * shift, x, size * n);  // ctx.allocate is 256-byte aligned
                long got = GpuCustomReduce.reduce(ctx, op, buf + size * shift, n);
                MemorySegment pair = arena.allocate(16, 8);
                pair.set(java.lang.foreign.ValueLayout.JAVA_LONG, 0, want);
                pair.set(java.lang.foreign.ValueLayout.JAVA_LONG, 8, got);
                long w = CustomScanOps.bitsAt(type, pair, 0), g = CustomScanOps.bitsAt(type, pair.asSlice(8), 0);
                if (w != g) {
                    fail(op.name() + " n=" + n + " shift=" + shift + ": 0x" + Long.toHexString(g) + ", the left fold gives 0x"
                            + Long.toHexString(w));
                }
            } finally {
                ctx.free(buf);
            }
        }
    }
}
