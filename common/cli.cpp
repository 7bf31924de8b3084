// cli.cpp — the command line shared by every lab binary.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <functional>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

#include <sys/stat.h>

#include <CLI/CLI.hpp>

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
    // ROWSxCOLS: a bad side is named with the whole value ('3x' would otherwise read as '').
    try {
        const int rows = int(parse_integer(option, text.substr(0, x), 1, max_side));
        const int cols = int(parse_integer(option, text.substr(x + 1), 1, max_side));
        return {rows, cols};
    } catch (const UsageError&) {
        throw UsageError(option + " needs an integer in [1, " + std::to_string(max_side) +
                         "] on each side of the x, got '" + text + "'");
    }
}

FILE* open_csv(const std::string& path, std::string* why) {
    auto fail = [&](const std::string& text) -> FILE* {
        if (why) *why = path + ": " + text;
        return nullptr;
    };
    // An existing regular file must hold our header: rows of two formats in one file mislead.
    struct stat st {};
    bool fresh = true;
    if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
        std::ifstream probe(path);
        std::string first;
        std::getline(probe, first);
        if (first == csv_header_without_batch())  // rows of two widths in one file mislead too
            return fail("holds the CSV header of an older harness (no batch column); name a new file");
        if (first != csv_header())
            return fail("holds another CSV header; append to a file made by this harness, or name a new one");
        fresh = false;
    }
    FILE* csv = std::fopen(path.c_str(), "a");
    if (!csv) return fail(std::string("cannot write (") + std::strerror(errno) + ")");
    if (fresh && (std::fprintf(csv, "%s\n", csv_header().c_str()) < 0 || std::fflush(csv) != 0)) {
        const std::string text = std::string("cannot write (") + std::strerror(errno) + ")";
        std::fclose(csv);
        return fail(text);
    }
    return csv;
}

void write_csv_line(FILE* csv, const std::string& path, const std::string& line) {
    if (std::fprintf(csv, "%s\n", line.c_str()) < 0 || std::fflush(csv) != 0)
        throw Error(path + ": write failed (" + std::strerror(errno) + ")");
}

void close_csv(FILE* csv, const std::string& path) {
    if (std::fclose(csv) != 0) throw Error(path + ": close failed (" + std::strerror(errno) + ")");
}

DType parse_dtype(const std::string& text) {
    for (DType t : {DType::f32, DType::f64, DType::i32, DType::u8i32})
        if (text == dtype_name(t)) return t;
    throw UsageError("unknown --type '" + text + "' (use f32, f64, i32 or u8i32)");
}

// The lab binaries' options, one line each: flag, value name, help, and what it sets. usage()
// prints this table and parse_cli() hands it to CLI11, so a new option is one line here.
struct OptionSpec {
    const char* flag;   // "--size"
    const char* value;  // "N"; nullptr for a flag that takes no value
    std::string help;
    std::function<void(const std::string&)> apply;
};

namespace {

struct ParseState {
    bool have_rows = false, have_cols = false;
    Shape rc{1, 1};
};

std::string lab_name(const LabInfo& lab) { return "lab " + lab_id(lab); }

bool has_problem(const LabInfo& lab, const std::string& name) {
    for (const Problem* p : lab_problems(lab))
        if (p->name() == name) return true;
    return false;
}

std::vector<OptionSpec> option_table(Options& opt, ParseState& st, const LabInfo& lab) {
    // The handlers outlive this function: they capture opt, st and lab (the caller's) by reference,
    // and nothing of this frame.
    const std::string lab_text = lab_name(lab);
    std::vector<OptionSpec> table = {
        {"--size", "N", "one N x N matrix, or RxC: R rows by C columns (default: the lab's table)",
         [&](const std::string& v) { opt.shapes.push_back(parse_shape("--size", v)); }},
        {"--rows", "R", "with --cols: one R x C matrix",
         [&](const std::string& v) { st.rc.rows = int(parse_integer("--rows", v, 1, 2147483647L)), st.have_rows = true; }},
        {"--cols", "C", "with --rows: one R x C matrix",
         [&](const std::string& v) { st.rc.cols = int(parse_integer("--cols", v, 1, 2147483647L)), st.have_cols = true; }},
        {"--sizes", "a,b,RxC", "several sizes (N for N x N, RxC for R rows by C columns)",
         [&](const std::string& v) {
             const auto parts = split_list(v, ',');
             if (parts.empty()) throw UsageError("--sizes needs a list such as 1024,4096");
             for (const std::string& s : parts) opt.shapes.push_back(parse_shape("--sizes", s));
         }},
        {"--type", "T[,T]", "f32 (default), f64, i32, u8i32 (8-bit in, 32-bit SAT out)",
         [&](const std::string& v) { for (const std::string& t : split_list(v, ',')) opt.types.push_back(parse_dtype(t)); }},
        {"--variant", "V[,V]", "run only these variants (default: all)",
         [&, lab_text](const std::string& v) {
             for (const std::string& name : split_list(v, ',')) {
                 bool known = false;
                 for (const Variant& x : lab.variants) known |= variant_matches(x, name);
                 if (!known) {
                     std::string names;
                     for (const Variant& x : lab.variants) names += (names.empty() ? "" : ", ") + x.name;
                     throw UsageError("unknown --variant '" + name + "' (" + lab_text + " has: " + names + ")");
                 }
                 opt.variants.push_back(name);
             }
         }},
        {"--reps", "N", std::string("timed repetitions after the check (default ") + (lab.gpu ? "20" : "5") + ")",
         [&](const std::string& v) { opt.reps = int(parse_integer("--reps", v, 0, 100000)); }},
        {"--batch", "B",
         lab.batches() ? "B images of each size back to back, in one run (default 1; image b from seed + b)"
                       : "B images in one run: lab 9 and the library only (default 1)",
         [&](const std::string& v) { opt.batch = int(parse_integer("--batch", v, 1, 65535)); }},
        {"--seed", "S", "input seed (default: fresh, printed)",
         [&](const std::string& v) { opt.seed = parse_seed(v), opt.seed_given = true; }},
        {"--data", "exact|real", "exact: small non-zero integers, checked bit for bit (default); real: f32 in [0, 1), checked against a rounding bound",
         [&](const std::string& v) {
             if (v != "exact" && v != "real") throw UsageError("--data needs exact or real, got '" + v + "'");
             opt.data = v == "real" ? DataKind::real : DataKind::exact;
         }},
        {"--csv", "FILE", "append one CSV row per measurement (same header, or a new file)",
         [&](const std::string& v) {
             if (v.empty()) throw UsageError("--csv needs a file name");
             opt.csv = v;
         }},
        {"--input", "FILE", ".npy, .pgm or .png input instead of random data",
         [&](const std::string& v) {
             if (v.empty()) throw UsageError("--input needs a file name");
             opt.input = v;
         }},
        {"--output", "FILE", "write the SAT as .npy, or as a picture (.png/.pgm); with --box the filtered image",
         [&](const std::string& v) {
             if (output_format(v) == OutputFormat::unknown)
                 throw UsageError("--output '" + v + "': unknown format (use a name ending in .npy, .png or .pgm)");
             opt.output = v;
         }},
        {"--box", "R", "box filter of radius R computed from the SAT (needs --output FILE.png or .pgm)",
         [&](const std::string& v) { opt.box = int(parse_integer("--box", v, 0, 100000)); }},
        {"--trace", "FILE.png", "picture of when each 32x32 tile finished (labs 5, 6, 8 and 9)",
         [&, lab_text](const std::string& v) {
             if (!lab_has_trace(lab)) throw UsageError("--trace: " + lab_text + " records no tile trace (labs 5, 6, 8 and 9 do)");
             if (output_format(v) != OutputFormat::png) throw UsageError("--trace needs a .png file name, got '" + v + "'");
             opt.trace = v;
         }},
        {"--r", "X", "(1+r)R1W split, 0 <= X <= 1 (lab 6)",
         [&](const std::string& v) {
             char* end = nullptr;
             opt.r = std::strtod(v.c_str(), &end);
             if (v.empty() || *end != '\0' || !(opt.r >= 0 && opt.r <= 1))
                 throw UsageError("--r needs a number in [0, 1], got '" + v + "'");
         }},
        {"--sweep", nullptr, "try every r and report the best per size (lab 6)", [&](const std::string&) { opt.sweep = true; }},
        {"--threads", "N", "CPU threads for the multi-threaded CPU SAT (lab 1)",
         [&](const std::string& v) { opt.threads = int(parse_integer("--threads", v, 1, 4096)); }},
        {"--model", nullptr, "print the HMM cost formulas only (needs no GPU)", [&](const std::string&) { opt.model = true; }},
        {"--wide", nullptr, "add the HMM cost columns to the table (wider than 120 columns)",
         [&](const std::string&) { opt.wide = true; }},
        {"--list", nullptr, "print the lab's variants as JSON and exit (for tools)", [&](const std::string&) { opt.list = true; }},
        {"-h,--help", nullptr, "this text", [&](const std::string&) { opt.help = true; }},
    };
    // A lab without the SAT (lab 8x) has none of its options, and its problems fix their types.
    if (!has_problem(lab, sat_problem().name())) {
        const std::vector<std::string> sat_only = {"--data", "--box", "--trace", "--r", "--sweep", "--threads"};
        table.erase(std::remove_if(table.begin(), table.end(),
                                   [&](const OptionSpec& o) {
                                       return std::find(sat_only.begin(), sat_only.end(), o.flag) != sat_only.end();
                                   }),
                    table.end());
        for (OptionSpec& o : table) {
            const std::string flag = o.flag;
            if (flag == "--type") o.help = "accepted for the harness's tools and ignored (the problems fix their types)";
            if (flag == "--size") o.help = "one N x N image, or RxC: R rows by C columns (default: the lab's table)";
            if (flag == "--input") o.help = ".npy, .pgm or .png 8-bit image instead of random pixels";
            if (flag == "--output") o.help = "write the output of the one image (.png, .pgm or .npy)";
            if (flag == "--model") o.help = "print the cost formulas and task arrays only (needs no GPU)";
        }
    }
    // Options of a lab with several problems (lab 8x) or row strips (lab 10), before --help.
    std::vector<OptionSpec> own;
    const std::vector<const Problem*> problems = lab_problems(lab);
    if (problems.size() > 1) {
        std::string names;
        for (const Problem* p : problems) names += (names.empty() ? "" : ", ") + p->name();
        own.push_back({"--problem", "P", names + " or all (default: all)", [&, names](const std::string& v) {
                           bool known = v == "all";
                           for (const Problem* p : lab_problems(lab)) known |= p->name() == v;
                           if (!known) throw UsageError("unknown --problem '" + v + "' (use " + names + " or all)");
                           opt.problem = v == "all" ? "" : v;
                       }});
    }
    if (has_problem(lab, "knapsack")) {
        constexpr long max_items = 500000;  // 4095 * n stays below the int32 poison value
        constexpr long max_capacity = 1L << 28;
        own.push_back({"--items", "N", "knapsack: n items (default 4095: n + 1 = 4096, as in the paper)",
                       [&](const std::string& v) { opt.items = int(parse_integer("--items", v, 0, max_items)); }});
        own.push_back({"--capacity", "W", "knapsack: capacity W (default 16383: W + 1 = 16K)", [&](const std::string& v) {
                           opt.capacities.push_back(int(parse_integer("--capacity", v, 0, max_capacity)));
                       }});
        own.push_back({"--capacities", "a,b", "knapsack: several capacities", [&](const std::string& v) {
                           const auto parts = split_list(v, ',');
                           if (parts.empty()) throw UsageError("--capacities needs a list such as 16383,32767");
                           for (const std::string& c : parts)
                               opt.capacities.push_back(int(parse_integer("--capacities", c, 0, max_capacity)));
                       }});
    }
    if (lab.row_strips) {
        own.push_back({"--gpus", "G", "G GPUs, one row strip each, exchanged through NCCL (default 1)",
                       [&](const std::string& v) { opt.gpus = int(parse_integer("--gpus", v, 1, 1024)); }});
        own.push_back({"--strips", "G",
                       "G row strips on one GPU, exchanged by device-local copies (default 4); the table's "
                       "variant names end in /S<G> (G strips on one GPU) or /G<G> (G GPUs); one strip: no ending",
                       [&](const std::string& v) { opt.strips = int(parse_integer("--strips", v, 1, 1024)); }});
        own.push_back({"--slice-rows", "R", "rows per slice of the check against the CPU reference (default: 256 MiB)",
                       [&](const std::string& v) { opt.slice_rows = int(parse_integer("--slice-rows", v, 1, 2147483647L)); }});
    }
    table.insert(table.end() - 1, own.begin(), own.end());
    return table;
}

}  // namespace

bool lab_has_trace(const LabInfo& lab) {
    for (int n : {5, 6, 8, 9})
        if (lab.number == n) return true;
    return false;
}

OutputFormat output_format(const std::string& path) {
    std::string lower;
    for (char c : path) lower += char(std::tolower(static_cast<unsigned char>(c)));
    auto ends = [&](const char* suffix) {
        const std::size_t k = std::strlen(suffix);
        return lower.size() > k && lower.compare(lower.size() - k, k, suffix) == 0;
    };
    if (ends(".npy")) return OutputFormat::npy;
    if (ends(".png")) return OutputFormat::png;
    if (ends(".pgm")) return OutputFormat::pgm;
    return OutputFormat::unknown;
}

std::string usage(const LabInfo& lab) {
    Options opt;
    ParseState st;
    std::ostringstream out;
    out << "lab" << lab_id(lab) << " - " << lab.title << " (" << lab.source << ")\n\n"
        << "usage: ./lab" << lab_id(lab) << " [options]     (./lab" << lab_id(lab)
        << "-ref: the same with the reference solution)\n";
    for (const OptionSpec& o : option_table(opt, st, lab)) {
        std::string flag = o.flag;
        if (flag == "-h,--help") flag = "--help, -h";
        std::string left = "  " + flag + (o.value ? std::string(" ") + o.value : "");
        left.resize(std::max<std::size_t>(left.size() + 1, 22), ' ');
        out << left << o.help << "\n";
    }
    out << "\nShapes are rows x cols everywhere: --size 1080x1920 is 1080 rows of 1920 columns.\n"
        << "Exit codes: 0 every run passed; 1 a check failed or a run errored; 2 bad usage, unreadable\n"
        << "input, no GPU, or not enough memory (said in one line before any work).\n\n"
        << "variants:\n";
    std::size_t width = 18;  // the names, then their summaries in one column
    for (const Variant& v : lab.variants)
        if (v.name.size() > 18) width = std::max(width, v.name.size() + 2);
    for (const Variant& v : lab.variants)
        out << "  " << v.name << std::string(v.name.size() < width ? width - v.name.size() : 1, ' ')
            << v.summary << "\n";
    return out.str();
}

std::string variants_json(const LabInfo& lab) {
    auto quoted = [](const std::string& s) {
        std::string q = "\"";
        for (char c : s) {
            if (c == '"' || c == '\\') q += '\\';
            q += c;
        }
        return q + "\"";
    };
    std::ostringstream out;
    out << "{\"lab\": " << lab.number << ", \"gpu\": " << (lab.gpu ? "true" : "false")
        << ", \"trace\": " << (lab_has_trace(lab) ? "true" : "false") << ", \"variants\": [";
    for (std::size_t i = 0; i < lab.variants.size(); ++i) {
        const Variant& v = lab.variants[i];
        // computes: sat, transpose, or the problem (lab 8x: halftone, knapsack)
        const std::string computes = v.problem ? problem_of(v).name() : v.computes == Computes::transpose ? "transpose" : "sat";
        out << (i ? ", " : "") << "{\"name\": " << quoted(v.name) << ", \"computes\": " << quoted(computes)
            << ", \"summary\": " << quoted(v.summary) << "}";
    }
    out << "]}\n";
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
    std::string line = prog.find('/') == std::string::npos ? "./" + prog : prog;
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

std::string reproduce_run(const std::string& command, const Options& opt, Shape s, DType t,
                          const std::string& variant, std::uint64_t seed, const Problem& problem) {
    std::string line = command + problem.instance_args(opt, t, s) + " --variant " + shell_word(variant);
    if (opt.box >= 0) line += " --box " + std::to_string(opt.box) + " --output " + shell_word(opt.output);
    if (opt.r >= 0) line += " --r " + std::to_string(opt.r);
    if (opt.threads > 0) line += " --threads " + std::to_string(opt.threads);
    if (opt.data == DataKind::real && opt.input.empty()) line += " --data real";
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

namespace {
// The option whose value is missing, for CLI11's ArgumentMismatch.
std::string missing_value_option(int argc, const char* const* argv, const std::vector<OptionSpec>& table) {
    auto find = [&](const std::string& arg) -> const OptionSpec* {
        for (const OptionSpec& o : table)
            if (arg == o.flag) return &o;
        return nullptr;
    };
    for (int i = 1; i < argc; ++i) {
        const OptionSpec* o = find(argv[i]);
        if (o && o->value && (i + 1 >= argc || find(argv[i + 1]))) return o->flag;
    }
    return "an option";
}
}  // namespace

Options parse_cli(int argc, const char* const* argv, const LabInfo& lab) {
    Options opt;
    ParseState st;
    const std::vector<OptionSpec> table = option_table(opt, st, lab);
    CLI::App app;
    app.set_help_flag();  // --help is an ordinary entry of the table
    app.allow_extras(false);
    for (const OptionSpec& o : table) {
        if (o.value) {
            // Every occurrence is applied when it is read, in command-line order.
            app.add_option_function<std::string>(o.flag, o.apply)
                ->trigger_on_parse()
                ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)
                ->allow_extra_args(false);
        } else {
            app.add_flag_callback(o.flag, [&o] { o.apply(""); });
        }
    }
    try {
        std::vector<std::string> args;
        for (int i = argc - 1; i >= 1; --i) args.push_back(argv[i]);  // CLI11 takes them reversed
        app.parse(args);
    } catch (const CLI::ExtrasError&) {
        // The first argument CLI11 did not take: an unknown option or a stray value.
        for (const std::string& extra : app.remaining())
            throw UsageError((extra.rfind("-", 0) == 0 ? "unknown option '" : "unexpected argument '") + extra +
                             "' (see --help)");
        throw UsageError("unexpected arguments (see --help)");
    } catch (const CLI::ArgumentMismatch& e) {
        throw UsageError(missing_value_option(argc, argv, table) + " needs a value (see --help)");
    } catch (const CLI::ParseError& e) {
        throw UsageError(e.what());
    }
    if (st.have_rows != st.have_cols) throw UsageError("--rows and --cols go together");
    if (st.have_rows) opt.shapes.push_back(st.rc);
    if (opt.box >= 0 && opt.output.empty()) throw UsageError("--box needs --output FILE.png");
    if (opt.box >= 0 && output_format(opt.output) == OutputFormat::npy)
        throw UsageError("--box writes a filtered image: --output needs .png or .pgm, got '" + opt.output + "'");
    if (!opt.input.empty() && !opt.shapes.empty())
        throw UsageError("--input sets the size; drop --size/--rows/--cols/--sizes");
    if (opt.sweep && !lab.sweep) throw UsageError("--sweep: " + lab_name(lab) + " has no parameter to sweep");
    if (opt.r >= 0 && !lab.sweep) throw UsageError("--r: " + lab_name(lab) + " has no r parameter");
    if (opt.model && !opt.csv.empty()) throw UsageError("--csv: --model measures nothing, so it writes no rows");
    if (opt.model && !opt.output.empty()) throw UsageError("--output: --model computes no SAT");
    if (opt.batch > 1) {  // a batch: generated images, variants that take batches
        std::string batching;
        for (const Variant& v : lab.variants)
            if (v.batches) batching += (batching.empty() ? "" : ", ") + v.name;
        if (batching.empty())
            throw UsageError("--batch: " + lab_name(lab) + " has no variant that takes a batch of images (lab 9 has)");
        if (!opt.input.empty() || !opt.output.empty() || opt.box >= 0)
            throw UsageError("--batch runs generated images: drop --input, --output and --box");
        if (!opt.trace.empty()) throw UsageError("--batch: --trace pictures one image; drop one of the two");
        for (const std::string& name : opt.variants)
            for (const Variant& v : lab.variants)
                if (variant_matches(v, name) && !v.batches)
                    throw UsageError("--batch: variant '" + v.name + "' takes one image at a time (batches: " + batching + ")");
    }
    // A lab with several problems (lab 8x) takes files only for the problems that read them.
    const std::vector<const Problem*> problems = lab_problems(lab);
    if (!opt.problem.empty() && (!opt.input.empty() || !opt.output.empty()))
        for (const Problem* p : problems)
            if (p->name() == opt.problem && !p->reads_files())
                throw UsageError("--input/--output: the " + p->name() + " takes no file");
    if (!opt.variants.empty() && !opt.problem.empty())
        for (const std::string& name : opt.variants) {
            bool known = false;
            for (const Variant& v : lab.variants) known |= problem_of(v).name() == opt.problem && variant_matches(v, name);
            if (!known) throw UsageError("unknown --variant '" + name + "' for --problem " + opt.problem);
        }
    for (const Variant& v : lab.variants) opt.variant_width = std::max<int>(opt.variant_width, int(v.name.size()));
    return opt;
}

}  // namespace sat
