package dev.primer.cpu;

import dev.primer.Op;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/**
 * The operators as the Vector API names them, and on scalars.
 *
 * <p>Kernels use {@link #vectorOperator} on their {@code static final} operator (see {@link Specialized}),
 * so each lane operation names a constant. MIN/MAX on floating lanes follow Math.min/Math.max (NaN wins,
 * -0.0 &lt; 0.0), as the scalar forms here do.
 */
final class LaneOps {
    private LaneOps() {}

    /** The Vector API's operator for {@code op}. */
    static VectorOperators.Associative vectorOperator(Op op) {
        return switch (op) {
            case SUM -> VectorOperators.ADD;
            case PROD -> VectorOperators.MUL;
            case MIN -> VectorOperators.MIN;
            case MAX -> VectorOperators.MAX;
            case AND -> VectorOperators.AND;
            case OR -> VectorOperators.OR;
            case XOR -> VectorOperators.XOR;
        };
    }

    /** The operator on longs: Java's wrapping arithmetic. */
    static long apply(Op op, long a, long b) {
        return switch (op) {
            case SUM -> a + b;
            case PROD -> a * b;
            case MIN -> Math.min(a, b);
            case MAX -> Math.max(a, b);
            case AND -> a & b;
            case OR -> a | b;
            case XOR -> a ^ b;
        };
    }

    static float apply(Op op, float a, float b) {
        return switch (op) {
            case SUM -> a + b;
            case PROD -> a * b;
            case MIN -> Math.min(a, b);
            case MAX -> Math.max(a, b);
            default -> throw unsupported(op);
        };
    }

    static double apply(Op op, double a, double b) {
        return switch (op) {
            case SUM -> a + b;
            case PROD -> a * b;
            case MIN -> Math.min(a, b);
            case MAX -> Math.max(a, b);
            default -> throw unsupported(op);
        };
    }

    /**
     * The identity of {@code op} on floating-point values: {@code x op identity == x} bit for bit,
     * so SUM's is -0.0 (0.0 + -0.0 would give 0.0).
     */
    static double floatingIdentity(Op op) {
        return switch (op) {
            case SUM -> -0.0;
            case PROD -> 1.0;
            case MIN -> Double.POSITIVE_INFINITY;
            case MAX -> Double.NEGATIVE_INFINITY;
            default -> throw unsupported(op);
        };
    }

    /**
     * Whether {@code x op x == x}, so that folding an element twice changes nothing: a reduction's tail
     * may then re-read elements already folded through plain loads instead of masked ones.
     */
    static boolean idempotent(Op op) {
        return op == Op.MIN || op == Op.MAX || op == Op.AND || op == Op.OR;
    }

    /** The identity of {@code op} on integers whose extremes are {@code lowest} and {@code highest}. */
    static long integralIdentity(Op op, long lowest, long highest) {
        return switch (op) {
            case SUM, OR, XOR -> 0;
            case PROD -> 1;
            case AND -> -1;
            case MIN -> highest;
            case MAX -> lowest;
        };
    }

    private static IllegalArgumentException unsupported(Op op) {
        return new IllegalArgumentException("op: " + op + " is not defined for floating-point types");
    }

    /**
     * A Sklansky step of width {@code d} (1, 2, 4, 8) in species {@code s}: lane i takes the last lane
     * of the group of d before its own. Used where {@link #sklanskyLanes} is set.
     */
    static <E> VectorShuffle<E> sklanskyShuffle(VectorSpecies<E> s, int d) {
        int lanes = s.length();
        return VectorShuffle.fromOp(s, i -> (i & -2 * d) + d - 1 & lanes - 1);
    }

    /** The lanes a Sklansky step of width {@code d} updates: those with bit d set. */
    static <E> VectorMask<E> sklanskyLanes(VectorSpecies<E> s, int d) {
        long bits = 0;
        for (int i = 0; i < s.length(); i++) if ((i & d) != 0) bits |= 1L << i;
        return VectorMask.fromLong(s, bits);
    }
}
