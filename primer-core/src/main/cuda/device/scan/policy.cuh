// The device scan's launch shape: the constants ScanPolicy.java mirrors, the tile shape per
// input type, and the blocks per SM an entry point asks of the register allocator.
#pragma once

namespace primer {

/** Launch shape of the device scan; ScanPolicy.java mirrors these numbers. */
struct ScanPolicyConstants {
    static constexpr int VECTOR_BYTES = 16;
    static constexpr int SCRATCH_HEADER_BYTES = 16; // the tile counter, then the status slots
    static constexpr int STATUS_SLOT_BYTES = 128;
    static constexpr int LOOKBACK_WINDOWS = 8;      // windows of 32 tiles kept for the ordered fold
    static constexpr int PREFETCH_TILES_AHEAD = 128;  // plain scans: PREFETCH AHEAD, ../scan_kernels.cuh
    static constexpr int EPOCH_BITS = 29;
    static constexpr int SEGMENT_STARTS_BLOCK = 256;  // threads per block of segment_tile_starts
    static constexpr int SEGMENT_STARTS_LANES = 8;    // of them per tile (offset_heads.cuh)
    static constexpr int SEGMENT_HEAD_SLOTS = 32;     // per tile, its first heads' positions (OffsetHeads)
};

/**
 * Blocks per SM for __launch_bounds__: `wanted`, or fewer where the SM runs fewer threads (sm_86,
 * sm_87 and sm_89 run 1536, the others here 2048).
 */
__host__ __device__ constexpr int scan_min_blocks(int wanted, int block_threads) {
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 870 || __CUDA_ARCH__ == 890)
    return wanted * block_threads <= 1536 ? wanted : 1536 / block_threads;
#else
    return wanted * block_threads <= 2048 ? wanted : 2048 / block_threads;
#endif
}

/**
 * Blocks per SM a segmented scan asks for (scan.cu's register notes). 4- and 8-byte data (BLOCKED,
 * ../scan_kernels.cuh): 6, 37-40 registers; but 8-byte data 5 on sm_80, where ptxas spills 8 bytes
 * at 6 (the built-in sums, products, min and max by offsets, a user's float64 forward fill by
 * offsets), and where 164 KB of shared memory holds only 4 of these blocks anyway. int32 -> int64
 * sums (WIDENING SUMS) 6 too, 38-40 registers. int8 (256 x 4 tiles and the block scan): 5. int8 sums
 * (`byte_sums`: SEGMENTED BYTE SUMS, 256 x 8 tiles, no block scan, PLAIN ROW SCANS): into int8 6
 * (40 registers; 47-48 at 5 with the scans of pairs before), into int64 4 (55-56; at 5, 4 bytes spill
 * by offsets on sm_90). int8 min and max with `byte_extremes` (BYTE EXTREMES, sm_90 only): 6, 40
 * registers (the fold they replace spills 16 bytes at 6 on sm_80 and sm_89). Then capped as
 * scan_min_blocks caps.
 */
__host__ __device__ constexpr int segmented_scan_min_blocks(int item_bytes, int out_bytes = 0, bool byte_sums = false,
                                                            bool byte_extremes = false) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 800
    constexpr int EIGHT_BYTE = 5;
#else
    constexpr int EIGHT_BYTE = 6;
#endif
    if (byte_sums) return out_bytes == 8 ? 4 : 6;
    if (byte_extremes) return 6;
    return item_bytes == 1 ? 5 : item_bytes == 8 ? EIGHT_BYTE : 6;
}

/**
 * Tile shape. Plain scans: 256 threads x 8 vectors = 32 KB of input per tile (8192 elements of 4
 * bytes, 4096 of 8), staged in shared memory; what counts is how many tiles an SM holds at once.
 * Measured on an H200, 2026-11-21, 2^28 elements (TB/s, read + write; copy 4.21):
 *   float sum:   256 x 8 vectors at 6 blocks per SM 3.56, 256 x 7 at 7 3.58, 512 x 4 at 4 3.32,
 *                128 x 16 at 6 3.29, 256 x 8 at 5 3.43;
 *   int32 -> int64 sum: 256 x 8 at 5 2.66 (spills; 4 per SM then), 512 x 4 at 3 2.31; with
 *                REDUCE_FIRST, 256 x 8 at 6 (see THREE WAYS, ../scan_kernels.cuh).
 * 8-byte inputs, 2^27 elements, every operator (ms; bench/lab/scan8_lab.cu): 256 x 8 beat the
 * 128 x 16 they had before, at the most blocks per SM that compiled unspilled then (4-5): int64
 * sum 0.68 against 0.87, product 0.72 against 0.93, min and max 0.67 against 0.74, and, or, xor
 * 0.63 against 0.74; float64 sum and product 0.65 against 0.67, min and max 1.24 against 1.47-1.49.
 * REDUCE_FIRST took them to 5-6 blocks per SM and 0.58-0.62 ms (0.98 for float64 min and max).
 * (Float max is ~8% slower at 256 x 8 than at 512 x 4; one shape keeps the policy simple.)
 * Segmented scans take the same 256 x 8 since REDUCE_FIRST holds no chunk totals across the
 * look-back; with the block scan they needed 256 x 4 to fit their (value, head) pairs, and half
 * the tile ran 1.3-1.8x slower (bench/lab/scan_ordered_lab.cu). Segmented int8 scans keep 256 x 4
 * (16384 items): they still take the block scan (TileScanFor); but their sums (BYTE_SUMS: SEGMENTED
 * BYTE SUMS, ../scan_kernels.cuh) take 256 x 8, no block scan, and ran 5-7% faster into int8 than at
 * 256 x 4, as fast into int64 (bench/results/2026-11-25-nvidia-h200-step71-ab.md). Plain int8 input keeps 256 x 8 (the
 * same 32 KB of input, 32768 items): the bytes per tile are what the measurements above chose, and
 * the int8 kernels fit their registers by folding (INT8 in ../scan_kernels.cuh), not by a smaller tile; the int8
 * shape itself has not been measured. Segmented int32 -> int64 sums took 256 x 4 while their stage
 * held the outputs (twice the input's bytes); since WIDENING SUMS (../scan_kernels.cuh) it holds the
 * input only, and they take 256 x 8: 17-20% faster.
 * ScanPolicy.java mirrors these numbers.
 */
template <typename InT, bool SEGMENTED = false, bool BYTE_SUMS = false>
struct ScanShape {
    static constexpr int BLOCK_THREADS = 256;
    static constexpr int ROWS =  // 16-byte vectors per thread per tile
        SEGMENTED && !BYTE_SUMS && sizeof(InT) == 1 ? 4 : 8;
    static constexpr int TILE_ITEMS = BLOCK_THREADS * ROWS * (ScanPolicyConstants::VECTOR_BYTES / (int)sizeof(InT));
};

}  // namespace primer
