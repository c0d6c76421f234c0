// What the lab harnesses share: a checked CUDA call, and CUDA-event timing (the median of `reps`
// runs after `warmups` untimed ones). Each lab passes the warm-up and run counts its results used.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); exit(2);} } while (0)

/** Median milliseconds of launch() between two events, over `reps` runs after `warmups`. */
template <typename F>
static double time_ms(F launch, int warmups, int reps) {
    static cudaEvent_t e0 = nullptr, e1 = nullptr;
    if (!e0) { CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1)); }
    for (int i = 0; i < warmups; ++i) launch();
    CK(cudaDeviceSynchronize());
    std::vector<float> ms;
    for (int r = 0; r < reps; ++r) {
        CK(cudaEventRecord(e0));
        launch();
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float m;
        CK(cudaEventElapsedTime(&m, e0, e1));
        ms.push_back(m);
    }
    CK(cudaGetLastError());
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}
