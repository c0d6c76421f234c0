// Merge-path segmented reduce lab: the flat kernels (segments_flat_partition[_thread],
// segments_flat, segments_flat2, segments_flat_fixup in segments_flat.cuh, here) beside the classic three launches
// (segments_small, segments_long, segments_combine) on 2^26 values under several segment-length
// distributions, for float32 and float64 sums, float32 max and argmax and exact int64 sums, at a few
// items per thread. Every output is poisoned before the runs and checked against a host fold; each
// row prints an FNV-1a hash of the output bits (a flat row is run twice and must hash the same).
// Row names: flat<ITEMS> = segments_flat, staged results, warp partition; a "d" = results straight to
// out, a "t" = the partition by a thread per boundary; "v2_" = segments_flat2 (cp.async staging, a
// walk without branches); "v3_" = segments_flat3 (the open segment's end in a register, 16-bit bounds). It needs a copy of the headers with segments_flat.patch applied
// (Segmented/SegmentedOp moved to ops.cuh, 128-bit shuffles without local memory):
//   mkdir -p /tmp/flat && git archive HEAD primer-core/src/main/cuda | tar -x -C /tmp/flat
//   (cd /tmp/flat && patch -p1 < $OLDPWD/bench/lab/segments_flat.patch)
//   nvcc -std=c++17 -O3 -arch=sm_90 -I /tmp/flat/primer-core/src/main/cuda -o .lab/segments_flat_lab bench/lab/segments_flat_lab.cu
// argv[1]: optional comma-separated parts of row names to run (lab_common.cuh's selected()).
#include "segments_flat.cuh"
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

constexpr int BLOCK = seg::Constants::BLOCK_THREADS;

/** segments_small's blocks per SM, as segmented_reduce.cu gives them. */
template <class Rc> struct SmallBlocks { static constexpr int value = 4; };
template <> struct SmallBlocks<ArgMaxF32> { static constexpr int value = 3; };
template <> struct SmallBlocks<SumI64> { static constexpr int value = 2; };

template <class Rc, int MINB>
__global__ void __launch_bounds__(BLOCK, MINB) k_small(const typename Rc::T* __restrict__ in, const long long* __restrict__ offsets,
                                                       long long nseg, long long in_length, typename Rc::Out* __restrict__ out,
                                                       unsigned char* __restrict__ scratch) {
    seg::segments_small<Rc, BLOCK>(in, offsets, nseg, in_length, out, scratch);
}
template <class Rc>
__global__ void __launch_bounds__(BLOCK, 2) k_long(const typename Rc::T* __restrict__ in, typename Rc::Out* __restrict__ out,
                                                   unsigned char* __restrict__ scratch) {
    seg::segments_long<Rc, BLOCK, seg::Constants::LONG_VECS_PER_THREAD>(in, out, scratch);
}
template <class Rc>
__global__ void __launch_bounds__(BLOCK, 2) k_combine(const long long* __restrict__ offsets, long long nseg,
                                                      typename Rc::Out* __restrict__ out, unsigned char* __restrict__ scratch) {
    seg::segments_combine<Rc, BLOCK>(seg::OffsetStarts{offsets}, nseg, out, scratch);
}


template <int B>
__global__ void __launch_bounds__(B) k_partition(const long long* __restrict__ offsets, long long nseg, long long in_length,
                                                 long long tile_items, long long tiles, unsigned char* __restrict__ scratch) {
    seg::segments_flat_partition<B>(offsets, nseg, in_length, tile_items, tiles, scratch);
}
template <int B>
__global__ void __launch_bounds__(B) k_partition_thread(const long long* __restrict__ offsets, long long nseg, long long in_length,
                                                        long long tile_items, long long tiles, unsigned char* __restrict__ scratch) {
    seg::segments_flat_partition_thread<B>(offsets, nseg, in_length, tile_items, tiles, scratch);
}
template <class Rc, int ITEMS, bool DIRECT>
__global__ void __launch_bounds__(BLOCK) k_flat(const typename Rc::T* __restrict__ in, const long long* __restrict__ offsets,
                                                long long nseg, long long in_length, long long tiles,
                                                typename Rc::Out* __restrict__ out, unsigned char* __restrict__ scratch) {
    seg::segments_flat<Rc, BLOCK, ITEMS, DIRECT>(in, offsets, nseg, in_length, tiles, out, scratch);
}
template <class Rc, int ITEMS>
__global__ void __launch_bounds__(BLOCK) k_flat2(const typename Rc::T* __restrict__ in, const long long* __restrict__ offsets,
                                                 long long nseg, long long in_length, long long tiles,
                                                 typename Rc::Out* __restrict__ out, unsigned char* __restrict__ scratch) {
    seg::segments_flat2<Rc, BLOCK, ITEMS>(in, offsets, nseg, in_length, tiles, out, scratch);
}
template <class Rc, int ITEMS>
__global__ void __launch_bounds__(BLOCK) k_flat3(const typename Rc::T* __restrict__ in, const long long* __restrict__ offsets,
                                                 long long nseg, long long in_length, long long tiles,
                                                 typename Rc::Out* __restrict__ out, unsigned char* __restrict__ scratch) {
    seg::segments_flat3<Rc, BLOCK, ITEMS>(in, offsets, nseg, in_length, tiles, out, scratch);
}
template <class Rc, int ITEMS>
__global__ void __launch_bounds__(BLOCK) k_flat4(const typename Rc::T* __restrict__ in, const long long* __restrict__ offsets,
                                                 long long nseg, long long in_length, long long tiles,
                                                 typename Rc::Out* __restrict__ out, unsigned char* __restrict__ scratch) {
    seg::segments_flat4<Rc, BLOCK, ITEMS>(in, offsets, nseg, in_length, tiles, out, scratch);
}
template <class Rc>
__global__ void __launch_bounds__(BLOCK) k_fixup(const long long* __restrict__ offsets, long long nseg, long long in_length,
                                                 long long tile_items, long long tiles, typename Rc::Out* __restrict__ out,
                                                 unsigned char* __restrict__ scratch) {
    seg::segments_flat_fixup<Rc, BLOCK>(offsets, nseg, in_length, tile_items, tiles, out, scratch);
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


/**
 * The three flat launches at ITEMS steps per thread (DIRECT: results straight to out; THREADS: the
 * partition by a thread per boundary); checked, hashed, run twice (same bits).
 */
template <class Rc, int ITEMS, bool DIRECT = false, bool THREADS = false, bool V2 = false, bool V3 = false, bool V4 = false>
static void flat(const char* only, const char* recipe, const Dist& d, const std::vector<typename Rc::T>& host,
                 const typename Rc::T* din, const long long* doff, typename Rc::Out* dout, unsigned char* scratch) {
    using Out = typename Rc::Out;
    char name[160];
    snprintf(name, sizeof name, "%s %s flat%s%d%s%s", recipe, d.name.c_str(), V4 ? "v4_" : V3 ? "v3_" : V2 ? "v2_" : "", ITEMS, DIRECT ? "d" : "", THREADS ? "t" : "");
    if (!selected(only, name)) return;
    const long long nseg = (long long)d.offsets.size() - 1, n = d.offsets.back();
    if (nseg == 0) return;
    constexpr long long TILE = (long long)BLOCK * ITEMS;
    const long long tiles = (n + nseg + TILE - 1) / TILE;
    int occ;
    if constexpr (V4) CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k_flat4<Rc, ITEMS>, BLOCK, 0));
    else if constexpr (V3) CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k_flat3<Rc, ITEMS>, BLOCK, 0));
    else if constexpr (V2) CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k_flat2<Rc, ITEMS>, BLOCK, 0));
    else CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k_flat<Rc, ITEMS, DIRECT>, BLOCK, 0));
    auto partition_only = [&]() {
        if (THREADS) k_partition_thread<BLOCK><<<(tiles + BLOCK) / BLOCK, BLOCK>>>(doff, nseg, n, TILE, tiles, scratch);
        else k_partition<BLOCK><<<(tiles + 1 + BLOCK / 32 - 1) / (BLOCK / 32), BLOCK>>>(doff, nseg, n, TILE, tiles, scratch);
    };
    auto all = [&]() {
        partition_only();
        if constexpr (V4) k_flat4<Rc, ITEMS><<<tiles, BLOCK>>>(din, doff, nseg, n, tiles, dout, scratch);
        else if constexpr (V3) k_flat3<Rc, ITEMS><<<tiles, BLOCK>>>(din, doff, nseg, n, tiles, dout, scratch);
        else if constexpr (V2) k_flat2<Rc, ITEMS><<<tiles, BLOCK>>>(din, doff, nseg, n, tiles, dout, scratch);
        else k_flat<Rc, ITEMS, DIRECT><<<tiles, BLOCK>>>(din, doff, nseg, n, tiles, dout, scratch);
        k_fixup<Rc><<<(tiles + BLOCK / 32 - 1) / (BLOCK / 32), BLOCK>>>(doff, nseg, n, TILE, tiles, dout, scratch);
    };
    uint64_t hashes[2];
    long long bad = 0;
    double ms = 0;
    for (int rep = 0; rep < 2; ++rep) {
        CK(cudaMemset(dout, rep ? 0x7f : 0xff, nseg * sizeof(Out)));
        if (rep == 0) ms = time_ms(all);
        else { all(); CK(cudaDeviceSynchronize()); }
        unsigned flags[10];
        CK(cudaMemcpy(flags, scratch, 40, cudaMemcpyDeviceToHost));
        if (flags[6] != 0 || flags[0] != 0 || flags[1] != 0) printf("  FLAGS %s malformed %u overflow %u/%u\n", name, flags[6], flags[0], flags[1]);
        std::vector<Out> got(nseg);
        CK(cudaMemcpy(got.data(), dout, nseg * sizeof(Out), cudaMemcpyDeviceToHost));
        for (long long s = 0; s < nseg; ++s) {
            if (!HostRef<Rc>::ok(host.data(), d.offsets[s], d.offsets[s + 1], got[s])) {
                if (bad < 3) printf("  MISMATCH %s segment %lld [%lld, %lld)\n", name, s, d.offsets[s], d.offsets[s + 1]);
                ++bad;
            }
        }
        hashes[rep] = fnv1a(got.data(), nseg * sizeof(Out));
    }
    const double ms_partition = time_ms(partition_only);
    const double bytes = (double)n * sizeof(typename Rc::T) + 8.0 * (nseg + 1) + (double)nseg * sizeof(Out);
    printf("%-34s occ %d: all %.4f ms %6.1f GB/s %5.1f%% copy | partition %.4f ms | tiles %lld | %s hash %016llx%s\n",
           name, occ, ms, bytes / ms / 1e6, 100.0 * bytes / ms / 1e6 / copy_gbs, ms_partition, tiles,
           bad ? "FAILED" : "ok", (unsigned long long)hashes[0], hashes[0] == hashes[1] ? "" : " NOT-SAME-BITS");
    fflush(stdout);
}

template <class Rc>
static void recipe_rows(const char* only, const char* recipe, const std::vector<Dist>& dists,
                        const std::vector<typename Rc::T>& host, const typename Rc::T* din, unsigned char* scratch) {
    for (const Dist& d : dists) {
        const long long nseg = (long long)d.offsets.size() - 1;
        long long* doff;
        typename Rc::Out* dout;
        CK(cudaMalloc(&doff, 8 * (nseg + 1)));
        CK(cudaMalloc(&dout, sizeof(typename Rc::Out) * std::max(1LL, nseg)));
        CK(cudaMemcpy(doff, d.offsets.data(), 8 * (nseg + 1), cudaMemcpyHostToDevice));
        run<Rc, SmallBlocks<Rc>::value>(only, recipe, d, host, din, doff, dout, scratch);
        if constexpr (sizeof(typename Rc::T) == 4) {
            flat<Rc, 11, true, true>(only, recipe, d, host, din, doff, dout, scratch);
            flat<Rc, 11, true, true, true>(only, recipe, d, host, din, doff, dout, scratch);
            flat<Rc, 23, true, true, false, true>(only, recipe, d, host, din, doff, dout, scratch);
            flat<Rc, 15, true, true, false, false, true>(only, recipe, d, host, din, doff, dout, scratch);
            flat<Rc, 23, true, true, false, false, true>(only, recipe, d, host, din, doff, dout, scratch);
            flat<Rc, 31, true, true, false, false, true>(only, recipe, d, host, din, doff, dout, scratch);
        } else {
            flat<Rc, 8, true, true>(only, recipe, d, host, din, doff, dout, scratch);
            flat<Rc, 7, true, true, true>(only, recipe, d, host, din, doff, dout, scratch);
            flat<Rc, 13, true, true, false, true>(only, recipe, d, host, din, doff, dout, scratch);
            flat<Rc, 9, true, true, false, false, true>(only, recipe, d, host, din, doff, dout, scratch);
            flat<Rc, 13, true, true, false, false, true>(only, recipe, d, host, din, doff, dout, scratch);
        }
        CK(cudaFree(doff));
        CK(cudaFree(dout));
    }
}

int main(int argc, char** argv) {
    const char* only = argc > 1 ? argv[1] : nullptr;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const long long n = 1LL << 26;
    std::mt19937_64 rng(11);
    std::vector<float> hf(n);
    std::vector<double> hd(n);
    std::vector<long long> hl(n);
    for (auto& v : hf) v = (float)((double)(rng() >> 11) / 9007199254740992.0 * 2 - 1);
    for (auto& v : hd) v = (double)(rng() >> 11) / 9007199254740992.0 * 2 - 1;
    for (auto& v : hl) v = (long long)(rng() % 2000001) - 1000000;
    float* df; double* dd; long long* dl; unsigned char* scratch;
    CK(cudaMalloc(&df, n * 4)); CK(cudaMalloc(&dd, n * 8)); CK(cudaMalloc(&dl, n * 8));
    CK(cudaMemcpy(df, hf.data(), n * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dd, hd.data(), n * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dl, hl.data(), n * 8, cudaMemcpyHostToDevice));
    const long long scratch_bytes = seg::Constants::HEADER_BYTES + 2 * seg::Constants::MAX_CHUNKS * seg::Constants::SLOT_BYTES
                                    + 2 * seg::Constants::MAX_CHUNKS * (long long)sizeof(seg::LongWork) + seg::Constants::MAX_CHUNKS * 8;
    const long long flat_bytes = 64LL << 20;
    CK(cudaMalloc(&scratch, std::max(scratch_bytes, flat_bytes)));
    CK(cudaMemset(scratch, 0, std::max(scratch_bytes, flat_bytes)));
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
    };
    for (const Dist& d : dists) printf("%s: %zu segments\n", d.name.c_str(), d.offsets.size() - 1);
    recipe_rows<SumF32>(only, "sum_f32", dists, hf, df, scratch);
    recipe_rows<MaxF32>(only, "max_f32", dists, hf, df, scratch);
    recipe_rows<ArgMaxF32>(only, "argmax_f32", dists, hf, df, scratch);
    recipe_rows<SumF64>(only, "sum_f64", dists, hd, dd, scratch);
    recipe_rows<SumI64>(only, "sum_i64", dists, hl, dl, scratch);
    {
        // An input one element off a 16-byte boundary, small sizes: the window's edges.
        std::vector<Dist> small_dists;
        for (long long m : {0LL, 1LL, 31LL, 33LL, 1000LL, 4097LL, 100003LL}) {
            std::vector<long long> off = powerlaw_offsets(m, 0.2, 100 + m);
            small_dists.push_back({"offby1 n=" + std::to_string(m), off});
        }
        std::vector<float> shifted(hf.begin() + 1, hf.begin() + 1 + 200000);
        recipe_rows<SumF32>(only, "sum_f32", small_dists, shifted, df + 1, scratch);
        std::vector<double> shifted_d(hd.begin() + 1, hd.begin() + 1 + 200000);
        recipe_rows<SumF64>(only, "sum_f64", small_dists, shifted_d, dd + 1, scratch);
    }
    printf("done\n");
    return 0;
}
