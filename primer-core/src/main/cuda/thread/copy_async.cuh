// A thread's asynchronous copies from global to shared memory (cp.async, sm_80 and later): the
// data goes to shared memory without passing through registers, so a thread holds nothing while
// its copies are in flight. Commit and wait where the copies are used. Beside them, a request that
// L2 fetch a range (prefetch_l2), which holds nothing at all.
#pragma once

namespace primer {

/** A 4- or 8-byte copy, cached in L1 and L2 (.ca: only 16-byte copies may bypass L1). */
template <typename T>
__device__ __forceinline__ void copy_async(T* shared, const T* global) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "cp.async copies 4, 8 or 16 bytes");
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"((unsigned)__cvta_generic_to_shared(shared)),
                 "l"(global), "n"((int)sizeof(T)) : "memory");
}

/** A 16-byte copy, cached in L2 only (.cg); both addresses 16-byte aligned. */
__device__ __forceinline__ void copy_async16(void* shared, const void* global) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"((unsigned)__cvta_generic_to_shared(shared)),
                 "l"(global) : "memory");
}

/**
 * Asks L2 for bytes [from, from + bytes) of global memory, the whole 16-byte pieces among them (sm_90:
 * one bulk prefetch; nothing before). A hint: no register, shared memory or wait is held for it.
 */
__device__ __forceinline__ void prefetch_l2(const void* from, long long bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    const unsigned long long a = (reinterpret_cast<unsigned long long>(from) + 15) & ~15ull;
    const unsigned long long b = (reinterpret_cast<unsigned long long>(from) + (unsigned long long)bytes) & ~15ull;
    if (bytes > 0 && b > a) asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(a), "r"((unsigned)(b - a)) : "memory");
#endif
}

}  // namespace primer
