package dev.primer;

/**
 * The built-in operators as Java arithmetic, the tests' reference folds: integers in long (wrapping;
 * narrow the result for int8 and int32, whose low bits wrap alike), floats in double with
 * Math.min/Math.max. Written apart from the backends' own operator code, so a reference cannot share
 * its bugs.
 */
public final class JavaOps {
    private JavaOps() {}

    public static long apply(Op op, long a, long b) {
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

    /** The identity of op over an integer type, as a long (sign-extended), spelled out here. */
    public static long identity(Op op, DType type) {
        long max = switch (type) {
            case BYTE -> Byte.MAX_VALUE;
            case INT -> Integer.MAX_VALUE;
            case LONG -> Long.MAX_VALUE;
            default -> throw new IllegalArgumentException("type: " + type + " is not an integer type");
        };
        return switch (op) {
            case SUM, OR, XOR -> 0;
            case PROD -> 1;
            case MIN -> max;
            case MAX -> -max - 1;
            case AND -> -1;
        };
    }

    public static double apply(Op op, double a, double b) {
        return switch (op) {
            case SUM -> a + b;
            case PROD -> a * b;
            case MIN -> Math.min(a, b);
            case MAX -> Math.max(a, b);
            default -> throw new IllegalArgumentException("op: " + op + " is not defined for floats");
        };
    }
}
