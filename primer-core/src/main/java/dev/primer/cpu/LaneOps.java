package dev.primer.cpu;

import dev.primer.Op;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;

/**
 * The operators on vector lanes and on scalars, one switch per vector class.
 *
 * <p>The Vector API compiles a lane operation to machine code only when its operator is a constant;
 * a switch whose arms each name a constant operator, inlined into a loop whose {@code op} does not
 * change, runs as fast as a loop written for one operator (the branch is predicted every time).
 * MIN/MAX on floating lanes follow Math.min/Math.max (NaN wins, -0.0 &lt; 0.0).
 */
final class LaneOps {
    private LaneOps() {}

    static ByteVector apply(Op op, ByteVector a, ByteVector b) {
        return switch (op) {
            case SUM -> a.add(b);
            case PROD -> a.mul(b);
            case MIN -> a.min(b);
            case MAX -> a.max(b);
            case AND -> a.and(b);
            case OR -> a.or(b);
            case XOR -> a.lanewise(VectorOperators.XOR, b);
        };
    }

    static IntVector apply(Op op, IntVector a, IntVector b) {
        return switch (op) {
            case SUM -> a.add(b);
            case PROD -> a.mul(b);
            case MIN -> a.min(b);
            case MAX -> a.max(b);
            case AND -> a.and(b);
            case OR -> a.or(b);
            case XOR -> a.lanewise(VectorOperators.XOR, b);
        };
    }

    static LongVector apply(Op op, LongVector a, LongVector b) {
        return switch (op) {
            case SUM -> a.add(b);
            case PROD -> a.mul(b);
            case MIN -> a.min(b);
            case MAX -> a.max(b);
            case AND -> a.and(b);
            case OR -> a.or(b);
            case XOR -> a.lanewise(VectorOperators.XOR, b);
        };
    }

    static FloatVector apply(Op op, FloatVector a, FloatVector b) {
        return switch (op) {
            case SUM -> a.add(b);
            case PROD -> a.mul(b);
            case MIN -> a.min(b);
            case MAX -> a.max(b);
            default -> throw unsupported(op);
        };
    }

    static DoubleVector apply(Op op, DoubleVector a, DoubleVector b) {
        return switch (op) {
            case SUM -> a.add(b);
            case PROD -> a.mul(b);
            case MIN -> a.min(b);
            case MAX -> a.max(b);
            default -> throw unsupported(op);
        };
    }

    /** Folds the lanes; exact operators only (integers, or MIN/MAX), where lane order cannot matter. */
    static long reduceLanes(Op op, ByteVector v) {
        return switch (op) {
            case SUM -> v.reduceLanes(VectorOperators.ADD);
            case PROD -> v.reduceLanes(VectorOperators.MUL);
            case MIN -> v.reduceLanes(VectorOperators.MIN);
            case MAX -> v.reduceLanes(VectorOperators.MAX);
            case AND -> v.reduceLanes(VectorOperators.AND);
            case OR -> v.reduceLanes(VectorOperators.OR);
            case XOR -> v.reduceLanes(VectorOperators.XOR);
        };
    }

    static long reduceLanes(Op op, IntVector v) {
        return switch (op) {
            case SUM -> v.reduceLanes(VectorOperators.ADD);
            case PROD -> v.reduceLanes(VectorOperators.MUL);
            case MIN -> v.reduceLanes(VectorOperators.MIN);
            case MAX -> v.reduceLanes(VectorOperators.MAX);
            case AND -> v.reduceLanes(VectorOperators.AND);
            case OR -> v.reduceLanes(VectorOperators.OR);
            case XOR -> v.reduceLanes(VectorOperators.XOR);
        };
    }

    static long reduceLanes(Op op, LongVector v) {
        return switch (op) {
            case SUM -> v.reduceLanes(VectorOperators.ADD);
            case PROD -> v.reduceLanes(VectorOperators.MUL);
            case MIN -> v.reduceLanes(VectorOperators.MIN);
            case MAX -> v.reduceLanes(VectorOperators.MAX);
            case AND -> v.reduceLanes(VectorOperators.AND);
            case OR -> v.reduceLanes(VectorOperators.OR);
            case XOR -> v.reduceLanes(VectorOperators.XOR);
        };
    }

    /** MIN/MAX only: exact in any lane order. */
    static float reduceLanes(Op op, FloatVector v) {
        return switch (op) {
            case MIN -> v.reduceLanes(VectorOperators.MIN);
            case MAX -> v.reduceLanes(VectorOperators.MAX);
            default -> throw unsupported(op);
        };
    }

    /** MIN/MAX only: exact in any lane order. */
    static double reduceLanes(Op op, DoubleVector v) {
        return switch (op) {
            case MIN -> v.reduceLanes(VectorOperators.MIN);
            case MAX -> v.reduceLanes(VectorOperators.MAX);
            default -> throw unsupported(op);
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
}
