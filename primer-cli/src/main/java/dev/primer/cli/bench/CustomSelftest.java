package dev.primer.cli.bench;

import dev.primer.CustomOp;
import dev.primer.DType;
import dev.primer.DeviceArray;
import dev.primer.DoubleArray;
import dev.primer.FloatArray;
import dev.primer.IntArray;
import dev.primer.LongArray;
import dev.primer.Primer;
import dev.primer.cuda.Nvrtc;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Self-test of the user-defined operators (kernels compiled at run time through NVRTC): reduce and
 * inclusive and exclusive scans, against the CPU backend. The operators are exact (any association
 * gives the same bits) and two of them are not commutative, so the GPU must keep operand order.
 */
final class CustomSelftest {
    private CustomSelftest() {}

    static void customOps(CheckLog log, Twins t, boolean quick) {
        if (!Nvrtc.isAvailable()) {
            log.note("custom operators: not run, no NVRTC: " + Nvrtc.unavailableReason());
            return;
        }
        List<Long> sizes = quick ? List.of(1L, 33L, 5000L, 70_000L) : List.of(1L, 33L, 5000L, 70_000L, 300_000L);
        for (CustomOp op : List.of(CustomOps.AFFINE16, CustomOps.FFILL, CustomOps.ABS_MAX, CustomOps.LONG_XOR)) {
            for (long n : sizes) {
                log.check(String.format(Locale.ROOT, "custom reduce %s n=%d", op.name(), n), () -> reduce(t, op, n));
                log.check(String.format(Locale.ROOT, "custom scan inclusive %s n=%d", op.name(), n), () -> scan(t, op, n, true));
                log.check(String.format(Locale.ROOT, "custom scan exclusive %s n=%d", op.name(), n), () -> scan(t, op, n, false));
            }
        }
    }

    private static String reduce(Twins t, CustomOp op, long n) {
        try (Arena arena = Arena.ofConfined(); Closer closer = new Closer()) {
            DeviceArray[] in = t.upload(closer, op.type(), values(arena, op, n, 77 + n), n);
            return Compare.exact(reduce(t.gpu(), in[0], op), reduce(t.cpu(), in[1], op));
        }
    }

    private static String scan(Twins t, CustomOp op, long n, boolean inclusive) {
        try (Arena arena = Arena.ofConfined(); Closer closer = new Closer()) {
            DeviceArray[] in = t.upload(closer, op.type(), values(arena, op, n, 91 + n), n);
            DeviceArray[] out = t.allocate(closer, op.type(), n);
            if (inclusive) {
                t.gpu().inclusiveScan(in[0], out[0], op);
                t.cpu().inclusiveScan(in[1], out[1], op);
            } else {
                t.gpu().exclusiveScan(in[0], out[0], op);
                t.cpu().exclusiveScan(in[1], out[1], op);
            }
            MemorySegment g = Twins.download(out[0], arena), c = Twins.download(out[1], arena);
            for (long i = 0; i < n; i++) {
                String problem = Compare.exact(bits(op.type(), g, i), bits(op.type(), c, i));
                if (problem != null) return "element " + i + " of " + n + " (bits): " + problem;
            }
            return null;
        }
    }

    /** The result's bits, NaNs canonical. */
    private static long reduce(Primer p, DeviceArray a, CustomOp op) {
        return switch (a) {
            case IntArray x -> p.reduce(x, op);
            case LongArray x -> p.reduce(x, op);
            case FloatArray x -> Float.floatToIntBits(p.reduce(x, op));
            case DoubleArray x -> Double.doubleToLongBits(p.reduce(x, op));
            default -> throw new IllegalArgumentException(a.toString());
        };
    }

    private static long bits(DType type, MemorySegment s, long i) {
        return switch (type) {
            case INT -> s.getAtIndex(ValueLayout.JAVA_INT, i);
            case LONG -> s.getAtIndex(ValueLayout.JAVA_LONG, i);
            case FLOAT -> Float.floatToIntBits(s.getAtIndex(ValueLayout.JAVA_FLOAT, i));
            case DOUBLE -> Double.doubleToLongBits(s.getAtIndex(ValueLayout.JAVA_DOUBLE, i));
            case BYTE -> s.get(ValueLayout.JAVA_BYTE, i);
        };
    }

    private static MemorySegment values(Arena arena, CustomOp op, long n, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        MemorySegment x = SelftestData.allocate(arena, op.type(), n);
        for (long i = 0; i < n; i++) {
            switch (op.type()) {
                case INT -> x.setAtIndex(ValueLayout.JAVA_INT, i, ((random.nextInt(1 << 16) | 1) << 16) | random.nextInt(1 << 16));
                case LONG -> x.setAtIndex(ValueLayout.JAVA_LONG, i, random.nextLong());
                case FLOAT -> x.setAtIndex(ValueLayout.JAVA_FLOAT, i, (float) random.nextDouble(-100, 100));
                case DOUBLE -> x.setAtIndex(ValueLayout.JAVA_DOUBLE, i, random.nextInt(10) < 7 ? Double.NaN : random.nextDouble(-1e6, 1e6));
                case BYTE -> throw new IllegalArgumentException("int8 custom operators are not supported");
            }
        }
        return x;
    }
}
