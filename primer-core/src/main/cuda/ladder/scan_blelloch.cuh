// Scan ladder, step 2 (block level): Blelloch's work-efficient scan (up-sweep, down-sweep).
//
// 1024 threads, two elements each: a 2048-element tile per block; each block scans its own tile.
// Up-sweep: a reduction tree built in place (after it, slot 2^k·(j+1)-1 holds the sum of its
// 2^k-element subtree). Down-sweep: clear the root, then walk back down; each node passes its
// prefix to its left child and prefix + left-subtree sum to its right child. That yields the
// exclusive scan; adding each thread's own inputs back gives the inclusive one.
// What it fixes: Hillis-Steele's O(n log n) work. This does about 2n additions, O(n).
// What it costs: twice the span (2·log2(2048) = 22 steps, each with a barrier), most threads idle
// near the root, and, with the naive indexing below, bank conflicts: at stride s consecutive
// threads touch words 2s apart, a 2s-way conflict (2, 4, 8, 16, then 32-way for the levels with 64
// and 32 active threads, then as many ways as active lanes). Step 3 fixes that.
//
// The index mapping is a parameter so that step 3 reuses this code and changes only the mapping.
#pragma once
#include "ops.cuh"

namespace primer {
namespace ladder {

constexpr int BLELLOCH_THREADS = 1024;
constexpr int BLELLOCH_TILE = 2 * BLELLOCH_THREADS;

/** Naive shared-memory layout: slot i lives at index i. */
struct BlellochNaiveLayout {
    static constexpr int SLOTS = BLELLOCH_TILE;
    static __device__ __forceinline__ int at(int i) { return i; }
};

template <typename T, typename Layout>
__device__ __forceinline__ void scan_blelloch_tile(const T* in, T* out, long long n) {
    const Sum<T> op;
    __shared__ T tree[Layout::SLOTS];
    const int t = threadIdx.x;
    const long long base = (long long)blockIdx.x * BLELLOCH_TILE;

    // Thread t loads slots t and t + 1024: consecutive lanes read consecutive addresses (coalesced).
    const int a_slot = t, b_slot = t + BLELLOCH_THREADS;
    const T a = base + a_slot < n ? in[base + a_slot] : Sum<T>::identity();
    const T b = base + b_slot < n ? in[base + b_slot] : Sum<T>::identity();
    tree[Layout::at(a_slot)] = a;
    tree[Layout::at(b_slot)] = b;

    int stride = 1;
    for (int active = BLELLOCH_TILE / 2; active > 0; active >>= 1) {  // up-sweep
        __syncthreads();
        if (t < active) {
            const int left = stride * (2 * t + 1) - 1, right = stride * (2 * t + 2) - 1;
            tree[Layout::at(right)] = op(tree[Layout::at(left)], tree[Layout::at(right)]);
        }
        stride <<= 1;
    }
    if (t == 0) tree[Layout::at(BLELLOCH_TILE - 1)] = Sum<T>::identity();  // the root's prefix
    for (int active = 1; active < BLELLOCH_TILE; active <<= 1) {  // down-sweep
        stride >>= 1;
        __syncthreads();
        if (t < active) {
            const int left = stride * (2 * t + 1) - 1, right = stride * (2 * t + 2) - 1;
            const T left_sum = tree[Layout::at(left)];
            const T prefix = tree[Layout::at(right)];
            tree[Layout::at(left)] = prefix;
            tree[Layout::at(right)] = op(prefix, left_sum);
        }
    }
    __syncthreads();
    // Exclusive -> inclusive: add the thread's own inputs, kept in registers since the load.
    if (base + a_slot < n) out[base + a_slot] = op(tree[Layout::at(a_slot)], a);
    if (base + b_slot < n) out[base + b_slot] = op(tree[Layout::at(b_slot)], b);
}

}  // namespace ladder
}  // namespace primer
