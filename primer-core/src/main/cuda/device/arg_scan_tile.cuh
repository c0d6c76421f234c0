// The tile of the running argmin and argmax, plain and segmented. Segmented: out[i] = the index,
// counted from the first element s of i's segment, of the first minimum (maximum) of in[s .. i]
// (inclusive), or of in[s .. i-1] (exclusive; -1 at s). The plain scan is the segmented one over a
// single segment, which element 0 starts. Keys, order and tiles: arg_scan_kernels.cuh.
//
// RUNS. A run is what a range of elements leaves behind for the elements after it: the most
// extreme key since its last segment start, that key's first position, and the position of that
// start (-1: the range holds none). Runs combine in order, a then b:
//     b holds a start:             b
//     b's key beats a's strictly:  b's key and position, a's start
//     otherwise:                   a                       (of equal keys the earlier one stays)
// which is associative. Element 0 always starts a segment, so every real element's run holds a
// start, and no identity is ever combined to the left of a real element's key.
//
// BLOCKED, not striped. Each thread owns ITEMS consecutive elements of the tile (eight chunks), so
// it combines runs item by item in registers, a few instructions an item, and the warp scans runs
// once per tile instead of once per row of chunks. The tile is staged in shared memory as loaded
// (striped, coalesced) but in a swizzled order, so that both the striped writes and the blocked
// reads are free of bank conflicts; the outputs are staged there again, as codes, and leave in
// whole 128-byte lines (STAGED OUTPUTS, below). Measured on an H200 (2^28 elements; bench/
// results 2026-11-23-nvidia-h200-suite.md, step 50): the segmented scan in rows of chunks striped
// across each warp, a warp scan of whole runs per row, took 121 instructions an element (ncu, 2^24
// float32 by offsets) and ran at 27-39% of the copy; blocked, float32 by offsets (rows of 4096)
// 1.87 -> 1.47 ms, by flags 2.15 -> 1.96, float64 by flags 4.06 -> 3.18. The plain scan, whose own
// striped kernels found records by warp scans of keys, went float32 1.49 -> 1.38 ms, float64 3.04
// -> 1.87, but int32 1.24 -> 1.33: blocked, it is no longer bound by instructions (ncu: 57% of
// DRAM, 48% of the SM's issue), and its outputs kernel waits on memory with a tile per block.
//
// FLAGS IN REGISTERS. A thread's items are consecutive, so are their head flags: each thread loads
// its own (16 to 128 bytes) straight into registers as bits. Staged instead as a word per chunk in
// shared memory, each load was waited out before the next was issued (a store behind it, edge
// branches between): by flags float32 took 1.98 ms, float64 3.19; all loads in flight before any
// store, 1.58 and 2.37; each thread's own, 1.55 and 2.16 (2^28 elements, random heads about one
// in 1024; bench/results 2026-11-23-nvidia-h200-suite.md, step 51).
//
// Both run in one pass (arg_scan_single_pass, at the end): a tile's run (positions in the array,
// keys kept as "larger is better") is published for the look-back, and the block writes its
// outputs from the run of the tiles before it. Within a tile positions are ints counted from the
// tile's first position. Segment starts come from head flags or offsets (scan/segment_heads.cuh,
// scan/offset_heads.cuh); by offsets the kernels scan in[offsets[0] .. offsets[last]) as an array
// of its own.
#pragma once
#include "arg_scan_kernels.cuh"
#include "scan/offset_heads.cuh"
#include "scan/segment_heads.cuh"

namespace primer {

namespace arg_scan_detail {
/** ArgScanTile's output codes: ints (INT_CODES), else the int64 outputs themselves. */
template <bool INT_CODES> struct OutputCode { using type = long long; };
template <> struct OutputCode<true> { using type = int; };
}  // namespace arg_scan_detail

/** A run (see the top of this file); Pos: int within a tile, long long in the array. */
template <typename Key, typename Pos> struct ArgRun {
    Key key;
    Pos pos;   // first position of key since the start
    Pos head;  // the last segment start; -1: none
};

/** Runs in order, a then b; Order::beats(x, y): x strictly more extreme than y. */
template <typename Order, typename Run> struct RunThen {
    __device__ __forceinline__ Run operator()(Run a, Run b) const {
        if (b.head >= 0) return b;
        return Order::beats(b.key, a.key) ? Run{b.key, b.pos, a.head} : a;
    }
};

/** The order of published runs, whose keys are "larger is better" (ArgScanOrder::larger_is_better). */
template <typename Key> struct LargerKeyWins {
    static __device__ __forceinline__ bool beats(Key a, Key b) { return a > b; }
};

/** Published runs' operator: identity() is the least key with no start, only ever combined on the left. */
template <typename Key> struct TileRunThen : RunThen<LargerKeyWins<Key>, ArgRun<Key, long long>> {
    static __device__ __forceinline__ ArgRun<Key, long long> identity() {
        return {Key(Key(1) << (8 * sizeof(Key) - 1)), 0, -1};
    }
};

/** The work of one tile. */
template <typename T, bool MAX, typename Heads>
struct ArgScanTile {
    using S = ArgScanShape<T>;
    using O = ArgScanOrder<T, MAX>;
    using Key = typename O::Key;
    using Run = ArgRun<Key, int>;
    using Carry = ArgRun<Key, long long>;
    static constexpr int THREADS = ArgScanPolicy::BLOCK_THREADS, WARPS = THREADS / 32, VEC = S::VEC;
    static constexpr int CHUNKS = ArgScanPolicy::CHUNKS;  // per thread, consecutive
    static constexpr int ITEMS = CHUNKS * VEC;          // per thread, consecutive
    static_assert(CHUNKS == 8, "the stage's swizzle permutes a thread's eight chunks");
    // Flags (FlagHeads) need no stage: a thread's items are consecutive, so are their flags, and
    // each thread loads its own into registers (FlagHeads::fetch_items) as their bits.
    static constexpr bool THREAD_FLAGS = Heads::SEGMENTED && !Heads::BITS_IN_SHARED;
    static constexpr int FLAG_WORDS = THREAD_FLAGS ? (ITEMS + 31) / 32 : 1;

    // Outputs (OUTPUT CODES, STAGED OUTPUTS, below).
    static constexpr bool INT_CODES = sizeof(T) != 8;
    using Code = typename arg_scan_detail::OutputCode<INT_CODES>::type;
    static constexpr bool CODES_IN_PLACE = VEC * sizeof(Code) == 16;
    // !CODES_IN_PLACE: a warp stages half its lanes' chunks of codes at a time (all of them would
    // take the block past 48 KB of static shared memory).
    static constexpr int ROUND_LANES = 16, ROUND_CODES = CODES_IN_PLACE ? 1 : WARPS * ROUND_LANES * VEC;

    struct Storage {
        alignas(16) T stage[S::TILE_ITEMS];  // chunk q of the tile at slot(q)
        typename Heads::Storage heads;
        Run warp_total[WARPS];
        alignas(16) Code round_codes[ROUND_CODES];  // !CODES_IN_PLACE: ROUND_LANES chunks of codes a warp
    };

    const T* in;
    long long n;
    Heads heads;
    // The tile's number, drawn from the ticket into shared memory and read there at each use
    // (volatile: the compiler may not keep it): a 64-bit start held in registers across the
    // kernel spilled at 5 blocks per SM, where a number from blockIdx would be made again.
    const volatile unsigned& number;
    unsigned flag_bits[FLAG_WORDS];  // THREAD_FLAGS: bit i % 32 of word i / 32 set if this thread's item i starts a segment

    __device__ __forceinline__ ArgScanTile(const T* in_, long long n_, Heads heads_, const volatile unsigned& number_)
        : in(in_), n(n_), heads(heads_), number(number_) {}

    __device__ __forceinline__ long long tile() const { return number; }
    /** Element index of the tile's position 0. */
    __device__ __forceinline__ long long start() const { return arg_scan_detail::tile_start(in, tile()); }

    /** Where chunk q (thread q / 8's chunk q % 8) lies in the stage, in chunks (scan/tile_io.cuh). */
    static __device__ __forceinline__ int slot(int q) { return scan_detail::blocked_slot(q); }

    /**
     * INTERIOR TILES. A tile whose items all lie in [0, n) and that does not hold element 0 (every
     * tile but the first and the last) needs none of the per-chunk tests at the edges: its chunks
     * are staged from one base address, its keys made without bounds, its head bits taken without
     * element 0's. The hot paths (load, thread_run, the outputs' second pass) are compiled twice,
     * CHECKED for the edge tiles and not for the interior ones, and each tile takes one branch.
     * Measured on an H200 (2^28 elements; bench/results/2026-11-26-nvidia-h200-step81-ab.md): the
     * tests and 64-bit indices had been a fifth to a third of the instructions (ncu: float64 701 M
     * -> 499 M, by flags 902 M -> 725 M, float32 374 M -> 271 M, int8 215 M -> 148 M). By flags,
     * bound by issue, float64 1.410-1.420 -> 1.263-1.266 ms, float32 1.025-1.033 -> 0.941-0.961;
     * rows of 4096 by offsets 0.871-0.884 -> 0.834-0.843; the plain scans, which wait on memory
     * and on the look-back, float64 1.205-1.207 -> 1.178-1.195, float32 and int32 unchanged.
     */
    __device__ __forceinline__ bool interior() const {
        const long long first = start();
        return first > 0 && first + S::TILE_ITEMS <= n;
    }

    /**
     * Stages the tile (striped: chunk r * 32 + lane of each warp's 256, coalesced) and makes its
     * heads ready: by flags this thread's head bits, in flag_bits; by offsets the tile's bitmap.
     */
    __device__ __forceinline__ void load(Storage& s, bool is_interior) {
        const int first = (int)(threadIdx.x / 32) * 32 * CHUNKS + (int)lane_id();
        if (is_interior) {
            const T* base = in + start() + first * VEC;  // chunk first + r * 32 at base + r * 32 * VEC
#pragma unroll
            for (int r = 0; r < CHUNKS; ++r) copy_async16(s.stage + slot(first + r * 32) * VEC, base + r * 32 * VEC);
        } else {
#pragma unroll
            for (int r = 0; r < CHUNKS; ++r) {
                const int q = first + r * 32;
                scan_detail::stage_chunk<VEC>(in, start() + q * VEC, n, s.stage + slot(q) * VEC);
            }
        }
        unsigned flag_words[THREAD_FLAGS ? ITEMS / 4 : 1];
        if constexpr (THREAD_FLAGS) heads.template fetch_items<ITEMS>(start() + (long long)threadIdx.x * ITEMS, n, flag_words);
        heads.prepare(tile(), start(), s.heads);
        scan_detail::wait_staged();
        if constexpr (THREAD_FLAGS) Heads::template item_bits<ITEMS>(flag_words, flag_bits);
        __syncthreads();  // threads read chunks other threads staged
    }

    /** This thread's chunk c: its keys (CHECKED: WORST outside [0, n)) and head bits. */
    template <bool CHECKED>
    __device__ __forceinline__ unsigned chunk(int c, const Storage& s, Key (&key)[VEC]) const {
        const int q = (int)threadIdx.x * CHUNKS + c;
        T x[VEC];
        scan_detail::read_chunk<VEC>(s.stage + slot(q) * VEC, x);
        if constexpr (CHECKED) {
            arg_scan_detail::chunk_keys<O>(x, start() + q * VEC, n, key);
        } else {
#pragma unroll
            for (int k = 0; k < VEC; ++k) key[k] = O::key(x[k]);
        }
        return head_bits<CHECKED>(c, s);
    }

    /** This thread's chunk c's head bits (CHECKED: with element 0's, which only an edge tile holds). */
    template <bool CHECKED>
    __device__ __forceinline__ unsigned head_bits(int c, const Storage& s) const {
        unsigned bits;
        if constexpr (THREAD_FLAGS) {
            // flag_bits[c * VEC / 32] by masks: c may vary at run time, and an indexed read (or
            // selects, which the compiler turns into one) would put flag_bits in local memory.
            unsigned word = 0u;
#pragma unroll
            for (int w = 0; w < FLAG_WORDS; ++w) word |= flag_bits[w] & (0u - (unsigned)(w == c * VEC / 32));
            bits = (word >> (c * VEC % 32)) & ((1u << VEC) - 1u);
        } else {
            bits = heads.template bits<VEC>(0u, ((int)threadIdx.x * CHUNKS + c) * VEC, s.heads);
        }
        if constexpr (!CHECKED) return bits;
        // Element 0 always starts a segment: its bit, in thread 0's chunk 0 of tile 0 (made here, not
        // kept: one register less across the kernel).
        return bits | (c == 0 && threadIdx.x == 0 && start() <= 0 ? 1u << (int)(-start()) : 0u);
    }

    /**
     * Keys the size of the elements replace them in the stage (thread_run), so that the outputs'
     * second pass reads them as they are; int8's keys are ints, and are made again.
     */
    static constexpr bool KEYS_IN_STAGE = sizeof(Key) == sizeof(T);

    /** Chunk c's keys and head bits in the second pass. */
    template <bool CHECKED>
    __device__ __forceinline__ unsigned chunk_again(int c, const Storage& s, Key (&key)[VEC]) const {
        if constexpr (KEYS_IN_STAGE) {
            const int q = (int)threadIdx.x * CHUNKS + c;
            scan_detail::read_chunk<VEC>(reinterpret_cast<const Key*>(s.stage) + slot(q) * VEC, key);
            return head_bits<CHECKED>(c, s);
        } else {
            return chunk<CHECKED>(c, s, key);
        }
    }

    /** item(k, starts_here) for each item k of a chunk with these head bits, in order. */
    template <typename Item>
    static __device__ __forceinline__ void each_item(unsigned bits, Item&& item) {
        if (bits == 0u) {  // most chunks: no start to test for
#pragma unroll
            for (int k = 0; k < VEC; ++k) item(k, false);
        } else {
#pragma unroll
            for (int k = 0; k < VEC; ++k) item(k, (bits >> k) & 1u);
        }
    }

    /** This thread's run over its items, item by item; positions counted from the tile's position 0. */
    template <bool CHECKED>
    __device__ __forceinline__ Run thread_run(Storage& s) const {
        Run run{O::WORST, 0, -1};
#pragma unroll 2
        for (int c = 0; c < CHUNKS; ++c) {
            Key key[VEC];
            const unsigned bits = chunk<CHECKED>(c, s, key);
            const int q = (int)threadIdx.x * CHUNKS + c, position = q * VEC;
            if constexpr (KEYS_IN_STAGE) __builtin_memcpy(reinterpret_cast<Key*>(s.stage) + slot(q) * VEC, key, 16);
            each_item(bits, [&](int k, bool starts_here) {
                if (starts_here) run = Run{key[k], position + k, position + k};
                else if (O::beats(key[k], run.key)) run = Run{key[k], position + k, run.head};
            });
        }
        return run;
    }

    /**
     * The threads' runs scanned across each warp: returns this lane's inclusive run, and puts each
     * warp's total in s.warp_total. Ends with a barrier.
     */
    __device__ __forceinline__ Run warp_scan(Run mine, Storage& s) const {
        const Run inclusive = warp_inclusive_scan(mine, RunThen<O, Run>{});
        if (lane_id() == 31) s.warp_total[threadIdx.x / 32] = inclusive;
        __syncthreads();
        return inclusive;
    }

    /** carry (in the array) then a run of this tile. */
    __device__ __forceinline__ Carry then(Carry carry, Run run) const {
        const long long start = this->start();
        if (run.head >= 0) return {run.key, start + run.pos, start + run.head};
        return O::beats(run.key, carry.key) ? Carry{run.key, start + run.pos, carry.head} : carry;
    }

    /** The tile's run, in the array, with its key "larger is better" (after warp_scan). */
    __device__ __forceinline__ Carry tile_total(const Storage& s) const {
        const RunThen<O, Run> op{};
        Run total = s.warp_total[0];
#pragma unroll
        for (int w = 1; w < WARPS; ++w) total = op(total, s.warp_total[w]);
        const long long start = this->start();
        return {O::larger_is_better(total.key), start + total.pos, total.head >= 0 ? start + total.head : -1};
    }

    /**
     * OUTPUT CODES. Within a tile every output is one of: a position minus a start, both in the
     * tile; a position in the tile minus the start the tile's carry holds (before the tile); the
     * carry's own output; -1 (exclusive, at a start). Each is kept as an int, `code`, widened to
     * 64 bits as it is stored (Decode): [0, TILE) in-tile, the value itself; [TILE, 2 TILE)
     * position code - TILE after the carry's start; 2 TILE the carry's output. So a chunk's codes
     * fit in place of its keys with 4-byte input, and take fewer registers. 8-byte input's codes are
     * the outputs themselves: two a chunk fit in place of its two keys.
     */
    static constexpr int TILE = S::TILE_ITEMS, CARRY_CODE = 2 * TILE;
    struct Decode {
        long long after_start, carried;  // INT_CODES: added to codes in [TILE, 2 TILE), and to CARRY_CODE
        __device__ __forceinline__ long long operator()(Code code) const {
            if constexpr (INT_CODES) return code + (code < TILE ? 0ll : code < CARRY_CODE ? after_start : carried);
            else return code;
        }
    };

    /**
     * STAGED OUTPUTS. A thread's outputs are ITEMS consecutive int64: stored by the thread itself,
     * each store instruction would write one 32-byte sector in each of 16 lines, a write request per
     * sector. Instead the warp stages its codes in shared memory and stores them a few lanes to a
     * thread, two outputs a lane, so that each instruction writes four whole 128-byte lines
     * (store_round). Codes of 4- and 8-byte input are staged in place of their chunk's keys, all at
     * once; int8's are four times its bytes, and go a chunk at a time through the warp's round_codes,
     * half the warp's lanes at a time. Measured on an H200 (2^28 elements, ms; bench/results/
     * 2026-11-24-nvidia-h200-step64-ab.md): L2 write requests 101 M -> 25 M (four sectors each);
     * float32 1.05 -> 0.86, float64 1.45 -> 1.34, int8 0.87 -> 0.77, rows of 4096 by offsets 1.06
     * -> 0.95, by flags float32 1.10 -> 1.06; by flags float64 1.64 -> 1.66, bound elsewhere (DRAM
     * 57%, issue 56%).
     */
    __device__ __forceinline__ void outputs(Storage& s, Carry carry, Run inclusive, long long* out, bool is_inclusive,
                                            bool is_interior) const {
        const long long start = this->start();
        const Decode decode{start - carry.head - TILE, carry.pos - carry.head - CARRY_CODE};
        // The carry before this warp's items, and before this lane's.
        Carry warp_carry = carry;
        for (int w = 0; w < (int)(threadIdx.x / 32); ++w) warp_carry = then(warp_carry, s.warp_total[w]);
        const Run left = warp_shfl_up(inclusive, 1);  // every lane shuffles
        const Carry lane_carry = lane_id() > 0 ? then(warp_carry, left) : warp_carry;
        if (__all_sync(0xffffffffu, then(warp_carry, inclusive).pos == lane_carry.pos)) {  // QUIET WARPS
            Code code_base, code;
            first_codes(lane_carry, code_base, code);
            store_quiet(decode(code), out);
            return;
        }
        const int warp_first = (int)(threadIdx.x & ~31u);  // the warp's first thread
        if constexpr (CODES_IN_PLACE) {
            each_chunk_codes(s, lane_carry, is_inclusive, is_interior, [&](int c, const Code (&codes)[VEC]) {
                __builtin_memcpy(code_slot(s, threadIdx.x, c), codes, 16);  // over the chunk's keys
            });
            __syncwarp();  // lanes store codes other lanes staged
            store_round<ITEMS, 32>(decode, out, 0, 0, [&](int t, int item) {
                return code_slot(s, warp_first + t, item / VEC) + item % VEC;
            });
        } else {
            // Lane t's codes at round + t % ROUND_LANES * VEC, in 16-byte pieces rotated by bits 1-2
            // of t: eight lanes writing a piece each, or reading two threads' codes, meet distinct banks.
            Code* round = s.round_codes + warp_first / 32 * ROUND_LANES * VEC;
            const auto at = [round](int t, int item) {
                return round + t % ROUND_LANES * VEC + 4 * ((item / 4) ^ ((t >> 1) & 3)) + item % 4;
            };
            each_chunk_codes(s, lane_carry, is_inclusive, is_interior, [&](int c, const Code (&codes)[VEC]) {
                const int lane = (int)lane_id();
#pragma unroll
                for (int half = 0; half < 32; half += ROUND_LANES) {
                    __syncwarp();  // the last round's codes are stored
                    if (lane / ROUND_LANES * ROUND_LANES == half) {
#pragma unroll
                        for (int k = 0; k < VEC; k += 4) __builtin_memcpy(at(lane, k), codes + k, 16);
                    }
                    __syncwarp();
                    store_round<VEC, ROUND_LANES>(decode, out, half, c * VEC, at);
                }
            });
        }
    }

    /** Where thread t's chunk c's codes are staged in place (CODES_IN_PLACE): its keys' slot. */
    static __device__ __forceinline__ Code* code_slot(Storage& s, int t, int c) {
        return reinterpret_cast<Code*>(s.stage + slot(t * CHUNKS + c) * VEC);
    }

    /**
     * Stores ROUND consecutive outputs, from item `offset` of their items, of THREADS threads of the
     * warp from its thread `first`: codes_at(t, item) points to lane t's codes of items item and item + 1
     * of the round. In round r lanes L*g .. L*g + L-1 (L = ROUND / 2) store thread first + 32/L*r + g's,
     * two a lane: four whole lines an instruction. Unchecked wide stores where the warp's outputs all
     * lie in [0, n) on 16-byte boundaries (all but the edges), else store_chunk's checks.
     */
    template <int ROUND, int THREADS, typename CodesAt>
    __device__ __forceinline__ void store_round(const Decode& decode, long long* out, int first, int offset,
                                                CodesAt&& codes_at) const {
        constexpr int L = ROUND / 2;
        static_assert(32 % L == 0 && THREADS % (32 / L) == 0, "a store instruction covers whole threads");
        const int lane = (int)lane_id(), item = 2 * (lane % L);
        const long long warp_start = this->warp_start();
        const bool whole = warp_outputs_whole(out);
#pragma unroll
        for (int r = 0; r < THREADS / (32 / L); ++r) {
            const int t = first + 32 / L * r + lane / L;
            Code pair[2];
            __builtin_memcpy(pair, codes_at(t, item), sizeof(pair));
            const long long o[2] = {decode(pair[0]), decode(pair[1])};
            store_pair(out, warp_start + (long long)t * ITEMS + offset + item, o, whole);
        }
    }

    /**
     * QUIET WARPS. Where no item of a warp starts a segment or beats the running key before it, each
     * lane's outputs are one value, its carry's output: past the first tiles of random data nearly
     * every warp of a plain scan. The warp stores them straight from registers, each lane's value
     * shuffled to the lanes that store it, two a lane, four whole lines an instruction, with no
     * second pass over the keys and no codes staged. A lane is quiet when its items leave the
     * carry's position where it was: a start or a new extreme among them would move it there.
     * Measured on an H200 (2^28 elements, ms; bench/results/2026-11-25-nvidia-h200-step80-ab.md):
     * float64 1.334-1.343 -> 1.247-1.251 (ncu: 903 M -> 693 M warp instructions), int8 0.770-0.777
     * -> 0.633-0.634 (500 M -> 215 M), float32 0.861-0.870 -> 0.824-0.844, by flags float64 (a head
     * in about 1024) 1.654-1.657 -> 1.550-1.559; rising data, where no warp is quiet, 0.861-0.863
     * either way.
     */
    __device__ __forceinline__ void store_quiet(long long mine, long long* out) const {
        const int lane = (int)lane_id();
        const long long warp_start = this->warp_start();
        const bool whole = warp_outputs_whole(out);
#pragma unroll 16
        for (int r = 0; r < ITEMS / 2; ++r) {
            const int item = 64 * r + 2 * lane;  // of the warp's 32 * ITEMS outputs: thread item / ITEMS's
            const long long value = warp_shfl(mine, item / ITEMS);
            const long long o[2] = {value, value};
            store_pair(out, warp_start + item, o, whole);
        }
    }

    /** Element index of this warp's first item. */
    __device__ __forceinline__ long long warp_start() const { return start() + (long long)(threadIdx.x & ~31u) * ITEMS; }

    /** Whether the warp's outputs all lie in [0, n) on 16-byte boundaries (all but the edges'). */
    __device__ __forceinline__ bool warp_outputs_whole(const long long* out) const {
        const long long first = warp_start();
        return first >= 0 && first + 32 * ITEMS <= n && ((reinterpret_cast<unsigned long long>(out) + 8 * first) & 15) == 0;
    }

    /** out[index .. index + 1] = o: one unchecked 16-byte store where `whole`, else store_chunk's checks. */
    __device__ __forceinline__ void store_pair(long long* out, long long index, const long long (&o)[2], bool whole) const {
        if (whole) {
            uint4 raw;
            __builtin_memcpy(&raw, o, 16);
            __stcs(reinterpret_cast<uint4*>(out + index), raw);
        } else {
            scan_detail::store_chunk<2>(out, index, n, o);
        }
    }

    /**
     * The codes (OUTPUT CODES) that a lane whose carry (before its items) is `carry` starts from: a
     * record at position p has code p + code_base, and `code` is the carry's own. Before any start
     * in the tile, code_base is TILE (int codes) or the tile's start minus the carry's (the output
     * itself).
     */
    __device__ __forceinline__ void first_codes(Carry carry, Code& code_base, Code& code) const {
        const long long start = this->start();
        if constexpr (INT_CODES) {
            code_base = carry.head >= start ? (int)(start - carry.head) : TILE;
            code = carry.pos >= start ? code_base + (int)(carry.pos - start) : CARRY_CODE;
        } else {
            code_base = start - carry.head;
            code = carry.pos - carry.head;
        }
    }

    /**
     * chunk_codes(c, codes) for each chunk c of this thread's in turn, with its items' codes (OUTPUT
     * CODES), from the lane's carry, item by item: a start at p sets code_base to -p. One loop for
     * interior tiles and one for the edges (INTERIOR TILES).
     */
    template <typename ChunkCodes>
    __device__ __forceinline__ void each_chunk_codes(const Storage& s, Carry carry, bool is_inclusive, bool is_interior,
                                                     ChunkCodes&& chunk_codes) const {
        if (is_interior) each_chunk_codes<false>(s, carry, is_inclusive, chunk_codes);
        else each_chunk_codes<true>(s, carry, is_inclusive, chunk_codes);
    }

    template <bool CHECKED, typename ChunkCodes>
    __device__ __forceinline__ void each_chunk_codes(const Storage& s, Carry carry, bool is_inclusive,
                                                     ChunkCodes& chunk_codes) const {
        Key running = carry.key;
        Code code_base, code;
        first_codes(carry, code_base, code);
        const int first = (int)threadIdx.x * ITEMS;
#pragma unroll 1
        for (int c = 0; c < CHUNKS; ++c) {
            Key key[VEC];
            const unsigned bits = chunk_again<CHECKED>(c, s, key);
            Code codes[VEC];
            each_item(bits, [&](int k, bool starts_here) {
                const int position = first + c * VEC + k;
                const Code before_item = starts_here ? Code(-1) : code;
                if (starts_here) {
                    running = key[k];
                    code_base = -position;
                    code = 0;
                } else if (O::beats(key[k], running)) {  // never for items outside [0, n): their key is WORST
                    running = key[k];
                    code = code_base + position;
                }
                codes[k] = is_inclusive ? code : before_item;
            });
            chunk_codes(c, codes);
        }
    }
};

namespace arg_scan_detail {

template <int BYTES> struct UnsignedOf;
template <> struct UnsignedOf<4> { using type = unsigned; };
template <> struct UnsignedOf<8> { using type = unsigned long long; };

/** The warp's largest x (every lane gets it). */
__device__ __forceinline__ unsigned warp_max(unsigned x) { return __reduce_max_sync(0xffffffffu, x); }
/** 64 bits as two 32-bit reductions: the high halves, then the low halves of the lanes that hold the best high. */
__device__ __forceinline__ unsigned long long warp_max(unsigned long long x) {
    const unsigned high = __reduce_max_sync(0xffffffffu, (unsigned)(x >> 32));
    const unsigned low = __reduce_max_sync(0xffffffffu, (unsigned)(x >> 32) == high ? (unsigned)x : 0u);
    return (unsigned long long)high << 32 | low;
}

}  // namespace arg_scan_detail

/**
 * The look-back for published runs (keys "larger is better"): in every lane of warp 0, the run of
 * tiles 0 .. tile-1. Within a window, the tiles after the nearest P all published A's, and no A
 * holds a start (a tile that holds one publishes its P at once), so the window's run is the P's
 * (or none) followed by theirs: the largest key from the P on, of equal keys the earliest tile,
 * with the P's start. One reduction of keys and a ballot find it; the runs themselves are never
 * shuffled, which keeps the look-back within the tile kernel's register budget (a warp scan of
 * 24-byte runs spilled at 5 blocks per SM). Exact, so the same on every run.
 */
template <typename Key>
__device__ __forceinline__ ArgRun<Key, long long> lookback_runs(const WideTileStatus<ArgRun<Key, long long>>& status,
                                                                long long tile) {
    using Total = ArgRun<Key, long long>;
    using Bits = typename arg_scan_detail::UnsignedOf<sizeof(Key)>::type;  // keys with the sign bit flipped: order kept
    constexpr Bits SIGN = Bits(1) << (8 * sizeof(Key) - 1);
    const int lane = (int)lane_id();
    Total prefix{};
    for (long long window_end = tile - 1;; window_end -= 32) {
        Total value;
        const unsigned state = scan_detail::poll_window(status, window_end - 31 + lane, value);
        const unsigned prefixes = __ballot_sync(0xffffffffu, state == TILE_PREFIX);
        const int from = prefixes ? 31 - __clz(prefixes) : 0;  // the nearest P, or the whole window
        const bool counts = lane >= from;
        const Bits key = counts ? (Bits)value.key ^ SIGN : Bits(0);
        const Bits best = arg_scan_detail::warp_max(key);
        const int winner = __ffs(__ballot_sync(0xffffffffu, counts && key == best)) - 1;
        const Total window{warp_shfl(value.key, winner), warp_shfl(value.pos, winner),
                           prefixes ? warp_shfl(value.head, from) : -1};
        prefix = window_end == tile - 1 ? window : TileRunThen<Key>{}(window, prefix);  // this window lies before
        if (prefixes) return prefix;
    }
}

/**
 * The whole scan in one pass (see SINGLE PASS in arg_scan_kernels.cuh): each block draws a tile
 * number, stages and scans its tile, warp 0 publishes the tile's run and looks back for the runs
 * before it, and the block writes the tile's outputs from that carry. Launch: tiles blocks of
 * BLOCK_THREADS; scratch as the device scan's (ScanPolicy: a counter, zero, then a 128-byte status
 * slot per tile), epoch new on this scratch.
 */
template <typename T, bool MAX, typename Heads>
__device__ __forceinline__ void arg_scan_single_pass(const T* in, long long n, long long tiles, Heads heads, long long* out,
                                                     bool inclusive, unsigned char* scratch, unsigned epoch) {
    using Tile = ArgScanTile<T, MAX, Heads>;
    using O = typename Tile::O;
    using Key = typename Tile::Key;
    using Total = ArgRun<Key, long long>;  // keys "larger is better": one look-back for argmin and argmax
    __shared__ typename Tile::Storage s;
    __shared__ unsigned tile_number;
    __shared__ Total prefix;
    arg_scan_detail::check_tiles(in, n, tiles);
    const WideTileStatus<Total> status{reinterpret_cast<TileStatusSlot*>(scratch + ScanPolicyConstants::SCRATCH_HEADER_BYTES),
                                       epoch};
    if (threadIdx.x == 0) {
        // Tiles start in the order they are numbered, so a tile only waits on tiles already running.
        unsigned* counter = reinterpret_cast<unsigned*>(scratch);
        const unsigned drawn = atomicAdd(counter, 1u);
        if (drawn == gridDim.x - 1) atomicExch(counter, 0u);  // the last ticket: every block has drawn
        tile_number = drawn;
        scan_detail::prefetch_tile_l2<ArgScanShape<T>::TILE_ITEMS>(in, (long long)drawn + ArgScanPolicy::PREFETCH_TILES_AHEAD,
                                                                   tiles, n, scan_shift(in));
    }
    __syncthreads();
    Tile t(in, n, heads, tile_number);
    const bool interior = t.interior();  // INTERIOR TILES
    t.load(s, interior);
    // Each thread's inclusive run waits out the look-back in shared memory, not in registers.
    __shared__ typename Tile::Run runs[ArgScanPolicy::BLOCK_THREADS];
    runs[threadIdx.x] = t.warp_scan(interior ? t.template thread_run<false>(s) : t.template thread_run<true>(s), s);
    if (threadIdx.x < 32) {
        // Warp 0: the tile's run is its P at once when the tile holds a start (tile 0 always does),
        // as nothing before a start matters after it; else A, the look-back, then P.
        const bool first = threadIdx.x == 0;
        bool starts = false;
        if (first) {
            const Total total = t.tile_total(s);
            starts = total.head >= 0;
            status.publish(t.tile(), starts ? TILE_PREFIX : TILE_AGGREGATE, total);
        }
        starts = __shfl_sync(0xffffffffu, starts, 0);
        const long long tile = t.tile();
        const Total before = tile > 0 ? lookback_runs(status, tile) : TileRunThen<Key>::identity();
        if (first) {
            if (!starts) status.publish(tile, TILE_PREFIX, TileRunThen<Key>{}(before, t.tile_total(s)));
            prefix = before;
        }
    }
    __syncthreads();
    // Tile 0's first real element starts a segment. Its carry holds no element: position -1, which
    // its first element's run always moves (QUIET WARPS compares positions).
    const typename Tile::Carry carry =
        t.tile() > 0 ? typename Tile::Carry{O::larger_is_better(prefix.key), prefix.pos, prefix.head}
                 : typename Tile::Carry{O::WORST, -1, -1};
    t.outputs(s, carry, runs[threadIdx.x], out, inclusive, t.interior());
}

}  // namespace primer
