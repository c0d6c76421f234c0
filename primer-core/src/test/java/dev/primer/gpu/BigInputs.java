package dev.primer.gpu;

import dev.primer.CustomOp;
import dev.primer.cuda.CudaContext;
import org.junit.jupiter.api.Assumptions;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.function.IntBinaryOperator;
import java.util.function.LongPredicate;
import java.util.function.LongToIntFunction;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Device arrays of more than 2^31 elements for the GPU tests, made and checked a chunk at a time:
 * each element is a hash of its index, so the host never holds the whole array or its reference.
 */
final class BigInputs {
    private BigInputs() {}

    /** The tag of tests over arrays this large: the sanitizer stage leaves them out (scripts/gpu-suite.sh). */
    static final String TAG = "large";

    /** Elements per chunk moved between host and device. */
    static final long CHUNK = 1L << 26;

    /**
     * Skips the test unless the device has {@code bytes} free and 1 GiB more (the kernels' scratch,
     * the context's own buffers).
     */
    static void assumeFreeMemory(CudaContext ctx, long bytes) {
        long need = bytes + (1L << 30);
        Assumptions.assumeTrue(ctx.memoryInfo()[0] > need,
                () -> "needs " + ((need + (1L << 30) - 1) >> 30) + " GiB of free device memory");
    }

    /** Element i: an integer in [-1000, 1000] from the high half of {@link #mix}(i) (a multiply, not a division: 2^31 of them per pass). */
    static int value(long i) {
        return (int) (((mix(i) >>> 32) * 2001) >>> 32) - 1000;
    }

    /** A 64-bit hash of i (splitmix64's finalizer); its low bits are free for choosing heads and the like. */
    static long mix(long i) {
        long z = i * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 31)) * 0xBF58476D1CE4E5B9L;
        return z ^ (z >>> 29);
    }

    /** Element i as an affine map x -> m*x + c mod 2^16 with m odd, packed (m << 16 | c) as CustomScanOps.AFFINE16 takes it. */
    static int affine16(long i) {
        long h = mix(i);
        return (int) ((((h >>> 48) | 1) << 16) | (h & 0xFFFF));
    }

    /** Element i as an affine map x -> m*x + c mod 16 with m odd, packed (m << 4 | c) as CustomScanOps.AFFINE4 takes it. */
    static int affine4(long i) {
        long h = mix(i);
        return (int) ((((h >>> 60) | 1) << 4) | (h & 15));
    }

    /** What a chunk of elements [start, start + count) is filled with, or checked against. */
    interface Chunk {
        void accept(MemorySegment host, long start, long count);
    }

    /** Fills device array {@code device} of n elements of {@code elementBytes} a chunk at a time. */
    static void upload(CudaContext ctx, long device, long n, int elementBytes, Chunk fill) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment host = arena.allocate(elementBytes * Math.min(CHUNK, Math.max(n, 1)), 8);
            for (long start = 0; start < n; start += CHUNK) {
                long count = Math.min(CHUNK, n - start);
                fill.accept(host, start, count);
                ctx.copyToDevice(device + elementBytes * start, host, elementBytes * count);
            }
        }
    }

    /** Fills int32 device array {@code device} of n elements with value(0 .. n-1). */
    static void uploadInts(CudaContext ctx, long device, long n, LongToIntFunction value) {
        upload(ctx, device, n, 4, (host, start, count) -> {
            for (long j = 0; j < count; j++) host.setAtIndex(ValueLayout.JAVA_INT, j, value.applyAsInt(start + j));
        });
    }

    /** Fills int8 device array {@code device} of n elements with value(0 .. n-1), each narrowed to a byte. */
    static void uploadBytes(CudaContext ctx, long device, long n, LongToIntFunction value) {
        upload(ctx, device, n, 1, (host, start, count) -> {
            for (long j = 0; j < count; j++) host.set(ValueLayout.JAVA_BYTE, j, (byte) value.applyAsInt(start + j));
        });
    }

    /**
     * Every element of the int32 scan at {@code out} against the host's left fold of value(i) with
     * op, restarting from init at each i where head holds (i == 0 at least); inclusive or exclusive.
     */
    static void checkIntScan(CudaContext ctx, long out, long n, LongToIntFunction value, IntBinaryOperator op,
                             LongPredicate head, boolean inclusive, int init) {
        checkScan(ctx, out, n, 4, value, (acc, v) -> op.applyAsInt((int) acc, v), head, inclusive, init);
    }

    /** As {@link #checkIntScan}, for an int64 sum scan of int32 values at {@code out} (nothing wraps). */
    static void checkLongSumScan(CudaContext ctx, long out, long n, LongToIntFunction value, LongPredicate head,
                                 boolean inclusive, long init) {
        checkScan(ctx, out, n, 8, value, (acc, v) -> acc + v, head, inclusive, init);
    }

    /** As {@link #checkIntScan}, for an int8 scan at {@code out} (value(i) narrowed to a byte). */
    static void checkByteScan(CudaContext ctx, long out, long n, LongToIntFunction value, CustomOp.ByteBinaryOperator op,
                              LongPredicate head, boolean inclusive, byte init) {
        checkScan(ctx, out, n, 1, value, (acc, v) -> op.applyAsByte((byte) acc, (byte) v), head, inclusive, init);
    }

    /**
     * The scan of {@code elementBytes}-byte integers at {@code out}, read back sign-extended, against
     * the host's left fold of value(i) by step (which narrows as the output does), restarting from
     * init at each i where head holds; inclusive or exclusive.
     */
    private static void checkScan(CudaContext ctx, long out, long n, int elementBytes, LongToIntFunction value,
                                  LongIntToLong step, LongPredicate head, boolean inclusive, long init) {
        long[] acc = {init};
        download(ctx, out, n, elementBytes, (host, start, count) -> {
            for (long j = 0; j < count; j++) {
                long i = start + j;
                if (head.test(i)) acc[0] = init;
                long before = acc[0];
                acc[0] = step.apply(acc[0], value.applyAsInt(i));
                long want = inclusive ? acc[0] : before;
                long got = switch (elementBytes) {
                    case 1 -> host.get(ValueLayout.JAVA_BYTE, j);
                    case 4 -> host.getAtIndex(ValueLayout.JAVA_INT, j);
                    default -> host.getAtIndex(ValueLayout.JAVA_LONG, j);
                };
                if (got != want) {
                    fail((inclusive ? "inclusive" : "exclusive") + " int" + 8 * elementBytes + " element " + i + ": " + got
                            + ", expected " + want);
                }
            }
        });
    }

    /** One step of a left fold: the accumulator (as wide as the output) and the next int value. */
    private interface LongIntToLong {
        long apply(long acc, int value);
    }

    /** Reads device array {@code device} of n elements of {@code elementBytes} back a chunk at a time, in order. */
    static void download(CudaContext ctx, long device, long n, int elementBytes, Chunk check) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment host = arena.allocate(elementBytes * Math.min(CHUNK, Math.max(n, 1)), 8);
            for (long start = 0; start < n; start += CHUNK) {
                long count = Math.min(CHUNK, n - start);
                ctx.copyToHost(host, device + elementBytes * start, elementBytes * count);
                check.accept(host, start, count);
            }
        }
    }
}
