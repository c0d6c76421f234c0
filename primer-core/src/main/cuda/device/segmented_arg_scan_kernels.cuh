// Segmented running argmin and argmax: out[i] = the index, counted from the first element s of i's
// segment, of the first minimum (maximum) of in[s .. i] (inclusive), or of in[s .. i-1] (exclusive;
// -1 at s). Keys and tiles are the plain scan's (arg_scan_kernels.cuh): Java's order, NaN one key.
//
// RUNS. A run is what a range of elements leaves behind for the elements after it: the most
// extreme key since its last segment start, that key's first position, and the position of that
// start (-1: the range holds none). Runs combine in order, a then b:
//     b holds a start:             b
//     b's key beats a's strictly:  b's key and position, a's start
//     otherwise:                   a                       (of equal keys the earlier one stays)
// which is associative. Element 0 always starts a segment, so every real element's run holds a
// start, and no identity is ever combined to the left of a real element's key. A range's run has a
// closed form: its last start, the most extreme key from there on, that key's first position
// there; warps and tiles find theirs so, by three one-word reductions.
//
// RECORDS, as in the plain scan: out[i] = (the last record at or before i) - (the last start at or
// before i), where a record is a start or an item strictly more extreme than every item since its
// start. Per row of a warp, a segmented warp scan of the chunks' extremes (one key a lane, reset at
// a lane holding a start) gives each chunk the extreme before it; a warp maximum scan of the
// chunks' last records, and a ballot of the chunks holding starts, give each chunk the last record
// and the last start before it. Combining whole runs at every chunk, three words a lane per step
// of the warp scan, ran at 27-39% of the copy (bench/results 2026-11-23-nvidia-h200.md).
//
// The same three launches as the plain scan: tile totals (a run per tile, positions in the array,
// keys kept as "larger is better"), tile prefixes (arg_scan_tile_prefixes over runs), outputs. Within
// a tile positions are ints counted from the tile's first position; each warp takes its rows in
// order. Segment starts come from head flags or offsets (scan/segment_heads.cuh,
// scan/offset_heads.cuh); by offsets the kernels scan in[offsets[0] .. offsets[last]) as an array of
// its own.
#pragma once
#include "arg_scan_kernels.cuh"
#include "scan/offset_heads.cuh"
#include "scan/segment_heads.cuh"

namespace primer {

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

/** The order of tile totals and prefixes, whose keys are "larger is better" (ArgScanOrder::larger_is_better). */
template <typename Key> struct LargerKeyWins {
    static __device__ __forceinline__ bool beats(Key a, Key b) { return a > b; }
};

/** Tile prefixes' operator: identity() is the least key with no start, only ever combined on the left. */
template <typename Key> struct TileRunThen : RunThen<LargerKeyWins<Key>, ArgRun<Key, long long>> {
    static __device__ __forceinline__ ArgRun<Key, long long> identity() {
        return {Key(Key(1) << (8 * sizeof(Key) - 1)), 0, -1};
    }
};

/** The work of one tile, shared by the totals and the outputs kernels. */
template <typename T, bool MAX, typename Heads>
struct SegmentedArgTile {
    using S = ArgScanShape<T>;
    using O = ArgScanOrder<T, MAX>;
    using Key = typename O::Key;
    using Run = ArgRun<Key, int>;
    using Carry = ArgRun<Key, long long>;
    static constexpr int ROWS = ArgScanPolicy::ROWS, VEC = S::VEC, WARPS = ArgScanPolicy::BLOCK_THREADS / 32;

    static constexpr int RAW_ROWS = Heads::BITS_IN_SHARED ? 1 : ROWS;
    struct Storage {
        alignas(16) T stage[S::TILE_ITEMS];
        typename Heads::Storage heads;
        // The chunks' raw heads as loaded (FlagHeads) beside the data: in registers they would be
        // indexed by the row loops' counter, i.e. in local memory.
        unsigned raw[RAW_ROWS][ArgScanPolicy::BLOCK_THREADS];
        Run warp_total[WARPS];
    };

    const T* in;
    long long n;
    Heads heads;
    long long tile, start;  // start: element index of the tile's position 0
    int offset;             // tile position of this thread's row-0 chunk

    __device__ __forceinline__ SegmentedArgTile(const T* in_, long long n_, Heads heads_, long long tile_)
        : in(in_), n(n_), heads(heads_), tile(tile_), start(arg_scan_detail::tile_start(in_, tile_)),
          offset(arg_scan_detail::thread_offset<T>()) {}

    __device__ __forceinline__ long long index_of_row(int r) const { return start + offset + r * S::ROW_ITEMS; }

    /** Stages the tile and loads or prepares its heads; every thread (prepare may hold barriers). */
    __device__ __forceinline__ void load(Storage& s) {
#pragma unroll
        for (int r = 0; r < ROWS; ++r) scan_detail::stage_chunk<VEC>(in, index_of_row(r), n, s.stage + offset + r * S::ROW_ITEMS);
        if constexpr (!Heads::BITS_IN_SHARED) {
#pragma unroll
            for (int r = 0; r < ROWS; ++r) s.raw[r][threadIdx.x] = heads.template load<VEC>(index_of_row(r), n);
        }
        heads.prepare(tile, start, s.heads);
        scan_detail::wait_staged();  // each thread reads back only what it staged
    }

    /** Row r's keys: WORST outside [0, n). */
    __device__ __forceinline__ void row_keys(int r, const Storage& s, Key (&key)[VEC]) const {
        T x[VEC];
        scan_detail::read_chunk<VEC>(s.stage + offset + r * S::ROW_ITEMS, x);
        arg_scan_detail::chunk_keys<O>(x, index_of_row(r), n, key);
    }

    /** Row r's head bits: element 0 always starts a segment. */
    __device__ __forceinline__ unsigned row_bits(int r, const Storage& s) const {
        const long long index = index_of_row(r);
        const unsigned raw = Heads::BITS_IN_SHARED ? 0u : s.raw[Heads::BITS_IN_SHARED ? 0 : r][threadIdx.x];
        unsigned bits = heads.template bits<VEC>(raw, offset + r * S::ROW_ITEMS, s.heads);
        if (index <= 0 && index + VEC > 0) bits |= 1u << (int)(-index);
        return bits;
    }

    /** carry (in the array) then a run of this tile. */
    __device__ __forceinline__ Carry then(Carry carry, Run run) const {
        if (run.head >= 0) return {run.key, start + run.pos, start + run.head};
        return O::beats(run.key, carry.key) ? Carry{run.key, start + run.pos, carry.head} : carry;
    }

    /**
     * Each warp's run over its rows, into s.warp_total, in closed form: its last start (a warp
     * maximum of positions), the most extreme key from there on (a warp extreme of keys), and that
     * key's first position there (a warp minimum, looked for only by the lanes that hold the key).
     * Ends with a barrier.
     */
    __device__ __forceinline__ void warp_totals(Storage& s) const {
        const typename O::Extreme extreme{};
        int last_start = -1;
#pragma unroll 1
        for (int r = 0; r < ROWS; ++r) {
            const unsigned bits = row_bits(r, s);
            if (bits != 0u) last_start = offset + r * S::ROW_ITEMS + 31 - __clz(bits);
        }
        last_start = warp_reduce(last_start, MaxOfNumbers<int>{});
        Key mine = O::WORST;
#pragma unroll 1
        for (int r = 0; r < ROWS; ++r) {
            const int position = offset + r * S::ROW_ITEMS;
            if (position + VEC <= last_start) continue;  // before the warp's last start
            Key key[VEC];
            row_keys(r, s, key);
#pragma unroll
            for (int k = 0; k < VEC; ++k) {
                if (position + k >= last_start) mine = extreme(mine, key[k]);
            }
        }
        const Key best = warp_reduce(mine, extreme);
        int first = 0x7fffffff;
        if (mine == best) {
#pragma unroll 1
            for (int r = ROWS - 1; r >= 0; --r) {
                const int position = offset + r * S::ROW_ITEMS;
                if (position + VEC <= last_start) break;
                Key key[VEC];
                row_keys(r, s, key);
#pragma unroll
                for (int k = VEC - 1; k >= 0; --k) {
                    if (key[k] == best && position + k >= last_start) first = position + k;
                }
            }
        }
        first = warp_reduce(first, MinOfNumbers<int>{});
        if (lane_id() == 0) s.warp_total[threadIdx.x / 32] = Run{best, first, last_start};
        __syncthreads();
    }

    /** The tile's run, in the array, with its key "larger is better" (after warp_totals). */
    __device__ __forceinline__ Carry tile_total(const Storage& s) const {
        const RunThen<O, Run> op{};
        Run total = s.warp_total[0];
#pragma unroll
        for (int w = 1; w < WARPS; ++w) total = op(total, s.warp_total[w]);
        return {O::larger_is_better(total.key), start + total.pos, total.head >= 0 ? start + total.head : -1};
    }

    /** Writes out[] of the tile from the carry into it, by records (see the top of this file; after warp_totals). */
    __device__ __forceinline__ void outputs(const Storage& s, Carry carry, long long* out, bool inclusive) const {
        using Store = scan_detail::RowStore<VEC, long long>;
        const typename O::Extreme extreme{};
        const int lane = (int)lane_id(), warp = (int)(threadIdx.x / 32);
        const unsigned lanes_before = (1u << lane) - 1u;
        for (int w = 0; w < warp; ++w) carry = then(carry, s.warp_total[w]);
#pragma unroll 1
        for (int r = 0; r < ROWS; ++r) {
            Key key[VEC];
            row_keys(r, s, key);
            const unsigned bits = row_bits(r, s);
            const long long index = index_of_row(r), row_index = index - lane * VEC;
            // The chunk's tail: its items from its last start on (all of them without one).
            const int tail_first = bits != 0u ? 31 - __clz(bits) : 0;
            Key tail = O::WORST;
#pragma unroll
            for (int k = 0; k < VEC; ++k) {
                if (k >= tail_first) tail = extreme(tail, key[k]);
            }
            // upto: the extreme of the tails from the last lane at or before this one holding a
            // start (from the carry if none): a warp scan that skips lanes before that one.
            const unsigned starts = __ballot_sync(0xffffffffu, bits != 0u);
            const int scan_from = max(31 - __clz(starts & (lanes_before | (1u << lane))), 0);
            Key upto = lane == 0 && bits == 0u ? extreme(carry.key, tail) : tail;
#pragma unroll
            for (int delta = 1; delta < 32; delta <<= 1) {
                const Key left = __shfl_up_sync(0xffffffffu, upto, delta);
                if (lane - delta >= scan_from) upto = extreme(upto, left);
            }
            const Key left_upto = __shfl_up_sync(0xffffffffu, upto, 1);
            const Key before = lane == 0 ? carry.key : left_upto;  // the extreme since the start before the chunk
            // The chunk's last record, in the row (-1: none): a start is one, so with a start it is
            // the first position of the tail's extreme there (or the start, past n); without one,
            // that of the chunk's extreme if it beats everything before.
            int record = -1;
            if (bits != 0u || O::beats(tail, before)) {
                record = tail_first;
#pragma unroll
                for (int k = VEC - 1; k >= 0; --k) {
                    if (k >= tail_first && key[k] == tail && index + k < n) record = k;
                }
                record += lane * VEC;
            }
            const int record_upto = arg_scan_detail::warp_inclusive_extreme(record, MaxOfNumbers<int>{});
            const int left_record = __shfl_up_sync(0xffffffffu, record_upto, 1);  // every lane shuffles
            const int record_before = lane == 0 ? -1 : left_record;
            const int row_record = __shfl_sync(0xffffffffu, record_upto, 31);
            // The last start before the chunk, and the row's last, from the lanes holding them.
            const int start = bits != 0u ? lane * VEC + tail_first : -1;
            const unsigned starts_before = starts & lanes_before;
            const int start_before = __shfl_sync(0xffffffffu, start, max(31 - __clz(starts_before), 0));
            const int row_start = __shfl_sync(0xffffffffu, start, max(31 - __clz(starts), 0));
            const Key row_best = __shfl_sync(0xffffffffu, upto, 31);
            Key running = before;
            long long current = record_before >= 0 ? row_index + record_before : carry.pos;
            long long head = starts_before != 0u ? row_index + start_before : carry.head;
            if (row_record >= 0) {  // the row holds a record (every start is one): the carry moves to its last
                carry.key = row_best;
                carry.pos = row_index + row_record;
                if (starts != 0u) carry.head = row_index + row_start;
            }
            Store store(out, index, n);
#pragma unroll
            for (int piece = 0; piece < VEC / Store::PIECE; ++piece) {
                long long o[Store::PIECE];
#pragma unroll
                for (int j = 0; j < Store::PIECE; ++j) {
                    const int k = piece * Store::PIECE + j;
                    const bool starts_here = (bits >> k) & 1u;
                    const long long before_item = starts_here ? -1 : current - head;
                    if (starts_here) {
                        running = key[k];
                        current = head = index + k;
                    } else if (O::beats(key[k], running)) {  // never for items outside [0, n): their key is WORST
                        running = key[k];
                        current = index + k;
                    }
                    o[j] = inclusive ? current - head : before_item;
                }
                store.put(piece, o);  // every lane: RowStore shuffles
            }
        }
    }
};

/** Tile totals: totals[tile] = the tile's run (keys "larger is better", positions in the array). */
template <typename T, bool MAX, typename Heads>
__device__ __forceinline__ void segmented_arg_scan_tile_totals(const T* in, long long n, long long tiles, Heads heads,
                                                               ArgRun<ArgScanKeyOf<T>, long long>* totals) {
    using Tile = SegmentedArgTile<T, MAX, Heads>;
    __shared__ typename Tile::Storage s;
    arg_scan_detail::check_tiles(in, n, tiles);
    Tile t(in, n, heads, blockIdx.x);
    t.load(s);
    t.warp_totals(s);
    if (threadIdx.x == 0) totals[blockIdx.x] = t.tile_total(s);
}

/** Outputs, tiles in reverse order as the plain scan's (its L2 reasons hold here too). */
template <typename T, bool MAX, typename Heads>
__device__ __forceinline__ void segmented_arg_scan_outputs(const T* in, long long n, long long tiles, Heads heads,
                                                           const ArgRun<ArgScanKeyOf<T>, long long>* prefixes,
                                                           long long* out, bool inclusive) {
    using Tile = SegmentedArgTile<T, MAX, Heads>;
    using O = typename Tile::O;
    __shared__ typename Tile::Storage s;
    arg_scan_detail::check_tiles(in, n, tiles);
    const long long tile = tiles - 1 - blockIdx.x;
    const long long ahead = tile - ArgScanPolicy::PREFETCH_TILES_AHEAD;
    if (threadIdx.x == 0 && ahead >= 1) {
        scan_detail::prefetch_tile_l2<ArgScanShape<T>::TILE_ITEMS>(in, ahead, tiles, n, scan_shift(in));
    }
    Tile t(in, n, heads, tile);
    // Tile 0 has nothing before it: its first real element starts a segment, which replaces the carry.
    typename Tile::Carry carry{O::WORST, 0, -1};
    if (tile > 0) {
        const auto prefix = prefixes[tile];
        carry = {O::larger_is_better(prefix.key), prefix.pos, prefix.head};  // larger_is_better is its own inverse
    }
    t.load(s);
    t.warp_totals(s);
    t.outputs(s, carry, out, inclusive);
}

}  // namespace primer
