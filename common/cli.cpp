// cli.cpp — the command line shared by every lab binary.
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

#include "harness.h"

namespace sat {

std::vector<std::string> split_list(const std::string& text, char sep) {
    std::vector<std::string> parts;
    std::stringstream in(text);
    std::string part;
    while (std::getline(in, part, sep)) parts.push_back(part);
    return parts;
}

long parse_integer(const std::string& option, const std::string& text, long lo, long hi) {
    errno = 0;
    char* end = nullptr;
    const long value = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || errno != 0 || value < lo || value > hi)
        throw UsageError(option + " needs an integer in [" + std::to_string(lo) + ", " +
                         std::to_string(hi) + "], got '" + text + "'");
    return value;
}

Shape parse_shape(const std::string& option, const std::string& text, long max_side) {
    const auto x = text.find('x');
    if (x == std::string::npos) {
        const int side = int(parse_integer(option, text, 1, max_side));
        return {side, side};
    }
    const int cols = int(parse_integer(option, text.substr(0, x), 1, max_side));
    const int rows = int(parse_integer(option, text.substr(x + 1), 1, max_side));
    return {rows, cols};
}

FILE* open_csv(const std::string& path) {
    std::ifstream probe(path);
    const bool fresh = !probe.good() || probe.peek() == std::ifstream::traits_type::eof();
    FILE* csv = std::fopen(path.c_str(), "a");
    if (csv && fresh) std::fprintf(csv, "%s\n", csv_header().c_str());
    return csv;
}

DType parse_dtype(const std::string& text) {
    for (DType t : {DType::f32, DType::f64, DType::i32, DType::u8i32})
        if (text == dtype_name(t)) return t;
    throw UsageError("unknown --type '" + text + "' (use f32, f64, i32 or u8i32)");
}

std::string usage(const LabInfo& lab) {
    std::ostringstream out;
    out << "lab" << lab.number << " - " << lab.title << " (" << lab.source << ")\n\n"
        << "usage: ./lab" << lab.number << " [options]\n"
        << "  --size N            one N x N matrix (default: the lab's table of sizes)\n"
        << "  --rows H --cols W   one H x W matrix\n"
        << "  --sizes a,b,WxH     several sizes (N for N x N, WxH for W columns by H rows)\n"
        << "  --type T[,T]        f32 (default), f64, i32, u8i32 (8-bit in, 32-bit SAT out)\n"
        << "  --variant V[,V]     run only these variants (default: all)\n"
        << "  --reps N            timed repetitions after the check (default "
        << (lab.gpu ? 20 : 5) << ")\n"
        << "  --seed S            input seed (default: fresh, printed)\n"
        << "  --data exact|real   exact: small non-zero integers, checked bit for bit (default);\n"
        << "                      real: f32 uniform in [0, 1), checked against a rounding bound\n"
        << "  --csv FILE          append one CSV row per measurement\n"
        << "  --input FILE        .npy, .pgm or .png input instead of random data\n"
        << "  --output FILE       write the SAT (.npy) or, with --box, the filtered image (.png/.pgm)\n"
        << "  --box R             box filter of radius R computed from the SAT (needs --output)\n"
        << "  --trace FILE.png    picture of when each 32x32 tile finished (labs 5, 6, 8 and 9)\n"
        << "  --r X               (1+r)R1W split, 0 <= X <= 1 (lab 6)\n"
        << "  --sweep             try every r and report the best per size (lab 6)\n"
        << "  --threads N         CPU threads for the multi-threaded CPU SAT (lab 1)\n"
        << "  --model             print the HMM cost formulas only (needs no GPU)\n"
        << "  --help              this text\n\n"
        << "variants:\n";
    for (const Variant& v : lab.variants)
        out << "  " << v.name << std::string(v.name.size() < 18 ? 18 - v.name.size() : 1, ' ')
            << v.summary << "\n";
    return out.str();
}

// A seed for a run without --seed: fresh each time, printed so the run can be repeated.
std::uint64_t fresh_seed() { return (std::uint64_t(std::random_device{}()) << 32) ^ std::random_device{}(); }

// Quote an argument for a POSIX shell when it holds anything but plain characters, so that a
// printed command such as --variant '(1+r)R1W' can be pasted as it is.
std::string shell_word(const std::string& arg) {
    if (!arg.empty() && arg.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                              "0123456789_./,=:+-") == std::string::npos)
        return arg;
    std::string quoted = "'";
    for (char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

std::string reproduce_line(const std::string& prog, int argc, const char* const* argv, std::uint64_t seed) {
    std::string line = "./" + prog;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--seed") {
            ++i;
            continue;
        }
        line += " " + shell_word(arg);
    }
    return line + " --seed " + std::to_string(seed);
}

std::uint64_t parse_seed(const std::string& text) {
    errno = 0;
    char* end = nullptr;
    const std::uint64_t seed = std::strtoull(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || errno != 0 || text[0] == '-')
        throw UsageError("--seed needs a non-negative integer, got '" + text + "'");
    return seed;
}

Options parse_cli(int argc, const char* const* argv, const LabInfo& lab) {
    Options opt;
    bool have_rows = false, have_cols = false;
    Shape rc{1, 1};
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw UsageError(arg + " needs a value (see --help)");
            return argv[++i];
        };
        if (arg == "--help" || arg == "-h") {
            opt.help = true;
        } else if (arg == "--size") {
            opt.shapes.push_back(parse_shape(arg, value()));
        } else if (arg == "--sizes") {
            for (const std::string& s : split_list(value(), ',')) opt.shapes.push_back(parse_shape(arg, s));
            if (opt.shapes.empty()) throw UsageError("--sizes needs a list such as 1024,4096");
        } else if (arg == "--rows") {
            rc.rows = int(parse_integer(arg, value(), 1, 2147483647L));
            have_rows = true;
        } else if (arg == "--cols") {
            rc.cols = int(parse_integer(arg, value(), 1, 2147483647L));
            have_cols = true;
        } else if (arg == "--type") {
            for (const std::string& t : split_list(value(), ',')) opt.types.push_back(parse_dtype(t));
        } else if (arg == "--variant") {
            for (const std::string& name : split_list(value(), ',')) {
                bool known = false;
                for (const Variant& v : lab.variants) known |= v.name == name;
                if (!known) {
                    std::string names;
                    for (const Variant& v : lab.variants) names += (names.empty() ? "" : ", ") + v.name;
                    throw UsageError("unknown --variant '" + name + "' (lab " +
                                     std::to_string(lab.number) + " has: " + names + ")");
                }
                opt.variants.push_back(name);
            }
        } else if (arg == "--reps") {
            opt.reps = int(parse_integer(arg, value(), 0, 100000));
        } else if (arg == "--seed") {
            opt.seed = parse_seed(value());
            opt.seed_given = true;
        } else if (arg == "--data") {
            const std::string kind = value();
            if (kind != "exact" && kind != "real") throw UsageError("--data needs exact or real, got '" + kind + "'");
            opt.data = kind == "real" ? DataKind::real : DataKind::exact;
        } else if (arg == "--csv") {
            opt.csv = value();
        } else if (arg == "--input") {
            opt.input = value();
        } else if (arg == "--output") {
            opt.output = value();
        } else if (arg == "--trace") {
            opt.trace = value();
        } else if (arg == "--box") {
            opt.box = int(parse_integer(arg, value(), 0, 100000));
        } else if (arg == "--r") {
            const std::string text = value();
            char* end = nullptr;
            opt.r = std::strtod(text.c_str(), &end);
            if (text.empty() || *end != '\0' || !(opt.r >= 0 && opt.r <= 1))
                throw UsageError("--r needs a number in [0, 1], got '" + text + "'");
        } else if (arg == "--sweep") {
            opt.sweep = true;
        } else if (arg == "--threads") {
            opt.threads = int(parse_integer(arg, value(), 1, 4096));
        } else if (arg == "--model") {
            opt.model = true;
        } else {
            throw UsageError("unknown option '" + arg + "' (see --help)");
        }
    }
    if (have_rows != have_cols) throw UsageError("--rows and --cols go together");
    if (have_rows) opt.shapes.push_back(rc);
    if (opt.box >= 0 && opt.output.empty()) throw UsageError("--box needs --output FILE.png");
    if (!opt.input.empty() && !opt.shapes.empty())
        throw UsageError("--input sets the size; drop --size/--rows/--cols/--sizes");
    if (opt.sweep && !lab.sweep) throw UsageError("--sweep: lab " + std::to_string(lab.number) + " has no parameter to sweep");
    if (opt.r >= 0 && !lab.sweep) throw UsageError("--r: lab " + std::to_string(lab.number) + " has no r parameter");
    return opt;
}

}  // namespace sat
