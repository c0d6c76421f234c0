// Scan lab: "reduce, look back, then scan" against the block scan with the look-back inside it.
// Build it twice, against the headers before the change (commit d8815b9) and after (README.md here):
//   mkdir -p .lab/hdr_old && git archive d8815b9 primer-core/src/main/cuda | tar -x -C .lab/hdr_old
//   nvcc -std=c++17 -O3 -arch=sm_90 -I .lab/hdr_old/primer-core/src/main/cuda -o .lab/rf_old bench/lab/scan_reduce_first_lab.cu
//   nvcc -std=c++17 -O3 -arch=sm_90 -I primer-core/src/main/cuda -o .lab/rf_new bench/lab/scan_reduce_first_lab.cu
// and run them in turn. Each times 256 x 8 tiles at several blocks per SM (the launch bound) for the
// operators and types named in main, 2^28 - 3 elements of 4 bytes or 2^27 - 3 of 8 (the last tile
// partial), and checks every output: integers, min and max exactly, float sums against a float64
// prefix. (The measured "after" sent every commutative operator through REDUCE_FIRST; production
// keeps 4-byte sums, products and bitwise operators on EARLY_AGGREGATE: to time those on
// REDUCE_FIRST again, make TileScanFor in device/scan_kernels.cuh choose it for them.)
// "narrow" as the first argument times the 4-byte operators other than sums instead (and the sums).
// Before that, small and misaligned sizes, inclusive and exclusive with an init, every output exact.
// Design measurements; a standalone harness, not built by Maven.
#include "device/scan_kernels.cuh"
#include "lab_common.cuh"
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <limits>

using namespace primer;

template <int MINB, typename InT, typename OutT, typename Op>
__global__ void __launch_bounds__(256, MINB) k_scan(const InT* in, OutT* out, long long n, long long tiles, long long init_bits,
                                                     int inclusive, unsigned char* scratch, unsigned epoch) {
    device_scan<256, 8, InT, OutT, Op>(in, out, n, tiles, init_bits, inclusive, scratch, epoch, NoHeads{});
}

static unsigned char* scratch;
static unsigned epoch_counter = 0;

/** The host's identity and fold, with the device's integer wrap-around and Java's max for the inputs used (no NaN). */
template <typename Op> struct HostOp;
template <typename T> struct HostOp<Sum<T>> {
    static T identity() { return T(0); }
    static T apply(T a, T b) {
        if constexpr (std::is_integral<T>::value) return (T)((unsigned long long)a + (unsigned long long)b);
        else return a + b;
    }
};
template <typename T> struct HostOp<Prod<T>> {
    static T identity() { return T(1); }
    static T apply(T a, T b) {
        if constexpr (std::is_integral<T>::value) return (T)((unsigned long long)a * (unsigned long long)b);
        else return a * b;
    }
};
template <typename T> struct HostOp<Max<T>> {
    static T identity() { return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest(); }
    static T apply(T a, T b) { return a > b ? a : b; }
};
template <typename T> struct HostOp<Min<T>> {
    static T identity() { return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max(); }
    static T apply(T a, T b) { return a < b ? a : b; }
};
template <typename T> struct HostOp<BitXor<T>> {
    static T identity() { return T(0); }
    static T apply(T a, T b) { return a ^ b; }
};
template <typename T> struct HostOp<BitAnd<T>> {
    static T identity() { return T(~T(0)); }
    static T apply(T a, T b) { return a & b; }
};

template <typename T> static long long bits_of(T v) {
    long long b = 0;
    std::memcpy(&b, &v, sizeof(T));
    return b;
}

/** Runs one scan (n elements from in + offset), compares every output; returns the wrong count. */
template <int MINB, typename InT, typename OutT, typename Op>
static long long scan_and_check(const InT* in, OutT* out, const std::vector<InT>& hin, long long offset, long long n, OutT init,
                                int inclusive, double* ms) {
    auto k = k_scan<MINB, InT, OutT, Op>;
    const long long shift = (long long)((reinterpret_cast<unsigned long long>(in + offset) % 16) / sizeof(InT));
    const long long tile = 256 * 8 * (16 / (long long)sizeof(InT)), tiles = (n + shift + tile - 1) / tile;
    CK(cudaMemset(out, 0xa5, n * sizeof(OutT)));  // poison
    auto launch = [&]() { k<<<tiles, 256>>>(in + offset, out, n, tiles, bits_of(init), inclusive, scratch, ++epoch_counter); };
    if (ms) *ms = time_ms(launch, 5, 20);
    else launch();
    CK(cudaDeviceSynchronize());
    std::vector<OutT> h(n);
    CK(cudaMemcpy(h.data(), out, n * sizeof(OutT), cudaMemcpyDeviceToHost));
    long long bad = 0;
    OutT acc = init;
    double exact = (double)init, magnitude = std::fabs((double)init);
    for (long long i = 0; i < n; ++i) {
        const OutT x = (OutT)hin[offset + i];
        const OutT before = acc;
        acc = HostOp<Op>::apply(acc, x);
        const OutT want = inclusive ? acc : before;
        if constexpr (std::is_floating_point<OutT>::value && std::is_same<Op, Sum<OutT>>::value) {
            const double want_exact = inclusive ? exact + (double)x : exact;
            bad += !(std::fabs((double)h[i] - want_exact) <= 1e-5 * std::max(1.0, magnitude + std::fabs((double)x)));
            exact += (double)x;
            magnitude += std::fabs((double)x);
        } else {
            bad += bits_of(h[i]) != bits_of(want);
        }
    }
    return bad;
}

template <int MINB, typename InT, typename OutT, typename Op>
static void timed(const char* name, const InT* in, OutT* out, const std::vector<InT>& hin, long long n, double copy_gbs) {
    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, k_scan<MINB, InT, OutT, Op>));
    int occ;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k_scan<MINB, InT, OutT, Op>, 256, 0));
    double ms;
    const long long bad = scan_and_check<MINB, InT, OutT, Op>(in, out, hin, 0, n, HostOp<Op>::identity(), 1, &ms);
    const double bytes = (double)(sizeof(InT) + sizeof(OutT)) * n;
    printf("%-12s minB %d occ %d regs %3d local %3d  %.4f ms %7.1f GB/s %5.1f%% of memcpy  %s\n", name, MINB, occ, fa.numRegs,
           (int)fa.localSizeBytes, ms, bytes / ms / 1e6, 100.0 * bytes / ms / 1e6 / copy_gbs, bad ? "WRONG" : "ok");
    fflush(stdout);
}

/** Small and misaligned sizes, inclusive and exclusive, a non-identity init; every output exact. */
template <int MINB, typename InT, typename OutT, typename Op>
static long long small_sizes(const char* name, const InT* in, OutT* out, const std::vector<InT>& hin, OutT init) {
    const long long sizes[] = {1, 2, 31, 33, 4095, 4097, 8191, 8193, 100003, 3000001};
    long long wrong = 0;
    for (long long n : sizes)
        for (long long offset : {0LL, 1LL, 3LL})
            for (int inclusive = 0; inclusive < 2; ++inclusive) {
                const long long bad = scan_and_check<MINB, InT, OutT, Op>(in, out, hin, offset, n, init, inclusive, nullptr);
                if (bad) printf("  %s n %lld offset %lld inclusive %d: %lld WRONG\n", name, n, offset, inclusive, bad);
                wrong += bad;
            }
    return wrong;
}

int main(int argc, char** argv) {
    const long long n = (1LL << 28) - 3;
    CK(cudaMalloc(&scratch, 16 + 128 * (n / 4096 + 16)));
    CK(cudaMemset(scratch, 0, 16 + 128 * (n / 4096 + 16)));
    const LabInputs in(n);
    const long long n8 = in.n8 - 1;
    void* out;
    CK(cudaMalloc(&out, n * 8));
    // Small integers for products (so they do not all wrap to zero) and bitwise and.
    std::vector<long long> hsmall(n8);
    for (long long i = 0; i < n8; ++i) hsmall[i] = (in.hl[i] % 3 == 0) ? -1 : (in.hl[i] & 1 ? 1 : (~0LL ^ (1LL << (i % 61))));
    long long* small;
    CK(cudaMalloc(&small, n8 * 8));
    CK(cudaMemcpy(small, hsmall.data(), n8 * 8, cudaMemcpyHostToDevice));

    long long wrong = 0;
    wrong += small_sizes<6, int, long long, Sum<long long>>("i32->i64 sum", in.iin, (long long*)out, in.hi, 12345678901LL);
    wrong += small_sizes<6, int, int, Sum<int>>("i32 sum", in.iin, (int*)out, in.hi, -7);
    wrong += small_sizes<6, float, float, Max<float>>("f32 max", in.fin, (float*)out, in.hf, -0.5f);
    wrong += small_sizes<6, long long, long long, Sum<long long>>("i64 sum", in.lin, (long long*)out, in.hl, 99LL);
    wrong += small_sizes<6, long long, long long, Prod<long long>>("i64 prod", small, (long long*)out, hsmall, 3LL);
    wrong += small_sizes<6, long long, long long, BitAnd<long long>>("i64 and", small, (long long*)out, hsmall, ~0LL);
    wrong += small_sizes<6, double, double, Max<double>>("f64 max", in.din, (double*)out, in.hd, 0.25);
    printf("small sizes: %s\n", wrong ? "WRONG" : "all ok");

    const bool narrow = argc > 1 && std::strcmp(argv[1], "narrow") == 0;  // the 4-byte operators other than sums
    for (int pass = 0; pass < 2; ++pass) {
        const double copy_ms = time_ms([&]() { CK(cudaMemcpyAsync(out, in.fin, n * 4, cudaMemcpyDeviceToDevice)); }, 5, 20);
        const double copy_gbs = 8.0 * n / copy_ms / 1e6;
        printf("pass %d  memcpy d2d 2^28 x 4 B: %.4f ms %.1f GB/s (read+write)\n", pass, copy_ms, copy_gbs);
        if (narrow) {
            timed<6, int, int, Max<int>>("i32 max", in.iin, (int*)out, in.hi, n, copy_gbs);
            timed<6, int, int, Min<int>>("i32 min", in.iin, (int*)out, in.hi, n, copy_gbs);
            timed<6, float, float, Min<float>>("f32 min", in.fin, (float*)out, in.hf, n, copy_gbs);
            timed<6, int, int, Prod<int>>("i32 prod", in.iin, (int*)out, in.hi, n, copy_gbs);
            timed<6, int, int, BitXor<int>>("i32 xor", in.iin, (int*)out, in.hi, n, copy_gbs);
            timed<6, int, int, Sum<int>>("i32 sum", in.iin, (int*)out, in.hi, n, copy_gbs);
            timed<6, float, float, Sum<float>>("f32 sum", in.fin, (float*)out, in.hf, n, copy_gbs);
            continue;
        }
        timed<4, int, long long, Sum<long long>>("i32->i64 sum", in.iin, (long long*)out, in.hi, n, copy_gbs);
        timed<5, int, long long, Sum<long long>>("i32->i64 sum", in.iin, (long long*)out, in.hi, n, copy_gbs);
        timed<6, int, long long, Sum<long long>>("i32->i64 sum", in.iin, (long long*)out, in.hi, n, copy_gbs);
        timed<6, float, float, Sum<float>>("f32 sum", in.fin, (float*)out, in.hf, n, copy_gbs);
        timed<6, int, int, Sum<int>>("i32 sum", in.iin, (int*)out, in.hi, n, copy_gbs);
        timed<6, float, float, Max<float>>("f32 max", in.fin, (float*)out, in.hf, n, copy_gbs);
        timed<4, long long, long long, Sum<long long>>("i64 sum", in.lin, (long long*)out, in.hl, n8, copy_gbs);
        timed<6, long long, long long, Sum<long long>>("i64 sum", in.lin, (long long*)out, in.hl, n8, copy_gbs);
        timed<4, double, double, Sum<double>>("f64 sum", in.din, (double*)out, in.hd, n8, copy_gbs);
        timed<5, double, double, Sum<double>>("f64 sum", in.din, (double*)out, in.hd, n8, copy_gbs);
        timed<6, double, double, Sum<double>>("f64 sum", in.din, (double*)out, in.hd, n8, copy_gbs);
        timed<4, double, double, Max<double>>("f64 max", in.din, (double*)out, in.hd, n8, copy_gbs);
        timed<6, double, double, Max<double>>("f64 max", in.din, (double*)out, in.hd, n8, copy_gbs);
        timed<4, long long, long long, Max<long long>>("i64 max", in.lin, (long long*)out, in.hl, n8, copy_gbs);
        timed<6, long long, long long, Max<long long>>("i64 max", in.lin, (long long*)out, in.hl, n8, copy_gbs);
        timed<4, long long, long long, Prod<long long>>("i64 prod", small, (long long*)out, hsmall, n8, copy_gbs);
        timed<6, long long, long long, Prod<long long>>("i64 prod", small, (long long*)out, hsmall, n8, copy_gbs);
        timed<5, long long, long long, BitAnd<long long>>("i64 and", small, (long long*)out, hsmall, n8, copy_gbs);
        timed<6, long long, long long, BitAnd<long long>>("i64 and", small, (long long*)out, hsmall, n8, copy_gbs);
    }
    return wrong ? 1 : 0;
}
