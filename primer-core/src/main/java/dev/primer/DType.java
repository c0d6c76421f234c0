package dev.primer;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.ValueLayout;

/** The element types Primer arrays hold, with their size, layout and NumPy name. */
public enum DType {
    BYTE(1, ValueLayout.JAVA_BYTE, "i1", "int8"),
    INT(4, ValueLayout.JAVA_INT, "i4", "int32"),
    LONG(8, ValueLayout.JAVA_LONG, "i8", "int64"),
    FLOAT(4, ValueLayout.JAVA_FLOAT, "f4", "float32"),
    DOUBLE(8, ValueLayout.JAVA_DOUBLE, "f8", "float64");

    private final int byteSize;
    private final MemoryLayout layout;
    private final String npyCode;
    private final String displayName;

    DType(int byteSize, MemoryLayout layout, String npyCode, String displayName) {
        this.byteSize = byteSize;
        this.layout = layout;
        this.npyCode = npyCode;
        this.displayName = displayName;
    }

    /** Bytes per element. */
    public int byteSize() { return byteSize; }

    /** Native-order layout of one element. */
    public MemoryLayout layout() { return layout; }

    /** The NumPy type code without byte order, e.g. {@code "f4"}. */
    public String npyCode() { return npyCode; }

    /** The suffix kernels carry for this type: i8, i32, i64, f32, f64. */
    public String kernelSuffix() {
        return switch (this) {
            case BYTE -> "i8";
            case INT -> "i32";
            case LONG -> "i64";
            case FLOAT -> "f32";
            case DOUBLE -> "f64";
        };
    }

    public boolean isFloatingPoint() { return this == FLOAT || this == DOUBLE; }

    /** The name a user reads and types, e.g. {@code float32}. */
    @Override public String toString() { return displayName; }

    /** Parses {@code int32}, {@code i4}, {@code float}, ... (case-insensitive). */
    public static DType parse(String name) {
        String n = name.trim().toLowerCase(java.util.Locale.ROOT);
        for (DType t : values()) {
            if (t.displayName.equals(n) || t.npyCode.equals(n) || t.name().toLowerCase(java.util.Locale.ROOT).equals(n)) {
                return t;
            }
        }
        switch (n) {
            case "i32": return INT;
            case "i64": return LONG;
            case "f32": return FLOAT;
            case "f64": return DOUBLE;
            case "i8": return BYTE;
            default: throw new IllegalArgumentException("unsupported dtype '" + name
                    + "': expected one of int8, int32, int64, float32, float64");
        }
    }
}
