package dev.primer.cli;

import dev.primer.BackendKind;
import dev.primer.DeviceArray;
import dev.primer.Primer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code primer demo}: every primitive on seeded random data, on the best backend, each answer checked
 * against a reference, in one table. The reference is the CPU backend when the demo runs on the GPU,
 * and plain sequential Java loops ({@link DemoReference}) when it runs on the CPU.
 */
@Command(name = "demo", mixinStandardHelpOptions = true, sortOptions = false,
        header = "Run every primitive on random data, each answer checked against a reference.",
        description = {
                "Run every primitive on seeded random data on the best backend (or --backend), check each "
                        + "answer and print a table: primitive, dtype, n, time, GB/s, check.",
                "Reference: the CPU backend when running on the GPU; sequential Java loops when on the CPU. "
                        + "Integers, min/max and arg-indices must match exactly; float sums and scans within a "
                        + "relative 1e-5 (their summation order differs). Exit status 1 when any check fails.",
                ""})
public final class DemoCommand implements Callable<Integer> {

    /** Relative tolerance of float sums and scans (their summation order differs between backends). */
    static final double FLOAT_TOLERANCE = 1e-5;
    /** The largest --size: 2^32 elements are already 64 GiB of inputs, and keep DemoData's byte counts far from overflow. */
    static final long MAX_SIZE = 1L << 32;

    @Spec CommandSpec spec;

    @Option(names = "--size", paramLabel = "N", defaultValue = "24",
            description = "Elements per array: a count, an exponent (24 = 2^24), 2^24 or 16M. Default: 2^24.")
    String size;

    @Option(names = "--seed", paramLabel = "S", defaultValue = "42", description = "Random seed. Default: 42.")
    long seed;

    @Option(names = "--reps", paramLabel = "R", defaultValue = "3",
            description = "Timed runs per primitive after one warm-up; the median is shown. Default: 3.")
    int reps;

    @Override public Integer call() {
        long n = Sizes.parse(size, "--size");
        if (n > MAX_SIZE) {
            throw CliException.usage("--size " + size + " is more than the demo's " + Format.powerOfTwo(MAX_SIZE)
                    + " elements (its inputs take 16 bytes an element on the host, and again on the backend with the scans' outputs)");
        }
        Reps.check(reps);
        Main main = Main.of(spec);
        BackendKind kind = Backends.resolve(main.backend());
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();

        try (Arena arena = Arena.ofShared();
             Primer primer = Primer.open(kind);
             Primer reference = kind == BackendKind.GPU ? Primer.open(BackendKind.CPU) : null) {
            out.println("primer demo: " + Format.powerOfTwo(n) + " random elements per array (seed " + seed + ") on "
                    + primer.description());
            out.println("reference: " + (reference != null ? "the CPU backend, " + reference.description()
                    : "sequential Java loops") + "; float sums and scans within relative "
                    + Format.tolerance(FLOAT_TOLERANCE) + ", everything else exact");
            out.flush();

            DemoData data = DemoData.generate(arena, n, seed);
            List<DemoCase> cases = DemoCase.all(data);
            Table table = new Table("primitive", "dtype", "n", "time (ms)", "GB/s", "check").right(2, 3, 4);
            int failed = 0;
            try (ProgressBar bar = ProgressBar.start(err, "demo", cases.size() + 1);
                 DemoData.OnBackend mine = data.upload(primer);
                 DemoData.OnBackend theirs = reference == null ? null : data.upload(reference)) {
                bar.step("uploading " + Format.bytes(data.bytes()) + " of inputs");
                for (DemoCase c : cases) {
                    bar.step(c.primitive() + " " + c.dtype());
                    Row row = runCase(c, primer, mine, theirs, arena, main.verbose(), err);
                    if (!row.ok) failed++;
                    table.row(c.primitive(), c.dtype(), Format.count(c.n()), row.millis, row.gbps, row.check);
                }
            }
            out.print(table.render());
            out.println(failed == 0 ? "all " + cases.size() + " checks passed."
                    : failed + " of " + cases.size() + " checks FAILED.");
            out.flush();
            return failed == 0 ? ExitCode.OK : ExitCode.CHECK_FAILED;
        }
    }

    private record Row(Object millis, Object gbps, String check, boolean ok) {}

    private Row runCase(DemoCase c, Primer primer, DemoData.OnBackend mine, DemoData.OnBackend theirs,
                        Arena arena, boolean verbose, PrintWriter err) {
        try {
            Object result = c.run().apply(primer, mine);  // warm-up (kernel loading, JIT)
            double[] ms = new double[reps];
            for (int r = 0; r < reps; r++) {
                release(c, result);
                long t0 = System.nanoTime();
                result = c.run().apply(primer, mine);
                primer.synchronize();
                ms[r] = (System.nanoTime() - t0) / 1e6;
            }
            Arrays.sort(ms);
            double median = ms[reps / 2];
            Object got = materialize(c, result, arena);
            Object want;
            if (theirs != null) {
                Primer cpu = theirs.primer();
                want = materialize(c, c.run().apply(cpu, theirs), arena);
            } else {
                want = c.reference().get();
            }
            String mismatch = DemoCheck.compare(got, want, c.tolerance());
            String check = mismatch == null ? (c.tolerance() > 0 ? "ok (rel " + Format.tolerance(c.tolerance()) + ")" : "ok (exact)")
                    : "FAILED: " + mismatch;
            return new Row(median, c.bytes() / (median * 1e-3) / 1e9, check, mismatch == null);
        } catch (RuntimeException e) {
            if (verbose) e.printStackTrace(err);
            return new Row(null, null, "FAILED: " + Errors.describe(e), false);
        }
    }

    /** Frees an array a run made for itself (per-row and per-segment results). */
    private static void release(DemoCase c, Object result) {
        if (c.ownsResult() && result instanceof DeviceArray a) a.close();
    }

    /** A scalar as it is; an array downloaded into a host vector (and freed when the run made it). */
    private static Object materialize(DemoCase c, Object result, Arena arena) {
        if (!(result instanceof DeviceArray a)) return result;
        MemorySegment host = arena.allocate(Math.max(1, a.byteSize()), 8).asSlice(0, a.byteSize());
        a.copyTo(host);
        release(c, result);
        return new DemoCheck.HostVector(host, a.dtype(), a.length());
    }
}
