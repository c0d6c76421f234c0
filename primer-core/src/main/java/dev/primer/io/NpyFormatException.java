package dev.primer.io;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A {@code .npy} file that is malformed or uses a feature Primer does not read (Fortran order,
 * unsigned or structured dtypes, ...). It is an {@link IOException}: the file, not the caller's
 * arguments, is at fault. The message names the file and the problem.
 */
public class NpyFormatException extends IOException {
    private static final long serialVersionUID = 1L;

    private final transient Path file;
    private final String problem;

    public NpyFormatException(Path file, String problem) {
        super(file + ": " + problem);
        this.file = file;
        this.problem = problem;
    }

    /** The file that could not be read. */
    public Path file() { return file; }

    /** What is wrong with it, without the file name. */
    public String problem() { return problem; }
}
