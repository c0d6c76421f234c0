package dev.primer.cli.bench;

import dev.primer.DType;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import java.util.stream.LongStream;

/**
 * Random host data with the distributions of bench/baselines.py: floats uniform in [0, 1), integers
 * uniform in [-1000, 1000). Generated in parallel chunks, each from its own seed, so the contents
 * depend only on the seed. The segment must be accessible from any thread (a shared or auto arena).
 */
final class RandomHost {
    private static final long CHUNK = 1L << 20;

    private RandomHost() {}

    static MemorySegment fill(MemorySegment segment, DType type, long n, long seed) {
        return inChunks(segment, n, seed, (random, i) -> {
            switch (type) {
                case FLOAT -> segment.setAtIndex(ValueLayout.JAVA_FLOAT, i, (float) random.nextDouble());
                case DOUBLE -> segment.setAtIndex(ValueLayout.JAVA_DOUBLE, i, random.nextDouble());
                case INT -> segment.setAtIndex(ValueLayout.JAVA_INT, i, random.nextInt(-1000, 1000));
                case LONG -> segment.setAtIndex(ValueLayout.JAVA_LONG, i, random.nextLong(-1000, 1000));
                case BYTE -> segment.set(ValueLayout.JAVA_BYTE, i, (byte) random.nextInt(-100, 100));
            }
        });
    }

    /**
     * Floats or doubles with integer values in [-8, 8]: while every prefix of a segment stays below
     * 2^23 in magnitude, every partial sum in any association is exact.
     */
    static MemorySegment smallIntegers(MemorySegment segment, DType type, long n, long seed) {
        if (!type.isFloatingPoint()) throw new IllegalArgumentException("floats only: " + type);
        return inChunks(segment, n, seed, (random, i) -> {
            int v = random.nextInt(-8, 9);
            if (type == DType.FLOAT) segment.setAtIndex(ValueLayout.JAVA_FLOAT, i, v);
            else segment.setAtIndex(ValueLayout.JAVA_DOUBLE, i, v);
        });
    }

    /**
     * Factors whose running products stay exact: doubles +1 or -1 (a product is a sign), odd longs
     * in [-999, 999] (odd products never reach zero, and wrap mod 2^64 as Java's do).
     */
    static MemorySegment factors(MemorySegment segment, DType type, long n, long seed) {
        return switch (type) {
            case DOUBLE -> inChunks(segment, n, seed,
                    (random, i) -> segment.setAtIndex(ValueLayout.JAVA_DOUBLE, i, random.nextBoolean() ? 1.0 : -1.0));
            case LONG -> inChunks(segment, n, seed,
                    (random, i) -> segment.setAtIndex(ValueLayout.JAVA_LONG, i, 2 * random.nextLong(-500, 500) + 1));
            default -> throw new IllegalArgumentException("doubles and longs only: " + type);
        };
    }

    /**
     * Positive floats whose bits rise strictly with the index (4 i plus 0..3 at random, up to 2.0):
     * every element is a new maximum, the running argmax's worst case.
     */
    static MemorySegment risingFloats(MemorySegment segment, long n, long seed) {
        if (n > 1L << 28) throw new IllegalArgumentException("at most 2^28 rising floats: " + n);
        return inChunks(segment, n, seed,
                (random, i) -> segment.setAtIndex(ValueLayout.JAVA_FLOAT, i, Float.intBitsToFloat((int) (4 * i) + random.nextInt(4))));
    }

    /** Sets element i from its chunk's generator. */
    private interface Element {
        void set(SplittableRandom random, long i);
    }

    /** Every element of [0, n), CHUNK at a time in parallel, each chunk with its own generator from seed. */
    private static MemorySegment inChunks(MemorySegment segment, long n, long seed, Element element) {
        long chunks = (n + CHUNK - 1) / CHUNK;
        LongStream.range(0, chunks).parallel().forEach(c -> {
            SplittableRandom random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + c);
            long end = Math.min(n, (c + 1) * CHUNK);
            for (long i = c * CHUNK; i < end; i++) element.set(random, i);
        });
        return segment;
    }

    /**
     * The segmented benchmarks' head flags: byte i is 1 with probability 1/1024, else 0. Sequential
     * from one seed (the same flags as before it was shared).
     */
    static MemorySegment headFlags(MemorySegment segment, long n, long seed) {
        return headFlags(segment, n, seed, 1024);
    }

    /** Head flags with probability 1/oneIn each. */
    static MemorySegment headFlags(MemorySegment segment, long n, long seed, int oneIn) {
        SplittableRandom random = new SplittableRandom(seed);
        for (long i = 0; i < n; i++) segment.set(ValueLayout.JAVA_BYTE, i, (byte) (random.nextInt(oneIn) == 0 ? 1 : 0));
        return segment;
    }

    /** Fills every byte (transfer tests: contents do not matter, but they are never all zeros). */
    static MemorySegment fillBytes(MemorySegment segment, long seed) {
        long words = segment.byteSize() / 8;
        long chunks = (words + CHUNK - 1) / CHUNK;
        LongStream.range(0, chunks).parallel().forEach(c -> {
            SplittableRandom random = new SplittableRandom(seed + c);
            long end = Math.min(words, (c + 1) * CHUNK);
            for (long i = c * CHUNK; i < end; i++) segment.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i, random.nextLong());
        });
        for (long i = words * 8; i < segment.byteSize(); i++) segment.set(ValueLayout.JAVA_BYTE, i, (byte) 0x5A);
        return segment;
    }
}
