package dev.primer;

/**
 * The built-in associative operators of reduce and scan. Semantics follow Java: MIN/MAX as
 * Math.min/Math.max (NaN wins, -0.0 &lt; 0.0); AND/OR/XOR are for integer types only.
 * For accumulator types, see {@link Primer}'s reduce methods.
 */
public enum Op {
    SUM, PROD, MIN, MAX, AND, OR, XOR;

    /** Whether this operator is defined for the element type. */
    public boolean supports(DType type) {
        return switch (this) {
            case AND, OR, XOR -> !type.isFloatingPoint();
            default -> true;
        };
    }

    /** Throws IllegalArgumentException naming the argument when the type is not supported. */
    public void requireSupports(DType type, String argumentName) {
        if (!supports(type)) {
            throw new IllegalArgumentException(argumentName + ": operator " + this
                    + " is not defined for " + type + " (bitwise operators take integer types)");
        }
    }
}
