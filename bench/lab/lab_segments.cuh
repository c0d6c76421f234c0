// What the segmented-reduce labs share (segments_lab.cu, segments_flat_lab.cu): the recipes, the
// classic three launches timed and checked (run), the segment-length distributions, the host
// references and FNV-1a hashes of the outputs, and main (segments_lab_main), which runs every recipe
// over every distribution, the classic kernels first and then the including lab's rows (Extra).
#pragma once
#include "device/segmented_reduce_kernels.cuh"
#include "lab_common.cuh"
#include <cmath>
#include <cstdint>
#include <functional>

namespace seg = primer::segmented;
using primer::KeyIndex;
using Wide = unsigned long long;

using SumF32 = seg::Recipe<float, double, float, primer::Sum<double>>;
using SumF64 = seg::Recipe<double, double, double, primer::Sum<double>>;
using MaxF32 = seg::Recipe<float, float, float, primer::Max<float>>;
using ArgMaxF32 = seg::Recipe<float, KeyIndex<float>, long long, primer::ArgMax<float>>;
using SumI64 = seg::Recipe<long long, __int128, long long, primer::Sum<__int128>>;
using SumExactI32 = seg::Recipe<int32_t, __int128, long long, primer::Sum<__int128>>;

constexpr int BLOCK = seg::Constants::BLOCK_THREADS;

/** segments_small's blocks per SM, as segmented_reduce.cu gives them (BASELINE: two for all). */
template <class Rc> struct SmallBlocks { static constexpr int value = 4; };
template <> struct SmallBlocks<ArgMaxF32> { static constexpr int value = 3; };
template <> struct SmallBlocks<SumI64> { static constexpr int value = 2; };
template <> struct SmallBlocks<SumExactI32> { static constexpr int value = 2; };

template <class Rc, int MINB>
__global__ void __launch_bounds__(BLOCK, MINB) k_small(const typename Rc::T* __restrict__ in, const long long* __restrict__ offsets,
                                                       long long nseg, long long in_length, typename Rc::Out* __restrict__ out,
                                                       unsigned char* __restrict__ scratch) {
    seg::segments_small<Rc, BLOCK>(in, offsets, nseg, in_length, out, scratch);
}
template <class Rc>
__global__ void __launch_bounds__(BLOCK, 2) k_long(const typename Rc::T* __restrict__ in, typename Rc::Out* __restrict__ out,
                                                   unsigned char* __restrict__ scratch) {
#ifdef BASELINE
    seg::segments_long<Rc, BLOCK, seg::Constants::LONG_VECS_PER_THREAD>(in, scratch);
#else
    seg::segments_long<Rc, BLOCK, seg::Constants::LONG_VECS_PER_THREAD>(in, out, scratch);
#endif
}
template <class Rc>
__global__ void __launch_bounds__(BLOCK, 2) k_combine(const long long* __restrict__ offsets, long long nseg,
                                                      typename Rc::Out* __restrict__ out, unsigned char* __restrict__ scratch) {
    seg::segments_combine<Rc, BLOCK>(seg::OffsetStarts{offsets}, nseg, out, scratch);
}

/** This lab's timing: 3 warm-up runs, median of 20. */
template <typename F> static double time_ms(F f) { return time_ms(f, 3, 20); }

static uint64_t fnv1a(const void* p, size_t bytes) {
    const unsigned char* b = static_cast<const unsigned char*>(p);
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < bytes; ++i) { h ^= b[i]; h *= 1099511628211ULL; }
    return h;
}

/** Lengths floor(U^(-1/1.2)) in [1, 2^20] (bench/baselines.py's power law), then cut to end at n. */
static std::vector<long long> powerlaw_offsets(long long n, double empty_share, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<long long> off{0};
    long long total = 0;
    while (total < n) {
        long long len;
        if (empty_share > 0 && u(rng) < empty_share) {
            len = 0;
        } else {
            const double x = std::floor(std::pow(1.0 - u(rng), -1.0 / 1.2));
            len = (long long)std::min(std::max(x, 1.0), (double)(1 << 20));
        }
        len = std::min(len, n - total);
        total += len;
        off.push_back(total);
    }
    return off;
}

static std::vector<long long> uniform_offsets(long long n, int lo, int hi, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<long long> off{0};
    long long total = 0;
    while (total < n) {
        long long len = std::min<long long>(lo + (long long)(rng() % (uint64_t)(hi - lo + 1)), n - total);
        total += len;
        off.push_back(total);
    }
    return off;
}

/** Uniform lo-hi lengths over the first half of n, then one segment of the rest: a fixup across thousands of tiles. */
static std::vector<long long> short_then_giant_offsets(long long n, int lo, int hi, uint64_t seed) {
    std::vector<long long> off = uniform_offsets(n / 2, lo, hi, seed);
    off.push_back(n);
    return off;
}

struct Dist {
    std::string name;
    std::vector<long long> offsets;
};

static int sms;
static double copy_gbs;

/** Host fold of one segment, as the recipe's output; `tolerance` is what a correct GPU result may differ by. */
template <class Rc> struct HostRef;
template <> struct HostRef<SumF32> {
    static bool ok(const float* x, long long b, long long e, float got) {
        double s = 0, a = 0;
        for (long long i = b; i < e; ++i) { s += x[i]; a += std::fabs(x[i]); }
        return std::fabs((double)got - s) <= std::fabs(s) * 6e-8 + a * (e - b) * 2.3e-16 + 1e-30;
    }
};
template <> struct HostRef<SumF64> {
    static bool ok(const double* x, long long b, long long e, double got) {
        long double s = 0, a = 0;
        for (long long i = b; i < e; ++i) { s += x[i]; a += std::fabs(x[i]); }
        return std::fabs((long double)got - s) <= a * (long double)(e - b + 2) * 1.2e-16L + 1e-300L;
    }
};
template <> struct HostRef<MaxF32> {
    static bool ok(const float* x, long long b, long long e, float got) {
        float m = -INFINITY;
        for (long long i = b; i < e; ++i) m = std::max(m, x[i]);
        return std::memcmp(&m, &got, 4) == 0;
    }
};
template <> struct HostRef<ArgMaxF32> {
    static bool ok(const float* x, long long b, long long e, long long got) {
        long long best = -1;
        for (long long i = b; i < e; ++i) if (best < 0 || x[i] > x[b + best]) best = i - b;
        return got == best;
    }
};
template <> struct HostRef<SumI64> {
    static bool ok(const long long* x, long long b, long long e, long long got) {
        long long s = 0;
        for (long long i = b; i < e; ++i) s += x[i];
        return s == got;
    }
};
template <> struct HostRef<SumExactI32> {
    static bool ok(const int32_t* x, long long b, long long e, long long got) {
        long long s = 0;  // |sum| < 2^26 * 2^31: no overflow
        for (long long i = b; i < e; ++i) s += x[i];
        return s == got;
    }
};

template <class Rc, int MINB>
static void run(const char* only, const char* recipe, const Dist& d, const std::vector<typename Rc::T>& host,
                const typename Rc::T* din, const long long* doff, typename Rc::Out* dout, unsigned char* scratch) {
    using Out = typename Rc::Out;
    char name[160];
    snprintf(name, sizeof name, "%s %s B%d", recipe, d.name.c_str(), MINB);
    if (!selected(only, name)) return;
    const long long nseg = (long long)d.offsets.size() - 1, n = d.offsets.back();
    if (nseg == 0) { printf("%-34s no segments: nothing to launch (the host returns)\n", name); return; }
    auto small = k_small<Rc, MINB>;
    int occ;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, small, BLOCK, 0));
    int occ_long;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ_long, k_long<Rc>, BLOCK, 0));
    const long long grid_small = (nseg + 32LL * (BLOCK / 32) - 1) / (32LL * (BLOCK / 32));
    const long long grid_long = (long long)occ_long * sms;
    auto counters = [&]() { CK(cudaMemsetAsync(scratch + 8, 0, 16)); };
    auto all = [&]() {
        small<<<grid_small, BLOCK>>>(din, doff, nseg, n, dout, scratch);
        k_long<Rc><<<grid_long, BLOCK>>>(din, dout, scratch);
        k_combine<Rc><<<grid_long, BLOCK>>>(doff, nseg, dout, scratch);
        counters();
    };
    auto small_only = [&]() { small<<<grid_small, BLOCK>>>(din, doff, nseg, n, dout, scratch); counters(); };
    CK(cudaMemset(dout, 0xff, nseg * sizeof(Out)));
    const double ms = time_ms(all);
    std::vector<Out> got(nseg);
    CK(cudaMemcpy(got.data(), dout, nseg * sizeof(Out), cudaMemcpyDeviceToHost));
    const double ms_small = time_ms(small_only);
    long long bad = 0;
    for (long long s = 0; s < nseg; ++s) {
        if (!HostRef<Rc>::ok(host.data(), d.offsets[s], d.offsets[s + 1], got[s])) {
            if (bad < 3) printf("  MISMATCH %s segment %lld [%lld, %lld)\n", name, s, d.offsets[s], d.offsets[s + 1]);
            ++bad;
        }
    }
    const double bytes = (double)n * sizeof(typename Rc::T) + 8.0 * (nseg + 1) + (double)nseg * sizeof(Out);
    printf("%-34s occ %d: all %.4f ms %6.1f GB/s %5.1f%% copy | small+reset %.4f ms | long+combine %.4f | %s hash %016llx\n",
           name, occ, ms, bytes / ms / 1e6, 100.0 * bytes / ms / 1e6 / copy_gbs, ms_small, ms - ms_small,
           bad ? "FAILED" : "ok", (unsigned long long)fnv1a(got.data(), nseg * sizeof(Out)));
    fflush(stdout);
}

/** Every distribution: the classic launches, then Extra::rows<Rc> (another lab's variants) on the same buffers. */
template <class Extra, class Rc>
static void recipe_rows(const char* only, const char* recipe, const std::vector<Dist>& dists,
                        const std::vector<typename Rc::T>& host, const typename Rc::T* din, unsigned char* scratch) {
    for (const Dist& d : dists) {
        const long long nseg = (long long)d.offsets.size() - 1;
        long long* doff;
        typename Rc::Out* dout;
        CK(cudaMalloc(&doff, 8 * (nseg + 1)));
        CK(cudaMalloc(&dout, sizeof(typename Rc::Out) * std::max(1LL, nseg)));
        CK(cudaMemcpy(doff, d.offsets.data(), 8 * (nseg + 1), cudaMemcpyHostToDevice));
#ifdef BASELINE
        run<Rc, 2>(only, recipe, d, host, din, doff, dout, scratch);
#else
        run<Rc, SmallBlocks<Rc>::value>(only, recipe, d, host, din, doff, dout, scratch);
#endif
        Extra::template rows<Rc>(only, recipe, d, host, din, doff, dout, scratch);
        CK(cudaFree(doff));
        CK(cudaFree(dout));
    }
}

/** No rows beside the classic ones. */
struct ClassicOnly {
    template <class Rc>
    static void rows(const char*, const char*, const Dist&, const std::vector<typename Rc::T>&, const typename Rc::T*,
                     const long long*, typename Rc::Out*, unsigned char*) {}
};

/** The lab's main: inputs, distributions, every recipe; scratch of at least scratch_min bytes. */
template <class Extra>
static int segments_lab_main(int argc, char** argv, long long scratch_min) {
    const char* only = argc > 1 ? argv[1] : nullptr;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const long long n = 1LL << 26;
    std::mt19937_64 rng(11);
    std::vector<float> hf(n);
    std::vector<double> hd(n);
    std::vector<long long> hl(n);
    std::vector<int32_t> hi(n);
    for (auto& v : hf) v = (float)((double)(rng() >> 11) / 9007199254740992.0 * 2 - 1);
    for (auto& v : hd) v = (double)(rng() >> 11) / 9007199254740992.0 * 2 - 1;
    for (auto& v : hl) v = (long long)(rng() % 2000001) - 1000000;
    for (auto& v : hi) v = (int32_t)(uint32_t)rng();
    float* df; double* dd; long long* dl; int32_t* di; unsigned char* scratch;
    CK(cudaMalloc(&df, n * 4)); CK(cudaMalloc(&dd, n * 8)); CK(cudaMalloc(&dl, n * 8)); CK(cudaMalloc(&di, n * 4));
    CK(cudaMemcpy(di, hi.data(), n * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(df, hf.data(), n * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dd, hd.data(), n * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dl, hl.data(), n * 8, cudaMemcpyHostToDevice));
    const long long scratch_bytes = seg::Constants::HEADER_BYTES + 2 * seg::Constants::MAX_CHUNKS * seg::Constants::SLOT_BYTES
                                    + 2 * seg::Constants::MAX_CHUNKS * (long long)sizeof(seg::LongWork) + seg::Constants::MAX_CHUNKS * 8;
    CK(cudaMalloc(&scratch, std::max(scratch_bytes, scratch_min)));
    CK(cudaMemset(scratch, 0, std::max(scratch_bytes, scratch_min)));
    {
        float* cp; CK(cudaMalloc(&cp, n * 8));
        const double ms = time_ms([&]() { CK(cudaMemcpyAsync(cp, dd, n * 8, cudaMemcpyDeviceToDevice)); });
        copy_gbs = 16.0 * n / ms / 1e6;
        printf("memcpy d2d 2^26 x 8 bytes: %.4f ms %.1f GB/s (read + write)\n", ms, copy_gbs);
        CK(cudaFree(cp));
    }
    std::vector<Dist> dists = {
        {"powerlaw", powerlaw_offsets(n, 0.0, 3)},
        {"powerlaw+25%empty", powerlaw_offsets(n, 0.25, 4)},
        {"uniform1-8", uniform_offsets(n, 1, 8, 5)},
        {"uniform1-32", uniform_offsets(n, 1, 32, 6)},
        {"fixed100", uniform_offsets(n, 100, 100, 7)},
        {"fixed1", uniform_offsets(n, 1, 1, 8)},
        {"fixed3000", uniform_offsets(n, 3000, 3000, 9)},
        {"short+giant", short_then_giant_offsets(n, 1, 32, 10)},
    };
    for (const Dist& d : dists) printf("%s: %zu segments\n", d.name.c_str(), d.offsets.size() - 1);
    recipe_rows<Extra, SumF32>(only, "sum_f32", dists, hf, df, scratch);
    recipe_rows<Extra, MaxF32>(only, "max_f32", dists, hf, df, scratch);
    recipe_rows<Extra, ArgMaxF32>(only, "argmax_f32", dists, hf, df, scratch);
    recipe_rows<Extra, SumF64>(only, "sum_f64", dists, hd, dd, scratch);
    recipe_rows<Extra, SumI64>(only, "sum_i64", dists, hl, dl, scratch);
    recipe_rows<Extra, SumExactI32>(only, "sum_exact_i32", dists, hi, di, scratch);
    {
        // An input one element off a 16-byte boundary, small sizes: the window's edges.
        std::vector<Dist> small_dists;
        for (long long m : {0LL, 1LL, 31LL, 33LL, 1000LL, 4097LL, 100003LL}) {
            std::vector<long long> off = powerlaw_offsets(m, 0.2, 100 + m);
            small_dists.push_back({"offby1 n=" + std::to_string(m), off});
        }
        std::vector<float> shifted(hf.begin() + 1, hf.begin() + 1 + 200000);
        recipe_rows<Extra, SumF32>(only, "sum_f32", small_dists, shifted, df + 1, scratch);
        std::vector<double> shifted_d(hd.begin() + 1, hd.begin() + 1 + 200000);
        recipe_rows<Extra, SumF64>(only, "sum_f64", small_dists, shifted_d, dd + 1, scratch);
    }
    printf("done\n");
    return 0;
}
