package dev.primer.cpu;

import dev.primer.DType;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** Argument checks of the CPU primitives; each failure names the argument. */
final class Checks {
    private Checks() {}

    static <T> T nonNull(T value, String name) {
        if (value == null) throw new NullPointerException(name + " is null");
        return value;
    }

    static long nonNegative(long value, String name) {
        if (value < 0) throw new IllegalArgumentException(name + " = " + value + " is negative");
        return value;
    }

    /** Checks that {@code segment} holds at least {@code count} elements of {@code type}. */
    static void holds(MemorySegment segment, long count, DType type, String name) {
        nonNull(segment, name);
        if (count > segment.byteSize() / type.byteSize()) {
            throw new IllegalArgumentException(name + " holds " + segment.byteSize() / type.byteSize()
                    + " elements of " + type + " (" + segment.byteSize() + " bytes), fewer than the "
                    + count + " required");
        }
    }

    /** Number of whole elements of {@code type} in {@code segment}. */
    static long elements(MemorySegment segment, DType type, String name) {
        return nonNull(segment, name).byteSize() / type.byteSize();
    }

    /** rows * cols, or IllegalArgumentException when it overflows. */
    static long product(long rows, long cols) {
        nonNegative(rows, "rows");
        nonNegative(cols, "cols");
        try {
            return Math.multiplyExact(rows, cols);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("rows * cols = " + rows + " * " + cols + " overflows a long");
        }
    }

    /**
     * Checks {@code segments + 1} int64 offsets: non-decreasing, from at least 0 to at most
     * {@code elements}.
     */
    static void offsets(MemorySegment offsets, long segments, long elements, String inName) {
        nonNegative(segments, "segments");
        nonNull(offsets, "offsets");
        if (segments + 1 > offsets.byteSize() / 8) {
            throw new IllegalArgumentException("offsets holds " + offsets.byteSize() / 8
                    + " int64 values, fewer than segments + 1 = " + (segments + 1));
        }
        long previous = offsets.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, 0);
        if (previous < 0) {
            throw new IllegalArgumentException("offsets[0] = " + previous + " is negative");
        }
        for (long k = 1; k <= segments; k++) {
            long next = offsets.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, k);
            if (next < previous) {
                throw new IllegalArgumentException("offsets decrease: offsets[" + (k - 1) + "] = " + previous
                        + " > offsets[" + k + "] = " + next);
            }
            previous = next;
        }
        if (previous > elements) {
            throw new IllegalArgumentException("offsets[" + segments + "] = " + previous + " is beyond the "
                    + elements + " elements of " + inName);
        }
    }

    /**
     * A scan by offsets reads and writes only elements [begin, end): there {@code out} must be {@code in}
     * or apart from it, as the GPU backend checks (what lies outside may overlap).
     */
    static boolean offsetsApart(MemorySegment in, long begin, long end, MemorySegment out, DType type) {
        return offsetsApart(in, type, begin, end, out, type);
    }

    /** As above, {@code in} of {@code inType} and {@code out} of {@code outType} (in place only where they are the same). */
    static boolean offsetsApart(MemorySegment in, DType inType, long begin, long end, MemorySegment out, DType outType) {
        long inSize = inType.byteSize(), outSize = outType.byteSize();
        return inPlaceOrApart(in.asSlice(begin * inSize), (end - begin) * inSize, out.asSlice(begin * outSize),
                (end - begin) * outSize, inType == outType);
    }

    /**
     * Output may be the input itself (same start, same element size) or lie apart from it, but not
     * overlap it partly: the scan would read elements it has already overwritten. Returns whether it
     * is the input itself (in place).
     */
    static boolean inPlaceOrApart(MemorySegment in, long inBytes, MemorySegment out, long outBytes, boolean sameSize) {
        MemorySegment a = in.asSlice(0, inBytes), b = out.asSlice(0, outBytes);
        if (inBytes == 0 || outBytes == 0 || a.asOverlappingSlice(b).isEmpty()) return false;
        if (!sameSize || a.address() != b.address()) { // overlapping: same memory, so addresses compare
            throw new IllegalArgumentException("out overlaps in without being the same elements: "
                    + "pass the same segment to scan in place, or memory apart from in");
        }
        return true;
    }
}
