// lab_main.cpp — the `./labN` program every lab shares: parse, run every problem of the lab
// through run_variant, print, write.
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

namespace {

DType type_for_file(const std::string& npy_dtype) {
    if (npy_dtype == "u1") return DType::u8i32;
    if (npy_dtype == "i4") return DType::i32;
    if (npy_dtype == "f8" || npy_dtype == "u2") return DType::f64;  // 16-bit pixels: exact sums in f64
    return DType::f32;
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

// Bytes one run needs, host and device: input, answer, poisoned output with canaries, copy
// baseline, scratch (the variant's estimate, else the output's size) and --output/--box copies;
// a batch of B images (--batch) B times each but the canaries.
struct MemoryNeed {
    double host = 0, device = 0;
};
MemoryNeed memory_need(const LabInfo& lab, const Variant& v, DType t, Shape s, int batch, const Options& opt,
                       double file_bytes) {
    const Problem& problem = problem_of(v);
    const double n = double(s.rows) * double(s.cols), images = std::max(1, batch);
    const double in = images * double(problem.input_bytes(t, s));
    const double out = images * double(problem.output_shape(s).n()) * double(problem.output_element_bytes(t));
    const double scratch = v.scratch_bytes ? images * double(v.scratch_bytes(t, s)) : out;
    const double copy = images * problem.traffic(t, s).bytes / 2;  // the copy baseline's destination
    MemoryNeed need;
    need.host = in + file_bytes + images * problem.answer_bytes(t, s, file_bytes > 0) + out + 2.0 * canary_band_bytes;
    if (!opt.output.empty()) need.host += out + (opt.box >= 0 || output_format(opt.output) != OutputFormat::npy ? n : 0);
    if (lab.gpu) {
        // The copy reads the output, or a source of its own when the output is smaller.
        need.device = in + out + 2.0 * canary_band_bytes + copy * (copy > out + canary_band_bytes ? 2 : 1) + scratch;
        if (!opt.trace.empty()) need.device += (n / 1024 + 64) * 8, need.host += (n / 1024 + 64) * 8 + n * 3 / 1024;
    } else {
        need.host += out + 2 * copy + scratch;  // timing output, copy baseline, scratch
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

// The memory check before the runs; host memory is refused only when the estimate clearly exceeds
// what is free (by a quarter), since MemAvailable can read low on a freshly started machine.
std::string Problem::refusal(const RunRequest& req, const Options& opt, double file_bytes) const {
    const Shape s = req.shape;
    const double host_free = host_available_bytes();
    std::size_t gpu_free = 0, gpu_total = 0;
    const bool gpu_known = req.lab->gpu && cudaMemGetInfo(&gpu_free, &gpu_total) == cudaSuccess;
    const MemoryNeed need = memory_need(*req.lab, *req.variant, req.type, s, req.batch, opt, file_bytes);
    const std::string what = shape_text(s, req.batch) + " " + type_name(req.type) + " (" + req.variant->name + ")";
    if (host_free > 0 && need.host > 1.25 * host_free)
        return what + " needs " + gib(need.host) + " of host memory, " + gib(host_free) + " available; choose a smaller size";
    if (gpu_known && need.device > double(gpu_free))
        return what + " needs " + gib(need.device) + " of GPU memory, " + gib(double(gpu_free)) +
               " free; choose a smaller size";
    return "";
}

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
    // The runs, problem by problem (lab 8x has two): its instances x types x the chosen variants.
    // A run on a file (--input, or --box's test card) or with --output takes the problems with files.
    const bool file_run = !opt.input.empty() || opt.box >= 0;
    struct Group {
        const Problem* problem;
        std::vector<Shape> shapes;
        std::vector<DType> types;
        std::vector<const Variant*> variants;
        std::vector<std::vector<unsigned char>> file_inputs;  // per entry of `types`
    };
    std::vector<Group> groups;
    std::string skipped;  // with --batch: the variants that take one image at a time
    const std::vector<const Problem*> problems = lab_problems(*lab);
    if ((file_run || !opt.output.empty()) &&
        std::none_of(problems.begin(), problems.end(), [](const Problem* p) { return p->reads_files(); }))
        return refuse("--input, --output and --box: lab " + std::string(lab_id) + " makes its own data and writes no file");
    try {  // a problem's instances() refuses options it cannot run
        for (const Problem* p : problems) {
            if ((!opt.problem.empty() && opt.problem != p->name()) || ((file_run || !opt.output.empty()) && !p->reads_files()))
                continue;
            Group g{p, p->instances(opt, *lab), p->types(opt), {}, {}};
            for (const Variant& v : lab->variants)
                if (&problem_of(v) == p &&
                    (opt.variants.empty() || std::any_of(opt.variants.begin(), opt.variants.end(),
                                                         [&](const std::string& name) { return variant_matches(v, name); }))) {
                    if (opt.batch > 1 && !v.batches) {  // --batch: named ones were refused by parse_cli
                        skipped += (skipped.empty() ? "" : ", ") + v.name;
                        continue;
                    }
                    g.variants.push_back(&v);
                }
            if (!g.variants.empty()) groups.push_back(std::move(g));
        }
    } catch (const std::exception& e) {
        return refuse(e.what());
    }
    if (groups.empty()) return refuse("no variant of the chosen problem matches --variant (see --help)");
    const int reps = opt.reps >= 0 ? opt.reps : (lab->gpu ? 20 : 5);
    const std::uint64_t seed = opt.seed_given ? opt.seed : fresh_seed();
    // One run as the command line asks for it: the same request for --model, the checks before the
    // runs and the run.
    auto request = [&](const Variant* v, DType t, Shape s, double r) {
        RunRequest req;
        req.lab = lab, req.variant = v, req.type = t, req.shape = s, req.seed = seed;
        req.data = opt.data, req.reps = reps, req.r = r, req.cpu_threads = opt.threads, req.batch = opt.batch;
        req.trace_png = opt.trace;
        req.gpus = opt.gpus, req.strips = opt.strips, req.slice_rows = opt.slice_rows;
        return req;
    };

    if (opt.model) {
        std::printf("%s - HMM global memory access cost (w = 32, Kasagi et al. section III)\n", prog.c_str());
        int width = opt.variant_width > 18 ? opt.variant_width : 16;  // at least the longest name
        for (const Group& g : groups)
            for (const Variant* v : g.variants) width = std::max(width, int(v->name.size()));
        if (!skipped.empty()) std::printf("  (--batch: %s take one image at a time: left out)\n", skipped.c_str());
        for (const Group& g : groups)
            for (Shape s : g.shapes)
                for (const Variant* v : g.variants) {
                    const CostModel c = g.problem->cost_of(request(v, g.types.empty() ? DType::f32 : g.types.front(), s, opt.r));
                    // A batch: "8 x" before the shape, and the cost of the whole batch in one run.
                    const std::string images = opt.batch > 1 ? std::to_string(opt.batch) + " x" : "";
                    std::printf("  %-*s %s%6dx%-6d  %-44s = %.4g time units + %.4g l   (%s)\n", width, v->name.c_str(),
                                images.c_str(), s.rows, s.cols, c.symbolic.c_str(), c.cost.units, c.cost.latencies,
                                c.note.c_str());
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
    if (file_run) {
        try {
            if (!opt.input.empty()) matrix = read_matrix(opt.input);
            else {
                matrix.shape = opt.shapes.empty() ? Shape{768, 1024} : opt.shapes.front();
                matrix.dtype = "u1";
                matrix.bytes = test_card(matrix.shape);
            }
            for (Group& g : groups) {
                if (g.types.empty()) g.types = {type_for_file(matrix.dtype)};
                for (DType t : g.types) g.file_inputs.push_back(convert_input(matrix, t));
                g.shapes = {matrix.shape};
            }
        } catch (const std::exception& e) {
            return refuse(e.what());
        }
    }
    for (Group& g : groups)
        if (g.types.empty()) g.types = {DType::f32};

    // Memory (and what else a problem needs): every run must fit in what the machine has.
    {
        const double file_bytes = file_run ? double(matrix.bytes.size()) : 0;
        for (const Group& g : groups)
            for (Shape s : g.shapes)
                for (DType t : g.types)
                    for (const Variant* v : g.variants) {
                        const std::string why_not = g.problem->refusal(request(v, t, s, opt.r), opt, file_bytes);
                        if (!why_not.empty()) return refuse(why_not);
                    }
    }

    FILE* csv = nullptr;
    if (!opt.csv.empty() && !(csv = open_csv(opt.csv, &why))) return refuse(why);

    std::string placement;  // the problems' (lab 10: its strips and their exchange)
    for (const Group& g : groups) {
        const std::string p = g.problem->placement(opt);
        if (!p.empty()) placement += "; " + p;
    }
    const bool title_says_cpu = lab->title.find("CPU") != std::string::npos;
    std::printf("%s - %s (%s)%s%s%s; seed %llu\n", prog.c_str(), lab->title.c_str(), lab->source.c_str(),
                lab->gpu || !title_says_cpu ? " on " : "",
                lab->gpu ? device_name().c_str() : (title_says_cpu ? "" : "the CPU"), placement.c_str(),
                (unsigned long long)seed);
    if (!matrix.note.empty()) std::printf("note: %s\n", matrix.note.c_str());
    if (opt.batch > 1)
        std::printf("note: --batch %d: %d images of each size in one run, image b generated from seed + b%s%s\n",
                    opt.batch, opt.batch, skipped.empty() ? "" : "; left out (one image at a time): ", skipped.c_str());
    for (const Group& g : groups)
        for (Shape s : g.shapes)
            for (std::size_t k = 0; k < g.types.size(); ++k) {
                const std::string warning =
                    g.problem->warning(g.types[k], s, file_run ? g.file_inputs[k].data() : nullptr);
                if (!warning.empty()) std::printf("%s\n", warning.c_str());
            }

    const std::string todo_line = "not implemented yet: fill in the TODOs of " + student_file(lab_id) +
                                  " (docs/lab" + lab_id + ".md)";
    bool all_ok = true, calibration_shown = false;
    int exit_code = 0;
    std::size_t total_runs = 0, run_index = 0;
    for (const Group& g : groups) total_runs += g.shapes.size() * g.types.size() * g.variants.size();
    Progress progress;
    print_header(*lab, opt);
    try {
        for (const Group& g : groups) {
            const Problem& problem = *g.problem;
            std::vector<Measurement> measured;  // this problem's runs, for its summary
            for (Shape s : g.shapes)
                for (std::size_t k = 0; k < g.types.size(); ++k) {
                    const DType t = g.types[k];
                    for (const Variant* v : g.variants) {
                        ++run_index;
                        std::vector<double> rs = {opt.r};
                        if (opt.sweep) rs = lab->sweep(s);
                        const Measurement* best = nullptr;
                        std::vector<Measurement> runs;
                        runs.reserve(rs.size());
                        for (double r : rs) {
                            RunRequest req = request(v, t, s, r);
                            std::vector<unsigned char> out;
                            if (file_run) req.input = g.file_inputs[k].data();
                            if (!opt.output.empty()) {
                                out.resize(problem.output_shape(s).n() * problem.output_element_bytes(t));
                                req.output = out.data();
                            }
                            progress.step("run " + std::to_string(run_index) + " of " + std::to_string(total_runs) +
                                          ": " + v->name + " " + problem.type_name(t) + " " + shape_text(s, opt.batch) +
                                          " (check, then " + std::to_string(reps) +
                                          " timed reps)");
                            runs.push_back(run_variant(req));
                            progress.clear();
                            const Measurement& m = runs.back();
                            if (never_written(m)) print_todo_row(m, opt, todo_line);
                            else print_row(m, opt);
                            if (opt.sweep) std::printf("    r = %.4f\n", r);
                            if (csv) write_csv_line(csv, opt.csv, csv_row(m));
                            all_ok &= m.ok();
                            if (!m.ok() && !never_written(m))
                                std::printf("    reproduce: %s\n",
                                            reproduce_run(command, opt, s, t, v->name, seed, problem).c_str());
                            if (m.ok() && (!best || m.median_ms < best->median_ms)) best = &m;
                            if (!opt.trace.empty() && m.error.empty()) std::printf("wrote %s\n", opt.trace.c_str());
                            if (!opt.output.empty() && m.error.empty()) {
                                problem.write_output(opt, lab->gpu, t, s, out.data(), req.input);
                                std::printf("wrote %s\n", opt.output.c_str());
                            }
                            if (lab->gpu && !calibration_shown && m.calibration.unit_s > 0) {
                                std::printf("    calibration: 1 time unit (w = 32 words) = %.3g ns from the copy; "
                                            "l = %.2f us per kernel launch, %.2f us per graph kernel node",
                                            m.calibration.unit_s * 1e9, m.calibration.l_launch_s * 1e6,
                                            m.calibration.l_graph_s * 1e6);
                                if (m.calibration.link_bytes_per_s > 0)  // lab 10's exchange between strips
                                    std::printf("; exchange: lambda = %.2f us per step, beta = %.1f GB/s",
                                                m.calibration.link_latency_s * 1e6, m.calibration.link_bytes_per_s / 1e9);
                                std::printf("\n");
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
                        measured.insert(measured.end(), runs.begin(), runs.end());
                    }
                }
            const std::string summary = problem.summary(measured);
            if (!summary.empty()) std::fputs(summary.c_str(), stdout);
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
