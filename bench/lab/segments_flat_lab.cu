// Merge-path segmented reduce lab: the flat kernels (segments_flat_partition,
// segments_flat, segments_flat2, segments_flat4 in segments_flat.cuh, and production's merge path) beside the classic three launches
// (segments_small, segments_long, segments_combine) on 2^26 values under several segment-length
// distributions, for float32 and float64 sums, float32 max and argmax and exact int64 and int32 sums
// (production's tile only), at a few items per thread. Every output is poisoned before the runs and checked against a host fold; each
// row prints an FNV-1a hash of the output bits (a flat row is run twice and must hash the same).
// Row names: flat<ITEMS> = segments_flat, staged results, warp partition; a "d" = results straight to
// out, a "t" = production's partition search (merge_path_partition, a thread per boundary, as the
// searcher blocks of segreduce_check_offsets run it; here in a kernel of its own, without the check);
// "v2_" = segments_flat2 (cp.async staging, a walk without branches); "v3_" = production's
// merge_path_tile (since step 60 runs of values between marked segment ends, marked_tile.cuh; argmax
// keeps build 5's walk); "v4_" = segments_flat4 (the walk by segment). Every flat row uses
// production's fixup.
//   nvcc -std=c++17 -O3 -arch=sm_90 -I primer-core/src/main/cuda -o .lab/segments_flat_lab bench/lab/segments_flat_lab.cu
// argv[1]: optional comma-separated parts of row names to run (lab_common.cuh's selected()).
#include "segments_flat.cuh"
#include "lab_segments.cuh"

template <int B>
__global__ void __launch_bounds__(B) k_partition(const long long* __restrict__ offsets, long long nseg, long long in_length,
                                                 long long tile_items, long long tiles, unsigned char* __restrict__ scratch) {
    seg::segments_flat_partition<B>(offsets, nseg, in_length, tile_items, tiles, scratch);
}
// Production's searcher blocks (segreduce_check_offsets) without the check: a thread per boundary.
template <int B>
__global__ void __launch_bounds__(B) k_partition_thread(const long long* __restrict__ offsets, long long nseg, long long in_length,
                                                        long long tile_items, long long tiles, unsigned char* __restrict__ scratch) {
    const long long t = (long long)blockIdx.x * B + threadIdx.x;
    if (t <= tiles) seg::merge_path_partition(offsets, nseg, in_length, tile_items, t, scratch);
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
    seg::merge_path_tile<Rc, BLOCK, ITEMS>(in, offsets, nseg, in_length, tiles, blockIdx.x, out, scratch);
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
    seg::merge_path_fixup<Rc, BLOCK>(offsets, nseg, in_length, tile_items, tiles, (long long)blockIdx.x * (BLOCK / 32),
                                     out, scratch);
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

/** The flat rows of each distribution, after the classic ones. */
struct FlatRows {
    template <class Rc>
    static void rows(const char* only, const char* recipe, const Dist& d, const std::vector<typename Rc::T>& host,
                     const typename Rc::T* din, const long long* doff, typename Rc::Out* dout, unsigned char* scratch) {
        if constexpr (std::is_same_v<Rc, SumExactI32>) {  // production's tile at a few steps per thread
            flat<Rc, 9, true, true, false, true>(only, recipe, d, host, din, doff, dout, scratch);
            flat<Rc, 13, true, true, false, true>(only, recipe, d, host, din, doff, dout, scratch);
            flat<Rc, 17, true, true, false, true>(only, recipe, d, host, din, doff, dout, scratch);
            flat<Rc, 23, true, true, false, true>(only, recipe, d, host, din, doff, dout, scratch);
        } else if constexpr (sizeof(typename Rc::T) == 4) {
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
    }
};

int main(int argc, char** argv) { return segments_lab_main<FlatRows>(argc, argv, 64LL << 20); }
