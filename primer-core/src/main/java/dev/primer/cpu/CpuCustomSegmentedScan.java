package dev.primer.cpu;

import dev.primer.CustomOp;
import dev.primer.DType;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.function.LongUnaryOperator;

/**
 * Segmented scans with a user-defined operator on the CPU (see {@link CpuCustomScan} for the plain
 * one). In each segment, inclusive: {@code out[first] = init op x_first}, {@code out[i] = out[i-1] op x_i};
 * exclusive: {@code out[first] = init}, {@code out[i] = init op x_first op ... op x_(i-1)}. Operand
 * order is kept, so the operator need not be commutative.
 *
 * <p><b>By offsets</b>, every segment is scanned exactly as {@link CpuCustomScan} scans an array of its
 * own (chunks aligned at the segment's start), segments in parallel; elements outside every segment
 * are left as they are.
 *
 * <p><b>By head flags</b>, the two passes of {@link CpuCustomScan} over chunks of the whole array,
 * where a chunk with a head carries out the fold from its last head, {@code init op x_h op ... op x_b},
 * whatever came in, and a chunk without one carries out {@code carry op T_c}. Within a chunk the scan
 * runs left to right from its carry, restarting from {@code init} at each head; so a segment that spans
 * chunks is combined as the plain scan combines at chunk borders. The chunks depend on the length
 * alone: the same result on any thread count.
 */
public final class CpuCustomSegmentedScan {
    private CpuCustomSegmentedScan() {}

    private static final ValueLayout.OfLong OFFSET = ValueLayout.JAVA_LONG_UNALIGNED;

    /**
     * Segmented scan of {@code n} elements of {@code op.type()}: a segment starts at index 0 and
     * wherever the int8 {@code headFlags} is non-zero. {@code out} may be {@code in}.
     */
    public static void byFlags(CustomOp op, boolean inclusive, long initBits, MemorySegment in, MemorySegment headFlags,
                               MemorySegment out, long n) {
        Checks.nonNull(op, "op");
        DType type = op.type();
        Checks.nonNegative(n, "n");
        Checks.holds(in, n, type, "in");
        Checks.holds(headFlags, n, DType.BYTE, "headFlags");
        Checks.holds(out, n, type, "out");
        Checks.inPlaceOrApart(in, n * type.byteSize(), out, n * type.byteSize(), true);
        CustomLane lane = CustomLane.of(op);
        long init = lane.carry(initBits);
        // Element 0 starts a segment whatever its flag: it continues from the first carry, init.
        CpuCustomScan.run(new CpuCustomScan.Chunks() {
            @Override public LongUnaryOperator carryThrough(long from, long to) {
                long head = lastHead(headFlags, from, to);
                if (head < 0) {
                    long total = lane.total(in, from, to);
                    return carry -> lane.combine(carry, total);
                }
                long fold = lane.fold(in, head, to, init);
                return carry -> fold;
            }

            @Override public void scan(long from, long to, long carry) {
                lane.scan(in, headFlags, out, from, to, carry, init, inclusive);
            }
        }, 0, n, init);
    }

    /**
     * Segmented scan: segment {@code k < segments} is {@code [offsets[k], offsets[k+1])} (int64
     * offsets, non-decreasing, within the elements of {@code in}), each starting from {@code init}.
     * {@code out} holds at least {@code offsets[segments]} elements and may be {@code in}.
     */
    public static void byOffsets(CustomOp op, boolean inclusive, long initBits, MemorySegment in, MemorySegment offsets,
                                 long segments, MemorySegment out) {
        Checks.nonNull(op, "op");
        DType type = op.type();
        Checks.offsets(offsets, segments, Checks.elements(in, type, "in"), "in");
        long end = offsets.getAtIndex(OFFSET, segments);
        Checks.holds(out, end, type, "out");
        Checks.offsetsApart(in, offsets.getAtIndex(OFFSET, 0), end, out, type);
        CustomLane lane = CustomLane.of(op);
        long init = lane.carry(initBits);
        CpuCustomScan.Chunks chunks = CpuCustomScan.plain(lane, in, out, inclusive);
        Parallel.forWeightedRange(segments, k -> offsets.getAtIndex(OFFSET, k), (lo, hi) -> {
            for (long k = lo; k < hi; k++) {
                CpuCustomScan.run(chunks, offsets.getAtIndex(OFFSET, k), offsets.getAtIndex(OFFSET, k + 1), init);
            }
        });
    }

    /** Index of the last head in [from, to) (a non-zero flag, or element 0), or -1 when none. */
    private static long lastHead(MemorySegment flags, long from, long to) {
        for (long i = to - 1; i >= from; i--) {
            if (flags.get(ValueLayout.JAVA_BYTE, i) != 0) return i;
        }
        return from == 0 ? 0 : -1;
    }
}
