// bench_timeline.cu — when the tiles of one library call are written (the kernel's tile trace),
// to show where the time above a device copy goes: the ramp before the first tile is written, the
// steady stretch, and the drain of the last tiles (`make bench-timeline`).
//
//     build/lib/bench_timeline [--sizes RxC,...] [--csv FILE]
//
// Per shape and type: the call's median time and that of a copy of the same bytes (CUDA events,
// L2 flushed, no trace; sat::time_gpu), then traced calls, each between two one-thread kernels
// that read %globaltimer. Times are in µs from the first of those: the first 32 x 32 piece of the
// output written (its stores issued), 10 / 50 / 90 % of them, the last, and the second stamp; and
// the rate of the middle 80 % of the pieces as bandwidth (their input and output bytes / time).
// Of several traced calls, the one whose last piece came earliest is shown. The input is zero:
// the kernel's work does not depend on the values, and no result is checked here (the tests do).
// --sizes takes 2-D shapes: a thin one (a side of at most 64) would be timed in sat::thin's kernel,
// which records no trace, and traced in the 2-D one.
// --csv writes the rows with the run's GPU, driver, CUDA version and date
// (docs/data/timeline_<gpu>.csv, the timeline table of docs/tiles.md).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_util.h"
#include "bracket_stamps.cuh"
#include "device.cuh"
#include "gpu_timing.h"
#include "harness.h"
#include "sat.hpp"

namespace {

struct Case {
    int rows, cols;
};

template <class In, class Out>
void timeline(const Case& c, const char* type, FILE* csv, const std::string& run) {
    const std::size_t n = std::size_t(c.rows) * c.cols;
    const int pieces_y = sat::ceil_div(c.rows, sat::w), pieces_x = sat::ceil_div(c.cols, sat::w);
    const std::size_t pieces = std::size_t(pieces_y) * pieces_x;
    const std::size_t copy_bytes = n * (sizeof(In) + sizeof(Out)) / 2;  // read and written: the call's bytes
    sat::DeviceBuffer in(n * sizeof(In)), out(n * sizeof(Out)), copy_src(copy_bytes), copy_dst(copy_bytes);
    sat::DeviceBuffer trace(pieces * sizeof(unsigned long long));
    SAT_CUDA(cudaMemset(in.ptr, 0, n * sizeof(In)));
    cudaStream_t stream = nullptr;
    SAT_CUDA(cudaStreamCreate(&stream));
    sat::L2Flusher flusher;
    sat::ScanOptions opt;
    auto call = [&] {
        SAT_CUDA(sat::inclusive_scan_2d(in.as<In>(), c.cols, out.as<Out>(), c.cols, c.rows, c.cols, stream, opt));
    };
    call();  // first call: caches, scratch pool
    const sat::Stats t_call = sat::time_gpu(20, stream, flusher, call);
    const sat::Stats t_copy = sat::time_gpu(20, stream, flusher, [&] {
        SAT_CUDA(cudaMemcpyAsync(copy_dst.ptr, copy_src.ptr, copy_bytes, cudaMemcpyDeviceToDevice, stream));
    });

    // Traced calls; the one whose last piece came earliest.
    opt.trace = trace.as<unsigned long long>();
    bench::BracketStamps stamps;
    std::vector<double> best;
    double best_end = 0;
    for (int rep = 0; rep < 5; ++rep) {
        SAT_CUDA(cudaMemset(trace.ptr, 0, pieces * sizeof(unsigned long long)));
        SAT_CUDA(cudaDeviceSynchronize());
        flusher.flush(stream);
        stamps.around(stream, call);
        SAT_CUDA(cudaStreamSynchronize(stream));
        std::vector<unsigned long long> t(pieces);
        SAT_CUDA(cudaMemcpy(t.data(), trace.ptr, pieces * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
        const auto edge = stamps.read();
        std::vector<double> us;
        for (unsigned long long v : t)
            if (v != 0) us.push_back(double(v - edge[0]) * 1e-3);
        if (us.size() != pieces) throw sat::Error("bench_timeline: a piece of the output recorded no time");
        std::sort(us.begin(), us.end());
        us.push_back(double(edge[1] - edge[0]) * 1e-3);
        if (best.empty() || us[pieces - 1] < best_end) best = us, best_end = us[pieces - 1];
    }
    opt.trace = nullptr;
    auto at = [&](double f) { return best[std::min(pieces - 1, std::size_t(f * double(pieces - 1)))]; };
    const double middle_us = at(0.9) - at(0.1);  // 0 for a shape of a few pieces: no rate
    const double middle_gbps = middle_us > 0 ? 0.8 * double(n) * double(sizeof(In) + sizeof(Out)) / (middle_us * 1e3) : 0;
    const double copy_gbps = 2.0 * double(copy_bytes) / (t_copy.median * 1e6);
    std::printf("%-11s %-6s %8.1f %8.1f %5.2f | %7.1f %7.1f %7.1f %7.1f %7.1f %7.1f | %6.0f %6.0f\n",
                (std::to_string(c.rows) + "x" + std::to_string(c.cols)).c_str(), type, t_call.median * 1e3,
                t_copy.median * 1e3, t_call.median / t_copy.median, best[0], at(0.1), at(0.5), at(0.9),
                best[pieces - 1], best[pieces], middle_gbps, copy_gbps);
    std::fflush(stdout);
    if (csv)
        std::fprintf(csv, "%s,%dx%d,%s,%.1f,%.1f,%.2f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.0f,%.0f\n", run.c_str(), c.rows,
                     c.cols, type, t_call.median * 1e3, t_copy.median * 1e3, t_call.median / t_copy.median, best[0],
                     at(0.1), at(0.5), at(0.9), best[pieces - 1], best[pieces], middle_gbps, copy_gbps);
    SAT_CUDA(cudaStreamDestroy(stream));
}

}  // namespace

int main(int argc, char** argv) {
    std::string csv_path;
    std::vector<Case> cases = {{1080, 1920}, {2160, 3840}, {4096, 4096}, {8192, 8192}, {16384, 16384}};
    for (int k = 1; k < argc; ++k) {
        const std::string a = argv[k];
        if (a == "--csv" && k + 1 < argc) {
            csv_path = argv[++k];
        } else if (a == "--sizes" && k + 1 < argc) {  // RxC,RxC,...
            cases.clear();
            try {
                for (const std::string& s : sat::split_list(argv[++k], ',')) {
                    const sat::Shape shape = sat::parse_shape("--sizes", s);
                    cases.push_back({shape.rows, shape.cols});
                }
            } catch (const sat::UsageError& e) {
                std::fprintf(stderr, "bench_timeline: %s\n", e.what());
                return 2;
            }
        } else {
            std::fprintf(stderr, "usage: bench_timeline [--sizes RxC,...] [--csv FILE]\n");
            return 2;
        }
    }
    if (!have_device("bench_timeline")) return 2;
    FILE* csv = nullptr;
    if (!open_bench_csv(csv_path, "bench_timeline", &csv)) return 2;
    if (csv)
        std::fprintf(csv, "gpu,driver,cuda,date,shape,type,call_us,copy_us,time_per_copy,first_us,p10_us,p50_us,"
                          "p90_us,last_us,end_us,middle_gbps,copy_gbps\n");
    try {
        cudaDeviceProp prop{};
        SAT_CUDA(cudaGetDeviceProperties(&prop, 0));
        const std::string run = run_columns(prop);
        std::printf("bench_timeline on %s: µs from a stamp kernel before the call (events: median of 20, L2 flushed)\n",
                    prop.name);
        std::printf("%-11s %-6s %8s %8s %5s | %7s %7s %7s %7s %7s %7s | %6s %6s\n", "shape", "type", "call", "copy",
                    "ratio", "first", "10%", "50%", "90%", "last", "end", "GB/s80", "copyGB");
        for (const Case& c : cases) {
            timeline<float, float>(c, "f32", csv, run);
            timeline<uint8_t, int32_t>(c, "u8i32", csv, run);
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_timeline: %s\n", e.what());
        return 1;
    }
    if (!close_bench_csv(csv, csv_path, "bench_timeline")) return 2;
    return 0;
}
