package dev.primer;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.DoubleBinaryOperator;
import java.util.function.DoubleConsumer;
import java.util.function.IntBinaryOperator;
import java.util.function.LongBinaryOperator;
import java.util.function.LongConsumer;

/**
 * User-defined operators for the scan tests, each truly associative, with random inputs that suit
 * them and a sequential left fold as the reference. Some are not commutative (affine-map composition,
 * forward fill, first non-zero), so a scan that swaps operands anywhere fails them.
 */
public final class CustomScanOps {
    private CustomScanOps() {}

    /**
     * x -> m*x + c mod 2^16, packed (m << 16 | c); a op b = "a, then b" = (bm*am, bm*ac + bc).
     * Composition of maps: associative, not commutative; identity x -> x = (1, 0).
     */
    public static final CustomOp AFFINE16 = CustomOp.ofInt("affine16",
            "(int)(((((unsigned)b >> 16) * ((unsigned)a >> 16)) << 16)"
                    + " | ((((unsigned)b >> 16) * ((unsigned)a & 0xFFFFu) + ((unsigned)b & 0xFFFFu)) & 0xFFFFu))",
            0x10000, (a, b) -> {
                int am = a >>> 16, ac = a & 0xFFFF, bm = b >>> 16, bc = b & 0xFFFF;
                return ((bm * am) << 16) | ((bm * ac + bc) & 0xFFFF);
            });

    /** The same on 32-bit halves of a long: (m << 32 | c), mod 2^32. */
    public static final CustomOp AFFINE32 = CustomOp.ofLong("affine32",
            "(long long)(((unsigned long long)((unsigned)((unsigned long long)b >> 32) * (unsigned)((unsigned long long)a >> 32)) << 32)"
                    + " | (unsigned long long)((unsigned)((unsigned long long)b >> 32) * (unsigned)a + (unsigned)b))",
            1L << 32, (a, b) -> {
                int am = (int) (a >>> 32), ac = (int) a, bm = (int) (b >>> 32), bc = (int) b;
                return ((long) (bm * am) << 32) | ((bm * ac + bc) & 0xFFFF_FFFFL);
            });

    /**
     * The same on the nibbles of a byte: x -> m*x + c mod 16 packed (m << 4 | c), identity (1, 0) =
     * 0x10. On the GPU a and b are ints holding the signed bytes (the & 15 drops the sign's copies);
     * the result's bit 7 becomes the byte's sign when it is narrowed, as with Java's (byte) cast.
     */
    public static final CustomOp AFFINE4 = CustomOp.ofByte("affine4",
            "((((a >> 4) & 15) * ((b >> 4) & 15) & 15) << 4) | ((((b >> 4) & 15) * (a & 15) + (b & 15)) & 15)",
            (byte) 0x10, (a, b) -> {
                int am = (a >> 4) & 15, ac = a & 15, bm = (b >> 4) & 15, bc = b & 15;
                return (byte) (((bm * am & 15) << 4) | ((bm * ac + bc) & 15));
            });

    /** a + b on bytes, wrapping (the GPU narrows the int sum, Java casts it): exact in any association. */
    public static final CustomOp BYTE_SUM = CustomOp.ofByte("bsum", "a + b", (byte) 0, (a, b) -> (byte) (a + b));

    /**
     * The first non-zero byte: a selection (associative, not commutative, identity 0), declared
     * {@link CustomOp#exact()}: the int8 GPU scans' tree look-back. Its inputs are mostly zero.
     */
    public static final CustomOp FIRST_NONZERO = CustomOp.ofByte("firstnz", "a != 0 ? a : b", (byte) 0,
            (a, b) -> a != 0 ? a : b).exact();

    /**
     * The larger byte, identity -128: the one int8 operator here whose results hang on the sign (a
     * byte zero-extended anywhere, or an identity of +128, makes 0x80..0xFF win).
     */
    public static final CustomOp BYTE_MAX = CustomOp.ofByte("bmax", "a > b ? a : b", Byte.MIN_VALUE,
            (a, b) -> (byte) Math.max(a, b));

    /** The int8 operators. */
    public static final List<CustomOp> INT8 = List.of(AFFINE4, BYTE_SUM, FIRST_NONZERO, BYTE_MAX);

    /** Forward fill: the last value that is not NaN (NaN: missing). Associative, not commutative; identity NaN. */
    public static final CustomOp FFILL = CustomOp.ofDouble("ffill", "b == b ? b : a", Double.NaN,
            (a, b) -> Double.isNaN(b) ? a : b);

    /** The forward fill declared {@link CustomOp#exact()} (a selection is): the GPU scans' tree look-back. */
    public static final CustomOp FFILL_EXACT = FFILL.exact();

    /** max(|a|, |b|): exact, so any association gives the same bits, and declared so. */
    public static final CustomOp ABS_MAX = CustomOp.ofFloat("absmax", "fmaxf(fabsf(a), fabsf(b))", 0f,
            (a, b) -> Math.max(Math.abs(a), Math.abs(b))).exact();

    /** a + b on doubles; exact on the integer-valued inputs {@link #input} gives it. */
    public static final CustomOp DOUBLE_SUM = CustomOp.ofDouble("dsum", "a + b", 0.0, Double::sum);

    /** a + b on floats, on random inputs: rounds, so backends agree only within a bound. */
    public static final CustomOp FLOAT_SUM = CustomOp.ofFloat("fsum", "a + b", 0f, Float::sum);

    /**
     * The operators whose scans are exact (the same bits in any association); ABS_MAX and
     * FFILL_EXACT and FIRST_NONZERO also declared so.
     */
    public static final List<CustomOp> EXACT = List.of(AFFINE16, AFFINE32, FFILL, FFILL_EXACT, ABS_MAX, DOUBLE_SUM,
            AFFINE4, BYTE_SUM, FIRST_NONZERO, BYTE_MAX);

    /** n random elements suited to {@code op}. */
    public static MemorySegment input(Arena arena, CustomOp op, long n, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        MemorySegment x = arena.allocate(n * op.type().byteSize(), 8);
        for (long i = 0; i < n; i++) {
            switch (op.name()) {
                case "affine4" -> x.set(ValueLayout.JAVA_BYTE, i,  // odd m, as above
                        (byte) (((2 * random.nextInt(8) + 1) << 4) | random.nextInt(16)));
                case "bsum" -> x.set(ValueLayout.JAVA_BYTE, i, (byte) random.nextInt(256));
                case "bmax" -> x.set(ValueLayout.JAVA_BYTE, i,  // mostly negative: a prefix's max rises slowly
                        (byte) (random.nextInt(20) == 0 ? random.nextInt(256) : random.nextInt(-128, 0)));
                case "firstnz" -> x.set(ValueLayout.JAVA_BYTE, i,
                        random.nextInt(1000) == 0 ? (byte) (1 + random.nextInt(255)) : 0);  // non-zero: negative too
                case "affine16" -> x.setAtIndex(ValueLayout.JAVA_INT, i,  // odd m: products never reach 0
                        ((random.nextInt(1 << 16) | 1) << 16) | random.nextInt(1 << 16));
                case "affine32" -> x.setAtIndex(ValueLayout.JAVA_LONG, i, random.nextLong() | (1L << 32));  // odd m: never 0
                case "ffill" -> x.setAtIndex(ValueLayout.JAVA_DOUBLE, i,
                        random.nextInt(10) < 7 ? Double.NaN : random.nextDouble(-1e6, 1e6));
                case "absmax" -> x.setAtIndex(ValueLayout.JAVA_FLOAT, i, (float) random.nextDouble(-100, 100));
                case "dsum" -> x.setAtIndex(ValueLayout.JAVA_DOUBLE, i, random.nextInt(-1000, 1001));
                case "fsum" -> x.setAtIndex(ValueLayout.JAVA_FLOAT, i, (float) random.nextDouble(-1, 1));
                default -> throw new IllegalArgumentException(op.name());
            }
        }
        return x;
    }

    /**
     * n float32 integers in [-8, 8]: every sum of a contiguous run of them is exact in float32 while
     * it stays below 2^24, so any association of a float sum (a reduce, a scan's tiles and
     * look-back) must give the exact result, bit for bit. Checked here: twice the largest prefix
     * stays below 2^23 (a random walk of this seed), which bounds every run's sum.
     */
    public static MemorySegment smallIntegerFloats(Arena arena, long n, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        MemorySegment x = arena.allocate(Math.max(1, n) * Float.BYTES, 8);
        long prefix = 0, largest = 0;
        for (long i = 0; i < n; i++) {
            int v = random.nextInt(-8, 9);
            x.setAtIndex(ValueLayout.JAVA_FLOAT, i, v);
            prefix += v;
            largest = Math.max(largest, Math.abs(prefix));
        }
        if (2 * largest >= 1 << 23) {
            throw new IllegalStateException("seed " + seed + ": a prefix of " + largest + " is too large to stay exact");
        }
        return x;
    }

    /** A random value of op's type, as raw bits (an init that is not the identity). */
    public static long someInitBits(CustomOp op, long seed) {
        Arena arena = Arena.ofAuto();
        MemorySegment one = input(arena, op, 1, seed);
        return switch (op.type().byteSize()) {
            case 1 -> one.get(ValueLayout.JAVA_BYTE, 0) & 0xFFL;
            case 4 -> one.get(ValueLayout.JAVA_INT, 0) & 0xFFFF_FFFFL;
            default -> one.get(ValueLayout.JAVA_LONG, 0);
        };
    }

    /**
     * Calls {@code asDouble} (float and double operators) or {@code asLong} (byte, int and long) with the
     * init whose raw bits are {@code initBits}: the facade's exclusive scans take the init as one or
     * the other.
     */
    public static void withInit(DType type, long initBits, DoubleConsumer asDouble, LongConsumer asLong) {
        switch (type) {
            case FLOAT -> asDouble.accept(Float.intBitsToFloat((int) initBits));
            case DOUBLE -> asDouble.accept(Double.longBitsToDouble(initBits));
            case BYTE -> asLong.accept((byte) initBits);
            case INT -> asLong.accept((int) initBits);
            case LONG -> asLong.accept(initBits);
        }
    }

    /** The sequential left fold: out[i] = init op x_0 op ... op x_i (inclusive), or up to x_(i-1). */
    public static MemorySegment reference(Arena arena, CustomOp op, MemorySegment x, long n, boolean inclusive, long initBits) {
        MemorySegment out = arena.allocate(n * op.type().byteSize(), 8);
        switch (op.javaOperator()) {
            case CustomOp.ByteBinaryOperator f -> {
                byte acc = (byte) initBits;
                for (long i = 0; i < n; i++) {
                    byte next = f.applyAsByte(acc, x.get(ValueLayout.JAVA_BYTE, i));
                    out.set(ValueLayout.JAVA_BYTE, i, inclusive ? next : acc);
                    acc = next;
                }
            }
            case IntBinaryOperator f -> {
                int acc = (int) initBits;
                for (long i = 0; i < n; i++) {
                    int next = f.applyAsInt(acc, x.getAtIndex(ValueLayout.JAVA_INT, i));
                    out.setAtIndex(ValueLayout.JAVA_INT, i, inclusive ? next : acc);
                    acc = next;
                }
            }
            case LongBinaryOperator f -> {
                long acc = initBits;
                for (long i = 0; i < n; i++) {
                    long next = f.applyAsLong(acc, x.getAtIndex(ValueLayout.JAVA_LONG, i));
                    out.setAtIndex(ValueLayout.JAVA_LONG, i, inclusive ? next : acc);
                    acc = next;
                }
            }
            case CustomOp.FloatBinaryOperator f -> {
                float acc = Float.intBitsToFloat((int) initBits);
                for (long i = 0; i < n; i++) {
                    float next = f.applyAsFloat(acc, x.getAtIndex(ValueLayout.JAVA_FLOAT, i));
                    out.setAtIndex(ValueLayout.JAVA_FLOAT, i, inclusive ? next : acc);
                    acc = next;
                }
            }
            case DoubleBinaryOperator f -> {
                double acc = Double.longBitsToDouble(initBits);
                for (long i = 0; i < n; i++) {
                    double next = f.applyAsDouble(acc, x.getAtIndex(ValueLayout.JAVA_DOUBLE, i));
                    out.setAtIndex(ValueLayout.JAVA_DOUBLE, i, inclusive ? next : acc);
                    acc = next;
                }
            }
            default -> throw new IllegalArgumentException(op.toString());
        }
        return out;
    }

    /** Element i of a segment of {@code type} as bits, NaNs made canonical (any NaN equals any NaN). */
    public static long bitsAt(DType type, MemorySegment s, long i) {
        return switch (type) {
            case INT -> s.getAtIndex(ValueLayout.JAVA_INT, i);
            case LONG -> s.getAtIndex(ValueLayout.JAVA_LONG, i);
            case FLOAT -> Float.floatToIntBits(s.getAtIndex(ValueLayout.JAVA_FLOAT, i));
            case DOUBLE -> Double.doubleToLongBits(s.getAtIndex(ValueLayout.JAVA_DOUBLE, i));
            case BYTE -> s.get(ValueLayout.JAVA_BYTE, i);
        };
    }

    /** Fails at the first byte of {@code buffer} outside [{@code from}, {@code from + bytes}) that is not {@code poison}. */
    public static void assertGuardsUntouched(String what, MemorySegment buffer, long from, long bytes, byte poison) {
        for (long b = 0; b < buffer.byteSize(); b++) {
            if (b == from) b += bytes;
            if (b < buffer.byteSize() && buffer.get(ValueLayout.JAVA_BYTE, b) != poison) {
                throw new AssertionError(what + ": byte " + b + " outside the output was written");
            }
        }
    }

    /** Fails at the first element where {@code got} and {@code want} differ (bits; NaNs canonical). */
    public static void assertSameElements(String what, DType type, MemorySegment want, MemorySegment got, long n) {
        for (long i = 0; i < n; i++) {
            long w = bitsAt(type, want, i), g = bitsAt(type, got, i);
            if (w != g) {
                throw new AssertionError(what + ": element " + i + " of " + n + " is 0x" + Long.toHexString(g)
                        + ", expected 0x" + Long.toHexString(w));
            }
        }
    }
}
