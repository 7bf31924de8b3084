// lab_main.cpp — the `./labN` program every lab shares: parse, run, print, write.
#include <atomic>
#include <chrono>
#include <climits>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <thread>

#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>

#include "data.h"
#include "harness.h"
#include "io.h"

namespace sat {

std::vector<unsigned char> box_filter_image(DType t, Shape s, const void* input, const void* sat, int radius);

namespace {

// Sums of u8 data fit in int32 only while n * 255 <= INT32_MAX.
constexpr std::size_t u8_safe_pixels = 2147483647ull / 255;  // 8421504

DType type_for_file(const std::string& npy_dtype) {
    if (npy_dtype == "u1") return DType::u8i32;
    if (npy_dtype == "i4") return DType::i32;
    if (npy_dtype == "f8" || npy_dtype == "u2") return DType::f64;  // 16-bit pixels: exact sums in f64
    return DType::f32;
}

// The largest |partial sum| of integer input, exactly (int64: exact below 2^32 elements of
// magnitude up to 2^31): the data's own answer to "do int32 sums wrap?".
template <class In>
std::int64_t largest_partial_sum(const In* in, Shape s) {
    std::vector<std::int64_t> column(std::size_t(s.cols), 0);
    std::int64_t top = 0;
    for (int i = 0; i < s.rows; ++i) {
        std::int64_t row = 0;
        for (int j = 0; j < s.cols; ++j) {
            row += std::int64_t(in[std::size_t(i) * s.cols + j]);
            column[j] += row;
            top = std::max(top, column[j] < 0 ? -column[j] : column[j]);
        }
    }
    return top;
}

// One warning line when int32 sums of this input wrap; empty when they fit.
std::string overflow_warning(DType t, Shape s, const void* in) {
    if (t != DType::i32 && t != DType::u8i32) return "";
    const std::int64_t top = t == DType::i32 ? largest_partial_sum(static_cast<const std::int32_t*>(in), s)
                                             : largest_partial_sum(static_cast<const std::uint8_t*>(in), s);
    if (top <= INT32_MAX) return "";
    return std::string("warning: ") + dtype_name(t) + " " + std::to_string(s.rows) + "x" + std::to_string(s.cols) +
           ": the exact sums reach " + std::to_string(top) + ", beyond INT32_MAX; int32 sums wrap modulo 2^32 and "
           "are checked modulo 2^32 (use --type f64 for exact sums)";
}

// "labs/lab1_cpu.cpp": the student file of a lab, for the not-implemented line.
std::string student_file(const std::string& lab_id) {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator("labs", ec)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind("lab" + lab_id + "_", 0) == 0) return "labs/" + name;
    }
    return "labs/lab" + lab_id + "_*";
}

// An output the variant never wrote: every element still holds the poison (an untouched skeleton).
bool never_written(const Measurement& m) {
    return m.error.empty() && !m.check.pass && m.check.checked > 0 && m.check.wrong == m.check.checked &&
           m.check.first_unwritten && m.check.canary.empty();
}

std::string gib(double bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / double(1ull << 30));
    return buf;
}

// Host memory a run may still take: MemAvailable (MemTotal can read low on some hosts), or less
// when a cgroup (a container) caps this process lower. Negative: unknown, no check.
double host_available_bytes() {
    auto read_number = [](const char* path) -> double {
        std::ifstream f(path);
        double v = -1;
        return f >> v ? v : -1;
    };
    double available = -1;
    std::ifstream meminfo("/proc/meminfo");
    std::string key, unit;
    double kib = 0;
    while (meminfo >> key >> kib >> unit)
        if (key == "MemAvailable:") available = kib * 1024.0;
    // cgroup v2, then v1: limit minus usage, when a limit is set (v1 writes ~2^63 for none).
    for (auto [limit_path, usage_path] : {std::pair{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"},
                                          std::pair{"/sys/fs/cgroup/memory/memory.limit_in_bytes",
                                                    "/sys/fs/cgroup/memory/memory.usage_in_bytes"}}) {
        const double limit = read_number(limit_path), usage = read_number(usage_path);
        if (limit > 0 && limit < 1e18 && usage >= 0) {
            const double left = std::max(0.0, limit - usage);
            available = available < 0 ? left : std::min(available, left);
            break;
        }
    }
    return available;
}

// Bytes one run needs, host and device: input, reference, poisoned output with canaries, copy
// baseline, scratch (the variant's estimate, else the output's size) and --output/--box copies.
struct MemoryNeed {
    double host = 0, device = 0;
};
MemoryNeed memory_need(const LabInfo& lab, const Variant& v, DType t, Shape s, const Options& opt, double file_bytes) {
    const double n = double(s.rows) * double(s.cols);
    const double in = n * double(input_bytes(t)), out = n * double(output_bytes(t));
    const double scratch = v.scratch_bytes ? double(v.scratch_bytes(t, s)) : out;
    const bool exact = t == DType::i32 || t == DType::u8i32;
    // The reference: exact 32-bit sums, or double sums (plus |a| sums when the data may be negative).
    const double reference = exact ? 4 * n : (file_bytes > 0 ? 16 * n : 8 * n);
    MemoryNeed need;
    need.host = in + file_bytes + reference + out + 2.0 * canary_band_bytes;
    if (!opt.output.empty()) need.host += out + (opt.box >= 0 || output_format(opt.output) != OutputFormat::npy ? n : 0);
    if (lab.gpu) {
        need.device = in + out + 2.0 * canary_band_bytes + (in + out) / 2 + scratch;
        if (!opt.trace.empty()) need.device += (n / 1024 + 64) * 8, need.host += (n / 1024 + 64) * 8 + n * 3 / 1024;
    } else {
        need.host += out + (in + out) + scratch;  // timing output, copy baseline, scratch
    }
    return need;
}

// A test card for the box-filter demo when no --input is given: rings, a gradient and a grid.
std::vector<unsigned char> test_card(Shape s) {
    std::vector<unsigned char> px(s.n());
    for (int i = 0; i < s.rows; ++i)
        for (int j = 0; j < s.cols; ++j) {
            const double x = double(j) / s.cols - 0.5, y = double(i) / s.rows - 0.5;
            const double ring = 0.5 + 0.5 * std::cos(80 * std::sqrt(x * x + y * y));
            const bool grid = (i / 32 + j / 32) % 2 == 0;
            const double v = x < 0 ? ring : (grid ? 0.9 : 0.1) * (0.5 + y);
            px[std::size_t(i) * s.cols + j] = static_cast<unsigned char>(std::lround(255 * std::clamp(v, 0.0, 1.0)));
        }
    return px;
}

// Can `path` be written? Probed before any work (appending, so an existing file is untouched; a
// file made by the probe is removed again).
bool writable(const std::string& path, std::string* why) {
    std::error_code ec;
    const bool existed = std::filesystem::exists(path, ec);
    FILE* f = std::fopen(path.c_str(), "a");
    if (!f) {
        *why = path + ": cannot write (" + std::strerror(errno) + ")";
        return false;
    }
    std::fclose(f);
    if (!existed) std::remove(path.c_str());
    return true;
}

void write_output(const Options& opt, bool gpu, DType type, Shape s, const std::vector<unsigned char>& out,
                  const void* input) {
    const bool image = output_format(opt.output) != OutputFormat::npy;
    if (opt.box >= 0) {
        // The GPU labs filter with the library where it is linked (common/lib_box.cpp); lab 1 from its SAT.
        const auto filtered = gpu && input ? box_filter_image(type, s, input, out.data(), opt.box)
                                  : box_filter_from_sat(type, s, out.data(), opt.box);
        write_image(opt.output, s.cols, s.rows, 1, filtered.data());
    } else if (image) {
        // The SAT as a picture: values scaled to 0..255 by the largest one.
        std::vector<unsigned char> px(s.n());
        dispatch(type, [&](auto, auto out_tag) {
            using Out = decltype(out_tag);
            const Out* v = reinterpret_cast<const Out*>(out.data());
            double top = 1e-30;
            for (std::size_t i = 0; i < s.n(); ++i) top = std::max(top, double(v[i]));
            for (std::size_t i = 0; i < s.n(); ++i)
                px[i] = static_cast<unsigned char>(std::clamp(std::lround(255.0 * double(v[i]) / top), 0L, 255L));
        });
        write_image(opt.output, s.cols, s.rows, 1, px.data());
    } else {
        write_npy(opt.output, s, npy_output_dtype(type), out.data());
    }
    std::printf("wrote %s\n", opt.output.c_str());
}


// A run's progress on one updating stderr line, shown only when stderr is a terminal and the
// current step has taken longer than 2 s (short runs print nothing extra).
class Progress {
public:
    Progress() : enabled_(isatty(2) == 1) {
        if (enabled_) thread_ = std::thread([this] { loop(); });
    }
    ~Progress() {
        if (!enabled_) return;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            done_ = true;
        }
        wake_.notify_all();
        thread_.join();
        clear();
    }
    void step(const std::string& text) {
        if (!enabled_) return;
        std::lock_guard<std::mutex> lock(mutex_);
        if (shown_) std::fputs("\r\033[K", stderr), shown_ = false;
        text_ = text;
        since_ = std::chrono::steady_clock::now();
    }
    void clear() { step(""); }

private:
    void loop() {
        std::unique_lock<std::mutex> lock(mutex_);
        while (!done_) {
            wake_.wait_for(lock, std::chrono::milliseconds(500));
            const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - since_).count();
            if (done_ || text_.empty() || s < 2) continue;
            std::fprintf(stderr, "\r\033[K%s (%.0f s)", text_.c_str(), s);
            std::fflush(stderr);
            shown_ = true;
        }
    }
    bool enabled_;
    std::thread thread_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::string text_;
    std::chrono::steady_clock::time_point since_;
    bool shown_ = false, done_ = false;
};

}  // namespace

int lab_main(int argc, const char* const* argv, const char* lab_id) {
    // Rows appear as they are made, also through a pipe (| tee log).
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    // The program as it was called ("./lab1-ref", "build/peers"): errors and reproduce lines name it.
    const std::string called = argc > 0 && argv[0][0] ? argv[0] : std::string("./lab") + lab_id;
    const std::string prog = std::filesystem::path(called).filename().string();
    const std::string command = called.find('/') == std::string::npos ? "./" + called : called;
    const int number = std::atoi(lab_id) * (std::string(lab_id).back() == 'x' ? 10 : 1);
    const LabInfo* lab = find_lab(number);
    if (!lab || lab->variants.empty()) {
        std::fprintf(stderr, "%s: this binary holds no lab %s (check labs/lab%s_*.cu)\n", prog.c_str(), lab_id, lab_id);
        return 2;
    }
    if (lab->custom_main) return lab->custom_main(*lab, argc, argv);
    Options opt;
    try {
        opt = parse_cli(argc, argv, *lab);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", prog.c_str(), e.what());
        return 2;
    }
    if (opt.help) {
        std::fputs(usage(*lab).c_str(), stdout);
        return 0;
    }
    if (opt.list) {
        std::fputs(variants_json(*lab).c_str(), stdout);
        return 0;
    }
    auto refuse = [&](const std::string& text) {
        std::fprintf(stderr, "%s: %s\n", prog.c_str(), text.c_str());
        return 2;
    };
    std::vector<Shape> shapes = opt.shapes.empty() ? lab->default_shapes : opt.shapes;
    std::vector<const Variant*> variants;
    for (const Variant& v : lab->variants)
        if (opt.variants.empty() || std::find(opt.variants.begin(), opt.variants.end(), v.name) != opt.variants.end())
            variants.push_back(&v);

    if (opt.model) {
        std::printf("%s - HMM global memory access cost (w = 32, Kasagi et al. section III)\n", prog.c_str());
        for (Shape s : shapes)
            for (const Variant* v : variants) {
                const hmm::Formula& f = hmm::formula(v->cost);
                const hmm::Cost c = f.eval(hmm::params_for(s, lab->r_or_default(opt.r)));
                std::printf("  %-16s %6dx%-6d  %-44s = %.4g time units + %.4g l   (%s)\n", v->name.c_str(),
                            s.rows, s.cols, f.symbolic.c_str(), c.units, c.latencies, f.source.c_str());
            }
        return 0;
    }
    std::string why;
    if (lab->gpu && !gpu_available(&why))
        return refuse(why + "; lab 1 (the CPU SAT) and '" + command + " --model' (the HMM cost formulas) still run here");
    // Files to be written are probed now, not after the computation.
    if (!opt.output.empty() && !writable(opt.output, &why)) return refuse(why);
    if (!opt.trace.empty() && !writable(opt.trace, &why)) return refuse(why);

    // Input: a file, a test card (box filter without --input) or random data per run. A file is
    // converted to every requested type up front, so a type that cannot hold it is refused now.
    HostMatrix matrix;
    std::vector<DType> types = opt.types;
    std::vector<std::vector<unsigned char>> file_inputs;  // per entry of `types`
    const bool file_run = !opt.input.empty() || opt.box >= 0;
    if (file_run) {
        try {
            if (!opt.input.empty()) matrix = read_matrix(opt.input);
            else {
                matrix.shape = opt.shapes.empty() ? Shape{768, 1024} : opt.shapes.front();
                matrix.dtype = "u1";
                matrix.bytes = test_card(matrix.shape);
            }
            if (types.empty()) types = {type_for_file(matrix.dtype)};
            for (DType t : types) file_inputs.push_back(convert_input(matrix, t));
        } catch (const std::exception& e) {
            return refuse(e.what());
        }
        shapes = {matrix.shape};
    }
    if (types.empty()) types = {DType::f32};

    // Memory: the largest run of each kind must fit in what the host (and the GPU) has free.
    {
        const double host_free = host_available_bytes();
        std::size_t gpu_free = 0, gpu_total = 0;
        const bool gpu_known = lab->gpu && cudaMemGetInfo(&gpu_free, &gpu_total) == cudaSuccess;
        const double file_bytes = file_run ? double(matrix.bytes.size()) : 0;
        for (Shape s : shapes)
            for (DType t : types)
                for (const Variant* v : variants) {
                    const MemoryNeed need = memory_need(*lab, *v, t, s, opt, file_bytes);
                    const std::string what = std::to_string(s.rows) + "x" + std::to_string(s.cols) + " " +
                                             dtype_name(t) + " (" + v->name + ")";
                    // Host: refused only when the estimate clearly exceeds what is free (by a quarter),
                    // since MemAvailable can read low on a freshly started machine.
                    if (host_free > 0 && need.host > 1.25 * host_free)
                        return refuse(what + " needs " + gib(need.host) + " of host memory, " + gib(host_free) +
                                      " available; choose a smaller size");
                    if (gpu_known && need.device > double(gpu_free))
                        return refuse(what + " needs " + gib(need.device) + " of GPU memory, " +
                                      gib(double(gpu_free)) + " free; choose a smaller size");
                }
    }

    FILE* csv = nullptr;
    if (!opt.csv.empty() && !(csv = open_csv(opt.csv, &why))) return refuse(why);

    std::uint64_t seed = opt.seed;
    if (!opt.seed_given) seed = fresh_seed();
    const bool title_says_cpu = lab->title.find("CPU") != std::string::npos;
    std::printf("%s - %s (%s)%s%s; seed %llu\n", prog.c_str(), lab->title.c_str(), lab->source.c_str(),
                lab->gpu || !title_says_cpu ? " on " : "",
                lab->gpu ? device_name().c_str() : (title_says_cpu ? "" : "the CPU"), (unsigned long long)seed);
    if (!matrix.note.empty()) std::printf("note: %s\n", matrix.note.c_str());
    for (Shape s : shapes)
        for (std::size_t k = 0; k < types.size(); ++k) {
            const DType t = types[k];
            if (file_run) {
                const std::string warning = overflow_warning(t, s, file_inputs[k].data());
                if (!warning.empty()) std::printf("%s\n", warning.c_str());
            } else if (t == DType::u8i32 && s.n() > u8_safe_pixels) {
                std::printf("warning: u8i32 %dx%d: sums of 8-bit data can exceed INT32_MAX above %zu pixels; "
                            "they wrap modulo 2^32 and are checked modulo 2^32 (use --type f64 for exact large sums)\n",
                            s.rows, s.cols, u8_safe_pixels);
            }
        }

    const int reps = opt.reps >= 0 ? opt.reps : (lab->gpu ? 20 : 5);
    const std::string todo_line = "not implemented yet: fill in the TODOs of " + student_file(lab_id) +
                                  " (docs/lab" + lab_id + ".md)";
    bool all_ok = true, calibration_shown = false;
    int exit_code = 0;
    const std::size_t total_runs = shapes.size() * types.size() * variants.size();
    std::size_t run_index = 0;
    Progress progress;
    print_header(*lab, opt);
    try {
        for (Shape s : shapes)
            for (std::size_t k = 0; k < types.size(); ++k) {
                const DType t = types[k];
                for (const Variant* v : variants) {
                    ++run_index;
                    std::vector<double> rs = {opt.r};
                    if (opt.sweep) rs = lab->sweep(s);
                    const Measurement* best = nullptr;
                    std::vector<Measurement> runs;
                    runs.reserve(rs.size());
                    for (double r : rs) {
                        RunRequest req;
                        req.lab = lab;
                        req.variant = v;
                        req.type = t;
                        req.shape = s;
                        req.seed = seed;
                        req.data = opt.data;
                        req.reps = reps;
                        req.r = r;
                        req.cpu_threads = opt.threads;
                        req.trace_png = opt.trace;
                        std::vector<unsigned char> out;
                        if (file_run) req.input = file_inputs[k].data();
                        if (!opt.output.empty()) {
                            out.resize(s.n() * output_bytes(t));
                            req.output = out.data();
                        }
                        progress.step("run " + std::to_string(run_index) + " of " + std::to_string(total_runs) + ": " +
                                      v->name + " " + dtype_name(t) + " " + std::to_string(s.rows) + "x" +
                                      std::to_string(s.cols) + " (check, then " + std::to_string(reps) + " timed reps)");
                        runs.push_back(run_variant(req));
                        progress.clear();
                        const Measurement& m = runs.back();
                        if (never_written(m)) print_todo_row(m, todo_line);
                        else print_row(m, opt);
                        if (opt.sweep) std::printf("    r = %.4f\n", r);
                        if (csv) write_csv_line(csv, opt.csv, csv_row(m));
                        all_ok &= m.ok();
                        if (!m.ok() && !never_written(m))
                            std::printf("    reproduce: %s\n", reproduce_run(command, opt, s, t, v->name, seed).c_str());
                        if (m.ok() && (!best || m.median_ms < best->median_ms)) best = &m;
                        if (!opt.trace.empty() && m.error.empty()) std::printf("wrote %s\n", opt.trace.c_str());
                        if (!opt.output.empty() && m.error.empty())
                            write_output(opt, lab->gpu, t, s, out, req.input);
                        if (lab->gpu && !calibration_shown && m.calibration.unit_s > 0) {
                            std::printf("    calibration: 1 time unit (w = 32 words) = %.3g ns from the copy; "
                                        "l = %.2f us per kernel launch, %.2f us per graph kernel node\n",
                                        m.calibration.unit_s * 1e9, m.calibration.l_launch_s * 1e6,
                                        m.calibration.l_graph_s * 1e6);
                            calibration_shown = true;
                        }
                    }
                    if (opt.sweep && best) {
                        // The model's optimum over the same r values, for comparison with the measured one.
                        double model_r = rs.front(), model_ms = std::numeric_limits<double>::infinity();
                        for (const Measurement& m : runs)
                            if (m.predicted_ms < model_ms) model_ms = m.predicted_ms, model_r = m.r;
                        std::printf("best r for %dx%d %s: r = %.4f, %.3f ms (model optimum: r = %.4f, predicted %.3f ms)\n",
                                    s.rows, s.cols, dtype_name(t), best->r, best->median_ms, model_r, model_ms);
                    }
                }
            }
        if (csv) {
            FILE* done = csv;
            csv = nullptr;
            close_csv(done, opt.csv);
        }
    } catch (const std::exception& e) {  // a CSV or --output write failed
        progress.clear();
        if (csv) std::fclose(csv);
        std::fprintf(stderr, "%s: %s\n", prog.c_str(), e.what());
        exit_code = 2;
    }
    std::printf("reproduce: %s\n", reproduce_line(command, argc, argv, seed).c_str());
    if (exit_code) return exit_code;
    return all_ok ? 0 : 1;
}

}  // namespace sat
