package dev.primer.cli;

import dev.primer.PrimerException;
import dev.primer.io.NpyFormatException;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;

/**
 * Turns a failure into one line on stderr ("primer run: no such file: data.npy") and an exit code
 * (see {@link ExitCode}); the stack trace only with --verbose.
 */
public final class Errors implements CommandLine.IExecutionExceptionHandler {

    /** What a failure means for the user: its exit code and the line to print. */
    record Failure(int exitCode, String message) {}

    @Override
    public int handleExecutionException(Exception ex, CommandLine cl, ParseResult parseResult) {
        return report(ex, cl);
    }

    /** Prints the failure's line, prefixed with the command's name ("primer run: ..."), and returns its exit code. */
    static int report(Throwable ex, CommandLine cl) {
        Failure f = classify(ex);
        PrintWriter err = cl.getErr();
        err.println(cl.getCommandSpec().qualifiedName() + ": " + f.message());
        if (verbose(cl)) {
            ex.printStackTrace(err);
        } else if (f.exitCode() == ExitCode.FAILURE) {
            err.println("(run again with --verbose for the stack trace)");
        }
        err.flush();
        return f.exitCode();
    }

    /** Bad options or arguments: the message, a suggestion when there is one, and where to find help. */
    static int usage(ParameterException ex, String[] args) {
        CommandLine cl = ex.getCommandLine();
        PrintWriter err = cl.getErr();
        err.println(cl.getCommandSpec().qualifiedName() + ": " + ex.getMessage());
        if (ex instanceof UnmatchedArgumentException u) UnmatchedArgumentException.printSuggestions(u, err);
        err.println("Try '" + cl.getCommandSpec().qualifiedName() + " --help' for usage.");
        if (verbose(cl)) ex.printStackTrace(err);
        err.flush();
        return ExitCode.USAGE;
    }

    static Failure classify(Throwable ex) {
        return switch (ex) {
            case CliException c -> new Failure(c.exitCode(), c.getMessage());
            case NoSuchFileException e -> new Failure(ExitCode.USAGE, "no such file: " + e.getFile());
            case AccessDeniedException e -> new Failure(ExitCode.USAGE, "permission denied: " + e.getFile());
            case NpyFormatException e -> new Failure(ExitCode.USAGE, describe(e));
            case FileSystemException e -> new Failure(ExitCode.USAGE, e.getFile() != null
                    ? e.getFile() + ": " + (e.getReason() != null ? e.getReason() : e.getClass().getSimpleName())
                    : describe(e));
            case IOException e -> new Failure(ExitCode.USAGE, describe(e));
            case IllegalStateException e when e.getMessage() != null && e.getMessage().startsWith("no usable GPU") ->
                    new Failure(ExitCode.NO_GPU, e.getMessage());
            case ArithmeticException e -> new Failure(ExitCode.USAGE, describe(e));
            case IllegalArgumentException e -> new Failure(ExitCode.USAGE, describe(e));
            case IndexOutOfBoundsException e -> new Failure(ExitCode.USAGE, describe(e));
            case UnsupportedOperationException e -> new Failure(ExitCode.USAGE, "not supported: " + describe(e));
            case PrimerException e -> new Failure(ExitCode.FAILURE, describe(e));
            case OutOfMemoryError e -> new Failure(ExitCode.FAILURE, outOfMemory(e));
            default -> new Failure(ExitCode.FAILURE, "internal error: " + ex.getClass().getName()
                    + (ex.getMessage() != null ? ": " + ex.getMessage() : ""));
        };
    }

    /** The line for a failure, as the command would print it after "primer COMMAND: ". */
    public static String explain(Throwable t) { return classify(t).message(); }

    /** Only the heap can be raised with -Xmx; native memory ("Unable to allocate N bytes") cannot. */
    private static String outOfMemory(OutOfMemoryError e) {
        String m = describe(e);
        if (m.contains("Java heap") || m.contains("array size")) {
            return "out of Java heap memory (" + m + "); raise it with JAVA_TOOL_OPTIONS=-Xmx..., or use a smaller input";
        }
        return "out of memory (" + m + "); use a smaller input";
    }

    /** The exception's message, or its class name when it has none. */
    static String describe(Throwable t) {
        String m = t.getMessage();
        return m == null || m.isBlank() ? t.getClass().getSimpleName() : m;
    }

    private static boolean verbose(CommandLine cl) {
        try {
            return Main.of(cl.getCommandSpec()).verbose();
        } catch (RuntimeException e) {
            return false;
        }
    }
}
