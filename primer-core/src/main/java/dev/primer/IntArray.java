package dev.primer;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Objects;

/** A backend-resident array of {@code int} (INT). Made by {@link Primer}; see {@link DeviceArray}. */
public final class IntArray extends DeviceArray {
    IntArray(Memory memory, long offsetBytes, long length, DeviceArray sliceOf) {
        super(memory, offsetBytes, length, sliceOf);
    }

    @Override public DType dtype() { return DType.INT; }

    /** A view of elements [from, to) sharing this array's memory. */
    public IntArray slice(long from, long to) {
        checkSliceBounds(from, to);
        return new IntArray(memory, offsetBytes() + from * ValueLayout.JAVA_INT.byteSize(), to - from, this);
    }

    /** Downloads all elements into a new Java array. */
    public int[] toArray() {
        int[] out = new int[checkedHostLength()];
        copyTo(MemorySegment.ofArray(out));
        return out;
    }

    /** Downloads all elements into {@code dst}, whose length must equal this array's. */
    public void copyTo(int[] dst) {
        Objects.requireNonNull(dst, "dst");
        checkHostArray(dst.length, "dst");
        copyTo(MemorySegment.ofArray(dst));
    }

    /** Uploads {@code src}, whose length must equal this array's. */
    public void copyFrom(int[] src) {
        Objects.requireNonNull(src, "src");
        checkHostArray(src.length, "src");
        copyFrom(MemorySegment.ofArray(src));
    }

    /** One element (a small download: for tests and spot checks, not loops). */
    public int get(long index) {
        requireOpen();
        Objects.checkIndex(index, length());
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment one = arena.allocate(ValueLayout.JAVA_INT);
            slice(index, index + 1).copyTo(one);
            return one.get(ValueLayout.JAVA_INT, 0);
        }
    }

    /** Sets every element to {@code value}. */
    public void fill(int value) { fillBits(value & 0xFFFF_FFFFL); }
}
