package dev.primer.cli;

import java.io.Console;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * Progress of a long task on stderr. On a terminal: one line rewritten in place with {@code \r}
 * ({@code [=====>    ]  45%  3/7 K3 sequential addressing  2.1 s}), redrawn at most every 100 ms
 * and erased by {@link #close()}. Elsewhere (redirected, CI, tests): a plain log line per step, so
 * logs stay readable and carry no control characters.
 *
 * <pre>{@code
 * try (ProgressBar bar = ProgressBar.start(err, "ladder reduce", 12)) {
 *     runner.run(..., bar::step);   // each message: one step done and the next one named
 * }
 * }</pre>
 */
public final class ProgressBar implements AutoCloseable, Consumer<String> {
    private static final int WIDTH = 24;
    private static final long REDRAW_NANOS = 100_000_000L;

    private final PrintWriter err;
    private final String task;
    private final long total;
    private final boolean terminal;
    private final boolean quiet;
    private final long startNanos = System.nanoTime();
    private long done;
    private String label = "";
    private long lastDrawNanos;
    private int lastLength;
    private boolean closed;

    private ProgressBar(PrintWriter err, String task, long total, boolean terminal, boolean quiet) {
        this.err = err;
        this.task = task;
        this.total = total;
        this.terminal = terminal;
        this.quiet = quiet;
    }

    /**
     * A bar for {@code total} steps (0 or less when unknown: no percentage) of {@code task}, drawn in
     * place when stdin/stdout are a terminal, else as plain lines on {@code err}.
     */
    public static ProgressBar start(PrintWriter err, String task, long total) {
        return new ProgressBar(err, task, total, isTerminal(), false);
    }

    /** A bar that prints nothing (for --json runs whose stderr a script may read, or for tests). */
    public static ProgressBar silent() { return new ProgressBar(new PrintWriter(java.io.Writer.nullWriter()), "", 0, false, true); }

    /** Whether a terminal is attached (JDK 22+: System.console() exists even when redirected). */
    public static boolean isTerminal() {
        Console c = System.console();
        return c != null && c.isTerminal();
    }

    /** Names the step now running; every call after the first counts the previous step as done. */
    public synchronized void step(String name) {
        if (closed || quiet) return;
        if (!label.isEmpty() || done > 0) done++;
        label = name == null ? "" : name;
        if (terminal) {
            draw(true);
        } else {
            String count = total > 0 ? " (" + Math.min(done + 1, total) + "/" + total + ")" : "";
            err.println("[primer] " + task + count + ": " + label);
            err.flush();
        }
    }

    /** A step message from a runner's {@code Consumer<String>} progress callback. */
    @Override public void accept(String message) { step(message); }

    /** Sets the fraction done directly (for tasks measured in units rather than named steps). */
    public synchronized void update(long unitsDone, String name) {
        if (closed || quiet) return;
        boolean newLabel = name != null && !name.equals(label);
        done = unitsDone;
        if (name != null) label = name;
        if (terminal) {
            draw(newLabel);
        } else if (newLabel) {
            err.println("[primer] " + task + ": " + label);
            err.flush();
        }
    }

    private void draw(boolean force) {
        long now = System.nanoTime();
        if (!force && now - lastDrawNanos < REDRAW_NANOS) return;
        lastDrawNanos = now;
        StringBuilder line = new StringBuilder();
        line.append(task).append(' ');
        if (total > 0) {
            double f = Math.min(1.0, (double) done / total);
            int filled = (int) Math.round(f * WIDTH);
            line.append('[').append("=".repeat(filled));
            if (filled < WIDTH) line.append('>').append(" ".repeat(WIDTH - filled - 1));
            line.append("] ").append(String.format(Locale.ROOT, "%3d%%", (int) Math.floor(f * 100))).append(' ');
        }
        line.append(label);
        line.append("  ").append(String.format(Locale.ROOT, "%.1f s", (now - startNanos) / 1e9));
        String s = line.length() > 118 ? line.substring(0, 117) + "…" : line.toString();
        int pad = Math.max(0, lastLength - s.length());
        err.print("\r" + s + " ".repeat(pad));
        err.flush();
        lastLength = s.length();
    }

    /** Erases the bar (terminal) so the command's own output starts on a clean line. Idempotent. */
    @Override public synchronized void close() {
        if (closed) return;
        closed = true;
        if (terminal && !quiet && lastLength > 0) {
            err.print("\r" + " ".repeat(lastLength) + "\r");
            err.flush();
        }
    }
}
