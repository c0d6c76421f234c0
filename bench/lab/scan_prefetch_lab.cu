// Scan L2 prefetch-ahead lab: does a tile that asks L2 to fetch the input of the tile D tickets
// ahead make the scan's loads (and so its look-back waits) shorter? Build it against the headers of
// commit 10e6691 (before production prefetched) with scan_prefetch_lab.patch applied, whose
// device_scan reads two lab variables (lab_prefetch_ahead, lab_prefetch_mode):
//   mkdir -p .lab/hdr_pf && git archive 10e6691 primer-core/src/main/cuda | tar -x -C .lab/hdr_pf
//   patch -p1 -d .lab/hdr_pf < bench/lab/scan_prefetch_lab.patch
//   nvcc -std=c++17 -O3 -arch=sm_90 -I .lab/hdr_pf/primer-core/src/main/cuda -o .lab/scan_prefetch_lab bench/lab/scan_prefetch_lab.cu
// Modes: 0 none; 1 one bulk prefetch of the whole tile by thread 0 as it draws the ticket;
// 2 one 128-byte line per thread (prefetch.global.L2); 3 one bulk prefetch per warp.
// Every output is checked (int32 -> int64 exactly; floats against a float64 prefix).
// Design measurements; a standalone harness, not built by Maven.
#include "device/scan_kernels.cuh"
#include "lab_common.cuh"
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <random>
#include <cmath>
#include <type_traits>

using namespace primer;

template <int BT, int ROWS, int MINB, typename InT, typename OutT, typename Op>
__global__ void __launch_bounds__(BT, MINB) k_scan(const InT* in, OutT* out, long long n, long long tiles, long long init_bits,
                                                    int inclusive, unsigned char* scratch, unsigned epoch) {
    device_scan<BT, ROWS, InT, OutT, Op>(in, out, n, tiles, init_bits, inclusive, scratch, epoch, NoHeads{});
}

static unsigned char* scratch;
static unsigned epoch_counter = 0;

static void set_prefetch(int mode, int ahead) {
    CK(cudaMemcpyToSymbol(lab_prefetch_mode, &mode, sizeof mode));
    CK(cudaMemcpyToSymbol(lab_prefetch_ahead, &ahead, sizeof ahead));
}

/** Times one scan InT -> OutT (sums), checks every output; returns ms. */
template <typename InT, typename OutT, int MINB>
static double run(const char* name, int mode, int ahead, const InT* in, OutT* out, long long n, const std::vector<InT>& hin,
                  double copy_gbs) {
    auto k = k_scan<256, 8, MINB, InT, OutT, Sum<OutT>>;
    set_prefetch(mode, ahead);
    cudaFuncAttributes fa; CK(cudaFuncGetAttributes(&fa, k));
    const long long tile = 256 * 8 * (16 / (long long)sizeof(InT)), tiles = (n + tile - 1) / tile;
    CK(cudaMemset(out, 0xff, n * sizeof(OutT)));
    const double ms = time_ms([&]() { k<<<tiles, 256>>>(in, out, n, tiles, 0LL, 1, scratch, ++epoch_counter); }, 5, 20);
    std::vector<OutT> h(n); CK(cudaMemcpy(h.data(), out, n * sizeof(OutT), cudaMemcpyDeviceToHost));
    long long bad = 0;
    if constexpr (std::is_integral<OutT>::value) {
        OutT acc = 0; for (long long i = 0; i < n; ++i) { acc += (OutT)hin[i]; bad += h[i] != acc; }
    } else {
        double acc = 0, absacc = 0;
        for (long long i = 0; i < n; ++i) {
            acc += (double)hin[i]; absacc += std::fabs((double)hin[i]);
            bad += !(std::fabs((double)h[i] - acc) <= 1e-5 * std::max(1.0, absacc));
        }
    }
    const double bytes = (double)(sizeof(InT) + sizeof(OutT)) * n;
    printf("%-10s mode %d ahead %5d  regs %3d local %3d  %.4f ms %7.1f GB/s %5.1f%% of memcpy  %s\n", name, mode, ahead, fa.numRegs,
           (int)fa.localSizeBytes, ms, bytes / ms / 1e6, 100.0 * bytes / ms / 1e6 / copy_gbs, bad ? "WRONG" : "ok");
    fflush(stdout);
    return ms;
}

int main(int argc, char** argv) {
    const long long n = (1LL << 28) - 3;  // the last tile partial
    CK(cudaMalloc(&scratch, 16 + 128 * (n / 4096 + 16)));
    CK(cudaMemset(scratch, 0, 16 + 128 * (n / 4096 + 16)));
    const LabInputs inputs(n);
    const long long n8 = inputs.n8;
    const auto &hi = inputs.hi; const auto &hf = inputs.hf; const auto &hl = inputs.hl; const auto &hd = inputs.hd;
    int* iin = inputs.iin; float* fin = inputs.fin; long long* lin = inputs.lin; double* din = inputs.din;
    void* out; CK(cudaMalloc(&out, n * 8));

    const int aheads[] = {32, 128, 256, 512, 1024};
    for (int pass = 0; pass < 2; ++pass) {
        const double copy_ms = time_ms([&]() { CK(cudaMemcpyAsync(out, fin, n * 4, cudaMemcpyDeviceToDevice)); }, 5, 20);
        const double copy_gbs = 8.0 * n / copy_ms / 1e6;
        printf("pass %d  memcpy d2d 2^28 x 4 B: %.4f ms %.1f GB/s (read+write)\n", pass, copy_ms, copy_gbs);
        run<int, long long, 4>("i32->i64", 0, 0, iin, (long long*)out, n, hi, copy_gbs);
        for (int mode = 1; mode <= 3; ++mode)
            for (int a : aheads) run<int, long long, 4>("i32->i64", mode, a, iin, (long long*)out, n, hi, copy_gbs);
        run<float, float, 6>("f32", 0, 0, fin, (float*)out, n, hf, copy_gbs);
        for (int mode = 1; mode <= 3; mode += 2)
            for (int a : aheads) run<float, float, 6>("f32", mode, a, fin, (float*)out, n, hf, copy_gbs);
        run<long long, long long, 4>("i64", 0, 0, lin, (long long*)out, n8, hl, copy_gbs);
        for (int a : aheads) run<long long, long long, 4>("i64", 1, a, lin, (long long*)out, n8, hl, copy_gbs);
        run<double, double, 4>("f64", 0, 0, din, (double*)out, n8, hd, copy_gbs);
        for (int a : aheads) run<double, double, 4>("f64", 1, a, din, (double*)out, n8, hd, copy_gbs);
    }
    return 0;
}
