package dev.primer.ladder;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A ladder step's kernel source as the jar packs it: the step's header, then each ladder header it
 * includes, directly or not (each once, under a separator line), so a printed step is complete: a
 * helper an earlier step defined is printed beside the kernel that calls it.
 */
final class LadderSource {
    /** Where the build packs the ladder's headers on the class path. */
    static final String ROOT = "dev/primer/cuda-src/ladder/";
    private static final Pattern LADDER_INCLUDE =
            Pattern.compile("^#include \"((?:reduce|scan)_[a-z0-9_]+\\.cuh)\"", Pattern.MULTILINE);

    private LadderSource() {}

    /** {@code file} (a name under {@link #ROOT}) followed by the ladder headers it includes. */
    static String withIncludes(String file) {
        StringBuilder text = new StringBuilder();
        append(file, text, new HashSet<>());
        return text.toString();
    }

    private static void append(String file, StringBuilder text, Set<String> seen) {
        if (!seen.add(file)) return;
        String body = read(ROOT + file);
        if (!text.isEmpty()) text.append("\n// ---- ladder/").append(file).append(" ----\n\n");
        text.append(body);
        Matcher m = LADDER_INCLUDE.matcher(body);
        while (m.find()) append(m.group(1), text, seen);
    }

    private static String read(String resource) {
        try (InputStream in = LadderSource.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) throw new IllegalStateException("kernel source " + resource + " is not on the class path");
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read kernel source " + resource, e);
        }
    }
}
