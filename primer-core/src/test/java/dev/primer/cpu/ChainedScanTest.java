package dev.primer.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.primer.DType;
import dev.primer.Op;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
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
     * first and apply its carry afterwards: every operator, inclusive and exclusive, every element
     * against the sequential reference, on one and two threads and with six threads on two cores.
     */
    @Test
    void scanFirstInPlaceMatchesTheReference() {
        long n = CpuScan.SCAN_FIRST + 3 * CHUNK / 2 + 31;
        for (DType type : new DType[] {DType.INT, DType.LONG}) {
            for (Op op : new Op[] {Op.SUM, Op.PROD, Op.MIN, Op.MAX, Op.AND, Op.OR, Op.XOR}) {
                Random r = new Random(type.ordinal() * 17L + op.ordinal());
                try (Arena arena = Arena.ofShared()) {
                    MemorySegment in = TestArrays.random(arena, type, op, n, r.nextLong());
                    for (boolean inclusive : new boolean[] {true, false}) {
                        long init = CpuScanTest.randomInit(type, op, r);
                        for (int threads : new int[] {1, 2, 6}) {
                            String what = type + " " + op + (inclusive ? " inclusive" : " exclusive") + " in place on " + threads + " thread(s)";
                            try (Arena scratch = Arena.ofShared()) {
                                MemorySegment inPlace = TestArrays.copy(scratch, in);
                                TestArrays.inPool(threads, () -> { CpuScan.scan(type, type, op, inclusive, init, inPlace, inPlace, n); return null; });
                                CpuScanTest.checkIntegral(type, type, op, inclusive, init, in, 0, inPlace, 0, n, what);
                            }
                        }
                    }
                }
            }
        }
    }

    /**
     * The order's choice, seen through a scanner that counts its scan-first pieces and holds one back:
     * in place a large integer scan goes scan-first, and the thread after the late piece must wait for
     * its total (the piece is already being overwritten); apart it goes reduce-first.
     */
    @Test
    void scanFirstOnlyInPlaceAndALatePieceIsWaitedFor() {
        long n = CpuScan.SCAN_FIRST + 5 * CHUNK + 7;
        try (Arena arena = Arena.ofShared()) {
            MemorySegment in = TestArrays.random(arena, DType.INT, Op.SUM, n, 41);
            for (boolean inPlace : new boolean[] {true, false}) {
                LatePiece scanner = new LatePiece((ExactChunkScanner) CpuScan.scanner(DType.INT, DType.INT, Op.SUM, true));
                MemorySegment out = inPlace ? TestArrays.copy(arena, in) : TestArrays.output(DType.INT, n);
                MemorySegment source = inPlace ? out : in;
                TestArrays.inPool(2, () -> { CpuScan.scanRange(scanner, source, out, 0, n, 5, inPlace); return null; });
                CpuScanTest.checkIntegral(DType.INT, DType.INT, Op.SUM, true, 5, in, 0, out, 0, n, inPlace ? "in place" : "apart");
                if (inPlace) {
                    assertEquals(Math.ceilDiv(n, CHUNK), scanner.scannedFirst.get(), "every piece scanned first in place");
                } else {
                    assertEquals(0, scanner.scannedFirst.get(), "no piece scanned first apart");
                }
            }
        }
    }

    /** An int32 scanner whose first scan-first piece after piece 0 takes 50 ms longer to return its total. */
    private static final class LatePiece implements ExactChunkScanner {
        private final ExactChunkScanner inner;
        final AtomicInteger scannedFirst = new AtomicInteger();
        private final AtomicBoolean held = new AtomicBoolean();

        LatePiece(ExactChunkScanner inner) {
            this.inner = inner;
        }

        /** The late piece is held after its scan: its input is overwritten, its total not yet out. */
        @Override public long scanLocal(MemorySegment in, MemorySegment out, long from, long to) {
            scannedFirst.incrementAndGet();
            long total = inner.scanLocal(in, out, from, to);
            if (from > 0 && held.compareAndSet(false, true)) {
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return total;
        }

        @Override public void applyCarry(MemorySegment out, long from, long to, long carryBits) {
            inner.applyCarry(out, from, to, carryBits);
        }

        @Override public long total(MemorySegment in, long from, long to) {
            return inner.total(in, from, to);
        }

        @Override public void scan(MemorySegment in, MemorySegment out, long from, long to, long carryBits) {
            inner.scan(in, out, from, to, carryBits);
        }

        @Override public long combine(long carryBits, long totalBits) {
            return inner.combine(carryBits, totalBits);
        }
    }
}
