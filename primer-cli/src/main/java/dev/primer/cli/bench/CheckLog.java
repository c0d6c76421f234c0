package dev.primer.cli.bench;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

/**
 * The self-test's ledger: one line per check ("ok" or "FAIL", its name, a detail), and the counts for
 * the final "selftest: N passed, M failed" line. A check that throws fails with the exception named,
 * and the run goes on; one that a backend declines (UnsupportedOperationException, or an
 * IllegalArgumentException saying "not supported") is listed as skipped and counted apart.
 */
final class CheckLog {
    private final PrintWriter out;
    private final boolean verbose;
    private int passed;
    private int failed;
    private int skipped;

    CheckLog(PrintWriter out, boolean verbose) {
        this.out = out;
        this.verbose = verbose;
    }

    /** Runs a check; its body returns null when it passed, else what was wrong. */
    void check(String name, Callable<String> body) {
        String problem;
        try {
            problem = body.call();
        } catch (UnsupportedOperationException | IllegalArgumentException e) {
            if (e instanceof IllegalArgumentException && !String.valueOf(e.getMessage()).contains("not supported")) {
                problem = "threw IllegalArgumentException: " + e.getMessage();
                if (verbose) e.printStackTrace(out);
            } else {
                // The facade accepts it, a backend declines it (e.g. an int8 user-defined operator on the GPU): a gap, not a wrong answer.
                skipped++;
                out.println("skip  " + name + ": " + e.getMessage());
                out.flush();
                return;
            }
        } catch (Throwable t) {
            if (t instanceof VirtualMachineError && !(t instanceof OutOfMemoryError)) throw (VirtualMachineError) t;
            problem = "threw " + t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
            if (verbose) t.printStackTrace(out);
        }
        record(name, problem);
    }

    void record(String name, String problem) {
        if (problem == null) {
            passed++;
            out.println("ok    " + name);
        } else {
            failed++;
            out.println("FAIL  " + name + ": " + problem);
        }
        out.flush();
    }

    /** A part that could not run at all (a missing class, a module that failed to load). */
    void skippedPart(String part, Throwable why) {
        record(part, "could not run: " + why.getClass().getSimpleName() + (why.getMessage() == null ? "" : ": " + why.getMessage()));
    }

    void note(String line) {
        out.println("#     " + line);
        out.flush();
    }

    int passed() { return passed; }

    int failed() { return failed; }

    int skipped() { return skipped; }

    String summary() { return "selftest: " + passed + " passed, " + failed + " failed"; }
}
