package dev.primer;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A scan's arrays for the scan tests: the input placed {@code shift} elements into a device array
 * (slices 1..3 elements past an allocation: the GPU aligns its tiles to 16 bytes), and the output in
 * place ({@code outShift < 0}) or {@code outShift} elements past {@link #GUARD} poisoned elements,
 * with as many after it. Every element around the input is poisoned too, so in place the guards are
 * checked as well: {@link #assertOutput} checks every element and every guard byte.
 */
final class StagedScan implements AutoCloseable {
    static final long GUARD = 4;
    static final byte POISON = (byte) 0xA5;

    final DeviceArray in;
    final DeviceArray out;
    private final DeviceArray inBase;
    private final DeviceArray outBase;   // null in place
    private final DeviceArray written;   // the array that holds the output: outBase, or inBase in place
    private final long outOffset;
    private final long n;
    private final DType outType;

    StagedScan(Primer primer, Arena arena, DType type, MemorySegment x, long n, int shift, int outShift) {
        this(primer, arena, type, type, x, n, shift, outShift);
    }

    /** As above, the output of {@code outType} (int64 for a widening SUM; in place needs the input's type). */
    StagedScan(Primer primer, Arena arena, DType inType, DType outType, MemorySegment x, long n, int shift, int outShift) {
        this.outType = outType;
        this.n = n;
        boolean inPlace = outShift < 0;
        if (inPlace && inType != outType) throw new IllegalArgumentException("in place needs one type, not " + inType + " -> " + outType);
        inBase = primer.allocate(inType, n + shift + GUARD);
        try {
            outBase = inPlace ? null : primer.allocate(outType, n + outShift + 2 * GUARD);
        } catch (RuntimeException e) {
            inBase.close();
            throw e;
        }
        MemorySegment staged = arena.allocate(inBase.byteSize(), 8).fill(POISON);
        MemorySegment.copy(x, 0, staged, shift * inType.byteSize(), n * inType.byteSize());
        inBase.copyFrom(staged);
        in = CustomSegments.slice(inBase, shift, shift + n);
        outOffset = inPlace ? shift : GUARD + outShift;
        written = inPlace ? inBase : outBase;
        if (!inPlace) outBase.copyFrom(arena.allocate(outBase.byteSize(), 8).fill(POISON));
        out = inPlace ? in : CustomSegments.slice(outBase, outOffset, outOffset + n);
    }

    /** Every output element against {@code want} (n elements), and every guard byte still poisoned. */
    void assertOutput(String what, Arena arena, MemorySegment want) {
        long size = outType.byteSize();
        MemorySegment got = arena.allocate(written.byteSize(), 8);
        written.copyTo(got);
        CustomScanOps.assertGuardsUntouched(what, got, outOffset * size, n * size, POISON);
        CustomScanOps.assertSameElements(what, outType, want, got.asSlice(outOffset * size), n);
    }

    @Override
    public void close() {
        try (inBase) {
            if (outBase != null) outBase.close();
        }
    }
}
