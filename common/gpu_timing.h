// gpu_timing.h — device memory and CUDA-event timing shared by the harness (runner.cu) and lab
// 8x's driver (tasks.cpp). Host code only: g++ compiles it in tasks.cpp, nvcc in runner.cu.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "sat.h"

namespace sat {

// cudaMalloc'd memory, freed on scope exit; zero bytes allocate nothing (ptr stays null).
struct DeviceBuffer {
    void* ptr = nullptr;
    explicit DeviceBuffer(std::size_t bytes) {
        if (bytes) SAT_CUDA(cudaMalloc(&ptr, bytes));
    }
    ~DeviceBuffer() {
        if (ptr) cudaFree(ptr);
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    template <class T>
    T* as() const { return static_cast<T*>(ptr); }
};

// What the device status word (Status, sat.h) says after a run; empty when every spin wait was
// fine. The stream that ran the kernel must be idle.
inline std::string status_error(const int* status) {
    int code = 0;
    SAT_CUDA(cudaMemcpy(&code, status, sizeof(int), cudaMemcpyDeviceToHost));
    if (code == status_spin_timeout)
        return "a spin wait timed out after " + std::to_string(spin_timeout_ns / 1000000000ull) +
               " s: a flag never arrived, so the kernel gave up instead of hanging (status word " +
               std::to_string(code) + ")";
    if (code != status_ok) return "the kernel reported status " + std::to_string(code);
    return "";
}

struct Events {
    cudaEvent_t start = nullptr, stop = nullptr;
    Events() {
        SAT_CUDA(cudaEventCreate(&start));
        SAT_CUDA(cudaEventCreate(&stop));
    }
    ~Events() {
        cudaEventDestroy(start);
        cudaEventDestroy(stop);
    }
    double ms() const {
        float t = 0;
        SAT_CUDA(cudaEventElapsedTime(&t, start, stop));
        return t;
    }
};

struct Stats {
    double median = 0, min = 0, max = 0;
};
inline Stats stats_of(std::vector<double> v) {
    Stats s;
    if (v.empty()) return s;
    std::sort(v.begin(), v.end());
    s.min = v.front();
    s.max = v.back();
    s.median = v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
    return s;
}

// Writing a buffer twice the size of L2 between timed runs evicts the previous run's data, so
// small sizes time DRAM as large ones do, not the cache.
class L2Flusher {
public:
    L2Flusher() {
        int dev = 0, l2 = 0;
        SAT_CUDA(cudaGetDevice(&dev));
        SAT_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
        bytes_ = std::max<std::size_t>(2 * std::size_t(l2), 8 << 20);
        SAT_CUDA(cudaMalloc(&buf_, bytes_));
    }
    ~L2Flusher() { cudaFree(buf_); }
    void flush(cudaStream_t s) { SAT_CUDA(cudaMemsetAsync(buf_, 0, bytes_, s)); }

private:
    void* buf_ = nullptr;
    std::size_t bytes_ = 0;
};

// Time `body` reps times on `stream`, flushing L2 before each, with events around body only;
// after(k) runs after repetition k (0-based) has finished, outside the timed region. The whole
// device is idle before each flush, so no work enqueued before (by after(), on any stream) can
// overlap the timed events.
template <class Body, class After>
Stats time_gpu(int reps, cudaStream_t stream, L2Flusher& flusher, Body body, After after) {
    Events ev;
    std::vector<double> times;
    for (int i = 0; i < reps; ++i) {
        SAT_CUDA(cudaDeviceSynchronize());
        flusher.flush(stream);
        SAT_CUDA(cudaEventRecord(ev.start, stream));
        body();
        SAT_CUDA(cudaEventRecord(ev.stop, stream));
        SAT_CUDA(cudaEventSynchronize(ev.stop));
        times.push_back(ev.ms());
        after(i);
    }
    return stats_of(times);
}
template <class Body>
Stats time_gpu(int reps, cudaStream_t stream, L2Flusher& flusher, Body body) {
    return time_gpu(reps, stream, flusher, body, [](int) {});
}

}  // namespace sat
