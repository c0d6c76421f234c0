package dev.primer.cli.bench;

import dev.primer.DType;
import dev.primer.DeviceArray;
import dev.primer.LongArray;
import dev.primer.Op;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Locale;

/**
 * Self-test of the batched reductions: reduceRows / argExtremeRows on shapes from empty to tall and
 * wide, and reduceSegments / argExtremeSegments on offsets with empty segments, runs of them, short
 * and long ones; every operator of every dtype, against the CPU backend.
 */
final class SegmentedSelftest {
    private SegmentedSelftest() {}

    /**
     * Empty, one element, short rows (several per warp), long rows split in chunks, and a warp per row
     * (4300 × 600: rows enough to fill 132 SMs with warps).
     */
    static final long[][] SHAPES = {{0, 5}, {5, 0}, {1, 1}, {1000, 3}, {64, 7}, {300, 33}, {50, 130}, {3, 1000},
            {17, 4099}, {2, 100000}, {4300, 600}};
    static final long[][] QUICK_SHAPES = {{0, 5}, {5, 0}, {1000, 3}, {300, 33}, {3, 1000}, {2, 100000}};

    static final List<DType> TYPES = List.of(DType.values());

    static void rows(CheckLog log, Twins t, boolean quick) {
        for (long[] shape : quick ? QUICK_SHAPES : SHAPES) {
            long rows = shape[0], cols = shape[1], n = rows * cols;
            for (DType type : TYPES) {
                for (Op op : Op.values()) {
                    if (!op.supports(type)) continue;
                    long seed = 31L * rows + cols + 100L * type.ordinal() + op.ordinal();
                    log.check(String.format(Locale.ROOT, "reduceRows %s %s %dx%d", op, type, rows, cols), () -> {
                        try (Arena arena = Arena.ofConfined(); Closer closer = new Closer()) {
                            MemorySegment host = SelftestData.values(arena, type, op, n, seed);
                            DeviceArray[] a = t.upload(closer, type, host, n);
                            DeviceArray g = closer.add(t.gpu().reduceRows(a[0], rows, cols, op));
                            DeviceArray c = closer.add(t.cpu().reduceRows(a[1], rows, cols, op));
                            return sameOutput(g, c, arena, op, i -> Compare.absSum(host, type, i * cols, (i + 1) * cols));
                        }
                    });
                }
                for (boolean max : new boolean[] {false, true}) {
                    long seed = 17L * rows + cols + type.ordinal() + (max ? 1 : 0);
                    log.check(String.format(Locale.ROOT, "%sRows %s %dx%d (ties)", max ? "argMax" : "argMin", type, rows, cols), () -> {
                        try (Arena arena = Arena.ofConfined(); Closer closer = new Closer()) {
                            MemorySegment host = SelftestData.ties(arena, type, n, seed);
                            DeviceArray[] a = t.upload(closer, type, host, n);
                            LongArray g = closer.add(t.gpu().argExtremeRows(a[0], rows, cols, max));
                            LongArray c = closer.add(t.cpu().argExtremeRows(a[1], rows, cols, max));
                            return sameOutput(g, c, arena, Op.MIN, i -> 0);
                        }
                    });
                }
            }
        }
    }

    static void segments(CheckLog log, Twins t, boolean quick) {
        List<Long> sizes = quick ? List.of(0L, 1000L, 70000L) : List.of(0L, 1L, 33L, 1000L, 70000L);
        for (long n : sizes) {
            for (int variant = 0; variant < (n == 0 ? 2 : 1); variant++) {
                // n = 0: no segments at all, and three empty segments
                long[] offsets = n == 0 ? (variant == 0 ? new long[] {0} : new long[] {0, 0, 0, 0}) : SelftestData.offsets(n, 99 + n);
                String shape = n + " values, " + (offsets.length - 1) + " segments";
                for (DType type : TYPES) {
                    for (Op op : Op.values()) {
                        if (!op.supports(type)) continue;
                        long seed = 53L * n + 100L * type.ordinal() + op.ordinal();
                        log.check(String.format(Locale.ROOT, "reduceSegments %s %s %s", op, type, shape), () -> {
                            try (Arena arena = Arena.ofConfined(); Closer closer = new Closer()) {
                                MemorySegment host = SelftestData.values(arena, type, op, n, seed);
                                DeviceArray[] a = t.upload(closer, type, host, n);
                                LongArray[] o = offsetArrays(t, closer, offsets);
                                DeviceArray g = closer.add(t.gpu().reduceSegments(a[0], o[0], op));
                                DeviceArray c = closer.add(t.cpu().reduceSegments(a[1], o[1], op));
                                return sameOutput(g, c, arena, op, i -> Compare.absSum(host, type, offsets[(int) i], offsets[(int) i + 1]));
                            }
                        });
                    }
                    for (boolean max : new boolean[] {false, true}) {
                        long seed = 59L * n + type.ordinal() + (max ? 1 : 0);
                        log.check(String.format(Locale.ROOT, "%sSegments %s %s (ties)", max ? "argMax" : "argMin", type, shape), () -> {
                            try (Arena arena = Arena.ofConfined(); Closer closer = new Closer()) {
                                MemorySegment host = SelftestData.ties(arena, type, n, seed);
                                DeviceArray[] a = t.upload(closer, type, host, n);
                                LongArray[] o = offsetArrays(t, closer, offsets);
                                LongArray g = closer.add(t.gpu().argExtremeSegments(a[0], o[0], max));
                                LongArray c = closer.add(t.cpu().argExtremeSegments(a[1], o[1], max));
                                return sameOutput(g, c, arena, Op.MIN, i -> 0);
                            }
                        });
                    }
                }
            }
        }
    }

    private static LongArray[] offsetArrays(Twins t, Closer closer, long[] offsets) {
        return new LongArray[] {closer.add(t.gpu().upload(offsets)), closer.add(t.cpu().upload(offsets))};
    }

    private static String sameOutput(DeviceArray g, DeviceArray c, Arena arena, Op op, java.util.function.LongToDoubleFunction scale) {
        if (g.dtype() != c.dtype() || g.length() != c.length()) {
            return "GPU gave " + g.length() + " × " + g.dtype() + ", CPU " + c.length() + " × " + c.dtype();
        }
        return Compare.arrays(Twins.download(g, arena), Twins.download(c, arena), g.dtype(), g.length(), op, scale, ReduceSelftest.REL);
    }
}
