package dev.primer.cli;

import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

class ProgressBarTest {

    @Test void withoutATerminalEachStepIsOnePlainLine() {
        StringWriter w = new StringWriter();
        try (ProgressBar bar = ProgressBar.start(new PrintWriter(w), "task", 2)) {
            bar.step("first");
            bar.accept("second");
        }
        if (ProgressBar.isTerminal()) return; // run from an interactive shell: the bar draws in place instead
        assertEquals("[primer] task (1/2): first\n[primer] task (2/2): second\n", w.toString().replace("\r\n", "\n"));
        assertFalse(w.toString().contains("\r"));
    }

    @Test void silentPrintsNothing() {
        try (ProgressBar bar = ProgressBar.silent()) {
            bar.step("x");
            bar.update(3, "y");
        }
    }
}
