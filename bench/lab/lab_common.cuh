// What the lab harnesses share: a checked CUDA call, the argv filter of row names, CUDA-event
// timing (the median of `reps` runs after `warmups` untimed ones; each lab passes the warm-up and
// run counts its results used), and the random scan inputs of the prefetch and pipeline labs.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cstring>
#include <random>
#include <string>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); exit(2);} } while (0)

/** Whether a row named `name` runs: `only` (a lab's argv[1]) lists parts of names, comma-separated; null runs all. */
static bool selected(const char* only, const char* name) {
    if (!only) return true;
    const std::string list(only);
    for (size_t start = 0; start <= list.size();) {
        const size_t end = std::min(list.find(',', start), list.size());
        if (end > start && std::strstr(name, list.substr(start, end - start).c_str())) return true;
        start = end + 1;
    }
    return false;
}

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

/**
 * Random inputs, on the host (to check against) and on the device: n int32 in [-1e9, 1e9] and
 * float32 in [-1, 1), n / 2 int64 in [-1e6, 1e6] and float64 in [-1, 1); seed 7, drawn in that order.
 */
struct LabInputs {
    long long n, n8;
    std::vector<int> hi;
    std::vector<float> hf;
    std::vector<long long> hl;
    std::vector<double> hd;
    int* iin;
    float* fin;
    long long* lin;
    double* din;

    explicit LabInputs(long long count) : n(count), n8(count / 2), hi(n), hf(n), hl(n8), hd(n8) {
        std::mt19937_64 rng(7);
        for (auto& v : hi) v = (int)(rng() % 2000000001ULL) - 1000000000;
        for (auto& v : hf) v = (float)((double)(rng() >> 11) / 9007199254740992.0 * 2 - 1);
        for (auto& v : hl) v = (long long)(rng() % 2000001) - 1000000;
        for (auto& v : hd) v = (double)(rng() >> 11) / 9007199254740992.0 * 2 - 1;
        CK(cudaMalloc(&iin, n * 4)); CK(cudaMalloc(&fin, n * 4)); CK(cudaMalloc(&lin, n8 * 8)); CK(cudaMalloc(&din, n8 * 8));
        CK(cudaMemcpy(iin, hi.data(), n * 4, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(fin, hf.data(), n * 4, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(lin, hl.data(), n8 * 8, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(din, hd.data(), n8 * 8, cudaMemcpyHostToDevice));
    }
};
