// int32 -> int64 scan lab: what the traffic itself costs (a conversion kernel reading 4 and writing 8
// bytes per element, with three store patterns) beside device_scan at its production shape.
// Build it against two header trees to compare a kernel change (README.md here):
//   nvcc -std=c++17 -O3 -arch=sm_90 -I <tree>/primer-core/src/main/cuda -o .lab/X bench/lab/scan_wide_lab.cu
// Design measurements; a standalone harness, not built by Maven.
#include "device/scan_kernels.cuh"
#include "lab_common.cuh"
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>
#include <random>
#include <cmath>
#include <type_traits>

/** This lab's timing: 5 warm-up runs, median of 20. */
template <typename F>
static double time_ms(F launch) { return time_ms(launch, 5, 20); }

using namespace primer;

template <int BT, int ROWS, int MINB, typename InT, typename OutT, typename Op>
__global__ void __launch_bounds__(BT, MINB) k_scan(const InT* in, OutT* out, long long n, long long tiles, long long init_bits,
                                                    int inclusive, unsigned char* scratch, unsigned epoch) {
    device_scan<BT, ROWS, InT, OutT, Op>(in, out, n, tiles, init_bits, inclusive, scratch, epoch, NoHeads{});
}

// Conversion int32 -> int64 in the scan's arrangement: 256 threads x 8 rows of 16-byte loads per
// block, one tile per block; n a multiple of the tile.
//   PATTERN 0 "half sectors": each lane stores its 32 bytes as two 16-byte stores (stride 32 B).
//   PATTERN 1 "pairs": lanes 2m, 2m+1 trade halves; each store instruction fills whole sectors.
//   PATTERN 2 "contiguous": shuffles so that each store instruction covers 512 contiguous bytes.
template <int PATTERN>
__global__ void __launch_bounds__(256) k_convert(const int4* in, longlong2* out) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const long long tile_vec = (long long)blockIdx.x * 256 * 8 + warp * 32 * 8;  // in 16-byte input vectors
    int4 x[8];
#pragma unroll
    for (int r = 0; r < 8; ++r) x[r] = __ldcs(in + tile_vec + r * 32 + lane);
#pragma unroll
    for (int r = 0; r < 8; ++r) {
        longlong2 lo = make_longlong2(x[r].x, x[r].y), hi = make_longlong2(x[r].z, x[r].w);
        longlong2* row = out + 2 * (tile_vec + r * 32);  // 64 longlong2 per row
        if (PATTERN == 0) {
            __stcs(row + 2 * lane, lo);
            __stcs(row + 2 * lane + 1, hi);
        } else if (PATTERN == 1) {
            const bool odd = lane & 1;
            longlong2 send = odd ? lo : hi, got;
            got.x = __shfl_xor_sync(~0u, send.x, 1); got.y = __shfl_xor_sync(~0u, send.y, 1);
            __stcs(row + 2 * lane + (odd ? -1 : 0), odd ? got : lo);
            __stcs(row + 2 * lane + (odd ? 1 : 2), odd ? hi : got);
        } else {
#pragma unroll
            for (int q = 0; q < 2; ++q) {
                const int src = 16 * q + (lane >> 1);
                longlong2 a, b;
                a.x = __shfl_sync(~0u, lo.x, src); a.y = __shfl_sync(~0u, lo.y, src);
                b.x = __shfl_sync(~0u, hi.x, src); b.y = __shfl_sync(~0u, hi.y, src);
                __stcs(row + 32 * q + lane, (lane & 1) ? b : a);
            }
        }
    }
}

__global__ void __launch_bounds__(256) k_copy_rows(const int4* in, int4* out) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const long long tile_vec = (long long)blockIdx.x * 256 * 8 + warp * 32 * 8;
    int4 x[8];
#pragma unroll
    for (int r = 0; r < 8; ++r) x[r] = __ldcs(in + tile_vec + r * 32 + lane);
#pragma unroll
    for (int r = 0; r < 8; ++r) __stcs(out + tile_vec + r * 32 + lane, x[r]);
}

static unsigned char* scratch;
static unsigned epoch_counter = 0;


template <int BT, int ROWS, int MINB>
static void scan_i32_i64(int pass, const char* name, const int* iin, long long* lout, long long n, const std::vector<int>& hi,
                         std::vector<long long>& h, double copy_gbs) {
    auto k = k_scan<BT, ROWS, MINB, int, long long, Sum<long long>>;
    int occ; CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k, BT, 0));
    cudaFuncAttributes fa; CK(cudaFuncGetAttributes(&fa, k));
    const long long tile = BT * ROWS * 4, tiles = (n + tile - 1) / tile;
    CK(cudaMemset(lout, 0xff, n * 8));
    const double ms = time_ms([&]() { k<<<tiles, BT>>>(iin, lout, n, tiles, 0LL, 1, scratch, ++epoch_counter); });
    CK(cudaMemcpy(h.data(), lout, n * 8, cudaMemcpyDeviceToHost));
    long long bad = 0, acc = 0; for (long long i = 0; i < n; ++i) { acc += hi[i]; bad += h[i] != acc; }
    printf("pass %d  scan i32->i64 %-16s occ%d regs%3d local%3d  %.4f ms %7.1f GB/s %5.1f%% of memcpy  %s\n", pass, name, occ, fa.numRegs,
           (int)fa.localSizeBytes, ms, 12.0 * n / ms / 1e6, 100.0 * 12.0 * n / ms / 1e6 / copy_gbs, bad ? "WRONG" : "ok");
    fflush(stdout);
}

/** T -> T sums (timing; outputs checked at 1000 spread positions against a host prefix). */
template <typename T, int BT, int ROWS, int MINB>
static void scan_same(int pass, const char* name, T* in, T* out, long long n, double copy_gbs) {
    auto k = k_scan<BT, ROWS, MINB, T, T, Sum<T>>;
    int occ; CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k, BT, 0));
    cudaFuncAttributes fa; CK(cudaFuncGetAttributes(&fa, k));
    std::vector<T> hin(n);
    std::mt19937_64 rng(3);
    for (auto& v : hin) v = std::is_integral<T>::value ? (T)(long long)(rng() % 2000001) - (T)1000000 : (T)((double)(rng() >> 11) / 9007199254740992.0 * 2 - 1);
    CK(cudaMemcpy(in, hin.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    const long long tile = BT * ROWS * (16 / (long long)sizeof(T)), tiles = (n + tile - 1) / tile;
    CK(cudaMemset(out, 0xff, n * sizeof(T)));
    const double ms = time_ms([&]() { k<<<tiles, BT>>>(in, out, n, tiles, 0LL, 1, scratch, ++epoch_counter); });
    std::vector<T> h(n); CK(cudaMemcpy(h.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost));
    long long bad = 0; double acc = 0, absacc = 0; long long next = 0;
    for (long long i = 0; i < n; ++i) {
        acc += (double)hin[i]; absacc += std::fabs((double)hin[i]);
        if (i == next || i == n - 1) { next += n / 1000 + 7; if (std::fabs((double)h[i] - acc) > 1e-5 * std::max(1.0, absacc)) bad++; }
    }
    const double bytes = 2.0 * sizeof(T) * n;
    printf("pass %d  scan %-24s occ%d regs%3d local%3d  %.4f ms %7.1f GB/s %5.1f%% of memcpy  %s\n", pass, name, occ, fa.numRegs,
           (int)fa.localSizeBytes, ms, bytes / ms / 1e6, 100.0 * bytes / ms / 1e6 / copy_gbs, bad ? "WRONG" : "ok");
    fflush(stdout);
}

int main() {
    const long long n = 1LL << 28;
    const long long tiles = n / 8192;
    CK(cudaMalloc(&scratch, 16 + 128 * (n / 1024 + 16)));  // enough for 1024-element tiles
    CK(cudaMemset(scratch, 0, 16 + 128 * (n / 1024 + 16)));
    std::mt19937_64 rng(7);
    std::vector<int> hi(n); std::uniform_int_distribution<int> ui(-1000000000, 1000000000); for (auto& v : hi) v = ui(rng);
    int* iin; long long* lout; int* iout;
    CK(cudaMalloc(&iin, n * 4)); CK(cudaMalloc(&lout, n * 8)); CK(cudaMalloc(&iout, n * 4));
    void *sa, *sb; CK(cudaMalloc(&sa, n * 4)); CK(cudaMalloc(&sb, n * 4));  // 1 GiB each, for the T -> T scans
    CK(cudaMemcpy(iin, hi.data(), n * 4, cudaMemcpyHostToDevice));
    std::vector<long long> h(n);

    for (int pass = 0; pass < 2; ++pass) {
        const double copy_ms = time_ms([&]() { CK(cudaMemcpyAsync(iout, iin, n * 4, cudaMemcpyDeviceToDevice)); });
        const double copy_gbs = 8.0 * n / copy_ms / 1e6;
        printf("pass %d  memcpy d2d 2^28 x 4 B: %.4f ms %.1f GB/s (read+write)\n", pass, copy_ms, copy_gbs);
        const double rows_ms = time_ms([&]() { k_copy_rows<<<tiles, 256>>>((const int4*)iin, (int4*)iout); });
        printf("pass %d  copy kernel, scan rows: %.4f ms %.1f GB/s\n", pass, rows_ms, 8.0 * n / rows_ms / 1e6);
        auto convert = [&](const char* name, auto kernel) {
            CK(cudaMemset(lout, 0xff, n * 8));
            const double ms = time_ms([&]() { kernel<<<tiles, 256>>>((const int4*)iin, (longlong2*)lout); });
            CK(cudaMemcpy(h.data(), lout, n * 8, cudaMemcpyDeviceToHost));
            long long bad = 0; for (long long i = 0; i < n; ++i) bad += h[i] != hi[i];
            printf("pass %d  convert i32->i64 %-12s %.4f ms %7.1f GB/s %5.1f%% of memcpy  %s\n", pass, name, ms, 12.0 * n / ms / 1e6,
                   100.0 * 12.0 * n / ms / 1e6 / copy_gbs, bad ? "WRONG" : "ok");
            fflush(stdout);
        };
        convert("half-sector", k_convert<0>);
        convert("pairs", k_convert<1>);
        convert("contiguous", k_convert<2>);

        scan_i32_i64<256, 8, 4>(pass, "256x8 4/SM", iin, lout, n, hi, h, copy_gbs);
        scan_i32_i64<256, 8, 5>(pass, "256x8 5/SM", iin, lout, n, hi, h, copy_gbs);
        scan_same<float, 256, 8, 6>(pass, "f32 256x8 6/SM", (float*)sa, (float*)sb, n, copy_gbs);
        scan_same<long long, 128, 16, 4>(pass, "i64 128x16 4/SM", (long long*)sa, (long long*)sb, n / 2, copy_gbs);
        scan_same<long long, 128, 16, 6>(pass, "i64 128x16 6/SM", (long long*)sa, (long long*)sb, n / 2, copy_gbs);
        scan_same<long long, 256, 8, 5>(pass, "i64 256x8 5/SM", (long long*)sa, (long long*)sb, n / 2, copy_gbs);
        scan_same<double, 128, 16, 6>(pass, "f64 128x16 6/SM", (double*)sa, (double*)sb, n / 2, copy_gbs);
        scan_same<double, 256, 8, 5>(pass, "f64 256x8 5/SM", (double*)sa, (double*)sb, n / 2, copy_gbs);
    }
    return 0;
}
