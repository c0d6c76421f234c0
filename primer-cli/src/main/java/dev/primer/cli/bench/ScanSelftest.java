package dev.primer.cli.bench;

import dev.primer.ByteArray;
import dev.primer.DType;
import dev.primer.DeviceArray;
import dev.primer.LongArray;
import dev.primer.Op;
import dev.primer.Primer;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Locale;

/**
 * Self-test of the production scans: inclusive and exclusive, every operator of every dtype, int32
 * into int64, in place, and segmented by head flags and by offsets, against the CPU backend.
 * Float scans accumulate in their own type, so their tolerance is wider than a reduction's: relative
 * to the running sum of |x| for SUM, to the value for PROD.
 */
final class ScanSelftest {
    private ScanSelftest() {}

    static List<Long> sizes(boolean quick) {
        return quick ? List.of(1L, 33L, 5000L) : List.of(1L, 33L, 5000L, 300000L);
    }

    /** Relative tolerance of a float scan (see the class comment). */
    static double rel(DType type, Op op) {
        if (type == DType.DOUBLE) return 1e-10;
        return op == Op.PROD ? 1e-3 : 1e-5;
    }

    /**
     * Segmented exclusive scans start every segment with the init (7 for integers, 0.5 for floats).
     * ONE_SEGMENT: by flags, all zero, so no tile holds a head and each looks back to the nearest
     * prefix over tiles without one (the other segmented kinds have a head in about 50 elements).
     */
    enum Kind { INCLUSIVE, EXCLUSIVE, BY_FLAGS, BY_OFFSETS, BY_FLAGS_EXCLUSIVE, BY_OFFSETS_EXCLUSIVE, ONE_SEGMENT }

    static final List<DType> TYPES = List.of(DType.BYTE, DType.INT, DType.LONG, DType.FLOAT, DType.DOUBLE);

    static void scans(CheckLog log, Twins t, boolean quick) {
        for (long n : sizes(quick)) {
            for (DType type : TYPES) {
                for (Op op : Op.values()) {
                    if (!op.supports(type)) continue;
                    for (Kind kind : Kind.values()) {
                        log.check(String.format(Locale.ROOT, "scan %s %s %s n=%d", kind.name().toLowerCase(Locale.ROOT), op, type, n),
                                () -> scan(t, kind, type, type, op, n, false));
                    }
                }
            }
            for (Kind kind : Kind.values()) {  // plain and segmented sums that widen
                for (DType narrow : List.of(DType.BYTE, DType.INT)) {
                    log.check(String.format(Locale.ROOT, "scan %s SUM %s->int64 n=%d", kind.name().toLowerCase(Locale.ROOT), narrow, n),
                            () -> scan(t, kind, narrow, DType.LONG, Op.SUM, n, false));
                }
            }
        }
        for (DType type : List.of(DType.BYTE, DType.INT, DType.FLOAT)) {
            log.check("scan inclusive SUM " + type + " n=5000 in place", () -> scan(t, Kind.INCLUSIVE, type, type, Op.SUM, 5000, true));
        }
    }

    /** The running argmin/argmax scans: plain, and segmented by head flags and by offsets. */
    enum ArgScanKind { PLAIN, FLAGS, OFFSETS }

    /**
     * Running argmin and argmax of every dtype, inclusive and exclusive, plain and segmented (by
     * flags and by offsets), on few distinct values (ties: the first index must win), with a NaN
     * planted in the float arrays past their middle; every index against the CPU's.
     */
    static void argScans(CheckLog log, Twins t, boolean quick) {
        for (long n : sizes(quick)) {
            for (DType type : TYPES) {
                for (ArgScanKind kind : ArgScanKind.values()) {
                    for (boolean max : new boolean[] {false, true}) {
                        for (boolean inclusive : new boolean[] {true, false}) {
                            long seed = 9000L + 10L * type.ordinal() + n + (max ? 1 : 0);
                            String name = String.format(Locale.ROOT, "%s%s %s scan %s n=%d (ties)", kind == ArgScanKind.PLAIN ? ""
                                    : "segmented (" + kind.name().toLowerCase(Locale.ROOT) + ") ", inclusive ? "inclusive" : "exclusive",
                                    max ? "argMax" : "argMin", type, n);
                            log.check(name, () -> argScan(t, kind, type, max, inclusive, n, seed));
                        }
                    }
                }
            }
        }
    }

    private static String argScan(Twins t, ArgScanKind kind, DType type, boolean max, boolean inclusive, long n, long seed) {
        try (Arena arena = Arena.ofConfined(); Closer closer = new Closer()) {
            MemorySegment host = SelftestData.ties(arena, type, n, seed);
            if (type.isFloatingPoint() && n > 2) SelftestData.setFloating(host, type, n / 2 + 1, Double.NaN);
            DeviceArray[] in = t.upload(closer, type, host, n);
            DeviceArray[] out = t.allocate(closer, DType.LONG, n);
            for (int b = 0; b < 2; b++) ((LongArray) out[b]).fill(-7);  // by offsets, elements outside the segments keep it
            Primer[] primers = {t.gpu(), t.cpu()};
            switch (kind) {
                case PLAIN -> {
                    for (int b = 0; b < 2; b++) {
                        if (inclusive) primers[b].argExtremeScan(in[b], (LongArray) out[b], max);
                        else primers[b].exclusiveArgExtremeScan(in[b], (LongArray) out[b], max);
                    }
                }
                case FLAGS -> {
                    DeviceArray[] f = t.upload(closer, DType.BYTE, SelftestData.flags(arena, n, seed + 1), n);
                    for (int b = 0; b < 2; b++) {
                        if (inclusive) primers[b].segmentedArgExtremeScan(in[b], (ByteArray) f[b], (LongArray) out[b], max);
                        else primers[b].segmentedExclusiveArgExtremeScan(in[b], (ByteArray) f[b], (LongArray) out[b], max);
                    }
                }
                case OFFSETS -> {
                    long[] offsets = SelftestData.offsets(n, seed + 2);
                    LongArray[] o = {closer.add(t.gpu().upload(offsets)), closer.add(t.cpu().upload(offsets))};
                    for (int b = 0; b < 2; b++) {
                        if (inclusive) primers[b].segmentedArgExtremeScan(in[b], o[b], (LongArray) out[b], max);
                        else primers[b].segmentedExclusiveArgExtremeScan(in[b], o[b], (LongArray) out[b], max);
                    }
                }
            }
            return Compare.arrays(Twins.download(out[0], arena), Twins.download(out[1], arena), DType.LONG, n, Op.MAX, i -> 0, 0);
        }
    }

    private static String scan(Twins t, Kind kind, DType inType, DType outType, Op op, long n, boolean inPlace) {
        long seed = 4242L + 1000L * inType.ordinal() + 100L * op.ordinal() + 10L * kind.ordinal() + n;
        try (Arena arena = Arena.ofConfined(); Closer closer = new Closer()) {
            MemorySegment host = SelftestData.values(arena, inType, op, n, seed);
            DeviceArray[] in = t.upload(closer, inType, host, n);
            DeviceArray[] out = inPlace ? in : t.allocate(closer, outType, n);
            switch (kind) {
                case INCLUSIVE -> {
                    t.gpu().inclusiveScan(in[0], out[0], op);
                    t.cpu().inclusiveScan(in[1], out[1], op);
                }
                case EXCLUSIVE -> {
                    if (outType.isFloatingPoint()) {
                        t.gpu().exclusiveScan(in[0], out[0], op, 0.5);
                        t.cpu().exclusiveScan(in[1], out[1], op, 0.5);
                    } else {
                        t.gpu().exclusiveScan(in[0], out[0], op, 7L);
                        t.cpu().exclusiveScan(in[1], out[1], op, 7L);
                    }
                }
                case BY_FLAGS -> {
                    MemorySegment flags = SelftestData.flags(arena, n, seed + 1);
                    DeviceArray[] f = t.upload(closer, DType.BYTE, flags, n);
                    t.gpu().segmentedInclusiveScan(in[0], (ByteArray) f[0], out[0], op);
                    t.cpu().segmentedInclusiveScan(in[1], (ByteArray) f[1], out[1], op);
                }
                case ONE_SEGMENT -> {
                    DeviceArray[] f = t.upload(closer, DType.BYTE, arena.allocate(Math.max(1, n)), n);  // zeroed
                    t.gpu().segmentedInclusiveScan(in[0], (ByteArray) f[0], out[0], op);
                    t.cpu().segmentedInclusiveScan(in[1], (ByteArray) f[1], out[1], op);
                }
                case BY_OFFSETS -> {
                    long[] offsets = SelftestData.offsets(n, seed + 2);
                    LongArray og = closer.add(t.gpu().upload(offsets)), oc = closer.add(t.cpu().upload(offsets));
                    t.gpu().segmentedInclusiveScan(in[0], og, out[0], op);
                    t.cpu().segmentedInclusiveScan(in[1], oc, out[1], op);
                }
                case BY_FLAGS_EXCLUSIVE -> {
                    MemorySegment flags = SelftestData.flags(arena, n, seed + 1);
                    DeviceArray[] f = t.upload(closer, DType.BYTE, flags, n);
                    if (outType.isFloatingPoint()) {
                        t.gpu().segmentedExclusiveScan(in[0], (ByteArray) f[0], out[0], op, 0.5);
                        t.cpu().segmentedExclusiveScan(in[1], (ByteArray) f[1], out[1], op, 0.5);
                    } else {
                        t.gpu().segmentedExclusiveScan(in[0], (ByteArray) f[0], out[0], op, 7L);
                        t.cpu().segmentedExclusiveScan(in[1], (ByteArray) f[1], out[1], op, 7L);
                    }
                }
                case BY_OFFSETS_EXCLUSIVE -> {
                    long[] offsets = SelftestData.offsets(n, seed + 2);
                    LongArray og = closer.add(t.gpu().upload(offsets)), oc = closer.add(t.cpu().upload(offsets));
                    if (outType.isFloatingPoint()) {
                        t.gpu().segmentedExclusiveScan(in[0], og, out[0], op, 0.5);
                        t.cpu().segmentedExclusiveScan(in[1], oc, out[1], op, 0.5);
                    } else {
                        t.gpu().segmentedExclusiveScan(in[0], og, out[0], op, 7L);
                        t.cpu().segmentedExclusiveScan(in[1], oc, out[1], op, 7L);
                    }
                }
            }
            double[] scale = Compare.runningAbsSum(host, inType, n);
            return Compare.arrays(Twins.download(out[0], arena), Twins.download(out[1], arena), outType, n, op,
                    i -> scale[(int) i] + 1, rel(outType, op));
        }
    }
}
