// bench_ab.cpp — a same-process A/B of two versions of the library (`make bench-ab AB_BASE=DIR`):
// this tree's sat::inclusive_scan_2d against the one built from DIR (another version's lib/src
// files and its common/lookback.cuh; mk/lib_ab.mk), on the shapes of issue 22's targets.
//
//     build/lib/bench_ab [--reps N] [--quick] [--seed S] [--csv FILE]
//
// Each version gets its own scratch, kept between calls as a caller keeps it; each call clears
// its state (state_is_zero false), as in peers' satlib variant. Repetitions alternate base, this,
// copy (base and this swap places every repetition), each with L2 flushed before it
// (sat::time_gpu); a row is the median of each, the copy being cudaMemcpyAsync of (input +
// output bytes) / 2. Both versions' outputs must be equal, byte for byte, after the first call
// and after the last repetition, and both status words clear; else the row says why and FAIL,
// and the exit status is 1.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ab_entry.h"
#include "bench_options.h"
#include "bench_util.h"
#include "data.h"
#include "gpu_timing.h"

namespace {

struct Case {
    AbType type;
    int batch, rows, cols;
};

const char* type_name(AbType t) { return t == AbType::f32 ? "f32" : t == AbType::f64 ? "f64" : "u8i32"; }
std::size_t in_size(AbType t) { return t == AbType::f32 ? 4 : t == AbType::f64 ? 8 : 1; }
std::size_t out_size(AbType t) { return t == AbType::f64 ? 8 : 4; }

bool device_equal(const void* a, const void* b, std::size_t bytes) {
    std::vector<unsigned char> x(bytes), y(bytes);
    SAT_CUDA(cudaMemcpy(x.data(), a, bytes, cudaMemcpyDeviceToHost));
    SAT_CUDA(cudaMemcpy(y.data(), b, bytes, cudaMemcpyDeviceToHost));
    return x == y;
}
int device_int(const int* p) {
    int v = -1;
    SAT_CUDA(cudaMemcpy(&v, p, sizeof v, cudaMemcpyDeviceToHost));
    return v;
}

// Input values that keep every sum exact, so that both versions' outputs are equal byte for byte
// whatever order a look-back adds its tiles in: f32 1 with probability 1/32, else 0 (16384^2
// sums stay near 2^23, below 2^24); f64 0 or 1; u8 any byte (i32 sums wrap alike).
void fill_input(std::vector<unsigned char>& bytes, AbType t, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    const std::size_t n = bytes.size() / in_size(t);
    if (t == AbType::u8i32) {
        for (auto& b : bytes) b = static_cast<unsigned char>(rng());
    } else if (t == AbType::f32) {
        for (std::size_t k = 0; k < n; ++k) reinterpret_cast<float*>(bytes.data())[k] = float((rng() & 31) == 0);
    } else {
        for (std::size_t k = 0; k < n; ++k) reinterpret_cast<double*>(bytes.data())[k] = double(rng() & 1);
    }
}

// One version's output (poisoned), scratch and status word (zero).
struct Version {
    cudaError_t (*scan)(const AbCall&);
    sat::DeviceBuffer out, state, values, status;
    Version(cudaError_t (*scan_fn)(const AbCall&), AbScratch s, std::size_t out_bytes)
        : scan(scan_fn), out(out_bytes), state(s.state_bytes), values(s.value_bytes), status(sizeof(int)) {
        SAT_CUDA(cudaMemset(out.ptr, sat::poison_byte, out_bytes));
        SAT_CUDA(cudaMemset(status.ptr, 0, sizeof(int)));
        SAT_CUDA(cudaDeviceSynchronize());  // the calls run on a stream that does not wait for these
    }
};

bool run_case(const Case& c, int reps, std::uint64_t seed, cudaStream_t stream,
              sat::L2Flusher& flusher, std::FILE* csv, const std::string& run) {
    const std::size_t n = std::size_t(c.batch) * c.rows * c.cols;
    const std::size_t in_bytes = n * in_size(c.type), out_bytes = n * out_size(c.type);
    std::vector<unsigned char> host_in(in_bytes);
    fill_input(host_in, c.type, seed);
    sat::DeviceBuffer in(in_bytes), copy_dst((in_bytes + out_bytes) / 2);
    SAT_CUDA(cudaMemcpy(in.ptr, host_in.data(), in_bytes, cudaMemcpyHostToDevice));

    Version base(ab_base::scan, ab_base::scratch(c.type, c.rows, c.cols, c.batch), out_bytes);
    Version mine(ab_this::scan, ab_this::scratch(c.type, c.rows, c.cols, c.batch), out_bytes);
    auto call = [&](Version& v) {
        const AbCall a{c.type, in.ptr, v.out.ptr, c.rows, c.cols, c.batch, v.state.ptr, v.values.ptr,
                       v.status.as<int>(), stream};
        SAT_CUDA(v.scan(a));
    };
    std::string why;  // the first check that failed
    auto same = [&](const char* when) {
        SAT_CUDA(cudaStreamSynchronize(stream));
        const char* failed = device_int(base.status.as<int>()) != 0   ? "base's status word set"
                             : device_int(mine.status.as<int>()) != 0 ? "this tree's status word set"
                             : !device_equal(base.out.ptr, mine.out.ptr, out_bytes) ? "outputs differ"
                                                                                    : nullptr;
        if (failed != nullptr && why.empty()) why = std::string(failed) + " " + when;
        return failed == nullptr;
    };
    call(base);
    call(mine);
    bool ok = same("after the first call");

    std::vector<double> t_base, t_mine, t_copy;
    auto once = [&](auto body) { return sat::time_gpu(1, stream, flusher, body).median; };
    for (int k = 0; k < reps; ++k) {
        const double first = once([&] { call(k % 2 ? mine : base); });
        const double second = once([&] { call(k % 2 ? base : mine); });
        (k % 2 ? t_mine : t_base).push_back(first);
        (k % 2 ? t_base : t_mine).push_back(second);
        t_copy.push_back(once([&] {
            SAT_CUDA(cudaMemcpyAsync(copy_dst.ptr, mine.out.ptr, (in_bytes + out_bytes) / 2, cudaMemcpyDeviceToDevice,
                                     stream));
        }));
    }
    ok = same("after the last repetition") && ok;
    const double b = sat::stats_of(t_base).median, m = sat::stats_of(t_mine).median, cp = sat::stats_of(t_copy).median;
    const std::string shape = (c.batch > 1 ? std::to_string(c.batch) + " x " : std::string()) + std::to_string(c.rows) +
                              "x" + std::to_string(c.cols);
    std::printf("%-18s %-6s %9.4f %9.4f %9.4f %7.3f %7.3f %7.3f  %s\n", shape.c_str(), type_name(c.type), b, m, cp,
                b / cp, m / cp, m / b, ok ? "ok" : ("FAIL: " + why).c_str());
    if (csv != nullptr)
        std::fprintf(csv, "%s,%d,%d,%d,%s,%.5f,%.5f,%.5f,%.4f,%.4f,%.4f,%s\n", run.c_str(), c.batch, c.rows, c.cols,
                     type_name(c.type), b, m, cp, b / cp, m / cp, m / b, ok ? "PASS" : "FAIL");
    return ok;
}

}  // namespace

int main(int argc, char** argv) {
    BenchOptions o;
    std::uint64_t seed = std::random_device{}();
    if (!parse_bench_options(argc, argv, "bench_ab", o, &seed)) return 2;
    if (!have_device("bench_ab")) return 2;
    std::FILE* csv = nullptr;
    if (!open_csv(o.csv_path, "bench_ab", &csv)) return 2;
    try {
        cudaDeviceProp prop;
        SAT_CUDA(cudaGetDeviceProperties(&prop, 0));
        const std::string run = run_columns(prop);
        if (csv != nullptr)
            std::fprintf(csv, "gpu,driver,cuda,date,batch,rows,cols,type,base_ms,this_ms,copy_ms,base_per_copy,"
                              "this_per_copy,this_per_base,check\n");
        std::printf("bench_ab on %s: median of %d alternating repetitions, L2 flushed before each, seed %llu\n",
                    prop.name, o.reps, (unsigned long long)seed);
        std::printf("%-18s %-6s %9s %9s %9s %7s %7s %7s  %s\n", "shape", "type", "base ms", "this ms", "copy ms",
                    "base/cp", "this/cp", "this/b", "check");
        using T = AbType;
        std::vector<Case> cases = {
            {T::f32, 1, 4096, 4096},    {T::f32, 1, 8192, 8192},     {T::f32, 1, 16384, 16384},
            {T::f64, 1, 4096, 4096},    {T::f64, 1, 16384, 16384},   {T::u8i32, 1, 4096, 4096},
            {T::u8i32, 1, 16384, 16384}, {T::f32, 1, 1080, 1920},    {T::f64, 1, 1080, 1920},
            {T::u8i32, 1, 1080, 1920},  {T::f32, 64, 1080, 1920},    {T::u8i32, 16, 2160, 3840},
            {T::f32, 1, 33, 4000000},   {T::u8i32, 1, 4000000, 3},
        };
        if (o.quick) cases = {{T::f32, 1, 1080, 1920}, {T::f32, 1, 4096, 4096}, {T::u8i32, 1, 33, 100000}};
        cudaStream_t stream = nullptr;
        SAT_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        sat::L2Flusher flusher;
        bool ok = true;
        for (std::size_t k = 0; k < cases.size(); ++k)
            ok = run_case(cases[k], o.reps, seed + k, stream, flusher, csv, run) && ok;
        SAT_CUDA(cudaStreamDestroy(stream));
        if (csv != nullptr && std::fclose(csv) != 0) {
            std::fprintf(stderr, "bench_ab: cannot write %s\n", o.csv_path.c_str());
            return 2;
        }
        return ok ? 0 : 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_ab: %s\n", e.what());
        return 1;
    }
}
