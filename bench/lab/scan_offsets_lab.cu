// Scan lab: segmented scans by offsets. Production's tile looks its segment starts up per tile
// (OffsetHeads: tile_first[t], then the offsets between, two dependent loads, a shared bitmap and two
// barriers) and ran about 15% slower than the same segments given as head flags, whose bytes
// arrive beside the values (2026-11-22 lab file, Nsight Compute). Tried here: a bitmap of heads,
// one bit per element, written once from the offsets before the scan (a memset and a scatter), its
// words loaded beside the values as the flag bytes are (BitmapHeads below), against production's
// offsets path (tile starts + scan) and its flags path, on the same heads. Every output of the
// offsets and bitmap paths must be the flags path's, bit for bit (the same tiles, the same
// association), at 2^28 - 3 float32 / 2^27 - 3 int64 elements and at small, misaligned sizes.
//   nvcc -std=c++17 -O3 -arch=sm_90 -I primer-core/src/main/cuda -o .lab/scan_offsets_lab bench/lab/scan_offsets_lab.cu
// argv[1] "profile": each path once at a head in 1024 (float32), for Nsight Compute.
// Measured on the H200 on 2026-11-22 (lab file): the bitmap gained 2-5% where heads are dense, lost 5-7% where
// they are sparse, and stayed 0.05-0.17 ms behind the flags path: not taken.
// Also tried (off_regs): production's OffsetHeads with each row's head word read once into a register
// (BITS_IN_SHARED false): float32 3-6% faster, int64 2% slower, 0.03-0.17 ms behind flags: not taken.
// And a tile's first 32 head positions written before the scan, so prepare makes one round trip, not
// two: 8% faster at a head in 1024 (lab file): production's OffsetHeads now does it (its slots), so
// the offsets path here is that; the variants that measured it are in git history.
// Design measurements; a standalone harness, not built by Maven.
#include "device/scan_kernels.cuh"
#include "lab_common.cuh"

#include <cstring>
#include <random>
#include <vector>

using namespace primer;

/** Heads from a bitmap: bit (index + shift) set where a segment starts; shift aligns chunks to words. */
struct BitmapHeads {
    static constexpr bool SEGMENTED = true;
    static constexpr bool BITS_IN_SHARED = false;
    static constexpr bool GATED = false;
    const unsigned* words;
    long long shift;  // the scan's misalignment in elements (scan_shift): a chunk's bits share one word
    struct Storage {};
    __device__ __forceinline__ unsigned long long load_gate() const { return 1ull; }
    template <int VEC, int ROWS, int STRIDE>
    __device__ __forceinline__ void load_rows(long long first, long long, unsigned (&raw)[ROWS]) const {
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
            const long long bit = first + r * STRIDE + shift;  // >= 0, a multiple of VEC
            raw[r] = (__ldg(words + (bit >> 5)) >> (bit & 31)) & ((1u << VEC) - 1u);
        }
    }
    __device__ __forceinline__ void prepare(long long, long long, Storage&) const {}
    template <int VEC>
    __device__ __forceinline__ unsigned bits(unsigned raw, int, const Storage&) const { return raw; }
};

/** Production's offsets heads, but each row's head word read from the bitmap once, into a register, after prepare. */
template <int TILE_ITEMS, int BLOCK_THREADS>
struct OffsetHeadsInRegisters : OffsetHeads<TILE_ITEMS, BLOCK_THREADS> {
    static constexpr bool BITS_IN_SHARED = false;
};

template <typename T> using Shape = ScanShape<T, true>;
constexpr int MINB = 5;  // production's blocks per SM for these segmented scans

template <typename T>
__global__ void __launch_bounds__(256, MINB) k_flags(const T* in, const signed char* flags, T* out, long long n, long long tiles,
                                                      unsigned char* scratch, unsigned epoch) {
    device_scan<Shape<T>::BLOCK_THREADS, Shape<T>::ROWS, T, T, Sum<T>>(in, out, n, tiles, 0, 1, scratch, epoch, FlagHeads{flags});
}
__device__ unsigned long long lab_open_gate = 1;  // OffsetHeads::gate: always open here

/** Production's offsets heads (Heads = OffsetHeads), or a variant built from them. */
template <typename T, template <int, int> class Heads>
__global__ void __launch_bounds__(256, MINB) k_offsets(const T* in, const long long* offsets, const long long* tile_first, T* out,
                                                        long long n, long long tiles, long long begin, unsigned char* scratch,
                                                        unsigned epoch) {
    const OffsetHeads<Shape<T>::TILE_ITEMS, Shape<T>::BLOCK_THREADS> base{offsets, tile_first, begin,
                                                                          segment_head_slots(tile_first, tiles), &lab_open_gate};
    device_scan<Shape<T>::BLOCK_THREADS, Shape<T>::ROWS, T, T, Sum<T>>(in, out, n, tiles, 0, 1, scratch, epoch,
                                                                       Heads<Shape<T>::TILE_ITEMS, Shape<T>::BLOCK_THREADS>{base});
}
template <typename T>
__global__ void __launch_bounds__(256, MINB) k_bitmap(const T* in, const unsigned* words, long long shift, T* out, long long n,
                                                       long long tiles, unsigned char* scratch, unsigned epoch) {
    device_scan<Shape<T>::BLOCK_THREADS, Shape<T>::ROWS, T, T, Sum<T>>(in, out, n, tiles, 0, 1, scratch, epoch,
                                                                       BitmapHeads{words, shift});
}
__global__ void k_tile_starts(const long long* offsets, long long segments, long long begin, long long shift, long long tile_items,
                              long long tiles, long long* tile_first) {
    segment_tile_starts(offsets, segments, begin, shift, tile_items, tiles, tile_first);
}
/** The bitmap: bit (offsets[k] - begin + shift) for k in [1, segments), as OffsetHeads marks them. */
__global__ void k_scatter(const long long* offsets, long long segments, long long begin, long long shift, long long n,
                          unsigned* words) {
    for (long long k = 1 + blockIdx.x * (long long)blockDim.x + threadIdx.x; k < segments; k += (long long)gridDim.x * blockDim.x) {
        const long long at = offsets[k] - begin;
        if (at >= 0 && at < n) atomicOr(words + ((at + shift) >> 5), 1u << ((at + shift) & 31));
    }
}

static unsigned char* scratch;
static unsigned epoch = 0;
static long long* tile_first;
static unsigned* words;

enum Path { FLAGS, OFFSETS, BITMAP, OFFSETS_REGS, PATHS };
static const char* NAMES[] = {"flags", "offsets", "bitmap", "off_regs"};

/** One path's scan of n elements at in (heads: flags, or offsets[0 .. segments] relative to in), timed if ms. */
template <typename T>
static void scan(Path path, const T* in, const signed char* flags, const long long* offsets, long long segments, T* out, long long n,
                 double* ms) {
    const long long shift = (long long)((reinterpret_cast<unsigned long long>(in) % 16) / sizeof(T));
    const long long tile = Shape<T>::TILE_ITEMS, tiles = (n + shift + tile - 1) / tile;
    auto launch = [&]() {
        switch (path) {
        case FLAGS: k_flags<T><<<tiles, 256>>>(in, flags, out, n, tiles, scratch, ++epoch); break;
        case OFFSETS:
            k_tile_starts<<<((tiles + 1) * primer::ScanPolicyConstants::SEGMENT_STARTS_LANES + 255) / 256, 256>>>(offsets, segments, 0, shift, tile, tiles, tile_first);
            k_offsets<T, OffsetHeads><<<tiles, 256>>>(in, offsets, tile_first, out, n, tiles, 0, scratch, ++epoch);
            break;
        case BITMAP:
            CK(cudaMemsetAsync(words, 0, 4 * ((tiles * tile + 31) / 32 + 1)));
            k_scatter<<<1056, 256>>>(offsets, segments, 0, shift, n, words);
            k_bitmap<T><<<tiles, 256>>>(in, words, shift, out, n, tiles, scratch, ++epoch);
            break;
        case OFFSETS_REGS:
            k_tile_starts<<<((tiles + 1) * primer::ScanPolicyConstants::SEGMENT_STARTS_LANES + 255) / 256, 256>>>(offsets, segments, 0, shift, tile, tiles, tile_first);
            k_offsets<T, OffsetHeadsInRegisters><<<tiles, 256>>>(in, offsets, tile_first, out, n, tiles, 0, scratch, ++epoch);
            break;
        case PATHS: break;
        }
    };
    if (ms) *ms = time_ms(launch, 5, 20);
    else launch();
    CK(cudaDeviceSynchronize());
}

/** Heads at about one in `density` of n elements (and element 0): flags on the device and the matching offsets. */
struct Heads {
    signed char* flags;
    long long* offsets;
    long long segments;
    Heads(long long n, int density, unsigned seed) {
        std::mt19937_64 rng(seed);
        std::vector<signed char> f(n);
        std::vector<long long> o{0};
        for (long long i = 0; i < n; ++i) {
            f[i] = i == 0 || rng() % density == 0;
            if (f[i] && i > 0) o.push_back(i);
        }
        o.push_back(n);
        segments = (long long)o.size() - 1;
        CK(cudaMalloc(&flags, n));
        CK(cudaMalloc(&offsets, 8 * o.size()));
        CK(cudaMemcpy(flags, f.data(), n, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(offsets, o.data(), 8 * o.size(), cudaMemcpyHostToDevice));
    }
};

/** Runs the three paths over in[0, n) (in = base + offset), compares outputs to the flags path's; prints times if timed. */
template <typename T>
static long long compare(const char* name, const T* base, long long offset, long long n, int density, T* out, bool timed,
                         double copy_gbs) {
    const Heads heads(n, density, (unsigned)(n * 31 + density + offset));
    std::vector<T> want(n), got(n);
    long long wrong = 0;
    double ms[PATHS];
    for (int p = 0; p < PATHS; ++p) {
        CK(cudaMemset(out, 0xa5, n * sizeof(T)));
        scan<T>((Path)p, base + offset, heads.flags, heads.offsets, heads.segments, out, n, timed ? &ms[p] : nullptr);
        CK(cudaMemcpy(p == FLAGS ? want.data() : got.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost));
        if (p != FLAGS && std::memcmp(want.data(), got.data(), n * sizeof(T)) != 0) {
            ++wrong;
            printf("  %s n %lld offset %lld heads 1/%d: %s differs from flags: WRONG\n", name, n, offset, density, NAMES[p]);
        }
    }
    if (timed) {
        for (int p = 0; p < PATHS; ++p) {
            const double bytes = 2.0 * sizeof(T) * n;  // values in and out
            printf("%-8s heads 1/%-6d %-8s %.4f ms %7.1f GB/s %5.1f%% of memcpy (values only)  %s\n", name, density, NAMES[p], ms[p],
                   bytes / ms[p] / 1e6, 100.0 * bytes / ms[p] / 1e6 / copy_gbs, wrong ? "WRONG" : "ok");
        }
        fflush(stdout);
    }
    CK(cudaFree(heads.flags));
    CK(cudaFree(heads.offsets));
    return wrong;
}

/** argv[1] "profile": only each path's float32 scan at a head in 1024, once (for ncu -k regex:k_). */
int main(int argc, char** argv) {
    const bool profile = argc > 1 && std::strcmp(argv[1], "profile") == 0;
    const long long n = (1LL << 28) - 3, n8 = (1LL << 27) - 3;
    const long long max_tiles = n / 2048 + 16;
    CK(cudaMalloc(&scratch, 16 + 128 * max_tiles));
    CK(cudaMemset(scratch, 0, 16 + 128 * max_tiles));
    CK(cudaMalloc(&tile_first, 8 * (max_tiles + 1) + 4 * ScanPolicyConstants::SEGMENT_HEAD_SLOTS * max_tiles));
    CK(cudaMalloc(&words, 4 * (n / 32 + 4096)));
    const LabInputs in(n);
    void* out;
    CK(cudaMalloc(&out, n * 8));

    long long wrong = 0;
    if (profile) {
        wrong += compare<float>("f32 sum", in.fin, 0, n, 1024, (float*)out, false, 0);
        printf("%s\n", wrong ? "WRONG" : "done");
        return wrong ? 1 : 0;
    }
    for (int density : {3, 1024})
        for (long long size : {1LL, 2LL, 31LL, 33LL, 4097LL, 100003LL, 3000001LL})
            for (long long offset : {0LL, 1LL, 3LL}) {
                wrong += compare<float>("f32 sum", in.fin, offset, size, density, (float*)out, false, 0);
                wrong += compare<long long>("i64 sum", in.lin, offset, size, density, (long long*)out, false, 0);
            }
    printf("small sizes: %s\n", wrong ? "WRONG" : "all ok");
    for (int pass = 0; pass < 2; ++pass) {
        const double copy_ms = time_ms([&]() { CK(cudaMemcpyAsync(out, in.fin, n * 4, cudaMemcpyDeviceToDevice)); }, 5, 20);
        const double copy_gbs = 8.0 * n / copy_ms / 1e6;
        printf("pass %d  memcpy d2d 2^28 x 4 B: %.4f ms %.1f GB/s (read+write)\n", pass, copy_ms, copy_gbs);
        for (int density : {16, 1024, 65536}) {
            wrong += compare<float>("f32 sum", in.fin, 0, n, density, (float*)out, true, copy_gbs);
            wrong += compare<long long>("i64 sum", in.lin, 0, n8, density, (long long*)out, true, copy_gbs);
        }
    }
    printf("%s\n", wrong ? "WRONG" : "done");
    return wrong ? 1 : 0;
}
