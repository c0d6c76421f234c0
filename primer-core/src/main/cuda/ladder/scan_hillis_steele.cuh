// Scan ladder, step 1 (block level): Hillis & Steele, double-buffered in shared memory.
//
// One element per thread, a 1024-element tile per 1024-thread block; each block scans its own tile.
// At step d every element adds the one d places to its left: log2(1024) = 10 steps, each a full
// pass over the tile followed by a barrier.
// What it shows: the shortest possible span (10 steps) with the simplest code.
// What it costs: O(n log n) additions (10 per element here, against 1 for a sequential scan), about
// 30 shared-memory accesses per element (two reads and a write a step), and 10 barriers. The second buffer is what makes it correct:
// reading buf[t - d] while thread t - d overwrites it in place would be a race (the lectures'
// single-buffer version relies on a lockstep that no GPU promises).
#pragma once
#include "ops.cuh"

namespace primer {
namespace ladder {

constexpr int HILLIS_STEELE_THREADS = 1024;
constexpr int HILLIS_STEELE_TILE = HILLIS_STEELE_THREADS;  // one element per thread

template <typename T>
__device__ __forceinline__ void scan_hillis_steele_tile(const T* in, T* out, long long n) {
    const Sum<T> op;
    __shared__ T buf[2][HILLIS_STEELE_TILE];
    const int t = threadIdx.x;
    const long long i = (long long)blockIdx.x * HILLIS_STEELE_TILE + t;

    buf[0][t] = i < n ? in[i] : Sum<T>::identity();  // the tail of the last tile scans zeros
    __syncthreads();
    int src = 0;
#pragma unroll
    for (int d = 1; d < HILLIS_STEELE_TILE; d <<= 1) {
        T x = buf[src][t];
        if (t >= d) x = op(buf[src][t - d], x);
        buf[src ^ 1][t] = x;  // write the other buffer: nobody reads it during this step
        src ^= 1;
        __syncthreads();
    }
    if (i < n) out[i] = buf[src][t];
}

}  // namespace ladder
}  // namespace primer
