package dev.primer.cli;

import dev.primer.cuda.CudaDevice;
import dev.primer.ladder.LadderStep;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import javax.xml.parsers.DocumentBuilderFactory;
import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The ladder report's table, JSON and charts, on made-up measurements (no GPU needed). */
class LadderReportTest {
    @TempDir Path dir;

    private static final CudaDevice H200 = new CudaDevice(0, "NVIDIA H200", 9, 0, 132, 150_000_000_000L, 62_914_560,
            2_619_000, 5120, 1024, 2048, 232_448, 1_980_000, 13000);

    static LadderReport report(boolean allVerified) { return report(allVerified, null); }

    private static LadderReport report(boolean allVerified, LectureColumns lecture) {
        double bytes = 4.0 * (1 << 22);
        List<LadderStep> steps = List.of(
                new LadderStep("K1", "interleaved addressing, divergent branch", 0.080, bytes, true, "grid 32768"),
                new LadderStep("K2", "interleaved addressing, strided index", 0.040, bytes, allVerified, "mismatch at 3"),
                new LadderStep("K7", "multiple elements per thread", 0.008, bytes, true, "grid 1056"));
        CopyBandwidth.Result copy = new CopyBandwidth.Result(3.9e12, 1L << 30, 0.55, 10, "test");
        return new LadderReport("reduce ladder", "int32, n = 2^22, 128 threads/block", Json.object().put("n", 1 << 22),
                steps, copy, H200, lecture);
    }

    @Test void tableHasTheLectureColumns() {
        String text = report(true).text(false);
        assertTrue(text.contains("measured copy bandwidth 3900 GB/s"), text);
        for (String h : new String[] {"step", "kernel", "time (ms)", "GB/s", "% copy", "% peak", "cumulative", "verified"}) {
            assertTrue(text.contains(h), h);
        }
        assertTrue(text.contains("2.00x"), text);     // K1 -> K2
        assertTrue(text.contains("10.0x"), text);     // K1 -> K7 cumulative
        assertFalse(text.contains("NOT VERIFIED"), text);
    }

    @Test void g80FiguresBesideOursWhenTheConfigurationMatches() {
        LectureColumns g80 = LectureColumns.forReduce(dev.primer.DType.INT, 1L << 22, 128);
        String text = report(true, g80).text(false);
        assertTrue(text.contains("G80 ms") && text.contains("G80 GB/s") && text.contains("G80 cumulative"), text);
        assertTrue(text.contains("8.054") && text.contains("62.67") && text.contains("30.1x"), text);
        assertTrue(text.contains("Harris"), text);
        assertTrue(report(true, g80).json().toString().contains("\"hardware\": \"NVIDIA G80\""));
        LectureColumns k40 = LectureColumns.forReduce(dev.primer.DType.INT, 1L << 26, 1024);
        assertEquals(List.of("K40m GB/s"), k40.headers());
        assertEquals(null, LectureColumns.forReduce(dev.primer.DType.FLOAT, 1L << 22, 128));
        assertEquals(null, LectureColumns.forReduce(dev.primer.DType.INT, 1L << 22, 256));
    }

    @Test void unverifiedStepsAreFlagged() {
        LadderReport r = report(false);
        assertFalse(r.allVerified());
        assertTrue(r.text(false).contains("NOT VERIFIED K2: mismatch at 3"));
    }

    @Test @SuppressWarnings("unchecked")
    void jsonParses() {
        Map<String, Object> m = MiniJson.object(report(true).json().toString());
        List<Object> steps = (List<Object>) m.get("steps");
        assertEquals(3, steps.size());
        Map<String, Object> k2 = (Map<String, Object>) steps.get(1);
        assertEquals(2.0, (Double) k2.get("stepSpeedup"), 1e-9);
        assertEquals(Boolean.TRUE, m.get("allVerified"));
    }

    @Test void svgIsWellFormed() throws Exception {
        Path svg = dir.resolve("chart.svg");
        report(true).plot(svg);
        var doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(svg.toFile());
        assertEquals("svg", doc.getDocumentElement().getNodeName());
        assertTrue(doc.getElementsByTagName("rect").getLength() >= 7);
    }

    @Test void pngRendersHeadless() throws Exception {
        System.setProperty("java.awt.headless", "true");
        Path png = dir.resolve("chart.png");
        report(false).plot(png);
        BufferedImage image = ImageIO.read(png.toFile());
        assertEquals(1000, image.getWidth());
    }

    @Test void otherExtensionsAreRefused() {
        CliException e = org.junit.jupiter.api.Assertions.assertThrows(CliException.class,
                () -> report(true).plot(dir.resolve("chart.pdf")));
        assertEquals(ExitCode.USAGE, e.exitCode());
    }
}
