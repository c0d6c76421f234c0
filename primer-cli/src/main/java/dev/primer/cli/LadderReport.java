package dev.primer.cli;

import dev.primer.cuda.CudaDevice;
import dev.primer.ladder.LadderStep;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The lecture-style report of a ladder run: step, kernel, time, GB/s, % of the measured copy
 * bandwidth, % of the theoretical peak, step and cumulative speedup, verified; the lecture's own
 * figures beside them when the configuration matches; as a table, as JSON, and as a chart.
 */
final class LadderReport {
    private final String what;
    private final String configuration;
    private final List<LadderStep> steps;
    private final CopyBandwidth.Result copy;
    private final CudaDevice device;
    private final LectureColumns lecture; // null when the configuration matches no lecture
    private final Json config;

    LadderReport(String what, String configuration, Json config, List<LadderStep> steps, CopyBandwidth.Result copy,
                 CudaDevice device, LectureColumns lecture) {
        this.what = what;
        this.configuration = configuration;
        this.config = config;
        this.steps = steps;
        this.copy = copy;
        this.device = device;
        this.lecture = lecture;
    }

    boolean allVerified() { return steps.stream().allMatch(LadderStep::verified); }

    private double peakGbps() { return device.theoreticalBandwidthBytesPerSecond() / 1e9; }

    private double copyGbps() { return copy.gigabytesPerSecond(); }

    /** The header lines, the table and (with {@code notes}) each step's note. */
    String text(boolean notes) {
        StringBuilder b = new StringBuilder();
        b.append(what).append(" on ").append(device.name()).append(" (sm_").append(device.computeMajor()).append(device.computeMinor())
                .append(", ").append(device.multiprocessorCount()).append(" SMs): ").append(configuration).append('\n');
        b.append("measured copy bandwidth ").append(Format.gbps(copy.bytesPerSecond())).append(" (device-to-device, ")
                .append(Format.bytes(copy.bufferBytes())).append(", read + write)");
        if (peakGbps() > 0) b.append("; theoretical peak ").append(Format.number(peakGbps())).append(" GB/s (")
                .append(InfoCommand.theoreticalFormula(device)).append(')');
        b.append('\n');
        List<String> header = new ArrayList<>(List.of("step", "kernel", "time (ms)", "GB/s", "% copy", "% peak", "step", "cumulative", "verified"));
        if (lecture != null) header.addAll(lecture.headers());
        Table t = new Table(header.toArray(String[]::new)).right(2, 3, 4, 5, 6, 7);
        double first = steps.isEmpty() ? Double.NaN : steps.getFirst().millis();
        for (int i = 0; i < steps.size(); i++) {
            LadderStep s = steps.get(i);
            List<Object> row = new ArrayList<>(List.of(s.id(), s.title(), Format.millis(s.millis()), Format.number(s.gigabytesPerSecond()),
                    Format.percent(s.gigabytesPerSecond(), copyGbps()), Format.percent(s.gigabytesPerSecond(), peakGbps()),
                    i == 0 ? "" : Format.speedup(steps.get(i - 1).millis() / s.millis()), Format.speedup(first / s.millis()),
                    s.verified() ? "yes" : "NO"));
            if (lecture != null) row.addAll(lecture.cells(s.id()));
            t.row(row.toArray());
        }
        b.append('\n').append(t.render());
        if (lecture != null) b.append(lecture.caption()).append('\n');
        boolean anyFailed = false;
        for (LadderStep s : steps) {
            if (notes || !s.verified()) {
                if (!anyFailed && !notes) b.append('\n');
                anyFailed = true;
                b.append(notes ? "  " : "  NOT VERIFIED ").append(s.id()).append(": ").append(s.note()).append('\n');
            }
        }
        if (!allVerified()) b.append("some steps were NOT verified (exit status 1)\n");
        return b.toString();
    }

    Json json() {
        List<Json> rows = new ArrayList<>();
        double first = steps.isEmpty() ? Double.NaN : steps.getFirst().millis();
        for (int i = 0; i < steps.size(); i++) {
            LadderStep s = steps.get(i);
            Json r = Json.object().put("id", s.id()).put("title", s.title()).put("millis", s.millis())
                    .put("bytesMoved", s.bytesMoved()).put("gigabytesPerSecond", s.gigabytesPerSecond())
                    .put("percentOfCopy", 100 * s.gigabytesPerSecond() / copyGbps())
                    .put("percentOfPeak", peakGbps() > 0 ? 100 * s.gigabytesPerSecond() / peakGbps() : null)
                    .put("stepSpeedup", i == 0 ? null : steps.get(i - 1).millis() / s.millis())
                    .put("cumulativeSpeedup", first / s.millis())
                    .put("verified", s.verified()).put("note", s.note());
            if (lecture != null) lecture.json(s.id()).ifPresent(l -> r.put("lecture", l));
            rows.add(r);
        }
        Json j = Json.object().put("ladder", what).put("configuration", config)
                .put("device", device.name()).put("computeCapability", device.computeCapability())
                .put("multiprocessors", device.multiprocessorCount())
                .put("theoreticalBandwidthBytesPerSecond", device.theoreticalBandwidthBytesPerSecond())
                .put("copyBandwidth", copy.toJson())
                .put("steps", rows)
                .put("allVerified", allVerified());
        if (lecture != null) j.put("lecture", lecture.describe());
        return j;
    }

    void plot(Path file) throws IOException {
        List<LadderChart.Bar> bars = steps.stream()
                .map(s -> new LadderChart.Bar(s.id(), s.millis(), s.gigabytesPerSecond(), s.verified())).toList();
        String title = String.format(Locale.ROOT, "%s on %s: %s", what, device.name(), configuration);
        LadderChart.write(file, title, bars, copyGbps(), peakGbps());
    }
}
