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
        checkFile(file);
        return isSvg(file) ? new SvgCanvas(width, height) : PngCanvas.create(width, height);
    }

    /** Exit 2 naming --plot unless the file is .svg, or .png on a runtime that can draw PNG. */
    static void checkFile(Path file) {
        if (isSvg(file)) return;
        if (!name(file).endsWith(".png")) throw CliException.usage("--plot " + file + ": the file name must end in .svg or .png");
        if (ModuleLayer.boot().findModule("java.desktop").isEmpty() && !PngCanvas.desktopOnClassPath()) {
            throw CliException.usage("this Java runtime has no java.desktop module, so it cannot write PNG;"
                    + " use --plot " + swapExtension(file, ".svg") + " (SVG needs nothing extra)");
        }
    }

    private static boolean isSvg(Path file) { return name(file).endsWith(".svg"); }

    private static String name(Path file) {
        Path name = file.getFileName();  // null for "/"
        return name == null ? "" : name.toString().toLowerCase(java.util.Locale.ROOT);
    }

    private static String swapExtension(Path file, String extension) {
        String s = file.toString();
        int dot = s.lastIndexOf('.');
        return (dot > 0 ? s.substring(0, dot) : s) + extension;
    }
}
