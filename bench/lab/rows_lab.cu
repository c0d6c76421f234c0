// Rows-reduce lab: 2048 x 262144 float32 row sums, rows_chunk shapes and chunk counts (design
// measurements; a standalone harness, not built by Maven; see README.md here).
#include "device/segmented_reduce_kernels.cuh"
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <random>
#include <cmath>
#include "lab_common.cuh"
namespace seg = primer::segmented;
using Rc = seg::Recipe<float, double, float, primer::Sum<double>>;

template <int B, int U, int MINB>
__global__ void __launch_bounds__(B, MINB) k_chunk(const float* in, long long rows, long long cols, long long chunks, long long chunk_vecs, float* out, unsigned char* scratch) {
    seg::rows_chunk<Rc, B, U>(in, rows, cols, chunks, chunk_vecs, out, scratch);
}
__global__ void __launch_bounds__(256, 2) k_combine(long long rows, long long chunks, float* out, unsigned char* scratch) {
    seg::rows_combine<Rc, 256>(rows, chunks, out, scratch);
}
/** This lab's timing: 3 warm-up runs, median of 20. */
template <typename F> static double time_ms(F f) { return time_ms(f, 3, 20); }
int sms; float* din; float* dout; unsigned char* scratch; std::vector<double> ref;
const long long R = 2048, C = 262144;
template <int B, int U, int MINB>
void variant(long long chunks, long long grid_cap) {
    auto k = k_chunk<B, U, MINB>;
    int occ; CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k, B, 0));
    long long row_vecs = C / 4;
    long long chunk_vecs = ((row_vecs + chunks - 1) / chunks + B - 1) / B * B;
    long long ch = (row_vecs + chunk_vecs - 1) / chunk_vecs;
    long long grid = R * ch; if (grid_cap > 0) grid = std::min(grid, grid_cap * sms * occ);
    CK(cudaMemset(dout, 0xff, R * 4));
    double ms = time_ms([&]() { k<<<grid, B>>>(din, R, C, ch, chunk_vecs, dout, scratch); if (ch > 1) k_combine<<<(R + 7) / 8, 256>>>(R, ch, dout, scratch); });
    std::vector<float> h(R); CK(cudaMemcpy(h.data(), dout, R * 4, cudaMemcpyDeviceToHost));
    double worst = 0; for (long long r = 0; r < R; ++r) worst = std::max(worst, std::fabs(h[r] - ref[r]) / std::max(1.0, std::fabs(ref[r])));
    printf("rows_chunk B%4d U%d minB%d occ%d chunks %lld grid %6lld: %.4f ms %7.1f GB/s  err %.1e\n", B, U, MINB, occ, ch, grid, ms, 4.0 * R * C / ms / 1e6, worst);
    fflush(stdout);
}
int main() {
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    std::vector<float> h(R * C); std::mt19937 rng(5); std::uniform_real_distribution<float> u(-1, 1); for (auto& v : h) v = u(rng);
    ref.assign(R, 0); for (long long r = 0; r < R; ++r) for (long long c = 0; c < C; ++c) ref[r] += h[r * C + c];
    CK(cudaMalloc(&din, R * C * 4)); CK(cudaMalloc(&dout, R * 4)); CK(cudaMalloc(&scratch, 256 + 16 * R * 64)); CK(cudaMemset(scratch, 0, 256));
    CK(cudaMemcpy(din, h.data(), R * C * 4, cudaMemcpyHostToDevice));
    float* cp; CK(cudaMalloc(&cp, R * C * 4));
    double cm = time_ms([&]() { CK(cudaMemcpyAsync(cp, din, R * C * 4, cudaMemcpyDeviceToDevice)); });
    printf("memcpy %.4f ms %.1f GB/s\n", cm, 8.0 * R * C / cm / 1e6);
    variant<512, 2, 2>(1, 0);
    variant<256, 4, 4>(1, 0);
    variant<256, 4, 3>(1, 0);
    variant<256, 2, 4>(1, 0);
    variant<256, 2, 8>(1, 0);
    variant<128, 4, 8>(1, 0);
    variant<128, 4, 6>(1, 0);
    variant<256, 3, 4>(1, 0);
    variant<256, 4, 3>(2, 0);
    variant<512, 2, 2>(1, 0);
    variant<256, 4, 3>(1, 0);
    return 0;
}
