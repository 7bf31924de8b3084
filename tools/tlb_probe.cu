// tlb_probe — does the harness's between-repetition check (common/runner.cu: a bitwise compare
// of the output with a device copy of the checked run, then a poison memset) slow the next timed
// run, and does touching the timed run's pages (common/touch_pages.cuh, as runner.cu does) undo it?
// A streaming copy kernel (in -> out, 8-byte words) is timed with CUDA events, L2 flushed before
// each repetition, in three settings:
//   back-to-back   only the L2 flush between repetitions (the harness before the check existed)
//   after-check    compare(checked copy, out) + poison(out) + flush before each repetition
//   check+touch    as after-check, then one load per 64 KiB of in and out, then the flush
// Usage: build/tlb_probe [MiB per buffer ...]   (default: 1024 2048, the output bytes of f32 and
// f64 16384^2); prints one line per size and setting, median ms of 20 repetitions.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "touch_pages.cuh"

#define PROBE_CUDA(call)                                                                    \
    do {                                                                                    \
        const cudaError_t err_ = (call);                                                    \
        if (err_ != cudaSuccess) {                                                          \
            std::fprintf(stderr, "tlb_probe: %s failed: %s\n", #call, cudaGetErrorString(err_)); \
            std::exit(2);                                                                   \
        }                                                                                   \
    } while (0)

namespace {

constexpr int reps = 20;

__global__ void copy_words(const double* in, double* out, std::size_t n) {
    const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
    for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = in[i];
}

// Reads both buffers whole, as runner.cu's first_difference does when they are equal.
__global__ void compare_words(const unsigned* a, const unsigned* b, std::size_t n, unsigned* sink) {
    const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
    unsigned acc = 0;
    for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) acc |= a[i] ^ b[i];
    if (acc) atomicOr(sink, acc);
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::size_t> mib;
    for (int i = 1; i < argc; ++i) {
        char* end = nullptr;
        const long v = std::strtol(argv[i], &end, 10);
        if (!end || *end || v < 1 || v > (1 << 20)) {
            std::fprintf(stderr, "tlb_probe: '%s' is not a size in MiB (1 .. 1048576)\n", argv[i]);
            return 2;
        }
        mib.push_back(std::size_t(v));
    }
    if (mib.empty()) mib = {1024, 2048};
    int dev = 0, l2 = 0, sms = 0;
    PROBE_CUDA(cudaGetDevice(&dev));
    PROBE_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    PROBE_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    cudaStream_t s;
    PROBE_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaEvent_t start, stop;
    PROBE_CUDA(cudaEventCreate(&start));
    PROBE_CUDA(cudaEventCreate(&stop));
    const std::size_t flush_bytes = std::max<std::size_t>(2 * std::size_t(l2), 8 << 20);
    void *flush = nullptr, *sink = nullptr;
    PROBE_CUDA(cudaMalloc(&flush, flush_bytes));
    PROBE_CUDA(cudaMalloc(&sink, sizeof(unsigned)));
    for (const std::size_t m : mib) {
        const std::size_t bytes = m << 20, words = bytes / 8;
        std::size_t free_bytes = 0, total = 0;
        PROBE_CUDA(cudaMemGetInfo(&free_bytes, &total));
        if (3 * bytes + (std::size_t(256) << 20) > free_bytes) {
            std::fprintf(stderr, "tlb_probe: %zu MiB: needs 3 buffers of it, %zu MiB free\n", m, free_bytes >> 20);
            return 2;
        }
        void *in = nullptr, *out = nullptr, *checked = nullptr;
        PROBE_CUDA(cudaMalloc(&in, bytes));
        PROBE_CUDA(cudaMalloc(&out, bytes));
        PROBE_CUDA(cudaMalloc(&checked, bytes));
        PROBE_CUDA(cudaMemsetAsync(in, 0, bytes, s));
        PROBE_CUDA(cudaMemsetAsync(checked, 0, bytes, s));
        const unsigned blocks = unsigned(4 * sms);
        const char* names[] = {"back-to-back", "after-check", "check+touch"};
        for (int setting = 0; setting < 3; ++setting) {
            std::vector<double> ms;
            for (int k = -1; k < reps; ++k) {  // k = -1: warm-up, not counted
                if (setting >= 1) {
                    compare_words<<<blocks, 256, 0, s>>>(static_cast<const unsigned*>(checked),
                                                         static_cast<const unsigned*>(out), bytes / 4,
                                                         static_cast<unsigned*>(sink));
                    PROBE_CUDA(cudaMemsetAsync(out, 0x7F, bytes, s));
                }
                if (setting == 2) {
                    PROBE_CUDA(sat::touch_pages_async(in, bytes, s));
                    PROBE_CUDA(sat::touch_pages_async(out, bytes, s));
                }
                PROBE_CUDA(cudaMemsetAsync(flush, 0, flush_bytes, s));
                PROBE_CUDA(cudaEventRecord(start, s));
                copy_words<<<blocks, 256, 0, s>>>(static_cast<const double*>(in), static_cast<double*>(out), words);
                PROBE_CUDA(cudaEventRecord(stop, s));
                PROBE_CUDA(cudaEventSynchronize(stop));
                PROBE_CUDA(cudaGetLastError());
                float t = 0;
                PROBE_CUDA(cudaEventElapsedTime(&t, start, stop));
                if (k >= 0) ms.push_back(t);
            }
            const double med = median(ms);
            std::printf("%6zu MiB  %-13s  copy kernel median %.3f ms  (%.0f GB/s read+write)\n", m, names[setting],
                        med, 2.0 * double(bytes) / (med * 1e-3) / 1e9);
        }
        PROBE_CUDA(cudaFree(in));
        PROBE_CUDA(cudaFree(out));
        PROBE_CUDA(cudaFree(checked));
    }
    return 0;
}
