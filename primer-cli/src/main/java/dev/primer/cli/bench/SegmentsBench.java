package dev.primer.cli.bench;

import dev.primer.Backend;
import dev.primer.DType;
import dev.primer.DeviceArray;
import dev.primer.LongArray;
import dev.primer.Op;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * SUM over segments of power-law lengths (many tiny segments, a few huge ones): the case a fixed
 * rows × cols dispatch cannot serve. float32 (the classic kernels) and int64 (exact 128-bit sums,
 * the merge path). Bytes = values + offsets + result.
 */
final class SegmentsBench {
    static final String GROUP = "segments";
    static final String NAME = "segments_sum_f32_powerlaw";
    static final String NAME_I64 = "segments_sum_i64_powerlaw";

    private SegmentsBench() {}

    static List<BenchRecord> run(BenchSetup s) {
        return List.of(Guard.run(s, GROUP, NAME, "float32", "powerlaw", () -> measure(s, DType.FLOAT, NAME)),
                Guard.run(s, GROUP, NAME_I64, "int64", "powerlaw", () -> measure(s, DType.LONG, NAME_I64)));
    }

    private static BenchRecord measure(BenchSetup s, DType type, String name) throws Exception {
        Backend backend = s.gpu().backend();
        int size = type.byteSize();
        try (Arena arena = Arena.ofShared(); Closer closer = new Closer()) {
            SegmentOffsets seg = s.segmentsFile() != null
                    ? SegmentOffsets.load(s.segmentsFile(), arena)
                    : SegmentOffsets.generate(s.segmentValues(), arena);
            long n = seg.values(), count = seg.segments();
            MemorySegment host = RandomHost.fill(arena.allocate(Math.max(size, size * n), 64), type, n, 51);
            int buffers = s.buffersFor(size * n);
            LongArray offsets = closer.add(s.gpu().allocateLongs(count + 1));
            offsets.copyFrom(seg.offsets());
            DeviceArray[] in = new DeviceArray[buffers];
            DeviceArray[] out = new DeviceArray[buffers];
            for (int b = 0; b < buffers; b++) {
                in[b] = closer.add(type == DType.FLOAT ? s.gpu().allocateFloats(n) : s.gpu().allocateLongs(n));
                in[b].copyFrom(host);
                out[b] = closer.add(type == DType.FLOAT ? s.gpu().allocateFloats(count) : s.gpu().allocateLongs(count));
            }
            EventTimer timer = closer.add(new EventTimer(s.ctx()));
            Timing t = timer.time(BenchSetup.WARMUP, s.reps(), i -> backend.reduceSegments(in[i % buffers], Op.SUM, offsets, out[i % buffers]));
            s.ctx().synchronize();

            MemorySegment result = arena.allocate(Math.max(size, size * count), size);
            out[0].copyTo(result.asSlice(0, size * count));
            long longest = 0;
            for (long i = 1; i < count; i++) {
                if (seg.offset(i + 1) - seg.offset(i) > seg.offset(longest + 1) - seg.offset(longest)) longest = i;
            }
            SplittableRandom pick = new SplittableRandom(52);
            long[] checked = {0, count - 1, longest, pick.nextLong(Math.max(1, count)), pick.nextLong(Math.max(1, count))};
            double worst = 0;
            for (long i : checked) {
                if (i < 0 || i >= count) continue;
                double expected = HostReference.sum(host, type, seg.offset(i), seg.offset(i + 1));
                double actual = type == DType.FLOAT ? result.getAtIndex(ValueLayout.JAVA_FLOAT, i)
                        : result.getAtIndex(ValueLayout.JAVA_LONG, i);  // +-1000 each: exact in a double
                worst = Math.max(worst, HostReference.relativeError(actual, expected));
            }
            boolean ok = type == DType.FLOAT ? worst <= 1e-6 : worst == 0;
            String note = String.format(Locale.ROOT, "%d segments over %d values (longest %d); first, last, longest and 2 random"
                            + " segments vs host float64 sums: max rel err %.2e; %s", count, n,
                    seg.offset(longest + 1) - seg.offset(longest), worst, seg.origin());
            return BenchRecord.measured(GROUP, name, type == DType.FLOAT ? "float32" : "int64",
                    n + " values, " + count + " segments", n, (double) size * n + 8.0 * (count + 1) + size * count, t, ok,
                    note);
        }
    }
}
