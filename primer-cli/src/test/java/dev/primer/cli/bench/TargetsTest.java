package dev.primer.cli.bench;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Read-bandwidth targets are judged against the read kernel, copy-bandwidth targets against the copy. */
class TargetsTest {
    /** A sum_f32 record at {@code gbps}: 1e9 bytes in 1e3 / gbps ms. */
    private static BenchRecord sum(double gbps) {
        return new BenchRecord("reduce", "sum_f32", "float32", "268435456", 1L << 28, 1e9, 1e3 / gbps, 1e3 / gbps, 20,
                true, "", null);
    }

    private static BenchRecord cumsum(double gbps) {
        return new BenchRecord("scan", "cumsum_f32", "float32", "268435456", 1L << 28, 1e9, 1e3 / gbps, 1e3 / gbps, 20,
                true, "", null);
    }

    @Test
    void readTargetsUseTheReadBandwidthNotTheCopy() {
        // 4400 GB/s: 104% of a 4230 GB/s copy, but 96.5% of a 4560 GB/s read: missed.
        Targets.Verdict v = Targets.judge(sum(4400), lib -> 1.10, 4230, 4560);
        assertEquals("≥ 1.05× cupy, ≥ 97% read bw", v.target());
        assertEquals("missed: 96.5% of read bw", v.status());
        assertEquals("met", Targets.judge(sum(4440), lib -> 1.10, 4230, 4560).status());
    }

    @Test
    void aNarrowMissPrintsBelowTheTarget() {
        // 1.046x rounds to the target at two decimals; the verdict must not read "1.05x cupy".
        assertEquals("missed: 1.046× cupy", Targets.judge(sum(4440), lib -> 1.046, 4230, 4560).status());
        assertEquals("met", Targets.judge(sum(4440), lib -> 1.05, 4230, 4560).status());
    }

    @Test
    void aMissingReadMeasurementCannotBeJudged() {
        Targets.Verdict v = Targets.judge(sum(4440), lib -> 1.10, 4230, Double.NaN);
        assertEquals("unknown: no read bandwidth", v.status());
    }

    @Test
    void copyTargetsStillUseTheCopy() {
        Targets.Verdict v = Targets.judge(cumsum(3700), lib -> 4.0, 4230, 4560);
        assertTrue(v.target().contains("≥ 90% copy bw"), v.target());
        assertEquals("missed: 87.5% of copy bw", v.status());
        assertEquals("met", Targets.judge(cumsum(3900), lib -> 4.0, 4230, 4560).status());
    }
}
