package dev.primer.gpu;

import dev.primer.DType;
import dev.primer.Op;
import dev.primer.Reductions;
import dev.primer.cuda.CudaContext;
import dev.primer.cuda.CudaKernel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import java.util.Objects;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongConsumer;

/**
 * Batched reduce (one result per row of a row-major matrix) and segmented reduce (one result per
 * CSR segment {@code values[offsets[s], offsets[s+1])}) on the GPU. Kernels: module
 * {@code segmented_reduce} ({@code device/segmented_reduce.cu}); kernel choice: {@link SegmentedReducePolicy}.
 *
 * <p>Output element type ({@link #outputType}) is the accumulator's, so that GPU and CPU agree:
 * int8 and int32 SUM and PROD give int64 (accumulated in 64 bits; PROD wraps like Java's long; an
 * int32 SUM over rows or segments that may hold more than 2^32 elements is accumulated in 128 bits,
 * and one that does not fit a long throws {@link ArithmeticException}, as int64 SUM does); int64
 * SUM is accumulated exactly in 128 bits and a result that does not fit a long throws
 * {@link ArithmeticException} naming the first such row or segment; int64 PROD wraps; float32 SUM
 * and PROD are accumulated in double and rounded to float32 once per result (so batched float
 * outputs are float32 arrays); float64 stays float64; MIN, MAX, AND, OR, XOR keep the input type
 * (MIN/MAX as Math.min/Math.max: NaN wins, -0.0 &lt; 0.0). Arg-extremes give int64 indices within
 * the row or segment: the first extreme, NaN counting as the extreme, -1 for an empty one.
 * An empty row (cols = 0) or segment gives the operator's identity (0, 1, MAX_VALUE / +Inf for MIN,
 * MIN_VALUE / -Inf for MAX, -1 for AND).
 *
 * <p>All pointers are device addresses. Offsets are int64, {@code segments + 1} of them, non-decreasing,
 * relative to {@code in} ({@code offsets[0]} may be non-zero), within {@code [0, inLength]} where
 * {@code inLength} is the number of elements of {@code in}. The order in which elements are
 * combined depends only on the shape, the offsets and the input address, never on timing, so results
 * are bitwise identical run to run (no float atomics).
 *
 * <p>Offsets are checked, like the CPU backend's, and bad ones throw {@link IllegalArgumentException}
 * naming {@code offsets}: {@code offsets[0] < 0}, {@code offsets[segments] < offsets[0]},
 * {@code offsets[segments] > inLength}, or any {@code offsets[s] > offsets[s+1]} ("not
 * non-decreasing"). The check runs first (in the one launch, before its grid barrier; else a
 * kernel of its own), and nothing behind it writes anything when it refused the offsets (past the
 * one launch's barrier every block finds the gate shut; routed calls launch nothing more; the
 * others' kernels find the gate shut), so {@code out} is left as it was, and so are the context
 * and the scratch (the flags are cleared). Behind the check every segment is still clamped into
 * {@code [offsets[0], offsets[segments]]} and the long-segment work queue never writes past its
 * capacity, so that not even offsets changed while the call runs make a kernel touch memory
 * outside {@code in}, {@code out}, {@code offsets} and the scratch. The offsets buffer itself must
 * hold {@code segments + 1} values. {@code out} must not share a byte with {@code in} (its
 * {@code rows * cols} or {@code inLength} elements) or the offsets: IllegalArgumentException naming
 * {@code out} or {@code offsets}.
 *
 * <p>Segments are reduced by the classic kernels (a lane, a warp or blocks per segment; where the
 * check finds none longer than 32, one kernel of a lane per segment, {@link #launchShort}) or by
 * the merge path (every thread the same number of steps whatever the lengths), as
 * {@link SegmentedReducePolicy} says. For every type and operator, the user-defined operators of
 * {@link GpuCustomSegmentedReduce} too, inputs whose merge path fits one wave of resident blocks, a
 * tile each, take it in one cooperative launch with the check ({@link #launchOneLaunch}); over
 * larger ones (int64 SUM aside) the offsets' check measures how unevenly the classic kernels would
 * share the work and picks, on the device, with the merge path mostly queued behind it already
 * ({@link #launchRouted}); int64 SUM takes the merge path over many short segments; 128-bit int32
 * SUM keeps the classic kernels.
 *
 * <p>Work is issued on the context's stream. A segmented call waits once: in one launch, for the
 * verdict its last block writes to pinned memory the host polls as the kernel ends; the routed
 * ones for the check's verdict, written the same way, and they return while the reduce runs; the
 * others (int64 SUM, 128-bit int32 SUM) at the end, a single small readback of the scratch
 * header for the offsets' flags and the overflow flag.
 * Batched rows wait only for the 128-bit sums. Calls from several threads on one context are safe:
 * each holds the context's scratch lock for this class while it uses the shared scratch.
 */
public final class GpuSegmentedReduce {
    private GpuSegmentedReduce() {}

    static final String MODULE = "segmented_reduce";
    private static final String SCRATCH_OWNER = "GpuSegmentedReduce";
    private static final Map<CudaKernel, Integer> BLOCKS_PER_SM = new ConcurrentHashMap<>();

    // Scratch header words of the segmented path beyond SegmentedReducePolicy's (overflow flag at 0,
    // counters at 8..24), as in device/segmented_reduce/scratch.cuh: malformed-offsets flags (int32) and the first decreasing
    // offset (int64, 2^63 - s). The whole header prefix up to HEADER_READ_BYTES is read back at once.
    // SegmentedReducePolicyTest checks these against device/segmented_reduce/policy.cuh.
    static final long MALFORMED_OFFSET = 24;
    static final long FIRST_DECREASE_OFFSET = 32;
    private static final int HEADER_READ_BYTES = 40;
    static final int BAD_BOUNDS = 1, DECREASING = 2, QUEUE_FULL = 4;
    /** Not a fault: the check routed the call to the classic kernels, shutting the merge path's gate alone. */
    static final int ROUTED_CLASSIC = 8;
    /** Not a fault, raised with ROUTED_CLASSIC: every segment is short, and segments_short's gate opens. */
    static final int ROUTED_SHORT = 16;
    /** The check's merge_path_idle_per_value for no route (it never raises ROUTED_CLASSIC). */
    private static final double NO_ROUTE = -1;
    /** The check's merge_path_idle_per_value that routes every call to the classic kernels. */
    private static final double ALWAYS_CLASSIC = Double.POSITIVE_INFINITY;
    /** Blocks of the offsets' check per SM at most (it grid-strides beyond). */
    private static final int CHECK_BLOCKS_PER_SM = 8;
    /** Routed calls clear the header's counters and flags, [8, 40), behind their launches. */
    private static final int ROUTED_CLEAR_WORDS = (int) (FIRST_DECREASE_OFFSET + 8 - SegmentedReducePolicy.COUNTERS_OFFSET) / 4;
    /** What the verdict's pinned words hold until the check writes them (no offset or count takes it). */
    private static final long VERDICT_POISON = 0x5E6D_F00D_7CAF_E000L;

    /** The element type of the results of {@code op} over {@code in}; IllegalArgumentException if unsupported. */
    public static DType outputType(DType in, Op op) {
        Objects.requireNonNull(in, "type");
        Objects.requireNonNull(op, "op");
        op.requireSupports(in, "op");
        return switch (op) {
            case SUM, PROD -> in == DType.BYTE || in == DType.INT ? DType.LONG : in;
            case MIN, MAX, AND, OR, XOR -> in;
        };
    }

    /** {@code out[r] = op over in[r * cols, (r + 1) * cols)} for r in [0, rows); out holds outputType elements. */
    public static void reduceRows(CudaContext ctx, DType type, Op op, long in, long rows, long cols, long out) {
        reduceRows(ctx, type, op, in, rows, cols, out, Reductions.INT_SUM_EXACT_ELEMENTS);
    }

    /**
     * As above, int32 SUM rows longer than {@code exactIntSumAbove} elements summed in 128 bits: the
     * public call passes 2^32 (the longest row a 64-bit sum always holds), tests pass 0 to reach the
     * 128-bit kernels at small shapes.
     */
    static void reduceRows(CudaContext ctx, DType type, Op op, long in, long rows, long cols, long out,
                           long exactIntSumAbove) {
        DType outType = outputType(type, op);
        checkRows(ctx, type, in, rows, cols, out, outType);
        if (rows == 0) return;
        boolean exact = exactIntSum(type, op, cols, exactIntSumAbove);
        launchRows(ctx, type, exact ? "sum_exact" : kernelOp(op), in, rows, cols, out, exact || checksOverflow(type, op));
    }

    /**
     * {@code out[s] = op over in[offsets[s], offsets[s+1])} for s in [0, segments); {@code inLength}:
     * the elements of {@code in}. Bad offsets throw IllegalArgumentException (see the class comment).
     */
    public static void reduceSegments(CudaContext ctx, DType type, Op op, long in, long offsets, long segments,
                                      long out, long inLength) {
        reduceSegments(ctx, type, op, in, offsets, segments, out, inLength, Reductions.INT_SUM_EXACT_ELEMENTS);
    }

    /**
     * As above, int32 SUM segments summed in 128 bits when {@code in} holds more than {@code
     * exactIntSumAbove} elements (no segment is longer; the kernels do not know the longest one
     * before they run). So over more than 2^32 elements every int32 SUM of segments takes the 128-bit
     * kernels, at half the blocks per SM for short segments. Tests pass 0.
     */
    static void reduceSegments(CudaContext ctx, DType type, Op op, long in, long offsets, long segments, long out,
                               long inLength, long exactIntSumAbove) {
        reduceSegments(ctx, type, op, in, offsets, segments, out, inLength, exactIntSumAbove, Route.AUTO);
    }

    /** As above, with the route forced where tests need both (see {@link Route}). */
    static void reduceSegments(CudaContext ctx, DType type, Op op, long in, long offsets, long segments, long out,
                               long inLength, long exactIntSumAbove, Route route) {
        DType outType = outputType(type, op);
        checkSegments(ctx, type, in, offsets, segments, out, outType, inLength);
        if (segments == 0) return;
        boolean exact = exactIntSum(type, op, inLength, exactIntSumAbove);
        launchSegments(ctx, type, exact ? "sum_exact" : kernelOp(op), in, offsets, segments, out, inLength,
                exact || checksOverflow(type, op), route);
    }

    /** {@code out[r]} = index within row r of its first maximum (max) or minimum, -1 if cols == 0; int64. */
    public static void argExtremeRows(CudaContext ctx, DType type, boolean max, long in, long rows, long cols,
                                      long out) {
        Objects.requireNonNull(type, "type");
        checkRows(ctx, type, in, rows, cols, out, DType.LONG);
        if (rows == 0) return;
        launchRows(ctx, type, max ? "argmax" : "argmin", in, rows, cols, out, false);
    }

    /**
     * {@code out[s]} = index within segment s of its first maximum (max) or minimum, -1 if empty; int64.
     * {@code inLength}: the elements of {@code in}; offsets are checked as for {@link #reduceSegments}.
     */
    public static void argExtremeSegments(CudaContext ctx, DType type, boolean max, long in, long offsets, long segments,
                                          long out, long inLength) {
        argExtremeSegments(ctx, type, max, in, offsets, segments, out, inLength, Route.AUTO);
    }

    /** As above, with the route forced where tests need both (see {@link Route}). */
    static void argExtremeSegments(CudaContext ctx, DType type, boolean max, long in, long offsets, long segments,
                                   long out, long inLength, Route route) {
        Objects.requireNonNull(type, "type");
        checkSegments(ctx, type, in, offsets, segments, out, DType.LONG, inLength);
        if (segments == 0) return;
        launchSegments(ctx, type, max ? "argmax" : "argmin", in, offsets, segments, out, inLength, false, route);
    }

    /**
     * How segments are reduced: as their size and offsets decide (AUTO: the one launch where its
     * tiles fit one wave, {@link #oneLaunchShape}; else, for routed recipes ({@link #routed}), the
     * offsets' check's verdict, {@link SegmentedReducePolicy#prefersMergePath}), or, for tests,
     * always behind the verdict by the classic kernels or by the merge path. int32 SUM in 128 bits,
     * which has no merge path, ignores it. int64 SUM takes the one launch as the others do;
     * CLASSIC and MERGE_PATH both send it behind the check, where its own rule
     * ({@link #takesMergePath}) picks.
     */
    enum Route { AUTO, CLASSIC, MERGE_PATH }

    // ---- launches ----
    //
    // The scratch buffer is the context's, shared by every thread and Primer on it, and all of them
    // issue on the one stream. Each call holds the owner's scratch lock from taking the pointer
    // (which may free and move the buffer when it grows) until its last launch or memset on it is
    // issued and its flags are read and cleared (rows: the 128-bit sums' overflow flag; segments: the
    // header with the offsets flags and the overflow flag): otherwise another thread's launches
    // could run between ours and take or overwrite our partials, work counters or flags.

    private static void launchRows(CudaContext ctx, DType type, String op, long in, long rows, long cols, long out,
                                   boolean checkOverflow) {
        int sms = ctx.device().multiprocessorCount();
        SegmentedReducePolicy.RowsPlan plan = SegmentedReducePolicy.rows(type, in, rows, cols, sms);
        long scratchBytes = SegmentedReducePolicy.rowsScratchBytes(plan, rows);
        int block = SegmentedReducePolicy.BLOCK_THREADS;
        synchronized (ctx.scratchLock(SCRATCH_OWNER)) {
            long scratch = ctx.scratch(SCRATCH_OWNER, scratchBytes);
            switch (plan.kernel()) {
                case GROUP -> kernel(ctx, plan.vectorized() ? "rows_vector" : "rows_scalar", op, type).launch(plan.grid(),
                        block, 0, in, rows, cols, plan.log2Lanes(), out, scratch);
                case WARP -> kernel(ctx, plan.log2Lanes() == 4 ? "rows_half_warp" : "rows_warp", op, type).launch(plan.grid(),
                        block, 0, in, rows, cols, out, scratch);
                case CHUNK -> {
                    kernel(ctx, "rows_chunk", op, type).launch(plan.grid(), SegmentedReducePolicy.CHUNK_BLOCK_THREADS, 0,
                            in, rows, cols, plan.chunksPerRow(), plan.chunkVectors(), out, scratch);
                    if (plan.needsCombine()) {
                        kernel(ctx, "rows_combine", op, type).launch(SegmentedReducePolicy.rowsCombineGrid(rows), block, 0,
                                rows, plan.chunksPerRow(), out, scratch);
                    }
                }
            }
            if (checkOverflow) checkOverflow(ctx, scratch, "row");
        }
    }

    private static void launchSegments(CudaContext ctx, DType type, String op, long in, long offsets, long segments,
                                       long out, long inLength, boolean checkOverflow, Route route) {
        if (hasMergePath(op) && launchOneLaunch(ctx, kernel(ctx, "one_launch", op, type), in, offsets, segments, out,
                inLength, SegmentedReducePolicy.mergePathTile(type), route)) {
            return;
        }
        if (routed(type, op)) {
            long tile = SegmentedReducePolicy.mergePathTile(type);
            launchRouted(ctx, offsets, segments, inLength, route, tile,
                    new ClassicLaunch(scratch -> launchShort(ctx, type, op, in, offsets, segments, out, inLength, scratch),
                            scratch -> launchClassic(ctx, type, op, in, offsets, segments, out, inLength, scratch)),
                    new MergePath(kernel(ctx, "merge_path", op, type), kernel(ctx, "merge_path_fixup", op, type), in, offsets,
                            segments, out, inLength, tile));
        } else if (takesMergePath(type, op, inLength, segments)) {
            launchMergePath(ctx, type, op, in, offsets, segments, out, inLength);
        } else {
            withSegmentsScratch(ctx, scratch -> launchClassic(ctx, type, op, in, offsets, segments, out, inLength, scratch),
                    offsets, segments, inLength, checkOverflow);
        }
    }

    /** The classic kernels' three launches on {@code scratch}: a warp per 32 segments, long ones queued. */
    private static void launchClassic(CudaContext ctx, DType type, String op, long in, long offsets, long segments,
                                      long out, long inLength, long scratch) {
        int block = SegmentedReducePolicy.BLOCK_THREADS;
        CudaKernel small = kernel(ctx, "segments_small", op, type);
        CudaKernel longPart = kernel(ctx, "segments_long", op, type);
        CudaKernel combine = kernel(ctx, "segments_combine", op, type);
        small.launch(SegmentedReducePolicy.segmentsSmallGrid(segments), block, 0, in, offsets, segments, inLength,
                out, scratch);
        longPart.launch(persistentGrid(ctx, longPart), block, 0, in, out, scratch);
        combine.launch(persistentGrid(ctx, combine), block, 0, offsets, segments, out, scratch);
    }

    /**
     * The classic route when the check found every segment short: segments_short alone, a lane per
     * segment at six to eight blocks per SM (segments_small's medium and long paths hold it to two
     * to four), and nothing queued for segments_long and segments_combine.
     */
    private static void launchShort(CudaContext ctx, DType type, String op, long in, long offsets, long segments,
                                    long out, long inLength, long scratch) {
        kernel(ctx, "segments_short", op, type).launch(SegmentedReducePolicy.segmentsSmallGrid(segments),
                SegmentedReducePolicy.BLOCK_THREADS, 0, in, offsets, segments, inLength, out, scratch);
    }

    /**
     * The classic route's launches on the call's scratch: {@code shortOnly} (segments_short alone,
     * which may be queued before the host has the verdict: its gate opens only on that route) or the
     * {@code threeKernels}, as the verdict says.
     */
    record ClassicLaunch(LongConsumer shortOnly, LongConsumer threeKernels) {
        void launch(long scratch, Verdict verdict) {
            if (verdict.allShort()) shortOnly.accept(scratch);
            else threeKernels.accept(scratch);
        }
    }

    /**
     * The merge path of one call, of any recipe, the user-defined operators' included
     * ({@link GpuCustomSegmentedReduce}): its two launches on a scratch behind the offsets' check that
     * found its splits for {@code tile}-step tiles ({@link #checkLaunch}), {@code walk} (a block per
     * tile, the kernel's own) and its {@code fixup}.
     */
    record MergePath(CudaKernel walk, CudaKernel fixup, long in, long offsets, long segments, long out, long inLength,
                     long tile) {
        void launch(long scratch, long tiles) {
            launchTiles(scratch, tiles);
            launchFixup(scratch, tiles);
        }

        void launchTiles(long scratch, long tiles) {
            walk.launch(tiles, SegmentedReducePolicy.BLOCK_THREADS, 0, in, offsets, segments, inLength, tiles, out, scratch);
        }

        void launchFixup(long scratch, long tiles) {
            int block = SegmentedReducePolicy.BLOCK_THREADS;
            fixup.launch(SegmentedReducePolicy.ceilDiv(tiles, block / 32), block, 0, offsets, segments, inLength, tile,
                    tiles, out, scratch);
        }
    }

    /** Whether the kernel op has a merge path (and so a one launch), over every type: all but int32 sum_exact. */
    static boolean hasMergePath(String op) {
        return !op.equals("sum_exact");
    }

    /**
     * Segments by the merge path in one cooperative launch ({@code segreduce_one_launch_*} or a
     * user-defined operator's {@code kernel}; {@code device/segmented_reduce/one_launch.cuh}): the
     * offsets' check and the merge path, a grid barrier between them, a block per tile of
     * {@link #oneLaunchShape}'s steps. The host waits for the verdict its last block writes to pinned
     * memory as it ends (no synchronize) and throws for bad offsets, with nothing written, or an
     * int64 SUM that does not fit a long; the kernel has put the scratch header back itself. Returns
     * false, launching nothing, when the tiles would not fit one wave or the route forces another
     * path.
     */
    static boolean launchOneLaunch(CudaContext ctx, CudaKernel kernel, long in, long offsets, long segments, long out,
                                   long inLength, long tile, Route route) {
        if (route != Route.AUTO) return false;
        OneLaunchShape shape = oneLaunchShape(ctx, kernel, inLength, segments, tile);
        if (shape == null) return false;
        synchronized (ctx.scratchLock(SCRATCH_OWNER)) {
            long scratch = ctx.scratch(SCRATCH_OWNER, Math.max(SegmentedReducePolicy.segmentsScratchBytes(),
                    SegmentedReducePolicy.mergePathScratchBytes(shape.tiles())));
            MemorySegment words = ctx.launchAndAwait(4, VERDICT_POISON, verdict -> kernel.launchCooperative(shape.tiles(),
                    SegmentedReducePolicy.BLOCK_THREADS, 0, in, offsets, segments, inLength, shape.items(), out, scratch,
                    verdict));
            long begin = words.get(ValueLayout.JAVA_LONG, 0), end = words.get(ValueLayout.JAVA_LONG, 8);
            long firstDecrease = words.get(ValueLayout.JAVA_LONG, 16), overflow = words.get(ValueLayout.JAVA_LONG, 24);
            if (begin < 0 || end < begin || end > inLength) throwBadEnds(segments, inLength, begin, end);
            if (firstDecrease != 0) throwDecreasing(ctx, offsets, firstDecrease);
            if (overflow != 0) throwOverflow(overflow, "segment");
        }
        return true;
    }

    /** The one launch's grid (a block per tile) and merge steps per thread. */
    record OneLaunchShape(long tiles, int items) {}

    /**
     * The one launch's shape for segments over {@code inLength} elements, given the merge path's
     * {@code tile} of steps ({@link SegmentedReducePolicy#oneLaunchItems}), or null when its tiles
     * would not fit one wave of {@code kernel}'s resident blocks
     * ({@link SegmentedReducePolicy#takesOneLaunch}).
     */
    static OneLaunchShape oneLaunchShape(CudaContext ctx, CudaKernel kernel, long inLength, long segments, long tile) {
        int block = SegmentedReducePolicy.BLOCK_THREADS;
        int items = SegmentedReducePolicy.oneLaunchItems(inLength + segments, ctx.device().multiprocessorCount(),
                (int) (tile / block));
        long tiles = SegmentedReducePolicy.mergePathTiles(inLength, segments, (long) block * items);
        return SegmentedReducePolicy.takesOneLaunch(tiles, persistentGrid(ctx, kernel)) ? new OneLaunchShape(tiles, items)
                : null;
    }

    /**
     * Whether the offsets' verdict picks the kernels: every operator over every type, but int64 SUM
     * (the merge path whenever it fits, read back at the end for its overflow flag) and int32 SUM in
     * 128 bits (classic: no merge path). See SegmentedReducePolicy. (Before that, the one launch
     * takes inputs that fit one wave: {@link #launchOneLaunch}.)
     */
    static boolean routed(DType type, String op) {
        return hasMergePath(op) && !(type == DType.LONG && op.equals("sum"));
    }

    /**
     * Routed segments: the offsets' check runs first and hands its verdict to the host (pinned
     * memory the host polls: no synchronize), which throws for bad offsets, with nothing written,
     * and otherwise returns without waiting for the reduce. The check also takes the route: the
     * merge path where its idle steps say ({@link SegmentedReducePolicy#prefersMergePath}, on the
     * device), else the classic kernels (or as {@code route} forces).
     *
     * <p>The likely route ({@link #guess}) is queued right behind the check, before the host has the
     * verdict, so the GPU does not idle through the host's round trip: segments_short alone where the
     * check last took that route on the same offsets, else the merge path's tile kernel where its
     * tiles, counted from {@code inLength}, stay few ({@link SegmentedReducePolicy#mergePathFits}),
     * unless the check last took the three classic kernels there. Either writes nothing unless the
     * check opens its gate (ROUTED_SHORT, or no flag at all); the tiles' fixup follows once the host
     * has the verdict, while they run. Otherwise, and where the guess was wrong, the host launches
     * the route once it has the verdict (the merge path then with tiles counted from the offsets'
     * range). A wrong guess costs the shut kernel's blocks: each tile loads the gate and leaves
     * (10.6 us over 13,900 tiles on an H200, partly hidden behind the host's round trip;
     * bench/results/2026-11-25-nvidia-h200-step74-ab.md); segments_short's warps load their offsets
     * beside the gate, so it costs a pass over the offsets.
     *
     * <p>The check's launch also finds the merge path's splits for tiles of {@code tile} steps, as
     * many as {@code inLength} could need (scratch is sized for them first), unless segments_short
     * was guessed: then a launch of the searches alone precedes a merge path the verdict names
     * ({@link #searchSplits}). Behind the classic kernels the flags (the route's too) and counters go
     * back to zero, so that a flag they could raise (the queue guard, for offsets changed while the
     * call runs) does not reach the next call. The user-defined operators' kernels
     * ({@link GpuCustomSegmentedReduce}) take this sequence too.
     */
    static void launchRouted(CudaContext ctx, long offsets, long segments, long inLength, Route route, long tile,
                             ClassicLaunch classic, MergePath mergePath) {
        synchronized (ctx.scratchLock(SCRATCH_OWNER)) {
            long tilesAtMost = SegmentedReducePolicy.mergePathTiles(inLength, segments, tile);
            long scratch = ctx.scratch(SCRATCH_OWNER, Math.max(SegmentedReducePolicy.segmentsScratchBytes(),
                    SegmentedReducePolicy.mergePathScratchBytes(tilesAtMost)));
            Guess guess = switch (route) {
                case AUTO -> guess(ctx, offsets, segments, inLength);
                case MERGE_PATH -> Guess.MERGE_PATH;
                case CLASSIC -> Guess.NONE;
            };
            Runnable queued = switch (guess) {
                case MERGE_PATH -> () -> mergePath.launchTiles(scratch, tilesAtMost);
                case SHORT -> () -> classic.shortOnly().accept(scratch);
                case NONE -> null;
            };
            boolean searched = guess != Guess.SHORT;  // segments_short needs no splits
            double rule = switch (route) {
                case AUTO -> SegmentedReducePolicy.MERGE_PATH_IDLE_PER_VALUE;
                case CLASSIC -> ALWAYS_CLASSIC;  // so that segments_short's gate opens where it is the route
                case MERGE_PATH -> NO_ROUTE;
            };
            Verdict verdict = checkOffsetsFirst(ctx, offsets, segments, inLength, scratch, searched ? tile : 0,
                    searched ? tilesAtMost : 0, rule, queued);
            if (route == Route.AUTO) {
                remember(ctx, new RouteTaken(offsets, segments, verdict.routedClassic(), verdict.allShort()));
            }
            boolean merge = route == Route.MERGE_PATH || route == Route.AUTO && !verdict.routedClassic();
            if (merge && guess == Guess.MERGE_PATH) {  // its gate open: the tiles are on their way
                mergePath.launchFixup(scratch, tilesAtMost);
                return;
            }
            try {
                if (merge) {  // fewer tiles than tilesAtMost (values <= inLength)
                    long tiles = SegmentedReducePolicy.mergePathTiles(verdict.values(), segments, tile);
                    if (!searched) searchSplits(ctx, offsets, segments, inLength, scratch, tile, tiles);
                    mergePath.launch(scratch, tiles);
                } else if (!(guess == Guess.SHORT && verdict.allShort())) {  // else its gate open: on its way
                    classic.launch(scratch, verdict);
                }
            } catch (RuntimeException e) {
                // A classic launch failed after others were issued: what they queued or flagged must not
                // reach the next call.
                if (!merge) {
                    try {
                        ctx.memset32(scratch + SegmentedReducePolicy.COUNTERS_OFFSET, 0, ROUTED_CLEAR_WORDS);
                    } catch (RuntimeException f) {
                        e.addSuppressed(f);
                    }
                }
                throw e;
            }
            // The merge path counts nothing and raises no flag: only the classic kernels leave a trace.
            if (!merge) ctx.memset32(scratch + SegmentedReducePolicy.COUNTERS_OFFSET, 0, ROUTED_CLEAR_WORDS);
        }
    }

    /** The route the offsets' check took on segments at {@code offsets} (a device address). */
    private record RouteTaken(long offsets, long segments, boolean classic, boolean allShort) {}

    /** What a routed call queues behind the check before it has the verdict. */
    private enum Guess { NONE, SHORT, MERGE_PATH }

    /** Each context's last RouteTaken of an AUTO routed call (guarded by itself). */
    private static final Map<CudaContext, RouteTaken> LAST_ROUTE = new WeakHashMap<>();

    /**
     * The likely route for these segments: the check's last route on this context where it was the
     * classic kernels' for the same offsets (address and count), since a workload reduces the same
     * segments again and again; segments_short alone is queued, the three kernels are not. Else the
     * merge path, where its tiles counted from {@code inLength} stay few. The guess changes only
     * the speed: the check routes.
     */
    private static Guess guess(CudaContext ctx, long offsets, long segments, long inLength) {
        RouteTaken last;
        synchronized (LAST_ROUTE) {
            last = LAST_ROUTE.get(ctx);
        }
        if (last != null && last.classic() && last.offsets() == offsets && last.segments() == segments) {
            return last.allShort() ? Guess.SHORT : Guess.NONE;
        }
        return SegmentedReducePolicy.mergePathFits(inLength, segments) ? Guess.MERGE_PATH : Guess.NONE;
    }

    private static void remember(CudaContext ctx, RouteTaken route) {
        synchronized (LAST_ROUTE) {
            LAST_ROUTE.put(ctx, route);
        }
    }

    /**
     * int64 SUM over many short CSR segments takes the merge path (see SegmentedReducePolicy). int32
     * SUM in 128 bits does not: its classic kernels read half the bytes and were faster on most
     * length distributions (bench/results/2026-11-22-nvidia-h200-lab.md).
     */
    static boolean takesMergePath(DType type, String op, long inLength, long segments) {
        return type == DType.LONG && op.equals("sum") && SegmentedReducePolicy.mergePathFits(inLength, segments);
    }

    /** int64 SUM's merge path, behind the offsets' check, and its readback (tiles from inLength). */
    private static void launchMergePath(CudaContext ctx, DType type, String op, long in, long offsets, long segments,
                                           long out, long inLength) {
        long tile = SegmentedReducePolicy.mergePathTile(type);
        long tiles = SegmentedReducePolicy.mergePathTiles(inLength, segments, tile);
        MergePath mergePath = new MergePath(kernel(ctx, "merge_path", op, type), kernel(ctx, "merge_path_fixup", op, type),
                in, offsets, segments, out, inLength, tile);
        withSegmentsScratch(ctx, SegmentedReducePolicy.mergePathScratchBytes(tiles),
                scratch -> mergePath.launch(scratch, tiles), offsets, segments, inLength, true, tile, tiles);
    }

    /**
     * What the offsets' check tells the host: the elements the segments cover, the classic kernels'
     * idle lane steps, whether it routed the call to them (raising ROUTED_CLASSIC), and how many of
     * the values lie in short segments (at most SHORT_SEGMENT long, a lane's to fold).
     */
    record Verdict(long values, long idleSteps, boolean routedClassic, long shortValues) {
        /** Whether no segment is longer than SHORT_SEGMENT (every value in a short one): segments_short alone. */
        boolean allShort() {
            return shortValues == values;
        }
    }

    /**
     * Launches the offsets' check (with {@code tile} &gt; 0, and the merge path's search for
     * {@code tiles} tiles; routing by {@code rule} unless it is {@link #NO_ROUTE}: {@link #checkLaunch}),
     * then {@code queueBehind} (null for none), and waits for the check's verdict (pinned words it
     * writes, no synchronize); bad offsets throw IllegalArgumentException, and so does a failure of
     * {@code queueBehind}'s launches, the header's flags cleared first. The caller holds the scratch
     * lock; {@code scratch} is the segmented path's.
     */
    private static Verdict checkOffsetsFirst(CudaContext ctx, long offsets, long segments, long inLength, long scratch,
                                             long tile, long tiles, double rule, Runnable queueBehind) {
        RuntimeException[] queueFailure = {null};
        MemorySegment words = ctx.launchAndAwait(6, VERDICT_POISON, verdict -> {
            checkLaunch(ctx, offsets, segments, inLength, scratch, verdict, tile, tiles, rule);
            if (queueBehind == null) return;
            try {
                queueBehind.run();
            } catch (RuntimeException e) {
                queueFailure[0] = e;  // thrown once the verdict is in: the check still writes the pinned words
            }
        });
        long begin = words.get(ValueLayout.JAVA_LONG, 0), end = words.get(ValueLayout.JAVA_LONG, 8);
        long firstDecrease = words.get(ValueLayout.JAVA_LONG, 16), idle = words.get(ValueLayout.JAVA_LONG, 24);
        boolean badEnds = begin < 0 || end < begin || end > inLength;
        if (badEnds || firstDecrease != 0 || queueFailure[0] != null) {
            try {
                ctx.memset32(scratch, 0, HEADER_READ_BYTES / 4);  // the flags the check raised
            } catch (RuntimeException f) {
                if (queueFailure[0] == null) throw f;
                queueFailure[0].addSuppressed(f);
            }
            if (queueFailure[0] != null) throw queueFailure[0];
            if (badEnds) throwBadEnds(segments, inLength, begin, end);
            throwDecreasing(ctx, offsets, firstDecrease);
        }
        return new Verdict(end - begin, idle, words.get(ValueLayout.JAVA_LONG, 32) != 0,
                words.get(ValueLayout.JAVA_LONG, 40));
    }

    /**
     * The offsets' verdict alone (tests: the idle steps against the host's count, the route against
     * {@link SegmentedReducePolicy#prefersMergePath}); the route's flag is cleared behind it.
     */
    static Verdict offsetsVerdict(CudaContext ctx, long offsets, long segments, long inLength) {
        synchronized (ctx.scratchLock(SCRATCH_OWNER)) {
            long scratch = ctx.scratch(SCRATCH_OWNER, SegmentedReducePolicy.segmentsScratchBytes());
            Verdict verdict = checkOffsetsFirst(ctx, offsets, segments, inLength, scratch, 0, 0,
                    SegmentedReducePolicy.MERGE_PATH_IDLE_PER_VALUE, null);
            ctx.memset32(scratch + MALFORMED_OFFSET, 0, 1);
            return verdict;
        }
    }

    /**
     * The offsets' check with the merge path's splits for tiles of {@code tile} steps (tests): poisons
     * the splits' place in scratch, copies into {@code splits} the tiles + 1 of them the merge path
     * would read, and returns the verdict.
     */
    static Verdict checkedSplits(CudaContext ctx, long offsets, long segments, long inLength, long tile,
                                 MemorySegment splits) {
        synchronized (ctx.scratchLock(SCRATCH_OWNER)) {
            long tilesAtMost = SegmentedReducePolicy.mergePathTiles(inLength, segments, tile);
            long scratch = ctx.scratch(SCRATCH_OWNER, Math.max(SegmentedReducePolicy.segmentsScratchBytes(),
                    SegmentedReducePolicy.mergePathScratchBytes(tilesAtMost)));
            ctx.memset8(scratch + SegmentedReducePolicy.HEADER_BYTES, (byte) 0xA5, 8 * (tilesAtMost + 1));
            Verdict verdict = checkOffsetsFirst(ctx, offsets, segments, inLength, scratch, tile, tilesAtMost, NO_ROUTE,
                    null);
            long tiles = SegmentedReducePolicy.mergePathTiles(verdict.values(), segments, tile);
            ctx.copyToHost(splits, scratch + SegmentedReducePolicy.HEADER_BYTES, 8 * (tiles + 1));
            return verdict;
        }
    }

    /**
     * Launches the offsets' check ({@code verdict}: pinned words, or 0) and, with {@code tile} &gt; 0,
     * the merge path's partition for {@code tiles} tiles of that many steps in the same launch: its
     * searcher blocks go first, as many as the kernel's merge_path_searchers counts
     * (device/segmented_reduce.cu, segreduce_check_offsets). The routed calls search whichever path
     * follows, unless they guess segments_short: on the classic route the searches are wasted (about
     * 1-4 us on uniform short segments).
     * With a {@code rule} (idle steps per value; {@link #NO_ROUTE} for none) the check takes the
     * route and raises ROUTED_CLASSIC for the classic kernels, which the caller clears behind them.
     */
    private static void checkLaunch(CudaContext ctx, long offsets, long segments, long inLength, long scratch,
                                    long verdict, long tile, long tiles, double rule) {
        long searchers = tile > 0 ? SegmentedReducePolicy.ceilDiv(tiles + 1, SegmentedReducePolicy.BLOCK_THREADS) : 0;
        ctx.module(MODULE).kernel("segreduce_check_offsets").launch(searchers + checkGrid(ctx, segments),
                SegmentedReducePolicy.BLOCK_THREADS, 0, offsets, segments, inLength, scratch, verdict, tile, tiles, rule);
    }

    /**
     * The merge path's splits for {@code tiles} tiles of {@code tile} steps alone: the check's launch
     * with its searcher blocks only, so nothing is checked and no verdict written (the check ran
     * before, without the searches).
     */
    private static void searchSplits(CudaContext ctx, long offsets, long segments, long inLength, long scratch,
                                     long tile, long tiles) {
        long searchers = SegmentedReducePolicy.ceilDiv(tiles + 1, SegmentedReducePolicy.BLOCK_THREADS);
        ctx.module(MODULE).kernel("segreduce_check_offsets").launch(searchers, SegmentedReducePolicy.BLOCK_THREADS, 0,
                offsets, segments, inLength, scratch, 0L, tile, tiles, NO_ROUTE);
    }

    /** The check's blocks: a thread per segment, at most CHECK_BLOCKS_PER_SM per SM (it grid-strides beyond). */
    private static long checkGrid(CudaContext ctx, long segments) {
        return Math.min(SegmentedReducePolicy.ceilDiv(segments, SegmentedReducePolicy.BLOCK_THREADS),
                (long) CHECK_BLOCKS_PER_SM * ctx.device().multiprocessorCount());
    }

    /**
     * Issues {@code launches} (given the scratch pointer) on the segmented path's scratch, under its
     * lock, then puts the work-item and long-segment counters back to zero for the next call. With
     * {@code offsets} (not 0), the offsets' check is launched first (its flags shut the gate every
     * kernel behind it loads: nothing is written for bad offsets), and the one synchronize of a
     * segmented call follows the launches: the check's flags (and, with {@code checkOverflow}, the
     * 128-bit sums' overflow flag) come back in one small readback of the header, cleared before
     * anything throws. Row segments (offsets 0) cannot be malformed: no check, no readback, nothing
     * waits. The user-defined operators' rows ({@link GpuCustomSegmentedReduce}) share the layout,
     * the scratch and this sequence.
     */
    static void withSegmentsScratch(CudaContext ctx, LongConsumer launches, long offsets, long segments, long inLength,
                                    boolean checkOverflow) {
        withSegmentsScratch(ctx, SegmentedReducePolicy.segmentsScratchBytes(), launches, offsets, segments, inLength,
                checkOverflow, 0, 0);
    }

    /**
     * As above with {@code scratchBytes} of scratch; with {@code tile} &gt; 0 the check's launch also
     * finds the merge path's splits of {@code tiles} tiles of that many steps.
     */
    private static void withSegmentsScratch(CudaContext ctx, long scratchBytes, LongConsumer launches, long offsets,
                                            long segments, long inLength, boolean checkOverflow, long tile, long tiles) {
        synchronized (ctx.scratchLock(SCRATCH_OWNER)) {
            long scratch = ctx.scratch(SCRATCH_OWNER, scratchBytes);
            try {
                if (offsets != 0) {  // no verdict: the header is read back at the end
                    checkLaunch(ctx, offsets, segments, inLength, scratch, 0L, tile, tiles, NO_ROUTE);
                }
                launches.accept(scratch);
            } catch (RuntimeException e) {
                // A launch failed after others were issued: what they queued or flagged must not reach the next call.
                try {
                    ctx.memset32(scratch, 0, HEADER_READ_BYTES / 4);  // the flags and the counters between them
                } catch (RuntimeException f) {
                    e.addSuppressed(f);
                }
                throw e;
            }
            ctx.memset32(scratch + SegmentedReducePolicy.COUNTERS_OFFSET, 0, SegmentedReducePolicy.COUNTER_WORDS);
            if (offsets != 0) checkHeader(ctx, scratch, offsets, segments, inLength, checkOverflow);
        }
    }

    /**
     * Reads the segmented path's header flags back (one readback, one synchronize) and throws for
     * malformed offsets (IllegalArgumentException) or, with {@code checkOverflow}, an int64 SUM that
     * does not fit a long (ArithmeticException). Any flag that is up is cleared first, so the next
     * call starts clean. The caller holds the scratch lock since its launches, so the flags are its own.
     */
    private static void checkHeader(CudaContext ctx, long scratch, long offsets, long segments, long inLength,
                                       boolean checkOverflow) {
        MemorySegment header = ctx.readback(scratch, HEADER_READ_BYTES);
        long overflow = header.get(ValueLayout.JAVA_LONG, SegmentedReducePolicy.OVERFLOW_FLAG_OFFSET);
        int malformed = header.get(ValueLayout.JAVA_INT, MALFORMED_OFFSET);
        long firstDecrease = header.get(ValueLayout.JAVA_LONG, FIRST_DECREASE_OFFSET);
        if (overflow == 0 && malformed == 0 && firstDecrease == 0) return;
        ctx.memset32(scratch, 0, HEADER_READ_BYTES / 4);
        if ((malformed & BAD_BOUNDS) != 0) {
            throwBadEnds(segments, inLength, readLong(ctx, offsets), readLong(ctx, offsets + 8 * segments));
        }
        if (firstDecrease != 0) throwDecreasing(ctx, offsets, firstDecrease);
        if (malformed != 0) {
            throw new IllegalArgumentException("offsets: not non-decreasing (overlapping segments overflow the"
                    + " long-segment work queue)");
        }
        if (checkOverflow && overflow != 0) throwOverflow(overflow, "segment");
    }

    /**
     * Throws IllegalArgumentException for offsets whose ends, {@code begin} = offsets[0] and
     * {@code end} = offsets[segments], are out of order or out of {@code [0, inLength]}.
     */
    private static void throwBadEnds(long segments, long inLength, long begin, long end) {
        if (begin < 0) throw new IllegalArgumentException("offsets: offsets[0] = " + begin + " is negative");
        if (end < begin) {
            throw new IllegalArgumentException("offsets: not non-decreasing: offsets[" + segments + "] = " + end
                    + " < offsets[0] = " + begin);
        }
        throw new IllegalArgumentException("offsets: offsets[" + segments + "] = " + end + " is beyond the "
                + inLength + " elements of in");
    }

    /** Throws IllegalArgumentException naming the first decreasing pair (2^63 - s, as the check marks it), read back. */
    private static void throwDecreasing(CudaContext ctx, long offsets, long firstDecrease) {
        long s = Long.MIN_VALUE - firstDecrease;
        MemorySegment pair = ctx.readback(offsets + 8 * s, 16);
        throw new IllegalArgumentException("offsets: not non-decreasing: offsets[" + s + "] = "
                + pair.get(ValueLayout.JAVA_LONG, 0) + " > offsets[" + (s + 1) + "] = "
                + pair.get(ValueLayout.JAVA_LONG, 8));
    }

    private static long readLong(CudaContext ctx, long pointer) {
        return ctx.readback(pointer, 8).get(ValueLayout.JAVA_LONG, 0);
    }

    /** As many blocks as fit on the device at once: the persistent kernels loop over their work. */
    static long persistentGrid(CudaContext ctx, CudaKernel kernel) {
        int perSm = BLOCKS_PER_SM.computeIfAbsent(kernel,
                k -> Math.max(1, k.maxActiveBlocksPerSm(SegmentedReducePolicy.BLOCK_THREADS, 0)));
        return (long) perSm * ctx.device().multiprocessorCount();
    }

    private static CudaKernel kernel(CudaContext ctx, String kind, String op, DType type) {
        return ctx.module(MODULE).kernel("segreduce_" + kind + "_" + op + "_" + type.kernelSuffix());
    }

    private static String kernelOp(Op op) {
        return switch (op) {
            case SUM -> "sum";
            case PROD -> "prod";
            case MIN -> "min";
            case MAX -> "max";
            case AND -> "and";
            case OR -> "or";
            case XOR -> "xor";
        };
    }

    private static boolean checksOverflow(DType type, Op op) {
        return type == DType.LONG && op == Op.SUM;
    }

    /**
     * Whether an int32 SUM over rows or segments of up to {@code longest} elements takes the 128-bit
     * kernels ({@code sum_exact}, with the overflow flag of int64 SUM): yes beyond {@code above}
     * elements. The public calls pass 2^32: a 64-bit sum of that many int32 values is always exact,
     * of more it may overflow.
     */
    private static boolean exactIntSum(DType type, Op op, long longest, long above) {
        return type == DType.INT && op == Op.SUM && longest > above;
    }

    /**
     * Reads and clears the overflow flag in {@code scratch}: 2^63 - (first overflowing index), or 0.
     * The caller holds the scratch lock since its launches, so the flag is its own.
     */
    private static void checkOverflow(CudaContext ctx, long scratch, String what) {
        long flag = ctx.readback(scratch + SegmentedReducePolicy.OVERFLOW_FLAG_OFFSET, 8).get(ValueLayout.JAVA_LONG, 0);
        if (flag == 0) return;
        ctx.memset32(scratch + SegmentedReducePolicy.OVERFLOW_FLAG_OFFSET, 0, 2);
        throwOverflow(flag, what);
    }

    /** Throws for a raised overflow flag (2^63 - first overflowing index). */
    private static void throwOverflow(long flag, String what) {
        long first = Long.MIN_VALUE - flag;
        throw new ArithmeticException("the sum overflows a long in " + what + " " + first
                + " (it is exact in 128 bits but does not fit the int64 output)");
    }

    // ---- argument checks ----

    /** The argument checks of a rows call (shared with {@link GpuCustomSegmentedReduce}): each names its argument. */
    static void checkRows(CudaContext ctx, DType type, long in, long rows, long cols, long out, DType outType) {
        Objects.requireNonNull(ctx, "ctx");
        if (rows < 0) throw new IllegalArgumentException("rows must be >= 0: " + rows);
        if (cols < 0) throw new IllegalArgumentException("cols must be >= 0: " + cols);
        long elements;
        try {
            elements = Math.multiplyExact(rows, cols);
            Math.multiplyExact(elements, (long) type.byteSize());
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("rows * cols overflows a long: " + rows + " * " + cols);
        }
        if (elements > 0) requirePointer(in, "in", type.byteSize());
        if (rows > 0) requirePointer(out, "out", outType.byteSize());
        requireApart(in, elements * type.byteSize(), out, rows * outType.byteSize(), "out: overlaps in");
    }

    /** The argument checks of a segments call (shared with {@link GpuCustomSegmentedReduce}); the offsets' values are the check kernel's. */
    static void checkSegments(CudaContext ctx, DType type, long in, long offsets, long segments, long out,
                              DType outType, long inLength) {
        Objects.requireNonNull(ctx, "ctx");
        if (segments < 0) throw new IllegalArgumentException("segments must be >= 0: " + segments);
        if (inLength < 0) throw new IllegalArgumentException("inLength must be >= 0: " + inLength);
        if (segments > SegmentedReducePolicy.MAX_GRID * 32 * SegmentedReducePolicy.WARPS_PER_BLOCK) {
            throw new IllegalArgumentException("segments: too many (" + segments + ")");
        }
        requirePointer(offsets, "offsets", 8);
        if (segments > 0) requirePointer(out, "out", outType.byteSize());
        // in may be 0 only when every segment is empty: nothing is read then.
        if (in % type.byteSize() != 0) {
            throw new IllegalArgumentException("in: device address 0x" + Long.toHexString(in)
                    + " is not aligned to the " + type.byteSize() + "-byte element");
        }
        long inBytes;
        try {
            inBytes = Math.multiplyExact(inLength, (long) type.byteSize());
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("inLength: " + inLength + " elements overflow a long in bytes");
        }
        long outBytes = segments * outType.byteSize();  // segments is bounded above
        requireApart(in, inBytes, out, outBytes, "out: overlaps in");
        requireApart(offsets, 8 * (segments + 1), out, outBytes, "offsets: overlaps out");
        if (segments == 0) checkLoneOffset(ctx, offsets, inLength);
    }

    /**
     * With no segments the kernels never run, so nothing else would look at offsets[0]: it must still
     * lie in [0, inLength], as the CPU backend checks (one 8-byte readback).
     */
    static void checkLoneOffset(CudaContext ctx, long offsets, long inLength) {
        long first = readLong(ctx, offsets);
        if (first < 0) throw new IllegalArgumentException("offsets: offsets[0] = " + first + " is negative");
        if (first > inLength) {
            throw new IllegalArgumentException("offsets: offsets[0] = " + first + " is beyond the " + inLength
                    + " elements of in");
        }
    }

    /**
     * Throws IllegalArgumentException({@code message}) when the byte ranges {@code [a, a + aBytes)} and
     * {@code [b, b + bBytes)} share a byte (empty ranges share none); unsigned, so no sum can wrap.
     */
    static void requireApart(long a, long aBytes, long b, long bBytes, String message) {
        boolean overlap = aBytes > 0 && bBytes > 0
                && (Long.compareUnsigned(b - a, aBytes) < 0 || Long.compareUnsigned(a - b, bBytes) < 0);
        if (overlap) throw new IllegalArgumentException(message);
    }

    private static void requirePointer(long pointer, String name, int alignment) {
        if (pointer == 0) throw new IllegalArgumentException(name + ": null device pointer");
        if (pointer % alignment != 0) {
            throw new IllegalArgumentException(name + ": device address 0x" + Long.toHexString(pointer)
                    + " is not aligned to the " + alignment + "-byte element");
        }
    }
}
