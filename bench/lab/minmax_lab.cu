// Scan lab: Java's float min and max as scan operators. Until this lab, ops.cuh's Min and Max tested
// NaN and then java_less (a < b, or equal with a = -0.0), which nvcc compiled to three branches per
// combination, and segmented float32 max scans ran at 37% of the copy (scan_heads_lab.cu). Now they
// select around PTX's max/min instruction, which orders -0.0 below 0.0. This lab keeps the branchy
// form as BranchyMax/BranchyMin and times both in one binary, plain and segmented (a head in about
// 1024), float32 and float64, at production's tile shapes and blocks per SM (scan.cu). First it
// checks both forms against a host Math.max/Math.min (written out as Java's source does it) on
// every pair of special values (zeros of both signs, infinities, subnormals, NaNs of several
// payloads and both signs), bit for bit; then scans of small and misaligned sizes with NaNs and
// signed zeros in the data, and every output of the timed scans. Since the NaN fast path of plain
// scans (scan_kernels.cuh), the production rows ("scan f32 max", ...) take it; the small sizes'
// NaNs and NaN init send warps back to the operator or to storing a NaN prefix; "selects" rows
// time production's operator without the fast path (another type), on NaN-free data and on data
// with a NaN first or one in three; "nan-unsafe" rows time the bare instruction alone, the bound
// for any such path (right only without NaN). Segmented scans take the fast path too (since step
// 24, 2026-11-22): "seg f32 max selects" rows are the operator without it, "seg f32
// max minB 4" production's blocks per SM, and the NaN-first and one-in-three rows its ways back.
// Build variants timed for it (fast rows unrolled or one at a time, the reduction alone) are in
// bench/results/2026-11-22-nvidia-h200-lab.md. Several NaNs with different bits in one scan: the
// host returns the first, as a sequential Math.max does; the device's choice is unspecified
// (docs/semantics.md), and these data happen to agree (the NaN-dense rows use one payload).
// Float keys (step 37, device/scan/float_keys.cuh): built against headers that have them, the lab
// adds "keys" rows, production's operators since then (scan.cu) for segmented float32 and all
// float64 min and max. Against those headers only plain float32 Max/Min rows still take the fast
// path; the segmented float32 and all float64 Max/Min rows time the selects without one. A key scan may return another of the
// NaNs it met than the host's first, so their outputs that are NaN are checked to be a NaN of the
// segment so far (or the init), bit for bit, and the others bit for bit as before. "(pace)" rows
// time segmented int32 and float32 sums, unchecked, the pace a segmented max is measured against
// (step 38: float32 keys' max and min as asm, segments restarted by selection; the builds are in
// bench/results/2026-11-23-nvidia-h200-lab.md). Step 39 (integer_extremes.cuh): against headers
// that have it, integer rows: segmented int32, int64 and int8 min and max as ops.cuh's selects
// ("select") and as production's since then (IntegerMax, IntegerMin), with candidates that were not
// taken; data over each type's whole range, its extremes included, every output checked exactly.
// Step 39's rows alone: argv[1] = "i32 max select,i32 min select,i64 max select,i8 max select,Integer,Restart,Asm,pace".
// Step 40 (folded int8 chunks restarting by selection by flags, scan_kernels.cuh): "seg i8" rows, built
// against the headers before (b98f986) and after; RestartSum and the AsmAdd sums are candidates,
// checked exactly; the other int8 operators' "(pace)" rows are timed unchecked (GpuScanTest checks
// them). argv[1] = "i8".
// Build it twice,
// against the headers before and after (git worktree add /tmp/before <commit>):
//   nvcc -std=c++17 -O3 -arch=sm_90 -I /tmp/before/primer-core/src/main/cuda -o .lab/minmax_before bench/lab/minmax_lab.cu
//   nvcc -std=c++17 -O3 -arch=sm_90 -I primer-core/src/main/cuda -o .lab/minmax bench/lab/minmax_lab.cu
// argv[1]: comma-separated parts of the row names to run, e.g. "f32,seg".
// Design measurements; a standalone harness, not built by Maven.
#include "device/scan_kernels.cuh"
#include "lab_common.cuh"
#include "lab_host_ops.cuh"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

using namespace primer;

#if __has_include("device/scan/float_keys.cuh")
#define HAVE_FLOAT_KEYS 1
/** A key operator as an operator on floats, for the pairs check. */
template <typename Keys, typename T> struct KeyedPair {
    __device__ __forceinline__ T operator()(T a, T b) const { return Keys::value(Keys{}(Keys::key(a), Keys::key(b))); }
};
#endif
template <typename Op> struct IsKeyed { static constexpr bool value = false; };
#ifdef HAVE_FLOAT_KEYS
template <typename T, bool MAX> struct IsKeyed<FloatKeyExtreme<T, MAX>> { static constexpr bool value = true; };
template <typename K, typename T> struct IsKeyed<KeyedPair<K, T>> { static constexpr bool value = true; };
#endif

/** The operators before this lab. */
template <typename T> struct BranchyMin {
    static __device__ __forceinline__ T identity() { return Limits<T>::highest(); }
    __device__ __forceinline__ T operator()(T a, T b) const {
        if (is_nan(a)) return a;
        if (is_nan(b)) return b;
        return java_less(b, a) ? b : a;
    }
};
template <typename T> struct BranchyMax {
    static __device__ __forceinline__ T identity() { return Limits<T>::lowest(); }
    __device__ __forceinline__ T operator()(T a, T b) const {
        if (is_nan(a)) return a;
        if (is_nan(b)) return b;
        return java_less(a, b) ? b : a;
    }
};
/** The bound for any NaN fast path: PTX's max alone, right only where no operand is NaN. */
template <typename T> struct NaNUnsafeMax {
    static __device__ __forceinline__ T identity() { return Limits<T>::lowest(); }
    __device__ __forceinline__ T operator()(T a, T b) const { return larger(a, b); }
};
/** Production's Max without the NaN fast path (another type, so NaNFreeForm does not know it). */
template <typename T> struct SelectsMax : Max<T> {};
namespace primer {  // the traits production gives Min and Max
template <typename T> struct TreeLookback<SelectsMax<T>> { static constexpr bool value = true; };
template <typename T> struct Commutative<SelectsMax<T>> { static constexpr bool value = true; };
template <typename T> struct TreeLookback<NaNUnsafeMax<T>> { static constexpr bool value = true; };
template <typename T> struct Commutative<NaNUnsafeMax<T>> { static constexpr bool value = true; };
template <typename T> struct TreeLookback<BranchyMin<T>> { static constexpr bool value = true; };
template <typename T> struct TreeLookback<BranchyMax<T>> { static constexpr bool value = true; };
template <typename T> struct Commutative<BranchyMin<T>> { static constexpr bool value = true; };
template <typename T> struct Commutative<BranchyMax<T>> { static constexpr bool value = true; };
}  // namespace primer

#if __has_include("device/scan/integer_extremes.cuh")
#define HAVE_INTEGER_EXTREMES 1
/** Step 39's candidates beside production: int64 max as asm max.s64, restarting segments by selection. */
struct AsmMax64 {
    static __device__ __forceinline__ long long identity() { return Limits<long long>::lowest(); }
    __device__ __forceinline__ long long operator()(long long a, long long b) const {
        long long r;
        asm("max.s64 %0, %1, %2;" : "=l"(r) : "l"(a), "l"(b));
        return r;
    }
};
/** Production's int64 Max (a select), restarting segments by selection. */
template <typename T> struct RestartMax : Max<T> {};
/** The asm max without the selection restart. */
template <typename T> struct AsmOnlyMax : IntegerMax<T> {};
/** Step 40's candidates for segmented sums: restarting by selection, the add as asm, both. */
struct RestartSum : Sum<int> {};
struct AsmAddSum {
    static __device__ __forceinline__ int identity() { return 0; }
    __device__ __forceinline__ int operator()(int a, int b) const {
        int r;
        asm("add.s32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
        return r;
    }
};
struct AsmAddRestartSum : AsmAddSum {};
namespace primer {
template <> struct TreeLookback<AsmMax64> { static constexpr bool value = true; };
template <> struct Commutative<AsmMax64> { static constexpr bool value = true; };
template <> struct RestartBySelect<AsmMax64> { static constexpr bool value = true; };
template <typename T> struct TreeLookback<RestartMax<T>> { static constexpr bool value = true; };
template <typename T> struct Commutative<RestartMax<T>> { static constexpr bool value = true; };
template <typename T> struct RestartBySelect<RestartMax<T>> { static constexpr bool value = true; };
template <typename T> struct TreeLookback<AsmOnlyMax<T>> { static constexpr bool value = true; };
template <typename T> struct Commutative<AsmOnlyMax<T>> { static constexpr bool value = true; };
template <> struct WrapsExactly<RestartSum> { static constexpr bool value = true; };
template <> struct Commutative<RestartSum> { static constexpr bool value = true; };
template <> struct RestartBySelect<RestartSum> { static constexpr bool value = true; };
template <> struct WrapsExactly<AsmAddSum> { static constexpr bool value = true; };
template <> struct Commutative<AsmAddSum> { static constexpr bool value = true; };
template <> struct WrapsExactly<AsmAddRestartSum> { static constexpr bool value = true; };
template <> struct Commutative<AsmAddRestartSum> { static constexpr bool value = true; };
template <> struct RestartBySelect<AsmAddRestartSum> { static constexpr bool value = true; };
}  // namespace primer
#endif

// ---- the host's Math.max / Math.min, as Java's source writes them ----

template <typename T> static bool neg_zero(T x) { return x == 0 && std::signbit(x); }
template <typename T> static T java_max(T a, T b) {
    if (a != a) return a;
    if (a == 0 && b == 0 && neg_zero(a)) return b;
    return a >= b ? a : b;
}
template <typename T> static T java_min(T a, T b) {
    if (a != a) return a;
    if (a == 0 && b == 0 && neg_zero(b)) return b;
    return a <= b ? a : b;
}
template <typename Op> struct IsMax { static constexpr bool value = false; };
template <typename T> struct IsMax<Max<T>> { static constexpr bool value = true; };
template <typename T> struct IsMax<BranchyMax<T>> { static constexpr bool value = true; };
template <typename T> struct IsMax<NaNUnsafeMax<T>> { static constexpr bool value = true; };
template <typename T> struct IsMax<SelectsMax<T>> { static constexpr bool value = true; };
#ifdef HAVE_INTEGER_EXTREMES
template <typename T> struct IsMax<IntegerExtreme<T, true>> { static constexpr bool value = true; };
template <> struct IsMax<AsmMax64> { static constexpr bool value = true; };
template <typename T> struct IsMax<RestartMax<T>> { static constexpr bool value = true; };
template <typename T> struct IsMax<AsmOnlyMax<T>> { static constexpr bool value = true; };
#endif
#ifdef HAVE_FLOAT_KEYS
template <typename T> struct IsMax<FloatKeyExtreme<T, true>> { static constexpr bool value = true; };
template <typename T> struct IsMax<KeyedPair<FloatKeyExtreme<T, true>, T>> { static constexpr bool value = true; };
#endif
template <typename Op> struct IsSum { static constexpr bool value = false; };
#ifdef HAVE_INTEGER_EXTREMES
template <> struct IsSum<RestartSum> { static constexpr bool value = true; };
template <> struct IsSum<AsmAddSum> { static constexpr bool value = true; };
template <> struct IsSum<AsmAddRestartSum> { static constexpr bool value = true; };
#endif
template <typename Op, typename T> static T host_op(T a, T b) {
    if constexpr (IsSum<Op>::value && std::is_integral<T>::value) return (T)((unsigned long long)a + (unsigned long long)b);  // wraps
    return IsMax<Op>::value ? java_max(a, b) : java_min(a, b);
}
template <typename Op, typename T> static T host_identity() {
    if constexpr (std::is_same<Op, Sum<T>>::value || IsSum<Op>::value) return T(0);  // the pace rows
    if constexpr (std::is_integral<T>::value) return IsMax<Op>::value ? std::numeric_limits<T>::min() : std::numeric_limits<T>::max();
    else return IsMax<Op>::value ? -INFINITY : INFINITY;
}

template <typename T> static T from_bits(uint64_t b) {
    T v;
    std::memcpy(&v, &b, sizeof(T));
    return v;
}

// ---- 1. the operator on every pair of special values ----

template <typename Op, typename T>
__global__ void k_pairs(const T* v, int m, T* out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m * m) out[i] = Op{}(v[i / m], v[i % m]);
}

template <typename T> static std::vector<T> specials() {
    std::vector<uint64_t> b;
    if (sizeof(T) == 4) {
        b = {0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x3fc00000, 0xc0200000, 0x7f800000, 0xff800000,
             0x7f7fffff, 0xff7fffff, 0x00000001, 0x80000001, 0x00800000, 0x7fc00000, 0x7f800001, 0xffc00000,
             0xffffffff, 0x7fc12345, 0xff812345};
    } else {
        b = {0x0ULL, 0x8000000000000000ULL, 0x3ff0000000000000ULL, 0xbff0000000000000ULL, 0x3ff8000000000000ULL,
             0xc004000000000000ULL, 0x7ff0000000000000ULL, 0xfff0000000000000ULL, 0x7fefffffffffffffULL,
             0xffefffffffffffffULL, 0x1ULL, 0x8000000000000001ULL, 0x0010000000000000ULL, 0x7ff8000000000000ULL,
             0x7ff0000000000001ULL, 0xfff8000000000000ULL, 0xffffffffffffffffULL, 0x7ff8000012345678ULL,
             0xfff0000012345678ULL};
    }
    std::vector<T> v;
    for (uint64_t x : b) v.push_back(from_bits<T>(x));
    return v;
}

template <typename Op, typename T> static long long check_pairs(const char* name) {
    const std::vector<T> v = specials<T>();
    const int m = (int)v.size();
    T *dv, *dout;
    CK(cudaMalloc(&dv, m * sizeof(T)));
    CK(cudaMalloc(&dout, m * m * sizeof(T)));
    CK(cudaMemcpy(dv, v.data(), m * sizeof(T), cudaMemcpyHostToDevice));
    CK(cudaMemset(dout, 0xa5, m * m * sizeof(T)));
    k_pairs<Op, T><<<(m * m + 255) / 256, 256>>>(dv, m, dout);
    CK(cudaGetLastError());
    std::vector<T> got(m * m);
    CK(cudaMemcpy(got.data(), dout, m * m * sizeof(T), cudaMemcpyDeviceToHost));
    long long bad = 0;
    for (int i = 0; i < m * m; ++i) {
        const T want = host_op<Op, T>(v[i / m], v[i % m]);
        const bool either_nan = IsKeyed<Op>::value && want != want &&
                                (bits_of(got[i]) == bits_of(v[i / m]) || bits_of(got[i]) == bits_of(v[i % m])) && got[i] != got[i];
        if (bits_of(got[i]) != bits_of(want) && !either_nan) {
            if (bad < 5) printf("  %s(%llx, %llx) = %llx, Java gives %llx\n", name, (unsigned long long)bits_of(v[i / m]),
                                (unsigned long long)bits_of(v[i % m]), (unsigned long long)bits_of(got[i]), (unsigned long long)bits_of(want));
            ++bad;
        }
    }
    printf("pairs %-16s %d x %d: %s\n", name, m, m, bad ? "WRONG" : "ok");
    CK(cudaFree(dv));
    CK(cudaFree(dout));
    return bad;
}

// ---- 2. scans ----

template <typename T, bool SEG> using Shape = ScanShape<T, SEG>;

template <int MINB, bool SEG, typename T, typename Op>
__global__ void __launch_bounds__(256, MINB) k_scan(const T* in, const signed char* flags, T* out, long long n, long long tiles,
                                                     long long init_bits, int inclusive, unsigned char* scratch, unsigned epoch) {
    if constexpr (SEG) {
        device_scan<Shape<T, true>::BLOCK_THREADS, Shape<T, true>::ROWS, T, T, Op>(in, out, n, tiles, init_bits, inclusive, scratch,
                                                                                  epoch, FlagHeads{flags});
    } else {
        device_scan<Shape<T, false>::BLOCK_THREADS, Shape<T, false>::ROWS, T, T, Op>(in, out, n, tiles, init_bits, inclusive, scratch,
                                                                                    epoch, NoHeads{});
    }
}

static const char* only = nullptr;  // argv[1]: parts of the row names to run (lab_common.cuh selected)

static unsigned char* scratch;
static unsigned epoch_counter = 0;
static signed char* flags_dev;
static std::vector<signed char> flags_host;

/** One scan of n elements from in + offset; every output compared with the host's fold; returns the wrong count. */
template <int MINB, bool SEG, typename T, typename Op>
static long long run(const T* in, const std::vector<T>& hin, long long offset, long long n, T init, int inclusive, T* out,
                     double* ms, bool check) {
    const long long shift = (long long)((reinterpret_cast<unsigned long long>(in + offset) % 16) / sizeof(T));
    const long long tile = Shape<T, SEG>::TILE_ITEMS, tiles = (n + shift + tile - 1) / tile;
    CK(cudaMemset(out, 0xa5, n * sizeof(T)));  // poison
    auto launch = [&]() {
        k_scan<MINB, SEG, T, Op><<<tiles, 256>>>(in + offset, flags_dev + offset, out, n, tiles, (long long)bits_of(init), inclusive,
                                                 scratch, ++epoch_counter);
    };
    if (ms) *ms = time_ms(launch, 5, 20);
    else launch();
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    if (!check) return 0;
    std::vector<T> got(n);
    CK(cudaMemcpy(got.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost));
    long long bad = 0;
    T acc = init;
    std::vector<long long> nans;  // keyed: the NaNs of the segment so far, the init's included
    auto restart = [&]() {
        nans.clear();
        if (init != init) nans.push_back(bits_of(init));
    };
    restart();
    for (long long i = 0; i < n; ++i) {
        if (SEG && i > 0 && flags_host[offset + i]) {
            acc = init;
            restart();
        }
        const T before = acc;
        const size_t nans_before = nans.size();
        acc = host_op<Op, T>(acc, hin[offset + i]);
        if (hin[offset + i] != hin[offset + i]) nans.push_back(bits_of(hin[offset + i]));
        const T want = inclusive ? acc : before;
        if (IsKeyed<Op>::value && want != want) {  // a NaN of the segment so far (the init's included)
            const auto end = nans.begin() + (inclusive ? nans.size() : nans_before);
            bad += !(got[i] != got[i] && std::find(nans.begin(), end, bits_of(got[i])) != end);
        } else {
            bad += bits_of(got[i]) != bits_of(want);
        }
    }
    return bad;
}

/** A NaN init with a payload of its own: every output of the scan is then this NaN. */
template <typename T> static T nan_init() { return from_bits<T>(sizeof(T) == 4 ? 0xffc0abcdULL : 0x7ff000000000abcdULL); }

template <int MINB, bool SEG, typename T, typename Op>
static long long small_sizes(const char* name, const T* edge, const std::vector<T>& hedge, T* out) {
    if (!selected(only, name)) return 0;
    long long wrong = 0;
    for (long long n : {1LL, 2LL, 31LL, 33LL, 4095LL, 4097LL, 8193LL, 100003LL, 3000001LL})
        for (long long offset : {0LL, 1LL, 3LL})
            for (int inclusive = 0; inclusive < 2; ++inclusive)
                for (T init : {host_identity<Op, T>(), (T)-0.0, (T)0.25, nan_init<T>()}) {
                    const long long bad = run<MINB, SEG, T, Op>(edge, hedge, offset, n, init, inclusive, out, nullptr, true);
                    if (bad) printf("  %s n %lld offset %lld inclusive %d init %g: %lld WRONG\n", name, n, offset, inclusive, (double)init, bad);
                    wrong += bad;
                }
    printf("small %-22s %s\n", name, wrong ? "WRONG" : "ok");
    fflush(stdout);
    return wrong;
}

template <int MINB, bool SEG, typename T, typename Op>
static long long timed(const char* name, const T* in, const std::vector<T>& hin, long long n, T* out, double copy_gbs, bool check) {
    if (!selected(only, name)) return 0;
    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, k_scan<MINB, SEG, T, Op>));
    double ms;
    const long long bad = run<MINB, SEG, T, Op>(in, hin, 0, n, host_identity<Op, T>(), 1, out, &ms, check);
    const double bytes = (2.0 * sizeof(T) + (SEG ? 1 : 0)) * n;  // values in and out (and one flag byte in)
    printf("%-24s minB %d regs %3d local %3d  %.4f ms %7.1f GB/s %5.1f%% of memcpy  %s\n", name, MINB, fa.numRegs,
           (int)fa.localSizeBytes, ms, bytes / ms / 1e6, 100.0 * bytes / ms / 1e6 / copy_gbs,
           !check ? "(unchecked)" : bad ? "WRONG" : "ok");
    fflush(stdout);
    return bad;
}

/** Random values in [-1, 1), about 1% each 0.0 and -0.0; with `nans`, about one in 2^17 a NaN of random payload and sign. */
template <typename T> static std::vector<T> values(long long n, bool nans, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<T> v(n);
    for (auto& x : v) {
        const uint64_t r = rng();
        const int pick = (int)(r % 200);
        if (nans && (r >> 40) % 131072 == 0) {
            x = sizeof(T) == 4 ? from_bits<T>(0x7f800001ULL | (rng() & 0x803fffffULL))
                               : from_bits<T>(0x7ff0000000000001ULL | (rng() & 0x8007ffffffffffffULL));
        } else {
            x = pick == 0 ? (T)0.0 : pick == 1 ? (T)-0.0 : (T)((double)(rng() >> 11) / 9007199254740992.0 * 2 - 1);
        }
    }
    return v;
}

/** Random integers over T's whole range, its lowest and highest in about one of 4096 each. */
template <typename T> static std::vector<T> integers(long long n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<T> v(n);
    for (auto& x : v) {
        const uint64_t r = rng();
        const int pick = (int)(r >> 52);  // 0 .. 4095
        x = pick == 0 ? std::numeric_limits<T>::min() : pick == 1 ? std::numeric_limits<T>::max() : (T)r;
    }
    return v;
}

template <typename T> static T* upload(const std::vector<T>& v) {
    T* d;
    CK(cudaMalloc(&d, v.size() * sizeof(T)));
    CK(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
    return d;
}

int main(int argc, char** argv) {
    if (argc > 1) only = argv[1];
    long long wrong = 0;
    wrong += check_pairs<Max<float>, float>("Max<float>");
    wrong += check_pairs<Min<float>, float>("Min<float>");
    wrong += check_pairs<Max<double>, double>("Max<double>");
    wrong += check_pairs<Min<double>, double>("Min<double>");
    wrong += check_pairs<BranchyMax<float>, float>("BranchyMax<float>");
    wrong += check_pairs<BranchyMin<float>, float>("BranchyMin<float>");
    wrong += check_pairs<BranchyMax<double>, double>("BranchyMax<double>");
    wrong += check_pairs<BranchyMin<double>, double>("BranchyMin<double>");
#ifdef HAVE_FLOAT_KEYS
    wrong += check_pairs<KeyedPair<FloatKeyMax<float>, float>, float>("FloatKeyMax<float>");
    wrong += check_pairs<KeyedPair<FloatKeyMin<float>, float>, float>("FloatKeyMin<float>");
    wrong += check_pairs<KeyedPair<FloatKeyMax<double>, double>, double>("FloatKeyMax<double>");
    wrong += check_pairs<KeyedPair<FloatKeyMin<double>, double>, double>("FloatKeyMin<double>");
#endif

    const long long n = (1LL << 28) - 3, n8 = (1LL << 27) - 3;
    CK(cudaMalloc(&scratch, 16 + 128 * (n / 2048 + 16)));
    CK(cudaMemset(scratch, 0, 16 + 128 * (n / 2048 + 16)));
    std::mt19937_64 rng(17);
    flags_host.resize(n + 8);
    for (auto& f : flags_host) f = rng() % 1024 == 0 ? (signed char)(1 + rng() % 100) : 0;
    flags_dev = upload(flags_host);

    // Small sizes: data with NaNs (one in about 2^17: the larger sizes hold several per segment or scan).
    {
        const long long m = 3000001 + 8;
        const std::vector<float> ef = values<float>(m, true, 23);
        const std::vector<double> ed = values<double>(m, true, 29);
        float* def = upload(ef);
        double* ded = upload(ed);
        void* out;
        CK(cudaMalloc(&out, m * 8));
        wrong += small_sizes<6, false, float, Max<float>>("scan f32 max", def, ef, (float*)out);
        wrong += small_sizes<6, false, float, Min<float>>("scan f32 min", def, ef, (float*)out);
        wrong += small_sizes<5, true, float, Max<float>>("seg f32 max", def, ef, (float*)out);
        wrong += small_sizes<5, true, float, Min<float>>("seg f32 min", def, ef, (float*)out);
        wrong += small_sizes<6, false, double, Max<double>>("scan f64 max", ded, ed, (double*)out);
        wrong += small_sizes<6, false, double, Min<double>>("scan f64 min", ded, ed, (double*)out);
        wrong += small_sizes<4, true, double, Max<double>>("seg f64 max", ded, ed, (double*)out);
        wrong += small_sizes<4, true, double, Min<double>>("seg f64 min", ded, ed, (double*)out);
#ifdef HAVE_FLOAT_KEYS
        wrong += small_sizes<6, false, float, FloatKeyMax<float>>("scan f32 max keys", def, ef, (float*)out);
        wrong += small_sizes<6, false, float, FloatKeyMin<float>>("scan f32 min keys", def, ef, (float*)out);
        wrong += small_sizes<4, true, float, FloatKeyMax<float>>("seg f32 max keys", def, ef, (float*)out);
        wrong += small_sizes<4, true, float, FloatKeyMin<float>>("seg f32 min keys", def, ef, (float*)out);
        wrong += small_sizes<6, false, double, FloatKeyMax<double>>("scan f64 max keys", ded, ed, (double*)out);
        wrong += small_sizes<6, false, double, FloatKeyMin<double>>("scan f64 min keys", ded, ed, (double*)out);
        wrong += small_sizes<4, true, double, FloatKeyMax<double>>("seg f64 max keys", ded, ed, (double*)out);
        wrong += small_sizes<4, true, double, FloatKeyMin<double>>("seg f64 min keys", ded, ed, (double*)out);
#endif
#ifdef HAVE_INTEGER_EXTREMES
        const std::vector<int> ei = integers<int>(m, 41);
        const std::vector<long long> el = integers<long long>(m, 43);
        const std::vector<signed char> eb = integers<signed char>(m, 47);
        int* dei = upload(ei);
        long long* del = upload(el);
        signed char* deb = upload(eb);
        wrong += small_sizes<5, true, int, IntegerMax<int>>("seg i32 IntegerMax", dei, ei, (int*)out);
        wrong += small_sizes<5, true, int, IntegerMin<int>>("seg i32 IntegerMin", dei, ei, (int*)out);
        wrong += small_sizes<6, true, int, IntegerMax<int>>("seg i32 IntegerMax minB 6", dei, ei, (int*)out);
        wrong += small_sizes<4, true, long long, IntegerMax<long long>>("seg i64 IntegerMax", del, el, (long long*)out);
        wrong += small_sizes<4, true, long long, IntegerMin<long long>>("seg i64 IntegerMin", del, el, (long long*)out);
        wrong += small_sizes<4, true, long long, RestartMax<long long>>("seg i64 RestartMax", del, el, (long long*)out);
        wrong += small_sizes<4, true, long long, AsmMax64>("seg i64 AsmMax64", del, el, (long long*)out);
        wrong += small_sizes<5, true, signed char, IntegerMax<int>>("seg i8 IntegerMax", deb, eb, (signed char*)out);
        wrong += small_sizes<5, true, signed char, IntegerMin<int>>("seg i8 IntegerMin", deb, eb, (signed char*)out);
        wrong += small_sizes<5, true, signed char, AsmOnlyMax<int>>("seg i8 AsmOnlyMax", deb, eb, (signed char*)out);
        wrong += small_sizes<5, true, signed char, RestartSum>("seg i8 RestartSum", deb, eb, (signed char*)out);
        wrong += small_sizes<5, true, signed char, AsmAddSum>("seg i8 AsmAddSum", deb, eb, (signed char*)out);
        wrong += small_sizes<5, true, signed char, AsmAddRestartSum>("seg i8 AsmAddRestartSum", deb, eb, (signed char*)out);
        wrong += small_sizes<5, true, int, AsmAddSum>("seg i32 AsmAddSum", dei, ei, (int*)out);
        CK(cudaFree(dei));
        CK(cudaFree(del));
        CK(cudaFree(deb));
#endif
        CK(cudaFree(def));
        CK(cudaFree(ded));
        CK(cudaFree(out));
    }

    // Timed: no NaN (one would end every running extreme), zeros of both signs.
    const std::vector<float> hf = values<float>(n, false, 31);
    const std::vector<double> hd = values<double>(n8, false, 37);
    float* fin = upload(hf);
    double* din = upload(hd);
    std::vector<float> hnan0(hf), hnan3(hf);  // a NaN first; a NaN in one of three
    hnan0[0] = from_bits<float>(0x7fc01234ULL);
    for (long long i = 0; i < n; i += 3) hnan3[i] = from_bits<float>(0xff812345ULL);  // one payload: which NaN wins is unspecified
    float* fnan0 = upload(hnan0);
    float* fnan3 = upload(hnan3);
    std::vector<int> hi(n);  // int32 max: the pace of a one-instruction max
    for (auto& v : hi) v = (int)(rng() % 2000000001ULL) - 1000000000;
    int* iin = upload(hi);
#ifdef HAVE_INTEGER_EXTREMES
    const std::vector<int> hiw = integers<int>(n, 53);  // step 39's rows: the whole range
    const std::vector<long long> hl = integers<long long>(n8, 59);
    const std::vector<signed char> hb = integers<signed char>(n, 61);
    int* iwin = upload(hiw);
    long long* lin = upload(hl);
    signed char* bin = upload(hb);
#endif
    void* out;
    CK(cudaMalloc(&out, n * 4 + 64));
    for (int pass = 0; pass < 2; ++pass) {
        const bool check = pass == 0;
        const double copy_ms = time_ms([&]() { CK(cudaMemcpyAsync(out, fin, n * 4, cudaMemcpyDeviceToDevice)); }, 5, 20);
        const double copy_gbs = 8.0 * n / copy_ms / 1e6;
        printf("pass %d  memcpy d2d 2^28 x 4 B: %.4f ms %.1f GB/s (read+write)\n", pass, copy_ms, copy_gbs);
        float* fo = (float*)out;
        double* dout = (double*)out;
        wrong += timed<6, false, float, BranchyMax<float>>("scan f32 max branchy", fin, hf, n, fo, copy_gbs, check);
        wrong += timed<6, false, float, Max<float>>("scan f32 max", fin, hf, n, fo, copy_gbs, check);
        wrong += timed<6, false, float, NaNUnsafeMax<float>>("scan f32 max nan-unsafe", fin, hf, n, fo, copy_gbs, check);
        wrong += timed<6, false, float, BranchyMin<float>>("scan f32 min branchy", fin, hf, n, fo, copy_gbs, check);
        wrong += timed<6, false, float, Min<float>>("scan f32 min", fin, hf, n, fo, copy_gbs, check);
        wrong += timed<5, true, float, BranchyMax<float>>("seg f32 max branchy", fin, hf, n, fo, copy_gbs, check);
        wrong += timed<5, true, float, Max<float>>("seg f32 max", fin, hf, n, fo, copy_gbs, check);
        wrong += timed<5, true, float, NaNUnsafeMax<float>>("seg f32 max nan-unsafe", fin, hf, n, fo, copy_gbs, check);
        wrong += timed<5, true, float, BranchyMin<float>>("seg f32 min branchy", fin, hf, n, fo, copy_gbs, check);
        wrong += timed<5, true, float, Min<float>>("seg f32 min", fin, hf, n, fo, copy_gbs, check);
        wrong += timed<4, true, float, Max<float>>("seg f32 max minB 4", fin, hf, n, fo, copy_gbs, check);
        wrong += timed<5, true, float, SelectsMax<float>>("seg f32 max selects", fin, hf, n, fo, copy_gbs, check);
        wrong += timed<5, true, float, SelectsMax<float>>("seg f32 max selects, NaN first", fnan0, hnan0, n, fo, copy_gbs, check);
        wrong += timed<5, true, float, Max<float>>("seg f32 max, NaN first", fnan0, hnan0, n, fo, copy_gbs, check);
        wrong += timed<5, true, float, SelectsMax<float>>("seg f32 max selects, NaN 1 in 3", fnan3, hnan3, n, fo, copy_gbs, check);
        wrong += timed<5, true, float, Max<float>>("seg f32 max, NaN 1 in 3", fnan3, hnan3, n, fo, copy_gbs, check);
        // Data with NaNs: the first element, or one in three (the fast path's way back).
        wrong += timed<6, false, float, SelectsMax<float>>("scan f32 max selects, NaN first", fnan0, hnan0, n, fo, copy_gbs, check);
        wrong += timed<6, false, float, Max<float>>("scan f32 max, NaN first", fnan0, hnan0, n, fo, copy_gbs, check);
        wrong += timed<6, false, float, SelectsMax<float>>("scan f32 max selects, NaN 1 in 3", fnan3, hnan3, n, fo, copy_gbs, check);
        wrong += timed<6, false, float, Max<float>>("scan f32 max, NaN 1 in 3", fnan3, hnan3, n, fo, copy_gbs, check);
        wrong += timed<6, false, float, SelectsMax<float>>("scan f32 max selects", fin, hf, n, fo, copy_gbs, check);
        wrong += timed<6, false, double, BranchyMax<double>>("scan f64 max branchy", din, hd, n8, dout, copy_gbs, check);
        wrong += timed<6, false, double, Max<double>>("scan f64 max", din, hd, n8, dout, copy_gbs, check);
        wrong += timed<6, false, double, NaNUnsafeMax<double>>("scan f64 max nan-unsafe", din, hd, n8, dout, copy_gbs, check);
        wrong += timed<4, true, double, BranchyMax<double>>("seg f64 max branchy", din, hd, n8, dout, copy_gbs, check);
        wrong += timed<4, true, double, Max<double>>("seg f64 max", din, hd, n8, dout, copy_gbs, check);
        wrong += timed<4, true, double, NaNUnsafeMax<double>>("seg f64 max nan-unsafe", din, hd, n8, dout, copy_gbs, check);
        wrong += timed<4, true, double, SelectsMax<double>>("seg f64 max selects", din, hd, n8, dout, copy_gbs, check);
        wrong += timed<4, true, double, Min<double>>("seg f64 min", din, hd, n8, dout, copy_gbs, check);
        wrong += timed<6, false, int, Max<int>>("scan i32 max", iin, hi, n, (int*)out, copy_gbs, check);
        wrong += timed<5, true, int, Max<int>>("seg i32 max", iin, hi, n, (int*)out, copy_gbs, check);
        // The pace of segmented sums at production's 5 blocks per SM (not checked: the host reference is min/max).
        wrong += timed<5, true, int, Sum<int>>("seg i32 sum (pace)", iin, hi, n, (int*)out, copy_gbs, false);
        wrong += timed<5, true, float, Sum<float>>("seg f32 sum (pace)", fin, hf, n, fo, copy_gbs, false);
#ifdef HAVE_FLOAT_KEYS
        wrong += timed<6, false, float, FloatKeyMax<float>>("scan f32 max keys", fin, hf, n, fo, copy_gbs, check);
        wrong += timed<6, false, float, FloatKeyMin<float>>("scan f32 min keys", fin, hf, n, fo, copy_gbs, check);
        wrong += timed<6, false, float, FloatKeyMax<float>>("scan f32 max keys, NaN first", fnan0, hnan0, n, fo, copy_gbs, check);
        wrong += timed<6, false, float, FloatKeyMax<float>>("scan f32 max keys, NaN 1 in 3", fnan3, hnan3, n, fo, copy_gbs, check);
        wrong += timed<4, true, float, FloatKeyMax<float>>("seg f32 max keys", fin, hf, n, fo, copy_gbs, check);
        wrong += timed<5, true, float, FloatKeyMax<float>>("seg f32 max keys minB 5", fin, hf, n, fo, copy_gbs, check);
        wrong += timed<4, true, float, FloatKeyMin<float>>("seg f32 min keys", fin, hf, n, fo, copy_gbs, check);
        wrong += timed<5, true, float, FloatKeyMin<float>>("seg f32 min keys minB 5", fin, hf, n, fo, copy_gbs, check);
        wrong += timed<4, true, float, FloatKeyMax<float>>("seg f32 max keys, NaN first", fnan0, hnan0, n, fo, copy_gbs, check);
        wrong += timed<4, true, float, FloatKeyMax<float>>("seg f32 max keys, NaN 1 in 3", fnan3, hnan3, n, fo, copy_gbs, check);
        wrong += timed<6, false, double, FloatKeyMax<double>>("scan f64 max keys", din, hd, n8, dout, copy_gbs, check);
        wrong += timed<6, false, double, FloatKeyMin<double>>("scan f64 min keys", din, hd, n8, dout, copy_gbs, check);
        wrong += timed<4, true, double, FloatKeyMax<double>>("seg f64 max keys", din, hd, n8, dout, copy_gbs, check);
        wrong += timed<4, true, double, FloatKeyMin<double>>("seg f64 min keys", din, hd, n8, dout, copy_gbs, check);
        wrong += timed<5, true, double, FloatKeyMax<double>>("seg f64 max keys minB 5", din, hd, n8, dout, copy_gbs, check);
#endif
#ifdef HAVE_INTEGER_EXTREMES
        // Step 39: integer min and max of segmented scans (integer_extremes.cuh). "select" rows are
        // ops.cuh's Max and Min, production's before it; IntegerMax and IntegerMin production's
        // after; RestartMax the int64 select restarting by selection, AsmMax64 with max.s64 as asm
        // too, AsmOnlyMax the asm without the restart.
        int* io = (int*)out;
        long long* lo = (long long*)out;
        signed char* bo = (signed char*)out;
        wrong += timed<5, true, int, Max<int>>("seg i32 max select", iwin, hiw, n, io, copy_gbs, check);
        wrong += timed<5, true, int, IntegerMax<int>>("seg i32 IntegerMax", iwin, hiw, n, io, copy_gbs, check);
        wrong += timed<6, true, int, IntegerMax<int>>("seg i32 IntegerMax minB 6", iwin, hiw, n, io, copy_gbs, check);
        wrong += timed<5, true, int, AsmOnlyMax<int>>("seg i32 AsmOnlyMax", iwin, hiw, n, io, copy_gbs, check);
        wrong += timed<5, true, int, Min<int>>("seg i32 min select", iwin, hiw, n, io, copy_gbs, check);
        wrong += timed<5, true, int, IntegerMin<int>>("seg i32 IntegerMin", iwin, hiw, n, io, copy_gbs, check);
        wrong += timed<5, true, int, Sum<int>>("seg i32 sum wide (pace)", iwin, hiw, n, io, copy_gbs, false);
        wrong += timed<6, false, int, Max<int>>("scan i32 max select", iwin, hiw, n, io, copy_gbs, check);
        wrong += timed<6, false, int, IntegerMax<int>>("scan i32 IntegerMax", iwin, hiw, n, io, copy_gbs, check);
        wrong += timed<4, true, long long, Max<long long>>("seg i64 max select", lin, hl, n8, lo, copy_gbs, check);
        wrong += timed<4, true, long long, IntegerMax<long long>>("seg i64 IntegerMax", lin, hl, n8, lo, copy_gbs, check);
        wrong += timed<4, true, long long, IntegerMin<long long>>("seg i64 IntegerMin", lin, hl, n8, lo, copy_gbs, check);
        wrong += timed<4, true, long long, RestartMax<long long>>("seg i64 RestartMax", lin, hl, n8, lo, copy_gbs, check);
        wrong += timed<5, true, long long, RestartMax<long long>>("seg i64 RestartMax minB 5", lin, hl, n8, lo, copy_gbs, check);
        wrong += timed<4, true, long long, AsmMax64>("seg i64 AsmMax64", lin, hl, n8, lo, copy_gbs, check);
        wrong += timed<5, true, long long, AsmMax64>("seg i64 AsmMax64 minB 5", lin, hl, n8, lo, copy_gbs, check);
        wrong += timed<5, true, long long, Sum<long long>>("seg i64 sum (pace)", lin, hl, n8, lo, copy_gbs, false);
        wrong += timed<5, true, signed char, Max<int>>("seg i8 max select", bin, hb, n, bo, copy_gbs, check);
        wrong += timed<5, true, signed char, IntegerMax<int>>("seg i8 IntegerMax", bin, hb, n, bo, copy_gbs, check);
        wrong += timed<5, true, signed char, AsmOnlyMax<int>>("seg i8 AsmOnlyMax", bin, hb, n, bo, copy_gbs, check);
        wrong += timed<5, true, signed char, IntegerMin<int>>("seg i8 IntegerMin", bin, hb, n, bo, copy_gbs, check);
        wrong += timed<5, true, signed char, Sum<int>>("seg i8 sum (pace)", bin, hb, n, bo, copy_gbs, false);
        // Step 40: segmented sums restarting by selection (RestartSum), with the add as asm
        // (AsmAdd...); and the other int8 operators, unchecked, before and after folded chunks
        // restart by selection (build against the headers before and after).
        wrong += timed<5, true, signed char, Prod<int>>("seg i8 prod (pace)", bin, hb, n, bo, copy_gbs, false);
        wrong += timed<5, true, signed char, BitAnd<int>>("seg i8 and (pace)", bin, hb, n, bo, copy_gbs, false);
        wrong += timed<5, true, signed char, BitOr<int>>("seg i8 or (pace)", bin, hb, n, bo, copy_gbs, false);
        wrong += timed<5, true, signed char, BitXor<int>>("seg i8 xor (pace)", bin, hb, n, bo, copy_gbs, false);
        wrong += timed<5, true, signed char, RestartSum>("seg i8 RestartSum", bin, hb, n, bo, copy_gbs, check);
        wrong += timed<5, true, signed char, AsmAddSum>("seg i8 AsmAddSum", bin, hb, n, bo, copy_gbs, check);
        wrong += timed<5, true, signed char, AsmAddRestartSum>("seg i8 AsmAddRestartSum", bin, hb, n, bo, copy_gbs, check);
        wrong += timed<5, true, int, AsmAddSum>("seg i32 AsmAddSum", iwin, hiw, n, io, copy_gbs, check);
        wrong += timed<4, true, int, AsmAddRestartSum>("seg i32 AsmAddRestartSum minB 4", iwin, hiw, n, io, copy_gbs, check);
#endif
    }
    printf("%s\n", wrong ? "WRONG" : "done");
    return wrong ? 1 : 0;
}
