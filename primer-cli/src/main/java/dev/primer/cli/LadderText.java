package dev.primer.cli;

/** Text of {@code ladder ... --show}: a step's title, its story wrapped for a terminal, its source. */
final class LadderText {
    private LadderText() {}

    static final int WIDTH = 100;

    static String show(String id, String title, String story, String sourceFile, String source) {
        StringBuilder b = new StringBuilder();
        b.append(id).append(": ").append(title).append("\n\n");
        b.append(wrap(story, WIDTH)).append("\n\n");
        b.append("kernel source (").append(sourceFile).append("):\n");
        b.append("-".repeat(Math.min(WIDTH, 20 + sourceFile.length()))).append('\n');
        b.append(source);
        if (!source.endsWith("\n")) b.append('\n');
        return b.toString();
    }

    /** Greedy word wrap at {@code width} columns. */
    static String wrap(String text, int width) {
        StringBuilder out = new StringBuilder();
        int column = 0;
        for (String word : text.trim().split("\\s+")) {
            if (column > 0 && column + 1 + word.length() > width) {
                out.append('\n');
                column = 0;
            } else if (column > 0) {
                out.append(' ');
                column++;
            }
            out.append(word);
            column += word.length();
        }
        return out.toString();
    }
}
