package dev.primer;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Reduce, argmin/argmax and scans with the built-in operators through the facade, on every backend:
 * every type and operator, sizes from 0 to 300_007 (several CPU chunks, many GPU tiles), arrays that
 * start 0..3 elements into their allocation, scan outputs poisoned around, every element checked
 * against a sequential fold written here. The data keep every result exact, so the checks are bit
 * for bit: float sums of small integers, float products of ±1 with a rare ±2 or ±0.5, odd integer
 * factors (a product never collapses to 0). And each result depends on the array's tail: the unique
 * extreme and the bitwise operators' rare bit sit in its last 5%, so a backend that drops a tail, a
 * tile or a slice's offset fails.
 */
class PrimerReduceScanTest {
    static Iterable<BackendKind> backends() { return Backends.all().toList(); }

    private static final long[] SIZES = {0, 1, 31, 33, 4097, 300_007};

    @ParameterizedTest
    @MethodSource("backends")
    void reducesMatchASequentialFold(BackendKind kind) {
        try (Primer primer = Backends.open(kind); Arena arena = Arena.ofConfined()) {
            int config = 0;
            for (DType type : DType.values()) {
                for (Op op : Op.values()) {
                    if (!op.supports(type)) continue;
                    for (long n : SIZES) {
                        int shift = config++ % 4;
                        MemorySegment x = data(arena, type, op, n, config);
                        try (DeviceArray base = staged(primer, arena, type, x, n, shift)) {
                            DeviceArray a = CustomSegments.slice(base, shift, shift + n);
                            String what = type + " " + op + " n=" + n + " shift=" + shift + " on " + kind;
                            assertEquals(expectedReduce(type, op, x, n), reduceBits(primer, a, op), what);
                            if (op == Op.MIN || op == Op.MAX) {
                                assertEquals(expectedArg(type, op == Op.MAX, x, n), op == Op.MAX ? primer.argMax(a) : primer.argMin(a),
                                        "arg" + what);
                            }
                        }
                    }
                }
            }
        }
    }

    /**
     * A constant at the end of the type's range that the extreme can never beat (the lowest for argmax, the
     * highest for argmin, -inf / +inf for floats): the first index, 0, whatever the chunking or tiling.
     */
    @ParameterizedTest
    @MethodSource("backends")
    void argExtremesOfAConstantAtTheTypesEndsAreZero(BackendKind kind) {
        try (Primer primer = Backends.open(kind); Arena arena = Arena.ofConfined()) {
            for (DType type : DType.values()) {
                for (boolean max : new boolean[] {false, true}) {
                    for (long n : new long[] {1, 33, 300_007}) {
                        MemorySegment x = arena.allocate(n * type.byteSize(), 8);
                        for (long i = 0; i < n; i++) {
                            switch (type) {
                                case BYTE -> x.setAtIndex(ValueLayout.JAVA_BYTE, i, max ? Byte.MIN_VALUE : Byte.MAX_VALUE);
                                case INT -> x.setAtIndex(ValueLayout.JAVA_INT, i, max ? Integer.MIN_VALUE : Integer.MAX_VALUE);
                                case LONG -> x.setAtIndex(ValueLayout.JAVA_LONG, i, max ? Long.MIN_VALUE : Long.MAX_VALUE);
                                case FLOAT -> x.setAtIndex(ValueLayout.JAVA_FLOAT, i, max ? Float.NEGATIVE_INFINITY : Float.POSITIVE_INFINITY);
                                case DOUBLE -> x.setAtIndex(ValueLayout.JAVA_DOUBLE, i, max ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY);
                            }
                        }
                        try (DeviceArray a = primer.upload(type, x, n)) {
                            assertEquals(0, max ? primer.argMax(a) : primer.argMin(a),
                                    (max ? "argmax " : "argmin ") + type + " of a constant, n=" + n + " on " + kind);
                        }
                    }
                }
            }
        }
    }

    @ParameterizedTest
    @MethodSource("backends")
    void scansMatchASequentialFold(BackendKind kind) {
        try (Primer primer = Backends.open(kind); Arena arena = Arena.ofConfined()) {
            int config = 0;
            for (DType type : DType.values()) {
                for (Op op : Op.values()) {
                    if (!op.supports(type)) continue;
                    for (long n : SIZES) {
                        config++;
                        MemorySegment x = data(arena, type, op, n, config);
                        int shift = config % 4, outShift = (config / 4) % 4;
                        scanAndCheck(primer, arena, type, type, op, x, n, true, shift, outShift);
                        scanAndCheck(primer, arena, type, type, op, x, n, false, shift, (outShift + 1) % 4);
                        scanAndCheck(primer, arena, type, type, op, x, n, config % 2 == 0, shift, -1);  // in place
                        if (op == Op.SUM && (type == DType.INT || type == DType.BYTE)) {  // widened to int64
                            scanAndCheck(primer, arena, type, DType.LONG, op, x, n, true, shift, outShift);
                            scanAndCheck(primer, arena, type, DType.LONG, op, x, n, false, shift, outShift);
                        }
                    }
                }
            }
        }
    }

    // ---- the data ----

    /**
     * n values of {@code type} for {@code op}, exact under any association, with the result hanging
     * on a position in the last 5% (see the class comment).
     */
    static MemorySegment data(Arena arena, DType type, Op op, long n, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        MemorySegment x = arena.allocate(Math.max(1, n) * type.byteSize(), 8);
        long late = n - 1 - random.nextLong(Math.max(1, n / 20));  // where the extreme or the rare bit sits
        int bits = 8 * type.byteSize();
        for (long i = 0; i < n; i++) {
            if (type.isFloatingPoint()) {
                double v = switch (op) {
                    case SUM -> random.nextInt(-8, 9);
                    case PROD -> (random.nextBoolean() ? 1 : -1) * (random.nextInt(2000) != 0 ? 1.0 : random.nextBoolean() ? 2.0 : 0.5);
                    case MIN -> i == late || i == n - 1 ? -5000 : random.nextDouble(-1000, 1000);  // the first extreme: late
                    case MAX -> i == late || i == n - 1 ? 5000 : random.nextDouble(-1000, 1000);
                    default -> throw new IllegalArgumentException(op + " on " + type);
                };
                if (type == DType.FLOAT) x.setAtIndex(ValueLayout.JAVA_FLOAT, i, (float) v);
                else x.setAtIndex(ValueLayout.JAVA_DOUBLE, i, v);
            } else {
                long smallest = -(1L << (bits - 1)), largest = ~smallest;
                long v = switch (op) {
                    case SUM -> type == DType.LONG ? random.nextLong(-(1L << 40), 1L << 40) : random.nextLong();
                    case PROD -> random.nextLong() | 1;
                    case MIN -> i == late || i == n - 1 ? smallest : random.nextLong(smallest / 2, largest / 2);
                    case MAX -> i == late || i == n - 1 ? largest : random.nextLong(smallest / 2, largest / 2);
                    // All ones but for bits of the upper half, cleared now and then; bit 0 only at `late`.
                    case AND -> i == late ? ~1L : random.nextInt(64) == 0 ? ~(1L << random.nextInt(bits / 2, bits)) : -1L;
                    case OR -> i == late ? 1L : random.nextInt(64) == 0 ? 1L << random.nextInt(bits / 2, bits) : 0L;
                    case XOR -> random.nextLong();
                };
                switch (type) {
                    case BYTE -> x.set(ValueLayout.JAVA_BYTE, i, (byte) v);
                    case INT -> x.setAtIndex(ValueLayout.JAVA_INT, i, (int) v);
                    default -> x.setAtIndex(ValueLayout.JAVA_LONG, i, v);
                }
            }
        }
        return x;
    }

    /** The values in an array {@code shift} elements into an allocation whose other elements are poison. */
    private static DeviceArray staged(Primer primer, Arena arena, DType type, MemorySegment x, long n, int shift) {
        DeviceArray base = primer.allocate(type, n + shift + StagedScan.GUARD);
        MemorySegment host = arena.allocate(base.byteSize(), 8).fill(StagedScan.POISON);
        MemorySegment.copy(x, 0, host, shift * type.byteSize(), n * type.byteSize());
        base.copyFrom(host);
        return base;
    }

    // ---- reduce ----

    /** The facade's typed result as raw bits (floats as their float or double bits, integers as the long). */
    private static long reduceBits(Primer primer, DeviceArray a, Op op) {
        return switch (a) {
            case ByteArray t -> primer.reduce(t, op);
            case IntArray t -> primer.reduce(t, op);
            case LongArray t -> primer.reduce(t, op);
            case FloatArray t -> Float.floatToIntBits(primer.reduce(t, op));
            case DoubleArray t -> Double.doubleToLongBits(primer.reduce(t, op));
        };
    }

    /** The sequential fold: integers widened to long (wrapping), floats in double (exact on these data). */
    private static long expectedReduce(DType type, Op op, MemorySegment x, long n) {
        if (type.isFloatingPoint()) {
            double acc = switch (op) {
                case SUM -> 0.0;
                case PROD -> 1.0;
                case MIN -> Double.POSITIVE_INFINITY;
                default -> Double.NEGATIVE_INFINITY;
            };
            for (long i = 0; i < n; i++) acc = JavaOps.apply(op, acc, value(type, x, i));
            return type == DType.FLOAT ? Float.floatToIntBits((float) acc) : Double.doubleToLongBits(acc);
        }
        long largest = ~(-1L << (8 * type.byteSize() - 1));  // the type's largest value
        long acc = switch (op) {
            case SUM, OR, XOR -> 0;
            case PROD -> 1;
            case AND -> -1;
            case MIN -> largest;  // an empty MIN: the type's largest value
            case MAX -> ~largest;
        };
        for (long i = 0; i < n; i++) acc = JavaOps.apply(op, acc, integer(type, x, i));
        return acc;
    }

    /** The first index of the extreme; -1 when empty. */
    private static long expectedArg(DType type, boolean max, MemorySegment x, long n) {
        long best = -1;
        for (long i = 0; i < n; i++) {
            if (best < 0) {
                best = i;
                continue;
            }
            int c = type.isFloatingPoint() ? Double.compare(value(type, x, i), value(type, x, best))
                    : Long.compare(integer(type, x, i), integer(type, x, best));
            if (max ? c > 0 : c < 0) best = i;
        }
        return best;
    }

    // ---- scan ----

    private static void scanAndCheck(Primer primer, Arena arena, DType inType, DType outType, Op op, MemorySegment x, long n,
                                     boolean inclusive, int shift, int outShift) {
        long init = inclusive ? Reductions.identityBits(outType, op) : someInit(outType, op);
        String what = inType + "->" + outType + " " + op + (inclusive ? " inclusive" : " exclusive") + " n=" + n + " shift="
                + shift + "/" + (outShift < 0 ? "in place" : outShift) + " on " + primer.kind();
        MemorySegment want = expectedScan(arena, inType, outType, op, x, n, inclusive, init);
        try (StagedScan scan = new StagedScan(primer, arena, inType, outType, x, n, shift, outShift)) {
            if (inclusive) primer.inclusiveScan(scan.in, scan.out, op);
            else if (outType.isFloatingPoint()) primer.exclusiveScan(scan.in, scan.out, op, floating(outType, init));
            else primer.exclusiveScan(scan.in, scan.out, op, init);
            scan.assertOutput(what, arena, want);
        }
    }

    /** An init that changes the results and keeps them exact; as bits of the output type (integers: the value). */
    private static long someInit(DType type, Op op) {
        if (type.isFloatingPoint()) {
            double v = switch (op) {
                case SUM -> -5;
                case PROD -> -2;
                default -> 250.5;  // MIN and MAX: inside the data's range
            };
            return type == DType.FLOAT ? Float.floatToRawIntBits((float) v) & 0xFFFF_FFFFL : Double.doubleToRawLongBits(v);
        }
        return switch (op) {
            case PROD -> 3;
            case AND -> ~4L;
            case OR -> 4;
            default -> 77;
        };
    }

    /** The sequential scan in the output type, with Java's wrapping (floats exact on these data). */
    private static MemorySegment expectedScan(Arena arena, DType inType, DType outType, Op op, MemorySegment x, long n,
                                              boolean inclusive, long init) {
        MemorySegment out = arena.allocate(Math.max(1, n) * outType.byteSize(), 8);
        if (outType.isFloatingPoint()) {
            double acc = floating(outType, init);
            for (long i = 0; i < n; i++) {
                double before = acc;
                acc = JavaOps.apply(op, acc, value(inType, x, i));
                if (outType == DType.FLOAT) out.setAtIndex(ValueLayout.JAVA_FLOAT, i, (float) (inclusive ? acc : before));
                else out.setAtIndex(ValueLayout.JAVA_DOUBLE, i, inclusive ? acc : before);
            }
            return out;
        }
        long acc = narrow(outType, init);  // identity bits may come zero-extended
        for (long i = 0; i < n; i++) {
            long before = acc;
            acc = narrow(outType, JavaOps.apply(op, acc, integer(inType, x, i)));
            long v = inclusive ? acc : before;
            switch (outType) {
                case BYTE -> out.set(ValueLayout.JAVA_BYTE, i, (byte) v);
                case INT -> out.setAtIndex(ValueLayout.JAVA_INT, i, (int) v);
                default -> out.setAtIndex(ValueLayout.JAVA_LONG, i, v);
            }
        }
        return out;
    }

    // ---- values ----

    private static long narrow(DType type, long v) {
        return switch (type) {
            case BYTE -> (byte) v;
            case INT -> (int) v;
            default -> v;
        };
    }

    private static long integer(DType type, MemorySegment x, long i) {
        return switch (type) {
            case BYTE -> x.get(ValueLayout.JAVA_BYTE, i);
            case INT -> x.getAtIndex(ValueLayout.JAVA_INT, i);
            default -> x.getAtIndex(ValueLayout.JAVA_LONG, i);
        };
    }

    private static double value(DType type, MemorySegment x, long i) {
        return type == DType.FLOAT ? x.getAtIndex(ValueLayout.JAVA_FLOAT, i) : x.getAtIndex(ValueLayout.JAVA_DOUBLE, i);
    }

    private static double floating(DType type, long bits) {
        return type == DType.FLOAT ? Float.intBitsToFloat((int) bits) : Double.longBitsToDouble(bits);
    }
}
