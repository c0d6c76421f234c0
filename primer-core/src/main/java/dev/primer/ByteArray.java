package dev.primer;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Objects;

/** A backend-resident array of {@code byte} (BYTE). Made by {@link Primer}; see {@link DeviceArray}. */
public final class ByteArray extends DeviceArray {
    ByteArray(Memory memory, long offsetBytes, long length, DeviceArray sliceOf) {
        super(memory, offsetBytes, length, sliceOf);
    }

    @Override public DType dtype() { return DType.BYTE; }

    /** A view of elements [from, to) sharing this array's memory. */
    public ByteArray slice(long from, long to) {
        checkSliceBounds(from, to);
        return new ByteArray(memory, offsetBytes() + from * ValueLayout.JAVA_BYTE.byteSize(), to - from, this);
    }

    /** Downloads all elements into a new Java array. */
    public byte[] toArray() {
        byte[] out = new byte[checkedHostLength()];
        copyTo(MemorySegment.ofArray(out));
        return out;
    }

    /** Downloads all elements into {@code dst}, whose length must equal this array's. */
    public void copyTo(byte[] dst) {
        Objects.requireNonNull(dst, "dst");
        checkHostArray(dst.length, "dst");
        copyTo(MemorySegment.ofArray(dst));
    }

    /** Uploads {@code src}, whose length must equal this array's. */
    public void copyFrom(byte[] src) {
        Objects.requireNonNull(src, "src");
        checkHostArray(src.length, "src");
        copyFrom(MemorySegment.ofArray(src));
    }

    /** One element (a small download: for tests and spot checks, not loops). */
    public byte get(long index) {
        requireOpen();
        Objects.checkIndex(index, length());
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment one = arena.allocate(ValueLayout.JAVA_BYTE);
            slice(index, index + 1).copyTo(one);
            return one.get(ValueLayout.JAVA_BYTE, 0);
        }
    }

    /** Sets every element to {@code value}. */
    public void fill(byte value) { fillBits(value & 0xFFL); }
}
