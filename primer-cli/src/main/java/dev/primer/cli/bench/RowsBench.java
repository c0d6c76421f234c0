package dev.primer.cli.bench;

import dev.primer.Backend;
import dev.primer.DType;
import dev.primer.FloatArray;
import dev.primer.Op;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Locale;

/**
 * Row-wise SUM of a row-major float32 matrix, in the two shapes that stress opposite ends of the
 * dispatch: few long rows (2048 × 262144: a block per row or more) and many short rows
 * (4194304 × 64: several rows per warp). Bytes = matrix + result.
 */
final class RowsBench {
    static final String GROUP = "rows";

    private RowsBench() {}

    static List<BenchRecord> run(BenchSetup s) {
        return List.of(shape(s, "rows_sum_f32_2048x262144", s.rowsWide()), shape(s, "rows_sum_f32_4Mx64", s.rowsNarrow()));
    }

    private static BenchRecord shape(BenchSetup s, String name, long[] shape) {
        String text = shape[0] + "x" + shape[1];
        return Guard.run(s, GROUP, name, "float32", text, () -> measure(s, name, shape[0], shape[1], text));
    }

    private static BenchRecord measure(BenchSetup s, String name, long rows, long cols, String text) {
        long n = rows * cols;
        int buffers = s.buffersFor(4 * n);
        Backend backend = s.gpu().backend();
        try (Arena arena = Arena.ofShared(); Closer closer = new Closer()) {
            MemorySegment host = RandomHost.fill(arena.allocate(4 * n, 64), DType.FLOAT, n, 41);
            FloatArray[] in = new FloatArray[buffers];
            FloatArray[] out = new FloatArray[buffers];
            for (int b = 0; b < buffers; b++) {
                in[b] = closer.add(s.gpu().allocateFloats(n));
                in[b].copyFrom(host);
                out[b] = closer.add(s.gpu().allocateFloats(rows));
            }
            EventTimer timer = closer.add(new EventTimer(s.ctx()));
            Timing t = timer.time(BenchSetup.WARMUP, s.reps(), i -> backend.reduceRows(in[i % buffers], Op.SUM, rows, cols, out[i % buffers]));
            s.ctx().synchronize();

            MemorySegment result = arena.allocate(4 * rows, 4);
            out[0].copyTo(result);
            double worst = 0;
            long[] checked = {0, 1, rows / 2, rows - 1};
            for (long r : checked) {
                if (r < 0 || r >= rows) continue;
                double expected = HostReference.sum(host, DType.FLOAT, r * cols, (r + 1) * cols);
                worst = Math.max(worst, HostReference.relativeError(result.getAtIndex(ValueLayout.JAVA_FLOAT, r), expected));
            }
            boolean ok = worst <= 1e-6;
            return BenchRecord.measured(GROUP, name, "float32", text, n, 4.0 * n + 4.0 * rows, t, ok,
                    String.format(Locale.ROOT, "rows 0, 1, mid, last vs host float64 sums: max rel err %.2e; %d buffer(s)", worst, buffers));
        }
    }
}
