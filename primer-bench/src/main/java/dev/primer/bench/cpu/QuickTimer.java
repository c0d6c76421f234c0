package dev.primer.bench.cpu;

import dev.primer.DType;
import dev.primer.Op;
import dev.primer.cpu.CpuReduce;
import dev.primer.cpu.CpuScan;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.ForkJoinPool;

/**
 * A quick timer beside JMH for a noisy machine: runs each case many times and prints the minimum and
 * the median time (the minimum approximates the undisturbed time when other work shares the cores).
 * {@code java -cp benchmarks.jar --add-modules jdk.incubator.vector dev.primer.bench.cpu.QuickTimer n reps [threads] [cases...]}
 * Cases {@code segflagsK} and {@code segoffsetsK}: a float32 SUM segmented scan, a head every K elements.
 */
public final class QuickTimer {
    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]), reps = Integer.parseInt(args[1]);
        int threads = args.length > 2 ? Integer.parseInt(args[2]) : 0;
        String[] cases = args.length > 3 ? Arrays.copyOfRange(args, 3, args.length)
                : new String[] {"int32", "jdkInt32", "int64", "jdkInt64", "int32to64", "float32", "float64", "jdkFloat64", "sum32", "streamSum"};
        Random random = new Random(1);
        int[] ints = random.ints(n).toArray();
        long[] longs = random.longs(n).toArray(), widened = new long[n];
        float[] floats = new float[n];
        for (int i = 0; i < n; i++) floats[i] = random.nextFloat();
        double[] doubles = random.doubles(n).toArray();
        // Primer's cases and the memory ceilings run on 64-byte-aligned native copies, as the public
        // API's arrays are; -Dquick.heap=true runs them on the heap arrays themselves (a path no public
        // call takes, and slower in the kernels).
        boolean heap = Boolean.getBoolean("quick.heap");
        MemorySegment is = primerCopy(ints, heap), ls = primerCopy(longs, heap), ws = primerCopy(widened, heap),
                fs = primerCopy(floats, heap), ds = primerCopy(doubles, heap);
        float[] fsum = floats.clone();
        MemorySegment fsumSeg = primerCopy(fsum, heap);
        for (String c : cases) {
            Runnable r = c.matches("seg(flags|offsets)\\d+") ? segmented(c, fsumSeg, n, heap) : switch (c) {
                case "int32" -> () -> CpuScan.scan(DType.INT, DType.INT, Op.SUM, true, 0, is, is, n);
                case "jdkInt32" -> () -> Arrays.parallelPrefix(ints, Integer::sum);
                case "int64" -> () -> CpuScan.scan(DType.LONG, DType.LONG, Op.SUM, true, 0, ls, ls, n);
                case "jdkInt64" -> () -> Arrays.parallelPrefix(longs, Long::sum);
                case "int32to64" -> () -> CpuScan.scan(DType.INT, DType.LONG, Op.SUM, true, 0, is, ws, n);
                // float scans in place on values that grow to infinity: the same speed (no subnormals)
                case "float32" -> () -> CpuScan.scan(DType.FLOAT, DType.FLOAT, Op.SUM, true, 0, fs, fs, n);
                case "float64" -> () -> CpuScan.scan(DType.DOUBLE, DType.DOUBLE, Op.SUM, true, 0, ds, ds, n);
                case "jdkFloat64" -> () -> Arrays.parallelPrefix(doubles, Double::sum);
                case "sum32" -> () -> CpuReduce.reduceFloating(DType.FLOAT, Op.SUM, fsumSeg, n);
                case "streamSum" -> () -> java.util.stream.IntStream.range(0, n).mapToDouble(i -> fsum[i]).sum();
                // the memory ceiling: a plain 8-accumulator float read loop, one thread / two (halves)
                case "read1" -> () -> MemoryBenchmark.read(fsumSeg, 0, (long) n * 4);
                case "read2" -> () -> {
                    long half = (long) n * 2;
                    var other = java.util.concurrent.ForkJoinPool.commonPool().submit(() -> MemoryBenchmark.read(fsumSeg, half, 2 * half));
                    MemoryBenchmark.read(fsumSeg, 0, half);
                    other.join();
                };
                case "update2" -> {  // an in-place read + write pass, halves on two threads, on its own copy
                    if (n % 32 != 0) throw new IllegalArgumentException("update2: n must be a multiple of 32 (64-byte steps per half)");
                    MemorySegment updated = primerCopy(floats.clone(), heap);
                    long half = (long) n * 2;
                    yield () -> {
                        var other = java.util.concurrent.ForkJoinPool.commonPool().submit(() -> MemoryBenchmark.update(updated, half, 2 * half));
                        MemoryBenchmark.update(updated, 0, half);
                        other.join();
                    };
                }
                default -> throw new IllegalArgumentException(c);
            };
            Runnable timed = r;
            long[] t = new long[reps];
            ForkJoinPool pool = threads > 0 ? new ForkJoinPool(threads) : null;
            for (int k = 0; k < reps; k++) {
                long t0 = System.nanoTime();
                if (pool != null) pool.submit(timed).get(); else timed.run();
                t[k] = System.nanoTime() - t0;
            }
            if (pool != null) pool.shutdown();
            Arrays.sort(t);
            // use the last half (after warm-up) only
            long[] late = t; // sorted; warm-up outliers fall at the top
            double min = late[0] / 1e3, med = late[reps / 2] / 1e3;
            System.out.printf("%-12s n=%-10d min %10.1f us  median %10.1f us%n", c, n, min, med);
        }
    }

    /** The array's contents in 64-byte-aligned native memory (as Primer's CPU arrays), or the array itself. */
    private static MemorySegment primerCopy(Object array, boolean heap) {
        MemorySegment source = switch (array) {
            case byte[] a -> MemorySegment.ofArray(a);
            case int[] a -> MemorySegment.ofArray(a);
            case long[] a -> MemorySegment.ofArray(a);
            case float[] a -> MemorySegment.ofArray(a);
            case double[] a -> MemorySegment.ofArray(a);
            default -> throw new IllegalArgumentException(array.getClass().toString());
        };
        return heap ? source : Arena.global().allocate(source.byteSize(), 64).copyFrom(source);
    }

    /** "segflags8" / "segoffsets8": an inclusive float32 SUM segmented scan, a head every 8 elements, by flags or by offsets. */
    private static Runnable segmented(String c, MemorySegment values, int n, boolean heap) {
        int every = Integer.parseInt(c.replaceAll("\\D", ""));
        MemorySegment out = primerCopy(new float[n], heap);
        if (c.startsWith("segflags")) {
            byte[] flags = new byte[n];
            for (int i = 0; i < n; i += every) flags[i] = 1;
            MemorySegment f = primerCopy(flags, heap);
            return () -> CpuScan.segmentedScanByFlags(DType.FLOAT, Op.SUM, true, 0, values, f, out, n);
        }
        long[] offsets = java.util.stream.LongStream.concat(java.util.stream.LongStream.iterate(0, i -> i < n, i -> i + every),
                java.util.stream.LongStream.of(n)).toArray();
        MemorySegment o = primerCopy(offsets, heap);
        return () -> CpuScan.segmentedScanByOffsets(DType.FLOAT, Op.SUM, true, 0, values, o, offsets.length - 1, out);
    }
}
