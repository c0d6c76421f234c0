package dev.primer.cli;

/** A failure the user can act on: printed as one line ("primer run: ...") with its exit code. */
public final class CliException extends RuntimeException {
    private final int exitCode;

    public CliException(int exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }

    public CliException(int exitCode, String message, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    /** Bad usage or input (exit 2). */
    public static CliException usage(String message) { return new CliException(ExitCode.USAGE, message); }

    /** No usable GPU (exit 3). */
    public static CliException noGpu(String message) { return new CliException(ExitCode.NO_GPU, message); }

    public int exitCode() { return exitCode; }
}
