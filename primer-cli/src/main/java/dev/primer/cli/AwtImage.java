package dev.primer.cli;

import javax.imageio.ImageIO;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.AffineTransform;
import java.awt.geom.Line2D;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;

/** The java.awt side of {@link PngCanvas}: an antialiased RGB image and its Graphics2D. */
final class AwtImage {
    private final BufferedImage image;
    private final Graphics2D g;

    AwtImage(int width, int height) {
        image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        g = image.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, width, height);
    }

    void rect(double x, double y, double w, double h, String fill) {
        g.setColor(Color.decode(fill));
        g.fill(new Rectangle2D.Double(x, y, w, h));
    }

    void line(double x1, double y1, double x2, double y2, String stroke, double width, boolean dashed) {
        g.setColor(Color.decode(stroke));
        g.setStroke(dashed ? new BasicStroke((float) width, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f)
                : new BasicStroke((float) width));
        g.draw(new Line2D.Double(x1, y1, x2, y2));
    }

    void text(double x, double y, String s, double size, Canvas.Anchor anchor, String fill, double rotateDegrees, boolean bold) {
        g.setColor(Color.decode(fill));
        g.setFont(new Font(Font.SANS_SERIF, bold ? Font.BOLD : Font.PLAIN, (int) Math.round(size)));
        FontMetrics fm = g.getFontMetrics();
        int w = fm.stringWidth(s);
        double dx = switch (anchor) {
            case START -> 0;
            case MIDDLE -> -w / 2.0;
            case END -> -w;
        };
        AffineTransform saved = g.getTransform();
        g.translate(x, y);
        if (rotateDegrees != 0) g.rotate(Math.toRadians(rotateDegrees));
        g.drawString(s, (float) dx, 0f);
        g.setTransform(saved);
    }

    void save(Path file) throws IOException {
        g.dispose();
        if (!ImageIO.write(image, "png", file.toFile())) throw new IOException("no PNG writer in this Java runtime");
    }
}
