package dev.primer.cli.bench;

import dev.primer.Backend;
import dev.primer.DType;
import dev.primer.DeviceArray;
import dev.primer.Op;
import dev.primer.Reductions;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Locale;

/**
 * Row-wise SUM of a row-major matrix, in float32 shapes from each end of the dispatch and its
 * middle: few long rows (2048 × 262144: a block per row or more), many short rows (4194304 × 64:
 * several rows per warp), and rows of 256 and 4096 columns (a half-warp and a warp per row:
 * 1048576 × 256, 65536 × 4096); float64 and int8 in rows of 1 KiB as the float32 1048576 × 256 (a
 * half-warp per row); and int8 in the long-row shape. int8 sums into int64 (as torch.sum does), where the packed byte fold
 * matters. Bytes = matrix + result.
 */
final class RowsBench {
    static final String GROUP = "rows";

    private RowsBench() {}

    static List<BenchRecord> run(BenchSetup s) {
        return List.of(shape(s, "rows_sum_f32_2048x262144", DType.FLOAT, s.rowsWide()),
                shape(s, "rows_sum_f32_4Mx64", DType.FLOAT, s.rowsNarrow()),
                shape(s, "rows_sum_f32_1Mx256", DType.FLOAT, s.rowsMiddle(DType.FLOAT)),
                shape(s, "rows_sum_f32_64Kx4096", DType.FLOAT, s.rowsMiddleLong()),
                shape(s, "rows_sum_f64_1Mx128", DType.DOUBLE, s.rowsMiddle(DType.DOUBLE)),
                shape(s, "rows_sum_i8_1Mx1024", DType.BYTE, s.rowsMiddle(DType.BYTE)),
                shape(s, "rows_sum_i8_2048x262144", DType.BYTE, s.rowsWide()));
    }

    private static BenchRecord shape(BenchSetup s, String name, DType type, long[] shape) {
        String text = shape[0] + "x" + shape[1];
        return Guard.run(s, GROUP, name, type.toString(), text, () -> measure(s, name, type, shape[0], shape[1], text));
    }

    private static BenchRecord measure(BenchSetup s, String name, DType type, long rows, long cols, String text) {
        long n = rows * cols;
        DType outType = Reductions.outputType(type, Op.SUM);
        int buffers = s.buffersFor(type.byteSize() * n);
        Backend backend = s.gpu().backend();
        try (Arena arena = Arena.ofShared(); Closer closer = new Closer()) {
            MemorySegment host = RandomHost.fill(arena.allocate(type.byteSize() * n, 64), type, n, 41);
            DeviceArray[] in = new DeviceArray[buffers];
            DeviceArray[] out = new DeviceArray[buffers];
            for (int b = 0; b < buffers; b++) {
                in[b] = closer.add(s.gpu().allocate(type, n));
                in[b].copyFrom(host);
                out[b] = closer.add(s.gpu().allocate(outType, rows));
            }
            EventTimer timer = closer.add(new EventTimer(s.ctx()));
            Timing t = timer.time(BenchSetup.WARMUP, s.reps(), i -> backend.reduceRows(in[i % buffers], Op.SUM, rows, cols, out[i % buffers]));
            s.ctx().synchronize();

            MemorySegment result = arena.allocate(outType.byteSize() * rows, 8);
            out[0].copyTo(result);
            double worst = 0;
            long[] checked = {0, 1, rows / 2, rows - 1};
            for (long r : checked) {
                if (r < 0 || r >= rows) continue;
                double expected = HostReference.sum(host, type, r * cols, (r + 1) * cols);
                worst = Math.max(worst, HostReference.relativeError(HostReference.floating(result, outType, r), expected));
            }
            boolean ok = type.isFloatingPoint() ? worst <= 1e-6 : worst == 0;
            return BenchRecord.measured(GROUP, name, type.toString(), text, n,
                    (double) type.byteSize() * n + (double) outType.byteSize() * rows, t, ok,
                    String.format(Locale.ROOT, "rows 0, 1, mid, last vs host %s sums: max rel err %.2e; %d buffer(s)",
                            type.isFloatingPoint() ? "float64" : "exact int64", worst, buffers));
        }
    }
}
