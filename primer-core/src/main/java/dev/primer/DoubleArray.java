package dev.primer;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Objects;

/** A backend-resident array of {@code double} (DOUBLE). Made by {@link Primer}; see {@link DeviceArray}. */
public final class DoubleArray extends DeviceArray {
    DoubleArray(Memory memory, long offsetBytes, long length, DeviceArray sliceOf) {
        super(memory, offsetBytes, length, sliceOf);
    }

    @Override public DType dtype() { return DType.DOUBLE; }

    /** A view of elements [from, to) sharing this array's memory. */
    public DoubleArray slice(long from, long to) {
        checkSliceBounds(from, to);
        return new DoubleArray(memory, offsetBytes() + from * ValueLayout.JAVA_DOUBLE.byteSize(), to - from, this);
    }

    /** Downloads all elements into a new Java array. */
    public double[] toArray() {
        double[] out = new double[checkedHostLength()];
        copyTo(MemorySegment.ofArray(out));
        return out;
    }

    /** Downloads all elements into {@code dst}, whose length must equal this array's. */
    public void copyTo(double[] dst) {
        Objects.requireNonNull(dst, "dst");
        checkHostArray(dst.length, "dst");
        copyTo(MemorySegment.ofArray(dst));
    }

    /** Uploads {@code src}, whose length must equal this array's. */
    public void copyFrom(double[] src) {
        Objects.requireNonNull(src, "src");
        checkHostArray(src.length, "src");
        copyFrom(MemorySegment.ofArray(src));
    }

    /** One element (a small download: for tests and spot checks, not loops). */
    public double get(long index) {
        requireOpen();
        Objects.checkIndex(index, length());
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment one = arena.allocate(ValueLayout.JAVA_DOUBLE);
            slice(index, index + 1).copyTo(one);
            return one.get(ValueLayout.JAVA_DOUBLE, 0);
        }
    }

    /** Sets every element to {@code value}. */
    public void fill(double value) { fillBits(Double.doubleToRawLongBits(value)); }
}
