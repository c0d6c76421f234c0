// Scan lab: segmented scans whose tiles hold heads. A tile whose aggregate holds a head needs
// nothing before it for its inclusive prefix, so it can publish that aggregate as its P at once
// (scan_kernels.cuh, SEGMENTED SCANS), and the look-back of the tiles after it ends there. Build it
// against the headers before the change and after, and after with the L2 prefetch that plain scans
// do (PREFETCH AHEAD) turned on for segmented ones too:
//   mkdir -p .lab/hdr_old && git archive f7924dc primer-core/src/main/cuda | tar -x -C .lab/hdr_old
//   mkdir -p .lab/hdr_pf/primer-core/src/main && cp -r primer-core/src/main/cuda .lab/hdr_pf/primer-core/src/main/ && sed -i 's/if constexpr (!SEGMENTED) {/if constexpr (true) {/' \
//       .lab/hdr_pf/primer-core/src/main/cuda/device/scan_kernels.cuh
//   for v in old pf; do nvcc -std=c++17 -O3 -arch=sm_90 -I .lab/hdr_$v/primer-core/src/main/cuda -o .lab/heads_$v bench/lab/scan_heads_lab.cu; done
//   nvcc -std=c++17 -O3 -arch=sm_90 -I primer-core/src/main/cuda -o .lab/heads_new bench/lab/scan_heads_lab.cu
// Segmented sums (float32, int32, float64, int64, int8), products (int32, int64, int8), a float32
// and an int32 max (what Java's float rules cost the operator) and a float64 forward fill (a user-defined operator declared exact) by
// head flags at four densities: about one head in 5, in 1024 (the bench's), in 65536 (most tiles
// without a head) and none (one segment: "1/0"), at the blocks per SM production uses (scan.cu: 5;
// GpuCustomScan: 4 for a segmented 8-byte operator). 2^28 - 3 elements of 4 bytes or 2^27 - 3 of 8,
// every output checked in the first pass (exactly, or float sums within 1e-5 of a float64
// reference); before that, small and misaligned sizes, inclusive and exclusive with an init.
// -DTREE_INT_SUMS gave integer sums the tree look-back before production did (with the headers of
// d7d034d; with later ones it changes nothing segmented); -DORDERED_EXACT takes the tree away again
// from production's segmented integer sums and products (WrapsExactly), to time the ordered fold.
// argv[1]: comma-separated parts of the names to run, e.g. "i8,prod".
// Tiles without heads (one segment, "1/0"): the look-back's fold of pairs against a fold of bare
// values, and against a tree for integer sums, built as
//   mkdir -p .lab/hdr_d7d && git archive d7d034d primer-core/src/main/cuda | tar -x -C .lab/hdr_d7d
//   nvcc -std=c++17 -O3 -arch=sm_90 -I .lab/hdr_d7d/primer-core/src/main/cuda -o .lab/heads_before bench/lab/scan_heads_lab.cu
//   nvcc -std=c++17 -O3 -arch=sm_90 -I primer-core/src/main/cuda [-DORDERED_EXACT] -o .lab/heads_final bench/lab/scan_heads_lab.cu
// Design measurements; a standalone harness, not built by Maven.
#include "device/scan_kernels.cuh"
#include "lab_common.cuh"
#include "lab_host_ops.cuh"

#include <cstring>
#include <string>

using namespace primer;

#ifdef TREE_INT_SUMS  // -DTREE_INT_SUMS: integer sums (exact under any association) combine look-back windows as a tree
namespace primer {
template <> struct TreeLookback<Sum<int>> { static constexpr bool value = true; };
template <> struct TreeLookback<Sum<long long>> { static constexpr bool value = true; };
}
#endif
#ifdef ORDERED_EXACT  // -DORDERED_EXACT: segmented integer sums and products fold in order (what WrapsExactly replaced)
namespace primer {
template <> struct TreeLookback<SegmentedOp<Sum<int>, int>> { static constexpr bool value = false; };
template <> struct TreeLookback<SegmentedOp<Sum<long long>, long long>> { static constexpr bool value = false; };
template <> struct TreeLookback<SegmentedOp<Prod<int>, int>> { static constexpr bool value = false; };
template <> struct TreeLookback<SegmentedOp<Prod<long long>, long long>> { static constexpr bool value = false; };
}
#endif

/** Production's segmented tile for T: 256 x 8 vectors, 256 x 4 for int8 (ScanShape). */
template <typename T> using Shape = ScanShape<T, true>;

template <int MINB, typename T, typename Op>
__global__ void __launch_bounds__(256, MINB) k_segscan(const T* in, const signed char* flags, T* out, long long n, long long tiles,
                                                        long long init_bits, int inclusive, unsigned char* scratch, unsigned epoch) {
    device_scan<Shape<T>::BLOCK_THREADS, Shape<T>::ROWS, T, T, Op>(in, out, n, tiles, init_bits, inclusive, scratch, epoch,
                                                                   FlagHeads{flags});
}

static const char* only = nullptr;  // argv[1]: parts of the row names to run (lab_common.cuh selected)

static unsigned char* scratch;
static unsigned epoch_counter = 0;
static const int DENSITIES[] = {5, 1024, 65536, 0};  // one head in d elements; 0: none (one segment)
static constexpr int KINDS = 4;
static signed char* flags_dev[KINDS];
static std::vector<signed char> flags_host[KINDS];
static bool check_outputs = true;

/** One scan of n elements from in + offset, heads of density d; every output compared; returns the wrong count. */
template <int MINB, typename T, typename Op, typename V>
static long long run(const T* in, const std::vector<T>& hin, long long offset, long long n, T init, int inclusive, int d,
                     void* out_raw, double* ms) {
    T* out = (T*)out_raw;
    const signed char* flags = flags_dev[d] + offset;
    const std::vector<signed char>& hflags = flags_host[d];
    const long long shift = (long long)((reinterpret_cast<unsigned long long>(in + offset) % 16) / sizeof(T));
    const long long tile = Shape<T>::TILE_ITEMS, tiles = (n + shift + tile - 1) / tile;
    CK(cudaMemset(out, 0xa5, n * sizeof(T)));  // poison
    auto launch = [&]() {
        k_segscan<MINB, T, Op><<<tiles, 256>>>(in + offset, flags, out, n, tiles, bits_of(init), inclusive, scratch, ++epoch_counter);
    };
    if (ms) *ms = time_ms(launch, 5, 20);
    else launch();
    CK(cudaDeviceSynchronize());
    if (!check_outputs) return 0;
    std::vector<T> h(n);
    CK(cudaMemcpy(h.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost));
    return wrong_outputs<Op, V>(h, hin, &hflags, offset, n, init, inclusive);
}

/** V: the operator's type (int for int8 data), as production's device_scan computes in. */
template <int MINB, typename T, typename Op, typename V = T>
static long long small_sizes(const char* name, const T* in, const std::vector<T>& hin, T init, void* out) {
    if (!selected(only, name)) return 0;
    long long wrong = 0;
    for (int d = 0; d < KINDS; ++d)
        for (long long n : {1LL, 2LL, 31LL, 33LL, 4095LL, 4097LL, 8193LL, 100003LL, 3000001LL})
            for (long long offset : {0LL, 1LL, 3LL})
                for (int inclusive = 0; inclusive < 2; ++inclusive) {
                    const long long bad = run<MINB, T, Op, V>(in, hin, offset, n, init, inclusive, d, out, nullptr);
                    if (bad) printf("  %s heads 1/%d n %lld offset %lld inclusive %d: %lld WRONG\n", name, DENSITIES[d], n, offset,
                                    inclusive, bad);
                    wrong += bad;
                }
    return wrong;
}

template <int MINB, typename T, typename Op, typename V = T>
static long long timed(const char* name, const T* in, const std::vector<T>& hin, long long n, void* out, double copy_gbs) {
    if (!selected(only, name)) return 0;
    auto k = k_segscan<MINB, T, Op>;
    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, k));
    long long wrong = 0;
    for (int d = 0; d < KINDS; ++d) {
        double ms;
        const long long bad = run<MINB, T, Op, V>(in, hin, 0, n, (T)Host<Op, V>::identity(), 1, d, out, &ms);
        wrong += bad;
        const double bytes = (2.0 * sizeof(T) + 1) * n;  // values in and out, one flag byte in
        printf("%-14s heads 1/%-5d minB %d regs %3d local %3d  %.4f ms %7.1f GB/s %5.1f%% of memcpy  %s\n", name, DENSITIES[d], MINB,
               fa.numRegs, (int)fa.localSizeBytes, ms, bytes / ms / 1e6, 100.0 * bytes / ms / 1e6 / copy_gbs, bad ? "WRONG" : "ok");
        fflush(stdout);
    }
    return wrong;
}

int main(int argc, char** argv) {
    if (argc > 1) only = argv[1];
    const long long n = (1LL << 28) - 3;
    CK(cudaMalloc(&scratch, 16 + 128 * (n / 2048 + 16)));
    CK(cudaMemset(scratch, 0, 16 + 128 * (n / 2048 + 16)));
    const LabInputs in(n);
    const long long n8 = in.n8 - 1;
    void* out;
    CK(cudaMalloc(&out, n * 8));
    std::mt19937_64 rng(17);
    for (int d = 0; d < KINDS; ++d) {
        flags_host[d].resize(n + 8);
        for (auto& f : flags_host[d]) f = DENSITIES[d] && rng() % DENSITIES[d] == 0 ? (signed char)(1 + rng() % 100) : 0;
        CK(cudaMalloc(&flags_dev[d], n + 8));
        CK(cudaMemcpy(flags_dev[d], flags_host[d].data(), n + 8, cudaMemcpyHostToDevice));
    }
    std::vector<double> hfill(n8);  // forward-fill input: NaN about one in three
    for (long long i = 0; i < n8; ++i) hfill[i] = rng() % 3 == 0 ? NAN : in.hd[i];
    double* fill;
    CK(cudaMalloc(&fill, n8 * 8));
    CK(cudaMemcpy(fill, hfill.data(), n8 * 8, cudaMemcpyHostToDevice));

    // Products take odd factors (even ones would drive every product to 0); int8 data from the low bytes.
    std::vector<int> hodd(in.hi);
    std::vector<long long> hoddl(in.hl);
    std::vector<signed char> hb(n), hoddb(n);
    for (auto& v : hodd) v |= 1;
    for (auto& v : hoddl) v |= 1;
    for (long long i = 0; i < n; ++i) {
        hb[i] = (signed char)in.hi[i];
        hoddb[i] = (signed char)(in.hi[i] | 1);
    }
    int* odd;
    long long* oddl;
    signed char *b, *oddb;
    CK(cudaMalloc(&odd, n * 4));
    CK(cudaMalloc(&oddl, in.n8 * 8));
    CK(cudaMalloc(&b, n));
    CK(cudaMalloc(&oddb, n));
    CK(cudaMemcpy(odd, hodd.data(), n * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(oddl, hoddl.data(), in.n8 * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(b, hb.data(), n, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(oddb, hoddb.data(), n, cudaMemcpyHostToDevice));

    long long wrong = 0;
    wrong += small_sizes<5, float, Sum<float>>("f32 sum", in.fin, in.hf, 0.25f, out);
    wrong += small_sizes<5, int, Sum<int>>("i32 sum", in.iin, in.hi, -7, out);
    wrong += small_sizes<5, double, Sum<double>>("f64 sum", in.din, in.hd, 0.5, out);
    wrong += small_sizes<5, long long, Sum<long long>>("i64 sum", in.lin, in.hl, 99LL, out);
    wrong += small_sizes<5, float, Max<float>>("f32 max", in.fin, in.hf, -0.5f, out);
    wrong += small_sizes<5, int, Max<int>>("i32 max", in.iin, in.hi, -7, out);
    wrong += small_sizes<4, double, FFill>("f64 ffill", fill, hfill, 2.0, out);
    wrong += small_sizes<5, int, Prod<int>>("i32 prod", odd, hodd, 3, out);
    wrong += small_sizes<4, long long, Prod<long long>>("i64 prod", oddl, hoddl, 5LL, out);
    wrong += small_sizes<5, signed char, Sum<int>, int>("i8 sum", b, hb, (signed char)-7, out);
    wrong += small_sizes<5, signed char, Prod<int>, int>("i8 prod", oddb, hoddb, (signed char)3, out);
    printf("small sizes: %s\n", wrong ? "WRONG" : "all ok");
    fflush(stdout);

    for (int pass = 0; pass < 2; ++pass) {
        const double copy_ms = time_ms([&]() { CK(cudaMemcpyAsync(out, in.fin, n * 4, cudaMemcpyDeviceToDevice)); }, 5, 20);
        const double copy_gbs = 8.0 * n / copy_ms / 1e6;
        check_outputs = pass == 0;
        printf("pass %d  memcpy d2d 2^28 x 4 B: %.4f ms %.1f GB/s (read+write)\n", pass, copy_ms, copy_gbs);
        wrong += timed<5, float, Sum<float>>("seg f32 sum", in.fin, in.hf, n, out, copy_gbs);
        wrong += timed<5, int, Sum<int>>("seg i32 sum", in.iin, in.hi, n, out, copy_gbs);
        wrong += timed<5, double, Sum<double>>("seg f64 sum", in.din, in.hd, n8, out, copy_gbs);
        wrong += timed<5, long long, Sum<long long>>("seg i64 sum", in.lin, in.hl, n8, out, copy_gbs);
        wrong += timed<5, float, Max<float>>("seg f32 max", in.fin, in.hf, n, out, copy_gbs);
        wrong += timed<5, int, Max<int>>("seg i32 max", in.iin, in.hi, n, out, copy_gbs);
        wrong += timed<4, double, FFill>("seg f64 ffill", fill, hfill, n8, out, copy_gbs);
        wrong += timed<5, int, Prod<int>>("seg i32 prod", odd, hodd, n, out, copy_gbs);
        wrong += timed<4, long long, Prod<long long>>("seg i64 prod", oddl, hoddl, n8, out, copy_gbs);
        wrong += timed<5, signed char, Sum<int>, int>("seg i8 sum", b, hb, n, out, copy_gbs);
        wrong += timed<5, signed char, Prod<int>, int>("seg i8 prod", oddb, hoddb, n, out, copy_gbs);
    }
    printf("%s\n", wrong ? "WRONG" : "done");
    return wrong ? 1 : 0;
}
