package dev.primer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Segmented scans through the facade, on every backend: by head flags and by offsets, inclusive and
 * exclusive (with an init), every operator of every type, and int32 and int8 sums into int64, against
 * a sequential fold written here.
 * Float inputs are small integers, halves and doubles (and a few NaNs and signed zeros), so every
 * association gives the same bits and the comparison is exact. Outputs are poisoned first; by
 * offsets, what lies outside [offsets[0], offsets[last]) must keep the poison.
 */
class SegmentedScanTest {
    static Iterable<BackendKind> backends() { return Backends.all().toList(); }

    private static final DType[] TYPES = {DType.BYTE, DType.INT, DType.LONG, DType.FLOAT, DType.DOUBLE};
    private static final long[] SIZES = {0, 1, 31, 33, 4097, 300_007};  // up to ~150 tiles on the GPU
    /** A head in about this many elements: every GPU tile holds several. */
    private static final int HEAD_ONE_IN = 300;
    /** Long segments: 306 GPU tiles of 4-byte values, 611 of 8-byte ones, most without a head. */
    private static final long LONG_N = 2_500_009;

    @ParameterizedTest
    @MethodSource("backends")
    void everyOperatorAndTypeMatchesASequentialFold(BackendKind kind) {
        try (Primer primer = Backends.open(kind); Arena arena = Arena.ofShared()) {
            int config = 0;
            for (DType type : TYPES) {
                for (Op op : Op.values()) {
                    if (!op.supports(type)) continue;
                    for (long n : SIZES) {
                        for (boolean byOffsets : new boolean[] {false, true}) {
                            for (boolean inclusive : new boolean[] {true, false}) {
                                check(primer, arena, type, op, n, HEAD_ONE_IN, byOffsets, inclusive, config++);
                            }
                        }
                    }
                }
            }
        }
    }

    /**
     * Segments of about a million elements, and one segment: most tiles hold no head, so each looks
     * back over the aggregates after the nearest prefix, across windows of 32 tiles. Float products
     * are left out: over a million factors they leave the float range, where association changes
     * the bits. What would show a lost or repeated aggregate here is the float sums (folded in
     * order), the integer sums and products (combined as a tree) and xor; AND and OR of random
     * values settle within a few dozen elements, and min and max rarely change.
     */
    @ParameterizedTest
    @MethodSource("backends")
    void longSegmentsMatchASequentialFold(BackendKind kind) {
        try (Primer primer = Backends.open(kind)) {
            int config = 1000;
            for (DType type : TYPES) {
                for (Op op : Op.values()) {
                    if (!op.supports(type) || (op == Op.PROD && type.isFloatingPoint())) continue;
                    for (int headOneIn : new int[] {1 << 20, 0}) {
                        for (boolean byOffsets : new boolean[] {false, true}) {
                            boolean inclusive = byOffsets == (headOneIn == 0);  // each density: both forms, both kinds
                            try (Arena arena = Arena.ofConfined()) {  // 40-80 MB a case: freed as it ends
                                check(primer, arena, type, op, LONG_N, headOneIn, byOffsets, inclusive, config++);
                            }
                        }
                    }
                }
            }
        }
    }

    /**
     * int32 and int8 sums into int64, as the plain scans widen: by flags and by offsets, inclusive and
     * exclusive from an init beyond the int32 range, over values that span the whole input type (wrapping
     * in it would show); every element against a fold in long, what lies outside the segments untouched.
     */
    @ParameterizedTest
    @MethodSource("backends")
    void int32AndInt8SumsWidenIntoInt64(BackendKind kind) {
        try (Primer primer = Backends.open(kind); Arena arena = Arena.ofShared()) {
            int config = 2000;
            for (DType type : new DType[] {DType.INT, DType.BYTE}) {
                for (long n : SIZES) {
                    for (boolean byOffsets : new boolean[] {false, true}) {
                        for (boolean inclusive : new boolean[] {true, false}) {
                            checkWidening(primer, arena, type, n, byOffsets, inclusive, config++);
                        }
                    }
                }
            }
        }
    }

    /** Only SUM widens: a segmented MAX of int32 into int64 is refused, naming out. */
    @ParameterizedTest
    @MethodSource("backends")
    void onlySumsWiden(BackendKind kind) {
        try (Primer primer = Backends.open(kind);
             IntArray in = primer.upload(new int[] {1, 2, 3});
             LongArray out = primer.allocateLongs(3);
             ByteArray flags = primer.upload(new byte[] {1, 0, 1});
             LongArray offsets = primer.upload(new long[] {0, 2, 3})) {
            for (Runnable call : List.<Runnable>of(
                    () -> primer.segmentedInclusiveScan(in, flags, out, Op.MAX),
                    () -> primer.segmentedInclusiveScan(in, offsets, out, Op.MAX),
                    () -> primer.segmentedExclusiveScan(in, flags, out, Op.XOR, 0L),
                    () -> primer.segmentedExclusiveScan(in, offsets, out, Op.PROD, 1L))) {
                ArgumentMessages.assertStartsWith("out", assertThrows(IllegalArgumentException.class, call::run));
            }
        }
    }

    /** One widening sum scan (int32 or int8 into int64) against a fold in long. */
    private static void checkWidening(Primer primer, Arena arena, DType type, long n, boolean byOffsets, boolean inclusive,
                                      long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        MemorySegment x = arena.allocate(Math.max(1, n * type.byteSize()), 8);
        long[] value = new long[(int) n];
        for (int i = 0; i < n; i++) {
            value[i] = type == DType.INT ? random.nextInt() : (byte) random.nextInt(256);
            if (type == DType.INT) x.setAtIndex(ValueLayout.JAVA_INT, i, (int) value[i]);
            else x.set(ValueLayout.JAVA_BYTE, i, (byte) value[i]);
        }
        boolean[] head = new boolean[(int) n];
        for (int i = 0; i < n; i++) head[i] = i == 0 || random.nextInt(HEAD_ONE_IN) == 0;
        long begin = byOffsets && n > 2 ? 1 + random.nextLong(2) : 0, end = byOffsets && n > 2 ? n - random.nextLong(2) : n;
        List<Long> offsets = new ArrayList<>();
        offsets.add(begin);
        for (long i = begin + 1; i < end; i++) if (head[(int) i]) offsets.add(i);
        offsets.add(end);
        if (byOffsets) {
            for (int i = 0; i < n; i++) head[i] = false;
            for (long o : offsets) if (o < n) head[(int) o] = true;
        }
        long init = inclusive ? 0 : random.nextLong(-(1L << 40), 1L << 40);
        long poison = 0x5A5A_5A5A_5A5A_5A5AL;
        String what = type + " -> int64 SUM" + (byOffsets ? " offsets" : " flags") + (inclusive ? " inclusive" : " exclusive")
                + " n=" + n;
        try (DeviceArray in = primer.allocate(type, n); LongArray out = primer.allocateLongs(n)) {
            in.copyFrom(x);
            out.copyFrom(arena.allocate(Math.max(1, 8 * n), 8).fill((byte) 0x5A));
            if (byOffsets) {
                try (LongArray o = primer.upload(offsets.stream().mapToLong(Long::longValue).toArray())) {
                    if (inclusive) primer.segmentedInclusiveScan(in, o, out, Op.SUM);
                    else primer.segmentedExclusiveScan(in, o, out, Op.SUM, init);
                }
            } else {
                byte[] flagBytes = new byte[(int) n];
                for (int i = 1; i < n; i++) flagBytes[i] = head[i] ? (byte) (1 + random.nextInt(255)) : 0;
                try (ByteArray f = primer.upload(flagBytes)) {
                    if (inclusive) primer.segmentedInclusiveScan(in, f, out, Op.SUM);
                    else primer.segmentedExclusiveScan(in, f, out, Op.SUM, init);
                }
            }
            long[] got = out.toArray();
            long acc = 0;
            for (int i = 0; i < n; i++) {
                long want;
                if (i < begin || i >= end) {
                    want = poison;
                } else {
                    if (i == begin || head[i]) acc = init;
                    long before = acc;
                    acc += value[i];
                    want = inclusive ? acc : before;
                }
                if (got[i] != want) fail(what + ": element " + i + " is " + got[i] + ", expected " + want);
            }
        }
    }

    @Test
    void anInitOutsideTheOutputTypeIsRejected() {
        try (Primer primer = Primer.open(BackendKind.CPU);
             IntArray in = primer.upload(new int[] {1, 2, 3});
             IntArray out = primer.allocateInts(3);
             ByteArray flags = primer.upload(new byte[] {1, 0, 1})) {
            ArgumentMessages.assertStartsWith("init", assertThrows(IllegalArgumentException.class,
                    () -> primer.segmentedExclusiveScan(in, flags, out, Op.SUM, 1L << 40)));
            ArgumentMessages.assertStartsWith("init", assertThrows(IllegalArgumentException.class,
                    () -> primer.segmentedExclusiveScan(in, flags, out, Op.SUM, 0.5)));
        }
    }

    // ---- one case ----

    /** One scan against the sequential fold; a head in about headOneIn elements (0: element 0 alone). */
    private static void check(Primer primer, Arena arena, DType type, Op op, long n, int headOneIn, boolean byOffsets,
                              boolean inclusive, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        MemorySegment x = input(arena, type, op, n, random);
        boolean[] head = new boolean[(int) n];
        for (int i = 0; i < n; i++) head[i] = i == 0 || (headOneIn > 0 && random.nextInt(headOneIn) == 0);
        long begin = 0, end = n;
        List<Long> offsets = new ArrayList<>();
        if (byOffsets) {  // a sub-range, with an empty segment now and then
            begin = n == 0 ? 0 : random.nextLong(Math.min(n, 6));
            end = Math.max(begin, n - random.nextLong(Math.min(n, 6) + 1));
            offsets.add(begin);
            for (long i = begin + 1; i < end; i++) {
                if (head[(int) i]) {
                    offsets.add(i);
                    if (random.nextInt(4) == 0) offsets.add(i);
                }
            }
            offsets.add(end);
            if (random.nextBoolean()) offsets.add(end);
            for (int i = 0; i < n; i++) head[i] = false;
            for (long o : offsets) if (o < n) head[(int) o] = true;
        }
        long initBits = inclusive ? Reductions.identityBits(type, op) : init(type, op, random);
        MemorySegment want = reference(arena, type, op, x, head, begin, end, inclusive, initBits);
        String what = type + " " + op + (byOffsets ? " offsets" : " flags") + (inclusive ? " inclusive" : " exclusive")
                + " n=" + n + " heads 1/" + headOneIn + " range=[" + begin + ", " + end + ")";

        try (DeviceArray in = primer.allocate(type, n); DeviceArray out = primer.allocate(type, n)) {
            in.copyFrom(x);
            out.copyFrom(arena.allocate(n * type.byteSize(), 8).fill((byte) 0x5A));
            if (byOffsets) {
                try (LongArray o = primer.upload(offsets.stream().mapToLong(Long::longValue).toArray())) {
                    if (inclusive) primer.segmentedInclusiveScan(in, o, out, op);
                    else if (type.isFloatingPoint()) primer.segmentedExclusiveScan(in, o, out, op, asDouble(type, initBits));
                    else primer.segmentedExclusiveScan(in, o, out, op, asLong(type, initBits));
                }
            } else {
                byte[] flagBytes = new byte[(int) n];
                for (int i = 0; i < n; i++) flagBytes[i] = head[i] ? (byte) (1 + random.nextInt(255)) : 0;  // any non-zero byte, negative ones too
                if (n > 0 && random.nextBoolean()) flagBytes[0] = 0;  // element 0 starts a segment whatever its flag
                try (ByteArray f = primer.upload(flagBytes)) {
                    if (inclusive) primer.segmentedInclusiveScan(in, f, out, op);
                    else if (type.isFloatingPoint()) primer.segmentedExclusiveScan(in, f, out, op, asDouble(type, initBits));
                    else primer.segmentedExclusiveScan(in, f, out, op, asLong(type, initBits));
                }
            }
            MemorySegment got = arena.allocate(n * type.byteSize(), 8);
            out.copyTo(got);
            for (long i = 0; i < n; i++) {
                long w = bits(type, want, i), g = bits(type, got, i);
                if (w != g) fail(what + ": element " + i + " is 0x" + Long.toHexString(g) + ", expected 0x" + Long.toHexString(w));
            }
        }
    }

    /** The sequential fold of each segment; elements outside [begin, end) keep the poison. */
    private static MemorySegment reference(Arena arena, DType type, Op op, MemorySegment x, boolean[] head, long begin, long end,
                                           boolean inclusive, long initBits) {
        MemorySegment out = arena.allocate(Math.max(1, x.byteSize()), 8).fill((byte) 0x5A);
        long acc = 0;
        for (long i = begin; i < end; i++) {
            if (i == begin || head[(int) i]) acc = initBits;
            long next = apply(type, op, acc, bits(type, x, i));
            set(type, out, i, inclusive ? next : acc);
            acc = next;
        }
        return out;
    }

    // ---- values as raw bits ----

    private static long apply(DType type, Op op, long a, long b) {
        return switch (type) {
            case BYTE -> {  // Java's byte arithmetic: int, narrowed
                int x = (byte) a, y = (byte) b;
                yield (byte) switch (op) {
                    case SUM -> x + y; case PROD -> x * y; case MIN -> Math.min(x, y); case MAX -> Math.max(x, y);
                    case AND -> x & y; case OR -> x | y; case XOR -> x ^ y;
                } & 0xFFL;
            }
            case INT -> {
                int x = (int) a, y = (int) b;
                yield switch (op) {
                    case SUM -> x + y; case PROD -> x * y; case MIN -> Math.min(x, y); case MAX -> Math.max(x, y);
                    case AND -> x & y; case OR -> x | y; case XOR -> x ^ y;
                };
            }
            case LONG -> switch (op) {
                case SUM -> a + b; case PROD -> a * b; case MIN -> Math.min(a, b); case MAX -> Math.max(a, b);
                case AND -> a & b; case OR -> a | b; case XOR -> a ^ b;
            };
            case FLOAT -> {
                float x = Float.intBitsToFloat((int) a), y = Float.intBitsToFloat((int) b);
                yield Float.floatToRawIntBits(switch (op) {
                    case SUM -> x + y; case PROD -> x * y; case MIN -> Math.min(x, y); case MAX -> Math.max(x, y);
                    default -> throw new AssertionError(op);
                });
            }
            case DOUBLE -> {
                double x = Double.longBitsToDouble(a), y = Double.longBitsToDouble(b);
                yield Double.doubleToRawLongBits(switch (op) {
                    case SUM -> x + y; case PROD -> x * y; case MIN -> Math.min(x, y); case MAX -> Math.max(x, y);
                    default -> throw new AssertionError(op);
                });
            }
        };
    }

    /** Random values whose every partial result is exact (so any association gives the same bits). */
    private static MemorySegment input(Arena arena, DType type, Op op, long n, SplittableRandom random) {
        MemorySegment x = arena.allocate(Math.max(1, n * type.byteSize()), 8);
        for (long i = 0; i < n; i++) {
            long v = switch (type) {
                case BYTE -> random.nextInt(256);
                case INT -> random.nextInt();
                case LONG -> random.nextLong();
                case FLOAT -> Float.floatToRawIntBits((float) floating(op, random));
                case DOUBLE -> Double.doubleToRawLongBits(floating(op, random));
            };
            set(type, x, i, v);
        }
        return x;
    }

    private static double floating(Op op, SplittableRandom random) {
        int pick = random.nextInt(1000);
        return switch (op) {
            case SUM -> random.nextInt(-1000, 1001);  // segment sums stay far below 2^24
            case PROD -> pick < 20 ? 2.0 : pick < 40 ? 0.5 : pick < 520 ? -1.0 : 1.0;  // powers of two, small exponents
            default -> pick < 3 ? Double.NaN : pick < 10 ? 0.0 : pick < 17 ? -0.0 : random.nextDouble(-1e6, 1e6);
        };
    }

    private static long init(DType type, Op op, SplittableRandom random) {
        return switch (type) {
            case BYTE -> random.nextInt(256);
            case INT -> random.nextInt() & 0xFFFF_FFFFL;
            case LONG -> random.nextLong();
            case FLOAT -> Float.floatToRawIntBits(op == Op.PROD ? 2f : (float) random.nextInt(-50, 51)) & 0xFFFF_FFFFL;
            case DOUBLE -> Double.doubleToRawLongBits(op == Op.PROD ? 0.5 : random.nextInt(-50, 51));
        };
    }

    private static long asLong(DType type, long bits) {
        return type == DType.BYTE ? (byte) bits : type == DType.INT ? (int) bits : bits;
    }

    private static double asDouble(DType type, long bits) {
        return type == DType.FLOAT ? Float.intBitsToFloat((int) bits) : Double.longBitsToDouble(bits);
    }

    /** Element i as raw bits (int8, int32 and float32 zero-extended); NaNs canonical, so any NaN equals any NaN. */
    private static long bits(DType type, MemorySegment s, long i) {
        return switch (type) {
            case BYTE -> s.get(ValueLayout.JAVA_BYTE, i) & 0xFFL;
            case INT -> s.getAtIndex(ValueLayout.JAVA_INT, i) & 0xFFFF_FFFFL;
            case LONG -> s.getAtIndex(ValueLayout.JAVA_LONG, i);
            case FLOAT -> Float.floatToIntBits(s.getAtIndex(ValueLayout.JAVA_FLOAT, i)) & 0xFFFF_FFFFL;
            case DOUBLE -> Double.doubleToLongBits(s.getAtIndex(ValueLayout.JAVA_DOUBLE, i));
        };
    }

    private static void set(DType type, MemorySegment s, long i, long bits) {
        switch (type) {
            case BYTE -> s.set(ValueLayout.JAVA_BYTE, i, (byte) bits);
            case INT, FLOAT -> s.setAtIndex(ValueLayout.JAVA_INT, i, (int) bits);
            case LONG, DOUBLE -> s.setAtIndex(ValueLayout.JAVA_LONG, i, bits);
        }
    }
}
