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

    /** Enough tiles for every merge step, and the scratch layout of the .cuh: header, splits padded to 16, two slots a tile. */
    @Test
    void theMergePathGridAndScratchCoverEveryStep() {
        long tile = SegmentedReducePolicy.MERGE_PATH_TILE;
        assertEquals(256 * 13, tile);
        assertEquals(1, SegmentedReducePolicy.mergePathTiles(0, 1));
        assertEquals(1, SegmentedReducePolicy.mergePathTiles(tile - 1, 1));
        assertEquals(2, SegmentedReducePolicy.mergePathTiles(tile, 1));
        assertEquals(256 + 16 + 2 * 16, SegmentedReducePolicy.mergePathScratchBytes(1));
        assertEquals(256 + 32 + 2 * 2 * 16, SegmentedReducePolicy.mergePathScratchBytes(2));
    }

    /**
     * The host's copies of the kernels' constants agree with the .cuh (the merge path's tile above all:
     * a host tile larger than the kernels' would leave merge steps without a block).
     */
    @Test
    void theHostConstantsMatchTheKernels() throws IOException {
        Path device = Path.of("src/main/cuda/device");
        Assumptions.assumeTrue(Files.isDirectory(device), "the kernel source tree is not here (a bundled test run)");
        Map<String, Long> cuh = constants(device.resolve("segmented_reduce_kernels.cuh"));
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
        host.put("SLOT_BYTES", SegmentedReducePolicy.SLOT_BYTES);
        host.put("HEADER_BYTES", SegmentedReducePolicy.HEADER_BYTES);
        host.put("OVERFLOW_FLAG_OFFSET", SegmentedReducePolicy.OVERFLOW_FLAG_OFFSET);
        host.put("ITEM_COUNT_OFFSET", SegmentedReducePolicy.COUNTERS_OFFSET);
        host.put("MALFORMED_OFFSET", GpuSegmentedReduce.MALFORMED_OFFSET);
        host.put("FIRST_DECREASE_OFFSET", GpuSegmentedReduce.FIRST_DECREASE_OFFSET);
        host.put("BAD_BOUNDS", (long) GpuSegmentedReduce.BAD_BOUNDS);
        host.put("DECREASING", (long) GpuSegmentedReduce.DECREASING);
        host.put("QUEUE_FULL", (long) GpuSegmentedReduce.QUEUE_FULL);
        host.put("UNSORTED", (long) GpuSegmentedReduce.UNSORTED);
        host.forEach((name, value) -> assertEquals(cuh.get(name), value, name + " in the .cuh and on the host"));
    }

    /** The scans' host constants (ScanPolicy) against scan_kernels.cuh's ScanPolicyConstants. */
    @Test
    void theScanHostConstantsMatchTheKernels() throws IOException {
        Path file = Path.of("src/main/cuda/device/scan_kernels.cuh");
        Assumptions.assumeTrue(Files.isRegularFile(file), "the kernel source tree is not here (a bundled test run)");
        Map<String, Long> cuh = constants(file);
        Map<String, Long> host = new HashMap<>();
        host.put("VECTOR_BYTES", (long) ScanPolicy.VECTOR_BYTES);
        host.put("SCRATCH_HEADER_BYTES", (long) ScanPolicy.SCRATCH_HEADER_BYTES);
        host.put("STATUS_SLOT_BYTES", (long) ScanPolicy.STATUS_SLOT_BYTES);
        host.put("SEGMENT_STARTS_BLOCK", (long) ScanPolicy.SEGMENT_STARTS_BLOCK);
        host.put("SEGMENT_HEAD_SLOTS", (long) ScanPolicy.SEGMENT_HEAD_SLOTS);
        host.forEach((name, value) -> assertEquals(cuh.get(name), value, name + " in scan_kernels.cuh and on the host"));
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
