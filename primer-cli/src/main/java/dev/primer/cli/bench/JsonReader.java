package dev.primer.cli.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small JSON reader for the baselines file: objects become LinkedHashMap, arrays List, numbers
 * Double (or Long when integral and written without fraction or exponent), plus String, Boolean and
 * null. Accepts the NaN / Infinity / -Infinity that Python's json module writes.
 */
final class JsonReader {
    private final String text;
    private int pos;

    private JsonReader(String text) {
        this.text = text;
    }

    static Object parse(String text) {
        JsonReader r = new JsonReader(text);
        Object value = r.value();
        r.skipSpace();
        if (r.pos != text.length()) throw r.error("trailing characters");
        return value;
    }

    private Object value() {
        skipSpace();
        if (pos >= text.length()) throw error("unexpected end");
        char c = text.charAt(pos);
        return switch (c) {
            case '{' -> object();
            case '[' -> array();
            case '"' -> string();
            case 't' -> literal("true", Boolean.TRUE);
            case 'f' -> literal("false", Boolean.FALSE);
            case 'n' -> literal("null", null);
            case 'N' -> literal("NaN", Double.NaN);
            case 'I' -> literal("Infinity", Double.POSITIVE_INFINITY);
            default -> number();
        };
    }

    private Map<String, Object> object() {
        Map<String, Object> map = new LinkedHashMap<>();
        pos++;
        skipSpace();
        if (peek() == '}') {
            pos++;
            return map;
        }
        while (true) {
            skipSpace();
            if (peek() != '"') throw error("expected a key");
            String key = string();
            skipSpace();
            expect(':');
            map.put(key, value());
            skipSpace();
            if (peek() == ',') {
                pos++;
            } else {
                expect('}');
                return map;
            }
        }
    }

    private List<Object> array() {
        List<Object> list = new ArrayList<>();
        pos++;
        skipSpace();
        if (peek() == ']') {
            pos++;
            return list;
        }
        while (true) {
            list.add(value());
            skipSpace();
            if (peek() == ',') {
                pos++;
            } else {
                expect(']');
                return list;
            }
        }
    }

    private String string() {
        expect('"');
        StringBuilder sb = new StringBuilder();
        while (true) {
            if (pos >= text.length()) throw error("unterminated string");
            char c = text.charAt(pos++);
            if (c == '"') return sb.toString();
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            char e = text.charAt(pos++);
            switch (e) {
                case 'n' -> sb.append('\n');
                case 't' -> sb.append('\t');
                case 'r' -> sb.append('\r');
                case 'b' -> sb.append('\b');
                case 'f' -> sb.append('\f');
                case 'u' -> {
                    sb.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16));
                    pos += 4;
                }
                default -> sb.append(e); // \" \\ \/
            }
        }
    }

    private Object number() {
        int start = pos;
        if (peek() == '-') {
            pos++;
            if (peek() == 'I') {
                literal("Infinity", null);
                return Double.NEGATIVE_INFINITY;
            }
        }
        while (pos < text.length() && "0123456789+-.eE".indexOf(text.charAt(pos)) >= 0) pos++;
        String s = text.substring(start, pos);
        if (s.isEmpty() || s.equals("-")) throw error("unexpected character");
        try {
            if (s.indexOf('.') < 0 && s.indexOf('e') < 0 && s.indexOf('E') < 0) return Long.parseLong(s);
            return Double.parseDouble(s);
        } catch (NumberFormatException e) {
            return Double.parseDouble(s);
        }
    }

    private Object literal(String word, Object value) {
        if (!text.startsWith(word, pos)) throw error("unexpected token");
        pos += word.length();
        return value;
    }

    private void expect(char c) {
        if (peek() != c) throw error("expected '" + c + "'");
        pos++;
    }

    private char peek() {
        return pos < text.length() ? text.charAt(pos) : '\0';
    }

    private void skipSpace() {
        while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) pos++;
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException("JSON: " + what + " at offset " + pos);
    }
}
