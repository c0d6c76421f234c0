package dev.primer.cli.bench;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.Callable;
import java.util.function.Supplier;

/**
 * Runs one benchmark so that nothing it throws stops the others: a missing primitive
 * (NoClassDefFoundError), a failing kernel or an out-of-memory becomes a record with the error,
 * printed at once. Each benchmark's result line is printed as it finishes. A benchmark that --match
 * leaves out does not run: its place holds {@link BenchRecord#NOT_SELECTED}, which the report drops.
 */
final class Guard {
    private Guard() {}

    static BenchRecord run(BenchSetup s, String group, String name, String dtype, String shape, Callable<BenchRecord> body) {
        if (!s.selected(name)) return BenchRecord.NOT_SELECTED;
        BenchRecord r;
        try {
            r = body.call();
        } catch (Throwable t) {
            if (t instanceof VirtualMachineError && !(t instanceof OutOfMemoryError)) throw (VirtualMachineError) t;
            r = BenchRecord.failed(group, name, dtype, shape, t);
            s.log().print("  " + name + ": ERROR ");
            t.printStackTrace(s.log());
            try {
                s.ctx().synchronize(); // let a failed sequence drain so the next benchmark starts clean
            } catch (Throwable ignored) {
                // a sticky CUDA error: the following benchmarks will record it too
            }
        }
        s.say(BenchFormat.line(r));
        return r;
    }

    /** Host memory for a benchmark, or null when it cannot be had (the benchmark then records why). */
    static MemorySegment hostOrNull(Supplier<MemorySegment> allocate) {
        try {
            return allocate.get();
        } catch (OutOfMemoryError | RuntimeException e) {
            return null;
        }
    }
}
