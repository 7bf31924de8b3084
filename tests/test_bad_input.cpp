// test_bad_input.cpp — issue 21: bad input gets one line and exit 2 before any work; rows are
// flushed; a run that did not pass shows no speed; an untouched skeleton prints one line per variant.
#include <algorithm>
#include <cstdio>
#include <sstream>

#include "test_util.h"

namespace {
std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}
}  // namespace

TEST_CASE("every bad input of issue 21 gets its exit code, line count and message", "[cpu][input][repo]") {
    // tests/bad_input.py runs each case against ./lab1-ref and the scripts and prints the table.
    std::string out;
    const int status = sat_test::run_command("${PYTHON:-python3} tests/bad_input.py", &out);
    INFO(out);
    CHECK(status == 0);
    CHECK(out.find("| NO |") == std::string::npos);
}

TEST_CASE("a row that did not pass shows no speed; the table fits 120 columns", "[cpu][input]") {
    sat::Measurement m;
    m.variant = "1R1W";
    m.type = sat::DType::f32;
    m.shape = {4096, 4096};
    m.reps = 20;
    m.median_ms = 0.00016, m.min_ms = 0.00015, m.max_ms = 0.00017;
    m.gbps = 419430.4, m.pct_copy = 318630;
    m.check.pass = false;
    m.check.checked = m.check.wrong = 16;
    sat::Options opt;
    const std::string failed = sat::table_row(m, opt);
    INFO(failed);
    CHECK(failed.find("FAIL") != std::string::npos);
    CHECK(failed.find("419430") == std::string::npos);
    CHECK(failed.find("318630") == std::string::npos);
    CHECK(failed.find("0.000") == std::string::npos);
    // The same row passing shows its speed, in the header's columns, within 120 columns.
    m.check.pass = true;
    m.median_ms = 12345.678, m.min_ms = 12000, m.max_ms = 99999.5, m.gbps = 10.9, m.pct_copy = 8.3;
    const std::string header = sat::table_header(opt), passed = sat::table_row(m, opt);
    INFO(header << "\n" << passed);
    CHECK(passed.find("12346") != std::string::npos);
    CHECK(header.size() <= 120);
    CHECK(passed.size() <= 120);
    CHECK(header.find("check") == passed.find("PASS"));
    CHECK(header.rfind("% copy") + 6 == passed.find("8.3") + 3);  // right-aligned under its title
    opt.wide = true;
    CHECK(sat::table_header(opt).find("HMM cost") != std::string::npos);
}

TEST_CASE("the reproduce line of a failed run keeps --input", "[cpu][input]") {
    sat::Options opt;
    opt.input = "my photo.png";
    const std::string line = sat::reproduce_run("./lab1-ref", opt, {30, 40}, sat::DType::f64, "4R1W(CPU)", 7);
    CHECK(line == "./lab1-ref --input 'my photo.png' --type f64 --variant '4R1W(CPU)' --seed 7");
    opt.input.clear();
    CHECK(sat::reproduce_run("build/peers", opt, {3, 5}, sat::DType::f32, "CUB", 1) ==
          "build/peers --rows 3 --cols 5 --type f32 --variant CUB --seed 1");
}

TEST_CASE("./lab1-ref: title says 'on the CPU' once; rows fit 120 columns; --list is JSON", "[cpu][input][repo]") {
    std::string out;
    REQUIRE(sat_test::run_command("./lab1-ref --sizes 97x89,1x1 --reps 1", &out) == 0);
    const auto lines = lines_of(out);
    INFO(out);
    REQUIRE(lines.size() == 9);  // title, header, 6 rows, reproduce
    std::size_t at = lines[0].find("on the CPU");
    CHECK(at != std::string::npos);
    CHECK(lines[0].find("on the CPU", at + 1) == std::string::npos);
    for (std::size_t i = 1; i + 1 < lines.size(); ++i) {
        CHECK(lines[i].size() <= 120);
        if (i > 1) CHECK(lines[i].find("PASS") == lines[1].find("check"));
    }
    REQUIRE(sat_test::run_command("./lab1-ref --list", &out) == 0);
    CHECK(out.rfind("{\"lab\": 1, \"gpu\": false", 0) == 0);
    for (const sat::Variant& v : sat::find_lab(1)->variants)
        CHECK(out.find("{\"name\": \"" + v.name + "\"") != std::string::npos);
}

TEST_CASE("make help lists the targets in words, not Makefile lines", "[cpu][input]") {
    std::string out;
    REQUIRE(sat_test::run_command("make -s help", &out) == 0);
    INFO(out);
    CHECK(out.find("make labN") != std::string::npos);
    CHECK(out.find("make results") != std::string::npos);
    for (const std::string& line : lines_of(out)) CHECK(line.rfind("#", 0) != 0);
}

TEST_CASE("an untouched skeleton prints one line per variant that says what to do", "[cpu][input][skeleton]") {
    // labs/ holds the skeletons in the repository ([skeleton] tests are left out of a release).
    std::string out;
    REQUIRE(sat_test::run_command("make -s lab1 >/dev/null && ./lab1 --size 64", &out) == 1);
    const auto lines = lines_of(out);
    INFO(out);
    const std::size_t variants = sat::find_lab(1)->variants.size();
    REQUIRE(lines.size() == variants + 3);  // title, header, one line per variant, reproduce
    for (std::size_t i = 2; i < 2 + variants; ++i) {
        CHECK(lines[i].find(" FAIL not implemented yet: fill in the TODOs of labs/lab1_cpu.cpp (docs/lab1.md)") !=
              std::string::npos);
        CHECK(lines[i].size() <= 120);
    }
}

TEST_CASE("the release's README has no instructors' section; its make release/skeletons say why", "[cpu][input][repo]") {
    std::string out;
    REQUIRE(sat_test::run_command("rm -rf build/test_release_readme && "
                                  "${PYTHON:-python3} tools/release.py build/test_release_readme", &out) == 0);
    std::string readme;
    REQUIRE(sat_test::run_command("cat build/test_release_readme/README.md", &readme) == 0);
    CHECK(readme.find("## For instructors") == std::string::npos);
    CHECK(readme.find("instructor.md") == std::string::npos);
    CHECK(readme.find("make lab1 && ./lab1") != std::string::npos);
    for (const char* target : {"release", "skeletons"}) {
        const int rc = sat_test::run_command(std::string("make -s -C build/test_release_readme ") + target, &out);
        INFO(out);
        CHECK(rc == 2);
        CHECK(out.find(std::string(target) + ": this is the student copy") != std::string::npos);
        CHECK(out.find("Traceback") == std::string::npos);
    }
    sat_test::run_command("rm -rf build/test_release_readme", &out);
}
