// Scan lab: operators that are not commutative (user-defined ones, and every segmented scan) through
// REDUCE_FIRST with an ordered warp reduction (warp_reduce_rows_ordered), against the block scan
// with the look-back inside it (BLOCK_SCAN) that they took before. Build it twice, against the
// headers before the change (commit 35dec4a) and after:
//   mkdir -p .lab/hdr_old && git archive 35dec4a primer-core/src/main/cuda | tar -x -C .lab/hdr_old
//   nvcc -std=c++17 -O3 -arch=sm_90 -I .lab/hdr_old/primer-core/src/main/cuda -o .lab/ord_old bench/lab/scan_ordered_lab.cu
//   nvcc -std=c++17 -O3 -arch=sm_90 -I primer-core/src/main/cuda -o .lab/ord_new bench/lab/scan_ordered_lab.cu
// and run them in turn (the old headers' segmented scans at 8 rows spill: BLOCK_SCAN holds their
// chunk totals and prefixes in registers). Operators: the bench's user-defined ones written as the NVRTC wrapper writes
// them (a float32 sum, a float64 forward fill declared exact, affine maps on int32 and int64), and
// segmented sums and a max by head flags (about one head in 1024). Each is timed at 4, 5 and 6
// blocks per SM (the launch bound; "local" > 0 means it spilled there) on 2^28 - 3 elements of 4
// bytes or 2^27 - 3 of 8 (int8: 2^28 - 3), every output checked: exactly, or float sums within
// 1e-5 of a float64 reference. Before that, small and misaligned sizes, inclusive and exclusive with
// an init, heads about one in five. "fill" as the first argument times only the forward fill, on
// inputs with 0-100% NaN. Design measurements; a standalone harness, not built by Maven.
#include "device/scan_kernels.cuh"
#include "lab_common.cuh"
#include "lab_host_ops.cuh"

using namespace primer;

// The user-defined operators, as GpuCustomReduce.userOp spells them (none is Commutative; FFill, the
// float64 forward fill, is in lab_host_ops.cuh).
struct FSum {
    static __device__ __host__ float identity() { return 0.0f; }
    __device__ __host__ float operator()(float a, float b) const { return (float)(a + b); }
};
template <> struct IsFloatSum<FSum> { static constexpr bool value = true; };
struct Affine16 {
    static __device__ __host__ int identity() { return 0x10000; }
    __device__ __host__ int operator()(int a, int b) const {
        return (int)(((((unsigned)b >> 16) * ((unsigned)a >> 16)) << 16) |
                     ((((unsigned)b >> 16) * ((unsigned)a & 0xFFFFu) + ((unsigned)b & 0xFFFFu)) & 0xFFFFu));
    }
};
struct Affine32 {
    static __device__ __host__ long long identity() { return 1LL << 32; }
    __device__ __host__ long long operator()(long long a, long long b) const {
        return (long long)(((unsigned long long)((unsigned)((unsigned long long)b >> 32) * (unsigned)((unsigned long long)a >> 32)) << 32) |
                           (unsigned long long)((unsigned)((unsigned long long)b >> 32) * (unsigned)a + (unsigned)b));
    }
};

template <int MINB, typename InT, typename OutT, typename Op, bool SEG, int ROWS>
__global__ void __launch_bounds__(256, MINB) k_scan(const InT* in, const signed char* flags, OutT* out, long long n, long long tiles,
                                                     long long init_bits, int inclusive, unsigned char* scratch, unsigned epoch) {
    if constexpr (SEG) device_scan<256, ROWS, InT, OutT, Op>(in, out, n, tiles, init_bits, inclusive, scratch, epoch, FlagHeads{flags});
    else device_scan<256, ROWS, InT, OutT, Op>(in, out, n, tiles, init_bits, inclusive, scratch, epoch, NoHeads{});
}

static unsigned char* scratch;
static unsigned epoch_counter = 0;
static signed char *sparse_flags, *dense_flags;  // device; heads about 1 in 1024 and 1 in 5
static std::vector<signed char> h_sparse, h_dense;
static bool check_outputs = true;  // the second timed pass only times

/** One scan of n elements from in + offset; every output compared; returns the wrong count. */
template <int MINB, typename InT, typename OutT, typename Op, bool SEG, int ROWS>
static long long run(const InT* in, const std::vector<InT>& hin, long long offset, long long n, OutT init, int inclusive,
                     bool dense, void* out_raw, double* ms) {
    using V = decltype(Op::identity());
    OutT* out = (OutT*)out_raw;
    const signed char* flags = (dense ? dense_flags : sparse_flags) + offset;
    const std::vector<signed char>& hflags = dense ? h_dense : h_sparse;
    auto k = k_scan<MINB, InT, OutT, Op, SEG, ROWS>;
    const long long shift = (long long)((reinterpret_cast<unsigned long long>(in + offset) % 16) / sizeof(InT));
    const long long tile = 256 * ROWS * (16 / (long long)sizeof(InT)), tiles = (n + shift + tile - 1) / tile;
    CK(cudaMemset(out, 0xa5, n * sizeof(OutT)));  // poison
    auto launch = [&]() { k<<<tiles, 256>>>(in + offset, flags, out, n, tiles, bits_of(init), inclusive, scratch, ++epoch_counter); };
    if (ms) *ms = time_ms(launch, 5, 20);
    else launch();
    CK(cudaDeviceSynchronize());
    if (!check_outputs) return 0;
    std::vector<OutT> h(n);
    CK(cudaMemcpy(h.data(), out, n * sizeof(OutT), cudaMemcpyDeviceToHost));
    return wrong_outputs<Op, V>(h, hin, SEG ? &hflags : nullptr, offset, n, init, inclusive);
}

template <int MINB, typename InT, typename OutT, typename Op, bool SEG, int ROWS>
static long long small_sizes(const char* name, const InT* in, const std::vector<InT>& hin, OutT init, void* out) {
    const long long sizes[] = {1, 2, 31, 33, 2047, 2049, 4097, 8193, 100003, 3000001};
    long long wrong = 0;
    for (long long n : sizes)
        for (long long offset : {0LL, 1LL, 3LL})
            for (int inclusive = 0; inclusive < 2; ++inclusive) {
                const long long bad = run<MINB, InT, OutT, Op, SEG, ROWS>(in, hin, offset, n, init, inclusive, true, out, nullptr);
                if (bad) printf("  %s n %lld offset %lld inclusive %d: %lld WRONG\n", name, n, offset, inclusive, bad);
                wrong += bad;
            }
    return wrong;
}

template <int MINB, typename InT, typename OutT, typename Op, bool SEG, int ROWS>
static void timed(const char* name, const InT* in, const std::vector<InT>& hin, long long n, void* out, double copy_gbs) {
    auto k = k_scan<MINB, InT, OutT, Op, SEG, ROWS>;
    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, k));
    int occ;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k, 256, 0));
    double ms;
    const long long bad = run<MINB, InT, OutT, Op, SEG, ROWS>(in, hin, 0, n, (OutT)Host<Op, decltype(Op::identity())>::identity(), 1,
                                                        false, out, &ms);
    const double bytes = (double)(sizeof(InT) + sizeof(OutT)) * n;
    printf("%-16s rows %d minB %d occ %d regs %3d local %3d  %.4f ms %7.1f GB/s %5.1f%% of memcpy  %s\n", name, ROWS, MINB, occ, fa.numRegs,
           (int)fa.localSizeBytes, ms, bytes / ms / 1e6, 100.0 * bytes / ms / 1e6 / copy_gbs, bad ? "WRONG" : "ok");
    fflush(stdout);
}

// Plain scans at 8 rows (vectors per thread per tile); segmented ones at 4 (their shape before) and 8.
#define TIMED3(NAME, IN, OUT, OP, SEG, ROWS, PTR, HOST, N)                      \
    timed<4, IN, OUT, OP, SEG, ROWS>(NAME, PTR, HOST, N, out, copy_gbs);        \
    timed<5, IN, OUT, OP, SEG, ROWS>(NAME, PTR, HOST, N, out, copy_gbs);        \
    timed<6, IN, OUT, OP, SEG, ROWS>(NAME, PTR, HOST, N, out, copy_gbs);
#define PLAIN(NAME, IN, OUT, OP, PTR, HOST, N) TIMED3(NAME, IN, OUT, OP, false, 8, PTR, HOST, N)
#define SEGMENTED(NAME, IN, OUT, OP, PTR, HOST, N) \
    TIMED3(NAME, IN, OUT, OP, true, 4, PTR, HOST, N) TIMED3(NAME, IN, OUT, OP, true, 8, PTR, HOST, N)

/** The forward fill alone on inputs with a given share of NaN (the bench's input is 70% NaN). */
static void fill_shares(double* fill, std::vector<double>& hfill, const std::vector<double>& hd, long long n8, void* out) {
    std::mt19937_64 rng(13);
    for (int percent : {0, 33, 70, 95, 100}) {
        for (long long i = 0; i < n8; ++i) hfill[i] = (long long)(rng() % 100) < percent ? NAN : hd[i] * 1e6;
        CK(cudaMemcpy(fill, hfill.data(), n8 * 8, cudaMemcpyHostToDevice));
        printf("NaN %3d%%: ", percent);
        timed<5, double, double, FFill, false, 8>("ffill f64", fill, hfill, n8, out, 4200.0);
    }
}

int main(int argc, char** argv) {
    const long long n = (1LL << 28) - 3;
    CK(cudaMalloc(&scratch, 16 + 128 * (n / 2048 + 16)));
    CK(cudaMemset(scratch, 0, 16 + 128 * (n / 2048 + 16)));
    const LabInputs in(n);
    const long long n8 = in.n8 - 1;
    void* out;
    CK(cudaMalloc(&out, n * 8));
    std::mt19937_64 rng(11);
    h_sparse.resize(n + 8);
    h_dense.resize(n + 8);
    for (auto& f : h_sparse) f = rng() % 1024 == 0 ? (signed char)(1 + rng() % 100) : 0;
    for (auto& f : h_dense) f = rng() % 5 == 0 ? (signed char)-1 : 0;
    CK(cudaMalloc(&sparse_flags, n + 8));
    CK(cudaMalloc(&dense_flags, n + 8));
    CK(cudaMemcpy(sparse_flags, h_sparse.data(), n + 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dense_flags, h_dense.data(), n + 8, cudaMemcpyHostToDevice));
    // Forward-fill input: NaN about one in three; affine maps: every bit pattern; int8: the int32 input's low bytes.
    std::vector<double> hfill(n8);
    for (long long i = 0; i < n8; ++i) hfill[i] = rng() % 3 == 0 ? NAN : in.hd[i];
    std::vector<signed char> hbytes(n);
    for (long long i = 0; i < n; ++i) hbytes[i] = (signed char)in.hi[i];
    double* fill;
    signed char* bytes;
    CK(cudaMalloc(&fill, n8 * 8));
    CK(cudaMalloc(&bytes, n));
    CK(cudaMemcpy(fill, hfill.data(), n8 * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(bytes, hbytes.data(), n, cudaMemcpyHostToDevice));

    if (argc > 1 && std::strcmp(argv[1], "fill") == 0) {  // "% of memcpy" against 4200 GB/s here
        fill_shares(fill, hfill, in.hd, n8, out);
        return 0;
    }
    long long wrong = 0;
    wrong += small_sizes<6, float, float, FSum, false, 8>("fsum", in.fin, in.hf, 0.5f, out);
    wrong += small_sizes<6, double, double, FFill, false, 8>("ffill", fill, hfill, 2.0, out);
    wrong += small_sizes<6, int, int, Affine16, false, 8>("affine16", in.iin, in.hi, 0x30007, out);
    wrong += small_sizes<6, long long, long long, Affine32, false, 8>("affine32", in.lin, in.hl, (3LL << 32) | 5, out);
    wrong += small_sizes<6, double, double, FFill, true, 4>("seg ffill", fill, hfill, 2.0, out);
    wrong += small_sizes<6, double, double, FFill, true, 8>("seg ffill", fill, hfill, 2.0, out);
    wrong += small_sizes<6, float, float, Sum<float>, true, 4>("seg f32 sum", in.fin, in.hf, 0.25f, out);
    wrong += small_sizes<6, float, float, Sum<float>, true, 8>("seg f32 sum", in.fin, in.hf, 0.25f, out);
    wrong += small_sizes<6, int, int, Sum<int>, true, 4>("seg i32 sum", in.iin, in.hi, -7, out);
    wrong += small_sizes<6, int, int, Sum<int>, true, 8>("seg i32 sum", in.iin, in.hi, -7, out);
    wrong += small_sizes<6, long long, long long, Sum<long long>, true, 4>("seg i64 sum", in.lin, in.hl, 99LL, out);
    wrong += small_sizes<6, long long, long long, Sum<long long>, true, 8>("seg i64 sum", in.lin, in.hl, 99LL, out);
    wrong += small_sizes<6, double, double, Sum<double>, true, 4>("seg f64 sum", in.din, in.hd, 0.5, out);
    wrong += small_sizes<6, double, double, Sum<double>, true, 8>("seg f64 sum", in.din, in.hd, 0.5, out);
    wrong += small_sizes<6, float, float, Max<float>, true, 4>("seg f32 max", in.fin, in.hf, -0.5f, out);
    wrong += small_sizes<6, float, float, Max<float>, true, 8>("seg f32 max", in.fin, in.hf, -0.5f, out);
    wrong += small_sizes<6, signed char, signed char, Sum<int>, true, 4>("seg i8 sum", bytes, hbytes, (signed char)-3, out);
    wrong += small_sizes<6, signed char, signed char, Sum<int>, true, 8>("seg i8 sum", bytes, hbytes, (signed char)-3, out);
    printf("small sizes: %s\n", wrong ? "WRONG" : "all ok");
    fflush(stdout);

    for (int pass = 0; pass < 2; ++pass) {
        const double copy_ms = time_ms([&]() { CK(cudaMemcpyAsync(out, in.fin, n * 4, cudaMemcpyDeviceToDevice)); }, 5, 20);
        const double copy_gbs = 8.0 * n / copy_ms / 1e6;
        check_outputs = pass == 0;
        printf("pass %d  memcpy d2d 2^28 x 4 B: %.4f ms %.1f GB/s (read+write)\n", pass, copy_ms, copy_gbs);
        PLAIN("fsum f32", float, float, FSum, in.fin, in.hf, n)
        PLAIN("ffill f64", double, double, FFill, fill, hfill, n8)
        PLAIN("affine16 i32", int, int, Affine16, in.iin, in.hi, n)
        PLAIN("affine32 i64", long long, long long, Affine32, in.lin, in.hl, n8)
        SEGMENTED("seg ffill f64", double, double, FFill, fill, hfill, n8)
        SEGMENTED("seg f32 sum", float, float, Sum<float>, in.fin, in.hf, n)
        SEGMENTED("seg i32 sum", int, int, Sum<int>, in.iin, in.hi, n)
        SEGMENTED("seg f64 sum", double, double, Sum<double>, in.din, in.hd, n8)
        SEGMENTED("seg i64 sum", long long, long long, Sum<long long>, in.lin, in.hl, n8)
        SEGMENTED("seg f32 max", float, float, Max<float>, in.fin, in.hf, n)
        SEGMENTED("seg i8 sum", signed char, signed char, Sum<int>, bytes, hbytes, n)
    }
    printf("%s\n", wrong ? "WRONG" : "done");
    return wrong ? 1 : 0;
}
