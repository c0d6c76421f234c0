package dev.primer.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.primer.DType;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class NpyTest {
    @TempDir Path dir;

    private static final int[] AWKWARD_SIZES = {0, 1, 31, 33, 1025};

    // ------------------------------------------------------------------------------ round trips

    static Stream<Arguments> dtypesAndSizes() {
        return Arrays.stream(DType.values())
                .flatMap(t -> Arrays.stream(AWKWARD_SIZES).mapToObj(n -> Arguments.of(t, n)));
    }

    @ParameterizedTest(name = "{0} x {1}")
    @MethodSource("dtypesAndSizes")
    void segmentRoundTripIsBitExact(DType dtype, int n) throws IOException {
        MemorySegment original = randomSegment(Arena.ofAuto(), dtype, n, 42 + n);
        Path file = dir.resolve("a.npy");
        Npy.write(file, dtype, new long[] {n}, original);

        assertEquals(0, dataOffset(file) % 64, "data starts 64-byte aligned");
        NpyArray back = Npy.read(file);
        assertEquals(dtype, back.dtype());
        assertArrayEquals(new long[] {n}, back.shape());
        assertEquals(n, back.length());
        assertEquals(-1, back.data().mismatch(original), "elements differ");
        assertTrue(back.data().isNative());
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 31, 33, 1025})
    void javaArrayOverloadsRoundTrip(int n) throws IOException {
        Random r = new Random(n);
        int[] ints = r.ints(n).toArray();
        long[] longs = r.longs(n).toArray();
        double[] doubles = r.doubles(n).map(d -> d * 1e300 - 5e299).toArray();
        float[] floats = new float[n];
        byte[] bytes = new byte[n];
        for (int i = 0; i < n; i++) floats[i] = Float.intBitsToFloat(r.nextInt()); // NaN payloads too
        r.nextBytes(bytes);
        if (n > 0) {
            doubles[0] = -0.0;
            floats[n - 1] = Float.NaN;
        }

        Npy.write(dir.resolve("i.npy"), ints);
        Npy.write(dir.resolve("l.npy"), longs);
        Npy.write(dir.resolve("f.npy"), floats);
        Npy.write(dir.resolve("d.npy"), doubles);
        Npy.write(dir.resolve("b.npy"), bytes);

        assertArrayEquals(ints, readAs(dir.resolve("i.npy"), DType.INT).data().toArray(ValueLayout.JAVA_INT));
        assertArrayEquals(longs, readAs(dir.resolve("l.npy"), DType.LONG).data().toArray(ValueLayout.JAVA_LONG));
        assertEquals(-1, readAs(dir.resolve("f.npy"), DType.FLOAT).data().mismatch(MemorySegment.ofArray(floats)));
        assertEquals(-1, readAs(dir.resolve("d.npy"), DType.DOUBLE).data().mismatch(MemorySegment.ofArray(doubles)));
        assertArrayEquals(bytes, readAs(dir.resolve("b.npy"), DType.BYTE).data().toArray(ValueLayout.JAVA_BYTE));
    }

    static Stream<long[]> shapes() {
        return Stream.of(new long[] {2, 3, 4}, new long[] {0, 5}, new long[] {5, 0}, new long[] {1, 1, 1, 1},
                new long[] {3, 1, 7}, new long[] {33, 31});
    }

    @ParameterizedTest
    @MethodSource("shapes")
    void multiDimensionalShapesRoundTrip(long[] shape) throws IOException {
        for (DType dtype : DType.values()) {
            long n = Arrays.stream(shape).reduce(1, Math::multiplyExact);
            MemorySegment original = randomSegment(Arena.ofAuto(), dtype, n, 7);
            Path file = dir.resolve("nd.npy");
            Npy.write(file, dtype, shape, original);
            NpyArray back = Npy.read(file);
            assertTrue(back.contentEquals(new NpyArray(dtype, shape, original)), dtype + " " + Arrays.toString(shape));
            assertEquals(shape.length, back.rank());
        }
    }

    /** Primer.save checks the shape, naming it, before it copies anything; a closed Primer loads nothing. */
    @Test
    void badShapesAndAClosedPrimerAreRejectedFirst() throws IOException {
        Path file = dir.resolve("shape.npy");
        dev.primer.Primer primer = dev.primer.Primer.open(dev.primer.BackendKind.CPU);
        try (primer; dev.primer.IntArray a = primer.upload(new int[] {1, 2, 3, 4})) {
            for (long[] shape : new long[][] {{-1, -4}, {Long.MAX_VALUE, 2}, {3}, {2, 3}}) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> primer.save(file, a, shape));
                assertTrue(e.getMessage().startsWith("shape "), e.getMessage());
            }
            NullPointerException e = assertThrows(NullPointerException.class, () -> primer.save(file, a, null));
            assertTrue(e.getMessage().contains("shape"), e.getMessage());
            assertFalse(Files.exists(file));
            primer.save(file, a, new long[] {2, 2});
        }
        assertThrows(IllegalStateException.class, () -> primer.load(dir.resolve("missing.npy")));
        assertThrows(IllegalStateException.class, () -> primer.load(file));
    }

    @Test
    void zeroDimensionalScalar() throws IOException {
        Path file = dir.resolve("scalar.npy");
        MemorySegment one = Arena.ofAuto().allocateFrom(ValueLayout.JAVA_DOUBLE, Math.PI);
        Npy.write(file, DType.DOUBLE, new long[0], one);
        assertTrue(headerText(file).contains("'shape': (), }"), headerText(file));

        NpyArray back = Npy.read(file);
        assertEquals(0, back.rank());
        assertEquals(1, back.length());
        assertEquals(Math.PI, back.data().get(ValueLayout.JAVA_DOUBLE, 0));
    }

    @Test
    void readIntoCallersArenaIsAlignedAndFreedWithIt() throws IOException {
        Path file = dir.resolve("arena.npy");
        Npy.write(file, new long[] {1, 2, 3});
        MemorySegment data;
        try (Arena arena = Arena.ofConfined()) {
            data = Npy.read(file, arena).data();
            assertEquals(0, data.address() % 64);
            assertEquals(2L, data.getAtIndex(ValueLayout.JAVA_LONG, 1));
        }
        assertFalse(data.scope().isAlive());
    }

    @Test
    void versionTwoIsWrittenWhenTheHeaderNeedsIt() throws IOException {
        long[] shape = new long[22_000];
        Arrays.fill(shape, 1);
        Path file = dir.resolve("v2.npy");
        Npy.write(file, DType.INT, shape, MemorySegment.ofArray(new int[] {77}));
        byte[] bytes = Files.readAllBytes(file);
        assertEquals(2, bytes[6]);
        NpyArray back = Npy.read(file);
        assertArrayEquals(shape, back.shape());
        assertEquals(77, back.data().get(ValueLayout.JAVA_INT, 0));
    }

    // ----------------------------------------------------------------- exactly what NumPy writes

    /** The bytes of {@code np.save(f, np.arange(3, dtype='<i4'))}. */
    private static byte[] numpyArange3() {
        String dict = "{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }";
        StringBuilder header = new StringBuilder(dict);
        while ((10 + header.length() + 1) % 64 != 0) header.append(' ');
        header.append('\n');
        assertEquals(118, header.length()); // 0x76, as NumPy writes it
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(new byte[] {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 118, 0});
        out.writeBytes(header.toString().getBytes(StandardCharsets.US_ASCII));
        out.writeBytes(new byte[] {0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0});
        return out.toByteArray();
    }

    @Test
    void readsWhatNumpyWritesAndWritesTheSameBytes() throws IOException {
        Path numpyFile = write("numpy.npy", numpyArange3());
        NpyArray a = Npy.read(numpyFile);
        assertEquals(DType.INT, a.dtype());
        assertArrayEquals(new long[] {3}, a.shape());
        assertArrayEquals(new int[] {0, 1, 2}, a.data().toArray(ValueLayout.JAVA_INT));

        Path ours = dir.resolve("ours.npy");
        Npy.write(ours, new int[] {0, 1, 2});
        assertTrue(Npy.read(ours).contentEquals(a));
        assertArrayEquals(numpyArange3(), Files.readAllBytes(ours), "byte-identical to np.save");
    }

    // ------------------------------------------------------------- byte orders, versions, syntax

    @Test
    void bigEndianFilesAreSwappedToNative() throws IOException {
        NpyArray i4 = Npy.read(write("be_i4.npy", npy(1, "{'descr': '>i4', 'fortran_order': False, 'shape': (2, 2), }",
                0, 0, 0, 1, 0, 0, 1, 0, 0xff, 0xff, 0xff, 0xfe, 0x12, 0x34, 0x56, 0x78)));
        assertArrayEquals(new long[] {2, 2}, i4.shape());
        assertArrayEquals(new int[] {1, 256, -2, 0x12345678}, i4.data().toArray(ValueLayout.JAVA_INT));

        NpyArray i8 = Npy.read(write("be_i8.npy", npy(1, "{'descr': '>i8', 'fortran_order': False, 'shape': (2,), }",
                0, 0, 0, 0, 0, 0, 0, 1, 0x80, 0, 0, 0, 0, 0, 0, 0)));
        assertArrayEquals(new long[] {1, Long.MIN_VALUE}, i8.data().toArray(ValueLayout.JAVA_LONG));

        NpyArray f4 = Npy.read(write("be_f4.npy", npy(1, "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }",
                0x3f, 0xc0, 0, 0, 0xc0, 0, 0, 0)));
        assertArrayEquals(new float[] {1.5f, -2f}, f4.data().toArray(ValueLayout.JAVA_FLOAT));

        NpyArray f8 = Npy.read(write("be_f8.npy", npy(1, "{'descr': '>f8', 'fortran_order': False, 'shape': (1,), }",
                0x3f, 0xf8, 0, 0, 0, 0, 0, 0)));
        assertArrayEquals(new double[] {1.5}, f8.data().toArray(ValueLayout.JAVA_DOUBLE));

        NpyArray i1 = Npy.read(write("be_i1.npy", npy(1, "{'descr': '>i1', 'fortran_order': False, 'shape': (2,), }",
                0x80, 0x7f)));
        assertArrayEquals(new byte[] {-128, 127}, i1.data().toArray(ValueLayout.JAVA_BYTE));
    }

    @Test
    void nativeAndNotApplicableByteOrders() throws IOException {
        byte[] one = ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(-7).array();
        NpyArray eq = Npy.read(write("eq.npy", npy(1, "{'descr': '=i4', 'fortran_order': False, 'shape': (1,), }", ints(one))));
        assertEquals(-7, eq.data().get(ValueLayout.JAVA_INT, 0));
        NpyArray bar = Npy.read(write("bar.npy", npy(1, "{'descr': '|i1', 'fortran_order': False, 'shape': (1,), }", 0xf9)));
        assertEquals(-7, bar.data().get(ValueLayout.JAVA_BYTE, 0));
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3})
    void versionTwoAndThreeHeadersAreRead(int major) throws IOException {
        NpyArray a = Npy.read(write("v.npy", npy(major, "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }",
                0, 0, 0, 0, 0, 0, 0xf8, 0x3f)));
        assertArrayEquals(new double[] {1.5}, a.data().toArray(ValueLayout.JAVA_DOUBLE));
    }

    @Test
    void headerSyntaxIsTolerated() throws IOException {
        String[] headers = {
            "{\"descr\": \"<i4\", \"fortran_order\": False, \"shape\": (1,)}",
            "{ 'shape' : ( 1 , ) ,\n 'fortran_order':False,'descr':'<i4' , }",
            "{'descr':'<i4','fortran_order':False,'shape':(1L,),}",
            "{'descr': '<i4', 'fortran_order': False, 'shape': [1], 'extra': None}",
        };
        for (String header : headers) {
            NpyArray a = Npy.read(write("syntax.npy", npy(1, header, 5, 0, 0, 0)));
            assertEquals(5, a.data().get(ValueLayout.JAVA_INT, 0), header);
        }
    }

    @Test
    void fortranOrderIsAcceptedWhereTheLayoutIsTheSame() throws IOException {
        NpyArray a = Npy.read(write("f1.npy", npy(1, "{'descr': '<i4', 'fortran_order': True, 'shape': (1, 2), }",
                1, 0, 0, 0, 2, 0, 0, 0)));
        assertArrayEquals(new int[] {1, 2}, a.data().toArray(ValueLayout.JAVA_INT));
    }

    // ------------------------------------------------------------------------- malformed files

    @Test
    void badMagic() {
        assertMalformed(write("text.npy", "hello, world".getBytes(StandardCharsets.US_ASCII)), "bad magic");
        byte[] wrong = numpyArange3();
        wrong[5] = 'X';
        assertMalformed(write("wrong.npy", wrong), "bad magic", "NUMPX");
        assertMalformed(write("empty.npy", new byte[0]), "bad magic");
    }

    @Test
    void unsupportedVersion() {
        byte[] v4 = numpyArange3();
        v4[6] = 4;
        assertMalformed(write("v4.npy", v4), "version 4.0");
    }

    @Test
    void truncatedHeader() {
        byte[] full = numpyArange3();
        assertMalformed(write("t50.npy", Arrays.copyOf(full, 50)), "truncated header", "118");
        assertMalformed(write("t7.npy", Arrays.copyOf(full, 7)), "truncated header");
        assertMalformed(write("t9.npy", Arrays.copyOf(full, 9)), "truncated header");
    }

    @Test
    void headerNotADict() {
        assertMalformed(write("list.npy", npy(1, "['descr', '<i4']")), "not a dict");
        assertMalformed(write("blank.npy", npy(1, "")), "not a dict");
        assertMalformed(write("unterminated.npy", npy(1, "{'descr': '<i4, 'shape': (1,)}")), "malformed header");
        assertMalformed(write("junk.npy", npy(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (1,)} x", 0, 0, 0, 0)),
                "after the header dict");
    }

    @Test
    void deeplyNestedHeaderIsMalformedNotAStackOverflow() {
        String deep = "{'descr': '<f4', 'fortran_order': False, 'shape': " + "(".repeat(30_000);
        assertMalformed(write("deep.npy", npy(1, deep)), "malformed header", "nested deeper than 16");
        String seventeen = "{'descr': '<f4', 'fortran_order': False, 'shape': " + "[".repeat(16) + "]".repeat(16) + "}";
        assertMalformed(write("deep17.npy", npy(1, seventeen)), "nested deeper than 16");
    }

    @Test
    void missingKeys() {
        assertMalformed(write("noshape.npy", npy(1, "{'descr': '<i4', 'fortran_order': False}")), "no 'shape' key");
        assertMalformed(write("nodescr.npy", npy(1, "{'fortran_order': False, 'shape': ()}")), "no 'descr' key");
        assertMalformed(write("noorder.npy", npy(1, "{'descr': '<i4', 'shape': ()}")), "no 'fortran_order' key");
    }

    @Test
    void unsupportedDtypes() {
        assertMalformed(write("u4.npy", dtypeFile("<u4")), "unsupported dtype '<u4'", "unsigned", "int32 (i4)");
        assertMalformed(write("u1.npy", dtypeFile("|u1")), "unsupported dtype '|u1'", "unsigned");
        assertMalformed(write("f2.npy", dtypeFile("<f2")), "unsupported dtype '<f2'", "float64 (f8)");
        assertMalformed(write("b1.npy", dtypeFile("|b1")), "unsupported dtype '|b1'");
        assertMalformed(write("c16.npy", dtypeFile("<c16")), "unsupported dtype '<c16'");
        assertMalformed(write("rec.npy", npy(1, "{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (1,)}")),
                "unsupported dtype", "structured");
    }

    @Test
    void fortranOrderIsRejected() {
        assertMalformed(write("fortran.npy", npy(1, "{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }", new int[24])),
                "Fortran order", "unsupported");
    }

    @Test
    void dataSizeMismatch() {
        String header = "{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }";
        assertMalformed(write("short.npy", npy(1, header, new int[8])), "needs 12 bytes", "holds 8 bytes");
        assertMalformed(write("long.npy", npy(1, header, new int[16])), "needs 12 bytes", "holds 16 bytes");
    }

    @Test
    void negativeDimensionsAndAbsurdShapes() {
        assertMalformed(write("neg.npy", npy(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, -1), }")),
                "negative dimension -1");
        assertMalformed(write("huge.npy", npy(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 4), }")),
                "too large");
        assertMalformed(write("int.npy", npy(1, "{'descr': '<i4', 'fortran_order': False, 'shape': 3, }")),
                "'shape' must be a tuple");
    }

    @Test
    void writeRejectsInconsistentArguments() {
        MemorySegment eight = Arena.ofAuto().allocate(8);
        Path file = dir.resolve("bad.npy");
        IllegalArgumentException size = assertThrows(IllegalArgumentException.class,
                () -> Npy.write(file, DType.INT, new long[] {3}, eight));
        assertTrue(size.getMessage().contains("needs 12"), size.getMessage());
        IllegalArgumentException neg = assertThrows(IllegalArgumentException.class,
                () -> Npy.write(file, DType.BYTE, new long[] {-8}, eight));
        assertTrue(neg.getMessage().contains("negative dimension"), neg.getMessage());
    }

    // ---------------------------------------------------------------------------------- helpers

    private void assertMalformed(Path file, String... fragments) {
        NpyFormatException e = assertThrows(NpyFormatException.class, () -> Npy.read(file));
        assertEquals(file, e.file());
        assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
        for (String fragment : fragments) {
            assertTrue(e.getMessage().contains(fragment), "expected '" + fragment + "' in: " + e.getMessage());
        }
    }

    /** A one-element file whose header names {@code descr}. */
    private static byte[] dtypeFile(String descr) {
        return npy(1, "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (1,), }", new int[16]);
    }

    /** A file of the given major version: preamble, header padded to 64 bytes, then {@code data}. */
    private static byte[] npy(int major, String dict, int... data) {
        int preamble = major == 1 ? 10 : 12;
        StringBuilder header = new StringBuilder(dict);
        while ((preamble + header.length() + 1) % 64 != 0) header.append(' ');
        header.append('\n');
        byte[] text = header.toString().getBytes(major == 3 ? StandardCharsets.UTF_8 : StandardCharsets.ISO_8859_1);
        ByteBuffer b = ByteBuffer.allocate(preamble + text.length + data.length).order(ByteOrder.LITTLE_ENDIAN);
        b.put(new byte[] {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', (byte) major, 0});
        if (major == 1) b.putShort((short) text.length);
        else b.putInt(text.length);
        b.put(text);
        for (int d : data) b.put((byte) d);
        return b.array();
    }

    private static int[] ints(byte[] bytes) {
        int[] out = new int[bytes.length];
        for (int i = 0; i < bytes.length; i++) out[i] = bytes[i];
        return out;
    }

    private Path write(String name, byte[] bytes) {
        try {
            return Files.write(dir.resolve(name), bytes);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static NpyArray readAs(Path file, DType expected) throws IOException {
        NpyArray a = Npy.read(file);
        assertEquals(expected, a.dtype());
        return a;
    }

    private static MemorySegment randomSegment(Arena arena, DType dtype, long n, long seed) {
        byte[] bytes = new byte[Math.toIntExact(n * dtype.byteSize())];
        new Random(seed).nextBytes(bytes);
        return arena.allocate(bytes.length, 8).copyFrom(MemorySegment.ofArray(bytes));
    }

    private static long dataOffset(Path file) throws IOException {
        byte[] b = Files.readAllBytes(file);
        return b[6] == 1 ? 10 + ((b[8] & 0xff) | (b[9] & 0xff) << 8) : -1;
    }

    private static String headerText(Path file) throws IOException {
        byte[] b = Files.readAllBytes(file);
        return new String(b, 10, (b[8] & 0xff) | (b[9] & 0xff) << 8, StandardCharsets.ISO_8859_1);
    }
}
