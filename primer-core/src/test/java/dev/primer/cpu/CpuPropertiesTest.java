package dev.primer.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.primer.DType;
import dev.primer.JavaOps;
import dev.primer.Op;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigDecimal;
import java.util.List;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.FloatRange;
import net.jqwik.api.constraints.Size;

/** Properties over arbitrary inputs (jqwik): exact integer results, float scans within the bound. */
class CpuPropertiesTest {

    @Property(tries = 300)
    void integerReductionsAndScansAreExact(@ForAll @Size(max = 300) int[] values, @ForAll Op op) {
        MemorySegment in = TestArrays.allocate(DType.INT, values.length);
        for (int i = 0; i < values.length; i++) in.setAtIndex(ValueLayout.JAVA_INT, i, values[i]);
        long expected = JavaOps.identity(op, DType.INT);
        MemorySegment scanned = TestArrays.output(DType.INT, values.length);
        CpuScan.scan(DType.INT, DType.INT, op, true, expected, in, scanned, values.length);
        for (int i = 0; i < values.length; i++) {
            expected = JavaOps.apply(op, expected, values[i]);
            long wrapped = op == Op.SUM || op == Op.PROD ? (int) expected : expected;
            assertEquals(wrapped, scanned.getAtIndex(ValueLayout.JAVA_INT, i), "scan element " + i);
        }
        assertEquals(expected, CpuReduce.reduceIntegral(DType.INT, op, in, values.length));
    }

    @Property(tries = 200)
    void floatSumScanStaysWithinTheBound(@ForAll @Size(max = 500) List<@FloatRange(min = -1e6f, max = 1e6f) Float> list) {
        float[] values = new float[list.size()];
        for (int i = 0; i < values.length; i++) values[i] = list.get(i);
        MemorySegment in = TestArrays.floats(values), out = TestArrays.output(DType.FLOAT, values.length);
        CpuScan.scan(DType.FLOAT, DType.FLOAT, Op.SUM, true, 0, in, out, values.length);
        BigDecimal exact = BigDecimal.ZERO;
        double abs = 0;
        for (int i = 0; i < values.length; i++) {
            exact = exact.add(new BigDecimal(values[i]));
            abs += Math.abs(values[i]);
            double bound = TestArrays.gamma(CpuScan.roundings(DType.FLOAT, i), 0x1p-24) * abs;
            double error = exact.subtract(new BigDecimal(out.getAtIndex(ValueLayout.JAVA_FLOAT, i))).abs().doubleValue();
            assertTrue(error <= bound, "element " + i + ": error " + error + " > " + bound);
        }
        double sum = CpuReduce.reduceFloating(DType.FLOAT, Op.SUM, in, values.length);
        double error = exact.subtract(new BigDecimal(sum)).abs().doubleValue();
        assertTrue(error <= TestArrays.gamma(CpuReduce.sumRoundings(values.length), 0x1p-53) * abs, "reduce error " + error);
    }
}
