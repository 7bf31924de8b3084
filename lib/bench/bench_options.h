// bench_options.h — the command line the library's host-code benchmarks share (bench_batch.cpp,
// bench_ab.cpp), parsed by CLI11. Not for .cu files: nvcc's device pass warns on CLI11's headers.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

// The command line of bench_batch and bench_ab: --reps N (1..1000), --quick, --csv FILE, and
// --seed S for a program that draws random inputs (`seed` not null; it keeps its value when the
// option is not given), and --set NAME for a program with named sets of cases (`sets` not null:
// its names; `set` keeps its value when the option is not given). --help prints the usage line
// and exits 0; a bad command line is one line on stderr and false (the program exits 2).
struct BenchOptions {
    int reps = 20;
    bool quick = false;
    std::string csv_path;
};
inline bool parse_bench_options(int argc, char** argv, const char* program, BenchOptions& o,
                                std::uint64_t* seed = nullptr, std::string* set = nullptr,
                                const std::vector<std::string>* sets = nullptr) {
    CLI::App app;
    app.add_option("--reps", o.reps)->check(CLI::Range(1, 1000));
    app.add_flag("--quick", o.quick);
    app.add_option("--csv", o.csv_path);
    if (seed != nullptr) app.add_option("--seed", *seed);
    std::string set_usage;
    if (set != nullptr && sets != nullptr) {
        app.add_option("--set", *set)->check(CLI::IsMember(*sets));
        for (const std::string& name : *sets) set_usage += (set_usage.empty() ? " [--set " : "|") + name;
        set_usage += "]";
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
        std::printf("usage: %s [--reps N (1..1000)] [--quick]%s%s [--csv FILE]\n", program, seed ? " [--seed S]" : "",
                    set_usage.c_str());
        std::exit(0);
    } catch (const CLI::ParseError& e) {
        std::fprintf(stderr, "%s: %s\n", program, e.what());
        return false;
    }
    return true;
}
