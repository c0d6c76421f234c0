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
 * (Pareto 1.1, up to 2^20) and uniform 1-8 lengths, 2^16 to 2^24 values, by each route: AUTO (the
 * one launch while its tiles fit one wave, then the verdict's choice), and forced CLASSIC and
 * MERGE_PATH (behind the offsets' check and its verdict's round trip, as AUTO takes them beyond one
 * wave). Host wall time of a call and a synchronize, in us,
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
        launchCosts(ctx);
        String[] routes = {"AUTO", "CLASSIC", "MERGE_PATH"};
        System.out.println("| lengths | values | segments | one launch: items, tiles | AUTO us | classic us | merge path us |");
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
                    int items = oneLaunchItems(ctx, n + segments);
                    StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "| %s | 2^%d | %d | %d, %d |", lengths,
                            log2, segments, items, Math.ceilDiv(n + segments, 256L * items)));
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

    /** SegmentedReducePolicy.oneLaunchItems on this GPU for float32 (the merge path's 23 steps at most). */
    private static int oneLaunchItems(CudaContext ctx, long steps) {
        long perSm = Math.ceilDiv(steps, 256L * ctx.device().multiprocessorCount());
        return (int) Math.min(23, Math.max(4, perSm));
    }

    /**
     * What one call's pieces cost on 2^16 power-law float32 values, median of 500 in us: the one
     * launch (at the host's steps per thread) launched cooperatively and launched plainly (safe here:
     * under a hundred blocks on an idle GPU), each waited for by its verdict (host wall time) and
     * timed by events around it (GPU time); the offsets' check alone with its verdict; a one-block
     * fill and a synchronize; the merge path's three kernels alone (after the check; 14 tiles of 23
     * steps per thread); a fill of 14 blocks.
     */
    private static void launchCosts(CudaContext ctx) {
        long n = 1 << 16;
        long[] offsets = offsets("powerlaw", n, new SplittableRandom(16));
        long segments = offsets.length - 1, tiles = Math.ceilDiv(n + segments, 256 * 23);
        int items = oneLaunchItems(ctx, n + segments);
        long oneTiles = Math.ceilDiv(n + segments, 256L * items);
        try (Arena arena = Arena.ofConfined()) {
            long in = ctx.allocate(4 * n), off = ctx.allocate(8 * (segments + 1)), out = ctx.allocate(4 * segments);
            long scratchBytes = 1 << 20, scratch = ctx.allocate(scratchBytes);
            ctx.memset8(in, (byte) 0, 4 * n);
            ctx.memset8(scratch, (byte) 0, scratchBytes);
            ctx.copyToDevice(off, arena.allocateFrom(JAVA_LONG, offsets), 8 * (segments + 1));
            var one = ctx.module("segmented_reduce").kernel("segreduce_one_launch_sum_f32");
            var check = ctx.module("segmented_reduce").kernel("segreduce_check_offsets");
            var fill = ctx.module("fill").kernel("fill_u64");
            var start = ctx.newEvent();
            var stop = ctx.newEvent();
            var walk = ctx.module("segmented_reduce").kernel("segreduce_merge_path_sum_f32");
            var fixup = ctx.module("segmented_reduce").kernel("segreduce_merge_path_fixup_sum_f32");
            String[] names = {"one launch, cooperative", "one launch, plain", "check alone", "fill + synchronize",
                    "partition alone", "tiles alone", "fixup alone", "fill, 14 blocks"};
            int kinds = names.length;
            double[][] wall = new double[kinds][500], gpu = new double[kinds][500];
            for (int rep = -100; rep < 500; rep++) {
                for (int k = 0; k < kinds; k++) {
                    final int kind = k;
                    long t0 = System.nanoTime();
                    start.record();
                    if (kind >= 3) {
                        switch (kind) {
                            case 3 -> fill.launch(1, 32, 0, out, 8L, 1L);
                            // The check's launch of searcher blocks alone: the partition (step 62 moved it there).
                            case 4 -> check.launch(Math.ceilDiv(tiles + 1, 256), 256, 0, off, segments, n, scratch, 0L,
                                    256L * 23, tiles, -1.0);  // -1: no route
                            case 5 -> walk.launch(tiles, 256, 0, in, off, segments, n, tiles, out, scratch);
                            case 6 -> fixup.launch(Math.ceilDiv(tiles, 8), 256, 0, off, segments, n, 256L * 23, tiles, out,
                                    scratch);
                            default -> fill.launch(tiles, 256, 0, out, 8L, 1L);
                        }
                        stop.record();
                        ctx.synchronize();
                    } else {
                        ctx.launchAndAwait(4, 0x5E6D_F00D_7CAF_E000L, verdict -> {
                            Object[] a = {in, off, segments, n, items, out, scratch, verdict};
                            if (kind == 0) one.launchCooperative(oneTiles, 256, 0, a);
                            else if (kind == 1) one.launch(oneTiles, 256, 0, a);
                            else check.launch(Math.ceilDiv(segments, 256), 256, 0, off, segments, n, scratch, verdict, 0L, 0L,
                                    -1.0);
                        });
                        stop.record();
                    }
                    long t1 = System.nanoTime();
                    ctx.synchronize();
                    if (rep >= 0) {
                        wall[k][rep] = (t1 - t0) / 1e3;
                        gpu[k][rep] = stop.elapsedMillis(start) * 1e3;
                    }
                }
            }
            System.out.println("| launch | host wall us (to the verdict) | GPU us (events) |");
            System.out.println("|---|---|---|");
            for (int k = 0; k < kinds; k++) {
                Arrays.sort(wall[k]);
                Arrays.sort(gpu[k]);
                System.out.println(String.format(Locale.ROOT, "| %s | %.1f | %.1f |", names[k], wall[k][250], gpu[k][250]));
            }
            System.out.println();
            for (long p : new long[] {in, off, out, scratch}) ctx.free(p);
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
