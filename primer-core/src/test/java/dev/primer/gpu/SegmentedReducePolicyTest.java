package dev.primer.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.primer.DType;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The segmented path's host-side choices: which sums take the merge path, and its grid and scratch (no GPU needed). */
class SegmentedReducePolicyTest {

    /** Only int64 SUM, and only over many short segments: a few segments over a large in keep the classic kernels. */
    @Test
    void theMergePathTakesOnlyManyShortSegmentsOfInt64Sums() {
        assertTrue(GpuSegmentedReduce.takesMergePath(DType.LONG, "sum", 64_000, 1000));
        assertFalse(GpuSegmentedReduce.takesMergePath(DType.INT, "sum_exact", 64_000, 1000));
        assertTrue(GpuSegmentedReduce.takesMergePath(DType.LONG, "sum", 0, 1));
        assertFalse(GpuSegmentedReduce.takesMergePath(DType.LONG, "sum", 64_001, 1000));  // in <= 64 * segments exactly
        assertFalse(GpuSegmentedReduce.takesMergePath(DType.LONG, "sum", Long.MAX_VALUE, Long.MAX_VALUE / 65));
        assertFalse(GpuSegmentedReduce.takesMergePath(DType.LONG, "sum", 1L << 30, 100));
        assertFalse(GpuSegmentedReduce.takesMergePath(DType.INT, "sum", 64_000, 1000));
        assertFalse(GpuSegmentedReduce.takesMergePath(DType.LONG, "max", 64_000, 1000));
        assertFalse(GpuSegmentedReduce.takesMergePath(DType.FLOAT, "sum", 64_000, 1000));
    }

    /**
     * The rows policy at the edges of each kernel's range (132 SMs, as an H200): groups of lanes up to
     * one vector per lane of a warp, 16-byte loads only where every row starts on 16 bytes, a warp per
     * row from the next column on while there are 32 rows per SM, else chunks that cover the row with
     * none empty. GpuSegmentedReduceTest checks the results at these shapes; this checks the choice.
     */
    @Test
    void theRowsPolicyChoosesEachKernelUpToItsEdge() {
        int sms = 132;
        long aligned = 1L << 20;
        for (DType type : DType.values()) {
            int vec = SegmentedReducePolicy.vectorItems(type);
            String t = type.toString();
            SegmentedReducePolicy.RowsPlan one = SegmentedReducePolicy.rows(type, aligned, 1000, 1, sms);
            assertEquals(SegmentedReducePolicy.RowsKernel.GROUP, one.kernel(), t);
            assertEquals(0, one.log2Lanes(), t + ": one vector, one lane");
            assertFalse(one.vectorized(), t + ": one element is not a whole vector");
            SegmentedReducePolicy.RowsPlan widest = SegmentedReducePolicy.rows(type, aligned, 1000, 32L * vec, sms);
            assertEquals(SegmentedReducePolicy.RowsKernel.GROUP, widest.kernel(), t);
            assertEquals(5, widest.log2Lanes(), t + ": a whole warp, one vector a lane");
            assertTrue(widest.vectorized(), t);
            assertEquals(4, SegmentedReducePolicy.rows(type, aligned, 1000, 16L * vec, sms).log2Lanes(), t + ": 16 vectors, 16 lanes");
            assertEquals(5, SegmentedReducePolicy.rows(type, aligned, 1000, 16L * vec + 1, sms).log2Lanes(), t + ": 17 vectors, 32 lanes");
            assertFalse(SegmentedReducePolicy.rows(type, aligned + type.byteSize(), 1000, 32L * vec, sms).vectorized(),
                    t + ": rows off a 16-byte boundary load scalars");
            if (vec > 1) {
                assertFalse(SegmentedReducePolicy.rows(type, aligned, 1000, 32L * vec - 1, sms).vectorized(),
                        t + ": a row length that is not whole vectors puts later rows off 16 bytes");
            }
            long manyRows = 32L * sms;
            SegmentedReducePolicy.RowsPlan warp = SegmentedReducePolicy.rows(type, aligned, manyRows, 32L * vec + 1, sms);
            assertEquals(SegmentedReducePolicy.RowsKernel.WARP, warp.kernel(), t + ": one column past the group's reach");
            assertEquals(4, warp.log2Lanes(), t + ": 513 bytes or so, a half-warp per row");
            assertEquals(SegmentedReducePolicy.ceilDiv(manyRows, 2 * SegmentedReducePolicy.WARPS_PER_BLOCK), warp.grid(),
                    t + ": two rows a warp");
            long halfWarpCols = SegmentedReducePolicy.HALF_WARP_MAX_ROW_BYTES / type.byteSize();
            assertEquals(4, SegmentedReducePolicy.rows(type, aligned, manyRows, halfWarpCols, sms).log2Lanes(), t + ": 1 KiB rows");
            SegmentedReducePolicy.RowsPlan whole = SegmentedReducePolicy.rows(type, aligned, manyRows, halfWarpCols + 1, sms);
            assertEquals(SegmentedReducePolicy.RowsKernel.WARP, whole.kernel(), t);
            assertEquals(5, whole.log2Lanes(), t + ": past 1 KiB, a warp per row");
            assertEquals(SegmentedReducePolicy.ceilDiv(manyRows, SegmentedReducePolicy.WARPS_PER_BLOCK), whole.grid(), t);
            assertEquals(SegmentedReducePolicy.RowsKernel.WARP,
                    SegmentedReducePolicy.rows(type, aligned, manyRows, SegmentedReducePolicy.WARP_MAX_COLS, sms).kernel(), t);
            assertEquals(SegmentedReducePolicy.RowsKernel.CHUNK,
                    SegmentedReducePolicy.rows(type, aligned, manyRows, SegmentedReducePolicy.WARP_MAX_COLS + 1, sms).kernel(), t);
            assertEquals(SegmentedReducePolicy.RowsKernel.CHUNK,
                    SegmentedReducePolicy.rows(type, aligned, manyRows - 1, 32L * vec + 1, sms).kernel(), t + ": too few rows for a warp each");
            for (long rows : new long[] {1, 2, 7, 527, 528, 5000, 1L << 40}) {
                for (long cols : new long[] {32L * vec + 1, 100_003, 1L << 20, (1L << 31) + 7}) {
                    if (Math.multiplyHigh(rows, cols) != 0 || rows * cols > 1L << 42) continue;
                    SegmentedReducePolicy.RowsPlan plan = SegmentedReducePolicy.rows(type, aligned + 4, rows, cols, 1);
                    if (plan.kernel() != SegmentedReducePolicy.RowsKernel.CHUNK) continue;
                    String at = t + " " + rows + " × " + cols + ": " + plan;
                    long rowVectors = SegmentedReducePolicy.ceilDiv(cols, vec);
                    assertEquals(0, plan.chunkVectors() % SegmentedReducePolicy.CHUNK_BLOCK_THREADS, at);
                    assertTrue(plan.chunksPerRow() * plan.chunkVectors() >= rowVectors, at + ": the chunks cover the row");
                    assertTrue((plan.chunksPerRow() - 1) * plan.chunkVectors() < rowVectors, at + ": no chunk is empty");
                    assertTrue(plan.chunksPerRow() == 1 || plan.chunkVectors() >= SegmentedReducePolicy.MIN_CHUNK_VECTORS, at);
                    assertTrue(plan.grid() >= 1 && plan.grid() <= SegmentedReducePolicy.MAX_GRID, at);
                    assertEquals(plan.chunksPerRow() > 1, plan.needsCombine(), at);
                }
            }
        }
        SegmentedReducePolicy.RowsPlan few = SegmentedReducePolicy.rows(DType.FLOAT, aligned, 2, 1L << 24, sms);
        assertEquals(SegmentedReducePolicy.RowsKernel.CHUNK, few.kernel());
        assertTrue(few.chunksPerRow() * 2 >= SegmentedReducePolicy.TARGET_BLOCKS_PER_SM * sms * 9 / 10,
                "two long rows fill the GPU (chunks rounded to whole blocks of vectors): " + few);
        SegmentedReducePolicy.RowsPlan many = SegmentedReducePolicy.rows(DType.FLOAT, aligned, 4L * sms, 1L << 16, sms);
        assertEquals(1, many.chunksPerRow(), "enough rows for the target: a block per row, no combine: " + many);
        assertFalse(many.needsCombine());
    }

    /** Enough tiles for every merge step, and the scratch layout of the .cuh: header, splits padded to 16, two slots a tile. */
    /** rows_vector loads one vector a lane: a group must have a lane for every vector of a row. */
    @Test
    void aGroupHasALaneForEveryVectorOfItsRows() {
        long aligned = 1L << 20;
        for (DType type : DType.values()) {
            int vec = 16 / type.byteSize();
            for (long cols = 0; cols <= 32L * vec; cols += vec) {
                SegmentedReducePolicy.RowsPlan plan = SegmentedReducePolicy.rows(type, aligned, 1000, cols, 132);
                assertEquals(SegmentedReducePolicy.RowsKernel.GROUP, plan.kernel(), type + " cols=" + cols);
                assertTrue(plan.vectorized(), type + " cols=" + cols);
                assertTrue((1L << plan.log2Lanes()) * vec >= cols, type + " cols=" + cols + ": " + plan);
                assertTrue(plan.log2Lanes() == 0 || (1L << (plan.log2Lanes() - 1)) * vec < cols, type + " cols=" + cols + ": the fewest lanes");
            }
        }
    }

    @Test
    void theMergePathGridAndScratchCoverEveryStep() {
        long tile = SegmentedReducePolicy.MERGE_PATH_TILE;
        assertEquals(256 * 13, tile);
        assertEquals(1, SegmentedReducePolicy.mergePathTiles(0, 1));
        assertEquals(1, SegmentedReducePolicy.mergePathTiles(tile - 1, 1));
        assertEquals(2, SegmentedReducePolicy.mergePathTiles(tile, 1));
        assertEquals(256 + 16 + 2 * 16, SegmentedReducePolicy.mergePathScratchBytes(1));
        assertEquals(256 + 32 + 2 * 2 * 16, SegmentedReducePolicy.mergePathScratchBytes(2));
        // Tiles by the values' width: 23 steps a thread for 4-byte values, 13 for 8-byte ones.
        assertEquals(256 * 23, SegmentedReducePolicy.mergePathTile(DType.FLOAT));
        assertEquals(256 * 23, SegmentedReducePolicy.mergePathTile(DType.INT));
        assertEquals(256 * 13, SegmentedReducePolicy.mergePathTile(DType.DOUBLE));
        assertEquals(tile, SegmentedReducePolicy.mergePathTile(DType.LONG));
        assertEquals(2, SegmentedReducePolicy.mergePathTiles(256 * 23 - 5, 6, 256 * 23));
        assertEquals(1, SegmentedReducePolicy.mergePathTiles(256 * 23 - 5, 5, 256 * 23));
    }

    /**
     * The route: the merge path beyond 1.5 idle lane steps per value (the power law's 2.6), the
     * classic kernels at or below (uniform short lengths 0.8-0.9, equal ones 0), and for no values.
     */
    @Test
    void theMergePathIsTakenWhereTheClassicLanesWouldIdle() {
        assertTrue(SegmentedReducePolicy.prefersMergePath(26, 10));
        assertTrue(SegmentedReducePolicy.prefersMergePath(151, 100));
        assertFalse(SegmentedReducePolicy.prefersMergePath(150, 100));
        assertFalse(SegmentedReducePolicy.prefersMergePath(9, 10));
        assertFalse(SegmentedReducePolicy.prefersMergePath(0, 10));
        assertFalse(SegmentedReducePolicy.prefersMergePath(0, 0));
        assertTrue(SegmentedReducePolicy.prefersMergePath(Long.MAX_VALUE, Long.MAX_VALUE / 2));
        // Before the verdict: the one launch while a block per tile fits one wave of resident blocks.
        assertTrue(SegmentedReducePolicy.takesOneLaunch(1, 396));
        assertTrue(SegmentedReducePolicy.takesOneLaunch(396, 396));
        assertFalse(SegmentedReducePolicy.takesOneLaunch(397, 396));
        // Its steps per thread: about a tile per SM (132 SMs, 256 threads), from 4 up to the merge path's 23.
        assertEquals(4, SegmentedReducePolicy.oneLaunchItems(1, 132, 23));
        assertEquals(4, SegmentedReducePolicy.oneLaunchItems(4 * 132 * 256, 132, 23));
        assertEquals(5, SegmentedReducePolicy.oneLaunchItems(4 * 132 * 256 + 1, 132, 23));
        assertEquals(10, SegmentedReducePolicy.oneLaunchItems(65536 * 4 + 45999, 132, 23));
        assertEquals(23, SegmentedReducePolicy.oneLaunchItems(23L * 132 * 256, 132, 23));
        assertEquals(23, SegmentedReducePolicy.oneLaunchItems(Long.MAX_VALUE / 2, 132, 23));
        assertEquals(13, SegmentedReducePolicy.oneLaunchItems(1L << 40, 132, 13));
    }

    /**
     * The host's copies of the kernels' constants agree with the .cuh (the merge path's tile above all:
     * a host tile larger than the kernels' would leave merge steps without a block).
     */
    @Test
    void theHostConstantsMatchTheKernels() throws IOException {
        Path device = Path.of("src/main/cuda/device");
        Assumptions.assumeTrue(Files.isDirectory(device), "the kernel source tree is not here (a bundled test run)");
        Map<String, Long> cuh = constants(device.resolve("segmented_reduce/policy.cuh"));
        cuh.putAll(constants(device.resolve("segmented_reduce_merge_path.cuh")));
        Map<String, Long> host = new HashMap<>();
        host.put("BLOCK_THREADS", (long) SegmentedReducePolicy.BLOCK_THREADS);
        host.put("CHUNK_BLOCK_THREADS", (long) SegmentedReducePolicy.CHUNK_BLOCK_THREADS);
        host.put("CHUNK_VECS_PER_THREAD", (long) SegmentedReducePolicy.CHUNK_VECS_PER_THREAD);
        host.put("ROWS_PER_GROUP_VECTOR", (long) SegmentedReducePolicy.ROWS_PER_GROUP_VECTOR);
        host.put("ROWS_PER_GROUP_SCALAR", (long) SegmentedReducePolicy.ROWS_PER_GROUP_SCALAR);
        host.put("SHORT_SEGMENT", SegmentedReducePolicy.SHORT_SEGMENT);
        host.put("LONG_CHUNK_MIN", SegmentedReducePolicy.LONG_CHUNK_MIN);
        host.put("MAX_CHUNKS", SegmentedReducePolicy.MAX_CHUNKS);
        host.put("CHUNK_ALIGN", SegmentedReducePolicy.CHUNK_ALIGN);
        host.put("ITEM_CHUNKS", SegmentedReducePolicy.ITEM_CHUNKS);
        host.put("MERGE_PATH_ITEMS", (long) SegmentedReducePolicy.MERGE_PATH_ITEMS);
        host.put("MERGE_PATH_ITEMS_NARROW", (long) SegmentedReducePolicy.MERGE_PATH_ITEMS_NARROW);
        host.put("IDLE_COUNTER_OFFSET", SegmentedReducePolicy.IDLE_COUNTER_OFFSET);
        host.put("CHECK_TICKET_OFFSET", SegmentedReducePolicy.CHECK_TICKET_OFFSET);
        host.put("ARRIVALS_OFFSET", SegmentedReducePolicy.ARRIVALS_OFFSET);
        host.put("SHORT_VALUES_OFFSET", SegmentedReducePolicy.SHORT_VALUES_OFFSET);
        host.put("SLOT_BYTES", SegmentedReducePolicy.SLOT_BYTES);
        host.put("HEADER_BYTES", SegmentedReducePolicy.HEADER_BYTES);
        host.put("OVERFLOW_FLAG_OFFSET", SegmentedReducePolicy.OVERFLOW_FLAG_OFFSET);
        host.put("ITEM_COUNT_OFFSET", SegmentedReducePolicy.COUNTERS_OFFSET);
        host.put("MALFORMED_OFFSET", GpuSegmentedReduce.MALFORMED_OFFSET);
        host.put("FIRST_DECREASE_OFFSET", GpuSegmentedReduce.FIRST_DECREASE_OFFSET);
        host.put("BAD_BOUNDS", (long) GpuSegmentedReduce.BAD_BOUNDS);
        host.put("DECREASING", (long) GpuSegmentedReduce.DECREASING);
        host.put("QUEUE_FULL", (long) GpuSegmentedReduce.QUEUE_FULL);
        host.put("ROUTED_CLASSIC", (long) GpuSegmentedReduce.ROUTED_CLASSIC);
        host.put("ROUTED_SHORT", (long) GpuSegmentedReduce.ROUTED_SHORT);
        host.forEach((name, value) -> assertEquals(cuh.get(name), value, name + " in the .cuh and on the host"));
    }

    /** The scans' host constants (ScanPolicy) against ScanPolicyConstants (device/scan/policy.cuh). */
    @Test
    void theScanHostConstantsMatchTheKernels() throws IOException {
        Path file = Path.of("src/main/cuda/device/scan/policy.cuh");
        Assumptions.assumeTrue(Files.isRegularFile(file), "the kernel source tree is not here (a bundled test run)");
        Map<String, Long> cuh = constants(file);
        Map<String, Long> host = new HashMap<>();
        host.put("VECTOR_BYTES", (long) ScanPolicy.VECTOR_BYTES);
        host.put("SCRATCH_HEADER_BYTES", (long) ScanPolicy.SCRATCH_HEADER_BYTES);
        host.put("STATUS_SLOT_BYTES", (long) ScanPolicy.STATUS_SLOT_BYTES);
        host.put("SEGMENT_STARTS_BLOCK", (long) ScanPolicy.SEGMENT_STARTS_BLOCK);
        host.put("SEGMENT_STARTS_LANES", (long) ScanPolicy.SEGMENT_STARTS_LANES);
        host.put("SEGMENT_HEAD_SLOTS", (long) ScanPolicy.SEGMENT_HEAD_SLOTS);
        host.forEach((name, value) -> assertEquals(cuh.get(name), value, name + " in scan/policy.cuh and on the host"));
    }

    private static final Pattern CONSTANT = Pattern.compile(
            "constexpr (?:int|unsigned|long long) (\\w+) = (\\d+)(?:LL << (\\d+))?;");

    /** The integer constants of a .cuh ({@code constexpr int NAME = 12;} or {@code = 1LL << 16;}). */
    private static Map<String, Long> constants(Path file) throws IOException {
        Map<String, Long> found = new HashMap<>();
        Matcher m = CONSTANT.matcher(Files.readString(file));
        while (m.find()) {
            long value = Long.parseLong(m.group(2));
            found.put(m.group(1), m.group(3) == null ? value : value << Integer.parseInt(m.group(3)));
        }
        return found;
    }
}
