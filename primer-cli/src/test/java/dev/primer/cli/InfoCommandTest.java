package dev.primer.cli;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class InfoCommandTest {

    @Test @SuppressWarnings("unchecked")
    void jsonOnTheCpuParsesAndCarriesAMeasuredBandwidth() {
        Cli.Result r = Cli.run("info", "--backend", "cpu", "--json");
        assertEquals(0, r.exitCode(), r::toString);
        Map<String, Object> info = MiniJson.object(r.out());
        assertEquals("cpu", info.get("backend"));
        Map<String, Object> cpu = (Map<String, Object>) info.get("cpu");
        assertTrue((Double) cpu.get("cores") >= 1);
        assertTrue((Double) cpu.get("maxHeapBytes") > 0);
        Map<String, Object> gpu = (Map<String, Object>) info.get("gpu");
        if (gpu.get("available") == Boolean.FALSE) assertTrue(((String) gpu.get("unavailableReason")).length() > 0);
        Map<String, Object> copy = (Map<String, Object>) info.get("copyBandwidth");
        assertTrue((Double) copy.get("bytesPerSecond") > 0, r::toString);
        assertEquals(10.0, copy.get("repetitions"));
        assertEquals("", r.err(), "--json prints no progress");
    }

    @Test void tableWithoutMeasurement() {
        Cli.Result r = Cli.run("--backend", "cpu", "info", "--no-measure");
        assertEquals(0, r.exitCode(), r::toString);
        assertTrue(r.out().contains("backend") && r.out().contains("cpu"), r::toString);
        assertTrue(r.out().contains("cores"), r::toString);
    }

    @Test void badBackendIsAUsageError() {
        Cli.Result r = Cli.run("info", "--backend", "tpu");
        assertEquals(2, r.exitCode(), r::toString);
        assertTrue(r.err().contains("backend must be gpu, cpu or auto"), r::toString);
    }
}
