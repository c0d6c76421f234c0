package dev.primer.ladder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.primer.DType;
import dev.primer.cuda.Cuda;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The scan ladder: naming, sources and the verifier on any machine; every step's answer on the GPU,
 * every element checked (int32 exactly; float32 within the bound documented in {@link ScanLadderRunner}).
 */
class ScanLadderTest {

    // ------------------------------------------------------------------------------ no GPU needed

    @Test
    void parseAcceptsIdsInAnyCaseAndPositions() {
        assertEquals(ScanLadder.DECOUPLED_LOOKBACK, ScanLadder.parse("decoupled-lookback"));
        assertEquals(ScanLadder.DECOUPLED_LOOKBACK, ScanLadder.parse(" Decoupled Lookback "));
        assertEquals(ScanLadder.BLELLOCH_PADDED, ScanLadder.parse("BLELLOCH_PADDED"));
        assertEquals(ScanLadder.HILLIS_STEELE, ScanLadder.parse("1"));
        assertEquals(ScanLadder.DECOUPLED_LOOKBACK, ScanLadder.parse("7"));
        for (ScanLadder step : ScanLadder.values()) assertEquals(step, ScanLadder.parse(step.id()));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ScanLadder.parse("kogge"));
        assertTrue(e.getMessage().contains("CHAINED") && e.getMessage().contains("HILLIS_STEELE"), e.getMessage());
    }

    @Test
    void kernelNamesCarryTheDtypeSuffixInLaunchOrder() {
        assertEquals(List.of("scan_tiles_f32", "scan_tile_sums_f32", "scan_add_tile_sums_f32"),
                ScanLadder.SCAN_THEN_PROPAGATE.kernelNames(DType.FLOAT));
        assertEquals(List.of("scan_blelloch_padded_i32"), ScanLadder.BLELLOCH_PADDED.kernelNames(DType.INT));
        assertThrows(IllegalArgumentException.class, () -> ScanLadder.CHAINED.kernelNames(DType.DOUBLE));
    }

    @Test
    void blockLevelStepsScanTilesAndDeviceLevelStepsTheWholeArray() {
        for (ScanLadder step : ScanLadder.values()) {
            boolean device = step.ordinal() >= ScanLadder.SCAN_THEN_PROPAGATE.ordinal();
            assertEquals(device, step.isDeviceWide(), step.id());
            assertEquals(0, step.tileElements() % step.threadsPerBlock(), step.id());
        }
    }

    @ParameterizedTest
    @EnumSource(ScanLadder.class)
    void sourceIsPackedWithTheHelpersItIncludes(ScanLadder step) {
        String source = ScanLadderRunner.source(step);
        assertTrue(source.contains("What it costs"), step.id());
        if (step.isDeviceWide()) assertTrue(source.contains("// ---- ladder/scan_tile.cuh ----"), step.id());
        if (step == ScanLadder.BLELLOCH_PADDED) assertTrue(source.contains("scan_blelloch_tile"), step.id());
    }

    @ParameterizedTest
    @EnumSource(ScanLadder.class)
    void verifierAcceptsTheRightIntAnswerAndFindsAWrongOrSkippedElement(ScanLadder step) {
        long n = 3 * 4096 + 17;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment in = arena.allocate(4 * n), out = arena.allocate(4 * n);
            ScanLadderRunner.fillRandom(in, DType.INT, n);
            long tile = step.isDeviceWide() ? Long.MAX_VALUE : step.tileElements();
            int sum = 0;
            for (long i = 0; i < n; i++) {
                if (i % tile == 0) sum = 0;
                sum += in.getAtIndex(ValueLayout.JAVA_INT, i);
                out.setAtIndex(ValueLayout.JAVA_INT, i, sum);
            }
            assertNull(ScanLadderRunner.verifyInt(step, in, out, n));
            out.setAtIndex(ValueLayout.JAVA_INT, n - 1, -1);  // the poison: an element never written
            assertNotNull(ScanLadderRunner.verifyInt(step, in, out, n));
        }
    }

    @ParameterizedTest
    @EnumSource(ScanLadder.class)
    void floatBoundAcceptsRoundingButNotAMissingElement(ScanLadder step) {
        long n = 3 * 4096 + 17;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment in = arena.allocate(4 * n), out = arena.allocate(4 * n);
            ScanLadderRunner.fillRandom(in, DType.FLOAT, n);
            long tile = step.isDeviceWide() ? Long.MAX_VALUE : step.tileElements();
            float sum = 0;  // a sequential float scan: rounding chains far longer than any kernel's
            for (long i = 0; i < n; i++) {
                if (i % tile == 0) sum = 0;
                sum += in.getAtIndex(ValueLayout.JAVA_FLOAT, i);
                out.setAtIndex(ValueLayout.JAVA_FLOAT, i, sum);
            }
            assertNull(ScanLadderRunner.verifyFloat(step, in, out, n));
            long i = 1000;  // drop one element from a prefix: off by |x_i|
            float x = in.getAtIndex(ValueLayout.JAVA_FLOAT, i);
            in.setAtIndex(ValueLayout.JAVA_FLOAT, i, x + (x < 0 ? -0.25f : 0.25f));
            assertNotNull(ScanLadderRunner.verifyFloat(step, in, out, n));
            in.setAtIndex(ValueLayout.JAVA_FLOAT, i, x);
            out.setAtIndex(ValueLayout.JAVA_FLOAT, n - 1, Float.NaN);  // the poison
            assertNotNull(ScanLadderRunner.verifyFloat(step, in, out, n));
        }
    }

    @Test
    void medianOfEvenAndOddCounts() {
        assertEquals(2.0, ScanLadderRunner.median(new double[] {3, 1, 2}));
        assertEquals(2.5, ScanLadderRunner.median(new double[] {4, 1, 2, 3}));
    }

    // ------------------------------------------------------------------------------ on the GPU

    static Stream<Arguments> sizes() {
        long[] ns = {1, 31, 33, 1000, 4097, (1L << 20) + 1, (1L << 24) - 1};
        List<Arguments> cases = new ArrayList<>();
        for (DType type : new DType[] {DType.INT, DType.FLOAT}) {
            for (long n : ns) cases.add(Arguments.of(type, n));
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("sizes")
    void everyStepIsRightAtEveryElement(DType type, long n) {
        Assumptions.assumeTrue(Cuda.isAvailable(), () -> "no GPU: " + Cuda.unavailableReason());
        List<LadderStep> steps = ScanLadderRunner.run(Cuda.context(), type, n, 1, message -> {});
        assertEquals(ScanLadder.values().length, steps.size());
        for (int s = 0; s < steps.size(); s++) {
            LadderStep step = steps.get(s);
            assertEquals(ScanLadder.values()[s].id(), step.id());
            assertTrue(step.verified(), () -> step.id() + " " + type + " n=" + n + ": " + step.note());
            assertTrue(step.millis() > 0 && step.bytesMoved() == 2.0 * n * type.byteSize(), step::toString);
        }
    }
}
