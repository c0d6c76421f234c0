package dev.primer.cli.bench;

import dev.primer.BackendKind;
import dev.primer.Primer;
import dev.primer.cli.Backends;
import dev.primer.cli.CliException;
import dev.primer.cli.Errors;
import dev.primer.cli.ExitCode;
import dev.primer.cli.Main;
import dev.primer.cuda.Cuda;
import dev.primer.cuda.CudaContext;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * {@code primer bench}: Primer's primitives timed on the GPU the way bench/baselines.py times CuPy
 * and PyTorch (CUDA events, warm-up, median, random inputs beyond L2), verified, paired with the
 * baselines by name, judged against the targets, and written as JSON and Markdown.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "Benchmark Primer on the GPU: launch overhead, transfers and copy bandwidth (foundation), "
                + "reduce, rows, segments, scan, sizes (sum, scan and scan by offsets at 2^16, 2^20, 2^24), custom. Each result "
                + "is verified, compared with the CuPy and PyTorch baselines of bench/baselines.py when given, "
                + "and judged against the targets. Writes "
                + "<out-dir>/<date>-<gpu>.json and .md and prints the report. Exit 1 if a result was wrong "
                + "or a benchmark failed, 3 without a GPU.")
public final class BenchCommand implements Callable<Integer> {

    @Option(names = "--baselines", paramLabel = "FILE.json",
            description = "Baseline records from bench/baselines.py --out, to compare with.")
    Path baselinesFile;

    @Option(names = "--out-dir", paramLabel = "DIR", defaultValue = "bench/results",
            description = "Where the JSON and Markdown reports go (default: ${DEFAULT-VALUE}).")
    Path outDir;

    @Option(names = "--quick", description = "5 timed runs instead of 20, and baselines.py --quick sizes (2^24).")
    boolean quick;

    @Option(names = "--only", split = ",", paramLabel = "GROUP",
            description = "Only these groups: foundation, reduce, rows, segments, scan, sizes, custom.")
    List<String> only;

    @Option(names = "--match", paramLabel = "REGEX",
            description = "Only the benchmarks whose name this regular expression finds, e.g. 'argmax_scan|segargmax' "
                    + "(within the --only groups; the copy and read yardsticks always run).")
    String match;

    @Option(names = "--segments", paramLabel = "FILE.npy",
            description = "int64 segment offsets (baselines.py --segments-out), so both sides reduce the same segments.")
    Path segmentsFile;

    @Spec CommandSpec spec;

    @Override
    public Integer call() {
        // Everything that can be checked without the GPU is, before the benchmarks' minutes of work.
        Set<String> groups = groups();
        Pattern pattern = pattern();
        Baselines baselines = baselinesFile == null ? Baselines.none() : loadBaselines();
        if (segmentsFile != null && !Files.isReadable(segmentsFile)) throw CliException.usage("cannot read --segments " + segmentsFile);
        checkOutDir();
        Backends.requireGpuOnly(Main.of(spec).backend(), "bench", "");

        PrintWriter out = spec.commandLine().getOut();
        PrintWriter progress = spec.commandLine().getErr();
        CudaContext ctx = Cuda.context();
        List<BenchRecord> records = new ArrayList<>();
        double copyGbps, readGbps;
        BenchEnvironment env;
        try (Primer gpu = Primer.open(BackendKind.GPU)) {
            BenchSetup s = new BenchSetup(ctx, gpu, quick, segmentsFile, pattern, progress);
            env = BenchEnvironment.of(ctx.device(), quick, s.reps());
            s.say("primer bench on " + gpu.description() + (quick ? " (--quick)" : "") + ", groups " + String.join(",", groups));
            // The copy and read bandwidths are the tables' yardsticks: measured first, whatever the groups.
            BenchRecord copy = FoundationBench.copy(s);
            BenchRecord read = FoundationBench.read(s);
            copyGbps = copy.ok() ? copy.gbps() : Double.NaN;
            readGbps = read.ok() && Boolean.TRUE.equals(read.verified()) ? read.gbps() : Double.NaN;
            if (groups.contains(FoundationBench.GROUP)) records.addAll(FoundationBench.run(s, copy, read));
            else records.addAll(List.of(copy, read));
            if (groups.contains(ReduceBench.GROUP)) records.addAll(ReduceBench.run(s));
            if (groups.contains(RowsBench.GROUP)) records.addAll(RowsBench.run(s));
            if (groups.contains(SegmentsBench.GROUP)) records.addAll(SegmentsBench.run(s));
            if (groups.contains(ScanBench.GROUP)) records.addAll(ScanBench.run(s));
            if (groups.contains(SizesBench.GROUP)) records.addAll(SizesBench.run(s));
            if (groups.contains(CustomBench.GROUP)) records.addAll(CustomBench.run(s));
            records.removeIf(r -> r == BenchRecord.NOT_SELECTED);
        }

        // The report is printed before the files are written, so a failed write loses no results.
        BenchReport report = new BenchReport(env, records, baselines, copyGbps, readGbps);
        out.print(report.markdown());
        out.println();
        out.flush();
        int status = write(report);
        long wrong = records.stream().filter(r -> Boolean.FALSE.equals(r.verified())).count();
        long failed = records.stream().filter(r -> !r.ok()).count();
        if (wrong + failed > 0) {
            out.println("bench: " + wrong + " wrong result(s), " + failed + " benchmark(s) failed to run");
            return ExitCode.CHECK_FAILED;
        }
        return status;
    }

    /**
     * Writes (and deletes) a file in --out-dir, or in its nearest existing parent, which the report will
     * create it in: one that cannot hold the report fails now, not after the run. (Permissions alone do
     * not tell: root may "write" /proc.)
     */
    private void checkOutDir() {
        Path dir = outDir.toAbsolutePath();
        while (!Files.exists(dir) && dir.getParent() != null) dir = dir.getParent();
        try {
            Files.delete(Files.createTempFile(dir, ".primer-bench-", ".tmp"));
        } catch (IOException e) {
            String why = e instanceof FileSystemException f && f.getReason() != null ? f.getReason() : e.getClass().getSimpleName();
            throw CliException.usage("--out-dir " + outDir + ": cannot create files in " + dir + " (" + why + ")");
        }
    }

    /** Writes the JSON and Markdown files; exit 2 naming --out-dir when they cannot be written. */
    private int write(BenchReport report) {
        try {
            Path[] files = report.write(outDir);
            spec.commandLine().getOut().println("wrote " + files[0]);
            spec.commandLine().getOut().println("wrote " + files[1]);
            return ExitCode.OK;
        } catch (IOException e) {
            spec.commandLine().getErr().println(spec.qualifiedName() + ": cannot write the report to --out-dir " + outDir
                    + ": " + Errors.explain(e));
            return ExitCode.USAGE;
        }
    }

    private Set<String> groups() {
        if (only == null || only.isEmpty()) return new LinkedHashSet<>(BenchReport.GROUPS);
        Set<String> wanted = new LinkedHashSet<>();
        for (String g : only) {
            String name = g.trim().toLowerCase(Locale.ROOT);
            if (!BenchReport.GROUPS.contains(name)) {
                throw CliException.usage("unknown group '" + g + "' in --only: expected " + String.join(", ", BenchReport.GROUPS));
            }
            wanted.add(name);
        }
        return wanted;
    }

    private Pattern pattern() {
        if (match == null) return null;
        try {
            return Pattern.compile(match);
        } catch (PatternSyntaxException e) {
            throw CliException.usage("--match '" + match + "' is not a regular expression: " + e.getDescription());
        }
    }

    private Baselines loadBaselines() {
        try {
            return Baselines.load(baselinesFile);
        } catch (IOException | IllegalArgumentException e) {
            throw CliException.usage("cannot read --baselines " + baselinesFile + ": " + e.getMessage());
        }
    }
}
