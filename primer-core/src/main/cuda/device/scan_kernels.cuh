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
//   BLOCK_SCAN (int8 scans under operators that are not commutative: segmented and user-defined
//     ones, see TileScanFor): every thread scans its chunks, the block scans the chunk totals
//     (block_scan.cuh) and warp 0 looks back inside it, once A is known; then every chunk is
//     scanned again from shared memory and stored with its prefix.
//   EARLY_AGGREGATE (4-byte values, one-instruction commutative operators): before the block scan
//     the tile reduces its data (each thread folds its chunks, a butterfly, one barrier) and
//     publishes A, so the tiles waiting for it see A sooner; P is prefix op that same A. Data to A
//     fell to ~2 us and the float sum went from 85% to 90% of the copy (0.594 -> 0.558 ms, lab).
//   REDUCE_FIRST (everything else: 8-byte values, int32 -> int64 sums, min and max, plain int8
//     scans under built-in operators (see INT8), and user-defined operators and segmented scans on
//     wider types): the same reduction, A, the
//     look-back, and only then the scan, each warp taking its rows in order and carrying the
//     running value from row to row (one warp scan per row). No chunk totals or prefixes wait in
//     registers across the look-back, so int32 -> int64 sums need 36 registers instead of 61 and 6
//     blocks fit an SM instead of 4 (32-34 since the stores went through RowStore, unmeasured).
//     2^28 elements, ms against EARLY_AGGREGATE or BLOCK_SCAN (bench/lab/scan_reduce_first_lab.cu):
//     int32 -> int64 sum 0.907 -> 0.809 (84% -> 94.6% of the copy), int64 sum (2^27) 0.659 ->
//     0.588, float64 sum 0.643 -> 0.586, int64 product 0.742 -> 0.617, int64 and 0.611 -> 0.585,
//     int64 max 0.637 -> 0.597, float64 max 1.239 -> 0.984, float32 min and max 1.017 -> 0.978,
//     int32 max 0.563 -> 0.557. Plain 8-byte scans under one-instruction operators scan their
//     rows during the look-back instead (SCAN IN THE WAIT, device_scan): int64 sums 87% -> 95%
//     of the copy.
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
//     Segmented scans of 4- and 8-byte data have since taken their tiles BLOCKED (below): each
//     thread folds eight consecutive chunks, in index order, for the reduction and for the scan,
//     and the warp scans the threads' pairs once per tile instead of once per row.
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
// INTERIOR TILES. Every tile but the first and the last lies inside [0, n), so the per-chunk tests at
// the edges (64-bit bounds, the output's alignment) answer yes for it: such a tile stages its chunks
// from one address at constant offsets, loads its flag rows as words (FlagHeads), and stores its
// outputs with no test (RowStore's `whole`). Read from ncu's SASS counts (step 81, segmented float64
// max by offsets), those tests had been about a fifth of the kernel's instructions: 9.6% staging, 10.4%
// storing. Two exceptions, where the build would spill: int32 sums and products by offsets take none of
// it (4 bytes at their 40 registers, sm_90), and int8's folded outputs keep their tests (a user-defined
// int8 operator, 4 bytes at its 48). (Min and max of float32 and int32 by offsets, left out with those
// sums until step 83, gained 1.3-1.8%: bench/results/2026-11-26-nvidia-h200-step83-ab.md.) On an H200
// (2^28 elements, a head in about 1024, ms, two runs each;
// bench/results/2026-11-26-nvidia-h200-step82-ab.md): by flags float64 max 1.216-1.242 -> 1.163-1.164
// (ncu: 707 M -> 578 M warp instructions), by offsets 1.237 -> 1.199-1.202 (684 M -> 605 M); int8 (then
// with untested folded stores too) by flags max 0.300-0.301 -> 0.292, sums 0.225-0.226 -> 0.219-0.220,
// by offsets 0.188 -> 0.181-0.182; the scans that wait on memory or on the look-back within 1% (float64
// sums 573 M -> 490 M instructions, no faster), int64 products 1.116 -> 1.122-1.137.
//
// INT8. A chunk is still 16 bytes of input, so 16 int8 items (tiles of 32768). The operator works in
// a 4-byte type (Sum<int>, Min<int>, ...: the status words carry 4 or 8 bytes), items are widened as
// they are read and every output is narrowed as it is stored: wrapping mod 2^8 gives Java's byte
// sums and products, and min, max and the bitwise operators are exact. What is stored always comes
// from int8 data and the init (itself an int8, sign-extended), never from an identity alone (an
// identity only stands in for items outside [0, n), whose outputs are not stored), so Min<int>'s
// INT_MAX and the like never reach the output. int8 -> int64 sums (torch.cumsum) work in long long.
// Sixteen partials per chunk would not fit the register budget, so int8 chunks FOLD (device_scan):
// a chunk's total is one left fold (segmented: restarting by selection), its outputs are folded on
// from its prefix and stored as they come, rows are taken one at a time after the look-back, and
// plain scans are REDUCE_FIRST whatever the operator (segmented ones BLOCK_SCAN, see TileScanFor,
// but their sums REDUCE_FIRST: SEGMENTED BYTE SUMS).
// 40 registers and 6 blocks per SM for plain int8 scans (47-48 and 5 segmented by flags, 53-56 and
// 4 by offsets, 48 and 5 for their min and max; 40 and 6 on sm_90: BYTE EXTREMES). Plain sums take BYTE
// SUMS instead of the fold, and min and max on sm_90 BYTE EXTREMES for their chunk totals.
//
// BYTE SUMS (plain int8 sums into int8 or int64; scan/byte_sums.cuh). A chunk's total is four dp4a
// over its staged bytes, not a fold of sixteen. Into int8, a chunk's outputs are computed four
// bytes a word (byte_chunk_sums). Into int64, a warp stores each row as eight slices of 512
// contiguous bytes, eight lanes a chunk, each lane's two outputs summed from the stage by dp4a
// (store_row_byte_sums): folded and stored by their own lanes, the outputs reached L2 one 32-byte
// sector per request (ncu: 100.7 M write requests for 2^28 items, the L2 95% busy, the kernel at
// 70% of the copy and as fast as torch's own int8 -> int64 conversion); as slices, four sectors a
// request. 2^28 int8, ms (bench/results/2026-11-24-nvidia-h200-step63-ab.md): into int64
// 0.827-0.852 -> 0.647-0.663 (70% -> 88% of the copy; 40 registers, so 6 blocks per SM instead of
// 5), into int8 0.170-0.176 -> 0.153-0.155 (107 M -> 63 M warp instructions).
//
// SEGMENTED BYTE SUMS (segmented int8 sums, into int8 or int64). A segment's sum from a head at h is
// init plus the chunk's bytes from h on: its total is the dp4a sum, or init + (sum - bytes before
// its last head), head 1 (segmented_byte_total). Totals that cheap make REDUCE_FIRST pay (the block
// scan, which the folds had needed, is gone), and the tiles 256 x 8 (ScanShape). Into int64 each
// lane of BYTE SUMS' slices finds its outputs' last heads in the chunk's bits and takes init less the
// bytes before the head for the chunk's prefix; into int8 a chunk without a head takes
// byte_chunk_sums, one with a head the fold. 2^28 int8, a head in about 1024, ms, the fold with the
// block scan at 256 x 4 -> 256 x 4 -> 256 x 8 (two runs each; bench/results/2026-11-25-nvidia-h200-
// step71-ab.md): by flags into int8 0.271-0.272 -> 0.239-0.241 -> 0.227-0.228, into int64 0.940-0.952
// -> 0.696 -> 0.695-0.698; by offsets into int8 0.262-0.264 -> 0.221-0.222 -> 0.206-0.210, into
// int64 0.878-0.884 -> 0.646-0.664 -> 0.641-0.643. With a head in about 8 (most chunks hold one, so
// most of a warp's lanes fold) into int8 by flags 0.270-0.272 -> 0.277-0.281 -> 0.275-0.277. Their
// warp totals and row prefixes have since been PLAIN ROW SCANS (below).
//
// ONE HEAD (segmented int8 sums into int8, step 88). Where no chunk of a warp's row holds more than
// one head (a vote a row), a chunk with a head takes byte_chunk_sums too, then re-bases its outputs
// from the head on (scan/byte_sums.cuh: rebase_at_head). The fold it replaces took 73 instructions a
// chunk (ncu's SASS view), and a warp with a head in any chunk had run both. ncu, H200, 2^28 int8, a
// head in about 1024 (bench/results/2026-11-26-nvidia-h200-step88-ab.md): by offsets 169.6 -> 160.8 us
// (121.5 M -> 115.9 M warp instructions), by flags 216.3 -> 208.9; bench rows 0.182-0.187 ->
// 0.174-0.177 ms and 0.221-0.229 -> 0.216-0.221. Rows where some chunk holds two heads keep the fold
// (a head in about 8: 253.1 -> 254.8 us, the rows unchanged).
//
// BYTE EXTREMES (int8 min and max, plain and segmented, on sm_90; scan/byte_extremes.cuh, step 89).
// A whole chunk's total is not a fold of sixteen items but eight pairs of sign-extended 16-bit lanes
// and seven of sm_90's pair min or max (VIMNMX .s16x2); a segmented chunk's bytes before its last
// head are first replaced by the operator's neutral byte, so heads cost a mask, not a select per
// item. The outputs are still folded (a head can restart any item). ncu's SASS counts of the fold
// it replaces: 69 instructions a chunk, 4.3 an item (step 88). With the fold gone, segmented min and
// max fit 40 registers, 6 blocks per SM (5 before; the fold at 6 spills on sm_80 and sm_89, which
// keep it and 5). H200, 2^28 int8, a head in about 1024, ms, three rounds each
// (bench/results/2026-11-26-nvidia-h200-step89-ab.md): max by flags 0.290-0.294 -> 0.272-0.274 (the
// kernel 292.6 -> 266.7 us; the fold at 6 blocks alone 0.280-0.282, pair extremes at 5 0.286), by
// offsets 0.286-0.289 -> 0.258-0.259, plain cummax 0.183-0.191 -> 0.175-0.179.
// Tried (step 96), not kept: the outputs by pair extremes too, nine instructions a word (ext(E, O)
// with the carry, the carry and o1 moved into one pair, two more extremes), where no chunk of the
// warp's row held a head. Plain cummax 0.174-0.176 -> 0.173-0.176 ms (ncu 167.7 -> 165.9 us,
// 96.2 M -> 87.5 M warp instructions); segmented max by flags 0.274-0.280 -> 0.278-0.281, a head in
// about 8 0.272-0.280 -> 0.282, by offsets 0.257-0.259 -> 0.267-0.274
// (bench/results/2026-11-26-nvidia-h200-step96-ab.md).
//
// BYTE BITWISE (plain int8 AND, OR and XOR; scan/byte_bitwise.cuh, step 96). A whole chunk's total
// is its four words combined, then the halves, then the bytes (five operations); its outputs are
// each word combined with itself moved up one byte and then two (the identity's byte moved in), and
// with the running value in every byte: six or seven instructions a word, where the fold took about
// four an item. 2^28 int8 XOR, ms: 0.175-0.181 -> 0.157-0.158 (ncu 167.7 -> 149.8 us, 100.8 M ->
// 67.4 M warp instructions; bench/results/2026-11-26-nvidia-h200-step96-ab.md). Segmented ones keep
// the fold: the segmented min and max above lost time to the row's vote and the third form.
//
// SEGMENTED SCANS run the same machinery on pairs (value, head): (a, ha) op (b, hb) =
// (hb ? b : a op b, ha | hb), associative, not commutative (the combinations keep operand order).
// The init is folded into each head element (init op x), and element 0 is a head whatever flags[0]
// holds (by offsets too), so every segment begins with init op x: the same bits by flags and by
// offsets. The first tile's prefix is (init, 0).
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
// FLOAT KEYS (segmented float32 and float64 min and max, and plain float64 ones; scan.cu). Java's
// min and max put NaN above (max) or below (min) every number and -0.0 below 0.0, which cost PTX's
// max two NaN selects per step. Mapped to keys (scan/float_keys.cuh: the bits, the magnitude
// flipped when negative, rotated so that every NaN lies past the infinities), they are one
// unsigned integer max or min, and a key maps back to the same bits, a NaN's sign and payload
// included. The scan lifts each element to its key as it reads a chunk and lowers each output as
// it stores it (ScanValues); status words and the look-back carry keys. Against the NaN fast path
// they replace (2^28 float32 or 2^27 float64, a head in about 1024, ms, bench/lab/minmax_lab.cu):
// segmented float32 max 0.949 -> 0.879 (60% -> 65% of the copy), with a NaN in every third element
// 1.298 -> 0.872; segmented float64 max 1.229 -> 0.875; plain float64 max 0.639 -> 0.624. Then
// segmented float32 keys took their max and min as asm and restart segments by selection
// (then in the rows' chunk scans): 0.875 -> 0.765 (75% of the copy), at 5 blocks per SM. Plain float32 scans
// keep the fast path (0.565 against 0.603 as keys, 0.589 with the asm max: there the two lifts and
// a lowering per element outweigh the NaN selects it skips).
// One difference: where NaNs with different bits meet in a segment, keys return the one with the
// largest (max) or smallest (min) key, not the first; docs/semantics.md leaves that open.
// Segmented integer min and max take the same remedy (scan/integer_extremes.cuh): the int32 and
// int8 max and min as asm, and int32 and int64 chunk scans restarting by selection. Segmented
// int32 max 0.797 -> 0.714 ms (72% -> 80%), int64 0.770 -> 0.742, int8 0.515 -> 0.382 (lab); and
// every segmented int8 scan, whose folded chunks restart by selection (FOLD RESTARTS): sums by
// flags 0.426 -> 0.312, by offsets 0.392 -> 0.301. Since BLOCKED every segmented scan of 4- and
// 8-byte data restarts by selection too, in its threads' folds, whatever the operator.
//
// BLOCKED (every segmented scan of 4- and 8-byte data but WIDENING SUMS; device_scan): each thread takes eight
// consecutive chunks of its warp's items, not one chunk of each row. The tile is staged as loaded
// (striped, coalesced) in a swizzled order (blocked_slot, scan/tile_io.cuh), so the blocked reads
// meet no bank conflicts. A thread folds its 16 or 32 items into one (value, head) pair, restarting
// at each head by selection; the warp scans those pairs once per tile, where the rows' way scanned
// them once per row (eight warp scans of pairs, each five steps of two or three shuffles, selects
// and the operator: these kernels were bound by issue). After the wait each thread folds its
// outputs on from what precedes it, writes them over its chunks, and the warp stores them as rows
// (whole sectors, as before). Head bits come from shared memory where they are used: by offsets
// the tile's bitmap, by flags a byte per chunk (SharedFlagHeads), the float keys' min and max
// included. 2^28 elements of 4 or 8 bytes, a head in about 1024, ms, rows -> BLOCKED (two
// runs each, bench/results/2026-11-25-nvidia-h200-step68-ab.md): by flags float32 sums 0.69-0.70
// -> 0.62 (83% -> 93% of the copy), int32 0.68-0.69 -> 0.62, float64 1.35-1.37 -> 1.17, int64
// 1.35-1.37 -> 1.16, int32 max 0.71-0.73 -> 0.63, float32 max 0.77-0.79 -> 0.64, float64 max
// 1.72-1.74 -> 1.27; by offsets float32 sums 0.67 -> 0.58, int64 1.38 -> 1.14, float32 max 0.74
// -> 0.60, float64 max 1.67-1.70 -> 1.34. Segmented int8 keeps FOLD (16 items a chunk already).
//
// PLAIN ROW SCANS (segmented integer sums in the rows' way: int8 sums, int32 -> int64 sums;
// scan/segmented_sums.cuh). Integer sums wrap, so any association gives the same bits, and the
// rows' way needs no (value, head) pairs between lanes: a chunk's total is its sum, or init plus its
// items from its last head on; a warp's total is a plain sum of what each lane keeps of its chunks
// after the last head the rows so far hold (a ballot a row); after the wait a row's prefixes are one
// plain warp sum scan, less, for a lane with a head before it in the row, that scan's value at the
// head. Against the scans of pairs they replace in SEGMENTED BYTE SUMS (2^28 int8, a head in about
// 1024, ms, two runs each, bench/results/2026-11-25-nvidia-h200-step72b-ab.md): into int8 by offsets
// 0.207 -> 0.190 (6 blocks per SM, 40 registers, where the pairs' ordered reduction of eight rows
// needed 48 and 5), by flags and into int64 unchanged (0.229-0.234, 0.69; into int64 still 4 blocks
// per SM: at 5, 4 bytes spill by offsets).
//
// WIDENING SUMS (segmented int32 -> int64 sums). BLOCKED writes outputs over their input, so for
// outputs twice as wide its stage had to hold them: 256 x 4 tiles in a stage of twice the input's
// bytes (wide slots), half the items of the other segmented tiles for the same wait (77% of the
// copy by flags, 72% by offsets). In the rows' way with PLAIN ROW SCANS the stage holds the input
// only, the tiles are 256 x 8, and each chunk's four outputs leave from registers as the plain
// scan's do (store_row). 6 blocks per SM, 38-40 registers. 2^28 elements, a head in about 1024, ms
// (two runs each, bench/results/2026-11-25-nvidia-h200-step72-ab.md): by flags 1.084-1.105 ->
// 0.904-0.914 (91% of the copy), with a head in about 8 1.084-1.086 -> 0.905-0.928, by offsets
// 1.066-1.068 -> 0.855-0.860.
//
// Where the parts are (device/scan/, one idea a file): policy.cuh (tile shape, launch constants),
// float_keys.cuh (Java's float order as integer keys), integer_extremes.cuh (integer min and max
// that nvcc cannot merge with selects), operator_traits.cuh (what an operator allows; ScanValues;
// TileScanFor), tile_status.cuh (STATUS WORDS), lookback.cuh (the look-back; DETERMINISM),
// segment_heads.cuh (where segments start: none or flags, their bits in registers or shared
// memory), offset_heads.cuh (by offsets: the tile starts and the offsets check), tile_io.cuh
// (staging, the L2 prefetch, sector-filling stores), byte_sums.cuh (int8 sums by dp4a),
// byte_extremes.cuh (int8 min and max chunk totals by pair extremes), byte_bitwise.cuh (int8 AND,
// OR and XOR four bytes a word), segmented_sums.cuh (segmented integer sums by plain warp scans).
// This file: the tile's work, device_scan.
//
// These headers are self-contained (ops.cuh, warp/, block/, scan/ only; no host code, no standard headers),
// so NVRTC can instantiate device_scan<...> for a user-defined operator (GpuCustomScan.java: any
// associative operator; it need not be commutative). Such an operator takes the ordered
// (deterministic) look-back unless TreeLookback is specialised for it. Values in the status words (the operator's type, which may be
// wider than the output: see INT8) must be 4 or 8 bytes.
#pragma once
#include "../ops.cuh"
#include "../warp/warp_reduce.cuh"
#include "../warp/warp_scan.cuh"
#include "../block/block_scan.cuh"
#include "scan/policy.cuh"
#include "scan/operator_traits.cuh"
#include "scan/tile_status.cuh"
#include "scan/lookback.cuh"
#include "scan/segment_heads.cuh"
#include "scan/offset_heads.cuh"
#include "scan/tile_io.cuh"
#include "scan/byte_sums.cuh"
#include "scan/byte_extremes.cuh"
#include "scan/byte_bitwise.cuh"
#include "scan/segmented_sums.cuh"

namespace primer {

namespace scan_detail {
template <bool C, typename A, typename B> struct Select { using type = A; };
template <typename A, typename B> struct Select<false, A, B> { using type = B; };
}  // namespace scan_detail

/** The warp totals of a tile reduced before its scan (EARLY_AGGREGATE, REDUCE_FIRST; a few hundred bytes). */
template <typename V, int WARPS>
struct WarpTotalsStorage {
    V warp[WARPS];         // each warp's total, from the fold of its threads' chunks
    V before_warp[WARPS];  // REDUCE_FIRST: all that precedes each warp's first item, the tile's prefix included
    V tile;                // EARLY_AGGREGATE: the tile's aggregate, until P is published
};

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
 *
 * Why one function of lambdas, not an agent struct with a member function per step (CUB's shape):
 * tried 2026-11-23, the same statements as members of an agent compiled to other PTX (nvcc 13.0;
 * e.g. the staging's shared addresses went through 64-bit arithmetic), and segmented int32 sums,
 * products and bitwise scans by flags spilled 32-56 bytes at their 5 blocks per SM (float64 sums
 * and products by offsets 4), which the build rejects. Keep the lambdas until a form compiles to
 * the same PTX (compare `nvcc -ptx` output with register numbers masked).
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
    // BYTE SUMS (int8 sums, scan/byte_sums.cuh): a chunk's total is four dp4a over its bytes, cheap
    // enough to compute twice, so segmented ones too take REDUCE_FIRST (once for A, once after the wait).
    constexpr bool BYTE_SUMS = ByteSums<Op, InT>::value;
    // BYTE EXTREMES (int8 min and max, sm_90; scan/byte_extremes.cuh): a whole chunk's total by pair extremes.
    constexpr bool BYTE_EXTREMES = ByteExtremes<Op, InT>::value;
    // BYTE BITWISE (plain int8 AND, OR, XOR; scan/byte_bitwise.cuh): whole chunks four bytes a word.
    constexpr bool BYTE_BITWISE = ByteBitwise<Op, InT>::value && !SEGMENTED;
    constexpr bool SLICED = BYTE_SUMS && sizeof(OutT) == 8;
    constexpr TileScan HOW = BYTE_SUMS ? TileScan::REDUCE_FIRST : TileScanFor<ScanOp, Acc, VEC>::value;
    // A segmented tile publishes an aggregate holding a head as its P (look_back): its A is never
    // published early, and so no A holds a head (the segmented lookback_ordered relies on it).
    static_assert(!SEGMENTED || HOW != TileScan::EARLY_AGGREGATE, "segmented tiles publish their A in look_back");
    // WIDENING SUMS (segmented int32 -> int64 sums, PLAIN ROW SCANS): the rows' way, below.
    constexpr bool WIDENING = SEGMENTED && WideningSums<Op, InT, OutT>::value;
    // BLOCKED (below): every other segmented scan of 4- and 8-byte data, its head bits in shared memory.
    constexpr bool FOLD = VEC > 4;  // int8: FOLD, below
    constexpr bool BLOCKED = SEGMENTED && !FOLD && !WIDENING;
    // BLOCKED_IN_WAIT (SCAN IN THE WAIT, below): plain int64 products and 8-byte min and max read blocked too.
    constexpr bool BLOCKED_IN_WAIT = !SEGMENTED && !FOLD && SlowInstruction<Op>::value;
    constexpr bool SWIZZLED = BLOCKED || BLOCKED_IN_WAIT;  // the tile staged at blocked_slot
    // INTERIOR TILES (below) everywhere but in int32 sums and products by offsets (blocked 4-byte
    // tiles, a tree look-back): they spilled 4 bytes at their 40 registers with it (sm_90).
    constexpr bool INTERIOR_TILES = !(BLOCKED && Heads::GATED && WrapsExactly<Op>::value && sizeof(InT) == 4);
    static_assert(!BLOCKED || (Heads::BITS_IN_SHARED && HOW == TileScan::REDUCE_FIRST && ROWS == 8 && sizeof(OutT) == sizeof(InT)),
                  "blocked tiles read each chunk's head bits from shared memory, eight chunks a thread, outputs in place");
    static_assert(!WIDENING || (Heads::BITS_IN_SHARED && HOW == TileScan::REDUCE_FIRST && VEC == 4),
                  "widening sums read their chunks' head bits from shared memory after the look-back");

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
    // Data becomes V, and V an output, by ScanValues: casts, or float keys (FLOAT KEYS above).
    using Values = ScanValues<Op>;
    // The init arrives as bits of OutT: an int8 init is its low byte, sign-extended into V.
    const V init = Values::template lift<V>(scan_detail::from_bits<OutT>((unsigned long long)init_bits));
    const long long shift = scan_shift(in);
    unsigned* tile_counter = reinterpret_cast<unsigned*>(scratch);
    constexpr unsigned SHUT = ~0u;  // s.tile of a block whose gate is shut: no launch has 2^32 tiles
    const TileStatus<Acc> status{reinterpret_cast<TileStatusSlot*>(scratch + ScanPolicyConstants::SCRATCH_HEADER_BYTES),
                                 epoch};

    if (threadIdx.x == 0) {
        if (blockIdx.x == 0 && ((n + shift + TILE_ITEMS - 1) / TILE_ITEMS != tile_count || gridDim.x != tile_count)) {
            __trap();  // host and device disagree on the tile size
        }
        // A gated launch (GATED in scan/segment_heads.cuh) loads its gate before the ticket and
        // looks at it after: both round trips at once, none added to a tile's start. Every block
        // draws, gate open or shut, so the last ticket still puts the counter back.
        const unsigned long long gate = heads.load_gate();
        const unsigned t = atomicAdd(tile_counter, 1u);
        if (t == gridDim.x - 1) atomicExch(tile_counter, 0u);  // the last ticket: every block has drawn
        s.tile = gate != 0ull ? t : SHUT;
        if constexpr (!SEGMENTED) {
            scan_detail::prefetch_tile_l2<TILE_ITEMS>(in, (long long)t + ScanPolicyConstants::PREFETCH_TILES_AHEAD, tile_count,
                                                      n, shift);
        }
    }
    __syncthreads();
    if constexpr (Heads::GATED) {
        if (s.tile == SHUT) return;  // the whole block: nothing read, nothing written
    }
    const long long tile = s.tile;
    const int lane = (int)lane_id();
    const int warp = (int)(threadIdx.x / 32);
    const int thread_offset = warp * WARP_ITEMS + lane * VEC;   // row 0's chunk, within the tile
    const long long tile_start = tile * TILE_ITEMS - shift;       // element index of the tile's first item
    const long long first = tile_start + thread_offset;
    // Chunk q's input in a SWIZZLED stage.
    auto swizzled_chunk = [&](int q) -> InT* { return scan_detail::blocked_chunk<VEC>(s.stage, q); };

    // INTERIOR TILES: every tile but the first and the last lies inside [0, n) (the same in every thread).
    const bool interior = tile_start >= 0 && tile_start + TILE_ITEMS <= n;
    // An interior tile's chunks of output also start on 16-byte boundaries where this thread's first
    // does (chunks lie VEC * sizeof(OutT) >= 16 bytes apart): stored without tests.
    auto stores_whole = [&]() {
        return INTERIOR_TILES && interior && (reinterpret_cast<unsigned long long>(out + first) & 15) == 0;
    };
    // Where row r's chunk waits in the stage (SWIZZLED: chunk q of the tile at its blocked slot).
    auto stage_slot = [&](int r) -> InT* {
        return SWIZZLED ? swizzled_chunk((thread_offset + r * ROW_ITEMS) / VEC) : s.stage + thread_offset + r * ROW_ITEMS;
    };
    if (INTERIOR_TILES && interior) {
#pragma unroll
        for (int r = 0; r < ROWS; ++r) copy_async16(stage_slot(r), in + first + r * ROW_ITEMS);
    } else {
#pragma unroll
        for (int r = 0; r < ROWS; ++r) scan_detail::stage_chunk<VEC>(in, first + r * ROW_ITEMS, n, stage_slot(r));
    }
    unsigned raw_heads[ROWS];
    heads.template load_rows<VEC, ROWS, ROW_ITEMS>(first, n, interior, raw_heads);
    heads.prepare(tile, tile_start, s.heads);
    if constexpr (Heads::KEEPS_ROWS) heads.template keep_rows<VEC, ROWS, ROW_ITEMS>(raw_heads, thread_offset, first, s.heads);
    // Head bits: 4- and 8-byte data (BLOCKED) read each chunk's from shared memory where they are
    // used. int8 (16 items a chunk, FOLD below) reads its four rows' bits into registers once, after
    // prepare's barrier: read at each use, its folds by offsets held 56 registers at 4 blocks per
    // SM, and spilled at 5 (sm_90: 12 bytes); read once, 48 at 5, and a sum of 2^28 by offsets (a
    // head in about 1024) took 0.249 ms in the kernel, 0.288 before
    // (bench/results/2026-11-24-nvidia-h200-offsets-ab.md).
    unsigned head_bits[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        if constexpr (BLOCKED || WIDENING) head_bits[r] = 0u;  // unused
        else head_bits[r] = heads.template bits<VEC>(raw_heads[r], thread_offset + r * ROW_ITEMS, s.heads);
    }
    // Element 0 is a head whatever flags[0] holds (by offsets, OffsetHeads::prepare marks it), so
    // the first segment, like every other, folds init op in[0] first: the same bits by flags (with
    // or without flags[0]) and by offsets (float sums and products associate differently
    // otherwise). Only the first thread of tile 0 has first <= 0, and first > -VEC.
    if constexpr (SEGMENTED && !Heads::BITS_IN_SHARED) {
        if (first <= 0) head_bits[0] |= 1u << (int)-first;
    }
    scan_detail::wait_staged();
    if constexpr (SWIZZLED) __syncwarp();  // lanes read chunks (and head bits) their warp's other lanes staged
    // Row r's head bits (int8), by selects over constant indexes: FOLD's row loop is not unrolled,
    // and an array read at a variable index would put head_bits in local memory.
    auto row_heads = [&](int r) -> unsigned {
        unsigned bits = head_bits[0];
#pragma unroll
        for (int j = 1; j < ROWS; ++j) bits = r == j ? head_bits[j] : bits;
        return bits;
    };

    // The operator, or with `fast` its NaN-free form (NAN FAST PATH below). `fast` is a constant
    // wherever this is called, so each call compiles to one of the two. (A bool rather than an
    // operator argument: nvcc 13.0's front end crashed on the generic lambdas that took one.)
    const typename NaNFreeForm<ScanOp>::type fast_scan_op{};
    auto combine = [&](bool fast, Acc x, Acc y) -> Acc { return fast ? fast_scan_op(x, y) : scan_op(x, y); };

    // A chunk's inclusive scan, in registers; with `fast`, returns whether one of its elements is
    // NaN (else false). Elements past the end are the identity (they only feed outputs that are not
    // stored, and the last tile's status, which nobody reads). Elements before in[0] (only in tile
    // 0's first chunk) are skipped, not combined: `skip` of them. `whole` (a constant where it is
    // true): the chunk lies inside [0, n), and no mask is computed or applied. Segmented scans, which
    // take BLOCKED or FOLD, never scan a row's chunks, but these lambdas compile for them too: their
    // pairs restart through the pair operator.
    auto scan_chunk_with = [&](bool fast, int r, Acc (&a)[VEC], int& skip, bool whole = false) -> bool {
        InT x[VEC];
        scan_detail::read_chunk<VEC>(s.stage + thread_offset + r * ROW_ITEMS, x);
        const unsigned valid = whole ? (1u << VEC) - 1u : scan_detail::valid_mask<VEC>(first + r * ROW_ITEMS, n);
        skip = r == 0 && valid ? __ffs(valid) - 1 : 0;  // rows after the first never start before in[0]
        bool nan = false;
#pragma unroll
        for (int k = 0; k < VEC; ++k) {
            const bool is_valid = (valid >> k) & 1u;
            const V v = is_valid ? Values::template lift<V>(x[k]) : Op::identity();
            if (fast) nan |= is_nan(v);
            if constexpr (SEGMENTED) {
                const bool head = is_valid && ((row_heads(r) >> k) & 1u);
                a[k] = Acc{head ? op(init, v) : v, head ? 1 : 0};
                if (k > skip) a[k] = combine(fast, a[k - 1], a[k]);
            } else {
                a[k] = v;
                if (k > skip) a[k] = combine(fast, a[k - 1], a[k]);
            }
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
                o[k] = Values::template lower<OutT>(!inclusive && head ? init : result.value);
            } else {
                o[k] = Values::template lower<OutT>(result);  // narrowing wraps mod 2^bits: Java's byte arithmetic for sums and products
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
    constexpr unsigned WHOLE = (1u << VEC) - 1u;
    // A chunk's element k as the scan combines it (a head folds the init in). `check`: whether the
    // chunk may reach outside [0, n), where elements are the identity. Every chunk but a few at
    // the ends is whole and folds without a select per element (they cost int8 scans their last
    // few registers: spills at 6 blocks per SM).
    auto element = [&](int r, const InT (&x)[VEC], bool check, unsigned valid, int k) -> Acc {
        const bool is_valid = !check || ((valid >> k) & 1u);
        const V v = is_valid ? Values::template lift<V>(x[k]) : Op::identity();
        if constexpr (SEGMENTED) {
            const bool head = is_valid && ((row_heads(r) >> k) & 1u);
            return Acc{head ? op(init, v) : v, head ? 1 : 0};
        } else {
            return v;
        }
    };
    // FOLD RESTARTS: segmented, a folded element restarts its segment by selection, (head ? init :
    // running) op x, one select and one operation where the pair operator took two of each (as
    // BLOCKED folds 4- and 8-byte data). 2^28 int8, a head in about 1024, sums by flags 0.426 ->
    // 0.312 ms (bench/lab/minmax_lab.cu), by offsets 0.392 -> 0.301 (restart_lab.cu; then at 4
    // blocks per SM, now 5: head bits read once, above).
    // Written out in both places: through a helper lambda nvcc compiled other PTX, and sums by
    // flags took 0.324. Tried (step 52), not kept: whole chunks without a head folded by the
    // operator alone, a third form of each fold; sums by flags 0.271-0.280 -> 0.291-0.295 ms, max
    // 0.302-0.307 -> 0.325-0.328 (more code: with it, ncu counted 4.0 no-instruction stalls per
    // issued instruction, 2.5 before this step; bench/results/2026-11-24-nvidia-h200-segscan-i8-ab.md).
    auto chunk_total = [&](int r) -> Acc {
        if constexpr (BYTE_SUMS) {  // segmented: SEGMENTED BYTE SUMS
            const uint4 w = scan_detail::read_byte_chunk(s.stage + thread_offset + r * ROW_ITEMS);
            if constexpr (SEGMENTED) return scan_detail::segmented_byte_total<V>(w, row_heads(r), init);
            else return (Acc)scan_detail::byte_sum(w);
        } else if constexpr (FOLD) {
            const unsigned valid = scan_detail::valid_mask<VEC>(first + r * ROW_ITEMS, n);
            if constexpr (BYTE_EXTREMES) {  // a whole chunk by pair extremes; the others fold below
                if (valid == WHOLE) {
                    const uint4 w = scan_detail::read_byte_chunk(s.stage + thread_offset + r * ROW_ITEMS);
                    constexpr bool MAX = ByteExtremes<Op, InT>::MAX;
                    if constexpr (SEGMENTED) return scan_detail::segmented_byte_extreme<MAX>(w, row_heads(r), init);
                    else return (Acc)scan_detail::byte_extreme_from<MAX>(w, 0);
                }
            }
            if constexpr (BYTE_BITWISE) {  // a whole chunk four bytes a word
                if (valid == WHOLE) return (Acc)scan_detail::byte_bitwise_total<Op>(scan_detail::read_byte_chunk(s.stage + thread_offset + r * ROW_ITEMS));
            }
            InT x[VEC];
            scan_detail::read_chunk<VEC>(s.stage + thread_offset + r * ROW_ITEMS, x);
            auto fold = [&](bool check) -> Acc {
                Acc total = element(r, x, check, valid, 0);
#pragma unroll
                for (int k = 1; k < VEC; ++k) {
                    if constexpr (SEGMENTED) {
                        const bool is_valid = !check || ((valid >> k) & 1u);
                        const V v = is_valid ? Values::template lift<V>(x[k]) : Op::identity();
                        const bool head = is_valid && ((row_heads(r) >> k) & 1u);
                        total = Acc{op(head ? init : total.value, v), total.head | (head ? 1 : 0)};
                    } else {
                        total = scan_op(total, element(r, x, check, valid, k));
                    }
                }
                return total;
            };
            if constexpr (BYTE_EXTREMES || BYTE_BITWISE) return fold(true);  // a chunk at an end of [0, n)
            else return valid == WHOLE ? fold(false) : fold(true);
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
        // A piece at a time, so that wide outputs need not all be held at once (int8 -> int64 sums,
        // which needed it, take BYTE SUMS' slices now).
#pragma unroll
        for (int piece = 0; piece < VEC / Store::PIECE; ++piece) {
            OutT o[Store::PIECE];
            auto fold = [&](bool check) {
#pragma unroll
                for (int j = 0; j < Store::PIECE; ++j) {
                    const Acc before = running;
                    const int k = piece * Store::PIECE + j;
                    if constexpr (SEGMENTED) {
                        const bool is_valid = !check || ((valid >> k) & 1u);
                        const V v = is_valid ? Values::template lift<V>(x[k]) : Op::identity();
                        const bool head = is_valid && ((row_heads(r) >> k) & 1u);
                        running = Acc{op(head ? init : running.value, v), running.head | (head ? 1 : 0)};
                        o[j] = Values::template lower<OutT>(inclusive ? running.value : head ? init : before.value);
                    } else {
                        running = scan_op(running, element(r, x, check, valid, k));
                        o[j] = Values::template lower<OutT>(inclusive ? running : before);  // narrowing wraps: Java's byte arithmetic
                    }
                }
            };
            if (valid == WHOLE) fold(false);  // no shuffle inside: lanes may differ here
            else fold(true);
            store.put(piece, o);
        }
    };
    // A folded chunk's outputs from its prefix: plain int8 AND, OR and XOR take a whole chunk four
    // bytes a word (BYTE BITWISE); the others fold.
    auto chunk_outputs = [&](int r, Acc chunk_prefix) {
        if constexpr (BYTE_BITWISE) {
            if (interior || scan_detail::valid_mask<VEC>(first + r * ROW_ITEMS, n) == WHOLE) {
                const uint4 words = scan_detail::byte_chunk_bitwise<Op>(
                    scan_detail::read_byte_chunk(s.stage + thread_offset + r * ROW_ITEMS), (int)chunk_prefix, inclusive);
                OutT o[VEC];
                __builtin_memcpy(o, &words, 16);
                scan_detail::store_row<VEC>(out, first + r * ROW_ITEMS, n, o, stores_whole());
                return;
            }
        }
        fold_chunk_outputs(r, chunk_prefix);
    };

    // NAN FAST PATH (plain REDUCE_FIRST scans under Java's float32 min and max, NaNFreeForm). A warp
    // that meets no NaN gets the operator's bits from the bare instruction, so it combines with
    // that: each warp reduces its data with the bare instruction, noting whether it read a NaN,
    // and again with the operator if it did. Then a warp whose data held no NaN, under a carried
    // prefix that is not NaN, scans its rows with the bare instruction; under a NaN prefix every
    // output is that NaN (a NaN on the left is the result), so the warp stores it; the warp holding
    // a scan's first NaN scans with the operator, a row at a time (unrolled, the compiler
    // overlapped those rows with the fast ones and spilled). Each gives the operator's bits, on
    // every run. 2^28 float32 max, ms (bench/lab/minmax_lab.cu): 0.674 -> 0.570 (90% of the copy;
    // 0.557 with the bare instruction alone, wrong for NaN); as float keys (FLOAT KEYS), 0.603.
    constexpr bool NAN_FAST = NaNFreeForm<ScanOp>::CHEAPER && HOW == TileScan::REDUCE_FIRST && !FOLD;
    static_assert(!NAN_FAST || !SEGMENTED, "segmented scans of float min and max scan keys");
    bool warp_nan = false;  // NAN_FAST: whether the warp's data holds a NaN (the same in every lane)

    // Each warp's total, left in shared memory. Commutative operators: each thread folds its chunks
    // (rows in any order) and the warp reduces its lanes' totals by a butterfly. The others keep
    // index order: a warp's chunks in row-major order are its items in order, which is the order
    // warp_reduce_rows_ordered combines them in (ROWS + 4 shuffles instead of 5 a row).
    auto warp_total_with = [&](bool fast, bool& nan) -> Acc {
        if constexpr (BYTE_SUMS && SEGMENTED) {  // PLAIN ROW SCANS: shares of the warp's total
            V share = 0;
            unsigned any_heads = 0u;
#pragma unroll
            for (int r = 0; r < ROWS; ++r) scan_detail::fold_row_share(chunk_total(r), share, any_heads);
            return scan_detail::warp_total_of_shares(share, any_heads);
        } else if constexpr (Commutative<ScanOp>::value) {
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
            for (int r = 0; r < ROWS; ++r) chunk_totals[r] = chunk_total(r);
            return warp_reduce_rows_ordered(chunk_totals, scan_op);
        }
    };
    auto reduce_warps = [&]() {
        bool nan = false;
        Acc warp_total = warp_total_with(NAN_FAST, nan);
        if constexpr (NAN_FAST) {
            warp_nan = __any_sync(0xffffffffu, nan);
            if (warp_nan) warp_total = warp_total_with(false, nan);
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

    // After each warp's total is in shared memory: warp 0 scans the warp totals (A, published), looks
    // back, and leaves what precedes each warp; every thread gets its warp's (REDUCE_FIRST, BLOCKED).
    auto before_warp = [&]() -> Acc {
        if (warp == 0) {
            const Acc warps_inclusive = warp_inclusive_scan(lane < WARPS ? s.totals.warp[lane] : ScanOp::identity(), scan_op);
            const Acc prefix = look_back(warp_shfl(warps_inclusive, WARPS - 1), true);
            const Acc left = warp_shfl_up(warps_inclusive, 1);
            if (lane < WARPS) s.totals.before_warp[lane] = lane == 0 ? prefix : scan_op(prefix, left);
        }
        __syncthreads();
        return s.totals.before_warp[warp];
    };

    // SCAN IN THE WAIT (plain REDUCE_FIRST scans of 8-byte values under one-instruction operators:
    // int64 and float64 sums and products, int64 bitwise operators; and, blocked, 8-byte min and max,
    // SlowInstruction in scan/operator_traits.cuh). Each warp scans its rows while warp 0 looks back
    // and leaves the outputs, short of what precedes the warp, in place of its input; after the wait
    // each output is one combination and a store. Warp 0 publishes A, scans its own rows, then looks
    // back. Before, seven warps idled at the barrier through the wait (ncu: 13-16 of 24-26 cycles
    // between issues stalled there) and the whole scan came after it. 2^28 elements
    // (bench/results/2026-11-24-nvidia-h200-step65-ab.md): int64 sums 1.161 -> 1.072 ms (87.5% -> 94.8%
    // of the copy), float64 sums 1.155 -> 1.13 (the kernel alone 1.15 -> 1.07), at 6 blocks per SM now
    // that float64 needs 39 registers. Min and max lost in rows (float64 keys 1.22 -> 1.34-1.40 ms: the
    // extra combinations took the issue slots, 41% -> 65% busy, and the kernel issued 40-50% more
    // instructions for sums too) and gain blocked (below). Not for user-defined operators (their cost
    // is unknown); 4-byte one-instruction operators take EARLY_AGGREGATE. The local loop is not
    // unrolled: unrolled it spilled at 6 blocks per SM. Not for segmented scans either: with the
    // (value, head) pairs scanned locally and the heads before each output found again after the wait
    // (bench/lab/scan_in_wait_segmented.patch), sums of 2^28 by flags went float32 0.695 -> 0.84-0.86
    // ms, int32 0.70 -> 0.93, float64 1.35 -> 1.69, int64 1.40 -> 1.80: those kernels are already bound
    // by issue (65-69% busy) and the local scan issued 46% more instructions
    // (bench/results/2026-11-25-nvidia-h200-step66-ab.md).
    constexpr bool SCAN_IN_WAIT = HOW == TileScan::REDUCE_FIRST && !SEGMENTED && !FOLD && !NAN_FAST &&
                                  sizeof(V) == sizeof(InT) &&
                                  (OneInstruction<ScanOp>::value || SlowInstruction<ScanOp>::value);
    static_assert(!BLOCKED_IN_WAIT || SCAN_IN_WAIT, "BLOCKED_IN_WAIT is a form of SCAN IN THE WAIT");
    if constexpr (WIDENING) {
        // WIDENING SUMS (segmented int32 -> int64 sums) by PLAIN ROW SCANS: each lane's chunk of a
        // row, its head bits from shared memory, its (value, head) total in closed form. The warp's
        // total is a plain sum of its lanes' shares; after the wait, each row's prefixes are one
        // plain warp sum scan less the prefix at each lane's last head, and every chunk's four
        // outputs leave as the plain int32 -> int64 scan's do (store_row: whole sectors).
        auto chunk_of = [&](int r, int (&x)[VEC], unsigned& bits) {
            scan_detail::read_chunk<VEC>(s.stage + thread_offset + r * ROW_ITEMS, x);
            bits = heads.template bits<VEC>(0u, thread_offset + r * ROW_ITEMS, s.heads);
        };
        long long share = 0;
        unsigned any_heads = 0u;
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
            int x[VEC];
            unsigned bits;
            chunk_of(r, x, bits);
            scan_detail::fold_row_share(scan_detail::widening_chunk_total(x, bits, init), share, any_heads);
        }
        const Acc warp_total = scan_detail::warp_total_of_shares(share, any_heads);
        if (lane == 0) s.totals.warp[warp] = warp_total;
        __syncthreads();
        long long carry = before_warp().value;
#pragma unroll 1
        for (int r = 0; r < ROWS; ++r) {
            int x[VEC];
            unsigned bits;
            chunk_of(r, x, bits);
            const long long prefix = scan_detail::segmented_sum_row_prefix(scan_detail::widening_chunk_total(x, bits, init), carry);
            OutT o[VEC];
            scan_detail::widening_chunk_outputs(x, bits, prefix, init, inclusive, o);
            scan_detail::store_row<VEC>(out, first + r * ROW_ITEMS, n, o, stores_whole());
        }
    } else if constexpr (BLOCKED) {
        // BLOCKED (segmented REDUCE_FIRST scans of 4- and 8-byte data whose head bits are in shared
        // memory: by offsets, and by flags through SharedFlagHeads). Each thread takes the warp's
        // items blocked, its ROWS chunks consecutive (the stage is swizzled for it: blocked_slot), so
        // it folds its 16 or 32 items in registers, restarting at each head by selection, and the
        // warp scans the threads' (value, head) pairs once per tile, not once per row. After the
        // wait each thread folds its outputs on from what precedes it, writes them over its chunks,
        // and the warp stores the rows striped, whole sectors as before.
        const int q0 = (int)threadIdx.x * ROWS;  // this thread's first chunk of the tile
        // This thread's item k of chunk c: its value (the identity outside [0, n)) and whether a
        // segment starts there. Outside [0, n) only come tile 0's items before in[0] (element 0 is a
        // head: folded over) and the last tile's past n (their outputs are not stored).
        auto item = [&](bool whole, int c, const InT (&x)[VEC], unsigned bits, int k, bool& head) -> V {
            const bool is_valid = whole || ((scan_detail::valid_mask<VEC>(tile_start + (q0 + c) * VEC, n) >> k) & 1u);
            head = is_valid && ((bits >> k) & 1u);
            return is_valid ? Values::template lift<V>(x[k]) : Op::identity();
        };
        auto thread_total = [&](bool whole) -> Acc {
            Acc run;
#pragma unroll
            for (int c = 0; c < ROWS; ++c) {
                InT x[VEC];
                scan_detail::read_chunk<VEC>(swizzled_chunk(q0 + c), x);
                const unsigned bits = heads.template bits<VEC>(0u, (q0 + c) * VEC, s.heads);
#pragma unroll
                for (int k = 0; k < VEC; ++k) {
                    bool head;
                    const V v = item(whole, c, x, bits, k, head);
                    if (c == 0 && k == 0) run = Acc{head ? op(init, v) : v, head ? 1 : 0};
                    else run = Acc{op(head ? init : run.value, v), run.head | (head ? 1 : 0)};
                }
            }
            return run;
        };
        auto fold_outputs = [&](bool whole, V running) {
#pragma unroll
            for (int c = 0; c < ROWS; ++c) {
                InT* chunk = swizzled_chunk(q0 + c);
                InT x[VEC];
                scan_detail::read_chunk<VEC>(chunk, x);
                const unsigned bits = heads.template bits<VEC>(0u, (q0 + c) * VEC, s.heads);
                OutT o[VEC];
#pragma unroll
                for (int k = 0; k < VEC; ++k) {
                    bool head;
                    const V v = item(whole, c, x, bits, k, head);
                    const V before = running;
                    running = op(head ? init : running, v);
                    o[k] = Values::template lower<OutT>(inclusive ? running : head ? init : before);
                }
                scan_detail::write_chunk<VEC>(reinterpret_cast<OutT*>(chunk), o);
            }
        };
        Acc mine;
        if (interior) mine = thread_total(true);  // two calls, so each compiles with `whole` constant
        else mine = thread_total(false);
        const Acc lanes_inclusive = warp_inclusive_scan(mine, scan_op);
        if (lane == 31) s.totals.warp[warp] = lanes_inclusive;
        __syncthreads();
        const Acc carry = before_warp();
        const Acc left = warp_shfl_up(lanes_inclusive, 1);
        const V running = lane == 0 ? carry.value : scan_op(carry, left).value;  // all that precedes this thread's items
        if (interior) fold_outputs(true, running);
        else fold_outputs(false, running);
        __syncwarp();  // lanes store outputs their warp's other lanes wrote
        const bool whole_rows = stores_whole();
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
            OutT o[VEC];
            scan_detail::read_chunk<VEC>(reinterpret_cast<const OutT*>(stage_slot(r)), o);
            scan_detail::store_row<VEC>(out, first + r * ROW_ITEMS, n, o, whole_rows);
        }
    } else if constexpr (SCAN_IN_WAIT) {
        // Row r's chunks scanned within the warp: what precedes each item in the warp's rows (its
        // rows before r, then its lanes before), op the item for inclusive scans. The warp's first
        // item has nothing before it, so no identity is combined anywhere (it would turn -0.0 sums
        // into 0.0); its exclusive output is the prefix alone (below). A `whole` tile lies inside
        // [0, n): its chunks skip scan_chunk's bounds mask and per-item selects, in the same
        // association (the same bits). float64 sums of 2^28: 1.146 -> 1.086 ms, int64 1.080 ->
        // 1.060, 23% fewer instructions (bench/results/2026-11-24-nvidia-h200-step65-ab.md, H).
        auto scan_rows_in_place = [&](bool whole) {
            Acc running;  // the warp's rows before r (from row 1 on)
#pragma unroll 1
            for (int r = 0; r < ROWS; ++r) {
                Acc a[VEC];
                int skip;
                scan_chunk_with(false, r, a, skip, whole);
                Acc row_total;
                const Acc lanes = warp_inclusive_scan(a[VEC - 1], scan_op, row_total);
                const Acc left = warp_shfl_up(lanes, 1);
                const bool has_before = r > 0 || lane > 0;
                const Acc before = r == 0 ? left : lane > 0 ? scan_op(running, left) : running;
                V y[VEC];
#pragma unroll
                for (int k = 0; k < VEC; ++k) {
                    if (inclusive) y[k] = has_before ? scan_op(before, a[k]) : a[k];
                    else y[k] = k <= skip ? before : has_before ? scan_op(before, a[k - 1]) : a[k - 1];
                }
                scan_detail::write_chunk<VEC>(reinterpret_cast<V*>(s.stage + thread_offset + r * ROW_ITEMS), y);
                running = r == 0 ? row_total : scan_op(running, row_total);
            }
        };
        // BLOCKED_IN_WAIT (int64 products, 8-byte min and max): each thread folds its eight
        // consecutive chunks (the tile is staged swizzled, as for BLOCKED) into its total, one warp
        // scan of those gives the warp's total for A and each thread's prefix within the warp, and in
        // the wait each thread folds its outputs on from that prefix, over its chunks. Items outside
        // [0, n) are skipped, so again no identity is combined. Where a combination is several
        // instructions, one warp scan a tile instead of one a row pays: cumprod int64 of 2^28 1.22 ->
        // 1.14 ms (three multiply-adds); cummax float64 (keys) 1.21-1.23 -> 1.10-1.11, int64 1.18-1.21
        // -> 1.09 (a compare and two selects; bench/results/2026-11-25-nvidia-h200-step79-ab.md). For
        // the other operators, one instruction each, the second fold cost more than the scans it
        // saved, and they ran 3-5% slower (bench/results/2026-11-25-nvidia-h200-step68-ab.md, the lab).
        const int q0 = (int)threadIdx.x * ROWS;  // this thread's first chunk of the tile (BLOCKED_IN_WAIT)
        auto thread_total = [&](bool whole) -> Acc {
            Acc run = ScanOp::identity();  // replaced by the first item
            bool any = false;
#pragma unroll
            for (int c = 0; c < ROWS; ++c) {
                InT x[VEC];
                scan_detail::read_chunk<VEC>(scan_detail::blocked_chunk<VEC>(s.stage, q0 + c), x);
                const unsigned valid = whole ? WHOLE : scan_detail::valid_mask<VEC>(tile_start + (q0 + c) * VEC, n);
#pragma unroll
                for (int k = 0; k < VEC; ++k) {
                    if (whole || ((valid >> k) & 1u)) {
                        const V v = Values::template lift<V>(x[k]);
                        run = (whole ? c > 0 || k > 0 : any) ? scan_op(run, v) : v;
                        any = true;
                    }
                }
            }
            return run;  // the identity for a thread wholly past n: its outputs are not stored
        };
        // Each item's output short of the warp's prefix, over its chunk; `before` (if has_before)
        // precedes the thread's first item within the warp. The warp's first item has nothing
        // before it: its exclusive output is the prefix alone (below).
        auto fold_outputs_in_place = [&](bool whole, bool has_before, Acc before) {
            Acc run = before;
            bool any = has_before;
#pragma unroll
            for (int c = 0; c < ROWS; ++c) {
                V* chunk = reinterpret_cast<V*>(scan_detail::blocked_chunk<VEC>(s.stage, q0 + c));
                InT x[VEC];
                scan_detail::read_chunk<VEC>(reinterpret_cast<const InT*>(chunk), x);
                const unsigned valid = whole ? WHOLE : scan_detail::valid_mask<VEC>(tile_start + (q0 + c) * VEC, n);
                V y[VEC];
#pragma unroll
                for (int k = 0; k < VEC; ++k) {
                    const V v = Values::template lift<V>(x[k]);
                    const Acc next = any ? scan_op(run, v) : v;
                    y[k] = inclusive ? next : run;
                    if (whole || ((valid >> k) & 1u)) {
                        run = next;
                        any = true;
                    }
                }
                scan_detail::write_chunk<VEC>(chunk, y);
            }
        };
        Acc lanes_inclusive{};  // BLOCKED_IN_WAIT: this thread's items and its lanes' before, within the warp
        if constexpr (BLOCKED_IN_WAIT) {
            const Acc mine = interior ? thread_total(true) : thread_total(false);
            Acc warp_total;
            lanes_inclusive = warp_inclusive_scan(mine, scan_op, warp_total);
            if (lane == 0) s.totals.warp[warp] = warp_total;
            __syncthreads();
        } else {
            reduce_warps();
        }
        // Warp 0 publishes A first and looks back only after scanning its own rows; nothing is held
        // across that scan (the warp totals stay in shared memory). Looking back first, then scanning,
        // was slower for every operator: cumsum float64 1.07 -> 1.17 ms, int64 products 1.23 -> 1.25
        // (bench/results/2026-11-25-nvidia-h200-step67-ab.md): the local scan is what hides the wait.
        auto warps_inclusive = [&]() -> Acc {
            return warp_inclusive_scan(lane < WARPS ? s.totals.warp[lane] : ScanOp::identity(), scan_op);
        };
        if (warp == 0 && tile != 0) {
            const Acc aggregate = warp_shfl(warps_inclusive(), WARPS - 1);
            if (lane == 0) status.publish(tile, TILE_AGGREGATE, aggregate);
        }
        if constexpr (BLOCKED_IN_WAIT) {
            const Acc left = warp_shfl_up(lanes_inclusive, 1);
            if (interior) fold_outputs_in_place(true, lane > 0, left);
            else fold_outputs_in_place(false, lane > 0, left);
            __syncwarp();  // lanes store outputs their warp's other lanes wrote
        } else {
            if (interior) scan_rows_in_place(true);  // two calls, so each compiles with `whole` constant
            else scan_rows_in_place(false);
        }
        if (warp == 0) {
            const Acc inclusive_totals = warps_inclusive();
            const Acc prefix = look_back(warp_shfl(inclusive_totals, WARPS - 1), false);
            const Acc left = warp_shfl_up(inclusive_totals, 1);
            if (lane < WARPS) s.totals.before_warp[lane] = lane == 0 ? prefix : scan_op(prefix, left);
        }
        __syncthreads();
        const Acc carry = s.totals.before_warp[warp];
        auto store_rows = [&](bool whole) {
#pragma unroll
            for (int r = 0; r < ROWS; ++r) {
                V y[VEC];
                scan_detail::read_chunk<VEC>(reinterpret_cast<const V*>(stage_slot(r)), y);
                // The warp's first item, exclusive: nothing of the warp precedes it (tile 0's first
                // warp may start before in[0]: its first item is in[0], `skip` places in).
                int first_item = -1;
                if (r == 0 && lane == 0 && !inclusive) {
                    const unsigned valid = whole ? WHOLE : scan_detail::valid_mask<VEC>(first, n);
                    first_item = valid ? __ffs(valid) - 1 : 0;
                }
                OutT o[VEC];
#pragma unroll
                for (int k = 0; k < VEC; ++k) o[k] = Values::template lower<OutT>(k <= first_item ? carry : scan_op(carry, y[k]));
                scan_detail::store_row<VEC>(out, first + r * ROW_ITEMS, n, o, whole);
            }
        };
        if (stores_whole()) store_rows(true);  // two calls, so each compiles with `whole` constant
        else store_rows(false);
    } else if constexpr (HOW == TileScan::REDUCE_FIRST) {
        // The warps' totals, what precedes each warp (before_warp: A published, the look-back), then
        // each warp scans its rows once, in order, carrying the running value from row to row.
        // Nothing but the tile in shared memory is held across the wait.
        reduce_warps();
        Acc carry = before_warp();
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
            if (!warp_nan && !is_nan(carry)) {
#pragma unroll
                for (int r = 0; r < ROWS; ++r) scan_row(true, r);
            } else if (is_nan(carry)) {
                OutT o[VEC];
#pragma unroll
                for (int k = 0; k < VEC; ++k) o[k] = Values::template lower<OutT>(carry);
#pragma unroll
                for (int r = 0; r < ROWS; ++r) scan_detail::store_row<VEC>(out, first + r * ROW_ITEMS, n, o, stores_whole());
            } else {
                // One row at a time: unrolled, the compiler overlapped these rows with the fast
                // ones and spilled.
#pragma unroll 1
                for (int r = 0; r < ROWS; ++r) scan_row(false, r);
            }
        } else {
            // FOLD: one row at a time. Unrolled, the compiler overlaps rows, and int8 scans spill at
            // 6 blocks per SM (int8 -> int64 needed 64 registers; one row at a time, 40-48).
            const scan_detail::BytePrefixes prefixes(2 * (lane & 7) + inclusive);  // SLICED: this lane's pair in a chunk
#pragma unroll (FOLD ? 1 : ROWS)
            for (int r = 0; r < ROWS; ++r) {
                Acc row_total;
                if constexpr (FOLD) {  // BYTE_SUMS among them (int8)
                    Acc chunk_prefix;
                    if constexpr (BYTE_SUMS && SEGMENTED) {  // PLAIN ROW SCANS
                        V next = carry.value;
                        chunk_prefix = Acc{scan_detail::segmented_sum_row_prefix(chunk_total(r), next), 0};
                        row_total = Acc{next, 1};  // with a head, carry op row_total below is next: what precedes the next row
                    } else {
                        chunk_prefix = warp_exclusive_scan(chunk_total(r), scan_op, carry, row_total);
                    }
                    if constexpr (SLICED) {
                        const int row_offset = warp * WARP_ITEMS + r * ROW_ITEMS;
                        if constexpr (SEGMENTED) {
                            scan_detail::store_row_byte_sums<true>(s.stage + row_offset, tile_start + row_offset, n, out,
                                                                   chunk_prefix.value, prefixes, row_heads(r), init, inclusive);
                        } else {
                            scan_detail::store_row_byte_sums(s.stage + row_offset, tile_start + row_offset, n, out,
                                                             chunk_prefix, prefixes);
                        }
                    } else if constexpr (BYTE_SUMS) {  // into int8: four bytes a word (segmented: ONE HEAD)
                        V running;
                        unsigned heads = 0u;
                        bool by_words = true;
                        if constexpr (SEGMENTED) {
                            running = chunk_prefix.value;
                            heads = row_heads(r);
                            // Every lane votes: the warp's lanes are converged here (the row prefix shuffled).
                            const bool warp_one_head = __all_sync(0xffffffffu, (heads & (heads - 1u)) == 0u);
                            by_words = heads == 0u || warp_one_head;
                        } else {
                            running = chunk_prefix;
                        }
                        if (by_words) {
                            uint4 sums = scan_detail::byte_chunk_sums(
                                scan_detail::read_byte_chunk(s.stage + thread_offset + r * ROW_ITEMS), (int)running, inclusive);
                            if (heads != 0u)
                                sums = scan_detail::rebase_at_head(sums, (int)running, inclusive, __ffs(heads) - 1, (int)init);
                            OutT o[VEC];
                            __builtin_memcpy(o, &sums, 16);
                            scan_detail::store_row<VEC>(out, first + r * ROW_ITEMS, n, o, stores_whole());
                        } else {
                            fold_chunk_outputs(r, chunk_prefix);
                        }
                    } else {
                        chunk_outputs(r, chunk_prefix);
                    }
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

}  // namespace primer
