// tasks.cpp — lab 8x's driver: data, CPU references, checking, timing and the command line for
// the task arrays of Funasaka et al. 2017 that are not SATs (error diffusion, 0-1 knapsack).
#include "tasks.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

#include "data.h"
#include "gpu_timing.h"
#include "io.h"

namespace sat::tasks {

const char* problem_name(Problem p) { return p == Problem::halftone ? "halftone" : "knapsack"; }

namespace {

std::vector<TaskVariant>& registry() {
    static std::vector<TaskVariant> variants;
    return variants;
}

template <class In, class Out>
void not_a_sat(const In*, Out*, Shape, Workspace&, cudaStream_t) {
    throw Error("lab 8x's variants are task arrays, not SATs: run ./lab8x (common/tasks.h)");
}

}  // namespace

LabInfo make_lab_info(const std::vector<TaskVariant>& variants) {
    LabInfo lab;
    for (const TaskVariant& v : variants) {
        auto& reg = registry();
        reg.erase(std::remove_if(reg.begin(), reg.end(),
                                 [&](const TaskVariant& r) { return r.full_name() == v.full_name(); }),
                  reg.end());
        reg.push_back(v);
        Variant placeholder = SAT_VARIANT(v.full_name(), "cpu", v.summary, not_a_sat);
        placeholder.barrier = v.multi_launch ? Barrier::kernel_launch : Barrier::none;
        lab.variants.push_back(placeholder);
    }
    lab.default_shapes = {{1024, 1024}, {4096, 4096}};
    lab.custom_main = &tasks_main;
    return lab;
}

const std::vector<TaskVariant>& task_variants() { return registry(); }

const TaskVariant* find_task_variant(Problem problem, const std::string& name) {
    for (const TaskVariant& v : registry())
        if (v.problem == problem && (v.name == name || v.full_name() == name)) return &v;
    return nullptr;
}

// ---- CPU references ----------------------------------------------------------------------------

namespace {

// A rounding barrier: the compiler cannot fuse the product into the following addition (an FMA
// rounds once where the GPU, with __fmul_rn/__fadd_rn, rounds twice) across an empty asm.
inline float rounded(float x) {
#if defined(__x86_64__) || defined(__i386__)
    asm("" : "+x"(x));
#elif defined(__aarch64__)
    asm("" : "+w"(x));
#else
    volatile float v = x;
    x = v;
#endif
    return x;
}
inline float plus_product(float sum, float coefficient, float error) {
    return sum + rounded(coefficient * error);
}

constexpr float w_right = 7.0f / 16, w_down_left = 3.0f / 16, w_down = 5.0f / 16,
                w_down_right = 1.0f / 16;
constexpr float threshold = 127.5f;

}  // namespace

std::vector<std::uint8_t> cpu_error_diffusion(const std::uint8_t* image, Shape s) {
    std::vector<std::uint8_t> out(s.n());
    // Rows i and i+1 of the working image, one padding column on each side (what is diffused
    // there leaves the image).
    const std::size_t padded = std::size_t(s.cols) + 2;
    std::vector<float> row(padded, 0.f), below(padded, 0.f);
    for (int j = 0; j < s.cols; ++j) row[j + 1] = image[j];
    for (int i = 0; i < s.rows; ++i) {
        std::fill(below.begin(), below.end(), 0.f);
        if (i + 1 < s.rows)
            for (int j = 0; j < s.cols; ++j) below[j + 1] = image[std::size_t(i + 1) * s.cols + j];
        row[0] = row[padded - 1] = 0.f;
        for (int j = 0; j < s.cols; ++j) {
            const float value = row[j + 1];
            const float level = value > threshold ? 255.f : 0.f;
            const float e = value - level;
            out[std::size_t(i) * s.cols + j] = level > 0 ? 255 : 0;
            row[j + 2] = plus_product(row[j + 2], w_right, e);
            below[j] = plus_product(below[j], w_down_left, e);
            below[j + 1] = plus_product(below[j + 1], w_down, e);
            below[j + 2] = plus_product(below[j + 2], w_down_right, e);
        }
        std::swap(row, below);
    }
    return out;
}

std::vector<std::uint8_t> cpu_error_collection(const std::uint8_t* image, Shape s) {
    std::vector<std::uint8_t> out(s.n());
    // Errors of the row above and of this row, one zero column on each side.
    const std::size_t padded = std::size_t(s.cols) + 2;
    std::vector<float> above(padded, 0.f), errors(padded, 0.f);
    for (int i = 0; i < s.rows; ++i) {
        errors[0] = errors[padded - 1] = 0.f;
        for (int j = 0; j < s.cols; ++j) {
            float value = image[std::size_t(i) * s.cols + j];
            // The senders' raster order: up-left, up, up-right, left.
            value = plus_product(value, w_down_right, above[j]);
            value = plus_product(value, w_down, above[j + 1]);
            value = plus_product(value, w_down_left, above[j + 2]);
            value = plus_product(value, w_right, errors[j]);
            const float level = value > threshold ? 255.f : 0.f;
            errors[j + 1] = value - level;
            out[std::size_t(i) * s.cols + j] = level > 0 ? 255 : 0;
        }
        std::swap(above, errors);
    }
    return out;
}

std::vector<std::int32_t> cpu_knapsack(const std::vector<std::int32_t>& weights,
                                       const std::vector<std::int32_t>& values, int capacity) {
    std::vector<std::int32_t> best(std::size_t(capacity) + 1, 0);
    for (std::size_t j = 0; j < weights.size(); ++j) {
        const std::int32_t wj = weights[j], vj = values[j];
        if (wj > capacity) continue;
        // Descending: best[c - wj] still holds row j-1 when best[c] is updated.
        for (std::int64_t c = capacity; c >= wj; --c)
            best[c] = std::max(best[c], best[c - wj] + vj);
    }
    return best;
}

// ---- Data ----------------------------------------------------------------------------------------

std::vector<std::uint8_t> random_image(Shape s, std::uint64_t seed) {
    std::vector<std::uint8_t> image(s.n());
    generate_input(DType::u8i32, s, seed, image.data());
    return image;
}

KnapsackInstance random_knapsack(int items, int capacity, std::uint64_t seed) {
    KnapsackInstance k;
    k.capacity = capacity;
    std::mt19937_64 rng(seed ^ 0x6B6E617073616B31ull);  // "knapsak1"
    const std::int64_t heaviest = std::max<std::int64_t>(1, 4 * std::int64_t(capacity) / (std::int64_t(items) + 1));
    std::uniform_int_distribution<std::int64_t> weight(1, heaviest), value(0, 4095);
    for (int j = 0; j < items; ++j) {
        k.weights.push_back(std::int32_t(weight(rng)));
        k.values.push_back(std::int32_t(value(rng)));
    }
    return k;
}

// ---- Running one variant ---------------------------------------------------------------------

namespace {

// Stream, the status word and an L2 flusher for one measurement.
struct Bench {
    cudaStream_t stream = nullptr;
    DeviceBuffer status{sizeof(int)};
    L2Flusher flusher;
    Bench() { SAT_CUDA(cudaStreamCreate(&stream)); }
    ~Bench() { cudaStreamDestroy(stream); }
    Bench(const Bench&) = delete;
    Bench& operator=(const Bench&) = delete;

    void clear_status() { SAT_CUDA(cudaMemsetAsync(status.ptr, 0, sizeof(int), stream)); }
    // Waits for the stream; an empty string when every spin wait was fine.
    std::string finish() {
        SAT_CUDA(cudaStreamSynchronize(stream));
        return status_error(status.as<int>());
    }
    // `reps` timed calls of run(); the L2 is flushed before each so no run starts warm.
    template <class Run>
    void time(Run run, Workspace& ws, int reps, TaskMeasurement& m) {
        clear_status();
        const Stats t = time_gpu(reps, stream, flusher, [&] {
            ws.begin_run();
            run();
        });
        m.error = finish();
        m.median_ms = t.median;
        m.min_ms = t.min;
        m.max_ms = t.max;
    }
};

// How many elements differ, and the first that does.
struct Mismatch {
    std::size_t wrong = 0, first = 0;
};
template <class T>
Mismatch first_mismatch(const std::vector<T>& expected, const std::vector<T>& got) {
    Mismatch m;
    for (std::size_t i = 0; i < got.size(); ++i)
        if (got[i] != expected[i] && m.wrong++ == 0) m.first = i;
    return m;
}

std::string halftone_mismatch(Shape s, const std::vector<std::uint8_t>& expected,
                              const std::vector<std::uint8_t>& got) {
    const Mismatch m = first_mismatch(expected, got);
    if (m.wrong == 0) return "";
    std::ostringstream out;
    out << m.wrong << " of " << got.size() << " pixels differ from the CPU's error diffusion, first at (row "
        << m.first / s.cols << ", col " << m.first % s.cols << "): expected " << int(expected[m.first])
        << ", got " << int(got[m.first]);
    if (is_poison(got[m.first])) out << unwritten_note;
    return out.str();
}

std::string knapsack_mismatch(const std::vector<std::int32_t>& expected, const std::vector<std::int32_t>& got) {
    const Mismatch m = first_mismatch(expected, got);
    if (m.wrong == 0) return "";
    std::ostringstream out;
    out << "optimum V[n][W] = " << got.back() << " (CPU DP: " << expected.back() << "); " << m.wrong << " of "
        << got.size() << " capacities differ, first at c = " << m.first << ": expected " << expected[m.first]
        << ", got " << got[m.first];
    if (is_poison(got[m.first])) out << unwritten_note;
    return out.str();
}

}  // namespace

TaskMeasurement run_halftone(const TaskVariant& v, const std::vector<std::uint8_t>& image, Shape s,
                             const std::vector<std::uint8_t>& expected, int reps,
                             std::vector<std::uint8_t>* output) {
    TaskMeasurement m;
    m.variant = v.full_name();
    m.problem = Problem::halftone;
    m.shape = s;
    m.reps = reps;
    try {
        if (!v.halftone) throw Error(m.variant + " has no halftone function");
        Bench bench;
        DeviceBuffer in(s.n()), out(s.n());
        SAT_CUDA(cudaMemcpyAsync(in.ptr, image.data(), s.n(), cudaMemcpyHostToDevice, bench.stream));
        SAT_CUDA(cudaMemsetAsync(out.ptr, poison_byte, s.n(), bench.stream));
        Workspace ws(true);
        ws.status = bench.status.as<int>();
        auto run = [&] { v.halftone(in.as<std::uint8_t>(), out.as<std::uint8_t>(), s, ws, bench.stream); };
        bench.clear_status();
        ws.begin_run();
        run();
        m.error = bench.finish();
        std::vector<std::uint8_t> got(s.n());
        SAT_CUDA(cudaMemcpyAsync(got.data(), out.ptr, s.n(), cudaMemcpyDeviceToHost, bench.stream));
        SAT_CUDA(cudaStreamSynchronize(bench.stream));
        m.message = halftone_mismatch(s, expected, got);
        m.pass = m.message.empty();
        if (m.pass) m.message = "PASS";
        if (output) *output = std::move(got);
        if (m.ok() && reps > 0) bench.time(run, ws, reps, m);
    } catch (const std::exception& e) {
        m.error = e.what();
        cudaGetLastError();
    }
    return m;
}

std::size_t knapsack_device_bytes(KnapsackShape k) {
    const std::size_t width = std::size_t(k.capacity) + 1;
    return sizeof(std::int32_t) * (std::size_t(k.items) * width + width + 2 * std::size_t(k.items)) +
           sizeof(unsigned) * (width / 32 + 2);
}

TaskMeasurement run_knapsack(const TaskVariant& v, const KnapsackInstance& instance,
                             const std::vector<std::int32_t>& expected, int reps) {
    TaskMeasurement m;
    m.variant = v.full_name();
    m.problem = Problem::knapsack;
    const KnapsackShape k = instance.shape();
    m.shape = Shape{k.items + 1, k.capacity + 1};
    m.reps = reps;
    try {
        if (!v.knapsack) throw Error(m.variant + " has no knapsack function");
        Bench bench;
        const std::size_t width = std::size_t(k.capacity) + 1;
        DeviceBuffer weights(sizeof(std::int32_t) * k.items), values(sizeof(std::int32_t) * k.items),
            best(sizeof(std::int32_t) * width);
        SAT_CUDA(cudaMemcpyAsync(weights.ptr, instance.weights.data(), sizeof(std::int32_t) * k.items,
                                 cudaMemcpyHostToDevice, bench.stream));
        SAT_CUDA(cudaMemcpyAsync(values.ptr, instance.values.data(), sizeof(std::int32_t) * k.items,
                                 cudaMemcpyHostToDevice, bench.stream));
        SAT_CUDA(cudaMemsetAsync(best.ptr, poison_byte, sizeof(std::int32_t) * width, bench.stream));
        Workspace ws(true);
        ws.status = bench.status.as<int>();
        auto run = [&] {
            v.knapsack(weights.as<std::int32_t>(), values.as<std::int32_t>(), k, best.as<std::int32_t>(), ws,
                       bench.stream);
        };
        bench.clear_status();
        ws.begin_run();
        run();
        m.error = bench.finish();
        std::vector<std::int32_t> got(width);
        SAT_CUDA(cudaMemcpyAsync(got.data(), best.ptr, sizeof(std::int32_t) * width, cudaMemcpyDeviceToHost,
                                 bench.stream));
        SAT_CUDA(cudaStreamSynchronize(bench.stream));
        m.message = knapsack_mismatch(expected, got);
        m.pass = m.message.empty();
        if (m.pass) m.message = "PASS";
        if (m.ok() && reps > 0) bench.time(run, ws, reps, m);
    } catch (const std::exception& e) {
        m.error = e.what();
        cudaGetLastError();
    }
    return m;
}

// ---- The program ---------------------------------------------------------------------------------

namespace {

constexpr const char* prog = "lab8x";
constexpr int max_items = 500000;         // 4095 * n stays below the int32 poison value
constexpr int max_capacity = 1 << 28;

struct Options {
    bool halftone = true, knapsack = true, problem_given = false;
    std::vector<std::string> variants;
    std::vector<Shape> sizes;
    std::string input, output, csv;
    int items = 4095;                    // n + 1 = 4096, as in the paper
    std::vector<int> capacities;         // W; default 16383 (W + 1 = 16K)
    int reps = 20;
    std::uint64_t seed = 0;
    bool seed_given = false, model = false, help = false;
};

std::string usage() {
    std::ostringstream out;
    out << "lab8x - SKSS beyond the SAT: error diffusion and the 0-1 knapsack (Funasaka et al. 2017)\n\n"
        << "usage: ./lab8x [options]\n"
        << "  --problem P         halftone, knapsack or all (default: all)\n"
        << "  --variant V[,V]     run only these variants, e.g. SKSS or knapsack/SKSS (default: all)\n"
        << "  --size N            halftone an N x N image (RxC: R rows by C columns; default 1024 and 4096)\n"
        << "  --sizes a,b,RxC     several images\n"
        << "  --input FILE        halftone this image (.png, .pgm or .npy, 8-bit gray) instead of random pixels\n"
        << "  --output FILE       write the halftone (.png or .pgm) of the one image\n"
        << "  --items N           knapsack: n items (default 4095: n + 1 = 4096 as in the paper)\n"
        << "  --capacity W        knapsack: capacity W (default 16383: W + 1 = 16K)\n"
        << "  --capacities a,b    several capacities\n"
        << "  --reps N            timed repetitions after the check (default 20)\n"
        << "  --seed S            data seed (default: fresh, printed)\n"
        << "  --csv FILE          append one CSV row per measurement (the harness's columns)\n"
        << "  --type T            accepted for the harness's tools and ignored (the problems fix their types)\n"
        << "  --model             print the task arrays, launches and cost terms only (needs no GPU)\n"
        << "  --help              this text\n\n"
        << "variants:\n";
    for (const TaskVariant& v : task_variants()) {
        const std::string name = v.full_name();
        out << "  " << name << std::string(name.size() < 28 ? 28 - name.size() : 1, ' ') << v.summary << "\n";
    }
    return out.str();
}

Options parse(int argc, const char* const* argv) {
    Options opt;
    bool image_options = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw UsageError(arg + " needs a value (see --help)");
            return argv[++i];
        };
        if (arg == "--help" || arg == "-h") {
            opt.help = true;
        } else if (arg == "--problem") {
            const std::string p = value();
            if (p != "halftone" && p != "knapsack" && p != "all")
                throw UsageError("unknown --problem '" + p + "' (use halftone, knapsack or all)");
            opt.halftone = p != "knapsack";
            opt.knapsack = p != "halftone";
            opt.problem_given = true;
        } else if (arg == "--variant") {
            for (const std::string& name : split_list(value(), ',')) opt.variants.push_back(name);
        } else if (arg == "--size") {
            opt.sizes.push_back(parse_shape(arg, value(), 1L << 17));
        } else if (arg == "--sizes") {
            for (const std::string& s : split_list(value(), ',')) opt.sizes.push_back(parse_shape(arg, s, 1L << 17));
            if (opt.sizes.empty()) throw UsageError("--sizes needs a list such as 1024,4096");
        } else if (arg == "--input") {
            opt.input = value();
            image_options = true;
        } else if (arg == "--output") {
            opt.output = value();
            image_options = true;
        } else if (arg == "--items") {
            opt.items = int(parse_integer(arg, value(), 0, max_items));
        } else if (arg == "--capacity") {
            opt.capacities.push_back(int(parse_integer(arg, value(), 0, max_capacity)));
        } else if (arg == "--capacities") {
            for (const std::string& c : split_list(value(), ','))
                opt.capacities.push_back(int(parse_integer(arg, c, 0, max_capacity)));
            if (opt.capacities.empty()) throw UsageError("--capacities needs a list such as 16383,32767");
        } else if (arg == "--reps") {
            opt.reps = int(parse_integer(arg, value(), 0, 100000));
        } else if (arg == "--seed") {
            opt.seed = parse_seed(value());
            opt.seed_given = true;
        } else if (arg == "--csv") {
            opt.csv = value();
        } else if (arg == "--type") {
            for (const std::string& t : split_list(value(), ',')) parse_dtype(t);  // validated, then ignored
        } else if (arg == "--model") {
            opt.model = true;
        } else {
            throw UsageError("unknown option '" + arg + "' (see --help)");
        }
    }
    if (image_options && !opt.problem_given) opt.knapsack = false;
    if (!opt.input.empty() && !opt.sizes.empty())
        throw UsageError("--input takes the image's own size: leave out --size/--sizes");
    if (opt.sizes.empty() && opt.input.empty()) opt.sizes = {{1024, 1024}, {4096, 4096}};
    if (opt.capacities.empty()) opt.capacities = {16383};
    if (!opt.output.empty()) {
        if (!opt.halftone) throw UsageError("--output writes a halftone: it needs --problem halftone");
        if (opt.input.empty() && opt.sizes.size() != 1)
            throw UsageError("--output writes one image: give one --size or an --input");
        const std::string ext = opt.output.size() > 4 ? opt.output.substr(opt.output.size() - 4) : "";
        if (ext != ".png" && ext != ".pgm") throw UsageError("--output needs a .png or .pgm file name");
    }
    for (const std::string& name : opt.variants) {
        bool known = false;
        for (const TaskVariant& v : task_variants())
            known |= ((v.problem == Problem::halftone && opt.halftone) ||
                      (v.problem == Problem::knapsack && opt.knapsack)) &&
                     (v.name == name || v.full_name() == name);
        if (!known) {
            std::string names;
            for (const TaskVariant& v : task_variants()) names += (names.empty() ? "" : ", ") + v.full_name();
            throw UsageError("unknown --variant '" + name + "' for the chosen problem (lab 8x has: " + names + ")");
        }
    }
    return opt;
}

bool selected(const Options& opt, const TaskVariant& v) {
    if (v.problem == Problem::halftone ? !opt.halftone : !opt.knapsack) return false;
    if (opt.variants.empty()) return true;
    for (const std::string& name : opt.variants)
        if (v.name == name || v.full_name() == name) return true;
    return false;
}

// ---- The cost model of a task array (docs/lab8x.md) ------------------------------------------
// Memory traffic in HMM time units (w words a unit) and the barriers: kernel launches of the
// multi-launch versions, the one launch plus the strip hand-overs on SKSS's critical path.
struct Model {
    std::string task_array;  // "128 x 130 parallelograms"
    long long critical_tasks = 0;
    hmm::Cost cost;
    std::string formula;
};

Model halftone_model(Shape s, bool multi_launch) {
    const long long m = (s.rows + 31) / 32, P = (s.cols + 62 + 31) / 32;
    Model model;
    model.task_array = std::to_string(m) + " x " + std::to_string(P) + " parallelograms";
    model.critical_tasks = P + 3 * (m - 1);
    model.cost.units = 2.0 * double(s.n()) / 32;
    model.cost.latencies = multi_launch ? double(P + 3 * (m - 1)) : double(m);
    model.formula = multi_launch ? "2n/w + (P + 3(m-1)) l" : "2n/w + m l";
    return model;
}

Model knapsack_model(KnapsackShape k, bool multi_launch) {
    const long long strips = (k.capacity + 1 + 31) / 32;
    Model model;
    model.task_array = std::to_string(strips) + " x " + std::to_string(k.items) + " strips of 32 x 1";
    model.critical_tasks = k.items;
    model.cost.units = 3.0 * double(k.items) * double(k.capacity + 1) / 32;
    model.cost.latencies = multi_launch ? double(k.items) : 1.0;
    model.formula = multi_launch ? "3n(W+1)/w + n l" : "3n(W+1)/w + l";
    return model;
}

std::string knapsack_size_text(KnapsackShape k) {
    return "n=" + std::to_string(k.items) + " W=" + std::to_string(k.capacity);
}
std::string image_size_text(Shape s) { return std::to_string(s.cols) + "x" + std::to_string(s.rows); }

int print_model(const Options& opt) {
    std::printf("%s - task arrays, their launches and HMM cost terms (w = 32; Funasaka et al. sections II-V)\n", prog);
    for (const TaskVariant& v : task_variants()) {
        if (!selected(opt, v)) continue;
        const char* barrier = v.multi_launch ? "kernel launches" : "one launch + strip hand-overs";
        if (v.problem == Problem::halftone) {
            std::vector<Shape> sizes = opt.sizes;
            if (sizes.empty()) sizes = {{1024, 1024}};
            for (Shape s : sizes) {
                const Model m = halftone_model(s, v.multi_launch);
                std::printf("  %-28s %-16s %s, critical path %lld tasks; %s = %.4g time units + %.4g l (%s)\n",
                            v.full_name().c_str(), image_size_text(s).c_str(), m.task_array.c_str(), m.critical_tasks,
                            m.formula.c_str(), m.cost.units, m.cost.latencies, barrier);
            }
        } else {
            for (int capacity : opt.capacities) {
                const KnapsackShape k{opt.items, capacity};
                const Model m = knapsack_model(k, v.multi_launch);
                std::printf("  %-28s %-16s %s, critical path %lld tasks; %s = %.4g time units + %.4g l (%s)\n",
                            v.full_name().c_str(), knapsack_size_text(k).c_str(), m.task_array.c_str(),
                            m.critical_tasks, m.formula.c_str(), m.cost.units, m.cost.latencies, barrier);
            }
        }
    }
    return 0;
}

// The paper's ratios, multi-launch time / SKSS time on a Titan X (Tables I and III).
double paper_ratio(Problem p, Shape size, KnapsackShape k) {
    if (p == Problem::halftone) {
        if (size.rows != size.cols) return 0;
        const int sides[] = {1024, 2048, 4096, 8192, 16384, 32768};
        const double pb[] = {1.119, 2.242, 4.586, 9.272, 19.17, 48.65};     // Parallel-Backward [7]
        const double skss[] = {0.5982, 1.098, 2.185, 4.391, 11.90, 29.89};
        for (int i = 0; i < 6; ++i)
            if (size.rows == sides[i]) return pb[i] / skss[i];
        return 0;
    }
    if (k.items != 4095) return 0;
    const int widths[] = {16384, 32768, 65536, 131072, 262144, 524288};
    const double pf[] = {14.83, 16.01, 19.61, 27.13, 42.67, 87.8};           // Parallel-Forward [3]
    const double skss[] = {5.037, 5.515, 9.315, 15.14, 27.24, 52.37};
    for (int i = 0; i < 6; ++i)
        if (k.capacity + 1 == widths[i]) return pf[i] / skss[i];
    return 0;
}

struct Row {
    Problem problem;
    std::string size;
    double multi_ms = 0, skss_ms = 0, cpu_ms = 0, paper = 0;
};

void print_table_header() {
    std::printf("%-28s %-16s %-5s %10s %19s %9s  %s\n", "variant", "size", "check", "median ms", "[min, max] ms",
                "launches", "speed-up over the multi-launch version");
}

void print_measurement(const TaskMeasurement& m, const std::string& size, long long launches, double baseline_ms,
                       double paper) {
    char range[64] = "-", median[32] = "-", speedup[96] = "";
    if (m.ok() && m.reps > 0) {
        std::snprintf(range, sizeof range, "[%.3f, %.3f]", m.min_ms, m.max_ms);
        std::snprintf(median, sizeof median, "%.3f", m.median_ms);
        if (baseline_ms > 0) {
            if (paper > 0)
                std::snprintf(speedup, sizeof speedup, "%.2fx (paper, Titan X: %.2fx)", baseline_ms / m.median_ms, paper);
            else
                std::snprintf(speedup, sizeof speedup, "%.2fx", baseline_ms / m.median_ms);
        }
    }
    const char* verdict = !m.error.empty() ? "ERROR" : m.pass ? "PASS" : "FAIL";
    std::printf("%-28s %-16s %-5s %10s %19s %9lld  %s\n", m.variant.c_str(), size.c_str(), verdict, median, range,
                launches, speedup);
    if (!m.error.empty()) std::printf("    error: %s\n", m.error.c_str());
    else if (!m.pass) std::printf("    check: %s\n", m.message.c_str());
}

std::string csv_line(const TaskMeasurement& t, const std::string& device, std::uint64_t seed, const Model& model,
                     double bytes) {
    Measurement m;
    m.device = device;
    m.lab = 80;
    m.variant = t.variant;
    m.type = t.problem == Problem::halftone ? DType::u8i32 : DType::i32;
    m.shape = t.shape;
    m.reps = t.reps;
    m.median_ms = t.median_ms;
    m.min_ms = t.min_ms;
    m.max_ms = t.max_ms;
    m.gbps = t.median_ms > 0 ? bytes / (t.median_ms * 1e6) : 0;
    m.hmm_formula = model.formula;
    m.hmm_cost = model.cost;
    m.predicted_ms = NAN;
    m.seed = seed;
    m.check.pass = t.pass;
    m.error = t.error;
    return csv_row(m);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int tasks_main(const LabInfo& lab, int argc, const char* const* argv) {
    Options opt;
    try {
        opt = parse(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", prog, e.what());
        return 2;
    }
    if (opt.help) {
        std::fputs(usage().c_str(), stdout);
        return 0;
    }
    if (opt.model) return print_model(opt);
    std::string why;
    if (!gpu_available(&why)) {
        std::fprintf(stderr, "%s: %s; lab 1 (the CPU SAT) and './%s --model' (the task arrays' launches and costs) still run here\n",
                     prog, why.c_str(), prog);
        return 2;
    }

    // Halftone inputs: the one --input image, or random images.
    std::vector<std::pair<Shape, std::vector<std::uint8_t>>> images;
    if (opt.halftone && !opt.input.empty()) {
        try {
            HostMatrix matrix = read_matrix(opt.input);
            if (matrix.dtype != "u1") matrix.bytes = convert_input(matrix, DType::u8i32);
            images.push_back({matrix.shape, std::move(matrix.bytes)});
        } catch (const std::exception& e) {
            std::fprintf(stderr, "%s: %s\n", prog, e.what());
            return 2;
        }
    }
    if (opt.knapsack) {
        std::size_t free_bytes = 0, total_bytes = 0;
        cudaMemGetInfo(&free_bytes, &total_bytes);
        for (int capacity : opt.capacities) {
            const std::size_t need = knapsack_device_bytes({opt.items, capacity}) + (std::size_t(256) << 20);
            if (need > free_bytes) {
                std::fprintf(stderr, "%s: the knapsack table V of n=%d by W+1=%d needs %.2f GiB of GPU memory; %.2f GiB are free\n",
                             prog, opt.items, capacity + 1, double(need) / (1ull << 30), double(free_bytes) / (1ull << 30));
                return 2;
            }
        }
    }

    FILE* csv = nullptr;
    if (!opt.csv.empty() && !(csv = open_csv(opt.csv))) {
        std::fprintf(stderr, "%s: cannot write %s\n", prog, opt.csv.c_str());
        return 2;
    }

    std::uint64_t seed = opt.seed;
    if (!opt.seed_given) seed = fresh_seed();
    const std::string device = device_name();
    std::printf("%s - %s (%s) on %s; seed %llu\n", prog, lab.title.c_str(), lab.source.c_str(), device.c_str(),
                (unsigned long long)seed);
    print_table_header();

    bool all_ok = true, wrote_output = false;
    std::vector<Row> rows;
    auto record = [&](const TaskMeasurement& m, const Model& model, double bytes, const std::string& size,
                      double baseline_ms, double paper) {
        print_measurement(m, size, (long long)std::llround(model.cost.latencies), baseline_ms, paper);
        if (csv) std::fprintf(csv, "%s\n", csv_line(m, device, seed, model, bytes).c_str());
        all_ok &= m.ok();
    };

    if (opt.halftone) {
        if (images.empty())
            for (std::size_t i = 0; i < opt.sizes.size(); ++i)
                images.push_back({opt.sizes[i], random_image(opt.sizes[i], seed + i)});
        for (auto& [shape, image] : images) {
            const auto t0 = std::chrono::steady_clock::now();
            const std::vector<std::uint8_t> expected = cpu_error_diffusion(image.data(), shape);
            Row row{Problem::halftone, image_size_text(shape)};
            row.cpu_ms = seconds_since(t0) * 1e3;
            row.paper = paper_ratio(Problem::halftone, shape, {});
            for (const TaskVariant& v : task_variants()) {
                if (v.problem != Problem::halftone || !selected(opt, v)) continue;
                std::vector<std::uint8_t> out;
                const TaskMeasurement m = run_halftone(v, image, shape, expected, opt.reps,
                                                       opt.output.empty() || wrote_output ? nullptr : &out);
                (v.multi_launch ? row.multi_ms : row.skss_ms) = m.ok() ? m.median_ms : 0;
                record(m, halftone_model(shape, v.multi_launch), 2.0 * double(shape.n()), row.size,
                       v.multi_launch ? 0 : row.multi_ms, row.paper);
                if (!opt.output.empty() && !wrote_output && m.ok()) {
                    try {
                        write_image(opt.output, shape.cols, shape.rows, 1, out.data());
                    } catch (const std::exception& e) {
                        std::fprintf(stderr, "%s: %s\n", prog, e.what());
                        return 2;
                    }
                    std::printf("wrote %s (the halftone of %s)\n", opt.output.c_str(), v.full_name().c_str());
                    wrote_output = true;
                }
            }
            std::printf("%-28s %-16s %-5s %10.3f  (sequential Floyd-Steinberg error diffusion, one CPU thread)\n",
                        "halftone/CPU", row.size.c_str(), "-", row.cpu_ms);
            rows.push_back(row);
        }
    }
    if (opt.knapsack) {
        for (std::size_t i = 0; i < opt.capacities.size(); ++i) {
            const KnapsackInstance instance = random_knapsack(opt.items, opt.capacities[i], seed + i);
            const KnapsackShape k = instance.shape();
            const auto t0 = std::chrono::steady_clock::now();
            const std::vector<std::int32_t> expected = cpu_knapsack(instance.weights, instance.values, k.capacity);
            Row row{Problem::knapsack, knapsack_size_text(k)};
            row.cpu_ms = seconds_since(t0) * 1e3;
            row.paper = paper_ratio(Problem::knapsack, {}, k);
            for (const TaskVariant& v : task_variants()) {
                if (v.problem != Problem::knapsack || !selected(opt, v)) continue;
                const TaskMeasurement m = run_knapsack(v, instance, expected, opt.reps);
                (v.multi_launch ? row.multi_ms : row.skss_ms) = m.ok() ? m.median_ms : 0;
                record(m, knapsack_model(k, v.multi_launch), 12.0 * double(k.items) * double(k.capacity + 1),
                       row.size, v.multi_launch ? 0 : row.multi_ms, row.paper);
            }
            std::printf("%-28s %-16s %-5s %10.3f  (the DP over one array, one CPU thread; optimum %d)\n",
                        "knapsack/CPU", row.size.c_str(), "-", row.cpu_ms, expected.back());
            rows.push_back(row);
        }
    }
    if (csv) std::fclose(csv);

    // Summary: the speed-up of SKSS over the multi-launch version, next to the paper's.
    bool any = false;
    for (const Row& r : rows) any |= r.multi_ms > 0 && r.skss_ms > 0;
    if (any) {
        std::printf("\nSKSS vs the multi-launch version (%s):\n", device.c_str());
        std::printf("  %-9s %-16s %12s %10s %9s %22s\n", "problem", "size", "multi ms", "SKSS ms", "speed-up",
                    "paper (Titan X)");
        for (const Row& r : rows) {
            if (!(r.multi_ms > 0 && r.skss_ms > 0)) continue;
            char paper[32] = "-";
            if (r.paper > 0) std::snprintf(paper, sizeof paper, "%.2fx", r.paper);
            std::printf("  %-9s %-16s %12.3f %10.3f %8.2fx %22s\n", problem_name(r.problem), r.size.c_str(), r.multi_ms,
                        r.skss_ms, r.multi_ms / r.skss_ms, paper);
        }
    }
    std::printf("reproduce: %s\n", reproduce_line(prog, argc, argv, seed).c_str());
    return all_ok ? 0 : 1;
}

}  // namespace sat::tasks
