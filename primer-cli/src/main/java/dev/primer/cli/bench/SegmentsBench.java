package dev.primer.cli.bench;

import dev.primer.Backend;
import dev.primer.DType;
import dev.primer.FloatArray;
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
 * rows × cols dispatch cannot serve. Bytes = values + offsets + result.
 */
final class SegmentsBench {
    static final String GROUP = "segments";
    static final String NAME = "segments_sum_f32_powerlaw";

    private SegmentsBench() {}

    static List<BenchRecord> run(BenchSetup s) {
        return List.of(Guard.run(s, GROUP, NAME, "float32", "powerlaw", () -> measure(s)));
    }

    private static BenchRecord measure(BenchSetup s) throws Exception {
        Backend backend = s.gpu().backend();
        try (Arena arena = Arena.ofShared(); Closer closer = new Closer()) {
            SegmentOffsets seg = s.segmentsFile() != null
                    ? SegmentOffsets.load(s.segmentsFile(), arena)
                    : SegmentOffsets.generate(s.segmentValues(), arena);
            long n = seg.values(), count = seg.segments();
            MemorySegment host = RandomHost.fill(arena.allocate(Math.max(4, 4 * n), 64), DType.FLOAT, n, 51);
            int buffers = s.buffersFor(4 * n);
            LongArray offsets = closer.add(s.gpu().allocateLongs(count + 1));
            offsets.copyFrom(seg.offsets());
            FloatArray[] in = new FloatArray[buffers];
            FloatArray[] out = new FloatArray[buffers];
            for (int b = 0; b < buffers; b++) {
                in[b] = closer.add(s.gpu().allocateFloats(n));
                in[b].copyFrom(host);
                out[b] = closer.add(s.gpu().allocateFloats(count));
            }
            EventTimer timer = closer.add(new EventTimer(s.ctx()));
            Timing t = timer.time(BenchSetup.WARMUP, s.reps(), i -> backend.reduceSegments(in[i % buffers], Op.SUM, offsets, out[i % buffers]));
            s.ctx().synchronize();

            MemorySegment result = arena.allocate(Math.max(4, 4 * count), 4);
            out[0].copyTo(result.asSlice(0, 4 * count));
            long longest = 0;
            for (long i = 1; i < count; i++) {
                if (seg.offset(i + 1) - seg.offset(i) > seg.offset(longest + 1) - seg.offset(longest)) longest = i;
            }
            SplittableRandom pick = new SplittableRandom(52);
            long[] checked = {0, count - 1, longest, pick.nextLong(Math.max(1, count)), pick.nextLong(Math.max(1, count))};
            double worst = 0;
            for (long i : checked) {
                if (i < 0 || i >= count) continue;
                double expected = HostReference.sum(host, DType.FLOAT, seg.offset(i), seg.offset(i + 1));
                worst = Math.max(worst, HostReference.relativeError(result.getAtIndex(ValueLayout.JAVA_FLOAT, i), expected));
            }
            boolean ok = worst <= 1e-6;
            String note = String.format(Locale.ROOT, "%d segments over %d values (longest %d); first, last, longest and 2 random"
                            + " segments vs host float64 sums: max rel err %.2e; %s", count, n,
                    seg.offset(longest + 1) - seg.offset(longest), worst, seg.origin());
            return BenchRecord.measured(GROUP, NAME, "float32", n + " values, " + count + " segments", n,
                    4.0 * n + 8.0 * (count + 1) + 4.0 * count, t, ok, note);
        }
    }
}
