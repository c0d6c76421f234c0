package dev.primer.gpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.primer.CustomScanOps;
import dev.primer.DType;
import dev.primer.Op;
import dev.primer.Reductions;
import dev.primer.cuda.Cuda;
import dev.primer.cuda.CudaContext;
import dev.primer.cuda.CudaKernel;
import dev.primer.gpu.GpuSegmentedReduce.Route;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.function.LongSupplier;
import java.util.function.LongToIntFunction;
import java.util.function.LongUnaryOperator;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Batched and segmented reduce on the GPU against a Java reference: every operator and dtype, shapes
 * that reach every kernel of {@link SegmentedReducePolicy}, outputs poisoned before each run (with
 * guards either side) and every element checked. Integers, MIN/MAX and arg-extremes must match
 * exactly; float SUM/PROD within {@link #floatBound}: the GPU sums in double in its own order and
 * rounds once, the reference is a compensated (Neumaier) sum rounded once.
 */
class GpuSegmentedReduceTest {
    private static final DType[] TYPES = {DType.BYTE, DType.INT, DType.LONG, DType.FLOAT, DType.DOUBLE};
    private static final double EPS_DOUBLE = Math.ulp(1.0) / 2;  // 2^-53

    /** The route segmented calls take where there is a choice (segmentsMatchReferenceForEveryOperator forces each). */
    private Route route = Route.AUTO;
    /** Bytes of the allocation before `in` in runAndCheck (its end stays the allocation's). */
    private int inPad;
    /**
     * The routes the malformed-offsets and overflow tests take each call by: AUTO (the one launch,
     * where it fits one wave: at most of their sizes), and behind the offsets' verdict the classic
     * kernels and the merge path.
     */
    private static final Route[] ROUTES = Route.values();
    /** Poison bytes either side of an output: eight results of the widest type. */
    private static final long GUARD_BYTES = 64;
    /** The poison of wide outputs: 0xFF bytes read as -1 (an empty segment's index) or NaN, results in their own right. */
    private static final byte POISON = 0x5A;

    /**
     * Shapes (rows, cols): group kernels (1..32 lanes, vector and scalar loads), warp, chunk, multi-chunk.
     * int8 vectors hold 16 elements, so it takes the last two for thread-per-row vectors and a half-warp
     * per row (4300 rows reach the warp-per-row kernels on up to 134 SMs: 32 rows per SM). Half-warps
     * (rows of 513 bytes to 1 KiB, an odd number of them, so a warp's second half may have no row):
     * 5001 x 256 and 9001 x 129 for 4-byte types, 5001 x 127 for 8-byte ones, 4300 x 999 for int8;
     * the same shapes give the others a warp per row or groups.
     */
    private static final long[][] SHAPES = {
            {1, 1}, {3, 0}, {5, 31}, {7, 33}, {1000, 1}, {333, 7}, {17, 1025}, {4096, 64}, {100, 128},
            {17000, 300}, {2, (1 << 20) + 3}, {64, 100003}, {999, 16}, {4300, 999}, {1001, 8}, {777, 32},
            {5001, 256}, {9001, 129}, {5001, 127}};

    private CudaContext ctx;

    @BeforeEach
    void gpu() {
        Assumptions.assumeTrue(Cuda.isAvailable(), () -> "no GPU: " + Cuda.unavailableReason());
        ctx = Cuda.context();
    }

    // ------------------------------------------------------------------------------------ rows

    static Stream<Arguments> typesAndShapes() {
        List<Arguments> cases = new ArrayList<>();
        for (DType t : TYPES) for (long[] s : SHAPES) cases.add(Arguments.of(t, s[0], s[1]));
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} rows={1} cols={2}")
    @MethodSource("typesAndShapes")
    void rowsMatchReferenceForEveryOperator(DType type, long rows, long cols) {
        checkRowsAllOps(type, rows, cols, 0, 11 + rows * 31 + cols);
    }

    /**
     * Short rows beyond one pass of rows_group's capped grid, so each warp takes several steps of rows,
     * the last one partly past the end: 64 columns, a group of 4 to 32 lanes a row (one vector each),
     * for up to 150 SMs.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = DType.class, names = {"BYTE", "INT", "DOUBLE"})
    void shortRowsBeyondOneGridPassMatchReference(DType type) {
        int lanes = 64 / (16 / type.byteSize());
        long rowsPerBlock = (long) SegmentedReducePolicy.WARPS_PER_BLOCK * (32 / lanes) * SegmentedReducePolicy.ROWS_PER_GROUP_VECTOR;
        checkRowsAllOps(type, SegmentedReducePolicy.GROUP_BLOCKS_PER_SM * 150L * rowsPerBlock + 7, 64, 0, 13);
    }

    /** A slice one element in: rows are not 16-byte aligned, so heads and scalar paths are taken. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(DType.class)
    void rowsOfAnUnalignedSliceMatchReference(DType type) {
        checkRowsAllOps(type, 4096, 64, 1, 5);
        checkRowsAllOps(type, 100, 4000, 3, 6);
        checkRowsAllOps(type, 3, 50000, 1, 7);
    }

    /**
     * The 128-bit int32 SUM kernels, which the public calls take only beyond 2^32 elements per row or
     * segment, forced at every shape and layout, over values that are mostly MAX_VALUE or MIN_VALUE:
     * the exact sums.
     */
    @Test
    void int32SumsThrough128BitKernelsMatchReference() {
        try (Arena arena = Arena.ofConfined()) {
            for (long[] shape : SHAPES) {
                long rows = shape[0], cols = shape[1];
                Host data = Host.extremeInts(arena, rows * cols + 1, new Random(rows + cols));
                for (long first : new long[] {0, 1}) {  // aligned rows (vector loads) and misaligned ones
                    long[] offsets = new long[(int) rows + 1];
                    for (int r = 0; r <= rows; r++) offsets[r] = first + r * cols;
                    runAndCheck(data, Op.SUM, false, offsets, first, rows, cols, arena, 0);
                }
            }
            for (String layout : new String[] {"mixed", "thresholds", "hugeAndTiny", "powerLaw"}) {
                long[] offsets = layout(layout, new Random(layout.hashCode()));
                Host data = Host.extremeInts(arena, offsets[offsets.length - 1], new Random(layout.hashCode() + 1));
                runAndCheck(data, Op.SUM, false, offsets, 0, -1, -1, arena, 0);
            }
        }
    }

    /**
     * int64 SUM over many short segments takes the merge path (SegmentedReducePolicy): segments laid
     * around its tiles of MERGE_PATH_TILE steps (a step folds a value or closes a segment) -- ending
     * on, just before and just after tile boundaries, spanning one, two, 200, around the fixup's warp
     * span of 256, 300 and 2100 tiles (past 256 the block folds them), empty ones at the seams, all of
     * one element -- among enough short ones to take the merge path, and values beyond the last offset
     * (the grid is sized from in's length), in one launch and behind the check; int32 SUM in 128 bits
     * (forced, the classic kernels) on the same layouts; float32 sums by the routed merge path.
     */
    @Test
    void mergePathSumsMatchReferenceAcrossTiles() {
        long tile = SegmentedReducePolicy.MERGE_PATH_TILE;
        Random random = new Random(31);
        List<long[]> layouts = new ArrayList<>();
        List<Long> lengths = new ArrayList<>();
        for (long l : new long[] {tile - 1, 0, 1, tile, 0, 0, tile + 1, 2 * tile - 3, 7, 300 * tile + 5, 0, 2, tile - 2}) {
            lengths.add(l);
        }
        for (int i = 0; i < 40_000; i++) lengths.add((long) random.nextInt(3));  // short ones: the merge path's case
        layouts.add(offsetsOf(3, lengths));
        lengths.clear();
        for (int i = 0; i < 100_000; i++) {
            lengths.add(random.nextInt(120) == 0 ? (long) random.nextInt(3 * (int) tile) : random.nextInt(4));
        }
        layouts.add(offsetsOf(tile - 5, lengths));
        lengths.clear();
        for (int i = 0; i < 90_000; i++) lengths.add((long) random.nextInt(4));
        // Folded by a warp (several partials per lane) or, just past its 256 tiles, by the block.
        long[] aroundWarpSpan = {200 * tile + 3, 256 * tile - 7, 256 * tile + 11, 257 * tile + 1};
        for (int k = 0; k < aroundWarpSpan.length; k++) lengths.set(10_000 + 20_000 * k, aroundWarpSpan[k]);
        layouts.add(offsetsOf(tile + 1, lengths));
        lengths.clear();
        for (int i = 0; i < 130_000; i++) lengths.add((long) random.nextInt(4));
        lengths.set(65_000, 2100 * tile + 3);  // the fixup's block folds it, more than one round of loads a thread
        layouts.add(offsetsOf(11, lengths));
        lengths.clear();
        for (int i = 0; i < 3 * tile + 17; i++) lengths.add(1L);
        layouts.add(offsetsOf(0, lengths));
        try (Arena arena = Arena.ofConfined()) {
            for (long[] offsets : layouts) {
                long n = offsets[offsets.length - 1] + 2 * tile + 9;  // beyond the last offset: tiles of no work
                assertTrue(GpuSegmentedReduce.takesMergePath(DType.LONG, "sum", n, offsets.length - 1), "merge path");
                Host values = Host.random(arena, DType.LONG, n, false, new Random(n));
                for (Route r : new Route[] {Route.AUTO, Route.MERGE_PATH}) {  // one launch where it fits; behind the check
                    this.route = r;
                    runAndCheck(values, Op.SUM, false, offsets, 0, -1, -1, arena);
                }
                this.route = Route.AUTO;
                runAndCheck(Host.extremeInts(arena, n, new Random(n + 1)), Op.SUM, false, offsets, 0, -1, -1, arena, 0);
                this.route = Route.MERGE_PATH;  // float32 sums: the routed merge path, its splits from the check's launch
                runAndCheck(Host.random(arena, DType.FLOAT, n, false, new Random(n + 2)), Op.SUM, false, offsets, 0, -1, -1,
                        arena);
            }
        }
    }

    private static long[] offsetsOf(long base, List<Long> lengths) {
        long[] offsets = new long[lengths.size() + 1];
        offsets[0] = base;
        for (int i = 0; i < lengths.size(); i++) offsets[i + 1] = offsets[i] + lengths.get(i);
        return offsets;
    }

    /** Nothing is written: the poisoned output is intact once the stream is idle. */
    @Test
    void zeroRowsIsANoOp() {
        Guarded out = allocateGuarded(GUARD_BYTES);
        try (Arena arena = Arena.ofConfined()) {
            poison(out, POISON);
            GpuSegmentedReduce.reduceRows(ctx, DType.FLOAT, Op.SUM, 0, 0, 10, out.out());
            GpuSegmentedReduce.argExtremeRows(ctx, DType.INT, true, 0, 0, 0, out.out());
            ctx.synchronize();  // an asynchronous fault would surface here, not in a later test
            downloadChecked(arena, out, 0, POISON, "zero rows");
        } finally {
            ctx.free(out.base());
        }
    }

    private void checkRowsAllOps(DType type, long rows, long cols, long offsetElements, long seed) {
        long n = rows * cols;
        try (Arena arena = Arena.ofConfined()) {
            long[] offsets = new long[(int) rows + 1];
            for (int r = 0; r <= rows; r++) offsets[r] = offsetElements + r * cols;
            Host plain = Host.random(arena, type, n + offsetElements, false, new Random(seed));
            Host special = Host.random(arena, type, n + offsetElements, true, new Random(seed + 1));
            Host product = Host.forProduct(arena, type, n + offsetElements, new Random(seed + 2));
            Host planted = Host.planted(arena, type, n + offsetElements, offsets, new Random(seed + 3));
            checkEveryOperator(plain, special, product, planted, offsets, offsetElements, rows, cols, arena);
        }
    }

    /**
     * Every operator the type supports: PROD over near-1 (or odd) values, AND and OR over sparse
     * bits with each range's sign bit decided in its tail ({@link Host#bitwise}), MIN, MAX and the
     * arg-extremes over both ties and NaN (special) and a unique extreme planted in each row's or
     * segment's tail (planted: special data holds its extremes in its first few dozen elements, so a
     * kernel dropping a tail or later chunks would pass on it), the rest over plain values.
     */
    private void checkEveryOperator(Host plain, Host special, Host product, Host planted, long[] offsets,
                                    long offsetElements, long rows, long cols, Arena arena) {
        for (Op op : Op.values()) {
            if (!op.supports(plain.type) || op == Op.MIN || op == Op.MAX) continue;
            Host data = switch (op) {
                case PROD -> product;
                case AND, OR -> Host.bitwise(arena, plain.type, plain.segment.byteSize() / plain.type.byteSize(), offsets, op,
                        new Random(31L * offsets.length + op.ordinal()));
                default -> plain;
            };
            runAndCheck(data, op, false, offsets, offsetElements, rows, cols, arena);
        }
        for (Host extremes : new Host[] {special, planted}) {
            runAndCheck(extremes, Op.MIN, false, offsets, offsetElements, rows, cols, arena);
            runAndCheck(extremes, Op.MAX, false, offsets, offsetElements, rows, cols, arena);
            runAndCheck(extremes, null, false, offsets, offsetElements, rows, cols, arena);
            runAndCheck(extremes, null, true, offsets, offsetElements, rows, cols, arena);
        }
    }

    // ------------------------------------------------------------------------------------ segments

    /** Each layout by every route. */
    static Stream<Arguments> typesAndLayouts() {
        List<Arguments> cases = new ArrayList<>();
        for (DType t : TYPES) {
            for (String layout : new String[] {"mixed", "thresholds", "hugeAndTiny", "powerLaw", "allShort", "allEmpty", "one"}) {
                cases.add(Arguments.of(t, layout, Route.CLASSIC));
                cases.add(Arguments.of(t, layout, Route.MERGE_PATH));
                cases.add(Arguments.of(t, layout, Route.AUTO));  // the one launch, where it fits one wave
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("typesAndLayouts")
    void segmentsMatchReferenceForEveryOperator(DType type, String layout, Route route) {
        this.route = route;
        long[] offsets = layout(layout, new Random(layout.hashCode()));
        long n = offsets[offsets.length - 1];
        try (Arena arena = Arena.ofConfined()) {
            Random random = new Random(layout.hashCode() * 7L + type.ordinal());
            Host plain = Host.random(arena, type, n, false, random);
            Host special = Host.random(arena, type, n, true, random);
            Host product = Host.forProduct(arena, type, n, random);
            Host planted = Host.planted(arena, type, n, offsets, random);
            checkEveryOperator(plain, special, product, planted, offsets, 0, -1, -1, arena);
        }
    }

    /**
     * The offsets' verdict: the values the segments cover, the steps the classic kernels' lanes
     * would idle (per warp of 32 segments: 32 times its longest short segment, less their lengths),
     * as the host counts them, the route the check takes by them, as the host's rule says, and the
     * values in segments of at most 32 (all of them pick segments_short on the classic route).
     * Segment counts off every multiple, and beyond one grid of the check (8 blocks of 256 threads
     * per SM), so that its threads stride, by single offsets and by pairs (the last count: at least
     * four turns of 3 * 64 segments a warp); lengths that route either way; offsets on a 16-byte
     * boundary (the check loads them in pairs where each warp has that many) and 8 bytes past one (one
     * at a time); twice each, so a counter left behind would show.
     */
    @Test
    void theVerdictCountsTheClassicKernelsIdleLaneSteps() {
        int sms = ctx.device().multiprocessorCount();
        int[] counts = {1, 31, 33, 1025, 8 * 256 * sms + 33, 5 * 8 * 256 * sms - 1, 13 * 8 * 256 * sms + 7,
                25 * 8 * 256 * sms + 7};
        boolean[] routes = new boolean[2], shortOrNot = new boolean[2];
        try (Arena arena = Arena.ofConfined()) {
            for (int segments : counts) for (int mix = 0; mix < 3; mix++) {
                Random random = new Random(segments + 1000L * mix);
                long[] offsets = new long[segments + 1];
                offsets[0] = 7;
                for (int s = 0; s < segments; s++) {
                    int kind = random.nextInt(20);
                    long length = switch (mix) {
                        case 0 -> kind < 16 ? random.nextInt(33) : kind < 19 ? 33 + random.nextInt(500) : random.nextInt(5000);
                        case 1 -> 3 + random.nextInt(3);            // even and short: the classic kernels
                        default -> kind < 19 ? random.nextInt(3) : 32;  // mostly tiny, a few of 32: the merge path
                    };
                    offsets[s + 1] = offsets[s] + length;
                }
                long idle = 0, shortValues = 0;
                for (int s = 0; s < segments; s++) {
                    long length = offsets[s + 1] - offsets[s];
                    if (length <= 32) shortValues += length;
                }
                for (int w = 0; w < segments; w += 32) {
                    long longest = 0, folded = 0;
                    for (int s = w; s < Math.min(w + 32, segments); s++) {
                        long length = offsets[s + 1] - offsets[s];
                        if (length <= 32) {
                            longest = Math.max(longest, length);
                            folded += length;
                        }
                    }
                    idle += 32 * longest - folded;
                }
                long inLength = offsets[segments] + 3;
                for (int shift = 0; shift < 2; shift++) {
                    long base = uploadShifted(arena, offsets, shift);
                    try {
                        for (int round = 0; round < 2; round++) {
                            GpuSegmentedReduce.Verdict verdict =
                                    GpuSegmentedReduce.offsetsVerdict(ctx, base + 8L * shift, segments, inLength);
                            String what = segments + " segments, shift " + shift + ", round " + round;
                            assertEquals(offsets[segments] - offsets[0], verdict.values(), what + ": values");
                            assertEquals(idle, verdict.idleSteps(), what + ": idle steps");
                            assertEquals(shortValues, verdict.shortValues(), what + ": values in short segments");
                            shortOrNot[verdict.allShort() ? 1 : 0] = true;
                            boolean merge =
                                    SegmentedReducePolicy.prefersMergePath(idle, offsets[segments] - offsets[0]);
                            assertEquals(!merge, verdict.routedClassic(), what + ", idle " + idle + ": route");
                            routes[merge ? 1 : 0] = true;
                        }
                    } finally {
                        ctx.free(base);
                    }
                }
            }
        }
        assertTrue(routes[0] && routes[1], "both routes taken");
        assertTrue(shortOrNot[0] && shortOrNot[1], "offsets with and without a segment longer than 32");
    }

    /**
     * The host guesses the route before the check has taken it and queues it behind the check: the
     * merge path's tiles, or segments_short alone where the check last took that route on the same
     * offsets (nothing where it last took the three classic kernels there). One offsets buffer is
     * rewritten between calls, so that each guess is wrong in turn, then right: short lengths (the
     * classic route, segments_short alone), the same with a segment of 33 every 1000 (the three
     * classic kernels), and skewed lengths (the merge path). Every segment is checked each time, on a
     * poisoned output. Then decreasing offsets behind a guessed segments_short are refused with
     * nothing written, and the next call is right.
     */
    @Test
    void aRouteGuessedWrongStillReducesEverySegment() {
        int segments = 600_001;
        long n = 8_000_003;  // beyond one launch: the routed path
        Random random = new Random(74);
        long[] even = new long[segments + 1], withLong = new long[segments + 1], skewed = new long[segments + 1];
        even[0] = withLong[0] = skewed[0] = 5;
        for (int s = 0; s < segments; s++) {
            int length = 3 + random.nextInt(3);
            even[s + 1] = even[s] + length;  // the classic kernels' case: every segment short
            withLong[s + 1] = withLong[s] + (s % 1000 == 999 ? 33 : length);  // the same, some longer than 32
            int kind = random.nextInt(5000);  // mostly tiny, some of 32 (lanes idle beside them), a few across tiles
            skewed[s + 1] = skewed[s] + (kind == 0 ? 2000 + random.nextInt(18_000) : kind < 320 ? 32 : random.nextInt(2));
        }
        try (Arena arena = Arena.ofConfined()) {
            Host values = Host.random(arena, DType.FLOAT, n, false, random);
            long in = upload(values.segment);
            long off = ctx.allocate(8L * (segments + 1));
            Guarded guarded = allocateGuarded(4L * segments);
            try {
                // guesses: merge, short, short, none, none, short, short, merge, merge, short
                long[][] order = {even, even, withLong, withLong, even, even, skewed, skewed, even, even};
                for (int call = 0; call < order.length; call++) {
                    long[] offsets = order[call];
                    ctx.copyToDevice(off, arena.allocateFrom(ValueLayout.JAVA_LONG, offsets), 8L * (segments + 1));
                    String what = "call " + call + (offsets == even ? " (short lengths)"
                            : offsets == withLong ? " (some longer than 32)" : " (skewed lengths)");
                    if (call == 0 || call == 2 || call == 6) {  // the check routes as expected (its flags cleared behind it)
                        GpuSegmentedReduce.Verdict verdict = GpuSegmentedReduce.offsetsVerdict(ctx, off, segments, n);
                        assertEquals(offsets != skewed, verdict.routedClassic(), what + ": route");
                        assertEquals(offsets == even, verdict.allShort(), what + ": every segment short");
                    }
                    poison(guarded, POISON);
                    GpuSegmentedReduce.reduceSegments(ctx, DType.FLOAT, Op.SUM, in, off, segments, guarded.out(), n);
                    MemorySegment got = downloadChecked(arena, guarded, 4L * segments, POISON, what);
                    for (int r = 0; r < segments; r++) {
                        values.checkFloating(Op.SUM, offsets[r], offsets[r + 1], got.getAtIndex(ValueLayout.JAVA_FLOAT, r),
                                DType.FLOAT, what + ": segment " + r);
                    }
                }
                // The last call took segments_short: the next guesses it again, on offsets that decrease.
                long[] bad = even.clone();
                bad[400_000] = bad[400_001] + 1;
                ctx.copyToDevice(off, arena.allocateFrom(ValueLayout.JAVA_LONG, bad), 8L * (segments + 1));
                assertOffsetsRejected(arena, guarded, "offsets[400000] = " + bad[400_000] + " > offsets[400001]",
                        () -> GpuSegmentedReduce.reduceSegments(ctx, DType.FLOAT, Op.SUM, in, off, segments, guarded.out(), n));
                ctx.copyToDevice(off, arena.allocateFrom(ValueLayout.JAVA_LONG, even), 8L * (segments + 1));
                poison(guarded, POISON);
                GpuSegmentedReduce.reduceSegments(ctx, DType.FLOAT, Op.SUM, in, off, segments, guarded.out(), n);
                MemorySegment got = downloadChecked(arena, guarded, 4L * segments, POISON, "after the refusal");
                for (int r = 0; r < segments; r++) {
                    values.checkFloating(Op.SUM, even[r], even[r + 1], got.getAtIndex(ValueLayout.JAVA_FLOAT, r),
                            DType.FLOAT, "after the refusal: segment " + r);
                }
            } finally {
                ctx.free(in);
                ctx.free(off);
                ctx.free(guarded.base());
            }
        }
    }

    /**
     * The offsets' check launch finds the merge path's splits (its searcher blocks,
     * device/segmented_reduce.cu): at every tile boundary, as many closed segments as the merge says,
     * with empty segments, segments across many tiles, counts around warp multiples and no values at all.
     */
    @Test
    void theCheckLaunchFindsTheMergePathSplits() {
        long tile = SegmentedReducePolicy.mergePathTile(DType.FLOAT);
        Random random = new Random(62);
        List<long[]> layouts = new ArrayList<>();
        List<Long> lengths = new ArrayList<>();
        for (int i = 0; i < 33; i++) lengths.add((long) random.nextInt(3 * (int) tile));
        layouts.add(offsetsOf(5, lengths));
        for (int count : new int[] {1025, 70_001}) {
            lengths.clear();
            for (int i = 0; i < count; i++) lengths.add((long) (random.nextInt(4) == 0 ? 0 : random.nextInt(40)));
            layouts.add(offsetsOf(0, lengths));
        }
        lengths.set(35_000, 200 * tile + 7);  // across 200 tiles
        layouts.add(offsetsOf(3, lengths));
        lengths.clear();
        for (int i = 0; i < 3001; i++) lengths.add(0L);
        layouts.add(offsetsOf(9, lengths));
        try (Arena arena = Arena.ofConfined()) {
            for (long[] offsets : layouts) {
                int segments = offsets.length - 1;
                long base = offsets[0], values = offsets[segments] - base, steps = values + segments;
                long inLength = offsets[segments] + 2 * tile + 1;
                long tiles = SegmentedReducePolicy.mergePathTiles(values, segments, tile);
                long[] expected = new long[(int) tiles + 1];
                int c = 0;
                for (int t = 0; t <= tiles; t++) {  // segment c closes at step end(c) - base + c + 1
                    long d = Math.min(t * tile, steps);
                    while (c < segments && offsets[c + 1] - base + c + 1 <= d) c++;
                    expected[t] = c;
                }
                long device = upload(arena.allocateFrom(ValueLayout.JAVA_LONG, offsets));
                try {
                    MemorySegment splits = arena.allocate(8 * (tiles + 1), 8);
                    splits.fill((byte) 0x5A);
                    GpuSegmentedReduce.Verdict verdict = GpuSegmentedReduce.checkedSplits(ctx, device, segments, inLength,
                            tile, splits);
                    String what = segments + " segments over " + values + " values";
                    assertEquals(values, verdict.values(), what);
                    assertArrayEquals(expected, splits.toArray(ValueLayout.JAVA_LONG), what + ": splits");
                } finally {
                    ctx.free(device);
                }
            }
        }
    }

    /**
     * Every recipe (but int32 SUM in 128 bits) by each route (AUTO takes the one launch here) over a
     * few thousand power-law segments (tiles of 3328 or 5888 steps, segments across them), then over
     * segments no longer than 32 (the classic route's segments_short), small enough for the
     * sanitizers (gpu-suite.sh), which so reach the kernels of every route.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Route.class)
    void everyRecipeByEachRoute(Route route) {
        this.route = route;
        for (String layout : new String[] {"powerLawSmall", "allShort"}) {
            long[] offsets = layout(layout, new Random(57));
            long n = offsets[offsets.length - 1];
            for (DType type : TYPES) {
                try (Arena arena = Arena.ofConfined()) {
                    Random random = new Random(57L + type.ordinal());
                    checkEveryOperator(Host.random(arena, type, n, false, random), Host.random(arena, type, n, true, random),
                            Host.forProduct(arena, type, n, random), Host.planted(arena, type, n, offsets, random), offsets,
                            0, -1, -1, arena);
                }
            }
        }
    }

    /**
     * int8 segments folded by one lane (segments_short; segments_small's short lanes) with `in` 0, 1,
     * 3 and 7 bytes past an 8-byte boundary and ending where its allocation ends (memcheck, in the
     * suite's sanitize stage, sees any read past it): 3001 segments of 0 to 32 values (random, so
     * starting anywhere in an aligned word), the first at in[0] and the last ending at in's last byte
     * (or one before it); every operator, all short and with one long segment among them.
     * (Step 86 tried loading such a lane's values a word at a time: slower; see the suite's notes.)
     */
    @Test
    void int8LanesFoldSegmentsAtEveryPlaceInAWord() {
        route = Route.CLASSIC;
        try {
            for (int pad : new int[] {0, 1, 3, 7}) {
                for (boolean allShort : new boolean[] {true, false}) {
                    Random random = new Random(71 + pad + (allShort ? 100 : 0));
                    long[] offsets = new long[3002];
                    for (int i = 1; i < offsets.length; i++) {
                        offsets[i] = offsets[i - 1] + (!allShort && i == 1500 ? 5000 : random.nextInt(33));
                    }
                    long n = offsets[offsets.length - 1] + pad % 2;  // the last segment ends at in's end, or one short
                    inPad = pad;
                    try (Arena arena = Arena.ofConfined()) {
                        checkEveryOperator(Host.random(arena, DType.BYTE, n, false, random),
                                Host.random(arena, DType.BYTE, n, true, random), Host.forProduct(arena, DType.BYTE, n, random),
                                Host.planted(arena, DType.BYTE, n, offsets, random), offsets, 0, -1, -1, arena);
                    }
                }
            }
        } finally {
            inPad = 0;
        }
    }

    /**
     * Every recipe (but int32 SUM in 128 bits), int64 SUM among them, at the one launch's largest input: as
     * many merge steps as one wave of the SUM kernel's resident blocks holds at the merge path's steps
     * per thread, in power-law segments, one of them spanning most of the tiles, so that a block
     * folds the open partials of hundreds of earlier tiles (several per lane) in front of its first
     * segment. (An operator whose kernel holds fewer blocks per SM takes the verdict's route there.)
     * Then one more element than fits: AUTO takes the verdict's route, which must agree.
     */
    @Test
    void theOneLaunchFillsOneWave() {
        for (DType type : TYPES) {
            CudaKernel sum = ctx.module(GpuSegmentedReduce.MODULE).kernel("segreduce_one_launch_sum_" + type.kernelSuffix());
            long wave = GpuSegmentedReduce.persistentGrid(ctx, sum), tile = SegmentedReducePolicy.mergePathTile(type);
            long capacity = wave * tile;  // merge steps
            Random random = new Random(61 + type.ordinal());
            List<Long> grown = new ArrayList<>(List.of(3L));  // offsets
            while (grown.getLast() + grown.size() < capacity / 8) {
                double u = 1 - random.nextDouble();
                grown.add(grown.getLast() + (long) Math.min(20_000, Math.floor(Math.pow(u, -1 / 1.1) - 1)));
            }
            grown.add(grown.getLast() + (capacity * 3) / 4);  // the long one
            while (grown.getLast() + grown.size() < capacity - 2 * tile) grown.add(grown.getLast() + random.nextInt(9));
            long[] offsets = grown.stream().mapToLong(Long::longValue).toArray();
            long segments = offsets.length - 1, fits = capacity - segments, beyond = fits + 1;
            GpuSegmentedReduce.OneLaunchShape shape = GpuSegmentedReduce.oneLaunchShape(ctx, sum, fits, segments, tile);
            assertNotNull(shape, "one launch at " + fits + " elements");
            assertEquals(wave, shape.tiles(), "a block per tile, one wave");
            assertNull(GpuSegmentedReduce.oneLaunchShape(ctx, sum, beyond, segments, tile), "no one launch past it");
            for (long n : new long[] {fits, beyond}) {
                try (Arena arena = Arena.ofConfined()) {
                    checkEveryOperator(Host.random(arena, type, n, false, random), Host.random(arena, type, n, true, random),
                            Host.forProduct(arena, type, n, random), Host.planted(arena, type, n, offsets, random), offsets,
                            0, -1, -1, arena);
                }
            }
        }
    }

    /** Nothing is written: the poisoned output is intact once the stream is idle. */
    @Test
    void zeroSegmentsIsANoOp() {
        Guarded out = allocateGuarded(GUARD_BYTES);
        try (Arena arena = Arena.ofConfined()) {
            long offsets = upload(arena.allocateFrom(ValueLayout.JAVA_LONG, 0));
            try {
                poison(out, POISON);
                GpuSegmentedReduce.reduceSegments(ctx, DType.FLOAT, Op.SUM, 0, offsets, 0, out.out(), 0);
                GpuSegmentedReduce.argExtremeSegments(ctx, DType.LONG, false, 0, offsets, 0, out.out(), 0);
                ctx.synchronize();  // an asynchronous fault would surface here, not in a later test
                downloadChecked(arena, out, 0, POISON, "zero segments");
            } finally {
                ctx.free(offsets);
            }
        } finally {
            ctx.free(out.base());
        }
    }

    /** Offsets of the named layout; offsets[0] is non-zero in most, and empty segments abound. */
    private static long[] layout(String name, Random random) {
        List<Long> lengths = new ArrayList<>();
        long base = 0;
        switch (name) {
            case "mixed" -> {  // short, medium and a few long, empties in between
                base = 13;
                for (int i = 0; i < 3000; i++) {
                    int kind = random.nextInt(10);
                    lengths.add(kind < 3 ? 0L : kind < 7 ? random.nextInt(40) : kind < 9 ? random.nextInt(2000) : random.nextInt(9000));
                }
            }
            case "thresholds" -> {  // around the short / medium / long boundaries (32, C = 2048)
                base = 2048 * 3;  // long segments starting exactly on a chunk boundary, too
                long[] edges = {0, 1, 2, 3, 4, 5, 7, 8, 9, 31, 32, 33, 63, 64, 65, 2047, 2048, 2049, 4095, 4096, 4097, 6144,
                        10000, 2048 * 5, 2048 * 5 + 1};
                for (int rep = 0; rep < 3; rep++) for (long e : edges) lengths.add(e);
            }
            case "hugeAndTiny" -> {  // one huge segment among many tiny ones
                base = 5;
                for (int i = 0; i < 50000; i++) lengths.add((long) random.nextInt(4));
                lengths.add(3_000_001L);
                for (int i = 0; i < 50000; i++) lengths.add((long) random.nextInt(4));
            }
            case "powerLaw", "powerLawSmall" -> {  // Pareto(1.1) lengths, capped
                base = 1;
                boolean small = name.equals("powerLawSmall");
                for (int i = 0; i < (small ? 4000 : 100000); i++) {
                    double u = 1 - random.nextDouble();
                    lengths.add((long) Math.min(small ? 20_000 : 2_000_000, Math.floor(Math.pow(u, -1 / 1.1) - 1)));
                }
            }
            case "allShort" -> {  // none longer than a lane folds alone (32): the classic route is segments_short
                base = 6;
                for (int i = 0; i < 20_001; i++) {
                    int kind = random.nextInt(8);
                    lengths.add((long) (kind == 0 ? 0 : kind == 1 ? 32 : kind == 2 ? 31 : 1 + random.nextInt(32)));
                }
            }
            case "allEmpty" -> {
                base = 3;
                for (int i = 0; i < 100; i++) lengths.add(0L);
            }
            case "one" -> {
                base = 1;
                lengths.add(1L);
            }
            default -> throw new IllegalArgumentException(name);
        }
        long[] offsets = new long[lengths.size() + 1];
        offsets[0] = base;
        for (int i = 0; i < lengths.size(); i++) offsets[i + 1] = offsets[i] + lengths.get(i);
        return offsets;
    }

    // ------------------------------------------------------------------------------------ special cases

    @Test
    void longSumIsExactIn128BitsAndThrowsOnlyWhenTheResultOverflows() {
        long max = Long.MAX_VALUE;
        long[] values = {max, max, -max, -max, /* row 1 */ max, 1, 0, 0, /* row 2 */ 5, 6, 7, 8,
                /* row 3 */ Long.MIN_VALUE, -1, 0, 0, /* row 4 */ max, max, max, 3};
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment host = arena.allocateFrom(ValueLayout.JAVA_LONG, values);
            long in = upload(host);
            long out = ctx.allocate(8 * 5);
            long offsets = upload(arena.allocateFrom(ValueLayout.JAVA_LONG, 0, 4));
            // Poisoned first: the throwing call before it has probably written row 0's 0 already.
            LongSupplier row0AsASegment = () -> afterPoisoned(arena, out, 8 * 5, () -> GpuSegmentedReduce.reduceSegments(ctx,
                    DType.LONG, Op.SUM, in, offsets, 1, out, values.length)).getAtIndex(ValueLayout.JAVA_LONG, 0);
            try {
                assertOverflowIn("row 1", () -> GpuSegmentedReduce.reduceRows(ctx, DType.LONG, Op.SUM, in, 5, 4, out));
                // The flag was cleared: row 0 alone is fine.
                assertEquals(0, row0AsASegment.getAsLong(), "max + max - max - max");
                long offsetsOverflow = upload(arena.allocateFrom(ValueLayout.JAVA_LONG, 8, 12, 16, 20));
                try {
                    for (Route r : ROUTES) {
                        assertOverflowIn("segment 1",
                                () -> reduceBy(r, DType.LONG, Op.SUM, in, offsetsOverflow, 3, out, values.length));
                        assertEquals(0, row0AsASegment.getAsLong(), "max + max - max - max, after segment 1 overflowed " + r);
                    }
                } finally {
                    ctx.free(offsetsOverflow);
                }
            } finally {
                ctx.free(in);
                ctx.free(out);
                ctx.free(offsets);
            }
        }
    }

    /**
     * int64 SUM overflow in chunked rows, and in long segments by the one launch and by the classic
     * kernels (whose long kernel finishes a one-item segment itself, overflow flag included): the
     * first overflowing segment is named, and a call without an overflow writes every result.
     */
    @Test
    void longSumOverflowIsFoundInChunkedRowsAndLongSegments() {
        long n = 300_000;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment host = arena.allocate(ValueLayout.JAVA_LONG, n);
            long in = ctx.allocate(8 * n);
            long out = ctx.allocate(8 * 3);
            long offsets = upload(arena.allocateFrom(ValueLayout.JAVA_LONG, 0, 50_000, 100_000, 300_000));
            // Both segments here are long (more than C elements) but a single work item each; segment 2
            // above has several items.
            long c = SegmentedReducePolicy.longChunkLength(33_000);
            assertTrue(30_000 > c && 3_000 > c, "both segments are long");
            assertEquals(0, (29_999 / c) / SegmentedReducePolicy.ITEM_CHUNKS, "segment 0 is one work item");
            assertEquals(0, (32_999 / c - 30_000 / c) / SegmentedReducePolicy.ITEM_CHUNKS, "segment 1 is one work item");
            long oneItemOffsets = upload(arena.allocateFrom(ValueLayout.JAVA_LONG, 0, 30_000, 33_000));
            try {
                for (Route r : new Route[] {Route.AUTO, Route.CLASSIC}) {
                    for (long i = 0; i < n; i++) host.setAtIndex(ValueLayout.JAVA_LONG, i, Long.MAX_VALUE / 100_000);
                    ctx.copyToDevice(in, host, 8 * n);
                    assertOverflowIn("row 0", () -> GpuSegmentedReduce.reduceRows(ctx, DType.LONG, Op.SUM, in, 1, n, out));
                    assertOverflowIn("segment 2", () -> reduceBy(r, DType.LONG, Op.SUM, in, offsets, 3, out, n));
                    // Both one-item segments overflow: the smaller index is reported.
                    for (long i : new long[] {20_000, 20_001, 30_000, 30_001}) host.setAtIndex(ValueLayout.JAVA_LONG, i, Long.MAX_VALUE);
                    ctx.copyToDevice(in, host, 8 * n);
                    assertOverflowIn("segment 0", () -> reduceBy(r, DType.LONG, Op.SUM, in, oneItemOffsets, 2, out, n));
                    // Segment 1 alone overflows (segment 0's two large values now cancel).
                    host.setAtIndex(ValueLayout.JAVA_LONG, 20_000, -Long.MAX_VALUE);
                    ctx.copyToDevice(in, host, 8 * n);
                    assertOverflowIn("segment 1", () -> reduceBy(r, DType.LONG, Op.SUM, in, oneItemOffsets, 2, out, n));
                    // Without an overflow no flag is raised, and both results are written by this call.
                    host.setAtIndex(ValueLayout.JAVA_LONG, 30_000, -Long.MAX_VALUE);
                    ctx.copyToDevice(in, host, 8 * n);
                    ctx.memset8(out, (byte) 0xA5, 16);
                    reduceBy(r, DType.LONG, Op.SUM, in, oneItemOffsets, 2, out, n);
                    MemorySegment result = download(arena, out, 16);
                    for (int seg = 0; seg < 2; seg++) {
                        long expected = 0;
                        for (long i = seg == 0 ? 0 : 30_000; i < (seg == 0 ? 30_000 : 33_000); i++) {
                            expected += host.getAtIndex(ValueLayout.JAVA_LONG, i);
                        }
                        assertEquals(expected, result.getAtIndex(ValueLayout.JAVA_LONG, seg), r + ": segment " + seg);
                    }
                }
            } finally {
                ctx.free(in);
                ctx.free(out);
                ctx.free(offsets);
                ctx.free(oneItemOffsets);
            }
        }
    }

    /** Float sums of the chunked and segmented paths (by every route) are bitwise identical run to run. */
    @Test
    void floatResultsAreReproducible() {
        long[] offsets = layout("powerLaw", new Random(99));
        long n = offsets[offsets.length - 1];
        try (Arena arena = Arena.ofConfined()) {
            Host data = Host.random(arena, DType.FLOAT, n, false, new Random(3));
            long in = upload(data.segment);
            long off = upload(arena.allocateFrom(ValueLayout.JAVA_LONG, offsets));
            int segments = offsets.length - 1;
            long out = ctx.allocate(4L * Math.max(segments, 1));
            Runnable rowSums = () -> GpuSegmentedReduce.reduceRows(ctx, DType.FLOAT, Op.SUM, in, 3, n / 3, out);
            try {
                for (Route r : ROUTES) {
                    Runnable segmentSums = () -> reduceBy(r, DType.FLOAT, Op.SUM, in, off, segments, out, n);
                    MemorySegment first = afterPoisoned(arena, out, 4L * segments, segmentSums);
                    for (int run = 0; run < 3; run++) {
                        assertEquals(-1, first.mismatch(afterPoisoned(arena, out, 4L * segments, segmentSums)),
                                r + ": segments, run " + run);
                    }
                }
                MemorySegment firstRows = afterPoisoned(arena, out, 12, rowSums);
                for (int run = 0; run < 3; run++) {
                    assertEquals(-1, firstRows.mismatch(afterPoisoned(arena, out, 12, rowSums)), "rows, run " + run);
                }
            } finally {
                ctx.free(in);
                ctx.free(off);
                ctx.free(out);
            }
        }
    }

    @Test
    void nanAndSignedZeroFollowJava() {
        float nan = Float.NaN;
        float[] values = {0.0f, -0.0f, 1, /* row 1 */ -0.0f, 0.0f, -0.0f, /* row 2 */ 2, nan, 1, /* row 3 */ nan, 3, nan};
        try (Arena arena = Arena.ofConfined()) {
            long in = upload(arena.allocateFrom(ValueLayout.JAVA_FLOAT, values));
            long out = ctx.allocate(8 * 4);
            try {
                // Poisoned before each call (POISON is not a NaN), so every result read is the call's own.
                MemorySegment min = afterPoisoned(arena, out, 32,
                        () -> GpuSegmentedReduce.reduceRows(ctx, DType.FLOAT, Op.MIN, in, 4, 3, out));
                assertEquals(Float.floatToRawIntBits(-0.0f), min.getAtIndex(ValueLayout.JAVA_INT, 0));
                assertEquals(Float.floatToRawIntBits(-0.0f), min.getAtIndex(ValueLayout.JAVA_INT, 1));
                assertTrue(Float.isNaN(min.getAtIndex(ValueLayout.JAVA_FLOAT, 2)));
                assertTrue(Float.isNaN(min.getAtIndex(ValueLayout.JAVA_FLOAT, 3)));
                MemorySegment max = afterPoisoned(arena, out, 32,
                        () -> GpuSegmentedReduce.reduceRows(ctx, DType.FLOAT, Op.MAX, in, 4, 3, out));
                assertEquals(1.0f, max.getAtIndex(ValueLayout.JAVA_FLOAT, 0));
                assertEquals(Float.floatToRawIntBits(0.0f), max.getAtIndex(ValueLayout.JAVA_INT, 1));
                assertTrue(Float.isNaN(max.getAtIndex(ValueLayout.JAVA_FLOAT, 2)), "Math.max(2, NaN) is NaN");
                assertTrue(Float.isNaN(max.getAtIndex(ValueLayout.JAVA_FLOAT, 3)), "Math.max(NaN, 3) is NaN");
                MemorySegment argmin = afterPoisoned(arena, out, 32,
                        () -> GpuSegmentedReduce.argExtremeRows(ctx, DType.FLOAT, false, in, 4, 3, out));
                assertEquals(List.of(1L, 0L, 1L, 0L), longs(argmin, 4));
                MemorySegment argmax = afterPoisoned(arena, out, 32,
                        () -> GpuSegmentedReduce.argExtremeRows(ctx, DType.FLOAT, true, in, 4, 3, out));
                assertEquals(List.of(2L, 1L, 1L, 0L), longs(argmax, 4));
            } finally {
                ctx.free(in);
                ctx.free(out);
            }
        }
    }

    // ------------------------------------------------------------------------------------ malformed offsets

    /**
     * Offsets outside in, or decreasing ones, throw IllegalArgumentException naming offsets (as on the
     * CPU) for every segmented entry point, write nothing (out is left as it was), and leave nothing
     * behind: the next valid call is right.
     */
    @Test
    void offsetsOutsideInOrDecreasingAreRejected() {
        long[][] bad = {
                {0, 2, 100},        // offsets[nseg] beyond the 6 elements of in
                {0, 3, 7},          // one beyond
                {-1, 2, 6},         // offsets[0] negative
                {4, 5, 2},          // offsets[nseg] < offsets[0]
                {0, 4, 2, 6},       // a decreasing interior offset
                {0, 100, 2, 6},     // an interior offset beyond in, then decreasing: never read past in
                {0, -5, 6},         // an interior offset below 0
                {1, 1, 0, 0, 6},    // decreasing to below offsets[0]
        };
        String[] fragments = {"beyond the 6 elements", "beyond the 6 elements", "negative", "not non-decreasing",
                "offsets[1] = 4 > offsets[2] = 2", "offsets[1] = 100 > offsets[2] = 2", "offsets[0] = 0 > offsets[1] = -5",
                "offsets[1] = 1 > offsets[2] = 0"};
        try (Arena arena = Arena.ofConfined()) {
            long inFloat = upload(arena.allocateFrom(ValueLayout.JAVA_FLOAT, 1, 2, 3, 4, 5, 6));
            long inLong = upload(arena.allocateFrom(ValueLayout.JAVA_LONG, 1, 2, 3, 4, 5, 6));
            Guarded out = allocateGuarded(8 * 8);
            long o = out.out();
            try {
                for (int c = 0; c < bad.length; c++) {
                    long[] offsets = bad[c];
                    String fragment = fragments[c];
                    long off = upload(arena.allocateFrom(ValueLayout.JAVA_LONG, offsets));
                    long segments = offsets.length - 1;
                    try {
                        for (Route r : ROUTES) {
                            String f = fragment;
                            assertOffsetsRejected(arena, out, f, () -> reduceBy(r, DType.FLOAT, Op.SUM, inFloat, off,
                                    segments, o, 6));
                            assertOffsetsRejected(arena, out, f, () -> reduceBy(r, DType.FLOAT, Op.MAX, inFloat, off,
                                    segments, o, 6));
                            assertOffsetsRejected(arena, out, f, () -> GpuSegmentedReduce.argExtremeSegments(ctx,
                                    DType.FLOAT, true, inFloat, off, segments, o, 6, r));
                            // int64 SUM: behind the verdict, its overflow flag shares the final readback
                            assertOffsetsRejected(arena, out, f, () -> reduceBy(r, DType.LONG, Op.SUM, inLong, off,
                                    segments, o, 6));
                            assertOffsetsRejected(arena, out, f, () -> GpuSegmentedReduce.argExtremeSegments(ctx,
                                    DType.LONG, false, inLong, off, segments, o, 6, r));
                        }
                    } finally {
                        ctx.free(off);
                    }
                    assertValidSegmentsStillCorrect(arena, "after " + Arrays.toString(offsets));
                }
            } finally {
                ctx.free(inFloat);
                ctx.free(inLong);
                ctx.free(out.base());
            }
        }
    }

    /**
     * Decreasing offsets among long segments (queued for the persistent kernels) are rejected too,
     * with nothing written.
     */
    @Test
    void decreasingOffsetsAmongLongSegmentsAreRejected() {
        long n = 300_000;
        try (Arena arena = Arena.ofConfined()) {
            Host data = Host.random(arena, DType.FLOAT, n, false, new Random(17));
            long in = upload(data.segment);
            Guarded out = allocateGuarded(8 * 8);
            long o = out.out();
            long[][] bad = {{0, 100_000, 50_000, 300_000}, {0, 250_000, 10, 40, 5000, 300_000}, {0, 300_000, 0, 300_000}};
            try {
                for (long[] offsets : bad) {
                    long off = upload(arena.allocateFrom(ValueLayout.JAVA_LONG, offsets));
                    long segments = offsets.length - 1;
                    try {
                        for (Route r : ROUTES) {
                            assertOffsetsRejected(arena, out, "not non-decreasing",
                                    () -> reduceBy(r, DType.FLOAT, Op.SUM, in, off, segments, o, n));
                            assertOffsetsRejected(arena, out, "not non-decreasing",
                                    () -> GpuSegmentedReduce.argExtremeSegments(ctx, DType.FLOAT, false, in, off, segments,
                                            o, n, r));
                        }
                    } finally {
                        ctx.free(off);
                    }
                    assertValidSegmentsStillCorrect(arena, "after " + Arrays.toString(offsets));
                }
            } finally {
                ctx.free(in);
                ctx.free(out.base());
            }
        }
    }

    /**
     * The check names the first decreasing pair wherever it lies among its warps' loads: a lane's
     * first or second segment of a pair, lane 31's (which ends at the next row's first offset, or at
     * the offset after the warp's turn of 3 * 64 segments), a later turn's, the last segment; with a
     * second drop after it, for offsets on a 16-byte boundary (loaded in pairs: each warp has the four
     * turns the check asks for and part of a fifth) and 8 bytes past one.
     */
    @Test
    void theFirstDecreasingPairIsNamedWhereverItLies() {
        long threads = 8L * 256 * ctx.device().multiprocessorCount();  // the check's grid, at these counts
        long turns = threads / 32 * 3 * 64;  // segments the warps take in one turn of pairs together
        int segments = (int) (4 * turns + 277);
        long[] firsts = {0, 1, 30, 31, 62, 63, 64, 190, 191, 192, 193, turns - 1, turns + 63, 2 * turns + 191,
                4 * turns + 191, segments - 2, segments - 1};
        long[] clean = new long[segments + 1];
        clean[0] = 10;
        for (int k = 1; k <= segments; k++) clean[k] = clean[k - 1] + k % 5;
        try (Arena arena = Arena.ofConfined()) {
            for (long first : firsts) for (int shift = 0; shift < 2; shift++) {
                long[] offsets = clean.clone();
                offsets[(int) first + 1] = offsets[(int) first] - 1;
                long later = Math.min(first + 97, segments - 1);
                if (later > first + 1) offsets[(int) later + 1] = offsets[(int) later] - 3;
                String fragment = "offsets[" + first + "] = " + offsets[(int) first] + " > offsets[" + (first + 1)
                        + "] = " + offsets[(int) first + 1];
                long base = uploadShifted(arena, offsets, shift), at = base + 8L * shift;
                try {
                    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                            () -> GpuSegmentedReduce.offsetsVerdict(ctx, at, segments, clean[segments] + 1));
                    assertTrue(e.getMessage().contains(fragment),
                            "shift " + shift + ": " + e.getMessage() + " names " + fragment);
                } finally {
                    ctx.free(base);
                }
            }
            long base = uploadShifted(arena, clean, 1);
            try {
                assertEquals(clean[segments] - clean[0], GpuSegmentedReduce.offsetsVerdict(ctx, base + 8, segments,
                        clean[segments]).values(), "clean offsets after the bad ones");
            } finally {
                ctx.free(base);
            }
        }
    }

    /**
     * Decreasing offsets on the merge path (int64 SUM; int32 SUM in 128 bits, on the classic kernels,
     * beside it), whether or not its tiles' searches would chain: the message names the first
     * decreasing pair, nothing is written, and the next call is right.
     */
    @Test
    void decreasingOffsetsOnTheMergePathNameTheFirstPair() {
        long n = 100_000;
        List<long[]> bad = new ArrayList<>();
        List<String> fragments = new ArrayList<>();
        long[] many = new long[2001];  // segments of 40, two drops
        for (int k = 1; k < many.length; k++) many[k] = many[k - 1] + 40;
        many[1500] = 5;
        many[1700] = 3;
        bad.add(many);
        fragments.add("offsets[1499] = 59960 > offsets[1500] = 5");
        long[] jump = new long[4002];  // unit segments, one offset far ahead, then on from below it
        for (int k = 0; k < 2000; k++) jump[k] = k;
        jump[2000] = 90_000;
        for (int k = 2001; k < 4001; k++) jump[k] = k - 11;
        jump[4001] = n;
        bad.add(jump);
        fragments.add("offsets[2000] = 90000 > offsets[2001] = 1990");
        long[] reversed = new long[4001];  // 0, 3999, 3998, ..., 1, 4000: the tiles' searches do not chain
        for (int k = 1; k < 4000; k++) reversed[k] = 4000 - k;
        reversed[4000] = 4000;
        bad.add(reversed);
        fragments.add("offsets[1] = 3999 > offsets[2] = 3998");
        long[] alternating = new long[10_001];  // 0, n, 0, n, ...
        for (int k = 0; k < alternating.length; k++) alternating[k] = k % 2 == 0 ? 0 : n;
        alternating[alternating.length - 1] = n;
        bad.add(alternating);
        fragments.add("offsets[1] = 100000 > offsets[2] = 0");
        try (Arena arena = Arena.ofConfined()) {
            long inLong = upload(Host.random(arena, DType.LONG, n, false, new Random(37)).segment);
            long inInt = upload(Host.random(arena, DType.INT, n, false, new Random(41)).segment);
            Guarded out = allocateGuarded(8L * 10_001);
            long o = out.out();
            try {
                for (int c = 0; c < bad.size(); c++) {
                    long[] offsets = bad.get(c);
                    String fragment = fragments.get(c);
                    long segments = offsets.length - 1;
                    assertTrue(GpuSegmentedReduce.takesMergePath(DType.LONG, "sum", n, segments), fragment + ": merge path");
                    long off = upload(arena.allocateFrom(ValueLayout.JAVA_LONG, offsets));
                    try {
                        for (Route r : new Route[] {Route.AUTO, Route.MERGE_PATH}) {  // int64 SUM: MERGE_PATH as its rule says
                            assertOffsetsRejected(arena, out, fragment, () -> reduceBy(r, DType.LONG, Op.SUM, inLong, off,
                                    segments, o, n));
                        }
                        assertOffsetsRejected(arena, out, fragment, () -> GpuSegmentedReduce.reduceSegments(ctx,
                                DType.INT, Op.SUM, inInt, off, segments, o, n, 0));
                    } finally {
                        ctx.free(off);
                    }
                    assertValidSegmentsStillCorrect(arena, "after " + fragment);
                }
            } finally {
                ctx.free(inLong);
                ctx.free(inInt);
                ctx.free(out.base());
            }
        }
    }

    /**
     * Overlapping long segments [0, M), (M, 0), [0, M), ... with M = 2^27 (73 segments, 37 of them
     * long) would queue more work items than the scratch holds: the offsets' check refuses them before
     * anything is queued, nothing is written, and the call throws. Needs 512 MiB of device memory for in.
     */
    @Test
    void overlappingLongSegmentsDoNotOverflowTheWorkQueue() {
        long m = 1L << 27;
        long[] offsets = new long[74];
        for (int k = 0; k < offsets.length; k++) offsets[k] = k % 2 == 0 ? 0 : m;
        try (Arena arena = Arena.ofConfined()) {
            long in = ctx.allocate(4 * m);
            long segments = offsets.length - 1;
            Guarded out = allocateGuarded(8 * segments);
            long o = out.out();
            long off = upload(arena.allocateFrom(ValueLayout.JAVA_LONG, offsets));
            long whole = upload(arena.allocateFrom(ValueLayout.JAVA_LONG, 0, 1000, m));
            try {
                ctx.memset32(in, Float.floatToRawIntBits(1.0f), m);
                assertOffsetsRejected(arena, out, "not non-decreasing",
                        () -> GpuSegmentedReduce.reduceSegments(ctx, DType.FLOAT, Op.SUM, in, off, segments, o, m));
                assertOffsetsRejected(arena, out, "not non-decreasing",
                        () -> GpuSegmentedReduce.argExtremeSegments(ctx, DType.FLOAT, true, in, off, segments, o, m));
                assertOffsetsRejected(arena, out, "not non-decreasing",
                        () -> GpuSegmentedReduce.reduceSegments(ctx, DType.INT, Op.SUM, in, off, segments, o, m));
                // The same input, well formed: one medium and one long segment.
                MemorySegment sums = afterPoisoned(arena, o, 8, () -> GpuSegmentedReduce.reduceSegments(ctx, DType.FLOAT,
                        Op.SUM, in, whole, 2, o, m));
                assertEquals(1000.0f, sums.getAtIndex(ValueLayout.JAVA_FLOAT, 0));
                assertEquals((float) (m - 1000), sums.getAtIndex(ValueLayout.JAVA_FLOAT, 1));
                assertValidSegmentsStillCorrect(arena, "after overlapping long segments");
            } finally {
                ctx.free(in);
                ctx.free(out.base());
                ctx.free(off);
                ctx.free(whole);
            }
        }
    }

    /**
     * Rows and segments of int32 or int8 over more than 2^31 elements: one row of all of them, three
     * rows of about 7 * 10^8, and segments across 2^31 (and an empty one); SUM (into int64), MAX and
     * argmax against one host pass. The largest value sits past 2^31, so argmax needs 64-bit indices.
     * Needs ~9 GB (int32) or ~3 GB (int8) of device memory.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = DType.class, names = {"INT", "BYTE"})
    @Tag(BigInputs.TAG)
    void rowsAndSegmentsBeyondTwoToThe31(DType type) {
        long n = (1L << 31) + 5, peak = (1L << 31) + 1, cols3 = n / 3;
        BigInputs.assumeFreeMemory(ctx, type.byteSize() * n);
        long[] offsets = {0, 5, 5, (1L << 31) - 3, (1L << 31) + 2, n};
        // Every range asked for, as [begin, end): the row of n, the three rows, the segments.
        List<long[]> ranges = new ArrayList<>();
        ranges.add(new long[] {0, n});
        for (long r = 0; r < 3; r++) ranges.add(new long[] {r * cols3, (r + 1) * cols3});
        for (int k = 0; k + 1 < offsets.length; k++) ranges.add(new long[] {offsets[k], offsets[k + 1]});
        long[] sum = new long[ranges.size()], max = new long[ranges.size()], argmax = new long[ranges.size()];
        LongToIntFunction value = type == DType.INT ? i -> i == peak ? 5000 : BigInputs.value(i)
                : i -> i == peak ? Byte.MAX_VALUE : BigInputs.value(i) / 10;  // int8: [-100, 100] but the peak
        hostReduce(ranges, value, sum, max, argmax);
        if (type == DType.BYTE) {  // an empty MAX is the type's smallest value
            for (int r = 0; r < ranges.size(); r++) if (ranges.get(r)[0] == ranges.get(r)[1]) max[r] = Byte.MIN_VALUE;
        }

        long in = ctx.allocate(type.byteSize() * n), out = ctx.allocate(8 * 8);
        try (Arena arena = Arena.ofConfined()) {
            long off = upload(arena.allocateFrom(ValueLayout.JAVA_LONG, offsets));
            try {
                if (type == DType.INT) BigInputs.uploadInts(ctx, in, n, value);
                else BigInputs.uploadBytes(ctx, in, n, value);
                int segments = offsets.length - 1;
                for (Op op : new Op[] {Op.SUM, Op.MAX, null}) {  // null: argmax
                    long[] got = new long[ranges.size()];
                    int k = 0;
                    for (long[] shape : new long[][] {{1, n}, {3, cols3}}) {
                        ctx.memset8(out, (byte) 0xA5, 8 * 8);
                        if (op == null) GpuSegmentedReduce.argExtremeRows(ctx, type, true, in, shape[0], shape[1], out);
                        else GpuSegmentedReduce.reduceRows(ctx, type, op, in, shape[0], shape[1], out);
                        k = readResults(arena, out, type, op, (int) shape[0], got, k);
                    }
                    // Segments by both routes behind the verdict (the one launch does not fit here).
                    for (Route path : new Route[] {Route.CLASSIC, Route.MERGE_PATH}) {
                        ctx.memset8(out, (byte) 0xA5, 8 * 8);
                        if (op == null) {
                            GpuSegmentedReduce.argExtremeSegments(ctx, type, true, in, off, segments, out, n, path);
                        } else {
                            GpuSegmentedReduce.reduceSegments(ctx, type, op, in, off, segments, out, n,
                                    Reductions.INT_SUM_EXACT_ELEMENTS, path);
                        }
                        readResults(arena, out, type, op, segments, got, k);
                        long[] want = op == Op.SUM ? sum : op == Op.MAX ? max : argmax;
                        for (int r = 0; r < ranges.size(); r++) {
                            assertEquals(want[r], got[r], (op == null ? "argmax" : op) + " over [" + ranges.get(r)[0]
                                    + ", " + ranges.get(r)[1] + ") " + path);
                        }
                    }
                }
            } finally {
                ctx.free(off);
            }
        } finally {
            ctx.free(in);
            ctx.free(out);
        }
    }

    /**
     * An int32 SUM of a row or segment of more than 2^32 elements can leave int64: it is summed in 128
     * bits and throws ArithmeticException naming the first row or segment that does not fit a long,
     * while one that fits, however close to the edge, is exact. 2^32 + 3 values of MAX_VALUE sum to
     * 2^63 + 2^31 - 3; without their first element, to 2^63 - 2. Then varied values, which no sum of
     * this many can leave int64 with unless nearly all are MAX_VALUE: a random block repeated with a
     * period that divides neither 2^31 nor 2^32, so an index that wraps at either reads another value,
     * while the host sums any range exactly from the block's prefix sums. Filled on the device: ~16 GiB.
     */
    @Test
    @Tag(BigInputs.TAG)
    void int32SumsOverMoreThan2To32ElementsAreExactOrThrow() {
        long n = (1L << 32) + 3;
        BigInputs.assumeFreeMemory(ctx, 4 * n);
        long in = ctx.allocate(4 * n), out = ctx.allocate(24);
        try (Arena arena = Arena.ofConfined()) {
            long[][] layouts = {{0, 1, n}, {0, 0, n}};
            long fits = upload(arena.allocateFrom(ValueLayout.JAVA_LONG, layouts[0]));
            long overflows = upload(arena.allocateFrom(ValueLayout.JAVA_LONG, layouts[1]));
            try {
                ctx.memset32(in, Integer.MAX_VALUE, n);
                assertOverflowIn("row 0", () -> GpuSegmentedReduce.reduceRows(ctx, DType.INT, Op.SUM, in, 1, n, out));
                assertOverflowIn("segment 1",
                        () -> GpuSegmentedReduce.reduceSegments(ctx, DType.INT, Op.SUM, in, overflows, 2, out, n));
                // The flags were cleared: the next call, which fits, is exact.
                ctx.memset8(out, (byte) 0xA5, 16);
                GpuSegmentedReduce.reduceSegments(ctx, DType.INT, Op.SUM, in, fits, 2, out, n);
                assertEquals(List.of((long) Integer.MAX_VALUE, Long.MAX_VALUE - 1), longs(download(arena, out, 16), 2));
                ctx.memset32(in, Integer.MIN_VALUE, n);  // -2^63 - 3 * 2^31
                assertOverflowIn("row 0", () -> GpuSegmentedReduce.reduceRows(ctx, DType.INT, Op.SUM, in, 1, n, out));

                long[] prefix = fillPeriodic(arena, in, n, 999_983, new Random(47));  // a prime period
                for (long rows : new long[] {1, 3}) {  // one row of all (128-bit sums); three of ~1.4 * 10^9, past 2^32
                    long cols = n / rows;
                    MemorySegment got = afterPoisoned(arena, out, 24,
                            () -> GpuSegmentedReduce.reduceRows(ctx, DType.INT, Op.SUM, in, rows, cols, out));
                    for (int r = 0; r < rows; r++) {
                        assertEquals(periodicSum(prefix, r * cols, (r + 1) * cols), got.getAtIndex(ValueLayout.JAVA_LONG, r),
                                "varied values, row " + r + " of " + rows);
                    }
                }
                for (int k = 0; k < layouts.length; k++) {
                    long[] o = layouts[k];
                    long off = k == 0 ? fits : overflows;
                    MemorySegment got = afterPoisoned(arena, out, 24,
                            () -> GpuSegmentedReduce.reduceSegments(ctx, DType.INT, Op.SUM, in, off, 2, out, n));
                    assertEquals(List.of(periodicSum(prefix, o[0], o[1]), periodicSum(prefix, o[1], o[2])), longs(got, 2),
                            "varied values, segments " + Arrays.toString(o));
                }
            } finally {
                ctx.free(fits);
                ctx.free(overflows);
            }
        } finally {
            ctx.free(in);
            ctx.free(out);
        }
    }

    /**
     * int64 SUM over 2^31 + 2^23 + 7 values in about 68 million short segments takes the merge path:
     * merge steps and the values of thousands of tiles beyond 2^31, and a segment of 7 million values
     * across 2^31 (2103 tiles: the fixup's block, two rounds of loads per thread), short ones after it.
     * Every segment against the host's sum. Needs ~18 GB of device memory.
     */
    @Test
    @Tag(BigInputs.TAG)
    void int64SumsOverManyShortSegmentsBeyondTwoToThe31() {
        long n = (1L << 31) + (1L << 23) + 7, giantLength = 7_000_000, giantStart = (1L << 31) - giantLength / 2;
        long[] grown = new long[1 << 20];
        int segments = 0;
        for (long end = 0; end < n; ) {
            long length = end == giantStart ? giantLength : BigInputs.mix(segments) >>> 58;  // else 0..63
            if (end < giantStart) length = Math.min(length, giantStart - end);  // the giant starts where it should
            end = Math.min(n, end + length);
            if (segments + 2 > grown.length) grown = Arrays.copyOf(grown, grown.length * 2);
            grown[++segments] = end;
        }
        long[] offsets = Arrays.copyOf(grown, segments + 1);
        assertTrue(GpuSegmentedReduce.takesMergePath(DType.LONG, "sum", n, segments), "merge path");
        BigInputs.assumeFreeMemory(ctx, 8 * n + 16L * segments);
        LongUnaryOperator value = i -> BigInputs.mix(i) >> 30;  // 34-bit signed: no segment's sum leaves a long
        long[] want = new long[segments];
        for (int k = 0; k < segments; k++) {
            long sum = 0;
            for (long i = offsets[k]; i < offsets[k + 1]; i++) sum += value.applyAsLong(i);
            want[k] = sum;
        }
        long in = ctx.allocate(8 * n), out = ctx.allocate(8L * segments);
        try (Arena arena = Arena.ofConfined()) {
            long off = upload(arena.allocateFrom(ValueLayout.JAVA_LONG, offsets));
            try {
                BigInputs.upload(ctx, in, n, 8, (host, start, count) -> {
                    for (long j = 0; j < count; j++) {
                        host.setAtIndex(ValueLayout.JAVA_LONG, j, value.applyAsLong(start + j));
                    }
                });
                ctx.memset8(out, (byte) 0xA5, 8L * segments);
                GpuSegmentedReduce.reduceSegments(ctx, DType.LONG, Op.SUM, in, off, segments, out, n);
                MemorySegment got = download(arena, out, 8L * segments);
                for (int k = 0; k < segments; k++) {
                    long g = got.getAtIndex(ValueLayout.JAVA_LONG, k);
                    if (g != want[k]) {
                        fail("segment " + k + " [" + offsets[k] + ", " + offsets[k + 1] + "): " + g + ", want " + want[k]);
                    }
                }
            } finally {
                ctx.free(off);
            }
        } finally {
            ctx.free(in);
            ctx.free(out);
        }
    }

    /**
     * Fills int32 device array in of n (at least period) elements with a block of period random
     * values repeated (each copy doubles the filled prefix, which stays a whole number of blocks);
     * returns the block's prefix sums, prefix[period] its total.
     */
    private long[] fillPeriodic(Arena arena, long in, long n, int period, Random random) {
        MemorySegment block = arena.allocate(ValueLayout.JAVA_INT, period);
        long[] prefix = new long[period + 1];
        for (int k = 0; k < period; k++) {
            int v = random.nextInt();
            block.setAtIndex(ValueLayout.JAVA_INT, k, v);
            prefix[k + 1] = prefix[k] + v;
        }
        ctx.copyToDevice(in, block, 4L * period);
        for (long filled = period; filled < n; filled *= 2) {
            ctx.copyDeviceToDevice(in + 4 * filled, in, 4 * Math.min(filled, n - filled));
        }
        return prefix;
    }

    /** The exact sum of elements [begin, end) of fillPeriodic's array (ArithmeticException if it leaves a long). */
    private static long periodicSum(long[] prefix, long begin, long end) {
        return Math.subtractExact(periodicPrefix(prefix, end), periodicPrefix(prefix, begin));
    }

    private static long periodicPrefix(long[] prefix, long i) {
        int period = prefix.length - 1;
        return Math.addExact(Math.multiplyExact(i / period, prefix[period]), prefix[(int) (i % period)]);
    }

    /** Copies count results (the input type for MAX, int64 for SUM and argmax) into got from index k; returns the next index. */
    private int readResults(Arena arena, long out, DType type, Op op, int count, long[] got, int k) {
        MemorySegment r = download(arena, out, 8L * count);
        for (int i = 0; i < count; i++) {
            got[k + i] = op != Op.MAX ? r.getAtIndex(ValueLayout.JAVA_LONG, i)
                    : type == DType.INT ? r.getAtIndex(ValueLayout.JAVA_INT, i) : r.get(ValueLayout.JAVA_BYTE, i);
        }
        return k + count;
    }

    /**
     * One pass over the elements: each range's sum, max and the index of its first max within the
     * range (MIN_VALUE and -1 if empty). The ranges' ends cut the elements into pieces, each
     * walked once; a range combines its pieces.
     */
    private static void hostReduce(List<long[]> ranges, LongToIntFunction value, long[] sum, long[] max, long[] argmax) {
        long[] cuts = ranges.stream().flatMapToLong(r -> Arrays.stream(r)).sorted().distinct().toArray();
        int pieces = cuts.length - 1;
        long[] pieceSum = new long[pieces], pieceArg = new long[pieces];
        int[] pieceMax = new int[pieces];
        for (int t = 0; t < pieces; t++) {
            long s = 0, arg = -1;
            int m = Integer.MIN_VALUE;
            for (long i = cuts[t]; i < cuts[t + 1]; i++) {
                int v = value.applyAsInt(i);
                s += v;
                if (arg < 0 || v > m) {
                    m = v;
                    arg = i;
                }
            }
            pieceSum[t] = s;
            pieceMax[t] = m;
            pieceArg[t] = arg;
        }
        for (int k = 0; k < ranges.size(); k++) {
            long begin = ranges.get(k)[0], end = ranges.get(k)[1];
            long s = 0, arg = -1;
            int m = Integer.MIN_VALUE;
            for (int t = Arrays.binarySearch(cuts, begin); t < pieces && cuts[t] < end; t++) {
                s += pieceSum[t];
                if (pieceArg[t] >= 0 && (arg < 0 || pieceMax[t] > m)) {
                    m = pieceMax[t];
                    arg = pieceArg[t];
                }
            }
            sum[k] = s;
            max[k] = m;
            argmax[k] = arg < 0 ? -1 : arg - begin;
        }
    }

    /** A segmented reduce by {@code r}. */
    private void reduceBy(Route r, DType type, Op op, long in, long offsets, long segments, long out, long inLength) {
        GpuSegmentedReduce.reduceSegments(ctx, type, op, in, offsets, segments, out, inLength,
                Reductions.INT_SUM_EXACT_ELEMENTS, r);
    }

    /**
     * The call, on out poisoned first, throws IllegalArgumentException naming offsets and saying
     * fragment, and writes nothing: not a byte of out, nor around it (the offsets' check runs first).
     */
    private void assertOffsetsRejected(Arena arena, Guarded out, String fragment, Runnable call) {
        poison(out, POISON);
        String message = assertMessage("offsets", call);
        assertTrue(message.contains(fragment), () -> "message should say " + fragment + ": " + message);
        downloadChecked(arena, out, 0, POISON, "rejected (" + fragment + ")");
    }

    /**
     * A valid segmented reduce (short, medium and long segments, int32 SUM and ARGMAX, int64 SUM)
     * gives the reference results: the context is usable and no counter or flag was left behind.
     */
    private void assertValidSegmentsStillCorrect(Arena arena, String what) {
        ctx.synchronize();  // a sticky CUDA error would surface here
        long[] offsets = {7, 10, 47, 5000, 5000, 9000, 300_000};
        Host data = Host.random(arena, DType.INT, 300_000, true, new Random(23));
        Host wide = Host.random(arena, DType.LONG, 300_000, false, new Random(29));
        int segments = offsets.length - 1;
        long in = upload(data.segment);
        long inWide = upload(wide.segment);
        long off = upload(arena.allocateFrom(ValueLayout.JAVA_LONG, offsets));
        long out = ctx.allocate(8L * segments);
        try {
            MemorySegment sums = afterPoisoned(arena, out, 8L * segments,
                    () -> GpuSegmentedReduce.reduceSegments(ctx, DType.INT, Op.SUM, in, off, segments, out, 300_000));
            MemorySegment argmax = afterPoisoned(arena, out, 8L * segments,
                    () -> GpuSegmentedReduce.argExtremeSegments(ctx, DType.INT, true, in, off, segments, out, 300_000));
            MemorySegment wideSums = afterPoisoned(arena, out, 8L * segments,
                    () -> GpuSegmentedReduce.reduceSegments(ctx, DType.LONG, Op.SUM, inWide, off, segments, out, 300_000));
            for (int k = 0; k < segments; k++) {
                long begin = offsets[k], end = offsets[k + 1];
                assertEquals(data.integral(Op.SUM, begin, end), sums.getAtIndex(ValueLayout.JAVA_LONG, k),
                        what + ": int32 SUM of segment " + k);
                assertEquals(data.argExtreme(begin, end, true), argmax.getAtIndex(ValueLayout.JAVA_LONG, k),
                        what + ": ARGMAX of segment " + k);
                assertEquals(wide.integral(Op.SUM, begin, end), wideSums.getAtIndex(ValueLayout.JAVA_LONG, k),
                        what + ": int64 SUM of segment " + k);
            }
        } finally {
            ctx.free(in);
            ctx.free(inWide);
            ctx.free(off);
            ctx.free(out);
        }
    }

    // ------------------------------------------------------------------------------------ arguments

    @Test
    void outputTypesFollowTheAccumulatorRules() {
        assertEquals(DType.LONG, GpuSegmentedReduce.outputType(DType.INT, Op.SUM));
        assertEquals(DType.LONG, GpuSegmentedReduce.outputType(DType.INT, Op.PROD));
        assertEquals(DType.INT, GpuSegmentedReduce.outputType(DType.INT, Op.MAX));
        assertEquals(DType.INT, GpuSegmentedReduce.outputType(DType.INT, Op.XOR));
        assertEquals(DType.LONG, GpuSegmentedReduce.outputType(DType.LONG, Op.SUM));
        assertEquals(DType.FLOAT, GpuSegmentedReduce.outputType(DType.FLOAT, Op.SUM));
        assertEquals(DType.FLOAT, GpuSegmentedReduce.outputType(DType.FLOAT, Op.MIN));
        assertEquals(DType.DOUBLE, GpuSegmentedReduce.outputType(DType.DOUBLE, Op.PROD));
        assertThrows(IllegalArgumentException.class, () -> GpuSegmentedReduce.outputType(DType.FLOAT, Op.AND));
        assertEquals(DType.LONG, GpuSegmentedReduce.outputType(DType.BYTE, Op.SUM));
        assertEquals(DType.LONG, GpuSegmentedReduce.outputType(DType.BYTE, Op.PROD));
        assertEquals(DType.BYTE, GpuSegmentedReduce.outputType(DType.BYTE, Op.MIN));
        assertEquals(DType.BYTE, GpuSegmentedReduce.outputType(DType.BYTE, Op.AND));
    }

    @Test
    void badArgumentsAreNamed() {
        long buffer = ctx.allocate(1024);
        try {
            assertMessage("rows", () -> GpuSegmentedReduce.reduceRows(ctx, DType.INT, Op.SUM, buffer, -1, 4, buffer));
            assertMessage("cols", () -> GpuSegmentedReduce.reduceRows(ctx, DType.INT, Op.SUM, buffer, 1, -4, buffer));
            assertMessage("rows * cols", () -> GpuSegmentedReduce.reduceRows(ctx, DType.INT, Op.SUM, buffer, 1L << 40, 1L << 40, buffer));
            assertMessage("in", () -> GpuSegmentedReduce.reduceRows(ctx, DType.INT, Op.SUM, 0, 2, 4, buffer));
            assertMessage("in", () -> GpuSegmentedReduce.reduceRows(ctx, DType.INT, Op.SUM, buffer + 2, 2, 4, buffer));
            assertMessage("out", () -> GpuSegmentedReduce.reduceRows(ctx, DType.INT, Op.SUM, buffer, 2, 4, 0));
            assertMessage("out", () -> GpuSegmentedReduce.reduceRows(ctx, DType.INT, Op.SUM, buffer, 2, 4, buffer + 4));
            assertMessage("op", () -> GpuSegmentedReduce.reduceRows(ctx, DType.DOUBLE, Op.OR, buffer, 2, 4, buffer));
            assertMessage("segments", () -> GpuSegmentedReduce.reduceSegments(ctx, DType.FLOAT, Op.SUM, buffer, buffer, -1, buffer, 4));
            assertMessage("inLength", () -> GpuSegmentedReduce.reduceSegments(ctx, DType.FLOAT, Op.SUM, buffer, buffer, 3, buffer, -1));
            assertMessage("offsets", () -> GpuSegmentedReduce.reduceSegments(ctx, DType.FLOAT, Op.SUM, buffer, 0, 3, buffer, 4));
            assertMessage("offsets", () -> GpuSegmentedReduce.reduceSegments(ctx, DType.FLOAT, Op.SUM, buffer, buffer + 4, 3, buffer, 4));
            assertMessage("out", () -> GpuSegmentedReduce.argExtremeSegments(ctx, DType.FLOAT, true, buffer, buffer, 3, 0, 4));
            assertMessage("in", () -> GpuSegmentedReduce.reduceSegments(ctx, DType.DOUBLE, Op.MAX, buffer + 4, buffer, 3, buffer, 4));
            // out must not share a byte with in (or, for segments, with the offsets); adjacent is fine.
            assertMessage("out: overlaps in", () -> GpuSegmentedReduce.reduceRows(ctx, DType.FLOAT, Op.SUM, buffer, 4, 8, buffer + 124));
            assertMessage("out: overlaps in", () -> GpuSegmentedReduce.argExtremeRows(ctx, DType.INT, true, buffer + 8, 2, 4, buffer));
            assertMessage("out: overlaps in", () -> GpuSegmentedReduce.reduceSegments(ctx, DType.FLOAT, Op.SUM, buffer, buffer + 512, 3, buffer + 64, 64));
            assertMessage("offsets: overlaps out", () -> GpuSegmentedReduce.reduceSegments(ctx, DType.FLOAT, Op.SUM, buffer, buffer + 512, 3, buffer + 540, 4));
            assertMessage("offsets: overlaps out", () -> GpuSegmentedReduce.argExtremeSegments(ctx, DType.FLOAT, true, buffer, buffer + 512, 3, buffer + 520, 4));
            assertMessage("inLength", () -> GpuSegmentedReduce.reduceSegments(ctx, DType.DOUBLE, Op.SUM, buffer, buffer + 512, 3, buffer + 640, Long.MAX_VALUE / 4));
            GpuSegmentedReduce.reduceRows(ctx, DType.FLOAT, Op.MAX, buffer, 4, 8, buffer + 128);  // right after in
            ctx.synchronize();
            assertThrows(NullPointerException.class, () -> GpuSegmentedReduce.reduceRows(null, DType.INT, Op.SUM, buffer, 1, 1, buffer));
        } finally {
            ctx.free(buffer);
        }
    }

    /** The call throws ArithmeticException naming where the sum overflowed ("row 0", "segment 2"). */
    private static void assertOverflowIn(String where, Runnable call) {
        ArithmeticException e = assertThrows(ArithmeticException.class, call::run);
        assertTrue(e.getMessage().contains(where), () -> "should name " + where + ": " + e.getMessage());
    }

    /**
     * The call throws IllegalArgumentException whose message begins with argument as a whole name, as
     * the messages do ("in: ...", "rows must be ...", "rows * cols overflows ...", "out: overlaps in"):
     * "in" does not pass for "inLength: ...", nor "rows" for "rows * cols ...". Returns the message.
     */
    private static String assertMessage(String argument, Runnable call) {
        String message = assertThrows(IllegalArgumentException.class, call::run).getMessage();
        assertTrue(message != null && message.matches("(?s)" + Pattern.quote(argument) + "(?:(?::| must| overflows) .*)?"),
                () -> "message should name " + argument + ": " + message);
        return message;
    }

    // ------------------------------------------------------------------------------------ the check

    /**
     * Runs op (or argmin/argmax when op is null) over rows (rows >= 0) or segments (rows = -1) given by
     * offsets into data, on a poisoned output between poisoned guards, and checks every result against
     * the reference and the guards untouched.
     */
    private void runAndCheck(Host data, Op op, boolean argMax, long[] offsets, long offsetElements, long rows, long cols,
                             Arena arena) {
        runAndCheck(data, op, argMax, offsets, offsetElements, rows, cols, arena, Reductions.INT_SUM_EXACT_ELEMENTS);
    }

    /** As above; int32 SUM takes the 128-bit kernels beyond {@code exactIntSumAbove} elements per row or segment. */
    private void runAndCheck(Host data, Op op, boolean argMax, long[] offsets, long offsetElements, long rows, long cols,
                             Arena arena, long exactIntSumAbove) {
        DType type = data.type;
        int results = offsets.length - 1;
        DType outType = op == null ? DType.LONG : GpuSegmentedReduce.outputType(type, op);
        long outBytes = (long) results * outType.byteSize();
        long inBase = uploadPadded(data.segment, inPad), in = inBase + inPad;
        Guarded guarded = allocateGuarded(outBytes);
        long out = guarded.out();
        long deviceOffsets = rows < 0 ? upload(arena.allocateFrom(ValueLayout.JAVA_LONG, offsets)) : 0;
        String what = (op == null ? (argMax ? "ARGMAX" : "ARGMIN") : op.toString()) + " " + type
                + (rows < 0 ? " segments=" + results : " rows=" + rows + " cols=" + cols + " +" + offsetElements);
        // One-byte results run twice, under two poisons: a random byte matches a single poison once in 256.
        byte[] poisons = outType.byteSize() == 1 ? new byte[] {(byte) 0xFF, POISON} : new byte[] {POISON};
        try {
            for (byte poison : poisons) {
                poison(guarded, poison);
                long start = in + offsetElements * type.byteSize();
                if (rows >= 0) {
                    if (op == null) GpuSegmentedReduce.argExtremeRows(ctx, type, argMax, start, rows, cols, out);
                    else GpuSegmentedReduce.reduceRows(ctx, type, op, start, rows, cols, out, exactIntSumAbove);
                } else {
                    long inLength = data.segment.byteSize() / type.byteSize();
                    if (op == null) {
                        GpuSegmentedReduce.argExtremeSegments(ctx, type, argMax, in, deviceOffsets, results, out, inLength,
                                route);
                    } else {
                        GpuSegmentedReduce.reduceSegments(ctx, type, op, in, deviceOffsets, results, out, inLength,
                                exactIntSumAbove, route);
                    }
                }
                MemorySegment got = downloadChecked(arena, guarded, outBytes, poison, what);
                for (int r = 0; r < results; r++) {
                    long begin = offsets[r], end = offsets[r + 1];
                    if (op == null) {
                        long expected = data.argExtreme(begin, end, argMax);
                        long actual = got.getAtIndex(ValueLayout.JAVA_LONG, r);
                        if (expected != actual) fail(what + ": result " + r + " expected index " + expected + " but was " + actual);
                    } else if (!outType.isFloatingPoint()) {
                        long expected = data.integral(op, begin, end);
                        long actual = switch (outType) {
                            case BYTE -> got.get(ValueLayout.JAVA_BYTE, r);
                            case INT -> got.getAtIndex(ValueLayout.JAVA_INT, r);
                            default -> got.getAtIndex(ValueLayout.JAVA_LONG, r);
                        };
                        if (expected != actual) fail(what + ": result " + r + " expected " + expected + " but was " + actual);
                    } else {
                        double actual = outType == DType.FLOAT ? got.getAtIndex(ValueLayout.JAVA_FLOAT, r) : got.getAtIndex(ValueLayout.JAVA_DOUBLE, r);
                        if (Double.isNaN(actual)) {  // the canonical NaN, whatever NaN the data held
                            long bits = outType == DType.FLOAT ? got.getAtIndex(ValueLayout.JAVA_INT, r) & 0xFFFF_FFFFL
                                    : got.getAtIndex(ValueLayout.JAVA_LONG, r);
                            long canonical = outType == DType.FLOAT ? Float.floatToRawIntBits(Float.NaN) & 0xFFFF_FFFFL
                                    : Double.doubleToRawLongBits(Double.NaN);
                            if (bits != canonical) {
                                fail(what + ": result " + r + " is the NaN 0x" + Long.toHexString(bits) + ", not the canonical 0x"
                                        + Long.toHexString(canonical));
                            }
                        }
                        data.checkFloating(op, begin, end, actual, outType, what + ": result " + r);
                    }
                }
            }
        } finally {
            ctx.free(inBase);
            ctx.free(guarded.base());
            if (deviceOffsets != 0) ctx.free(deviceOffsets);
        }
    }

    /** An output of {@code bytes} at {@code out()}, with GUARD_BYTES more of the allocation at {@code base} either side. */
    private record Guarded(long base, long bytes) {
        long out() {
            return base + GUARD_BYTES;
        }

        long allocationBytes() {
            return bytes + 2 * GUARD_BYTES;
        }
    }

    private Guarded allocateGuarded(long bytes) {
        return new Guarded(ctx.allocate(bytes + 2 * GUARD_BYTES), bytes);
    }

    /** Poisons the whole allocation, guards included. */
    private void poison(Guarded g, byte poison) {
        ctx.memset8(g.base(), poison, g.allocationBytes());
    }

    /**
     * The output as downloaded, after checking that nothing beyond its first {@code mayWriteBytes}
     * bytes (nor before it) was written: every other byte of the allocation is still poison.
     */
    private MemorySegment downloadChecked(Arena arena, Guarded g, long mayWriteBytes, byte poison, String what) {
        MemorySegment all = download(arena, g.base(), g.allocationBytes());
        CustomScanOps.assertGuardsUntouched(what + " (byte " + GUARD_BYTES + " is out[0])", all, GUARD_BYTES, mayWriteBytes,
                poison);
        return all.asSlice(GUARD_BYTES, g.bytes());
    }

    /** Poisons {@code bytes} at out, runs call and returns those bytes as downloaded: nothing from before is read. */
    private MemorySegment afterPoisoned(Arena arena, long out, long bytes, Runnable call) {
        ctx.memset8(out, POISON, bytes);
        call.run();
        return download(arena, out, bytes);
    }

    /** offsets on the device {@code shift} longs into a new allocation, which it returns (the caller frees it). */
    private long uploadShifted(Arena arena, long[] offsets, int shift) {
        MemorySegment host = arena.allocate(8L * (offsets.length + shift), 8);
        for (int k = 0; k < shift; k++) host.setAtIndex(ValueLayout.JAVA_LONG, k, -1L);
        MemorySegment.copy(offsets, 0, host, ValueLayout.JAVA_LONG, 8L * shift, offsets.length);
        return upload(host);
    }

    /** host's bytes uploaded `pad` bytes into an allocation that ends where they do (upload, for pad 0). */
    private long uploadPadded(MemorySegment host, int pad) {
        if (pad == 0) return upload(host);
        long pointer = ctx.allocate(pad + host.byteSize());
        ctx.copyToDevice(pointer + pad, host, host.byteSize());
        return pointer;
    }

    private long upload(MemorySegment host) {
        long pointer = ctx.allocate(Math.max(host.byteSize(), 16));
        ctx.copyToDevice(pointer, host, host.byteSize());
        return pointer;
    }

    private MemorySegment download(Arena arena, long pointer, long bytes) {
        MemorySegment host = arena.allocate(Math.max(bytes, 1), 16);
        ctx.copyToHost(host, pointer, bytes);
        return host;
    }

    private static List<Long> longs(MemorySegment segment, int count) {
        Long[] values = new Long[count];
        for (int i = 0; i < count; i++) values[i] = segment.getAtIndex(ValueLayout.JAVA_LONG, i);
        return Arrays.asList(values);
    }

    /** Host data of one dtype with the Java reference of every operator. */
    private record Host(DType type, MemorySegment segment) {
        private static final double[] SPECIAL_FLOATS = {0.0, -0.0, 1.0, -1.0, 0.5, -2.0};  // and, one in 100, a NaN (nanBits)
        /** int8 ties, and the extremes that are also MIN's and MAX's identities. */
        private static final byte[] SPECIAL_BYTES = {Byte.MIN_VALUE, -3, -2, -1, 0, 1, 2, 3, Byte.MAX_VALUE};

        /** Random values; `special` draws many duplicates (and NaN, +-0.0 for floats) to test ties. */
        static Host random(Arena arena, DType type, long n, boolean special, Random random) {
            MemorySegment s = arena.allocate(type.layout(), Math.max(n, 1));
            for (long i = 0; i < n; i++) {
                switch (type) {
                    case BYTE -> s.set(ValueLayout.JAVA_BYTE, i, special ? SPECIAL_BYTES[random.nextInt(SPECIAL_BYTES.length)]
                            : (byte) random.nextInt());
                    case INT -> s.setAtIndex(ValueLayout.JAVA_INT, i, special ? random.nextInt(7) - 3 : random.nextInt());
                    case LONG -> s.setAtIndex(ValueLayout.JAVA_LONG, i,
                            special ? random.nextInt(7) - 3 : random.nextLong() >> 20);  // random signs: sums stay far below 2^63
                    case FLOAT -> {
                        if (special && random.nextInt(100) < 1) s.setAtIndex(ValueLayout.JAVA_INT, i, (int) nanBits(type, random));
                        else s.setAtIndex(ValueLayout.JAVA_FLOAT, i, (float) (special ? SPECIAL_FLOATS[random.nextInt(6)]
                                : random.nextDouble() * 2 - 1));
                    }
                    case DOUBLE -> {
                        if (special && random.nextInt(100) < 1) s.setAtIndex(ValueLayout.JAVA_LONG, i, nanBits(type, random));
                        else s.setAtIndex(ValueLayout.JAVA_DOUBLE, i, special ? SPECIAL_FLOATS[random.nextInt(6)]
                                : random.nextDouble() * 2 - 1);
                    }
                    default -> throw new IllegalArgumentException(type.toString());
                }
            }
            return new Host(type, s);
        }

        /**
         * A NaN of the type with a random sign and payload, quiet or signalling: results must still
         * come out as the canonical NaN (docs/semantics.md), which a kernel keeping an input NaN's
         * bits would not give.
         */
        static long nanBits(DType type, Random random) {
            if (type == DType.FLOAT) {
                long payload = 1 + random.nextInt(0x7fffff);
                return (random.nextBoolean() ? 0xff800000L : 0x7f800000L) | payload;
            }
            long payload = 1 + (random.nextLong() >>> 13);  // 1 .. 2^51, nonzero
            return (random.nextBoolean() ? 0xfff0000000000000L : 0x7ff0000000000000L) | payload;
        }

        /**
         * Values whose minimum and maximum over each range [offsets[s], offsets[s + 1]) of two or more
         * elements are unique and lie in its last 2% (a long row's last chunks, a long segment's last
         * work items), a quarter of the ranges ending on their maximum and a quarter on their minimum;
         * every other element, in a range or not, from an interval that excludes both. No NaN.
         */
        static Host planted(Arena arena, DType type, long n, long[] offsets, Random seed) {
            SplittableRandom random = new SplittableRandom(seed.nextLong());  // several times faster per value
            Host h = new Host(type, arena.allocate(type.layout(), Math.max(n, 1)));
            for (long i = 0; i < n; i++) h.put(i, 0, random);
            for (int s = 0; s + 1 < offsets.length; s++) {
                long end = offsets[s + 1], length = end - offsets[s];
                if (length < 2) continue;
                int tail = (int) Math.min(length, Math.max(2, length / 50));
                int maxBack = random.nextInt(tail), minBack = random.nextInt(tail - 1);  // from the range's last element
                if (minBack >= maxBack) minBack++;  // distinct
                switch (random.nextInt(4)) {
                    case 0 -> {  // the maximum last
                        if (minBack == 0) minBack = maxBack;
                        maxBack = 0;
                    }
                    case 1 -> {  // the minimum last
                        if (maxBack == 0) maxBack = minBack;
                        minBack = 0;
                    }
                    default -> {}
                }
                h.put(end - 1 - maxBack, 1, random);
                h.put(end - 1 - minBack, -1, random);
            }
            return h;
        }

        /**
         * AND (OR) operands that keep every range's result informative: all ones (zero) but for bit k
         * cleared (set) with probability 2^-(k+1), never the sign bit, so a long range still has high
         * bits undecided; and in three ranges of four, one element of its last 2% with the sign bit
         * cleared (set), which no other element of the range has. Full-range random data gives 0
         * (AND) or -1 (OR) within a few elements, so a kernel dropping a tail would pass on it.
         */
        static Host bitwise(Arena arena, DType type, long n, long[] offsets, Op op, Random seed) {
            SplittableRandom random = new SplittableRandom(seed.nextLong());
            Host h = new Host(type, arena.allocate(type.layout(), Math.max(n, 1)));
            int bits = 8 * type.byteSize();
            for (long i = 0; i < n; i++) {
                int k = Long.numberOfTrailingZeros(random.nextLong());
                long bit = k < bits - 1 ? 1L << k : 0;
                h.putBits(i, op == Op.AND ? ~bit : bit);
            }
            long sign = 1L << (bits - 1);
            for (int s = 0; s + 1 < offsets.length; s++) {
                long end = offsets[s + 1], length = end - offsets[s];
                if (length < 1 || random.nextInt(4) == 0) continue;
                long at = end - 1 - random.nextInt((int) Math.min(length, Math.max(1, length / 50)));
                h.putBits(at, op == Op.AND ? h.asLong(at) & ~sign : h.asLong(at) | sign);
            }
            return h;
        }

        private void putBits(long i, long bits) {
            switch (type) {
                case BYTE -> segment.set(ValueLayout.JAVA_BYTE, i, (byte) bits);
                case INT -> segment.setAtIndex(ValueLayout.JAVA_INT, i, (int) bits);
                default -> segment.setAtIndex(ValueLayout.JAVA_LONG, i, bits);
            }
        }

        /** Sets element i to a value of the ordinary range (side 0), above it (1) or below it (-1). */
        private void put(long i, int side, SplittableRandom random) {
            switch (type) {
                case BYTE -> segment.set(ValueLayout.JAVA_BYTE, i, (byte) (side == 0 ? random.nextInt(201) - 100  // [-100, 100]
                        : side > 0 ? 101 + random.nextInt(27) : -101 - random.nextInt(28)));           // to 127, to -128
                case INT -> segment.setAtIndex(ValueLayout.JAVA_INT, i, side == 0 ? random.nextInt(2_000_000_001) - 1_000_000_000
                        : side > 0 ? 1_000_000_001 + random.nextInt(1_147_483_647)     // to MAX_VALUE
                        : -1_000_000_001 - random.nextInt(1_147_483_647));             // to MIN_VALUE + 1
                case LONG -> segment.setAtIndex(ValueLayout.JAVA_LONG, i, side == 0 ? random.nextLong() >> 2  // [-2^61, 2^61)
                        : side > 0 ? (1L << 61) + (random.nextLong() >>> 2) : -(1L << 61) - 1 - (random.nextLong() >>> 2));
                default -> {
                    double v = side == 0 ? random.nextDouble() * 2 - 1 : side * (2 + random.nextDouble());  // [-1, 1]; beyond +-2
                    if (type == DType.FLOAT) segment.setAtIndex(ValueLayout.JAVA_FLOAT, i, (float) v);
                    else segment.setAtIndex(ValueLayout.JAVA_DOUBLE, i, v);
                }
            }
        }

        /** int32 values, most of them MAX_VALUE or MIN_VALUE (the extremes of every lift to a wider sum). */
        static Host extremeInts(Arena arena, long n, Random random) {
            MemorySegment s = arena.allocate(ValueLayout.JAVA_INT, Math.max(n, 1));
            for (long i = 0; i < n; i++) {
                int pick = random.nextInt(5);
                s.setAtIndex(ValueLayout.JAVA_INT, i, pick < 2 ? Integer.MAX_VALUE : pick < 4 ? Integer.MIN_VALUE : random.nextInt());
            }
            return new Host(DType.INT, s);
        }

        /**
         * Floats near 1 (products stay finite over a million factors); odd random integers (products
         * wrap, and an even factor's powers of two would soon leave only zero mod 2^64).
         */
        static Host forProduct(Arena arena, DType type, long n, Random random) {
            if (!type.isFloatingPoint()) {
                Host h = random(arena, type, n, false, random);
                for (long i = 0; i < n; i++) {
                    switch (type) {
                        case BYTE -> h.segment.set(ValueLayout.JAVA_BYTE, i, (byte) (h.segment.get(ValueLayout.JAVA_BYTE, i) | 1));
                        case INT -> h.segment.setAtIndex(ValueLayout.JAVA_INT, i, h.segment.getAtIndex(ValueLayout.JAVA_INT, i) | 1);
                        default -> h.segment.setAtIndex(ValueLayout.JAVA_LONG, i, h.segment.getAtIndex(ValueLayout.JAVA_LONG, i) | 1);
                    }
                }
                return h;
            }
            MemorySegment s = arena.allocate(type.layout(), Math.max(n, 1));
            for (long i = 0; i < n; i++) {
                double v = 1 + (random.nextDouble() - 0.5) * 0.02;
                if (type == DType.FLOAT) s.setAtIndex(ValueLayout.JAVA_FLOAT, i, (float) v);
                else s.setAtIndex(ValueLayout.JAVA_DOUBLE, i, v);
            }
            return new Host(type, s);
        }

        long asLong(long i) {
            return switch (type) {
                case BYTE -> segment.get(ValueLayout.JAVA_BYTE, i);
                case INT -> segment.getAtIndex(ValueLayout.JAVA_INT, i);
                default -> segment.getAtIndex(ValueLayout.JAVA_LONG, i);
            };
        }

        double asDouble(long i) {
            return type == DType.FLOAT ? segment.getAtIndex(ValueLayout.JAVA_FLOAT, i) : segment.getAtIndex(ValueLayout.JAVA_DOUBLE, i);
        }

        /** Integer results: exact (int64 SUM data never overflows here; PROD wraps as Java's long does). */
        long integral(Op op, long begin, long end) {
            long acc = switch (op) {
                case SUM, OR, XOR -> 0;
                case PROD -> 1;
                case AND -> -1;
                case MIN -> type == DType.BYTE ? Byte.MAX_VALUE : type == DType.INT ? Integer.MAX_VALUE : Long.MAX_VALUE;
                case MAX -> type == DType.BYTE ? Byte.MIN_VALUE : type == DType.INT ? Integer.MIN_VALUE : Long.MIN_VALUE;
            };
            for (long i = begin; i < end; i++) {
                long x = asLong(i);
                acc = switch (op) {
                    case SUM -> Math.addExact(acc, x);
                    case PROD -> acc * x;
                    case MIN -> Math.min(acc, x);
                    case MAX -> Math.max(acc, x);
                    case AND -> acc & x;
                    case OR -> acc | x;
                    case XOR -> acc ^ x;
                };
            }
            return acc;
        }

        /** MIN/MAX exactly (Math.min/max, bit for bit); SUM/PROD within floatBound of a compensated reference. */
        void checkFloating(Op op, long begin, long end, double actual, DType outType, String what) {
            boolean asFloat = outType == DType.FLOAT;
            if (op == Op.MIN || op == Op.MAX) {
                double acc = op == Op.MIN ? Double.POSITIVE_INFINITY : Double.NEGATIVE_INFINITY;
                for (long i = begin; i < end; i++) acc = op == Op.MIN ? Math.min(acc, asDouble(i)) : Math.max(acc, asDouble(i));
                boolean same = asFloat ? Float.floatToIntBits((float) acc) == Float.floatToIntBits((float) actual)
                        : Double.doubleToLongBits(acc) == Double.doubleToLongBits(actual);
                if (!same) fail(what + ": expected " + acc + " but was " + actual);
                return;
            }
            long n = end - begin;
            double expected, bound;
            if (op == Op.SUM) {
                double sum = 0, compensation = 0, absolute = 0;
                for (long i = begin; i < end; i++) {  // Neumaier
                    double x = asDouble(i), t = sum + x;
                    compensation += Math.abs(sum) >= Math.abs(x) ? (sum - t) + x : (x - t) + sum;
                    sum = t;
                    absolute += Math.abs(x);
                }
                expected = sum + compensation;
                bound = floatBound(n, absolute);
            } else {
                double product = 1;
                for (long i = begin; i < end; i++) product *= asDouble(i);
                expected = product;
                bound = floatBound(n, Math.abs(product));
            }
            if (asFloat) expected = (float) expected;
            double ulp = asFloat ? Math.ulp((float) expected) : Math.ulp(expected);
            if (!(Math.abs(actual - expected) <= bound + ulp)) {
                fail(what + ": expected " + expected + " +- " + (bound + ulp) + " but was " + actual);
            }
        }

        long argExtreme(long begin, long end, boolean max) {
            long best = -1;
            for (long i = begin; i < end; i++) {
                if (best < 0) {
                    best = i;
                    continue;
                }
                if (type.isFloatingPoint()) {
                    double x = asDouble(i), b = asDouble(best);
                    if (Double.isNaN(b)) continue;
                    if (Double.isNaN(x) || (max ? javaLess(b, x) : javaLess(x, b))) best = i;
                } else {
                    long x = asLong(i), b = asLong(best);
                    if (max ? x > b : x < b) best = i;
                }
            }
            return best < 0 ? -1 : best - begin;
        }

        private static boolean javaLess(double a, double b) {
            return a < b || (a == b && Double.doubleToRawLongBits(a) == Long.MIN_VALUE && Double.doubleToRawLongBits(b) != Long.MIN_VALUE);
        }
    }

    /**
     * The double accumulation error of n terms in any order: each of the n - 1 additions (or
     * multiplications) errs by at most 2^-53 of a partial result bounded by `magnitude`; twice that
     * covers the reference's own rounding. The caller adds one ulp of the output type for the final
     * rounding.
     */
    static double floatBound(long n, double magnitude) {
        return 2.0 * Math.max(n, 1) * EPS_DOUBLE * magnitude;
    }
}
