package dev.primer.cli.bench;

import dev.primer.ByteArray;
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
 * Self-test of the user-defined operators (kernels compiled at run time through NVRTC): reduce,
 * inclusive and exclusive scans, segmented scans (by head flags and by offsets), and rows and
 * segments reduced, against the CPU backend. The operators are exact (any association
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
        for (CustomOp op : List.of(CustomOps.AFFINE16, CustomOps.FFILL, CustomOps.ABS_MAX, CustomOps.LONG_XOR, CustomOps.AFFINE4)) {
            for (long n : sizes) {
                log.check(String.format(Locale.ROOT, "custom reduce %s n=%d", op.name(), n), () -> reduce(t, op, n));
                log.check(String.format(Locale.ROOT, "custom scan inclusive %s n=%d", op.name(), n), () -> scan(t, op, n, true));
                log.check(String.format(Locale.ROOT, "custom scan exclusive %s n=%d", op.name(), n), () -> scan(t, op, n, false));
                if (n > 70_000) continue;  // the segmented forms: up to 70,000 (the sanitizers run this part too)
                for (boolean byOffsets : new boolean[] {false, true}) {
                    String by = byOffsets ? "offsets" : "flags";
                    log.check(String.format(Locale.ROOT, "custom segmented scan by %s inclusive %s n=%d", by, op.name(), n),
                            () -> segmentedScan(t, op, n, byOffsets, true));
                    log.check(String.format(Locale.ROOT, "custom segmented scan by %s exclusive %s n=%d", by, op.name(), n),
                            () -> segmentedScan(t, op, n, byOffsets, false));
                }
                log.check(String.format(Locale.ROOT, "custom segments reduce %s n=%d", op.name(), n), () -> segments(t, op, n));
            }
            for (long[] shape : new long[][] {{1, 1}, {5, 0}, {1000, 33}, {7, 20_001}}) {
                log.check(String.format(Locale.ROOT, "custom rows reduce %s %dx%d", op.name(), shape[0], shape[1]),
                        () -> rows(t, op, shape[0], shape[1]));
            }
        }
    }

    /** Segmented scan by random head flags or by offsets with empty segments; exclusive from a non-identity init. */
    private static String segmentedScan(Twins t, CustomOp op, long n, boolean byOffsets, boolean inclusive) {
        try (Arena arena = Arena.ofConfined(); Closer closer = new Closer()) {
            DeviceArray[] in = t.upload(closer, op.type(), values(arena, op, n, 57 + n), n);
            DeviceArray[] out = t.allocate(closer, op.type(), n);
            long init = bits(op.type(), values(arena, op, 1, 3 + n), 0);
            for (int k = 0; k < 2; k++) {
                Primer p = k == 0 ? t.gpu() : t.cpu();
                DeviceArray x = in[k], y = out[k];
                if (byOffsets) {
                    LongArray offsets = closer.add(p.upload(SelftestData.offsets(n, 5 + n)));
                    if (inclusive) p.segmentedInclusiveScan(x, offsets, y, op);
                    else exclusive(p, x, offsets, y, op, init);
                } else {
                    ByteArray flags = closer.add(p.upload(headFlags(n, 13 + n)));
                    if (inclusive) p.segmentedInclusiveScan(x, flags, y, op);
                    else exclusive(p, x, flags, y, op, init);
                }
            }
            return sameElements(op, Twins.download(out[0], arena), Twins.download(out[1], arena), n);
        }
    }

    private static void exclusive(Primer p, DeviceArray x, DeviceArray segments, DeviceArray y, CustomOp op, long initBits) {
        boolean floating = op.type() == DType.FLOAT || op.type() == DType.DOUBLE;
        double init = op.type() == DType.FLOAT ? Float.intBitsToFloat((int) initBits) : Double.longBitsToDouble(initBits);
        long integral = op.type() == DType.INT ? (int) initBits : initBits;
        switch (segments) {
            case LongArray offsets when floating -> p.segmentedExclusiveScan(x, offsets, y, op, init);
            case LongArray offsets -> p.segmentedExclusiveScan(x, offsets, y, op, integral);
            case ByteArray flags when floating -> p.segmentedExclusiveScan(x, flags, y, op, init);
            case ByteArray flags -> p.segmentedExclusiveScan(x, flags, y, op, integral);
            default -> throw new IllegalArgumentException(segments.toString());
        }
    }

    private static String segments(Twins t, CustomOp op, long n) {
        try (Arena arena = Arena.ofConfined(); Closer closer = new Closer()) {
            DeviceArray[] in = t.upload(closer, op.type(), values(arena, op, n, 31 + n), n);
            long[] offsets = SelftestData.offsets(n, 17 + n);
            DeviceArray g = closer.add(t.gpu().reduceSegments(in[0], closer.add(t.gpu().upload(offsets)), op));
            DeviceArray c = closer.add(t.cpu().reduceSegments(in[1], closer.add(t.cpu().upload(offsets)), op));
            return sameElements(op, Twins.download(g, arena), Twins.download(c, arena), offsets.length - 1);
        }
    }

    private static String rows(Twins t, CustomOp op, long rows, long cols) {
        try (Arena arena = Arena.ofConfined(); Closer closer = new Closer()) {
            DeviceArray[] in = t.upload(closer, op.type(), values(arena, op, rows * cols, 41 + rows), rows * cols);
            DeviceArray g = closer.add(t.gpu().reduceRows(in[0], rows, cols, op));
            DeviceArray c = closer.add(t.cpu().reduceRows(in[1], rows, cols, op));
            return sameElements(op, Twins.download(g, arena), Twins.download(c, arena), rows);
        }
    }

    /** Head flags: about one in 50 elements starts a segment, element 0 sometimes. */
    private static byte[] headFlags(long n, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        byte[] flags = new byte[Math.toIntExact(n)];
        for (int i = 0; i < flags.length; i++) flags[i] = (byte) (random.nextInt(50) == 0 ? 1 + random.nextInt(127) : 0);
        return flags;
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
            return sameElements(op, Twins.download(out[0], arena), Twins.download(out[1], arena), n);
        }
    }

    /** Every element's bits (NaNs canonical) the same, or which is the first to differ. */
    private static String sameElements(CustomOp op, MemorySegment g, MemorySegment c, long n) {
        for (long i = 0; i < n; i++) {
            String problem = Compare.exact(bits(op.type(), g, i), bits(op.type(), c, i));
            if (problem != null) return "element " + i + " of " + n + " (bits): " + problem;
        }
        return null;
    }

    /** The result's bits, NaNs canonical. */
    private static long reduce(Primer p, DeviceArray a, CustomOp op) {
        return switch (a) {
            case ByteArray x -> p.reduce(x, op);
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
                case BYTE -> x.set(ValueLayout.JAVA_BYTE, i, (byte) (((2 * random.nextInt(8) + 1) << 4) | random.nextInt(16)));  // odd m
            }
        }
        return x;
    }
}
