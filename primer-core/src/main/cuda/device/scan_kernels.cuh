// Device-wide scan in one pass: decoupled look-back (Merrill & Garland 2016), made deterministic.
//
// Per block (one tile of TILE_ITEMS = BLOCK_THREADS * ROWS * VEC items, VEC = 16 bytes of input):
//   1. Thread 0 takes the tile number from a counter in scratch: tiles start in the order they
//      are numbered, so a tile only ever waits for tiles that are already running (no deadlock
//      whatever order the hardware schedules blocks in). The block that draws the last number puts
//      the counter back to zero: every block has drawn by then.
//   2. Every thread copies ROWS 16-byte vectors into shared memory with cp.async (coalesced: a
//      warp's copy covers one row; see block_scan.cuh for the arrangement) and reads its chunks
//      (VEC items each) back from there, before the look-back (twice for EARLY_AGGREGATE) and
//      once after.
//   3. Warp 0 publishes the tile's aggregate (A), looks back at its predecessors' status for the
//      tile's exclusive prefix, publishes the inclusive prefix (P) and hands the prefix to the
//      block, which scans the tile in one of three ways (THREE WAYS) and writes it with 16-byte
//      streaming stores, each store instruction filling whole 32-byte sectors (see store_row:
//      int32 -> int64 sums of 2^28 took 0.962 ms when every store wrote half sectors, 0.927 with
//      whole ones; lab).
// Why shared memory and not registers: a block waiting in the look-back holds its registers, and
// with the tile in registers (58 per thread) only 4 x 256 threads fit an SM and an H200 scanned
// 2^28 floats at 2.5 TB/s; staged, a thread needs few registers, so more tiles are resident and
// more loads are in flight while other tiles wait: 6 x 256-thread blocks of 32 KB per SM scanned
// at 3.56 TB/s (copy 4.21, CUB through torch 2.5; measured 2026-11-21, see ScanShape), and at 3.84
// with EARLY_AGGREGATE below.
//
// THREE WAYS to scan a tile. Where a tile's time goes (%globaltimer per tile, 2^28 floats, lab): the
// ticket ~0.8 us, loading ~2.3 us, data to A ~3.3 us, look-back ~6 us, stores ~1 us. Without any
// look-back the same block work runs at 95% of the copy, so the look-back is the whole gap: a tile
// waits until every predecessor back to a P has published its A, i.e. for the slowest recent load
// plus that tile's data-to-A time, and while it waits it holds its block slot.
//   BLOCK_SCAN (segmented int8 scans only, see TileScanFor): every thread scans its chunks, the
//     block scans the chunk totals (block_scan.cuh) and warp 0 looks back inside it, once A is
//     known; then every chunk is scanned again from shared memory and stored with its prefix.
//   EARLY_AGGREGATE (4-byte values, one-instruction commutative operators): before the block scan
//     the tile reduces its data (each thread folds its chunks, a butterfly, one barrier) and
//     publishes A, so the tiles waiting for it see A sooner; P is prefix op that same A. Data to A
//     fell to ~2 us and the float sum went from 85% to 90% of the copy (0.594 -> 0.558 ms, lab).
//   REDUCE_FIRST (everything else: 8-byte values, int32 -> int64 sums, min and max, plain int8
//     scans (see INT8), user-defined operators and segmented scans): the same reduction, A, the
//     look-back, and only then the scan, each warp taking its rows in order and carrying the
//     running value from row to row (one warp scan per row). No chunk totals or prefixes wait in
//     registers across the look-back, so int32 -> int64 sums need 36 registers instead of 61 and 6
//     blocks fit an SM instead of 4 (32-34 since the stores went through RowStore, unmeasured).
//     2^28 elements, ms against EARLY_AGGREGATE or BLOCK_SCAN (bench/lab/scan_reduce_first_lab.cu):
//     int32 -> int64 sum 0.907 -> 0.809 (84% -> 94.6% of the copy), int64 sum (2^27) 0.659 ->
//     0.588, float64 sum 0.643 -> 0.586, int64 product 0.742 -> 0.617, int64 and 0.611 -> 0.585,
//     int64 max 0.637 -> 0.597, float64 max 1.239 -> 0.984, float32 min and max 1.017 -> 0.978,
//     int32 max 0.563 -> 0.557.
//     Not for 4-byte sums: at the same 6 blocks per SM, float32 and int32 sums, products and xor
//     took 0.557-0.559 ms against 0.536-0.538 with EARLY_AGGREGATE (the scan after the wait
//     lengthens the tail of every tile, and there is no occupancy to win).
//     Operators that are not commutative (user-defined ones; the (value, head) pairs of every
//     segmented scan) reduce in index order: a warp's chunks, row after row, are its items in
//     order, and warp_reduce_rows_ordered combines them so (ROWS + 4 shuffles a warp). Against the
//     block scan they took before (bench/lab/scan_ordered_lab.cu; 2^27 8-byte or 2^28 4-byte
//     elements, ms, at the blocks per SM of the code before (4; segmented 3-4) and now (scan.cu,
//     GpuCustomScan)): a float64 forward fill 0.676 -> 0.568 (76% -> 90% of the copy), int64 affine
//     maps 0.671 -> 0.589, int32 affine maps 0.626 -> 0.598, float32 sums written as a user
//     operator 0.581 -> 0.564; segmented by flags, where the tile could also grow from 256 x 4 to
//     256 x 8 (ScanShape): float32 sums 1.150 -> 0.742, int32 1.010 -> 0.757, float64 1.785 ->
//     0.998, int64 1.288 -> 0.988, float32 max 1.700 -> 1.499, float64 forward fill 1.167 ->
//     0.694. Segmented int8 sums went the other way (0.452 -> 0.535): see TileScanFor.
// Every way combines in a fixed association (the reduction's for A, the scan's for the outputs),
// so results are the same bits on every run.
// Measured dead ends: for plain scans, a tree look-back is no faster than the ordered one;
// polling two windows per round trip instead of one, sleeping between polls, an L2 prefetch-size
// hint on the loads: no gain; tile numbers from blockIdx instead of the ticket: +0.5-1% (without
// the ticket's progress guarantee); one TMA bulk copy per tile in and one bulk store out: slower;
// starting the load of tile blockIdx.x while the ticket is drawn (and reloading when they differ)
// misses almost every time. Persistent blocks were slower however they draw their next tile:
// double-buffered, drawn at the tile's start or during its look-back, 2-2.5x slower (a tile drawn
// as "next" publishes nothing until its block is done with the current one, and later tiles wait
// on it); drawn as the stores start, 3% slower (the look-back wait grows to 8 us). (Labs:
// bench/lab/scan_lab.cu, scan_bulk_lab.cu; results in bench/results/2026-11-21-nvidia-h200-lab.md.)
//
// PREFETCH AHEAD (plain scans, sm_90+). As thread 0 draws tile t it asks L2 for the input of tile
// t + PREFETCH_TILES_AHEAD (4 MB ahead) with one bulk prefetch: no registers, shared memory or
// block slot is held while DRAM answers, so when that tile's block starts, its loads hit L2 sooner
// and more evenly, and the tiles waiting on it in their look-back wait less. 2^28 elements,
// sums, lab (bench/lab/scan_prefetch_lab.cu): float32 0.5497 -> 0.5420 ms (92.7 -> 94.1% of the
// copy), int64 0.683 -> 0.664, float64 0.655 -> 0.647, int32 -> int64 0.938 -> 0.932; 32, 128
// and 256 tiles ahead within 0.5% of each other, 512 and more 10-35% slower (prefetched lines are
// evicted by the stream before use and read twice). One line per thread instead of one bulk
// request: no better. Segmented scans do not prefetch: no gain (bench/lab/scan_heads_lab.cu).
//
// INT8. A chunk is still 16 bytes of input, so 16 int8 items (tiles of 32768). The operator works in
// a 4-byte type (Sum<int>, Min<int>, ...: the status words carry 4 or 8 bytes), items are widened as
// they are read and every output is narrowed as it is stored: wrapping mod 2^8 gives Java's byte
// sums and products, and min, max and the bitwise operators are exact. What is stored always comes
// from int8 data and the init (itself an int8, sign-extended), never from an identity alone (an
// identity only stands in for items outside [0, n), whose outputs are not stored), so Min<int>'s
// INT_MAX and the like never reach the output. int8 -> int64 sums (torch.cumsum) work in long long.
// Sixteen partials per chunk would not fit the register budget, so int8 chunks FOLD (device_scan):
// a chunk's total is one left fold, its outputs are folded on from its prefix and stored as they
// come (a 32-byte sector at a time for int64 outputs), rows are taken one at a time after the
// look-back, and plain scans are REDUCE_FIRST whatever the operator (segmented ones BLOCK_SCAN, see
// TileScanFor). 40 registers and 6 blocks per SM for int8 -> int8 (44 and 5 for int8 -> int64,
// 47-48 and 5 segmented).
//
// Tiles are laid on 16-byte boundaries of the input ("shift" = how many elements the input pointer
// is past a boundary): tile 0 starts up to VEC-1 elements before in[0], so every full chunk is one
// aligned vector load, whatever the slice offset. Stores use vectors where the output is aligned the
// same way (always, when in == out) and single elements otherwise.
//
// DETERMINISM. Which predecessor a tile finds with a P differs from run to run, so CUB's look-back,
// which combines "the nearest P" with the A's after it as a tree, associates a float sum differently
// each run. Here every P is, by construction, the LEFT FOLD of the aggregates before it:
//     P_0 = init op A_0,   P_i = (...((P_j op A_(j+1)) op A_(j+2)) ... op A_(i-1)) op A_i
// where j is whichever predecessor was found with P. By induction P_j = init op A_0 op ... op A_j
// folded left to right, and folding on from it gives the same left fold whatever j was: the
// exclusive prefix of every tile is the same bits on every run, and so is every output (A_i comes
// from a reduction or the block scan, each with a fixed association). The price is that the A's
// between j and i are combined one after the other by one lane instead of as a tree: about
// (i - j) dependent operations, a few hundred cycles when j is within a window or two -- the
// common case. The values of up to LOOKBACK_WINDOWS windows are kept in shared memory; if no P
// turns up within them the warp starts again from the nearest window (tile i - 1 reaches P
// eventually, so this terminates).
// Min and max get the same bits from any association and combine each window as a tree instead
// (TreeLookback below): a Java-semantics float max was ~10 dependent instructions per step, and
// folding it serially halved the throughput on an H200 (1.2 vs 2.2 TB/s; it is three now, ops.cuh);
// for sums, products and bitwise operators the fold is as fast as a tree.
//
// STATUS WORDS (scratch, one 128-byte line per tile at a fixed stride, after a 16-byte header
// holding the tile counter): { u64 word; u64 high; padding }. One tile per line: tiles whose words
// shared lines slowed the scan (2^28 float sums 0.569 ms at 16 bytes per tile, 0.559 at 24, 0.555
// at 32, 0.547 at 64 and 128; int32 -> int64 1.016, 0.993, 0.982, 0.971, 0.961; lab). Each word's high half is a tag, epoch << 3 | head << 2 |
// state (1 = A, 2 = P); its low half carries 32 bits of the value: `word` all of a 4-byte value, or
// the low half of an 8-byte one, whose high half goes to `high` under the same tag. One 64-bit
// load reads a tag and its bits together (single-copy atomic; relaxed at device scope is enough
// since nothing else is published through them). An 8-byte value's two words are written by one
// 16-byte store and read by one 16-byte load (each word single-copy atomic, the pair not), and a
// reader takes them only if the tags agree: each state is written once per launch, so equal tags
// mean both halves come from the same publication; unequal ones (A's half beside P's,
// mid-publication) read as "nothing yet" and are polled again. (Before, 8-byte values sat in
// separate A and P fields behind a release/acquire word, so a poll cost two dependent round trips:
// int32 -> int64 sums of 2^28 took 1.13 ms and float64 sums of 2^27 0.81 ms; with the split words
// 1.01 and 0.73 ms, at 16 bytes per tile; lab. Two 8-byte accesses instead of one 16-byte access:
// 0.5-2% slower for int32 -> int64, int64 and float64, lab.)
//   The epoch (1 .. 2^29 - 1, a new one per launch, chosen by the host) makes every word of an
//   earlier launch read as "nothing yet", so the words need no clearing between launches: no extra
//   launch, no memset. The host clears the whole buffer when its epoch counter wraps. Because the
//   stride is fixed and words only ever hold status words, leftovers of any earlier launch (any
//   dtype, any tile count) sit in the same fields and fail the epoch test.
//   Loads and stores use ld/st.relaxed|acquire|release.gpu (PTX), never volatile: they go to L2,
//   the point of coherence, and carry the ordering the memory model needs.
//
// SEGMENTED SCANS run the same machinery on pairs (value, head): (a, ha) op (b, hb) =
// (hb ? b : a op b, ha | hb), associative, not commutative (the combinations keep operand order).
// The init is folded into each head element (init op x) and the first tile's prefix is (init, 0),
// so every segment, including one that starts before the first head, begins with the init.
// A tile whose aggregate holds a head needs nothing before it for its inclusive prefix: (p, h) op
// (a, 1) = (a, 1) whatever p is, the same bits P = prefix op A would have. Such a tile publishes
// its A as its P at once, before its own look-back, so a successor's look-back ends there instead
// of waiting for the chain of P's to reach it (with heads in most tiles, as soon as the tile just
// before has reduced). By flags, heads one in 5 / 1024 / 65536, 2^27 8-byte or 2^28 4-byte
// elements, ms before -> after (bench/lab/scan_heads_lab.cu): float64 sums 0.998 -> 0.669 / 0.683
// / 0.698, int64 0.988 -> 0.725 / 0.721 / 0.729, float32 0.739 -> 0.681 / 0.684 / 0.686, int32
// 0.761 -> 0.688 / 0.690 / 0.696 (the ordered look-back had been their gap: a float64 forward
// fill, whose windows combine as a tree, already took 0.69); float32 max (its operator's work,
// see ops.cuh Max) unchanged. Where tiles hold no head, their look-back still folds the A's after
// the nearest P; as no A holds a head, it folds their bare values (the segmented
// lookback_ordered), or combines them as a tree for integer sums and products (TreeLookback).
// One segment of 2^27 8-byte or 2^28 4-byte elements, ms: float64 sums 1.003 -> 0.697, int64
// 1.001 -> 0.729, float32 0.740 -> 0.707, int32 0.761 -> 0.715 (lab, same file).
//
// This header is self-contained (ops.cuh, warp/, block/ only; no host code, no standard headers),
// so NVRTC can instantiate device_scan<...> for a user-defined operator (GpuCustomScan.java: any
// associative operator; it need not be commutative). Such an operator takes the ordered
// (deterministic) look-back unless TreeLookback is specialised for it. Values in the status words (the operator's type, which may be
// wider than the output: see INT8) must be 4 or 8 bytes.
#pragma once
#include "../ops.cuh"
#include "../warp/warp_reduce.cuh"
#include "../warp/warp_scan.cuh"
#include "../block/block_scan.cuh"

namespace primer {

/** Launch shape of the device scan; ScanPolicy.java mirrors these numbers. */
struct ScanPolicyConstants {
    static constexpr int VECTOR_BYTES = 16;
    static constexpr int SCRATCH_HEADER_BYTES = 16; // the tile counter, then the status slots
    static constexpr int STATUS_SLOT_BYTES = 128;
    static constexpr int LOOKBACK_WINDOWS = 8;      // windows of 32 tiles kept for the ordered fold
    static constexpr int PREFETCH_TILES_AHEAD = 128;  // plain scans: see PREFETCH AHEAD
    static constexpr int EPOCH_BITS = 29;
    static constexpr int SEGMENT_STARTS_BLOCK = 256;  // threads per block of segment_tile_starts
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
 * Tile shape. Plain scans: 256 threads x 8 vectors = 32 KB of input per tile (8192 elements of 4
 * bytes, 4096 of 8), staged in shared memory; what counts is how many tiles an SM holds at once.
 * Measured on an H200, 2026-11-21, 2^28 elements (TB/s, read + write; copy 4.21):
 *   float sum:   256 x 8 vectors at 6 blocks per SM 3.56, 256 x 7 at 7 3.58, 512 x 4 at 4 3.32,
 *                128 x 16 at 6 3.29, 256 x 8 at 5 3.43;
 *   int32 -> int64 sum: 256 x 8 at 5 2.66 (spills; 4 per SM then), 512 x 4 at 3 2.31; with
 *                REDUCE_FIRST, 256 x 8 at 6 (see THREE WAYS).
 * 8-byte inputs, 2^27 elements, every operator (ms; bench/lab/scan8_lab.cu): 256 x 8 beat the
 * 128 x 16 they had before, at the most blocks per SM that compiled unspilled then (4-5): int64
 * sum 0.68 against 0.87, product 0.72 against 0.93, min and max 0.67 against 0.74, and, or, xor
 * 0.63 against 0.74; float64 sum and product 0.65 against 0.67, min and max 1.24 against 1.47-1.49.
 * REDUCE_FIRST took them to 5-6 blocks per SM and 0.58-0.62 ms (0.98 for float64 min and max).
 * (Float max is ~8% slower at 256 x 8 than at 512 x 4; one shape keeps the policy simple.)
 * Segmented scans take the same 256 x 8 since REDUCE_FIRST holds no chunk totals across the
 * look-back; with the block scan they needed 256 x 4 to fit their (value, head) pairs, and half
 * the tile ran 1.3-1.8x slower (bench/lab/scan_ordered_lab.cu). Segmented int8 scans keep 256 x 4
 * (16384 items): they still take the block scan (TileScanFor). Plain int8 input keeps 256 x 8 (the
 * same 32 KB of input, 32768 items): the bytes per tile are what the measurements above chose, and
 * the int8 kernels fit their registers by folding (INT8 above), not by a smaller tile; the int8
 * shape itself has not been measured. ScanPolicy.java mirrors these numbers.
 */
template <typename InT, bool SEGMENTED = false>
struct ScanShape {
    static constexpr int BLOCK_THREADS = 256;
    static constexpr int ROWS = SEGMENTED && sizeof(InT) == 1 ? 4 : 8;  // 16-byte vectors per thread per tile
    static constexpr int TILE_ITEMS = BLOCK_THREADS * ROWS * (ScanPolicyConstants::VECTOR_BYTES / (int)sizeof(InT));
};

// ---------------------------------------------------------------------------------------------
// Segmented values and operators.

// Segmented<T> and SegmentedOp (a value with a head flag, and the operator that restarts at a
// head) are in ops.cuh: the merge-path segmented reduce scans them too.

/** Integer sums and products: they wrap, so any association gives the same bits. */
template <typename Op> struct WrapsExactly { static constexpr bool value = false; };
template <> struct WrapsExactly<Sum<int>> { static constexpr bool value = true; };
template <> struct WrapsExactly<Sum<long long>> { static constexpr bool value = true; };
template <> struct WrapsExactly<Prod<int>> { static constexpr bool value = true; };
template <> struct WrapsExactly<Prod<long long>> { static constexpr bool value = true; };

/**
 * Whether the look-back combines each window as a tree rather than folding in order. Allowed only
 * for exactly associative operators (any association gives the same bits); worth it only where one
 * operation is expensive: Java-semantics min/max (NaN tests around the max), and segmented integer
 * sums and products (2^27 int64 sums in one segment, draft builds: 0.777 ms folded on bare values,
 * 0.723 as a tree, 0.729 in the final build; int32 and with heads no difference;
 * bench/lab/scan_heads_lab.cu). Plain integer sums, products and bitwise operators are exact too,
 * but fold as fast in order and with fewer registers.
 */
template <typename Op> struct TreeLookback { static constexpr bool value = false; };
template <typename T> struct TreeLookback<Min<T>> { static constexpr bool value = true; };  // a selection: exact
template <typename T> struct TreeLookback<Max<T>> { static constexpr bool value = true; };
template <typename Op, typename T>
struct TreeLookback<SegmentedOp<Op, T>> {
    static constexpr bool value = TreeLookback<Op>::value || WrapsExactly<Op>::value;
};

/** Operators whose operands may be combined in any order (the built-in ones). */
template <typename Op> struct Commutative { static constexpr bool value = false; };
template <typename T> struct Commutative<Sum<T>> { static constexpr bool value = true; };
template <typename T> struct Commutative<Prod<T>> { static constexpr bool value = true; };
template <typename T> struct Commutative<Min<T>> { static constexpr bool value = true; };
template <typename T> struct Commutative<Max<T>> { static constexpr bool value = true; };
template <typename T> struct Commutative<BitAnd<T>> { static constexpr bool value = true; };
template <typename T> struct Commutative<BitOr<T>> { static constexpr bool value = true; };
template <typename T> struct Commutative<BitXor<T>> { static constexpr bool value = true; };

/** Commutative operators of one instruction, for EARLY_AGGREGATE (min and max take REDUCE_FIRST: THREE WAYS). */
template <typename Op> struct OneInstruction { static constexpr bool value = false; };
template <typename T> struct OneInstruction<Sum<T>> { static constexpr bool value = true; };
template <typename T> struct OneInstruction<Prod<T>> { static constexpr bool value = true; };
template <typename T> struct OneInstruction<BitAnd<T>> { static constexpr bool value = true; };
template <typename T> struct OneInstruction<BitOr<T>> { static constexpr bool value = true; };
template <typename T> struct OneInstruction<BitXor<T>> { static constexpr bool value = true; };

/**
 * An operator's form for operands that are not NaN, where it is cheaper (device_scan's NAN FAST
 * PATH): Java's float min and max as the bare PTX instruction. Elsewhere the operator itself. The
 * fast path also relies on what makes these cheaper: a NaN on the left is their result.
 */
template <typename Op> struct NaNFreeForm {
    using type = Op;
    static constexpr bool CHEAPER = false;
};
template <typename FastOp> struct CheaperWithoutNaN {
    using type = FastOp;
    static constexpr bool CHEAPER = true;
};
template <> struct NaNFreeForm<Min<float>> : CheaperWithoutNaN<MinOfNumbers<float>> {};
template <> struct NaNFreeForm<Max<float>> : CheaperWithoutNaN<MaxOfNumbers<float>> {};
template <> struct NaNFreeForm<Min<double>> : CheaperWithoutNaN<MinOfNumbers<double>> {};
template <> struct NaNFreeForm<Max<double>> : CheaperWithoutNaN<MaxOfNumbers<double>> {};
/** A segmented operator's: the pair's select around its operator's NaN-free form. */
template <typename Op, typename T> struct NaNFreeForm<SegmentedOp<Op, T>> {
    using type = SegmentedOp<typename NaNFreeForm<Op>::type, T>;
    static constexpr bool CHEAPER = NaNFreeForm<Op>::CHEAPER;
};

/**
 * How a tile is scanned (THREE WAYS above): EARLY_AGGREGATE for 4-byte values of 4-byte input under
 * one-instruction operators; BLOCK_SCAN for int8 data (VEC = 16 items a chunk, values in int) under
 * operators that are not commutative (the segmented ones): REDUCE_FIRST would fold each 16-item
 * chunk three times, and those folds are what a segmented int8 scan's time goes to; REDUCE_FIRST
 * for everything else, other int8 scans included: EARLY_AGGREGATE holds the chunk totals and
 * prefixes through the block scan, and with 16-item chunks that spilled at 6 blocks per SM (20-44
 * bytes, sm_90), where REDUCE_FIRST needs at most 40 registers.
 */
enum class TileScan { BLOCK_SCAN, EARLY_AGGREGATE, REDUCE_FIRST };
template <typename ScanOp, typename Value, int VEC>
struct TileScanFor {
    static constexpr TileScan value =
        sizeof(Value) == 4 && VEC <= 4 && OneInstruction<ScanOp>::value ? TileScan::EARLY_AGGREGATE
        : VEC > 4 && !Commutative<ScanOp>::value                        ? TileScan::BLOCK_SCAN
                                                                         : TileScan::REDUCE_FIRST;
};

namespace scan_detail {

template <bool C, typename A, typename B> struct Select { using type = A; };
template <typename A, typename B> struct Select<false, A, B> { using type = B; };

/** The value whose bits are the low sizeof(T) bytes of `bits` (1 byte: an int8 scan's init). */
template <typename T>
__device__ __forceinline__ T from_bits(unsigned long long bits) {
    static_assert(sizeof(T) == 1 || sizeof(T) == 4 || sizeof(T) == 8, "1-, 4- or 8-byte values");
    T value;
    if constexpr (sizeof(T) == 1) {
        const unsigned char low = (unsigned char)bits;
        __builtin_memcpy(&value, &low, 1);
    } else if constexpr (sizeof(T) == 4) {
        const unsigned low = (unsigned)bits;
        __builtin_memcpy(&value, &low, 4);
    } else {
        __builtin_memcpy(&value, &bits, 8);
    }
    return value;
}

template <typename T>
__device__ __forceinline__ unsigned long long to_bits(T value) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "4- or 8-byte values");
    if constexpr (sizeof(T) == 4) {
        unsigned low;
        __builtin_memcpy(&low, &value, 4);
        return low;
    } else {
        unsigned long long bits;
        __builtin_memcpy(&bits, &value, 8);
        return bits;
    }
}

// ---- memory-model accesses at device (gpu) scope ----

__device__ __forceinline__ unsigned long long load_relaxed(const unsigned long long* p) {
    unsigned long long v;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ void store_relaxed(unsigned long long* p, unsigned long long v) {
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
/** Two adjacent words in one 16-byte access (each word single-copy atomic, the pair not). */
__device__ __forceinline__ void load_relaxed_pair(const unsigned long long* p, unsigned long long& first,
                                                  unsigned long long& second) {
    asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];" : "=l"(first), "=l"(second) : "l"(p) : "memory");
}
__device__ __forceinline__ void store_relaxed_pair(unsigned long long* p, unsigned long long first,
                                                   unsigned long long second) {
    asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(first), "l"(second) : "memory");
}

// ---- what a status word carries: a 4/8-byte value and a head bit ----

template <typename V>
struct StatusPayload {
    static constexpr bool IN_WORD = sizeof(V) == 4;
    static __device__ __forceinline__ unsigned long long bits(V v) { return to_bits(v); }
    static __device__ __forceinline__ unsigned head(V) { return 0; }
    static __device__ __forceinline__ V make(unsigned long long bits, unsigned) { return from_bits<V>(bits); }
};
template <typename T>
struct StatusPayload<Segmented<T>> {
    static constexpr bool IN_WORD = sizeof(T) == 4;
    static __device__ __forceinline__ unsigned long long bits(Segmented<T> v) { return to_bits(v.value); }
    static __device__ __forceinline__ unsigned head(Segmented<T> v) { return v.head ? 1u : 0u; }
    static __device__ __forceinline__ Segmented<T> make(unsigned long long bits, unsigned head) {
        return {from_bits<T>(bits), (int)head};
    }
};

}  // namespace scan_detail

// ---------------------------------------------------------------------------------------------
// Tile status.

struct TileStatusSlot {
    unsigned long long word;  // tag | the value (4 bytes) or its low half (8 bytes)
    unsigned long long high;  // tag | the high half of an 8-byte value
    unsigned long long padding[14];  // the rest of the line: no other tile's words
};
static_assert(sizeof(TileStatusSlot) == ScanPolicyConstants::STATUS_SLOT_BYTES, "slot layout");

constexpr unsigned TILE_NOTHING = 0u, TILE_AGGREGATE = 1u, TILE_PREFIX = 2u;

template <typename V>
struct TileStatus {
    using Payload = scan_detail::StatusPayload<V>;
    TileStatusSlot* slots;
    unsigned epoch;

    __device__ __forceinline__ void publish(long long tile, unsigned state, V value) const {
        const unsigned long long tag =
            (unsigned long long)((epoch << 3) | (Payload::head(value) << 2) | state) << 32;
        const unsigned long long bits = Payload::bits(value);
        TileStatusSlot& slot = slots[tile];
        if constexpr (Payload::IN_WORD) {
            scan_detail::store_relaxed(&slot.word, tag | (bits & 0xffffffffull));
        } else {
            scan_detail::store_relaxed_pair(&slot.word, tag | (bits & 0xffffffffull), tag | (bits >> 32));
        }
    }

    /** TILE_NOTHING while the tile has published nothing in this launch; else its state and value. */
    __device__ __forceinline__ unsigned poll(long long tile, V& value) const {
        const TileStatusSlot& slot = slots[tile];
        unsigned long long w, h = 0;
        if constexpr (Payload::IN_WORD) w = scan_detail::load_relaxed(&slot.word);
        else scan_detail::load_relaxed_pair(&slot.word, w, h);
        unsigned long long bits = w & 0xffffffffull;
        if constexpr (!Payload::IN_WORD) {
            if ((h >> 32) != (w >> 32)) return TILE_NOTHING;  // halves of different publications
            bits |= h << 32;
        }
        if ((unsigned)(w >> 35) != epoch) return TILE_NOTHING;
        value = Payload::make(bits, (unsigned)(w >> 34) & 1u);
        return (unsigned)(w >> 32) & 3u;
    }
};

// ---------------------------------------------------------------------------------------------
// Look-back. Called by all 32 lanes of one warp for a tile >= 1; returns, in every lane, the
// combination of tiles 0 .. tile-1 preceded by the init (the tile's exclusive prefix).

namespace scan_detail {

/** Waits until none of the 32 predecessors of this window is TILE_NOTHING; returns this lane's state. */
template <typename V>
__device__ __forceinline__ unsigned poll_window(const TileStatus<V>& status, long long predecessor, V& value) {
    // Before tile 0 there is nothing: such lanes lie below tile 0, which is always a P, so their
    // (zero) value is never combined.
    unsigned state = TILE_AGGREGATE;
    value = V{};
    if (predecessor >= 0) state = status.poll(predecessor, value);
    while (__any_sync(0xffffffffu, state == TILE_NOTHING)) {
        if (state == TILE_NOTHING) state = status.poll(predecessor, value);
    }
    return state;
}

}  // namespace scan_detail

/** The warp totals of a tile reduced before its scan (EARLY_AGGREGATE, REDUCE_FIRST; a few hundred bytes). */
template <typename V, int WARPS>
struct WarpTotalsStorage {
    V warp[WARPS];         // each warp's total, from the fold of its threads' chunks
    V before_warp[WARPS];  // REDUCE_FIRST: all that precedes each warp's first item, the tile's prefix included
    V tile;                // EARLY_AGGREGATE: the tile's aggregate, until P is published
};
template <typename V, int WINDOWS, bool ORDERED>
struct LookbackStorage {
    V window[WINDOWS][32];
};
template <typename V, int WINDOWS>
struct LookbackStorage<V, WINDOWS, false> {};
/** Segmented values: the bare values (see the segmented lookback_ordered). */
template <typename T, int WINDOWS>
struct LookbackStorage<Segmented<T>, WINDOWS, true> {
    T window[WINDOWS][32];
};

/** TreeLookback operators: each window is combined as a tree. */
template <typename V, typename Op>
__device__ __forceinline__ V lookback_tree(const TileStatus<V>& status, long long tile, Op op) {
    const int lane = (int)lane_id();
    V prefix{};
    bool first_window = true;
    for (long long window_end = tile - 1;; window_end -= 32) {
        V value;
        const unsigned state = scan_detail::poll_window(status, window_end - 31 + lane, value);
        const unsigned prefixes = __ballot_sync(0xffffffffu, state == TILE_PREFIX);
        const int start = prefixes ? 31 - __clz(prefixes) : 0;  // the nearest P, or the whole window
        V window_total;
        warp_inclusive_scan(lane >= start ? value : Op::identity(), op, window_total);
        prefix = first_window ? window_total : op(window_total, prefix);  // this window lies before
        first_window = false;
        if (prefixes) return prefix;
    }
}

/** Any operator: the left fold from the nearest P found (see DETERMINISM above). */
template <int WINDOWS, typename V, typename Op>
__device__ __forceinline__ V lookback_ordered(const TileStatus<V>& status, long long tile, Op op,
                                              LookbackStorage<V, WINDOWS, true>& storage) {
    const int lane = (int)lane_id();
    int window = 0, prefix_lane = 0;
    for (;;) {
        V value;
        const unsigned state = scan_detail::poll_window(status, tile - 32 * (long long)(window + 1) + lane, value);
        storage.window[window][lane] = value;  // lane 31: the nearest predecessor
        const unsigned prefixes = __ballot_sync(0xffffffffu, state == TILE_PREFIX);
        if (prefixes) {
            prefix_lane = 31 - __clz(prefixes);
            break;
        }
        window = window + 1 == WINDOWS ? 0 : window + 1;  // out of room: start again from the nearest
    }
    __syncwarp();
    V prefix{};
    if (lane == 0) {
        prefix = storage.window[window][prefix_lane];
        for (int l = prefix_lane + 1; l < 32; ++l) prefix = op(prefix, storage.window[window][l]);
        for (int w = window - 1; w >= 0; --w) {
#pragma unroll 8
            for (int l = 0; l < 32; ++l) prefix = op(prefix, storage.window[w][l]);
        }
    }
    prefix = warp_shfl(prefix, 0);
    __syncwarp();  // the buffer may be written again only after lane 0 has read it
    return prefix;
}

/**
 * Segmented operators: the same left fold from the nearest P, on the bare values. No A holds a head
 * (a tile whose aggregate holds one publishes it as its P at once: device_scan's look_back), so
 * every pair after the P has head 0, and (v, h) op (w, 0) = (v op w, h): the fold's chain is the
 * operator alone, without the pair's select. Same bits as lookback_ordered; 2^27 float64 sums in
 * one segment 1.003 -> 0.697 ms (bench/lab/scan_heads_lab.cu).
 */
template <int WINDOWS, typename T, typename Op>
__device__ __forceinline__ Segmented<T> lookback_ordered(const TileStatus<Segmented<T>>& status, long long tile,
                                                         SegmentedOp<Op, T> scan_op,
                                                         LookbackStorage<Segmented<T>, WINDOWS, true>& storage) {
    const int lane = (int)lane_id();
    int window = 0, prefix_lane = 0;
    Segmented<T> value;
    for (;;) {
        const unsigned state = scan_detail::poll_window(status, tile - 32 * (long long)(window + 1) + lane, value);
        storage.window[window][lane] = value.value;  // lane 31: the nearest predecessor
        const unsigned prefixes = __ballot_sync(0xffffffffu, state == TILE_PREFIX);
        if (prefixes) {
            prefix_lane = 31 - __clz(prefixes);
            break;
        }
        window = window + 1 == WINDOWS ? 0 : window + 1;  // out of room: start again from the nearest
    }
    const int head = __shfl_sync(0xffffffffu, value.head, prefix_lane);  // the P's
    __syncwarp();
    T folded{};
    if (lane == 0) {
        folded = storage.window[window][prefix_lane];
        for (int l = prefix_lane + 1; l < 32; ++l) folded = scan_op.op(folded, storage.window[window][l]);
        for (int w = window - 1; w >= 0; --w) {
#pragma unroll 8
            for (int l = 0; l < 32; ++l) folded = scan_op.op(folded, storage.window[w][l]);
        }
    }
    folded = warp_shfl(folded, 0);
    __syncwarp();  // the buffer may be written again only after lane 0 has read it
    return {folded, head};
}

// ---------------------------------------------------------------------------------------------
// Where segments start: none, an int8 flag per element, or a sorted offsets array.
//   load<VEC>(index, n): issued with the chunk's data (one tile ahead); returns a raw word that is
//     not looked at until the tile is scanned, so the load stays in flight meanwhile;
//   prepare(tile, tile_start, storage): every thread, once per tile before it is scanned (may
//     hold barriers);
//   bits<VEC>(raw, tile_offset, storage): bit k set if element k of the chunk starts a segment
//     (tile_offset: the chunk's position in the tile, counted from its first, possibly virtual, item);
//   BITS_IN_SHARED: bits() reads shared memory alone, and is called where the bits are used instead
//     of once per chunk up front (held in registers through the tile, the offsets scans' bits took
//     them from 64 registers to 105 at 256 x 8 tiles, sm_90).

struct NoHeads {
    static constexpr bool SEGMENTED = false;
    static constexpr bool BITS_IN_SHARED = false;
    struct Storage {};
    template <int VEC>
    __device__ __forceinline__ unsigned load(long long, long long) const { return 0u; }
    __device__ __forceinline__ void prepare(long long, long long, Storage&) const {}
    template <int VEC>
    __device__ __forceinline__ unsigned bits(unsigned, int, const Storage&) const { return 0u; }
};

namespace scan_detail {
/** Bit k set where byte k (k < BYTES) of the word is nonzero. */
template <int BYTES>
__device__ __forceinline__ unsigned nonzero_bytes(unsigned word) {
    static_assert(BYTES >= 1 && BYTES <= 4, "bytes of a word");
    unsigned heads = 0;
#pragma unroll
    for (int k = 0; k < BYTES; ++k) heads |= ((word >> (8 * k)) & 0xffu) ? 1u << k : 0u;
    return heads;
}
}  // namespace scan_detail

struct FlagHeads {
    static constexpr bool SEGMENTED = true;
    static constexpr bool BITS_IN_SHARED = false;
    const signed char* flags;  // nonzero: a segment starts here
    struct Storage {};
    /**
     * The chunk's VEC flag bytes (zero for elements outside [0, n)), one load where aligned: as one
     * raw word for VEC 2 or 4; for VEC 16 (int8 data) already as the 16 head bits, because four raw
     * words waiting for bits() took the segmented int8 scans from 58 registers to 88 (sm_90) and
     * spilled them at 4 blocks per SM.
     */
    template <int VEC>
    __device__ __forceinline__ unsigned load(long long index, long long n) const {
        static_assert(VEC == 2 || VEC == 4 || VEC == 16, "VEC flag bytes: a word or four");
        const signed char* p = flags + index;
        const bool whole = index >= 0 && index + VEC <= n && (reinterpret_cast<unsigned long long>(p) & (VEC - 1)) == 0;
        if constexpr (VEC == 16) {
            if (whole) {
                const uint4 raw = *reinterpret_cast<const uint4*>(p);
                return heads16(raw.x, raw.y, raw.z, raw.w);
            }
            unsigned word[4] = {0u, 0u, 0u, 0u};
#pragma unroll
            for (int k = 0; k < VEC; ++k) {
                if (index + k >= 0 && index + k < n) word[k / 4] |= (unsigned)(unsigned char)flags[index + k] << (8 * (k % 4));
            }
            return heads16(word[0], word[1], word[2], word[3]);
        } else {
            if (whole) {
                if constexpr (VEC == 4) return *reinterpret_cast<const unsigned*>(p);
                else return *reinterpret_cast<const unsigned short*>(p);
            }
            unsigned word = 0;
#pragma unroll
            for (int k = 0; k < VEC; ++k) {
                if (index + k >= 0 && index + k < n) word |= (unsigned)(unsigned char)flags[index + k] << (8 * k);
            }
            return word;
        }
    }
    static __device__ __forceinline__ unsigned heads16(unsigned w0, unsigned w1, unsigned w2, unsigned w3) {
        return scan_detail::nonzero_bytes<4>(w0) | scan_detail::nonzero_bytes<4>(w1) << 4 |
               scan_detail::nonzero_bytes<4>(w2) << 8 | scan_detail::nonzero_bytes<4>(w3) << 12;
    }
    __device__ __forceinline__ void prepare(long long, long long, Storage&) const {}
    template <int VEC>
    __device__ __forceinline__ unsigned bits(unsigned raw, int, const Storage&) const {
        if constexpr (VEC == 16) return raw;
        else return scan_detail::nonzero_bytes<VEC>(raw);
    }
};

/**
 * Per tile, the positions within it of its first SEGMENT_HEAD_SLOTS segment starts (int32), written
 * by segment_tile_starts after tile_first[0 .. tiles] in the same scratch, from the next multiple of
 * a slot's 128 bytes: a tile's warp loads its slot as one 128-byte line. ScanPolicy.java mirrors it.
 */
__host__ __device__ constexpr long long segment_head_slots_offset(long long tiles) {
    constexpr long long SLOT_BYTES = ScanPolicyConstants::SEGMENT_HEAD_SLOTS * 4;
    return (8 * (tiles + 1) + SLOT_BYTES - 1) / SLOT_BYTES * SLOT_BYTES;
}
__host__ __device__ __forceinline__ int* segment_head_slots(long long* tile_first, long long tiles) {
    return reinterpret_cast<int*>(reinterpret_cast<char*>(tile_first) + segment_head_slots_offset(tiles));
}
__host__ __device__ __forceinline__ const int* segment_head_slots(const long long* tile_first, long long tiles) {
    return reinterpret_cast<const int*>(reinterpret_cast<const char*>(tile_first) + segment_head_slots_offset(tiles));
}

template <int TILE_ITEMS, int BLOCK_THREADS>
struct OffsetHeads {
    static constexpr bool SEGMENTED = true;
    static constexpr bool BITS_IN_SHARED = true;
    static constexpr int SLOTS = ScanPolicyConstants::SEGMENT_HEAD_SLOTS;
    const long long* offsets;     // segment k is [offsets[k], offsets[k+1]) of the full array
    const long long* tile_first;  // per tile (and one more): the first k >= 1 with offsets[k] >= tile start
    long long begin;              // offsets[0]: element 0 of this scan
    const int* slots;             // per tile: its first SLOTS starts' positions (segment_head_slots)
    struct Storage {
        unsigned bits[TILE_ITEMS / 32];
    };
    template <int VEC>
    __device__ __forceinline__ unsigned load(long long, long long) const { return 0u; }
    /**
     * The tile's segment starts as a bitmap in shared memory. A tile with at most SLOTS starts
     * takes their positions from its slot, loaded beside tile_first[tile] and tile_first[tile + 1]:
     * one round trip to memory before the scan. One with more reads its offsets after them: two.
     * (2^28 float32 with a start in about 1024 elements: 0.788 -> 0.721 ms, 8%; with one in 16
     * (256-512 a tile) nothing changes; bench/lab/scan_offsets_lab.cu.) Zeroing the bitmap is safe
     * without a barrier first: the previous tile's bitmap was read before that tile's block scan,
     * whose barriers every thread has passed since.
     */
    __device__ __forceinline__ void prepare(long long tile, long long tile_start, Storage& s) const {
        const long long first = tile_first[tile], end = tile_first[tile + 1];
        const int slot = threadIdx.x < SLOTS ? slots[tile * SLOTS + threadIdx.x] : -1;
        for (int w = threadIdx.x; w < TILE_ITEMS / 32; w += BLOCK_THREADS) s.bits[w] = 0u;
        __syncthreads();
        if (end - first <= SLOTS) {
            if (threadIdx.x < end - first && slot >= 0 && slot < TILE_ITEMS) atomicOr(&s.bits[slot >> 5], 1u << (slot & 31));
        } else {
            for (long long k = first + threadIdx.x; k < end; k += BLOCK_THREADS) {
                const long long at = offsets[k] - begin - tile_start;
                if (at >= 0 && at < TILE_ITEMS) atomicOr(&s.bits[at >> 5], 1u << (at & 31));  // guards unsorted input
            }
        }
        __syncthreads();
    }
    template <int VEC>
    __device__ __forceinline__ unsigned bits(unsigned, int tile_offset, const Storage& s) const {
        static_assert(32 % VEC == 0 && VEC < 32, "a chunk's bits lie in one word");  // tile_offset: a multiple of VEC
        return (s.bits[tile_offset >> 5] >> (tile_offset & 31)) & ((1u << VEC) - 1u);
    }
};

// ---------------------------------------------------------------------------------------------
// Moving one chunk (VEC consecutive elements starting at element `index`; 16 bytes of input).

namespace scan_detail {

/**
 * Global -> shared without passing through registers: cp.async (sm_80+), 16 bytes, cached in L2
 * only. A full chunk is one aligned vector by construction of the tiles; a partial one (the ends)
 * is copied element by element, with zeros outside [0, n).
 */
template <int VEC, typename T>
__device__ __forceinline__ void stage_chunk(const T* in, long long index, long long n, T* stage) {
    static_assert(VEC * sizeof(T) == 16, "a chunk is one 16-byte vector");
    if (index >= 0 && index + VEC <= n) {
        const unsigned dst = (unsigned)__cvta_generic_to_shared(stage);
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(in + index) : "memory");
    } else {
#pragma unroll
        for (int k = 0; k < VEC; ++k) stage[k] = (index + k >= 0 && index + k < n) ? in[index + k] : T(0);
    }
}

/**
 * Asks L2 to fetch the input of tile `tile` (PREFETCH AHEAD): one bulk prefetch on sm_90 and later,
 * nothing before. tile >= 1, so the tile starts past in[0], on a 16-byte boundary; the request
 * covers whole 16-byte vectors that lie within [0, n).
 */
template <int TILE_ITEMS, typename T>
__device__ __forceinline__ void prefetch_tile_l2(const T* in, long long tile, long long tiles, long long n, long long shift) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (tile >= tiles) return;
    const long long start = tile * TILE_ITEMS - shift;
    const long long end = start + TILE_ITEMS < n ? start + TILE_ITEMS : n;
    const unsigned bytes = (unsigned)(((end - start) * (long long)sizeof(T)) & ~15LL);
    if (bytes) asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(in + start), "r"(bytes) : "memory");
#endif
}

/** Waits for this thread's cp.async copies (each thread reads back only what it staged itself). */
__device__ __forceinline__ void wait_staged() {
    asm volatile("cp.async.commit_group;\n\tcp.async.wait_group 0;" ::: "memory");
}

/** Bit k set if element index + k lies in [0, n). */
template <int VEC>
__device__ __forceinline__ unsigned valid_mask(long long index, long long n) {
    if (index >= 0 && index + VEC <= n) return (1u << VEC) - 1u;
    unsigned mask = 0;
#pragma unroll
    for (int k = 0; k < VEC; ++k) mask |= (index + k >= 0 && index + k < n) ? 1u << k : 0u;
    return mask;
}

template <int VEC, typename T>
__device__ __forceinline__ void read_chunk(const T* stage, T (&x)[VEC]) {
    const uint4 raw = *reinterpret_cast<const uint4*>(stage);
    __builtin_memcpy(x, &raw, 16);
}

/** Full aligned chunks as 16-byte streaming stores (evict-first: the output is not read again soon). */
template <int VEC, typename T>
__device__ __forceinline__ void store_chunk(T* out, long long index, long long n, const T (&v)[VEC]) {
    constexpr int BYTES = VEC * (int)sizeof(T);
    static_assert(BYTES % 16 == 0, "whole vectors");
    T* p = out + index;
    if (index >= 0 && index + VEC <= n && (reinterpret_cast<unsigned long long>(p) & 15) == 0) {
        uint4 raw[BYTES / 16];
        __builtin_memcpy(raw, v, BYTES);
#pragma unroll
        for (int q = 0; q < BYTES / 16; ++q) __stcs(reinterpret_cast<uint4*>(p) + q, raw[q]);
    } else {
#pragma unroll
        for (int k = 0; k < VEC; ++k) {
            if (index + k >= 0 && index + k < n) out[index + k] = v[k];
        }
    }
}

/**
 * One row of chunks, stored by the whole warp (every lane takes part; lane l holds chunk l of the
 * row), a piece at a time: the whole chunk if it is 16 bytes (one store), else one 32-byte sector.
 * A chunk of 32 bytes (4-byte input scanned into 8-byte output) would be two stores at a 32-byte
 * stride, each instruction writing half of every sector it touches; instead lanes 2m and 2m+1 trade
 * halves (one 16-byte shuffle), so that the first instruction completes lane 2m's sector and the
 * second lane 2m+1's. Measured on an H200 with a plain int32 -> int64 conversion in this
 * arrangement: half sectors 62% of the copy's bandwidth, whole sectors 96.5% (512 contiguous bytes
 * per instruction, by more shuffles: 96%). Chunks of 32 * k bytes (int8 -> int64: 128) do the same
 * for each sector in turn, so a caller can store each sector as soon as it is computed instead of
 * holding the whole chunk in registers.
 */
template <int VEC, typename T>
struct RowStore {
    static constexpr int BYTES = VEC * (int)sizeof(T);
    static_assert(BYTES == 16 || BYTES % 32 == 0, "a chunk of 16 bytes or of whole 32-byte sectors");
    static constexpr int PIECE = BYTES == 16 ? VEC : 32 / (int)sizeof(T);  // items per put()
    static constexpr int VECTORS = BYTES / 16;
    T* out;
    long long index, n;
    bool full, partner_full = false;

    __device__ __forceinline__ RowStore(T* out_, long long index_, long long n_) : out(out_), index(index_), n(n_) {
        full = index >= 0 && index + VEC <= n && (reinterpret_cast<unsigned long long>(out + index) & 15) == 0;
    }

    /** Items [s * PIECE, (s + 1) * PIECE) of this lane's chunk; every lane calls, for s = 0, 1, ... in turn. */
    __device__ __forceinline__ void put(int s, const T (&v)[PIECE]) {
        if constexpr (BYTES == 16) {
            store_chunk<VEC>(out, index, n, v);
        } else {
            const bool odd = lane_id() & 1u;
            uint4 half[2];
            __builtin_memcpy(half, v, 32);
            const uint4 received = detail::shfl_xor(odd ? half[0] : half[1], 1);  // even lanes send their high half
            // Every lane shuffles, outside any condition: a lane of the mask that skips a shuffle is
            // undefined behaviour (with `full && shuffle`, a full lane beside a partial one could read
            // garbage as "partner full" and store the partner's sector past the end; lab).
            if (s == 0) partner_full = __shfl_xor_sync(0xffffffffu, full, 1);
            if (full && partner_full) {
                uint4* q = reinterpret_cast<uint4*>(out + index) + 2 * s;  // this lane's sector s
                __stcs(odd ? q + (1 - VECTORS) : q, odd ? received : half[0]);  // the even lane's sector s
                __stcs(odd ? q + 1 : q + VECTORS, odd ? half[1] : received);    // the odd lane's sector s
            } else if constexpr (PIECE == VEC) {
                store_chunk<VEC>(out, index, n, v);
            } else {
                store_chunk<PIECE>(out, index + s * PIECE, n, v);  // whole vectors where `full`, else elements
            }
        }
    }
};

/** A whole row of chunks (RowStore, piece by piece). */
template <int VEC, typename T>
__device__ __forceinline__ void store_row(T* out, long long index, long long n, const T (&v)[VEC]) {
    using Store = RowStore<VEC, T>;
    Store store(out, index, n);
#pragma unroll
    for (int s = 0; s < VEC / Store::PIECE; ++s) {
        T piece[Store::PIECE];
#pragma unroll
        for (int k = 0; k < Store::PIECE; ++k) piece[k] = v[s * Store::PIECE + k];
        store.put(s, piece);
    }
}

}  // namespace scan_detail

/** Elements of input the tile grid starts before in[0]: in's distance past a 16-byte boundary. */
template <typename InT>
__device__ __forceinline__ long long scan_shift(const InT* in) {
    return (long long)((reinterpret_cast<unsigned long long>(in) % 16) / sizeof(InT));
}

// ---------------------------------------------------------------------------------------------
// The scan itself.

/**
 * out[i] = init op in[0] op ... op in[i] (inclusive != 0) or init op in[0] op ... op in[i-1]
 * (exclusive; out[0] = init); segmented: the same within each segment. in == out is allowed.
 * Pointers aligned to their element size. Launch: blockDim.x = BLOCK_THREADS, gridDim.x = tiles =
 * ceil((n + scan_shift(in)) / TILE_ITEMS) (passed, and checked), n >= 1, scratch >= 16 + 128 * tiles
 * bytes (SCRATCH_HEADER_BYTES + STATUS_SLOT_BYTES * tiles; counter zero), epoch in [1, 2^29) and
 * different from the previous launch's on this scratch.
 *
 * The tile's input waits in shared memory, not in registers: it arrives by cp.async and each thread
 * reads its chunks twice (once for its totals, once after the look-back, to write the outputs,
 * redoing the same few combinations). A block holds few registers while it waits for its prefix,
 * so more blocks fit on an SM, and more tiles' loads are in flight while others look back.
 */
template <int BLOCK_THREADS, int ROWS, typename InT, typename OutT, typename Op, typename Heads>
__device__ __forceinline__ void device_scan(const InT* in, OutT* out, long long n, long long tile_count,
                                            long long init_bits, int inclusive, unsigned char* scratch, unsigned epoch,
                                            const Heads& heads) {
    constexpr int VEC = ScanPolicyConstants::VECTOR_BYTES / (int)sizeof(InT);
    constexpr int WARPS = BLOCK_THREADS / 32;
    constexpr int ROW_ITEMS = 32 * VEC;
    constexpr int WARP_ITEMS = ROW_ITEMS * ROWS;
    constexpr int TILE_ITEMS = WARP_ITEMS * WARPS;
    constexpr bool SEGMENTED = Heads::SEGMENTED;
    constexpr int WINDOWS = ScanPolicyConstants::LOOKBACK_WINDOWS;
    // V: the operator's type, which every combination, the look-back and the status words use; it
    // may be wider than the output (int8 data scans in int and is narrowed as it is stored).
    using V = decltype(Op::identity());
    static_assert(sizeof(V) == 4 || sizeof(V) == 8, "the status words carry 4- or 8-byte values");
    static_assert(sizeof(V) >= sizeof(OutT), "the output is the operator's type or narrower");
    using Acc = typename scan_detail::Select<SEGMENTED, Segmented<V>, V>::type;
    using ScanOp = typename scan_detail::Select<SEGMENTED, SegmentedOp<Op, V>, Op>::type;
    constexpr bool ORDERED = !TreeLookback<ScanOp>::value;
    constexpr TileScan HOW = TileScanFor<ScanOp, Acc, VEC>::value;
    // A segmented tile publishes an aggregate holding a head as its P (look_back): its A is never
    // published early, and so no A holds a head (the segmented lookback_ordered relies on it).
    static_assert(!SEGMENTED || HOW != TileScan::EARLY_AGGREGATE, "segmented tiles publish their A in look_back");

    __shared__ struct {
        alignas(16) InT stage[TILE_ITEMS];
        unsigned tile;
        BlockScanStorage<Acc, BLOCK_THREADS> scan;
        LookbackStorage<Acc, WINDOWS, ORDERED> lookback;
        WarpTotalsStorage<Acc, WARPS> totals;
        typename Heads::Storage heads;
    } s;

    const Op op{};
    const ScanOp scan_op{};
    // The init arrives as bits of OutT: an int8 init is its low byte, sign-extended into V.
    const V init = (V)scan_detail::from_bits<OutT>((unsigned long long)init_bits);
    const long long shift = scan_shift(in);
    unsigned* tile_counter = reinterpret_cast<unsigned*>(scratch);
    const TileStatus<Acc> status{reinterpret_cast<TileStatusSlot*>(scratch + ScanPolicyConstants::SCRATCH_HEADER_BYTES),
                                 epoch};

    if (threadIdx.x == 0) {
        if (blockIdx.x == 0 && ((n + shift + TILE_ITEMS - 1) / TILE_ITEMS != tile_count || gridDim.x != tile_count)) {
            __trap();  // host and device disagree on the tile size
        }
        const unsigned t = atomicAdd(tile_counter, 1u);
        if (t == gridDim.x - 1) atomicExch(tile_counter, 0u);  // the last ticket: every block has drawn
        s.tile = t;
        if constexpr (!SEGMENTED) {
            scan_detail::prefetch_tile_l2<TILE_ITEMS>(in, (long long)t + ScanPolicyConstants::PREFETCH_TILES_AHEAD, tile_count,
                                                      n, shift);
        }
    }
    __syncthreads();
    const long long tile = s.tile;
    const int lane = (int)lane_id();
    const int warp = (int)(threadIdx.x / 32);
    const int thread_offset = warp * WARP_ITEMS + lane * VEC;   // row 0's chunk, within the tile
    const long long tile_start = tile * TILE_ITEMS - shift;       // element index of the tile's first item
    const long long first = tile_start + thread_offset;

    unsigned raw_heads[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        scan_detail::stage_chunk<VEC>(in, first + r * ROW_ITEMS, n, s.stage + thread_offset + r * ROW_ITEMS);
        raw_heads[r] = heads.template load<VEC>(first + r * ROW_ITEMS, n);
    }
    heads.prepare(tile, tile_start, s.heads);
    unsigned head_bits[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        if constexpr (!Heads::BITS_IN_SHARED) head_bits[r] = heads.template bits<VEC>(raw_heads[r], thread_offset + r * ROW_ITEMS, s.heads);
    }
    scan_detail::wait_staged();
    // Row r's head bits: from registers, by selects over constant indexes (FOLD's row loop is not
    // unrolled, and an array read at a variable index would put head_bits in local memory); or
    // read from shared memory where they are used (BITS_IN_SHARED).
    auto row_heads = [&](int r) -> unsigned {
        if constexpr (Heads::BITS_IN_SHARED) {
            return heads.template bits<VEC>(0u, thread_offset + r * ROW_ITEMS, s.heads);
        } else {
            unsigned bits = head_bits[0];
#pragma unroll
            for (int j = 1; j < ROWS; ++j) bits = r == j ? head_bits[j] : bits;
            return bits;
        }
    };

    // The operator, or with `fast` its NaN-free form (NAN FAST PATH below). `fast` is a constant
    // wherever this is called, so each call compiles to one of the two. (A bool rather than an
    // operator argument: nvcc 13.0's front end crashed on the generic lambdas that took one.)
    const typename NaNFreeForm<ScanOp>::type fast_scan_op{};
    const typename NaNFreeForm<Op>::type fast_op{};
    auto combine = [&](bool fast, Acc x, Acc y) -> Acc { return fast ? fast_scan_op(x, y) : scan_op(x, y); };
    auto value_of = [](Acc x) -> V {
        if constexpr (SEGMENTED) return x.value;
        else return x;
    };

    // A chunk's inclusive scan, in registers; with `fast`, returns whether one of its elements is
    // NaN (else false). Elements past the end are the identity (they only feed outputs that are not
    // stored, and the last tile's status, which nobody reads). Elements before in[0] (only in tile
    // 0's first chunk) are skipped, not combined: `skip` of them.
    auto scan_chunk_with = [&](bool fast, int r, Acc (&a)[VEC], int& skip) -> bool {
        InT x[VEC];
        scan_detail::read_chunk<VEC>(s.stage + thread_offset + r * ROW_ITEMS, x);
        const unsigned valid = scan_detail::valid_mask<VEC>(first + r * ROW_ITEMS, n);
        skip = r == 0 && valid ? __ffs(valid) - 1 : 0;  // rows after the first never start before in[0]
        bool nan = false;
#pragma unroll
        for (int k = 0; k < VEC; ++k) {
            const bool is_valid = (valid >> k) & 1u;
            const V v = is_valid ? (V)x[k] : Op::identity();
            if (fast) nan |= is_nan(v);
            if constexpr (SEGMENTED) {
                const bool head = is_valid && ((row_heads(r) >> k) & 1u);
                a[k] = Acc{head ? (fast ? fast_op(init, v) : op(init, v)) : v, head ? 1 : 0};
            } else {
                a[k] = v;
            }
            if (k > skip) a[k] = combine(fast, a[k - 1], a[k]);
        }
        return nan;
    };
    auto scan_chunk = [&](int r, Acc (&a)[VEC], int& skip) { scan_chunk_with(false, r, a, skip); };

    // One chunk's outputs, from what precedes the chunk.
    auto store_chunk_outputs_with = [&](bool fast, int r, const Acc (&a)[VEC], int skip, Acc chunk_prefix) {
        OutT o[VEC];
#pragma unroll
        for (int k = 0; k < VEC; ++k) {
            Acc result;
            if (inclusive) result = combine(fast, chunk_prefix, a[k]);
            else result = k <= skip ? chunk_prefix : combine(fast, chunk_prefix, a[k - 1]);
            if constexpr (SEGMENTED) {
                const bool head = ((row_heads(r) >> k) & 1u) && k >= skip;  // a segment starts here
                o[k] = (OutT)(!inclusive && head ? init : result.value);
            } else {
                o[k] = (OutT)result;  // narrowing wraps mod 2^bits: Java's byte arithmetic for sums and products
            }
        }
        scan_detail::store_row<VEC>(out, first + r * ROW_ITEMS, n, o);
    };
    auto store_chunk_outputs = [&](int r, const Acc (&a)[VEC], int skip, Acc chunk_prefix) {
        store_chunk_outputs_with(false, r, a, skip, chunk_prefix);
    };

    // FOLD (int8, 16 items a chunk): a chunk is not scanned into 16 partials that wait for its
    // prefix (they pushed plain scans past 40 registers, and int8 -> int64 to kilobytes of spills);
    // its total is one left fold, and its outputs are folded on from its prefix, one operation per
    // item instead of two. Elements outside [0, n) fold in as the identity (exact for the integer
    // operators int8 takes), and the association is fixed, so results are still the same every run.
    // The paths below keep their chunk scans spelled out where !FOLD: the 4- and 8-byte kernels
    // compile to the same PTX as before int8 came (through a lambda they did not quite).
    constexpr bool FOLD = VEC > 4;
    constexpr unsigned WHOLE = (1u << VEC) - 1u;
    // A chunk's element k as the scan combines it (a head folds the init in). `check`: whether the
    // chunk may reach outside [0, n), where elements are the identity. Every chunk but a few at
    // the ends is whole and folds without a select per element (they cost int8 scans their last
    // few registers: spills at 6 blocks per SM).
    auto element = [&](int r, const InT (&x)[VEC], bool check, unsigned valid, int k) -> Acc {
        const bool is_valid = !check || ((valid >> k) & 1u);
        const V v = is_valid ? (V)x[k] : Op::identity();
        if constexpr (SEGMENTED) {
            const bool head = is_valid && ((row_heads(r) >> k) & 1u);
            return Acc{head ? op(init, v) : v, head ? 1 : 0};
        } else {
            return v;
        }
    };
    auto chunk_total = [&](int r) -> Acc {
        if constexpr (FOLD) {
            InT x[VEC];
            scan_detail::read_chunk<VEC>(s.stage + thread_offset + r * ROW_ITEMS, x);
            const unsigned valid = scan_detail::valid_mask<VEC>(first + r * ROW_ITEMS, n);
            auto fold = [&](bool check) -> Acc {
                Acc total = element(r, x, check, valid, 0);
#pragma unroll
                for (int k = 1; k < VEC; ++k) total = scan_op(total, element(r, x, check, valid, k));
                return total;
            };
            return valid == WHOLE ? fold(false) : fold(true);
        } else {
            Acc a[VEC];
            int skip;
            scan_chunk(r, a, skip);
            return a[VEC - 1];
        }
    };
    auto fold_chunk_outputs = [&](int r, Acc running) {
        using Store = scan_detail::RowStore<VEC, OutT>;
        InT x[VEC];
        scan_detail::read_chunk<VEC>(s.stage + thread_offset + r * ROW_ITEMS, x);
        const unsigned valid = scan_detail::valid_mask<VEC>(first + r * ROW_ITEMS, n);
        Store store(out, first + r * ROW_ITEMS, n);
        // A piece at a time: int8 -> int64 would otherwise hold 16 outputs (32 registers) at once.
#pragma unroll
        for (int piece = 0; piece < VEC / Store::PIECE; ++piece) {
            OutT o[Store::PIECE];
            auto fold = [&](bool check) {
#pragma unroll
                for (int j = 0; j < Store::PIECE; ++j) {
                    const Acc before = running;
                    const Acc a = element(r, x, check, valid, piece * Store::PIECE + j);
                    running = scan_op(running, a);
                    if constexpr (SEGMENTED) o[j] = (OutT)(inclusive ? running.value : a.head ? init : before.value);
                    else o[j] = (OutT)(inclusive ? running : before);  // narrowing wraps: Java's byte arithmetic
                }
            };
            if (valid == WHOLE) fold(false);  // no shuffle inside: lanes may differ here
            else fold(true);
            store.put(piece, o);
        }
    };

    // NAN FAST PATH (REDUCE_FIRST scans under Java's float min and max, NaNFreeForm). A warp that
    // meets no NaN gets the operator's bits from the bare instruction, so it combines with that:
    //   Plain scans reduce each warp's data with the bare instruction, noting whether they read a
    //   NaN, and reduce again with the operator if they did. Segmented ones first test the warp's
    //   staged data (and the init, which heads fold in) for NaN, four rows at a time, and reduce
    //   once with whichever form that allows. (Reducing twice spilled them, 188-232 bytes; so did
    //   the test with all eight rows unrolled, which loaded nearly all of a thread's chunks into
    //   registers before testing one; four rows instead of one at a time: 2% faster.)
    //   Then a warp whose data held no NaN, under a carried prefix that is not NaN, scans its rows
    //   with the bare instruction. Plain, under a NaN prefix, every output is that NaN (a NaN on the
    //   left is the result), so the warp stores it. Any other warp (the one holding a scan's first
    //   NaN; segmented, any warp holding a NaN or carrying one) scans with the operator, a row at a
    //   time (unrolled, the compiler overlapped those rows with the fast ones and spilled).
    // Each gives the operator's bits, on every run. 2^28 float32 or 2^27 float64, ms
    // (bench/lab/minmax_lab.cu): max 0.674 -> 0.570 (90% of the copy; 0.557 with the bare
    // instruction alone, wrong for NaN), float64 0.863 -> 0.642. Segmented, a head in about 1024:
    // float32 max 1.131 -> 0.964 (with the test a row at a time: 0.982, and 0.963 at 5 blocks per
    // SM, spilling 24 bytes; 1.147 with fast rows one at a time; 0.79 with the bare instruction
    // alone), float64 1.548 -> 1.229 (1.337 with fast rows unrolled; bound 1.107); data with a NaN
    // in every warp pays for the exact rows' going one at a time: float32 1.140 -> 1.30.
    constexpr bool NAN_FAST = NaNFreeForm<ScanOp>::CHEAPER && HOW == TileScan::REDUCE_FIRST && !FOLD;
    constexpr int FAST_ROWS_UNROLLED = SEGMENTED && sizeof(V) == 8 ? 1 : ROWS;
    bool warp_nan = false;  // NAN_FAST: whether the warp's data holds a NaN (the same in every lane)
    auto staged_data_has_nan = [&]() -> bool {
        bool nan = false;  // staging writes zeros outside [0, n): only the data is tested
#pragma unroll 4
        for (int r = 0; r < ROWS; ++r) {
            InT x[VEC];
            scan_detail::read_chunk<VEC>(s.stage + thread_offset + r * ROW_ITEMS, x);
#pragma unroll
            for (int k = 0; k < VEC; ++k) nan |= is_nan(x[k]);
        }
        return __any_sync(0xffffffffu, nan);
    };

    // Each warp's total, left in shared memory. Commutative operators: each thread folds its chunks
    // (rows in any order) and the warp reduces its lanes' totals by a butterfly. The others keep
    // index order: a warp's chunks in row-major order are its items in order, which is the order
    // warp_reduce_rows_ordered combines them in (ROWS + 4 shuffles instead of 5 a row).
    auto warp_total_with = [&](bool fast, bool& nan) -> Acc {
        if constexpr (Commutative<ScanOp>::value) {
            Acc thread_total;
#pragma unroll
            for (int r = 0; r < ROWS; ++r) {
                if constexpr (FOLD) {
                    const Acc total = chunk_total(r);
                    thread_total = r == 0 ? total : scan_op(thread_total, total);
                } else {
                    Acc a[VEC];
                    int skip;
                    nan |= scan_chunk_with(fast, r, a, skip);
                    thread_total = r == 0 ? a[VEC - 1] : combine(fast, thread_total, a[VEC - 1]);
                }
            }
            return fast ? warp_reduce(thread_total, fast_scan_op) : warp_reduce(thread_total, scan_op);
        } else {
            Acc chunk_totals[ROWS];
#pragma unroll
            for (int r = 0; r < ROWS; ++r) {
                if constexpr (NAN_FAST) {
                    Acc a[VEC];
                    int skip;
                    scan_chunk_with(fast, r, a, skip);
                    chunk_totals[r] = a[VEC - 1];
                } else {
                    chunk_totals[r] = chunk_total(r);
                }
            }
            if constexpr (NAN_FAST) {
                if (fast) return warp_reduce_rows_ordered(chunk_totals, fast_scan_op);
            }
            return warp_reduce_rows_ordered(chunk_totals, scan_op);
        }
    };
    auto reduce_warps = [&]() {
        bool nan = false;
        Acc warp_total;
        if constexpr (NAN_FAST && SEGMENTED) {
            warp_nan = staged_data_has_nan() || is_nan(init);
            if (warp_nan) warp_total = warp_total_with(false, nan);
            else warp_total = warp_total_with(true, nan);
        } else {
            warp_total = warp_total_with(NAN_FAST, nan);
            if constexpr (NAN_FAST) {
                warp_nan = __any_sync(0xffffffffu, nan);
                if (warp_nan) warp_total = warp_total_with(false, nan);
            }
        }
        if (lane == 0) s.totals.warp[warp] = warp_total;
        __syncthreads();
    };
    // The tile's exclusive prefix, in every lane of warp 0: the init for tile 0, else the look-back
    // (after publishing A). Then P = prefix op A, with the A published. A segmented tile whose A
    // holds a head publishes it as its P at once (SEGMENTED SCANS above).
    auto look_back = [&](Acc aggregate, bool publish_aggregate) -> Acc {
        bool prefix_known = false;  // the same in every lane: the aggregate is
        if constexpr (SEGMENTED) prefix_known = tile != 0 && publish_aggregate && aggregate.head;
        Acc prefix;
        if (tile == 0) {
            if constexpr (SEGMENTED) prefix = Acc{init, 0};
            else prefix = init;
        } else {
            if (publish_aggregate && lane == 0) status.publish(tile, prefix_known ? TILE_PREFIX : TILE_AGGREGATE, aggregate);
            if constexpr (ORDERED) prefix = lookback_ordered<WINDOWS>(status, tile, scan_op, s.lookback);
            else prefix = lookback_tree(status, tile, scan_op);
        }
        if (lane == 0 && !prefix_known) status.publish(tile, TILE_PREFIX, scan_op(prefix, aggregate));
        return prefix;
    };

    if constexpr (HOW == TileScan::REDUCE_FIRST) {
        // Warp 0 scans the warp totals (A, published), looks back, and leaves what precedes each
        // warp; then each warp scans its rows once, in order, carrying the running value from row
        // to row. Nothing but the tile in shared memory is held across the wait.
        reduce_warps();
        if (warp == 0) {
            const Acc warps_inclusive = warp_inclusive_scan(lane < WARPS ? s.totals.warp[lane] : ScanOp::identity(), scan_op);
            const Acc prefix = look_back(warp_shfl(warps_inclusive, WARPS - 1), true);
            const Acc left = warp_shfl_up(warps_inclusive, 1);
            if (lane < WARPS) s.totals.before_warp[lane] = lane == 0 ? prefix : scan_op(prefix, left);
        }
        __syncthreads();
        Acc carry = s.totals.before_warp[warp];
        if constexpr (NAN_FAST) {
            auto scan_row = [&](bool fast, int r) {
                Acc a[VEC];
                int skip;
                Acc row_total;
                scan_chunk_with(fast, r, a, skip);
                const Acc chunk_prefix = fast ? warp_exclusive_scan(a[VEC - 1], fast_scan_op, carry, row_total)
                                              : warp_exclusive_scan(a[VEC - 1], scan_op, carry, row_total);
                store_chunk_outputs_with(fast, r, a, skip, chunk_prefix);
                carry = combine(fast, carry, row_total);
            };
            if (!warp_nan && !is_nan(value_of(carry))) {
#pragma unroll (FAST_ROWS_UNROLLED)
                for (int r = 0; r < ROWS; ++r) scan_row(true, r);
            } else if (!SEGMENTED && is_nan(value_of(carry))) {
                OutT o[VEC];
#pragma unroll
                for (int k = 0; k < VEC; ++k) o[k] = (OutT)value_of(carry);
#pragma unroll
                for (int r = 0; r < ROWS; ++r) scan_detail::store_row<VEC>(out, first + r * ROW_ITEMS, n, o);
            } else {
                // One row at a time: unrolled, the compiler overlapped these rows with the fast
                // ones and spilled.
#pragma unroll 1
                for (int r = 0; r < ROWS; ++r) scan_row(false, r);
            }
        } else {
            // FOLD: one row at a time. Unrolled, the compiler overlaps rows, and int8 scans spill at
            // 6 blocks per SM (int8 -> int64 needed 64 registers; one row at a time, 40-48).
#pragma unroll (FOLD ? 1 : ROWS)
            for (int r = 0; r < ROWS; ++r) {
                Acc row_total;
                if constexpr (FOLD) {
                    const Acc chunk_prefix = warp_exclusive_scan(chunk_total(r), scan_op, carry, row_total);
                    fold_chunk_outputs(r, chunk_prefix);
                } else {
                    Acc a[VEC];
                    int skip;
                    scan_chunk(r, a, skip);
                    const Acc chunk_prefix = warp_exclusive_scan(a[VEC - 1], scan_op, carry, row_total);
                    store_chunk_outputs(r, a, skip, chunk_prefix);
                }
                carry = scan_op(carry, row_total);
            }
        }
    } else {
        if constexpr (HOW == TileScan::EARLY_AGGREGATE) {
            // A before the block scan: a few operations per chunk and one barrier between the data
            // and A. Kept in shared memory until P is published: a register held across the block
            // scan spills.
            reduce_warps();
            if (warp == 0) {
                const Acc aggregate = warp_reduce(lane < WARPS ? s.totals.warp[lane] : ScanOp::identity(), scan_op);
                if (lane == 0) {
                    s.totals.tile = aggregate;
                    if (tile != 0) status.publish(tile, TILE_AGGREGATE, aggregate);
                }
            }
        }
        // The block scan of the chunk totals, with the look-back inside it (warp 0, once the block's
        // aggregate is known), then each chunk is scanned again and stored.
        Acc chunk_totals[ROWS];
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
            if constexpr (FOLD) {
                chunk_totals[r] = chunk_total(r);
            } else {
                Acc a[VEC];
                int skip;
                scan_chunk(r, a, skip);
                chunk_totals[r] = a[VEC - 1];
            }
        }
        auto tile_prefix = [&](Acc aggregate) -> Acc {
            if constexpr (HOW == TileScan::EARLY_AGGREGATE) return look_back(s.totals.tile, false);
            else return look_back(aggregate, true);
        };
        Acc prefix[ROWS];
        block_scan_chunk_prefixes<BLOCK_THREADS, ROWS>(chunk_totals, prefix, scan_op, s.scan, tile_prefix);
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
            if constexpr (FOLD) {
                fold_chunk_outputs(r, prefix[r]);
            } else {
                Acc a[VEC];
                int skip;
                scan_chunk(r, a, skip);  // the same combinations as for the totals
                store_chunk_outputs(r, a, skip, prefix[r]);
            }
        }
    }
}

/**
 * Segmented-by-offsets helper: tile_first[t] (t = 0 .. tiles) = the first k in [1, segments) with
 * offsets[k] >= begin - shift + t * tile_items, or segments if none (binary search, one thread per
 * tile). A tile's segment starts are then offsets[tile_first[t] .. tile_first[t+1]). A tile with at
 * most SEGMENT_HEAD_SLOTS of them also gets their positions within it in its slot
 * (segment_head_slots: the scratch has room for tile_first and then tiles slots); a tile with
 * more is found by one probe and left to read its offsets (OffsetHeads::prepare).
 */
__device__ __forceinline__ void segment_tile_starts(const long long* offsets, long long segments, long long begin,
                                                    long long shift, long long tile_items, long long tiles,
                                                    long long* tile_first) {
    constexpr int SLOTS = ScanPolicyConstants::SEGMENT_HEAD_SLOTS;
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t > tiles) return;
    const long long key = begin - shift + t * tile_items;
    long long lo = 1, hi = segments;
    while (lo < hi) {
        const long long mid = lo + (hi - lo) / 2;
        if (offsets[mid] < key) lo = mid + 1;
        else hi = mid;
    }
    tile_first[t] = lo;
    if (t == tiles || (lo + SLOTS < segments && offsets[lo + SLOTS] < key + tile_items)) return;
    // Every load before any store: stopping at the first start past the tile, or storing between
    // loads (slot and offsets may alias, for all the compiler knows), would wait a round trip each.
    long long at[SLOTS];
#pragma unroll
    for (int i = 0; i < SLOTS; ++i) at[i] = lo + i < segments ? offsets[lo + i] - key : tile_items;
    int* slot = segment_head_slots(tile_first, tiles) + t * SLOTS;
#pragma unroll
    for (int i = 0; i < SLOTS; ++i) {
        if (at[i] < tile_items) slot[i] = (int)at[i];
    }
}

/**
 * Segmented-by-offsets check, before anything is launched that depends on the offsets: result[0] =
 * offsets[0], result[1] = offsets[segments], and result[2] lowered (atomicMin; the host sets it to
 * all ones first) to the smallest k with offsets[k] > offsets[k + 1]. Grid-stride over k; the host
 * reads the three words back at once (one synchronize) and throws for bad offsets, so a decreasing
 * pair between the two ends is found as the CPU backend finds it, not left to give unspecified
 * results.
 */
__device__ __forceinline__ void check_offsets(const long long* offsets, long long segments,
                                              unsigned long long* result) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    const long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (first == 0) {
        result[0] = (unsigned long long)offsets[0];
        result[1] = (unsigned long long)offsets[segments];
    }
    for (long long k = first; k < segments; k += stride) {
        if (offsets[k] > offsets[k + 1]) {
            atomicMin(result + 2, (unsigned long long)k);
            return;  // a later k of this thread cannot be smaller
        }
    }
}

}  // namespace primer
