package dev.primer.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

/** Runs the {@code primer} command line in-process with captured output. */
final class Cli {
    private Cli() {}

    record Result(int exitCode, String out, String err) {
        @Override public String toString() {
            return "exit " + exitCode + "\n--- stdout ---\n" + out + "--- stderr ---\n" + err;
        }
    }

    static Result run(String... args) {
        StringWriter out = new StringWriter(), err = new StringWriter();
        int code = Main.execute(new PrintWriter(out), new PrintWriter(err), args);
        return new Result(code, out.toString(), err.toString());
    }
}
