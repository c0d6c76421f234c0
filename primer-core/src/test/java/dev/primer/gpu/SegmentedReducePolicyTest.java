package dev.primer.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.primer.DType;
import org.junit.jupiter.api.Test;

/** The segmented path's host-side choices: which sums take the merge path, and its grid and scratch (no GPU needed). */
class SegmentedReducePolicyTest {

    /** Only the 128-bit sums, and only over many short segments: a few segments over a large in keep the classic kernels. */
    @Test
    void theMergePathTakesOnlyManyShortSegmentsOfTheWideSums() {
        assertTrue(GpuSegmentedReduce.takesMergePath(DType.LONG, "sum", 64_000, 1000));
        assertTrue(GpuSegmentedReduce.takesMergePath(DType.INT, "sum_exact", 64_000, 1000));
        assertTrue(GpuSegmentedReduce.takesMergePath(DType.LONG, "sum", 0, 1));
        assertFalse(GpuSegmentedReduce.takesMergePath(DType.LONG, "sum", 64_064, 1000));
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
}
