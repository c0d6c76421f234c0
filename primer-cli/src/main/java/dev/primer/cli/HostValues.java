package dev.primer.cli;

import dev.primer.ByteArray;
import dev.primer.DType;
import dev.primer.DeviceArray;
import dev.primer.DoubleArray;
import dev.primer.FloatArray;
import dev.primer.IntArray;
import dev.primer.LongArray;
import dev.primer.Primer;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/** Small downloads of array elements as boxed numbers, for printing results. */
public final class HostValues {
    private HostValues() {}

    /** Elements [from, from + count) (clamped to the array) as Long/Integer/Byte/Float/Double. */
    public static List<Number> read(DeviceArray a, long from, long count) {
        long to = Math.min(a.length(), from + Math.max(0, count));
        from = Math.min(from, to);
        int k = Math.toIntExact(to - from);
        List<Number> values = new ArrayList<>(k);
        if (k == 0) return values;
        try (Arena arena = Arena.ofConfined();
             DeviceArray view = slice(a, from, to)) {
            MemorySegment host = arena.allocate((long) k * a.dtype().byteSize(), 8);
            view.copyTo(host);
            for (int i = 0; i < k; i++) values.add(get(host, a.dtype(), i));
        }
        return values;
    }

    /** The first {@code count} elements. */
    public static List<Number> head(DeviceArray a, long count) { return read(a, 0, count); }

    /** Element {@code i} of a host segment holding {@code type} values. */
    public static Number get(MemorySegment host, DType type, long i) {
        return switch (type) {
            case BYTE -> host.get(ValueLayout.JAVA_BYTE, i);
            case INT -> host.getAtIndex(ValueLayout.JAVA_INT, i);
            case LONG -> host.getAtIndex(ValueLayout.JAVA_LONG, i);
            case FLOAT -> host.getAtIndex(ValueLayout.JAVA_FLOAT, i);
            case DOUBLE -> host.getAtIndex(ValueLayout.JAVA_DOUBLE, i);
        };
    }

    /** A view of [from, to) (a slice: closing it frees nothing). */
    public static DeviceArray slice(DeviceArray a, long from, long to) {
        return switch (a) {
            case ByteArray x -> x.slice(from, to);
            case IntArray x -> x.slice(from, to);
            case LongArray x -> x.slice(from, to);
            case FloatArray x -> x.slice(from, to);
            case DoubleArray x -> x.slice(from, to);
        };
    }

    /** Offsets as int64 on {@code primer}: int64 arrays are used as they are, int32 ones widened. */
    public static LongArray toLongOffsets(Primer primer, DeviceArray offsets) {
        if (offsets instanceof LongArray l) return l;
        if (offsets.dtype() != DType.INT) {
            throw new IllegalArgumentException("offsets must be int32 or int64, not " + offsets.dtype());
        }
        long n = offsets.length();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ints = arena.allocate(Math.max(1, n * 4), 8).asSlice(0, n * 4);
            offsets.copyTo(ints);
            MemorySegment longs = arena.allocate(Math.max(1, n * 8), 8).asSlice(0, n * 8);
            for (long i = 0; i < n; i++) longs.setAtIndex(ValueLayout.JAVA_LONG, i, ints.getAtIndex(ValueLayout.JAVA_INT, i));
            return (LongArray) primer.upload(DType.LONG, longs, n);
        }
    }
}
