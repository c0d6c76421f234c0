package dev.primer.cli;

import dev.primer.DType;
import dev.primer.ladder.LectureFigures;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The lecture's published figures beside a ladder table (LectureFigures), when the run's
 * configuration is the lecture's: same n, element type and block size. Columns are labelled with the
 * lecture's hardware; only published figures appear, never interpolated ones.
 */
final class LectureColumns {
    private final LectureFigures.Table table;
    private final String label;
    private final boolean hasTimes;

    private LectureColumns(LectureFigures.Table table) {
        this.table = table;
        this.label = table.hardware().replace("NVIDIA ", "").replace("Tesla ", "");
        this.hasTimes = table.figures().stream().anyMatch(LectureFigures.Figure::hasMillis);
    }

    /** The lecture whose configuration this reduce run repeats, or null. */
    static LectureColumns forReduce(DType type, long n, int threads) {
        for (LectureFigures.Table t : LectureFigures.all()) {
            if (t.type() == type && t.n() == n && t.blockSize() == threads) return new LectureColumns(t);
        }
        return null;
    }

    List<String> headers() {
        List<String> h = new ArrayList<>();
        if (hasTimes) h.add(label + " ms");
        h.add(label + " GB/s");
        if (hasTimes) {
            h.add(label + " step");
            h.add(label + " cumulative");
        }
        return h;
    }

    /** The cells of one row: blank where the lecture published nothing for the step. */
    List<Object> cells(String stepId) {
        List<Object> c = new ArrayList<>();
        Optional<LectureFigures.Figure> f = table.figure(stepId);
        if (hasTimes) c.add(f.filter(LectureFigures.Figure::hasMillis).map(x -> Format.millis(x.millis())).orElse(""));
        c.add(f.map(x -> Format.number(x.gigabytesPerSecond())).orElse(""));
        if (hasTimes) {
            c.add(stepSpeedup(stepId).map(Format::speedup).orElse(""));
            c.add(cumulativeSpeedup(stepId).map(Format::speedup).orElse(""));
        }
        return c;
    }

    String caption() {
        return String.format(Locale.ROOT, "%s columns: %s; %s, n = %s %s, %d threads/block, peak %s GB/s as then quoted.",
                label, table.source(), table.hardware(), Format.powerOfTwo(table.n()), table.type(), table.blockSize(),
                Format.number(table.peakBytesPerSecond() / 1e9));
    }

    Optional<Json> json(String stepId) {
        return table.figure(stepId).map(f -> {
            Json j = Json.object().put("hardware", table.hardware())
                    .put("millis", f.hasMillis() ? f.millis() : null)
                    .put("gigabytesPerSecond", f.gigabytesPerSecond())
                    .put("percentOfPeak", 100 * f.gigabytesPerSecond() * 1e9 / table.peakBytesPerSecond());
            stepSpeedup(stepId).ifPresent(s -> j.put("stepSpeedup", s));
            cumulativeSpeedup(stepId).ifPresent(s -> j.put("cumulativeSpeedup", s));
            return j;
        });
    }

    Json describe() {
        return Json.object().put("hardware", table.hardware()).put("source", table.source())
                .put("n", table.n()).put("dtype", table.type().toString()).put("threads", table.blockSize())
                .put("peakBytesPerSecond", table.peakBytesPerSecond());
    }

    /** Published time of the previous figure over this one's, both in the lecture's order. */
    private Optional<Double> stepSpeedup(String stepId) {
        List<LectureFigures.Figure> fs = table.figures();
        for (int i = 1; i < fs.size(); i++) {
            if (fs.get(i).stepId().equalsIgnoreCase(stepId) && fs.get(i).hasMillis() && fs.get(i - 1).hasMillis()) {
                return Optional.of(fs.get(i - 1).millis() / fs.get(i).millis());
            }
        }
        return Optional.empty();
    }

    private Optional<Double> cumulativeSpeedup(String stepId) {
        LectureFigures.Figure first = table.figures().getFirst();
        return table.figure(stepId).filter(f -> f.hasMillis() && first.hasMillis()).map(f -> first.millis() / f.millis());
    }
}
