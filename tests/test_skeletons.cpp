// Student skeletons: in sync with solutions/, and they compile, run and fail cleanly.
#include "test_util.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

TEST_CASE("labs/ is in sync with solutions/", "[cpu][skeleton]") {
    sat_test::require_command("python3 tools/gen_skeletons.py --check solutions labs");
}

TEST_CASE("the skeleton generator replaces regions and rejects broken markers", "[cpu][skeleton]") {
    std::string out;
    REQUIRE(sat_test::run_command(
                "mkdir -p build/skel_test/sol && printf 'int f() {\\n    int x = 1;\\n    // BEGIN SOLUTION hint: add one\\n    x += 1;\\n    // END SOLUTION\\n    return x;\\n}\\n' > build/skel_test/sol/lab42_t.cpp && "
                "python3 tools/gen_skeletons.py build/skel_test/sol build/skel_test/labs && cat build/skel_test/labs/lab42_t.cpp",
                &out) == 0);
    INFO(out);
    CHECK(out.find("    // TODO: add one\n") != std::string::npos);
    CHECK(out.find("x += 1") == std::string::npos);
    CHECK(out.find("return x;") != std::string::npos);
    REQUIRE(sat_test::run_command(
                "printf '// BEGIN SOLUTION\\nint y;\\n' > build/skel_test/sol/lab43_t.cpp && "
                "python3 tools/gen_skeletons.py build/skel_test/sol build/skel_test/labs", &out) == 2);
    CHECK(out.find("never closed") != std::string::npos);
    sat_test::run_command("rm -rf build/skel_test");
}

TEST_CASE("the lab 1 skeleton compiles, runs and fails its check with a clear message", "[cpu][skeleton]") {
    std::string out;
    REQUIRE(sat_test::run_command("make -s lab1", &out) == 0);
    const int rc = sat_test::run_command("./lab1 --size 40 --reps 0", &out);
    INFO(out);
    CHECK(rc == 1);  // a failed check, not a crash (-1) or a usage error (2)
    CHECK(out.find("FAIL") != std::string::npos);
    // One line per variant says what to do (issue 21; tests/test_bad_input.cpp checks the lines).
    CHECK(out.find("not implemented yet: fill in the TODOs of labs/lab1_cpu.cpp") != std::string::npos);
}

TEST_CASE("every student skeleton compiles", "[cpu][skeleton]") {
    std::string out;
    const int rc = sat_test::run_command("make -s labs", &out);
    INFO(out);
    REQUIRE(rc == 0);
}

TEST_CASE("every GPU skeleton runs and fails its check cleanly", "[gpu][skeleton]") {
    SAT_REQUIRE_GPU();
    std::string out;
    REQUIRE(sat_test::run_command("make -s labs", &out) == 0);
    for (const sat::LabInfo* lab : sat::all_labs()) {
        if (!lab->gpu) continue;
        // Lab 8x (number 80) is not a SAT and has its own options.
        const std::string command = lab->number == 80
                                        ? "./lab8x --size 97x89 --items 100 --capacity 500 --reps 0"
                                        : "./lab" + std::to_string(lab->number) + " --rows 97 --cols 89 --reps 0";
        const int rc = sat_test::run_command(command, &out);
        INFO(command << " printed:\n" << out);
        CHECK(rc == 1);  // a failed check or a reported spin timeout: not a crash (-1), not usage (2)
        CHECK((out.find("FAIL") != std::string::npos || out.find("spin wait timed out") != std::string::npos));
    }
}

// Every TODO of a skeleton lies in a function (or struct) that its handout names, in backticks,
// in a "Write" part: a section whose heading says "write", or a paragraph that starts with
// **Write**. The function is the last one opened at column 0 before the TODO.
namespace {
std::vector<std::string> todo_functions(const std::string& path) {
    static const std::regex skip(
        R"(^(#|//|template\b|SAT_|namespace\b|using\b|enum\b|constexpr\b|\}|static_assert|\[\[))");
    static const std::regex type_def(R"(^(?:struct|class)\s+(\w+))");
    static const std::regex call(R"(([A-Za-z_]\w*)\s*\()");
    std::ifstream file(path);
    std::vector<std::string> names;
    std::string line, current = "(none)";
    while (std::getline(file, line)) {
        std::smatch m;
        if (!line.empty() && !std::isspace(static_cast<unsigned char>(line[0])) &&
            !std::regex_search(line, skip)) {
            if (std::regex_search(line, m, type_def)) {
                current = m[1];
            } else {
                for (auto it = std::sregex_iterator(line.begin(), line.end(), call);
                     it != std::sregex_iterator(); ++it) {
                    const std::string name = (*it)[1];
                    if (name.rfind("__", 0) == 0) continue;  // __launch_bounds__, __align__
                    current = name;
                    break;
                }
            }
        }
        if (line.find("// TODO:") != std::string::npos &&
            std::find(names.begin(), names.end(), current) == names.end())
            names.push_back(current);
    }
    return names;
}

std::string write_parts(const std::string& handout) {
    std::ifstream file(handout);
    std::string line, text;
    bool inside = false;
    while (std::getline(file, line)) {
        if (line.rfind("#", 0) == 0) {
            std::string lower = line;
            for (char& ch : lower) ch = char(std::tolower(static_cast<unsigned char>(ch)));
            inside = lower.find("write") != std::string::npos;
        } else if (line.rfind("**Write**", 0) == 0) {
            inside = true;
        }
        if (inside) text += line + "\n";
    }
    return text;
}
}  // namespace

TEST_CASE("every skeleton TODO is named in its handout's Write list", "[cpu][skeleton]") {
    namespace fs = std::filesystem;
    int labs_seen = 0;
    for (const auto& entry : fs::directory_iterator("labs")) {
        const std::string file = entry.path().filename().string();
        std::smatch m;
        if (!std::regex_match(file, m, std::regex(R"(lab(\d+x?)_\w+\.(cu|cpp))"))) continue;
        ++labs_seen;
        const std::string handout = "docs/lab" + m[1].str() + ".md";
        const std::string write = write_parts(handout);
        INFO(entry.path().string() << " against " << handout);
        CHECK(!write.empty());
        const auto names = todo_functions(entry.path().string());
        CHECK(!names.empty());
        for (const std::string& name : names) {
            INFO("TODO in " << name);
            CHECK(std::regex_search(write, std::regex("`[^`\\n]*\\b" + name + "\\b[^`\\n]*`")));
        }
    }
    CHECK(labs_seen >= 10);
}
