// lab_main.cpp — the `./labN` program every lab shares: parse, run, print, write.
#include <cmath>
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
    if (npy_dtype == "f8") return DType::f64;
    return DType::f32;
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

void write_output(const Options& opt, bool gpu, DType type, Shape s, const std::vector<unsigned char>& out,
                  const void* input) {
    const bool image = opt.output.size() > 4 && (opt.output.substr(opt.output.size() - 4) == ".png" ||
                                                 opt.output.substr(opt.output.size() - 4) == ".pgm");
    if (opt.box >= 0) {
        // The GPU labs filter with the library where it is linked (common/lib_box.cpp); lab 1 from its SAT.
        const auto filtered = gpu ? box_filter_image(type, s, input, out.data(), opt.box)
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

}  // namespace

int lab_main(int argc, const char* const* argv, const char* lab_id) {
    // Lab "0" is the peers binary (tools/peers.cu), built as build/peers.
    const std::string prog = std::string(lab_id) == "0" ? std::string("build/peers") : std::string("lab") + lab_id;
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
    if (lab->gpu && !gpu_available(&why)) {
        std::fprintf(stderr, "%s: %s; lab 1 (the CPU SAT) and './%s --model' (the HMM cost formulas) still run here\n",
                     prog.c_str(), why.c_str(), prog.c_str());
        return 2;
    }

    // Input: a file, a test card (box filter without --input) or random data per run.
    std::vector<unsigned char> file_input;
    std::vector<DType> types = opt.types;
    if (!opt.input.empty() || opt.box >= 0) {
        HostMatrix matrix;
        try {
            if (!opt.input.empty()) matrix = read_matrix(opt.input);
            else {
                matrix.shape = opt.shapes.empty() ? Shape{768, 1024} : opt.shapes.front();
                matrix.dtype = "u1";
                matrix.bytes = test_card(matrix.shape);
            }
            if (types.empty()) types = {type_for_file(matrix.dtype)};
            types.resize(1);
            file_input = convert_input(matrix, types.front());
        } catch (const std::exception& e) {
            std::fprintf(stderr, "%s: %s\n", prog.c_str(), e.what());
            return 2;
        }
        shapes = {matrix.shape};
        variants.resize(1);
    }
    if (types.empty()) types = {DType::f32};

    std::uint64_t seed = opt.seed;
    if (!opt.seed_given) seed = fresh_seed();
    std::printf("%s - %s (%s) on %s; seed %llu\n", prog.c_str(), lab->title.c_str(), lab->source.c_str(),
                lab->gpu ? device_name().c_str() : "the CPU", (unsigned long long)seed);
    for (Shape s : shapes)
        for (DType t : types)
            if (t == DType::u8i32 && s.n() > u8_safe_pixels)
                std::printf("warning: u8i32 %dx%d: sums of 8-bit data can exceed INT32_MAX above %zu pixels; "
                            "they wrap modulo 2^32 and are checked modulo 2^32 (use --type f64 for exact large sums)\n",
                            s.rows, s.cols, u8_safe_pixels);

    FILE* csv = nullptr;
    if (!opt.csv.empty() && !(csv = open_csv(opt.csv))) {
        std::fprintf(stderr, "%s: cannot write %s\n", prog.c_str(), opt.csv.c_str());
        return 2;
    }

    const int reps = opt.reps >= 0 ? opt.reps : (lab->gpu ? 20 : 5);
    bool all_ok = true, calibration_shown = false;
    print_header(*lab, opt);
    for (Shape s : shapes)
        for (DType t : types) {
            for (const Variant* v : variants) {
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
                    req.reps = reps;
                    req.r = r;
                    req.cpu_threads = opt.threads;
                    req.trace_png = opt.trace;
                    std::vector<unsigned char> out;
                    if (!file_input.empty()) req.input = file_input.data();
                    if (!opt.output.empty()) {
                        out.resize(s.n() * output_bytes(t));
                        req.output = out.data();
                    }
                    runs.push_back(run_variant(req));
                    const Measurement& m = runs.back();
                    print_row(m);
                    if (opt.sweep) std::printf("    r = %.4f\n", r);
                    if (csv) std::fprintf(csv, "%s\n", csv_row(m).c_str());
                    all_ok &= m.ok();
                    if (!m.ok())
                        std::printf("    reproduce: ./%s --rows %d --cols %d --type %s --variant %s --seed %llu\n",
                                    prog.c_str(), s.rows, s.cols, dtype_name(t), shell_word(v->name).c_str(),
                                    (unsigned long long)seed);
                    if (m.ok() && (!best || m.median_ms < best->median_ms)) best = &m;
                    if (!opt.trace.empty() && m.error.empty()) std::printf("wrote %s\n", opt.trace.c_str());
                    if (!opt.output.empty() && m.error.empty()) {
                        try {
                            write_output(opt, lab->gpu, t, s, out, file_input.data());
                        } catch (const std::exception& e) {
                            std::fprintf(stderr, "%s: %s\n", prog.c_str(), e.what());
                            return 2;
                        }
                    }
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
    if (csv) std::fclose(csv);
    std::printf("reproduce: %s\n", reproduce_line(prog, argc, argv, seed).c_str());
    return all_ok ? 0 : 1;
}

}  // namespace sat
