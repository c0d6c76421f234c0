package dev.primer.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.primer.DType;
import dev.primer.Op;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The chained (single-pass) scan over many chunks: every element against the sequential reference
 * (integers) or the documented order and error bound (floats), and float bits identical run to run,
 * on any thread count, and while other scans compete for the same pool.
 */
class ChainedScanTest {
    private static final long CHUNK = 1 << 16;

    static Stream<Arguments> cases() {
        List<Arguments> all = new ArrayList<>();
        long[] sizes = {2 * CHUNK - 1, 2 * CHUNK, 2 * CHUNK + 1, 3 * CHUNK + 31, 5 * CHUNK + 33, (1 << 19) - 1, (1 << 19) + 1};
        for (long n : sizes) {
            for (DType type : new DType[] {DType.INT, DType.LONG, DType.FLOAT, DType.DOUBLE}) {
                all.add(Arguments.of(type, type, Op.SUM, n));
                if (type == DType.INT) all.add(Arguments.of(type, DType.LONG, Op.SUM, n));
            }
            all.add(Arguments.of(DType.FLOAT, DType.FLOAT, Op.MAX, n));
            all.add(Arguments.of(DType.DOUBLE, DType.DOUBLE, Op.PROD, n));
            all.add(Arguments.of(DType.BYTE, DType.LONG, Op.SUM, n));
            all.add(Arguments.of(DType.INT, DType.INT, Op.XOR, n));
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0}->{1} {2} n={3}")
    @MethodSource("cases")
    void everyElementMatchesAndFloatBitsRepeat(DType inType, DType outType, Op op, long n) {
        Random r = new Random(n * 31 + op.ordinal() + 7L * inType.ordinal());
        MemorySegment in = TestArrays.random(inType, op, n, r.nextLong());
        for (boolean inclusive : new boolean[] {true, false}) {
            long init = CpuScanTest.randomInit(outType, op, r);
            String what = inType + "->" + outType + " " + op + (inclusive ? " inclusive" : " exclusive") + " n=" + n;
            MemorySegment first = TestArrays.output(outType, n);
            CpuScan.scan(inType, outType, op, inclusive, init, in, first, n);
            if (inType.isFloatingPoint()) {
                CpuScanTest.checkFloating(inType, op, inclusive, init, in, first, n, what);
            } else {
                CpuScanTest.checkIntegral(inType, outType, op, inclusive, init, in, 0, first, 0, n, what);
            }
            for (int run = 0; run < 3; run++) {
                MemorySegment again = TestArrays.output(outType, n);
                int threads = run + 1;
                TestArrays.inPool(threads, () -> { CpuScan.scan(inType, outType, op, inclusive, init, in, again, n); return null; });
                assertEquals(-1, first.mismatch(again), what + ": run on " + threads + " thread(s) differs");
            }
        }
    }

    @Test
    void concurrentScansInOnePoolRepeatBitForBit() {
        long n = 9 * CHUNK + 17;
        MemorySegment in = TestArrays.random(DType.FLOAT, Op.SUM, n, 11);
        MemorySegment reference = TestArrays.output(DType.FLOAT, n);
        CpuScan.scan(DType.FLOAT, DType.FLOAT, Op.SUM, true, 0, in, reference, n);
        CpuScanTest.checkFloating(DType.FLOAT, Op.SUM, true, 0, in, reference, n, "float32");
        for (int threads : new int[] {1, 2, 3}) {
            MemorySegment[] outs = new MemorySegment[8];
            ForkJoinPool pool = new ForkJoinPool(threads);
            try {
                List<ForkJoinTask<?>> tasks = new ArrayList<>();
                for (int k = 0; k < outs.length; k++) {
                    MemorySegment out = outs[k] = TestArrays.output(DType.FLOAT, n);
                    tasks.add(pool.submit(() -> CpuScan.scan(DType.FLOAT, DType.FLOAT, Op.SUM, true, 0, in, out, n)));
                }
                for (ForkJoinTask<?> task : tasks) task.join();
            } finally {
                pool.shutdown();
            }
            for (MemorySegment out : outs) assertEquals(-1, reference.mismatch(out), threads + " threads, 8 scans at once");
        }
    }

    @Test
    void inPlaceChainedScanEqualsOutOfPlace() {
        long n = 4 * CHUNK + 3;
        for (DType type : new DType[] {DType.INT, DType.LONG, DType.FLOAT, DType.DOUBLE}) {
            MemorySegment in = TestArrays.random(type, Op.SUM, n, 5), out = TestArrays.output(type, n);
            CpuScan.scan(type, type, Op.SUM, true, 0, in, out, n);
            MemorySegment inPlace = TestArrays.copy(in);
            CpuScan.scan(type, type, Op.SUM, true, 0, inPlace, inPlace, n);
            assertEquals(-1, inPlace.mismatch(out), type + " in place");
        }
    }

    /**
     * More threads than cores make threads lose their core mid-piece, so others fold carries themselves
     * (look-back); in place that must never read a piece its owner has already overwritten.
     */
    @Test
    void oversubscribedInPlaceScansRepeatBitForBit() {
        long n = 24 * CHUNK + 3;
        for (DType type : new DType[] {DType.FLOAT, DType.INT}) {
            MemorySegment in = TestArrays.random(type, Op.SUM, n, 21), reference = TestArrays.output(type, n);
            CpuScan.scan(type, type, Op.SUM, false, 0, in, reference, n);
            ForkJoinPool pool = new ForkJoinPool(6);
            try {
                List<ForkJoinTask<MemorySegment>> tasks = new ArrayList<>();
                for (int k = 0; k < 12; k++) {
                    tasks.add(pool.submit(() -> {
                        MemorySegment inPlace = TestArrays.copy(in);
                        CpuScan.scan(type, type, Op.SUM, false, 0, inPlace, inPlace, n);
                        return inPlace;
                    }));
                }
                for (ForkJoinTask<MemorySegment> task : tasks) assertEquals(-1, reference.mismatch(task.join()), type + " in place");
            } finally {
                pool.shutdown();
            }
        }
    }

    /**
     * Integer scans in place from {@link CpuScan#SCAN_FIRST} elements scan each piece from the identity
     * first and apply its carry afterwards: every element against the sequential reference, on one to
     * three threads, and with six threads on two cores (threads lose their core mid-piece, so others
     * wait for totals in place).
     */
    @Test
    void scanFirstInPlaceMatchesTheReference() {
        long n = CpuScan.SCAN_FIRST + 3 * CHUNK / 2 + 31;
        Op[] ops = {Op.SUM, Op.MAX, Op.XOR, Op.PROD};
        for (DType type : new DType[] {DType.INT, DType.LONG}) {
            for (int k = 0; k < ops.length; k++) {
                Op op = ops[k];
                boolean inclusive = k % 2 == 0;
                Random r = new Random(type.ordinal() * 17L + k);
                MemorySegment in = TestArrays.random(type, op, n, r.nextLong());
                long init = CpuScanTest.randomInit(type, op, r);
                for (int threads : new int[] {1, 2, 3, 6}) {
                    String what = type + " " + op + (inclusive ? " inclusive" : " exclusive") + " in place on " + threads + " thread(s)";
                    MemorySegment inPlace = TestArrays.copy(in);
                    TestArrays.inPool(threads, () -> { CpuScan.scan(type, type, op, inclusive, init, inPlace, inPlace, n); return null; });
                    CpuScanTest.checkIntegral(type, type, op, inclusive, init, in, 0, inPlace, 0, n, what);
                }
            }
        }
    }
}
