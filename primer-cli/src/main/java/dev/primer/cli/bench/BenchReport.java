package dev.primer.cli.bench;

import dev.primer.cli.Json;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Writes a run's results: {@code <out-dir>/<date>-<gpu>.json} (every record, with its baseline
 * comparisons, and the environment) and {@code <out-dir>/<date>-<gpu>.md} (the readable report: the
 * environment, then a table per group with the baselines side by side and the targets judged).
 * A second run on the same day overwrites both.
 */
final class BenchReport {
    static final List<String> GROUPS = List.of("foundation", "reduce", "rows", "segments", "scan", "sizes", "custom");
    private static final List<String> COLUMNS_LIBRARIES = List.of("cupy", "torch");

    private final BenchEnvironment env;
    private final List<BenchRecord> records;
    private final Baselines baselines;
    private final double copyGbps;
    private final double readGbps;

    BenchReport(BenchEnvironment env, List<BenchRecord> records, Baselines baselines, double copyGbps, double readGbps) {
        this.env = env;
        this.records = records;
        this.baselines = baselines;
        this.copyGbps = copyGbps;
        this.readGbps = readGbps;
    }

    /** Writes both files; returns {json, md}. */
    Path[] write(Path outDir) throws IOException {
        Files.createDirectories(outDir);
        String stem = env.date() + "-" + env.gpuSlug();
        Path json = outDir.resolve(stem + ".json"), md = outDir.resolve(stem + ".md");
        Files.writeString(json, document().toString() + "\n");
        Files.writeString(md, markdown());
        return new Path[] {json, md};
    }

    // ------------------------------------------------------------------ JSON

    Json document() {
        List<Object> list = new ArrayList<>();
        for (BenchRecord r : records) list.add(record(r));
        return Json.object().put("environment", environment()).put("records", list);
    }

    /** JSON has no NaN: an absent measurement is null. */
    private static Double finite(double v) { return Double.isFinite(v) ? v : null; }

    private Map<String, Object> environment() {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("name", "env");
        e.put("library", BenchRecord.LIBRARY);
        e.put("date", env.date());
        e.put("time", env.time());
        e.put("gpu", env.gpu());
        e.put("compute_capability", env.computeCapability());
        e.put("sms", env.multiprocessors());
        e.put("l2_bytes", env.l2Bytes());
        e.put("memory_bytes", env.memoryBytes());
        e.put("driver", env.driver());
        e.put("theoretical_peak_gbps", finite(env.theoreticalGbps()));
        e.put("measured_copy_gbps", finite(copyGbps));
        e.put("measured_read_gbps", finite(readGbps));
        e.put("java", env.javaVersion());
        e.put("vm", env.vm());
        e.put("kernel_sources_sha256", env.kernelSources());
        e.put("git_commit", env.gitCommit());
        e.put("host", env.host());
        e.put("cpu_cores", env.cpuCores());
        e.put("quick", env.quick());
        e.put("reps", env.reps());
        e.put("warmup", BenchSetup.WARMUP);
        e.put("warmup_min_ms", BenchSetup.WARMUP_NANOS / 1_000_000);
        e.put("warmup_max_runs", BenchSetup.WARMUP_MAX_RUNS);
        e.put("baselines_file", baselines.present() ? baselines.source().toString() : null);
        e.put("baseline_env", baselines.present() ? baselines.env() : null);
        return e;
    }

    private Map<String, Object> record(BenchRecord r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("group", r.group());
        m.put("name", r.name());
        m.put("library", BenchRecord.LIBRARY);
        m.put("dtype", r.dtype());
        m.put("shape", r.shape());
        m.put("n", r.n());
        m.put("bytes", r.bytes());
        if (r.ok()) {
            m.put("ms", finite(r.ms()));
            m.put("ms_min", finite(r.msMin()));
            m.put("reps", r.reps());
            m.put("gbps", finite(r.gbps()));
            m.put("fraction_of_copy_bw", finite(r.gbps() / copyGbps));
        }
        m.put("verified", r.verified());
        m.put("note", r.note());
        if (r.error() != null) m.put("error", r.error());
        Map<String, Object> vs = new LinkedHashMap<>();
        for (Baselines.Entry b : baselines.forName(r.name())) {
            Map<String, Object> x = new LinkedHashMap<>();
            if (b.ok()) {
                x.put("ms", finite(b.ms()));
                x.put("gbps", finite(b.gbps()));
                x.put("n", b.n());
                x.put("out_dtype", b.outDtype());
                double s = Pairing.speedup(r, b);
                x.put("speedup", finite(s));
                if (r.ok() && !Pairing.sameSize(r, b)) x.put("note", "different size: not compared");
            } else {
                x.put("error", b.error());
            }
            vs.put(b.library(), x);
        }
        if (!vs.isEmpty()) m.put("baselines", vs);
        Targets.Verdict v = verdict(r);
        if (v != null) {
            m.put("target", v.target());
            m.put("target_status", v.status());
        }
        return m;
    }

    private Targets.Verdict verdict(BenchRecord r) {
        return Targets.judge(r, lib -> Pairing.speedup(baselines, r, lib), copyGbps, readGbps);
    }

    // ------------------------------------------------------------------ Markdown

    String markdown() {
        StringBuilder sb = new StringBuilder();
        sb.append("# Primer benchmarks: ").append(env.gpu()).append(", ").append(env.date()).append("\n\n");
        sb.append("## Environment\n\n| | |\n|---|---|\n");
        row(sb, "GPU", String.format(Locale.ROOT, "%s (compute capability %s, %d SMs, %d MiB L2, %.1f GiB)", env.gpu(),
                env.computeCapability(), env.multiprocessors(), env.l2Bytes() >> 20, env.memoryBytes() / (double) (1L << 30)));
        row(sb, "CUDA driver", env.driver());
        row(sb, "Theoretical peak bandwidth", String.format(Locale.ROOT, "%.0f GB/s (memory clock × 2 × bus width)", env.theoreticalGbps()));
        row(sb, "Measured copy bandwidth", Double.isNaN(copyGbps) ? "not measured"
                : String.format(Locale.ROOT, "%.0f GB/s (copy_f32: device-to-device, read + write bytes; %.1f%% of peak)",
                        copyGbps, 100 * copyGbps / env.theoreticalGbps()));
        row(sb, "Measured read bandwidth", Double.isNaN(readGbps) ? "not measured"
                : String.format(Locale.ROOT, "%.0f GB/s (read_f32: a kernel that only reads; %.1f%% of peak)",
                        readGbps, 100 * readGbps / env.theoreticalGbps()));
        row(sb, "Java", env.javaVersion() + " (" + env.vm() + ")");
        row(sb, "Kernel sources", env.kernelSources());
        row(sb, "Git commit", env.gitCommit() == null ? "(PRIMER_GIT_COMMIT not set)" : env.gitCommit());
        row(sb, "Host", env.host() + ", " + env.cpuCores() + " cores");
        row(sb, "Method", "CUDA events around the launch sequence after " + BenchSetup.WARMUP + " warm-up runs and at least "
                + BenchSetup.WARMUP_NANOS / 1_000_000 + " ms of them (at most " + BenchSetup.WARMUP_MAX_RUNS
                + ": the JIT compiles the host side), median of "
                + env.reps() + (env.quick() ? " (--quick: baselines.py --quick sizes)" : "")
                + "; random inputs; buffers rotated so the working set exceeds L2");
        row(sb, "Baselines", baselines.present() ? baselineSummary() : "none (--baselines not given)");
        sb.append("\n\"% copy\" is the effective bandwidth over the measured copy bandwidth; targets on \"read bw\" are judged"
                + " against the measured read bandwidth instead. \"×\" is Primer's speed over the library's (its ms / Primer's ms).\n");

        for (String group : GROUPS) {
            List<BenchRecord> rs = records.stream().filter(r -> r.group().equals(group)).toList();
            if (rs.isEmpty()) continue;
            sb.append("\n## ").append(group).append("\n\n");
            table(sb, rs);
            notes(sb, rs);
        }
        return sb.toString();
    }

    private String baselineSummary() {
        StringBuilder s = new StringBuilder(baselines.source().toString());
        for (String lib : List.of("cupy", "torch")) {
            Object info = baselines.env().get(lib);
            if (info instanceof Map<?, ?> m) {
                Object version = m.get(lib);
                s.append("; ").append(lib).append(version == null ? " " + m : " " + version);
            }
        }
        Object time = baselines.env().get("time");
        if (time != null) s.append("; run at ").append(time);
        return s.toString();
    }

    private void table(StringBuilder sb, List<BenchRecord> rs) {
        List<String> header = new ArrayList<>(List.of("benchmark", "dtype", "n / shape", "Primer ms", "GB/s", "% copy"));
        for (String lib : COLUMNS_LIBRARIES) {
            header.add(lib + " ms");
            header.add(lib + " GB/s");
            header.add("× " + lib);
        }
        header.addAll(List.of("target", "met?", "verified"));
        sb.append('|').append(String.join("|", header)).append("|\n|");
        sb.append("---|".repeat(header.size())).append('\n');
        for (BenchRecord r : rs) {
            List<String> cells = new ArrayList<>();
            cells.add(r.name());
            cells.add(r.dtype());
            cells.add(r.shape());
            if (r.ok()) {
                cells.add(BenchFormat.ms(r.ms()));
                cells.add(BenchFormat.gbps(r.gbps()));
                cells.add(BenchFormat.percent(r.gbps() / copyGbps));
            } else {
                cells.addAll(List.of("ERROR", "–", "–"));
            }
            for (String lib : COLUMNS_LIBRARIES) {
                Baselines.Entry b = Pairing.baseline(baselines, r, lib);
                if (b == null) {
                    cells.addAll(List.of("–", "–", "–"));
                } else {
                    cells.add(BenchFormat.ms(b.ms()));
                    cells.add(BenchFormat.gbps(b.gbps()));
                    cells.add(!r.ok() || Pairing.sameSize(r, b) ? BenchFormat.ratio(Pairing.speedup(r, b)) : "other size");
                }
            }
            Targets.Verdict v = verdict(r);
            cells.add(v == null ? "" : v.target());
            cells.add(v == null ? "" : v.status().equals("met") ? "yes" : v.status().startsWith("unknown") ? "? (" + v.status().substring(9) + ")"
                    : "**NO** (" + v.status().substring(8) + ")");
            cells.add(BenchFormat.verified(r.verified()));
            sb.append('|').append(String.join("|", cells.stream().map(c -> c.replace("|", "\\|")).toList())).append("|\n");
        }
    }

    private void notes(StringBuilder sb, List<BenchRecord> rs) {
        sb.append('\n');
        for (BenchRecord r : rs) {
            String text = r.ok() ? r.note() : "ERROR " + r.error();
            StringBuilder line = new StringBuilder(text == null ? "" : text);
            for (Baselines.Entry b : baselines.forName(r.name())) {
                if (COLUMNS_LIBRARIES.contains(b.library()) && b.ok()) continue;
                line.append(line.isEmpty() ? "" : "; ").append(b.library()).append(": ");
                line.append(b.ok() ? BenchFormat.ms(b.ms()) + " ms, " + BenchFormat.gbps(b.gbps()) + " GB/s, Primer "
                        + BenchFormat.ratio(Pairing.speedup(r, b)) : "error " + b.error());
            }
            if (!line.isEmpty()) sb.append("- ").append(r.name()).append(": ").append(line).append('\n');
        }
    }

    private static void row(StringBuilder sb, String key, String value) {
        sb.append("| ").append(key).append(" | ").append(value.replace("|", "\\|")).append(" |\n");
    }
}
