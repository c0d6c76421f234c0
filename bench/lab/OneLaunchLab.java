import dev.primer.DType;
import dev.primer.Op;
import dev.primer.cuda.Cuda;
import dev.primer.cuda.CudaContext;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Where the segmented reduce's one launch (device/segmented_reduce/one_launch.cuh) stops paying
 * (design measurements for SegmentedReducePolicy.takesOneLaunch). float32 SUM over power-law
 * (Pareto 1.1, up to 2^20) and uniform 1-8 lengths, 2^16 to 2^24 values, by each route, forced:
 * ONE_LAUNCH, CLASSIC and MERGE_PATH (the last two behind the offsets' check and its verdict's round
 * trip, as AUTO takes them beyond one wave). Host wall time of a call and a synchronize, in us,
 * median of 200 after 50 warm-up calls, routes interleaved. The routes are package-private:
 * reflection reaches them (a lab, not an API).
 *
 *   javac -cp primer-cli/target/primer.jar -d .lab bench/lab/OneLaunchLab.java
 *   java --enable-native-access=ALL-UNNAMED --add-modules jdk.incubator.vector -cp .gpu/lib/primer.jar:.lab OneLaunchLab
 */
public final class OneLaunchLab {
    public static void main(String[] args) throws Exception {
        CudaContext ctx = Cuda.context();
        Class<?> reduce = Class.forName("dev.primer.gpu.GpuSegmentedReduce");
        @SuppressWarnings({"unchecked", "rawtypes"})
        Class<Enum> routeClass = (Class<Enum>) Class.forName("dev.primer.gpu.GpuSegmentedReduce$Route");
        Method call = reduce.getDeclaredMethod("reduceSegments", CudaContext.class, DType.class, Op.class, long.class,
                long.class, long.class, long.class, long.class, long.class, routeClass);
        call.setAccessible(true);
        String[] routes = {"ONE_LAUNCH", "CLASSIC", "MERGE_PATH"};
        System.out.println("| lengths | values | segments | tiles | one launch us | classic us | merge path us |");
        System.out.println("|---|---|---|---|---|---|---|");
        for (String lengths : new String[] {"powerlaw", "uniform8"}) {
            for (int log2 = 16; log2 <= 24; log2++) {
                long n = 1L << log2;
                long[] offsets = offsets(lengths, n, new SplittableRandom(log2));
                long segments = offsets.length - 1;
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment x = arena.allocate(JAVA_FLOAT, n);
                    SplittableRandom r = new SplittableRandom(7);
                    for (long i = 0; i < n; i++) x.setAtIndex(JAVA_FLOAT, i, (float) r.nextDouble(-1, 1));
                    long in = ctx.allocate(4 * n), off = ctx.allocate(8 * (segments + 1)), out = ctx.allocate(4 * segments);
                    ctx.copyToDevice(in, x, 4 * n);
                    ctx.copyToDevice(off, arena.allocateFrom(JAVA_LONG, offsets), 8 * (segments + 1));
                    double[][] times = new double[routes.length][200];
                    for (int rep = -50; rep < 200; rep++) {
                        for (int k = 0; k < routes.length; k++) {
                            Object route = Enum.valueOf(routeClass, routes[k]);
                            long t0 = System.nanoTime();
                            call.invoke(null, ctx, DType.FLOAT, Op.SUM, in, off, segments, out, n, Long.MAX_VALUE, route);
                            ctx.synchronize();
                            if (rep >= 0) times[k][rep] = (System.nanoTime() - t0) / 1e3;
                        }
                    }
                    StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "| %s | 2^%d | %d | %d |", lengths, log2,
                            segments, Math.ceilDiv(n + segments, 256 * 23)));
                    for (double[] t : times) {
                        Arrays.sort(t);
                        row.append(String.format(Locale.ROOT, " %.1f |", t[t.length / 2]));
                    }
                    System.out.println(row);
                    ctx.free(in);
                    ctx.free(off);
                    ctx.free(out);
                }
            }
        }
    }

    /** Offsets over [0, n): power-law (Pareto 1.1, capped at 2^20) or uniform 1-8 lengths, the last one cut at n. */
    private static long[] offsets(String lengths, long n, SplittableRandom random) {
        List<Long> o = new ArrayList<>(List.of(0L));
        while (o.getLast() < n) {
            long length = lengths.equals("uniform8") ? 1 + random.nextInt(8)
                    : (long) Math.min(1 << 20, Math.floor(Math.pow(1 - random.nextDouble(), -1 / 1.1) - 1));
            o.add(Math.min(n, o.getLast() + length));
        }
        return o.stream().mapToLong(Long::longValue).toArray();
    }
}
