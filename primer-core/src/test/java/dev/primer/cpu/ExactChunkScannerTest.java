package dev.primer.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.primer.DType;
import dev.primer.Op;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

/**
 * The integer scanners' scan-first contract, piece by piece: scanning from the identity and then
 * applying the carry writes what scanning with the carry writes, and returns the piece's total.
 */
class ExactChunkScannerTest {

    @Test
    void scanLocalThenApplyCarryEqualsScanWithTheCarry() {
        List<Object[]> kinds = new ArrayList<>();
        for (Op op : new Op[] {Op.SUM, Op.PROD, Op.MIN, Op.MAX, Op.AND, Op.OR, Op.XOR}) {
            kinds.add(new Object[] {DType.INT, DType.INT, op});
            kinds.add(new Object[] {DType.LONG, DType.LONG, op});
        }
        kinds.add(new Object[] {DType.INT, DType.LONG, Op.SUM});
        // Around and at multiples of the blocks (16 int64 or 32 int32 with AVX-512, half that with AVX2).
        long[] lengths = {1, 15, 16, 17, 31, 32, 33, 64, 1000, 4099};
        Random r = new Random(3);
        for (Object[] kind : kinds) {
            DType inType = (DType) kind[0], outType = (DType) kind[1];
            Op op = (Op) kind[2];
            for (boolean inclusive : new boolean[] {true, false}) {
                ExactChunkScanner scanner = assertInstanceOf(ExactChunkScanner.class, CpuScan.scanner(inType, outType, op, inclusive));
                for (long length : lengths) {
                    long from = 1 + r.nextInt(40), to = from + length;
                    String what = inType + "->" + outType + " " + op + (inclusive ? " inclusive" : " exclusive") + " [" + from + ", " + to + ")";
                    MemorySegment in = TestArrays.random(inType, op, to + 3, r.nextLong());
                    long carry = CpuScanTest.randomInit(outType, op, r);
                    MemorySegment expected = TestArrays.output(outType, to + 3), actual = TestArrays.output(outType, to + 3);
                    scanner.scan(in, expected, from, to, carry);
                    long total = scanner.scanLocal(in, actual, from, to);
                    assertEquals(scanner.total(in, from, to), total, what + ": the local total");
                    scanner.applyCarry(actual, from, to, carry);
                    assertEquals(-1, expected.mismatch(actual), what + ": outputs (and the poison around them)");
                }
            }
        }
    }
}
