// tasks.cpp — lab 8x's problems (tasks.h): the halftone and the 0-1 knapsack as Problems of the
// harness: data, the CPU references, the exact check, the cost model of a task array, and the
// summary of SKSS against the multi-launch version.
#include "tasks.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <random>

#include "data.h"
#include "io.h"

namespace sat::tasks {

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

std::vector<std::int32_t> KnapsackInstance::input() const {
    std::vector<std::int32_t> in(weights);
    in.insert(in.end(), values.begin(), values.end());
    return in;
}

// ---- The problems --------------------------------------------------------------------------------

namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

template <class T>
struct ExactAnswer : Answer {
    std::vector<T> expected;
};

// The output against the answer, element by element and exactly, in the SAT check's terms.
template <class T>
CheckReport compare_exact(const ExactAnswer<T>& answer, const void* output) {
    const T* got = static_cast<const T*>(output);
    CheckReport rep;
    rep.checked = answer.expected.size();
    rep.tolerance = "exact";
    for (std::size_t i = 0; i < answer.expected.size(); ++i) {
        const double expected = double(answer.expected[i]), value = double(got[i]);
        rep.max_error = std::max(rep.max_error, std::fabs(value - expected));
        if (got[i] == answer.expected[i]) continue;
        if (rep.wrong++ == 0) {
            rep.first_row = long(i / std::size_t(answer.shape.cols));
            rep.first_col = long(i % std::size_t(answer.shape.cols));
            rep.first_expected = expected;
            rep.first_got = value;
            rep.first_unwritten = is_poison(got[i]);
        }
    }
    rep.pass = rep.wrong == 0;
    return rep;
}

// The HMM cost of a task array (docs/lab8x.md): memory traffic in time units (w words a unit) and
// the barriers: kernel launches of the multi-launch versions, the one launch plus the strip
// hand-overs on SKSS's critical path.
CostModel halftone_model(Shape s, bool multi_launch) {
    const long long m = ceil_div(s.rows, 32), P = ceil_div(s.cols + 62, 32);
    CostModel model;
    model.symbolic = multi_launch ? "2n/w + (P + 3(m-1)) l" : "2n/w + m l";
    model.cost.units = 2.0 * double(s.n()) / 32;
    model.cost.latencies = multi_launch ? double(P + 3 * (m - 1)) : double(m);
    model.note = std::to_string(m) + " x " + std::to_string(P) + " parallelograms, critical path " +
                 std::to_string(P + 3 * (m - 1)) + " tasks; " +
                 (multi_launch ? "kernel launches" : "one launch + strip hand-overs");
    return model;
}

CostModel knapsack_model(KnapsackShape k, bool multi_launch) {
    CostModel model;
    model.symbolic = multi_launch ? "3n(W+1)/w + n l" : "3n(W+1)/w + l";
    model.cost.units = 3.0 * double(k.items) * double(k.capacity + 1) / 32;
    model.cost.latencies = multi_launch ? double(k.items) : 1.0;
    model.note = std::to_string(ceil_div(k.capacity + 1, 32)) + " x " + std::to_string(k.items) +
                 " strips of 32 x 1, critical path " + std::to_string(k.items) + " tasks; " +
                 (multi_launch ? "kernel launches" : "one launch + strip hand-overs");
    return model;
}

// The paper's ratios, multi-launch time / SKSS time on a Titan X (Tables I and III); 0: none.
double halftone_paper_ratio(Shape size) {
    const int sides[] = {1024, 2048, 4096, 8192, 16384, 32768};
    const double pb[] = {1.119, 2.242, 4.586, 9.272, 19.17, 48.65};  // Parallel-Backward [7]
    const double skss[] = {0.5982, 1.098, 2.185, 4.391, 11.90, 29.89};
    for (int i = 0; i < 6; ++i)
        if (size.rows == sides[i] && size.cols == sides[i]) return pb[i] / skss[i];
    return 0;
}
double knapsack_paper_ratio(Shape table) {
    const int widths[] = {16384, 32768, 65536, 131072, 262144, 524288};
    const double pf[] = {14.83, 16.01, 19.61, 27.13, 42.67, 87.8};  // Parallel-Forward [3]
    const double skss[] = {5.037, 5.515, 9.315, 15.14, 27.24, 52.37};
    for (int i = 0; i < 6; ++i)
        if (table.rows == 4096 && table.cols == widths[i]) return pf[i] / skss[i];
    return 0;
}

bool multi_launch(const Measurement& m) {
    const LabInfo* lab = find_lab(m.lab);
    if (lab)
        for (const Variant& v : lab->variants)
            if (v.name == m.variant) return v.barrier == Barrier::kernel_launch;
    return false;
}

// Per instance: the multi-launch and SKSS medians, SKSS's speed-up next to the paper's, and the
// CPU reference's time (one thread).
std::string speedup_summary(const std::string& title, const std::vector<Measurement>& runs,
                            std::string (*size_text)(Shape), double (*paper)(Shape)) {
    struct Row {
        Shape shape;
        double multi_ms = 0, skss_ms = 0, cpu_ms = 0;
    };
    std::vector<Row> rows;
    for (const Measurement& m : runs) {
        auto row = std::find_if(rows.begin(), rows.end(), [&](const Row& r) {
            return r.shape.rows == m.shape.rows && r.shape.cols == m.shape.cols;
        });
        if (row == rows.end()) row = rows.insert(rows.end(), Row{m.shape});
        if (m.cpu_reference_ms > 0) row->cpu_ms = m.cpu_reference_ms;
        if (m.ok() && m.median_ms > 0) (multi_launch(m) ? row->multi_ms : row->skss_ms) = m.median_ms;
    }
    std::string text = "\n" + title + " (median ms; paper: Titan X, Funasaka et al. Tables I and III; CPU: one thread)\n";
    char line[256];
    std::snprintf(line, sizeof line, "  %-18s %10s %10s %9s %7s %10s\n", "size", "multi ms", "SKSS ms", "speed-up",
                  "paper", "CPU ms");
    text += line;
    auto ms = [](double v) {
        char buf[32] = "-";
        if (v > 0) std::snprintf(buf, sizeof buf, "%.3f", v);
        return std::string(buf);
    };
    for (const Row& r : rows) {
        char speedup[32] = "-", ratio[32] = "-";
        if (r.multi_ms > 0 && r.skss_ms > 0) std::snprintf(speedup, sizeof speedup, "%.2fx", r.multi_ms / r.skss_ms);
        if (paper(r.shape) > 0) std::snprintf(ratio, sizeof ratio, "%.2fx", paper(r.shape));
        std::snprintf(line, sizeof line, "  %-18s %10s %10s %9s %7s %10s\n", size_text(r.shape).c_str(),
                      ms(r.multi_ms).c_str(), ms(r.skss_ms).c_str(), speedup, ratio, ms(r.cpu_ms).c_str());
        text += line;
    }
    return text;
}

std::string image_size_text(Shape s) { return std::to_string(s.rows) + "x" + std::to_string(s.cols); }
std::string knapsack_size_text(Shape table) {
    const KnapsackShape k = knapsack_shape(table);
    return "n=" + std::to_string(k.items) + " W=" + std::to_string(k.capacity);
}

struct HalftoneProblem : Problem {
    std::string name() const override { return "halftone"; }
    std::vector<Shape> instances(const Options& opt, const LabInfo& lab) const override {
        return opt.shapes.empty() ? lab.default_shapes : opt.shapes;
    }
    std::vector<DType> types(const Options&) const override { return {DType::u8i32}; }  // u8 in, u8 out
    std::string type_name(DType) const override { return "u8"; }
    std::size_t input_bytes(DType, Shape s) const override { return s.n(); }
    std::size_t output_element_bytes(DType) const override { return 1; }
    double output_value(DType, const unsigned char* e) const override { return double(*e); }
    void generate(DType, Shape s, std::uint64_t seed, DataKind, void* input) const override {
        generate_input(DType::u8i32, s, seed, input);
    }
    std::shared_ptr<const Answer> answer(DType, Shape s, const void* input, const Variant&) const override {
        const auto t0 = std::chrono::steady_clock::now();
        auto a = std::make_shared<ExactAnswer<std::uint8_t>>();
        a->expected = cpu_error_diffusion(static_cast<const std::uint8_t*>(input), s);
        a->shape = s;
        a->cpu_ms = ms_since(t0);
        return a;
    }
    CheckReport check(DType, const Answer& a, const void* output) const override {
        return compare_exact(static_cast<const ExactAnswer<std::uint8_t>&>(a), output);
    }
    Traffic traffic(DType, Shape s) const override { return {2.0 * double(s.n()), 2.0 * double(s.n()) / 32}; }
    CostModel cost(const Variant& v, Shape s, double, DType) const override {
        return halftone_model(s, v.barrier == Barrier::kernel_launch);
    }
    std::string instance_args(const Options& opt, DType, Shape s) const override {
        if (!opt.input.empty()) return " --problem halftone --input " + shell_word(opt.input);
        return " --problem halftone --rows " + std::to_string(s.rows) + " --cols " + std::to_string(s.cols);
    }
    double answer_bytes(DType, Shape s, bool) const override { return double(s.n()); }
    bool reads_files() const override { return true; }
    void write_output(const Options& opt, bool, DType, Shape s, const void* output, const void*) const override {
        const auto* pixels = static_cast<const unsigned char*>(output);
        if (output_format(opt.output) == OutputFormat::npy) write_npy(opt.output, s, "u1", pixels);
        else write_image(opt.output, s.cols, s.rows, 1, pixels);
    }
    std::string summary(const std::vector<Measurement>& runs) const override {
        return speedup_summary("halftone: SKSS vs Parallel-Backward", runs, image_size_text, halftone_paper_ratio);
    }
};

struct KnapsackProblem : Problem {
    std::string name() const override { return "knapsack"; }
    std::vector<Shape> instances(const Options& opt, const LabInfo&) const override {
        std::vector<Shape> tables;
        for (int capacity : opt.capacities.empty() ? std::vector<int>{16383} : opt.capacities)
            tables.push_back(table_shape({opt.items, capacity}));
        return tables;
    }
    std::vector<DType> types(const Options&) const override { return {DType::i32}; }
    std::size_t input_bytes(DType, Shape s) const override {
        return 2 * sizeof(std::int32_t) * std::size_t(knapsack_shape(s).items);
    }
    Shape output_shape(Shape s) const override { return {1, s.cols}; }
    std::size_t output_element_bytes(DType) const override { return sizeof(std::int32_t); }
    double output_value(DType, const unsigned char* e) const override {
        std::int32_t v;
        std::memcpy(&v, e, sizeof v);
        return double(v);
    }
    void generate(DType, Shape s, std::uint64_t seed, DataKind, void* input) const override {
        const KnapsackShape k = knapsack_shape(s);
        const std::vector<std::int32_t> in = random_knapsack(k.items, k.capacity, seed).input();
        if (!in.empty()) std::memcpy(input, in.data(), in.size() * sizeof(std::int32_t));
    }
    std::shared_ptr<const Answer> answer(DType, Shape s, const void* input, const Variant&) const override {
        const KnapsackShape k = knapsack_shape(s);
        const auto* in = static_cast<const std::int32_t*>(input);
        const std::vector<std::int32_t> weights(in, in + k.items), values(in + k.items, in + 2 * k.items);
        const auto t0 = std::chrono::steady_clock::now();
        auto a = std::make_shared<ExactAnswer<std::int32_t>>();
        a->expected = cpu_knapsack(weights, values, k.capacity);
        a->shape = output_shape(s);
        a->cpu_ms = ms_since(t0);
        return a;
    }
    CheckReport check(DType, const Answer& a, const void* output) const override {
        return compare_exact(static_cast<const ExactAnswer<std::int32_t>&>(a), output);
    }
    // The table V: each cell read twice (V[j-1][c], V[j-1][c - w_j]) and written once.
    Traffic traffic(DType, Shape s) const override {
        const double cells = double(knapsack_shape(s).items) * double(s.cols);
        return {12.0 * cells, 3.0 * cells / 32};
    }
    CostModel cost(const Variant& v, Shape s, double, DType) const override {
        return knapsack_model(knapsack_shape(s), v.barrier == Barrier::kernel_launch);
    }
    std::string instance_args(const Options&, DType, Shape s) const override {
        const KnapsackShape k = knapsack_shape(s);
        return " --problem knapsack --items " + std::to_string(k.items) + " --capacity " + std::to_string(k.capacity);
    }
    double answer_bytes(DType, Shape s, bool) const override { return 4.0 * double(s.cols) + input_bytes({}, s); }
    std::string summary(const std::vector<Measurement>& runs) const override {
        return speedup_summary("knapsack: SKSS vs Parallel-Forward", runs, knapsack_size_text, knapsack_paper_ratio);
    }
};

// Scratch of the lab file's variants, for the memory check before a run: halftone the strips'
// last-row errors, the rows' last three errors and the counters; knapsack the table V.
std::size_t halftone_scratch(DType, Shape s) {
    const std::size_t strips = std::size_t(ceil_div(s.rows, 32));
    return sizeof(float) * strips * (std::size_t(s.cols) + 3 * 32) + sizeof(unsigned) * (strips + 1);
}
std::size_t knapsack_scratch(DType, Shape s) {
    return sizeof(std::int32_t) * std::size_t(knapsack_shape(s).items) * std::size_t(s.cols) +
           sizeof(unsigned) * (std::size_t(ceil_div(s.cols, 32)) + 1);
}

}  // namespace

const Problem& halftone_problem() {
    static const HalftoneProblem problem;
    return problem;
}
const Problem& knapsack_problem() {
    static const KnapsackProblem problem;
    return problem;
}

Variant task_variant(const Problem& problem, const std::string& name, const std::string& summary, ErasedSatFn fn,
                     bool multi_launch) {
    Variant v{problem.name() + "/" + name, "task array", summary, {fn, fn, fn, fn}};
    v.barrier = multi_launch ? Barrier::kernel_launch : Barrier::none;
    v.scratch_bytes = &problem == &knapsack_problem() ? knapsack_scratch : halftone_scratch;
    v.problem = &problem;
    return v;
}

}  // namespace sat::tasks
