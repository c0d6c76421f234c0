// Fills an array of 8-byte elements with one bit pattern (1- and 4-byte fills use cuMemset).
// Also the smallest kernel Primer ships: the foundation's end-to-end check that a module loads
// from the jar, launches with typed arguments and writes what it should.
#include <cstdint>

extern "C" __global__ void fill_u64(unsigned long long* __restrict__ out, long long n, unsigned long long pattern) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        out[i] = pattern;
    }
}
