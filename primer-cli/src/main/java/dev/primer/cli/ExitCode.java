package dev.primer.cli;

/** The exit statuses of {@code primer}, documented in {@code primer --help}. */
public final class ExitCode {
    private ExitCode() {}

    public static final int OK = 0;
    /** A verification failed: a result differed from the reference (demo, ladder, selftest). */
    public static final int CHECK_FAILED = 1;
    /** Bad usage or input: unknown command, option, op or dtype; missing or malformed file. */
    public static final int USAGE = 2;
    /** The command needs a GPU and none is usable (the reason is printed). */
    public static final int NO_GPU = 3;
    /** A runtime failure: CUDA error, out of memory, or a bug (--verbose prints the stack trace). */
    public static final int FAILURE = 4;

    /** The footer of {@code primer --help}. */
    public static final String HELP = """
            Exit codes:
              0  success
              1  a verification failed (a result differed from the reference)
              2  bad usage or input: unknown command, option, op or dtype; missing or malformed file
              3  a GPU is needed and none is usable (the reason is printed)
              4  runtime failure: CUDA error, out of memory, internal error (--verbose shows the stack trace)""";
}
