package dev.primer.io;

import dev.primer.DType;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads and writes NumPy {@code .npy} files (format versions 1.0, 2.0 and 3.0) holding the
 * {@link DType}s Primer supports, in C order.
 *
 * <p>File layout: the magic {@code \x93NUMPY}, a major and minor version byte, the header length
 * (2 bytes little-endian in version 1, 4 bytes in versions 2 and 3), then the header: a Python dict
 * literal with keys {@code 'descr'} (e.g. {@code '<f4'}), {@code 'fortran_order'} and {@code 'shape'},
 * padded with spaces and a newline so the data starts on a 64-byte boundary. The raw elements follow.
 *
 * <p>Element data moves between the file and off-heap memory through the {@link FileChannel}
 * directly, never through a Java heap array, so multi-gigabyte files cost one copy.
 */
public final class Npy {
    private static final byte[] MAGIC = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y'};
    /** NumPy aligns the data start to this many bytes. */
    private static final int ALIGN = 64;
    /** NumPy leaves room in the header for the growth axis to reach this many digits. */
    private static final int GROWTH_AXIS_MAX_DIGITS = 21;
    /** Chunk size of channel reads and writes: ByteBuffers are int-indexed. */
    private static final int IO_CHUNK = 1 << 30;
    /** Staging buffer size for writes that need a copy (heap arrays, big-endian hosts). */
    private static final int STAGING_BYTES = 8 << 20;
    private static final String SUPPORTED =
            "supported dtypes: int8 (i1), int32 (i4), int64 (i8), float32 (f4), float64 (f8)";

    private Npy() {}

    /** What the header says about the data. */
    private record Header(DType dtype, ByteOrder order, long[] shape, long dataOffset) {}

    // ------------------------------------------------------------------------------------- read

    /**
     * Reads {@code file} into memory managed by {@link Arena#ofAuto()}: freed when the returned
     * array's segment becomes unreachable. Prefer {@link #read(Path, Arena)} for large files, to
     * free them promptly.
     */
    public static NpyArray read(Path file) throws IOException {
        return read(file, Arena.ofAuto());
    }

    /**
     * Reads {@code file}; the elements land, in native byte order, in a 64-byte-aligned segment
     * allocated in {@code arena}, which owns it (closing the arena frees the data). Big-endian
     * files are byte-swapped.
     *
     * @throws NpyFormatException if the file is not a well-formed {@code .npy} file of a supported
     *         dtype in C order, or its size does not match its shape
     * @throws IOException if reading fails
     */
    public static NpyArray read(Path file, Arena arena) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long fileSize = ch.size();
            Header h = readHeader(file, ch, fileSize);
            long count = NpyArray.elementCount(h.shape());
            long bytes = count * h.dtype().byteSize(); // cannot overflow: checked in readHeader
            long actual = fileSize - h.dataOffset();
            if (actual != bytes) {
                throw new NpyFormatException(file, "data size mismatch: shape " + NpyArray.shapeString(h.shape())
                        + " of " + h.dtype() + " needs " + bytes + " bytes (" + count + " elements) but the file holds "
                        + actual + " bytes after the " + h.dataOffset() + "-byte header");
            }
            MemorySegment data = arena.allocate(bytes, ALIGN);
            readFully(file, ch, data, h.dataOffset());
            if (h.order() != ByteOrder.nativeOrder() && h.dtype().byteSize() > 1) {
                ValueLayout nativeLayout = (ValueLayout) h.dtype().layout();
                // In place: copy with differing layout orders swaps each element.
                MemorySegment.copy(data, nativeLayout.withOrder(h.order()), 0, data, nativeLayout, 0, count);
            }
            return new NpyArray(h.dtype(), h.shape(), data);
        }
    }

    private static void readFully(Path file, FileChannel ch, MemorySegment dst, long filePos) throws IOException {
        for (long done = 0; done < dst.byteSize(); ) {
            ByteBuffer buf = dst.asSlice(done, Math.min(IO_CHUNK, dst.byteSize() - done)).asByteBuffer();
            while (buf.hasRemaining()) {
                int n = ch.read(buf, filePos + done + buf.position());
                if (n < 0) {
                    throw new NpyFormatException(file, "file ended while reading data (did it shrink while being read?)");
                }
            }
            done += buf.limit();
        }
    }

    private static Header readHeader(Path file, FileChannel ch, long fileSize) throws IOException {
        ByteBuffer pre = readAt(ch, 0, (int) Math.min(fileSize, 12));
        for (int i = 0; i < MAGIC.length; i++) {
            if (i >= pre.limit() || pre.get(i) != MAGIC[i]) {
                throw new NpyFormatException(file, "not an NPY file: bad magic (expected \\x93NUMPY, found "
                        + printable(pre, MAGIC.length) + ")");
            }
        }
        if (pre.limit() < 8) throw new NpyFormatException(file, "truncated header: the file ends inside the version bytes");
        int major = pre.get(6) & 0xff;
        int minor = pre.get(7) & 0xff;
        if (major < 1 || major > 3 || minor != 0) {
            throw new NpyFormatException(file, "unsupported NPY format version " + major + "." + minor
                    + " (supported: 1.0, 2.0, 3.0)");
        }
        int lengthBytes = major == 1 ? 2 : 4;
        int preambleBytes = 8 + lengthBytes;
        if (pre.limit() < preambleBytes) {
            throw new NpyFormatException(file, "truncated header: the file ends inside the header length field");
        }
        pre.order(ByteOrder.LITTLE_ENDIAN);
        long headerLength = major == 1 ? pre.getShort(8) & 0xffffL : pre.getInt(8) & 0xffffffffL;
        if (fileSize - preambleBytes < headerLength) {
            throw new NpyFormatException(file, "truncated header: it declares " + headerLength
                    + " bytes but the file holds only " + (fileSize - preambleBytes) + " after the "
                    + preambleBytes + "-byte preamble");
        }
        if (headerLength > Integer.MAX_VALUE - 16) {
            throw new NpyFormatException(file, "header length " + headerLength + " is implausibly large");
        }
        ByteBuffer raw = readAt(ch, preambleBytes, (int) headerLength);
        // Versions 1 and 2 store the header in latin-1; version 3 allows UTF-8.
        String text = new String(raw.array(), 0, raw.limit(),
                major == 3 ? StandardCharsets.UTF_8 : StandardCharsets.ISO_8859_1);
        return interpret(file, new DictParser(file, text).parseHeader(), preambleBytes + headerLength);
    }

    private static ByteBuffer readAt(FileChannel ch, long pos, int length) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(length);
        while (b.hasRemaining()) {
            if (ch.read(b, pos + b.position()) < 0) break;
        }
        return b.flip();
    }

    private static String printable(ByteBuffer b, int max) {
        StringBuilder s = new StringBuilder("\"");
        for (int i = 0; i < Math.min(max, b.limit()); i++) {
            int c = b.get(i) & 0xff;
            if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') s.append((char) c);
            else s.append(String.format("\\x%02x", c));
        }
        return s.append('"').append(b.limit() < max ? " (file has only " + b.limit() + " bytes)" : "").toString();
    }

    /** Checks the three keys and turns them into a {@link Header}. */
    private static Header interpret(Path file, Map<String, Object> dict, long dataOffset) throws NpyFormatException {
        for (String key : List.of("descr", "fortran_order", "shape")) {
            if (!dict.containsKey(key)) {
                throw new NpyFormatException(file, "header has no '" + key + "' key (found keys " + dict.keySet() + ")");
            }
        }
        Object descr = dict.get("descr");
        if (!(descr instanceof String d)) {
            throw new NpyFormatException(file, "unsupported dtype " + pythonRepr(descr)
                    + ": structured and record dtypes are not supported; " + SUPPORTED);
        }
        ByteOrder order = ByteOrder.nativeOrder();
        String code = d;
        if (!d.isEmpty() && "<>|=".indexOf(d.charAt(0)) >= 0) {
            // '|' (order not applicable) and '=' (native) both mean native, as in NumPy.
            if (d.charAt(0) == '<') order = ByteOrder.LITTLE_ENDIAN;
            if (d.charAt(0) == '>') order = ByteOrder.BIG_ENDIAN;
            code = d.substring(1);
        }
        DType dtype = switch (code) {
            case "i1", "b" -> DType.BYTE;
            case "i4" -> DType.INT;
            case "i8" -> DType.LONG;
            case "f4" -> DType.FLOAT;
            case "f8" -> DType.DOUBLE;
            default -> throw new NpyFormatException(file, "unsupported dtype '" + d + "'"
                    + (code.startsWith("u") || code.equals("B") ? " (unsigned integers are not supported)" : "")
                    + "; " + SUPPORTED);
        };

        Object shapeValue = dict.get("shape");
        if (!(shapeValue instanceof List<?> dims)) {
            throw new NpyFormatException(file, "'shape' must be a tuple of integers, found " + pythonRepr(shapeValue));
        }
        long[] shape = new long[dims.size()];
        for (int i = 0; i < shape.length; i++) {
            if (!(dims.get(i) instanceof Long dim)) {
                throw new NpyFormatException(file, "'shape' must be a tuple of integers, found " + pythonRepr(shapeValue));
            }
            shape[i] = dim;
        }
        for (long dim : shape) {
            if (dim < 0) {
                throw new NpyFormatException(file, "negative dimension " + dim + " in shape " + NpyArray.shapeString(shape));
            }
        }
        try {
            Math.multiplyExact(NpyArray.elementCount(shape), (long) dtype.byteSize());
        } catch (ArithmeticException e) {
            throw new NpyFormatException(file, "shape " + NpyArray.shapeString(shape) + " of " + dtype
                    + " is too large: more than 2^63-1 bytes");
        }

        Object fortran = dict.get("fortran_order");
        if (!(fortran instanceof Boolean isFortran)) {
            throw new NpyFormatException(file, "'fortran_order' must be True or False, found " + pythonRepr(fortran));
        }
        // With at most one axis longer than 1, Fortran and C order lay the bytes out identically.
        long longAxes = Arrays.stream(shape).filter(n -> n > 1).count();
        if (isFortran && longAxes > 1) {
            throw new NpyFormatException(file, "Fortran order (fortran_order: True) is unsupported: only C order"
                    + " is read; save np.ascontiguousarray(a) instead");
        }
        return new Header(dtype, order, shape, dataOffset);
    }

    private static String pythonRepr(Object v) {
        return v instanceof String s ? "'" + s + "'" : String.valueOf(v);
    }

    // ------------------------------------------------------------------------------------ write

    /**
     * Writes {@code data} (elements of {@code dtype} in native byte order, C order) as a
     * little-endian {@code .npy} file of the given shape, in format 1.0 (2.0 if the header needs
     * more than 65535 bytes). The header is the one {@code np.save} writes, byte for byte.
     *
     * @throws IllegalArgumentException if a dimension is negative or {@code data} does not hold
     *         exactly the product of {@code shape} elements
     */
    public static void write(Path file, DType dtype, long[] shape, MemorySegment data) throws IOException {
        long count;
        try {
            count = NpyArray.elementCount(shape);
            if (data.byteSize() != Math.multiplyExact(count, (long) dtype.byteSize())) {
                throw new IllegalArgumentException("data holds " + data.byteSize() + " bytes but shape "
                        + NpyArray.shapeString(shape) + " of " + dtype + " needs " + count * dtype.byteSize());
            }
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("shape " + NpyArray.shapeString(shape) + " is too large", e);
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            writeFully(ch, ByteBuffer.wrap(header(dtype, shape)));
            if (ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN && data.isNative()) {
                for (long done = 0; done < data.byteSize(); done += IO_CHUNK) {
                    writeFully(ch, data.asSlice(done, Math.min(IO_CHUNK, data.byteSize() - done)).asByteBuffer());
                }
            } else {
                writeStaged(ch, dtype, data, count);
            }
        }
    }

    /** Copies through a small off-heap buffer, converting to little-endian on the way. */
    private static void writeStaged(FileChannel ch, DType dtype, MemorySegment data, long count) throws IOException {
        ValueLayout nativeLayout = ((ValueLayout) dtype.layout()).withByteAlignment(1); // heap arrays may be less aligned
        ValueLayout fileLayout = nativeLayout.withOrder(ByteOrder.LITTLE_ENDIAN);
        long perChunk = STAGING_BYTES / dtype.byteSize();
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment staging = scratch.allocate(Math.min(count, perChunk) * dtype.byteSize(), ALIGN);
            for (long done = 0; done < count; ) {
                long n = Math.min(perChunk, count - done);
                MemorySegment.copy(data, nativeLayout, done * dtype.byteSize(), staging, fileLayout, 0, n);
                writeFully(ch, staging.asSlice(0, n * dtype.byteSize()).asByteBuffer());
                done += n;
            }
        }
    }

    private static void writeFully(FileChannel ch, ByteBuffer buf) throws IOException {
        while (buf.hasRemaining()) ch.write(buf);
    }

    /** Preamble and header exactly as NumPy's {@code np.save} lays them out. */
    private static byte[] header(DType dtype, long[] shape) {
        String descr = (dtype.byteSize() == 1 ? "|" : "<") + dtype.npyCode();
        StringBuilder dict = new StringBuilder()
                .append("{'descr': '").append(descr).append("', 'fortran_order': False, 'shape': ")
                .append(NpyArray.shapeString(shape)).append(", }");
        if (shape.length > 0) {
            dict.append(" ".repeat(Math.max(0, GROWTH_AXIS_MAX_DIGITS - Long.toString(shape[0]).length())));
        }
        int textLength = dict.length() + 1; // + the closing newline
        int preamble = 10;
        int padding = ALIGN - (preamble + textLength) % ALIGN;
        if (textLength + padding > 0xffff) { // version 2.0: 4-byte length field
            preamble = 12;
            padding = ALIGN - (preamble + textLength) % ALIGN;
        }
        dict.append(" ".repeat(padding)).append('\n');
        byte[] text = dict.toString().getBytes(StandardCharsets.ISO_8859_1);
        ByteBuffer out = ByteBuffer.allocate(preamble + text.length).order(ByteOrder.LITTLE_ENDIAN);
        out.put(MAGIC).put((byte) (preamble == 10 ? 1 : 2)).put((byte) 0);
        if (preamble == 10) out.putShort((short) text.length);
        else out.putInt(text.length);
        return out.put(text).array();
    }

    /** Writes a 1-d int32 array. */
    public static void write(Path file, int[] values) throws IOException {
        write(file, DType.INT, new long[] {values.length}, MemorySegment.ofArray(values));
    }

    /** Writes a 1-d int64 array. */
    public static void write(Path file, long[] values) throws IOException {
        write(file, DType.LONG, new long[] {values.length}, MemorySegment.ofArray(values));
    }

    /** Writes a 1-d float32 array. */
    public static void write(Path file, float[] values) throws IOException {
        write(file, DType.FLOAT, new long[] {values.length}, MemorySegment.ofArray(values));
    }

    /** Writes a 1-d float64 array. */
    public static void write(Path file, double[] values) throws IOException {
        write(file, DType.DOUBLE, new long[] {values.length}, MemorySegment.ofArray(values));
    }

    /** Writes a 1-d int8 array. */
    public static void write(Path file, byte[] values) throws IOException {
        write(file, DType.BYTE, new long[] {values.length}, MemorySegment.ofArray(values));
    }

    // ---------------------------------------------------------------------------- header parser

    /**
     * A small parser for the Python literals NumPy headers contain: dicts, tuples, lists, strings
     * (single or double quotes), integers, True, False and None. Whitespace and trailing commas are
     * allowed wherever Python allows them. Tuples and lists both parse to {@link List}, integers to
     * {@link Long}.
     */
    private static final class DictParser {
        private final Path file;
        private final String s;
        private int pos;
        /** Open containers around pos; a bound keeps a hostile header from overflowing the stack. */
        private int depth;
        private static final int MAX_DEPTH = 16;

        DictParser(Path file, String text) {
            this.file = file;
            this.s = text;
        }

        /** The header: one dict literal, then only padding. */
        Map<String, Object> parseHeader() throws NpyFormatException {
            skipSpace();
            if (pos >= s.length() || s.charAt(pos) != '{') {
                throw new NpyFormatException(file, "header is not a dict: expected a Python dict literal '{...}', found "
                        + excerpt());
            }
            Map<String, Object> dict = parseDict();
            while (pos < s.length() && (Character.isWhitespace(s.charAt(pos)) || s.charAt(pos) == '\0')) pos++;
            if (pos < s.length()) throw error("unexpected text after the header dict");
            return dict;
        }

        private Object parseValue() throws NpyFormatException {
            skipSpace();
            if (pos >= s.length()) throw error("header ends where a value was expected");
            char c = s.charAt(pos);
            return switch (c) {
                case '{' -> parseDict();
                case '(' -> parseSequence(')');
                case '[' -> parseSequence(']');
                case '\'', '"' -> parseString();
                default -> {
                    if (c == '-' || c == '+' || Character.isDigit(c)) yield parseInteger();
                    if (Character.isLetter(c)) yield parseName();
                    throw error("unexpected character");
                }
            };
        }

        /** Counts one more open container: NumPy's headers nest twice (the dict, its shape tuple). */
        private void enter() throws NpyFormatException {
            if (++depth > MAX_DEPTH) throw error("containers nested deeper than " + MAX_DEPTH);
        }

        private Map<String, Object> parseDict() throws NpyFormatException {
            enter();
            pos++; // '{'
            Map<String, Object> dict = new LinkedHashMap<>();
            while (true) {
                skipSpace();
                if (peek('}')) { pos++; depth--; return dict; }
                Object key = parseValue();
                if (!(key instanceof String k)) throw error("dict keys must be strings");
                skipSpace();
                expect(':');
                dict.put(k, parseValue());
                skipSpace();
                if (peek(',')) pos++;
                else if (!peek('}')) throw error("expected ',' or '}' in dict");
            }
        }

        private List<Object> parseSequence(char close) throws NpyFormatException {
            enter();
            pos++; // '(' or '['
            List<Object> items = new ArrayList<>();
            while (true) {
                skipSpace();
                if (peek(close)) { pos++; depth--; return items; }
                items.add(parseValue());
                skipSpace();
                if (peek(',')) pos++;
                else if (!peek(close)) throw error("expected ',' or '" + close + "'");
            }
        }

        private String parseString() throws NpyFormatException {
            char quote = s.charAt(pos++);
            StringBuilder out = new StringBuilder();
            while (pos < s.length() && s.charAt(pos) != quote) {
                char c = s.charAt(pos++);
                if (c == '\\' && pos < s.length()) c = s.charAt(pos++); // keep the escaped character
                out.append(c);
            }
            if (pos >= s.length()) throw error("unterminated string");
            pos++;
            return out.toString();
        }

        private Long parseInteger() throws NpyFormatException {
            int start = pos;
            if (peek('-') || peek('+')) pos++;
            while (pos < s.length() && Character.isDigit(s.charAt(pos))) pos++;
            String digits = s.substring(start, pos);
            if (peek('L') || peek('l')) pos++; // Python 2 long suffix
            try {
                return Long.parseLong(digits);
            } catch (NumberFormatException e) {
                pos = start;
                throw error("bad or too large integer");
            }
        }

        private Object parseName() throws NpyFormatException {
            int start = pos;
            while (pos < s.length() && Character.isLetterOrDigit(s.charAt(pos))) pos++;
            return switch (s.substring(start, pos)) {
                case "True" -> Boolean.TRUE;
                case "False" -> Boolean.FALSE;
                case "None" -> null;
                default -> { pos = start; throw error("unknown name"); }
            };
        }

        private void skipSpace() {
            while (pos < s.length() && Character.isWhitespace(s.charAt(pos))) pos++;
        }

        private boolean peek(char c) { return pos < s.length() && s.charAt(pos) == c; }

        private void expect(char c) throws NpyFormatException {
            if (!peek(c)) throw error("expected '" + c + "'");
            pos++;
        }

        private String excerpt() {
            String rest = s.substring(Math.min(pos, s.length())).strip();
            return rest.isEmpty() ? "nothing" : "'" + abbreviate(rest, 40) + "'";
        }

        private static String abbreviate(String text, int max) {
            return text.length() > max ? text.substring(0, max) + "..." : text;
        }

        private NpyFormatException error(String what) {
            return new NpyFormatException(file, "malformed header: " + what + " at character " + pos + " near "
                    + excerpt() + " in header " + abbreviate(s.strip(), 200));
        }
    }
}
