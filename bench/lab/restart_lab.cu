// Scan lab: segmented scans whose chunk scan restarts a segment by selection,
// (head ? init : element k - 1) op x (RestartBySelect, device/scan/operator_traits.cuh), for the
// operators that took the pair operator until step 41: int64 sums, products and bitwise operators,
// float64 sums, products and float keys' min and max, int32 and float32 sums, products and bitwise
// operators. Steps 38-39 took it for 32-bit min and max and int64 min and max, where it also cut
// registers (float32 keys 60 -> 42). Each operator runs as production compiles it ("production",
// at scan.cu's blocks per SM and at the other count where it is a candidate) and as Restarting<Op>,
// the same operator with RestartBySelect ("restart"), by flags and by offsets (production's
// OffsetHeads and tile-starts kernel). Int8 rows ("i8") run production's operators at 5 and 4
// blocks per SM: folded int8 chunks restart by selection (FOLD RESTARTS, scan_kernels.cuh).
// Step 41 built it three times: against the headers before (b92eb28) and after the step, and once
// against a copy of the earlier headers whose int8 chunks restart by offsets too (-DONLY_I8: the
// int8 rows only); bench/results/2026-11-23-nvidia-h200-lab.md.
//
// Checks: the production kernel by flags against a host fold (exact for integers; float64 keys'
// max and min as Math.max/Math.min on data without NaN; float sums within 1e-5 of a float64
// prefix; float products not checked on the host), and every other path (production by offsets,
// each candidate by flags and by offsets) bit for bit against it: restarting by selection combines
// the same operands in the same order, and element 0 is a head by flags and by offsets alike (since
// step 41; before it, the same segments gave float sums and products other bits by offsets when
// flags[0] was set and the init was not the identity), so the bits must agree. The first two
// elements that differ are printed. Small, misaligned sizes (1 .. 3000001 at element offsets 0, 1,
// 3; inclusive and exclusive; heads one in 3 and one in 1024; an init from the data) first, then
// 2^27 - 3 8-byte or 2^28 - 3 4-byte and 1-byte elements, a head in about 1024, every output.
//   nvcc -std=c++17 -O3 -arch=sm_90 -I primer-core/src/main/cuda -o .lab/restart bench/lab/restart_lab.cu
// argv[1]: comma-separated parts of the row names to run (e.g. "f64,i64 and").
// Design measurements; a standalone harness, not built by Maven.
#include "device/scan_kernels.cuh"
#include "lab_common.cuh"
#include "lab_host_ops.cuh"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace primer;

/** The operator Op, its chunk scan restarting segments by selection. */
template <typename Op> struct Restarting : Op {};
namespace primer {
template <typename Op> struct TreeLookback<Restarting<Op>> { static constexpr bool value = TreeLookback<Op>::value; };
template <typename Op> struct WrapsExactly<Restarting<Op>> { static constexpr bool value = WrapsExactly<Op>::value; };
template <typename Op> struct Commutative<Restarting<Op>> { static constexpr bool value = Commutative<Op>::value; };
template <typename Op> struct RestartBySelect<Restarting<Op>> { static constexpr bool value = true; };
template <typename Op> struct ScanValues<Restarting<Op>> : ScanValues<Op> {};
}  // namespace primer

// ---- host folds (V: the operator's value type; int8 scans combine in int) ----

template <typename Op> struct Base { using type = Op; static constexpr bool RESTARTING = false; };
template <typename Op> struct Base<Restarting<Op>> { using type = Op; static constexpr bool RESTARTING = true; };

template <typename V> static V java_max(V a, V b) { return a == b ? (std::signbit(a) ? b : a) : a > b ? a : b; }  // no NaN
template <typename V> static V java_min(V a, V b) { return a == b ? (std::signbit(a) ? a : b) : a < b ? a : b; }
template <typename Op, typename V> struct HostOp : Host<Op, V> {};
template <typename V> struct HostOp<BitAnd<V>, V> { static V apply(V a, V b) { return a & b; } };
template <typename V> struct HostOp<BitOr<V>, V> { static V apply(V a, V b) { return a | b; } };
template <typename V> struct HostOp<BitXor<V>, V> { static V apply(V a, V b) { return a ^ b; } };
template <typename V, bool MAX> struct HostOp<IntegerExtreme<V, MAX>, V> {
    static V apply(V a, V b) { return MAX ? std::max(a, b) : std::min(a, b); }
};
template <bool MAX> struct HostDouble { static double apply(double a, double b) { return MAX ? java_max(a, b) : java_min(a, b); } };

/** Whether the production path's outputs are checked against the host (float64 products are not). */
template <typename Op, typename T> struct HostChecked { static constexpr bool value = true; };
template <> struct HostChecked<Prod<double>, double> { static constexpr bool value = false; };
template <> struct HostChecked<Prod<float>, float> { static constexpr bool value = false; };

/** Wrong outputs of a production scan: the host fold from init, restarting at heads (flags[i] != 0, i > 0). */
template <typename Op, typename T>
static long long host_wrong(const std::vector<T>& got, const T* hin, const signed char* flags, long long n, T init, int inclusive) {
    if constexpr (!HostChecked<Op, T>::value) {
        return 0;
    } else if constexpr (std::is_same<Op, FloatKeyMax<double>>::value || std::is_same<Op, FloatKeyMin<double>>::value) {
        using H = HostDouble<std::is_same<Op, FloatKeyMax<double>>::value>;
        long long bad = 0;
        double acc = init;
        for (long long i = 0; i < n; ++i) {
            if (i > 0 && flags[i]) acc = init;
            const double before = acc;
            acc = H::apply(acc, hin[i]);
            bad += bits_of(got[i]) != bits_of(inclusive ? acc : before);
        }
        return bad;
    } else if constexpr (std::is_same<Op, Sum<T>>::value && std::is_floating_point<T>::value) {
        std::vector<signed char> heads(flags, flags + n);
        return wrong_outputs<Op, T>(got, std::vector<T>(hin, hin + n), &heads, 0, n, init, inclusive);
    } else {
        using V = decltype(Op::identity());
        long long bad = 0;
        V acc = (V)init;
        for (long long i = 0; i < n; ++i) {
            if (i > 0 && flags[i]) acc = (V)init;
            const V before = acc;
            acc = HostOp<Op, V>::apply(acc, (V)hin[i]);
            bad += bits_of(got[i]) != bits_of((T)(inclusive ? acc : before));
        }
        return bad;
    }
}

// ---- kernels ----

template <typename T> using Shape = ScanShape<T, true>;

template <int MINB, typename T, typename Op>
__global__ void __launch_bounds__(256, MINB) k_flags(const T* in, const signed char* flags, T* out, long long n, long long tiles,
                                                      long long init_bits, int inclusive, unsigned char* scratch, unsigned epoch) {
    device_scan<Shape<T>::BLOCK_THREADS, Shape<T>::ROWS, T, T, Op>(in, out, n, tiles, init_bits, inclusive, scratch, epoch,
                                                                 FlagHeads{flags});
}
__device__ unsigned long long lab_open_gate = 1;  // OffsetHeads::gate: always open here

template <int MINB, typename T, typename Op>
__global__ void __launch_bounds__(256, MINB) k_offsets(const T* in, const long long* offsets, const long long* tile_first, T* out,
                                                        long long n, long long tiles, long long init_bits, int inclusive,
                                                        unsigned char* scratch, unsigned epoch) {
    using Heads = OffsetHeads<Shape<T>::TILE_ITEMS, Shape<T>::BLOCK_THREADS>;
    device_scan<Shape<T>::BLOCK_THREADS, Shape<T>::ROWS, T, T, Op>(in, out, n, tiles, init_bits, inclusive, scratch, epoch,
                                                                 Heads{offsets, tile_first, 0, segment_head_slots(tile_first, tiles), &lab_open_gate});
}
__global__ void k_tile_starts(const long long* offsets, long long segments, long long shift, long long tile_items, long long tiles,
                              long long* tile_first) {
    segment_tile_starts(offsets, segments, 0, shift, tile_items, tiles, tile_first);
}

static const char* only = nullptr;
static unsigned char* scratch;
static unsigned epoch_counter = 0;
static long long* tile_first;

/** Segments of in[0, n): head flags (element 0 implied) and the same as offsets, on the device. */
struct Segments {
    const signed char* flags_host;  // flags_host[i]: element i starts a segment (i > 0)
    const signed char* flags;       // device, aligned with in
    long long* offsets = nullptr;
    long long segments = 0;
    Segments(const signed char* host, const signed char* device, long long n) : flags_host(host), flags(device) {
        std::vector<long long> o{0};
        for (long long i = 1; i < n; ++i)
            if (host[i]) o.push_back(i);
        o.push_back(n);
        segments = (long long)o.size() - 1;
        CK(cudaMalloc(&offsets, 8 * o.size()));
        CK(cudaMemcpy(offsets, o.data(), 8 * o.size(), cudaMemcpyHostToDevice));
    }
    ~Segments() { cudaFree(offsets); }
};

template <typename T, typename Op, int MINB> struct Path {
    using Type = T;
    using Operator = Op;
    static constexpr int BLOCKS = MINB;
};

/** One path's scan (by offsets: the tile starts, then the scan), timed when ms is given. */
template <typename P>
static int scan(bool by_offsets, const typename P::Type* in, const Segments& s, typename P::Type* out, long long n,
                typename P::Type init, int inclusive, double* ms) {
    using T = typename P::Type;
    const long long shift = (long long)((reinterpret_cast<unsigned long long>(in) % 16) / sizeof(T));
    const long long tile = Shape<T>::TILE_ITEMS, tiles = (n + shift + tile - 1) / tile;
    auto launch = [&]() {
        if (by_offsets) {
            k_tile_starts<<<((tiles + 1) * primer::ScanPolicyConstants::SEGMENT_STARTS_LANES + 255) / 256, 256>>>(s.offsets, s.segments, shift, tile, tiles, tile_first);
            k_offsets<P::BLOCKS, T, typename P::Operator><<<tiles, 256>>>(in, s.offsets, tile_first, out, n, tiles,
                                                                         (long long)bits_of(init), inclusive, scratch, ++epoch_counter);
        } else {
            k_flags<P::BLOCKS, T, typename P::Operator><<<tiles, 256>>>(in, s.flags, out, n, tiles, (long long)bits_of(init),
                                                                       inclusive, scratch, ++epoch_counter);
        }
    };
    if (ms) *ms = time_ms(launch, 5, 20);
    else launch();
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    cudaFuncAttributes fa;
    if (by_offsets) CK(cudaFuncGetAttributes(&fa, k_offsets<P::BLOCKS, T, typename P::Operator>));
    else CK(cudaFuncGetAttributes(&fa, k_flags<P::BLOCKS, T, typename P::Operator>));
    return fa.numRegs * 1000 + (int)fa.localSizeBytes;
}

/** A path's name: "restart" for a Restarting operator, else "production" (its operator), and its blocks per SM. */
template <typename P> static std::string path_name() {
    return std::string(Base<typename P::Operator>::RESTARTING ? "restart" : "production") + " minB " + std::to_string(P::BLOCKS);
}

/**
 * Runs the first path (production) by flags and checks it against the host; then every path by
 * flags and by offsets, compared with it bit for bit. Returns the wrong count; prints a row per
 * path when timed.
 */
template <typename T, typename Ref, typename... Cands>
static long long family(const char* name, const T* in, const T* hin, const Segments& s, T* out, long long n, T init, int inclusive,
                        bool timed, double copy_gbs) {
    std::vector<T> want(n), got(n);
    CK(cudaMemset(out, 0xa5, n * sizeof(T)));
    double ms = 0;
    int attr = scan<Ref>(false, in, s, out, n, init, inclusive, timed ? &ms : nullptr);
    CK(cudaMemcpy(want.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost));
    using Op = typename Base<typename Ref::Operator>::type;
    long long wrong = host_wrong<Op, T>(want, hin, s.flags_host, n, init, inclusive);
    const double bytes = (2.0 * sizeof(T) + 1) * n;  // values in and out, and the flag byte (offsets: the same, for comparison)
    auto row = [&](const std::string& path, bool by_offsets, double t, int a, long long bad) {
        if (timed)
            printf("%-10s %-9s %-20s regs %3d local %3d  %.4f ms %5.1f%% of memcpy  %s\n", name, by_offsets ? "offsets" : "flags",
                   path.c_str(), a / 1000, a % 1000, t, 100.0 * bytes / t / 1e6 / copy_gbs, bad ? "WRONG" : "ok");
        if (bad && !timed)
            printf("  %s %s %s n %lld inclusive %d: %lld WRONG\n", name, by_offsets ? "offsets" : "flags", path.c_str(), n, inclusive, bad);
    };
    row(path_name<Ref>(), false, ms, attr, wrong);
    auto other = [&](auto path, bool by_offsets) {
        using P = decltype(path);
        CK(cudaMemset(out, 0xa5, n * sizeof(T)));
        const int a = scan<P>(by_offsets, in, s, out, n, init, inclusive, timed ? &ms : nullptr);
        CK(cudaMemcpy(got.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost));
        long long bad = 0;
        for (long long i = 0; i < n; ++i) {
            if (bits_of(got[i]) != bits_of(want[i]) && !timed && bad < 2) {
                printf("    at %lld of %lld (head %d, inclusive %d): got %.9g (%llx), flags path %.9g (%llx), init %.9g, x %.9g\n", i, n,
                       (int)s.flags_host[i], inclusive, (double)got[i], (unsigned long long)bits_of(got[i]), (double)want[i],
                       (unsigned long long)bits_of(want[i]), (double)init, (double)hin[i]);
            }
            bad += bits_of(got[i]) != bits_of(want[i]);
        }
        row(path_name<P>(), by_offsets, ms, a, bad);
        wrong += bad;
    };
    other(Ref{}, true);
    (other(Cands{}, false), ...);
    (other(Cands{}, true), ...);
    if (timed) fflush(stdout);
    return wrong;
}

/** Data of one element type on the host and the device, with flags a head in 3 and in 1024. */
template <typename T> struct Data {
    long long n;
    std::vector<T> host;
    T* dev;
    std::vector<signed char> flags3, flags1024;
    signed char *dflags3, *dflags1024;
    Data(long long count, uint64_t seed) : n(count), host(count), flags3(count), flags1024(count) {
        std::mt19937_64 rng(seed);
        for (auto& x : host) {
            const uint64_t r = rng();
            if constexpr (std::is_floating_point<T>::value) {
                const int pick = (int)(r % 200);
                x = pick == 0 ? (T)0.0 : pick == 1 ? (T)-0.0 : (T)((double)(rng() >> 11) / 9007199254740992.0 * 2 - 1);
            } else {
                const int pick = (int)(r >> 52);  // the type's extremes about one in 4096 each
                x = pick == 0 ? std::numeric_limits<T>::min() : pick == 1 ? std::numeric_limits<T>::max() : (T)r;
            }
        }
        for (long long i = 0; i < n; ++i) {
            const uint64_t r = rng();
            flags3[i] = r % 3 == 0 ? (signed char)(1 + (r >> 8) % 127) : 0;  // any nonzero byte starts a segment
            flags1024[i] = (r >> 16) % 1024 == 0;
        }
        CK(cudaMalloc(&dev, n * sizeof(T)));
        CK(cudaMalloc(&dflags3, n));
        CK(cudaMalloc(&dflags1024, n));
        CK(cudaMemcpy(dev, host.data(), n * sizeof(T), cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dflags3, flags3.data(), n, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dflags1024, flags1024.data(), n, cudaMemcpyHostToDevice));
    }
};

/** Small and misaligned sizes, then the timed size, for one operator's paths. */
template <typename T, typename Ref, typename... Cands>
static long long rows(const char* name, const Data<T>& d, T* out, double copy_gbs) {
    if (!selected(only, name)) return 0;
    long long wrong = 0;
    for (long long n : {1LL, 2LL, 31LL, 33LL, 4097LL, 100003LL, 3000001LL})
        for (long long offset : {0LL, 1LL, 3LL})
            for (int density : {3, 1024}) {
                const std::vector<signed char>& f = density == 3 ? d.flags3 : d.flags1024;
                const Segments s(f.data() + offset, (density == 3 ? d.dflags3 : d.dflags1024) + offset, n);
                for (int inclusive = 0; inclusive < 2; ++inclusive) {
                    const T init = d.host[(n * 7 + offset) % d.n];
                    wrong += family<T, Ref, Cands...>(name, d.dev + offset, d.host.data() + offset, s, out, n, init, inclusive, false,
                                                      copy_gbs);
                }
            }
    printf("small %-10s %s\n", name, wrong ? "WRONG" : "ok");
    const Segments s(d.flags1024.data(), d.dflags1024, d.n);
    wrong += family<T, Ref, Cands...>(name, d.dev, d.host.data(), s, out, d.n, d.host[5], 1, true, copy_gbs);
    return wrong;
}

int main(int argc, char** argv) {
    if (argc > 1) only = argv[1];
    const long long n = (1LL << 28) - 3, n8 = (1LL << 27) - 3;
    const long long max_tiles = n / 2048 + 16;
    CK(cudaMalloc(&scratch, 16 + 128 * max_tiles));
    CK(cudaMemset(scratch, 0, 16 + 128 * max_tiles));
    CK(cudaMalloc(&tile_first, 8 * (max_tiles + 1) + 4 * ScanPolicyConstants::SEGMENT_HEAD_SLOTS * max_tiles + 128));
    void* out;
    CK(cudaMalloc(&out, n * 4));
    double copy_gbs;
    {
        void* a;
        CK(cudaMalloc(&a, n * 4));
        copy_gbs = 2.0 * n * 4 / time_ms([&]() { CK(cudaMemcpyAsync(a, out, n * 4, cudaMemcpyDeviceToDevice)); }, 5, 20) / 1e6;
        CK(cudaFree(a));
        printf("memcpy %.1f GB/s (read + write)\n", copy_gbs);
    }
    long long wrong = 0;
#ifndef ONLY_I8
    {
        const Data<long long> d(n8, 41);
        long long* o = (long long*)out;
        using T = long long;
        wrong += rows<T, Path<T, Sum<T>, 5>, Path<T, Restarting<Sum<T>>, 5>>("i64 sum", d, o, copy_gbs);
        wrong += rows<T, Path<T, Prod<T>, 4>, Path<T, Restarting<Prod<T>>, 4>>("i64 prod", d, o, copy_gbs);
        wrong += rows<T, Path<T, BitAnd<T>, 4>, Path<T, Restarting<BitAnd<T>>, 4>>("i64 and", d, o, copy_gbs);
        wrong += rows<T, Path<T, BitOr<T>, 4>, Path<T, Restarting<BitOr<T>>, 4>>("i64 or", d, o, copy_gbs);
        wrong += rows<T, Path<T, BitXor<T>, 4>, Path<T, Restarting<BitXor<T>>, 4>>("i64 xor", d, o, copy_gbs);
        wrong += rows<T, Path<T, IntegerMax<T>, 4>, Path<T, IntegerMax<T>, 5>>("i64 max", d, o, copy_gbs);  // restarts already
        wrong += rows<T, Path<T, IntegerMin<T>, 4>, Path<T, IntegerMin<T>, 5>>("i64 min", d, o, copy_gbs);
    }
    {
        const Data<double> d(n8, 42);
        double* o = (double*)out;
        using T = double;
        wrong += rows<T, Path<T, Sum<T>, 5>, Path<T, Restarting<Sum<T>>, 5>>("f64 sum", d, o, copy_gbs);
        wrong += rows<T, Path<T, Prod<T>, 5>, Path<T, Restarting<Prod<T>>, 5>>("f64 prod", d, o, copy_gbs);
        wrong += rows<T, Path<T, FloatKeyMax<T>, 4>, Path<T, FloatKeyMax<T>, 5>, Path<T, Restarting<FloatKeyMax<T>>, 4>,
                      Path<T, Restarting<FloatKeyMax<T>>, 5>>("f64 max", d, o, copy_gbs);
        wrong += rows<T, Path<T, FloatKeyMin<T>, 4>, Path<T, FloatKeyMin<T>, 5>, Path<T, Restarting<FloatKeyMin<T>>, 4>,
                      Path<T, Restarting<FloatKeyMin<T>>, 5>>("f64 min", d, o, copy_gbs);
    }
    {
        const Data<int> d(n, 43);
        int* o = (int*)out;
        using T = int;
        wrong += rows<T, Path<T, Sum<T>, 5>, Path<T, Restarting<Sum<T>>, 5>>("i32 sum", d, o, copy_gbs);
        wrong += rows<T, Path<T, Prod<T>, 5>, Path<T, Restarting<Prod<T>>, 5>>("i32 prod", d, o, copy_gbs);
        wrong += rows<T, Path<T, BitAnd<T>, 5>, Path<T, Restarting<BitAnd<T>>, 5>>("i32 and", d, o, copy_gbs);
        wrong += rows<T, Path<T, BitOr<T>, 5>, Path<T, Restarting<BitOr<T>>, 5>>("i32 or", d, o, copy_gbs);
        wrong += rows<T, Path<T, BitXor<T>, 5>, Path<T, Restarting<BitXor<T>>, 5>>("i32 xor", d, o, copy_gbs);
    }
    {
        const Data<float> d(n, 45);
        float* o = (float*)out;
        using T = float;
        wrong += rows<T, Path<T, Sum<T>, 5>, Path<T, Restarting<Sum<T>>, 5>>("f32 sum", d, o, copy_gbs);
        wrong += rows<T, Path<T, Prod<T>, 5>, Path<T, Restarting<Prod<T>>, 5>>("f32 prod", d, o, copy_gbs);
    }
#endif
    {
        const Data<signed char> d(n, 44);
        signed char* o = (signed char*)out;
        using T = signed char;
        wrong += rows<T, Path<T, Sum<int>, 5>, Path<T, Sum<int>, 4>>("i8 sum", d, o, copy_gbs);
        wrong += rows<T, Path<T, Prod<int>, 5>, Path<T, Prod<int>, 4>>("i8 prod", d, o, copy_gbs);
        wrong += rows<T, Path<T, BitAnd<int>, 5>, Path<T, BitAnd<int>, 4>>("i8 and", d, o, copy_gbs);
        wrong += rows<T, Path<T, BitOr<int>, 5>, Path<T, BitOr<int>, 4>>("i8 or", d, o, copy_gbs);
        wrong += rows<T, Path<T, BitXor<int>, 5>, Path<T, BitXor<int>, 4>>("i8 xor", d, o, copy_gbs);
        wrong += rows<T, Path<T, IntegerMax<int>, 5>, Path<T, IntegerMax<int>, 4>>("i8 max", d, o, copy_gbs);
        wrong += rows<T, Path<T, IntegerMin<int>, 5>, Path<T, IntegerMin<int>, 4>>("i8 min", d, o, copy_gbs);
    }
    printf("%s\n", wrong ? "WRONG" : "all ok");
    return wrong ? 1 : 0;
}
