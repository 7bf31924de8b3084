// sat_problem.cpp — the SAT as a Problem (harness.h): the problem of every lab but 8x.
#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "data.h"
#include "harness.h"
#include "io.h"

namespace sat {

std::vector<unsigned char> box_filter_image(DType t, Shape s, const void* input, const void* sat, int radius);

namespace {

// Sums of u8 data fit in int32 only while n * 255 <= INT32_MAX.
constexpr std::size_t u8_safe_pixels = 2147483647ull / 255;  // 8421504

// The largest |partial sum| of integer input, exactly (int64: exact below 2^32 elements of
// magnitude up to 2^31): the data's own answer to "do int32 sums wrap?".
template <class In>
std::int64_t largest_partial_sum(const In* in, Shape s) {
    long long top = 0;
    for_each_exact_sum(
        s, [&](int i, int j) { return (long long)in[std::size_t(i) * s.cols + j]; },
        [&](int, int, long long sum) { top = std::max(top, sum < 0 ? -sum : sum); });
    return top;
}

struct SatAnswer : Answer {
    Reference ref;
};

struct SatProblem : Problem {
    std::string name() const override { return "SAT"; }
    std::vector<Shape> instances(const Options& opt, const LabInfo& lab) const override {
        return opt.shapes.empty() ? lab.default_shapes : opt.shapes;
    }
    std::vector<DType> types(const Options& opt) const override { return opt.types; }
    std::size_t input_bytes(DType t, Shape s) const override { return s.n() * sat::input_bytes(t); }
    std::size_t output_element_bytes(DType t) const override { return output_bytes(t); }
    double output_value(DType t, const unsigned char* bytes) const override {
        return dispatch(t, [&](auto, auto out_tag) {
            decltype(out_tag) v;
            std::memcpy(&v, bytes, sizeof v);
            return double(v);
        });
    }
    void generate(DType t, Shape s, std::uint64_t seed, DataKind data, void* input) const override {
        generate_input(t, s, seed, input, data);
    }
    std::shared_ptr<const Answer> answer(DType t, Shape s, const void* input, const Variant& v) const override {
        const auto t0 = std::chrono::steady_clock::now();
        auto a = std::make_shared<SatAnswer>();
        a->ref = v.computes == Computes::transpose ? reference_transpose(t, s, input) : reference_sat(t, s, input);
        a->shape = a->ref.shape;
        a->cpu_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        return a;
    }
    CheckReport check(DType t, const Answer& answer, const void* output) const override {
        return compare_output(t, static_cast<const SatAnswer&>(answer).ref, output);
    }
    Traffic traffic(DType t, Shape s) const override {
        return {double(s.n()) * double(sat::input_bytes(t) + output_bytes(t)), 2.0 * double(s.n()) / 32.0};
    }
    CostModel cost(const Variant& v, Shape s, double r, DType t) const override {
        const hmm::Formula& f = hmm::formula(v.cost);
        hmm::Params p = hmm::params_for(s, r);
        p.out_bytes = double(output_bytes(t));
        return {f.symbolic, f.eval(p), f.source};
    }
    std::string instance_args(const Options& opt, DType t, Shape s) const override {
        const std::string where = !opt.input.empty() ? " --input " + shell_word(opt.input)
                                                     : " --rows " + std::to_string(s.rows) + " --cols " + std::to_string(s.cols);
        return where + " --type " + dtype_name(t) + (opt.batch > 1 ? " --batch " + std::to_string(opt.batch) : "");
    }
    // The reference: exact 32-bit sums, or double sums (plus |a| sums when the data may be negative).
    double answer_bytes(DType t, Shape s, bool from_file) const override {
        const bool exact = t == DType::i32 || t == DType::u8i32;
        return double(s.n()) * (exact ? 4 : from_file ? 16 : 8);
    }
    bool reads_files() const override { return true; }
    void write_output(const Options& opt, bool gpu, DType type, Shape s, const void* out_ptr,
                      const void* input) const override {
        const bool image = output_format(opt.output) != OutputFormat::npy;
        if (opt.box >= 0) {
            // The GPU labs filter with the library where it is linked (common/lib_box.cpp); lab 1 from its SAT.
            const auto filtered = gpu && input ? box_filter_image(type, s, input, out_ptr, opt.box)
                                               : box_filter_from_sat(type, s, out_ptr, opt.box);
            write_image(opt.output, s.cols, s.rows, 1, filtered.data());
        } else if (image) {
            // The SAT as a picture: values scaled to 0..255 by the largest one.
            std::vector<unsigned char> px(s.n());
            dispatch(type, [&](auto, auto out_tag) {
                using Out = decltype(out_tag);
                const Out* v = static_cast<const Out*>(out_ptr);
                double top = 1e-30;
                for (std::size_t i = 0; i < s.n(); ++i) top = std::max(top, double(v[i]));
                for (std::size_t i = 0; i < s.n(); ++i)
                    px[i] = static_cast<unsigned char>(std::clamp(std::lround(255.0 * double(v[i]) / top), 0L, 255L));
            });
            write_image(opt.output, s.cols, s.rows, 1, px.data());
        } else {
            write_npy(opt.output, s, npy_output_dtype(type), out_ptr);
        }
    }
    // One warning line when int32 sums of this input wrap; empty when they fit.
    std::string warning(DType t, Shape s, const void* in) const override {
        if (!in) {
            if (t != DType::u8i32 || s.n() <= u8_safe_pixels) return "";
            char buf[320];
            std::snprintf(buf, sizeof buf,
                          "warning: u8i32 %dx%d: sums of 8-bit data can exceed INT32_MAX above %zu pixels; "
                          "they wrap modulo 2^32 and are checked modulo 2^32 (use --type f64 for exact large sums)",
                          s.rows, s.cols, u8_safe_pixels);
            return buf;
        }
        if (t != DType::i32 && t != DType::u8i32) return "";
        const std::int64_t top = t == DType::i32 ? largest_partial_sum(static_cast<const std::int32_t*>(in), s)
                                                 : largest_partial_sum(static_cast<const std::uint8_t*>(in), s);
        if (top <= INT32_MAX) return "";
        return std::string("warning: ") + dtype_name(t) + " " + std::to_string(s.rows) + "x" + std::to_string(s.cols) +
               ": the exact sums reach " + std::to_string(top) + ", beyond INT32_MAX; int32 sums wrap modulo 2^32 and "
               "are checked modulo 2^32 (use --type f64 for exact sums)";
    }
};

}  // namespace

const Problem& sat_problem() {
    static const SatProblem problem;
    return problem;
}

const Problem& problem_of(const Variant& v) { return v.problem ? *v.problem : sat_problem(); }

std::vector<const Problem*> lab_problems(const LabInfo& lab) {
    std::vector<const Problem*> problems;
    for (const Variant& v : lab.variants)
        if (std::find(problems.begin(), problems.end(), &problem_of(v)) == problems.end())
            problems.push_back(&problem_of(v));
    return problems;
}

bool variant_matches(const Variant& v, const std::string& name) {
    if (v.name == name) return true;
    const std::string prefix = problem_of(v).name() + "/";
    return v.problem && v.name.size() == prefix.size() + name.size() && v.name.rfind(prefix, 0) == 0 &&
           v.name.compare(prefix.size(), std::string::npos, name) == 0;
}

std::string lab_id(const LabInfo& lab) {
    return lab.number >= 20 && lab.number % 10 == 0 ? std::to_string(lab.number / 10) + "x" : std::to_string(lab.number);
}

// A problem without files has no output to write (the command line refuses --output for it).
void Problem::write_output(const Options&, bool, DType, Shape, const void*, const void*) const {}

}  // namespace sat
