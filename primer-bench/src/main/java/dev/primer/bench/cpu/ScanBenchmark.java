package dev.primer.bench.cpu;

import dev.primer.BackendKind;
import dev.primer.DType;
import dev.primer.DoubleArray;
import dev.primer.FloatArray;
import dev.primer.IntArray;
import dev.primer.LongArray;
import dev.primer.Op;
import dev.primer.Primer;
import dev.primer.cpu.CpuScan;

import java.lang.foreign.MemorySegment;
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
 * Inclusive SUM scan of n elements in place: Primer's CPU backend through its public API, on its own
 * arrays (native memory, 64-byte aligned, as every Primer array is), against
 * {@code Arrays.parallelPrefix} on the Java array of the same type and contents (the JDK has none for
 * float[]: float32 is set beside {@code parallelPrefix(double[])} of the same n; int32 to int64
 * beside {@code parallelPrefix(long[])}). Integer scans wrap, so they repeat in place; float inputs
 * are restored before every invocation (outside the timing), for both sides alike.
 * <p>The {@code heap*} benchmarks call the backend's scan on heap arrays wrapped as segments, a path
 * no public call takes (uploads copy into native memory): the measure this class used before
 * 2026-11-23, kept to show what the memory's kind costs the kernels.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED", "-Xmx8g"})
@State(Scope.Benchmark)
public class ScanBenchmark {

    /** 2^16, 2^20 and 2^24 elements (beyond a 32 MiB L3 for 4-byte types and up). */
    @Param({"65536", "1048576", "16777216"})
    public int n;

    Primer cpu;
    int[] ints;
    long[] longs;
    IntArray primerInts;
    LongArray primerLongs, primerWidened;
    MemorySegment intSeg, longSeg, widenedSeg;

    @Setup
    public void setup() {
        Random random = new Random(1);
        ints = random.ints(n).toArray();
        longs = random.longs(n).toArray();
        cpu = Primer.open(BackendKind.CPU);
        primerInts = cpu.upload(ints);
        primerLongs = cpu.upload(longs);
        primerWidened = cpu.allocateLongs(n);
        intSeg = MemorySegment.ofArray(ints.clone());
        longSeg = MemorySegment.ofArray(longs.clone());
        widenedSeg = MemorySegment.ofArray(new long[n]);
    }

    @TearDown
    public void tearDown() {
        primerInts.close();
        primerLongs.close();
        primerWidened.close();
    }

    /*
     * Float inputs, each restored from its source before every invocation of the one benchmark that
     * takes it: a state apiece, so that no benchmark pays for another's copy (up to 128 MiB at 2^24,
     * whose dirty lines would still be written back while it runs). float64 sources share a seed, so
     * Primer and the JDK scan the same values.
     */

    @State(Scope.Benchmark)
    public static class Float32Input {
        float[] source;
        FloatArray array;

        @Setup
        public void setup(ScanBenchmark benchmark) {
            Random random = new Random(2);
            source = new float[benchmark.n];
            for (int i = 0; i < source.length; i++) source[i] = random.nextFloat();
            array = benchmark.cpu.upload(source);
        }

        @Setup(Level.Invocation)
        public void restore() {
            array.copyFrom(source);
        }

        @TearDown
        public void tearDown() {
            array.close();
        }
    }

    @State(Scope.Benchmark)
    public static class Float64Input {
        double[] source;
        DoubleArray array;

        @Setup
        public void setup(ScanBenchmark benchmark) {
            source = new Random(3).doubles(benchmark.n).toArray();
            array = benchmark.cpu.upload(source);
        }

        @Setup(Level.Invocation)
        public void restore() {
            array.copyFrom(source);
        }

        @TearDown
        public void tearDown() {
            array.close();
        }
    }

    @State(Scope.Benchmark)
    public static class JdkFloat64Input {
        double[] source, array;

        @Setup
        public void setup(ScanBenchmark benchmark) {
            source = new Random(3).doubles(benchmark.n).toArray();
            array = source.clone();
        }

        @Setup(Level.Invocation)
        public void restore() {
            System.arraycopy(source, 0, array, 0, array.length);
        }
    }

    @Benchmark public void primerInt32() {
        cpu.inclusiveScan(primerInts, primerInts, Op.SUM);
    }

    @Benchmark public void jdkInt32() {
        Arrays.parallelPrefix(ints, Integer::sum);
    }

    @Benchmark public void primerInt64() {
        cpu.inclusiveScan(primerLongs, primerLongs, Op.SUM);
    }

    @Benchmark public void jdkInt64() {
        Arrays.parallelPrefix(longs, Long::sum);
    }

    /** int32 in, int64 out (out of place: the types differ). */
    @Benchmark public void primerInt32ToInt64() {
        cpu.inclusiveScan(primerInts, primerWidened, Op.SUM);
    }

    @Benchmark public void primerFloat32(Float32Input in) {
        cpu.inclusiveScan(in.array, in.array, Op.SUM);
    }

    @Benchmark public void primerFloat64(Float64Input in) {
        cpu.inclusiveScan(in.array, in.array, Op.SUM);
    }

    @Benchmark public void jdkFloat64(JdkFloat64Input in) {
        Arrays.parallelPrefix(in.array, Double::sum);
    }

    @Benchmark public void heapInt32() {
        CpuScan.scan(DType.INT, DType.INT, Op.SUM, true, 0, intSeg, intSeg, n);
    }

    @Benchmark public void heapInt64() {
        CpuScan.scan(DType.LONG, DType.LONG, Op.SUM, true, 0, longSeg, longSeg, n);
    }

    @Benchmark public void heapInt32ToInt64() {
        CpuScan.scan(DType.INT, DType.LONG, Op.SUM, true, 0, intSeg, widenedSeg, n);
    }
}
