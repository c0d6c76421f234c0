// What the rows labs share (rows_group_lab.cu, rows_warp_lab.cu): 1 GiB of random float32 or
// float64 on the device, the read ceiling over it, and each shape's host float64 row sums, against
// which every row a variant writes is checked (and its bits against the first variant's).
#pragma once
#include <cmath>
#include "lab_common.cuh"

/** The read ceiling: every 16-byte vector xor-folded, one word per block. */
__global__ void __launch_bounds__(256) k_read(const uint4* in, long long vectors, unsigned* sink) {
    unsigned x = 0;
    for (long long i = (long long)blockIdx.x * 256 + threadIdx.x; i < vectors; i += (long long)gridDim.x * 256) {
        const uint4 v = __ldg(in + i);
        x ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (x == 0x12345678u) sink[blockIdx.x] = x;
}

/** n values of T (float or double) uniform in [-1, 1) (seed 11), on the host and on the device. */
template <typename T>
struct RowsInputOf {
    long long n;
    std::vector<T> host;
    T* device;

    explicit RowsInputOf(long long count) : n(count), host(count) {
        std::mt19937 rng(11);
        std::uniform_real_distribution<T> u(-1, 1);
        for (auto& v : host) v = u(rng);
        CK(cudaMalloc(&device, n * sizeof(T)));
        CK(cudaMemcpy(device, host.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    }

    /** Prints the read ceiling's time over the whole input. */
    void time_read(int sms) const {
        unsigned* sink;
        CK(cudaMalloc(&sink, 1 << 20));
        const long long bytes = n * (long long)sizeof(T);
        const double ms = time_ms([&]() { k_read<<<sms * 8, 256>>>(reinterpret_cast<const uint4*>(device), bytes / 16, sink); }, 3, 20);
        printf("read 1 GiB: %.4f ms %.1f GB/s\n", ms, bytes / ms / 1e6);
        CK(cudaFree(sink));
    }
};
using RowsInput = RowsInputOf<float>;

/**
 * The input as rows x cols, its host float64 row sums, and the first checked variant's outputs.
 * A row passes within 1e-6 (float32) or 1e-12 (float64) of its sum of magnitudes, plus that much.
 */
template <typename T>
struct RowsShapeOf {
    long long rows, cols;
    std::vector<double> ref, mag;
    std::vector<T> first;

    RowsShapeOf(const RowsInputOf<T>& in, long long columns) : rows(in.n / columns), cols(columns), ref(rows), mag(rows) {
        for (long long r = 0; r < rows; ++r)
            for (long long c = 0; c < cols; ++c) {
                ref[r] += in.host[r * cols + c];
                mag[r] += std::fabs(in.host[r * cols + c]);
            }
    }

    /** Checks every row of out against the host sums and the first variant's bits, and prints the row. */
    void check(const T* out, const char* name, int occ, long long grid, double ms) {
        const double tolerance = sizeof(T) == 4 ? 1e-6 : 1e-12;
        std::vector<T> h(rows);
        CK(cudaMemcpy(h.data(), out, rows * sizeof(T), cudaMemcpyDeviceToHost));
        long long bad = 0, differ = 0;
        for (long long r = 0; r < rows; ++r) {
            if (!(std::fabs(h[r] - ref[r]) <= tolerance * (mag[r] + 1))) ++bad;
            if (!first.empty() && std::memcmp(&h[r], &first[r], sizeof(T)) != 0) ++differ;
        }
        if (first.empty()) first = h;
        printf("%lldx%-5lld %-22s occ %d grid %7lld: %.4f ms %7.1f GB/s  %s, %lld rows differ from production's bits\n", rows,
               cols, name, occ, grid, ms, (double)sizeof(T) * rows * cols / ms / 1e6, bad ? "BAD" : "ok", differ);
        if (bad) printf("  %lld rows outside the bound\n", bad);
        fflush(stdout);
    }
};
using RowsShape = RowsShapeOf<float>;
