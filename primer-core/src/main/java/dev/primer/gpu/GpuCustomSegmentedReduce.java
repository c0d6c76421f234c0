package dev.primer.gpu;

import dev.primer.CustomOp;
import dev.primer.DType;
import dev.primer.cuda.CudaContext;
import dev.primer.cuda.CudaKernel;
import dev.primer.cuda.CudaModule;
import dev.primer.cuda.Nvrtc;

import java.util.Objects;

/**
 * Batched and segmented reduce with a user-defined operator: the order-preserving kernels of
 * {@code device/ordered_segmented_reduce_kernels.cuh} instantiated for the operator through NVRTC
 * and the merge path of {@code device/segmented_reduce_merge_path.cuh}, alone and in one launch
 * ({@code device/segmented_reduce/one_launch.cuh}); for segments all short the lane-per-segment
 * kernel of {@code device/segmented_reduce/segments.cuh}, and for short aligned rows the
 * lane-group-per-row kernel of {@code device/segmented_reduce/rows.cuh}, both in index order: one
 * source, thirteen entry points, compiled once and cached as {@link GpuCustomReduce#compile} says.
 * Each row or segment is folded in index order with an association fixed by the shape, the offsets
 * and the input address, so the operator need be associative only, and float results are the same
 * bits every run. An empty row or segment gives the identity.
 *
 * <p>The frame is the built-in segmented reduce's ({@link GpuSegmentedReduce}): the same scratch,
 * layout and launch sequences, the same offsets check first (bad offsets throw
 * {@link IllegalArgumentException} naming {@code offsets}, with nothing written). Inputs whose
 * merge path fits one wave of resident blocks, a tile each, take it in one launch with the check;
 * over larger ones the check picks the kernels (GpuSegmentedReduce.launchRouted): the classic ones
 * (a warp per 32 segments; long ones queued for persistent blocks; a combine; or, where the check
 * finds no segment longer than 32, a lane per segment alone) or, for heavy-tailed
 * lengths, the merge path (every thread the same number of steps; it keeps every combination in
 * index order, so it serves operators that do not commute). Rows, of one length, mostly take one kernel
 * ({@link #reduceRows} says which); only a few very long rows go through the long-segment queue.
 * Row calls do not wait.
 */
public final class GpuCustomSegmentedReduce {
    private GpuCustomSegmentedReduce() {}

    static final String SEGMENTS_SMALL = "primer_custom_segments_small";
    static final String SEGMENTS_SHORT = "primer_custom_segments_short";
    static final String ROWS_GROUP = "primer_custom_rows_group";
    static final String SEGMENTS_LONG = "primer_custom_segments_long";
    static final String SEGMENTS_COMBINE = "primer_custom_segments_combine";
    static final String ROWS_SMALL = "primer_custom_rows_small";
    static final String ROWS_COMBINE = "primer_custom_rows_combine";
    static final String ROWS_WARP = "primer_custom_rows_warp";
    static final String ROWS_HALF_WARP = "primer_custom_rows_half_warp";
    static final String ROWS_BLOCK = "primer_custom_rows_block";
    static final String MERGE_PATH = "primer_custom_merge_path";
    static final String MERGE_PATH_FIXUP = "primer_custom_merge_path_fixup";
    static final String ONE_LAUNCH = "primer_custom_one_launch";
    /**
     * Blocks per SM the register budget must allow: at most 80 registers a thread. (nvcc, 2026-11-21:
     * the test operators need 72-91 registers in the warp and block folds given 128, none spills at
     * 80, and 64 spills for the 8-byte ones.)
     */
    static final int MIN_BLOCKS = 3;

    /** The CUDA source of the thirteen entry points for {@code op}. */
    static String source(CustomOp op) {
        return GpuCustomReduce.RTC_PRELUDE + """
                #include "device/ordered_segmented_reduce_kernels.cuh"
                #include "device/segmented_reduce_merge_path.cuh"
                #include "device/segmented_reduce/merge_path_tile.cuh"
                #include "device/segmented_reduce/one_launch.cuh"
                """ + GpuCustomReduce.userOp(op) + """
                namespace seg = primer::segmented;
                using T = %1$s;
                using A = primer::OpValue<UserOp>;  // int for int8
                using Rc = seg::Recipe<T, A, T, UserOp>;
                constexpr int BLOCK = seg::Constants::BLOCK_THREADS;
                #define PRIMER_CUSTOM_BOUNDS __launch_bounds__(BLOCK, %8$d)
                #define PRIMER_SHORT_BOUNDS __launch_bounds__(BLOCK, seg::segments_short_blocks(sizeof(T)))
                #define PRIMER_HALF_WARP_BOUNDS __launch_bounds__(BLOCK, seg::OrderedConstants::half_warp_blocks(sizeof(T)))
                extern "C" __global__ void PRIMER_CUSTOM_BOUNDS
                %2$s(const T* __restrict__ in, const long long* __restrict__ offsets, long long nseg, long long in_length,
                     T* __restrict__ out, unsigned char* __restrict__ scratch) {
                    seg::ordered_segments_small<T, UserOp, BLOCK>(in, seg::OffsetStarts{offsets}, nseg, in_length, out, scratch);
                }
                extern "C" __global__ void PRIMER_CUSTOM_BOUNDS
                %3$s(const T* __restrict__ in, long long rows, long long cols, T* __restrict__ out,
                     unsigned char* __restrict__ scratch) {
                    seg::ordered_segments_small<T, UserOp, BLOCK>(in, seg::RowStarts{cols}, rows, rows * cols, out, scratch);
                }
                extern "C" __global__ void PRIMER_SHORT_BOUNDS
                %13$s(const T* __restrict__ in, const long long* __restrict__ offsets, long long nseg, long long in_length,
                      T* __restrict__ out, unsigned char* __restrict__ scratch) {
                    seg::segments_short<Rc, BLOCK>(in, offsets, nseg, in_length, out, scratch);
                }
                extern "C" __global__ void PRIMER_CUSTOM_BOUNDS
                %14$s(const T* __restrict__ in, long long rows, long long cols, int log2_lanes, T* __restrict__ out) {
                    seg::rows_group<Rc, true, seg::Constants::ROWS_PER_GROUP_VECTOR, BLOCK, true>(in, rows, cols, log2_lanes,
                                                                                               out, nullptr);
                }
                extern "C" __global__ void PRIMER_CUSTOM_BOUNDS
                %4$s(const T* __restrict__ in, T* __restrict__ out, unsigned char* __restrict__ scratch) {
                    seg::ordered_segments_long<T, UserOp, BLOCK>(in, out, scratch);
                }
                extern "C" __global__ void PRIMER_CUSTOM_BOUNDS
                %5$s(const long long* __restrict__ offsets, long long nseg, T* __restrict__ out,
                     unsigned char* __restrict__ scratch) {
                    seg::segments_combine<seg::Recipe<T, A, T, UserOp>, BLOCK, true>(seg::OffsetStarts{offsets}, nseg, out, scratch);
                }
                extern "C" __global__ void PRIMER_CUSTOM_BOUNDS
                %6$s(long long rows, long long cols, T* __restrict__ out, unsigned char* __restrict__ scratch) {
                    seg::segments_combine<seg::Recipe<T, A, T, UserOp>, BLOCK, true>(seg::RowStarts{cols}, rows, out, scratch);
                }
                extern "C" __global__ void PRIMER_CUSTOM_BOUNDS
                %7$s(const T* __restrict__ in, long long rows, long long cols, T* __restrict__ out) {
                    seg::ordered_rows_warp<T, UserOp, BLOCK>(in, rows, cols, out);
                }
                extern "C" __global__ void PRIMER_HALF_WARP_BOUNDS
                %15$s(const T* __restrict__ in, long long rows, long long cols, T* __restrict__ out) {
                    seg::ordered_rows_half_warp<T, UserOp, BLOCK>(in, rows, cols, out);
                }
                extern "C" __global__ void PRIMER_CUSTOM_BOUNDS
                %9$s(const T* __restrict__ in, long long cols, T* __restrict__ out) {
                    seg::ordered_rows_block<T, UserOp, BLOCK>(in, cols, out);
                }
                extern "C" __global__ void __launch_bounds__(BLOCK)
                %10$s(const T* __restrict__ in, const long long* __restrict__ offsets, long long nseg,
                      long long in_length, long long tiles, T* __restrict__ out, unsigned char* __restrict__ scratch) {
                    seg::merge_path_tile<Rc, BLOCK, seg::merge_path_items<T>()>(in, offsets, nseg, in_length, tiles,
                                                                                blockIdx.x, out, scratch);
                }
                extern "C" __global__ void __launch_bounds__(BLOCK)
                %11$s(const long long* __restrict__ offsets, long long nseg, long long in_length, long long tile_items,
                      long long tiles, T* __restrict__ out, unsigned char* __restrict__ scratch) {
                    seg::merge_path_fixup<Rc, BLOCK>(offsets, nseg, in_length, tile_items, tiles,
                                                     (long long)blockIdx.x * (BLOCK / 32), out, scratch);
                }
                extern "C" __global__ void PRIMER_CUSTOM_BOUNDS
                %12$s(const T* __restrict__ in, const long long* __restrict__ offsets, long long nseg,
                      long long in_length, int items, T* __restrict__ out, unsigned char* __restrict__ scratch,
                      unsigned long long* verdict) {
                    seg::merge_path_one_launch<Rc, BLOCK, seg::merge_path_items<T>()>(in, offsets, nseg, in_length, items,
                                                                                      out, scratch, verdict);
                }
                """.formatted(GpuCustomReduce.cudaType(op.type()), SEGMENTS_SMALL, ROWS_SMALL, SEGMENTS_LONG,
                SEGMENTS_COMBINE, ROWS_COMBINE, ROWS_WARP, MIN_BLOCKS, ROWS_BLOCK, MERGE_PATH, MERGE_PATH_FIXUP,
                ONE_LAUNCH, SEGMENTS_SHORT, ROWS_GROUP, ROWS_HALF_WARP);
    }

    /** The kernel {@code entry} for {@code op}, compiled once (NVRTC) with the other twelve. */
    static CudaKernel kernel(CudaContext ctx, CustomOp op, String entry) {
        return module(ctx, op).kernel(entry);
    }

    /**
     * The thirteen entry points' module for {@code op} (compiled once): a call takes it once and its
     * kernels from it, as building and looking up the source costs a few microseconds each time.
     */
    private static CudaModule module(CudaContext ctx, CustomOp op) {
        if (!Nvrtc.isAvailable()) throw new IllegalStateException(Nvrtc.unavailableReason());
        return GpuCustomReduce.module(ctx, "custom_segreduce_" + op.name(), source(op));
    }

    /**
     * {@code out[s] = in[offsets[s]] op ... op in[offsets[s+1] - 1]} (the identity when empty), s in
     * [0, segments); {@code inLength}: the elements of {@code in}; offsets as for
     * {@link GpuSegmentedReduce#reduceSegments} (checked; the host waits for the check's verdict, not
     * for the reduce); out holds {@code segments} elements of op.type() and must not overlap in or the
     * offsets.
     */
    public static void reduceSegments(CudaContext ctx, CustomOp op, long in, long offsets, long segments, long out,
                                      long inLength) {
        reduceSegments(ctx, op, in, offsets, segments, out, inLength, GpuSegmentedReduce.Route.AUTO);
    }

    /** As above, with the route forced where tests need both. */
    static void reduceSegments(CudaContext ctx, CustomOp op, long in, long offsets, long segments, long out,
                               long inLength, GpuSegmentedReduce.Route route) {
        Objects.requireNonNull(op, "op");
        DType type = op.type();
        GpuSegmentedReduce.checkSegments(ctx, type, in, offsets, segments, out, type, inLength);
        if (segments == 0) return;
        CudaModule module = module(ctx, op);
        long tile = SegmentedReducePolicy.mergePathTile(type);
        if (GpuSegmentedReduce.launchOneLaunch(ctx, module.kernel(ONE_LAUNCH), in, offsets, segments, out, inLength, tile,
                route)) {
            return;
        }
        int block = SegmentedReducePolicy.BLOCK_THREADS;
        GpuSegmentedReduce.launchRouted(ctx, offsets, segments, inLength, route, tile,
                new GpuSegmentedReduce.ClassicLaunch(
                        // a lane per segment alone, at twice the classic kernels' occupancy
                        scratch -> module.kernel(SEGMENTS_SHORT).launch(SegmentedReducePolicy.segmentsSmallGrid(segments),
                                block, 0, in, offsets, segments, inLength, out, scratch),
                        scratch -> {
                            CudaKernel longPart = module.kernel(SEGMENTS_LONG), combine = module.kernel(SEGMENTS_COMBINE);
                            module.kernel(SEGMENTS_SMALL).launch(SegmentedReducePolicy.segmentsSmallGrid(segments), block,
                                    0, in, offsets, segments, inLength, out, scratch);
                            longPart.launch(GpuSegmentedReduce.persistentGrid(ctx, longPart), block, 0, in, out, scratch);
                            combine.launch(GpuSegmentedReduce.persistentGrid(ctx, combine), block, 0, offsets, segments,
                                    out, scratch);
                        }),
                new GpuSegmentedReduce.MergePath(module.kernel(MERGE_PATH), module.kernel(MERGE_PATH_FIXUP), in, offsets,
                        segments, out, inLength, tile));
    }

    /**
     * {@code out[r] = in[r * cols] op ... op in[r * cols + cols - 1]} (the identity when cols = 0), r in
     * [0, rows); out holds {@code rows} elements of op.type() and must not overlap in. Issued on the
     * context's stream; does not wait. The kernel, as the built-in rows policy
     * ({@link SegmentedReducePolicy#rows}) would choose it for long rows:
     * <ul>
     *   <li>a group of lanes per row, a 16-byte vector each, combined in lane order, where every row is
     *       16-byte aligned (an aligned input, cols a multiple of the vector) and at most 32 vectors long
     *       (the built-in policy's vectorized GROUP plan);</li>
     *   <li>a lane per row up to {@link SegmentedReducePolicy#SHORT_SEGMENT} columns (the small kernel);</li>
     *   <li>a warp per row up to C ({@link SegmentedReducePolicy#longChunkLength}) columns, or up to
     *       {@link SegmentedReducePolicy#WARP_MAX_COLS} while there are enough rows to fill the GPU with warps;
     *       a half-warp per row for rows of at most {@link SegmentedReducePolicy#HALF_WARP_MAX_ROW_BYTES}
     *       (two rows reduce together, four shuffle rounds for both);</li>
     *   <li>a block per row while there are enough rows to fill it with blocks (one launch of {@code rows} blocks);</li>
     *   <li>otherwise (few, very long rows) every row queued as long segments are, the pieces combined in order.</li>
     * </ul>
     */
    public static void reduceRows(CudaContext ctx, CustomOp op, long in, long rows, long cols, long out) {
        Objects.requireNonNull(op, "op");
        DType type = op.type();
        GpuSegmentedReduce.checkRows(ctx, type, in, rows, cols, out, type);
        if (rows == 0) return;
        if (rows > SegmentedReducePolicy.MAX_GRID * 32 * SegmentedReducePolicy.WARPS_PER_BLOCK) {
            throw new IllegalArgumentException("rows: too many (" + rows + ")");
        }
        long n = rows * cols;  // checkRows: fits a long, in bytes too
        int block = SegmentedReducePolicy.BLOCK_THREADS;
        int sms = ctx.device().multiprocessorCount();
        SegmentedReducePolicy.RowsPlan group = SegmentedReducePolicy.rows(type, in, rows, cols, sms);
        if (group.kernel() == SegmentedReducePolicy.RowsKernel.GROUP && group.vectorized()) {
            module(ctx, op).kernel(ROWS_GROUP).launch(group.grid(), block, 0, in, rows, cols, group.log2Lanes(), out);
            return;
        }
        boolean shortRows = cols <= SegmentedReducePolicy.SHORT_SEGMENT;
        if (!shortRows && (cols <= SegmentedReducePolicy.longChunkLength(n) || cols <= SegmentedReducePolicy.WARP_MAX_COLS
                && rows >= SegmentedReducePolicy.WARP_MIN_ROWS_PER_SM * sms)) {
            int log2Lanes = SegmentedReducePolicy.warpLog2Lanes(type, cols);
            module(ctx, op).kernel(log2Lanes == 4 ? ROWS_HALF_WARP : ROWS_WARP)
                    .launch(SegmentedReducePolicy.warpGrid(rows, log2Lanes), block, 0, in, rows, cols, out);
            return;
        }
        if (!shortRows && rows >= SegmentedReducePolicy.TARGET_BLOCKS_PER_SM * sms && rows <= SegmentedReducePolicy.MAX_GRID) {
            module(ctx, op).kernel(ROWS_BLOCK).launch(rows, block, 0, in, cols, out);
            return;
        }
        // Short rows (a lane each, no queue) or few long ones (every row queued): the segments' sequence.
        CudaModule module = module(ctx, op);
        CudaKernel small = module.kernel(ROWS_SMALL);
        CudaKernel longPart = module.kernel(SEGMENTS_LONG);
        CudaKernel combine = module.kernel(ROWS_COMBINE);
        long longGrid = GpuSegmentedReduce.persistentGrid(ctx, longPart);
        long combineGrid = GpuSegmentedReduce.persistentGrid(ctx, combine);
        GpuSegmentedReduce.withSegmentsScratch(ctx, scratch -> {
            small.launch(SegmentedReducePolicy.segmentsSmallGrid(rows), block, 0, in, rows, cols, out, scratch);
            if (!shortRows) {
                longPart.launch(longGrid, block, 0, in, out, scratch);
                combine.launch(combineGrid, block, 0, rows, cols, out, scratch);
            }
        }, 0, rows, n, false);
    }
}
