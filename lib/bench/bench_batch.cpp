// bench_batch.cpp — batches of images through the library (satlib_integral), timed in one
// process against a device-to-device copy of the same bytes (`make bench-batch`).
//
//     build/lib/bench_batch [--reps N] [--quick] [--csv FILE]
//
// Per shape (64 x 1080x1920, 16 x 2160x3840, and one 1080x1920 image) and type (f32 -> f32,
// u8 -> i32), the rows are:
//   batch        one satlib_integral call for the whole batch (one kernel launch),
//   per image    one call per image (what a caller without batches does),
//   + squares    one call writing the sums and the squared sums,
// each as the median time and as time / copy, where copy is cudaMemcpyAsync of (input + output
// bytes) / 2, the harness's reference (read and write the same bytes). L2 is flushed before every
// repetition (sat::time_gpu). The batch's sums and squares are checked against one call per
// image (every byte) and the first and last image against a CPU SAT (exact: small integers);
// a mismatch prints FAIL and the exit status is 1. --csv writes the rows with the run's GPU,
// driver, CUDA version and date (docs/data/batch_<gpu>.csv, the table of docs/library.md).
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "bench_options.h"
#include "bench_util.h"
#include "data.h"
#include "gpu_timing.h"
#include "sat.hpp"

namespace {

struct Case {
    int batch, rows, cols;
};

template <class In, class Out>
struct Run {
    const Case& c;
    cudaStream_t stream;
    sat::L2Flusher& flusher;
    int reps;
    std::FILE* csv;             // null: no CSV
    const std::string& run;     // run_columns()
    std::size_t n_image() const { return std::size_t(c.rows) * c.cols; }
    std::size_t n() const { return n_image() * c.batch; }

    // Calls of the library, checked; check_timeout 0: no host synchronization inside the call.
    void integral(const In* in, Out* out, Out* sq, int batch, std::size_t offset) const {
        sat::IntegralOptions<Out> opt;
        opt.sq = sq != nullptr ? sq + offset : nullptr;
        opt.sq_pitch = std::size_t(c.cols);
        opt.batch = sat::Batch{batch, n_image(), n_image(), n_image()};
        const int status = sat::integral(in + offset, std::size_t(c.cols), out + offset, std::size_t(c.cols), c.rows,
                                         c.cols, stream, opt);
        if (status != SATLIB_OK) throw sat::Error(satlib_error_string(status));
    }
    void per_image(const In* in, Out* out) const {
        for (int b = 0; b < c.batch; ++b) integral(in, out, nullptr, 1, std::size_t(b) * n_image());
    }

    // Whether image b of the table `got` (of `in`'s values, squared or not) equals a CPU SAT.
    bool matches_cpu(const std::vector<In>& in, const std::vector<Out>& got, int b, bool squares) const {
        const std::size_t at = std::size_t(b) * n_image();
        bool ok = true;
        sat::for_each_exact_sum(
            sat::Shape{c.rows, c.cols},
            [&](int i, int j) {
                const long long v = (long long)in[at + std::size_t(i) * c.cols + j];
                return squares ? v * v : v;
            },
            [&](int i, int j, long long sum) {
                ok = ok && sat::equals_exact_sum(got[at + std::size_t(i) * c.cols + j], sum);
            });
        return ok;
    }

    bool measure(const char* type) {
        std::mt19937_64 rng(1);
        // f32: 0 or 1, so that sums of an 8-Mpixel image stay below 2^24 (exact); u8: any byte.
        std::uniform_int_distribution<int> dist(0, std::is_floating_point<Out>::value ? 1 : 255);
        std::vector<In> host_in(n());
        for (In& v : host_in) v = In(dist(rng));
        const std::size_t in_bytes = n() * sizeof(In), out_bytes = n() * sizeof(Out);
        sat::DeviceBuffer in(in_bytes), out(out_bytes), ref(out_bytes), sq(out_bytes), ref_sq(out_bytes);
        sat::DeviceBuffer copy_dst(copy_reference_bytes(in_bytes, out_bytes));
        SAT_CUDA(cudaMemcpy(in.ptr, host_in.data(), in_bytes, cudaMemcpyHostToDevice));
        const In* d_in = in.as<In>();

        // Checked first: batch against per image (sums and squares), ends against the CPU.
        for (int b = 0; b < c.batch; ++b) integral(d_in, ref.as<Out>(), ref_sq.as<Out>(), 1, std::size_t(b) * n_image());
        SAT_CUDA(cudaMemsetAsync(out.ptr, 0xff, out_bytes, stream));
        SAT_CUDA(cudaMemsetAsync(sq.ptr, 0xff, out_bytes, stream));
        integral(d_in, out.as<Out>(), sq.as<Out>(), c.batch, 0);
        SAT_CUDA(cudaStreamSynchronize(stream));
        bool ok = satlib_last_timeout() == 0;
        std::vector<Out> got(n()), want(n());
        for (int table = 0; table < 2 && ok; ++table) {
            SAT_CUDA(cudaMemcpy(got.data(), (table ? sq : out).ptr, out_bytes, cudaMemcpyDeviceToHost));
            SAT_CUDA(cudaMemcpy(want.data(), (table ? ref_sq : ref).ptr, out_bytes, cudaMemcpyDeviceToHost));
            ok = std::memcmp(got.data(), want.data(), out_bytes) == 0 && matches_cpu(host_in, got, 0, table == 1) &&
                 matches_cpu(host_in, got, c.batch - 1, table == 1);
        }

        Out* d_out = out.as<Out>();
        const sat::Stats batch = sat::time_gpu(reps, stream, flusher, [&] { integral(d_in, d_out, nullptr, c.batch, 0); });
        const sat::Stats each = sat::time_gpu(reps, stream, flusher, [&] { per_image(d_in, d_out); });
        const sat::Stats both =
            sat::time_gpu(reps, stream, flusher, [&] { integral(d_in, d_out, sq.as<Out>(), c.batch, 0); });
        const sat::Stats copy = sat::time_gpu(reps, stream, flusher, [&] {
            SAT_CUDA(cudaMemcpyAsync(copy_dst.ptr, out.ptr, copy_reference_bytes(in_bytes, out_bytes),
                                     cudaMemcpyDeviceToDevice, stream));
        });
        ok = ok && satlib_last_timeout() == 0;
        const std::string shape = std::to_string(c.batch) + " x " + std::to_string(c.rows) + "x" + std::to_string(c.cols);
        auto row = [&](const char* what, const sat::Stats& s) {
            std::printf("%-16s %-6s %-10s %9.4f ms  %6.2f x copy\n", shape.c_str(), type, what, s.median,
                        s.median / copy.median);
            if (csv != nullptr)
                std::fprintf(csv, "%s,%d,%d,%d,%s,%s,%.5f,%.5f,%.3f,%s\n", run.c_str(), c.batch, c.rows, c.cols, type,
                             what, s.median, copy.median, s.median / copy.median, ok ? "PASS" : "FAIL");
        };
        row("batch", batch);
        row("per image", each);
        row("+ squares", both);
        std::printf("%-16s %-6s %-10s %9.4f ms  (%.0f GB/s)  %s\n", shape.c_str(), type, "copy", copy.median,
                    double(in_bytes + out_bytes) / (copy.median * 1e-3) / 1e9, ok ? "check ok" : "FAIL");
        return ok;
    }
};

}  // namespace

int main(int argc, char** argv) {
    BenchOptions o;
    if (!parse_bench_options(argc, argv, "bench_batch", o)) return 2;
    if (!have_device("bench_batch")) return 2;
    std::FILE* csv = nullptr;
    if (!open_bench_csv(o.csv_path, "bench_batch", &csv)) return 2;
    try {
        cudaDeviceProp prop;
        SAT_CUDA(cudaGetDeviceProperties(&prop, 0));
        const std::string run = run_columns(prop);
        if (csv != nullptr)
            std::fprintf(csv, "gpu,driver,cuda,date,batch,rows,cols,type,method,median_ms,copy_ms,time_per_copy,check\n");
        std::printf("bench_batch on %s, satlib %s, median of %d repetitions, L2 flushed before each\n", prop.name,
                    satlib_version(), o.reps);
        std::vector<Case> cases = {{1, 1080, 1920}, {64, 1080, 1920}, {16, 2160, 3840}};
        if (o.quick) cases = {{1, 1080, 1920}, {8, 1080, 1920}};
        cudaStream_t stream = nullptr;
        SAT_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        sat::L2Flusher flusher;
        bool ok = true;
        for (const Case& c : cases) {
            ok = Run<float, float>{c, stream, flusher, o.reps, csv, run}.measure("f32") && ok;
            ok = Run<uint8_t, int32_t>{c, stream, flusher, o.reps, csv, run}.measure("u8i32") && ok;
        }
        SAT_CUDA(cudaStreamDestroy(stream));
        if (!close_bench_csv(csv, o.csv_path, "bench_batch")) return 2;
        return ok ? 0 : 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_batch: %s\n", e.what());
        return 1;
    }
}
