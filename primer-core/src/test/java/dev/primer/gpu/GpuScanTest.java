package dev.primer.gpu;

import dev.primer.JavaOps;
import dev.primer.DType;
import dev.primer.Op;
import dev.primer.cpu.CpuScan;
import dev.primer.cuda.Cuda;
import dev.primer.cuda.CudaContext;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.function.LongPredicate;
import java.util.function.LongToIntFunction;
import java.util.regex.Pattern;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The device scan against a Java reference: every operator x dtype, awkward sizes (0 too), slices that start
 * 1..3 elements past a 16-byte boundary (int8: every one of 0..15), in place, inclusive and exclusive
 * with an init, int32 and int8 sums into int64, segmented by flags and by offsets, bitwise run-to-run
 * identity of float sums, and argument errors. int8 results are also compared byte for byte with
 * {@link CpuScan}, the CPU backend.
 *
 * <p>Every output buffer is poisoned ({@link #POISON} bytes) before each run, with guard elements on both sides
 * (in place too: the buffer is poisoned before the input is copied in), and every element is
 * checked: integers, MIN/MAX and bitwise exactly (Float.compare / Double.compare
 * equality, so -0.0 != 0.0 and any NaN equals any NaN); float SUM against a double reference within
 * {@code (i / tileItems + 64) * u * (|init| + sum |x_j|)}, float PROD within
 * {@code (count + 64) * u * |reference|} (u = 2^-24 or 2^-53): the number of roundings on any element's
 * path is at most its tile number (the look-back's left fold) plus a few dozen inside the tile.
 */
class GpuScanTest {
    private static final long GUARD = 8;  // elements of poison on each side of an output
    // 0 last here and in the segmented size lists: the cases before it keep their random draws
    private static final int[] SIZES = {1, 2, 31, 33, 1023, 1025, 2049, 4095, 4097, (1 << 20) - 1, (1 << 20) + 1, 0};
    private static final DType[] TYPES = {DType.INT, DType.LONG, DType.FLOAT, DType.DOUBLE};

    private static CudaContext ctx;

    @BeforeEach
    void gpu() {
        Assumptions.assumeTrue(Cuda.isAvailable(), () -> "no GPU: " + Cuda.unavailableReason());
        ctx = Cuda.context();
    }

    // ---- plain scans ----

    @Test
    void everyOperatorAndTypeMatchesTheReference() {
        SplittableRandom random = new SplittableRandom(1);
        for (DType type : TYPES) {
            for (Op op : Op.values()) {
                if (!op.supports(type)) continue;
                int config = 0;
                for (int n : SIZES) {
                    int maxShift = 16 / type.byteSize() - 1;
                    for (int c = 0; c < 3; c++, config++) {
                        int inShift = (config * 5 + c) % (maxShift + 1);
                        int outShift = c == 1 ? (inShift + 1) % (maxShift + 1) : inShift;
                        boolean inclusive = c != 1;
                        long init = c == 0 ? GpuScan.identityBits(type, op) : someInit(type, op);
                        checkScan(type, type, op, inclusive, init, n, inShift, outShift, c == 2, random.nextLong());
                    }
                }
            }
        }
    }

    @Test
    void int32SumsIntoInt64() {
        SplittableRandom random = new SplittableRandom(2);
        for (int n : SIZES) {
            for (int shift = 0; shift < 4; shift++) {
                checkScan(DType.INT, DType.LONG, Op.SUM, shift % 2 == 0, shift * 1_000_000_007L, n, shift, (shift + 1) % 2,
                        false, random.nextLong());
            }
        }
    }

    /**
     * int32 values at and near the ends of their range summed into int64: the sum leaves the int32 range within
     * two elements, so a tile, a warp or a look-back step that adds before it widens wraps and fails. Sizes and
     * shifts put the end of the input on either side of tile boundaries.
     */
    @Test
    void int32NearItsLimitsSumsIntoInt64WithoutWrapping() {
        int tile = ScanPolicy.tileItems(DType.INT, false);
        SplittableRandom random = new SplittableRandom(21);
        try (Arena arena = Arena.ofConfined()) {
            for (int n : new int[] {tile - 1, tile + 1, 2 * tile + 3, (1 << 20) + 1}) {
                for (boolean positive : new boolean[] {true, false}) {
                    MemorySegment x = arena.allocate(4L * n, 8);
                    for (int i = 0; i < n; i++) {
                        int near = random.nextInt(1 << 16);
                        // mostly one sign, so the prefix runs far past 2^31 (or -2^31); a few of the other keep it honest
                        boolean flip = random.nextInt(8) == 0;
                        x.setAtIndex(ValueLayout.JAVA_INT, i, positive != flip ? Integer.MAX_VALUE - near : Integer.MIN_VALUE + near);
                    }
                    for (int shift = 0; shift < 4; shift += 3) {
                        long init = positive ? Integer.MAX_VALUE : Integer.MIN_VALUE;
                        checkScan(DType.INT, DType.LONG, Op.SUM, shift == 0, init, x, shift, shift == 0 ? 1 : 0, false);
                    }
                }
            }
        }
    }

    /**
     * For every input type and operator: the input's end just before, on and just after the first, second and
     * third tile boundary, counted from where the tile grid starts (shift elements before the input).
     */
    @Test
    void sizesAroundTileBoundaries() {
        SplittableRandom random = new SplittableRandom(22);
        for (DType type : new DType[] {DType.BYTE, DType.INT, DType.LONG, DType.FLOAT, DType.DOUBLE}) {
            int tile = ScanPolicy.tileItems(type, false), vector = 16 / type.byteSize();
            for (Op op : Op.values()) {
                if (!op.supports(type)) continue;
                for (int tiles = 1; tiles <= 3; tiles++) {
                    for (int delta = -1; delta <= 1; delta++) {
                        int shift = random.nextInt(vector);
                        long n = (long) tiles * tile + delta - shift;
                        boolean inclusive = random.nextBoolean();
                        long init = random.nextBoolean() ? GpuScan.identityBits(type, op)
                                : type == DType.BYTE ? byteInitBits(random) : someInit(type, op);
                        checkScan(type, type, op, inclusive, init, n, shift, random.nextInt(vector), false, random.nextLong());
                    }
                }
            }
        }
    }

    @Test
    void largeInputs() {
        int n = (1 << 24) + 7;
        checkScan(DType.FLOAT, DType.FLOAT, Op.SUM, true, GpuScan.identityBits(DType.FLOAT, Op.SUM), n, 1, 1, false, 3);
        checkScan(DType.INT, DType.INT, Op.SUM, false, 17, n, 3, 3, true, 4);
        checkScan(DType.DOUBLE, DType.DOUBLE, Op.MAX, true, GpuScan.identityBits(DType.DOUBLE, Op.MAX), n, 1, 0, false, 5);
        checkScan(DType.LONG, DType.LONG, Op.PROD, false, 3, n, 0, 1, false, 6);
    }

    @Test
    void floatSumsAreBitwiseIdenticalFromRunToRun() {
        long n = (1L << 24) + 7;
        for (DType type : new DType[] {DType.FLOAT, DType.DOUBLE}) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment x = randomInput(arena, type, Op.SUM, n, 7);
                long size = type.byteSize();
                long in = ctx.allocate(size * n + 16), out = ctx.allocate(size * n + 16);
                try {
                    ctx.copyToDevice(in + size, x, size * n);
                    MemorySegment first = null;
                    for (int run = 0; run < 5; run++) {
                        ctx.memset8(out, POISON, size * n + 16);
                        GpuScan.scan(ctx, type, type, Op.SUM, true, 0, in + size, out + 2 * size, n);
                        MemorySegment got = arena.allocate(size * n, 8);
                        ctx.copyToHost(got, out + 2 * size, size * n);
                        if (first == null) first = got;
                        else assertEquals(-1L, first.mismatch(got), type + " run " + run + " differs bitwise from run 0");
                    }
                } finally {
                    ctx.free(in);
                    ctx.free(out);
                }
            }
        }
    }

    /** More than 2^31 elements: 64-bit indices all the way. Needs ~26 GB of device memory. */
    @Test
    @Tag(BigInputs.TAG)
    void int32ToInt64SumBeyondTwoToThe31() {
        long n = (1L << 31) + 3;
        BigInputs.assumeFreeMemory(ctx, n * 4 + n * 8);
        long in = ctx.allocate(4 * n), out = ctx.allocate(8 * n);
        try {
            BigInputs.uploadInts(ctx, in, n, BigInputs::value);
            ctx.memset8(out, POISON, 8 * n);
            GpuScan.scan(ctx, DType.INT, DType.LONG, Op.SUM, true, 5, in, out, n);
            long[] acc = {5};
            BigInputs.download(ctx, out, n, 8, (host, start, count) -> {
                for (long j = 0; j < count; j++) {
                    acc[0] += BigInputs.value(start + j);
                    long got = host.getAtIndex(ValueLayout.JAVA_LONG, j);
                    if (got != acc[0]) fail("element " + (start + j) + ": expected " + acc[0] + ", got " + got);
                }
            });
        } finally {
            ctx.free(in);
            ctx.free(out);
        }
    }

    /**
     * Segmented int32 scans over more than 2^31 elements, all over the same segments: sums by flags
     * (inclusive; integer sums look back as a tree) and by offsets (exclusive from an init), xor by
     * flags (the ordered look-back, on bare values) and max by offsets (exclusive from an init; its
     * interior tiles skip the bounds tests). About one head in 2^24 elements, one right
     * after 2^31, and a segment across 2^31: 64-bit element, flag, offset and tile indices. Then
     * the same sums into int64 (WIDENING SUMS), by flags and by offsets. Needs ~37 GB of device memory.
     */
    @Test
    @Tag(BigInputs.TAG)
    void segmentedInt32ScansBeyondTwoToThe31() {
        long n = (1L << 31) + 3;
        BigInputs.assumeFreeMemory(ctx, 2 * 4 * n + n + 8 * n);
        long firstPast = (1L << 31) + 1;
        LongPredicate head = i -> i == 0 || i == firstPast || (BigInputs.mix(i) & ((1L << 24) - 1)) == 0;
        long[] device = new long[5];  // in, out, flags, offsets, int64 out: each freed if it was allocated
        try {
            long in = device[0] = ctx.allocate(4 * n);
            long out = device[1] = ctx.allocate(4 * n);
            long flags = device[2] = ctx.allocate(n);
            List<Long> starts = new ArrayList<>();
            BigInputs.uploadInts(ctx, in, n, BigInputs::value);
            BigInputs.upload(ctx, flags, n, 1, (host, start, count) -> {
                for (long j = 0; j < count; j++) {
                    boolean h = head.test(start + j);
                    host.set(ValueLayout.JAVA_BYTE, j, (byte) (h ? 1 + (j & 0x7F) : 0));
                    if (h) starts.add(start + j);
                }
            });
            assertTrue(starts.size() > 64 && starts.contains(firstPast), "heads: " + starts.size());

            ctx.memset8(out, (byte) 0xA5, 4 * n);
            GpuScan.segmentedScanByFlags(ctx, DType.INT, Op.SUM, true, 0, in, flags, out, n);
            BigInputs.checkIntScan(ctx, out, n, BigInputs::value, Integer::sum, head, true, 0);

            ctx.memset8(out, (byte) 0xA5, 4 * n);
            GpuScan.segmentedScanByFlags(ctx, DType.INT, Op.XOR, true, 0, in, flags, out, n);
            BigInputs.checkIntScan(ctx, out, n, BigInputs::value, (a, b) -> a ^ b, head, true, 0);

            try (Arena arena = Arena.ofConfined()) {
                MemorySegment o = arena.allocate(8L * (starts.size() + 1), 8);
                for (int k = 0; k < starts.size(); k++) o.setAtIndex(ValueLayout.JAVA_LONG, k, starts.get(k));
                o.setAtIndex(ValueLayout.JAVA_LONG, starts.size(), n);
                device[3] = ctx.allocate(o.byteSize());
                ctx.copyToDevice(device[3], o, o.byteSize());
            }
            ctx.memset8(out, (byte) 0xA5, 4 * n);
            GpuScan.segmentedScanByOffsets(ctx, DType.INT, Op.SUM, false, 5, in, device[3], starts.size(), out, n);
            BigInputs.checkIntScan(ctx, out, n, BigInputs::value, Integer::sum, head, false, 5);
            ctx.memset8(out, (byte) 0xA5, 4 * n);
            GpuScan.segmentedScanByOffsets(ctx, DType.INT, Op.MAX, false, -7, in, device[3], starts.size(), out, n);
            BigInputs.checkIntScan(ctx, out, n, BigInputs::value, Math::max, head, false, -7);

            long wide = device[4] = ctx.allocate(8 * n);
            ctx.memset8(wide, (byte) 0xA5, 8 * n);
            GpuScan.segmentedScanByFlags(ctx, DType.INT, DType.LONG, Op.SUM, true, 0, in, flags, wide, n);
            BigInputs.checkLongSumScan(ctx, wide, n, BigInputs::value, head, true, 0);
            ctx.memset8(wide, (byte) 0xA5, 8 * n);
            GpuScan.segmentedScanByOffsets(ctx, DType.INT, DType.LONG, Op.SUM, false, -(1L << 40), in, device[3], starts.size(),
                    wide, n);
            BigInputs.checkLongSumScan(ctx, wide, n, BigInputs::value, head, false, -(1L << 40));
        } finally {
            for (long pointer : device) if (pointer != 0) ctx.free(pointer);
        }
    }

    // ---- int8 ----

    /** Sizes around one plain int8 tile (32768 items) and many tiles (4M: over 4 look-back windows). */
    private static final int[] BYTE_SIZES = {0, 1, 2, 15, 16, 17, 31, 33, 511, 513, 4095, 4097, (1 << 15) - 1, 1 << 15,
            (1 << 15) + 1, (1 << 16) + 1, (1 << 20) - 1, (1 << 20) + 1, 1_000_003, (1 << 22) + 5};

    @Test
    void int8EveryOperatorSizeAndOffset() {
        SplittableRandom random = new SplittableRandom(11);
        for (Op op : Op.values()) {
            int config = 0;
            for (int n : BYTE_SIZES) {
                for (int inShift = 0; inShift < 16; inShift++, config++) {
                    // 0: inclusive from the identity, out aligned like in (vector stores); 1: exclusive, out
                    // at another offset (element stores); 2: inclusive with an init, in place; 3: exclusive, in place.
                    int mode = config % 4;
                    boolean inclusive = mode == 0 || mode == 2, inPlace = mode >= 2;
                    int outShift = mode == 1 ? (inShift + 1 + (config / 4) % 15) % 16 : inShift;
                    long init = mode == 0 ? GpuScan.identityBits(DType.BYTE, op) : byteInitBits(random);
                    checkScan(DType.BYTE, DType.BYTE, op, inclusive, init, n, inShift, outShift, inPlace, random.nextLong());
                }
            }
        }
    }

    @Test
    void int8SumsIntoInt64() {
        SplittableRandom random = new SplittableRandom(12);
        // Inits that carry the sums across 2^31, 2^32 and (wrapping, as Java's long) 2^63.
        long[] inits = {0, 5, -1, (1L << 31) - 100, (1L << 32) - 3000, -(1L << 32) + 77, 0x1234_5678_9ABCL,
                Long.MAX_VALUE - 20_000};
        int config = 0;
        for (int n : BYTE_SIZES) {
            for (int inShift = 0; inShift < 16; inShift++, config++) {
                int outShift = (config / 2) % 2;  // int64 elements past a 16-byte boundary
                checkScan(DType.BYTE, DType.LONG, Op.SUM, config % 2 == 0, inits[random.nextInt(inits.length)], n, inShift,
                        outShift, false, random.nextLong());
            }
        }
    }

    /**
     * Segmented int8 scans by flags over more than 2^31 elements: every inner tile loads its rows'
     * flags in one go (FlagHeads::load_rows), the last one byte by byte. Sums inclusive and max
     * exclusive from an init with bit 7 set, about one head in 2^24, one right after 2^31 and a
     * segment across it; every element against the host's fold. Needs ~7 GB of device memory.
     */
    @Test
    @Tag(BigInputs.TAG)
    void segmentedInt8ScansByFlagsBeyondTwoToThe31() {
        long n = (1L << 31) + 19;
        BigInputs.assumeFreeMemory(ctx, 3 * n);
        long firstPast = (1L << 31) + 1;
        LongPredicate head = i -> i == 0 || i == firstPast || (BigInputs.mix(i) & ((1L << 24) - 1)) == 0;
        long[] device = new long[3];  // in, out, flags: each freed if it was allocated
        try {
            long in = device[0] = ctx.allocate(n);
            long out = device[1] = ctx.allocate(n);
            long flags = device[2] = ctx.allocate(n);
            BigInputs.uploadBytes(ctx, in, n, BigInputs::value);
            long[] heads = {0};
            BigInputs.upload(ctx, flags, n, 1, (host, start, count) -> {
                for (long j = 0; j < count; j++) {
                    boolean h = head.test(start + j);
                    host.set(ValueLayout.JAVA_BYTE, j, (byte) (h ? 0x80 | (j & 0x7F) : 0));  // negative flags count too
                    if (h) heads[0]++;
                }
            });
            assertTrue(heads[0] > 64, "heads: " + heads[0]);

            ctx.memset8(out, (byte) 0xA5, n);
            GpuScan.segmentedScanByFlags(ctx, DType.BYTE, Op.SUM, true, 0, in, flags, out, n);
            BigInputs.checkByteScan(ctx, out, n, BigInputs::value, (a, b) -> (byte) (a + b), head, true, (byte) 0);

            byte init = (byte) 0x85;
            ctx.memset8(out, (byte) 0xA5, n);
            GpuScan.segmentedScanByFlags(ctx, DType.BYTE, Op.MAX, false, init, in, flags, out, n);
            BigInputs.checkByteScan(ctx, out, n, BigInputs::value, (a, b) -> (byte) Math.max(a, b), head, false, init);
        } finally {
            for (long pointer : device) if (pointer != 0) ctx.free(pointer);
        }
    }

    /**
     * float32 over more than 2^31 elements (16 GiB in and out): values -1, 0 and 1 at random, so the
     * prefix sums (and the sum of any run of elements, whatever the association) are integers far
     * below 2^24: every output must equal the exact prefix sum.
     */
    @Test
    @Tag(BigInputs.TAG)
    void floatSumScanBeyondTwoToThe31() {
        long n = (1L << 31) + 3;
        BigInputs.assumeFreeMemory(ctx, 8 * n);
        LongToIntFunction unit = i -> (int) (((BigInputs.mix(i) >>> 32) * 3) >>> 32) - 1;
        long in = ctx.allocate(4 * n), out = ctx.allocate(4 * n);
        try {
            BigInputs.upload(ctx, in, n, 4, (host, start, count) -> {
                for (long j = 0; j < count; j++) host.setAtIndex(ValueLayout.JAVA_FLOAT, j, unit.applyAsInt(start + j));
            });
            ctx.memset8(out, POISON, 4 * n);
            GpuScan.scan(ctx, DType.FLOAT, DType.FLOAT, Op.SUM, true, GpuScan.identityBits(DType.FLOAT, Op.SUM), in, out, n);
            long[] acc = {0};
            BigInputs.download(ctx, out, n, 4, (host, start, count) -> {
                for (long j = 0; j < count; j++) {
                    acc[0] += unit.applyAsInt(start + j);
                    float got = host.getAtIndex(ValueLayout.JAVA_FLOAT, j);
                    if (got != (float) acc[0]) fail("element " + (start + j) + ": expected " + acc[0] + ", got " + got);
                }
            });
        } finally {
            ctx.free(in);
            ctx.free(out);
        }
    }

    /**
     * int64 over more than 2^31 elements (16 GiB in and out), exclusive sums from a random init, then an
     * inclusive max of the same input: the 8-byte scans' own paths at 64-bit indexes (rows scanned during
     * the look-back, outputs stored after it; max in tiles read blocked). Random 64-bit values; Java's
     * long arithmetic wraps as the scan's does, so every output is exact.
     */
    @Test
    @Tag(BigInputs.TAG)
    void int64ExclusiveSumAndInclusiveMaxScansBeyondTwoToThe31() {
        long n = (1L << 31) + 5;
        BigInputs.assumeFreeMemory(ctx, 16 * n);
        long init = BigInputs.mix(-1L);
        long in = ctx.allocate(8 * n), out = ctx.allocate(8 * n);
        try {
            BigInputs.upload(ctx, in, n, 8, (host, start, count) -> {
                for (long j = 0; j < count; j++) host.setAtIndex(ValueLayout.JAVA_LONG, j, BigInputs.mix(start + j));
            });
            ctx.memset8(out, POISON, 8 * n);
            GpuScan.scan(ctx, DType.LONG, DType.LONG, Op.SUM, false, init, in, out, n);
            long[] acc = {init};
            BigInputs.download(ctx, out, n, 8, (host, start, count) -> {
                for (long j = 0; j < count; j++) {
                    long got = host.getAtIndex(ValueLayout.JAVA_LONG, j);
                    if (got != acc[0]) fail("element " + (start + j) + ": expected " + acc[0] + ", got " + got);
                    acc[0] += BigInputs.mix(start + j);
                }
            });
            ctx.memset8(out, POISON, 8 * n);
            GpuScan.scan(ctx, DType.LONG, DType.LONG, Op.MAX, true, Long.MIN_VALUE, in, out, n);
            long[] max = {Long.MIN_VALUE};
            BigInputs.download(ctx, out, n, 8, (host, start, count) -> {
                for (long j = 0; j < count; j++) {
                    max[0] = Math.max(max[0], BigInputs.mix(start + j));
                    long got = host.getAtIndex(ValueLayout.JAVA_LONG, j);
                    if (got != max[0]) fail("max, element " + (start + j) + ": expected " + max[0] + ", got " + got);
                }
            });
        } finally {
            ctx.free(in);
            ctx.free(out);
        }
    }

    /** Positive int8 data whose sums pass 2^31 and 2^32 from a zero init: int64 all the way, status words included. */
    @Test
    void int8ToInt64SumPastTwoToThe32() {
        long n = (1L << 26) + 5;  // ~6.4e9 at the end: 64 MB in, 512 MB out
        long in = ctx.allocate(n + 16), out = ctx.allocate(8 * n + 16);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment x = arena.allocate(n, 16);
            for (long i = 0; i < n; i++) x.set(ValueLayout.JAVA_BYTE, i, (byte) (64 + Math.floorMod(BigInputs.value(i), 64)));  // mean ~95.5
            ctx.copyToDevice(in + 3, x, n);
            ctx.memset8(out, POISON, 8 * n + 16);
            GpuScan.scan(ctx, DType.BYTE, DType.LONG, Op.SUM, true, 0, in + 3, out + 8, n);
            MemorySegment got = arena.allocate(8 * n, 8);
            ctx.copyToHost(got, out + 8, 8 * n);
            long acc = 0;
            for (long i = 0; i < n; i++) {
                acc += x.get(ValueLayout.JAVA_BYTE, i);
                long g = got.getAtIndex(ValueLayout.JAVA_LONG, i);
                if (g != acc) fail("element " + i + ": expected " + acc + ", got " + g);
            }
            assertTrue(acc > (1L << 32), "the sums should pass 2^32: " + acc);
        } finally {
            ctx.free(in);
            ctx.free(out);
        }
    }

    /**
     * Segmented int8 min and max, heads placed by a warp's rows of 32 chunks of 16 items (BYTE EXTREMES in
     * scan_kernels.cuh masks a chunk's bytes before its last head): per row no head, a head at the row's first
     * item, in its last chunk, at a chunk's last item, two in one chunk, one in every chunk, or at random; a
     * third of the 32768-item stretches without any; data drifting into -128 and 127 and clamped there.
     */
    @Test
    void int8SegmentedMinAndMaxHeadsAtEveryPlaceInARow() {
        SplittableRandom random = new SplittableRandom(29);
        int n = 3 * 32768 + 4099, row = 512, chunk = 16;
        for (Op op : new Op[] {Op.MIN, Op.MAX}) {
            for (boolean byOffsets : new boolean[] {false, true}) {
                for (int shift : new int[] {0, 1 + random.nextInt(15)}) {
                    List<Long> starts = new ArrayList<>(List.of(0L));
                    for (int r = 0; r * row < n; r++) {
                        if ((r * row / 32768) % 3 == 1) continue;  // 32768 items without a head
                        int at = r * row;
                        int lane = random.nextInt(32);
                        switch (random.nextInt(7)) {
                            case 0 -> { }
                            case 1 -> starts.add((long) at);
                            case 2 -> starts.add((long) at + 31 * chunk + random.nextInt(chunk));
                            case 3 -> starts.add((long) at + lane * chunk + chunk - 1);
                            case 4 -> {
                                starts.add((long) at + lane * chunk + random.nextInt(chunk / 2));
                                starts.add((long) at + lane * chunk + chunk / 2 + random.nextInt(chunk / 2));
                            }
                            case 5 -> {
                                for (int l = 0; l < 32; l++) starts.add((long) at + l * chunk + random.nextInt(chunk));
                            }
                            default -> starts.add((long) at + random.nextInt(row));
                        }
                    }
                    starts.removeIf(at -> at >= n);
                    starts.add((long) n);
                    boolean inclusive = random.nextBoolean();
                    long init = random.nextBoolean() ? GpuScan.identityBits(DType.BYTE, op) : byteInitBits(random);
                    checkSegmentedAt(DType.BYTE, op, inclusive, init, n, shift, shift, starts, byOffsets,
                            byOffsets ? OFFSETS_PAD : 0, random.nextLong(), 1, "heads by rows");
                }
            }
        }
    }

    @Test
    void int8SegmentedByFlagsAndByOffsets() {
        SplittableRandom random = new SplittableRandom(13);
        // Around the tiles: 16384 items, 32768 for sums (SEGMENTED BYTE SUMS).
        int[] sizes = {1, 15, 17, 33, (1 << 14) + 1, (1 << 15) + 1, 100_003, (1 << 20) + 3, 0};
        double[] rates = {0, 0.001, 0.05, 0.7};
        for (boolean byOffsets : new boolean[] {false, true}) {
            for (Op op : Op.values()) {
                for (int n : sizes) {
                    for (int shift = 0; shift < 16; shift += n > 100_000 ? 5 : 1) {
                        double rate = rates[random.nextInt(rates.length)];
                        boolean inclusive = random.nextBoolean();
                        long init = inclusive && random.nextBoolean() ? GpuScan.identityBits(DType.BYTE, op) : byteInitBits(random);
                        // Flags at the data's offset (whole chunks' flags in one 16-byte load) or at another.
                        int flagShift = random.nextBoolean() ? shift : random.nextInt(16);
                        checkSegmented(DType.BYTE, op, inclusive, init, n, shift, flagShift, rate, byOffsets, random.nextLong(), 1);
                    }
                }
            }
        }
    }

    /** A random int8 init, as the bits callers may pass: sign-extended, the unsigned byte, or with junk above it. */
    private static long byteInitBits(SplittableRandom random) {
        byte b = (byte) random.nextInt(256);
        return switch (random.nextInt(3)) {
            case 0 -> b;
            case 1 -> b & 0xFFL;
            default -> (random.nextLong() & ~0xFFL) | (b & 0xFFL);  // only the low 8 bits count
        };
    }

    /**
     * One NaN with a payload of its own (a quiet positive one, a signaling negative one) among random
     * values with signed zeros, at element 0 or several tiles in: from it to the end of its segment
     * every MIN and MAX output is that NaN, bit for bit, as Math.min and Math.max return it; before
     * it, and in later segments, the running extreme. Inclusive and exclusive, aligned and not, plain
     * and segmented by flags and by offsets. A NaN init, over data without NaN, is every output.
     * (Plain float32 scans take a fast path wherever a warp meets no NaN: these are its ways back.
     * The others scan integer keys, whose way back must give the NaN's own bits, sign and payload.)
     */
    @Test
    void minAndMaxKeepTheBitsOfTheirNaN() {
        long n = 100_003;
        for (DType type : new DType[] {DType.FLOAT, DType.DOUBLE}) {
            long[] nans = type == DType.FLOAT ? new long[] {0x7FC0_1234L, 0xFF80_0001L}
                    : new long[] {0x7FF8_0000_0012_3456L, 0xFFF0_0000_0000_0001L};
            for (long nan : nans) {
                for (Op op : new Op[] {Op.MIN, Op.MAX}) {
                    checkMinMaxBits(type, op, nan, 40_009, n, false, true, 0, false);
                    checkMinMaxBits(type, op, nan, 40_009, n, true, true, 0, false);
                    checkMinMaxBits(type, op, nan, 0, n, false, false, 1, false);
                    checkMinMaxBits(type, op, nan, 77_777, n, true, false, 1, false);
                    checkNaNInit(type, op, nan, n);
                }
            }
        }
    }

    /**
     * Data of zeros only, mostly the one Math.max (Math.min) ranks lower, with a few of the other:
     * every MIN and MAX output, bit for bit, over several tiles, plain and segmented, inclusive and exclusive.
     */
    @Test
    void minAndMaxOrderSignedZeros() {
        for (DType type : new DType[] {DType.FLOAT, DType.DOUBLE}) {
            for (Op op : new Op[] {Op.MIN, Op.MAX}) {
                checkMinMaxBits(type, op, 0, -1, 100_003, false, true, 0, true);
                checkMinMaxBits(type, op, 0, -1, 100_003, true, false, 1, true);
            }
        }
    }

    /**
     * A MIN or MAX scan of n random values (zerosOnly: signed zeros) starting shift elements into the
     * buffer, with the NaN {@code nan} at nanAt (none if nanAt < 0), against a host fold, bit for bit.
     */
    private static void checkMinMaxBits(DType type, Op op, long nan, long nanAt, long n, boolean segmented, boolean inclusive,
                                        int shift, boolean zerosOnly) {
        String what = type + " " + op + (segmented ? " segmented" : "") + (inclusive ? " inclusive" : " exclusive") + " shift " + shift
                + (nanAt >= 0 ? " NaN 0x" + Long.toHexString(nan) + " at " + nanAt : "") + (zerosOnly ? " zeros" : "");
        boolean single = type == DType.FLOAT;
        long size = type.byteSize();
        SplittableRandom random = new SplittableRandom(nan ^ op.ordinal() ^ nanAt);
        double lower = op == Op.MAX ? -0.0 : 0.0;  // the zero Math.max (Math.min) ranks lower: the other one wins
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment x = arena.allocate(size * n, 8);
            byte[] heads = new byte[(int) n];
            for (long i = 0; i < n; i++) {
                double v = zerosOnly ? (random.nextInt(20_000) == 0 ? -lower : lower)
                        : random.nextInt(50) == 0 ? -0.0 : random.nextInt(50) == 0 ? 0.0 : random.nextDouble(-1000, 1000);
                if (single) x.setAtIndex(ValueLayout.JAVA_INT, i, Float.floatToRawIntBits((float) v));
                else x.setAtIndex(ValueLayout.JAVA_LONG, i, Double.doubleToRawLongBits(v));
                if (segmented && random.nextInt(5000) == 0) heads[(int) i] = 1;
            }
            if (nanAt >= 0) {
                if (single) x.setAtIndex(ValueLayout.JAVA_INT, nanAt, (int) nan);
                else x.setAtIndex(ValueLayout.JAVA_LONG, nanAt, nan);
                if (segmented && nanAt + 20_000 < n) heads[(int) (nanAt + 20_000)] = 1;  // the NaN's segment ends before the array
            }

            long[] expected = new long[(int) n];
            long init = GpuScan.identityBits(type, op);
            long running = init;
            boolean nanSeen = false;
            for (long i = 0; i < n; i++) {
                if (heads[(int) i] != 0) {
                    running = init;
                    nanSeen = false;
                }
                long before = running;
                long bits = single ? x.getAtIndex(ValueLayout.JAVA_INT, i) & 0xFFFF_FFFFL : x.getAtIndex(ValueLayout.JAVA_LONG, i);
                if (!nanSeen && nanAt >= 0 && bits == nan) {
                    nanSeen = true;
                    running = nan;
                } else if (!nanSeen) {
                    running = single
                            ? Float.floatToRawIntBits(extreme(op, Float.intBitsToFloat((int) running), Float.intBitsToFloat((int) bits)))
                                    & 0xFFFF_FFFFL
                            : Double.doubleToRawLongBits(extreme(op, Double.longBitsToDouble(running), Double.longBitsToDouble(bits)));
                }
                expected[(int) i] = inclusive ? running : before;
            }
            assertTrue(nanAt < 0 || nanSeen || segmented, what + ": the NaN was never reached");

            // Segmented: by flags, and by offsets (segment starts at 0 and at every flagged element).
            long[] starts = LongStream.concat(LongStream.range(1, n).filter(i -> heads[(int) i] != 0),
                    LongStream.of(n)).toArray();
            long inBuf = ctx.allocate(size * (n + shift)), outBuf = ctx.allocate(size * (n + shift)), flags = ctx.allocate(n);
            long offsets = ctx.allocate(8L * (starts.length + 1));
            try {
                long in = inBuf + size * shift, out = outBuf + size * shift;
                ctx.copyToDevice(in, x, size * n);
                ctx.copyToDevice(flags, MemorySegment.ofArray(heads), n);
                MemorySegment offsetsHost = arena.allocate(8L * (starts.length + 1), 8);
                offsetsHost.setAtIndex(ValueLayout.JAVA_LONG, 0, 0);
                for (int k = 0; k < starts.length; k++) offsetsHost.setAtIndex(ValueLayout.JAVA_LONG, k + 1, starts[k]);
                ctx.copyToDevice(offsets, offsetsHost, 8L * (starts.length + 1));
                for (int way = 0; way < (segmented ? 2 : 1); way++) {
                    ctx.memset8(outBuf, POISON, size * (n + shift));
                    if (!segmented) GpuScan.scan(ctx, type, type, op, inclusive, init, in, out, n);
                    else if (way == 0) GpuScan.segmentedScanByFlags(ctx, type, op, inclusive, init, in, flags, out, n);
                    else GpuScan.segmentedScanByOffsets(ctx, type, op, inclusive, init, in, offsets, starts.length, out, n);
                    MemorySegment got = arena.allocate(size * n, 8);
                    ctx.copyToHost(got, out, size * n);
                    for (long i = 0; i < n; i++) {
                        long g = single ? got.getAtIndex(ValueLayout.JAVA_INT, i) & 0xFFFF_FFFFL : got.getAtIndex(ValueLayout.JAVA_LONG, i);
                        if (g != expected[(int) i]) {
                            fail(what + (segmented ? way == 0 ? " by flags" : " by offsets" : "") + ": element " + i + " expected bits 0x"
                                    + Long.toHexString(expected[(int) i]) + ", got 0x" + Long.toHexString(g));
                        }
                    }
                }
            } finally {
                ctx.free(inBuf);
                ctx.free(outBuf);
                ctx.free(flags);
                ctx.free(offsets);
            }
        }
    }

    /**
     * A NaN init and no NaN in the data: every output, inclusive or exclusive, is the init's bits,
     * plain and segmented by flags (each segment starts with the init).
     */
    private static void checkNaNInit(DType type, Op op, long nan, long n) {
        long size = type.byteSize();
        SplittableRandom random = new SplittableRandom(nan + op.ordinal());
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment x = arena.allocate(size * n, 8);
            byte[] heads = new byte[(int) n];
            for (long i = 0; i < n; i++) {
                double v = random.nextDouble(-1000, 1000);
                if (type == DType.FLOAT) x.setAtIndex(ValueLayout.JAVA_FLOAT, i, (float) v);
                else x.setAtIndex(ValueLayout.JAVA_DOUBLE, i, v);
                if (random.nextInt(3000) == 0) heads[(int) i] = 1;
            }
            long in = ctx.allocate(size * n), out = ctx.allocate(size * n), flags = ctx.allocate(n);
            try {
                ctx.copyToDevice(in, x, size * n);
                ctx.copyToDevice(flags, MemorySegment.ofArray(heads), n);
                for (boolean segmented : new boolean[] {false, true}) {
                    for (boolean inclusive : new boolean[] {true, false}) {
                        ctx.memset8(out, POISON, size * n);
                        if (segmented) GpuScan.segmentedScanByFlags(ctx, type, op, inclusive, nan, in, flags, out, n);
                        else GpuScan.scan(ctx, type, type, op, inclusive, nan, in, out, n);
                        MemorySegment got = arena.allocate(size * n, 8);
                        ctx.copyToHost(got, out, size * n);
                        for (long i = 0; i < n; i++) {
                            long g = type == DType.FLOAT ? got.getAtIndex(ValueLayout.JAVA_INT, i) & 0xFFFF_FFFFL
                                    : got.getAtIndex(ValueLayout.JAVA_LONG, i);
                            if (g != nan) {
                                fail(type + " " + op + (segmented ? " segmented" : "") + (inclusive ? " inclusive" : " exclusive")
                                        + " init NaN 0x" + Long.toHexString(nan) + ": element " + i + " is 0x" + Long.toHexString(g));
                            }
                        }
                    }
                }
            } finally {
                ctx.free(in);
                ctx.free(out);
                ctx.free(flags);
            }
        }
    }

    private static float extreme(Op op, float a, float b) { return op == Op.MIN ? Math.min(a, b) : Math.max(a, b); }

    private static double extreme(Op op, double a, double b) { return op == Op.MIN ? Math.min(a, b) : Math.max(a, b); }

    // ---- segmented ----

    @Test
    void segmentedByFlagsMatchesTheReference() {
        SplittableRandom random = new SplittableRandom(8);
        int[] sizes = {1, 7, 33, 4097, 100_003, (1 << 20) + 3, 0};
        double[] rates = {0, 0.001, 0.05, 0.7};
        for (DType type : TYPES) {
            for (Op op : Op.values()) {
                if (!op.supports(type)) continue;
                for (int n : sizes) {
                    double rate = rates[random.nextInt(rates.length)];
                    int shift = random.nextInt(16 / type.byteSize());
                    checkSegmented(type, op, random.nextBoolean(), random.nextBoolean() ? someInit(type, op)
                            : GpuScan.identityBits(type, op), n, shift, rate, false, random.nextLong());
                }
            }
        }
    }

    @Test
    void segmentedByOffsetsMatchesTheReferenceAndTouchesNothingOutside() {
        SplittableRandom random = new SplittableRandom(9);
        int[] sizes = {1, 7, 33, 4097, 100_003, (1 << 20) + 3, 0};
        double[] rates = {0, 0.001, 0.05, 0.7};
        for (DType type : TYPES) {
            for (Op op : Op.values()) {
                if (!op.supports(type)) continue;
                for (int n : sizes) {
                    double rate = rates[random.nextInt(rates.length)];
                    int shift = random.nextInt(16 / type.byteSize());
                    checkSegmented(type, op, random.nextBoolean(), someInit(type, op), n, shift, rate, true, random.nextLong());
                }
            }
        }
    }

    /**
     * Segmented int32 and int8 sums into int64 (WIDENING SUMS and SEGMENTED BYTE SUMS in scan_kernels.cuh), by
     * flags and by offsets, inclusive and exclusive, from inits beyond the int32 range, over inputs that span their
     * whole type: around the tiles (8192 int32, 32768 int8 items), data and flags at every shift, one segment and
     * segments of every density. Every element against the sequential fold and the CPU backend; poison around.
     */
    @Test
    void segmentedSumsWidenIntoInt64() {
        SplittableRandom random = new SplittableRandom(61);
        double[] rates = {0, 0.0003, 0.01, 0.3, 1};
        for (DType type : new DType[] {DType.INT, DType.BYTE}) {
            long tile = ScanPolicy.tileItems(type, Op.SUM, true);
            long[] sizes = {1, 7, 33, tile - 1, tile, tile + 1, 3 * tile + 17, 100_003, (1 << 20) + 3, 0};
            for (long n : sizes) {
                for (boolean byOffsets : new boolean[] {false, true}) {
                    boolean inclusive = random.nextBoolean();
                    long init = inclusive && random.nextBoolean() ? 0 : random.nextLong();
                    int shift = random.nextInt(16 / type.byteSize());
                    checkSegmented(type, DType.LONG, Op.SUM, inclusive, init, n, shift, random.nextInt(4),
                            rates[random.nextInt(rates.length)], byOffsets, random.nextLong(), 1);
                }
            }
        }
    }

    /** Only SUM widens, only int32 and int8, and only into int64; a widening scan cannot be in place. */
    @Test
    void segmentedScansWidenOnlyInt32AndInt8SumsIntoInt64() {
        long in = ctx.allocate(64), out = ctx.allocate(128), flags = ctx.allocate(16);
        try {
            expect("outType", () -> GpuScan.segmentedScanByFlags(ctx, DType.INT, DType.LONG, Op.MAX, true, 0, in, flags, out, 4));
            expect("outType", () -> GpuScan.segmentedScanByFlags(ctx, DType.FLOAT, DType.DOUBLE, Op.SUM, true, 0, in, flags, out, 4));
            expect("outType", () -> GpuScan.segmentedScanByOffsets(ctx, DType.INT, DType.FLOAT, Op.SUM, true, 0, in, flags, 1, out, 4));
            expect("outType", () -> GpuScan.segmentedScanByOffsets(ctx, DType.BYTE, DType.INT, Op.SUM, true, 0, in, flags, 1, out, 4));
            expect("out", () -> GpuScan.segmentedScanByFlags(ctx, DType.INT, DType.LONG, Op.SUM, true, 0, in, flags, in, 4));
        } finally {
            ctx.free(in);
            ctx.free(out);
            ctx.free(flags);
        }
    }

    /**
     * About as many segment starts per tile as a tile keeps positions of in its slot
     * (ScanPolicy.SEGMENT_HEAD_SLOTS): some tiles take them from the slot, their neighbours with a few
     * more read the offsets, and some hold exactly that many.
     */
    @Test
    void segmentedByOffsetsAroundTheTileSlots() {
        SplittableRandom random = new SplittableRandom(21);
        for (DType type : new DType[] {DType.INT, DType.LONG, DType.FLOAT, DType.DOUBLE, DType.BYTE}) {
            for (Op op : new Op[] {Op.SUM, Op.MAX}) {
                long tile = ScanPolicy.tileItems(type, op, true);  // int8 sums: 256 x 8, their other scans 256 x 4
                // a start at this rate, and one in five of them doubled (an empty segment): ~31 and ~38 a tile
                for (double perTile : new double[] {26, 32}) {
                    checkSegmented(type, op, random.nextBoolean(), someInit(type, op), 60 * tile + 7,
                            random.nextInt(16 / type.byteSize()), perTile / tile, true, random.nextLong());
                }
            }
        }
    }

    /**
     * A tile keeps its first SEGMENT_HEAD_SLOTS (32) starts in a slot and reads more from the offsets: every count
     * around the limit, placed on purpose. A repeated offset counts as a start there (an empty segment), and the
     * probe at offsets[first + 32] may fall exactly on the next tile's first element or on offsets[segments].
     */
    @Test
    void segmentedByOffsetsWithStartsPlacedAroundTheSlotLimit() {
        SplittableRandom random = new SplittableRandom(32);
        for (DType type : new DType[] {DType.INT, DType.LONG, DType.FLOAT, DType.DOUBLE, DType.BYTE}) {
            for (Op op : new Op[] {Op.SUM, Op.MAX}) {  // int8 sums' tiles are twice their other scans'
                long tile = ScanPolicy.tileItems(type, op, true), n = 13 * tile + 40;
                List<Long> starts = new ArrayList<>();
                starts.add(0L);
                starts.addAll(startsIn(random, 1 * tile, tile, 32, true));            // 32: the slot, full
                starts.addAll(startsIn(random, 2 * tile, tile, 33, true));            // 33: the offsets
                starts.addAll(startsIn(random, 3 * tile, tile, 31, false));           // 31 + a repeat = 32
                starts.add(starts.getLast());
                starts.addAll(startsIn(random, 4 * tile, tile, 32, false));           // 32 + a repeat = 33
                starts.add(starts.getLast());
                starts.add(6 * tile - 1);                                             // one, the tile's last element
                for (int i = 0; i < 32; i++) starts.add(8 * tile + 17);               // 32 at one place: 31 empty
                starts.addAll(startsIn(random, 9 * tile, tile, 64, true));            // 64
                starts.addAll(startsIn(random, 10 * tile, tile, 32, false));          // 32, the 33rd on the next tile's
                starts.add(11 * tile);                                                //   first element
                starts.addAll(startsIn(random, 11 * tile + 1, tile - 1, 3, false));
                starts.addAll(startsIn(random, 13 * tile + 8, 32, 32, false));        // 32 in the last, short tile, then
                starts.add(n);                                                        //   offsets[segments]
                // Tiles begin at 16-byte boundaries of memory: by offsets, the data's first element (after OFFSETS_PAD
                // elements) lies on one when shift = -OFFSETS_PAD modulo a vector's elements, so the counts above are the
                // tiles'. Any other shift moves the tiles under the same starts.
                int vector = 16 / (int) type.byteSize(), aligned = (int) Math.floorMod(-OFFSETS_PAD, vector);
                for (int shift : new int[] {aligned, (aligned + 1 + random.nextInt(vector - 1)) % vector}) {
                    checkSegmentedAt(type, op, random.nextBoolean(), someInit(type, op), n, shift, 0, starts, true,
                            OFFSETS_PAD, random.nextLong(), 1, "starts around the slot limit");
                }
                checkSegmentedAt(type, op, random.nextBoolean(), someInit(type, op), n, 0, 1, starts, false, 0, random.nextLong(), 1,
                        "starts around the slot limit");
            }
        }
    }

    /**
     * The tile starts' search (segment_tile_starts: 8 lanes a tile, an 8-way cut of the offsets a round) over uneven
     * offsets: thousands of starts packed into the first tiles, long stretches of tiles without one, hundreds of
     * empty segments at one position (a run of equal offsets that a round's pieces cut through), sparse starts,
     * then a dense tail. A tile given a wrong first segment or slot scans with wrong heads, which its outputs show:
     * every element is checked.
     */
    @Test
    void segmentedByOffsetsWithStartsClusteredAndSpread() {
        SplittableRandom random = new SplittableRandom(53);
        for (DType type : new DType[] {DType.INT, DType.BYTE, DType.DOUBLE}) {
            for (Op op : new Op[] {Op.SUM, Op.MAX}) {  // int8 sums' tiles are twice their other scans'
                long tile = ScanPolicy.tileItems(type, op, true), n = 40 * tile + 123;
                List<Long> starts = new ArrayList<>();
                starts.add(0L);
                for (long i = 5; i < 3005; i++) starts.add(i);                          // every element a start
                long repeated = 25 * tile + 77;
                for (long k = 20 * tile; k < 35 * tile; k += tile / 3 + random.nextLong(tile)) {  // sparse, around
                    if (k > repeated && starts.getLast() < repeated) {
                        for (int i = 0; i < 700; i++) starts.add(repeated);              //   700 at one place
                    }
                    starts.add(k);
                }
                for (long i = n - 100; i < n; i++) starts.add(i);                       // a dense tail
                starts.add(n);
                checkSegmentedAt(type, op, random.nextBoolean(), someInit(type, op), n, random.nextInt(16 / (int) type.byteSize()),
                        0, starts, true, random.nextBoolean() ? OFFSETS_PAD : 0, random.nextLong(), 1, "starts clustered and spread");
            }
        }
    }

    /** count distinct positions in [from, from + length), sorted; the first and last of the range among them if ends. */
    private static List<Long> startsIn(SplittableRandom random, long from, long length, int count, boolean ends) {
        TreeSet<Long> at = new TreeSet<>();
        if (ends) {
            at.add(from);
            at.add(from + length - 1);
        }
        while (at.size() < count) at.add(from + random.nextLong(length));
        return new ArrayList<>(at);
    }

    @Test
    void segmentedFloatSumsAreBitwiseIdenticalFromRunToRun() {
        for (boolean byOffsets : new boolean[] {false, true}) {
            checkSegmented(DType.FLOAT, Op.SUM, true, 0, (1 << 22) + 5, 1, 0.0002, byOffsets, 10, 5);
        }
    }

    /**
     * The same segments give the same bits by flags, with and without a flag at element 0, and by offsets: element 0
     * is a head either way, so the first segment, like every other, folds init op x[0] first. Float sums and products
     * (whose association shows in the bits) with an init that is not the identity, every element compared.
     */
    @Test
    void segmentsGiveTheSameBitsByFlagsAndByOffsets() {
        SplittableRandom random = new SplittableRandom(41);
        for (DType type : new DType[] {DType.FLOAT, DType.DOUBLE}) {
            long size = type.byteSize(), n = 3 * ScanPolicy.tileItems(type, true) + 77;
            for (Op op : new Op[] {Op.SUM, Op.PROD}) {
                for (boolean inclusive : new boolean[] {true, false}) {
                    int shift = random.nextInt(16 / (int) size);
                    long init = type == DType.FLOAT ? Float.floatToRawIntBits(op == Op.SUM ? -0.3f : 1.1f)
                            : Double.doubleToRawLongBits(op == Op.SUM ? -0.3 : 1.1);
                    byte[] heads = new byte[(int) n];
                    List<Long> offsets = new ArrayList<>(List.of(0L));
                    for (int i = 1; i < n; i++) {
                        if (random.nextInt(50) == 0) {
                            heads[i] = 1;
                            offsets.add((long) i);
                        }
                    }
                    offsets.add(n);
                    String what = type + " " + op + (inclusive ? " inclusive" : " exclusive") + " shift=" + shift;
                    try (Arena arena = Arena.ofConfined()) {
                        MemorySegment x = randomInput(arena, type, op, n, random.nextLong());
                        MemorySegment noFlagAt0 = segmentedOutput(arena, type, op, inclusive, init, x, shift, heads, null);
                        heads[0] = 7;
                        MemorySegment flagAt0 = segmentedOutput(arena, type, op, inclusive, init, x, shift, heads, null);
                        MemorySegment byOffsets = segmentedOutput(arena, type, op, inclusive, init, x, shift, heads, offsets);
                        checkSameElements(what + ", by flags without flags[0] and with it", noFlagAt0, flagAt0, type);
                        checkSameElements(what + ", by flags and by offsets", noFlagAt0, byOffsets, type);
                    }
                }
            }
        }
    }

    /** A segmented scan's n outputs: by offsets (offsets given) or by the head flags. */
    private static MemorySegment segmentedOutput(Arena arena, DType type, Op op, boolean inclusive, long initBits, MemorySegment x,
                                                 int shift, byte[] heads, List<Long> offsets) {
        long size = type.byteSize(), n = heads.length, bytes = size * n + 16;
        long inBuf = ctx.allocate(bytes), outBuf = ctx.allocate(bytes), flags = ctx.allocate(n), off = ctx.allocate(8L * (n + 2));
        try {
            long in = inBuf + size * shift, out = outBuf + size * shift;
            ctx.copyToDevice(in, x, size * n);
            ctx.memset8(outBuf, POISON, bytes);
            if (offsets != null) {
                MemorySegment o = arena.allocate(ValueLayout.JAVA_LONG, offsets.size());
                for (int k = 0; k < offsets.size(); k++) o.setAtIndex(ValueLayout.JAVA_LONG, k, offsets.get(k));
                ctx.copyToDevice(off, o, o.byteSize());
                GpuScan.segmentedScanByOffsets(ctx, type, op, inclusive, initBits, in, off, offsets.size() - 1, out, n);
            } else {
                ctx.copyToDevice(flags, MemorySegment.ofArray(heads), n);
                GpuScan.segmentedScanByFlags(ctx, type, op, inclusive, initBits, in, flags, out, n);
            }
            MemorySegment got = arena.allocate(size * n, 8);
            ctx.copyToHost(got, out, size * n);
            return got;
        } finally {
            ctx.free(inBuf);
            ctx.free(outBuf);
            ctx.free(flags);
            ctx.free(off);
        }
    }

    @Test
    void zeroSegmentsAndEmptyRangesDoNothing() {
        long buf = ctx.allocate(64);
        try {
            ctx.memset8(buf, (byte) 0x5A, 64);
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment offsets = arena.allocate(ValueLayout.JAVA_LONG, 3);
                offsets.setAtIndex(ValueLayout.JAVA_LONG, 0, 2);
                offsets.setAtIndex(ValueLayout.JAVA_LONG, 1, 2);
                offsets.setAtIndex(ValueLayout.JAVA_LONG, 2, 2);
                long off = ctx.allocate(24);
                try {
                    ctx.copyToDevice(off, offsets, 24);
                    GpuScan.segmentedScanByOffsets(ctx, DType.INT, Op.SUM, true, 0, buf, off, 0, buf + 32, 8);  // no segments
                    GpuScan.segmentedScanByOffsets(ctx, DType.INT, Op.SUM, true, 0, buf, off, 2, buf, 16);  // two empty segments
                    // with no segments, offsets[0] is still checked against in, as on the CPU
                    expectUntouched("offsets", buf + 32, 32,
                            () -> GpuScan.segmentedScanByOffsets(ctx, DType.INT, Op.SUM, true, 0, buf, off, 0, buf + 32, 1));
                    ctx.memset8(off, (byte) 0xFF, 8);  // offsets[0] = -1
                    expectUntouched("offsets", buf + 32, 32,
                            () -> GpuScan.segmentedScanByOffsets(ctx, DType.INT, Op.SUM, true, 0, buf, off, 0, buf + 32, 8));
                    ctx.memset8(buf, (byte) 0x5A, 64);
                } finally {
                    ctx.free(off);
                }
                GpuScan.scan(ctx, DType.FLOAT, DType.FLOAT, Op.SUM, true, 0, buf, buf, 0);
                MemorySegment host = arena.allocate(64);
                ctx.copyToHost(host, buf, 64);
                for (int i = 0; i < 64; i++) assertEquals((byte) 0x5A, host.get(ValueLayout.JAVA_BYTE, i), "byte " + i);
            }
        } finally {
            ctx.free(buf);
        }
    }

    /**
     * Offsets that decrease anywhere between the ends (a million segments, so the check runs on many
     * blocks) are rejected before anything is written, naming the first decreasing pair; the same
     * call with the offsets mended then gives the right sums.
     */
    @Test
    void decreasingOffsetsAnywhereAreRejectedBeforeAnythingIsWritten() {
        int segments = (1 << 20) + 1, n = 3 * segments;
        long in = ctx.allocate(4L * n), out = ctx.allocate(4L * n), off = ctx.allocate(8L * (segments + 1));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment offsets = arena.allocate(ValueLayout.JAVA_LONG, segments + 1);
            ctx.memset8(in, (byte) 1, 4L * n);
            for (int[] bad : new int[][] {{1}, {(1 << 19) + 5}, {segments - 1}, {900_000, 700_001}, {12, 14}}) {
                for (int k = 0; k <= segments; k++) offsets.setAtIndex(ValueLayout.JAVA_LONG, k, 3L * k);
                for (int k : bad) offsets.setAtIndex(ValueLayout.JAVA_LONG, k, 3L * (k + 1) + 1);  // > offsets[k + 1]
                ctx.copyToDevice(off, offsets, 8L * (segments + 1));
                ctx.memset8(out, (byte) 0x5A, 4L * n);
                int first = java.util.Arrays.stream(bad).min().orElseThrow();
                for (boolean inclusive : new boolean[] {true, false}) {
                    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () ->
                            GpuScan.segmentedScanByOffsets(ctx, DType.INT, Op.SUM, inclusive, 0, in, off, segments, out, n));
                    assertTrue(names(e.getMessage(), "offsets") && e.getMessage().contains("offsets[" + first + "] > offsets["
                            + (first + 1) + "]"), e.getMessage());
                }
                MemorySegment host = arena.allocate(4L * n);
                ctx.copyToHost(host, out, 4L * n);
                for (long i = 0; i < n; i++) assertEquals(0x5A5A5A5A, host.getAtIndex(ValueLayout.JAVA_INT, i), "out[" + i + "]");
                // The next call, with good offsets, is right: the refused call's verdict and tile starts are gone.
                for (int k : bad) offsets.setAtIndex(ValueLayout.JAVA_LONG, k, 3L * k);
                ctx.copyToDevice(off, offsets, 8L * (segments + 1));
                GpuScan.segmentedScanByOffsets(ctx, DType.INT, Op.SUM, true, 0, in, off, segments, out, n);
                ctx.copyToHost(host, out, 4L * n);
                for (long i = 0; i < n; i++) {  // every element is 0x01010101, each segment three of them
                    assertEquals(0x01010101 * (int) (i % 3 + 1), host.getAtIndex(ValueLayout.JAVA_INT, i), "good offsets: out[" + i + "]");
                }
            }
        } finally {
            ctx.free(in);
            ctx.free(out);
            ctx.free(off);
        }
    }

    // ---- argument errors ----

    @Test
    void argumentErrorsNameTheArgument() {
        long bytes = 1024;
        long a = ctx.allocate(bytes), b = ctx.allocate(bytes);
        try {
            assertThrows(NullPointerException.class, () -> GpuScan.scan(null, DType.INT, DType.INT, Op.SUM, true, 0, a, b, 4));
            expect("outType", () -> GpuScan.scan(ctx, DType.BYTE, DType.INT, Op.SUM, true, 0, a, b, 4));
            expect("outType", () -> GpuScan.scan(ctx, DType.BYTE, DType.LONG, Op.MAX, true, 0, a, b, 4));
            expect("out", () -> GpuScan.scan(ctx, DType.BYTE, DType.LONG, Op.SUM, true, 0, a + 3, b + 4, 4));  // int64 out misaligned
            expect("out", () -> GpuScan.scan(ctx, DType.BYTE, DType.LONG, Op.SUM, true, 0, a, a, 4));          // in place, sizes differ
            expect("outType", () -> GpuScan.scan(ctx, DType.FLOAT, DType.DOUBLE, Op.SUM, true, 0, a, b, 4));
            expect("outType", () -> GpuScan.scan(ctx, DType.INT, DType.LONG, Op.MAX, true, 0, a, b, 4));
            expect("op", () -> GpuScan.scan(ctx, DType.FLOAT, DType.FLOAT, Op.XOR, true, 0, a, b, 4));
            expect("n", () -> GpuScan.scan(ctx, DType.INT, DType.INT, Op.SUM, true, 0, a, b, -1));
            expect("in", () -> GpuScan.scan(ctx, DType.INT, DType.INT, Op.SUM, true, 0, a + 2, b, 4));
            expect("in", () -> GpuScan.scan(ctx, DType.INT, DType.INT, Op.SUM, true, 0, 0, b, 4));
            expect("out", () -> GpuScan.scan(ctx, DType.DOUBLE, DType.DOUBLE, Op.SUM, true, 0, a, b + 4, 4));
            expect("out", () -> GpuScan.scan(ctx, DType.INT, DType.INT, Op.SUM, true, 0, a, a + 4, 4));       // overlap, not in place
            expect("out", () -> GpuScan.scan(ctx, DType.INT, DType.LONG, Op.SUM, true, 0, a, a, 4));          // in place, sizes differ
            expect("headFlags", () -> GpuScan.segmentedScanByFlags(ctx, DType.BYTE, Op.SUM, true, 0, a, b + 2, b, 4));
            expect("headFlags", () -> GpuScan.segmentedScanByFlags(ctx, DType.INT, Op.SUM, true, 0, a, 0, b, 4));
            expect("headFlags", () -> GpuScan.segmentedScanByFlags(ctx, DType.INT, Op.SUM, true, 0, a, b + 2, b, 4));
            expect("n", () -> GpuScan.segmentedScanByFlags(ctx, DType.INT, Op.SUM, true, 0, a, b, a, -5));
            expectUntouched("segments", a, bytes, () -> GpuScan.segmentedScanByOffsets(ctx, DType.INT, Op.SUM, true, 0, a, b, -1, a, 256));
            expectUntouched("offsets", a, bytes, () -> GpuScan.segmentedScanByOffsets(ctx, DType.INT, Op.SUM, true, 0, a, b + 4, 1, a, 256));
            expectUntouched("op", a, bytes, () -> GpuScan.segmentedScanByOffsets(ctx, DType.DOUBLE, Op.AND, true, 0, a, b, 1, a, 128));
            // offsets checked on the device, after launches could have been issued: a (in and out) stays as it was
            long[][] badOffsets = {{10, 3}, {-1, 3}, {0, 257}};  // decreasing; negative; past the 256 ints of a
            try (Arena arena = Arena.ofConfined()) {
                for (long[] bad : badOffsets) {
                    ctx.copyToDevice(b, arena.allocateFrom(ValueLayout.JAVA_LONG, bad), 16);
                    expectUntouched("offsets", a, bytes, () -> GpuScan.segmentedScanByOffsets(ctx, DType.INT, Op.SUM, true, 0, a, b, 1, a, 256));
                }
            }
        } finally {
            ctx.free(a);
            ctx.free(b);
        }
    }

    /**
     * Good offsets over the whole arrays, where the arrays' own layout is wrong (out partly over in;
     * the offsets inside out): refused, naming the argument, with nothing written, although the scan
     * of such offsets is queued before the host has the verdict (GpuScan.launchOffsets).
     */
    @Test
    void wholeArrayOffsetsOverBadlyPlacedArraysAreRefusedBeforeAnythingIsWritten() {
        int n = 300;
        long a = ctx.allocate(4L * (n + 8)), b = ctx.allocate(16);
        try (Arena arena = Arena.ofConfined()) {
            ctx.copyToDevice(b, arena.allocateFrom(ValueLayout.JAVA_LONG, 0, n), 16);
            // out four elements past in: the ranges overlap, and neither is in place
            expectUntouched("out", a + 16, 4L * n, () -> GpuScan.segmentedScanByOffsets(ctx, DType.INT, Op.SUM, true, 0,
                    a, b, 1, a + 16, n));
            // the offsets in out's first two words, in place
            MemorySegment before = arena.allocate(4L * n);
            before.fill((byte) 0x3C);
            before.setAtIndex(ValueLayout.JAVA_LONG, 0, 0);
            before.setAtIndex(ValueLayout.JAVA_LONG, 1, n);
            ctx.copyToDevice(a, before, 4L * n);
            expect("offsets", () -> GpuScan.segmentedScanByOffsets(ctx, DType.INT, Op.SUM, true, 0, a, a, 1, a, n));
            MemorySegment after = arena.allocate(4L * n);
            ctx.copyToHost(after, a, 4L * n);
            assertEquals(-1L, before.mismatch(after), "in, out and offsets after the refused call");
        } finally {
            ctx.free(a);
            ctx.free(b);
        }
    }

    private static void expect(String argument, Runnable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call::run);
        assertTrue(names(e.getMessage(), argument), "message should name " + argument + ": " + e.getMessage());
    }

    /** As {@link #expect}, and the bytes at out, poisoned before the call, are all poison after it. */
    private static void expectUntouched(String argument, long out, long bytes, Runnable call) {
        ctx.memset8(out, POISON, bytes);
        expect(argument, call);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment got = arena.allocate(bytes);
            ctx.copyToHost(got, out, bytes);
            checkPoison("rejected call naming " + argument, got, 0, bytes);
        }
    }

    /**
     * Whether the message names the argument as GpuScan's messages do, first and then ':', ' must' or
     * ' decrease': "out" is not "outType", "in" not "init".
     */
    private static boolean names(String message, String argument) {
        return message != null && message.matches("(?s)" + Pattern.quote(argument) + "(:| must| decrease).*");
    }

    // ---- the machinery ----

    /** Scans n random elements placed inShift / outShift elements past 16-byte boundaries; checks all. */
    private static void checkScan(DType inType, DType outType, Op op, boolean inclusive, long initBits, long n,
                                  int inShift, int outShift, boolean inPlace, long seed) {
        try (Arena arena = Arena.ofConfined()) {
            checkScan(inType, outType, op, inclusive, initBits, randomInput(arena, inType, op, n, seed), inShift, outShift,
                    inPlace);
        }
    }

    /** Scans the elements of x placed inShift / outShift elements past 16-byte boundaries; checks all. */
    private static void checkScan(DType inType, DType outType, Op op, boolean inclusive, long initBits, MemorySegment x,
                                  int inShift, int outShift, boolean inPlace) {
        long n = x.byteSize() / inType.byteSize();
        String what = inType + "->" + outType + " " + op + (inclusive ? " inclusive" : " exclusive") + " n=" + n
                + " shift=" + inShift + "/" + (inPlace ? "in place" : outShift) + " init=0x" + Long.toHexString(initBits);
        long inSize = inType.byteSize(), outSize = outType.byteSize();
        try (Arena arena = Arena.ofConfined()) {
            long inBytes = inSize * (n + 2 * GUARD) + 16, outBytes = outSize * (n + 2 * GUARD) + 16;
            long inBuf = ctx.allocate(inBytes);
            long outBuf = inPlace ? inBuf : ctx.allocate(outBytes);
            try {
                long in = inBuf + 16 + inSize * inShift;  // ctx.allocate is 256-byte aligned
                long outOffset = inPlace ? 16 + inSize * inShift : 16 + outSize * outShift;
                long out = outBuf + outOffset;
                ctx.memset8(inBuf, POISON, inBytes);
                if (!inPlace) ctx.memset8(outBuf, POISON, outBytes);
                ctx.copyToDevice(in, x, inSize * n);
                GpuScan.scan(ctx, inType, outType, op, inclusive, initBits, in, out, n);
                long gotBytes = inPlace ? inBytes : outBytes;
                MemorySegment got = arena.allocate(gotBytes, 8);
                ctx.copyToHost(got, outBuf, got.byteSize());
                checkPoison(what, got, 0, outOffset);
                checkPoison(what, got, outOffset + outSize * n, gotBytes);
                checkAgainstReference(what, inType, outType, op, inclusive, initBits, x, null, n, got.asSlice(outOffset),
                        ScanPolicy.tileItems(inType, false));
                if (inType == DType.BYTE) {
                    Arena shared = Arena.ofAuto();  // CpuScan's threads read and write it
                    MemorySegment cpuIn = shared.allocate(inSize * n, 8).copyFrom(x), cpu = shared.allocate(outSize * n, 8);
                    CpuScan.scan(inType, outType, op, inclusive, initBits, cpuIn, cpu, n);
                    checkSameElements(what + ", CPU and GPU", cpu, got.asSlice(outOffset, outSize * n), outType);
                }
            } finally {
                ctx.free(inBuf);
                if (!inPlace) ctx.free(outBuf);
            }
        }
    }

    /**
     * The bytes outputs are poisoned with: no NaN of either width (0xFF bytes were, and MIN/MAX compare any NaN
     * equal to any other, so an output left unwritten where a NaN was expected passed).
     */
    private static final byte POISON = 0x5A;

    /** By offsets, elements before offsets[0] and after offsets[segments]: out there must stay untouched. */
    private static final long OFFSETS_PAD = 5;

    private static void checkSegmented(DType type, Op op, boolean inclusive, long initBits, long n, int shift, double rate,
                                       boolean byOffsets, long seed) {
        checkSegmented(type, op, inclusive, initBits, n, shift, rate, byOffsets, seed, 1);
    }

    private static void checkSegmented(DType type, Op op, boolean inclusive, long initBits, long n, int shift, double rate,
                                       boolean byOffsets, long seed, int runs) {
        checkSegmented(type, op, inclusive, initBits, n, shift, shift & 1, rate, byOffsets, seed, runs);
    }

    /**
     * Segmented scan of n random elements with heads at the given rate (none forced at 0); runs times, bitwise equal.
     * The data starts shift elements past a 16-byte boundary, the flags flagShift bytes.
     */
    private static void checkSegmented(DType type, Op op, boolean inclusive, long initBits, long n, int shift, int flagShift,
                                       double rate, boolean byOffsets, long seed, int runs) {
        checkSegmented(type, type, op, inclusive, initBits, n, shift, flagShift, rate, byOffsets, seed, runs);
    }

    /** As above, scanning {@code type} into {@code outType} (int64 for the sums that widen). */
    private static void checkSegmented(DType type, DType outType, Op op, boolean inclusive, long initBits, long n, int shift,
                                       int flagShift, double rate, boolean byOffsets, long seed, int runs) {
        SplittableRandom random = new SplittableRandom(seed ^ 0x5EED);
        List<Long> starts = new ArrayList<>();
        starts.add(0L);
        for (int i = 1; i < n; i++) {
            if (random.nextDouble() < rate) {
                starts.add((long) i);
                if (random.nextInt(5) == 0) starts.add((long) i);  // an empty segment
            }
        }
        starts.add(n);
        if (random.nextBoolean()) starts.add(n);  // a trailing empty segment
        if (byOffsets && random.nextBoolean()) starts.addFirst(0L);  // a leading empty segment
        // By offsets, half the calls cover the whole arrays (the scan queued before the verdict runs),
        // half a range inside them (it leaves without a write, and the range's scan follows).
        checkSegmentedAt(type, outType, op, inclusive, initBits, n, shift, flagShift, starts, byOffsets,
                byOffsets && random.nextBoolean() ? OFFSETS_PAD : 0, seed, runs, "rate=" + rate);
    }

    /**
     * Segmented scan of n random elements whose segments are given as offsets into them (0 first, n last, sorted;
     * a repeated offset is an empty segment). By offsets, the arrays hold pad more elements on each side, outside
     * the segments (0: the segments cover them). By flags, each start past 0 is a random nonzero flag byte.
     */
    private static void checkSegmentedAt(DType type, Op op, boolean inclusive, long initBits, long n, int shift, int flagShift,
                                         List<Long> starts, boolean byOffsets, long pad, long seed, int runs, String layout) {
        checkSegmentedAt(type, type, op, inclusive, initBits, n, shift, flagShift, starts, byOffsets, pad, seed, runs, layout);
    }

    /**
     * As above, scanning {@code type} into {@code outType}: where they differ (int32 or int8 sums into int64) the
     * inputs span the whole int32 (int8) range, so that wrapping in the input's type would show, and the CPU
     * backend's results are compared too.
     */
    private static void checkSegmentedAt(DType type, DType outType, Op op, boolean inclusive, long initBits, long n, int shift,
                                         int flagShift, List<Long> starts, boolean byOffsets, long pad, long seed, int runs,
                                         String layout) {
        String what = "segmented by " + (byOffsets ? "offsets (pad " + pad + ") " : "flags ") + type
                + (outType != type ? " -> " + outType : "") + " " + op
                + (inclusive ? " inclusive" : " exclusive") + " n=" + n + " shift=" + shift + "/" + flagShift + " " + layout
                + " init=0x" + Long.toHexString(initBits);
        SplittableRandom random = new SplittableRandom(seed ^ 0xF1A6);
        long size = type.byteSize(), outSize = outType.byteSize();
        long total = n + 2 * pad;
        boolean widens = outType != type;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment x = widens ? fullRangeInput(arena, type, n, seed) : randomInput(arena, type, op, n, seed);
            byte[] heads = new byte[(int) n];
            List<Long> offsetList = new ArrayList<>();
            for (long at : starts) {
                if (at > 0 && at < n) heads[(int) at] = (byte) (1 + random.nextInt(120));  // any nonzero byte starts a segment
                offsetList.add(pad + at);
            }

            // poison on both sides of out, even when n == 0; in shifted as out is, out by as many of its own elements
            long inBytes = size * total + 32, bufBytes = outSize * (total + shift) + 32;
            long inOffset = 16 + size * shift, outOffset = 16 + outSize * shift;
            long inBuf = ctx.allocate(inBytes), outBuf = ctx.allocate(bufBytes);
            long flagBuf = ctx.allocate(n + 16), offBuf = ctx.allocate(8L * offsetList.size());
            try {
                long in = inBuf + inOffset, out = outBuf + outOffset;
                ctx.copyToDevice(in + size * pad, x, size * n);
                long flags = flagBuf + flagShift;  // flags need no alignment
                ctx.copyToDevice(flags, MemorySegment.ofArray(heads), n);
                MemorySegment off = arena.allocate(ValueLayout.JAVA_LONG, offsetList.size());
                for (int k = 0; k < offsetList.size(); k++) off.setAtIndex(ValueLayout.JAVA_LONG, k, offsetList.get(k));
                ctx.copyToDevice(offBuf, off, off.byteSize());
                MemorySegment first = null;
                for (int run = 0; run < runs; run++) {
                    ctx.memset8(outBuf, POISON, bufBytes);
                    if (byOffsets) {
                        GpuScan.segmentedScanByOffsets(ctx, type, outType, op, inclusive, initBits, in, offBuf,
                                offsetList.size() - 1, out, total);
                    } else {
                        GpuScan.segmentedScanByFlags(ctx, type, outType, op, inclusive, initBits, in, flags, out, n);
                    }
                    MemorySegment got = arena.allocate(bufBytes, 8);
                    ctx.copyToHost(got, outBuf, bufBytes);
                    if (run == 0) {
                        checkPoison(what, got, 0, outOffset + outSize * pad);
                        checkPoison(what, got, outOffset + outSize * (pad + n), bufBytes);
                        checkAgainstReference(what, type, outType, op, inclusive, initBits, x, heads, n,
                                got.asSlice(outOffset + outSize * pad), ScanPolicy.tileItems(type, op, true));
                        if (type == DType.BYTE || widens) {  // exact on both backends
                            Arena shared = Arena.ofAuto();  // CpuScan's threads read and write it
                            MemorySegment cpuIn = shared.allocate(size * total, 8), cpuOut = shared.allocate(outSize * total, 8);
                            cpuIn.asSlice(size * pad, size * n).copyFrom(x);
                            cpuOut.fill(POISON);
                            if (byOffsets) {
                                MemorySegment cpuOffsets = shared.allocate(off.byteSize(), 8).copyFrom(off);
                                CpuScan.segmentedScanByOffsets(type, outType, op, inclusive, initBits, cpuIn, cpuOffsets,
                                        offsetList.size() - 1, cpuOut);
                            } else {
                                CpuScan.segmentedScanByFlags(type, outType, op, inclusive, initBits, cpuIn, MemorySegment.ofArray(heads),
                                        cpuOut, n);
                            }
                            checkSameElements(what + ", CPU and GPU", cpuOut, got.asSlice(outOffset, outSize * total), outType);
                        }
                        first = got;
                    } else {
                        assertEquals(-1L, first.mismatch(got), what + ": run " + run + " differs bitwise from run 0");
                    }
                }
            } finally {
                ctx.free(inBuf);
                ctx.free(outBuf);
                ctx.free(flagBuf);
                ctx.free(offBuf);
            }
        }
    }

    /**
     * Two results of the same type, bit for bit (GPU against CPU: int8 and int64 results are exact on both
     * backends); a failure names the first element that differs and both values.
     */
    private static void checkSameElements(String what, MemorySegment first, MemorySegment second, DType type) {
        long at = first.mismatch(second);
        if (at >= 0) {
            long i = at / type.byteSize();
            fail(what + ": element " + i + " differs: " + element(first, type, i) + " vs " + element(second, type, i));
        }
    }

    private static Object element(MemorySegment s, DType type, long i) {
        return switch (type) {
            case BYTE -> s.get(ValueLayout.JAVA_BYTE, i);
            case INT -> s.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i);
            case LONG -> s.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i);
            case FLOAT -> s.getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i);
            case DOUBLE -> s.getAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, i);
        };
    }

    private static void checkPoison(String what, MemorySegment got, long from, long to) {
        for (long b = from; b < to; b++) {
            if (got.get(ValueLayout.JAVA_BYTE, b) != POISON) fail(what + ": poisoned byte " + b + " was written");
        }
    }

    private static long someInit(DType type, Op op) {
        return switch (type) {
            case FLOAT -> Float.floatToRawIntBits(op == Op.PROD ? 1.0f : 0.5f);
            case DOUBLE -> Double.doubleToRawLongBits(op == Op.PROD ? 1.0 : 0.5);
            default -> op == Op.PROD ? 3 : op == Op.AND ? 0x7FFF_FFF7L : 12345;
        };
    }

    /** n values spanning the whole range of int32 or int8. */
    private static MemorySegment fullRangeInput(Arena arena, DType type, long n, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        MemorySegment x = arena.allocate(type.byteSize() * n, 8);
        for (long i = 0; i < n; i++) {
            if (type == DType.INT) x.setAtIndex(ValueLayout.JAVA_INT, i, random.nextInt());
            else x.set(ValueLayout.JAVA_BYTE, i, (byte) random.nextInt(256));
        }
        return x;
    }

    /** Values that keep every operator interesting: odd factors for integer PROD, near-1 factors for float PROD, rare bits for AND/OR. */
    private static MemorySegment randomInput(Arena arena, DType type, Op op, long n, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        MemorySegment x = arena.allocate(type.byteSize() * n, 8);
        for (long i = 0; i < n; i++) {
            switch (type) {
                case INT -> x.setAtIndex(ValueLayout.JAVA_INT, i, switch (op) {
                    case PROD -> 2 * random.nextInt(-3, 3) + 1;
                    case SUM -> random.nextInt(-1_000_000, 1_000_000);
                    case AND, OR -> (int) rareBit(random, op, n, 32);
                    default -> random.nextInt();
                });
                case LONG -> x.setAtIndex(ValueLayout.JAVA_LONG, i, switch (op) {
                    case PROD -> 2 * random.nextLong(-3, 3) + 1;
                    case AND, OR -> rareBit(random, op, n, 64);
                    default -> random.nextLong();
                });
                case FLOAT -> x.setAtIndex(ValueLayout.JAVA_FLOAT, i, (float) floatValue(random, op, i, n));
                case DOUBLE -> x.setAtIndex(ValueLayout.JAVA_DOUBLE, i, floatValue(random, op, i, n));
                case BYTE -> x.set(ValueLayout.JAVA_BYTE, i, byteValue(random, op, i, n));
            }
        }
        return x;
    }

    /**
     * int8 values over the whole range that keep every operator changing along the array, tile after
     * tile: odd factors for PROD (a product of bytes otherwise sticks at 0 within a few dozen), a
     * downward (MIN) or upward (MAX) drift with noise, and for AND and OR {@link #rareBit}; SUM and XOR uniform.
     */
    private static byte byteValue(SplittableRandom random, Op op, long i, long n) {
        return switch (op) {
            case SUM, XOR -> (byte) random.nextInt(256);
            case PROD -> (byte) (2 * random.nextInt(-64, 64) + 1);
            case MIN, MAX -> {
                int drift = (int) (255 * i / Math.max(1, n - 1));
                int base = op == Op.MIN ? 127 - drift : -128 + drift;
                yield (byte) Math.clamp(base + random.nextInt(-24, 25), -128, 127);
            }
            case AND, OR -> (byte) rareBit(random, op, n, 8);
        };
    }

    /**
     * An AND (OR) operand of {@code bits} bits that keeps the scan changing along the array: all ones
     * (zero) but for one random bit cleared (set), about 2·bits times in n elements at random places,
     * so some bits are still undecided at the end (8 bits die out after ~22 such events on average,
     * 32 after ~130). Full-range random data reaches 0 (AND) or -1 (OR) within a few elements.
     */
    private static long rareBit(SplittableRandom random, Op op, long n, int bits) {
        long bit = random.nextDouble() < Math.min(0.5, 2.0 * bits / n) ? 1L << random.nextInt(bits) : 0;
        return op == Op.AND ? ~bit : bit;
    }

    private static double floatValue(SplittableRandom random, Op op, long i, long n) {
        if (op == Op.PROD) return 0.999 + 0.002 * random.nextDouble();
        if (op == Op.MIN || op == Op.MAX) {
            if (n > 100 && i == n - 37) return Double.NaN;  // NaN wins from here on
            int r = random.nextInt(500);
            if (r == 0) return 0.0;
            if (r == 1) return -0.0;
            return random.nextDouble(-1000, 1000);
        }
        return random.nextDouble(-1, 1);
    }

    // ---- reference ----

    private static void checkAgainstReference(String what, DType inType, DType outType, Op op, boolean inclusive, long initBits,
                                              MemorySegment x, byte[] heads, long n, MemorySegment got, long tileItems) {
        switch (outType) {
            case BYTE -> {  // Java byte arithmetic: wrapping SUM and PROD
                byte init = (byte) initBits, acc = init;
                for (long i = 0; i < n; i++) {
                    byte xi = x.get(ValueLayout.JAVA_BYTE, i);
                    boolean head = i == 0 || (heads != null && heads[(int) i] != 0);
                    byte before = head ? init : acc;
                    acc = (byte) JavaOps.apply(op, before, xi);
                    byte expect = inclusive ? acc : before, g = got.get(ValueLayout.JAVA_BYTE, i);
                    if (g != expect) fail(what + ": element " + i + " expected " + expect + ", got " + g);
                }
            }
            case INT -> {
                int init = (int) initBits, acc = init;
                for (long i = 0; i < n; i++) {
                    int xi = x.getAtIndex(ValueLayout.JAVA_INT, i);
                    boolean head = i == 0 || (heads != null && heads[(int) i] != 0);
                    int before = head ? init : acc;
                    acc = (int) JavaOps.apply(op, before, xi);
                    int expect = inclusive ? acc : before, g = got.getAtIndex(ValueLayout.JAVA_INT, i);
                    if (g != expect) fail(what + ": element " + i + " expected " + expect + ", got " + g);
                }
            }
            case LONG -> {
                long acc = initBits;
                for (long i = 0; i < n; i++) {
                    long xi = switch (inType) {
                        case BYTE -> x.get(ValueLayout.JAVA_BYTE, i);
                        case INT -> x.getAtIndex(ValueLayout.JAVA_INT, i);
                        default -> x.getAtIndex(ValueLayout.JAVA_LONG, i);
                    };
                    boolean head = i == 0 || (heads != null && heads[(int) i] != 0);
                    long before = head ? initBits : acc;
                    acc = JavaOps.apply(op, before, xi);
                    long expect = inclusive ? acc : before, g = got.getAtIndex(ValueLayout.JAVA_LONG, i);
                    if (g != expect) fail(what + ": element " + i + " expected " + expect + ", got " + g);
                }
            }
            case FLOAT, DOUBLE -> {
                boolean single = outType == DType.FLOAT;
                double u = single ? 0x1p-24 : 0x1p-53;
                double init = single ? Float.intBitsToFloat((int) initBits) : Double.longBitsToDouble(initBits);
                // SUM: acc + low is the running sum compensated (Neumaier), so the reference's own rounding
                // stays far inside the bound for float64 data too.
                double acc = init, low = 0, abs = Math.abs(init);
                long count = 0;
                for (long i = 0; i < n; i++) {
                    double xi = single ? x.getAtIndex(ValueLayout.JAVA_FLOAT, i) : x.getAtIndex(ValueLayout.JAVA_DOUBLE, i);
                    boolean head = i == 0 || (heads != null && heads[(int) i] != 0);
                    double before = head ? init : acc, lowBefore = head ? 0 : low, absBefore = head ? Math.abs(init) : abs;
                    long countBefore = head ? 0 : count;
                    if (op == Op.MIN || op == Op.MAX) {
                        // exact, in the output type
                        acc = single ? (double) (op == Op.MIN ? Math.min((float) before, (float) xi) : Math.max((float) before, (float) xi))
                                : (op == Op.MIN ? Math.min(before, xi) : Math.max(before, xi));
                    } else if (op == Op.SUM) {
                        acc = before + xi;
                        low = lowBefore + (Math.abs(before) >= Math.abs(xi) ? (before - acc) + xi : (xi - acc) + before);
                    } else {
                        acc = before * xi;
                    }
                    abs = absBefore + Math.abs(xi);
                    count = countBefore + 1;
                    double g = single ? got.getAtIndex(ValueLayout.JAVA_FLOAT, i) : got.getAtIndex(ValueLayout.JAVA_DOUBLE, i);
                    double expect = op != Op.SUM ? (inclusive ? acc : before)  // MIN/MAX bit for bit: -0.0 + 0 would be 0.0
                            : inclusive ? acc + low : before + lowBefore;
                    if (op == Op.MIN || op == Op.MAX) {
                        if (Double.compare(expect, g) != 0) fail(what + ": element " + i + " expected " + expect + ", got " + g);
                    } else {
                        double bound = op == Op.SUM
                                ? 1.01 * (i / tileItems + 64) * u * (inclusive ? abs : absBefore)
                                : 1.01 * ((inclusive ? count : countBefore) + 64) * u * Math.abs(expect);
                        if (!(Math.abs(g - expect) <= bound)) {
                            fail(what + ": element " + i + " expected " + expect + " +- " + bound + ", got " + g);
                        }
                    }
                }
            }
            default -> throw new AssertionError(outType);
        }
    }
}
