package dev.primer.gpu;

import dev.primer.Backends;
import dev.primer.CustomOp;
import dev.primer.CustomScanOps;
import dev.primer.cpu.CpuCustomReduce;
import dev.primer.cuda.Cuda;
import dev.primer.cuda.CudaContext;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The order-preserving batched and segmented reduce for user-defined operators at the raw-pointer
 * level: the generated source (compiled here by nvcc when it is on the PATH, since NVRTC may not
 * be), and on a GPU the paths the facade tests reach only at small sizes: a segment long enough that
 * the combine gives each thread several item partials, long rows among misaligned ones, outputs
 * poisoned with guards on both sides, every element against the CPU; and the argument checks.
 * (CustomSegmentedReduceTest covers the facade: every path at 0-3 elements of misalignment.)
 */
class GpuCustomSegmentedReduceTest {
    private static final long GUARD = 8;
    /** Output poison; int8 results run again under {@link #POISON2}, as a byte matches one poison once in 256. */
    private static final byte POISON = (byte) 0xA5, POISON2 = 0x5A;
    private static final String[] ENTRIES = {GpuCustomSegmentedReduce.SEGMENTS_SMALL, GpuCustomSegmentedReduce.SEGMENTS_LONG,
            GpuCustomSegmentedReduce.SEGMENTS_COMBINE, GpuCustomSegmentedReduce.ROWS_SMALL,
            GpuCustomSegmentedReduce.ROWS_COMBINE, GpuCustomSegmentedReduce.ROWS_WARP, GpuCustomSegmentedReduce.ROWS_BLOCK,
            GpuCustomSegmentedReduce.MERGE_PATH, GpuCustomSegmentedReduce.MERGE_PATH_FIXUP, GpuCustomSegmentedReduce.ONE_LAUNCH,
            GpuCustomSegmentedReduce.SEGMENTS_SHORT, GpuCustomSegmentedReduce.ROWS_GROUP,
            GpuCustomSegmentedReduce.ROWS_HALF_WARP};

    @Test
    void theSourceInstantiatesTheOrderedKernels() {
        String src = GpuCustomSegmentedReduce.source(CustomScanOps.AFFINE32);
        assertTrue(src.startsWith(GpuCustomReduce.RTC_PRELUDE), "NVRTC needs the prelude");
        assertTrue(src.contains("#include \"device/ordered_segmented_reduce_kernels.cuh\""), src);
        assertTrue(src.contains("#include \"device/segmented_reduce_merge_path.cuh\""), src);
        assertTrue(src.contains("#include \"device/segmented_reduce/one_launch.cuh\""), src);
        assertTrue(src.contains("using T = long long;"), src);
        for (String entry : ENTRIES) assertTrue(src.contains(entry + "("), entry + " in\n" + src);
        assertTrue(src.contains("seg::segments_combine<seg::Recipe<T, A, T, UserOp>, BLOCK, true>"), "the ordered combine");
        assertTrue(src.contains("using A = primer::OpValue<UserOp>;"), src);
        // int8: signed char elements, the operator on ints holding them, each result narrowed to a byte.
        String bytes = GpuCustomSegmentedReduce.source(CustomScanOps.FIRST_NONZERO);
        assertTrue(bytes.contains("using T = signed char;"), bytes);
        assertTrue(bytes.contains("int identity() { return (signed char)0x0U; }"), bytes);
        assertTrue(bytes.contains("operator()(int a, int b) const { return (int)(signed char)(a != 0 ? a : b); }"), bytes);
    }

    /** nvcc compiles the source for one operator of each type, and every entry is in the cubin. */
    @Test
    void nvccCompilesTheSource() throws Exception {
        List<CustomOp> ops = List.of(CustomScanOps.AFFINE16, CustomScanOps.AFFINE32, CustomScanOps.ABS_MAX, CustomScanOps.FFILL,
                CustomScanOps.AFFINE4, CustomScanOps.BYTE_SUM, CustomScanOps.FIRST_NONZERO);
        NvccCheck.assertCompiles(ops, GpuCustomSegmentedReduce::source, ENTRIES);
    }

    /** One source, thirteen entry points: each is its own kernel, in any order of asking (one compile). */
    @Test
    void theEntriesOfOneSourceAreDistinctKernels() {
        CudaContext ctx = CustomGpu.context();
        for (String entry : ENTRIES) {
            assertEquals(entry, GpuCustomSegmentedReduce.kernel(ctx, CustomScanOps.ABS_MAX, entry).name());
        }
        assertEquals(ENTRIES[0], GpuCustomSegmentedReduce.kernel(ctx, CustomScanOps.ABS_MAX, ENTRIES[0]).name());
    }

    /**
     * A segment of 2^24 + 5 elements (513 work items: the combine gives each thread up to three
     * partials) between short, medium and empty ones, and the values 1..5 elements past a 16-byte
     * boundary; non-commutative operators of every size.
     */
    @Test
    void aVeryLongSegmentAmongShortOnesFoldsInOrder() {
        CudaContext ctx = CustomGpu.context();
        SplittableRandom random = new SplittableRandom(11);
        long[] offsets = LongStream.concat(LongStream.of(2, 2, 9, 9, 40, 3000),
                LongStream.of(3000 + (1 << 24) + 5, 3000 + (1 << 24) + 38, 3000 + (1 << 24) + 38 + random.nextInt(5000))).toArray();
        int shift = 1;
        for (CustomOp op : new CustomOp[] {CustomScanOps.AFFINE32, CustomScanOps.AFFINE16, CustomScanOps.FFILL, CustomScanOps.AFFINE4,
                CustomScanOps.FIRST_NONZERO}) {
            long n = offsets[offsets.length - 1] + 3;
            checkSegments(ctx, op, offsets, n, shift++);
        }
    }

    /**
     * Segments by every route: the one launch (which small inputs take), and behind the offsets'
     * verdict the classic kernels and the merge path (which the verdict picks for heavy-tailed
     * lengths): power-law lengths (up to 2^16, over many tiles, so segments
     * span tiles and the fixup folds them in order), uniform short ones, and empty ones among them;
     * segments of 0-32, many of them 31 or 32 (the classic route: a lane per segment alone), and
     * the same with one of 33 (the three classic kernels); non-commutative operators of every size,
     * the values 1..3 elements past a 16-byte boundary.
     */
    @Test
    void segmentsMatchTheCpuByEveryRoute() {
        CudaContext ctx = CustomGpu.context();
        SplittableRandom random = new SplittableRandom(57);
        long[][] layouts = {lengths(3, 60_000, random, true), lengths(0, 200_000, random, false), {5, 5, 5}, {0, 1},
                shortLengths(20_001, random, false), shortLengths(20_001, random, true)};
        int shift = 0;
        for (CustomOp op : new CustomOp[] {CustomScanOps.AFFINE32, CustomScanOps.AFFINE16, CustomScanOps.FFILL,
                CustomScanOps.AFFINE4, CustomScanOps.FIRST_NONZERO}) {
            for (long[] offsets : layouts) {
                long n = offsets[offsets.length - 1] + 2;
                shift = shift % 3 + 1;
                for (GpuSegmentedReduce.Route route : new GpuSegmentedReduce.Route[] {GpuSegmentedReduce.Route.AUTO,
                        GpuSegmentedReduce.Route.CLASSIC, GpuSegmentedReduce.Route.MERGE_PATH}) {
                    checkSegments(ctx, op, offsets, n, shift, route);
                }
            }
        }
    }

    /**
     * The routed calls queue their likely route behind the check (GpuSegmentedReduce.launchRouted):
     * one offsets buffer, rewritten so that each guess is wrong in turn, then right: lengths of 0-32
     * (segments_short alone), the same with one of 33 (the three classic kernels) and power-law
     * lengths (the merge path), all beyond one launch, under a non-commutative operator. Every
     * segment is checked on a poisoned output.
     */
    @Test
    void aGuessedRouteStillFoldsEverySegmentInOrder() {
        CudaContext ctx = CustomGpu.context();
        CustomOp op = CustomScanOps.AFFINE32;
        SplittableRandom random = new SplittableRandom(77);
        int segments = 400_001;
        long[] allShort = shortLengths(segments, random, false), oneLonger = shortLengths(segments, random, true);
        long[] powerLaw = lengths(1, segments, random, true);
        long n = LongStream.of(allShort[segments], oneLonger[segments], powerLaw[segments]).max().orElseThrow() + 2;
        long size = op.type().byteSize();
        try (Arena arena = Arena.ofShared()) {
            MemorySegment x = CustomScanOps.input(arena, op, n, 1);
            long in = ctx.allocate(size * n), offsetsBuf = ctx.allocate(8L * (segments + 1));
            long outBytes = size * (segments + 2 * GUARD), outBuf = ctx.allocate(outBytes);
            try {
                ctx.copyToDevice(in, x, size * n);
                // guesses: merge, short, short, none, none, short, short, merge
                long[][] order = {allShort, allShort, oneLonger, oneLonger, allShort, allShort, powerLaw, powerLaw};
                for (int call = 0; call < order.length; call++) {
                    long[] offsets = order[call];
                    String what = op.name() + ", call " + call + (offsets == allShort ? " (lengths 0-32)"
                            : offsets == oneLonger ? " (one of 33)" : " (power law)");
                    MemorySegment o = arena.allocate(8L * offsets.length, 8);
                    MemorySegment.copy(offsets, 0, o, ValueLayout.JAVA_LONG, 0, offsets.length);
                    MemorySegment want = arena.allocate(segments * size, 8);
                    CpuCustomReduce.reduceSegments(op, x, o, segments, want);
                    ctx.copyToDevice(offsetsBuf, o, 8L * offsets.length);
                    ctx.memset8(outBuf, POISON, outBytes);
                    GpuCustomSegmentedReduce.reduceSegments(ctx, op, in, offsetsBuf, segments, outBuf + size * GUARD, n,
                            GpuSegmentedReduce.Route.AUTO);
                    assertOutput(ctx, arena, what, op, want, segments, outBuf, outBytes, POISON);
                }
            } finally {
                ctx.free(in);
                ctx.free(offsetsBuf);
                ctx.free(outBuf);
            }
        }
    }

    /**
     * Offsets from 1 of {@code segments} lengths of 0-32, every third 31 or 32; {@code oneLonger}:
     * the middle one 33 long, so the check finds a segment longer than 32.
     */
    private static long[] shortLengths(int segments, SplittableRandom random, boolean oneLonger) {
        long[] offsets = new long[segments + 1];
        offsets[0] = 1;
        for (int s = 0; s < segments; s++) {
            int length = oneLonger && s == segments / 2 ? 33 : s % 3 == 0 ? 31 + random.nextInt(2) : random.nextInt(33);
            offsets[s + 1] = offsets[s] + length;
        }
        return offsets;
    }

    /** Offsets from {@code begin} of {@code segments} lengths: power law (Pareto 1.2, up to 2^16, a tenth empty) or uniform 0-8. */
    private static long[] lengths(long begin, int segments, SplittableRandom random, boolean powerLaw) {
        long[] offsets = new long[segments + 1];
        offsets[0] = begin;
        for (int s = 0; s < segments; s++) {
            long length = powerLaw ? (random.nextInt(10) == 0 ? 0
                    : Math.min(1 << 16, (long) Math.floor(Math.pow(1 - random.nextDouble(), -1 / 1.2))))
                    : random.nextInt(9);
            offsets[s + 1] = offsets[s] + length;
        }
        return offsets;
    }

    /**
     * Every rows kernel (on an H200's 132 SMs): few long rows (queued), a block per row, a warp per
     * row, a lane per row, a group of lanes per row where the rows are aligned, an empty-column
     * matrix, rows about an int8 row's 128-byte head; at 0-3 elements (int8: 0-15) past a 16-byte
     * boundary.
     */
    @Test
    void rowsOfEveryKindMatchTheCpu() {
        CudaContext ctx = CustomGpu.context();
        long[][] shapes = {{3, (1 << 23) + 3}, {2, 2049}, {1, 5000}, {1000, 3001}, {600, 40_001}, {70_001, 33},
                {5000, 32}, {7, 1}, {9, 0}, {3001, 127}, {2999, 129}, {40_001, 17}};
        int config = 0;
        for (CustomOp op : new CustomOp[] {CustomScanOps.AFFINE32, CustomScanOps.FFILL, CustomScanOps.AFFINE16, CustomScanOps.AFFINE4,
                CustomScanOps.FIRST_NONZERO, CustomScanOps.BYTE_SUM, CustomScanOps.BYTE_MAX}) {
            for (long[] shape : shapes) checkRows(ctx, op, shape[0], shape[1], ++config % (op.type().byteSize() == 1 ? 16 : 4));
        }
    }

    /**
     * Rows of 16-byte aligned vectors, at most 32 of them (a group of lanes per row, combined in lane
     * order): 0, 1, 3, 8 and 32 vectors a row, groups of 1 to 32 lanes; non-commutative operators of
     * every size, so a lane combined out of order shows.
     */
    @Test
    void shortAlignedRowsFoldInOrderByLaneGroups() {
        CudaContext ctx = CustomGpu.context();
        for (CustomOp op : new CustomOp[] {CustomScanOps.AFFINE32, CustomScanOps.AFFINE16, CustomScanOps.FFILL,
                CustomScanOps.ABS_MAX, CustomScanOps.AFFINE4, CustomScanOps.FIRST_NONZERO}) {
            int vector = 16 / op.type().byteSize();
            for (int vectors : new int[] {0, 1, 3, 8, 32}) checkRows(ctx, op, 4099, (long) vectors * vector, 0);
        }
    }

    /**
     * Rows of more than 32 elements and at most 1 KiB (a half-warp per row, two rows a warp): 33
     * columns, just over half of 1 KiB, the 1 KiB edge and one element either side (a warp per row);
     * 5001 rows, so the last warp's second half has none; aligned and misaligned, where the rows of
     * a warp differ in head and tail. Non-commutative operators of every size: a lane, a head or a
     * tail combined out of order shows.
     */
    @Test
    void rowsOfAtMostOneKibFoldInOrderByHalfWarps() {
        CudaContext ctx = CustomGpu.context();
        for (CustomOp op : new CustomOp[] {CustomScanOps.AFFINE32, CustomScanOps.FFILL, CustomScanOps.AFFINE16,
                CustomScanOps.ABS_MAX, CustomScanOps.AFFINE4, CustomScanOps.FIRST_NONZERO, CustomScanOps.BYTE_SUM}) {
            long edge = 1024 / op.type().byteSize();
            for (long cols : new long[] {33, edge / 2 + 1, edge - 1, edge, edge + 1}) {
                for (int shift : new int[] {0, 1, op.type().byteSize() == 1 ? 7 : 3}) checkRows(ctx, op, 5001, cols, shift);
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
            CustomGpu.expect("rows", () -> GpuCustomSegmentedReduce.reduceRows(ctx, op, a, -1, 4, b));
            CustomGpu.expect("cols", () -> GpuCustomSegmentedReduce.reduceRows(ctx, op, a, 4, -1, b));
            CustomGpu.expect("out", () -> GpuCustomSegmentedReduce.reduceRows(ctx, op, a, 4, 8, a + 64));  // inside the 32 longs of in
            CustomGpu.expect("out", () -> GpuCustomSegmentedReduce.reduceRows(ctx, op, a, 4, 8, b + 4));
            CustomGpu.expect("in", () -> GpuCustomSegmentedReduce.reduceRows(ctx, op, a + 4, 4, 8, b));
            CustomGpu.expect("rows * cols", () -> GpuCustomSegmentedReduce.reduceRows(ctx, op, a, 1L << 36, 1L << 30, b));
            CustomGpu.expect("segments", () -> GpuCustomSegmentedReduce.reduceSegments(ctx, op, a, b, -1, a, 8));
            CustomGpu.expect("inLength", () -> GpuCustomSegmentedReduce.reduceSegments(ctx, op, a, b, 1, a, -1));
            CustomGpu.expect("offsets", () -> GpuCustomSegmentedReduce.reduceSegments(ctx, op, a, 0, 1, b, 8));
            CustomGpu.expect("offsets", () -> GpuCustomSegmentedReduce.reduceSegments(ctx, op, a, b + 4, 1, a, 8));
            CustomGpu.expect("out", () -> GpuCustomSegmentedReduce.reduceSegments(ctx, op, a, b, 1, a + 8, 8));  // inside in
            CustomGpu.expect("offsets", () -> GpuCustomSegmentedReduce.reduceSegments(ctx, op, a, b, 4, b + 16, 8));  // out over offsets
            CustomOp bytes = CustomScanOps.AFFINE4;  // int8: any address is aligned, overlaps are still caught
            CustomGpu.expect("out", () -> GpuCustomSegmentedReduce.reduceRows(ctx, bytes, a + 1, 4, 8, a + 32));  // inside the 32 bytes of in
            CustomGpu.expect("out", () -> GpuCustomSegmentedReduce.reduceSegments(ctx, bytes, a + 1, b, 1, a + 5, 8));
            CustomGpu.expect("rows", () -> GpuCustomSegmentedReduce.reduceRows(ctx, bytes, a, -1, 4, b));
        } finally {
            ctx.free(a);
            ctx.free(b);
        }
    }

    // ---- the machinery ----

    private static void checkSegments(CudaContext ctx, CustomOp op, long[] offsets, long n, int shift) {
        checkSegments(ctx, op, offsets, n, shift, GpuSegmentedReduce.Route.AUTO);
    }

    private static void checkSegments(CudaContext ctx, CustomOp op, long[] offsets, long n, int shift,
                                      GpuSegmentedReduce.Route route) {
        long size = op.type().byteSize(), segments = offsets.length - 1;
        String what = op.name() + ": " + segments + " segments of " + n + " elements, shift " + shift + ", " + route;
        try (Arena arena = Arena.ofShared()) {
            MemorySegment x = CustomScanOps.input(arena, op, n, shift);
            MemorySegment o = arena.allocate(8L * offsets.length, 8);
            MemorySegment.copy(offsets, 0, o, ValueLayout.JAVA_LONG, 0, offsets.length);
            MemorySegment want = arena.allocate(segments * size, 8);
            CpuCustomReduce.reduceSegments(op, x, o, segments, want);
            long inBuf = ctx.allocate(size * (n + 16)), offsetsBuf = ctx.allocate(8L * offsets.length);
            long outBytes = size * (segments + 2 * GUARD), outBuf = ctx.allocate(outBytes);
            try {
                long in = inBuf + size * shift;
                ctx.copyToDevice(in, x, size * n);
                ctx.copyToDevice(offsetsBuf, o, 8L * offsets.length);
                for (byte poison : poisons(size)) {
                    ctx.memset8(outBuf, poison, outBytes);
                    GpuCustomSegmentedReduce.reduceSegments(ctx, op, in, offsetsBuf, segments, outBuf + size * GUARD, n,
                            route);
                    assertOutput(ctx, arena, what, op, want, segments, outBuf, outBytes, poison);
                }
            } finally {
                ctx.free(inBuf);
                ctx.free(offsetsBuf);
                ctx.free(outBuf);
            }
        }
    }

    private static void checkRows(CudaContext ctx, CustomOp op, long rows, long cols, int shift) {
        long size = op.type().byteSize(), n = rows * cols;
        String what = op.name() + ": " + rows + " x " + cols + ", shift " + shift;
        try (Arena arena = Arena.ofShared()) {
            MemorySegment x = CustomScanOps.input(arena, op, n, rows ^ cols);
            MemorySegment want = arena.allocate(rows * size, 8);
            CpuCustomReduce.reduceRows(op, x, rows, cols, want);
            long inBuf = ctx.allocate(size * (n + 16));
            long outBytes = size * (rows + 2 * GUARD), outBuf = ctx.allocate(outBytes);
            try {
                long in = inBuf + size * shift;
                ctx.copyToDevice(in, x, size * n);
                for (byte poison : poisons(size)) {
                    ctx.memset8(outBuf, poison, outBytes);
                    GpuCustomSegmentedReduce.reduceRows(ctx, op, in, rows, cols, outBuf + size * GUARD);
                    assertOutput(ctx, arena, what, op, want, rows, outBuf, outBytes, poison);
                }
            } finally {
                ctx.free(inBuf);
                ctx.free(outBuf);
            }
        }
    }

    private static byte[] poisons(long elementBytes) {
        return elementBytes == 1 ? new byte[] {POISON, POISON2} : new byte[] {POISON};
    }

    /** Every result the CPU's, bit for bit, and the guards on both sides untouched. */
    private static void assertOutput(CudaContext ctx, Arena arena, String what, CustomOp op, MemorySegment want, long count,
                                     long outBuf, long outBytes, byte poison) {
        long size = op.type().byteSize();
        MemorySegment got = arena.allocate(outBytes, 8);
        ctx.synchronize();
        ctx.copyToHost(got, outBuf, outBytes);
        CustomScanOps.assertGuardsUntouched(what, got, size * GUARD, size * count, poison);
        CustomScanOps.assertSameElements(what, op.type(), want, got.asSlice(size * GUARD), count);
    }
}
