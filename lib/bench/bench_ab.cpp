// bench_ab.cpp — a same-process A/B of two versions of the library (`make bench-ab AB_BASE=DIR`,
// mk/lib_ab.mk): this tree's sat::inclusive_scan_2d against the one of the checkout DIR, on the
// shapes of issue 22's targets (--set targets, the default), on every type's squares from 4096^2 to
// 32768^2 with i32's images and batches (--set squares), on its thin shapes (--set thin), on
// single lines, which take CUB's 1-D scan (--set lines), on u8 -> i32 thin shapes 3 to 33
// wide (--set widths), on f32 thin shapes 3 to 33 wide and i32 and f64 ones 3, 9 and 33 wide, both
// ways (--set same-type), on wide thin shapes whose rows are not a whole number of 16-byte groups
// (--set pitches), on tall f32, f64 and i32 shapes 2 to 33 wide (--set tall), on 2-D images whose
// width is not a whole number of pieces, which take the kernels without vector accesses (--set odd),
// on u8 -> i32, f32, f64 and i32 images of 2 and 3 rows from 1920 to 40,000,000 wide (--set rows),
// on u8 -> i32 images of 2 and 3 contiguous columns from 1920 to 40,000,000 tall (--set columns),
// on single images from 1280x720 to 3840x2160, 2160x3840 and 2048x4096 (of every pair the
// library takes) and small batches of them, mostly launches of one round of tiles (--set images;
// 2160x3840 and 2048x4096 are one round of 65 to 128 small tile rows for u8 and, 2048x4096, for
// f32 and i32, 2160x3840 one round of tall small tiles for f32 and i32; more than a round for the
// others; f32 and i32 2560x3570 and the f64 accumulator's 2560x2048, 2048x2560 and 2000x2600,
// one round of small tiles but a round of 256-thread ones), or
// on f32 and u8 -> i32 images
// 4096 wide whose 256-thread tiles are between one and two rounds on an H200 (--set rounds), or on
// wide thin images of 17 to 64 rows, some of which take the 2-D tiles (--set wide), or on one
// wide f32 or i32 image of 2 to 5 rows, in the thin kernel's chunks of which 4 fit an SM
// (--set few-rows).
//
//     build/lib/ab-base/<DIR>/bench_ab [--reps N] [--quick] [--seed S]
//                                      [--set targets|squares|thin|lines|widths|same-type|pitches|tall|odd|
//                                             rows|columns|images|rounds|wide|few-rows]
//                                      [--csv FILE]
//
// Each version gets its own output and scratch, kept between calls as a caller keeps them; each
// call clears its state (state_is_zero false), as in peers' satlib variant. Repetitions
// alternate base, this and copy (base and this swap places every repetition), each with L2
// flushed before it (sat::time_gpu); a row is the median of each, the copy being
// cudaMemcpyAsync of (input + output bytes) / 2. The input is the harness's exact data (every sum
// exact in any order of additions), so both versions must agree byte for byte: after the first
// call, and after one more call of each into freshly poisoned outputs once the timing is done.
// A row that does not says FAIL and why, and the exit status is 1.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
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

// What bench_ab needs of a type pair: its name, its bytes per element, and how its inputs are
// drawn (generate_input's exact data of `drawn`, over `drawn_cols_per_col` as many columns: u16
// values are two u8 draws).
struct TypeInfo {
    const char* name;
    std::size_t in_bytes, out_bytes;
    sat::DType drawn;
    int drawn_cols_per_col;
};
TypeInfo info(AbType t) {
    auto of = [](sat::DType d) { return TypeInfo{sat::dtype_name(d), sat::input_bytes(d), sat::output_bytes(d), d, 1}; };
    switch (t) {
    case AbType::f32: return of(sat::DType::f32);
    case AbType::f64: return of(sat::DType::f64);
    case AbType::i32: return of(sat::DType::i32);
    case AbType::u8i32: return of(sat::DType::u8i32);
    case AbType::u8f32: return {"u8f32", 1, 4, sat::DType::u8i32, 1};
    case AbType::u16f64: return {"u16f64", 2, 8, sat::DType::u8i32, 2};
    case AbType::f32f64: return {"f32f64", 4, 8, sat::DType::f32, 1};
    }
    return {"?", 0, 0, sat::DType::f32, 1};
}

// Whether two device buffers hold the same bytes, compared in pieces of at most 256 MiB.
bool device_equal(const void* a, const void* b, std::size_t bytes) {
    constexpr std::size_t piece = std::size_t(256) << 20;
    std::vector<unsigned char> x(std::min(bytes, piece)), y(x.size());
    for (std::size_t at = 0; at < bytes; at += piece) {
        const std::size_t n = std::min(piece, bytes - at);
        SAT_CUDA(cudaMemcpy(x.data(), static_cast<const char*>(a) + at, n, cudaMemcpyDeviceToHost));
        SAT_CUDA(cudaMemcpy(y.data(), static_cast<const char*>(b) + at, n, cudaMemcpyDeviceToHost));
        if (std::memcmp(x.data(), y.data(), n) != 0) return false;
    }
    return true;
}

// One version's output, scratch and status word (zero).
struct Version {
    cudaError_t (*scan)(const AbCall&);
    sat::DeviceBuffer out, state, values, status;
    Version(cudaError_t (*scan_fn)(const AbCall&), AbScratch s, std::size_t out_bytes)
        : scan(scan_fn), out(out_bytes), state(s.state_bytes), values(s.value_bytes), status(sizeof(int)) {
        SAT_CUDA(cudaMemset(status.ptr, 0, sizeof(int)));
    }
};

// One row: the two versions and the copy on one case. Returns false when a check failed.
bool run_case(const Case& c, int reps, std::uint64_t seed, cudaStream_t stream, sat::L2Flusher& flusher,
              std::FILE* csv, const std::string& run) {
    const TypeInfo t = info(c.type);
    const std::size_t n = std::size_t(c.batch) * c.rows * c.cols;
    const std::size_t in_bytes = n * t.in_bytes, out_bytes = n * t.out_bytes;
    const std::string shape = (c.batch > 1 ? std::to_string(c.batch) + " x " : std::string()) + std::to_string(c.rows) +
                              "x" + std::to_string(c.cols);
    std::string why;  // the first check that failed
    double b = 0, m = 0, cp = 0;
    try {
        std::vector<unsigned char> host_in(in_bytes);
        sat::generate_input(t.drawn, sat::Shape{c.batch * c.rows, c.cols * t.drawn_cols_per_col}, seed, host_in.data());
        if (c.type == AbType::u8f32) {
            // f32 sums of u8 values are exact, and so the same in any order of addition, while no
            // sum passes 2^24: values up to 2^24 / (rows x cols) each (exact for images of at most
            // 2^24 elements, as every u8 -> f32 case here).
            const std::size_t top = std::clamp<std::size_t>((std::size_t(1) << 24) / (std::size_t(c.rows) * c.cols), 1, 255);
            for (unsigned char& v : host_in) v = static_cast<unsigned char>(v % (top + 1));
        }
        sat::DeviceBuffer in(in_bytes), copy_dst(copy_reference_bytes(in_bytes, out_bytes));
        SAT_CUDA(cudaMemcpy(in.ptr, host_in.data(), in_bytes, cudaMemcpyHostToDevice));
        Version base(ab_base::scan, ab_base::scratch(c.type, c.rows, c.cols, c.batch), out_bytes);
        Version mine(ab_this::scan, ab_this::scratch(c.type, c.rows, c.cols, c.batch), out_bytes);
        auto call = [&](Version& v) {
            const AbCall a{c.type, in.ptr, v.out.ptr, c.rows, c.cols, c.batch, v.state.ptr, v.values.ptr,
                           v.status.as<int>(), stream};
            SAT_CUDA(v.scan(a));
        };
        // Both versions into poisoned outputs, then compared (the stream does not wait for the
        // default stream's memsets, hence the synchronizations).
        auto checked_calls = [&](const char* when) {
            SAT_CUDA(cudaMemset(base.out.ptr, sat::poison_byte, out_bytes));
            SAT_CUDA(cudaMemset(mine.out.ptr, sat::poison_byte, out_bytes));
            SAT_CUDA(cudaDeviceSynchronize());
            call(base);
            call(mine);
            SAT_CUDA(cudaStreamSynchronize(stream));
            std::string failed = sat::status_error(base.status.as<int>());
            if (!failed.empty()) failed = "base: " + failed;
            if (failed.empty() && !(failed = sat::status_error(mine.status.as<int>())).empty()) failed = "this: " + failed;
            if (failed.empty() && !device_equal(base.out.ptr, mine.out.ptr, out_bytes)) failed = "outputs differ";
            if (!failed.empty() && why.empty()) why = failed + " " + when;
        };
        checked_calls("after the first call");

        std::vector<double> t_base, t_mine, t_copy;
        auto once = [&](auto body) { return sat::time_gpu(1, stream, flusher, body).median; };
        for (int k = 0; k < reps; ++k) {
            const double first = once([&] { call(k % 2 ? mine : base); });
            const double second = once([&] { call(k % 2 ? base : mine); });
            (k % 2 ? t_mine : t_base).push_back(first);
            (k % 2 ? t_base : t_mine).push_back(second);
            t_copy.push_back(once([&] {
                SAT_CUDA(cudaMemcpyAsync(copy_dst.ptr, mine.out.ptr, copy_reference_bytes(in_bytes, out_bytes),
                                         cudaMemcpyDeviceToDevice, stream));
            }));
        }
        checked_calls("after the timing");
        b = sat::stats_of(t_base).median, m = sat::stats_of(t_mine).median, cp = sat::stats_of(t_copy).median;
    } catch (const std::exception& e) {
        if (why.empty()) why = e.what();
        cudaGetLastError();  // the next case starts clean where the error was not sticky
    }
    const bool ok = why.empty();
    std::printf("%-18s %-6s %9.4f %9.4f %9.4f %7.3f %7.3f %7.3f  %s\n", shape.c_str(), t.name, b, m, cp,
                cp > 0 ? b / cp : 0, cp > 0 ? m / cp : 0, b > 0 ? m / b : 0, ok ? "ok" : ("FAIL: " + why).c_str());
    if (csv != nullptr)
        std::fprintf(csv, "%s,%d,%d,%d,%s,%.5f,%.5f,%.5f,%.4f,%.4f,%.4f,%s\n", run.c_str(), c.batch, c.rows, c.cols,
                     t.name, b, m, cp, cp > 0 ? b / cp : 0, cp > 0 ? m / cp : 0, b > 0 ? m / b : 0,
                     ok ? "PASS" : "FAIL");
    return ok;
}

}  // namespace

int main(int argc, char** argv) {
    BenchOptions o;
    std::uint64_t seed = std::random_device{}();
    std::string set = "targets";
    const std::vector<std::string> sets = {"targets", "squares", "thin",  "lines", "widths", "same-type",
                                           "pitches", "tall",    "odd",   "rows",  "columns", "images", "rounds", "wide",
                                           "few-rows"};
    if (!parse_bench_options(argc, argv, "bench_ab", o, &seed, &set, &sets)) return 2;
    if (!have_device("bench_ab")) return 2;
    std::FILE* csv = nullptr;
    if (!open_bench_csv(o.csv_path, "bench_ab", &csv)) return 2;
    try {
        cudaDeviceProp prop;
        SAT_CUDA(cudaGetDeviceProperties(&prop, 0));
        const std::string run = run_columns(prop);
        if (csv != nullptr)
            std::fprintf(csv, "gpu,driver,cuda,date,batch,rows,cols,type,base_ms,this_ms,copy_ms,base_per_copy,"
                              "this_per_copy,this_per_base,check\n");
        std::printf("bench_ab on %s: base %s against %s; median of %d alternating repetitions, L2 flushed before "
                    "each; seed %llu\n",
                    prop.name, ab_base::version(), ab_this::version(), o.reps, (unsigned long long)seed);
        std::printf("%-18s %-6s %9s %9s %9s %7s %7s %7s  %s\n", "shape", "type", "base ms", "this ms", "copy ms",
                    "base/cp", "this/cp", "this/b", "check");
        using T = AbType;
        std::vector<Case> cases;
        if (set == "targets") {
            cases = {
                {T::f32, 1, 4096, 4096},     {T::f32, 1, 8192, 8192},   {T::f32, 1, 16384, 16384},
                {T::f64, 1, 4096, 4096},     {T::f64, 1, 16384, 16384}, {T::i32, 1, 4096, 4096},
                {T::i32, 1, 16384, 16384},   {T::u8i32, 1, 4096, 4096}, {T::u8i32, 1, 16384, 16384},
                {T::f32, 1, 1080, 1920},     {T::f64, 1, 1080, 1920},   {T::u8i32, 1, 1080, 1920},
                {T::f32, 64, 1080, 1920},    {T::f32, 16, 2160, 3840},  {T::u8i32, 64, 1080, 1920},
                {T::u8i32, 16, 2160, 3840},  {T::f32, 1, 33, 4000000},
                {T::u8i32, 1, 4000000, 3},
            };
        } else if (set == "squares") {  // every type's squares from 4096^2 to 32768^2, i32's images and batches
            for (T type : {T::f32, T::f64, T::i32, T::u8i32})
                for (const int n : {4096, 8192, 16384, 32768}) cases.push_back({type, 1, n, n});
            cases.push_back({T::i32, 1, 1080, 1920});
            cases.push_back({T::i32, 64, 1080, 1920});
            cases.push_back({T::i32, 16, 2160, 3840});
        } else if (set == "lines") {  // one line of contiguous elements: CUB's 1-D scan
            for (T type : {T::f32, T::f64, T::i32, T::u8i32})
                for (const Case shape : {Case{type, 1, 1, 16777216}, Case{type, 1, 16777216, 1}})
                    cases.push_back(shape);
            cases.push_back({T::u8i32, 1, 1, 4000000});
        } else if (set == "widths") {  // u8 -> i32 chunks from 3 to 33 wide, about 120M elements each
            for (const int k : {3, 4, 5, 6, 8, 12, 16, 24, 33})
                for (const Case shape : {Case{T::u8i32, 1, k, 120000000 / k}, Case{T::u8i32, 1, 120000000 / k, k}})
                    cases.push_back(shape);
        } else if (set == "same-type") {  // chunks of f32 (and a few i32, f64) from 3 to 33 wide, both ways
            for (const int k : {3, 5, 7, 9, 12, 16, 17, 24, 33})
                for (const Case shape : {Case{T::f32, 1, k, 120000000 / k}, Case{T::f32, 1, 120000000 / k, k}})
                    cases.push_back(shape);
            for (T type : {T::i32, T::f64})
                for (const int k : {3, 9, 33}) {
                    const int n = (type == T::f64 ? 60000000 : 120000000) / k;
                    cases.push_back({type, 1, k, n});
                    cases.push_back({type, 1, n, k});
                }
        } else if (set == "tall") {  // tall chunks of inputs as wide as the sums, 2 to 33 wide
            for (const int k : {2, 3, 4, 5, 6, 8, 12, 16, 24, 33})
                cases.push_back({T::f32, 1, 40000000 / k, k});
            for (const int k : {3, 8, 33}) cases.push_back({T::f64, 1, 20000000 / k, k});
            cases.push_back({T::i32, 1, 40000000 / 3, 3});
            cases.push_back({T::f32, 16, 2500000, 3});  // a batch: the batched kernel
        } else if (set == "odd") {  // 2-D images of odd widths (pitch = width): no vector accesses
            for (T type : {T::f32, T::f64, T::i32, T::u8i32}) {
                cases.push_back({type, 1, 4097, 4097});
                cases.push_back({type, 1, 1081, 1921});
            }
            for (T type : {T::f32, T::f64, T::i32, T::u8i32}) cases.push_back({type, 1, 16385, 16385});
            // 3841x2160: 272 of f32's and i32's 256-thread tiles of 32 rows, 8 x 64 small tiles;
            // 2559x3570: 336 of 32 rows, 5 x 105 small tiles.
            for (T type : {T::f32, T::i32}) {
                cases.push_back({type, 1, 2160, 3841});
                cases.push_back({type, 1, 3570, 2559});
            }
            cases.push_back({T::f32, 16, 1081, 1921});
        } else if (set == "rows") {  // images of 2 and 3 rows: u8 -> i32 words (CUB's packed scan or a scan per
                                     // row), f32, f64 and i32 element lanes
            for (T type : {T::u8i32, T::f32, T::f64, T::i32})
                for (const int k : {2, 3})
                    for (const int cols : {1920, 16384, 262144, 1048576, 4000000, 12000000, 40000000})
                        cases.push_back({type, 1, k, cols});
        } else if (set == "rounds") {  // 1.15 to 1.8 rounds of 256-thread tiles on 132 SMs
            // f32: 40-row tiles, 264 resident; u8 -> i32: 36-row tiles, 396 resident (4 tile columns).
            for (const int rows : {3040, 3440, 3840, 4096, 4760}) cases.push_back({T::f32, 1, rows, 4096});
            for (const int rows : {4096, 4644, 5184, 5724, 6444}) cases.push_back({T::u8i32, 1, rows, 4096});
        } else if (set == "images") {  // single images and small batches: mostly one round of tiles
            for (T type : {T::f32, T::f64, T::i32, T::u8i32, T::u8f32, T::u16f64, T::f32f64})
                for (const Case shape : {Case{type, 1, 720, 1280}, Case{type, 1, 1080, 1920}, Case{type, 1, 1920, 1080},
                                         Case{type, 1, 1081, 1921}, Case{type, 1, 1440, 2560}, Case{type, 1, 2160, 3840},
                                         Case{type, 1, 3840, 2160}, Case{type, 1, 4096, 2048}})
                    cases.push_back(shape);
            cases.push_back({T::f32, 1, 1024, 1024});
            cases.push_back({T::f32, 1, 2048, 2048});
            cases.push_back({T::f32, 2, 1080, 1920});
            cases.push_back({T::f32, 4, 720, 1280});
            cases.push_back({T::u8i32, 2, 1080, 1920});
            // 2560x3570: 270 of f32's and i32's 256-thread tiles of 40 rows, 5 x 105 small tiles.
            cases.push_back({T::f32, 1, 3570, 2560});
            cases.push_back({T::i32, 1, 3570, 2560});
            // 2560x2048, 2048x2560 and 2000x2600: 320 to 328 of the f64 accumulator's 256-thread
            // tiles, 640 to 656 small ones.
            for (T type : {T::f64, T::u16f64, T::f32f64}) {
                cases.push_back({type, 1, 2048, 2560});
                cases.push_back({type, 1, 2560, 2048});
                cases.push_back({type, 1, 2600, 2000});
            }
        } else if (set == "few-rows") {  // one wide f32 or i32 image of 2 to 5 rows: chunks of which 4 fit an SM
            // About 120M elements, rows of whole 16-byte groups or not (odd widths; 2 rows of whole
            // groups take CUB's group lanes), then 3 rows of 1M and 4M columns (fewer chunks than
            // the GPU holds at once, and about two rounds of them on an H200).
            for (T type : {T::f32, T::i32})
                for (const int k : {2, 3, 4, 5}) {
                    const int n = 120000000 / k;
                    if (k != 2) cases.push_back({type, 1, k, n & ~3});
                    cases.push_back({type, 1, k, n | 1});
                }
            for (const int n : {1000000, 4000000}) cases.push_back({T::f32, 1, 3, n});
        } else if (set == "columns") {  // u8 -> i32 images of 2 and 3 contiguous columns: CUB's packed scan
            for (const int k : {2, 3})
                for (const int rows : {1920, 16384, 262144, 1048576, 4000000, 12000000, 40000000})
                    cases.push_back({T::u8i32, 1, rows, k});
        } else if (set == "wide") {  // wide thin images of 17 to 64 rows: the thin kernel or the 2-D tiles
            // About 120M elements (the f64 accumulator's 60M), rows of whole 16-byte pieces (width a
            // multiple of 16) or not (an odd width), then smaller images and batches of 33 rows.
            auto add = [&](T type, int k, bool odd) {
                const bool f64_sums = type == T::f64 || type == T::u16f64 || type == T::f32f64;
                const int n = (f64_sums ? 60000000 : 120000000) / k;
                cases.push_back({type, 1, k, odd ? n | 1 : n & ~15});
            };
            for (int k : {20, 22, 24, 28, 33, 36, 40, 42, 48, 56, 64}) add(T::f32, k, false);
            for (int k : {17, 24, 28, 32, 33, 34, 40, 42, 48, 64}) add(T::f32, k, true);
            for (int k : {20, 24, 28, 33, 36, 40, 42, 48, 56, 64}) add(T::u8i32, k, false);
            for (int k : {17, 24, 28, 32, 33, 34, 42, 64}) add(T::u8i32, k, true);
            for (int k : {24, 28, 33, 42, 64}) add(T::i32, k, false);
            for (int k : {24, 32, 33, 34}) add(T::i32, k, true);
            for (int k : {24, 28, 32, 33, 34, 43, 48, 64}) add(T::f64, k, false);
            for (int k : {24, 32, 33, 48, 64}) add(T::f64, k, true);
            // The pairs that follow f64 in its tiles of 34 rows.
            for (T type : {T::u16f64, T::f32f64}) {
                add(type, 33, false);
                add(type, 34, true);
            }
            for (T type : {T::f32, T::u8i32}) cases.push_back({type, 1, 33, 4000000});
            cases.push_back({T::f32, 1, 33, 200000});
            for (T type : {T::f32, T::u8i32}) cases.push_back({type, 1, 33, 1000000});
            for (T type : {T::f32, T::u8i32}) cases.push_back({type, 16, 33, 250000});
        } else if (set == "pitches") {  // wide chunks whose rows are not whole 16-byte groups
            cases = {
                {T::u8i32, 1, 3, 40000001}, {T::u8i32, 1, 3, 40000004}, {T::u8i32, 1, 16, 7500001},
                {T::u8i32, 1, 33, 3636363}, {T::f32, 1, 3, 40000001},   {T::f32, 1, 33, 4000001},
                {T::i32, 1, 3, 40000001},   {T::f64, 1, 33, 2000001},
            };
        } else {  // thin: the thin shapes (the lines are CUB's scan)
            for (T type : {T::f32, T::u8i32})
                for (const Case shape : {Case{type, 1, 3, 40000000}, Case{type, 1, 40000000, 3},
                                         Case{type, 1, 33, 4000000}, Case{type, 1, 4000000, 33}})
                    cases.push_back(shape);
            cases.push_back({T::f64, 1, 4000000, 33});
            cases.push_back({T::i32, 1, 33, 4000000});
            cases.push_back({T::u8i32, 64, 33, 65536});
        }
        if (o.quick) cases = {{T::f32, 1, 1080, 1920}, {T::f32, 1, 4096, 4096}, {T::u8i32, 1, 33, 100000}};
        cudaStream_t stream = nullptr;
        SAT_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        sat::L2Flusher flusher;
        bool ok = true;
        for (std::size_t k = 0; k < cases.size(); ++k)
            ok = run_case(cases[k], o.reps, seed + k, stream, flusher, csv, run) && ok;
        SAT_CUDA(cudaStreamDestroy(stream));
        if (!close_bench_csv(csv, o.csv_path, "bench_ab")) return 2;
        return ok ? 0 : 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_ab: %s\n", e.what());
        return 1;
    }
}
