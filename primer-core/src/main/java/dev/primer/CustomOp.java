package dev.primer;

import java.util.Objects;
import java.util.function.DoubleBinaryOperator;
import java.util.function.IntBinaryOperator;
import java.util.function.LongBinaryOperator;
import java.util.regex.Pattern;

/**
 * A user-defined operator for reduce and scan: the same operator written twice, as a CUDA C++
 * expression of {@code a} and {@code b} (compiled at run time through NVRTC, and cached on disk) for
 * the GPU, and as a Java lambda for the CPU, with its identity element.
 *
 * <pre>{@code
 * CustomOp absMax = CustomOp.ofFloat("absmax", "fmaxf(fabsf(a), fabsf(b))", 0f,
 *                                    (a, b) -> Math.max(Math.abs(a), Math.abs(b)));
 * float m = primer.reduce(x, absMax);
 * }</pre>
 *
 * The operator must be associative, and the identity an identity on both sides (the GPU fills idle
 * lanes and partial tiles with it). It need not be commutative (first non-zero, affine maps
 * composed, forward fill): reduce and scan keep operand order on both backends, the left operand
 * always covering the lower indices. The order of combination is fixed for a given length, device and input alignment, so results are
 * reproducible run to run but may differ from a left-to-right fold in float rounding. The two
 * definitions must agree; Primer cannot check that for you.
 *
 * <p>An operator whose result does not depend on the association at all (integer arithmetic,
 * bitwise operators, selections such as min, max or forward fill; not float sums or products) can
 * say so with {@link #exact()}: the GPU scans may then combine partial results in whatever
 * association is fastest, with the same bits.
 *
 * <p>On int8 ({@link #ofByte}) the CUDA expression sees {@code a} and {@code b} as {@code int}s
 * holding the bytes' values, as Java promotes bytes in arithmetic, and its integer result is
 * narrowed to a byte (wrapping, as Java's {@code (byte)} cast does), so {@code "a + b"} on the GPU is
 * {@code (a, b) -> (byte) (a + b)} in Java. (A floating-point result out of a byte's range would be
 * undefined in C++: convert it to an {@code int} in the expression, as Java's cast does.)
 */
public final class CustomOp {
    private static final Pattern NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_]{0,40}");

    private final String name;
    private final DType type;
    private final String cudaExpression;
    private final long identityBits;
    private final Object javaOperator;
    private final boolean exact;

    private CustomOp(String name, DType type, String cudaExpression, long identityBits, Object javaOperator) {
        this(name, type, cudaExpression, identityBits, javaOperator, false);
    }

    private CustomOp(String name, DType type, String cudaExpression, long identityBits, Object javaOperator, boolean exact) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(cudaExpression, "cudaExpression");
        Objects.requireNonNull(javaOperator, "javaOperator");
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("name must be an identifier of letters, digits and _ (up to 41): '" + name + "'");
        }
        // A comment would swallow the source around the expression on the GPU while the CPU ran the lambda.
        if (cudaExpression.isBlank() || cudaExpression.contains(";") || cudaExpression.contains("{") || cudaExpression.contains("#")
                || cudaExpression.contains("//") || cudaExpression.contains("/*")) {
            throw new IllegalArgumentException("cudaExpression must be one C++ expression of a and b (no ';', '{', '#' or comment): '"
                    + cudaExpression + "'");
        }
        this.name = name;
        this.type = type;
        this.cudaExpression = cudaExpression;
        this.identityBits = identityBits;
        this.javaOperator = javaOperator;
        this.exact = exact;
    }

    public static CustomOp ofByte(String name, String cudaExpression, byte identity, ByteBinaryOperator java) {
        return new CustomOp(name, DType.BYTE, cudaExpression, identity, java);
    }

    public static CustomOp ofInt(String name, String cudaExpression, int identity, IntBinaryOperator java) {
        return new CustomOp(name, DType.INT, cudaExpression, identity, java);
    }

    public static CustomOp ofLong(String name, String cudaExpression, long identity, LongBinaryOperator java) {
        return new CustomOp(name, DType.LONG, cudaExpression, identity, java);
    }

    public static CustomOp ofFloat(String name, String cudaExpression, float identity, FloatBinaryOperator java) {
        return new CustomOp(name, DType.FLOAT, cudaExpression, Float.floatToRawIntBits(identity) & 0xFFFF_FFFFL, java);
    }

    public static CustomOp ofDouble(String name, String cudaExpression, double identity, DoubleBinaryOperator java) {
        return new CustomOp(name, DType.DOUBLE, cudaExpression, Double.doubleToRawLongBits(identity), java);
    }

    /**
     * This operator, declared exactly associative: {@code (a op b) op c} and {@code a op (b op c)}
     * are the same bits for all values, so every association of a fold gives the same result.
     * True of wrapping integer arithmetic, bitwise operators and selections (min, max, the last
     * valid value); false of float sums and products, which round. The GPU scans then combine the
     * tile totals they look back at as a tree instead of strictly left to right, the same bits for
     * an exact operator; it pays where the look-back is the long pole (an H200's segmented float64
     * forward fill of 2^28 elements: 4.09 -> 3.36 ms; the plain one did not change). Declared of an
     * inexact one, float results may change from run to run.
     */
    public CustomOp exact() {
        return exact ? this : new CustomOp(name, type, cudaExpression, identityBits, javaOperator, true);
    }

    /** Whether the operator is declared exactly associative ({@link #exact()}). */
    public boolean isExact() { return exact; }

    /** {@code (a, b) -> ...} on floats, for {@link #ofFloat}. */
    @FunctionalInterface
    public interface FloatBinaryOperator {
        float applyAsFloat(float a, float b);
    }

    /** {@code (a, b) -> ...} on bytes, for {@link #ofByte}. */
    @FunctionalInterface
    public interface ByteBinaryOperator {
        byte applyAsByte(byte a, byte b);
    }

    public String name() { return name; }

    /** The element type the operator is defined on. */
    public DType type() { return type; }

    public String cudaExpression() { return cudaExpression; }

    /** The identity as raw bits of {@link #type()}. */
    public long identityBits() { return identityBits; }

    /** The Java operator: a ByteBinaryOperator, IntBinaryOperator, LongBinaryOperator, FloatBinaryOperator or DoubleBinaryOperator. */
    public Object javaOperator() { return javaOperator; }

    /** The CUDA C++ literal of the identity, exact for every value (hex-float for floating types). */
    public String identityLiteral() {
        return switch (type) {
            case INT -> "(int)0x" + Integer.toHexString((int) identityBits) + "U";
            case LONG -> "(long long)0x" + Long.toHexString(identityBits) + "ULL";
            case FLOAT -> "__int_as_float((int)0x" + Integer.toHexString((int) identityBits) + "U)";
            case DOUBLE -> "__longlong_as_double((long long)0x" + Long.toHexString(identityBits) + "ULL)";
            case BYTE -> "(signed char)0x" + Integer.toHexString((int) identityBits & 0xFF) + "U";
        };
    }

    @Override public String toString() {
        return "CustomOp[" + name + ": " + type + ", " + cudaExpression + (exact ? ", exact" : "") + "]";
    }
}
