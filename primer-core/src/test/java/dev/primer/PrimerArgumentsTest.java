package dev.primer;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.MemorySegment;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The facade's argument checks, systematically: every public method of {@link Primer} that takes
 * arrays, with the built-in operators (and the CustomOp overloads of reduce, the row and segment
 * reductions and the scans, for their checks only), on every backend. A bad argument (null; closed; of another Primer; of a wrong length,
 * shape or type; an operator the type lacks; an init that does not fit) must throw a clear exception
 * naming the argument, leave every array the test made unchanged (downloaded and compared), and leave
 * nothing allocated behind (the Primer under test runs over its real backend wrapped so that it counts
 * live buffers).
 *
 * <p>Each test builds its arrays in a {@link Harness}; {@link Harness#rejects} runs one {@link Call}
 * and checks the exception, the message, the arrays and the live count. The call tables
 * ({@link #everyMethodOn}, {@link #everyScanInto}, ...) differ from {@link #validArgumentsAreAccepted}'s
 * only in the argument under test.
 */
class PrimerArgumentsTest {
    static Iterable<BackendKind> backends() { return Backends.all().toList(); }

    /** Length of every 1-d array; a ROWS × COLS matrix has it too. */
    private static final int N = 12;
    private static final long ROWS = 3, COLS = 4;
    /** Valid offsets for arrays of N: an empty segment in the middle. */
    private static final long[] OFFSETS = {0, 5, 5, N};

    private static final CustomOp INT_MAX = CustomOp.ofInt("argsIntMax", "max(a, b)", Integer.MIN_VALUE, Math::max);
    private static final CustomOp LONG_SUM = CustomOp.ofLong("argsLongSum", "a + b", 0L, Long::sum);
    private static final CustomOp FLOAT_SUM = CustomOp.ofFloat("argsFloatSum", "a + b", 0f, Float::sum);
    private static final CustomOp DOUBLE_SUM = CustomOp.ofDouble("argsDoubleSum", "a + b", 0.0, Double::sum);
    private static final CustomOp BYTE_SUM = CustomOp.ofByte("argsByteSum", "a + b", (byte) 0, (a, b) -> (byte) (a + b));

    // ================================================================ the tables are valid as they stand

    @ParameterizedTest
    @MethodSource("backends")
    void validArgumentsAreAccepted(BackendKind kind) {
        try (Harness h = Harness.open(kind, 1)) {
            List<Call> calls = new ArrayList<>();
            calls.addAll(everyMethodOn(h, h.make.firsts(N)));
            calls.addAll(everyScanInto(h, h.make.floats(N), h.make.ints(N)));
            calls.addAll(everyMethodWithOffsets(h, h.make.offsets(OFFSETS)));
            calls.addAll(everyReductionInto(h, h.make::of));
            calls.addAll(everyMethodWithHeadFlags(h, h.make.headFlags(N)));
            calls.addAll(everyBuiltInOpMethodOnFloats(h, Op.MAX));
            calls.addAll(everyCustomOpMethod(h, INT_MAX, LONG_SUM, FLOAT_SUM, DOUBLE_SUM));
            calls.addAll(int8CustomOpMethods(h, BYTE_SUM, h.make.bytes(N), h.make.bytes(N)));
            h.acceptsEach(calls);
        }
    }

    /**
     * Code that calls the backend directly (Primer.backend()) skips Primer's checks, but not the
     * lengths: a short output is rejected by name and left as it was, on either backend (a GPU kernel
     * would write past it); and a closed Primer gives no backend.
     */
    @ParameterizedTest
    @MethodSource("backends")
    void theBackendRejectsShortArraysItself(BackendKind kind) {
        Primer primer = Backends.open(kind);
        try (primer;
             FloatArray in = primer.upload(new float[] {1, 2, 3, 4, 5, 6, 7, 8});
             FloatArray out = primer.upload(new float[] {9, 9});
             ByteArray flags = primer.upload(new byte[] {1, 0});
             ByteArray allFlags = primer.upload(new byte[8]);
             LongArray offsets = primer.upload(new long[] {0, 2, 4, 8})) {
            Backend backend = primer.backend();
            List<Executable> calls = List.of(
                    () -> backend.scan(in, out, Op.SUM, true, 0),
                    () -> backend.segmentedScanByFlags(in, allFlags, out, Op.SUM, true, 0),
                    () -> backend.reduceRows(in, Op.SUM, 4, 2, out),
                    () -> backend.reduceSegments(in, Op.SUM, offsets, out));
            for (Executable call : calls) ArgumentMessages.assertStartsWith("out", assertThrows(IllegalArgumentException.class, call));
            ArgumentMessages.assertStartsWith("headFlags", assertThrows(IllegalArgumentException.class,
                    () -> backend.segmentedScanByFlags(in, flags, in, Op.SUM, true, 0)));
            ArgumentMessages.assertStartsWith("in", assertThrows(IllegalArgumentException.class,
                    () -> backend.reduceRows(in, Op.SUM, 3, 3, in)));
            float[] after = new float[2];
            out.copyTo(MemorySegment.ofArray(after));
            assertArrayEquals(new float[] {9, 9}, after);
        }
        assertThrows(IllegalStateException.class, primer::backend);
    }

    /** The leak check can see a leak: an array a method returns counts until it is closed. */
    @ParameterizedTest
    @MethodSource("backends")
    void liveCountSeesTheArraysAMethodReturns(BackendKind kind) {
        try (Harness h = Harness.open(kind, 2)) {
            FloatArray matrix = h.make.floats(N);
            long before = h.live();
            DeviceArray sums = h.primer.reduceRows(matrix, ROWS, COLS, Op.SUM);
            assertEquals(before + 1, h.live());
            sums.close();
            assertEquals(before, h.live());
        }
    }

    // ================================================================ null

    /** Null as the first array of every method, as out, headFlags and offsets (names: see the *IsNamed tests). */
    @ParameterizedTest
    @MethodSource("backends")
    void nullArrayIsRejected(BackendKind kind) {
        try (Harness h = Harness.open(kind, 3)) {
            h.rejectsEachUnnamed(NullPointerException.class, everyMethodOn(h, Firsts.NULLS));
            h.rejectsEach(NullPointerException.class, everyScanInto(h, null, null));
            h.rejectsEach(NullPointerException.class, everyMethodWithHeadFlags(h, null));
            h.rejectsEach(NullPointerException.class, everyMethodWithOffsets(h, null));
            h.rejectsEach(NullPointerException.class, everyReductionInto(h, (type, length) -> null));
        }
    }

    @ParameterizedTest
    @MethodSource("backends")
    void nullOpIsRejected(BackendKind kind) {
        try (Harness h = Harness.open(kind, 4)) {
            Primer p = h.primer;
            ByteArray bytes = h.make.bytes(N);
            IntArray ints = h.make.ints(N), intsOut = h.make.ints(N);
            LongArray longs = h.make.longs(N), offsets = h.make.offsets(OFFSETS);
            ByteArray flags = h.make.headFlags(N);
            List<Call> calls = new ArrayList<>(everyBuiltInOpMethodOnFloats(h, null));
            calls.add(call("reduce(ByteArray, Op)", "op", () -> p.reduce(bytes, (Op) null)));
            calls.add(call("reduce(IntArray, Op)", "op", () -> p.reduce(ints, (Op) null)));
            calls.add(call("reduce(LongArray, Op)", "op", () -> p.reduce(longs, (Op) null)));
            calls.add(call("exclusiveScan(in, out, Op, long)", "op", () -> p.exclusiveScan(ints, intsOut, (Op) null, 7L)));
            calls.add(call("segmentedExclusiveScan(in, headFlags, out, Op, long)", "op",
                    () -> p.segmentedExclusiveScan(ints, flags, intsOut, (Op) null, 7L)));
            calls.add(call("segmentedExclusiveScan(in, offsets, out, Op, long)", "op",
                    () -> p.segmentedExclusiveScan(ints, offsets, intsOut, (Op) null, 7L)));
            calls.addAll(everyCustomOpMethod(h, null, null, null, null));
            calls.addAll(int8CustomOpMethods(h, null, bytes, h.make.bytes(N)));
            h.rejectsEach(NullPointerException.class, calls);
        }
    }

    // ================================================================ closed

    /** A closed array anywhere: the exception {@link DeviceArray#requireOpen} gives for it. */
    @ParameterizedTest
    @MethodSource("backends")
    void closedArrayIsRejected(BackendKind kind) {
        try (Harness h = Harness.open(kind, 5)) {
            h.rejectsEachClosed(everyMethodOn(h, h.make.firsts(N).closeAll()));
            h.rejectsEachClosed(everyScanInto(h, h.make.closed(h.make.floats(N)), h.make.closed(h.make.ints(N))));
            h.rejectsEachClosed(everyMethodWithHeadFlags(h, h.make.closed(h.make.headFlags(N))));
            h.rejectsEachClosed(everyMethodWithOffsets(h, h.make.closed(h.make.offsets(OFFSETS))));
            h.rejectsEachClosed(everyReductionInto(h, (type, length) -> h.make.closed(h.make.of(type, length))));
        }
    }

    @ParameterizedTest
    @MethodSource("backends")
    void sliceOfAClosedArrayIsRejected(BackendKind kind) {
        try (Harness h = Harness.open(kind, 6)) {
            h.rejectsEachClosed(everyMethodOn(h, h.make.slicesOfClosedOwners()));
        }
    }

    // ================================================================ another Primer

    /** An array of a second Primer of the same kind, anywhere (first arrays' names: the *IsNamed tests). */
    @ParameterizedTest
    @MethodSource("backends")
    void arrayOfAnotherPrimerIsRejected(BackendKind kind) {
        try (Harness h = Harness.open(kind, 7)) {
            h.rejectsEachUnnamed(IllegalArgumentException.class, everyMethodOn(h, h.foreign.firsts(N)));
            h.rejectsEach(IllegalArgumentException.class, everyScanInto(h, h.foreign.floats(N), h.foreign.ints(N)));
            h.rejectsEach(IllegalArgumentException.class, everyMethodWithHeadFlags(h, h.foreign.headFlags(N)));
            h.rejectsEach(IllegalArgumentException.class, everyMethodWithOffsets(h, h.foreign.offsets(OFFSETS)));
            h.rejectsEach(IllegalArgumentException.class, everyReductionInto(h, h.foreign::of));
        }
    }

    // ================================================================ the first array is named (null and foreign)

    /** sum, reduce and argMin/argMax take one array, {@code a}; their messages call it "array". */
    @ParameterizedTest
    @MethodSource("backends")
    void arrayOfReduceAndArgExtremeIsNamed(BackendKind kind) {
        assertFirstArrayNamed(kind, "array", c -> true);
    }

    @ParameterizedTest
    @MethodSource("backends")
    void matrixIsNamed(BackendKind kind) {
        assertFirstArrayNamed(kind, "matrix", c -> true);
    }

    @ParameterizedTest
    @MethodSource("backends")
    void valuesIsNamed(BackendKind kind) {
        assertFirstArrayNamed(kind, "values", c -> true);
    }

    @ParameterizedTest
    @MethodSource("backends")
    void inOfBuiltInScansIsNamed(BackendKind kind) {
        assertFirstArrayNamed(kind, "in", c -> !c.name().contains("CustomOp"));
    }

    @ParameterizedTest
    @MethodSource("backends")
    void inOfCustomScansIsNamed(BackendKind kind) {
        assertFirstArrayNamed(kind, "in", c -> c.name().contains("CustomOp"));
    }

    private static void assertFirstArrayNamed(BackendKind kind, String argument, java.util.function.Predicate<Call> which) {
        try (Harness h = Harness.open(kind, 8)) {
            java.util.function.Predicate<Call> selected = c -> c.argument().equals(argument) && which.test(c);
            List<Call> nulls = everyMethodOn(h, Firsts.NULLS).stream().filter(selected).toList();
            List<Call> foreign = everyMethodOn(h, h.foreign.firsts(N)).stream().filter(selected).toList();
            assertAll(() -> h.rejectsEach(NullPointerException.class, nulls),
                      () -> h.rejectsEach(IllegalArgumentException.class, foreign));
        }
    }

    // ================================================================ lengths and shapes

    @ParameterizedTest
    @MethodSource("backends")
    void scanOutOfAnotherLengthIsRejected(BackendKind kind) {
        try (Harness h = Harness.open(kind, 9)) {
            for (int length : new int[] {0, N - 1, N + 1}) {
                h.rejectsEach(IllegalArgumentException.class, everyScanInto(h, h.make.floats(length), h.make.ints(length)));
            }
        }
    }

    /** The into-variants of the row and segment reductions: one element per row or segment, no more, no fewer. */
    @ParameterizedTest
    @MethodSource("backends")
    void reductionOutOfAnotherLengthIsRejected(BackendKind kind) {
        try (Harness h = Harness.open(kind, 27)) {
            for (int delta : new int[] {-1, 1, 5}) {
                h.rejectsEach(IllegalArgumentException.class, everyReductionInto(h, (type, length) -> h.make.of(type, length + delta)));
            }
        }
    }

    /** An into-variant's out of a type other than the results': the accumulator's, the operator's, or int64 indices. */
    @ParameterizedTest
    @MethodSource("backends")
    void reductionOutOfAnotherTypeIsRejected(BackendKind kind) {
        try (Harness h = Harness.open(kind, 28)) {
            Primer p = h.primer;
            Maker m = h.make;
            FloatArray floats = m.floats(N);
            IntArray ints = m.ints(N);
            ByteArray bytes = m.bytes(N);
            LongArray longs = m.longs(N), offsets = m.offsets(OFFSETS);
            int rows = (int) ROWS, segments = OFFSETS.length - 1;
            DoubleArray rowDoubles = m.doubles(rows), segmentDoubles = m.doubles(segments);
            IntArray rowInts = m.ints(rows);
            LongArray rowLongs = m.longs(rows), segmentLongs = m.longs(segments);
            ByteArray segmentBytes = m.bytes(segments);
            h.rejectsEach(IllegalArgumentException.class, List.of(
                    call("reduceRows(float32 SUM into float64)", "out", () -> p.reduceRows(floats, ROWS, COLS, Op.SUM, rowDoubles)),
                    call("reduceRows(int32 SUM into int32)", "out", () -> p.reduceRows(ints, ROWS, COLS, Op.SUM, rowInts)),
                    call("reduceRows(int32 MAX into int64)", "out", () -> p.reduceRows(ints, ROWS, COLS, Op.MAX, rowLongs)),
                    call("reduceRows(int32, CustomOp into int64)", "out", () -> p.reduceRows(ints, ROWS, COLS, INT_MAX, rowLongs)),
                    call("reduceSegments(int8 MAX into int64)", "out", () -> p.reduceSegments(bytes, offsets, Op.MAX, segmentLongs)),
                    call("reduceSegments(int8 PROD into int8)", "out", () -> p.reduceSegments(bytes, offsets, Op.PROD, segmentBytes)),
                    call("reduceSegments(int64 SUM into float64)", "out", () -> p.reduceSegments(longs, offsets, Op.SUM, segmentDoubles)),
                    call("reduceSegments(int64, CustomOp into float64)", "out",
                            () -> p.reduceSegments(longs, offsets, LONG_SUM, segmentDoubles))));
        }
    }

    /** out sharing memory with the matrix, the values or the offsets: the kernels would read what they write. */
    @ParameterizedTest
    @MethodSource("backends")
    void reductionOutOverlappingAnInputIsRejected(BackendKind kind) {
        try (Harness h = Harness.open(kind, 29)) {
            Primer p = h.primer;
            Maker m = h.make;
            LongArray matrix = m.longs(N), values = m.longs(N), offsets = m.offsets(OFFSETS);
            int rows = (int) ROWS, segments = OFFSETS.length - 1;
            h.rejectsEach(IllegalArgumentException.class, List.of(
                    call("reduceRows(out in the matrix)", "out", () -> p.reduceRows(matrix, ROWS, COLS, Op.SUM, matrix.slice(5, 5 + rows))),
                    call("argExtremeRows(out in the matrix)", "out",
                            () -> p.argExtremeRows(matrix, ROWS, COLS, true, matrix.slice(N - rows, N))),
                    call("reduceRows(CustomOp, out in the matrix)", "out",
                            () -> p.reduceRows(matrix, ROWS, COLS, LONG_SUM, matrix.slice(0, rows))),
                    call("reduceSegments(out in the values)", "out",
                            () -> p.reduceSegments(values, offsets, Op.MIN, values.slice(1, 1 + segments))),
                    call("reduceSegments(out in the offsets)", "out",
                            () -> p.reduceSegments(values, offsets, Op.SUM, offsets.slice(1, 1 + segments))),
                    call("argExtremeSegments(out in the offsets)", "out",
                            () -> p.argExtremeSegments(values, offsets, false, offsets.slice(0, segments))),
                    call("reduceSegments(CustomOp, out in the values)", "out",
                            () -> p.reduceSegments(values, offsets, LONG_SUM, values.slice(N - segments, N)))));
        }
    }

    @ParameterizedTest
    @MethodSource("backends")
    void headFlagsOfAnotherLengthIsRejected(BackendKind kind) {
        try (Harness h = Harness.open(kind, 10)) {
            for (int length : new int[] {0, N - 1, N + 1}) {
                h.rejectsEach(IllegalArgumentException.class, everyMethodWithHeadFlags(h, h.make.headFlags(length)));
            }
        }
    }

    /** rows × cols other than the matrix's length, including shapes of a plausible product (1 × 11, 4 × 4). */
    @ParameterizedTest
    @MethodSource("backends")
    void shapeNotMatchingTheMatrixIsRejected(BackendKind kind) {
        try (Harness h = Harness.open(kind, 11)) {
            for (long[] shape : new long[][] {{ROWS, COLS + 1}, {ROWS + 1, COLS}, {1, N - 1}, {4, 4}, {0, 0}, {N, 0}, {0, N}}) {
                h.rejectsEach(IllegalArgumentException.class, everyRowsMethod(h, h.make.floats(N), shape[0], shape[1], "rows"));
            }
        }
    }

    /** Negative rows or cols, also where the product is the length: (-3) × (-4) = 12. */
    @ParameterizedTest
    @MethodSource("backends")
    void negativeRowsOrColsAreRejected(BackendKind kind) {
        try (Harness h = Harness.open(kind, 12)) {
            FloatArray matrix = h.make.floats(N);
            for (long[] shape : new long[][] {{-ROWS, -COLS}, {-1, 0}, {-1, N}, {Long.MIN_VALUE, -1}}) {
                h.rejectsEach(IllegalArgumentException.class, everyRowsMethod(h, matrix, shape[0], shape[1], "rows"));
            }
            for (long[] shape : new long[][] {{ROWS, -COLS}, {0, -1}, {N, -1}}) {
                h.rejectsEach(IllegalArgumentException.class, everyRowsMethod(h, matrix, shape[0], shape[1], "cols"));
            }
        }
    }

    /** rows × cols beyond a long, including products that wrap around to exactly the matrix's length. */
    @ParameterizedTest
    @MethodSource("backends")
    void rowsTimesColsOverflowingALongIsRejected(BackendKind kind) {
        try (Harness h = Harness.open(kind, 13)) {
            FloatArray twelve = h.make.floats(N), one = h.make.floats(1), none = h.make.floats(0);
            List<Call> calls = new ArrayList<>();
            calls.addAll(everyRowsMethod(h, twelve, 4, 3 + (1L << 62), "rows"));              // 12 + 2^64
            calls.addAll(everyRowsMethod(h, one, Long.MAX_VALUE, Long.MAX_VALUE, "rows"));     // (2^63 - 1)^2 = 1 mod 2^64
            calls.addAll(everyRowsMethod(h, none, 1L << 32, 1L << 32, "rows"));                // 2^64
            calls.addAll(everyRowsMethod(h, none, 1L << 62, 4, "rows"));                       // 2^64
            calls.addAll(everyRowsMethod(h, twelve, Long.MAX_VALUE, 2, "rows"));
            h.rejectsEach(IllegalArgumentException.class, calls);
        }
    }

    @ParameterizedTest
    @MethodSource("backends")
    void emptyOffsetsAreRejected(BackendKind kind) {
        try (Harness h = Harness.open(kind, 14)) {
            h.rejectsEach(IllegalArgumentException.class, everyMethodWithOffsets(h, h.make.offsets()));
        }
    }

    /** offsets[0] negative, or the last offset beyond the values (both backends check these before they write). */
    @ParameterizedTest
    @MethodSource("backends")
    void offsetsOutsideTheValuesAreRejected(BackendKind kind) {
        try (Harness h = Harness.open(kind, 15)) {
            for (long[] offsets : new long[][] {{-1, 5, N}, {Long.MIN_VALUE, N}, {0, 5, N + 1}, {0, Long.MAX_VALUE}}) {
                h.rejectsEach(IllegalArgumentException.class, everyMethodWithOffsets(h, h.make.offsets(offsets)));
            }
        }
    }

    /** Offsets that decrease anywhere, by every method that takes offsets (the GPU checks them all on the device first). */
    @ParameterizedTest
    @MethodSource("backends")
    void decreasingOffsetsAreRejected(BackendKind kind) {
        try (Harness h = Harness.open(kind, 16)) {
            for (long[] offsets : new long[][] {{0, 7, 5, N}, {5, 0}, {0, N, 3, N}}) {
                h.rejectsEach(IllegalArgumentException.class, everyMethodWithOffsets(h, h.make.offsets(offsets)));
            }
        }
    }

    // ================================================================ types

    @ParameterizedTest
    @MethodSource("backends")
    void scanOutOfAnotherTypeIsRejected(BackendKind kind) {
        try (Harness h = Harness.open(kind, 18)) {
            Primer p = h.primer;
            Maker m = h.make;
            FloatArray floats = m.floats(N);
            DoubleArray doubles = m.doubles(N);
            IntArray ints = m.ints(N);
            LongArray longs = m.longs(N);
            ByteArray bytes = m.bytes(N), flags = m.headFlags(N);
            LongArray offsets = m.offsets(OFFSETS);
            FloatArray floatsOut = m.floats(N);
            DoubleArray doublesOut = m.doubles(N);
            IntArray intsOut = m.ints(N);
            LongArray longsOut = m.longs(N);
            List<Call> calls = List.of(
                    call("inclusiveScan(float32 -> float64)", "out", () -> p.inclusiveScan(floats, doublesOut, Op.SUM)),
                    call("inclusiveScan(float64 -> float32)", "out", () -> p.inclusiveScan(doubles, floatsOut, Op.SUM)),
                    call("inclusiveScan(int32 -> float32)", "out", () -> p.inclusiveScan(ints, floatsOut, Op.SUM)),
                    call("inclusiveScan(int32 -> int64, MIN)", "out", () -> p.inclusiveScan(ints, longsOut, Op.MIN)),
                    call("inclusiveScan(int32 -> int64, PROD)", "out", () -> p.inclusiveScan(ints, longsOut, Op.PROD)),
                    call("inclusiveScan(int64 -> int32, SUM)", "out", () -> p.inclusiveScan(longs, intsOut, Op.SUM)),
                    call("inclusiveScan(int8 -> int64, MAX)", "out", () -> p.inclusiveScan(bytes, longsOut, Op.MAX)),
                    call("inclusiveScan(int8 -> int32, SUM)", "out", () -> p.inclusiveScan(bytes, intsOut, Op.SUM)),
                    call("exclusiveScan(int32 -> int64, XOR, long)", "out", () -> p.exclusiveScan(ints, longsOut, Op.XOR, 0L)),
                    call("exclusiveScan(int64 -> int32, long)", "out", () -> p.exclusiveScan(longs, intsOut, Op.SUM, 0L)),
                    call("exclusiveScan(float32 -> float64, double)", "out", () -> p.exclusiveScan(floats, doublesOut, Op.SUM, 0.0)),
                    call("segmentedInclusiveScan(headFlags, float32 -> float64)", "out",
                            () -> p.segmentedInclusiveScan(floats, flags, doublesOut, Op.SUM)),
                    call("segmentedInclusiveScan(headFlags, int32 -> int64, MAX)", "out",
                            () -> p.segmentedInclusiveScan(ints, flags, longsOut, Op.MAX)),
                    call("segmentedInclusiveScan(offsets, float64 -> int64)", "out",
                            () -> p.segmentedInclusiveScan(doubles, offsets, longsOut, Op.SUM)),
                    call("segmentedInclusiveScan(offsets, int32 -> int64, PROD)", "out",
                            () -> p.segmentedInclusiveScan(ints, offsets, longsOut, Op.PROD)),
                    call("segmentedExclusiveScan(headFlags, float64 -> float32, double)", "out",
                            () -> p.segmentedExclusiveScan(doubles, flags, floatsOut, Op.SUM, 0.0)),
                    call("segmentedExclusiveScan(offsets, int64 -> int32, long)", "out",
                            () -> p.segmentedExclusiveScan(longs, offsets, intsOut, Op.MIN, 0L)),
                    call("inclusiveScan(float32 -> float64, CustomOp on float32)", "out",
                            () -> p.inclusiveScan(floats, doublesOut, FLOAT_SUM)),
                    call("exclusiveScan(int32 -> int64, CustomOp on int32)", "out", () -> p.exclusiveScan(ints, longsOut, INT_MAX)),
                    call("exclusiveScan(int64 -> int32, CustomOp on int64, long)", "out",
                            () -> p.exclusiveScan(longs, intsOut, LONG_SUM, 0L)),
                    call("exclusiveScan(float64 -> float32, CustomOp on float64, double)", "out",
                            () -> p.exclusiveScan(doubles, floatsOut, DOUBLE_SUM, 0.0)),
                    call("segmentedInclusiveScan(headFlags, float32 -> float64, CustomOp on float32)", "out",
                            () -> p.segmentedInclusiveScan(floats, flags, doublesOut, FLOAT_SUM)),
                    call("segmentedExclusiveScan(headFlags, int32 -> int64, CustomOp on int32)", "out",
                            () -> p.segmentedExclusiveScan(ints, flags, longsOut, INT_MAX)),
                    call("segmentedInclusiveScan(offsets, int64 -> float64, CustomOp on int64)", "out",
                            () -> p.segmentedInclusiveScan(longs, offsets, doublesOut, LONG_SUM)),
                    call("segmentedExclusiveScan(offsets, int64 -> int32, CustomOp on int64, long)", "out",
                            () -> p.segmentedExclusiveScan(longs, offsets, intsOut, LONG_SUM, 0L)),
                    call("segmentedExclusiveScan(offsets, float64 -> float32, CustomOp on float64, double)", "out",
                            () -> p.segmentedExclusiveScan(doubles, offsets, floatsOut, DOUBLE_SUM, 0.0)));
            h.rejectsEach(IllegalArgumentException.class, calls);
        }
    }

    /** The one widening scan: int32 in, int64 out, SUM; no wrap-around, and an init beyond int32. */
    @ParameterizedTest
    @MethodSource("backends")
    void int32ScanIntoInt64IsAcceptedForSum(BackendKind kind) {
        try (Harness h = Harness.open(kind, 19)) {
            int[] values = {Integer.MAX_VALUE, Integer.MAX_VALUE, 5, Integer.MIN_VALUE, -7, 1, 2, 3, Integer.MAX_VALUE, -1, 0, 9};
            IntArray in = h.make.upload(values);
            LongArray out = h.make.longs(N);
            h.primer.inclusiveScan(in, out, Op.SUM);
            assertArrayEquals(widenedPrefixSums(values, 0, true), out.toArray(), "inclusiveScan");
            long init = 1L << 40;
            h.primer.exclusiveScan(in, out, Op.SUM, init);
            assertArrayEquals(widenedPrefixSums(values, init, false), out.toArray(), "exclusiveScan");
            assertArrayEquals(values, in.toArray(), "in");
        }
    }

    /** int8 in, int64 out, SUM (what torch.cumsum gives for int8): no wrap-around at the byte's range. */
    @ParameterizedTest
    @MethodSource("backends")
    void int8ScanIntoInt64IsAcceptedForSum(BackendKind kind) {
        try (Harness h = Harness.open(kind, 21)) {
            byte[] values = {127, 127, 127, -128, -128, 5, -7, 1, 127, -1, 0, 9};
            ByteArray in = h.make.upload(values);
            LongArray out = h.make.longs(N);
            h.primer.inclusiveScan(in, out, Op.SUM);
            long[] want = new long[values.length];
            long acc = 0;
            for (int i = 0; i < values.length; i++) want[i] = acc += values[i];
            assertArrayEquals(want, out.toArray(), "inclusiveScan");
            h.primer.exclusiveScan(in, out, Op.SUM, -(1L << 40));
            acc = -(1L << 40);
            for (int i = 0; i < values.length; i++) {
                want[i] = acc;
                acc += values[i];
            }
            assertArrayEquals(want, out.toArray(), "exclusiveScan");
        }
    }

    /** Segmented scans widen as plain ones do, for SUM alone: int32 MAX into int64 is refused (SegmentedScanTest). */
    @ParameterizedTest
    @MethodSource("backends")
    void segmentedInt32MaxIntoInt64IsRejected(BackendKind kind) {
        try (Harness h = Harness.open(kind, 20)) {
            Primer p = h.primer;
            IntArray in = h.make.ints(N);
            LongArray out = h.make.longs(N), offsets = h.make.offsets(OFFSETS);
            ByteArray flags = h.make.headFlags(N);
            h.rejectsEach(IllegalArgumentException.class, List.of(
                    call("segmentedInclusiveScan(in, headFlags, out, Op)", "out", () -> p.segmentedInclusiveScan(in, flags, out, Op.MAX)),
                    call("segmentedInclusiveScan(in, offsets, out, Op)", "out", () -> p.segmentedInclusiveScan(in, offsets, out, Op.MAX)),
                    call("segmentedExclusiveScan(in, headFlags, out, Op, long)", "out",
                            () -> p.segmentedExclusiveScan(in, flags, out, Op.MAX, 0L)),
                    call("segmentedExclusiveScan(in, offsets, out, Op, long)", "out",
                            () -> p.segmentedExclusiveScan(in, offsets, out, Op.MAX, 0L))));
        }
    }

    @ParameterizedTest
    @MethodSource("backends")
    void operatorUndefinedForTheTypeIsRejected(BackendKind kind) {
        try (Harness h = Harness.open(kind, 21)) {
            for (Op op : new Op[] {Op.AND, Op.OR, Op.XOR}) {
                h.rejectsEach(IllegalArgumentException.class, everyBuiltInOpMethodOnFloats(h, op));
            }
        }
    }

    /** int8 argMin/argMax through Primer on each backend (GpuReduceTest covers the kernels at every size). */
    @ParameterizedTest
    @MethodSource("backends")
    void argMinAndArgMaxOfInt8GiveTheFirstExtreme(BackendKind kind) {
        try (Harness h = Harness.open(kind, 22)) {
            ByteArray bytes = h.make.bytes(N);
            byte[] v = bytes.toArray();
            int min = 0, max = 0;
            for (int i = 1; i < N; i++) {
                if (v[i] < v[min]) min = i;
                if (v[i] > v[max]) max = i;
            }
            assertEquals(min, h.primer.argMin(bytes));
            assertEquals(max, h.primer.argMax(bytes));
            assertEquals(-1, h.primer.argMax(h.make.bytes(0)));
        }
    }

    @ParameterizedTest
    @MethodSource("backends")
    void customOpOfAnotherTypeIsRejected(BackendKind kind) {
        try (Harness h = Harness.open(kind, 23)) {
            List<Call> calls = new ArrayList<>(everyCustomOpMethod(h, LONG_SUM, INT_MAX, DOUBLE_SUM, FLOAT_SUM));
            calls.addAll(everyCustomOpMethod(h, FLOAT_SUM, DOUBLE_SUM, INT_MAX, LONG_SUM));
            ByteArray bytes = h.make.bytes(N), bytesOut = h.make.bytes(N);
            calls.add(call("inclusiveScan(int8, CustomOp on int32)", "op", () -> h.primer.inclusiveScan(bytes, bytesOut, INT_MAX)));
            calls.addAll(everyCustomOpMethod(h, BYTE_SUM, BYTE_SUM, BYTE_SUM, BYTE_SUM));
            calls.addAll(int8CustomOpMethods(h, INT_MAX, h.make.bytes(N), h.make.bytes(N)));
            calls.addAll(int8CustomOpMethods(h, BYTE_SUM, h.make.ints(N), h.make.ints(N)));
            h.rejectsEach(IllegalArgumentException.class, calls);
        }
    }

    /** int8 rows and segments through Primer on each backend (GpuSegmentedReduceTest covers the kernels' shapes). */
    @ParameterizedTest
    @MethodSource("backends")
    void int8BatchedReductionsGiveTheReferenceOnEveryBackend(BackendKind kind) {
        try (Harness h = Harness.open(kind, 24)) {
            ByteArray matrix = h.make.bytes(N);
            LongArray offsets = h.make.offsets(OFFSETS);
            byte[] v = matrix.toArray();
            try (LongArray sums = (LongArray) h.primer.reduceRows(matrix, ROWS, COLS, Op.SUM);
                 LongArray firstMaxima = h.primer.argExtremeRows(matrix, ROWS, COLS, true);
                 ByteArray maxima = (ByteArray) h.primer.reduceSegments(matrix, offsets, Op.MAX);
                 LongArray where = h.primer.argExtremeSegments(matrix, offsets, true)) {
                assertArrayEquals(new long[] {sum(v, 0, 4), sum(v, 4, 8), sum(v, 8, 12)}, sums.toArray());
                assertArrayEquals(new long[] {argMax(v, 0, 4), argMax(v, 4, 8), argMax(v, 8, 12)}, firstMaxima.toArray());
                assertArrayEquals(new byte[] {v[(int) argMax(v, 0, 5)], Byte.MIN_VALUE, v[5 + (int) argMax(v, 5, 12)]},
                        maxima.toArray());
                assertArrayEquals(new long[] {argMax(v, 0, 5), -1, argMax(v, 5, 12)}, where.toArray());
            }
        }
    }

    // ================================================================ init

    @ParameterizedTest
    @MethodSource("backends")
    void integerInitOutOfRangeIsRejected(BackendKind kind) {
        try (Harness h = Harness.open(kind, 25)) {
            Primer p = h.primer;
            IntArray ints = h.make.ints(N), intsOut = h.make.ints(N);
            ByteArray bytes = h.make.bytes(N), bytesOut = h.make.bytes(N), flags = h.make.headFlags(N);
            LongArray offsets = h.make.offsets(OFFSETS);
            List<Call> calls = new ArrayList<>();
            for (long init : new long[] {Integer.MAX_VALUE + 1L, Integer.MIN_VALUE - 1L, Long.MAX_VALUE, Long.MIN_VALUE}) {
                calls.add(call("exclusiveScan(int32, Op, " + init + ")", "init", () -> p.exclusiveScan(ints, intsOut, Op.SUM, init)));
                calls.add(call("exclusiveScan(int32, CustomOp, " + init + ")", "init", () -> p.exclusiveScan(ints, intsOut, INT_MAX, init)));
                calls.add(call("segmentedExclusiveScan(int32, headFlags, " + init + ")", "init",
                        () -> p.segmentedExclusiveScan(ints, flags, intsOut, Op.SUM, init)));
                calls.add(call("segmentedExclusiveScan(int32, offsets, " + init + ")", "init",
                        () -> p.segmentedExclusiveScan(ints, offsets, intsOut, Op.MAX, init)));
                calls.add(call("segmentedExclusiveScan(int32, headFlags, CustomOp, " + init + ")", "init",
                        () -> p.segmentedExclusiveScan(ints, flags, intsOut, INT_MAX, init)));
                calls.add(call("segmentedExclusiveScan(int32, offsets, CustomOp, " + init + ")", "init",
                        () -> p.segmentedExclusiveScan(ints, offsets, intsOut, INT_MAX, init)));
            }
            for (long init : new long[] {Byte.MAX_VALUE + 1L, Byte.MIN_VALUE - 1L, 200, 255, Long.MIN_VALUE}) {
                calls.add(call("exclusiveScan(int8, Op, " + init + ")", "init", () -> p.exclusiveScan(bytes, bytesOut, Op.MAX, init)));
                calls.add(call("exclusiveScan(int8, CustomOp, " + init + ")", "init", () -> p.exclusiveScan(bytes, bytesOut, BYTE_SUM, init)));
                calls.add(call("segmentedExclusiveScan(int8, headFlags, CustomOp, " + init + ")", "init",
                        () -> p.segmentedExclusiveScan(bytes, flags, bytesOut, BYTE_SUM, init)));
                calls.add(call("segmentedExclusiveScan(int8, offsets, CustomOp, " + init + ")", "init",
                        () -> p.segmentedExclusiveScan(bytes, offsets, bytesOut, BYTE_SUM, init)));
            }
            h.rejectsEach(IllegalArgumentException.class, calls);
        }
    }

    @ParameterizedTest
    @MethodSource("backends")
    void integerInitAtTheLimitsIsAccepted(BackendKind kind) {
        try (Harness h = Harness.open(kind, 26)) {
            Primer p = h.primer;
            IntArray ints = h.make.ints(N), intsOut = h.make.ints(N);
            LongArray longs = h.make.longs(N), longsOut = h.make.longs(N), offsets = h.make.offsets(OFFSETS);
            ByteArray flags = h.make.headFlags(N), bytes = h.make.bytes(N), bytesOut = h.make.bytes(N);
            List<Call> calls = new ArrayList<>();
            for (long init : new long[] {Byte.MAX_VALUE, Byte.MIN_VALUE}) {
                calls.add(call("exclusiveScan(int8, CustomOp, " + init + ")", "init", () -> p.exclusiveScan(bytes, bytesOut, BYTE_SUM, init)));
                calls.add(call("segmentedExclusiveScan(int8, headFlags, CustomOp, " + init + ")", "init",
                        () -> p.segmentedExclusiveScan(bytes, flags, bytesOut, BYTE_SUM, init)));
                calls.add(call("segmentedExclusiveScan(int8, offsets, CustomOp, " + init + ")", "init",
                        () -> p.segmentedExclusiveScan(bytes, offsets, bytesOut, BYTE_SUM, init)));
            }
            for (long init : new long[] {Integer.MAX_VALUE, Integer.MIN_VALUE}) {
                calls.add(call("exclusiveScan(int32, Op, " + init + ")", "init", () -> p.exclusiveScan(ints, intsOut, Op.MIN, init)));
                calls.add(call("exclusiveScan(int32, CustomOp, " + init + ")", "init", () -> p.exclusiveScan(ints, intsOut, INT_MAX, init)));
                calls.add(call("segmentedExclusiveScan(int32, headFlags, " + init + ")", "init",
                        () -> p.segmentedExclusiveScan(ints, flags, intsOut, Op.MAX, init)));
                calls.add(call("segmentedExclusiveScan(int32, offsets, " + init + ")", "init",
                        () -> p.segmentedExclusiveScan(ints, offsets, intsOut, Op.MIN, init)));
                calls.add(call("segmentedExclusiveScan(int32, headFlags, CustomOp, " + init + ")", "init",
                        () -> p.segmentedExclusiveScan(ints, flags, intsOut, INT_MAX, init)));
                calls.add(call("segmentedExclusiveScan(int32, offsets, CustomOp, " + init + ")", "init",
                        () -> p.segmentedExclusiveScan(ints, offsets, intsOut, INT_MAX, init)));
            }
            for (long init : new long[] {Long.MAX_VALUE, Long.MIN_VALUE}) {
                calls.add(call("exclusiveScan(int64, Op, " + init + ")", "init", () -> p.exclusiveScan(longs, longsOut, Op.MAX, init)));
                calls.add(call("exclusiveScan(int64, CustomOp, " + init + ")", "init", () -> p.exclusiveScan(longs, longsOut, LONG_SUM, init)));
                calls.add(call("segmentedExclusiveScan(int64, offsets, " + init + ")", "init",
                        () -> p.segmentedExclusiveScan(longs, offsets, longsOut, Op.MAX, init)));
                calls.add(call("segmentedExclusiveScan(int64, headFlags, CustomOp, " + init + ")", "init",
                        () -> p.segmentedExclusiveScan(longs, flags, longsOut, LONG_SUM, init)));
                calls.add(call("segmentedExclusiveScan(int64, offsets, CustomOp, " + init + ")", "init",
                        () -> p.segmentedExclusiveScan(longs, offsets, longsOut, LONG_SUM, init)));
            }
            h.acceptsEach(calls);
        }
    }

    /** A long init for a float output, a double init for an integer output (int32 -> int64 included). */
    @ParameterizedTest
    @MethodSource("backends")
    void initOfTheWrongKindIsRejected(BackendKind kind) {
        try (Harness h = Harness.open(kind, 27)) {
            Primer p = h.primer;
            Maker m = h.make;
            FloatArray floats = m.floats(N), floatsOut = m.floats(N);
            DoubleArray doubles = m.doubles(N), doublesOut = m.doubles(N);
            IntArray ints = m.ints(N), intsOut = m.ints(N);
            LongArray longs = m.longs(N), longsOut = m.longs(N), offsets = m.offsets(OFFSETS);
            ByteArray flags = m.headFlags(N), bytes = m.bytes(N), bytesOut = m.bytes(N);
            List<Call> calls = List.of(
                    call("exclusiveScan(float32, Op, long)", "init", () -> p.exclusiveScan(floats, floatsOut, Op.SUM, 1L)),
                    call("exclusiveScan(float64, Op, long)", "init", () -> p.exclusiveScan(doubles, doublesOut, Op.MIN, 1L)),
                    call("exclusiveScan(int32, Op, double)", "init", () -> p.exclusiveScan(ints, intsOut, Op.SUM, 1.0)),
                    call("exclusiveScan(int64, Op, double)", "init", () -> p.exclusiveScan(longs, longsOut, Op.AND, 1.0)),
                    call("exclusiveScan(int32 -> int64, Op, double)", "init", () -> p.exclusiveScan(ints, longsOut, Op.SUM, 1.0)),
                    call("exclusiveScan(float32, CustomOp, long)", "init", () -> p.exclusiveScan(floats, floatsOut, FLOAT_SUM, 1L)),
                    call("exclusiveScan(float64, CustomOp, long)", "init", () -> p.exclusiveScan(doubles, doublesOut, DOUBLE_SUM, 1L)),
                    call("exclusiveScan(int32, CustomOp, double)", "init", () -> p.exclusiveScan(ints, intsOut, INT_MAX, 1.0)),
                    call("exclusiveScan(int64, CustomOp, double)", "init", () -> p.exclusiveScan(longs, longsOut, LONG_SUM, 1.0)),
                    call("exclusiveScan(int8, CustomOp, double)", "init", () -> p.exclusiveScan(bytes, bytesOut, BYTE_SUM, 1.0)),
                    call("segmentedExclusiveScan(int8, offsets, CustomOp, double)", "init",
                            () -> p.segmentedExclusiveScan(bytes, offsets, bytesOut, BYTE_SUM, 1.0)),
                    call("segmentedExclusiveScan(float32, headFlags, long)", "init",
                            () -> p.segmentedExclusiveScan(floats, flags, floatsOut, Op.SUM, 1L)),
                    call("segmentedExclusiveScan(float64, offsets, long)", "init",
                            () -> p.segmentedExclusiveScan(doubles, offsets, doublesOut, Op.MAX, 1L)),
                    call("segmentedExclusiveScan(int32, headFlags, double)", "init",
                            () -> p.segmentedExclusiveScan(ints, flags, intsOut, Op.SUM, 1.0)),
                    call("segmentedExclusiveScan(int64, offsets, double)", "init",
                            () -> p.segmentedExclusiveScan(longs, offsets, longsOut, Op.SUM, 1.0)),
                    call("segmentedExclusiveScan(float32, headFlags, CustomOp, long)", "init",
                            () -> p.segmentedExclusiveScan(floats, flags, floatsOut, FLOAT_SUM, 1L)),
                    call("segmentedExclusiveScan(float64, offsets, CustomOp, long)", "init",
                            () -> p.segmentedExclusiveScan(doubles, offsets, doublesOut, DOUBLE_SUM, 1L)),
                    call("segmentedExclusiveScan(int32, headFlags, CustomOp, double)", "init",
                            () -> p.segmentedExclusiveScan(ints, flags, intsOut, INT_MAX, 1.0)),
                    call("segmentedExclusiveScan(int64, offsets, CustomOp, double)", "init",
                            () -> p.segmentedExclusiveScan(longs, offsets, longsOut, LONG_SUM, 1.0)));
            h.rejectsEach(IllegalArgumentException.class, calls);
        }
    }

    /**
     * A finite double init that float32 cannot hold: Reductions.floatingInitBits narrows it with a cast,
     * so 1e300 becomes +Infinity; the integer inits that do not fit are rejected.
     */
    @ParameterizedTest
    @MethodSource("backends")
    void finiteInitBeyondFloat32IsRejected(BackendKind kind) {
        try (Harness h = Harness.open(kind, 28)) {
            Primer p = h.primer;
            FloatArray floats = h.make.floats(N), floatsOut = h.make.floats(N);
            ByteArray flags = h.make.headFlags(N);
            LongArray offsets = h.make.offsets(OFFSETS);
            List<Call> calls = new ArrayList<>();
            for (double init : new double[] {1e300, -1e300, Double.MAX_VALUE, 4e38}) {
                calls.add(call("exclusiveScan(float32, Op, " + init + ")", "init", () -> p.exclusiveScan(floats, floatsOut, Op.SUM, init)));
                calls.add(call("exclusiveScan(float32, CustomOp, " + init + ")", "init",
                        () -> p.exclusiveScan(floats, floatsOut, FLOAT_SUM, init)));
                calls.add(call("segmentedExclusiveScan(float32, headFlags, " + init + ")", "init",
                        () -> p.segmentedExclusiveScan(floats, flags, floatsOut, Op.SUM, init)));
                calls.add(call("segmentedExclusiveScan(float32, offsets, " + init + ")", "init",
                        () -> p.segmentedExclusiveScan(floats, offsets, floatsOut, Op.MIN, init)));
                calls.add(call("segmentedExclusiveScan(float32, headFlags, CustomOp, " + init + ")", "init",
                        () -> p.segmentedExclusiveScan(floats, flags, floatsOut, FLOAT_SUM, init)));
                calls.add(call("segmentedExclusiveScan(float32, offsets, CustomOp, " + init + ")", "init",
                        () -> p.segmentedExclusiveScan(floats, offsets, floatsOut, FLOAT_SUM, init)));
            }
            h.rejectsEach(IllegalArgumentException.class, calls);
        }
    }

    // ================================================================ aliasing

    /** out overlapping in without being in (slices of one array): the scan would read what it wrote. */
    @ParameterizedTest
    @MethodSource("backends")
    void outPartlyOverlappingInIsRejected(BackendKind kind) {
        try (Harness h = Harness.open(kind, 29)) {
            Primer p = h.primer;
            LongArray both = h.make.longs(N + 2);
            LongArray in = both.slice(0, N), out = both.slice(2, N + 2);
            ByteArray flags = h.make.headFlags(N);
            LongArray offsets = h.make.offsets(OFFSETS);
            List<Call> calls = List.of(
                    call("inclusiveScan(in, out, Op)", "out", () -> p.inclusiveScan(in, out, Op.SUM)),
                    call("exclusiveScan(in, out, Op, long)", "out", () -> p.exclusiveScan(in, out, Op.MAX, 3L)),
                    call("inclusiveScan(in, out, CustomOp)", "out", () -> p.inclusiveScan(in, out, LONG_SUM)),
                    call("exclusiveScan(in, out, CustomOp, long)", "out", () -> p.exclusiveScan(in, out, LONG_SUM, 3L)),
                    call("segmentedInclusiveScan(in, headFlags, out, Op)", "out", () -> p.segmentedInclusiveScan(in, flags, out, Op.SUM)),
                    call("segmentedInclusiveScan(in, offsets, out, Op)", "out", () -> p.segmentedInclusiveScan(in, offsets, out, Op.SUM)),
                    call("segmentedExclusiveScan(in, headFlags, out, Op, long)", "out",
                            () -> p.segmentedExclusiveScan(in, flags, out, Op.SUM, 3L)),
                    call("segmentedExclusiveScan(in, offsets, out, Op, long)", "out",
                            () -> p.segmentedExclusiveScan(in, offsets, out, Op.MIN, 3L)),
                    call("segmentedInclusiveScan(in, headFlags, out, CustomOp)", "out",
                            () -> p.segmentedInclusiveScan(in, flags, out, LONG_SUM)),
                    call("segmentedExclusiveScan(in, headFlags, out, CustomOp, long)", "out",
                            () -> p.segmentedExclusiveScan(in, flags, out, LONG_SUM, 3L)),
                    call("segmentedInclusiveScan(in, offsets, out, CustomOp)", "out",
                            () -> p.segmentedInclusiveScan(in, offsets, out, LONG_SUM)),
                    call("segmentedExclusiveScan(in, offsets, out, CustomOp)", "out",
                            () -> p.segmentedExclusiveScan(in, offsets, out, LONG_SUM)));
            h.rejectsEach(IllegalArgumentException.class, calls);
        }
    }

    /**
     * offsets inside the part of out the segmented scan writes: the scan would overwrite its own offsets.
     * The GPU rejects it ("offsets: overlaps out", GpuScan.segmentedScanByOffsets); CpuScan does not check.
     */
    @ParameterizedTest
    @MethodSource("backends")
    void offsetsOverlappingOutAreRejected(BackendKind kind) {
        try (Harness h = Harness.open(kind, 30)) {
            List<Call> calls = new ArrayList<>();
            for (boolean inclusive : new boolean[] {true, false}) {  // fresh arrays each: a scan let through overwrites them
                LongArray in = h.make.longs(N);
                LongArray shared = h.make.longs(N + OFFSETS.length);
                LongArray out = shared.slice(OFFSETS.length, N + OFFSETS.length);
                LongArray offsets = shared.slice(N, N + OFFSETS.length);  // out's elements N - 4 .. N - 1
                offsets.copyFrom(OFFSETS);
                calls.add(inclusive
                        ? call("segmentedInclusiveScan(in, offsets, out, Op)", "offsets",
                                () -> h.primer.segmentedInclusiveScan(in, offsets, out, Op.SUM))
                        : call("segmentedExclusiveScan(in, offsets, out, Op, long)", "offsets",
                                () -> h.primer.segmentedExclusiveScan(in, offsets, out, Op.SUM, 0L)));
            }
            h.rejectsEach(IllegalArgumentException.class, calls);
        }
    }

    /** As {@link #offsetsOverlappingOutAreRejected}, for the scans with a user-defined operator. */
    @ParameterizedTest
    @MethodSource("backends")
    void offsetsOverlappingOutAreRejectedForCustomOps(BackendKind kind) {
        try (Harness h = Harness.open(kind, 32)) {
            List<Call> calls = new ArrayList<>();
            for (int variant = 0; variant < 3; variant++) {  // fresh arrays each: a scan let through overwrites them
                LongArray in = h.make.longs(N);
                LongArray shared = h.make.longs(N + OFFSETS.length);
                LongArray out = shared.slice(OFFSETS.length, N + OFFSETS.length);
                LongArray offsets = shared.slice(N, N + OFFSETS.length);  // out's elements N - 4 .. N - 1
                offsets.copyFrom(OFFSETS);
                calls.add(switch (variant) {
                    case 0 -> call("segmentedInclusiveScan(in, offsets, out, CustomOp)", "offsets",
                            () -> h.primer.segmentedInclusiveScan(in, offsets, out, LONG_SUM));
                    case 1 -> call("segmentedExclusiveScan(in, offsets, out, CustomOp)", "offsets",
                            () -> h.primer.segmentedExclusiveScan(in, offsets, out, LONG_SUM));
                    default -> call("segmentedExclusiveScan(in, offsets, out, CustomOp, long)", "offsets",
                            () -> h.primer.segmentedExclusiveScan(in, offsets, out, LONG_SUM, 0L));
                });
            }
            h.rejectsEach(IllegalArgumentException.class, calls);
        }
    }

    /**
     * headFlags inside the int32 out of a scan with a user-defined operator. The public API cannot make
     * an int8 view of an int32 array, so the view is built through ByteArray's package-private
     * constructor, to reach the facade's check (Primer.checkHeadFlags) all the same.
     */
    @ParameterizedTest
    @MethodSource("backends")
    void headFlagsOverlappingOutAreRejectedForCustomOps(BackendKind kind) {
        try (Harness h = Harness.open(kind, 33)) {
            List<Call> calls = new ArrayList<>();
            for (int variant = 0; variant < 3; variant++) {  // fresh arrays each: a scan let through overwrites them
                IntArray in = h.make.ints(N);
                IntArray shared = h.make.ints(N + 1);
                IntArray out = shared.slice(1, N + 1);
                ByteArray flags = new ByteArray(shared.memory, shared.offsetBytes() + 2, N, shared);  // out's first bytes
                calls.add(switch (variant) {
                    case 0 -> call("segmentedInclusiveScan(in, headFlags, out, CustomOp)", "headFlags",
                            () -> h.primer.segmentedInclusiveScan(in, flags, out, INT_MAX));
                    case 1 -> call("segmentedExclusiveScan(in, headFlags, out, CustomOp)", "headFlags",
                            () -> h.primer.segmentedExclusiveScan(in, flags, out, INT_MAX));
                    default -> call("segmentedExclusiveScan(in, headFlags, out, CustomOp, long)", "headFlags",
                            () -> h.primer.segmentedExclusiveScan(in, flags, out, INT_MAX, 0L));
                });
            }
            h.rejectsEach(IllegalArgumentException.class, calls);
        }
    }

    /**
     * headFlags inside out (int8 slices of one array): the scan's writes would become later flags.
     */
    @ParameterizedTest
    @MethodSource("backends")
    void headFlagsOverlappingOutAreRejected(BackendKind kind) {
        try (Harness h = Harness.open(kind, 31)) {
            List<Call> calls = new ArrayList<>();
            for (boolean inclusive : new boolean[] {true, false}) {  // fresh arrays each: a scan let through overwrites them
                ByteArray in = h.make.bytes(N);
                ByteArray shared = h.make.headFlags(N + 4);
                ByteArray out = shared.slice(4, N + 4), flags = shared.slice(0, N);
                calls.add(inclusive
                        ? call("segmentedInclusiveScan(in, headFlags, out, Op)", "headFlags",
                                () -> h.primer.segmentedInclusiveScan(in, flags, out, Op.SUM))
                        : call("segmentedExclusiveScan(in, headFlags, out, Op, long)", "headFlags",
                                () -> h.primer.segmentedExclusiveScan(in, flags, out, Op.SUM, 0L)));
            }
            h.rejectsEach(IllegalArgumentException.class, calls);
        }
    }

    // ================================================================ the call tables

    /** One call of a facade method; {@code argument}: the parameter under test; {@code array}: its value. */
    private record Call(String name, String argument, DeviceArray array, Executable run) {}

    private static Call call(String name, String argument, Executable run) { return new Call(name, argument, null, run); }

    /** The first array of each method, one per type: all null, all closed, or all of another Primer. */
    private record Firsts(ByteArray bytes, IntArray ints, LongArray longs, FloatArray floats, DoubleArray doubles) {
        static final Firsts NULLS = new Firsts(null, null, null, null, null);

        Firsts closeAll() {
            for (DeviceArray a : new DeviceArray[] {bytes, ints, longs, floats, doubles}) a.close();
            return this;
        }
    }

    /**
     * Every method that takes arrays, each overload once, with {@code x}'s array of the method's type
     * first and valid other arguments (outputs the method returns are closed). The argument: "array"
     * for reduce, sum, argMin/argMax (parameter {@code a}), else the parameter's name.
     */
    private static List<Call> everyMethodOn(Harness h, Firsts x) {
        Primer p = h.primer;
        Maker m = h.make;
        IntArray intsOut = m.ints(N);
        LongArray longsOut = m.longs(N);
        FloatArray floatsOut = m.floats(N);
        DoubleArray doublesOut = m.doubles(N);
        ByteArray flags = m.headFlags(N);
        LongArray offsets = m.offsets(OFFSETS);
        int rows = (int) ROWS, segments = OFFSETS.length - 1;
        FloatArray rowSums = m.floats(rows);
        IntArray rowMaxima = m.ints(rows);
        LongArray rowIndices = m.longs(rows), segmentSums = m.longs(segments), segmentIndices = m.longs(segments);
        DoubleArray segmentTotals = m.doubles(segments);
        return List.of(
                new Call("sum(ByteArray)", "array", x.bytes(), () -> p.sum(x.bytes())),
                new Call("sum(IntArray)", "array", x.ints(), () -> p.sum(x.ints())),
                new Call("sum(LongArray)", "array", x.longs(), () -> p.sum(x.longs())),
                new Call("sum(FloatArray)", "array", x.floats(), () -> p.sum(x.floats())),
                new Call("sum(DoubleArray)", "array", x.doubles(), () -> p.sum(x.doubles())),
                new Call("reduce(ByteArray, Op)", "array", x.bytes(), () -> p.reduce(x.bytes(), Op.XOR)),
                new Call("reduce(IntArray, Op)", "array", x.ints(), () -> p.reduce(x.ints(), Op.MIN)),
                new Call("reduce(LongArray, Op)", "array", x.longs(), () -> p.reduce(x.longs(), Op.MAX)),
                new Call("reduce(FloatArray, Op)", "array", x.floats(), () -> p.reduce(x.floats(), Op.PROD)),
                new Call("reduce(DoubleArray, Op)", "array", x.doubles(), () -> p.reduce(x.doubles(), Op.SUM)),
                new Call("reduce(ByteArray, CustomOp)", "array", x.bytes(), () -> p.reduce(x.bytes(), BYTE_SUM)),
                new Call("reduce(IntArray, CustomOp)", "array", x.ints(), () -> p.reduce(x.ints(), INT_MAX)),
                new Call("reduce(LongArray, CustomOp)", "array", x.longs(), () -> p.reduce(x.longs(), LONG_SUM)),
                new Call("reduce(FloatArray, CustomOp)", "array", x.floats(), () -> p.reduce(x.floats(), FLOAT_SUM)),
                new Call("reduce(DoubleArray, CustomOp)", "array", x.doubles(), () -> p.reduce(x.doubles(), DOUBLE_SUM)),
                new Call("argMin", "array", x.ints(), () -> p.argMin(x.ints())),
                new Call("argMax", "array", x.doubles(), () -> p.argMax(x.doubles())),
                new Call("reduceRows", "matrix", x.floats(), () -> p.reduceRows(x.floats(), ROWS, COLS, Op.SUM).close()),
                new Call("argExtremeRows", "matrix", x.doubles(), () -> p.argExtremeRows(x.doubles(), ROWS, COLS, true).close()),
                new Call("reduceSegments", "values", x.ints(), () -> p.reduceSegments(x.ints(), offsets, Op.SUM).close()),
                new Call("argExtremeSegments", "values", x.longs(), () -> p.argExtremeSegments(x.longs(), offsets, false).close()),
                new Call("reduceRows(into out)", "matrix", x.floats(), () -> p.reduceRows(x.floats(), ROWS, COLS, Op.SUM, rowSums)),
                new Call("argExtremeRows(into out)", "matrix", x.doubles(), () -> p.argExtremeRows(x.doubles(), ROWS, COLS, true, rowIndices)),
                new Call("reduceSegments(into out)", "values", x.ints(), () -> p.reduceSegments(x.ints(), offsets, Op.SUM, segmentSums)),
                new Call("argExtremeSegments(into out)", "values", x.longs(),
                        () -> p.argExtremeSegments(x.longs(), offsets, false, segmentIndices)),
                new Call("reduceRows(CustomOp, into out)", "matrix", x.ints(), () -> p.reduceRows(x.ints(), ROWS, COLS, INT_MAX, rowMaxima)),
                new Call("reduceSegments(CustomOp, into out)", "values", x.doubles(),
                        () -> p.reduceSegments(x.doubles(), offsets, DOUBLE_SUM, segmentTotals)),
                new Call("inclusiveScan(in, out, Op)", "in", x.floats(), () -> p.inclusiveScan(x.floats(), floatsOut, Op.SUM)),
                new Call("exclusiveScan(in, out, Op, long)", "in", x.ints(), () -> p.exclusiveScan(x.ints(), intsOut, Op.SUM, 7L)),
                new Call("exclusiveScan(in, out, Op, double)", "in", x.doubles(), () -> p.exclusiveScan(x.doubles(), doublesOut, Op.MAX, 0.5)),
                new Call("inclusiveScan(in, out, CustomOp)", "in", x.floats(), () -> p.inclusiveScan(x.floats(), floatsOut, FLOAT_SUM)),
                new Call("exclusiveScan(in, out, CustomOp)", "in", x.longs(), () -> p.exclusiveScan(x.longs(), longsOut, LONG_SUM)),
                new Call("exclusiveScan(in, out, CustomOp, long)", "in", x.ints(), () -> p.exclusiveScan(x.ints(), intsOut, INT_MAX, 7L)),
                new Call("exclusiveScan(in, out, CustomOp, double)", "in", x.doubles(),
                        () -> p.exclusiveScan(x.doubles(), doublesOut, DOUBLE_SUM, 0.5)),
                new Call("segmentedInclusiveScan(in, headFlags, out, Op)", "in", x.floats(),
                        () -> p.segmentedInclusiveScan(x.floats(), flags, floatsOut, Op.MAX)),
                new Call("segmentedInclusiveScan(in, offsets, out, Op)", "in", x.longs(),
                        () -> p.segmentedInclusiveScan(x.longs(), offsets, longsOut, Op.SUM)),
                new Call("segmentedExclusiveScan(in, headFlags, out, Op, long)", "in", x.ints(),
                        () -> p.segmentedExclusiveScan(x.ints(), flags, intsOut, Op.SUM, 7L)),
                new Call("segmentedExclusiveScan(in, headFlags, out, Op, double)", "in", x.doubles(),
                        () -> p.segmentedExclusiveScan(x.doubles(), flags, doublesOut, Op.MIN, 0.5)),
                new Call("segmentedExclusiveScan(in, offsets, out, Op, long)", "in", x.longs(),
                        () -> p.segmentedExclusiveScan(x.longs(), offsets, longsOut, Op.XOR, 7L)),
                new Call("segmentedExclusiveScan(in, offsets, out, Op, double)", "in", x.floats(),
                        () -> p.segmentedExclusiveScan(x.floats(), offsets, floatsOut, Op.PROD, 0.5)),
                new Call("reduceRows(CustomOp)", "matrix", x.ints(), () -> p.reduceRows(x.ints(), ROWS, COLS, INT_MAX).close()),
                new Call("reduceSegments(CustomOp)", "values", x.doubles(), () -> p.reduceSegments(x.doubles(), offsets, DOUBLE_SUM).close()),
                new Call("segmentedInclusiveScan(in, headFlags, out, CustomOp)", "in", x.floats(),
                        () -> p.segmentedInclusiveScan(x.floats(), flags, floatsOut, FLOAT_SUM)),
                new Call("segmentedExclusiveScan(in, headFlags, out, CustomOp)", "in", x.longs(),
                        () -> p.segmentedExclusiveScan(x.longs(), flags, longsOut, LONG_SUM)),
                new Call("segmentedExclusiveScan(in, headFlags, out, CustomOp, long)", "in", x.ints(),
                        () -> p.segmentedExclusiveScan(x.ints(), flags, intsOut, INT_MAX, 7L)),
                new Call("segmentedExclusiveScan(in, headFlags, out, CustomOp, double)", "in", x.doubles(),
                        () -> p.segmentedExclusiveScan(x.doubles(), flags, doublesOut, DOUBLE_SUM, 0.5)),
                new Call("segmentedInclusiveScan(in, offsets, out, CustomOp)", "in", x.doubles(),
                        () -> p.segmentedInclusiveScan(x.doubles(), offsets, doublesOut, DOUBLE_SUM)),
                new Call("segmentedExclusiveScan(in, offsets, out, CustomOp)", "in", x.ints(),
                        () -> p.segmentedExclusiveScan(x.ints(), offsets, intsOut, INT_MAX)),
                new Call("segmentedExclusiveScan(in, offsets, out, CustomOp, long)", "in", x.longs(),
                        () -> p.segmentedExclusiveScan(x.longs(), offsets, longsOut, LONG_SUM, 7L)),
                new Call("segmentedExclusiveScan(in, offsets, out, CustomOp, double)", "in", x.floats(),
                        () -> p.segmentedExclusiveScan(x.floats(), offsets, floatsOut, FLOAT_SUM, 0.5)));
    }

    /** Every scan, writing into {@code floatsOut} or {@code intsOut}, from valid inputs of N elements. */
    private static List<Call> everyScanInto(Harness h, FloatArray floatsOut, IntArray intsOut) {
        Primer p = h.primer;
        FloatArray floats = h.make.floats(N);
        IntArray ints = h.make.ints(N);
        ByteArray flags = h.make.headFlags(N);
        LongArray offsets = h.make.offsets(OFFSETS);
        return List.of(
                new Call("inclusiveScan(in, out, Op)", "out", floatsOut, () -> p.inclusiveScan(floats, floatsOut, Op.SUM)),
                new Call("exclusiveScan(in, out, Op, long)", "out", intsOut, () -> p.exclusiveScan(ints, intsOut, Op.SUM, 7L)),
                new Call("exclusiveScan(in, out, Op, double)", "out", floatsOut, () -> p.exclusiveScan(floats, floatsOut, Op.MAX, 0.5)),
                new Call("inclusiveScan(in, out, CustomOp)", "out", floatsOut, () -> p.inclusiveScan(floats, floatsOut, FLOAT_SUM)),
                new Call("exclusiveScan(in, out, CustomOp)", "out", intsOut, () -> p.exclusiveScan(ints, intsOut, INT_MAX)),
                new Call("exclusiveScan(in, out, CustomOp, long)", "out", intsOut, () -> p.exclusiveScan(ints, intsOut, INT_MAX, 7L)),
                new Call("exclusiveScan(in, out, CustomOp, double)", "out", floatsOut,
                        () -> p.exclusiveScan(floats, floatsOut, FLOAT_SUM, 0.5)),
                new Call("segmentedInclusiveScan(in, headFlags, out, Op)", "out", floatsOut,
                        () -> p.segmentedInclusiveScan(floats, flags, floatsOut, Op.SUM)),
                new Call("segmentedInclusiveScan(in, offsets, out, Op)", "out", intsOut,
                        () -> p.segmentedInclusiveScan(ints, offsets, intsOut, Op.MIN)),
                new Call("segmentedExclusiveScan(in, headFlags, out, Op, long)", "out", intsOut,
                        () -> p.segmentedExclusiveScan(ints, flags, intsOut, Op.MAX, 7L)),
                new Call("segmentedExclusiveScan(in, headFlags, out, Op, double)", "out", floatsOut,
                        () -> p.segmentedExclusiveScan(floats, flags, floatsOut, Op.SUM, 0.5)),
                new Call("segmentedExclusiveScan(in, offsets, out, Op, long)", "out", intsOut,
                        () -> p.segmentedExclusiveScan(ints, offsets, intsOut, Op.SUM, 7L)),
                new Call("segmentedExclusiveScan(in, offsets, out, Op, double)", "out", floatsOut,
                        () -> p.segmentedExclusiveScan(floats, offsets, floatsOut, Op.MIN, 0.5)),
                new Call("segmentedInclusiveScan(in, headFlags, out, CustomOp)", "out", floatsOut,
                        () -> p.segmentedInclusiveScan(floats, flags, floatsOut, FLOAT_SUM)),
                new Call("segmentedExclusiveScan(in, headFlags, out, CustomOp)", "out", intsOut,
                        () -> p.segmentedExclusiveScan(ints, flags, intsOut, INT_MAX)),
                new Call("segmentedExclusiveScan(in, headFlags, out, CustomOp, long)", "out", intsOut,
                        () -> p.segmentedExclusiveScan(ints, flags, intsOut, INT_MAX, 7L)),
                new Call("segmentedExclusiveScan(in, headFlags, out, CustomOp, double)", "out", floatsOut,
                        () -> p.segmentedExclusiveScan(floats, flags, floatsOut, FLOAT_SUM, 0.5)),
                new Call("segmentedInclusiveScan(in, offsets, out, CustomOp)", "out", intsOut,
                        () -> p.segmentedInclusiveScan(ints, offsets, intsOut, INT_MAX)),
                new Call("segmentedExclusiveScan(in, offsets, out, CustomOp)", "out", floatsOut,
                        () -> p.segmentedExclusiveScan(floats, offsets, floatsOut, FLOAT_SUM)),
                new Call("segmentedExclusiveScan(in, offsets, out, CustomOp, long)", "out", intsOut,
                        () -> p.segmentedExclusiveScan(ints, offsets, intsOut, INT_MAX, 7L)),
                new Call("segmentedExclusiveScan(in, offsets, out, CustomOp, double)", "out", floatsOut,
                        () -> p.segmentedExclusiveScan(floats, offsets, floatsOut, FLOAT_SUM, 0.5)));
    }

    /** Makes the {@code out} of an into-variant: an array of {@code type} and {@code length}, or a bad one. */
    private interface OutMaker {
        DeviceArray of(DType type, int length);
    }

    /**
     * Every into-variant of the row and segment reductions, from valid inputs, writing into what
     * {@code out} makes for the results' type and count (ROWS rows, or OFFSETS' segments).
     */
    private static List<Call> everyReductionInto(Harness h, OutMaker out) {
        Primer p = h.primer;
        FloatArray floats = h.make.floats(N);
        IntArray ints = h.make.ints(N);
        ByteArray bytes = h.make.bytes(N);
        DoubleArray doubles = h.make.doubles(N);
        LongArray offsets = h.make.offsets(OFFSETS);
        int rows = (int) ROWS, segments = OFFSETS.length - 1;
        DeviceArray rowSums = out.of(DType.LONG, rows), rowIndices = out.of(DType.LONG, rows), rowTotals = out.of(DType.FLOAT, rows);
        DeviceArray segmentMaxima = out.of(DType.BYTE, segments), segmentIndices = out.of(DType.LONG, segments);
        DeviceArray segmentTotals = out.of(DType.DOUBLE, segments);
        return List.of(
                new Call("reduceRows(int32 SUM, into out)", "out", rowSums, () -> p.reduceRows(ints, ROWS, COLS, Op.SUM, rowSums)),
                new Call("argExtremeRows(into out)", "out", rowIndices,
                        () -> p.argExtremeRows(floats, ROWS, COLS, false, (LongArray) rowIndices)),
                new Call("reduceRows(CustomOp, into out)", "out", rowTotals, () -> p.reduceRows(floats, ROWS, COLS, FLOAT_SUM, rowTotals)),
                new Call("reduceSegments(int8 MAX, into out)", "out", segmentMaxima,
                        () -> p.reduceSegments(bytes, offsets, Op.MAX, segmentMaxima)),
                new Call("argExtremeSegments(into out)", "out", segmentIndices,
                        () -> p.argExtremeSegments(doubles, offsets, true, (LongArray) segmentIndices)),
                new Call("reduceSegments(CustomOp, into out)", "out", segmentTotals,
                        () -> p.reduceSegments(doubles, offsets, DOUBLE_SUM, segmentTotals)));
    }

    /** Every segmented scan by head flags, with {@code flags} and in and out of N elements. */
    private static List<Call> everyMethodWithHeadFlags(Harness h, ByteArray flags) {
        Primer p = h.primer;
        FloatArray floats = h.make.floats(N), floatsOut = h.make.floats(N);
        IntArray ints = h.make.ints(N), intsOut = h.make.ints(N);
        return List.of(
                new Call("segmentedInclusiveScan(in, headFlags, out, Op)", "headFlags", flags,
                        () -> p.segmentedInclusiveScan(floats, flags, floatsOut, Op.SUM)),
                new Call("segmentedExclusiveScan(in, headFlags, out, Op, long)", "headFlags", flags,
                        () -> p.segmentedExclusiveScan(ints, flags, intsOut, Op.SUM, 7L)),
                new Call("segmentedExclusiveScan(in, headFlags, out, Op, double)", "headFlags", flags,
                        () -> p.segmentedExclusiveScan(floats, flags, floatsOut, Op.MAX, 0.5)),
                new Call("segmentedInclusiveScan(in, headFlags, out, CustomOp)", "headFlags", flags,
                        () -> p.segmentedInclusiveScan(floats, flags, floatsOut, FLOAT_SUM)),
                new Call("segmentedExclusiveScan(in, headFlags, out, CustomOp)", "headFlags", flags,
                        () -> p.segmentedExclusiveScan(ints, flags, intsOut, INT_MAX)),
                new Call("segmentedExclusiveScan(in, headFlags, out, CustomOp, long)", "headFlags", flags,
                        () -> p.segmentedExclusiveScan(ints, flags, intsOut, INT_MAX, 7L)),
                new Call("segmentedExclusiveScan(in, headFlags, out, CustomOp, double)", "headFlags", flags,
                        () -> p.segmentedExclusiveScan(floats, flags, floatsOut, FLOAT_SUM, 0.5)));
    }

    /** Every method that takes offsets, with {@code offsets} and values of N elements. */
    private static List<Call> everyMethodWithOffsets(Harness h, LongArray offsets) {
        Primer p = h.primer;
        IntArray ints = h.make.ints(N);
        FloatArray floats = h.make.floats(N), floatsOut = h.make.floats(N);
        LongArray longs = h.make.longs(N), longsOut = h.make.longs(N);
        return List.of(
                new Call("reduceSegments", "offsets", offsets, () -> p.reduceSegments(ints, offsets, Op.SUM).close()),
                new Call("argExtremeSegments", "offsets", offsets, () -> p.argExtremeSegments(floats, offsets, true).close()),
                new Call("segmentedInclusiveScan(in, offsets, out, Op)", "offsets", offsets,
                        () -> p.segmentedInclusiveScan(longs, offsets, longsOut, Op.MAX)),
                new Call("segmentedExclusiveScan(in, offsets, out, Op, long)", "offsets", offsets,
                        () -> p.segmentedExclusiveScan(longs, offsets, longsOut, Op.SUM, 7L)),
                new Call("segmentedExclusiveScan(in, offsets, out, Op, double)", "offsets", offsets,
                        () -> p.segmentedExclusiveScan(floats, offsets, floatsOut, Op.SUM, 0.5)),
                new Call("reduceSegments(CustomOp)", "offsets", offsets, () -> p.reduceSegments(ints, offsets, INT_MAX).close()),
                new Call("segmentedInclusiveScan(in, offsets, out, CustomOp)", "offsets", offsets,
                        () -> p.segmentedInclusiveScan(longs, offsets, longsOut, LONG_SUM)),
                new Call("segmentedExclusiveScan(in, offsets, out, CustomOp)", "offsets", offsets,
                        () -> p.segmentedExclusiveScan(floats, offsets, floatsOut, FLOAT_SUM)),
                new Call("segmentedExclusiveScan(in, offsets, out, CustomOp, long)", "offsets", offsets,
                        () -> p.segmentedExclusiveScan(longs, offsets, longsOut, LONG_SUM, 7L)),
                new Call("segmentedExclusiveScan(in, offsets, out, CustomOp, double)", "offsets", offsets,
                        () -> p.segmentedExclusiveScan(floats, offsets, floatsOut, FLOAT_SUM, 0.5)));
    }

    /** reduceRows and argExtremeRows of {@code matrix} as rows × cols; {@code argument}: the one at fault. */
    private static List<Call> everyRowsMethod(Harness h, FloatArray matrix, long rows, long cols, String argument) {
        String shape = "(" + rows + " × " + cols + " of " + matrix.length() + ")";
        FloatArray maxima = h.make.floats((int) ROWS), totals = h.make.floats((int) ROWS);
        LongArray indices = h.make.longs((int) ROWS);
        return List.of(
                call("reduceRows" + shape, argument, () -> h.primer.reduceRows(matrix, rows, cols, Op.SUM).close()),
                call("argExtremeRows" + shape, argument, () -> h.primer.argExtremeRows(matrix, rows, cols, true).close()),
                call("reduceRows(CustomOp)" + shape, argument, () -> h.primer.reduceRows(matrix, rows, cols, FLOAT_SUM).close()),
                call("reduceRows(into out)" + shape, argument, () -> h.primer.reduceRows(matrix, rows, cols, Op.MAX, maxima)),
                call("argExtremeRows(into out)" + shape, argument, () -> h.primer.argExtremeRows(matrix, rows, cols, true, indices)),
                call("reduceRows(CustomOp, into out)" + shape, argument, () -> h.primer.reduceRows(matrix, rows, cols, FLOAT_SUM, totals)));
    }

    /** Every method taking a built-in Op, on float32/float64 arrays, with {@code op}. */
    private static List<Call> everyBuiltInOpMethodOnFloats(Harness h, Op op) {
        Primer p = h.primer;
        Maker m = h.make;
        FloatArray floats = m.floats(N), floatsOut = m.floats(N);
        DoubleArray doubles = m.doubles(N), doublesOut = m.doubles(N);
        ByteArray flags = m.headFlags(N);
        LongArray offsets = m.offsets(OFFSETS);
        String o = "(" + op + ")";
        FloatArray rowResults = m.floats((int) ROWS);
        DoubleArray segmentResults = m.doubles(OFFSETS.length - 1);
        return List.of(
                call("reduce(FloatArray, Op)" + o, "op", () -> p.reduce(floats, op)),
                call("reduce(DoubleArray, Op)" + o, "op", () -> p.reduce(doubles, op)),
                call("reduceRows" + o, "op", () -> p.reduceRows(floats, ROWS, COLS, op).close()),
                call("reduceSegments" + o, "op", () -> p.reduceSegments(doubles, offsets, op).close()),
                call("reduceRows(into out)" + o, "op", () -> p.reduceRows(floats, ROWS, COLS, op, rowResults)),
                call("reduceSegments(into out)" + o, "op", () -> p.reduceSegments(doubles, offsets, op, segmentResults)),
                call("inclusiveScan(in, out, Op)" + o, "op", () -> p.inclusiveScan(floats, floatsOut, op)),
                call("exclusiveScan(in, out, Op, double)" + o, "op", () -> p.exclusiveScan(doubles, doublesOut, op, 0.0)),
                call("segmentedInclusiveScan(in, headFlags, out, Op)" + o, "op", () -> p.segmentedInclusiveScan(floats, flags, floatsOut, op)),
                call("segmentedInclusiveScan(in, offsets, out, Op)" + o, "op", () -> p.segmentedInclusiveScan(doubles, offsets, doublesOut, op)),
                call("segmentedExclusiveScan(in, headFlags, out, Op, double)" + o, "op",
                        () -> p.segmentedExclusiveScan(floats, flags, floatsOut, op, 0.5)),
                call("segmentedExclusiveScan(in, offsets, out, Op, double)" + o, "op",
                        () -> p.segmentedExclusiveScan(doubles, offsets, doublesOut, op, 0.5)));
    }

    /** Every method taking a CustomOp, on int32, int64, float32 and float64 arrays with the op given for each. */
    private static List<Call> everyCustomOpMethod(Harness h, CustomOp onInts, CustomOp onLongs, CustomOp onFloats, CustomOp onDoubles) {
        Primer p = h.primer;
        Maker m = h.make;
        IntArray ints = m.ints(N), intsOut = m.ints(N);
        LongArray longs = m.longs(N), longsOut = m.longs(N);
        FloatArray floats = m.floats(N), floatsOut = m.floats(N);
        DoubleArray doubles = m.doubles(N), doublesOut = m.doubles(N);
        ByteArray flags = m.headFlags(N);
        LongArray offsets = m.offsets(OFFSETS);
        FloatArray rowResults = m.floats((int) ROWS);
        LongArray segmentResults = m.longs(OFFSETS.length - 1);
        return List.of(
                call("reduce(IntArray, " + onInts + ")", "op", () -> p.reduce(ints, onInts)),
                call("reduce(LongArray, " + onLongs + ")", "op", () -> p.reduce(longs, onLongs)),
                call("reduce(FloatArray, " + onFloats + ")", "op", () -> p.reduce(floats, onFloats)),
                call("reduce(DoubleArray, " + onDoubles + ")", "op", () -> p.reduce(doubles, onDoubles)),
                call("inclusiveScan(float32, " + onFloats + ")", "op", () -> p.inclusiveScan(floats, floatsOut, onFloats)),
                call("exclusiveScan(int64, " + onLongs + ")", "op", () -> p.exclusiveScan(longs, longsOut, onLongs)),
                call("exclusiveScan(int32, " + onInts + ", long)", "op", () -> p.exclusiveScan(ints, intsOut, onInts, 7L)),
                call("exclusiveScan(float64, " + onDoubles + ", double)", "op", () -> p.exclusiveScan(doubles, doublesOut, onDoubles, 0.5)),
                call("reduceRows(float32, " + onFloats + ")", "op", () -> p.reduceRows(floats, ROWS, COLS, onFloats).close()),
                call("reduceRows(int32, " + onInts + ")", "op", () -> p.reduceRows(ints, ROWS, COLS, onInts).close()),
                call("reduceSegments(int64, " + onLongs + ")", "op", () -> p.reduceSegments(longs, offsets, onLongs).close()),
                call("reduceSegments(float64, " + onDoubles + ")", "op", () -> p.reduceSegments(doubles, offsets, onDoubles).close()),
                call("reduceRows(float32, " + onFloats + ", into out)", "op", () -> p.reduceRows(floats, ROWS, COLS, onFloats, rowResults)),
                call("reduceSegments(int64, " + onLongs + ", into out)", "op",
                        () -> p.reduceSegments(longs, offsets, onLongs, segmentResults)),
                call("segmentedInclusiveScan(int32, headFlags, " + onInts + ")", "op",
                        () -> p.segmentedInclusiveScan(ints, flags, intsOut, onInts)),
                call("segmentedExclusiveScan(float64, headFlags, " + onDoubles + ")", "op",
                        () -> p.segmentedExclusiveScan(doubles, flags, doublesOut, onDoubles)),
                call("segmentedExclusiveScan(int64, headFlags, " + onLongs + ", long)", "op",
                        () -> p.segmentedExclusiveScan(longs, flags, longsOut, onLongs, 7L)),
                call("segmentedExclusiveScan(float32, headFlags, " + onFloats + ", double)", "op",
                        () -> p.segmentedExclusiveScan(floats, flags, floatsOut, onFloats, 0.5)),
                call("segmentedInclusiveScan(float32, offsets, " + onFloats + ")", "op",
                        () -> p.segmentedInclusiveScan(floats, offsets, floatsOut, onFloats)),
                call("segmentedExclusiveScan(int64, offsets, " + onLongs + ")", "op",
                        () -> p.segmentedExclusiveScan(longs, offsets, longsOut, onLongs)),
                call("segmentedExclusiveScan(int32, offsets, " + onInts + ", long)", "op",
                        () -> p.segmentedExclusiveScan(ints, offsets, intsOut, onInts, 7L)),
                call("segmentedExclusiveScan(float64, offsets, " + onDoubles + ", double)", "op",
                        () -> p.segmentedExclusiveScan(doubles, offsets, doublesOut, onDoubles, 0.5)));
    }

    /**
     * Every method taking a CustomOp, on {@code in} (int8 or int32) and {@code out} of its type, with
     * {@code op} (int8 ones: valid, or against int32; int32 ones against int8). The argument: "op".
     */
    private static List<Call> int8CustomOpMethods(Harness h, CustomOp op, DeviceArray in, DeviceArray out) {
        Primer p = h.primer;
        ByteArray flags = h.make.headFlags(N);
        LongArray offsets = h.make.offsets(OFFSETS);
        String on = "(" + in.dtype() + ", " + op + ")";
        return List.of(
                call("reduce" + on, "op", () -> {
                    if (in instanceof ByteArray b) p.reduce(b, op); else p.reduce((IntArray) in, op);
                }),
                call("reduceRows" + on, "op", () -> p.reduceRows(in, ROWS, COLS, op).close()),
                call("reduceSegments" + on, "op", () -> p.reduceSegments(in, offsets, op).close()),
                call("inclusiveScan" + on, "op", () -> p.inclusiveScan(in, out, op)),
                call("exclusiveScan" + on, "op", () -> p.exclusiveScan(in, out, op)),
                call("exclusiveScan(long)" + on, "op", () -> p.exclusiveScan(in, out, op, -7L)),
                call("segmentedInclusiveScan(headFlags)" + on, "op", () -> p.segmentedInclusiveScan(in, flags, out, op)),
                call("segmentedExclusiveScan(headFlags)" + on, "op", () -> p.segmentedExclusiveScan(in, flags, out, op)),
                call("segmentedExclusiveScan(headFlags, long)" + on, "op", () -> p.segmentedExclusiveScan(in, flags, out, op, 7L)),
                call("segmentedInclusiveScan(offsets)" + on, "op", () -> p.segmentedInclusiveScan(in, offsets, out, op)),
                call("segmentedExclusiveScan(offsets)" + on, "op", () -> p.segmentedExclusiveScan(in, offsets, out, op)),
                call("segmentedExclusiveScan(offsets, long)" + on, "op", () -> p.segmentedExclusiveScan(in, offsets, out, op, -7L)));
    }

    // ================================================================ host references

    private static long[] widenedPrefixSums(int[] values, long init, boolean inclusive) {
        long[] out = new long[values.length];
        long running = init;
        for (int i = 0; i < values.length; i++) {
            if (inclusive) running += values[i];
            out[i] = running;
            if (!inclusive) running += values[i];
        }
        return out;
    }

    private static long sum(byte[] v, int from, int to) {
        long s = 0;
        for (int i = from; i < to; i++) s += v[i];
        return s;
    }

    private static long argMax(byte[] v, int from, int to) {
        int best = from;
        for (int i = from + 1; i < to; i++) if (v[i] > v[best]) best = i;
        return best - from;
    }

    // ================================================================ the harness

    /**
     * The Primer under test, over its real backend wrapped to count live buffers; a second Primer of
     * the same kind; and every array a test made, so that each rejected call can be checked to have
     * changed none of them and to have left the live count where it was.
     */
    private static final class Harness implements AutoCloseable {
        final Primer primer;
        final Primer other;
        final Maker make;
        final Maker foreign;
        private final Primer real;
        private final AtomicLong live = new AtomicLong();
        private final SplittableRandom random;
        private final List<DeviceArray> arrays = new ArrayList<>();

        private Harness(BackendKind kind, long seed) {
            random = new SplittableRandom(seed);
            real = Backends.open(kind);
            primer = primerOver(countingBackend(real.backend(), live));
            other = Primer.open(kind);
            make = new Maker(this, primer);
            foreign = new Maker(this, other);
        }

        static Harness open(BackendKind kind, long seed) { return new Harness(kind, seed); }

        long live() { return live.get(); }

        <A extends DeviceArray> A track(A a) {
            arrays.add(a);
            return a;
        }

        /** {@link #rejects} for each call; a failure lists every call that failed. */
        void rejectsEach(Class<? extends Throwable> type, List<Call> calls) {
            assertFalse(calls.isEmpty(), "no calls");
            assertAll(calls.stream().map(c -> () -> rejects(type, c)));
        }

        void rejectsEachUnnamed(Class<? extends Throwable> type, List<Call> calls) {
            assertAll(calls.stream().map(c -> () -> rejectsUnnamed(type, c)));
        }

        void rejectsEachClosed(List<Call> calls) {
            assertAll(calls.stream().map(c -> () -> rejectsClosed(c)));
        }

        void acceptsEach(List<Call> calls) {
            assertAll(calls.stream().map(c -> () -> accepts(c)));
        }

        /** The call throws {@code type} naming its argument, changes no array and leaks nothing. */
        <X extends Throwable> X rejects(Class<X> type, Call c) {
            X e = rejectsUnnamed(type, c);
            assertNames(c.name(), e, c.argument());
            return e;
        }

        /** As {@link #rejects}, without looking at the message. */
        <X extends Throwable> X rejectsUnnamed(Class<X> type, Call c) {
            Map<DeviceArray, byte[]> before = snapshot();
            long liveBefore = live();
            X e = assertThrows(type, c.run(), c.name());
            assertEquals(liveBefore, live(), () -> c.name() + " left arrays allocated after " + e);
            before.forEach((a, bytes) -> assertArrayEquals(bytes, bytesOf(a), () -> c.name() + " changed " + a + " before " + e));
            return e;
        }

        /**
         * The call throws what {@link DeviceArray#requireOpen} throws for the call's closed array,
         * after the argument's name: with two arrays of one type and length, the name tells which.
         */
        void rejectsClosed(Call c) {
            String expected = assertThrows(IllegalStateException.class, c.array()::requireOpen).getMessage();
            assertEquals(c.argument() + ": " + expected, rejectsUnnamed(IllegalStateException.class, c).getMessage(), c.name());
        }

        /** The call succeeds and leaves the live count where it was. */
        void accepts(Call c) {
            long liveBefore = live();
            assertDoesNotThrow(c.run(), c.name());
            assertEquals(liveBefore, live(), () -> c.name() + " left arrays allocated");
        }

        private Map<DeviceArray, byte[]> snapshot() {
            Map<DeviceArray, byte[]> contents = new IdentityHashMap<>();
            for (DeviceArray a : arrays) if (!a.isClosed()) contents.put(a, bytesOf(a));
            return contents;
        }

        @Override
        public void close() {
            arrays.forEach(DeviceArray::close);
            try {
                assertEquals(0, live(), "arrays left allocated once the test closed its own");
            } finally {
                primer.close();
                other.close();
                real.close();
            }
        }
    }

    /** Makes arrays of random contents on one Primer, tracked by the harness. */
    private static final class Maker {
        private final Harness h;
        private final Primer p;

        Maker(Harness h, Primer p) {
            this.h = h;
            this.p = p;
        }

        ByteArray bytes(int n) {
            byte[] v = new byte[n];
            for (int i = 0; i < n; i++) v[i] = (byte) h.random.nextInt();
            return upload(v);
        }

        IntArray ints(int n) { return upload(h.random.ints(n, -1000, 1000).toArray()); }
        LongArray longs(int n) { return upload(h.random.longs(n, -1000, 1000).toArray()); }
        DoubleArray doubles(int n) { return upload(h.random.doubles(n, -100, 100).toArray()); }

        FloatArray floats(int n) {
            float[] v = new float[n];
            for (int i = 0; i < n; i++) v[i] = (float) h.random.nextDouble(-100, 100);
            return upload(v);
        }

        /** Flags of about one segment start in four; the first element always starts one. */
        ByteArray headFlags(int n) {
            byte[] v = new byte[n];
            for (int i = 0; i < n; i++) v[i] = (byte) (i == 0 || h.random.nextInt(4) == 0 ? 1 : 0);
            return upload(v);
        }

        LongArray offsets(long... values) { return upload(values); }

        /** Random contents of {@code type}. */
        DeviceArray of(DType type, int n) {
            return switch (type) {
                case BYTE -> bytes(n);
                case INT -> ints(n);
                case LONG -> longs(n);
                case FLOAT -> floats(n);
                case DOUBLE -> doubles(n);
            };
        }

        ByteArray upload(byte[] v) { return h.track(p.upload(v)); }
        IntArray upload(int[] v) { return h.track(p.upload(v)); }
        LongArray upload(long[] v) { return h.track(p.upload(v)); }
        FloatArray upload(float[] v) { return h.track(p.upload(v)); }
        DoubleArray upload(double[] v) { return h.track(p.upload(v)); }

        <A extends DeviceArray> A closed(A a) {
            a.close();
            return a;
        }

        Firsts firsts(int n) { return new Firsts(bytes(n), ints(n), longs(n), floats(n), doubles(n)); }

        /** Slices of N elements whose owners are closed. */
        Firsts slicesOfClosedOwners() {
            Firsts owners = firsts(N + 4);
            Firsts slices = new Firsts(owners.bytes().slice(2, N + 2), owners.ints().slice(2, N + 2),
                    owners.longs().slice(2, N + 2), owners.floats().slice(2, N + 2), owners.doubles().slice(2, N + 2));
            owners.closeAll();
            return slices;
        }
    }

    // ================================================================ helpers

    /** The message names {@code argument} as a word ("out", not the "out" of "without"). */
    private static void assertNames(String call, Throwable e, String argument) {
        String message = e.getMessage();
        boolean named = message != null
                && Pattern.compile("(?<!\\w)" + Pattern.quote(argument) + "(?!\\w)").matcher(message).find();
        assertTrue(named, () -> call + ": the message should name '" + argument + "': " + e);
    }

    private static byte[] bytesOf(DeviceArray a) {
        byte[] bytes = new byte[Math.toIntExact(a.byteSize())];
        a.copyTo(MemorySegment.ofArray(bytes));
        return bytes;
    }

    /**
     * Primer has no count of live arrays, and its leak report (DeviceArray's Cleaner) waits for the
     * garbage collector; so the Primer under test gets a backend whose buffers count themselves, through
     * Primer's private constructor.
     */
    private static Primer primerOver(Backend backend) {
        try {
            Constructor<Primer> constructor = Primer.class.getDeclaredConstructor(Backend.class);
            constructor.setAccessible(true);
            return constructor.newInstance(backend);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("counting live arrays needs Primer(Backend)", e);
        }
    }

    /** {@code real}, except that each buffer it allocates counts in {@code live} until it is freed. */
    private static Backend countingBackend(Backend real, AtomicLong live) {
        return (Backend) Proxy.newProxyInstance(Backend.class.getClassLoader(), new Class<?>[] {Backend.class},
                (proxy, method, args) -> {
                    Object result = forward(real, method, args);
                    if (!method.getName().equals("allocate")) return result;
                    live.incrementAndGet();
                    return countingBuffer((Buffer) result, live);
                });
    }

    private static Buffer countingBuffer(Buffer real, AtomicLong live) {
        AtomicBoolean freed = new AtomicBoolean();
        return (Buffer) Proxy.newProxyInstance(Buffer.class.getClassLoader(), new Class<?>[] {Buffer.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("free") && freed.compareAndSet(false, true)) live.decrementAndGet();
                    return forward(real, method, args);
                });
    }

    private static Object forward(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
