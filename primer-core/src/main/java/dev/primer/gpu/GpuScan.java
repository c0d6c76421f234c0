package dev.primer.gpu;

import dev.primer.DType;
import dev.primer.Op;
import dev.primer.cuda.CudaContext;
import dev.primer.cuda.CudaKernel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.WeakHashMap;
import java.util.function.Supplier;

/**
 * Device-wide scans (prefix sums and their kin) on device pointers: one launch, single pass,
 * decoupled look-back (module {@code scan}, see {@code device/scan_kernels.cuh}).
 *
 * <p>Semantics. {@code out[i] = init op in[0] op ... op in[i]} (inclusive) or
 * {@code init op in[0] op ... op in[i-1]} (exclusive; {@code out[0] = init}). The init starts the
 * inclusive scans too, as CUB's InclusiveScanInit does; {@link #identityBits} gives the operator's
 * identity for a plain inclusive scan (for float/double SUM that is -0.0, which leaves every value
 * bitwise alone, including a leading -0.0). {@code initBits} holds the init as raw bits of the
 * output type: {@code Float.floatToRawIntBits}, {@code Double.doubleToRawLongBits}, or the integer
 * itself (for 4-byte types only the low 32 bits count, for int8 only the low 8, as a signed byte).
 *
 * <p>Results are those of arithmetic in the output type: int32 SUM wraps mod 2^32 unless the output
 * is int64; int8 scans into int8 wrap like Java {@code byte} arithmetic (SUM and PROD mod 2^8; the
 * kernels combine in int32 and narrow each output as they store it, which gives the same bits), and
 * MIN/MAX/AND/OR/XOR are exact. The mixed pairs are {@code INT -> LONG} and {@code BYTE -> LONG},
 * for SUM only (torch.cumsum's int8 result), which do not overflow. Float results are bitwise
 * identical from run to run (fixed association; see the kernel header), and differ from a
 * sequential left-to-right sum by rounding only. MIN/MAX follow Math.min/Math.max.
 *
 * <p>{@code in == out} (in place) is allowed when the types have the same size; otherwise the
 * ranges must not overlap. Pointers must be aligned to their element size; any 16-byte
 * misalignment (a slice) is fine. Arguments are checked and an {@link IllegalArgumentException}
 * names the offending one. All work is issued on the context's stream; nothing waits for it,
 * except {@link #segmentedScanByOffsets}, which checks the offsets on the device and waits for the
 * verdict (with the scan of the usual range queued behind the check meanwhile).
 */
public final class GpuScan {
    private GpuScan() {}

    static final String MODULE = "scan";
    private static final String STATUS_SCRATCH = "scan";
    private static final String SEGMENT_SCRATCH = "scan.segment-starts";
    private static final String CHECK_SCRATCH = "scan.offsets-check";

    /** Per context: the last epoch used, and the largest status area asked for. */
    private static final class Epochs {
        int last;
        long statusBytes;
    }

    private static final Map<CudaContext, Epochs> EPOCHS = new WeakHashMap<>();

    /**
     * Scans {@code n} elements of {@code inType} at {@code in} into {@code outType} at {@code out}.
     * Supported: {@code outType == inType} for every operator the type supports (int8 included), and
     * {@code INT -> LONG} and {@code BYTE -> LONG} for SUM.
     */
    public static void scan(CudaContext ctx, DType inType, DType outType, Op op, boolean inclusive, long initBits,
                            long in, long out, long n) {
        Objects.requireNonNull(ctx, "ctx");
        Objects.requireNonNull(inType, "inType");
        Objects.requireNonNull(outType, "outType");
        Objects.requireNonNull(op, "op");
        String kernel = kernelName("scan_", inType, outType, op);
        if (n < 0) throw new IllegalArgumentException("n must be >= 0: " + n);
        if (n == 0) return;
        requireAligned(in, inType, "in");
        requireAligned(out, outType, "out");
        requireInPlaceOrDisjoint(in, n * inType.byteSize(), out, n * outType.byteSize());
        launchPlain(ctx, ctx.module(MODULE).kernel(kernel), inType, inclusive, initBits, in, out, n);
    }

    /**
     * The kernel {@code prefix + "<op>_<suffix>"} scanning {@code inType} into itself, or
     * {@code prefix + "sum_<suffix>_i64"} for the SUM of int32 or int8 into int64; other pairs, and
     * operators the type does not take, throw IllegalArgumentException.
     */
    private static String kernelName(String prefix, DType inType, DType outType, Op op) {
        op.requireSupports(inType, "op");
        boolean widens = inType == DType.INT || inType == DType.BYTE;  // into int64, for SUM
        boolean widening = widens && outType == DType.LONG;
        if (outType != inType && !(widening && op == Op.SUM)) {
            throw new IllegalArgumentException("outType: " + inType + " scans into " + inType
                    + (widens ? " (or int64 for SUM)" : "") + ", not " + outType);
        }
        return widening ? prefix + "sum_" + inType.kernelSuffix() + "_i64" : prefix + opName(op) + "_" + inType.kernelSuffix();
    }

    /**
     * Launches a plain scan kernel with the signature of {@code scan_<op>_<suffix>} (or an NVRTC
     * instantiation of {@code device_scan} for a user-defined operator) on checked arguments, n >= 1: the grid, the
     * status area and a fresh epoch. Shared with the user-defined operators ({@link GpuCustomScan}).
     */
    static void launchPlain(CudaContext ctx, CudaKernel kernel, DType inType, boolean inclusive, long initBits,
                            long in, long out, long n) {
        requireTileCount(n, in, inType, false);
        long tiles = ScanPolicy.tiles(n, in, inType, false);
        Epochs epochs = epochs(ctx);
        synchronized (epochs) {
            long[] status = status(ctx, epochs, tiles);
            kernel.launch(tiles, ScanPolicy.BLOCK_THREADS, 0,
                    in, out, n, tiles, initBits, inclusive ? 1 : 0, status[0], (int) status[1]);
        }
    }

    /**
     * Segmented scan: a segment starts at every element whose byte in {@code headFlags} (int8,
     * {@code n} of them) is nonzero, and at element 0 whatever its flag. Each segment is scanned
     * as by {@link #scan} with the same init, into the input's type (every type, int8 included).
     */
    public static void segmentedScanByFlags(CudaContext ctx, DType type, Op op, boolean inclusive, long initBits,
                                            long in, long headFlags, long out, long n) {
        segmentedScanByFlags(ctx, type, type, op, inclusive, initBits, in, headFlags, out, n);
    }

    /**
     * As above, into {@code outType}: {@code inType}, or int64 for the SUM of int32 or int8 (the
     * pairs {@link #scan} takes).
     */
    public static void segmentedScanByFlags(CudaContext ctx, DType inType, DType outType, Op op, boolean inclusive,
                                            long initBits, long in, long headFlags, long out, long n) {
        Objects.requireNonNull(ctx, "ctx");
        Objects.requireNonNull(inType, "inType");
        Objects.requireNonNull(outType, "outType");
        Objects.requireNonNull(op, "op");
        String kernel = kernelName("segscan_flags_", inType, outType, op);
        launchFlags(ctx, () -> ctx.module(MODULE).kernel(kernel), inType, outType, ScanPolicy.tileItems(inType, op, true),
                inclusive, initBits, in, headFlags, out, n);
    }

    /**
     * Launches a segmented-by-flags kernel with the signature of {@code segscan_flags_<op>_<suffix>}
     * (or an NVRTC instantiation of {@code device_scan} with flag heads) after checking the
     * arguments; the kernel is only asked for when there is work. {@code tileItems}: the kernel's tile
     * ({@link ScanPolicy#tileItems}). Shared with {@link GpuCustomScan}.
     */
    static void launchFlags(CudaContext ctx, Supplier<CudaKernel> kernel, DType inType, DType outType, int tileItems,
                            boolean inclusive, long initBits, long in, long headFlags, long out, long n) {
        if (n < 0) throw new IllegalArgumentException("n must be >= 0: " + n);
        if (n == 0) return;
        requireAligned(in, inType, "in");
        requireAligned(out, outType, "out");
        if (headFlags == 0) throw new IllegalArgumentException("headFlags: null device pointer");
        requireInPlaceOrDisjoint(in, n * inType.byteSize(), out, n * outType.byteSize());
        if (overlaps(headFlags, n, out, n * outType.byteSize())) {
            throw new IllegalArgumentException("headFlags: overlaps out");
        }
        requireTileCount(n, in, inType, tileItems);
        CudaKernel k = kernel.get();
        long tiles = ScanPolicy.tiles(n, in, inType, tileItems);
        Epochs epochs = epochs(ctx);
        synchronized (epochs) {
            long[] status = status(ctx, epochs, tiles);
            k.launch(tiles, ScanPolicy.BLOCK_THREADS, 0,
                    in, headFlags, out, n, tiles, initBits, inclusive ? 1 : 0, status[0], (int) status[1]);
        }
    }

    /**
     * Segmented scan by offsets: segment k is {@code [offsets[k], offsets[k+1])} ({@code offsets}:
     * int64, {@code segments + 1} of them, non-decreasing, {@code offsets[0] >= 0},
     * {@code offsets[segments] <= length}, the elements of {@code in} and of {@code out}). Elements
     * outside {@code [offsets[0], offsets[segments])} are not touched; empty segments are fine.
     * The offsets are checked on the device first ({@link #checkOffsetsFindingTileStarts}: the host
     * waits for the verdict), and bad ones throw {@link IllegalArgumentException} naming {@code offsets} before anything
     * is written ({@link #launchOffsets}: a scan queued meanwhile is gated by the same check).
     */
    public static void segmentedScanByOffsets(CudaContext ctx, DType type, Op op, boolean inclusive, long initBits,
                                              long in, long offsets, long segments, long out, long length) {
        segmentedScanByOffsets(ctx, type, type, op, inclusive, initBits, in, offsets, segments, out, length);
    }

    /**
     * As above, into {@code outType}: {@code inType}, or int64 for the SUM of int32 or int8 (the
     * pairs {@link #scan} takes).
     */
    public static void segmentedScanByOffsets(CudaContext ctx, DType inType, DType outType, Op op, boolean inclusive,
                                              long initBits, long in, long offsets, long segments, long out, long length) {
        Objects.requireNonNull(ctx, "ctx");
        Objects.requireNonNull(inType, "inType");
        Objects.requireNonNull(outType, "outType");
        Objects.requireNonNull(op, "op");
        String kernel = kernelName("segscan_offsets_", inType, outType, op);
        launchOffsets(ctx, () -> ctx.module(MODULE).kernel(kernel), inType, outType, ScanPolicy.tileItems(inType, op, true),
                inclusive, initBits, in, offsets, segments, out, length);
    }

    /**
     * Checks the offsets and launches a segmented-by-offsets kernel with the signature of
     * {@code segscan_offsets_<op>_<suffix>} (or an NVRTC instantiation of {@code device_scan} with
     * offset heads), after the tile starts. Shared with {@link GpuCustomScan}.
     *
     * <p>Offsets usually run from 0 to {@code length}. Guessing so, the scan of the whole arrays is
     * queued right behind the check, before the host has its verdict, behind a gate the check opens
     * only for sorted offsets from 0 to {@code length}: the GPU does not wait for the host. For
     * other offsets the guessed scan writes nothing (its blocks take a ticket and leave), and the
     * scan of the range the verdict gives is launched after it, as before the guess.
     */
    static void launchOffsets(CudaContext ctx, Supplier<CudaKernel> kernel, DType type, DType outType, int tileItems,
                              boolean inclusive, long initBits, long in, long offsets, long segments, long out, long length) {
        if (segments < 0) throw new IllegalArgumentException("segments must be >= 0: " + segments);
        if (segments == 0) {
            requireAligned(offsets, DType.LONG, "offsets");
            GpuSegmentedReduce.checkLoneOffset(ctx, offsets, length);
            return;
        }
        long maxTiles = ScanPolicy.maxTiles(length, type, tileItems);
        Epochs epochs = epochs(ctx);
        synchronized (epochs) {  // from the tile starts, which fill the scratch, to the scan that reads it
            // The gates: the check opens the first for the guess alone, and always opens the second.
            long scratch = ctx.scratch(SEGMENT_SCRATCH, GATE_BYTES + ScanPolicy.segmentScratchBytes(maxTiles));
            long guessGate = scratch, openGate = scratch + 8, tileFirst = scratch + GATE_BYTES;
            CudaKernel guessed = kernelForWholeArrays(kernel, type, outType, tileItems, in, offsets, segments, out, length);
            Runnable queueGuess = guessed == null ? null : () -> launchSegment(ctx, epochs, guessed, type, outType, tileItems,
                    inclusive, initBits, in, offsets, tileFirst, out, 0, length, guessGate);
            long[] range = checkOffsetsFindingTileStarts(ctx, offsets, segments, length, in, type, tileItems, tileFirst,
                    guessGate, queueGuess);
            long begin = range[0], n = range[1] - begin;
            if (guessed != null && begin == 0 && n == length) return;  // the guessed scan is the one
            if (n == 0) return;  // before the range's checks: empty arrays (null pointers) with empty segments are fine
            checkRange(type, outType, tileItems, in, offsets, segments, out, begin, n);
            // After every argument check, as a user-defined operator's kernel may need NVRTC (and,
            // if the guess could not ask for it, compiles here the first time, holding the lock:
            // the tile starts are in its scratch).
            launchSegment(ctx, epochs, guessed != null ? guessed : kernel.get(), type, outType, tileItems, inclusive, initBits,
                    in, offsets, tileFirst, out, begin, n, openGate);
        }
    }

    /** The host's checks on the n >= 1 elements from {@code begin} that a scan by offsets reads and writes. */
    private static void checkRange(DType type, DType outType, int tileItems, long in, long offsets, long segments, long out,
                                   long begin, long n) {
        requireAligned(in, type, "in");
        requireAligned(out, outType, "out");
        long size = type.byteSize(), outSize = outType.byteSize();
        long inBase = in + begin * size, outBase = out + begin * outSize;
        requireInPlaceOrDisjoint(inBase, n * size, outBase, n * outSize);
        if (overlaps(offsets, 8 * (segments + 1), outBase, n * outSize)) {
            throw new IllegalArgumentException("offsets: overlaps out");
        }
        requireTileCount(n, inBase, type, tileItems);
    }

    /**
     * Bytes before the tile starts in their scratch: the gate words (the guess's, and one always
     * open), padded to a 128-byte line so that each tile's slot stays one line (segment_head_slots).
     */
    private static final long GATE_BYTES = 128;

    /**
     * The kernel for the guess that the offsets run from 0 to {@code length}, or null where the
     * guess cannot be queued: where a check the host makes on the scanned range would fail on the
     * whole arrays (it may pass on the true range), or the kernel cannot be had yet (a user-defined
     * operator without NVRTC: its error must come after the offsets' own, as without the guess).
     */
    private static CudaKernel kernelForWholeArrays(Supplier<CudaKernel> kernel, DType type, DType outType, int tileItems,
                                                   long in, long offsets, long segments, long out, long length) {
        if (length == 0) return null;
        try {
            checkRange(type, outType, tileItems, in, offsets, segments, out, 0, length);
        } catch (IllegalArgumentException e) {
            return null;  // the verdict's range may still pass: it is checked, and named, in its turn
        }
        try {
            return kernel.get();
        } catch (RuntimeException e) {
            return null;  // thrown again, in its turn, when the range's scan asks for it
        }
    }

    /** Launches segment kernel {@code k} over elements [begin, begin + n) of in and out, n >= 1, behind {@code gate}. */
    private static void launchSegment(CudaContext ctx, Epochs epochs, CudaKernel k, DType type, DType outType, int tileItems,
                                      boolean inclusive, long initBits, long in, long offsets, long tileFirst, long out,
                                      long begin, long n, long gate) {
        long inBase = in + begin * type.byteSize(), outBase = out + begin * outType.byteSize();
        long tiles = ScanPolicy.tiles(n, inBase, type, tileItems);
        long[] status = status(ctx, epochs, tiles);
        k.launch(tiles, ScanPolicy.BLOCK_THREADS, 0, inBase, offsets, tileFirst, outBase, n, tiles, begin, initBits,
                inclusive ? 1 : 0, status[0], (int) status[1], gate);
    }

    /** Stored in the pinned verdict before the kernel overwrites it (a true word equal to it only costs a wait). */
    private static final long VERDICT_POISON = 0x5EC0_FF5E_7CAF_E000L;

    /**
     * Checks the offsets on the device and finds the tiles' segment starts there, for a scan in tiles
     * of {@code tileItems} elements of {@code type} from element offsets[0] of {@code in} (an array of
     * {@code length} elements), in one launch ({@code segscan_offsets_check_and_tile_starts}): the
     * last block through the check hands its verdict to the host (pinned memory, polled), and the
     * tile starts fill {@code tileFirst} (ScanPolicy.segmentScratchBytes of
     * ScanPolicy.maxTiles(length, type, tileItems) bytes, the caller's, locked until its scan is
     * launched) while the host reads it and launches the scan. Returns
     * {@code {offsets[0], offsets[segments]}}; IllegalArgumentException naming {@code offsets} when
     * offsets[0] is negative, an offset is smaller than the one before it, or the last is beyond
     * {@code length} (then only the scratch was written). segments >= 1. Shared with
     * {@link GpuSegmentedArgScan}.
     */
    static long[] checkOffsetsFindingTileStarts(CudaContext ctx, long offsets, long segments, long length, long in,
                                                DType type, int tileItems, long tileFirst) {
        return checkOffsetsFindingTileStarts(ctx, offsets, segments, length, in, type, tileItems, tileFirst, 0, null);
    }

    /**
     * As above, and {@code queueBehind} (null for none) issues work right after the check, before the
     * host waits for the verdict; with a {@code gate} (two words of device memory, 0 for none) the
     * check writes gate[0] = 1 for sorted offsets from 0 to {@code length} and 0 otherwise, for that
     * work to read, and gate[1] = 1.
     */
    static long[] checkOffsetsFindingTileStarts(CudaContext ctx, long offsets, long segments, long length, long in,
                                                DType type, int tileItems, long tileFirst, long gate,
                                                Runnable queueBehind) {
        if (offsets == 0) throw new IllegalArgumentException("offsets: null device pointer");
        if (Math.floorMod(offsets, 8) != 0) throw new IllegalArgumentException("offsets: device pointer 0x"
                + Long.toHexString(offsets) + " is not aligned to 8 bytes");
        long startsGrid = Math.ceilDiv((ScanPolicy.maxTiles(length, type, tileItems) + 1) * ScanPolicy.SEGMENT_STARTS_LANES,
                ScanPolicy.SEGMENT_STARTS_BLOCK);
        long checkGrid = Math.min(Math.ceilDiv(segments, ScanPolicy.SEGMENT_STARTS_BLOCK), 8L * ctx.device().multiprocessorCount());
        long grid = Math.max(startsGrid, checkGrid);
        // Two words the kernel leaves zeroed, as the scratch comes: one launch uses them, no lock.
        long state = ctx.scratch(CHECK_SCRATCH, 16);
        CudaKernel kernel = ctx.module(MODULE).kernel("segscan_offsets_check_and_tile_starts");
        RuntimeException[] queueFailure = {null};
        MemorySegment words = ctx.launchAndAwait(3, VERDICT_POISON, verdict -> {
            kernel.launch(grid, ScanPolicy.SEGMENT_STARTS_BLOCK, 0, offsets, segments, length, in,
                    (long) type.byteSize(), (long) tileItems, state, verdict, gate, tileFirst);
            if (queueBehind == null) return;
            try {
                queueBehind.run();
            } catch (RuntimeException e) {
                queueFailure[0] = e;  // thrown once the verdict is in: the check still writes the pinned words
            }
        });
        if (queueFailure[0] != null) throw queueFailure[0];
        long begin = words.get(ValueLayout.JAVA_LONG, 0), end = words.get(ValueLayout.JAVA_LONG, 8);
        long firstDecrease = words.get(ValueLayout.JAVA_LONG, 16);
        if (begin < 0) throw new IllegalArgumentException("offsets: offsets[0] = " + begin + " is negative");
        if (firstDecrease != -1L) {
            throw new IllegalArgumentException("offsets decrease: offsets[" + firstDecrease + "] > offsets["
                    + (firstDecrease + 1) + "]");
        }
        if (end > length) {
            throw new IllegalArgumentException("offsets: offsets[segments] = " + end + " is beyond the " + length
                    + " elements of in and out");
        }
        return new long[] {begin, end};
    }

    /** The raw bits of {@code op}'s identity in {@code type}: an init that leaves a scan plain. */
    public static long identityBits(DType type, Op op) {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(op, "op");
        op.requireSupports(type, "op");
        return switch (type) {
            case FLOAT -> Integer.toUnsignedLong(Float.floatToRawIntBits(switch (op) {
                case SUM -> -0.0f;
                case PROD -> 1.0f;
                case MIN -> Float.POSITIVE_INFINITY;
                case MAX -> Float.NEGATIVE_INFINITY;
                default -> throw new AssertionError(op);
            }));
            case DOUBLE -> Double.doubleToRawLongBits(switch (op) {
                case SUM -> -0.0;
                case PROD -> 1.0;
                case MIN -> Double.POSITIVE_INFINITY;
                case MAX -> Double.NEGATIVE_INFINITY;
                default -> throw new AssertionError(op);
            });
            case INT, LONG, BYTE -> {
                boolean wide = type == DType.LONG;
                yield switch (op) {
                    case SUM, OR, XOR -> 0L;
                    case PROD -> 1L;
                    case AND -> -1L;
                    case MIN -> wide ? Long.MAX_VALUE : (type == DType.INT ? Integer.MAX_VALUE : Byte.MAX_VALUE);
                    case MAX -> wide ? Long.MIN_VALUE : (type == DType.INT ? Integer.MIN_VALUE : Byte.MIN_VALUE);
                };
            }
        };
    }

    // ---- scratch and epochs ----

    /** A launch that takes a status area and its epoch ({@link #withStatus}). */
    @FunctionalInterface
    interface StatusLaunch {
        void launch(long status, int epoch);
    }

    /**
     * Issues {@code launch} with the status area for {@code tiles} tiles of the device scan's layout
     * (ScanPolicy.scratchBytes: the tile counter, then a 128-byte slot per tile) and a fresh epoch,
     * under the lock that orders them. Shared with the running argmin / argmax ({@link GpuArgScan},
     * {@link GpuSegmentedArgScan}), whose single-pass kernels use the same area and epochs.
     */
    static void withStatus(CudaContext ctx, long tiles, StatusLaunch launch) {
        Epochs epochs = epochs(ctx);
        synchronized (epochs) {
            long[] status = status(ctx, epochs, tiles);
            launch.launch(status[0], (int) status[1]);
        }
    }

    private static Epochs epochs(CudaContext ctx) {
        synchronized (EPOCHS) {
            return EPOCHS.computeIfAbsent(ctx, c -> new Epochs());
        }
    }

    /**
     * The status area for {@code tiles} tiles and a fresh epoch: {pointer, epoch}. Caller holds the
     * lock on {@code epochs} until its launches are issued (the buffer may move when it grows).
     * Status words of earlier launches need no clearing: they carry older epochs. When the epoch
     * counter wraps, the whole area is cleared once, so no stale word can match a reused epoch.
     */
    private static long[] status(CudaContext ctx, Epochs epochs, long tiles) {
        long bytes = Math.max(epochs.statusBytes, ScanPolicy.scratchBytes(tiles));
        long pointer = ctx.scratch(STATUS_SCRATCH, bytes);
        epochs.statusBytes = bytes;  // after the scratch is there: a failed growth leaves the old size
        int epoch = epochs.last + 1;
        if (epoch >= ScanPolicy.EPOCH_LIMIT) {
            ctx.memset8(pointer, (byte) 0, epochs.statusBytes);
            epoch = 1;
        }
        epochs.last = epoch;
        return new long[] {pointer, epoch};
    }

    // ---- checks ----

    private static String opName(Op op) { return op.name().toLowerCase(Locale.ROOT); }

    static void requireAligned(long pointer, DType type, String name) {
        if (pointer == 0) throw new IllegalArgumentException(name + ": null device pointer");
        if (Math.floorMod(pointer, type.byteSize()) != 0) {
            throw new IllegalArgumentException(name + ": device pointer 0x" + Long.toHexString(pointer)
                    + " is not aligned to " + type.byteSize() + " bytes");
        }
    }

    static boolean overlaps(long a, long aBytes, long b, long bBytes) {
        return a < b + bBytes && b < a + aBytes;
    }

    static void requireInPlaceOrDisjoint(long in, long inBytes, long out, long outBytes) {
        if (in == out && inBytes == outBytes) return;
        if (overlaps(in, inBytes, out, outBytes)) {
            throw new IllegalArgumentException("out: overlaps in (in place needs out == in and equal element sizes)");
        }
    }

    private static void requireTileCount(long n, long in, DType inType, boolean segmented) {
        requireTileCount(n, in, inType, ScanPolicy.tileItems(inType, segmented));
    }

    private static void requireTileCount(long n, long in, DType inType, int tileItems) {
        if (n > Long.MAX_VALUE / 16 || ScanPolicy.tiles(n, in, inType, tileItems) > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("n: " + n + " elements are more than one launch can scan");
        }
    }
}
