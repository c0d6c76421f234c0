package dev.primer.cli;

import dev.primer.BackendKind;
import dev.primer.cuda.Cuda;
import dev.primer.cuda.CudaContext;
import dev.primer.cuda.CudaDevice;
import dev.primer.cuda.Nvrtc;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;

/** {@code primer info}: the backend, its hardware, its theoretical and measured bandwidth. */
@Command(name = "info", mixinStandardHelpOptions = true, sortOptions = false,
        header = "Show the GPU (or CPU), its theoretical peak and its measured copy bandwidth.",
        description = {
                "Describe the backend: the GPU (name, compute capability, SMs, memory, L2, memory clock and bus "
                        + "width, theoretical peak bandwidth = memory clock × 2 × bus width / 8, driver) or the CPU "
                        + "(cores, Vector API width, heap), and MEASURE the copy bandwidth that memory-bound kernels "
                        + "are compared with:",
                "  GPU: device-to-device copy of 1 GiB, CUDA events, median of 10 after warm-up;",
                "  CPU: MemorySegment.copy of 256 MiB on all cores (and on one thread with --verbose).",
                "Bandwidths count bytes read + bytes written. When no GPU is usable, says why.",
                ""})
public final class InfoCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Option(names = "--json", description = "Print one JSON object instead of the table.")
    boolean json;

    @Option(names = "--no-measure", description = "Skip the bandwidth measurement (instant).")
    boolean noMeasure;

    @Override public Integer call() {
        Main main = Main.of(spec);
        BackendKind kind = Backends.resolve(main.backend());
        PrintWriter out = spec.commandLine().getOut();
        Json info = collect(kind, main, spec.commandLine().getErr());
        if (json) out.println(info);
        else out.print(render(info));
        out.flush();
        return ExitCode.OK;
    }

    /** Everything info reports, as the JSON object {@code --json} prints. */
    Json collect(BackendKind kind, Main main, PrintWriter err) {
        Json info = Json.object()
                .put("primer", Main.version())
                .put("java", Runtime.version().toString())
                .put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"))
                .put("backend", Backends.name(kind));
        Json gpu = Json.object().put("available", Cuda.isAvailable());
        if (!Cuda.isAvailable()) gpu.put("unavailableReason", Cuda.unavailableReason());
        info.put("gpu", gpu);
        info.put("cpu", cpu());
        try (ProgressBar bar = json || noMeasure ? ProgressBar.silent()
                : ProgressBar.start(err, "measuring copy bandwidth", CopyBandwidth.REPETITIONS + 2)) {
            if (kind == BackendKind.GPU) {
                CudaContext ctx = Cuda.context();
                describeGpu(gpu, ctx.device());
                if (Nvrtc.isAvailable()) gpu.put("nvrtc", Nvrtc.version());
                else gpu.put("nvrtcUnavailableReason", Nvrtc.unavailableReason());
                long[] mem = ctx.memoryInfo();
                gpu.put("freeMemoryBytes", mem[0]);
                if (!noMeasure) {
                    CopyBandwidth.Result r = CopyBandwidth.gpu(ctx, bar);
                    info.put("copyBandwidth", r.toJson().put("percentOfTheoretical",
                            100 * r.bytesPerSecond() / ctx.device().theoreticalBandwidthBytesPerSecond()));
                }
            } else if (!noMeasure) {
                int cores = Runtime.getRuntime().availableProcessors();
                info.put("copyBandwidth", CopyBandwidth.cpu(cores, bar).toJson());
                if (cores > 1 && main.verbose()) info.put("copyBandwidthOneThread", CopyBandwidth.cpu(1, bar).toJson());
            }
        }
        return info;
    }

    private static void describeGpu(Json gpu, CudaDevice d) {
        gpu.put("name", d.name())
                .put("computeCapability", d.computeCapability())
                .put("multiprocessors", d.multiprocessorCount())
                .put("memoryBytes", d.totalMemoryBytes())
                .put("l2CacheBytes", d.l2CacheBytes())
                .put("memoryClockKHz", d.memoryClockKHz())
                .put("memoryBusWidthBits", d.memoryBusWidthBits())
                .put("theoreticalBandwidthBytesPerSecond", d.theoreticalBandwidthBytesPerSecond())
                .put("theoreticalBandwidthFormula", theoreticalFormula(d))
                .put("clockKHz", d.clockKHz())
                .put("maxThreadsPerBlock", d.maxThreadsPerBlock())
                .put("maxThreadsPerMultiprocessor", d.maxThreadsPerMultiprocessor())
                .put("maxSharedBytesPerBlockOptin", d.maxSharedBytesPerBlockOptin())
                .put("driverVersion", d.driverVersionString());
    }

    /** "2619 MHz × 2 (double data rate) × 5120 bits / 8 = 3352 GB/s". */
    static String theoreticalFormula(CudaDevice d) {
        if (d.memoryClockKHz() == 0 || d.memoryBusWidthBits() == 0) return "the driver reports no memory clock or bus width";
        return String.format(Locale.ROOT, "memory clock %.0f MHz × 2 (double data rate) × %d-bit bus / 8 = %s",
                d.memoryClockKHz() / 1e3, d.memoryBusWidthBits(), Format.gbps(d.theoreticalBandwidthBytesPerSecond()));
    }

    private static Json cpu() {
        Json cpu = Json.object()
                .put("cores", Runtime.getRuntime().availableProcessors())
                .put("model", cpuModel())
                .put("vectorBits", vectorBits())
                .put("maxHeapBytes", Runtime.getRuntime().maxMemory());
        return cpu;
    }

    /** The Vector API's preferred width on this CPU (0 when the incubator module is not loaded). */
    static int vectorBits() {
        try {
            return jdk.incubator.vector.VectorShape.preferredShape().vectorBitSize();
        } catch (LinkageError e) {
            return 0;
        }
    }

    /** "model name" from /proc/cpuinfo where there is one, else os.arch. */
    static String cpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) return line.substring(line.indexOf(':') + 1).trim();
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or not readable: fall through
        }
        return System.getProperty("os.arch");
    }

    /** The table printed without --json. */
    static String render(Json info) {
        Table t = new Table("", "").noHeader();
        t.row("primer", info.get("primer") + " on Java " + info.get("java"));
        t.row("backend", info.get("backend"));
        Json gpu = (Json) info.get("gpu");
        boolean onGpu = "gpu".equals(info.get("backend"));
        if (!Boolean.TRUE.equals(gpu.get("available"))) {
            t.row("GPU", "not usable: " + gpu.get("unavailableReason"));
        } else if (onGpu) {
            t.row("device", gpu.get("name"));
            t.row("compute capability", gpu.get("computeCapability"));
            t.row("multiprocessors", gpu.get("multiprocessors"));
            t.row("memory", Format.bytes((Long) gpu.get("memoryBytes")) + " (" + Format.bytes((Long) gpu.get("freeMemoryBytes")) + " free)");
            t.row("L2 cache", Format.bytes(((Number) gpu.get("l2CacheBytes")).longValue()));
            t.row("memory clock", Format.number(((Number) gpu.get("memoryClockKHz")).doubleValue() / 1e3) + " MHz");
            t.row("memory bus width", gpu.get("memoryBusWidthBits") + " bits");
            t.row("theoretical bandwidth", Format.gbps((Double) gpu.get("theoreticalBandwidthBytesPerSecond"))
                    + "   (" + gpu.get("theoreticalBandwidthFormula") + ")");
            t.row("SM clock", Format.number(((Number) gpu.get("clockKHz")).doubleValue() / 1e3) + " MHz");
            t.row("driver", "CUDA " + gpu.get("driverVersion"));
            t.row("user-defined operators", gpu.get("nvrtc") != null ? "NVRTC " + gpu.get("nvrtc")
                    : "unavailable: " + gpu.get("nvrtcUnavailableReason"));
        } else {
            t.row("GPU", "available (" + Cuda.device().name() + "), not selected");
        }
        Json cpu = (Json) info.get("cpu");
        if (onGpu) {
            t.row("host CPU", cpu.get("model") + ", " + cpu.get("cores") + " cores");
        } else {
            t.row("CPU", cpu.get("model"));
            t.row("cores", cpu.get("cores"));
            int bits = (Integer) cpu.get("vectorBits");
            t.row("Vector API width", bits == 0 ? "unavailable (run with --add-modules jdk.incubator.vector)"
                    : bits + " bits (" + bits / 32 + " floats)");
            t.row("max heap", Format.bytes((Long) cpu.get("maxHeapBytes")));
        }
        if (info.get("copyBandwidth") instanceof Json bw) {
            String pct = bw.get("percentOfTheoretical") instanceof Double p
                    ? String.format(Locale.ROOT, ", %.1f%% of theoretical", p) : "";
            t.row(onGpu ? "measured copy bandwidth" : "measured copy (all cores)",
                    Format.gbps((Double) bw.get("bytesPerSecond")) + pct + "   (" + bw.get("method") + ")");
        }
        if (info.get("copyBandwidthOneThread") instanceof Json bw) {
            t.row("measured copy (1 thread)", Format.gbps((Double) bw.get("bytesPerSecond")) + "   (" + bw.get("method") + ")");
        }
        return t.render();
    }
}
