package dev.primer.ladder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.primer.DType;
import dev.primer.cuda.Cuda;
import dev.primer.cuda.CudaContext;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The reduction ladder: naming, dispatch and sources on any machine; every step's answer on the GPU.
 *
 * <p>What "verified" means is the runner's check (see {@link ReduceLadderRunner}): int32 sums equal the
 * Java {@code int +=} wrap-around sum exactly; float32 sums lie within gamma(h) * sum|x| of a double
 * reference, h being the longest chain of float additions the step's launches make (u = 2^-24), and
 * repeat bit for bit (except float atomics/lock, whose order of additions varies).
 */
class ReduceLadderTest {

    // ------------------------------------------------------------------------------ no GPU needed

    @Test
    void parseAcceptsIdsAndNamesInAnyCase() {
        assertEquals(ReduceLadder.K5_UNROLL_LAST_WARP, ReduceLadder.parse("K5"));
        assertEquals(ReduceLadder.K5_UNROLL_LAST_WARP, ReduceLadder.parse("k5"));
        assertEquals(ReduceLadder.K5_UNROLL_LAST_WARP, ReduceLadder.parse("k5_unroll_last_warp"));
        assertEquals(ReduceLadder.SHFL_DOWN, ReduceLadder.parse("shfl_down"));
        assertEquals(ReduceLadder.SHFL_DOWN, ReduceLadder.parse(" Shfl-Down "));
        assertEquals(ReduceLadder.BATCHED_V2, ReduceLadder.parse("batched_v2"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ReduceLadder.parse("K8"));
        assertTrue(e.getMessage().contains("K7") && e.getMessage().contains("WARP_PARTIALS"), e.getMessage());
    }

    /**
     * The check every step's "verified" rests on (ReduceLadderRunner.Check): int32 exact, float32
     * within the bound of a tree of the given depth, and neither passes a sum that lost an element.
     */
    @Test
    void verifierAcceptsTheRightSumsAndFindsAMissingElement() {
        int n = 65_537;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ints = arena.allocate(4L * n), floats = arena.allocate(4L * n);
            SplittableRandom random = new SplittableRandom(11);
            int intSum = 0;
            float[] x = new float[n];
            int largest = 0;
            for (int i = 0; i < n; i++) {
                int v = random.nextInt();
                ints.setAtIndex(ValueLayout.JAVA_INT, i, v);
                intSum += v;  // wraps, as int32 on the GPU
                x[i] = (float) random.nextDouble(-1000, 1000);
                floats.setAtIndex(ValueLayout.JAVA_FLOAT, i, x[i]);
                if (Math.abs(x[i]) > Math.abs(x[largest])) largest = i;
            }
            var intRef = ReduceLadderRunner.Reference.of(ints, DType.INT, n);
            var floatRef = ReduceLadderRunner.Reference.of(floats, DType.FLOAT, n);
            double depth = 18;  // a pairwise tree over 65,537 elements: 17 levels, and one for the odd one
            assertTrue(ReduceLadderRunner.Check.of(DType.INT, intSum, intRef, n, depth).ok());
            int withoutOne = intSum - ints.getAtIndex(ValueLayout.JAVA_INT, n - 1);
            assertFalse(ReduceLadderRunner.Check.of(DType.INT, withoutOne, intRef, n, depth).ok());

            float tree = pairwiseSum(x, 0, n);
            var right = ReduceLadderRunner.Check.of(DType.FLOAT, Float.floatToRawIntBits(tree), floatRef, n, depth);
            assertTrue(right.ok(), right.detail());
            float missing = tree - x[largest];  // |x[largest]| is near 1000, the bound near 30
            var wrong = ReduceLadderRunner.Check.of(DType.FLOAT, Float.floatToRawIntBits(missing), floatRef, n, depth);
            assertFalse(wrong.ok(), wrong.detail());
            assertFalse(ReduceLadderRunner.Check.of(DType.FLOAT, Float.floatToRawIntBits(Float.NaN), floatRef, n, depth).ok());
        }
    }

    private static float pairwiseSum(float[] x, int from, int to) {
        if (to - from == 1) return x[from];
        int mid = (from + to) >>> 1;
        return pairwiseSum(x, from, mid) + pairwiseSum(x, mid, to);
    }

    @Test
    void everyIdIsUniqueAndParsesBack() {
        for (ReduceLadder step : ReduceLadder.values()) assertEquals(step, ReduceLadder.parse(step.id()));
    }

    @Test
    void k6AndK7DispatchOnBlockSizeLikeTheLectureSwitch() {
        for (int b = 1; b <= 1024; b *= 2) {
            assertEquals("reduce_k6_i32_b" + b, ReduceLadder.K6_COMPLETE_UNROLL.kernelName(DType.INT, b));
            assertEquals("reduce_k7_f32_b" + b, ReduceLadder.K7_MULTIPLE_ELEMENTS.kernelName(DType.FLOAT, b));
        }
        assertEquals("reduce_k1_i32", ReduceLadder.K1_INTERLEAVED_DIVERGENT.kernelName(DType.INT, 128));
        assertEquals("reduce_shfl_xor_f32", ReduceLadder.SHFL_XOR.kernelName(DType.FLOAT, 256));
        assertEquals("reduce_batched_v1_f32", ReduceLadder.BATCHED_V1.kernelName(DType.FLOAT, 256));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 3, 96, 100, 2048, -128})
    void nonPowerOfTwoBlockSizesAreRejectedByName(int blockSize) {
        for (ReduceLadder step : ReduceLadder.values()) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> step.kernelName(DType.INT, blockSize));
            assertTrue(e.getMessage().contains("blockSize"), e.getMessage());
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ReduceLadderRunner.checkArguments(DType.INT, 1000, blockSize, 1));
        assertTrue(e.getMessage().contains("blockSize") && e.getMessage().contains(Integer.toString(blockSize)),
                e.getMessage());
    }

    @Test
    void argumentsAreChecked() {
        assertThrows(IllegalArgumentException.class, () -> ReduceLadderRunner.checkArguments(DType.LONG, 10, 128, 1));
        assertThrows(IllegalArgumentException.class, () -> ReduceLadderRunner.checkArguments(DType.DOUBLE, 10, 128, 1));
        assertThrows(IllegalArgumentException.class, () -> ReduceLadderRunner.checkArguments(DType.INT, -1, 128, 1));
        assertThrows(IllegalArgumentException.class, () -> ReduceLadderRunner.checkArguments(DType.INT, 10, 128, 0));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ReduceLadderRunner.checkArguments(DType.INT, 10, 1, 1));
        assertTrue(e.getMessage().contains("blockSize"), e.getMessage());
        ReduceLadderRunner.checkArguments(DType.FLOAT, 0, 2, 1);
        ReduceLadderRunner.checkArguments(DType.INT, 1L << 40, 1024, 5);
    }

    @ParameterizedTest
    @EnumSource(ReduceLadder.class)
    void everyStepShowsItsOwnKernelSource(ReduceLadder step) {
        String source = ReduceLadderRunner.source(step);
        String function = step.sourceFile().replace(".cuh", "");
        assertTrue(source.contains("void " + function + "("), step + " source lacks " + function);
        assertTrue(source.contains("#pragma once"), step.sourceFile());
        assertTrue(step.story().length() > 80, step + " story is missing");
        // a helper an earlier step defined is printed beside the kernel that calls it
        for (String helper : new String[] {"grid_stride_pair_sum", "warp_reduce_shfl_down", "last_warp_reduce",
                "block_reduce_warp_partials"}) {
            if (source.contains(helper + "(")) {
                assertTrue(source.matches("(?s).*__device__[^;{]*\\b" + helper + "\\(.*"), step + " calls " + helper
                        + " without printing it");
            }
        }
    }

    @Test
    void lectureFiguresAreConsistent() {
        for (LectureFigures.Figure f : LectureFigures.G80.figures()) {
            double gbs = LectureFigures.G80.n() * 4 / (f.millis() * 1e-3) / 1e9;
            // the slides' times and bandwidths were rounded separately: agree within 1%
            assertEquals(f.gigabytesPerSecond(), gbs, 0.01 * gbs, f.stepId());
            ReduceLadder.parse(f.stepId());
        }
        assertTrue(LectureFigures.K40M.figure("K1").isPresent());
        assertTrue(LectureFigures.K40M.figure("K4").isEmpty());
    }

    @Test
    void floatBoundGrowsWithDepth() {
        assertEquals(0.0, ReduceLadderRunner.floatBound(10, 0, 0));
        assertTrue(ReduceLadderRunner.floatBound(20, 100, 1000) > ReduceLadderRunner.floatBound(10, 100, 1000));
        assertEquals(5.5, ReduceLadderRunner.median(new double[] {9, 1, 5, 6}));
        assertEquals(5.0, ReduceLadderRunner.median(new double[] {9, 1, 5}));
    }

    // ------------------------------------------------------------------------------ on the GPU

    @Nested
    class OnGpu {
        CudaContext ctx;

        @BeforeEach
        void gpu() {
            assumeTrue(Cuda.isAvailable(), () -> "no GPU: " + Cuda.unavailableReason());
            ctx = Cuda.context();
        }

        static Stream<Arguments> sizes() {
            List<Arguments> cases = new ArrayList<>();
            long[] ns = {0, 1, 31, 33, 1000, (1L << 20) + 1, 1L << 22};
            for (DType type : new DType[] {DType.INT, DType.FLOAT}) {
                for (int block : new int[] {128, 1024}) {
                    for (long n : ns) cases.add(Arguments.of(type, block, n));
                }
                // grids that are not powers of two for every step (K1: 11 blocks, K4-K6: 6)
                cases.add(Arguments.of(type, 128, 11L * 128 - 5));
                // blocks smaller than, equal to and twice a warp: partial-warp masks and the K5/K6 guards
                for (int block : new int[] {2, 8, 32, 64}) {
                    for (long n : new long[] {1, 33, 1000, 4097}) cases.add(Arguments.of(type, block, n));
                }
            }
            return cases.stream();
        }

        @ParameterizedTest(name = "{0} blockSize {1} n {2}")
        @MethodSource("sizes")
        void everyStepMatchesTheCpu(DType type, int blockSize, long n) {
            List<LadderStep> steps = ReduceLadderRunner.run(ctx, type, n, blockSize, 1, null);
            assertEquals(ReduceLadder.ladder().stream().map(ReduceLadder::id).toList(),
                    steps.stream().map(LadderStep::id).toList());
            assertAllVerified(steps);
            for (LadderStep s : steps) {
                assertEquals((double) n * 4, s.bytesMoved());
                assertTrue(s.millis() > 0, s.id() + " time " + s.millis());
            }
        }

        @Test
        void largeIntSumsWrapAroundExactly() {
            // 2^24 random ints sum far outside int range: the answer is the wrap-around sum, bit for bit.
            assertAllVerified(ReduceLadderRunner.run(ctx, DType.INT, (1L << 24) + 7, 256, 3, null));
        }

        @Test
        void aNonPowerOfTwoBlockIsRejected() {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> ReduceLadderRunner.run(ctx, DType.INT, 1000, 192, 1, null));
            assertTrue(e.getMessage().contains("blockSize"), e.getMessage());
        }

        @Test
        void aSubsetOfStepsRunsAndProgressIsReported() {
            List<String> lines = new ArrayList<>();
            List<LadderStep> steps = ReduceLadderRunner.run(ctx, DType.FLOAT, 100_000, 256, 5, lines::add,
                    List.of(ReduceLadder.K3_SEQUENTIAL, ReduceLadder.LOCK_FINISH));
            assertEquals(List.of("K3", "LOCK_FINISH"), steps.stream().map(LadderStep::id).toList());
            assertAllVerified(steps);
            assertEquals(3, lines.size(), String.join("\n", lines));
        }

        @Test
        void deviceMemoryIsReturned() {
            ReduceLadderRunner.run(ctx, DType.INT, 1000, 128, 1, null);  // modules loaded, pools warm
            long before = ctx.memoryInfo()[0];
            for (int i = 0; i < 3; i++) ReduceLadderRunner.run(ctx, DType.INT, 3_000_000, 128, 1, null);
            long after = ctx.memoryInfo()[0];
            assertTrue(after >= before - (32L << 20), "free memory fell from " + before + " to " + after);
        }

        static Stream<Arguments> shapes() {
            List<Arguments> cases = new ArrayList<>();
            long[][] shapes = {{1, 1}, {1, 0}, {3, 1000}, {7, 100_003}, {1000, 33}, {300, 4096}, {5000, 1}};
            for (DType type : new DType[] {DType.INT, DType.FLOAT}) {
                for (int block : new int[] {32, 256, 1024}) {
                    for (long[] s : shapes) cases.add(Arguments.of(type, block, s[0], s[1]));
                }
            }
            return cases.stream();
        }

        @ParameterizedTest(name = "{0} blockSize {1} rows {2} cols {3}")
        @MethodSource("shapes")
        void batchedKernelsMatchEveryRow(DType type, int blockSize, long rows, long cols) {
            List<LadderStep> steps = ReduceLadderRunner.runBatched(ctx, type, rows, cols, blockSize, 1, null);
            assertEquals(List.of("BATCHED_V1", "BATCHED_V2"), steps.stream().map(LadderStep::id).toList());
            assertAllVerified(steps);
        }

        @Test
        void batchedDefaultShapeRuns() {
            assertAllVerified(ReduceLadderRunner.runBatched(ctx, DType.FLOAT, ReduceLadderRunner.DEFAULT_BATCHED_ROWS,
                    ReduceLadderRunner.DEFAULT_BATCHED_COLS, 3, null));
        }
    }

    private static void assertAllVerified(List<LadderStep> steps) {
        String wrong = steps.stream().filter(s -> !s.verified())
                .map(s -> s.id() + ": " + s.note()).collect(Collectors.joining("\n"));
        assertTrue(wrong.isEmpty(), "steps not verified:\n" + wrong);
    }
}
