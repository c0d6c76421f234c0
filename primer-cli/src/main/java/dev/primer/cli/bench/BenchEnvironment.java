package dev.primer.cli.bench;

import dev.primer.cuda.CudaDevice;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.ZonedDateTime;
import java.util.Locale;

/** Where and on what a benchmark ran: the GPU, the JVM, the kernels' source hash, the commit. */
record BenchEnvironment(String date, String time, String gpu, String computeCapability, int multiprocessors,
                        long l2Bytes, long memoryBytes, String driver, double theoreticalGbps, String javaVersion,
                        String vm, String kernelSources, String gitCommit, String host, int cpuCores, boolean quick,
                        int reps) {

    static BenchEnvironment of(CudaDevice d, boolean quick, int reps) {
        ZonedDateTime now = ZonedDateTime.now();
        return new BenchEnvironment(LocalDate.from(now).toString(), now.toString(), d.name(), d.computeCapability(),
                d.multiprocessorCount(), d.l2CacheBytes(), d.totalMemoryBytes(), d.driverVersionString(),
                d.theoreticalBandwidthBytesPerSecond() / 1e9, System.getProperty("java.version"),
                System.getProperty("java.vm.name") + " " + System.getProperty("java.vm.version"),
                kernelSourcesHash(), System.getenv("PRIMER_GIT_COMMIT"), hostName(),
                Runtime.getRuntime().availableProcessors(), quick, reps);
    }

    /** Lower-case GPU name, every run of other characters a single '-': "nvidia-h200". */
    String gpuSlug() {
        String slug = gpu.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("^-+|-+$", "");
        return slug.isEmpty() ? "gpu" : slug;
    }

    /** The 16-hex-digit hash of the kernel sources the jar was built from, or "unknown". */
    static String kernelSourcesHash() {
        try (InputStream in = BenchEnvironment.class.getResourceAsStream("/dev/primer/kernels/SOURCES.sha256")) {
            if (in == null) return "unknown";
            return new String(in.readAllBytes(), StandardCharsets.US_ASCII).trim();
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static String hostName() {
        String h = System.getenv("HOSTNAME");
        if (h != null && !h.isBlank()) return h;
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "unknown";
        }
    }
}
