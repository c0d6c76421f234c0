package dev.primer.ladder;

import dev.primer.DType;

import java.util.List;
import java.util.Locale;

/**
 * The rungs of the reduction ladder (Harris, "Optimizing Parallel Reduction in CUDA"), the warp-shuffle
 * steps beyond it, the ways to finish across blocks, and the batched (one value per row) kernels.
 * Each constant names its kernels in module {@code reduce_ladder}, its title, what it fixes and what it
 * costs, and the header holding its kernel body ({@link ReduceLadderRunner#source} prints it).
 *
 * <p>All of K1-K6 and the steps after them halve a power-of-two block in a tree, so block sizes are
 * powers of two; {@link #kernelName} says so with an {@link IllegalArgumentException} naming blockSize.
 */
public enum ReduceLadder {
    K1_INTERLEAVED_DIVERGENT("K1", "interleaved addressing, divergent branch",
            "reduce_k1", "reduce_k1_interleaved_divergent.cuh", Grid.ONE_TILE_PER_BLOCK, 1, Finish.RELAUNCH,
            "Each block loads blockSize elements into shared memory and halves them in a tree: at step s the"
            + " threads whose index is a multiple of 2s add the element s slots away. Costs: `tid % (2*s)` is a"
            + " slow modulo, and the working threads are scattered over every warp, so from the second step on"
            + " every warp executes the branch with most of its lanes idle."),
    K2_INTERLEAVED_STRIDED("K2", "interleaved addressing, strided index",
            "reduce_k2", "reduce_k2_interleaved_strided.cuh", Grid.ONE_TILE_PER_BLOCK, 1, Finish.RELAUNCH,
            "Fixes K1's divergence: thread tid works on slot 2*s*tid, so the working threads are the"
            + " lowest-numbered ones and whole warps drop out together; the modulo is gone. Costs: shared-memory"
            + " bank conflicts, because the lanes of a warp touch slots 2s apart and pile onto the same banks."),
    K3_SEQUENTIAL("K3", "sequential addressing",
            "reduce_k3", "reduce_k3_sequential.cuh", Grid.ONE_TILE_PER_BLOCK, 1, Finish.RELAUNCH,
            "Fixes K2's bank conflicts: the stride starts at blockSize/2 and halves, and thread tid adds slot"
            + " tid+s into slot tid, so a warp touches 32 consecutive words, one per bank. Costs: idle threads;"
            + " half the block does nothing but load from the very first step."),
    K4_FIRST_ADD_DURING_LOAD("K4", "first add during global load",
            "reduce_k4", "reduce_k4_first_add_during_load.cuh", Grid.ONE_TILE_PER_BLOCK, 2, Finish.RELAUNCH,
            "Fixes K3's idle half: each block covers 2*blockSize elements and every thread adds two of them as"
            + " it loads, so half as many blocks run and the first step happens in registers. Costs: the kernel"
            + " is now bound by instructions and barriers: the loop, the index arithmetic, and a __syncthreads()"
            + " per halving even when a single warp is left working. The lecture's second load ran past the end"
            + " when n is not a multiple of 2*blockSize; it is guarded here."),
    K5_UNROLL_LAST_WARP("K5", "unroll the last warp",
            "reduce_k5", "reduce_k5_unroll_last_warp.cuh", Grid.ONE_TILE_PER_BLOCK, 2, Finish.RELAUNCH,
            "Fixes K4's barrier overhead at the bottom of the tree: once s <= 32 only warp 0 works, and a warp"
            + " needs no __syncthreads(), so the last six halvings are written out. Correct on Volta and later:"
            + " the lecture's volatile-pointer warpReduce assumed the lanes of a warp run in lockstep, which"
            + " independent thread scheduling no longer guarantees (a race); here each step runs only on the"
            + " lanes whose result is needed, with __syncwarp() between steps. Costs: the block part is still a"
            + " run-time loop, and the last warp still goes through shared memory."),
    K6_COMPLETE_UNROLL("K6", "complete unrolling (block size as template parameter)",
            "reduce_k6", "reduce_k6_complete_unroll.cuh", Grid.ONE_TILE_PER_BLOCK, 2, Finish.RELAUNCH,
            "Fixes K5's remaining loop: with the block size a template parameter every step bound is a"
            + " compile-time constant, so the whole tree unrolls and the steps a block size does not need vanish."
            + " Costs: one kernel per block size (1, 2, 4, ..., 1024 are compiled) and a switch on the host that"
            + " picks the one matching the launch."),
    K7_MULTIPLE_ELEMENTS("K7", "multiple elements per thread (grid-stride loop)",
            "reduce_k7", "reduce_k7_multiple_elements.cuh", Grid.ONE_WAVE, 2, Finish.RELAUNCH,
            "Algorithm cascading: launch only one wave of blocks (SM count x blocks resident per SM) and let each"
            + " thread add many elements in a register with a grid-stride loop before the block's single tree."
            + " Fixes the per-tile tree and barrier cost that remained in K6, keeps many loads in flight and"
            + " leaves no tail wave. Costs: nothing in speed; float sums get longer sequential rounding chains."
            + " The lecture's loop read past the end when n is not a multiple of the grid's stride; guarded here."),
    SHFL_DOWN("SHFL_DOWN", "K7 + last warp by __shfl_down_sync",
            "reduce_shfl_down", "reduce_shfl_down.cuh", Grid.ONE_WAVE, 2, Finish.RELAUNCH,
            "The last warp adds through registers: __shfl_down_sync reads the register of the lane `offset`"
            + " above, five steps with no shared-memory traffic and no separate __syncwarp(), correct without"
            + " lockstep because the _sync intrinsic names the lanes it waits for. Costs: the tree above the"
            + " warp still goes through shared memory, one __syncthreads() per halving."),
    SHFL_XOR("SHFL_XOR", "K7 + last warp by __shfl_xor_sync butterfly",
            "reduce_shfl_xor", "reduce_shfl_xor.cuh", Grid.ONE_WAVE, 2, Finish.RELAUNCH,
            "A butterfly instead of a tree: lane L exchanges with lane L ^ offset, so after five steps every"
            + " lane holds the warp's sum (bit for bit the same in every lane). What a kernel needs when every"
            + " thread uses the total afterwards (softmax, normalisation); for a plain sum it costs the same"
            + " as SHFL_DOWN."),
    WARP_PARTIALS("WARP_PARTIALS", "block reduce through per-warp partials, one __syncthreads()",
            "reduce_warp_partials", "reduce_warp_partials.cuh", Grid.ONE_WAVE, 2, Finish.RELAUNCH,
            "Removes the shared-memory tree: each warp shuffles its own values to one partial, lane 0 stores it,"
            + " a single __syncthreads() publishes the partials, and warp 0 shuffles them. One block barrier"
            + " instead of log2(blockSize/32) + 1, shared memory for 32 values instead of blockSize (the shape of"
            + " CUB's BlockReduce). Costs: warp 0 finishes alone (32 values: negligible)."),
    ATOMIC_FINISH("ATOMIC_FINISH", "finish across blocks with atomicAdd (one launch)",
            "reduce_atomic_finish", "reduce_atomic_finish.cuh", Grid.ONE_WAVE, 2, Finish.ATOMIC,
            "Replaces the relaunch on the partials: thread 0 of every block atomicAdd's the block's sum into"
            + " the result, so one launch does the whole reduction and no partials are written. Costs: the"
            + " result must be zeroed first (a memset, inside the timed region). For int32 the answer is exact"
            + " and repeatable (integer addition is associative, wrap-around included); for float32 the"
            + " partials are added in arrival order, so the last bits may change from run to run: not"
            + " deterministic, which is why Primer's own reduce never uses float atomics."),
    LOCK_FINISH("LOCK_FINISH", "finish across blocks under a spin lock",
            "reduce_lock_finish", "reduce_lock_finish.cuh", Grid.ONE_WAVE, 2, Finish.LOCK,
            "For an operator with no hardware atomic: thread 0 of each block takes a lock word with atomicCAS,"
            + " applies the operator to the global result (read and written through a volatile pointer), and"
            + " releases it with atomicExch after a __threadfence(), so the next holder sees the update. Only"
            + " one thread per block spins. Costs: every block's update is serialised behind one lock, each"
            + " hand-over a trip through L2 and two fences, so the finish grows with the grid; the lock and the"
            + " result are reset before each launch (memsets, inside the timed region). Float results depend"
            + " on the order the blocks win the lock: not deterministic."),
    BATCHED_V1("BATCHED_V1", "batched: one block per row, shared-memory tree",
            "reduce_batched_v1", "reduce_batched_v1.cuh", Grid.ONE_BLOCK_PER_ROW, 1, Finish.PER_ROW,
            "One value per row of a row-major (rows, cols) matrix: each block walks its row with coalesced"
            + " block-stride loads, then halves the block's sums in a sequential-addressing shared-memory tree."
            + " Costs: log2(blockSize) block barriers per row, which shows on short rows."),
    BATCHED_V2("BATCHED_V2", "batched: one block per row, warp shuffles",
            "reduce_batched_v2", "reduce_batched_v2.cuh", Grid.ONE_BLOCK_PER_ROW, 1, Finish.PER_ROW,
            "As BATCHED_V1, with the block's sums reduced by warp shuffles and per-warp partials (one"
            + " __syncthreads() to publish them, one more so the next row does not overwrite them early)"
            + " instead of a barrier per halving.");

    /** How the runner sizes the grid of one pass. */
    enum Grid {
        /** ceil(count / tile) blocks, tile = blockSize x elementsPerThread: the lecture's K1-K6. */
        ONE_TILE_PER_BLOCK,
        /** min(ceil(count / (2 blockSize)), SM count x resident blocks per SM): K7 and later. */
        ONE_WAVE,
        /**
         * one block per row (the kernels take rows beyond 2^31-1 in turns by a row-stride loop; the
         * runner checks at most {@link ReduceLadderRunner#MAX_BATCHED_ROWS}).
         */
        ONE_BLOCK_PER_ROW
    }

    /** How one value is reached across blocks. */
    enum Finish {
        /** relaunch the same kernel on the per-block partials until one block remains (the lecture's host loop) */
        RELAUNCH,
        /** one launch, each block atomicAdd's its sum into the zeroed result */
        ATOMIC,
        /** one launch, each block combines its sum into the result under a spin lock */
        LOCK,
        /** batched: one launch, one value per row */
        PER_ROW
    }


    private final String id;
    private final String title;
    private final String kernelBase;
    private final String sourceFile;
    private final Grid grid;
    private final int elementsPerThread;
    private final Finish finish;
    private final String story;

    ReduceLadder(String id, String title, String kernelBase, String sourceFile, Grid grid, int elementsPerThread,
                 Finish finish, String story) {
        this.id = id;
        this.title = title;
        this.kernelBase = kernelBase;
        this.sourceFile = sourceFile;
        this.grid = grid;
        this.elementsPerThread = elementsPerThread;
        this.finish = finish;
        this.story = story;
    }

    /** Short id a user types and tables print: {@code K1} .. {@code K7}, {@code SHFL_DOWN}, ... */
    public String id() { return id; }

    /** One line saying what the step is. */
    public String title() { return title; }

    /** The paragraph: what this step fixes and what it costs. */
    public String story() { return story; }

    /** The header holding this step's kernel body, e.g. {@code reduce_k5_unroll_last_warp.cuh}. */
    public String sourceFile() { return sourceFile; }

    /** Class-path resource of {@link #sourceFile()}, e.g. {@code dev/primer/cuda-src/ladder/reduce_k1_....cuh}. */
    public String sourceResource() { return LadderSource.ROOT + sourceFile; }

    /** Whether this is a batched (one value per row) kernel, run by {@link ReduceLadderRunner#runBatched}. */
    public boolean isBatched() { return finish == Finish.PER_ROW; }

    Grid grid() { return grid; }

    /** Elements one thread reads per tile (K1-K3: 1; K4 on: 2); the tile is blockSize times this. */
    int elementsPerThread() { return elementsPerThread; }

    Finish finish() { return finish; }

    /**
     * The entry point in module {@code reduce_ladder} for this step, element type and block size, e.g.
     * {@code reduce_k3_i32}, {@code reduce_k6_f32_b256}.
     *
     * @throws IllegalArgumentException when type is not INT or FLOAT, or blockSize is not a power of two
     *         in 1..1024 (every step halves the block in a tree)
     */
    public String kernelName(DType type, int blockSize) {
        String t = suffix(type);
        requirePowerOfTwoBlock(blockSize);
        return switch (this) {
            case K6_COMPLETE_UNROLL -> k6Kernel(t, blockSize);
            case K7_MULTIPLE_ELEMENTS -> k7Kernel(t, blockSize);
            default -> kernelBase + "_" + t;
        };
    }

    /**
     * K6 is compiled once per block size; as in the lecture's host code, a switch over the block size
     * picks the instantiation whose template parameter matches the launch.
     */
    private static String k6Kernel(String t, int blockSize) {
        return switch (blockSize) {
            case 1024 -> "reduce_k6_" + t + "_b1024";
            case 512 -> "reduce_k6_" + t + "_b512";
            case 256 -> "reduce_k6_" + t + "_b256";
            case 128 -> "reduce_k6_" + t + "_b128";
            case 64 -> "reduce_k6_" + t + "_b64";
            case 32 -> "reduce_k6_" + t + "_b32";
            case 16 -> "reduce_k6_" + t + "_b16";
            case 8 -> "reduce_k6_" + t + "_b8";
            case 4 -> "reduce_k6_" + t + "_b4";
            case 2 -> "reduce_k6_" + t + "_b2";
            case 1 -> "reduce_k6_" + t + "_b1";
            default -> throw notPowerOfTwo(blockSize);
        };
    }

    /** K7 is templated on the block size too (its tree is K6's): the same switch. */
    private static String k7Kernel(String t, int blockSize) {
        return switch (blockSize) {
            case 1024 -> "reduce_k7_" + t + "_b1024";
            case 512 -> "reduce_k7_" + t + "_b512";
            case 256 -> "reduce_k7_" + t + "_b256";
            case 128 -> "reduce_k7_" + t + "_b128";
            case 64 -> "reduce_k7_" + t + "_b64";
            case 32 -> "reduce_k7_" + t + "_b32";
            case 16 -> "reduce_k7_" + t + "_b16";
            case 8 -> "reduce_k7_" + t + "_b8";
            case 4 -> "reduce_k7_" + t + "_b4";
            case 2 -> "reduce_k7_" + t + "_b2";
            case 1 -> "reduce_k7_" + t + "_b1";
            default -> throw notPowerOfTwo(blockSize);
        };
    }

    static void requirePowerOfTwoBlock(int blockSize) {
        if (blockSize < 1 || blockSize > 1024 || Integer.bitCount(blockSize) != 1) throw notPowerOfTwo(blockSize);
    }

    private static IllegalArgumentException notPowerOfTwo(int blockSize) {
        return new IllegalArgumentException("blockSize must be a power of two from 1 to 1024 (the reduction"
                + " ladder's kernels halve the block in a tree; K1-K6 as in the lecture), got " + blockSize);
    }

    static String suffix(DType type) {
        if (type != DType.INT && type != DType.FLOAT) {
            throw new IllegalArgumentException("the reduction ladder is compiled for int32 and float32, not " + type);
        }
        return type.kernelSuffix();
    }

    /** The steps {@link ReduceLadderRunner#run} measures, in ladder order (all but the batched ones). */
    public static List<ReduceLadder> ladder() {
        return List.of(K1_INTERLEAVED_DIVERGENT, K2_INTERLEAVED_STRIDED, K3_SEQUENTIAL, K4_FIRST_ADD_DURING_LOAD,
                K5_UNROLL_LAST_WARP, K6_COMPLETE_UNROLL, K7_MULTIPLE_ELEMENTS, SHFL_DOWN, SHFL_XOR, WARP_PARTIALS,
                ATOMIC_FINISH, LOCK_FINISH);
    }

    /** The steps {@link ReduceLadderRunner#runBatched} measures. */
    public static List<ReduceLadder> batched() { return List.of(BATCHED_V1, BATCHED_V2); }

    /**
     * The step a user named: its id or constant name, any case, with '-' or ' ' for '_'
     * ({@code "K5"}, {@code "k5"}, {@code "shfl_down"}, {@code "shfl-down"}, {@code "K5_UNROLL_LAST_WARP"}).
     *
     * @throws IllegalArgumentException naming the valid ids when nothing matches
     */
    public static ReduceLadder parse(String id) {
        if (id == null) throw new IllegalArgumentException("no reduction ladder step given");
        String key = id.trim().toUpperCase(Locale.ROOT).replace('-', '_').replace(' ', '_');
        for (ReduceLadder step : values()) {
            if (step.id.equals(key) || step.name().equals(key)) return step;
        }
        StringBuilder known = new StringBuilder();
        for (ReduceLadder step : values()) known.append(known.isEmpty() ? "" : ", ").append(step.id);
        throw new IllegalArgumentException("unknown reduction ladder step '" + id + "': expected one of " + known);
    }
}
