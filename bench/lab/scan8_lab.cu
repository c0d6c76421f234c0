// 8-byte scan lab: every int64 and float64 operator of the plain scan at 128 x 16 (the production
// shape before this lab), 256 x 8 and 256 x 6 vectors per tile, at several blocks per SM; 2^27 elements,
// every output checked against a sequential host scan (exact for integers and min/max, relative
// 1e-9 of the running magnitude for float sums and products). Design measurements; a standalone
// harness, not built by Maven (README.md here).
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

template <int BT, int ROWS, int MINB, typename T, typename Op>
__global__ void __launch_bounds__(BT, MINB) k_scan(const T* in, T* out, long long n, long long tiles, long long init_bits,
                                                   int inclusive, unsigned char* scratch, unsigned epoch) {
    device_scan<BT, ROWS, T, T, Op>(in, out, n, tiles, init_bits, inclusive, scratch, epoch, NoHeads{});
}

// Host versions of the operators (no NaN in the inputs, so Java's min/max rules reduce to < and >).
template <typename Op> struct Host;
template <typename T> struct Host<Sum<T>> { static T id() { return 0; } static T op(T a, T b) { return std::is_integral<T>::value ? (T)((unsigned long long)a + (unsigned long long)b) : a + b; } };
template <typename T> struct Host<Prod<T>> { static T id() { return 1; } static T op(T a, T b) { return std::is_integral<T>::value ? (T)((unsigned long long)a * (unsigned long long)b) : a * b; } };
template <typename T> struct Host<Min<T>> { static T id() { return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max(); } static T op(T a, T b) { return b < a ? b : a; } };
template <typename T> struct Host<Max<T>> { static T id() { return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest(); } static T op(T a, T b) { return a < b ? b : a; } };
template <typename T> struct Host<BitAnd<T>> { static T id() { return ~T(0); } static T op(T a, T b) { return a & b; } };
template <typename T> struct Host<BitOr<T>> { static T id() { return 0; } static T op(T a, T b) { return a | b; } };
template <typename T> struct Host<BitXor<T>> { static T id() { return 0; } static T op(T a, T b) { return a ^ b; } };

static unsigned char* scratch;
static unsigned epoch_counter = 0;
static double copy_gbs;


template <typename T, typename Op, int BT, int ROWS, int MINB>
static void variant(const char* name, const T* din, T* dout, long long n, const std::vector<T>& hin, std::vector<T>& h) {
    auto k = k_scan<BT, ROWS, MINB, T, Op>;
    int occ; CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k, BT, 0));
    cudaFuncAttributes fa; CK(cudaFuncGetAttributes(&fa, k));
    const long long tile = (long long)BT * ROWS * 2, tiles = (n + tile - 1) / tile;
    long long init_bits = 0;
    const T init = Host<Op>::id();
    std::memcpy(&init_bits, &init, 8);
    CK(cudaMemset(dout, 0xff, n * sizeof(T)));
    const double ms = time_ms([&]() { k<<<tiles, BT>>>(din, dout, n, tiles, init_bits, 1, scratch, ++epoch_counter); });
    CK(cudaMemcpy(h.data(), dout, n * sizeof(T), cudaMemcpyDeviceToHost));
    long long bad = 0; T acc = init; double mag = 0;
    for (long long i = 0; i < n; ++i) {
        acc = Host<Op>::op(acc, hin[i]);
        if (std::is_integral<T>::value || std::is_same<Op, Min<T>>::value || std::is_same<Op, Max<T>>::value) { bad += h[i] != acc; }
        else { mag = std::max(mag, std::fabs((double)acc)); bad += !(std::fabs((double)h[i] - (double)acc) <= 1e-9 * std::max(mag, 1.0) + 1e-300); }
    }
    const double bytes = 2.0 * sizeof(T) * n;
    printf("%-10s %4dx%-2d minB%d occ%d regs%4d local%4d  %.4f ms %7.1f GB/s %5.1f%% of memcpy  %s\n", name, BT, ROWS, MINB, occ, fa.numRegs,
           (int)fa.localSizeBytes, ms, bytes / ms / 1e6, 100.0 * bytes / ms / 1e6 / copy_gbs, bad ? "WRONG" : "ok");
    fflush(stdout);
}

// The production shape of the day (128 x 16 at production's blocks per SM), then 256 x 8 at 4 and 5
// blocks per SM, 256 x 6 at 5 and 6.
template <typename T, typename Op, int PROD_MINB>
static void op_family(const char* name, const T* din, T* dout, long long n, const std::vector<T>& hin, std::vector<T>& h) {
    variant<T, Op, 128, 16, PROD_MINB>(name, din, dout, n, hin, h);
    variant<T, Op, 256, 8, 4>(name, din, dout, n, hin, h);
    variant<T, Op, 256, 8, 5>(name, din, dout, n, hin, h);
    variant<T, Op, 256, 6, 5>(name, din, dout, n, hin, h);
    variant<T, Op, 256, 6, 6>(name, din, dout, n, hin, h);
}

int main() {
    const long long n = (1LL << 27) - 3;  // the last tile partial
    CK(cudaMalloc(&scratch, 16 + 128 * (n / 2048 + 16)));
    CK(cudaMemset(scratch, 0, 16 + 128 * (n / 2048 + 16)));
    std::mt19937_64 rng(9);
    std::vector<long long> hl(n); for (auto& v : hl) v = (long long)(rng() % 2000001) - 1000000;
    std::vector<double> hd(n); for (auto& v : hd) v = (double)(rng() >> 11) / 9007199254740992.0 * 2 - 1;
    void *din, *dout; CK(cudaMalloc(&din, n * 8)); CK(cudaMalloc(&dout, n * 8));
    const double cm = time_ms([&]() { CK(cudaMemcpyAsync(dout, din, n * 8, cudaMemcpyDeviceToDevice)); });
    copy_gbs = 16.0 * n / cm / 1e6;
    printf("memcpy d2d 2^27 x 8 B: %.4f ms %.1f GB/s (read+write)\n", cm, copy_gbs);
    std::vector<long long> hlo(n); std::vector<double> hdo(n);
    for (int pass = 0; pass < 2; ++pass) {
        printf("-- pass %d\n", pass);
        CK(cudaMemcpy(din, hl.data(), n * 8, cudaMemcpyHostToDevice));
        using L = long long;
        const L* li = (const L*)din; L* lo = (L*)dout;
        op_family<L, Sum<L>, 4>("i64 sum", li, lo, n, hl, hlo);
        op_family<L, Prod<L>, 4>("i64 prod", li, lo, n, hl, hlo);
        op_family<L, Min<L>, 5>("i64 min", li, lo, n, hl, hlo);
        op_family<L, Max<L>, 5>("i64 max", li, lo, n, hl, hlo);
        op_family<L, BitAnd<L>, 5>("i64 and", li, lo, n, hl, hlo);
        op_family<L, BitOr<L>, 5>("i64 or", li, lo, n, hl, hlo);
        op_family<L, BitXor<L>, 5>("i64 xor", li, lo, n, hl, hlo);
        CK(cudaMemcpy(din, hd.data(), n * 8, cudaMemcpyHostToDevice));
        const double* di = (const double*)din; double* dd = (double*)dout;
        op_family<double, Sum<double>, 6>("f64 sum", di, dd, n, hd, hdo);
        op_family<double, Prod<double>, 6>("f64 prod", di, dd, n, hd, hdo);
        op_family<double, Min<double>, 6>("f64 min", di, dd, n, hd, hdo);
        op_family<double, Max<double>, 6>("f64 max", di, dd, n, hd, hdo);
    }
    return 0;
}
