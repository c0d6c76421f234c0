package dev.primer.io;

import dev.primer.DType;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Objects;

/**
 * An array read from a {@code .npy} file: its element type, its shape (C order, row-major) and its
 * elements in native byte order.
 *
 * <p>{@code data} holds exactly {@link #length()} elements of {@code dtype}; it lives as long as the
 * arena it was allocated in (see {@link Npy#read(java.nio.file.Path, java.lang.foreign.Arena)}).
 * A 0-d array (shape {@code []}) holds one element; a shape containing 0 holds none.
 *
 * <p>The shape is copied in and out, so a record can't be changed through it. {@code equals}
 * compares dtype and shape by value but {@code data} as {@link MemorySegment#equals} does (same
 * memory region); use {@link #contentEquals} to compare elements.
 */
public record NpyArray(DType dtype, long[] shape, MemorySegment data) {

    public NpyArray {
        Objects.requireNonNull(dtype, "dtype");
        Objects.requireNonNull(data, "data");
        shape = shape.clone();
        long expected = Math.multiplyExact(elementCount(shape), (long) dtype.byteSize());
        if (data.byteSize() != expected) {
            throw new IllegalArgumentException("data holds " + data.byteSize() + " bytes but shape "
                    + shapeString(shape) + " of " + dtype + " needs " + expected);
        }
    }

    /** The shape, one entry per axis (a copy). */
    @Override public long[] shape() { return shape.clone(); }

    /** Number of axes: 0 for a scalar. */
    public int rank() { return shape.length; }

    /** Number of elements: the product of the shape (1 for a scalar). */
    public long length() { return elementCount(shape); }

    /** Bytes of element data. */
    public long byteSize() { return data.byteSize(); }

    /** True when dtype and shape are equal and the elements are bitwise equal. */
    public boolean contentEquals(NpyArray other) {
        return dtype == other.dtype && Arrays.equals(shape, other.shape) && data.mismatch(other.data) == -1;
    }

    @Override public boolean equals(Object o) {
        return o instanceof NpyArray a && dtype == a.dtype && Arrays.equals(shape, a.shape) && data.equals(a.data);
    }

    @Override public int hashCode() { return Objects.hash(dtype, Arrays.hashCode(shape), data); }

    @Override public String toString() { return "NpyArray[" + dtype + " " + shapeString(shape) + "]"; }

    /** Product of the dimensions; rejects negative dimensions and overflow. */
    static long elementCount(long[] shape) {
        long n = 1;
        for (long d : shape) {
            if (d < 0) throw new IllegalArgumentException("negative dimension " + d + " in shape " + shapeString(shape));
            n = Math.multiplyExact(n, d);
        }
        return n;
    }

    /** The shape as Python writes a tuple: {@code ()}, {@code (3,)}, {@code (2, 3)}. */
    static String shapeString(long[] shape) {
        StringBuilder s = new StringBuilder("(");
        for (int i = 0; i < shape.length; i++) {
            if (i > 0) s.append(", ");
            s.append(shape[i]);
        }
        if (shape.length == 1) s.append(',');
        return s.append(')').toString();
    }
}
