import dev.primer.BackendKind;
import dev.primer.DType;
import dev.primer.FloatArray;
import dev.primer.Op;
import dev.primer.Primer;
import dev.primer.cuda.Cuda;
import dev.primer.cuda.CudaContext;
import dev.primer.cuda.CudaKernel;
import dev.primer.gpu.GpuReduce;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Random;
import java.util.function.IntConsumer;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

/**
 * Where a synchronous 2^20-float sum spends its time on the Java side (design measurements; the C++
 * twin is sync_poll_lab.cu). Host wall times, medians; the same 53 rotated buffers as the bench.
 * The jlink'd JDK of the GPU machine has no compiler: build here, carry the class.
 *
 *   javac -cp primer-cli/target/primer.jar -d .lab bench/lab/SyncLatencyLab.java
 *   java --enable-native-access=ALL-UNNAMED -cp .gpu/lib/primer.jar:.lab SyncLatencyLab
 */
public final class SyncLatencyLab {
    public static void main(String[] args) {
        final int n = 1 << 20, buffers = 53;
        Primer primer = Primer.open(BackendKind.GPU);
        CudaContext ctx = Cuda.context();
        FloatArray[] in = new FloatArray[buffers];
        double expected = 0;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment host = arena.allocate(4L * n, 64);
            Random random = new Random(3);
            for (int i = 0; i < n; i++) {
                float v = random.nextFloat() * 2 - 1;
                host.setAtIndex(JAVA_FLOAT, i, v);
                expected += v;
            }
            for (int b = 0; b < buffers; b++) {
                in[b] = primer.allocateFloats(n);
                in[b].copyFrom(host);
            }
        }
        long[] pointers = Arrays.stream(in).mapToLong(FloatArray::devicePointer).toArray();
        long deviceResult = ctx.allocate(64);
        CudaKernel fill = ctx.module("fill").kernel("fill_u64");
        Object[] fillArgs = {deviceResult, 0L, 0L};
        double[] last = new double[1];
        for (int pass = 0; pass < 2; pass++) {
            time("Primer.sum(FloatArray) (the bench's call)", i -> last[0] = primer.sum(in[i % buffers]));
            time("GpuReduce.reduceFloating(ctx, FLOAT, SUM, ptr, n)",
                    i -> last[0] = GpuReduce.reduceFloating(ctx, DType.FLOAT, Op.SUM, pointers[i % buffers], n));
            time("fill_u64 n=0 launch + ctx.synchronize()", i -> { fill.launch(1, 32, 0, fillArgs); ctx.synchronize(); });
            System.out.printf("  last sum %.9g, host %.9g%n", last[0], expected);
        }
        submit("submit: GpuReduce.reduceInto (CPU side)",
                ctx, i -> GpuReduce.reduceInto(ctx, DType.FLOAT, Op.SUM, pointers[i % buffers], n, deviceResult));
        submit("submit: fill_u64 n=0 launch (CPU side)", ctx, i -> fill.launch(1, 32, 0, fillArgs));
        ctx.free(deviceResult);
        for (FloatArray a : in) a.close();
    }

    private static void time(String name, IntConsumer call) {
        for (int i = 0; i < 20_000; i++) call.accept(i);
        double[] us = new double[5000];
        for (int i = 0; i < us.length; i++) {
            long t0 = System.nanoTime();
            call.accept(i);
            us[i] = (System.nanoTime() - t0) / 1e3;
        }
        report(name, us);
    }

    /** CPU time of one launch while the stream's queue has room: 400 launches after each synchronize. */
    private static void submit(String name, CudaContext ctx, IntConsumer launch) {
        for (int i = 0; i < 20_000; i++) launch.accept(i);
        double[] us = new double[20 * 400];
        for (int round = 0, k = 0; round < 20; round++) {
            ctx.synchronize();
            for (int i = 0; i < 400; i++, k++) {
                long t0 = System.nanoTime();
                launch.accept(i);
                us[k] = (System.nanoTime() - t0) / 1e3;
            }
        }
        ctx.synchronize();
        report(name, us);
    }

    private static void report(String name, double[] us) {
        Arrays.sort(us);
        System.out.printf("%-52s median %6.2f us  p10 %6.2f  p90 %6.2f%n", name, us[us.length / 2],
                us[us.length / 10], us[us.length * 9 / 10]);
    }
}
