package dev.primer.bench.cpu;

import dev.primer.BackendKind;
import dev.primer.DoubleArray;
import dev.primer.FloatArray;
import dev.primer.IntArray;
import dev.primer.LongArray;
import dev.primer.Primer;

import java.util.Random;
import java.util.concurrent.TimeUnit;

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
 * Running argmax of n elements into int64 indices: Primer's CPU backend ({@code argExtremeScan})
 * through its public API on its own arrays, against the loop a Java user would write over the Java
 * array of the same contents (the JDK has no such call; torch.cummax is the GPU side's baseline).
 * Both take Java's order ({@code Float.compare}: NaN the largest, -0.0 below 0.0) and keep the first
 * index of equal values. The inputs rise slowly with noise, so the maximum moves now and then.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED", "-Xmx8g"})
@State(Scope.Benchmark)
public class ArgScanBenchmark {

    /** 2^16, 2^20 and 2^24 elements (beyond a 32 MiB L3 with the int64 output). */
    @Param({"65536", "1048576", "16777216"})
    public int n;

    Primer cpu;
    float[] floats;
    int[] ints;
    double[] doubles;
    long[] javaOut;
    FloatArray primerFloats;
    IntArray primerInts;
    DoubleArray primerDoubles;
    LongArray primerOut;

    @Setup
    public void setup() {
        Random random = new Random(3);
        floats = new float[n];
        ints = new int[n];
        doubles = new double[n];
        for (int i = 0; i < n; i++) {
            ints[i] = i / 16 + random.nextInt(64);
            floats[i] = ints[i] + random.nextFloat();
            doubles[i] = ints[i] + random.nextDouble();
        }
        javaOut = new long[n];
        cpu = Primer.open(BackendKind.CPU);
        primerFloats = cpu.upload(floats);
        primerInts = cpu.upload(ints);
        primerDoubles = cpu.upload(doubles);
        primerOut = cpu.allocateLongs(n);
    }

    @TearDown
    public void tearDown() {
        primerFloats.close();
        primerInts.close();
        primerDoubles.close();
        primerOut.close();
        cpu.close();
    }

    @Benchmark
    public LongArray primerFloat32() {
        cpu.argExtremeScan(primerFloats, primerOut, true);
        return primerOut;
    }

    @Benchmark
    public long[] javaLoopFloat32() {
        int best = 0;
        for (int i = 0; i < floats.length; i++) {
            if (Float.compare(floats[i], floats[best]) > 0) best = i;
            javaOut[i] = best;
        }
        return javaOut;
    }

    @Benchmark
    public LongArray primerInt32() {
        cpu.argExtremeScan(primerInts, primerOut, true);
        return primerOut;
    }

    @Benchmark
    public long[] javaLoopInt32() {
        int best = 0;
        for (int i = 0; i < ints.length; i++) {
            if (ints[i] > ints[best]) best = i;
            javaOut[i] = best;
        }
        return javaOut;
    }

    @Benchmark
    public LongArray primerFloat64() {
        cpu.argExtremeScan(primerDoubles, primerOut, true);
        return primerOut;
    }

    @Benchmark
    public long[] javaLoopFloat64() {
        int best = 0;
        for (int i = 0; i < doubles.length; i++) {
            if (Double.compare(doubles[i], doubles[best]) > 0) best = i;
            javaOut[i] = best;
        }
        return javaOut;
    }
}
