package dev.primer.bench.cpu;

import dev.primer.DType;
import dev.primer.Op;
import dev.primer.cpu.CpuReduce;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
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
 * float32 SUM of n random floats (accumulated in double): Primer's CPU backend, off-heap and on a heap
 * array, against what a Java programmer would otherwise write. Bandwidth = 4 n bytes / time.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED", "-Xmx4g"})
@State(Scope.Benchmark)
public class FloatSumBenchmark {

    /** 2^16 (L2), 2^20 (L3), 2^24 and 2^26 elements (64 and 256 MiB, beyond the last-level cache). */
    @Param({"65536", "1048576", "16777216", "67108864"})
    public int n;

    private Arena arena;
    private MemorySegment offHeap, onHeap;
    private float[] array;

    @Setup
    public void setup() {
        array = new float[n];
        Random random = new Random(42);
        for (int i = 0; i < n; i++) array[i] = random.nextFloat() * 2 - 1;
        arena = Arena.ofShared();
        offHeap = arena.allocate((long) n * Float.BYTES, 64);
        MemorySegment.copy(array, 0, offHeap, ValueLayout.JAVA_FLOAT, 0, n);
        onHeap = MemorySegment.ofArray(array);
    }

    @TearDown
    public void tearDown() {
        arena.close();
    }

    @Benchmark
    public double primerOffHeap() {
        return CpuReduce.reduceFloating(DType.FLOAT, Op.SUM, offHeap, n);
    }

    @Benchmark
    public double primerOnHeap() {
        return CpuReduce.reduceFloating(DType.FLOAT, Op.SUM, onHeap, n);
    }

    /** DoubleStream.sum: compensated (Kahan) summation, one thread. */
    @Benchmark
    public double doubleStreamSum() {
        float[] a = array;
        return IntStream.range(0, a.length).mapToDouble(i -> a[i]).sum();
    }

    @Benchmark
    public double doubleStreamParallelSum() {
        float[] a = array;
        return IntStream.range(0, a.length).parallel().mapToDouble(i -> a[i]).sum();
    }

    /** The obvious loop: one double accumulator, so each addition waits for the previous one. */
    @Benchmark
    public double plainLoop() {
        double sum = 0;
        for (float x : array) sum += x;
        return sum;
    }
}
