package dev.primer.cli;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The few drawing operations a chart needs, so one layout renders to SVG ({@link SvgCanvas}, no
 * dependencies) or PNG ({@link PngCanvas}, java.awt off-screen). Coordinates in pixels, y downwards;
 * colours as {@code #rrggbb}.
 */
interface Canvas {
    enum Anchor { START, MIDDLE, END }

    void rect(double x, double y, double w, double h, String fill);

    void line(double x1, double y1, double x2, double y2, String stroke, double width, boolean dashed);

    /** Text with its baseline at y; rotated (degrees, counter-clockwise negative) about (x, y). */
    void text(double x, double y, String s, double size, Anchor anchor, String fill, double rotateDegrees, boolean bold);

    /** Writes the drawing to {@code file}. */
    void save(Path file) throws IOException;

    /** A canvas for the file's extension: .svg or .png. */
    static Canvas forFile(Path file, int width, int height) {
        String name = file.getFileName().toString().toLowerCase(java.util.Locale.ROOT);
        if (name.endsWith(".svg")) return new SvgCanvas(width, height);
        if (name.endsWith(".png")) {
            if (ModuleLayer.boot().findModule("java.desktop").isEmpty() && !PngCanvas.desktopOnClassPath()) {
                throw CliException.usage("this Java runtime has no java.desktop module, so it cannot write PNG;"
                        + " use --plot " + swapExtension(file, ".svg") + " (SVG needs nothing extra)");
            }
            return PngCanvas.create(width, height);
        }
        throw CliException.usage("--plot " + file + ": the file name must end in .svg or .png");
    }

    private static String swapExtension(Path file, String extension) {
        String s = file.toString();
        int dot = s.lastIndexOf('.');
        return (dot > 0 ? s.substring(0, dot) : s) + extension;
    }
}
