package dev.primer.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.Callable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** An Error escapes picocli's handler (it takes Exceptions): Main still prints the command's line and exit 4. */
class OutOfMemoryTest {

    @Command(name = "boom")
    static final class Boom implements Callable<Integer> {
        final OutOfMemoryError error;

        Boom(OutOfMemoryError error) { this.error = error; }

        @Override public Integer call() { throw error; }
    }

    private static Cli.Result run(OutOfMemoryError error) {
        CommandLine cl = Main.commandLine();
        cl.addSubcommand(new CommandLine(new Boom(error)));
        StringWriter out = new StringWriter(), err = new StringWriter();
        int code = Main.execute(cl, new PrintWriter(out), new PrintWriter(err), "boom");
        return new Cli.Result(code, out.toString(), err.toString());
    }

    @Test void heapExhaustionNamesTheCommandAndHowToRaiseTheHeap() {
        Cli.Result r = run(new OutOfMemoryError("Java heap space"));
        assertEquals(4, r.exitCode(), r::toString);
        assertTrue(r.err().startsWith("primer boom: out of Java heap memory (Java heap space); raise it with JAVA_TOOL_OPTIONS=-Xmx"),
                r::toString);
    }

    @Test void nativeMemoryGetsNoHeapHint() {
        Cli.Result r = run(new OutOfMemoryError("Unable to allocate 4398046511152 bytes"));
        assertEquals(4, r.exitCode(), r::toString);
        assertTrue(r.err().startsWith("primer boom: out of memory (Unable to allocate 4398046511152 bytes); use a smaller input"),
                r::toString);
        assertTrue(!r.err().contains("-Xmx"), r::toString);
    }
}
