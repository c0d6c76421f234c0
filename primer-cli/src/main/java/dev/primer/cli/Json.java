package dev.primer.cli;

import java.lang.reflect.Array;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A tiny JSON writer for the commands' {@code --json} output: an ordered object built with
 * {@link #put}, printed by {@link #toString()} (pretty, two-space indent) or {@link #compact()}.
 *
 * <pre>{@code
 * Json.object().put("op", "sum").put("n", 1024L).put("items", List.of(1, 2)).toString()
 * }</pre>
 *
 * <p>Values: String, Character, Number, Boolean, null, Enum (its toString), Json, Map (keys by
 * toString), Collection, arrays (primitive or not). Non-finite floats (NaN, ±Infinity), which JSON
 * cannot express as numbers, are written as the strings "NaN", "Infinity", "-Infinity". Anything else
 * is written as its toString() in quotes.
 */
public final class Json {
    private final Map<String, Object> fields = new LinkedHashMap<>();

    private Json() {}

    /** A new, empty object. */
    public static Json object() { return new Json(); }

    /** Sets {@code key} (insertion order is kept; putting a key again replaces its value in place). */
    public Json put(String key, Object value) {
        fields.put(Objects.requireNonNull(key, "key"), value);
        return this;
    }

    /** The value put under {@code key}, or null. */
    public Object get(String key) { return fields.get(key); }

    public boolean has(String key) { return fields.containsKey(key); }

    /** Pretty-printed, two-space indent, no trailing newline. */
    @Override public String toString() {
        StringBuilder out = new StringBuilder();
        write(out, this, 0, true);
        return out.toString();
    }

    /** On one line, no spaces. */
    public String compact() {
        StringBuilder out = new StringBuilder();
        write(out, this, 0, false);
        return out.toString();
    }

    /** Any supported value as compact JSON text. */
    public static String valueToString(Object value) {
        StringBuilder out = new StringBuilder();
        write(out, value, 0, false);
        return out.toString();
    }

    /** {@code s} as a JSON string literal, quotes included. */
    public static String quote(String s) {
        StringBuilder out = new StringBuilder(s.length() + 2);
        quote(out, s);
        return out.toString();
    }

    // ------------------------------------------------------------------ writing

    private static void write(StringBuilder out, Object v, int depth, boolean pretty) {
        switch (v) {
            case null -> out.append("null");
            case String s -> quote(out, s);
            case Character c -> quote(out, c.toString());
            case Boolean b -> out.append(b);
            case Double d -> number(out, d, d.toString());
            case Float f -> number(out, f, f.toString());
            case BigDecimal b -> out.append(b.toString());
            case BigInteger b -> out.append(b);
            case Number n -> out.append(n); // Long, Integer, Short, Byte, AtomicLong, ...: plain digits
            case Enum<?> e -> quote(out, e.toString());
            case Json j -> members(out, j.fields, depth, pretty);
            case Map<?, ?> m -> members(out, m, depth, pretty);
            case Collection<?> c -> elements(out, c, depth, pretty);
            default -> {
                if (v.getClass().isArray()) {
                    int n = Array.getLength(v);
                    java.util.List<Object> list = new java.util.ArrayList<>(n);
                    for (int i = 0; i < n; i++) list.add(Array.get(v, i));
                    elements(out, list, depth, pretty);
                } else {
                    quote(out, v.toString());
                }
            }
        }
    }

    private static void number(StringBuilder out, double value, String text) {
        if (Double.isNaN(value) || Double.isInfinite(value)) quote(out, text); // "NaN", "Infinity", "-Infinity"
        else out.append(text);
    }

    private static void members(StringBuilder out, Map<?, ?> map, int depth, boolean pretty) {
        if (map.isEmpty()) {
            out.append("{}");
            return;
        }
        out.append('{');
        boolean first = true;
        for (Map.Entry<?, ?> e : map.entrySet()) {
            if (!first) out.append(',');
            first = false;
            newline(out, depth + 1, pretty);
            quote(out, String.valueOf(e.getKey()));
            out.append(pretty ? ": " : ":");
            write(out, e.getValue(), depth + 1, pretty);
        }
        newline(out, depth, pretty);
        out.append('}');
    }

    private static void elements(StringBuilder out, Collection<?> items, int depth, boolean pretty) {
        if (items.isEmpty()) {
            out.append("[]");
            return;
        }
        // Short lists of scalars stay on one line even when pretty: tables of numbers read better.
        boolean flat = pretty && items.stream().allMatch(x -> x == null || x instanceof Number || x instanceof Boolean)
                && items.size() <= 16;
        out.append('[');
        boolean first = true;
        for (Object item : items) {
            if (!first) out.append(flat ? ", " : ",");
            first = false;
            if (!flat) newline(out, depth + 1, pretty);
            write(out, item, depth + 1, pretty);
        }
        if (!flat) newline(out, depth, pretty);
        out.append(']');
    }

    private static void newline(StringBuilder out, int depth, boolean pretty) {
        if (!pretty) return;
        out.append('\n');
        out.append("  ".repeat(depth));
    }

    private static void quote(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                default -> {
                    boolean loneSurrogate = Character.isSurrogate(c) && !(Character.isHighSurrogate(c)
                            && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1)))
                            && !(Character.isLowSurrogate(c) && i > 0 && Character.isHighSurrogate(s.charAt(i - 1)));
                    // Control characters must be escaped; U+2028/2029 and lone surrogates are escaped so
                    // the text stays valid UTF-8 and safe to embed in JavaScript.
                    if (c < 0x20 || c == 0x7f || c == '\u2028' || c == '\u2029' || loneSurrogate) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
