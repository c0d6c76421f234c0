package dev.primer.cli.bench;

import dev.primer.DType;

import java.util.ArrayList;
import java.util.List;

/**
 * The float32 sum, inclusive sum scan and sum scan by offsets of the reduce and scan groups at
 * smaller sizes, 2^16, 2^20 and 2^24 elements (by offsets twice: segments over the whole arrays,
 * and over all but their first and last element, where the scan queued before the verdict
 * misses), and the segments group's float32 and int8 sums over power-law segments (Java's, of that
 * many values), where what a call costs besides moving its bytes (launches, passes over the data, a
 * library's own work per call, the offsets' check) weighs as much as bandwidth. Measured as those groups measure (one call between two events, the median of
 * the timed calls, buffers rotated so the working set exceeds L2, every result checked);
 * bench/baselines.py times CuPy and PyTorch at the same sizes under the same names (the sums and
 * scans: neither has a scan by offsets nor, at these sizes, the segments). No targets: these rows show where Primer stands, not a goal.
 */
final class SizesBench {
    static final String GROUP = "sizes";
    /** log2 of the sizes; baselines.py's SIZES_LOG2 names the same rows. */
    static final int[] SIZES_LOG2 = {16, 20, 24};

    private SizesBench() {}

    static List<BenchRecord> run(BenchSetup s) {
        List<BenchRecord> out = new ArrayList<>();
        for (int log2 : SIZES_LOG2) {
            long n = 1L << log2;
            out.add(ReduceBench.sumFloat(s, GROUP, "sum_f32_2^" + log2, n));
            out.add(ScanBench.cumsumFloat(s, GROUP, "cumsum_f32_2^" + log2, n));
            out.add(ScanBench.byOffsetsFloat(s, GROUP, "segscan_offsets_f32_2^" + log2, n));
            out.add(ScanBench.byInnerOffsetsFloat(s, GROUP, "segscan_offsets_inner_f32_2^" + log2, n));
            out.add(SegmentsBench.powerLaw(s, GROUP, "segments_sum_f32_powerlaw_2^" + log2, DType.FLOAT, n));
            out.add(SegmentsBench.powerLaw(s, GROUP, "segments_sum_i8_powerlaw_2^" + log2, DType.BYTE, n));
        }
        return out;
    }
}
