package dev.primer.bench.cpu;

import dev.primer.DType;
import dev.primer.Op;
import dev.primer.cpu.CpuScan;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Inclusive SUM scan of n elements: Primer's CPU backend (off-heap and on heap arrays) against
 * Arrays.parallelPrefix and a sequential loop. int32 scans run in place (they wrap, so repeating them
 * is harmless); float64 inputs are restored before every invocation (outside the timing).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED", "-Xmx6g"})
public class ScanBenchmark {

    /** 2^24 and 2^26 elements. */
    @State(Scope.Benchmark)
    public static class Size {
        @Param({"16777216", "67108864"})
        public int n;
    }

    @State(Scope.Benchmark)
    public static class Ints {
        int[] array;
        MemorySegment onHeap, offHeap;
        Arena arena;

        @Setup
        public void setup(Size size) {
            array = new Random(1).ints(size.n).toArray();
            onHeap = MemorySegment.ofArray(array.clone());
            arena = Arena.ofShared();
            offHeap = arena.allocate((long) size.n * Integer.BYTES, 64);
            MemorySegment.copy(array, 0, offHeap, ValueLayout.JAVA_INT, 0, size.n);
        }

        @TearDown
        public void tearDown() {
            arena.close();
        }
    }

    @State(Scope.Benchmark)
    public static class Floats {
        MemorySegment in, out;
        Arena arena;

        @Setup
        public void setup(Size size) {
            arena = Arena.ofShared();
            in = arena.allocate((long) size.n * Float.BYTES, 64);
            out = arena.allocate((long) size.n * Float.BYTES, 64);
            Random random = new Random(2);
            for (long i = 0; i < size.n; i++) in.setAtIndex(ValueLayout.JAVA_FLOAT, i, random.nextFloat());
        }

        @TearDown
        public void tearDown() {
            arena.close();
        }
    }

    @State(Scope.Benchmark)
    public static class Doubles {
        double[] source, array;
        MemorySegment offHeap;
        Arena arena;

        @Setup
        public void setup(Size size) {
            source = new Random(3).doubles(size.n).toArray();
            array = source.clone();
            arena = Arena.ofShared();
            offHeap = arena.allocate((long) size.n * Double.BYTES, 64);
        }

        @Setup(Level.Invocation)
        public void restore() {
            System.arraycopy(source, 0, array, 0, source.length);
            MemorySegment.copy(source, 0, offHeap, ValueLayout.JAVA_DOUBLE, 0, source.length);
        }

        @TearDown
        public void tearDown() {
            arena.close();
        }
    }

    @Benchmark
    public void primerInt32OffHeap(Size size, Ints ints) {
        CpuScan.scan(DType.INT, DType.INT, Op.SUM, true, 0, ints.offHeap, ints.offHeap, size.n);
    }

    @Benchmark
    public void primerInt32OnHeap(Size size, Ints ints) {
        CpuScan.scan(DType.INT, DType.INT, Op.SUM, true, 0, ints.onHeap, ints.onHeap, size.n);
    }

    @Benchmark
    public void jdkParallelPrefixInt32(Ints ints) {
        Arrays.parallelPrefix(ints.array, Integer::sum);
    }

    @Benchmark
    public void sequentialLoopInt32(Ints ints) {
        int[] a = ints.array;
        for (int i = 1; i < a.length; i++) a[i] += a[i - 1];
    }

    @Benchmark
    public void primerFloat32OffHeap(Size size, Floats floats) {
        CpuScan.scan(DType.FLOAT, DType.FLOAT, Op.SUM, true, 0, floats.in, floats.out, size.n);
    }

    @Benchmark
    public void primerFloat64OffHeap(Size size, Doubles doubles) {
        CpuScan.scan(DType.DOUBLE, DType.DOUBLE, Op.SUM, true, 0, doubles.offHeap, doubles.offHeap, size.n);
    }

    @Benchmark
    public void jdkParallelPrefixFloat64(Doubles doubles) {
        Arrays.parallelPrefix(doubles.array, Double::sum);
    }
}
