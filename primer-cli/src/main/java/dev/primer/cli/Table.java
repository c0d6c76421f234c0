package dev.primer.cli;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A plain-text table with aligned columns: numbers right-aligned, text left-aligned, a dashed rule
 * under the header. A column is numeric when every non-empty cell in it looks like a number (digits
 * with an optional sign, decimal point, exponent, unit suffix such as {@code x} or {@code %}); or force
 * it with {@link #right(int...)} / {@link #left(int...)}.
 *
 * <pre>{@code
 * Table t = new Table("step", "time (ms)");
 * t.row("K1", 8.054);
 * System.out.print(t.render());
 * }</pre>
 */
public final class Table {
    private static final Pattern NUMERIC =
            Pattern.compile("[-+]?(\\d[\\d,_]*)?(\\.\\d+)?([eE][-+]?\\d+)?\\s?(x|%|ms|s|us|ns|GB/s|MB/s|B|KiB|MiB|GiB)?|[-+]?(NaN|Infinity|inf)");

    private final String[] header;
    private final List<String[]> rows = new ArrayList<>();
    private final Boolean[] rightAligned; // null: decide from the cells
    private String indent = "";
    private int gap = 2;
    private boolean showHeader = true;

    public Table(String... header) {
        this.header = header.clone();
        this.rightAligned = new Boolean[header.length];
    }

    /** Adds a row; cells are formatted with {@link #cell(Object)}; missing cells are empty. */
    public Table row(Object... cells) {
        if (cells.length > header.length) {
            throw new IllegalArgumentException("row has " + cells.length + " cells, table has " + header.length + " columns");
        }
        String[] r = new String[header.length];
        Arrays.fill(r, "");
        for (int i = 0; i < cells.length; i++) r[i] = cell(cells[i]);
        rows.add(r);
        return this;
    }

    /** Forces the columns right-aligned. */
    public Table right(int... columns) {
        for (int c : columns) rightAligned[c] = true;
        return this;
    }

    /** Forces the columns left-aligned. */
    public Table left(int... columns) {
        for (int c : columns) rightAligned[c] = false;
        return this;
    }

    /** Prefix of every line (e.g. two spaces). */
    public Table indent(String prefix) {
        this.indent = prefix;
        return this;
    }

    /** Spaces between columns (default 2). */
    public Table gap(int spaces) {
        this.gap = spaces;
        return this;
    }

    /** Leaves out the header and its rule (for key/value listings). */
    public Table noHeader() {
        this.showHeader = false;
        return this;
    }

    public int rowCount() { return rows.size(); }

    /** The table, one line per row, each ending with a newline; trailing spaces trimmed. */
    public String render() {
        int n = header.length;
        int[] width = new int[n];
        boolean[] right = new boolean[n];
        for (int c = 0; c < n; c++) {
            width[c] = showHeader ? header[c].length() : 0;
            boolean numeric = true, any = false;
            for (String[] r : rows) {
                width[c] = Math.max(width[c], r[c].length());
                if (!r[c].isEmpty()) {
                    any = true;
                    numeric &= NUMERIC.matcher(r[c].trim()).matches();
                }
            }
            right[c] = rightAligned[c] != null ? rightAligned[c] : any && numeric;
        }
        StringBuilder out = new StringBuilder();
        if (showHeader) {
            line(out, header, width, right);
            String[] rule = new String[n];
            for (int c = 0; c < n; c++) rule[c] = "-".repeat(width[c]);
            line(out, rule, width, right);
        }
        for (String[] r : rows) line(out, r, width, right);
        return out.toString();
    }

    @Override public String toString() { return render(); }

    private void line(StringBuilder out, String[] cells, int[] width, boolean[] right) {
        StringBuilder l = new StringBuilder(indent);
        for (int c = 0; c < cells.length; c++) {
            if (c > 0) l.append(" ".repeat(gap));
            String s = cells[c];
            String pad = " ".repeat(width[c] - s.length());
            l.append(right[c] ? pad + s : s + pad);
        }
        int end = l.length();
        while (end > 0 && l.charAt(end - 1) == ' ') end--;
        out.append(l, 0, end).append('\n');
    }

    /**
     * How a value prints in a cell: null as empty, doubles with about four significant digits
     * (fixed-point, no exponent below 1e9), everything else by toString.
     */
    public static String cell(Object v) {
        return switch (v) {
            case null -> "";
            case Double d -> Format.number(d);
            case Float f -> Format.number(f);
            default -> v.toString();
        };
    }
}
