package dev.primer.ladder;

import dev.primer.DType;

import java.util.List;
import java.util.Locale;

/**
 * The scan ladder: inclusive prefix sums from Hillis-Steele to decoupled look-back. Each constant names
 * its kernels in module {@code scan_ladder}, its tile, its title, what it fixes and what it costs, and the
 * header holding its kernel body ({@link ScanLadderRunner#source} prints it).
 *
 * <p>The first four steps are block-level algorithms and are measured as the lectures show them, on
 * tiles: every block scans its own tile and nothing connects the tiles, so {@code out[i]} is the sum of
 * the elements from the start of i's tile to i. The last three are device-level: {@code out[i]} is the
 * sum of {@code in[0..i]}. Every step reads n and writes n elements, so their bandwidths compare: a
 * block-level step's figure is what a scan built on that block algorithm could at best reach.
 */
public enum ScanLadder {
    HILLIS_STEELE("Hillis-Steele, double-buffered (block level, 1024-element tiles)",
            Scope.TILE, 1024, 1024, 10, "scan_hillis_steele.cuh", List.of("scan_hillis_steele"),
            "One element per thread; at step d every element adds the one d places to its left, 10 steps for a"
            + " 1024-element tile, with two shared-memory buffers so that no step reads a slot another thread is"
            + " overwriting (the lectures' single-buffer version relies on a lockstep no GPU promises). Shows the"
            + " shortest span with the simplest code. Costs: O(n log n) work, 10 additions and about 30 shared-memory"
            + " accesses per element (two reads and a write a step), and 10 block barriers per tile."),
    BLELLOCH("Blelloch up-sweep/down-sweep, naive indexing (block level, 2048-element tiles)",
            Scope.TILE, 2048, 1024, 23, "scan_blelloch.cuh", List.of("scan_blelloch"),
            "Work-efficient: an up-sweep builds a reduction tree in place, the down-sweep clears the root and"
            + " hands each left child its parent's prefix and each right child prefix + left sum; about 2n"
            + " additions instead of n log n, two elements per thread. Costs: twice the span (22 levels, each a"
            + " barrier), threads idle near the root, and bank conflicts: at stride s the lanes of a warp touch"
            + " words 2s apart, up to 32-way conflicts in the middle levels."),
    BLELLOCH_PADDED("Blelloch with conflict-free padding (block level, 2048-element tiles)",
            Scope.TILE, 2048, 1024, 23, "scan_blelloch_padded.cuh", List.of("scan_blelloch_padded"),
            "Fixes the bank conflicts: slot i is stored at i + (i >> 5) (LOG_NUM_BANKS = 5), so every crossing"
            + " of a 32-word boundary shifts the bank by one; levels with 64 or more active threads become"
            + " conflict-free, the last five (one warp or less) keep a 2-way conflict. Costs: 64 more words of"
            + " shared memory and a shift and add per index; the tree's 22 barriers and idle threads remain."),
    WARP_SHUFFLE("warp shuffles composed through per-warp sums (block level, 1024-element tiles)",
            Scope.TILE, 1024, 1024, 11, "scan_warp_shuffle.cuh", List.of("scan_warp_shuffle"),
            "Each warp scans its 32 values in registers with __shfl_up_sync (5 steps, no shared memory, no"
            + " barrier), lane 31 leaves the warp's total in shared memory, warp 0 scans the 32 totals the same"
            + " way, and every warp adds the total of the warps before it: 2 barriers per tile instead of 22."
            + " Costs: 5 additions per element (not work-efficient on paper, cheap in practice); one element"
            + " per thread and a block-sized tile now limit it."),
    SCAN_THEN_PROPAGATE("scan-then-propagate: tile scans, a scan of the tile sums, an add pass (3 launches)",
            Scope.DEVICE, 4096, 128, 42, "scan_then_propagate.cuh",
            List.of("scan_tiles", "scan_tile_sums", "scan_add_tile_sums"),
            "A scan of the whole array. Tiles of 4096 (128 threads x 32 elements: a serial scan in registers,"
            + " then warp shuffles and per-warp sums) are scanned on their own and write their totals; one block"
            + " scans the totals; a third launch adds each tile's prefix. Costs: 4n words of traffic for a scan"
            + " that needs 2n (the array is read and written twice), and three launches."),
    CHAINED("chained scan: one pass, each tile waits for its predecessor's prefix",
            Scope.DEVICE, 4096, 128, 42, "scan_chained.cuh", List.of("scan_chained"),
            "One launch, 2n traffic. Blocks take tile numbers from an atomic counter (so whoever waits for"
            + " tile k-1 knows its block is running: no deadlock), scan their tile, then thread 0 spins on the"
            + " previous tile's flag (acquire), adds its prefix and publishes value then flag (release). Costs: a"
            + " serial chain of one L2 round trip per tile, whatever the number of SMs; the flags and counter are"
            + " zeroed before every run, inside the timed region."),
    DECOUPLED_LOOKBACK("decoupled look-back (Merrill & Garland 2016): one pass",
            Scope.DEVICE, 4096, 128, 42, "scan_decoupled_lookback.cuh", List.of("scan_decoupled_lookback"),
            "Each tile publishes its own total (flag A) before waiting for anyone, then warp 0 reads the"
            + " status of 32 predecessors at a time, summing A's back to the nearest inclusive prefix (flag P),"
            + " and publishes its own P. Flag and value share one 64-bit word written by one store, so no fence"
            + " is needed between them. Fixes the chain: 2n traffic in one launch, two thirds of copy bandwidth"
            + " on an H200 (tiles waiting on their look-back still hold their SM's resources). Costs:"
            + " status traffic, zeroing the status words (timed), and float results that may differ in the"
            + " last bits from run to run (which predecessors had P when a tile looked decides the rounding).");

    /** What a step's output means: a scan per tile, or a scan of the whole array. */
    public enum Scope { TILE, DEVICE }


    private final String title;
    private final Scope scope;
    private final int tileElements;
    private final int threadsPerBlock;
    private final int roundingDepth;
    private final String sourceFile;
    private final List<String> kernelBases;
    private final String story;

    ScanLadder(String title, Scope scope, int tileElements, int threadsPerBlock, int roundingDepth,
               String sourceFile, List<String> kernelBases, String story) {
        this.title = title;
        this.scope = scope;
        this.tileElements = tileElements;
        this.threadsPerBlock = threadsPerBlock;
        this.roundingDepth = roundingDepth;
        this.sourceFile = sourceFile;
        this.kernelBases = kernelBases;
        this.story = story;
    }

    /** The id a user types and tables print: the constant's name, e.g. {@code DECOUPLED_LOOKBACK}. */
    public String id() { return name(); }

    /** One line saying what the step is. */
    public String title() { return title; }

    /** The paragraph: what this step fixes and what it costs. */
    public String story() { return story; }

    /** TILE: each block scans its own tile; DEVICE: the whole array is scanned. */
    public Scope scope() { return scope; }

    public boolean isDeviceWide() { return scope == Scope.DEVICE; }

    /** Elements one block scans. */
    public int tileElements() { return tileElements; }

    /** Threads per block of the step's (main) kernel. */
    public int threadsPerBlock() { return threadsPerBlock; }

    /**
     * The most float roundings any input passes through inside one tile (the depth of the tile's
     * summation tree as the kernel builds it); the runner's float tolerance is derived from it.
     */
    public int roundingDepth() { return roundingDepth; }

    /** The header holding this step's kernel body, e.g. {@code scan_blelloch.cuh}. */
    public String sourceFile() { return sourceFile; }

    /** Class-path resource of {@link #sourceFile()}. */
    public String sourceResource() { return LadderSource.ROOT + sourceFile; }

    /** The kernel base names in launch order, without dtype suffix, e.g. {@code scan_tiles}. */
    public List<String> kernelBases() { return kernelBases; }

    /** The entry points in module {@code scan_ladder} for this element type, in launch order. */
    public List<String> kernelNames(DType type) {
        String suffix = suffix(type);
        return kernelBases.stream().map(base -> base + "_" + suffix).toList();
    }

    static String suffix(DType type) {
        if (type != DType.INT && type != DType.FLOAT) {
            throw new IllegalArgumentException("the scan ladder is compiled for int32 and float32, not " + type);
        }
        return type.kernelSuffix();
    }

    /**
     * The step a user named: its id, any case, with '-' or ' ' for '_' ({@code "chained"},
     * {@code "decoupled-lookback"}, {@code "BLELLOCH_PADDED"}), or its 1-based position in the ladder.
     *
     * @throws IllegalArgumentException naming the valid ids when nothing matches
     */
    public static ScanLadder parse(String id) {
        if (id == null) throw new IllegalArgumentException("no scan ladder step given");
        String key = id.trim().toUpperCase(Locale.ROOT).replace('-', '_').replace(' ', '_');
        for (ScanLadder step : values()) {
            if (step.name().equals(key) || Integer.toString(step.ordinal() + 1).equals(key)) return step;
        }
        StringBuilder known = new StringBuilder();
        for (ScanLadder step : values()) known.append(known.isEmpty() ? "" : ", ").append(step.id());
        throw new IllegalArgumentException("unknown scan ladder step '" + id + "': expected one of " + known
                + " (or 1.." + values().length + ")");
    }
}
