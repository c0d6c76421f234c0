package dev.primer.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * The lectures' bar chart of a ladder: one panel of time per kernel and one of bandwidth per kernel,
 * with the measured copy bandwidth (and the theoretical peak) as dashed lines on the second, the step
 * speedup written over each time bar. Drawn on a {@link Canvas}, so the same layout gives SVG or PNG.
 */
final class LadderChart {
    private LadderChart() {}

    /** One bar: a kernel's id, its time and bandwidth, and whether it was verified. */
    record Bar(String label, double millis, double gbps, boolean verified) {}

    private static final int WIDTH = 1000, PANEL_HEIGHT = 360, TOP = 60, GAP = 120;
    private static final int LEFT = 80, RIGHT = 30;
    private static final String TIME_COLOUR = "#4e79a7", BANDWIDTH_COLOUR = "#59a14f", FAILED_COLOUR = "#e15759";
    private static final String AXIS = "#333333", GRID = "#dddddd", COPY_LINE = "#f28e2b", PEAK_LINE = "#b07aa1";

    /** Draws the chart into {@code file} (.svg or .png). */
    static void write(Path file, String title, List<Bar> bars, double copyGbps, double peakGbps) throws IOException {
        int height = TOP + 2 * PANEL_HEIGHT + GAP + 70;
        Canvas c = Canvas.forFile(file, WIDTH, height);
        c.text(WIDTH / 2.0, 30, title, 16, Canvas.Anchor.MIDDLE, AXIS, 0, true);
        double[] times = bars.stream().mapToDouble(Bar::millis).toArray();
        double[] rates = bars.stream().mapToDouble(Bar::gbps).toArray();
        String[] above = new String[bars.size()];
        for (int i = 0; i < bars.size(); i++) {
            above[i] = i == 0 ? Format.millis(times[i]) : Format.millis(times[i]) + " (" + Format.speedup(times[i - 1] / times[i]) + ")";
        }
        panel(c, TOP, "time per kernel (ms); step speedup in parentheses", bars, times, above, TIME_COLOUR, new double[0], new String[0]);
        String[] rateLabels = new String[bars.size()];
        for (int i = 0; i < bars.size(); i++) rateLabels[i] = Format.number(rates[i]);
        double[] lines = peakGbps > 0 ? new double[] {copyGbps, peakGbps} : new double[] {copyGbps};
        String[] lineLabels = peakGbps > 0
                ? new String[] {"measured copy " + Format.number(copyGbps) + " GB/s", "theoretical peak " + Format.number(peakGbps) + " GB/s"}
                : new String[] {"measured copy " + Format.number(copyGbps) + " GB/s"};
        panel(c, TOP + PANEL_HEIGHT + GAP, "effective bandwidth (GB/s)", bars, rates, rateLabels, BANDWIDTH_COLOUR, lines, lineLabels);
        c.text(LEFT, height - 16, "red bars: result not verified", 11, Canvas.Anchor.START, FAILED_COLOUR, 0, false);
        c.save(file);
    }

    private static void panel(Canvas c, double top, String heading, List<Bar> bars, double[] values, String[] labels,
                              String colour, double[] refLines, String[] refLabels) {
        double plotW = WIDTH - LEFT - RIGHT, plotH = PANEL_HEIGHT - 40;
        double y0 = top + 20 + plotH; // baseline
        double max = 0;
        for (double v : values) if (Double.isFinite(v)) max = Math.max(max, v);
        for (double v : refLines) if (Double.isFinite(v)) max = Math.max(max, v);
        double scale = niceCeiling(max <= 0 ? 1 : max * 1.08);
        c.text(LEFT, top + 10, heading, 13, Canvas.Anchor.START, AXIS, 0, true);
        for (int t = 0; t <= 5; t++) {   // grid and y ticks
            double v = scale * t / 5, y = y0 - plotH * t / 5;
            c.line(LEFT, y, LEFT + plotW, y, GRID, 1, false);
            c.text(LEFT - 6, y + 4, Format.number(v), 10, Canvas.Anchor.END, AXIS, 0, false);
        }
        int n = Math.max(1, bars.size());
        double slot = plotW / n, barW = Math.min(60, slot * 0.7);
        for (int i = 0; i < bars.size(); i++) {
            double v = Double.isFinite(values[i]) ? values[i] : 0;
            double h = plotH * v / scale, x = LEFT + slot * i + (slot - barW) / 2;
            c.rect(x, y0 - h, barW, h, bars.get(i).verified() ? colour : FAILED_COLOUR);
            c.text(x + barW / 2, y0 - h - 4, labels[i], 9, Canvas.Anchor.MIDDLE, AXIS, 0, false);
            c.text(x + barW / 2 + 3, y0 + 14, bars.get(i).label(), 10, Canvas.Anchor.END, AXIS, -35, false);
        }
        for (int k = 0; k < refLines.length; k++) {
            if (!(refLines[k] > 0)) continue;
            double y = y0 - plotH * refLines[k] / scale;
            String col = k == 0 ? COPY_LINE : PEAK_LINE;
            c.line(LEFT, y, LEFT + plotW, y, col, 1.5, true);
            c.text(LEFT + plotW, y - 4, refLabels[k], 10, Canvas.Anchor.END, col, 0, false);
        }
        c.line(LEFT, y0, LEFT + plotW, y0, AXIS, 1, false);
        c.line(LEFT, y0, LEFT, y0 - plotH, AXIS, 1, false);
    }

    /** 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a power of ten, at least {@code v}: round axis ends. */
    static double niceCeiling(double v) {
        double p = Math.pow(10, Math.floor(Math.log10(v)));
        for (double m : new double[] {1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10}) if (m * p >= v) return m * p;
        return 10 * p;
    }
}
