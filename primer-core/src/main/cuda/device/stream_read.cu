// Reads an array once and writes almost nothing: the read bandwidth the benchmarks hold reductions
// to. A device-to-device copy also writes, so it is a lower ceiling for a kernel that only reads.
//
//   read_xor_u64(const ulonglong2* in, long long vectors, unsigned long long* block_xor)
//       block_xor[blockIdx.x] = the xor of the 64-bit words of the 16-byte vectors the block read:
//       a result that depends on every byte (so no load can be optimised away) and that the host
//       can check. Launch: 256 threads per block, any grid; in aligned to 16 bytes.
// Grid-stride, four independent 16-byte loads in flight per thread and iteration.
#include "../warp/warp_reduce.cuh"

namespace {
struct Xor {
    __device__ __forceinline__ unsigned long long operator()(unsigned long long a, unsigned long long b) const { return a ^ b; }
};
}  // namespace

extern "C" __global__ void __launch_bounds__(256)
read_xor_u64(const ulonglong2* __restrict__ in, long long vectors, unsigned long long* __restrict__ block_xor) {
    constexpr int LOADS = 4;
    const long long stride = (long long)gridDim.x * blockDim.x;
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long acc = 0;
    for (; i + (LOADS - 1) * stride < vectors; i += LOADS * stride) {
        ulonglong2 v[LOADS];
#pragma unroll
        for (int k = 0; k < LOADS; ++k) v[k] = in[i + k * stride];
#pragma unroll
        for (int k = 0; k < LOADS; ++k) acc ^= v[k].x ^ v[k].y;
    }
    for (; i < vectors; i += stride) acc ^= in[i].x ^ in[i].y;

    __shared__ unsigned long long warp_xor[8];
    acc = primer::warp_reduce(acc, Xor{});
    if ((threadIdx.x & 31) == 0) warp_xor[threadIdx.x / 32] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long total = 0;
        for (int w = 0; w < (int)blockDim.x / 32; ++w) total ^= warp_xor[w];
        block_xor[blockIdx.x] = total;
    }
}
