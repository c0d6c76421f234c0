package dev.primer.bench.cpu;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Random;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.TimeUnit;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;
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
 * What this machine's memory can do at all, as the ceiling for the float32 sum and the scans: a plain
 * vectorised read loop (float32 adds into 8 independent 256-bit accumulators, no widening) over
 * {@code bytes}, on one thread and on two (the calling thread and one common-pool worker, halves),
 * and an in-place read+write pass (x + 1) on two threads. GB/s = bytes (read; read + write for the
 * update) / time.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED", "-Xmx4g"})
@State(Scope.Benchmark)
public class MemoryBenchmark {
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_256;
    private static final ByteOrder NATIVE = ByteOrder.nativeOrder();

    /** 256 KiB (L2), 8 MiB (L3), 1 GiB (DRAM). */
    @Param({"262144", "8388608", "1073741824"})
    public long bytes;

    private Arena arena;
    private MemorySegment data;

    @Setup
    public void setup() {
        arena = Arena.ofShared();
        data = arena.allocate(bytes, 4096);
        Random random = new Random(5);
        for (long i = 0; i < bytes / 4; i++) data.setAtIndex(ValueLayout.JAVA_FLOAT, i, random.nextFloat());
    }

    @TearDown
    public void tearDown() {
        arena.close();
    }

    static float read(MemorySegment m, long from, long to) {
        FloatVector a0 = FloatVector.zero(S), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
        for (long b = from; b < to; b += 256) {
            a0 = a0.add(FloatVector.fromMemorySegment(S, m, b, NATIVE));
            a1 = a1.add(FloatVector.fromMemorySegment(S, m, b + 32, NATIVE));
            a2 = a2.add(FloatVector.fromMemorySegment(S, m, b + 64, NATIVE));
            a3 = a3.add(FloatVector.fromMemorySegment(S, m, b + 96, NATIVE));
            a4 = a4.add(FloatVector.fromMemorySegment(S, m, b + 128, NATIVE));
            a5 = a5.add(FloatVector.fromMemorySegment(S, m, b + 160, NATIVE));
            a6 = a6.add(FloatVector.fromMemorySegment(S, m, b + 192, NATIVE));
            a7 = a7.add(FloatVector.fromMemorySegment(S, m, b + 224, NATIVE));
        }
        return a0.add(a1).add(a2.add(a3)).add(a4.add(a5).add(a6.add(a7))).reduceLanes(jdk.incubator.vector.VectorOperators.ADD);
    }

    static void update(MemorySegment m, long from, long to) {
        for (long b = from; b < to; b += 64) {
            FloatVector.fromMemorySegment(S, m, b, NATIVE).add(1f).intoMemorySegment(m, b, NATIVE);
            FloatVector.fromMemorySegment(S, m, b + 32, NATIVE).add(1f).intoMemorySegment(m, b + 32, NATIVE);
        }
    }

    @Benchmark public float read1Thread() {
        return read(data, 0, bytes);
    }

    @Benchmark public float read2Threads() {
        long half = bytes / 2;
        ForkJoinTask<Float> other = ForkJoinPool.commonPool().submit(() -> read(data, half, bytes));
        float mine = read(data, 0, half);
        return mine + other.join();
    }

    @Benchmark public void update2Threads() {
        long half = bytes / 2;
        ForkJoinTask<?> other = ForkJoinPool.commonPool().submit(() -> update(data, half, bytes));
        update(data, 0, half);
        other.join();
    }
}
