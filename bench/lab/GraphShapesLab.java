import dev.primer.BackendKind;
import dev.primer.FloatArray;
import dev.primer.Op;
import dev.primer.Primer;
import dev.primer.cuda.Cuda;
import dev.primer.cuda.CudaContext;
import dev.primer.cuda.CudaKernel;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Locale;
import java.util.Random;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

/**
 * What a launch at a shape the kernel has not seen costs (design measurements). CudaKernel launches
 * through one graph per shape (grid, block, shared memory): the first launch at a shape creates and
 * instantiates that graph; a kernel keeps eight such graphs (KernelGraphs.MAX_SHAPES), and launches
 * at further shapes go through cuLaunchKernel. Host wall times of a launch and a synchronize, in us,
 * once the JIT has compiled every path (warm-up below), so they show the driver's work:
 *   - a cached graph relaunched (fill_u64 at grid 1, median of 2000);
 *   - a new shape, graph made: read_xor_u64 (vectors = 0) at grids 2..8, first launch, then again;
 *   - past eight shapes: fill_u64 at grids 17..24, never launched before, through cuLaunchKernel,
 *     first launch, then again;
 *   - Primer.inclusiveScan (float32 SUM) of n = k * 8192 + 1 elements, k = 2..13 (a new tile count,
 *     so a new shape of the scan kernel, each time), first call and a second call of the same n,
 *     beside a call at the warm-up's n.
 * The jlink'd JDK of the GPU machine has no compiler: build here, carry the class.
 *
 *   javac -cp primer-cli/target/primer.jar -d .lab bench/lab/GraphShapesLab.java
 *   java --enable-native-access=ALL-UNNAMED --add-modules jdk.incubator.vector -cp .gpu/lib/primer.jar:.lab GraphShapesLab
 */
public final class GraphShapesLab {
    public static void main(String[] args) {
        Primer primer = Primer.open(BackendKind.GPU);
        CudaContext ctx = Cuda.context();
        long dummy = ctx.allocate(64 * 8);
        CudaKernel fill = ctx.module("fill").kernel("fill_u64");
        CudaKernel read = ctx.module("stream_read").kernel("read_xor_u64");
        Object[] fillArgs = {dummy, 0L, 0L};
        Object[] readArgs = {dummy, 0L, dummy};

        // Warm-up: fill's eight graphs (the first eight grids it meets: 1-4 and 9-12) and its
        // cuLaunchKernel path (the rest of grids 1-16), read's first graph (grid 1), each path
        // launched thousands of times.
        for (int i = 0; i < 20_000; i++) {
            fill.launch(1 + i % 8, 64, 0, fillArgs);
            fill.launch(9 + i % 8, 64, 0, fillArgs);
            read.launch(1, 256, 0, readArgs);
            if (i % 100 == 99) ctx.synchronize();
        }
        ctx.synchronize();

        double[] cached = new double[2000];
        for (int i = 0; i < cached.length; i++) cached[i] = wallUs(() -> { fill.launch(1, 64, 0, fillArgs); ctx.synchronize(); });
        System.out.printf(Locale.ROOT, "cached graph relaunched + synchronize: median %.1f us%n", median(cached));

        double[] graphFirst = new double[7], graphAgain = new double[7];
        for (int g = 2; g <= 8; g++) {
            final int grid = g;
            graphFirst[g - 2] = wallUs(() -> { read.launch(grid, 256, 0, readArgs); ctx.synchronize(); });
            graphAgain[g - 2] = wallUs(() -> { read.launch(grid, 256, 0, readArgs); ctx.synchronize(); });
        }
        double[] directFirst = new double[8], directAgain = new double[8];
        for (int g = 17; g <= 24; g++) {
            final int grid = g;
            directFirst[g - 17] = wallUs(() -> { fill.launch(grid, 64, 0, fillArgs); ctx.synchronize(); });
            directAgain[g - 17] = wallUs(() -> { fill.launch(grid, 64, 0, fillArgs); ctx.synchronize(); });
        }
        System.out.printf(Locale.ROOT, "new shape, graph made: first %s, again %s%n", list(graphFirst), list(graphAgain));
        System.out.printf(Locale.ROOT, "  medians %.1f / %.1f us%n", median(graphFirst), median(graphAgain));
        System.out.printf(Locale.ROOT, "past eight shapes (cuLaunchKernel): first %s, again %s%n", list(directFirst), list(directAgain));
        System.out.printf(Locale.ROOT, "  medians %.1f / %.1f us%n", median(directFirst), median(directAgain));

        Random random = new Random(5);
        FloatArray warmIn = filled(primer, 8193, random), warmOut = primer.allocateFloats(8193);
        for (int i = 0; i < 20_000; i++) primer.inclusiveScan(warmIn, warmOut, Op.SUM);
        ctx.synchronize();
        double[] scanFirst = new double[12], scanAgain = new double[12], scanWarm = new double[12];
        for (int k = 2; k <= 13; k++) {
            int n = k * 8192 + 1;
            FloatArray in = filled(primer, n, random), out = primer.allocateFloats(n);
            scanWarm[k - 2] = wallUs(() -> { primer.inclusiveScan(warmIn, warmOut, Op.SUM); ctx.synchronize(); });
            scanFirst[k - 2] = wallUs(() -> { primer.inclusiveScan(in, out, Op.SUM); ctx.synchronize(); });
            scanAgain[k - 2] = wallUs(() -> { primer.inclusiveScan(in, out, Op.SUM); ctx.synchronize(); });
            in.close();
            out.close();
        }
        System.out.printf(Locale.ROOT, "inclusiveScan float32 SUM, n = k * 8192 + 1, k = 2..13 (k = 2-8: graphs made; 9-13: past eight shapes)%n");
        System.out.printf(Locale.ROOT, "  first %s%n  again %s%n  at the warm-up's n %s%n", list(scanFirst), list(scanAgain), list(scanWarm));
        System.out.printf(Locale.ROOT, "  medians: first k 2-8 %.1f, k 9-13 %.1f; again %.1f; warm-up n %.1f us%n",
                median(Arrays.copyOfRange(scanFirst, 0, 7)), median(Arrays.copyOfRange(scanFirst, 7, 12)), median(scanAgain),
                median(scanWarm));
        warmIn.close();
        warmOut.close();
        ctx.free(dummy);
    }

    private static FloatArray filled(Primer primer, int n, Random random) {
        FloatArray a = primer.allocateFloats(n);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment host = arena.allocate(4L * n, 64);
            for (int i = 0; i < n; i++) host.setAtIndex(JAVA_FLOAT, i, random.nextFloat());
            a.copyFrom(host);
        }
        return a;
    }

    private static String list(double[] v) {
        StringBuilder b = new StringBuilder();
        for (double x : v) b.append(b.length() == 0 ? "" : " ").append(String.format(Locale.ROOT, "%.1f", x));
        return b.toString();
    }

    private static double wallUs(Runnable r) {
        long t0 = System.nanoTime();
        r.run();
        return (System.nanoTime() - t0) / 1e3;
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }
}
