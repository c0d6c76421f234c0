package dev.primer.cli;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A {@link Canvas} drawing into a java.awt BufferedImage off-screen (headless) and writing PNG with
 * ImageIO. The AWT classes are touched only inside {@link AwtImage}, so a runtime without java.desktop
 * can still load this class and report the problem instead of failing with NoClassDefFoundError.
 */
final class PngCanvas implements Canvas {
    private final AwtImage image;

    private PngCanvas(AwtImage image) { this.image = image; }

    static PngCanvas create(int width, int height) {
        System.setProperty("java.awt.headless", "true");
        try {
            return new PngCanvas(new AwtImage(width, height));
        } catch (LinkageError | UnsupportedOperationException e) {
            throw CliException.usage("cannot draw PNG in this Java runtime (" + Errors.describe(e)
                    + "); write SVG instead: --plot FILE.svg");
        }
    }

    /** Whether java.awt is reachable at all (a class-path JDK without modules still counts). */
    static boolean desktopOnClassPath() {
        try {
            Class.forName("java.awt.image.BufferedImage", false, PngCanvas.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    @Override public void rect(double x, double y, double w, double h, String fill) { image.rect(x, y, w, h, fill); }

    @Override public void line(double x1, double y1, double x2, double y2, String stroke, double width, boolean dashed) {
        image.line(x1, y1, x2, y2, stroke, width, dashed);
    }

    @Override public void text(double x, double y, String s, double size, Anchor anchor, String fill, double rotateDegrees, boolean bold) {
        image.text(x, y, s, size, anchor, fill, rotateDegrees, bold);
    }

    @Override public void save(Path file) throws IOException { image.save(file); }
}
