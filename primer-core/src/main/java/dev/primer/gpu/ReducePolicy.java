package dev.primer.gpu;

import dev.primer.DType;
import dev.primer.cuda.CudaDevice;

/**
 * Tuning policy of the device-wide reduce ({@code device/reduce_kernels.cuh}): the launch shape and
 * the grid size. The constants mirror {@code ReducePolicyConstants} in that header and must change
 * together with it.
 *
 * <p>Every block streams a tile of {@link #TILE_BYTES} per step: {@link #BLOCK_THREADS} threads, each
 * with {@link #VECS_PER_THREAD} independent 16-byte loads in flight. The grid is one block per tile
 * of input, capped at one full wave of resident blocks; each block then takes one contiguous,
 * equal share of the input, so every block finishes at about the same time and the last one
 * combines the partials. Measured on the H200 (2^28 floats): one and two waves run alike, four
 * waves 1% slower; 512-thread blocks or 8 loads per thread no faster; L2 prefetch hints on the
 * loads 6% slower. One wave keeps the partials few. A later sweep ({@code bench/lab/reduce_lab.cu},
 * nine shapes at 2^27, 2^28 and 2^29 floats) found every shape streaming at the same ~4.58 TB/s once
 * running; what a 2^28 sum pays beyond that is a fixed ~9 us per launch (4.5 us of it an empty
 * kernel's), against ~14-16 us for cupy.sum. Loading the last block's partials several at a time
 * (one round trip to L2 where the loop makes five, 2026-11-23) raised some kernels' registers past
 * an occupancy step on sm_90 (even two at a time: sum_i32 32 to 34, and_i64 32 to 40), which would
 * change their grids; not taken.
 *
 * <p>The grid is a function of n, the element type, the device and the kernel's occupancy only:
 * the same call reduces in the same order every run, so float results are bitwise reproducible.
 */
public final class ReducePolicy {
    private ReducePolicy() {}

    /** Threads per block of every reduce kernel. */
    public static final int BLOCK_THREADS = 256;
    /** 16-byte vector loads each thread issues before folding any (bytes in flight per thread). */
    public static final int VECS_PER_THREAD = 4;
    public static final int VECTOR_BYTES = 16;
    /** Input bytes one block consumes per step. */
    public static final int TILE_BYTES = BLOCK_THREADS * VECS_PER_THREAD * VECTOR_BYTES;
    /** Scratch: a ticket counter in the first 16 bytes, then one 16-byte partial per block. */
    static final int SCRATCH_HEADER_BYTES = 16;
    static final int SLOT_BYTES = 16;

    /** Elements of {@code type} in one tile. */
    public static long tileElements(DType type) {
        return TILE_BYTES / type.byteSize();
    }

    /**
     * Blocks to launch for {@code n} elements: one per tile, at least 1, at most
     * {@code multiprocessors × blocksPerMultiprocessor} (one resident wave).
     */
    public static int gridSize(long n, DType type, int multiprocessors, int blocksPerMultiprocessor) {
        if (n < 0) throw new IllegalArgumentException("n must be >= 0: " + n);
        long tiles = (n + tileElements(type) - 1) / tileElements(type);
        long wave = (long) Math.max(1, multiprocessors) * Math.max(1, blocksPerMultiprocessor);
        return (int) Math.max(1, Math.min(tiles, wave));
    }

    /** The largest grid {@link #gridSize} can return on this device, whatever the kernel. */
    public static int maxGridSize(CudaDevice device) {
        int perSm = Math.max(1, device.maxThreadsPerMultiprocessor() / BLOCK_THREADS);
        return Math.max(1, device.multiprocessorCount()) * perSm;
    }

    /** Scratch bytes every reduce kernel needs on this device (fixed, so it is allocated once). */
    public static long scratchBytes(CudaDevice device) {
        return SCRATCH_HEADER_BYTES + (long) SLOT_BYTES * maxGridSize(device);
    }
}
