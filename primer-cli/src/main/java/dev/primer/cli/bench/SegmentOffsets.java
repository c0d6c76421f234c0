package dev.primer.cli.bench;

import dev.primer.DType;
import dev.primer.io.Npy;
import dev.primer.io.NpyArray;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.function.ToLongFunction;

/**
 * Power-law segment offsets for the segmented-reduce benchmark. bench/baselines.py draws lengths
 * floor(pareto(1.2) + 1) clipped to [1, 2^20] with NumPy's generator (seed 20240601) and can save
 * them (--segments-out); reading that file makes both sides reduce exactly the same segments. NumPy's
 * generator cannot be reproduced in Java, so without a file the same distribution is drawn from a
 * seeded SplittableRandom instead, and the record says so.
 */
record SegmentOffsets(MemorySegment offsets, long segments, long values, String origin) {
    static final long SEED = 20240601L;
    private static final double PARETO_SHAPE = 1.2;
    private static final long MAX_LENGTH = 1L << 20;

    static SegmentOffsets load(Path file, Arena arena) throws IOException {
        NpyArray npy = Npy.read(file, arena);
        if (npy.dtype() != DType.LONG || npy.rank() != 1 || npy.length() < 1) {
            throw new IOException(file + ": expected a 1-d int64 array of segment offsets, got " + npy);
        }
        MemorySegment o = npy.data();
        long count = npy.length();
        if (o.getAtIndex(ValueLayout.JAVA_LONG, 0) != 0) throw new IOException(file + ": offsets must start at 0");
        for (long i = 1; i < count; i++) {
            if (o.getAtIndex(ValueLayout.JAVA_LONG, i) < o.getAtIndex(ValueLayout.JAVA_LONG, i - 1)) {
                throw new IOException(file + ": offsets decrease at index " + i);
            }
        }
        return new SegmentOffsets(o, count - 1, o.getAtIndex(ValueLayout.JAVA_LONG, count - 1),
                "offsets read from " + file + " (bench/baselines.py --segments-out: the same segments as the baselines)");
    }

    /** Lengths from a Lomax/Pareto(1.2) law as NumPy's pareto + 1, floored, clipped, the last trimmed to end at n. */
    static SegmentOffsets generate(long n, Arena arena) {
        return drawn(n, arena, random -> {
            double pareto = Math.pow(1 - random.nextDouble(), -1 / PARETO_SHAPE) - 1;  // NumPy's pareto(a): Lomax
            return Math.clamp((long) Math.floor(pareto + 1), 1, MAX_LENGTH);
        }, "power-law lengths drawn in Java (SplittableRandom seed " + SEED + "): NOT the baselines' segments;"
                + " pass --segments FILE.npy (baselines.py --segments-out) to compare like with like");
    }

    /** Lengths uniform in [1, maxLength], the last trimmed to end at n: short segments, evenly shared. */
    static SegmentOffsets uniform(long n, int maxLength, Arena arena) {
        return drawn(n, arena, random -> 1 + random.nextInt(maxLength),
                "lengths uniform in [1, " + maxLength + "] drawn in Java (SplittableRandom seed " + SEED + ")");
    }

    private static SegmentOffsets drawn(long n, Arena arena, ToLongFunction<SplittableRandom> length, String origin) {
        SplittableRandom random = new SplittableRandom(SEED);
        long capacity = Math.max(16, n / 4);
        MemorySegment o = arena.allocate(8 * (capacity + 1), 8);
        long count = 0, end = 0;
        while (end < n) {
            end = Math.min(n, end + length.applyAsLong(random));
            if (count + 1 > capacity) {
                MemorySegment bigger = arena.allocate(8 * (2 * capacity + 1), 8);
                bigger.copyFrom(o);
                o = bigger;
                capacity *= 2;
            }
            o.setAtIndex(ValueLayout.JAVA_LONG, ++count, end);
        }
        o.setAtIndex(ValueLayout.JAVA_LONG, 0, 0);
        return new SegmentOffsets(o.asSlice(0, 8 * (count + 1)), count, n, origin);
    }

    long offset(long i) { return offsets.getAtIndex(ValueLayout.JAVA_LONG, i); }
}
