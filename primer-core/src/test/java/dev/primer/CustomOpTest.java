package dev.primer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** User-defined operators: the CUDA expression (NVRTC) and the Java lambda give the same answers. */
class CustomOpTest {
    static Iterable<BackendKind> backends() { return Backends.all().toList(); }

    static final CustomOp ABS_MAX = CustomOp.ofFloat("absmax", "fmaxf(fabsf(a), fabsf(b))", 0f,
            (a, b) -> Math.max(Math.abs(a), Math.abs(b)));
    static final CustomOp INT_GCD_LIKE_MAX = CustomOp.ofInt("imax", "a > b ? a : b", Integer.MIN_VALUE, Math::max);
    static final CustomOp LONG_XOR_ROTATE = CustomOp.ofLong("lxor", "a ^ b", 0L, (a, b) -> a ^ b);
    static final CustomOp DOUBLE_SUM_SQUARES_OF_MAX = CustomOp.ofDouble("dmin", "fmin(a, b)", Double.POSITIVE_INFINITY, Math::min);
    /** Its identity is negative: the GPU's idle lanes must hold -128 (an int), not 128, or it wins. */
    static final CustomOp BYTE_MAX = CustomScanOps.BYTE_MAX;

    @ParameterizedTest
    @MethodSource("backends")
    void customOperatorsMatchAPlainJavaFold(BackendKind kind) {
        SplittableRandom random = new SplittableRandom(7);
        try (Primer primer = Backends.open(kind)) {
            for (int n : new int[] {0, 1, 33, 1025, 1_000_003}) {
                float[] f = new float[n];
                byte[] b = new byte[n];
                random.nextBytes(b);
                int[] i = random.ints(n).toArray();
                long[] l = random.longs(n).toArray();
                double[] d = random.doubles(n, -1e9, 1e9).toArray();
                for (int k = 0; k < n; k++) f[k] = (float) random.nextDouble(-100, 100);
                float ef = 0f; int ei = Integer.MIN_VALUE; long el = 0; double ed = Double.POSITIVE_INFINITY;
                byte eb = Byte.MIN_VALUE;
                for (int k = 0; k < n; k++) {
                    eb = (byte) Math.max(eb, b[k]);
                    ef = Math.max(ef, Math.abs(f[k]));
                    ei = Math.max(ei, i[k]);
                    el ^= l[k];
                    ed = Math.min(ed, d[k]);
                }
                try (FloatArray fa = primer.upload(f); IntArray ia = primer.upload(i); LongArray la = primer.upload(l);
                     DoubleArray da = primer.upload(d); ByteArray ba = primer.upload(b)) {
                    assertEquals(ef, primer.reduce(fa, ABS_MAX), "absmax n=" + n);
                    assertEquals(ei, primer.reduce(ia, INT_GCD_LIKE_MAX), "imax n=" + n);
                    assertEquals(el, primer.reduce(la, LONG_XOR_ROTATE), "lxor n=" + n);
                    assertEquals(ed, primer.reduce(da, DOUBLE_SUM_SQUARES_OF_MAX), "dmin n=" + n);
                    assertEquals(eb, primer.reduce(ba, BYTE_MAX), "bmax n=" + n);
                }
            }
        }
    }

    /** Associative, not commutative: any reordering of operands shows (affine maps composed, forward fill, first non-zero). */
    @ParameterizedTest
    @MethodSource("backends")
    void nonCommutativeOperatorsReduceInIndexOrder(BackendKind kind) {
        try (Primer primer = Backends.open(kind); Arena arena = Arena.ofConfined()) {
            for (CustomOp op : List.of(CustomScanOps.AFFINE16, CustomScanOps.AFFINE32, CustomScanOps.FFILL,
                    CustomScanOps.AFFINE4, CustomScanOps.FIRST_NONZERO)) {
                for (long n : new long[] {0, 1, 33, 1025, 1_000_003}) {
                    MemorySegment x = CustomScanOps.input(arena, op, n, n + 11);
                    MemorySegment want = CustomScanOps.reference(arena, op, x, n, true, op.identityBits());
                    MemorySegment identity = arena.allocate(8, 8).fill((byte) 0);
                    identity.set(java.lang.foreign.ValueLayout.JAVA_LONG, 0, op.identityBits());
                    long wantBits = n == 0 ? CustomScanOps.bitsAt(op.type(), identity, 0) : CustomScanOps.bitsAt(op.type(), want, n - 1);
                    try (DeviceArray a = primer.allocate(op.type(), n)) {
                        a.copyFrom(x);
                        long got = switch (a) {
                            case ByteArray ba -> primer.reduce(ba, op);
                            case IntArray ia -> primer.reduce(ia, op);
                            case LongArray la -> primer.reduce(la, op);
                            case DoubleArray da -> Double.doubleToLongBits(primer.reduce(da, op));
                            default -> throw new AssertionError(a);
                        };
                        assertEquals(wantBits, got, op + " n=" + n);
                    }
                }
            }
        }
    }

    /**
     * int8 reduce of slices 0..127 bytes into an allocation (on the GPU, the head before the first
     * 128-byte line, and the tail after the last) at sizes about them and of several blocks; the bytes
     * around the slice poisoned (non-zero: the first non-zero of a slice of zeros, or a sum, would
     * take them in).
     */
    @ParameterizedTest
    @MethodSource("backends")
    void int8ReducesOfSlicesAtEveryHeadGiveTheLeftFold(BackendKind kind) {
        try (Primer primer = Backends.open(kind); Arena arena = Arena.ofConfined()) {
            for (CustomOp op : CustomScanOps.INT8) {
                for (long n : new long[] {0, 1, 2, 31, 33, 127, 128, 129, 255, 4097, 1_000_003}) {
                    MemorySegment x = CustomScanOps.input(arena, op, n, n + op.name().hashCode());
                    long want = op.identityBits();
                    for (long i = 0; i < n; i++) want = CustomSegments.apply(op, want, CustomSegments.get(DType.BYTE, x, i));
                    MemorySegment poisoned = arena.allocate(n + 128).fill((byte) 0x5A);
                    try (ByteArray base = primer.allocateBytes(n + 128)) {
                        for (int shift = 0; shift < 128; shift += n < 4097 ? 1 : 19) {
                            base.copyFrom(poisoned);
                            ByteArray a = base.slice(shift, shift + n);
                            a.copyFrom(x);
                            assertEquals((byte) want, primer.reduce(a, op), op.name() + " n=" + n + " shift=" + shift);
                        }
                    }
                }
            }
        }
    }

    @ParameterizedTest
    @MethodSource("backends")
    void aTypeMismatchNamesTheOperator(BackendKind kind) {
        try (Primer primer = Backends.open(kind); IntArray a = primer.upload(new int[] {1, 2});
             ByteArray b = primer.upload(new byte[] {1, 2})) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> primer.reduce(a, ABS_MAX));
            assertEquals(true, e.getMessage().contains("absmax"), e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> primer.reduce(a, BYTE_MAX));
            assertTrue(e.getMessage().contains("bmax"), e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> primer.reduce(b, INT_GCD_LIKE_MAX));
            assertTrue(e.getMessage().contains("imax"), e.getMessage());
        }
    }

    @Test
    void badDefinitionsAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> CustomOp.ofInt("bad name", "a+b", 0, Integer::sum));
        assertThrows(IllegalArgumentException.class, () -> CustomOp.ofInt("inject", "a; } evil() {", 0, Integer::sum));
        assertThrows(IllegalArgumentException.class, () -> CustomOp.ofInt("comment", "max(a, b) // larger", 0, Math::max));
        assertThrows(IllegalArgumentException.class, () -> CustomOp.ofInt("comment", "a /* or b */ + b", 0, Integer::sum));
        assertThrows(NullPointerException.class, () -> CustomOp.ofInt("x", null, 0, Integer::sum));
        assertThrows(IllegalArgumentException.class, () -> CustomOp.ofByte("bad name", "a+b", (byte) 0, (a, b) -> a));
        assertThrows(IllegalArgumentException.class, () -> CustomOp.ofByte("inject", "a; } evil() {", (byte) 0, (a, b) -> a));
        assertThrows(NullPointerException.class, () -> CustomOp.ofByte("x", "a", (byte) 0, null));
    }

    @Test
    void exactIsADeclarationOnACopy() {
        CustomOp plain = CustomOp.ofDouble("ffill", "b == b ? b : a", Double.NaN, (a, b) -> Double.isNaN(b) ? a : b);
        CustomOp exact = plain.exact();
        assertFalse(plain.isExact());
        assertTrue(exact.isExact());
        assertSame(exact, exact.exact());
        assertEquals(plain.name(), exact.name());
        assertEquals(plain.cudaExpression(), exact.cudaExpression());
        assertEquals(plain.identityBits(), exact.identityBits());
        assertSame(plain.javaOperator(), exact.javaOperator());
        assertTrue(exact.toString().endsWith(", exact]"), exact.toString());
    }

    /** An int8 operator: its type, its Java operator, its identity sign-extended (as ofInt's). */
    @Test
    void byteOperatorsCarryTheirDefinition() {
        CustomOp.ByteBinaryOperator f = (a, b) -> (byte) (a & b);
        CustomOp and = CustomOp.ofByte("band", "a & b", (byte) -1, f);
        assertSame(DType.BYTE, and.type());
        assertSame(f, and.javaOperator());
        assertEquals(-1L, and.identityBits());
        assertEquals(0x10L, CustomScanOps.AFFINE4.identityBits());
        assertEquals("a & b", and.cudaExpression());
        assertTrue(and.exact().isExact());
    }

    @Test
    void identityLiteralsAreExact() {
        assertEquals("(signed char)0xffU", CustomOp.ofByte("m", "a", (byte) -1, (a, b) -> a).identityLiteral());
        assertEquals("(signed char)0x10U", CustomOp.ofByte("m", "a", (byte) 0x10, (a, b) -> a).identityLiteral());
        assertEquals("(signed char)0x80U", CustomOp.ofByte("m", "a", Byte.MIN_VALUE, (a, b) -> a).identityLiteral());
        assertEquals("(signed char)0x0U", CustomOp.ofByte("m", "a", (byte) 0, (a, b) -> a).identityLiteral());
        assertEquals("(long long)0x8000000000000000ULL", CustomOp.ofLong("m", "a", Long.MIN_VALUE, Math::max).identityLiteral());
        assertEquals("__int_as_float((int)0x7f800000U)", CustomOp.ofFloat("m", "a", Float.POSITIVE_INFINITY, Math::min).identityLiteral());
    }
}
