package dev.primer.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/** A {@link Canvas} that writes SVG 1.1 text by hand. */
final class SvgCanvas implements Canvas {
    private final int width, height;
    private final StringBuilder body = new StringBuilder();

    SvgCanvas(int width, int height) {
        this.width = width;
        this.height = height;
    }

    @Override public void rect(double x, double y, double w, double h, String fill) {
        body.append(String.format(Locale.ROOT, "  <rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>%n",
                x, y, w, h, fill));
    }

    @Override public void line(double x1, double y1, double x2, double y2, String stroke, double width, boolean dashed) {
        body.append(String.format(Locale.ROOT, "  <line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"%.1f\"%s/>%n",
                x1, y1, x2, y2, stroke, width, dashed ? " stroke-dasharray=\"6,4\"" : ""));
    }

    @Override public void text(double x, double y, String s, double size, Anchor anchor, String fill, double rotateDegrees, boolean bold) {
        String a = switch (anchor) {
            case START -> "start";
            case MIDDLE -> "middle";
            case END -> "end";
        };
        String rotate = rotateDegrees == 0 ? "" : String.format(Locale.ROOT, " transform=\"rotate(%.1f %.1f %.1f)\"", rotateDegrees, x, y);
        body.append(String.format(Locale.ROOT, "  <text x=\"%.1f\" y=\"%.1f\" font-size=\"%.1f\" text-anchor=\"%s\" fill=\"%s\"%s%s>%s</text>%n",
                x, y, size, a, fill, bold ? " font-weight=\"bold\"" : "", rotate, escape(s)));
    }

    @Override public void save(Path file) throws IOException {
        Files.writeString(file, render(), StandardCharsets.UTF_8);
    }

    String render() {
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                + "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" + width + "\" height=\"" + height
                + "\" viewBox=\"0 0 " + width + " " + height + "\" font-family=\"Helvetica, Arial, sans-serif\">\n"
                + "  <rect x=\"0\" y=\"0\" width=\"" + width + "\" height=\"" + height + "\" fill=\"#ffffff\"/>\n"
                + body + "</svg>\n";
    }

    static String escape(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (char c : s.toCharArray()) {
            switch (c) {
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '&' -> b.append("&amp;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&apos;");
                default -> { if (c >= 0x20 || c == '\t' || c == '\n') b.append(c); }
            }
        }
        return b.toString();
    }
}
