// test_plots.cpp — `make plots` on the committed sample CSV writes the five figures; the CSV readers
// take files with and without the batch column (no GPU).
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

#include "test_util.h"

namespace {

// True when `path` exists, is not tiny and starts with the PNG signature.
bool is_png(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) return false;
    unsigned char sig[8] = {};
    f.read(reinterpret_cast<char*>(sig), 8);
    const unsigned char png[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    if (!f || !std::equal(sig, sig + 8, png)) return false;
    f.seekg(0, std::ios::end);
    return f.tellg() > 2000;  // a real figure, not an empty canvas
}

}  // namespace

TEST_CASE("make plots turns plots/sample_bench.csv into the five figures", "[cpu][plots]") {
    REQUIRE(std::ifstream("plots/sample_bench.csv").good());
    const std::string out_dir = "build/test_plots";
    for (const char* name : {"a_time_vs_size.png", "b_pct_copy_vs_size.png", "c_r_sweep.png",
                             "d_hmm_predicted_vs_measured.png", "e_speedup_vs_cpu.png"})
        std::remove((out_dir + "/" + name).c_str());
    // The command `make plots` runs, into a folder of its own.
    std::string output;
    const int status = sat_test::run_command(
        "${PYTHON:-python3} plots/make_plots.py plots/sample_bench.csv " + out_dir, &output);
    INFO(output);
    INFO("exit status 3 means numpy/matplotlib are missing: run make deps");
    REQUIRE(status == 0);
    for (const char* name : {"a_time_vs_size.png", "b_pct_copy_vs_size.png", "c_r_sweep.png",
                             "d_hmm_predicted_vs_measured.png", "e_speedup_vs_cpu.png"}) {
        INFO(name);
        CHECK(is_png(out_dir + "/" + name));
    }
}

TEST_CASE("make_plots refuses a missing CSV with a clear line", "[cpu][plots]") {
    std::string output;
    const int status = sat_test::run_command("${PYTHON:-python3} plots/make_plots.py build/no_such_bench.csv build/test_plots", &output);
    INFO(output);
    CHECK(status == 2);
    CHECK(output.find("not found") != std::string::npos);
}

TEST_CASE("the CSV readers take rows with and without the batch column alike", "[cpu][plots]") {
    // tests/csv_batch.py: bench.py's summary, library_tables.py, bench_data.py and make_plots.py on
    // plots/sample_bench.csv and on the same rows with a batch column (and batch rows left out).
    const std::string out = sat_test::require_command("${PYTHON:-python3} tests/csv_batch.py");
    sat_test::check_output(out, {"csv_batch: all checks passed"}, {"FAIL"});
}
