// bench_host.cu — the host time of one library call, and of the CUDA runtime calls a call is
// made of (`make bench-host`; `make bench-host-ab HOST_AB_BASE=dir` against other sources).
//
//     build/lib/bench_host [--bursts N]
//
// A burst is 50 calls on one stream after a synchronization: "host" is the time until the 50th
// call returns, per call, which is the caller's own cost as long as the GPU's queue of pending
// work does not fill (50 calls stay far below it); "done" is the time until the stream is idle
// again, per call: where it exceeds "host", the GPU, not the host, bounds a stream of such calls.
// Each row is the median over the bursts (min: the fastest burst). Every library call is checked
// (SATLIB_OK, no timeout, and the 64x64 table of ones against (i + 1)(j + 1)); exit status 1 when
// one is not.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "bench_util.h"
#include "satlib.h"

namespace {

constexpr int burst_calls = 50;
bool failed = false;

void check_cuda(cudaError_t err, const char* what) {
    if (err == cudaSuccess) return;
    std::fprintf(stderr, "bench_host: %s: %s\n", what, cudaGetErrorString(err));
    std::exit(2);
}

void check_status(int status, const char* what) {
    if (status == SATLIB_OK) return;
    if (!failed) std::fprintf(stderr, "bench_host: FAIL: %s: %s\n", what, satlib_error_string(status));
    failed = true;
}

double now_us() {
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// `call` timed in bursts on `stream` (null: the legacy default stream), one row printed.
void row(const char* name, cudaStream_t stream, int bursts, const std::function<void()>& call) {
    std::vector<double> host, done;
    for (int b = -3; b < bursts; ++b) {  // three bursts of warm-up
        check_cuda(cudaDeviceSynchronize(), name);
        const double t0 = now_us();
        for (int k = 0; k < burst_calls; ++k) call();
        const double t1 = now_us();
        check_cuda(cudaStreamSynchronize(stream), name);
        const double t2 = now_us();
        if (b < 0) continue;
        host.push_back((t1 - t0) / burst_calls);
        done.push_back((t2 - t0) / burst_calls);
    }
    std::printf("%-58s host %7.2f us/call (min %6.2f)   done %7.2f us/call\n", name, median(host),
                *std::min_element(host.begin(), host.end()), median(done));
}

__global__ void empty_kernel() {}
__global__ void smem_kernel(int* p) {
    extern __shared__ int scratch[];
    if (p != nullptr) scratch[threadIdx.x] = *p;
}
__device__ int some_symbol;

satlib_integral_args args_for(const void* in, satlib_dtype in_type, void* out, satlib_dtype out_type, int rows,
                              int cols, void* sq = nullptr) {
    satlib_integral_args a{};
    a.in = in, a.in_type = in_type, a.in_pitch = std::size_t(cols), a.in_batch_stride = std::size_t(rows) * cols;
    a.out = out, a.out_type = out_type, a.out_pitch = std::size_t(cols), a.out_batch_stride = std::size_t(rows) * cols;
    a.sq_out = sq, a.sq_pitch = std::size_t(cols), a.sq_batch_stride = std::size_t(rows) * cols;
    a.batch = 1, a.rows = rows, a.cols = cols, a.layout = SATLIB_LAYOUT_SAME;
    return a;
}

}  // namespace

int main(int argc, char** argv) {
    int bursts = 40;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--bursts") == 0 && i + 1 < argc && std::atoi(argv[i + 1]) > 0) {
            bursts = std::atoi(argv[++i]);
        } else {
            std::fprintf(stderr, "usage: bench_host [--bursts N]   (N >= 1, default 40)\n");
            return 2;
        }
    }
    if (!have_device("bench_host")) return 2;
    int count = 0;
    int device = 0, driver = 0;
    cudaDeviceProp prop{};
    check_cuda(cudaGetDevice(&device), "cudaGetDevice");
    check_cuda(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
    cudaDriverGetVersion(&driver);
    std::printf("%s, CUDA driver %d.%d, library %s; %d bursts of %d calls, median per call\n", prop.name,
                driver / 1000, driver % 1000 / 10, satlib_version(), bursts, burst_calls);

    // Inputs of ones: every table is exact ((i + 1)(j + 1)).
    const int big_rows = 1080, big_cols = 1920;
    const std::size_t big = std::size_t(big_rows) * big_cols;
    float *f_in = nullptr, *f_out = nullptr, *f_sq = nullptr;
    unsigned char* u_in = nullptr;
    int* i_out = nullptr;
    check_cuda(cudaMalloc(&f_in, big * 4), "cudaMalloc");
    check_cuda(cudaMalloc(&f_out, big * 4), "cudaMalloc");
    check_cuda(cudaMalloc(&f_sq, big * 4), "cudaMalloc");
    check_cuda(cudaMalloc(&u_in, big), "cudaMalloc");
    check_cuda(cudaMalloc(&i_out, big * 4), "cudaMalloc");
    const std::vector<float> ones(big, 1.0f);
    check_cuda(cudaMemcpy(f_in, ones.data(), big * 4, cudaMemcpyHostToDevice), "cudaMemcpy");
    check_cuda(cudaMemset(u_in, 1, big), "cudaMemset");
    cudaStream_t stream = nullptr;
    check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");

    std::printf("-- library calls (stream-ordered; check_timeout 0 unless said)\n");
    const satlib_integral_args small = args_for(f_in, SATLIB_F32, f_out, SATLIB_F32, 64, 64);
    const satlib_integral_args hd = args_for(f_in, SATLIB_F32, f_out, SATLIB_F32, big_rows, big_cols);
    const satlib_integral_args hd_sq = args_for(f_in, SATLIB_F32, f_out, SATLIB_F32, big_rows, big_cols, f_sq);
    const satlib_integral_args hd_u8 = args_for(u_in, SATLIB_U8, i_out, SATLIB_I32, big_rows, big_cols);
    const satlib_integral_args thin = args_for(f_in, SATLIB_F32, f_out, SATLIB_F32, 1, 4096);
    row("satlib_integral f32 64x64", stream, bursts, [&] { check_status(satlib_integral(&small, stream, 0), "64x64"); });
    row("satlib_integral f32 64x64, check_timeout 1 (waits)", stream, bursts,
        [&] { check_status(satlib_integral(&small, stream, 1), "64x64 checked"); });
    row("satlib_integral f32 1080x1920", stream, bursts, [&] { check_status(satlib_integral(&hd, stream, 0), "1080p"); });
    row("satlib_integral f32 1080x1920 + squares", stream, bursts,
        [&] { check_status(satlib_integral(&hd_sq, stream, 0), "1080p squares"); });
    row("satlib_integral u8 -> i32 1080x1920", stream, bursts,
        [&] { check_status(satlib_integral(&hd_u8, stream, 0), "1080p u8"); });
    row("satlib_integral f32 1x4096 (thin)", stream, bursts, [&] { check_status(satlib_integral(&thin, stream, 0), "1x4096"); });
    row("satlib_box f32 64x64 mean r=3", stream, bursts, [&] {
        check_status(satlib_box(f_in, SATLIB_F32, 64, 0, f_sq, SATLIB_F32, 64, 0, 1, 64, 64, 3, SATLIB_BOX_MEAN, stream),
                     "box");
    });
    row("cudaMemcpyAsync 64x64 f32 device to device (one op)", stream, bursts,
        [&] { check_cuda(cudaMemcpyAsync(f_out, f_in, 64 * 64 * 4, cudaMemcpyDeviceToDevice, stream), "copy"); });

    std::printf("-- CUDA runtime calls a library call is made of (host only unless launched)\n");
    void* p = nullptr;
    cudaMemPool_t pool = nullptr;
    std::uint64_t threshold = 0;
    row("cudaGetDevice", stream, bursts, [&] { cudaGetDevice(&device); });
    row("cudaGetDeviceCount", stream, bursts, [&] { cudaGetDeviceCount(&count); });
    row("cudaDeviceGetMemPool + cudaMemPoolGetAttribute", stream, bursts, [&] {
        cudaDeviceGetMemPool(&pool, device);
        cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold);
    });
    row("cudaMallocAsync + cudaFreeAsync 64 KB", stream, bursts, [&] {
        check_cuda(cudaMallocAsync(&p, 65536, stream), "cudaMallocAsync");
        check_cuda(cudaFreeAsync(p, stream), "cudaFreeAsync");
    });
    row("cudaMemsetAsync 4 KB", stream, bursts, [&] { check_cuda(cudaMemsetAsync(f_out, 0, 4096, stream), "memset"); });
    row("empty kernel <<<1, 1>>> + cudaGetLastError", stream, bursts, [&] {
        empty_kernel<<<1, 1, 0, stream>>>();
        check_cuda(cudaGetLastError(), "launch");
    });
    row("cudaGetSymbolAddress", stream, bursts, [&] { cudaGetSymbolAddress(&p, some_symbol); });
    const int smem = 64 << 10;
    row("cudaFuncSetAttribute (max dynamic shared memory), idle", stream, bursts, [&] {
        check_cuda(cudaFuncSetAttribute(smem_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem), "attr");
    });
    row("kernel with 64 KB of dynamic shared memory", stream, bursts, [&] {
        smem_kernel<<<1, 32, smem, stream>>>(nullptr);
        check_cuda(cudaGetLastError(), "launch");
    });
    row("the same kernel, each launch after cudaFuncSetAttribute", stream, bursts, [&] {
        check_cuda(cudaFuncSetAttribute(smem_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem), "attr");
        smem_kernel<<<1, 32, smem, stream>>>(nullptr);
        check_cuda(cudaGetLastError(), "launch");
    });

    // The 64x64 table of the last library call on it, and no timeout in any call.
    check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    check_status(satlib_integral(&small, stream, 1), "64x64 checked");
    std::vector<float> table(64 * 64);
    check_cuda(cudaMemcpy(table.data(), f_out, table.size() * 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
    std::size_t wrong = 0;
    for (int i = 0; i < 64; ++i)
        for (int j = 0; j < 64; ++j) wrong += table[i * 64 + j] != float((i + 1) * (j + 1));
    const bool timed_out = satlib_last_timeout() != 0;
    if (wrong != 0) std::fprintf(stderr, "bench_host: FAIL: %zu wrong elements in the 64x64 table\n", wrong);
    if (timed_out) std::fprintf(stderr, "bench_host: FAIL: a kernel timed out\n");
    failed = failed || wrong != 0 || timed_out;
    cudaStreamDestroy(stream);
    for (void* q : {static_cast<void*>(f_in), static_cast<void*>(f_out), static_cast<void*>(f_sq),
                    static_cast<void*>(u_in), static_cast<void*>(i_out)})
        cudaFree(q);
    return failed ? 1 : 0;
}
