package dev.primer;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.ref.WeakReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * What an array's lifetime and its overlaps with other arrays mean, the same on every backend: a slice
 * keeps its owner's memory alive; copies between overlapping slices; a closed Primer; offsets with no
 * segments still checked; bad lengths rejected before anything is allocated.
 */
class LifetimesAndOverlapsTest {
    static Iterable<BackendKind> backends() { return Backends.all().toList(); }

    /** Collects garbage until {@code ref} is cleared or some rounds pass (whatever the collector does). */
    private static void collect(WeakReference<?> ref) throws InterruptedException {
        for (int round = 0; round < 20 && ref.get() != null; round++) {
            System.gc();
            Thread.sleep(20);
        }
        System.gc();
        Thread.sleep(100);  // the Cleaner's thread runs its actions after the collection
    }

    /** Was: the owner's Cleaner freed the memory under a live slice ("its owner was closed"). */
    @ParameterizedTest
    @MethodSource("backends")
    void aSliceKeepsItsOwnersMemory(BackendKind kind) throws InterruptedException {
        try (Primer p = Backends.open(kind)) {
            IntArray slice = uploadLeaked(p, new int[] {1, 2, 3, 4, 5}, "an owner held by its slices only").slice(1, 4);
            WeakReference<IntArray> probe = new WeakReference<>(uploadLeaked(p, new int[] {7}, "a probe"));  // unreachable at once
            collect(probe);
            assertEquals(2 + 3 + 4, p.sum(slice));
            assertArrayEquals(new int[] {2, 3, 4}, slice.toArray());
            IntArray inner = slice.slice(1, 3);  // a slice of a slice holds the owner too
            slice = null;
            collect(probe);
            assertArrayEquals(new int[] {3, 4}, inner.toArray());
        }
    }

    /** An array left unclosed on purpose; its leak report, if the Cleaner gets to it, says so. */
    private static IntArray uploadLeaked(Primer p, int[] values, String what) {
        DeviceArray.Memory memory = new DeviceArray.Memory(p.backend(), p.backend().allocate(4L * values.length),
                what + " (LifetimesAndOverlapsTest leaks it on purpose)");
        IntArray a = new IntArray(memory, 0, values.length, null);
        a.copyFrom(values);
        return a;
    }

    /** As if src were copied out first, either way round (a device-to-device copy alone does not promise it). */
    @ParameterizedTest
    @MethodSource("backends")
    void copiesBetweenOverlappingSlices(BackendKind kind) {
        try (Primer p = Backends.open(kind)) {
            int n = 100_003;  // beyond any one copy engine's burst
            int[] values = new java.util.SplittableRandom(5).ints(n).toArray();
            for (int shift : new int[] {1, 17, 4096}) {
                try (IntArray x = p.upload(values)) {
                    x.slice(shift, n).copyFrom(x.slice(0, n - shift));  // forward
                    int[] want = values.clone();
                    System.arraycopy(values, 0, want, shift, n - shift);
                    assertArrayEquals(want, x.toArray(), "forward by " + shift);
                }
                try (IntArray x = p.upload(values)) {
                    x.slice(0, n - shift).copyFrom(x.slice(shift, n));  // backward
                    int[] want = values.clone();
                    System.arraycopy(values, shift, want, 0, n - shift);
                    assertArrayEquals(want, x.toArray(), "backward by " + shift);
                }
            }
            try (IntArray x = p.upload(values)) {
                x.copyFrom(x.slice(0, n));  // the same elements
                assertArrayEquals(values, x.toArray());
            }
        }
    }

    /** Was: the GPU returned before looking at offsets[0] when there were no segments; the CPU threw. */
    @ParameterizedTest
    @MethodSource("backends")
    void offsetsWithNoSegmentsAreStillChecked(BackendKind kind) {
        try (Primer p = Backends.open(kind);
             IntArray in = p.upload(new int[] {1, 2, 3});
             IntArray out = p.upload(new int[] {9, 9, 9})) {
            for (long bad : new long[] {4, -1, Long.MAX_VALUE}) {
                try (LongArray offsets = p.upload(new long[] {bad})) {
                    expectNaming("offsets", () -> p.reduceSegments(in, offsets, Op.SUM));
                    expectNaming("offsets", () -> p.argExtremeSegments(in, offsets, true));
                    expectNaming("offsets", () -> p.segmentedInclusiveScan(in, offsets, out, Op.SUM));
                    expectNaming("offsets", () -> p.segmentedExclusiveScan(in, offsets, out, Op.MAX, 0L));
                }
            }
            for (long good : new long[] {0, 3}) {
                try (LongArray offsets = p.upload(new long[] {good});
                     DeviceArray none = p.reduceSegments(in, offsets, Op.SUM)) {
                    assertEquals(0, none.length());
                    p.segmentedInclusiveScan(in, offsets, out, Op.SUM);
                }
            }
            assertArrayEquals(new int[] {9, 9, 9}, out.toArray());
        }
    }

    /**
     * By offsets a scan touches only [offsets[0], offsets[last]): out may overlap in elsewhere. Was: the
     * CPU rejected what the GPU accepted.
     */
    @ParameterizedTest
    @MethodSource("backends")
    void offsetScansMayOverlapOutsideTheirSegments(BackendKind kind) {
        try (Primer p = Backends.open(kind);
             LongArray x = p.upload(new long[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15});
             LongArray offsets = p.upload(new long[] {6, 8, 10})) {
            // in = x[0, 12), out = x[4, 16): in's elements 6..9 are x[6..9], out's are x[10..13]
            p.segmentedInclusiveScan(x.slice(0, 12), offsets, x.slice(4, 16), Op.SUM);
            assertArrayEquals(new long[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 6, 13, 8, 17, 14, 15}, x.toArray());
            // where the touched elements overlap without being the same, both reject it
            expectNaming("out", () -> p.segmentedInclusiveScan(x.slice(0, 12), offsets, x.slice(1, 13), Op.SUM));
        }
    }

    @ParameterizedTest
    @MethodSource("backends")
    void lengthsAreCheckedBeforeAnythingIsAllocated(BackendKind kind) {
        try (Primer p = Backends.open(kind)) {
            MemorySegment small = MemorySegment.ofArray(new int[1]);
            for (long length : new long[] {5, 1L << 50}) {
                expectNaming("src", () -> p.upload(DType.INT, small, length));
            }
            expectNaming("length", () -> p.upload(DType.INT, small, Long.MAX_VALUE / 2));  // no byte count exists
            expectNaming("length", () -> p.allocate(DType.LONG, Long.MAX_VALUE / 4));
            expectNaming("length", () -> p.allocate(DType.INT, -1));
        }
    }

    @ParameterizedTest
    @MethodSource("backends")
    void aClosedPrimerRefusesWorkAndItsArraysStayUsable(BackendKind kind) {
        Primer p = Backends.open(kind);
        IntArray a = p.upload(new int[] {3, 4});
        p.close();
        p.close();  // idempotent
        assertThrows(IllegalStateException.class, () -> p.sum(a));
        assertThrows(IllegalStateException.class, () -> p.allocateInts(1));
        assertThrows(IllegalStateException.class, p::synchronize);
        assertArrayEquals(new int[] {3, 4}, a.toArray());
        a.close();
        assertThrows(IllegalStateException.class, () -> a.get(5));  // closed comes before the index
    }

    @ParameterizedTest
    @MethodSource("backends")
    void aReadOnlyDestinationIsRejected(BackendKind kind) {
        try (Primer p = Backends.open(kind); IntArray a = p.upload(new int[] {1, 2}); Arena arena = Arena.ofConfined()) {
            MemorySegment dst = arena.allocate(ValueLayout.JAVA_INT, 2);
            expectNaming("dst", () -> a.copyTo(dst.asReadOnly()));
            assertEquals(0, dst.getAtIndex(ValueLayout.JAVA_INT, 1));
        }
    }

    private static void expectNaming(String argument, Runnable call) {
        ArgumentMessages.assertStartsWith(argument, assertThrows(IllegalArgumentException.class, call::run));
    }
}
